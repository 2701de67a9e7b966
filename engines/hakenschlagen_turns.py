"""Where a Hakenschlagen hare can jump, looked up rather than walked: each straight
run from a hollow is cut at its first tree once per layout, with the hollows of each
colour along it, so a turn's search (thousands of looks a turn) only checks the fox
and the figures standing on the few hollows a colour could take the hare to.
Pure lookups: never changes a position, never draws chance.
"""

from __future__ import annotations

from collections.abc import Sequence

#: one straight run from a hollow: its compass name, its hollows up to the first tree,
#: that tree (None at the edge), each hollow's place along the run, and per colour
#: the (place, hollow) of that colour's hollows along it, nearest first
Run = tuple[str, tuple[int, ...], int | None, dict[int, int], tuple[tuple[str, tuple], ...]]
#: ``Lanes.survey``'s answer: targets per colour, blocker and hollows per run
Sight = tuple[dict[str, list[tuple[str, int]]], tuple[int | None, ...], tuple[tuple[int, ...], ...]]


class Lanes:
    """The runs from every hollow for one layout (``layout[i]``: "tree", "field" or
    a disk colour), for the colours ``colours``."""

    def __init__(
        self,
        rays: Sequence[tuple[tuple[str, tuple[int, ...]], ...]],
        layout: Sequence[str],
        colours: Sequence[str],
        tree: str,
    ) -> None:
        self.layout = layout
        self.colours = tuple(colours)
        runs = []
        for from_here in rays:
            cut = []
            for direction, ray in from_here:
                blocker = next((c for c in ray if layout[c] == tree), None)
                cells = ray if blocker is None else ray[: ray.index(blocker)]
                spots = tuple(
                    (colour, tuple((k, c) for k, c in enumerate(cells) if layout[c] == colour))
                    for colour in self.colours
                )
                # a colour with no hollow on the run is never looked at
                spots = tuple((colour, found) for colour, found in spots if found)
                cut.append((direction, cells, blocker, {c: k for k, c in enumerate(cells)}, spots))
            runs.append(tuple(cut))
        #: per hollow: its runs (``Run``)
        self.runs: tuple[tuple[Run, ...], ...] = tuple(runs)
        #: per hollow and colour: (run's place along it, that colour's spots) per run
        self.by_colour = tuple(
            {
                colour: tuple(
                    (where, dict(spots)[colour])
                    for _, _, _, where, spots in cut
                    if colour in dict(spots)
                )
                for colour in self.colours
            }
            for cut in self.runs
        )

    def survey(self, hare: int, fox: int, moles: frozenset[int], others: frozenset[int]) -> Sight:
        """``(targets, blockers, lanes)`` from ``hare``: per colour the ``(direction,
        hollow)`` it would take the hare to, one per direction at most, in the runs'
        order; per run the blocker (a tree, the fox, or None at the edge) and the
        hollows before it. Hares and molehills are jumped over."""
        targets: dict[str, list[tuple[str, int]]] = {colour: [] for colour in self.colours}
        blockers, lanes = [], []
        taken = moles | others
        for direction, cells, blocker, where, spots in self.runs[hare]:
            stop = where.get(fox, len(cells))
            if stop < len(cells):
                cells, blocker = cells[:stop], fox
            lanes.append(cells)
            blockers.append(blocker)
            for colour, found in spots:
                for k, c in found:
                    if k >= stop:
                        break
                    if c not in taken:
                        targets[colour].append((direction, c))
                        break
        return targets, tuple(blockers), tuple(lanes)

    def jumps(
        self, colour: str, hare: int, fox: int, moles: frozenset[int], others: frozenset[int]
    ) -> list[int]:
        """The hollows a ``colour`` marble would take the hare to, one per run at most,
        in the runs' order: ``survey``'s targets of that colour alone."""
        found = []
        for where, spots in self.by_colour[hare][colour]:
            stop = where.get(fox, len(where))
            for k, c in spots:
                if k >= stop:
                    break
                if c not in moles and c not in others:
                    found.append(c)
                    break
        return found
