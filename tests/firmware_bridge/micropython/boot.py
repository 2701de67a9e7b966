"""Start the firmware as main.py's ``main`` does on a Pico, on the fake USB line.

Written for MicroPython. ``pico_settings`` (written by the test) holds the board's
cell count and sensor kind; everything else is main.py's own CONFIG.
"""

import io
from binascii import hexlify, unhexlify

import main
import micropython
import pico_board
import pico_host
import pico_settings

_POLL = 3  # MP_STREAM_POLL


class USBSerial(io.IOBase):
    """The Pico's USB CDC line: select.poll sees what the host sent, writes go out."""

    def __init__(self):
        self._waiting = b""

    def ioctl(self, request, arg):
        if request != _POLL:
            return 0
        if not self._waiting:
            self._waiting = unhexlify(pico_host.read())
        if self._waiting:
            return arg & 1
        # The interpreter's poll loop spins on ioctl; a short pause keeps it off a core.
        pico_host.sleep_ms(1)
        return 0

    def readinto(self, buffer):
        count = min(len(buffer), len(self._waiting))
        buffer[:count] = self._waiting[:count]
        self._waiting = self._waiting[count:]
        return count

    def read(self, size):
        buffer = bytearray(size)
        return bytes(buffer[: self.readinto(buffer)])

    def write(self, data):
        pico_host.write(hexlify(data).decode())
        return len(data)


main.CONFIG["cells"] = pico_settings.CELLS
main.CONFIG["sensor"] = pico_settings.SENSOR
pico_board.cells = bytearray(pico_settings.CELLS)
pico_board.reset_cause = pico_settings.RESET_CAUSE
micropython.kbd_intr(-1)
line = USBSerial()
main.run(main.Firmware(main.CONFIG, line, line))
