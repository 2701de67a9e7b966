"""The suite's tiers. A test that starts Chromium is marked ``browser``, one that
starts a mosquitto broker ``broker``, one that starts any other process (the
service, a renderer, a fork) ``process``; ``make test-fast`` leaves those out, and
the unit tests of a second or more, marked ``slow``. The shared fixtures that start them
mark their tests themselves; a test that starts one without its marker fails,
naming the marker, before anything starts, so no such test lands in the fast tier
by a forgotten mark. A ``-m`` naming a marker the suite does not have is refused.
Nothing here skips or deselects a test on its own.

Hypothesis's settings for the whole suite are here too: a generated test judges what
the code does, never how fast a shared, busy machine runs it (speed is measured in
bench/), so there is no deadline and no too-slow check."""

from __future__ import annotations

import multiprocessing.util
import os
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")

#: the markers of the tiers that start something outside the test's process
TIERS = ("browser", "broker", "process")

#: the fixtures that start something for the tests that use them, shared
#: (tests/boardref/conftest.py, at_the_table.py, the fleet's broker), and their tier
TIER_OF_FIXTURE = {
    "browser": "browser",
    "kiosk": "browser",
    "people": "browser",
    "sim_table": "process",
    "broker": "broker",
}

#: the test running now, and what it started without the marker of its tier
_running: pytest.Item | None = None
_unmarked: list[str] = []


class UnmarkedTier(RuntimeError):
    """A test started what its tier's marker must announce; nothing was started."""


def _words(command) -> list[str]:
    """A command as subprocess takes it (a string, a path or a sequence), in words."""
    if isinstance(command, (list, tuple)):
        return [str(word) for word in command]
    return [str(command)]


def _tier_of(words: list[str]) -> str:
    """The tier of a command about to start: Playwright's driver starts Chromium."""
    if "run-driver" in words:
        return "browser"
    if Path(words[0]).name == "mosquitto":
        return "broker"
    return "process"


def _starting(command) -> None:
    item = _running
    if item is None:  # collection, or a session's own workers
        return
    words = _words(command)
    tier = _tier_of(words)
    marks = {mark.name for mark in item.iter_markers()}
    if tier in marks or (tier == "process" and marks & set(TIERS)):
        return
    what = " ".join(words)[:120]
    unmarked = f"{item.nodeid} starts {what} but is not marked {tier}: add pytest.mark.{tier}"
    # kept for the report as well, where a thread (Playwright's) swallows the error
    _unmarked.append(unmarked)
    raise UnmarkedTier(unmarked)


def _watched(start, command_of):
    def watching(*args, **kwargs):
        _starting(command_of(*args, **kwargs))
        return start(*args, **kwargs)

    return watching


# Every way a test starts a process passes here: subprocess and asyncio through
# Popen, multiprocessing's spawn and forkserver through spawnv_passfds, its fork
# context and anything else through os.fork.
subprocess.Popen._execute_child = _watched(
    subprocess.Popen._execute_child, lambda popen, args, *rest, **named: args
)
multiprocessing.util.spawnv_passfds = _watched(
    multiprocessing.util.spawnv_passfds, lambda path, args, passfds: args
)
os.fork = _watched(os.fork, lambda: ["fork"])


@pytest.hookimpl(trylast=True)  # after the plugins have registered their markers
def pytest_configure(config):
    """A ``-m`` that names no marker of the suite would select silently what it
    happens to match: it is refused in one sentence."""
    known = {line.split(":")[0].split("(")[0].strip() for line in config.getini("markers")}
    named = set(re.findall(r"[A-Za-z_]\w*", config.option.markexpr or "")) - {"and", "or", "not"}
    if named - known:
        unknown = ", ".join(sorted(named - known))
        raise pytest.UsageError(
            f"-m names {unknown}, no marker of this suite (pyproject.toml lists them)"
        )


def pytest_collection_modifyitems(config, items):
    for item in items:
        for fixture in getattr(item, "fixturenames", ()):
            if fixture in TIER_OF_FIXTURE:
                item.add_marker(TIER_OF_FIXTURE[fixture])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    global _running
    _running = item
    _unmarked.clear()
    try:
        yield
    finally:
        _running = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if _unmarked:
        report.outcome = "failed"
        report.longrepr = "\n".join(_unmarked)
        _unmarked.clear()
