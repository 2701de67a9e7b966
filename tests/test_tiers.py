"""The tiers hold: a test that starts a process, a broker or Chromium without its
marker fails naming the marker, a marked one passes, a ``-m`` naming an unknown
marker is refused, and a run that selects nothing is not a pass. Each case is a
pytest of its own on a scratch suite that has the tiers' conftest.py."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.process

TESTS = Path(__file__).resolve().parent

SUITE = """
import subprocess
import pytest

def test_unmarked():
    subprocess.run(["true"], check=True)

@pytest.mark.process
def test_marked():
    subprocess.run(["true"], check=True)

@pytest.mark.process
def test_broker_in_the_process_tier():
    subprocess.run(["./mosquitto"], check=True)

@pytest.mark.process
def test_browser_in_the_process_tier():
    subprocess.run(["true", "run-driver"])

def test_starts_nothing():
    assert True
"""


@pytest.fixture
def suite(tmp_path):
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "mosquitto").symlink_to(shutil.which("true"))
    pyproject = tomllib.loads((TESTS.parent / "pyproject.toml").read_text())
    markers = pyproject["tool"]["pytest"]["ini_options"]["markers"]
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\naddopts = --strict-markers -p no:cacheprovider\nmarkers =\n"
        + "".join(f"    {marker}\n" for marker in markers)
    )
    (tmp_path / "test_suite.py").write_text(SUITE)
    return tmp_path


def pytest_in(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-rA", *args], cwd=folder, capture_output=True, text=True
    )


def test_what_starts_something_unmarked_fails_naming_its_marker(suite):
    run = pytest_in(suite)
    assert run.returncode == 1, run.stdout
    failed = [line for line in run.stdout.splitlines() if line.startswith("FAILED")]
    assert len(failed) == 3, run.stdout
    assert "starts true but is not marked process: add pytest.mark.process" in run.stdout
    assert "not marked broker: add pytest.mark.broker" in run.stdout
    assert "not marked browser: add pytest.mark.browser" in run.stdout
    assert "PASSED test_suite.py::test_marked" in run.stdout
    assert "PASSED test_suite.py::test_starts_nothing" in run.stdout


def test_the_fast_tier_leaves_the_marked_out(suite):
    run = pytest_in(suite, "-m", "not browser and not broker and not process and not slow")
    assert "1 failed, 1 passed, 3 deselected" in run.stdout, run.stdout


def test_an_unknown_marker_is_refused(suite):
    run = pytest_in(suite, "-m", "not browsr")
    assert run.returncode == 4
    assert "-m names browsr, no marker of this suite" in run.stderr
    assert "Traceback" not in run.stderr + run.stdout


def test_a_run_that_selects_nothing_fails(suite):
    assert pytest_in(suite, "-m", "slow").returncode == 5
