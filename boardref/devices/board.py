"""The table's hall-sensor board at work (``SensorBoard``): scans in, the referee's
verdicts out to the cell LEDs and the status panel. The service and ``boardref
simulate`` both drive one.

It translates (sensor index to cell id, display to highlights and moods) and never
decides anything itself; it is not thread-safe, so callers hand it scans and button
presses on one thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from boardref.referee.events import Heard, NewSnapshot
from boardref.referee.kinds import Phase
from boardref.referee.referee import Referee
from boardref.referee.snapshot import TableState
from engines.observation import PIECE
from hardware.lights import CellLights, Highlights, Palette
from hardware.status import StatusPanel

#: the status LED's colour for a seat whose pieces have no colour of the palette
FALLBACK_COLOUR = "white"
#: buzzer signal for referee events worth a sound
SIGNALS = {
    "move": "accepted",
    "illegal": "illegal",
    "unreadable": "error",
    "game_over": "game_over",
    "chance": "drawn",
    "store_error": "error",
}


class SensorBoard:
    """A referee with its sensors' cell order, cell LEDs and status panel."""

    def __init__(
        self,
        referee: Referee,
        sensor_cells: Sequence[str],
        lights: CellLights | None = None,
        send_leds: Callable[[bytes], None] | None = None,
        status: StatusPanel | None = None,
        palette: Palette | None = None,
    ):
        self.referee = referee
        self.palette = palette or (lights.palette if lights is not None else Palette.load())
        self.sensor_cells = list(sensor_cells)
        self.lights = lights
        self.send_leds = send_leds
        self.status = status
        self.link_up = True
        self._frame: bytes | None = None
        #: the referee's last snapshot, as published
        self.shown: TableState = referee.published
        referee.listeners.append(self._on_event)

    def close(self) -> None:
        """Stop showing the referee's verdicts (the board is being replaced)."""
        self.referee.listeners.remove(self._on_event)

    def on_scan(self, states: bytes, at: float) -> None:
        """A hall-sensor scan (a byte per sensor, 0 = nothing there) taken at ``at``."""
        if len(states) != len(self.sensor_cells):
            return
        self.referee.sense(
            {
                cell: PIECE if state else None
                for cell, state in zip(self.sensor_cells, states)
                if cell is not None  # a sensor the wiring puts under no cell
            },
            at,
        )

    def tick(self, now: float) -> bool:
        """Judge the reading if it has settled; True if a verdict was given."""
        return self.referee.tick(now)

    def on_link(self, up: bool) -> None:
        """The MCU link went up or down."""
        self.link_up = up
        self.refresh()

    def refresh(self) -> None:
        """Show the referee's last snapshot on the LEDs and the status panel."""
        shown = self.shown
        if self.lights is not None and self.send_leds is not None:
            frame = self.lights.frame(highlights(shown, self.palette.colours))
            if frame != self._frame:
                self._frame = frame
                self.send_leds(frame)
        if self.status is not None:
            mood, colour = status_mood(shown, self.link_up)
            self.status.show(mood, colour if colour in self.palette.colours else FALLBACK_COLOUR)

    def show_test(self, frame: bytes) -> None:
        """Show an LED test's ``frame`` in place of the referee's lights until
        ``relight``, or a change of those lights, shows them again."""
        if self.send_leds is not None:
            self.send_leds(frame)

    def relight(self) -> None:
        """Send the referee's LED frame again, after an LED test showed another."""
        self._frame = None
        self.refresh()

    def _on_event(self, event: Heard) -> None:
        if self.status is not None and event.kind in SIGNALS:
            self.status.signal(SIGNALS[event.kind])
        if isinstance(event, NewSnapshot):  # the referee's last word on a verdict or command
            self.shown = event.table
            self.refresh()


def highlights(shown: TableState, colours) -> Highlights:
    """The cell-LED plan for what the referee shows."""
    turn = shown.seat_colour if shown.seat_colour in colours else None
    return Highlights(
        destinations=shown.destinations or (shown.hints if shown.lifted is None else frozenset()),
        lifted=shown.lifted,
        # the computer's announced move is lit until it is carried out
        last_move=shown.expected_path or shown.last_move,
        errors=shown.errors,
        place=shown.place,
        remove=shown.remove,
        turn_colour=turn if shown.phase in (Phase.MOVE, Phase.CHANCE) else None,
    )


def status_mood(shown: TableState, link_up: bool) -> tuple[str, str | None]:
    """The status LED's mood and seat colour for what the referee shows."""
    if not link_up:
        return "offline", None
    if shown.phase == Phase.OVER:
        return "over", None
    if shown.phase == Phase.SETUP:
        return "setup", None
    if shown.errors or shown.phase == Phase.AMBIGUOUS:
        return "error", None
    if shown.phase == Phase.CHANCE:
        return "waiting", shown.seat_colour
    if shown.tentative:
        return "tentative", shown.seat_colour
    return "turn", shown.seat_colour
