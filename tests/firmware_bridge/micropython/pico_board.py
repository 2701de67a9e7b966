"""What the fake ``machine`` and ``rp2`` see: the test's board and the LED strip.

Written for MicroPython; the CPython firmware tests use the same fakes. The test
sends lines on the control channel: ``set CELL STATE`` puts a piece (1 north up,
2 south up) or takes it (0); ``raw CELL VALUE`` makes that cell's hall sensor read
VALUE on the ADC (a weak magnet, a dead sensor); ``break`` cuts the 74HC165 chain.
The LED strip's words go back to the test as ``leds HEX`` lines.
"""

import pico_host

cells = bytearray(0)
reset_cause = 1
watchdog_ms = 0
feeds = 0
strip_active = False
chain_broken = False
raw = {}
_pending = ""

# CD74HC4067 wiring as in main.py's CONFIG.
_SELECT = (10, 11, 12, 13)
_ENABLE = (2, 3, 4, 5, 6, 7, 8, 9)
_MID = 32768
_SWING = 12000


def follow_controls():
    global _pending, chain_broken
    _pending += pico_host.controls()
    while "\n" in _pending:
        line, _pending = _pending.split("\n", 1)
        words = line.split()
        if words and words[0] == "set":
            cells[int(words[1])] = int(words[2])
        elif words and words[0] == "raw":
            raw[int(words[1])] = int(words[2])
        elif words and words[0] == "break":
            chain_broken = True


def chain_bytes(size):
    bits = bytearray(b"\xff" * (size - 1)) + bytearray(b"\xff" if chain_broken else b"\x00")
    for cell in range(len(cells)):
        if cells[cell]:
            bits[cell >> 3] &= ~(0x80 >> (cell & 7))
    return bits


def mux_reading(levels):
    channel = 0
    for bit, pin in enumerate(_SELECT):
        channel |= levels.get(pin, 0) << bit
    enabled = [mux for mux, pin in enumerate(_ENABLE) if levels.get(pin, 1) == 0]
    if len(enabled) != 1:
        raise RuntimeError("exactly one multiplexer must be enabled while reading")
    cell = 16 * enabled[0] + channel
    if cell in raw:
        return raw[cell]
    state = cells[cell] if cell < len(cells) else 0
    return _MID + (_SWING if state == 1 else -_SWING if state == 2 else 0)


def show(words, shift):
    # put() moves each word left by ``shift``; the strip takes the top 24 bits, GRB.
    grb = [((word << shift) & 0xFFFFFFFF) >> 8 for word in words]
    pico_host.report("leds " + "".join(f"{word:06x}" for word in grb))
