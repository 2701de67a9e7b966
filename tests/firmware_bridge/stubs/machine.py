"""Stand-in for MicroPython's ``machine`` so the firmware runs under CPython in tests.

Only what the firmware uses, with class-level knobs a test sets (input levels, the
bits on the SPI line, ADC readings) and records it reads (pin writes, watchdog feeds).
"""

PWRON_RESET = 1
WDT_RESET = 3
reset_cause_value = PWRON_RESET


def reset_cause():
    return reset_cause_value


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
        return None


class SPI:
    incoming = b""

    def __init__(self, ident, **settings):
        self.settings = settings

    def readinto(self, buffer, write=0):
        buffer[:] = SPI.incoming[: len(buffer)].ljust(len(buffer), bytes([write]))


class ADC:
    """``reading(levels)`` gives the voltage at the ADC from the pin levels."""

    reading = staticmethod(lambda levels: 32768)

    def __init__(self, pin):
        self.pin = pin

    def read_u16(self):
        return ADC.reading(Pin.levels)


class WDT:
    armed = []

    def __init__(self, timeout):
        self.timeout = timeout
        self.feeds = 0
        WDT.armed.append(self)

    def feed(self):
        self.feeds += 1
