"""A fake of MicroPython's ``machine`` for the firmware under the WebAssembly port.

Written for MicroPython. The sensors behind the fake SPI and ADC read the board the
test sets through ``pico_board``; pin levels are kept so the multiplexer's select
and enable lines choose which sensor the ADC reads, as on the real board.
"""

import pico_board

PWRON_RESET = 1
WDT_RESET = 3


def reset_cause():
    return pico_board.reset_cause


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    levels = {}

    def __init__(self, ident, mode=IN, pull=None, value=None):
        self.ident = ident
        self.pull = pull
        if value is not None:
            Pin.levels[ident] = value

    def value(self, level=None):
        if level is None:
            return Pin.levels.get(self.ident, 1 if self.pull == Pin.PULL_UP else 0)
        Pin.levels[self.ident] = level


class SPI:
    """A 74HC165 chain on the bus: a latched board shifted out, active low."""

    def __init__(self, ident, baudrate, polarity, phase, sck, mosi, miso):
        if (polarity, phase) != (0, 0):
            raise ValueError("the 74HC165 chain needs SPI mode 0")

    def readinto(self, buffer, write=0):
        pico_board.follow_controls()
        buffer[:] = pico_board.chain_bytes(len(buffer))


class ADC:
    """One ADC pin behind CD74HC4067 multiplexers: reads the enabled mux's channel."""

    def __init__(self, pin):
        self.pin = pin

    def read_u16(self):
        pico_board.follow_controls()
        return pico_board.mux_reading(Pin.levels)


class WDT:
    def __init__(self, timeout):
        if not 1 <= timeout <= 8388:
            raise ValueError("the RP2040 watchdog takes 1 to 8388 ms")
        pico_board.watchdog_ms = timeout

    def feed(self):
        pico_board.feeds += 1
