"""Calibrating a magnet board: a sensor that rests high and one that swings weakly
read wrongly with the firmware's default thresholds and rightly once calibrated."""

import threading
import time

import pytest

from boardref.cli.bringup import run_calibrate
from firmware_bridge import protocol
from firmware_bridge.host import Link
from firmware_bridge.sim import Simulator
from hardware.calibration import NORTH_UP, SOUTH_UP, thresholds
from hardware.wiring import Wiring, wiring_path
from tests.hardware.board_helpers import DEADLINE, wait_until

CELLS = 9
RESTS_HIGH, WEAK = 2, 5


def _sweeper(mcu, heard):
    """A maker who sweeps a piece of the asked kind over every cell when told to."""

    def sweep(state):
        for cell in range(CELLS):
            mcu.set_cell(cell, state)
            time.sleep(0.2)
            mcu.set_cell(cell, 0)
            time.sleep(0.1)

    def tell(said):
        heard.append(said)
        if "north-up piece on every cell" in said:
            threading.Thread(target=sweep, args=(protocol.PRESENT,), daemon=True).start()
        elif "south-up piece on every cell" in said:
            threading.Thread(target=sweep, args=(protocol.SOUTH_UP,), daemon=True).start()

    return tell


@pytest.mark.slow
def test_calibration_makes_a_high_resting_and_a_weak_sensor_read_right(tmp_path):
    mcu = Simulator(CELLS, path=str(tmp_path / "pico"), sensor_kind=protocol.SENSOR_MAGNET)
    mcu.tune(RESTS_HIGH, baseline=32768 + 6500)  # reads a piece on an empty cell
    mcu.tune(WEAK, gain=0.4)  # its piece moves it less than the default threshold
    with mcu:
        link = Link(mcu.path)
        link.open(timeout=DEADLINE)
        try:
            wait_until(lambda: link.last_scan.cells[RESTS_HIGH] == protocol.PRESENT)
            mcu.set_cell(WEAK, protocol.PRESENT)
            time.sleep(0.3)
            assert link.last_scan.cells[WEAK] == protocol.EMPTY
            mcu.set_cell(WEAK, 0)

            cells = [f"c{n}" for n in range(CELLS)]
            wiring = Wiring.straight("test", cells)
            heard = []
            calibration = run_calibrate(
                link, wiring, tmp_path, [NORTH_UP, SOUTH_UP], DEADLINE * 3, _sweeper(mcu, heard)
            )
            assert calibration.findings == []
            assert abs(calibration.baseline[RESTS_HIGH] - (32768 + 6500)) < 10

            wait_until(lambda: link.last_scan.cells == bytes(CELLS))
            mcu.set_cell(WEAK, protocol.PRESENT)
            wait_until(lambda: link.last_scan.cells[WEAK] == protocol.PRESENT)
            mcu.set_cell(WEAK, protocol.SOUTH_UP)
            wait_until(lambda: link.last_scan.cells[WEAK] == protocol.SOUTH_UP)
            mcu.set_cell(RESTS_HIGH, protocol.PRESENT)
            wait_until(lambda: link.last_scan.cells[RESTS_HIGH] == protocol.PRESENT)
        finally:
            link.close()
    stored = Wiring.load(wiring_path(tmp_path, "test"), cells)
    assert stored.calibration == calibration.to_json()


def test_a_sensor_that_never_saw_a_kind_keeps_the_default_and_is_named():
    found = thresholds([32768, 33000], {NORTH_UP: [44768, None]}, ["a1", "b1"])
    assert found.north == [32768 + 6000, 33000 + 6000]
    assert [str(said) for said in found.findings] == [
        "b1 never saw a north-up piece: it keeps the default threshold"
    ]
