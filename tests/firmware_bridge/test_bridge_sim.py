"""The simulated board: its controls in-process and from the command line."""

import os
import signal
import subprocess
import sys
import time

import pytest
from bridge_helpers import DEADLINE, Recorder, wait_for

from firmware_bridge.host import UP, Link
from firmware_bridge.sim import Simulator


def test_the_board_settles_back_to_the_truth_after_flicker(sim, link, recorder):
    sim.set_cell(4, 1)
    wait_for(lambda: recorder.board == sim.board)
    sim.flicker(4, 0.3)
    sim.flicker(5, 0.3)
    # Past the flicker and any scan still on its way, the board reads true again.
    settled = time.monotonic() + 0.5
    wait_for(lambda: time.monotonic() > settled and recorder.board == sim.board)
    assert link.last_scan.cells[4:6] == b"\x01\x00"


def test_a_resting_board_is_scanned_for_its_heartbeat_only_and_still_feels_a_piece(
    sim, link, recorder
):
    wait_for(lambda: recorder.board == sim.board)
    device, scans = sim.device, []
    scan = device.scan
    device.scan = lambda *args: scans.append(args) or scan(*args)
    time.sleep(0.5)  # 125 scans at the firmware's scan period, one or two heartbeats
    assert len(scans) < 10
    sim.set_cell(7, 1)
    wait_for(lambda: recorder.board == sim.board)
    assert link.last_scan.cells[7] == 1


def test_a_noisy_board_still_reads_true_through_debouncing(tmp_path):
    recorder = Recorder()
    noisy = Simulator(cells=64, noise=0.05, path=str(tmp_path / "noisy"), seed=5)
    with noisy as sim, Link(sim.path) as link:
        link.subscribe(recorder)
        link.open(timeout=DEADLINE)
        sim.set_board(bytes([1, 0]) * 32)
        wait_for(lambda: link.last_scan.cells == sim.board)


def test_set_board_refuses_the_wrong_size(sim):
    with pytest.raises(ValueError, match="121 cells"):
        sim.set_board(b"\x00")


def test_unplugged_simulator_has_no_device_path(sim):
    sim.unplug()
    assert not os.path.exists(sim.path)
    sim.plug()
    assert os.path.exists(sim.path)


@pytest.mark.process
def test_command_line_simulator_takes_controls_on_stdin(tmp_path):
    path = str(tmp_path / "cli-pico")
    process = subprocess.Popen(
        [sys.executable, "-m", "firmware_bridge.sim", "--cells", "16", "--path", path],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout.readline().strip() == path
        recorder = Recorder()
        with Link(path) as link:
            link.subscribe(recorder)
            link.open(timeout=DEADLINE)

            def ask(line):
                process.stdin.write(line + "\n")
                process.stdin.flush()
                return process.stdout.readline().strip()

            assert ask("set 3 1") == "ok"
            wait_for(lambda: recorder.board == bytes([0, 0, 0, 1] + [0] * 12))
            assert ask("board").split() == ["0", "0", "0", "1"] + ["0"] * 12
            link.set_leds([(0, 0, 9)] * 16)
            wait_for(lambda: link.shown is not None)
            assert ask("leds") == "000009" * 16
            assert ask("inject 00ff00") == "ok"
            assert ask("unplug") == "ok"
            wait_for(lambda: link.state != UP)
            assert ask("plug") == "ok"
            wait_for(lambda: link.state == UP)
            assert ask("dance").startswith("commands:")
            assert ask("set x 1").startswith("error:")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=DEADLINE) == 0
        assert not os.path.exists(path)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
