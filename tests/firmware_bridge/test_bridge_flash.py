"""`boardref firmware flash`: the documented mpremote sequence, and the words it says
when the board's firmware is not the one this host ships."""

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from boardref.cli.app import app
from firmware_bridge.flash import mpremote_command, shipped_firmware
from firmware_bridge.sim import Simulator

README = Path(__file__).parents[2] / "firmware_bridge" / "firmware" / "README.md"


def _flash(*args):
    return CliRunner().invoke(app, ["firmware", "flash", *args])


def test_the_command_runs_the_mpremote_sequence_the_readme_documents():
    text = README.read_text()
    documented = re.search(r"mpremote connect (\S+) fs cp (.*?) : \+ reset", text, re.S)
    files = documented.group(2).replace("\\\n", " ").split()
    command = mpremote_command("/dev/boardref-pico")
    assert command[:5] == ["mpremote", "connect", documented.group(1), "fs", "cp"]
    assert [str(Path(p).relative_to(README.parents[2])) for p in command[5:-3]] == files
    assert command[-3:] == [":", "+", "reset"]


def test_a_board_with_the_shipped_version_passes(tmp_path):
    with Simulator(25, path=str(tmp_path / "pico")) as mcu:
        result = _flash("--check-only", "--device", mcu.path)
    assert result.exit_code == 0, result.output
    assert "the board runs the firmware this boardref ships" in result.output


def test_an_older_firmware_is_named_with_what_to_do(tmp_path):
    with Simulator(25, path=str(tmp_path / "pico"), firmware="boardref-fw 0.0.9") as mcu:
        result = _flash("--check-only", "--device", mcu.path)
    assert result.exit_code == 1
    assert (
        f"runs boardref-fw 0.0.9, this boardref ships {shipped_firmware()}: fit the "
        "maintenance jumper (GP14 to GND), replug the USB cable, run `boardref firmware "
        "flash` again" in result.output
    )


def test_another_protocol_version_is_named_with_what_to_do(tmp_path):
    with Simulator(25, path=str(tmp_path / "pico"), protocol_version=2) as mcu:
        result = _flash("--check-only", "--device", mcu.path)
    assert result.exit_code == 1
    assert "speaks protocol version 2" in result.output
    assert "flash the firmware that ships with this boardref" in result.output


@pytest.mark.process
def test_a_missing_mpremote_is_said_in_words(tmp_path):
    result = _flash("--device", str(tmp_path / "pico"), "--mpremote", str(tmp_path / "nope"))
    assert result.exit_code == 1
    assert "not found: install it with `pip install mpremote`" in result.output
