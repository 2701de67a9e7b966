"""The systemd units pass ``systemd-analyze verify`` and the install script parses.

verify refuses a unit whose ExecStart program is missing, and boardref's and cage's
exist only on an installed Pi; so each unit is verified from a copy in which only the
program of ExecStart is replaced by one that exists. Every other line is checked as
written, and anything verify says (it warns about unknown keys but still exits 0) fails.
The install script is parsed and checked here; test_install.py runs it.
"""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

SYSTEMD = Path(__file__).resolve().parents[2] / "systemd"
UNITS = ("boardref.service", "boardref-kiosk.service")
INSTALL = SYSTEMD / "install.sh"
EXEC_START = re.compile(r"^ExecStart=(\S+)", re.MULTILINE)


def systemd_analyze() -> str:
    found = shutil.which("systemd-analyze")
    if found is None:
        pytest.skip("systemd-analyze is not installed (Debian: apt-get install systemd)")
    return found


def verify(units: list[Path]) -> str:
    """Everything systemd-analyze verify says about ``units``, with its exit code."""
    result = subprocess.run(
        [systemd_analyze(), "verify", *map(str, units)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return f"exit {result.returncode}\n{result.stdout}{result.stderr}".strip()


def runnable_copies(tmp_path: Path, units=UNITS, edit=lambda text: text) -> list[Path]:
    """Copies of ``units`` whose ExecStart runs `true` instead of the installed program."""
    true = shutil.which("true")
    copies = []
    for name in units:
        text = (SYSTEMD / name).read_text()
        assert EXEC_START.search(text), f"{name} has no ExecStart"
        copy = tmp_path / name
        copy.write_text(edit(EXEC_START.sub(f"ExecStart={true}", text)))
        copies.append(copy)
    return copies


@pytest.mark.process
def test_the_units_pass_systemd_analyze_verify(tmp_path):
    assert verify(runnable_copies(tmp_path)) == "exit 0"


@pytest.mark.process
def test_verify_as_used_here_catches_a_misspelt_setting(tmp_path):
    misspelt = runnable_copies(
        tmp_path, ("boardref.service",), lambda text: text.replace("RestartSec=", "RestartSecs=")
    )
    assert "Unknown key 'RestartSecs'" in verify(misspelt)


def test_the_service_runs_what_install_sh_installs_with_the_config_it_writes():
    script = INSTALL.read_text()
    venv = re.search(r"^venv=(\S+)$", script, re.MULTILINE).group(1)
    config = re.search(r"^config=(\S+)$", script, re.MULTILINE).group(1)
    unit = (SYSTEMD / "boardref.service").read_text()
    assert EXEC_START.search(unit).group(1) == f"{venv}/bin/boardref"
    assert f"--config {config}" in unit
    assert f"ConfigurationDirectory={Path(config).parent.name}" in unit


def test_install_sh_installs_the_udev_rule_that_is_in_the_checkout():
    rules = [path.name for path in SYSTEMD.glob("*.rules")]
    assert rules == ["99-boardref-pico.rules"]
    assert f'"$here/{rules[0]}"' in INSTALL.read_text()


@pytest.mark.process
def test_install_sh_is_valid_bash():
    result = subprocess.run(["bash", "-n", str(INSTALL)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.process
def test_install_sh_passes_shellcheck():
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is not installed (Debian: apt-get install shellcheck)")
    result = subprocess.run([shellcheck, str(INSTALL)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def exposure(unit: Path) -> float:
    """systemd-analyze's overall exposure score of ``unit`` (0 safe ... 10 unsafe)."""
    result = subprocess.run(
        [systemd_analyze(), "security", "--offline=yes", str(unit)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d)", result.stdout)
    assert found, result.stdout + result.stderr
    return float(found.group(1))


@pytest.mark.process
@pytest.mark.parametrize(
    ("unit", "most"), [("boardref.service", 2.0), ("boardref-kiosk.service", 3.0)]
)
def test_the_units_are_hardened_as_far_as_they_can_be(tmp_path, unit, most):
    """The kiosk's browser needs namespaces, the network and writable-executable memory
    of its own, so it stays above the referee; both score "OK" or better."""
    assert exposure(runnable_copies(tmp_path, (unit,))[0]) <= most


@pytest.mark.process
def test_the_exposure_check_sees_a_unit_without_hardening(tmp_path):
    bare = runnable_copies(
        tmp_path, ("boardref-kiosk.service",), lambda text: text.split("# Hardening")[0]
    )
    assert exposure(bare[0]) > 9.0
