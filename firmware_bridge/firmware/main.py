"""The board's firmware: configuration, then the scan and command loop on the RP2040.

Copy it with the other modules to the Pico (README.md beside this file); everything
a builder may change is in CONFIG below. The loop must never wait for the host: it
polls for commands, scans, answers, feeds the watchdog, and lets the USB stack drop
output that nobody reads.
"""

import select
import sys
import time

import machine
import micropython

try:
    from firmware_bridge import protocol
    from firmware_bridge.firmware.device import Device
    from firmware_bridge.firmware.leds import Strip
    from firmware_bridge.firmware.sensors import MuxBank, ShiftRegisterChain
except ImportError:  # on the Pico every module sits in the filesystem root
    import protocol
    from device import Device
    from leds import Strip
    from sensors import MuxBank, ShiftRegisterChain

# ---------------------------------------------------------------------------------
# Configuration: edit for your board. Pin numbers are GPIO numbers (GPn), not the
# Pico's physical pin numbers; docs/hardware.md has the wiring.
CONFIG = {
    "cells": 121,
    # "74hc165": hall switches through a shift-register chain (presence).
    # "cd74hc4067": analog hall sensors through multiplexers (which pole is up).
    "sensor": "74hc165",
    # 74HC165 chain on SPI0: CLK <- sck, QH -> miso, SH/LD <- load. SPI claims a
    # mosi pin too; leave it unconnected.
    "spi": 0,
    "spi_sck": 18,
    "spi_mosi": 19,
    "spi_miso": 16,
    "load": 17,
    # CD74HC4067 bank: shared S0..S3, one enable per mux (cells 0-15 on the first),
    # every SIG on one ADC pin.
    "mux_select": (10, 11, 12, 13),
    "mux_enable": (2, 3, 4, 5, 6, 7, 8, 9),
    "mux_adc": 26,
    "mux_threshold": 6000,
    # WS2812 data in, through a 330 ohm resistor and a 3.3 V to 5 V level shifter.
    "led_pin": 22,
    "led_state_machine": 0,
    # Jumper this pin to ground before power-on to stay in the REPL (for mpremote).
    "maintenance_pin": 14,
    "watchdog_ms": 2000,
    # Starting values of the settings the host may change with CONFIG.
    "settings": {"brightness": 64, "debounce_scans": 3, "heartbeat_ms": 500, "scan_period_ms": 10},
}
# The firmware's own version, raised when a firmware file changes: the Pico cannot
# read boardref's, and an upgrade of boardref that leaves the firmware as it was must
# not ask for the board to be flashed again (`boardref firmware flash` compares this).
FIRMWARE = "boardref-fw 0.1.0"
# ---------------------------------------------------------------------------------

# Bytes taken from the host per pass: a full LED frame for 121 cells is ~370.
_READ_LIMIT = 512


def _sensors(config):
    if config["sensor"] == "74hc165":
        reader = ShiftRegisterChain(
            config["cells"],
            config["spi"],
            config["spi_sck"],
            config["spi_mosi"],
            config["spi_miso"],
            config["load"],
        )
        return reader, protocol.SENSOR_PRESENCE
    if config["sensor"] == "cd74hc4067":
        reader = MuxBank(
            config["cells"],
            config["mux_select"],
            config["mux_enable"],
            config["mux_adc"],
            config["mux_threshold"],
        )
        return reader, protocol.SENSOR_MAGNET
    raise ValueError("CONFIG sensor must be '74hc165' or 'cd74hc4067'")


class Firmware:
    """The board: sensors, LED strip and device logic between the host's byte streams."""

    def __init__(self, config, host_in, host_out) -> None:
        self.sensors, kind = _sensors(config)
        self.strip = Strip(config["led_pin"], config["cells"], config["led_state_machine"])
        magnet = kind == protocol.SENSOR_MAGNET
        self.device = Device(
            config["cells"],
            kind,
            FIRMWARE,
            self.strip.show,
            config["settings"],
            calibrate=self.sensors.calibrate if magnet else None,
        )
        self.watchdog = None
        self._watchdog_ms = config["watchdog_ms"]
        self._in = host_in
        self._out = host_out
        self._poll = select.poll()
        self._poll.register(host_in, select.POLLIN)
        self._fault = None

    def start(self, now_ms) -> None:
        """Announce the board, then arm the watchdog."""
        out = self.device.boot(self.sensors.read(), now_ms)
        if machine.reset_cause() == machine.WDT_RESET:
            out += self.device.report(protocol.WATCHDOG_RESET, "the previous run hung")
        self._out.write(out)
        self.watchdog = machine.WDT(timeout=self._watchdog_ms)

    def step(self, now_ms) -> None:
        """One pass: take commands, scan the board, send what there is to say."""
        received = self._take_input()
        if received:
            self._out.write(self.device.receive(received, now_ms))
        out = self.device.scan(self.sensors.read(), now_ms, self.sensors.readings)
        fault = self.sensors.fault
        if fault != self._fault:
            self._fault = fault
            if fault:
                out += self.device.report(protocol.SENSOR_FAULT, fault)
        if out:
            self._out.write(out)
        self.watchdog.feed()

    def wait(self, ms) -> None:
        """Sleep up to ``ms``, waking early when the host sends something."""
        self._poll.poll(ms)

    def _take_input(self):
        # stdin has no non-blocking read; one byte at a time is safe while poll
        # says more is waiting.
        data = bytearray()
        while len(data) < _READ_LIMIT and self._poll.poll(0):
            data += self._in.read(1)
        return data


def run(firmware) -> None:
    """Scan every ``scan_period_ms`` and answer the host in between, for ever."""
    firmware.start(time.ticks_ms())
    while True:
        started = time.ticks_ms()
        firmware.step(started)
        spent = time.ticks_diff(time.ticks_ms(), started)
        firmware.wait(max(0, firmware.device.settings["scan_period_ms"] - spent))


def main() -> None:
    maintenance = machine.Pin(CONFIG["maintenance_pin"], machine.Pin.IN, machine.Pin.PULL_UP)
    if not maintenance.value():
        print("boardref: maintenance jumper set, staying in the REPL")
        return
    # Frames may hold 0x03; it must not raise KeyboardInterrupt.
    micropython.kbd_intr(-1)
    run(Firmware(CONFIG, sys.stdin.buffer, sys.stdout.buffer))


if __name__ == "__main__":
    main()
