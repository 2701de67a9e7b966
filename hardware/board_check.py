"""The board check: is every hall sensor of a new build alive, and alone?

A maker starts with an empty board and sweeps a piece over every cell. The check
watches the scans the board reports and keeps, per sensor, how often it changed and
whether it ever read a piece; from that it flags sensors stuck on (a piece read all
along, never a change), sensors never seen (never a piece) and sensors that only
ever change together with another one (a sensor that answers to its neighbour's
piece too, or two sensors on one wire). It must never decide anything about a game;
it reads scans and the link's counters and says what it saw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engines.words import Words, words

#: A sensor must have changed this often before "always together" means anything.
TOGETHER_AFTER = 2

STUCK = "stuck"
NEVER_SEEN = "never_seen"
ANSWERS_TOO = "answers_too"
OK = "ok"


@dataclass
class SensorRecord:
    """What one sensor did since the check began."""

    state: int = 0
    changes: int = 0
    ever_on: bool = False
    #: numbers of the scans in which it changed
    changed_in: set[int] = field(default_factory=set)


class BoardCheck:
    """Per-sensor counters over the scans of a board; ``cells`` names each sensor's
    cell (sensor order), or None where the wiring is not known yet."""

    def __init__(self, sensors: int, cells: Sequence[str | None] | None = None):
        self.cells = list(cells) if cells is not None else [None] * sensors
        if len(self.cells) != sensors:
            raise ValueError(f"{sensors} sensors but {len(self.cells)} cell names")
        self.sensors = [SensorRecord() for _ in range(sensors)]
        self.scans = 0
        self._first = True

    def take_scan(self, states: bytes) -> None:
        """Take one scan (a state byte per sensor, sensor 0 first)."""
        if len(states) != len(self.sensors):
            return
        self.scans += 1
        for record, state in zip(self.sensors, states, strict=True):
            if state:
                record.ever_on = True
            if state != record.state and not self._first:
                record.changes += 1
                record.changed_in.add(self.scans)
            record.state = state
        self._first = False

    def flags(self) -> dict[int, tuple[str, int | None]]:
        """Each sensor's flag and, for ``answers_too``, the sensor whose piece it
        answers to as well."""
        found: dict[int, tuple[str, int | None]] = {}
        for sensor, record in enumerate(self.sensors):
            if record.state and not record.changes:
                found[sensor] = (STUCK, None)
            elif not record.ever_on:
                found[sensor] = (NEVER_SEEN, None)
            else:
                partner = self._shadows(sensor)
                found[sensor] = (ANSWERS_TOO, partner) if partner is not None else (OK, None)
        return found

    def _shadows(self, sensor: int) -> int | None:
        """The sensor whose every change ``sensor`` shares: ``sensor`` answers to
        that one's piece too. When two only ever change together, the higher
        number is the one reported."""
        mine = self.sensors[sensor].changed_in
        for other, record in enumerate(self.sensors):
            theirs = record.changed_in
            if other == sensor or len(theirs) < TOGETHER_AFTER or not theirs <= mine:
                continue
            if theirs == mine and other > sensor:
                continue
            return other
        return None

    def findings(self) -> list[Words]:
        """What the check found, one sentence per problem, sensor order."""
        said = []
        for sensor, (flag, partner) in self.flags().items():
            where = self._where(sensor)
            if flag == STUCK:
                said.append(
                    words(
                        "board.stuck",
                        "{where} reads a piece all along and never changed: a stuck or "
                        "shorted sensor, or a piece left on the board",
                        where=where,
                    )
                )
            elif flag == NEVER_SEEN:
                said.append(
                    words(
                        "board.never_seen",
                        "{where} never saw a piece: a dead or unwired sensor, a weak "
                        "magnet, or a cell not swept yet",
                        where=where,
                    )
                )
            elif flag == ANSWERS_TOO and partner is not None:
                other = self._where(partner)
                if self.sensors[partner].changed_in == self.sensors[sensor].changed_in:
                    said.append(
                        words(
                            "board.together",
                            "{where} and {other} always change together: one sensor sees "
                            "its neighbour's piece, or two sensors share a wire",
                            where=where,
                            other=other,
                        )
                    )
                else:
                    said.append(
                        words(
                            "board.answers_too",
                            "{where} answers to the piece at {other} too: it sees its "
                            "neighbour's piece (sensor off-centre, magnet too strong)",
                            where=where,
                            other=other,
                        )
                    )
        return said

    def _where(self, sensor: int) -> Words:
        cell = self.cells[sensor]
        if cell is None:
            return words("board.sensor", "sensor {sensor}", sensor=sensor)
        return words("board.sensor_at", "sensor {sensor} (cell {cell})", sensor=sensor, cell=cell)

    def report(
        self,
        link: Mapping[str, int] | None = None,
        readings: Sequence[int] | None = None,
        thresholds: tuple[Sequence[int], Sequence[int]] | None = None,
    ) -> dict[str, Any]:
        """The check as JSON: per sensor its cell, state, changes and flag, and on a
        magnet board its raw ``reading`` with its ``north`` and ``south`` thresholds;
        the findings as words; the link's counters (frames, CRC errors, drops)."""
        flags = self.flags()
        counters = dict(link or {})
        magnet = {}
        if readings is not None and len(readings) == len(self.sensors):
            north, south = thresholds or ([None] * len(readings), [None] * len(readings))
            magnet = {
                sensor: {
                    "reading": readings[sensor],
                    "north": north[sensor],
                    "south": south[sensor],
                }
                for sensor in range(len(readings))
            }
        return {
            "scans": self.scans,
            "sensors": [
                {
                    "sensor": sensor,
                    "cell": self.cells[sensor],
                    "state": record.state,
                    "changes": record.changes,
                    "flag": flags[sensor][0],
                    "answers_for": flags[sensor][1],
                    **magnet.get(sensor, {}),
                }
                for sensor, record in enumerate(self.sensors)
            ],
            "findings": [said.to_json() for said in self.findings()],
            "link": {
                "frames": counters.get("frames_received", 0),
                "crc_errors": counters.get("crc_errors", 0),
                "dropped": counters.get("dropped", 0),
                "retransmits": counters.get("retransmits", 0),
                "reconnects": counters.get("reconnects", 0),
            },
        }
