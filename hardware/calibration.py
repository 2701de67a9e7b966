"""Calibrating a magnet-class board: every sensor's own resting reading and thresholds.

Ratiometric hall sensors differ: one rests a little high, one sits deeper under the
board and swings less. The maker first leaves the board empty (each sensor's
*baseline*), then sweeps a piece of each kind (north up, south up) over every cell;
each sensor's strongest reading per kind is kept. A sensor's threshold lies halfway
between its baseline and that reading, so a weak sensor still sees its piece and a
high-resting one does not see a piece that is not there. The thresholds are stored
with the board's wiring and sent to the board (THRESHOLDS) whenever it connects. It
must never decide anything about a game.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engines.words import Words, words

#: Where nothing better is known: half supply, and the firmware's default threshold.
MID = 32768
DEFAULT_THRESHOLD = 6000
#: A reading this far from the baseline counts as a piece during the sweep.
SEEN_AT = 1500
#: A threshold never lies closer to the baseline than this (sensor noise).
MIN_MARGIN = 800
#: Readings taken of the empty board for its baseline.
EMPTY_SAMPLES = 10
_POLL = 0.02

NORTH_UP = "north"
SOUTH_UP = "south"


@dataclass
class Calibration:
    """Per sensor (sensor order): its baseline and its north and south thresholds."""

    baseline: list[int]
    north: list[int]
    south: list[int]
    findings: list[Words] = field(default_factory=list)

    def to_json(self) -> list[dict[str, int]]:
        """As stored in the wiring file: one entry per sensor."""
        return [
            {"baseline": b, "north": n, "south": s}
            for b, n, s in zip(self.baseline, self.north, self.south, strict=True)
        ]

    @classmethod
    def from_json(cls, entries: Sequence[dict[str, int]]) -> Calibration:
        return cls(
            [entry["baseline"] for entry in entries],
            [entry["north"] for entry in entries],
            [entry["south"] for entry in entries],
        )


def thresholds(
    baseline: Sequence[int],
    peaks: dict[str, Sequence[int | None]],
    cells: Sequence[str | None],
) -> Calibration:
    """Thresholds halfway between each baseline and its strongest reading per kind;
    a sensor that never saw a kind keeps the default distance, said in words."""
    north, south, findings = [], [], []
    for sensor, rest in enumerate(baseline):
        high = peaks.get(NORTH_UP, [None] * len(baseline))[sensor]
        low = peaks.get(SOUTH_UP, [None] * len(baseline))[sensor]
        where = cells[sensor] if cells[sensor] is not None else f"sensor {sensor}"
        for kind, peak in ((NORTH_UP, high), (SOUTH_UP, low)):
            if peak is None and kind in peaks:
                findings.append(
                    words(
                        "board.calibrate.unseen",
                        "{where} never saw a {kind}-up piece: it keeps the default threshold",
                        where=where,
                        kind=kind,
                    )
                )
        up = DEFAULT_THRESHOLD if high is None else max(MIN_MARGIN, (high - rest) // 2)
        down = DEFAULT_THRESHOLD if low is None else max(MIN_MARGIN, (rest - low) // 2)
        north.append(min(0xFFFF, rest + up))
        south.append(max(0, rest - down))
    return Calibration(list(baseline), north, south, findings)


class Calibrator:
    """Drives the sweep: ``readings`` returns the board's latest readings (ADC counts
    per sensor, or None while none came), ``tell`` hears each instruction."""

    def __init__(
        self,
        readings: Callable[[], Sequence[int] | None],
        tell: Callable[[Words], None],
        sweep_seconds: float = 120.0,
    ):
        self._readings = readings
        self._tell = tell
        self.sweep_seconds = sweep_seconds

    def run(self, cells: Sequence[str | None], kinds: Sequence[str]) -> Calibration:
        """Learn the baseline of the empty board, then sweep each kind in ``kinds``."""
        self._tell(words("board.calibrate.empty", "Clear the board: learning the empty board"))
        baseline = self.baseline()
        peaks = {kind: self.sweep(kind, baseline, cells) for kind in kinds}
        return thresholds(baseline, peaks, cells)

    def baseline(self) -> list[int]:
        """The mean of a few readings of the empty board, per sensor."""
        samples: list[Sequence[int]] = []
        last = None
        while len(samples) < EMPTY_SAMPLES:
            now = self._readings()
            if now is not None and now is not last:
                samples.append(now)
                last = now
            time.sleep(_POLL)
        return [round(sum(column) / len(column)) for column in zip(*samples, strict=True)]

    def sweep(
        self, kind: str, baseline: Sequence[int], cells: Sequence[str | None]
    ) -> list[int | None]:
        """The strongest reading of ``kind`` per sensor while the maker sweeps a piece
        over every cell; done when every sensor has seen it and the last piece is
        off the board again, or when time is up."""
        self._tell(
            words(
                "board.calibrate.sweep",
                "Put a {kind}-up piece on every cell in turn, one at a time",
                kind=kind,
            )
        )
        sign = 1 if kind == NORTH_UP else -1
        peaks: list[int | None] = [None] * len(baseline)
        deadline = time.monotonic() + self.sweep_seconds
        wanted = [sensor for sensor, cell in enumerate(cells) if cell is not None]
        while time.monotonic() < deadline:
            now = self._readings()
            if now is not None:
                clear = all(abs(r - b) < SEEN_AT for r, b in zip(now, baseline, strict=True))
                if clear and all(peaks[sensor] is not None for sensor in wanted):
                    break
                for sensor, (reading, rest) in enumerate(zip(now, baseline, strict=True)):
                    swing = sign * (reading - rest)
                    peak = peaks[sensor]
                    if swing >= SEEN_AT and (peak is None or sign * (reading - peak) > 0):
                        peaks[sensor] = reading
            time.sleep(_POLL)
        return peaks


def board_calibration(wiring) -> Calibration:
    """The thresholds a board works by: its wiring file's calibration, else the
    firmware's defaults (half supply plus or minus the default threshold)."""
    if wiring.calibration is not None:
        return Calibration.from_json(wiring.calibration)
    count = len(wiring.sensors)
    return Calibration(
        [MID] * count, [MID + DEFAULT_THRESHOLD] * count, [MID - DEFAULT_THRESHOLD] * count
    )
