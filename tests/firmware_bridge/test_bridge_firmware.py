"""The RP2040 firmware (main.py, sensors.py, leds.py) under CPython, on the same fakes
of ``machine`` and ``rp2`` it runs on under MicroPython (``micropython/``): the test
lays pieces on ``pico_board`` through ``pico_host``'s control lines and reads the LED
strip's words back."""

import importlib
import io
import os
import sys
import time
from pathlib import Path

import pytest

from firmware_bridge import protocol
from firmware_bridge.protocol import Ack, Decoder, Error, Hello, Scan, SetLeds, encode

FAKES = [Path(__file__).parent / "cpython", Path(__file__).parent / "micropython"]
_FRESH = (
    "machine",
    "rp2",
    "micropython",
    "pico_board",
    "pico_host",
    "firmware_bridge.firmware.main",
    "firmware_bridge.firmware.sensors",
    "firmware_bridge.firmware.leds",
)


class Board:
    """The fake board a test lays out, as lines to ``pico_board`` through ``pico_host``."""

    def __init__(self, board, host):
        self.board, self.host = board, host

    def size(self, cells: int) -> None:
        self.board.cells = bytearray(cells)

    def lay(self, *magnets: int, state: int = 1) -> None:
        """Put pieces on ``magnets`` (``state`` 1 north up, 2 south up), none elsewhere."""
        self.host.lines += [f"set {cell} 0" for cell in range(len(self.board.cells))]
        self.host.lines += [f"set {cell} {state}" for cell in magnets]

    def read(self, cell: int, value: int) -> None:
        """Make the hall sensor of ``cell`` read ``value`` on the ADC."""
        self.host.lines.append(f"raw {cell} {value}")

    def break_chain(self) -> None:
        self.host.lines.append("break")

    def strip(self) -> list[int]:
        """The words last sent to the LED strip, 24 bits each, green first."""
        shown = [line for line in self.host.reports if line.startswith("leds ")][-1][5:]
        return [int(shown[n : n + 6], 16) for n in range(0, len(shown), 6)]


@pytest.fixture
def hardware(monkeypatch):
    """The firmware's ``main`` on fresh fakes of ``machine``, ``rp2`` and ``micropython``,
    with ``machine``, the ``Board`` on them and the fake ``micropython`` module."""
    for folder in reversed(FAKES):
        monkeypatch.syspath_prepend(str(folder))
    for name in _FRESH:
        monkeypatch.delitem(sys.modules, name, raising=False)
    main = importlib.import_module("firmware_bridge.firmware.main")
    board = Board(sys.modules["pico_board"], sys.modules["pico_host"])
    board.size(121)
    yield main, sys.modules["machine"], board, sys.modules["micropython"]
    for name in _FRESH:
        sys.modules.pop(name, None)


class Host:
    """The host's end of the USB serial line: a pipe into the firmware, bytes out."""

    def __init__(self):
        read_end, self._write_end = os.pipe()
        self.line = open(read_end, "rb", buffering=0)  # noqa: SIM115 -- closed in close()
        self.received = io.BytesIO()
        self._decoder = Decoder()

    def send(self, message, seq):
        message.seq = seq
        os.write(self._write_end, encode(message))

    def messages(self):
        """What the firmware sent since the last call."""
        found = self._decoder.feed(self.received.getvalue())
        self.received.seek(0)
        self.received.truncate()
        return found

    def close(self):
        self.line.close()
        os.close(self._write_end)


@pytest.fixture
def host():
    line = Host()
    yield line
    line.close()


def _board(states, cells=121):
    board = bytearray(cells)
    for cell, state in states.items():
        board[cell] = state
    return bytes(board)


def _firmware(main, host, **changes):
    config = dict(main.CONFIG, **changes)
    return main.Firmware(config, host.line, host.received)


def test_boot_announces_the_board_as_read(hardware, host):
    main, _, board, _ = hardware
    board.lay(0, 64)
    firmware = _firmware(main, host)
    firmware.start(0)
    assert host.messages() == [
        Hello(121, protocol.SENSOR_PRESENCE, main.FIRMWARE),
        Scan(0, _board({0: 1, 64: 1})),
    ]
    assert board.board.watchdog_ms == main.CONFIG["watchdog_ms"]


def test_a_placed_piece_is_reported_after_debouncing_and_the_watchdog_fed(hardware, host):
    main, _, board, _ = hardware
    firmware = _firmware(main, host)
    firmware.start(0)
    host.messages()
    board.lay(120)
    for now in (10, 20):
        firmware.step(now)
        assert host.messages() == []
    firmware.step(30)
    assert host.messages() == [Scan(1, _board({120: 1}))]
    assert board.board.feeds == 3


def test_led_command_reaches_the_strip_green_first_and_dimmed(hardware, host):
    main, _, board, _ = hardware
    firmware = _firmware(main, host, settings={"brightness": 128})
    firmware.start(0)
    host.messages()
    colors = bytearray(3 * 121)
    colors[0:3] = bytes([255, 10, 200])
    host.send(SetLeds(bytes(colors)), seq=1)
    firmware.step(10)
    assert host.messages() == [Ack(seq=1)]
    words = board.strip()
    assert len(words) == 121
    green, red, blue = 10 * 128 // 255, 255 * 128 // 255, 200 * 128 // 255
    assert words[0] == (green << 16) | (red << 8) | blue
    assert set(words[1:]) == {0}


def test_a_broken_chain_is_reported_once(hardware, host):
    main, _, board, _ = hardware
    board.break_chain()
    firmware = _firmware(main, host)
    firmware.start(0)
    host.messages()
    firmware.step(10)
    firmware.step(20)
    errors = [m for m in host.messages() if isinstance(m, Error)]
    assert [e.code for e in errors] == [protocol.SENSOR_FAULT]
    assert "chain" in errors[0].detail


def test_mux_board_tells_the_poles_apart(hardware, host):
    main, _, board, _ = hardware
    board.size(40)
    for cell, value in {3: 52000, 17: 9000, 30: 36000}.items():
        board.read(cell, value)
    firmware = _firmware(main, host, sensor="cd74hc4067", cells=40)
    firmware.start(0)
    hello, scan = host.messages()
    assert hello.sensor_kind == protocol.SENSOR_MAGNET
    # 30 is within the threshold of the idle level: empty.
    assert scan.cells == _board({3: protocol.PRESENT, 17: protocol.SOUTH_UP}, cells=40)


def test_mux_board_with_dead_sensors_reports_a_fault(hardware, host):
    main, _, board, _ = hardware
    board.size(40)
    for cell in range(40):
        board.read(cell, 0)
    firmware = _firmware(main, host, sensor="cd74hc4067", cells=40)
    firmware.start(0)
    host.messages()
    firmware.step(10)
    assert [m.code for m in host.messages() if isinstance(m, Error)] == [protocol.SENSOR_FAULT]


def test_unknown_sensor_kind_is_refused(hardware, host):
    main, _, _, _ = hardware
    with pytest.raises(ValueError, match="74hc165"):
        _firmware(main, host, sensor="reed")


def test_a_watchdog_reset_is_reported_after_boot(hardware, host):
    main, machine, board, _ = hardware
    board.board.reset_cause = machine.WDT_RESET
    _firmware(main, host).start(0)
    assert host.messages()[-1] == Error(protocol.WATCHDOG_RESET, "the previous run hung")


def test_maintenance_jumper_keeps_the_repl(hardware, capsys):
    main, machine, _, micropython = hardware
    machine.Pin.levels[main.CONFIG["maintenance_pin"]] = 0
    main.main()
    assert "maintenance" in capsys.readouterr().out
    assert micropython.interrupt_char == 3


def test_main_turns_off_ctrl_c_and_runs_on_stdin_and_stdout(hardware, host, monkeypatch):
    main, _, _, micropython = hardware
    started = []
    monkeypatch.setattr(main, "run", started.append)
    monkeypatch.setattr(sys, "stdin", type("Stdin", (), {"buffer": host.line}))
    monkeypatch.setattr(sys, "stdout", type("Stdout", (), {"buffer": host.received}))
    main.main()
    assert micropython.interrupt_char == -1
    assert [firmware.device.cells for firmware in started] == [121]


class _Stop(Exception):
    pass


def test_run_scans_once_a_period_and_waits_for_the_rest(hardware, host, monkeypatch):
    main, _, board, _ = hardware
    clock = iter(range(0, 10_000, 3))
    monkeypatch.setattr(time, "ticks_ms", lambda: next(clock), raising=False)
    monkeypatch.setattr(time, "ticks_diff", lambda new, old: new - old, raising=False)
    firmware = _firmware(main, host)
    waits = []

    def wait(ms):
        waits.append(ms)
        if len(waits) == 4:
            raise _Stop

    monkeypatch.setattr(firmware, "wait", wait)
    with pytest.raises(_Stop):
        main.run(firmware)
    # Each pass takes 3 ms of the 10 ms period on this clock.
    assert waits == [7, 7, 7, 7]
    assert board.board.feeds == 4
