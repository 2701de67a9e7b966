"""The cell LEDs: a WS2812 strip driven by a PIO state machine.

The state machine makes the strip's bit timing in hardware, so the CPU only
fills its FIFO with interrupts on, unlike the bit-banged ``neopixel`` module, which
blocks with interrupts off. RP2040 only. It must never choose colours: it shows
what device.py holds, scaled by brightness.
"""

# ruff: noqa: F821 -- names inside a PIO program are supplied by rp2.asm_pio.

import array

import rp2
from machine import Pin


@rp2.asm_pio(
    sideset_init=rp2.PIO.OUT_LOW,
    out_shiftdir=rp2.PIO.SHIFT_LEFT,
    autopull=True,
    pull_thresh=24,
)
def _ws2812() -> None:
    # At 8 MHz a cycle is 125 ns and a bit 10 cycles (1.25 us): the line is high
    # for 2 cycles, then 5 more for a 1 (0.875 us) or low at once for a 0 (0.25 us).
    # The constants live inside because asm_pio runs this body with its own globals.
    short_high = 2
    long_high = 5
    low = 3
    wrap_target()
    label("bit")
    out(x, 1).side(0)[low - 1]
    jmp(not_x, "zero").side(1)[short_high - 1]
    jmp("bit").side(1)[long_high - 1]
    label("zero")
    nop().side(0)[long_high - 1]
    wrap()


class Strip:
    """One WS2812 per cell on ``pin``, in cell order."""

    def __init__(self, pin, cells, state_machine) -> None:
        self._machine = rp2.StateMachine(
            state_machine, _ws2812, freq=8_000_000, sideset_base=Pin(pin)
        )
        self._machine.active(1)
        self._words = array.array("I", [0] * cells)

    def show(self, colors, brightness) -> None:
        """Show r, g, b per cell, each scaled by brightness / 255."""
        words = self._words
        for cell in range(len(words)):
            red = colors[3 * cell] * brightness // 255
            green = colors[3 * cell + 1] * brightness // 255
            blue = colors[3 * cell + 2] * brightness // 255
            # WS2812 takes green first; 24 bits, moved to the top of the word by put().
            words[cell] = (green << 16) | (red << 8) | blue
        # put() blocks only while the 4-word FIFO is full: ~30 us per LED, interrupts on.
        self._machine.put(words, 8)
