"""The pieces on a simulated table (``boardref serve --sim``): each cell's stack of
pieces (bottom first), the pieces in the player's hand, the tray beside the board
for captured pieces and the game's supply (Hakenschlagen's molehills).

It is the physical board and nothing more: it moves pieces where a hand puts them
and refuses only what no hand could do (lift from an empty cell, put a second piece
into a one-piece hole, use a piece that is no longer in the hand). It never decides
whether a move is legal; the referee does, from what the sensors feel of it.

>>> board = VirtualBoard(["a1", "a2"], stacks=False)
>>> board.lay_out({"a1": ("hare",)}, {})
>>> piece = board.lift("a1")
>>> board.place("a2").token, board.presence()
('hare', [False, True])
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engines.words import Words, words

TRAY, SUPPLY = "tray", "supply"
#: the parts a piece's token names: a tower "gold/red[blue,green]" is four hats
PART = re.compile(r"[a-z0-9_]+")


class HandRefused(Exception):
    """What a hand cannot do on the board, in words (``.words`` for a page)."""

    def __init__(self, said: Words):
        super().__init__(str(said))
        self.words = said


@dataclass(frozen=True)
class Piece:
    """A piece in the hand: ``origin`` is the cell, ``tray`` or ``supply`` it came from."""

    id: int
    token: str
    origin: str


class VirtualBoard:
    """The pieces of one simulated table; ``version`` counts its changes, so a page
    acting on an old picture of it is told to look again."""

    def __init__(self, cells: Iterable[str], stacks: bool, version: int = 0):
        self.cells = tuple(cells)
        #: whether a cell may hold several pieces (hats on hats) or one at most
        self.stacking = stacks
        self.stacks: dict[str, list[str]] = {cell: [] for cell in self.cells}
        self.hand: list[Piece] = []
        self.tray: list[str] = []
        self.supply: dict[str, int] = {}
        #: goes on from ``version`` (a board replaced for another game's counts on)
        self.version = version
        self._next_id = 1

    def lay_out(self, stacks: Mapping[str, Sequence[str]], supply: Mapping[str, int]) -> None:
        """Set the pieces as a game's position has them; the hand and tray empty."""
        self.stacks = {cell: list(stacks.get(cell, ())) for cell in self.cells}
        self.supply = dict(supply)
        self.hand = []
        self.tray = []
        self._changed()

    def regroup(self, stacks: Mapping[str, Sequence[str]]) -> bool:
        """Where a cell holds the very parts ``stacks`` names for it, grouped otherwise
        (a hat put over foreign hats, which nest into one tower), group them so; True
        if any cell changed. Cells holding other parts stay as they are."""
        changed = False
        for cell, stack in self.stacks.items():
            wanted = list(stacks.get(cell, ()))
            if stack != wanted and _parts(stack) == _parts(wanted):
                self.stacks[cell] = wanted
                changed = True
        if changed:
            self._changed()
        return changed

    # --- what a hand does ------------------------------------------------------------

    def check(self, version: int | None) -> None:
        """Refuse an action taken on a picture of the board older than this one."""
        if version is not None and version != self.version:
            raise HandRefused(
                words(
                    "sim.stale",
                    "The virtual board changed meanwhile (on another page?); look again and repeat",
                )
            )

    def lift(self, cell: str, token: str | None = None) -> Piece:
        """Take the top piece of ``cell`` into the hand, or one of ``token`` from
        among the pieces standing there side by side (a hat beside towers on a grey
        field)."""
        stack = self._stack(cell)
        if not stack:
            raise HandRefused(words("sim.empty", "There is no piece on {cell} to lift", cell=cell))
        if token is None:
            return self._hold(stack.pop(), cell)
        if token not in stack:
            raise HandRefused(
                words("sim.not_on_cell", "There is no {token} on {cell}", token=token, cell=cell)
            )
        del stack[len(stack) - 1 - stack[::-1].index(token)]
        return self._hold(token, cell)

    def place(self, cell: str, piece: int | None = None) -> Piece:
        """Put a piece of the hand (``piece``, else the one lifted last) on ``cell``."""
        stack = self._stack(cell)
        held = self._in_hand(piece)
        if stack and not self.stacking:
            raise HandRefused(
                words(
                    "sim.occupied",
                    "{cell} holds a piece already ({token}); lift it first",
                    cell=cell,
                    token=stack[-1],
                )
            )
        self.hand.remove(held)
        stack.append(held.token)
        self._changed()
        return held

    def take(self, off: str, token: str | None = None) -> Piece:
        """Take a piece (of ``token``, else the last) off the tray or the supply."""
        if off == TRAY:
            if not self.tray or (token is not None and token not in self.tray):
                raise HandRefused(words("sim.tray_empty", "There is no such piece in the tray"))
            index = len(self.tray) - 1 - self.tray[::-1].index(token) if token else -1
            return self._hold(self.tray.pop(index), TRAY)
        if off == SUPPLY:
            left = {t: n for t, n in self.supply.items() if n > 0}
            token = token or next(iter(left), None)
            if token not in left:
                raise HandRefused(words("sim.supply_empty", "The supply has no such piece left"))
            self.supply[token] -= 1
            return self._hold(token, SUPPLY)
        raise HandRefused(words("sim.no_place", "There is no {place} beside this board", place=off))

    def put(self, off: str, piece: int | None = None) -> Piece:
        """Put a piece of the hand into the tray, or back into the supply."""
        held = self._in_hand(piece)
        if off == TRAY:
            self.tray.append(held.token)
        elif off == SUPPLY and held.token in self.supply:
            self.supply[held.token] += 1
        elif off == SUPPLY:
            raise HandRefused(
                words("sim.not_supply", "A {token} does not belong in the supply", token=held.token)
            )
        else:
            raise HandRefused(
                words("sim.no_place", "There is no {place} beside this board", place=off)
            )
        self.hand.remove(held)
        self._changed()
        return held

    def unpack(self, piece: int | None = None) -> list[Piece]:
        """Take a tower in the hand (``piece``, else the one lifted last) apart into its
        hats, each a piece in the hand (the top last), as a hand does at home: own hats
        go back into the home, prisoners beside it."""
        held = self._in_hand(piece)
        parts = PART.findall(held.token)
        if len(parts) < 2:
            raise HandRefused(
                words(
                    "sim.not_a_tower", "{token} is one piece: nothing is inside", token=held.token
                )
            )
        self.hand.remove(held)
        tops = 2 if parts[0] == "gold" else 1  # the golden hat sits on its bearer
        return [self._hold(part, held.origin) for part in (*parts[tops:], *parts[:tops])]

    # --- what others read of it -----------------------------------------------------------

    def presence(self, cells: Iterable[str] | None = None) -> list[bool]:
        """Whether any piece stands on each cell (board order, or ``cells``' order):
        what the hall sensors feel."""
        return [bool(self.stacks[c]) for c in (self.cells if cells is None else cells)]

    def unseen_lifts(self) -> list[str]:
        """Cells a piece in the hand came from that still hold pieces: the sensors
        cannot feel those lifts (one hat of six off a home)."""
        return list(dict.fromkeys(p.origin for p in self.hand if self.stacks.get(p.origin)))

    def snapshot(self) -> dict[str, Any]:
        """The whole board for a page: non-empty stacks, hand, tray, supply."""
        return {
            "version": self.version,
            "stacking": self.stacking,
            "stacks": {c: list(s) for c, s in self.stacks.items() if s},
            "hand": [{"id": p.id, "token": p.token, "origin": p.origin} for p in self.hand],
            "tray": list(self.tray),
            "supply": dict(self.supply),
        }

    # --- inside ---------------------------------------------------------------------------

    def _stack(self, cell: str) -> list[str]:
        if cell not in self.stacks:
            raise HandRefused(
                words("sim.no_cell", "There is no cell {cell} on this board", cell=cell)
            )
        return self.stacks[cell]

    def _in_hand(self, piece: int | None) -> Piece:
        if not self.hand:
            raise HandRefused(words("sim.nothing_held", "The hand is empty: lift a piece first"))
        if piece is None:
            return self.hand[-1]
        for held in self.hand:
            if held.id == piece:
                return held
        raise HandRefused(
            words("sim.not_in_hand", "That piece is no longer in the hand (put down elsewhere?)")
        )

    def _hold(self, token: str, origin: str) -> Piece:
        piece = Piece(self._next_id, token, origin)
        self._next_id += 1
        self.hand.append(piece)
        self._changed()
        return piece

    def _changed(self) -> None:
        self.version += 1


def _parts(stack: Sequence[str]) -> Counter:
    return Counter(part for token in stack for part in PART.findall(token))
