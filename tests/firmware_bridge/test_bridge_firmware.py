"""The RP2040 firmware (main.py, sensors.py, leds.py) under CPython, on stub hardware."""

import importlib
import io
import os
import sys
import time
from pathlib import Path

import pytest

from firmware_bridge import protocol
from firmware_bridge.protocol import Ack, Decoder, Error, Hello, Scan, SetLeds, encode

STUBS = Path(__file__).parent / "stubs"
_FRESH = (
    "machine",
    "rp2",
    "micropython",
    "firmware_bridge.firmware.main",
    "firmware_bridge.firmware.sensors",
    "firmware_bridge.firmware.leds",
)


@pytest.fixture
def hardware(monkeypatch):
    """The stub ``machine``, ``rp2`` and ``micropython`` modules, fresh for each test."""
    monkeypatch.syspath_prepend(str(STUBS))
    for name in _FRESH:
        monkeypatch.delitem(sys.modules, name, raising=False)
    main = importlib.import_module("firmware_bridge.firmware.main")
    yield main, sys.modules["machine"], sys.modules["rp2"], sys.modules["micropython"]
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


def _chain(*magnets, cells=121):
    """SPI bytes of a 74HC165 chain: a low bit per magnet, then the grounded tail."""
    bits = bytearray(b"\xff" * ((cells + 7) // 8))
    for cell in magnets:
        bits[cell >> 3] &= ~(0x80 >> (cell & 7))
    return bytes(bits) + b"\x00"


def _board(states, cells=121):
    board = bytearray(cells)
    for cell, state in states.items():
        board[cell] = state
    return bytes(board)


def _firmware(main, host, **changes):
    config = dict(main.CONFIG, **changes)
    return main.Firmware(config, host.line, host.received)


def test_boot_announces_the_board_as_read(hardware, host):
    main, machine, _, _ = hardware
    machine.SPI.incoming = _chain(0, 64)
    firmware = _firmware(main, host)
    firmware.start(0)
    assert host.messages() == [
        Hello(121, protocol.SENSOR_PRESENCE, main.FIRMWARE),
        Scan(0, _board({0: 1, 64: 1})),
    ]
    assert firmware.watchdog.timeout == main.CONFIG["watchdog_ms"]


def test_a_placed_piece_is_reported_after_debouncing_and_the_watchdog_fed(hardware, host):
    main, machine, _, _ = hardware
    machine.SPI.incoming = _chain()
    firmware = _firmware(main, host)
    firmware.start(0)
    host.messages()
    machine.SPI.incoming = _chain(120)
    for now in (10, 20):
        firmware.step(now)
        assert host.messages() == []
    firmware.step(30)
    assert host.messages() == [Scan(1, _board({120: 1}))]
    assert firmware.watchdog.feeds == 3


def test_led_command_reaches_the_strip_green_first_and_dimmed(hardware, host):
    main, machine, rp2, _ = hardware
    machine.SPI.incoming = _chain()
    firmware = _firmware(main, host, settings={"brightness": 128})
    firmware.start(0)
    host.messages()
    colors = bytearray(3 * 121)
    colors[0:3] = bytes([255, 10, 200])
    host.send(SetLeds(bytes(colors)), seq=1)
    firmware.step(10)
    assert host.messages() == [Ack(seq=1)]
    words = rp2.StateMachine.made[0].sent[-1]
    assert len(words) == 121
    green, red, blue = 10 * 128 // 255, 255 * 128 // 255, 200 * 128 // 255
    assert words[0] == ((green << 16) | (red << 8) | blue) << 8
    assert set(words[1:]) == {0}


def test_a_broken_chain_is_reported_once(hardware, host):
    main, machine, _, _ = hardware
    machine.SPI.incoming = b"\xff" * 17
    firmware = _firmware(main, host)
    firmware.start(0)
    host.messages()
    firmware.step(10)
    firmware.step(20)
    errors = [m for m in host.messages() if isinstance(m, Error)]
    assert [e.code for e in errors] == [protocol.SENSOR_FAULT]
    assert "chain" in errors[0].detail


def _mux_readings(by_cell):
    """An ADC reading function for the mux bank: the enabled mux and channel pick the cell."""

    def reading(levels):
        channel = sum(levels.get(pin, 0) << bit for bit, pin in enumerate((10, 11, 12, 13)))
        enabled = [mux for mux, pin in enumerate(range(2, 10)) if levels.get(pin) == 0]
        assert len(enabled) == 1, "exactly one mux enabled while the ADC reads"
        return by_cell.get(16 * enabled[0] + channel, 32768)

    return reading


def test_mux_board_tells_the_poles_apart(hardware, host):
    main, machine, _, _ = hardware
    machine.ADC.reading = staticmethod(_mux_readings({3: 52000, 17: 9000, 30: 36000}))
    firmware = _firmware(main, host, sensor="cd74hc4067", cells=40)
    firmware.start(0)
    hello, scan = host.messages()
    assert hello.sensor_kind == protocol.SENSOR_MAGNET
    # 30 is within the threshold of the idle level: empty.
    assert scan.cells == _board({3: protocol.PRESENT, 17: protocol.SOUTH_UP}, cells=40)


def test_mux_board_with_dead_sensors_reports_a_fault(hardware, host):
    main, machine, _, _ = hardware
    machine.ADC.reading = staticmethod(lambda levels: 0)
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
    main, machine, _, _ = hardware
    machine.SPI.incoming = _chain()
    machine.reset_cause_value = machine.WDT_RESET
    _firmware(main, host).start(0)
    assert host.messages()[-1] == Error(protocol.WATCHDOG_RESET, "the previous run hung")


def test_maintenance_jumper_keeps_the_repl(hardware, capsys):
    main, machine, _, micropython = hardware
    machine.Pin.levels[main.CONFIG["maintenance_pin"]] = 0
    main.main()
    assert "maintenance" in capsys.readouterr().out
    assert micropython.interrupt_char == 3


def test_main_turns_off_ctrl_c_and_runs_on_stdin_and_stdout(hardware, host, monkeypatch):
    main, machine, _, micropython = hardware
    machine.SPI.incoming = _chain()
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
    main, machine, _, _ = hardware
    machine.SPI.incoming = _chain()
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
    assert firmware.watchdog.feeds == 4
