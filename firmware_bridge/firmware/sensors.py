"""Reading the hall sensors under the board: one raw state byte per cell, per scan.

Two ways to wire them, chosen in main.py's configuration: a chain of 74HC165 shift
registers read over SPI (digital hall switches: presence), or CD74HC4067
multiplexers into one ADC pin (ratiometric hall sensors: which pole is up). RP2040
only. It must never debounce or decide anything; device.py does that with what
these readers return.
"""

import array

from machine import ADC, SPI, Pin

try:
    from firmware_bridge import protocol
except ImportError:  # on the Pico every module sits in the filesystem root
    import protocol  # type: ignore[import-not-found,no-redef]


class ShiftRegisterChain:
    """74HC165s in a chain: latch every input at once, then shift them out over SPI.

    Cell *i* is the *i*-th bit out: chip 0 (the one wired to MISO) input H is cell
    0, its input A cell 7, chip 1 input H cell 8, and so on. Hall switches pull
    their input low near a magnet.
    """

    def __init__(self, cells: int, spi_id: int, sck: int, mosi: int, miso: int, load: int) -> None:
        self.cells = cells
        self.fault: str | None = None
        #: hall switches have no reading beyond on and off
        self.readings = None
        self._load = Pin(load, Pin.OUT, value=1)
        # Mode 0: the 74HC165 shows H as soon as it is loaded and shifts on the
        # rising edge, which is exactly when SPI mode 0 samples.
        self._spi = SPI(
            spi_id,
            baudrate=1_000_000,
            polarity=0,
            phase=0,
            sck=Pin(sck),
            mosi=Pin(mosi),
            miso=Pin(miso),
        )
        # One byte more than the chain holds: the last chip's serial input is tied
        # to ground, so that byte reads 0x00 unless the chain is broken.
        self._bits = bytearray((cells + 7) // 8 + 1)
        self._raw = bytearray(cells)

    def read(self) -> bytearray:
        self._load.value(0)
        self._load.value(1)
        bits = self._bits
        self._spi.readinto(bits, 0xFF)
        if bits[-1]:
            self.fault = "74HC165 chain reads ones past its end: check the chain and its power"
        else:
            self.fault = None
        raw = self._raw
        for cell in range(self.cells):
            raw[cell] = ((bits[cell >> 3] >> (7 - (cell & 7))) & 1) ^ 1
        return raw


class MuxBank:
    """CD74HC4067s sharing select lines S0..S3, one active-low enable each, every
    common pin on one ADC input. Cell *i* is mux *i* // 16, channel *i* % 16.

    A ratiometric sensor idles at half supply; a magnet moves it up or down by
    more than ``threshold`` (in ``read_u16`` counts) depending on its pole.
    """

    _MID = 32768
    # Readings this close to a rail mean no sensor is driving the ADC at all.
    _RAIL = 512

    def __init__(
        self,
        cells: int,
        select: "tuple[int, ...]",
        enables: "tuple[int, ...]",
        adc: int,
        threshold: int,
    ) -> None:
        self.cells = cells
        self.fault: str | None = None
        self._select = [Pin(pin, Pin.OUT, value=0) for pin in select]
        self._enables = [Pin(pin, Pin.OUT, value=1) for pin in enables]
        if 16 * len(self._enables) < cells:
            raise ValueError("not enough multiplexers for the cells")
        self._adc = ADC(Pin(adc))
        self._raw = bytearray(cells)
        #: the last ADC reading of every cell, for the host's calibration
        self.readings = array.array("H", bytes(2 * cells))
        self._north = array.array("H", [self._MID + threshold] * cells)
        self._south = array.array("H", [self._MID - threshold] * cells)

    def calibrate(self, north: "list[int]", south: "list[int]") -> None:
        """Per-cell thresholds learned by the host (THRESHOLDS): a reading at or above
        ``north[i]`` is state 1, at or below ``south[i]`` state 2."""
        self._north[:] = array.array("H", north)
        self._south[:] = array.array("H", south)

    def read(self) -> bytearray:
        raw = self._raw
        at_rail = 0
        for channel in range(16):
            for bit, pin in enumerate(self._select):
                pin.value((channel >> bit) & 1)
            for mux, enable in enumerate(self._enables):
                cell = 16 * mux + channel
                if cell >= self.cells:
                    break
                enable.value(0)
                reading = self._adc.read_u16()
                enable.value(1)
                self.readings[cell] = reading
                if reading >= self._north[cell]:
                    raw[cell] = protocol.PRESENT
                elif reading <= self._south[cell]:
                    raw[cell] = protocol.SOUTH_UP
                else:
                    raw[cell] = protocol.EMPTY
                if reading < self._RAIL or reading > 0xFFFF - self._RAIL:
                    at_rail += 1
        if at_rail == self.cells:
            self.fault = "every hall sensor reads a supply rail: check sensor power and muxes"
        else:
            self.fault = None
        return raw
