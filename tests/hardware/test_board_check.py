"""The board check flags a stuck sensor, a dead one and one that answers for its
neighbour, each injected in the simulated board, while a maker sweeps every cell."""

import json
import threading
import time

import pytest
from typer.testing import CliRunner

from boardref.cli.app import app
from firmware_bridge.host import Link
from firmware_bridge.sim import Simulator
from hardware.board_check import ANSWERS_TOO, NEVER_SEEN, OK, STUCK, BoardCheck
from tests.hardware.board_helpers import DEADLINE, wait_until

CELLS = 25
STUCK_SENSOR, DEAD_SENSOR, NEIGHBOUR, OWNER = 3, 7, 12, 11


@pytest.fixture
def faulty(tmp_path):
    mcu = Simulator(CELLS, path=str(tmp_path / "pico"), seed=3)
    mcu.stick(STUCK_SENSOR)
    mcu.kill(DEAD_SENSOR)
    mcu.couple(NEIGHBOUR, OWNER)
    with mcu:
        yield mcu


def _sweep(mcu, link=None):
    """A maker's piece on every cell in turn, each time until the board has seen it."""
    for sensor in range(CELLS):
        if sensor in (STUCK_SENSOR, DEAD_SENSOR):
            continue
        mcu.set_cell(sensor, 1)
        if link is not None:
            wait_until(lambda s=sensor: link.last_scan.cells[s] == 1)
        else:
            time.sleep(0.15)
        mcu.set_cell(sensor, 0)
        if link is not None:
            wait_until(lambda s=sensor: link.last_scan.cells[s] == 0)
        else:
            time.sleep(0.15)


@pytest.mark.slow
def test_board_check_flags_stuck_dead_and_neighbour_sensors(faulty):
    link = Link(faulty.path)
    link.open(timeout=DEADLINE)
    try:
        check = BoardCheck(CELLS, [f"c{n}" for n in range(CELLS)])
        check.take_scan(bytes(link.last_scan.cells))
        link.subscribe(lambda scan: check.take_scan(bytes(scan.cells)))
        _sweep(faulty, link)
        report = check.report(link.counters())
    finally:
        link.close()
    flags = {entry["sensor"]: entry["flag"] for entry in report["sensors"]}
    assert flags[STUCK_SENSOR] == STUCK
    assert flags[DEAD_SENSOR] == NEVER_SEEN
    assert flags[NEIGHBOUR] == ANSWERS_TOO
    assert report["sensors"][NEIGHBOUR]["answers_for"] == OWNER
    others = set(range(CELLS)) - {STUCK_SENSOR, DEAD_SENSOR, NEIGHBOUR}
    assert {flags[sensor] for sensor in others} == {OK}
    assert report["sensors"][OWNER]["changes"] == 2
    assert report["sensors"][NEIGHBOUR]["changes"] == 4
    assert report["link"]["frames"] > 0
    assert report["link"]["crc_errors"] == 0
    said = [f["key"] for f in report["findings"]]
    assert said == ["board.stuck", "board.never_seen", "board.answers_too"]
    assert str(check.findings()[2]) == (
        "Sensor 12 (cell c12) answers to the piece at sensor 11 (cell c11) too: it sees its "
        "neighbour's piece (sensor off-centre, magnet too strong)"
    )


@pytest.mark.slow
def test_a_healthy_board_swept_once_has_no_findings(tmp_path):
    with Simulator(CELLS, path=str(tmp_path / "pico"), seed=3) as mcu:
        link = Link(mcu.path)
        link.open(timeout=DEADLINE)
        try:
            check = BoardCheck(CELLS)
            check.take_scan(bytes(link.last_scan.cells))
            link.subscribe(lambda scan: check.take_scan(bytes(scan.cells)))
            for sensor in range(CELLS):
                mcu.set_cell(sensor, 1)
                wait_until(lambda s=sensor: link.last_scan.cells[s] == 1)
                mcu.set_cell(sensor, 0)
                wait_until(lambda s=sensor: link.last_scan.cells[s] == 0)
        finally:
            link.close()
    assert check.findings() == []


@pytest.mark.slow
def test_board_check_command_reports_the_faults_as_json(faulty):
    sweeping = threading.Thread(target=_sweep, args=(faulty,), daemon=True)
    sweeping.start()
    result = CliRunner().invoke(
        app,
        [
            "board",
            "check",
            "--device",
            faulty.path,
            "--game",
            "catch_the_hare",
            "--json",
            "--seconds",
            "12",
        ],
    )
    sweeping.join(timeout=DEADLINE)
    assert result.exit_code == 1, result.output
    report = json.loads(result.output.strip().splitlines()[-1])
    flags = {entry["sensor"]: entry["flag"] for entry in report["sensors"]}
    assert (flags[STUCK_SENSOR], flags[DEAD_SENSOR], flags[NEIGHBOUR]) == (
        STUCK,
        NEVER_SEEN,
        ANSWERS_TOO,
    )
    assert report["sensors"][0]["cell"] == "a1"


@pytest.mark.slow
def test_board_check_command_says_when_no_board_answers(tmp_path):
    result = CliRunner().invoke(
        app, ["board", "check", "--device", str(tmp_path / "none"), "--game", "catch_the_hare"]
    )
    assert result.exit_code == 1
    assert "no board on" in result.output
