"""The LED test of a new board: frames that light one cell, every cell in turn, or
all of them in one colour, through the board's wiring (LED order), and a sentence on
how the strip runs compared with the cell order.

It only makes frames; the caller sends them. It must never pick a game's colours.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from engines.words import Words, words

#: The test colours, full brightness before the board's own brightness scaling.
COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (255, 0, 0),
    "green": (0, 255, 0),
    "blue": (0, 0, 255),
    "white": (255, 255, 255),
}


def frame(leds: Sequence[str | None], cells: Iterable[str], colour: str = "white") -> bytes:
    """A frame (r, g, b per LED, strip order) lighting ``cells`` in ``colour``."""
    if colour not in COLOURS:
        raise ValueError(f"colour {colour!r}: choose one of {', '.join(COLOURS)}")
    lit = set(cells)
    strangers = lit - set(leds)
    if strangers:
        raise ValueError(f"no LED sits under {', '.join(sorted(strangers))}")
    rgb = bytes(COLOURS[colour])
    return b"".join(rgb if cell in lit else b"\0\0\0" for cell in leds)


def walk(
    leds: Sequence[str | None], cells: Sequence[str], colour: str = "white"
) -> Iterator[tuple[str, bytes]]:
    """Every cell in turn, in the board's cell order: (cell, frame lighting it)."""
    under = set(leds)
    for cell in cells:
        if cell in under:
            yield cell, frame(leds, (cell,), colour)


def strip_order(leds: Sequence[str | None], cells: Sequence[str]) -> Words:
    """How the strip runs compared with the board's cell order, in words."""
    placed = [cell for cell in leds if cell is not None]
    missing = [cell for cell in cells if cell not in set(placed)]
    if missing:
        return words(
            "board.leds.missing",
            "No LED sits under {count, plural, one {# cell} other {# cells}} (first: {cells}): "
            "map the strip again",
            count=len(missing),
            cells=missing[:5],
        )
    if placed == list(cells):
        return words("board.leds.in_order", "The strip runs in the board's cell order")
    if placed == list(reversed(cells)):
        return words(
            "board.leds.reversed",
            "The strip runs against the board's cell order (it starts at the last cell); "
            "the wiring file takes care of it",
        )
    return words(
        "board.leds.own_order",
        "The strip runs in an order of its own; the wiring file takes care of it",
    )
