"""End to end over a pseudo-terminal: the host driver against the simulated board."""

import random

import pytest
from bridge_helpers import DEADLINE, Recorder, wait_for

from firmware_bridge import protocol
from firmware_bridge.host import DOWN, INCOMPATIBLE, UP, Link, LinkError, ProtocolVersionError
from firmware_bridge.sim import Simulator

RED = (255, 0, 0)
DARK = (0, 0, 0)


def _board(*occupied, cells=121):
    board = bytearray(cells)
    for cell in occupied:
        board[cell] = 1
    return bytes(board)


def _colors(lit, color=RED, cells=121):
    return bytes(channel for cell in range(cells) for channel in (color if cell in lit else DARK))


def test_handshake_reports_the_board(link):
    assert link.state == UP
    assert link.hello.cells == 121
    assert link.hello.sensor_kind == protocol.SENSOR_PRESENCE
    assert link.last_scan.cells == _board()


def test_cell_changes_arrive_as_scans(sim, link, recorder):
    for cell in (0, 17, 120):
        sim.set_cell(cell, 1)
    wait_for(lambda: recorder.board == _board(0, 17, 120))
    sim.set_cell(17, 0)
    wait_for(lambda: recorder.board == _board(0, 120))
    counters = [scan.counter for scan in recorder.scans]
    assert counters == sorted(counters)


@pytest.mark.slow
def test_heartbeats_keep_coming_while_nothing_moves(link):
    before = link.counters()["scans"]
    wait_for(lambda: link.counters()["scans"] >= before + 3)


@pytest.mark.slow
def test_an_idle_link_sleeps_between_the_boards_heartbeats(link, monkeypatch):
    """The link thread waits for bytes instead of polling: while nothing moves it wakes
    for the heartbeats (every 500 ms) and little else."""
    wakes = []
    receive = link._receive

    def counted(*args):
        wakes.append(args)
        return receive(*args)

    monkeypatch.setattr(link, "_receive", counted)
    before = link.counters()["scans"]
    wait_for(lambda: link.counters()["scans"] >= before + 4)
    heartbeats = link.counters()["scans"] - before
    # a heartbeat may come in a few reads; a link polling every 20 ms reads 25 times each
    assert len(wakes) <= 3 * heartbeats


def test_led_frames_are_acknowledged_and_shown(sim, link):
    full = _colors({3, 4, 5})
    link.set_leds(full)
    wait_for(lambda: link.shown == full)
    assert sim.leds == full
    # One more lit cell: travels as a delta, lands the same.
    delta = _colors({3, 4, 5, 99})
    link.set_leds(delta)
    wait_for(lambda: link.shown == delta)
    assert sim.leds == delta
    assert link.counters()["nacks"] == 0


def test_led_colours_given_as_triples_are_accepted(sim, link):
    link.set_leds([(cell, 0, 255 - cell) for cell in range(121)])
    wait_for(lambda: sim.leds[3:6] == bytes([1, 0, 254]))


def test_led_frame_for_the_wrong_number_of_cells_is_refused_at_once(link):
    with pytest.raises(ValueError, match="121 LEDs"):
        link.set_leds([RED] * 120)


def test_only_the_newest_led_frame_reaches_a_busy_device(sim, link):
    sim.stall(0.5)
    frames = [_colors({cell}) for cell in range(40)]
    for frame in frames:
        link.set_leds(frame)
    wait_for(lambda: sim.leds == frames[-1] and link.shown == frames[-1])
    # Coalesced: far fewer frames than requests went out.
    assert sim.device.decoder.frames < len(frames) // 2


def test_ping_measures_a_round_trip(link):
    assert 0 < link.ping(timeout=DEADLINE) < DEADLINE


def test_settings_reach_the_device_and_survive_its_reboot(sim, link):
    link.configure(heartbeat_ms=200, brightness=10)
    wait_for(lambda: sim.device.settings["heartbeat_ms"] == 200)
    sim.unplug()
    sim.plug()
    wait_for(lambda: link.state == UP and sim.device.settings["brightness"] == 10)


def test_invalid_settings_are_refused_at_once(link):
    with pytest.raises(ValueError):
        link.configure(brightness=300)
    with pytest.raises(ValueError):
        link.configure(colour=1)


def test_unplug_is_noticed_and_replug_resynchronises_without_losing_a_change(sim, link, recorder):
    states = []
    link.subscribe_state(lambda state, error: states.append((state, error)))
    lit = _colors({1, 2})
    link.set_leds(lit)
    wait_for(lambda: link.shown == lit)
    sim.unplug()
    # the state changes first, then the listeners hear it on the link's thread
    wait_for(lambda: states)
    assert states[0][0] == DOWN and "lost" in states[0][1]
    # A piece moves while the cable is out.
    sim.set_cell(42, 1)
    sim.plug()
    wait_for(lambda: link.state == UP)
    wait_for(lambda: recorder.board == _board(42))
    # The freshly booted device is given its LEDs back.
    wait_for(lambda: sim.leds == lit)
    assert link.counters()["reconnects"] == 1


@pytest.mark.slow
def test_a_silent_device_is_declared_dead_and_recovered(sim, link, recorder):
    sim.stall(60)
    wait_for(lambda: link.state != UP)
    assert "no frame" in link.error
    sim.set_cell(7, 1)
    sim.stall(0)
    wait_for(lambda: link.state == UP and recorder.board == _board(7))


@pytest.mark.slow
def test_unanswered_led_frames_are_retransmitted_and_land_after_recovery(sim, link):
    sim.stall(60)
    lit = _colors({9})
    link.set_leds(lit)
    wait_for(lambda: link.state != UP)
    assert link.counters()["retransmits"] >= 1
    sim.stall(0)
    wait_for(lambda: link.state == UP and sim.leds == lit and link.shown == lit)


def test_the_link_finds_a_board_plugged_in_later(tmp_path):
    path = str(tmp_path / "later")
    recorder = Recorder()
    with Link(path) as link:
        link.subscribe(recorder)
        link.open()
        wait_for(lambda: link.state == DOWN)
        with Simulator(cells=8, path=path) as sim:
            sim.set_cell(3, 1)
            wait_for(lambda: recorder.board == _board(3, cells=8))


def test_a_pyserial_url_reaches_the_board(sim, tmp_path):
    recorder = Recorder()
    log = tmp_path / "traffic.txt"
    with Link(f"spy://{sim.path}?file={log}") as link:
        link.subscribe(recorder)
        link.open(timeout=DEADLINE)
        sim.set_cell(8, 1)
        wait_for(lambda: recorder.board == _board(8))
    assert log.read_text()


def test_open_with_timeout_fails_clearly_without_a_board(tmp_path):
    with Link(str(tmp_path / "nothing")) as link, pytest.raises(LinkError, match="no board"):
        link.open(timeout=0.3)


def test_wrong_protocol_version_gives_a_clear_error(tmp_path):
    future = Simulator(cells=8, path=str(tmp_path / "future"), protocol_version=2)
    with future as sim, Link(sim.path) as link:
        with pytest.raises(ProtocolVersionError) as raised:
            link.open(timeout=DEADLINE)
        assert link.state == INCOMPATIBLE
    message = str(raised.value)
    assert "protocol version 2" in message and "speaks version 1" in message
    assert "flash the firmware" in message


def test_garbage_on_the_line_is_counted_and_the_board_still_arrives(sim, link, recorder):
    rng = random.Random(3)
    for _ in range(20):
        sim.inject(rng.randbytes(200))
    sim.inject(b"\x00" + bytes(rng.randrange(1, 256) for _ in range(2000)))
    sim.set_cell(60, 1)
    wait_for(lambda: recorder.board == _board(60))
    assert link.counters()["dropped"] > 0
    assert link.state == UP


def test_a_failing_subscriber_does_not_starve_the_others(sim, link, recorder):
    def broken(scan):
        raise RuntimeError("subscriber bug")

    link.subscribe(broken)
    later = Recorder()
    link.subscribe(later)
    sim.set_cell(11, 1)
    wait_for(lambda: later.board == _board(11) and recorder.board == _board(11))


def test_unsubscribed_callers_hear_nothing_more(sim, link):
    quiet = Recorder()
    unsubscribe = link.subscribe(quiet)
    unsubscribe()
    sim.set_cell(2, 1)
    wait_for(lambda: link.last_scan.cells == _board(2))
    assert quiet.scans == []


def test_close_releases_the_port_and_stops(sim, link):
    link.close()
    assert link.state == "closed"
    # The port is free again: a new link can take it.
    with Link(sim.path) as again:
        again.open(timeout=DEADLINE)
        assert again.state == UP
