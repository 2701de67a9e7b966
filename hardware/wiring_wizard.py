"""The wiring map wizard: learn which sensor and which LED sit under each cell.

The wizard names cell after cell; the maker puts a piece there and takes it away
again, and the sensor that answered is recorded. Then it lights LED after LED; the
maker puts a piece on the lit cell (or taps it on the panel's Board tab, through
``claim_led``), and that cell is the LED's. Sensors that answer for a neighbour too
are told apart by elimination: a sensor that answered alone at its own cell is not
another cell's. What could not be settled is said in words. It reads the board
through the link and never touches a game.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engines.words import Words, words
from hardware.wiring import Wiring

#: A piece counts once the board has read it unchanged this long (seconds).
SETTLE = 0.3
#: How long the wizard waits for a piece on one cell before moving on (seconds).
PATIENCE = 30.0
_POLL = 0.01
WHITE = (255, 255, 255)


@dataclass
class MapResult:
    """The learned wiring and what the maker should know about it."""

    wiring: Wiring
    findings: list[Words] = field(default_factory=list)


class MapWizard:
    """Drive a maker through mapping ``cells`` on a board reached by ``states``
    (the board's current scan, a byte per sensor) and ``show`` (LED colours, r, g,
    b per LED); ``shown`` returns the colours the board acknowledged, so the maker
    is asked to look only once the LED is lit; ``tell`` hears every instruction in
    words."""

    def __init__(
        self,
        states: Callable[[], bytes],
        show: Callable[[bytes], None],
        tell: Callable[[Words], None],
        shown: Callable[[], bytes | None] | None = None,
        patience: float = PATIENCE,
        settle: float = SETTLE,
    ):
        self._states = states
        self._show = show
        self._tell = tell
        self._shown = shown
        self.patience = patience
        self.settle = settle
        #: the sensors that answered at each cell while mapping them
        self.answers: dict[str, set[int]] = {}

    def run(self, board: str, cells: Sequence[str]) -> MapResult:
        """Map the sensors, then the LEDs; the board must start empty."""
        empty = self._states()
        sensors, findings = self.map_sensors(cells, empty)
        leds, led_findings = self.map_leds(sensors, empty, len(empty))
        return MapResult(Wiring(board, sensors, leds), findings + led_findings)

    # -- sensors ---------------------------------------------------------------------

    def map_sensors(
        self, cells: Sequence[str], empty: bytes
    ) -> tuple[list[str | None], list[Words]]:
        """Each sensor's cell, sensor order, and the problems found."""
        answers = self.answers = {}
        for cell in cells:
            self._tell(words("board.map.put", "Put a piece on cell {cell}", cell=cell))
            answered = self._answer(empty)
            answers[cell] = answered
            if answered:
                self._tell(
                    words(
                        "board.map.heard",
                        "Cell {cell}: sensor {sensors} answered; take the piece away",
                        cell=cell,
                        sensors=sorted(answered),
                    )
                )
                self._cleared(empty)
        return _settle_sensors(answers, len(empty))

    def _answer(self, empty: bytes) -> set[int]:
        """The sensors that newly read a piece once the board is still; empty when
        nothing answered in time."""
        deadline = time.monotonic() + self.patience
        seen: set[int] = set()
        since = time.monotonic()
        while time.monotonic() < deadline:
            now = _lit(self._states(), empty)
            if now != seen:
                seen, since = now, time.monotonic()
            elif seen and time.monotonic() - since >= self.settle:
                return seen
            time.sleep(_POLL)
        return set()

    def _cleared(self, empty: bytes) -> None:
        deadline = time.monotonic() + self.patience
        while _lit(self._states(), empty) and time.monotonic() < deadline:
            time.sleep(_POLL)

    # -- LEDs ------------------------------------------------------------------------

    def map_leds(
        self, sensors: Sequence[str | None], empty: bytes, count: int
    ) -> tuple[list[str | None], list[Words]]:
        """Each LED's cell, strip order: LED after LED lights and the maker puts a
        piece on the lit cell."""
        leds: list[str | None] = []
        findings: list[Words] = []
        for led in range(count):
            frame = bytearray(3 * count)
            frame[3 * led : 3 * led + 3] = bytes(WHITE)
            self._light(bytes(frame))
            self._tell(words("board.map.lit", "Put a piece on the lit cell (LED {led})", led=led))
            answered = self._answer(empty)
            # A piece that also wakes a neighbour's sensor is known by the very
            # answer it gave while the sensors were mapped.
            cells = {cell for cell, heard in self.answers.items() if heard == answered}
            if len(cells) != 1:
                cells = {sensors[s] for s in answered if sensors[s] is not None}
            if len(cells) == 1:
                leds.append(cells.pop())
                self._tell(
                    words(
                        "board.map.led_heard",
                        "LED {led} is under cell {cell}; take the piece away",
                        led=led,
                        cell=leds[-1],
                    )
                )
                self._cleared(empty)
            else:
                leds.append(None)
                findings.append(
                    words("board.map.led_unclaimed", "No cell was found for LED {led}", led=led)
                )
                if answered:
                    self._cleared(empty)
        self._show(bytes(3 * count))
        return leds, findings

    def _light(self, frame: bytes) -> None:
        self._show(frame)
        if self._shown is None:
            return
        deadline = time.monotonic() + self.patience
        while self._shown() != frame and time.monotonic() < deadline:
            time.sleep(_POLL)


def claim_led(leds: list[str | None], led: int, cell: str) -> None:
    """The panel's way of mapping the strip: the maker tapped ``cell`` while LED
    ``led`` was lit; a cell claimed before by another LED is given up there."""
    if cell in leds:
        leds[leds.index(cell)] = None
    leds[led] = cell


def _lit(states: bytes, empty: bytes) -> set[int]:
    return {sensor for sensor, (now, was) in enumerate(zip(states, empty)) if now and not was}


def _settle_sensors(
    answers: dict[str, set[int]], count: int
) -> tuple[list[str | None], list[Words]]:
    """Give each cell one sensor: a cell where one sensor answered alone owns it; a
    sensor owned elsewhere is struck from the other cells' answers, until nothing
    changes. What is left over is said in words."""
    owner: dict[int, str] = {}
    findings: list[Words] = []
    open_cells = {cell: set(found) for cell, found in answers.items() if found}
    progress = True
    while progress:
        progress = False
        for cell, found in list(open_cells.items()):
            left = found - owner.keys()
            if len(left) == 1:
                owner[left.pop()] = cell
                del open_cells[cell]
                progress = True
    for cell, found in answers.items():
        if not found:
            findings.append(
                words(
                    "board.map.silent",
                    "No sensor answered at cell {cell}: check its sensor, magnet and wire",
                    cell=cell,
                )
            )
            continue
        if cell in open_cells:
            left = sorted(found - owner.keys())
            if left:  # otherwise every sensor here is another cell's: a duplicate, below
                findings.append(
                    words(
                        "board.map.unclear",
                        "At cell {cell} sensors {sensors} answered: could not tell which "
                        "is its own",
                        cell=cell,
                        sensors=left,
                    )
                )
            continue
        for sensor in sorted(found):
            if owner.get(sensor) != cell:
                findings.append(
                    words(
                        "board.map.neighbour",
                        "At cell {cell}, sensor {sensor} of cell {other} answered too: it "
                        "sees its neighbour's piece",
                        cell=cell,
                        sensor=sensor,
                        other=owner[sensor],
                    )
                )
    for sensor in sorted(owner):
        claims = [cell for cell, found in answers.items() if found and found <= {sensor}]
        if len(claims) > 1:
            findings.append(
                words(
                    "board.map.duplicate",
                    "Sensor {sensor} answered alone at cells {cells}: two cells on one "
                    "sensor, or a piece left on the board",
                    sensor=sensor,
                    cells=claims,
                )
            )
    sensors: list[str | None] = [None] * count
    for sensor, cell in owner.items():
        sensors[sensor] = cell
    return sensors, findings
