"""Putting the firmware on a Raspberry Pi Pico with mpremote, and checking it after.

``boardref firmware flash`` runs exactly the sequence firmware/README.md documents:
copy the firmware modules flat into the Pico's filesystem, reset it, open the link
and compare the version the board announces in HELLO with the one this host ships.
It must never write anything but the firmware's own files to the Pico.
"""

from __future__ import annotations

import re
from pathlib import Path

from firmware_bridge.protocol import Hello

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


def mpremote_command(device: str, mpremote: str = "mpremote") -> list[str]:
    """The documented mpremote call: copy every firmware file into the Pico's root,
    then reset it so main.py starts."""
    return [mpremote, "connect", device, "fs", "cp", *map(str, firmware_files()), ":", "+", "reset"]


def version_of(firmware: str) -> str:
    """The version part of a firmware string: ``boardref-fw 0.1.0`` -> ``0.1.0``."""
    return firmware.rsplit(" ", 1)[-1]


def version_problem(hello: Hello, device: str) -> str | None:
    """What to do when the board's HELLO names another firmware version than the
    one this host ships, or None when they agree."""
    shipped = shipped_firmware()
    if version_of(hello.firmware) == version_of(shipped):
        return None
    return (
        f"the board on {device} runs {hello.firmware}, this boardref ships {shipped}: fit "
        "the maintenance jumper (GP14 to GND), replug the USB cable, run `boardref firmware "
        "flash` again, then remove the jumper and replug"
    )
