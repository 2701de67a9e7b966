"""systemd/install.sh run for real, without a Pi: every file it writes goes under a
temporary folder (``BOARDREF_ROOT``), the system tools it calls (apt-get, systemctl,
udevadm, the user tools, dpkg, chown) are stand-ins on the PATH that note their
arguments, and pip really installs this checkout into the venv.

The system Python is Debian's own interpreter copied into a folder of its own, so its
dist-packages can hold what apt would put there on a Pi: numpy 1.24 and a picamera2
that, like apt's (through simplejpeg), imports only beside a numpy 1.x. The install
must keep that numpy, so the camera check at its end passes.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.process

SYSTEMD = Path(__file__).resolve().parents[2] / "systemd"
INSTALL = SYSTEMD / "install.sh"
#: the Debian interpreter a Pi's venv is made from
SYSTEM_PYTHON = Path("/usr/bin/python3")
#: a numpy 1.x as Debian bookworm ships (1.24.2; 1.24.4 has wheels for Python 3.11)
SYSTEM_NUMPY = "1.24.4"
#: the system tools install.sh calls that change the machine, or say what it is
STAND_INS = ("apt-get", "systemctl", "udevadm", "useradd", "usermod", "groupadd",
             "getent", "id", "dpkg", "chown")
STAND_IN = """#!/bin/bash
name="$(basename "$0")"
printf '%s\\n' "$name $*" >>"$CALLS"
case "$name" in
    dpkg) echo "$ARCH" ;;
    id) [[ $* == -u ]] && echo 0 || exit 1 ;;  # root; no user exists yet
    getent) exit 2 ;;
esac
"""
# What apt's picamera2 does beside a numpy it was not built against.
PICAMERA2 = """import numpy
if not numpy.__version__.startswith("1."):
    raise ImportError("numpy.core.multiarray failed to import (simplejpeg was built "
                      f"against numpy 1.x; this is {numpy.__version__})")
"""
CAMERA_CONFIG = '[camera]\nsource = "picamera"\n'
#: a module an older version had, as its build left it in the checkout
LEFT_OVER = SYSTEMD.parent / "build" / "lib" / "boardref" / "moved_away.py"


def system_python(folder: Path) -> Path:
    """Debian's python3 in ``folder``/bin, finding its standard library through a link
    and its dist-packages in ``folder``/lib/python3/dist-packages, which holds numpy
    1.x and the stand-in picamera2."""
    stdlib = subprocess.run(
        [SYSTEM_PYTHON, "-c", "import sysconfig; print(sysconfig.get_path('stdlib'))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert Path(stdlib, "ensurepip").is_dir(), "apt-get install python3-venv: install.sh needs it"
    (folder / "bin").mkdir(parents=True)
    binary = folder / "bin" / Path(os.path.realpath(SYSTEM_PYTHON)).name
    shutil.copy2(os.path.realpath(SYSTEM_PYTHON), binary)  # a copy: a link finds /usr
    (folder / "bin" / "python3").symlink_to(binary.name)
    (folder / "lib").mkdir()
    (folder / "lib" / Path(stdlib).name).symlink_to(stdlib)
    dist = folder / "lib" / "python3" / "dist-packages"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--only-binary=:all:",
         "--target", dist, f"numpy=={SYSTEM_NUMPY}"],
        check=True,
    )
    (dist / "picamera2").mkdir()
    (dist / "picamera2" / "__init__.py").write_text(PICAMERA2)
    return folder / "bin" / "python3"


def run_install(tmp: Path, arch: str, python: Path = SYSTEM_PYTHON):
    """install.sh under ``tmp``/root with the stand-ins, ``arch`` as dpkg's answer: its
    result and the stand-ins' calls, one line each."""
    shims = tmp / "shims"
    shims.mkdir()
    (shims / "stand-in").write_text(STAND_IN)
    (shims / "stand-in").chmod(0o755)
    for name in STAND_INS:
        (shims / name).symlink_to("stand-in")
    calls = tmp / "calls"
    calls.touch()
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    env.update(
        # python3 from its own folder: a venv is made from the interpreter as named
        PATH=f"{shims}:{python.parent}:/usr/sbin:/usr/bin:/sbin:/bin",
        BOARDREF_ROOT=str(tmp / "root"),
        CALLS=str(calls),
        ARCH=arch,
    )
    env.pop("VIRTUAL_ENV", None)
    result = subprocess.run(
        ["bash", str(INSTALL)], env=env, capture_output=True, text=True, timeout=900
    )
    return result, calls.read_text().splitlines()


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """One install on a 64-bit system whose config names the Pi camera."""
    tmp = tmp_path_factory.mktemp("install")
    python = system_python(tmp / "system")
    config = tmp / "root" / "etc" / "boardref" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(CAMERA_CONFIG)
    # What an earlier `pip install` of an older version leaves in setuptools' build/.
    LEFT_OVER.parent.mkdir(parents=True, exist_ok=True)
    LEFT_OVER.write_text("MOVED_AWAY = True\n")
    result, calls = run_install(tmp, "arm64", python)
    noise = "WARNING: Location"  # this machine's pip settings name folders it lacks
    errors = "\n".join(line for line in result.stderr.splitlines() if noise not in line)
    assert result.returncode == 0, result.stdout[-3000:] + errors[-3000:]
    return tmp / "root", result.stdout, calls


def test_boardref_is_on_the_path_and_answers(installed):
    root, _, _ = installed
    link = root / "usr" / "local" / "bin" / "boardref"
    assert os.readlink(link) == str(root / "opt" / "boardref" / ".venv" / "bin" / "boardref")
    answer = subprocess.run([link, "--help"], capture_output=True, text=True, timeout=60)
    assert answer.returncode == 0, answer.stderr
    assert "pin-hash" in answer.stdout


def test_the_system_numpy_stays_and_the_pi_camera_loads(installed):
    root, out, _ = installed
    venv = root / "opt" / "boardref" / ".venv"
    assert not list(venv.glob("lib/python3*/site-packages/numpy"))
    loaded = subprocess.run(
        [venv / "bin" / "python", "-c", "import numpy, cv2, picamera2; print(numpy.__version__)"],
        capture_output=True, text=True, timeout=60,
    )
    assert loaded.stdout.strip() == SYSTEM_NUMPY, loaded.stderr
    assert f"keeping the system's numpy {SYSTEM_NUMPY}" in out
    assert "picamera2 loads in boardref's Python" in out


def test_what_an_older_build_left_behind_is_not_installed(installed):
    root, _, _ = installed
    venv = root / "opt" / "boardref" / ".venv"
    assert list(venv.glob("lib/python3*/site-packages/boardref/referee"))
    assert not list(venv.glob("lib/python3*/site-packages/boardref/moved_away.py"))


def test_the_next_steps_say_what_to_do(installed):
    _, out, _ = installed
    steps = out.split("== next steps", 1)[1]
    for words in (
        "No referee PIN is set",
        "run 'boardref pin-hash'",
        "under [panel] in /etc/boardref/config.toml as referee_pin_hash",
        "the panel answers on this machine only (http://127.0.0.1:8000), so phones",
        'host = "0.0.0.0"',
        "public_url = \"http://",
        "journalctl -u boardref -f",
    ):
        assert words in steps


def test_the_config_is_kept_and_the_units_and_rule_are_the_checkouts(installed):
    root, out, _ = installed
    assert (root / "etc" / "boardref" / "config.toml").read_text() == CAMERA_CONFIG
    assert "kept /etc/boardref/config.toml" in out
    for folder, name in (
        ("systemd/system", "boardref.service"),
        ("systemd/system", "boardref-kiosk.service"),
        ("udev/rules.d", "99-boardref-pico.rules"),
    ):
        assert (root / "etc" / folder / name).read_bytes() == (SYSTEMD / name).read_bytes()


def test_the_system_is_changed_by_these_calls(installed):
    _, _, calls = installed
    assert [call for call in calls if call.startswith(("apt-get", "systemctl"))] == [
        "apt-get update",
        "apt-get install -y --no-install-recommends python3-venv python3-lgpio "
        "espeak-ng alsa-utils python3-picamera2 cage chromium",
        "systemctl daemon-reload",
        "systemctl enable boardref.service",
        "systemctl restart boardref.service",
        "systemctl disable getty@tty1.service",
        "systemctl set-default graphical.target",
        "systemctl enable boardref-kiosk.service",
        "systemctl restart boardref-kiosk.service",
        "systemctl --no-pager --lines=0 status boardref.service",
    ]
    assert "groupadd --system gpio" in calls
    assert "usermod --append --groups dialout,gpio,video,audio boardref" in calls
    assert any(call.startswith("useradd --system --user-group") for call in calls)


def test_a_32_bit_system_is_refused_before_anything_changes(tmp_path):
    result, calls = run_install(tmp_path, "armhf")
    assert result.returncode == 1
    assert result.stderr.startswith(
        "boardref needs 64-bit Raspberry Pi OS (arm64); this system is 32-bit (armhf)"
    )
    assert "nothing was changed" in result.stderr
    assert calls == ["dpkg --print-architecture"]
    assert not (tmp_path / "root").exists()
