"""A board's wiring: which cell each hall sensor and each LED of the strip sits under.

The wizard (``hardware.wiring_wizard``) writes one file per board, and the service
loads it, so a maker may solder the sensor chain and the LED strip in any order.
The file is JSON: the board's name, the cell of every sensor in chain order, the
cell of every LED in strip order (null where a sensor or LED sits under no cell),
and, on magnet-class boards, each sensor's calibration. It must never hold anything
about a game in progress.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Where the service looks for wiring files, one per board (``<board>.json``).
DEFAULT_DIR = Path("/var/lib/boardref/wiring")


class WiringError(ValueError):
    """A wiring file that does not fit its board, said in words."""


@dataclass
class Wiring:
    """Sensor order and LED order of one board; ``calibration`` per sensor (magnet
    boards): ``{"baseline": u16, "north": u16, "south": u16}`` thresholds."""

    board: str
    sensors: list[str | None]
    leds: list[str | None]
    calibration: list[dict[str, int]] | None = field(default=None)

    @classmethod
    def straight(cls, board: str, cells: Sequence[str]) -> Wiring:
        """Sensor *i* and LED *i* under cell *i*: the order docs/hardware.md suggests."""
        return cls(board, list(cells), list(cells))

    def has_cell_lights(self) -> bool:
        """Whether an LED sits under any cell: a board built without the LED strip
        has its every LED under no cell."""
        return any(cell is not None for cell in self.leds)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"board": self.board, "sensors": self.sensors, "leds": self.leds}
        if self.calibration is not None:
            data["calibration"] = self.calibration
        return data

    def save(self, path: Path) -> None:
        """Write the file atomically, so a crash never leaves half a wiring."""
        path.parent.mkdir(parents=True, exist_ok=True)
        staged = path.with_suffix(".new")
        staged.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
        os.replace(staged, path)

    @classmethod
    def load(cls, path: Path, cells: Sequence[str]) -> Wiring:
        """Read and check a wiring file against the board's ``cells``."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            board, sensors, leds = data["board"], data["sensors"], data["leds"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise WiringError(f"{path}: not a wiring file ({exc})") from None
        known = set(cells)
        for name, order in (("sensors", sensors), ("leds", leds)):
            if not isinstance(order, list):
                raise WiringError(f"{path}: {name} must be a list of cell ids")
            placed = [cell for cell in order if cell is not None]
            strangers = sorted(set(placed) - known)
            if strangers:
                raise WiringError(f"{path}: {name} names cells not on {board}: {strangers}")
            if len(placed) != len(set(placed)):
                raise WiringError(f"{path}: {name} puts two of them under one cell")
        calibration = data.get("calibration")
        if calibration is not None and len(calibration) != len(sensors):
            raise WiringError(f"{path}: calibration must have one entry per sensor")
        return cls(board, sensors, leds, calibration)


def wiring_path(directory: Path, board: str) -> Path:
    """The wiring file of ``board`` in ``directory``."""
    return directory / f"{board}.json"
