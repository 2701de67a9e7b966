"""MicroPython firmware for the board's RP2040 (see README.md beside this file).

On the Pico these modules sit flat in the filesystem root; on the host this package
lets the simulator and the tests import the same files. Nothing here may import
from the rest of boardref except ``firmware_bridge.protocol``.
"""
