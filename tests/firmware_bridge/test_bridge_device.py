"""The device's protocol logic and debouncing, driven with explicit readings and clocks."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge import protocol
from firmware_bridge.firmware.debounce import Debouncer
from firmware_bridge.firmware.device import Device
from firmware_bridge.protocol import (
    CONFIG_RANGES,
    Ack,
    Config,
    Decoder,
    Error,
    Hello,
    Nack,
    Ping,
    Pong,
    Scan,
    SetLeds,
    encode,
)

CELLS = 10


def _read(frames):
    return Decoder().feed(frames)


class Board:
    """A Device with its LED output recorded and a hand-driven clock."""

    def __init__(self, **settings):
        self.shown = []
        self.device = Device(
            CELLS,
            protocol.SENSOR_PRESENCE,
            "test-fw",
            lambda colors, brightness: self.shown.append((bytes(colors), brightness)),
            settings,
        )
        self.now = 1000
        self.booted = _read(self.device.boot(bytes(CELLS), self.now))

    def command(self, message, seq):
        message.seq = seq
        return _read(self.device.receive(encode(message), self.now))

    def scan(self, raw, advance=10):
        self.now += advance
        return _read(self.device.scan(bytes(raw), self.now))


def test_a_new_state_counts_only_after_agreeing_scans():
    debouncer = Debouncer(3, scans=3)
    assert not debouncer.update(b"\x01\x00\x00")
    assert not debouncer.update(b"\x01\x00\x00")
    assert debouncer.update(b"\x01\x00\x00")
    assert debouncer.state == b"\x01\x00\x00"


def test_an_interrupted_run_starts_again():
    debouncer = Debouncer(1, scans=3)
    for raw in (b"\x01", b"\x01", b"\x00", b"\x01", b"\x01"):
        assert not debouncer.update(raw)
    assert debouncer.update(b"\x01")


def test_a_different_new_state_restarts_the_count():
    debouncer = Debouncer(1, scans=2)
    assert not debouncer.update(b"\x01")
    assert not debouncer.update(b"\x02")
    assert debouncer.update(b"\x02")
    assert debouncer.state == b"\x02"


def test_boot_says_hello_and_reports_the_board_as_first_read():
    board = Device(4, protocol.SENSOR_MAGNET, "fw", lambda colors, brightness: None)
    assert _read(board.boot(b"\x00\x01\x02\x00", 0)) == [
        Hello(4, protocol.SENSOR_MAGNET, "fw"),
        Scan(0, b"\x00\x01\x02\x00"),
    ]


def test_a_change_is_sent_once_debounced_with_the_counter_raised():
    board = Board()
    raw = bytearray(CELLS)
    raw[4] = 1
    assert board.scan(raw) == []
    assert board.scan(raw) == []
    assert board.scan(raw) == [Scan(1, bytes(raw))]
    assert board.scan(raw) == []


def test_a_flickering_sensor_never_reaches_the_host():
    board = Board()
    for step in range(40):
        raw = bytearray(CELLS)
        raw[2] = step % 2
        assert board.scan(raw) == []


def test_heartbeat_repeats_the_full_board_when_nothing_moves():
    board = Board(heartbeat_ms=300)
    assert board.scan(bytes(CELLS), advance=299) == []
    assert board.scan(bytes(CELLS), advance=1) == [Scan(0, bytes(CELLS))]
    assert board.scan(bytes(CELLS), advance=299) == []


def test_full_led_frame_is_shown_and_acknowledged():
    board = Board(brightness=40)
    colors = bytes(range(3 * CELLS))
    assert board.command(SetLeds(colors), seq=5) == [Ack(seq=5)]
    assert board.shown == [(colors, 40)]


def test_short_full_frame_leaves_the_remaining_leds_dark():
    board = Board()
    board.command(SetLeds(b"\x09" * (3 * CELLS)), seq=1)
    board.command(SetLeds(b"\x01\x02\x03"), seq=2)
    assert bytes(board.device.colors) == b"\x01\x02\x03" + bytes(3 * (CELLS - 1))


def test_delta_changes_only_the_named_cells():
    board = Board()
    board.command(SetLeds(b"\x01" * (3 * CELLS)), seq=1)
    assert board.command(SetLeds(b"\x07\x08\x09", cells=b"\x09"), seq=2) == [Ack(seq=2)]
    assert bytes(board.device.colors) == b"\x01" * (3 * (CELLS - 1)) + b"\x07\x08\x09"


def test_a_retransmitted_command_is_acknowledged_but_not_repeated():
    board = Board()
    board.command(SetLeds(b"\x01" * (3 * CELLS)), seq=3)
    assert board.command(SetLeds(b"\x02" * (3 * CELLS)), seq=3) == [Ack(seq=3)]
    assert len(board.shown) == 1
    assert bytes(board.device.colors) == b"\x01" * (3 * CELLS)


@pytest.mark.parametrize(
    "frame",
    [SetLeds(b"\x01\x01\x01", cells=bytes([CELLS])), SetLeds(b"\x01" * (3 * CELLS + 3))],
    ids=["cell out of range", "frame too long"],
)
def test_led_frames_that_do_not_fit_the_board_are_rejected_untouched(frame):
    board = Board()
    assert board.command(frame, seq=4) == [Nack(4, protocol.BAD_PAYLOAD, seq=0)]
    assert board.shown == []
    assert bytes(board.device.colors) == bytes(3 * CELLS)


def test_every_device_frame_acknowledges_the_last_accepted_command():
    board = Board(heartbeat_ms=100)
    board.command(Ping(1), seq=9)
    board.command(SetLeds(b"", cells=b""), seq=10)
    board.command(Config({"brightness": 999}), seq=11)  # rejected
    assert [m.seq for m in board.scan(bytes(CELLS), advance=100)] == [10]


def test_config_is_applied_whole_or_not_at_all():
    board = Board()
    good = board.command(Config({"debounce_scans": 1, "brightness": 7}), seq=1)
    assert good == [Ack(seq=1)]
    assert board.device.debouncer.scans == 1 and board.device.settings["brightness"] == 7
    bad = board.command(Config({"heartbeat_ms": 200, "brightness": 1000}), seq=2)
    assert bad == [Nack(2, protocol.BAD_CONFIG, seq=1)]
    unknown = board.command(Config({77: 1}), seq=3)
    assert unknown == [Nack(3, protocol.BAD_CONFIG, seq=1)]
    assert board.device.settings["heartbeat_ms"] == 500


def test_new_brightness_is_shown_at_once():
    board = Board()
    board.command(Config({"brightness": 12}), seq=1)
    assert board.shown[-1][1] == 12


def test_ping_is_answered_with_its_token_and_the_uptime():
    board = Board()
    assert board.command(Ping(0xCAFE), seq=7) == [Pong(0xCAFE, board.now, seq=7)]


def test_messages_only_the_device_sends_are_unsupported_from_the_host():
    board = Board()
    assert board.command(Scan(0, b""), seq=2) == [Nack(2, protocol.UNSUPPORTED, seq=0)]


def test_hello_is_always_answered_with_hello_and_a_full_scan():
    board = Board()
    board.command(SetLeds(b""), seq=6)
    # Same seq as the last accepted command: a HELLO still counts, never a duplicate.
    assert board.command(Hello(firmware="host"), seq=6) == [
        Hello(CELLS, protocol.SENSOR_PRESENCE, "test-fw", seq=6),
        Scan(0, bytes(CELLS), seq=6),
    ]


def test_hello_from_a_host_of_another_version_gets_this_devices_hello():
    board = Board()
    answer = board.command(Hello(firmware="future host", protocol_version=3), seq=1)
    assert answer[0] == Hello(CELLS, protocol.SENSOR_PRESENCE, "test-fw", seq=1)


def test_damaged_frames_are_reported_once_with_the_heartbeat():
    board = Board(heartbeat_ms=100)
    frame = bytearray(encode(Ping(5, seq=1)))
    frame[4] ^= 0x10
    assert board.device.receive(bytes(frame) * 3, board.now) == b""
    answer = board.scan(bytes(CELLS), advance=100)
    assert answer[1] == Error(protocol.FRAMES_DROPPED, "3 damaged frames dropped since boot")
    assert len(board.scan(bytes(CELLS), advance=100)) == 1


host_commands = st.one_of(
    st.builds(Hello, firmware=st.just("host")),
    st.builds(
        SetLeds, colors=st.binary(max_size=3 * CELLS + 6).map(lambda b: b[: len(b) // 3 * 3])
    ),
    st.integers(0, 4).flatmap(
        lambda n: st.builds(
            SetLeds,
            colors=st.binary(min_size=3 * n, max_size=3 * n),
            cells=st.binary(min_size=n, max_size=n),
        )
    ),
    st.builds(Ping, token=st.integers(0, 0xFFFFFFFF)),
    st.builds(
        Config,
        settings=st.dictionaries(
            st.sampled_from(sorted(CONFIG_RANGES)), st.integers(0, 2000), max_size=3
        ),
    ),
    st.builds(Ack),
    st.builds(Scan, counter=st.just(0), cells=st.binary(max_size=4)),
)


@pytest.mark.slow
@given(st.lists(st.tuples(host_commands, st.integers(1, 255), st.binary(max_size=20)), max_size=25))
def test_every_command_gets_exactly_one_answer_whatever_comes(steps):
    board = Board()
    for message, seq, noise in steps:
        message.seq = seq
        answers = _read(board.device.receive(noise + encode(message), board.now))
        if isinstance(message, Hello):
            assert [type(m) for m in answers] == [Hello, Scan]
        else:
            assert len(answers) == 1 and isinstance(answers[0], (Ack, Nack, Pong))
        assert all(m.seq == board.device.accepted for m in answers)
    assert len(board.device.colors) == 3 * CELLS
