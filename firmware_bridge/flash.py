"""Putting the firmware on a Raspberry Pi Pico with mpremote, and checking it after.

``boardref firmware flash`` runs exactly the sequence firmware/README.md documents:
copy the firmware modules flat into the Pico's filesystem, reset it, open the link
and compare the version the board announces in HELLO with the one this host ships.
It must never write anything but the firmware's own files to the Pico.
"""

from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).parent

#: The files a Pico needs, in the order mpremote copies them; each lands in its root.
FIRMWARE_FILES = (
    "protocol.py",
    "firmware/debounce.py",
    "firmware/device.py",
    "firmware/sensors.py",
    "firmware/leds.py",
    "firmware/main.py",
)


def firmware_files() -> list[Path]:
    """The firmware's source files on this machine, in copy order."""
    return [HERE / name for name in FIRMWARE_FILES]


def shipped_firmware() -> str:
    """The firmware version this host ships (``FIRMWARE`` in firmware/main.py).

    Read from the file, not imported: main.py imports ``machine``, which exists
    only on the Pico.
    """
    text = (HERE / "firmware" / "main.py").read_text(encoding="utf-8")
    found = re.search(r'^FIRMWARE = "([^"]+)"$', text, re.MULTILINE)
    if found is None:
        raise RuntimeError("firmware/main.py names no FIRMWARE version")
    return found.group(1)
