"""Fang den Hut! (the board game): hats that capture by landing on each other.

Each player's hats start at home. The die comes from the chance stream; then one hat
(alone or as the top of a tower) moves exactly that many fields along the paths of the
board (``links`` in ``engines/boards/fang_den_hut*.toml``) without turning back; at a
junction it takes any branch. Hats on the way are jumped over and their fields count.
Landing with the exact count on a yellow field whose hats are foreign captures all of
them: the mover stands on top, forming a tower, and only the top counts. Grey fields
hold at most three hats or towers, side by side, and nobody is captured there. A player
with no legal move passes (the book's example: the only move would land on a full grey
field). A six offers another roll, a fresh move: another hat, or the same one, in
either direction. The game ends when hats of only one colour are left in play (on top
on a field, or at home); most captives wins, hats held in towers on the board counting.
This module is pure rules: no I/O beyond its board files, no randomness of its own.

Readings of the book this engine follows:

- Who starts is decided at the table (the book says the youngest player); option
  ``first_seat`` names that seat, and play goes round in seat order from there.
- The extra roll after a six is offered, not forced (the book says the player "may"
  roll again): while it is due, ``chance`` is a ``Die(6, optional=True)`` and
  ``apply(state, PASS)`` (notation ``pass``) declines it; the turn then passes to the
  next seat with hats in play, whose roll is due. ``legal_moves`` stays empty while
  any roll is due. ``drawer(state)`` is the seat that rolls or declines.
- Seats take the colours of the board file's ``[game.seats]`` row for the number of
  players, in turn order (two players sit at opposite corners).
- Homes are dead ends off a gate of the ring (our board files), so no hat passes
  through a foreign home, and a tower may walk past its own. A hat enters its home
  only carrying captives (never in the ``tower`` game), needs no exact count, and the
  step onto the home counts one pip. Leftover pips must carry a hat back out (the
  same or any other hat at home, in any direction); if no exit is possible the hat
  stays home and the pips lapse.
- Entering home sorts the tower: own hats (and, in the team games, team mates' hats)
  go back to their homes, a captured golden hat becomes the player's, and every
  other hat is a prisoner of the player whose home it is.
- A yellow field holds hats of one colour: own hats and towers may stand on it side
  by side (each moves on its own); a capture takes all of them into one tower. Inside
  a tower only the captives' colours are kept, not their order.
- Bringing a hat out of home is a move like any other; on the 5-6 player side home
  fields fill in board-file order (hats enter the first free one, leave from the last
  taken one, the golden hat sits on the first).
- A player whose colours have nothing left in play is skipped; a six always rolls
  again, even after a pass.
- Scores: prisoners plus foreign hats held in own-topped towers on the board; ties
  share the win. The golden hat is nobody's hat and scores nothing.
- Sensors: ``observe`` gives each field the tops a camera sees there, joined by "+"
  in sorted order (home fields show every hat waiting there); hall sensors see
  presence only, a tower like a hat. ``towers(state, cell)`` lists what is inside.

Options (variants of the book):

- ``last_standing`` (False): the colour left at the end wins, whatever the captives.
- ``team`` (False), 4 or 6 players: seats alternate between two teams (even and odd
  seats, so team mates never sit side by side); team mates are
  never captured (a yellow field of a team mate is closed), bringing captives home
  frees the team mates' hats too, the game ends when one team is left and the team
  with more captives wins.
- ``total_team`` (False): as ``team``, and a player may move the team mates' hats.
- ``tower`` (False): no hat goes back home; the colour on top at the end wins.
- ``first_seat`` (0): the seat that rolls first.
- ``golden_hat`` (False): the golden hat starts on the centre field. Whoever captures
  it must bring it home first; then it sits on one of their hats and moves as that
  hat. It captures on grey fields too, and within one move it may turn back at any
  field: every field where it turns and the field where it ends are landings, and it
  captures there. Golden moves with the same result are listed once. It can be
  captured like any hat. (Not with ``tower``: it could never be brought home.)

Notation: a hat is its top colour, ``gold/`` before it for the golden hat, and its
captives in brackets: ``red``, ``red[blue,green]``, ``gold/red``. A move is the hat and
its path, ``red home_red-gate_red-r1``; a move through home adds the hat that leaves
it, ``red[blue] r3-r2-r1-gate_red-home_red, red home_red-gate_red``; ``pass``.

>>> from engines import load_game
>>> game = load_game("fang_den_hut", players=4)
>>> state = game.initial_state()
>>> game.chance(state), game.to_move(state), game.drawer(state)
(Die(sides=6, optional=False), None, 0)
>>> state = game.resolve(state, 2)
>>> sorted(str(move) for move in game.legal_moves(state))
['red home_red-gate_red-r1', 'red home_red-gate_red-r44', 'red home_red-gate_red-sr1']
>>> state = game.apply(state, game.parse_move(state, "red home_red-gate_red-r1"))
>>> game.observe(state)["r1"], game.observe(state)["home_red"]
('red', 'red+red+red+red+red')
>>> game.seat_name(game.to_move(game.resolve(state, 4)))
'blue'
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from itertools import chain, compress, islice
from operator import attrgetter
from typing import Any, NamedTuple, TypeVar

from engines.chance import Die
from engines.core import FIRST_SEAT, PASS, Game, Move, Option, Outcome, colour_words, joined
from engines.errors import BoardFileError, IllegalMove, NotationError, OptionError, RecordError
from engines.geometry import Board
from engines.playouts import played_out
from engines.words import Words, words

GOLD = "gold"
GREY_CAPACITY = 3
#: moves a game keeps to list them again without building them (a few MB at most)
MOVES_KEPT = 50_000
HOME, GREY, YELLOW = "home", "grey", "yellow"
#: what each kind of field in a board file is for the rules (the centre is yellow)
FIELD_KINDS = {"home": HOME, "grey": GREY, "yellow": YELLOW, "centre": YELLOW}
GAME_KEYS = {"colours", "letters", "hats", "golden_start", "seats"}
HAT_TEXT = re.compile(r"^(gold/)?([a-z]+)(?:\[([a-z,]*)\])?$")


#: the roll due at the start of a turn, and the extra roll offered after a six
ROLL = Die(6)
ROLL_AGAIN = Die(6, optional=True)


class Hat(NamedTuple):
    """A hat on a field: its top ``colour`` and the ``captives`` under it (a tower).

    ``golden``: the golden hat sits on top (it moves as a hat of ``colour``). The
    golden hat nobody has won yet is ``Hat("gold")``. A named tuple, because positions
    compare and sort hats all the time.
    """

    colour: str
    captives: tuple[str, ...] = ()
    golden: bool = False

    @property
    def top(self) -> str:
        """What a camera sees of it."""
        return GOLD if self.golden else self.colour

    def hats(self) -> tuple[str, ...]:
        """Every hat in it, top first (the golden hat included)."""
        return ((GOLD,) if self.golden else ()) + (self.colour, *self.captives)

    def capturing(self, taken: tuple[Hat, ...]) -> Hat:
        if not taken:
            return self
        won = [colour for hat in taken for colour in hat.hats()]
        return self._replace(captives=tuple(sorted((*self.captives, *won))))

    def __str__(self) -> str:
        text = ("gold/" if self.golden else "") + self.colour
        return text + (f"[{','.join(self.captives)}]" if self.captives else "")

    @staticmethod
    @lru_cache(maxsize=4096)
    def parse(text: str) -> Hat:
        """The hat written as ``text`` (kept: records and moves repeat the same few)."""
        found = HAT_TEXT.match(text)
        if not found:
            raise NotationError(
                words(
                    "rules.fang_den_hut.not_hat_write_colour_gold",
                    (
                        "{text} is not a hat: write its colour, 'gold/' before it for the golden "
                        "hat and its captives in brackets, like red or gold/red[blue,green]"
                    ),
                    text=repr(text),
                )
            )
        golden, colour, captives = found.groups()
        inside = tuple(sorted(c for c in (captives or "").split(",") if c))
        if captives is not None and (not inside or "" in captives.split(",")):
            raise NotationError(
                words(
                    "rules.fang_den_hut.list_captives_like_blue",
                    "{text}: list the captives like [blue,green]",
                    text=repr(text),
                )
            )
        return Hat(colour, inside, golden is not None)


@dataclass(frozen=True)
class Leg:
    """One hat walking ``path`` (cell ids, its origin first)."""

    hat: Hat
    path: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.hat} {'-'.join(self.path)}"


@dataclass(frozen=True, init=False)
class HatMove(Move):
    """A move: one leg, or two when the hat goes home and the leftover pips carry a
    hat back out. ``path`` is every cell visited, home once."""

    legs: tuple[Leg, ...] = ()

    def __init__(self, legs: tuple[Leg, ...]) -> None:
        path: tuple[str, ...] = legs[0].path if legs else ()
        for leg in legs[1:]:
            path += leg.path[1:]
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "leap", False)
        object.__setattr__(self, "legs", legs)

    def __str__(self) -> str:
        return ", ".join(map(str, self.legs))


@dataclass(frozen=True)
class HatState:
    """The position: ``fields[i]`` holds the hats on cell ``i`` (sorted; empty for home
    cells), ``home[seat]`` counts the hats at a seat's home, ``prisoners[seat]`` the
    colours it brought home, ``gold_home`` the seat whose home holds the golden hat,
    ``roll`` the die to play (None: roll first)."""

    fields: tuple[tuple[Hat, ...], ...]
    home: tuple[int, ...]
    prisoners: tuple[tuple[str, ...], ...]
    gold_home: int | None = None
    turn: int = 0
    roll: int | None = None
    ply: int = 0
    #: the roll to come is the extra one after a six, which the seat may decline
    again: bool = False

    @cached_property
    def tops(self) -> frozenset[str]:
        """The colours on top of some field; kept, as the end and the turns ask often."""
        return _tops(self.fields)


#: a value of a position's per-seat or per-field tuple
T = TypeVar("T")


class _Walk(NamedTuple):
    """A move being walked: the position so far, the hat walking and its leg."""

    fields: tuple[tuple[Hat, ...], ...]
    home: tuple[int, ...]
    prisoners: tuple[tuple[str, ...], ...]
    gold_home: int | None
    hat: Hat  # as it is now (a golden hat's captives grow on the way)
    leg_hat: Hat  # as it was when this leg began, for the notation
    legs: tuple[tuple[Hat, tuple[int, ...]], ...]  # (hat, cells) of each leg walked
    landing: tuple[int, tuple[Hat, ...]] | None  # the field it ends on, and its hats then
    taken: frozenset[int] = frozenset()  # where a golden hat captured on turning


class Route(NamedTuple):
    """A way a hat may walk, as the board's paths allow, whatever stands on them."""

    cells: tuple[int, ...]  # the cells walked, its origin first
    turns: tuple[int, ...]  # where a golden hat turns back (and captures), in order
    #: where it turns back last, when it turns back into a home field: it captures there
    #: only once it may enter that home
    last_turn: int | None


def _route(cells: tuple[int, ...], ends_home: bool) -> Route:
    turns = [cells[k] for k in range(1, len(cells) - 1) if cells[k - 1] == cells[k + 1]]
    last_turn = None
    if ends_home and len(cells) > 2 and cells[-1] == cells[-3]:
        last_turn = turns.pop()
    return Route(cells, tuple(turns), last_turn)


#: a legal move as a playout lists it before walking it: (hat, origin, route, k)
_Way = tuple[Hat, int, tuple[int, ...], int]
#: the legs of the move being checked, as (hat, cell indices)
Legs = Sequence[tuple[Hat, tuple[int, ...]]]
#: those legs, or None while listing every walk
Guide = Legs | None


class Track(NamedTuple):
    """What the rules read from a board file besides its cells and links."""

    colours: tuple[str, ...]  # each seat's colour, in turn order
    letters: dict[str, str]  # a letter per colour, for text pictures
    hats: int  # hats per player
    kinds: tuple[str, ...]  # HOME, GREY or YELLOW per cell
    home_colour: tuple[str | None, ...]  # whose home each cell is, if any
    home_cells: tuple[tuple[int, ...], ...]  # each seat's home fields, in filling order
    golden_start: int  # where the golden hat starts


def read_track(board: Board, players: int, source: str) -> Track:
    """The track and ``[game]`` table of a board file, checked; a problem names ``source``."""
    data = board.game

    def fail(problem: str) -> BoardFileError:
        return BoardFileError(f"{source}: {problem}")

    colours, letters, hats = _read_colours(data, fail)
    mine = _read_seats(data, players, colours, fail)
    kinds = _read_fields(board, colours, fail)
    homes = {colour: board.zone(colour) for colour in colours}
    for colour, cells in homes.items():
        if not (len(cells) == 1 or len(cells) >= hats):
            raise fail(f"{colour} needs one home field or one for each of its {hats} hats")
    _check_joined(board, fail)
    start = data["golden_start"]
    if start not in board.index or kinds[board.index[start]] != YELLOW:
        raise fail(f"[game] golden_start {start!r} must be a yellow field or the centre")
    return Track(
        tuple(mine),
        dict(zip(colours, letters)),
        hats,
        tuple(kinds),
        tuple(cell.zone if k == HOME else None for cell, k in zip(board.cells, kinds)),
        tuple(homes[c] for c in mine),
        board.index[start],
    )


def _read_colours(data: dict, fail: Callable[[str], BoardFileError]) -> tuple[list, list, int]:
    """The ``[game]`` table's keys, colours, their letters and the hats per player."""
    unknown = set(data) - GAME_KEYS
    missing = GAME_KEYS - set(data)
    if unknown or missing:
        raise fail(
            f"[game] needs exactly {sorted(GAME_KEYS)}; unknown {sorted(unknown)}, "
            f"missing {sorted(missing)}"
        )
    colours, letters = data["colours"], data["letters"]
    if not (
        isinstance(colours, list)
        and colours
        and all(isinstance(c, str) and re.fullmatch(r"[a-z]+", c) and c != GOLD for c in colours)
    ) or len(set(colours)) != len(colours):
        raise fail("[game] colours must be distinct lower-case words (not 'gold')")
    if not (
        isinstance(letters, list)
        and len(letters) == len(colours)
        and all(isinstance(x, str) and len(x) == 1 for x in letters)
    ) or len(set(letters)) != len(letters):
        raise fail("[game] letters must be one distinct character per colour")
    hats = data["hats"]
    if isinstance(hats, bool) or not isinstance(hats, int) or hats < 1:
        raise fail(f"[game] hats must be a whole number of hats per player, not {hats!r}")
    return colours, letters, hats


def _read_seats(
    data: dict, players: int, colours: list, fail: Callable[[str], BoardFileError]
) -> list:
    """The colours the ``[game.seats]`` row for ``players`` seats."""
    seats = data["seats"]
    if not isinstance(seats, dict) or str(players) not in seats:
        raise fail(f"[game.seats] has no row for {players} players")
    mine = seats[str(players)]
    if not (
        isinstance(mine, list)
        and len(mine) == players
        and set(mine) <= set(colours)
        and len(set(mine)) == len(mine)
    ):
        raise fail(f"[game.seats] {players} must list {players} distinct colours")
    return mine


def _read_fields(board: Board, colours: list, fail: Callable[[str], BoardFileError]) -> list:
    """Each cell's field kind; a home field, and only a home field, has a colour as zone."""
    kinds = []
    for cell in board.cells:
        if cell.kind not in FIELD_KINDS:
            raise fail(f"cell {cell.id!r}: kind {cell.kind!r} is not one of {sorted(FIELD_KINDS)}")
        kind = FIELD_KINDS[cell.kind]
        if (kind == HOME) != (cell.zone in colours):
            raise fail(
                f"cell {cell.id!r}: a home field has a colour as zone, "
                "and only a home field has one"
            )
        if not board.neighbours[board.index[cell.id]]:
            raise fail(f"cell {cell.id!r} is on no path of 'links'")
        kinds.append(kind)
    return kinds


def _check_joined(board: Board, fail: Callable[[str], BoardFileError]) -> None:
    """Every field can be reached from every other along the paths."""
    reached, todo = {0}, [0]
    while todo:
        for j in board.neighbours[todo.pop()]:
            if j not in reached:
                reached.add(j)
                todo.append(j)
    if len(reached) != len(board.cells):
        lost = sorted(board.cells[i].id for i in set(range(len(board.cells))) - reached)
        raise fail(f"the paths do not join every field: {', '.join(lost[:5])} cut off")


class FangDenHut(Game[HatState]):
    name = "fang_den_hut"
    player_counts = (2, 3, 4, 5, 6)
    default_players = 4
    state_type = HatState
    STACKS = True
    OPTIONS = (
        Option("last_standing", False, "the last colour on the board wins"),
        Option("team", False, "two alternating teams (4 or 6 players)"),
        Option("total_team", False, "teams, and team mates' hats may be moved too"),
        Option("tower", False, "no hat goes home; the top of the last tower wins"),
        Option("golden_hat", False, "the golden hat starts on the centre field"),
        FIRST_SEAT,
    )

    def __init__(self, players: int | None = None, **options: Any) -> None:
        super().__init__(players, **options)
        teams = self.options["team"] or self.options["total_team"]
        if self.options["team"] and self.options["total_team"]:
            raise OptionError(
                words(
                    "rules.fang_den_hut.choose_team_total_team_not",
                    "{game}: choose team or total_team, not both",
                    game=self.name,
                )
            )
        if teams and self.players not in (4, 6):
            raise OptionError(
                words(
                    "rules.fang_den_hut.team_games_players",
                    "{game}: the team games are for 4 or 6 players",
                    game=self.name,
                )
            )
        if self.options["tower"] and self.options["golden_hat"]:
            raise OptionError(
                words(
                    "rules.fang_den_hut.golden_hat_needs_golden",
                    "{game}: golden_hat needs the golden hat brought home; tower forbids it",
                    game=self.name,
                )
            )
        track = read_track(self.board, self.players, f"engines/boards/{self._board_name()}.toml")
        #: each seat's colour, in turn order
        self.colours = track.colours
        self._letters, self._hats, self._kinds = track.letters, track.hats, track.kinds
        self._home_colour, self._home_cells = track.home_colour, track.home_cells
        self._golden_start = track.golden_start
        self._seat_of = {colour: seat for seat, colour in enumerate(self.colours)}
        seats = range(self.players)
        #: the team of each seat (every seat its own team outside the team games)
        self.teams = tuple(s % 2 if teams else s for s in seats)
        self._team_of = {colour: self.teams[seat] for colour, seat in self._seat_of.items()}
        #: the colours each colour captures (the golden hat is everybody's foe)
        self._foes_of = {
            colour: frozenset({GOLD}).union(c for c, t in self._team_of.items() if t != team)
            for colour, team in self._team_of.items()
        }
        #: the seats whose hats each seat may move
        self._movers = tuple(
            tuple(t for t in seats if self.teams[t] == self.teams[s])
            if self.options["total_team"]
            else (s,)
            for s in seats
        )
        self._names = tuple(cell.id for cell in self.board.cells)
        self._neighbours = tuple(frozenset(n) for n in self.board.neighbours)
        self._route_book: dict[tuple[int, int, bool], tuple[Route, ...]] = {}
        self._move_book: dict[tuple[tuple[Hat, tuple[int, ...]], ...], HatMove] = {}
        self._end_book: dict[int, tuple[tuple[tuple[int, ...], int, bool], ...]] = {}
        #: the teams on top for each set of colours on top (at most 2 ** 7 sets)
        self._top_teams: dict[frozenset[str], frozenset[int]] = {}

    def _board_name(self) -> str:
        return "fang_den_hut" if self.players <= 4 else "fang_den_hut_6"

    def seat_words(self, seat: int) -> Words:
        return colour_words(self.colours[seat])

    def seat_colour(self, seat: int) -> str:
        return self.colours[seat]

    def initial_state(self) -> HatState:
        fields: list[tuple[Hat, ...]] = [() for _ in self.board.cells]
        if self.options["golden_hat"]:
            fields[self._golden_start] = (Hat(GOLD),)
        return HatState(
            tuple(fields),
            (self._hats,) * self.players,
            ((),) * self.players,
            turn=self.options["first_seat"],
        )

    # --- turns and chance ---------------------------------------------------------------

    def _to_move(self, state: HatState) -> int:
        return state.turn

    def chance(self, state: HatState) -> Die | None:
        self._require_state(state)
        if state.roll is None and self.outcome(state) is None:
            return ROLL_AGAIN if state.again else ROLL
        return None

    def drawer(self, state: HatState) -> int | None:
        """The seat in turn rolls (or, after a six, may decline the extra roll)."""
        return state.turn if self.chance(state) is not None else None

    def apply(self, state: HatState, move: Any) -> HatState:
        """As ``Game.apply``; besides, ``PASS`` while the extra roll after a six is
        offered declines it, and the turn passes to the next seat, who rolls."""
        self._require_state(state)
        if move == PASS and state.again and self.chance(state) is not None:
            seat = self._next_seat(state.turn, state.tops, state.home)
            return replace(state, turn=seat, ply=state.ply + 1, again=False)
        after: HatState = super().apply(state, move)
        return after

    def resolve(self, state: HatState, outcome: Any) -> HatState:
        self._require_state(state)
        if self.chance(state) is None:
            raise IllegalMove(
                words(
                    "rules.fang_den_hut.no_roll_due_play",
                    "no roll is due: play the one on the table",
                )
            )
        if isinstance(outcome, bool) or not isinstance(outcome, int) or not 1 <= outcome <= 6:
            raise IllegalMove(
                words(
                    "rules.fang_den_hut.die_shows_not",
                    "a die shows 1 to 6, not {outcome}: roll again",
                    outcome=repr(outcome),
                )
            )
        return self._with_roll(state, outcome)

    def _with_roll(self, state: HatState, outcome: int) -> HatState:
        """``state`` with the die showing ``outcome``, a roll known to be due."""
        return _position(
            state.fields,
            state.home,
            state.prisoners,
            state.gold_home,
            state.turn,
            outcome,
            state.ply,
            False,
            tops=state.tops,
        )

    def _passed_on(
        self,
        before: HatState,
        fields: tuple[tuple[Hat, ...], ...],
        home: tuple[int, ...],
        prisoners: tuple[tuple[str, ...], ...],
        gold_home: int | None,
        tops: frozenset[str] | None = None,
    ) -> HatState:
        """The position after ``before``'s move: after a six the same seat rolls again,
        else the next seat with hats in play. ``tops``: the colours on top of
        ``fields``, when the move tells them without reading every field."""
        six = before.roll == 6
        tops = _tops(fields) if tops is None else tops
        seat = before.turn if six else self._next_seat(before.turn, tops, home)
        return _position(
            fields, home, prisoners, gold_home, seat, None, before.ply + 1, six, tops=tops
        )

    def _next_seat(self, turn: int, tops: frozenset[str], home: tuple[int, ...]) -> int:
        """The next seat after ``turn`` with hats in play."""
        alive = self._alive(tops, home)
        seat = turn
        for k in range(1, self.players + 1):
            seat = (turn + k) % self.players
            if any(self.colours[t] in alive for t in self._movers[seat]):
                break
        return seat

    def _alive(self, tops: frozenset[str], home: tuple[int, ...]) -> set[str]:
        """The colours in play: on top of a field, or at home."""
        alive = set(tops)
        alive.update(compress(self.colours, home))
        alive.discard(GOLD)
        return alive

    # --- move generation ------------------------------------------------------------------

    def _rolled(self, state: HatState) -> int:
        """The die to play: ``IllegalMove`` says why when no move is due."""
        if state.roll is None:
            self._require_move_due(state)
            raise AssertionError("a move is due, and no die is rolled")
        return state.roll

    def _legal_moves(self, state: HatState) -> list:
        return [self._move_of(walk) for walk in self._choices(state)] or [PASS]

    def random_play(self, state: HatState, pick: random.Random) -> tuple[Any, HatState]:
        """As ``Game.random_play`` (a legal move drawn uniformly), and the position
        after it comes from the walk that listed the move, not from walking it again."""
        if self.outcome(state) is not None or state.roll is None:
            self._require_move_due(state)  # says why nobody may move
        walk = pick.choice(self._choices(state) or [None])
        if walk is None:
            return PASS, self._apply(state, PASS)
        return self._move_of(walk), self._result(state, walk)

    def playout(
        self,
        state: HatState,
        pick: random.Random,
        sample: Callable[[Any], Any],
        limit: int,
        tick: Callable[[], None] = lambda: None,
    ) -> Outcome | HatState:
        """``engines.playouts.played_out`` asking whether the game is over once a
        step, not again in ``chance``, ``resolve`` and ``random_play``, and passing
        without listing the moves a second time; the same draws as step by step."""
        self._require_state(state)
        steps = (self.outcome, self._playout_chance, self._with_roll, self._playout_move)
        end: Outcome | HatState = played_out(state, pick, sample, limit, tick, steps)
        return end

    def _playout_chance(self, state: HatState) -> Die | None:
        return None if state.roll is not None else ROLL_AGAIN if state.again else ROLL

    def _playout_move(self, state: HatState, pick: random.Random) -> HatState:
        """As ``random_play``, the same draw, building only the walk drawn: the
        legal ways are listed as (hat, origin, route, k) and only then walked."""
        movable = self._hats_to_move(state)
        if any(hat.golden for hat, _ in movable):
            # a golden hat's walks are listed once per result, which needs them built
            walk = pick.choice(self._choices(state) or [None])
        else:
            way = pick.choice(self._ways(state, movable) or [None])
            walk = None if way is None else self._walk_of(state, *way)
        if walk is None:
            return self._passed_on(
                state, state.fields, state.home, state.prisoners, state.gold_home
            )
        return self._result(state, walk)

    def _ways(self, state: HatState, movable: list[tuple[Hat, int]]) -> list[_Way]:
        """The legal moves of hats that are not golden, in ``_choices``' order, as
        (hat, origin, route cells, k): the k-th walk of that route (more than one
        only when the hat comes home and a hat leaves again)."""
        fields, kinds, home = state.fields, self._kinds, state.home
        roll = self._rolled(state)
        ways: list[_Way] = []
        for hat, origin in movable:
            for cells, end, ends_home in self._ends(origin, roll):
                if ends_home:
                    # a hat from home has no captives, so only one from the board enters
                    if self._enters_home(hat, home, end):
                        start = self._start(state, hat, origin)
                        homecomings = self._come_home(start, cells, roll + 1 - len(cells), None)
                        ways += ((hat, origin, cells, k) for k, _ in enumerate(homecomings))
                    continue
                hats = fields[end] if end != origin else _without(fields[end], hat)
                if not hats or self._onto(hats, hat, kinds[end]) is not None:
                    ways.append((hat, origin, cells, 0))
        return ways

    def _ends(self, origin: int, pips: int) -> tuple[tuple[tuple[int, ...], int, bool], ...]:
        """The cells of each route of a hat that is not golden (``_routes``), where
        it ends, and whether that is a home field. Kept per board."""
        key = origin * 8 + pips
        ends = self._end_book.get(key)
        if ends is None:
            ends = self._end_book[key] = tuple(
                (cells, cells[-1], self._kinds[cells[-1]] == HOME)
                for cells, _, _ in self._routes(origin, pips, False)
            )
        return ends

    def _walk_of(
        self, state: HatState, hat: Hat, origin: int, cells: tuple[int, ...], k: int
    ) -> _Walk:
        """The walk of a way ``_ways`` listed."""
        start = self._start(state, hat, origin)
        if self._kinds[cells[-1]] != HOME:
            landed = self._landed(start, cells)
            assert landed is not None  # listed as legal
            return landed
        left = self._rolled(state) + 1 - len(cells)
        return next(islice(self._come_home(start, cells, left, None), k, None))

    def _choices(self, state: HatState) -> list[_Walk]:
        """The walk of every legal move, in the order ``legal_moves`` lists them."""
        walks: list[_Walk] = []
        results: set[tuple] = set()
        roll = self._rolled(state)
        for hat, origin in self._hats_to_move(state):
            start = self._start(state, hat, origin)
            for walk in self._listed(start, origin, roll, set() if hat.golden else None):
                if hat.golden:
                    # back-and-forth walks often end alike; one move per result. From
                    # one origin, where it captured and where it ends make the result
                    # (the field it ends on counts once, captured on the way or not).
                    end = walk.landing[0] if walk.landing else None
                    taken = walk.taken - {end}
                    result = (taken, walk.landing, walk.home, walk.prisoners, walk.gold_home)
                    if result in results:
                        continue
                    results.add(result)
                walks.append(walk)
        return walks

    def _hats_to_move(self, state: HatState) -> list[tuple[Hat, int]]:
        """Every distinct hat the seat to act may move, with the cell it stands on."""
        found = []
        colours = set()
        for seat in self._movers[state.turn]:
            colours.add(self.colours[seat])
            found += self._at_home(seat, state.home, state.gold_home)
        fields = state.fields
        for i in compress(range(len(fields)), fields):  # the fields with hats on
            before = None
            for hat in fields[i]:  # sorted, so equal hats stand together
                if hat != before and hat.colour in colours:
                    found.append((hat, i))
                before = hat
        return found

    def _at_home(
        self, seat: int, home: tuple[int, ...], gold_home: int | None
    ) -> list[tuple[Hat, int]]:
        """The hats that may leave a seat's home, each with the home field it leaves from."""
        colour, count, golden = self.colours[seat], home[seat], gold_home == seat
        found: list[tuple[Hat, int]] = []
        if count > golden:
            found.append((Hat(colour), self._home_cell(seat, count - 1)))
        if golden:
            found.append((Hat(colour, golden=True), self._home_cell(seat, 0)))
        return found

    def _home_cell(self, seat: int, place: int) -> int:
        """The home field holding a seat's hat number ``place`` (0 first)."""
        cells = self._home_cells[seat]
        return cells[0] if len(cells) == 1 else cells[place]

    def _start(self, state: HatState, hat: Hat, origin: int) -> _Walk:
        """The walk of ``hat`` about to leave ``origin``: the hat is off that field."""
        seat = self._seat_of[hat.colour]
        fields, home, gold_home = state.fields, state.home, state.gold_home
        if self._kinds[origin] == HOME:
            home = _set(home, seat, home[seat] - 1)
            if hat.golden:
                gold_home = None
        else:
            fields = _set(fields, origin, _without(fields[origin], hat))
        return _Walk(fields, home, state.prisoners, gold_home, hat, hat, (), None)

    def _listed(
        self, walk: _Walk, origin: int, pips: int, reached: set[int] | None = None
    ) -> Iterator[_Walk]:
        """Every complete walk of ``walk.hat`` from ``origin`` with ``pips`` to go: its
        routes (``_routes``) with what the position allows on them. ``reached``
        (listing one move per result): the fields a walk capturing nothing on the way
        ended on, to skip the later ones that end there alike."""
        fields = walk.fields
        for cells, turns, last_turn in self._routes(origin, pips, walk.hat.golden):
            on = walk
            for at in turns:
                if fields[at]:  # turning on an empty field captures nothing
                    on = self._capture_turning(on, at)
            end = cells[-1]
            if reached is not None and on is walk and self._kinds[end] != HOME:
                if end in reached:
                    continue
                reached.add(end)
            if self._kinds[end] != HOME:
                landed = self._landed(on, cells)
                if landed is not None:
                    yield landed
            elif self._enters_home(on.hat, on.home, end):
                if last_turn is not None:
                    on = self._capture_turning(on, last_turn)
                yield from self._come_home(on, cells, pips + 1 - len(cells), None)

    def _routes(self, origin: int, pips: int, golden: bool) -> tuple[Route, ...]:
        """Every way from ``origin`` along the paths for ``pips`` steps, in the order
        ``legal_moves`` lists them (each field's neighbours in turn); a route onto a
        home field ends there. Kept per board, as they do not depend on the position."""
        key = (origin, pips, golden)
        routes = self._route_book.get(key)
        if routes is None:
            routes = self._route_book[key] = tuple(
                _route(cells, self._kinds[cells[-1]] == HOME)
                for cells in self._trace((origin,), pips, golden)
            )
        return routes

    def _trace(self, path: tuple[int, ...], pips: int, golden: bool) -> Iterator[tuple[int, ...]]:
        """The cells of every route on from the end of ``path`` with ``pips`` to go."""
        if pips == 0:
            yield path
            return
        back = path[-2] if len(path) > 1 else None
        for nxt in self._neighbours[path[-1]]:
            if nxt == back and not golden:
                continue
            if self._kinds[nxt] == HOME:
                yield path + (nxt,)
            else:
                yield from self._trace(path + (nxt,), pips - 1, golden)

    def _step(
        self,
        walk: _Walk,
        path: tuple[int, ...],
        pips: int,
        guide: Legs,
    ) -> Iterator[_Walk]:
        """Walk the move ``guide`` on from the end of ``path`` (this leg so far) with
        ``pips`` to go, refusing it with a reason if illegal."""
        at = path[-1]
        if pips == 0:
            yield self._land(walk, path, guide)
            return
        back = path[-2] if len(path) > 1 else None
        nxt = self._guided_next(walk, path, guide)
        problem = self._entry_problem(walk, back, nxt)
        if problem is not None:
            raise IllegalMove(problem)
        if nxt == back:
            # a golden hat turning back lands on the field it turns on
            walk = self._capture_turning(walk, at)
        if self._kinds[nxt] == HOME:
            yield from self._come_home(walk, path + (nxt,), pips - 1, guide)
        else:
            yield from self._step(walk, path + (nxt,), pips - 1, guide)

    def _guided_next(self, walk: _Walk, path: tuple[int, ...], guide: Legs) -> int:
        cells = guide[len(walk.legs)][1]
        at = path[-1]
        if len(path) >= len(cells):
            raise IllegalMove(
                words(
                    "rules.fang_den_hut.pips_left_when_hat",
                    "pips are left when the hat reaches {at}: move the hat on until the pips run "
                    "out",
                    at=self._names[at],
                )
            )
        nxt = cells[len(path)]
        if nxt not in self._neighbours[at]:
            raise IllegalMove(
                words(
                    "rules.fang_den_hut.no_path_joins",
                    "no path joins {at} and {nxt}: move the hat along the path",
                    at=self._names[at],
                    nxt=self._names[nxt],
                )
            )
        return nxt

    def _entry_problem(self, walk: _Walk, back: int | None, nxt: int) -> Words | None:
        """Why the walking hat may not step onto ``nxt`` now, or None."""
        owner = self._home_colour[nxt]
        if nxt != back and owner is None:
            return None
        name = self._names[nxt]
        if nxt == back and not walk.hat.golden:
            return words(
                "rules.fang_den_hut.hat_does_not_turn_back",
                "a hat does not turn back within a move (to {name}): move it on in one direction",
                name=name,
            )
        if owner is None or self._enters_home(walk.hat, walk.home, nxt):
            return None
        if owner != walk.hat.colour:
            return words(
                "rules.fang_den_hut.home_only_hats_enter",
                "{name} is the home of {owner}, and only {owner} hats enter it: move the hat on "
                "along the board",
                name=name,
                owner=owner,
            )
        if self.options["tower"]:
            return words(
                "rules.fang_den_hut.tower_game_no_hat",
                "in the tower game no hat goes back home ({name}): move it on along the board",
                name=name,
            )
        if not walk.hat.captives:
            return words(
                "rules.fang_den_hut.hat_left_home_goes",
                "a hat that has left home goes back only carrying captives ({name}): move it on "
                "along the board",
                name=name,
            )
        seat = self._seat_of[owner]
        first_free = self._home_cell(seat, walk.home[seat])
        if nxt != first_free:
            return words(
                "rules.fang_den_hut.home_fields_fill_order",
                "home fields fill in order: put this hat on {first_free}",
                first_free=self._names[first_free],
            )
        return None

    def _enters_home(self, hat: Hat, home: tuple[int, ...], cell: int) -> bool:
        """Whether ``hat``, walking with ``home`` the hats at each home, may step into
        the home field ``cell``: its own home, carrying captives, onto the first free
        field (never in the tower game)."""
        if self._home_colour[cell] != hat.colour or not hat.captives or self.options["tower"]:
            return False
        seat = self._seat_of[hat.colour]
        return cell == self._home_cell(seat, home[seat])

    def _capture_turning(self, walk: _Walk, at: int) -> _Walk:
        taken, staying = self._split(walk.fields[at], walk.hat, self._kinds[at])
        if not taken:
            return walk
        return walk._replace(
            fields=_set(walk.fields, at, staying),
            hat=walk.hat.capturing(taken),
            taken=walk.taken | {at},
        )

    def _split(
        self, hats: tuple[Hat, ...], mover: Hat, kind: str
    ) -> tuple[tuple[Hat, ...], tuple[Hat, ...]]:
        """The hats ``mover`` captures by landing on a field of ``kind``, and the rest."""
        if not hats or (kind == GREY and not mover.golden):
            return (), hats
        foes = self._foes_of[mover.colour]
        taken = tuple(h for h in hats if h.colour in foes)
        return taken, tuple(h for h in hats if h.colour not in foes)

    def _foes(self, colour: str, other: str) -> bool:
        return other in self._foes_of[colour]

    def _land(self, walk: _Walk, path: tuple[int, ...], guide: Legs) -> _Walk:
        """The guided walk stopping at the end of ``path``, or why it may not."""
        at = path[-1]
        if len(path) < len(guide[len(walk.legs)][1]):
            raise IllegalMove(
                words(
                    "rules.fang_den_hut.pips_run_out",
                    "the pips run out on {at}: stop the hat there",
                    at=self._names[at],
                )
            )
        landed = self._landed(walk, path)
        if landed is None:
            _, staying = self._split(walk.fields[at], walk.hat, self._kinds[at])
            if self._kinds[at] == GREY:
                raise IllegalMove(
                    words(
                        "rules.fang_den_hut.grey_field_three_hats",
                        "{at} is a grey field with three hats or towers on it: move to another "
                        "field",
                        at=self._names[at],
                    )
                )
            raise IllegalMove(
                words(
                    "rules.fang_den_hut.holds_team_mate_yellow",
                    "{at} holds {colour}, a team mate, and a yellow field holds one colour: move "
                    "to another field",
                    at=self._names[at],
                    colour=staying[0].colour,
                )
            )
        if len(guide) > len(walk.legs) + 1:
            raise IllegalMove(
                words(
                    "rules.fang_den_hut.hat_does_not_reach_home",
                    "the hat does not reach home, so no hat leaves it: move only the one hat",
                )
            )
        return landed

    def _landed(self, walk: _Walk, path: tuple[int, ...]) -> _Walk | None:
        """The walk stopping at the end of ``path`` (a grey or yellow field), capturing
        there; None if that field does not take the hat."""
        at = path[-1]
        hat = walk.hat
        hats = self._onto(walk.fields[at], hat, self._kinds[at])
        if hats is None:
            return None
        # the field is rebuilt only if this walk becomes a position (see _result); the
        # walk is built directly, as listing the moves builds one a move
        return _Walk(
            walk.fields,
            walk.home,
            walk.prisoners,
            walk.gold_home,
            hat,
            walk.leg_hat,
            (*walk.legs, (walk.leg_hat, path)),
            (at, hats),
            walk.taken,
        )

    def _onto(self, hats: tuple[Hat, ...], hat: Hat, kind: str) -> tuple[Hat, ...] | None:
        """The hats of a field of ``kind`` holding ``hats`` once ``hat`` lands there
        (unsorted), capturing; None if that field does not take the hat."""
        if not hats:
            return (hat,)
        taken, staying = self._split(hats, hat, kind)
        if staying and (
            len(staying) >= GREY_CAPACITY if kind == GREY else staying[0].colour != hat.colour
        ):
            return None
        return (*staying, hat.capturing(taken))

    def _come_home(
        self, walk: _Walk, path: tuple[int, ...], left: int, guide: Guide
    ) -> Iterator[_Walk]:
        """The hat enters its home: sort the tower, then carry ``left`` pips back out."""
        if guide is not None and len(path) < len(guide[len(walk.legs)][1]):
            raise IllegalMove(
                words(
                    "rules.fang_den_hut.home_hat_stops_there",
                    "{cell} is home, and the hat stops there: leave it at home",
                    cell=self._names[path[-1]],
                )
            )
        seat = self._seat_of[walk.hat.colour]
        home, prisoners, gold_home = list(walk.home), list(walk.prisoners), walk.gold_home
        for colour in walk.hat.hats():
            if colour == GOLD:
                gold_home = seat
            elif not self._foes(walk.hat.colour, colour):
                home[self._seat_of[colour]] += 1
            else:
                prisoners[seat] = tuple(sorted((*prisoners[seat], colour)))
        at_home = walk._replace(
            home=tuple(home),
            prisoners=tuple(prisoners),
            gold_home=gold_home,
            legs=walk.legs + ((walk.leg_hat, path),),
        )
        exits = self._at_home(seat, at_home.home, at_home.gold_home) if left else []
        if guide is not None:
            yield from self._guided_exit(at_home, exits, left, guide)
            return
        found = False
        for hat, cell in exits:
            for walk_out in self._listed(self._leaving(at_home, hat), cell, left):
                found = True
                yield walk_out
        if not found:
            yield at_home

    def _leaving(self, at_home: _Walk, hat: Hat) -> _Walk:
        """The walk on after a hat came home: ``hat`` leaves that home."""
        seat = self._seat_of[hat.colour]
        return at_home._replace(
            home=_set(at_home.home, seat, at_home.home[seat] - 1),
            gold_home=None if hat.golden else at_home.gold_home,
            hat=hat,
            leg_hat=hat,
        )

    def _guided_exit(
        self,
        at_home: _Walk,
        exits: list[tuple[Hat, int]],
        left: int,
        guide: Legs,
    ) -> Iterator[_Walk]:
        leg = len(at_home.legs)
        if leg == len(guide):
            can_leave = any(
                next(self._listed(self._leaving(at_home, hat), cell, left), None)
                for hat, cell in exits
            )
            if can_leave:
                raise IllegalMove(
                    words(
                        "rules.fang_den_hut.pips_left_hat_must",
                        "{left, plural, one {# pip is} other {# pips are}} left, and a hat must "
                        "leave home with them: move a hat out of home",
                        left=left,
                    )
                )
            yield at_home
            return
        hat, cells = guide[leg]
        for option, cell in exits:
            if option == hat:
                if cells[0] != cell:
                    raise IllegalMove(
                        words(
                            "rules.fang_den_hut.hat_leaves_home",
                            "that hat leaves home from {cell}: move it out from there",
                            cell=self._names[cell],
                        )
                    )
                yield from self._step(self._leaving(at_home, hat), (cell,), left, guide)
                return
        if not left:
            raise IllegalMove(
                words(
                    "rules.fang_den_hut.hat_reaches_home_last",
                    "the hat reaches home with the last pip, so nothing leaves: leave the hats at "
                    "home",
                )
            )
        raise IllegalMove(
            words(
                "rules.fang_den_hut.no_home_leave",
                "no {hat} is at home to leave it: move a hat on the board",
                hat=str(hat),
            )
        )

    def _move_of(self, walk: _Walk) -> HatMove:
        """The move of a walk; the same few moves are legal again and again, so they
        are kept (up to ``MOVES_KEPT``)."""
        move = self._move_book.get(walk.legs)
        if move is None:
            if len(self._move_book) >= MOVES_KEPT:
                self._move_book.clear()
            names = self._names
            move = self._move_book[walk.legs] = HatMove(
                tuple(Leg(hat, tuple(names[i] for i in path)) for hat, path in walk.legs)
            )
        return move

    def _result(self, state: HatState, walk: _Walk) -> HatState:
        fields, tops = walk.fields, None
        if walk.landing is not None:
            at, hats = walk.landing
            fields = _set(fields, at, tuple(sorted(hats)))
            if len(walk.legs) == 1 and not walk.taken and hats[-1] is walk.hat:
                # nothing captured, nobody home: no colour left the tops, the mover's
                # may have come onto them
                tops = (
                    state.tops if walk.hat.colour in state.tops else state.tops | {walk.hat.colour}
                )
        return self._passed_on(state, fields, walk.home, walk.prisoners, walk.gold_home, tops)

    # --- applying a move ----------------------------------------------------------------

    def _apply(self, state: HatState, move: Any) -> HatState:
        if move == PASS:
            moves = self._legal_moves(state)
            if moves != [PASS]:
                raise IllegalMove(
                    words(
                        "rules.fang_den_hut.pass_can_move_moving",
                        "pass: {seat} can move ({moves}); moving is compulsory",
                        seat=self.seat_words(state.turn),
                        moves=str(moves[0]),
                    )
                )
            return self._passed_on(
                state, state.fields, state.home, state.prisoners, state.gold_home
            )
        if not isinstance(move, HatMove):
            raise IllegalMove(
                words(
                    "rules.fang_den_hut.not_fang_den_hut_move",
                    (
                        "not a Fang den Hut! move; name the hat and its path, like 'red "
                        "home_red-gate_red-r1'"
                    ),
                ),
                move=str(move),
            )
        try:
            return self._result(state, self._follow(state, move))
        except IllegalMove as refusal:
            raise IllegalMove(
                words(
                    "rules.fang_den_hut.refused",
                    "{move}: {reason}",
                    move=str(move),
                    reason=refusal.words,
                )
            ) from None

    def _follow(self, state: HatState, move: HatMove) -> _Walk:
        guide = []
        for leg in move.legs:
            if not isinstance(leg, Leg) or not isinstance(leg.hat, Hat):
                raise IllegalMove(
                    words(
                        "rules.fang_den_hut.not_move_game",
                        "not a move of this game: move one of your hats",
                    )
                )
            if len(leg.path) < 2 or any(c not in self.board.index for c in leg.path):
                raise IllegalMove(
                    words(
                        "rules.fang_den_hut.every_leg_needs_least",
                        "every leg needs at least two cells of this board: write each leg from "
                        "where to where",
                    )
                )
            guide.append((leg.hat, tuple(self.board.index[c] for c in leg.path)))
        if not guide or len(guide) > 2:
            raise IllegalMove(
                words(
                    "rules.fang_den_hut.move_one_hat_walk",
                    "a move is one hat's walk, and at most one hat leaving home: move one hat only",
                )
            )
        steps = sum(len(cells) - 1 for _, cells in guide)
        ends_home = self._kinds[guide[-1][1][-1]] == HOME
        roll = self._rolled(state)
        if steps > roll or (steps < roll and not ends_home):
            raise IllegalMove(
                words(
                    "rules.fang_den_hut.path_steps_die_shows",
                    "the path has {steps} steps, and the die shows {roll}: move the hat exactly "
                    "that many fields",
                    steps=steps,
                    roll=roll,
                )
            )
        hat, cells = guide[0]
        seat = self._seat_of.get(hat.colour)
        if seat is None or seat not in self._movers[state.turn]:
            raise IllegalMove(
                words(
                    "rules.fang_den_hut.not_your_hat",
                    "{seat} is to move, not {colour}: move a hat of {seat}",
                    seat=self.seat_words(state.turn),
                    colour=colour_words(hat.colour),
                )
            )
        if self._kinds[cells[0]] == HOME:
            stands = (hat, cells[0]) in self._at_home(seat, state.home, state.gold_home)
        else:
            stands = hat in state.fields[cells[0]]
        if not stands:
            raise IllegalMove(
                words(
                    "rules.fang_den_hut.no_such_hat",
                    "no {hat} to move on {cell}: choose a hat that stands there",
                    hat=str(hat),
                    cell=self._names[cells[0]],
                )
            )
        return next(self._step(self._start(state, hat, cells[0]), cells[:1], roll, guide))

    # --- the end ------------------------------------------------------------------------

    def outcome(self, state: HatState) -> Outcome | None:
        self._require_state(state)
        # the teams with a hat on top or at home: asked at every roll and move
        on_top = self._top_teams.get(state.tops)
        if on_top is None:
            on_top = frozenset(self._team_of[c] for c in state.tops if c != GOLD)
            self._top_teams[state.tops] = on_top
        if len(on_top) > 1:
            return None
        teams = on_top.union(compress(self.teams, state.home))
        if len(teams) > 1:
            return None
        alive = self._alive(state.tops, state.home)
        scores = self.scores(state)
        left = joined(colour_words(c) for c in self.colours if c in alive) or words(
            "rules.fang_den_hut.no_colour", "no colour"
        )
        if self.options["last_standing"] or self.options["tower"]:
            winners = tuple(s for s in range(self.players) if self.teams[s] in teams)
            return Outcome(
                winners,
                words(
                    "rules.fang_den_hut.only_left_board", "only {left} left on the board", left=left
                ),
                scores,
            )
        totals: Counter[int] = Counter()
        for seat, score in enumerate(scores):
            totals[self.teams[seat]] += score
        best = max(totals.values())
        winners = tuple(s for s in range(self.players) if totals[self.teams[s]] == best)
        return Outcome(
            winners,
            words(
                "rules.fang_den_hut.only_left_board_most",
                "only {left} left on the board; most captives: {best}",
                left=left,
                best=best,
            ),
            scores,
        )

    def scores(self, state: HatState) -> tuple[int, ...]:
        """Each seat's captives: prisoners, and foreign hats in its towers on the board."""
        scores = [len(p) for p in state.prisoners]
        for hats in state.fields:
            for hat in hats:
                if hat.colour in self._seat_of:
                    seat = self._seat_of[hat.colour]
                    scores[seat] += sum(
                        c != GOLD and self._foes(hat.colour, c) for c in hat.captives
                    )
        return tuple(scores)

    # --- what sensors see, and records ----------------------------------------------------

    def can_extend(self, state: HatState, move: Any, sensor: str = "camera") -> bool:
        """Whether the board after ``move``, as a ``sensor`` reads it, may show a move
        still under way. A hat brought home with pips left carries them out on a hat
        of that home, and a hand sorts the tower into the home before that hat
        leaves: halfway, the board shows the tower home and nothing left yet. That
        board reads like a move whose hat left onto hats the sensor already feels (a
        hall sensor feels a hat, not how many), so such a move is not over when it
        first matches."""
        leaving = [
            other
            for other in self._legal_moves(state)
            if isinstance(other, HatMove) and len(other.legs) > 1 and other != move
        ]
        if not leaving:  # most rolls: no hat comes home with pips left
            return False
        reading = self.sense(self.apply(state, move), sensor)
        return any(self.sense(self._halfway(state, other), sensor) == reading for other in leaving)

    def still_to_do(self, state: HatState, move: Any, sensor: str = "camera") -> Words:
        """A move held open is a hat brought home that may still carry the pips left
        out on a hat of that home."""
        return words(
            "rules.fang_den_hut.still_to_do",
            "move a hat out of your home with the pips left, or press Confirm move",
        )

    def _halfway(self, state: HatState, move: HatMove) -> HatState:
        """The board of a move with a hat leaving home once the hat came home and
        before the one leaving has gone (as if the die had shown only that walk)."""
        coming_home = HatMove(move.legs[:1])
        return self._result(
            state, self._follow(replace(state, roll=len(coming_home.path) - 1), coming_home)
        )

    def observe(self, state: HatState) -> dict[str, str | None]:
        """Every cell with the tops a camera sees there, joined by '+' (sorted)."""
        self._require_state(state)
        seen: dict[int, list[str]] = {
            i: [h.top for h in hats] for i, hats in enumerate(state.fields) if hats
        }
        for seat, count in enumerate(state.home):
            for place in range(count):
                golden = place == 0 and state.gold_home == seat
                top = GOLD if golden else self.colours[seat]
                seen.setdefault(self._home_cell(seat, place), []).append(top)
        tokens: dict[str, str | None] = dict.fromkeys(self._names)
        for i, tops in seen.items():
            tokens[self._names[i]] = "+".join(sorted(tops))
        return tokens

    def stacks(self, state: HatState) -> dict[str, tuple[str, ...]]:
        """Each field's hats and towers as written in moves (a tower is one piece: its
        captives are inside the top hat), and each home's hats, the golden one first."""
        self._require_state(state)
        found = {
            self._names[i]: tuple(map(str, hats)) for i, hats in enumerate(state.fields) if hats
        }
        for seat, count in enumerate(state.home):
            for place in range(count):
                golden = place == 0 and state.gold_home == seat
                cell = self._names[self._home_cell(seat, place)]
                found[cell] = (*found.get(cell, ()), GOLD if golden else self.colours[seat])
        return found

    def towers(self, state: HatState, cell_id: str) -> list[list[str]]:
        """The hats and towers on one field, each top first and then its captives (in no
        particular order: only the top counts), for drawing towers as stacks."""
        self._require_state(state)
        return [list(hat.hats()) for hat in state.fields[self.board.index[cell_id]]]

    def render(self, state: HatState) -> str:
        """The board as text: a colour's letter for a hat (upper case for a tower),
        ``*`` for the golden hat, a digit for several hats on one field."""
        symbols = {}
        for i, (name, seen) in enumerate(self.observe(state).items()):
            if seen is None:
                continue
            tops = seen.split("+")
            if len(tops) > 1:
                symbols[name] = str(min(len(tops), 9))
            elif tops[0] == GOLD:
                symbols[name] = "*"
            else:
                tower = any(hat.captives for hat in state.fields[i])
                letter = self._letters[tops[0]]
                symbols[name] = letter.upper() if tower else letter
        return self.board.render(symbols)

    def _state_to_json(self, state: HatState) -> dict:
        return {
            "fields": {
                self._names[i]: [str(hat) for hat in hats]
                for i, hats in enumerate(state.fields)
                if hats
            },
            "home": dict(zip(self.colours, state.home)),
            "prisoners": {c: list(p) for c, p in zip(self.colours, state.prisoners)},
            "golden_home": None if state.gold_home is None else self.colours[state.gold_home],
            "turn": self.colours[state.turn],
            "roll": state.roll,
            "ply": state.ply,
            "again": state.again,
        }

    def _fields_from_json(self, data: Any) -> list[tuple[Hat, ...]]:
        """The record's ``fields``: the hats on each grey or yellow field."""
        if not isinstance(data, dict):
            raise RecordError(
                words(
                    "rules.fang_den_hut.fields_must_map_cell",
                    "fields must map cell ids to lists of hats",
                )
            )
        fields: list[tuple[Hat, ...]] = [() for _ in self.board.cells]
        for name, hats in data.items():
            if name not in self.board.index or self._kinds[self.board.index[name]] == HOME:
                raise RecordError(
                    words(
                        "rules.fang_den_hut.fields_not_grey_yellow_field",
                        "fields: {name} is not a grey or yellow field",
                        name=repr(name),
                    )
                )
            i = self.board.index[name]
            fields[i] = self._field_from_json(name, i, hats)
        return fields

    def _field_from_json(self, name: str, i: int, hats: Any) -> tuple[Hat, ...]:
        """The hats one field of a record holds, checked against the colours and the field."""
        if not isinstance(hats, list) or not hats or not all(isinstance(h, str) for h in hats):
            raise RecordError(
                words(
                    "rules.fang_den_hut.fields_must_list_hats",
                    "fields: {name} must list its hats as text",
                    name=name,
                )
            )
        try:
            parsed = tuple(sorted(Hat.parse(h) for h in hats))
        except NotationError as exc:
            raise RecordError(
                words(
                    "rules.fang_den_hut.fields_bad_hat",
                    "fields: {name}: {exc}",
                    name=name,
                    exc=exc.words,
                )
            ) from None
        colours = set(self.colours)
        for hat in parsed:
            if not set(hat.captives) <= colours | {GOLD} or (
                hat.colour not in colours and hat != Hat(GOLD)
            ):
                raise RecordError(
                    words(
                        "rules.fang_den_hut.fields_holds_colour_not_play",
                        "fields: {name}: {hat} holds a colour not in play",
                        name=name,
                        hat=str(hat),
                    )
                )
        problem = self._field_problem(i, parsed)
        if problem:
            raise RecordError(
                words(
                    "rules.fang_den_hut.fields_problem",
                    "fields: {name}: {problem}",
                    name=name,
                    problem=problem,
                )
            )
        return parsed

    def _state_from_json(self, data: Any) -> HatState:
        # "again" came later: a record without it has no extra roll pending
        keys = {"fields", "home", "prisoners", "golden_home", "turn", "roll", "ply"}
        if not isinstance(data, dict) or not keys <= set(data) <= keys | {"again"}:
            raise RecordError(
                words(
                    "rules.fang_den_hut.state_keys",
                    "a state has fields, home, prisoners, golden_home, turn, roll, ply and again",
                )
            )
        again = data.get("again", False)
        if not isinstance(again, bool) or (again and data["roll"] is not None):
            raise RecordError(
                words(
                    "rules.fang_den_hut.again_before_roll",
                    "again is true or false, and true only while the extra roll is to come",
                )
            )
        colours = set(self.colours)
        fields = self._fields_from_json(data["fields"])
        home = self._per_colour(data["home"], "home", lambda n: _count(n, self._hats))
        prisoners = self._per_colour(data["prisoners"], "prisoners", _colour_list(colours))
        gold_home = data["golden_home"]
        if gold_home is not None:
            if gold_home not in self._seat_of:
                raise RecordError(
                    words(
                        "rules.fang_den_hut.golden_home_must_colour_play",
                        "golden_home must be a colour in play or null, not {gold_home}",
                        gold_home=repr(gold_home),
                    )
                )
            gold_home = self._seat_of[gold_home]
            if not home[gold_home]:
                raise RecordError(
                    words(
                        "rules.fang_den_hut.golden_hat_sits_hat",
                        "the golden hat sits on a hat at home, and that home is empty",
                    )
                )
        if data["turn"] not in self._seat_of:
            raise RecordError(
                words(
                    "rules.fang_den_hut.turn_must_colour_play_not",
                    "turn must be a colour in play, not {turn}",
                    turn=repr(data["turn"]),
                )
            )
        roll, ply = data["roll"], data["ply"]
        if roll is not None and (
            isinstance(roll, bool) or not isinstance(roll, int) or not 1 <= roll <= 6
        ):
            raise RecordError(
                words(
                    "rules.fang_den_hut.roll_must_null_not",
                    "roll must be 1 to 6 or null, not {roll}",
                    roll=repr(roll),
                )
            )
        if isinstance(ply, bool) or not isinstance(ply, int) or ply < 0:
            raise RecordError(
                words(
                    "rules.fang_den_hut.ply_must_whole_number_not",
                    "ply must be a whole number >= 0, not {ply}",
                    ply=repr(ply),
                )
            )
        state = HatState(
            tuple(fields),
            tuple(home),
            tuple(prisoners),
            gold_home,
            self._seat_of[data["turn"]],
            roll,
            ply,
            again,
        )
        self._check_hats_add_up(state)
        return state

    def _field_problem(self, i: int, hats: tuple[Hat, ...]) -> Words | None:
        if self._kinds[i] == GREY and len(hats) > GREY_CAPACITY:
            return words(
                "rules.fang_den_hut.grey_field_holds_most",
                "a grey field holds at most three hats or towers",
            )
        if self._kinds[i] == YELLOW and len({h.colour for h in hats}) > 1:
            return words(
                "rules.fang_den_hut.yellow_field_holds_hats",
                "a yellow field holds hats of one colour",
            )
        if Hat(GOLD) in hats and (len(hats) > 1 or i != self._golden_start):
            return words(
                "rules.fang_den_hut.golden_hat_nobody_won",
                "the golden hat nobody has won stands alone where it starts",
            )
        return None

    def _per_colour(self, raw: Any, what: str, read: Callable[[Any], T]) -> list[T]:
        if not isinstance(raw, dict) or set(raw) != set(self.colours):
            raise RecordError(
                words(
                    "rules.fang_den_hut.must_name_every_colour",
                    "{what} must name every colour in play: {colours}",
                    what=what,
                    colours=", ".join(self.colours),
                )
            )
        return [read(raw[c]) for c in self.colours]

    def _check_hats_add_up(self, state: HatState) -> None:
        counted: Counter[str] = Counter()
        for hats in state.fields:
            for hat in hats:
                counted.update(hat.hats())
        for seat, colour in enumerate(self.colours):
            counted[colour] += state.home[seat]
            counted.update(state.prisoners[seat])
        counted[GOLD] += state.gold_home is not None
        expected = Counter({c: self._hats for c in self.colours})
        if self.options["golden_hat"]:
            expected[GOLD] = 1
        if counted != expected:
            raise RecordError(
                words(
                    "rules.fang_den_hut.hats_do_not_add_up",
                    "the hats do not add up: found {found}, this game has {expected}",
                    found=str(dict(sorted(counted.items()))),
                    expected=str(dict(sorted(expected.items()))),
                )
            )

    def _parse(self, text: str) -> Move:
        if not isinstance(text, str):
            raise NotationError(
                words(
                    "rules.fang_den_hut.move_is_text",
                    "a move is text like 'red home_red-gate_red-r1', not {kind}: write it so",
                    kind=type(text).__name__,
                )
            )
        text = text.strip().lower()
        if text == "pass":
            return PASS
        legs = []
        # legs are separated by commas outside the brackets of a tower's captives
        for part in re.split(r",(?![^\[]*\])", text):
            parts = part.split()
            if len(parts) != 2:
                raise NotationError(
                    words(
                        "rules.fang_den_hut.write_hat_path_like",
                        "{text}: write the hat and its path, like 'red home_red-gate_red-r1'",
                        text=repr(text),
                    )
                )
            cells = tuple(c.strip() for c in parts[1].split("-"))
            for cell in cells:
                if cell not in self.board.index:
                    raise NotationError(
                        words(
                            "rules.fang_den_hut.there_no_field_board",
                            "{text}: there is no field {cell} on this board: name a field of the "
                            "board",
                            text=repr(text),
                            cell=repr(cell),
                        )
                    )
            if len(cells) < 2:
                raise NotationError(
                    words(
                        "rules.fang_den_hut.path_least_two_fields",
                        "{text}: a path has at least two fields: write where the hat starts and "
                        "ends",
                        text=repr(text),
                    )
                )
            legs.append(Leg(Hat.parse(parts[0]), cells))
        return HatMove(tuple(legs))


def _position(*values: Any, tops: frozenset[str]) -> HatState:
    """The ``HatState`` of ``values`` (its fields in order), with ``tops`` already in
    the cache its property fills. Built without the frozen dataclass's ``__init__``
    (a field set at a time through ``object.__setattr__``), as a playout builds two a
    move."""
    state = object.__new__(HatState)
    state.__dict__.update(zip(_STATE_FIELDS, values, strict=True), tops=tops)
    return state


_STATE_FIELDS = tuple(HatState.__dataclass_fields__)


def _tops(fields: tuple[tuple[Hat, ...], ...]) -> frozenset[str]:
    return frozenset(map(_colour, chain.from_iterable(fields)))


_colour = attrgetter("colour")


def _set(values: tuple[T, ...], i: int, value: T) -> tuple[T, ...]:
    return values[:i] + (value,) + values[i + 1 :]


def _without(hats: tuple[Hat, ...], hat: Hat) -> tuple[Hat, ...]:
    at = hats.index(hat)
    return hats[:at] + hats[at + 1 :]


def _count(value: Any, most: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
        raise RecordError(
            words(
                "rules.fang_den_hut.count_hats_home_not",
                "a count of hats at home is 0 to {most}, not {value}",
                most=most,
                value=repr(value),
            )
        )
    return value


def _colour_list(colours: set[str]) -> Callable[[Any], tuple[str, ...]]:
    def read(value: Any) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
            raise RecordError(
                words(
                    "rules.fang_den_hut.prisoners_lists_colours", "prisoners are lists of colours"
                )
            )
        if not set(value) <= colours:
            raise RecordError(
                words(
                    "rules.fang_den_hut.prisoners_hold_colours_not_play",
                    "prisoners hold colours not in play: {colours}",
                    colours=sorted(set(value) - colours),
                )
            )
        return tuple(sorted(value))

    return read
