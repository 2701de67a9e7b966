"""Helpers for the firmware bridge tests: waiting on outcomes and recording scans."""

import time

import pytest

# Generous: the tests assert what happens, the bench measures how fast.
DEADLINE = 10.0


def wait_for(condition, timeout=DEADLINE):
    """Poll ``condition`` until it is true; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"condition not met within {timeout} s: {condition.__doc__ or condition}")
        time.sleep(0.005)


class Recorder:
    """A scan subscriber that keeps everything it was given."""

    def __init__(self):
        self.scans = []

    def __call__(self, scan):
        self.scans.append(scan)

    @property
    def board(self):
        return self.scans[-1].cells if self.scans else None
