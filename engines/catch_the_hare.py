"""Catch the Hare (cercar la liebre) on a 5x5 alquerque board.

Seat 0 plays the twelve hunters and moves first (the sides decide who starts, so
there is no choice of starting seat); seat 1 plays the hare. Every piece steps along
a marked line to an adjacent empty point. The hare captures by leaping over an
adjacent hunter onto the empty point beyond, and may go on leaping from there; it may
stop after any leap, so every prefix of a capture chain is a move of its own.
Capturing is never compulsory. A captured hunter leaves the board at once.

Readings of the book this engine follows:

- The board is the original alquerque: lines along every rank and file, and
  diagonals through every point whose file and rank add up to an even number. Twelve
  hunters fill ranks 1 and 2 and the ends of rank 3 (a3, e3); the hare starts on c3.
- The hunters win when the hare cannot move on its turn. The hare wins when fewer
  than ``min_hunters`` hunters are left (10 by default, so after three captures: our
  reading of "can no longer enclose the hare"), and when the hunters cannot move.
- The handicap: a strong hunter player may start with 11 or 10 hunters, taken from
  the ends of rank 3 first. ``min_hunters`` is a number of hunters, not counted from
  the start: with ten hunters and the default the hare wins at its first capture.
  A table that wants a longer handicap game lowers ``min_hunters`` as well.
- The book has no draw; ``max_plies`` gives kiosks and simulations one.
- A refusal names the true fault first: a move between points that no line joins
  says so before anything about who may leap.

Options:

- ``board`` ("original"): "less_diagonal" (only the two long diagonals) or
  "no_diagonal" (the modern Spanish board, orthogonals only).
- ``single_capture`` (False): one leap per turn (Alfonso X's reading).
- ``hunters`` (12): the handicap, 11 or 10; the ends of rank 3 go first.
- ``min_hunters`` (10): the hare wins when fewer hunters than this remain.
- ``max_plies`` (None): the game is drawn after this many moves.

>>> from engines import load_game
>>> game = load_game("catch_the_hare")
>>> state = game.initial_state()
>>> sorted(str(m) for m in game.legal_moves(state))[:3]
['a3-a4', 'a3-b3', 'a3-b4']
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engines.core import Game, Move, Option, Outcome
from engines.errors import IllegalMove, OptionError, RecordError
from engines.words import Words, words

HUNTERS, HARE = 0, 1
SIDES = ("hunters", "hare")
BOARDS = {
    "original": "catch_the_hare",
    "less_diagonal": "catch_the_hare_less_diagonal",
    "no_diagonal": "catch_the_hare_no_diagonal",
}


@dataclass(frozen=True)
class HareState:
    """Where the hare and the hunters stand (cell indices), whose turn, how many plies."""

    hare: int
    hunters: frozenset[int]
    turn: int = HUNTERS
    ply: int = 0


class CatchTheHare(Game[HareState]):
    name = "catch_the_hare"
    player_counts = (2,)
    default_players = 2
    state_type = HareState
    OPTIONS = (
        Option("board", "original", "which alquerque board", kind=str, choices=tuple(BOARDS)),
        Option("single_capture", False, "the hare leaps at most once per turn"),
        Option(
            "hunters",
            12,
            "hunters at the start: 11 or 10 is a handicap for a strong hunter player; with 10 "
            "and min_hunters 10 the hare wins at its first capture, so lower min_hunters for "
            "a longer game",
            kind=int,
            choices=(10, 11, 12),
        ),
        Option(
            "min_hunters",
            10,
            "the hare wins when fewer hunters than this are left (a number of hunters, not "
            "counted from the start)",
            kind=int,
            minimum=1,
        ),
        Option("max_plies", None, "draw after this many moves", kind=int, minimum=1),
    )

    def __init__(self, players: int | None = None, **options: Any) -> None:
        super().__init__(players, **options)
        if self.options["min_hunters"] > self.options["hunters"]:
            raise OptionError(
                words(
                    "rules.catch_the_hare.min_hunters_more_than",
                    (
                        "{game}: min_hunters={min_hunters} is more than the {hunters, plural, one "
                        "{# hunter} other {# hunters}} on the board; the hare would win at once"
                    ),
                    game=self.name,
                    min_hunters=self.options["min_hunters"],
                    hunters=self.options["hunters"],
                )
            )
        self._names = tuple(cell.id for cell in self.board.cells)
        index = self.board.index
        #: pairs of points some marked line runs through
        self._joined = frozenset(
            frozenset((index[a], index[b])) for line in self.board.lines for a in line for b in line
        )

    def _board_name(self) -> str:
        return BOARDS[self.options["board"]]

    def seat_words(self, seat: int) -> Words:
        if seat == HUNTERS:
            return words("seat.the_hunters", "the hunters")
        return words("seat.the_hare", "the hare")

    def seat_colour(self, seat: int) -> str:
        return SIDES[seat]

    def initial_state(self) -> HareState:
        setup = self.board.game
        hunters = [self.board.index[c] for c in setup["hunters"]][: self.options["hunters"]]
        return HareState(self.board.index[setup["hare"]], frozenset(hunters))

    def _to_move(self, state: HareState) -> int:
        return state.turn

    # --- move generation --------------------------------------------------------------

    def _legal_moves(self, state: HareState) -> list[Move]:
        names = self._names
        return [
            Move(tuple(names[i] for i in path), leap=leap) for path, leap in self._moves_of(state)
        ]

    def _moves_of(self, state: HareState) -> Iterator[tuple[tuple[int, ...], bool]]:
        """Yield ``(path, leap)`` for every move of the side to act."""
        neighbours = self.board.neighbours
        occupied = state.hunters | {state.hare}
        if state.turn == HUNTERS:
            for hunter in sorted(state.hunters):
                for dest in neighbours[hunter]:
                    if dest not in occupied:
                        yield (hunter, dest), False
            return
        for dest in neighbours[state.hare]:
            if dest not in occupied:
                yield (state.hare, dest), False
        yield from self._leaps((state.hare,), state.hunters)

    def _leaps(
        self, path: tuple[int, ...], hunters: frozenset[int]
    ) -> Iterator[tuple[tuple[int, ...], bool]]:
        """Every capture chain starting with ``path``; each leap removes its hunter."""
        at = path[-1]
        for over, land in self.board.jumps[at]:
            # the hare's own start point is empty once it has left it
            if over in hunters and land not in hunters:
                longer = path + (land,)
                yield longer, True
                if not self.options["single_capture"]:
                    yield from self._leaps(longer, hunters - {over})

    def can_extend(self, state: HareState, move: Move, sensor: str = "camera") -> bool:
        """A capture chain can go on while the hare, where it landed, has another
        hunter to leap (never with ``single_capture``)."""
        self._require_state(state)
        if not isinstance(move, Move) or not move.leap or self.options["single_capture"]:
            return False
        after = self.apply(state, move)
        return next(self._leaps((after.hare,), after.hunters), None) is not None

    # --- applying a move --------------------------------------------------------------

    def _apply(self, state: HareState, move: Move) -> HareState:
        path = self._cells_of(move)
        if len(path) < 2:
            raise IllegalMove(
                words(
                    "rules.catch_the_hare.move_needs_start_end",
                    "a move needs a start and an end point (no passing): move a piece along a line",
                ),
                move=str(move),
            )
        self._check_mover(state, move, path[0])
        self._check_lines(move, path)  # the true reason first, before who may leap
        hunters = (self._leap if move.leap else self._step)(state, move, path)
        hare = path[-1] if state.turn == HARE else state.hare
        return HareState(hare, hunters, 1 - state.turn, state.ply + 1)

    def _check_mover(self, state: HareState, move: Move, origin: int) -> None:
        """The side to move has a piece on the move's first point."""
        if state.turn == HUNTERS and origin not in state.hunters:
            raise IllegalMove(
                words(
                    "rules.catch_the_hare.no_hunter_hunters_move",
                    "no hunter on {origin}; the hunters move, so move a hunter",
                    origin=self._names[origin],
                ),
                move=str(move),
            )
        if state.turn == HARE and origin != state.hare:
            raise IllegalMove(
                words(
                    "rules.catch_the_hare.hare_is_elsewhere",
                    "the hare is on {cell}; the hare moves, so move the hare",
                    cell=self._names[state.hare],
                ),
                move=str(move),
            )

    def _check_lines(self, move: Move, path: tuple[int, ...]) -> None:
        """Each leg of the path runs along a line of the board."""
        for at, land in zip(path, path[1:]):
            if frozenset((at, land)) not in self._joined:
                raise IllegalMove(
                    words(
                        "rules.catch_the_hare.no_line_joins",
                        "no line joins {origin} and {dest}: move along a line",
                        origin=self._names[at],
                        dest=self._names[land],
                    ),
                    move=str(move),
                )

    def _occupied(self, move: Move, cell: int) -> IllegalMove:
        return IllegalMove(
            words(
                "rules.catch_the_hare.occupied",
                "{cell} is occupied: move to a free point",
                cell=self._names[cell],
            ),
            move=str(move),
        )

    def _step(self, state: HareState, move: Move, path: tuple[int, ...]) -> frozenset[int]:
        """A step to an adjacent free point; the hunters after it."""
        origin, dest = path[0], path[-1]
        if len(path) != 2 or dest not in self.board.neighbours[origin]:
            raise IllegalMove(
                words(
                    "rules.catch_the_hare.step_goes_one_adjacent",
                    "a step goes to one adjacent point; leaps use ':': write the move again",
                ),
                move=str(move),
            )
        if dest in state.hunters or dest == state.hare:
            raise self._occupied(move, dest)
        if state.turn == HUNTERS:
            return (state.hunters - {origin}) | {dest}
        return state.hunters

    def _leap(self, state: HareState, move: Move, path: tuple[int, ...]) -> frozenset[int]:
        """The hare's leaps over hunters; the hunters left after them."""
        if state.turn == HUNTERS:
            raise IllegalMove(
                words(
                    "rules.catch_the_hare.hunters_cannot_leap_only",
                    "the hunters cannot leap, only the hare captures: move the hunter one step "
                    "along a line",
                ),
                move=str(move),
            )
        if self.options["single_capture"] and len(path) > 2:
            raise IllegalMove(
                words(
                    "rules.catch_the_hare.one_leap_per_turn",
                    "one leap per turn (single_capture): stop after the first leap",
                ),
                move=str(move),
            )
        hunters = state.hunters
        for at, land in zip(path, path[1:]):
            over = self.board.jump_over.get((at, land))
            if over is None:
                raise IllegalMove(
                    words(
                        "rules.catch_the_hare.not_leap_along_line",
                        "{at} to {land} is not a leap along a line: jump straight over one hunter "
                        "along a line",
                        at=self._names[at],
                        land=self._names[land],
                    ),
                    move=str(move),
                )
            if over not in hunters:
                raise IllegalMove(
                    words(
                        "rules.catch_the_hare.no_hunter_capture",
                        "no hunter on {over} to capture: jump only over a hunter",
                        over=self._names[over],
                    ),
                    move=str(move),
                )
            if land in hunters:
                raise self._occupied(move, land)
            hunters = hunters - {over}
        return hunters

    # --- the end ----------------------------------------------------------------------

    def outcome(self, state: HareState) -> Outcome | None:
        self._require_state(state)
        left, needed = len(state.hunters), self.options["min_hunters"]
        if left < needed:
            return Outcome(
                (HARE,),
                words(
                    "rules.catch_the_hare.only_hunters_left_fewer",
                    "only {left, plural, one {# hunter} other {# hunters}} left, fewer than "
                    "{needed}",
                    left=left,
                    needed=needed,
                ),
            )
        if next(self._moves_of(state), None) is None:
            if state.turn == HARE:
                return Outcome(
                    (HUNTERS,),
                    words(
                        "rules.catch_the_hare.hare_enclosed_cannot_move",
                        "the hare is enclosed and cannot move",
                    ),
                )
            return Outcome(
                (HARE,),
                words("rules.catch_the_hare.hunters_cannot_move", "the hunters cannot move"),
            )
        limit = self.options["max_plies"]
        if limit is not None and state.ply >= limit:
            return Outcome(
                (),
                words(
                    "rules.catch_the_hare.move_limit_reached",
                    "move limit of {limit} reached",
                    limit=limit,
                ),
            )
        return None

    # --- what sensors see, and records ------------------------------------------------

    def observe(self, state: HareState) -> dict[str, str | None]:
        self._require_state(state)
        tokens: dict[str, str | None] = dict.fromkeys(self._names)
        for i in state.hunters:
            tokens[self._names[i]] = "hunter"
        tokens[self._names[state.hare]] = "hare"
        return tokens

    def render(self, state: HareState) -> str:
        """The board as text: H for the hare, x for a hunter."""
        symbols = {"hare": "H", "hunter": "x"}
        return self.board.render(
            {k: symbols[v] for k, v in self.observe(state).items() if v is not None}
        )

    def _state_to_json(self, state: HareState) -> dict:
        return {
            "hare": self._names[state.hare],
            "hunters": sorted(self._names[i] for i in state.hunters),
            "turn": SIDES[state.turn],
            "ply": state.ply,
        }

    def _state_from_json(self, data: Any) -> HareState:
        (hare,) = self._cell_list([data["hare"]], "hare")
        hunters = self._cell_list(data["hunters"], "hunters")
        if hare in hunters:
            raise RecordError(
                words(
                    "rules.catch_the_hare.hare_hunter_share_point",
                    "the hare and a hunter share a point",
                )
            )
        if len(hunters) > self.options["hunters"]:
            raise RecordError(
                words(
                    "rules.catch_the_hare.hunters_game_starts_fewer",
                    "{count, plural, one {# hunter} other {# hunters}}; this game starts with "
                    "fewer",
                    count=len(hunters),
                )
            )
        if data["turn"] not in SIDES:
            raise RecordError(
                words(
                    "rules.catch_the_hare.turn_must_one_not",
                    "turn must be one of {sides}, not {turn}",
                    sides=SIDES,
                    turn=repr(data["turn"]),
                )
            )
        ply = data["ply"]
        if isinstance(ply, bool) or not isinstance(ply, int) or ply < 0:
            raise RecordError(
                words(
                    "rules.catch_the_hare.ply_must_whole_number_not",
                    "'ply' must be a whole number >= 0, not {ply}",
                    ply=repr(ply),
                )
            )
        return HareState(hare, frozenset(hunters), SIDES.index(data["turn"]), ply)
