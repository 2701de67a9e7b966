"""Hakenschlagen, the hare race with a bag of marbles. Never draws chance itself and
never touches the physical board: the caller draws from the game's stream and
``resolve`` takes the result.

The board (95 hollows) carries a static layer fixed at setup: dandelion (yellow),
lettuce (green) and carrot (orange) disks and trees; a hollow without a disk or tree
is a field space. The figures move: one hare per player, the fox and up to six
molehills. Start spaces and turning points stay empty and count as field spaces.

The game opens with two chance events: the setup, a ``Shuffle`` of the hollows that
are neither start spaces nor turning points (trees go on the first hollows of that
order not next to a tree already placed nor on the centre; the disks go on the
following hollows other than the centre, where the fox stands first: dandelions,
then lettuces, then carrots), then each turn's draw
from the bag of 12 marbles (4 field, 3 dandelion, 2 lettuce, 1 carrot, 1 fox,
1 molehill): 3 marbles, or 1 when the player's hare stands next to the fox at the
start of the turn. Players may lay their own setup instead: ``setup_from(layout)``
checks it and says what is wrong.

One move is one whole turn, the ordered uses of the drawn marbles (``Turn``):

- A colour marble (field, dandelion, lettuce, carrot) makes the hare jump along a
  straight line to the first space of that colour holding no figure; hares and
  molehills are jumped over, a tree or the fox blocks the direction, the edge ends
  it. A colour marble must be used if, at the moment the player takes it up, some
  direction offers a target; it may go back unused at any moment it offers none
  (our reading of "at the moment it is used": the player chooses the order).
- The fox marble may move the fox to another space without a figure, never a start
  space or turning point. The molehill marble may put a molehill on a field space
  without a figure (not a start space or turning point); when all six are out, it
  moves one already on the board to such a space instead. Both may go back unused.
- Two marbles of one kind may be spent together as one marble of any other kind
  (a joker); never compulsory.
- A hare that lands on a turning point has turned. The first hare to land on a start
  space after turning wins at once; marbles still in hand are forfeited.

``legal_moves`` lists every distinct outcome of the turn once (one representative
order of uses each), as an ``engines.outcomes.Outcomes``: a hand with the fox and
molehill marbles ends in tens of thousands of ways, so each turn is written out only
when read. ``marble_targets`` and ``placements`` tell the panel and the
LEDs where one marble would take the hare, the fox or a molehill.

Hall sensors feel the figures (hares, fox, molehills) but not disks or trees;
``sense(state, "presence")`` reports only those. The camera sees the figure on top
of a hollow, else its disk or tree.

Options:

- ``board`` ("hex"): "square" plays on the 19x5 square grid with 8 directions.
- ``dandelions`` (15), ``lettuces`` (12), ``carrots`` (9), ``trees`` (6): the static
  layer; the book's variant leaves some out (any count up to the material).
- ``first_seat`` (0): the seat that plays first.

Readings of the book this engine follows:

- The fox is placed first, on the centre; then the trees (never next to each other);
  then the disks. So neither a tree nor a disk lies under the fox, in a drawn setup
  or a laid one.
- Who starts is decided at the table (the book says the youngest player); option
  ``first_seat`` names that seat. ``drawer(state)`` is the seat that draws its
  marbles (None for the setup, which the table draws).
- One turn, several orders: distinct orders of uses with the same result are one
  outcome. ``turn in legal_moves(state)`` is true for every legal order, and
  ``canonical(state, turn)`` gives the order ``legal_moves`` lists.

Readings of our own: the fifth hare is brown (the book names white, yellow, pink and
green); seats take the start spaces listed in the board file unless ``setup_from``
is told otherwise; a molehill that is moved must change its space.

>>> from engines import load_game
>>> from engines.chance import Stream
>>> game = load_game("hakenschlagen", players=2)
>>> stream = Stream(b"example")
>>> state = game.initial_state()
>>> str(game.chance(state))
'shuffle 85 cards'
>>> state = game.resolve(state, game.chance(state).draw(stream))
>>> str(game.chance(state))
'draw 3 from the bag'
>>> state = game.resolve(state, ("dandelion", "field", "lettuce"))
>>> game.to_move(state), game.seat_name(0)
(0, 'white')
>>> turn = game.legal_moves(state)[0]
>>> game.parse_move(state, str(turn)) == turn
True
"""

from __future__ import annotations

import math
import random
import re
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache, partial, reduce
from itertools import chain, combinations, compress, count, repeat, starmap
from operator import and_, invert, or_
from typing import Any, NamedTuple

from engines.chance import Bag, BagDraw, Shuffle
from engines.core import FIRST_SEAT, Game, Option, Outcome, colour_words
from engines.errors import IllegalMove, NotationError, RecordError, RulesError
from engines.hakenschlagen_turns import Lanes
from engines.observation import PIECE
from engines.outcomes import Outcomes
from engines.sensed import NO_CELL, Rows, SensedOutcomes
from engines.words import Words, words

FIELD, DANDELION, LETTUCE, CARROT = "field", "dandelion", "lettuce", "carrot"
FOX, MOLEHILL, TREE = "fox", "molehill", "tree"
COLOURS = (FIELD, DANDELION, LETTUCE, CARROT)
DISKS = (DANDELION, LETTUCE, CARROT)
MARBLES = (*COLOURS, FOX, MOLEHILL)
PLACING = (FOX, MOLEHILL)
BAG = Bag.of(field=4, dandelion=3, lettuce=2, carrot=1, fox=1, molehill=1)
MOLEHILLS = 6
#: turns written out of one search before their groups are indexed by row
WRITTEN_BEFORE_INDEX = 8
#: random hollows a random fox or molehill placement tries before listing them all
PLACEMENT_GUESSES = 8
#: layouts whose runs cut at the trees are kept (games played with one game object)
LAYOUTS_KEPT = 4
HAND, HAND_NEAR_FOX = 3, 1
BOARDS = {"hex": "hakenschlagen", "square": "hakenschlagen_square"}
COMPASS = ("e", "ne", "n", "nw", "w", "sw", "s", "se")
#: hollows (board indices): the molehills, or the other hares
Spaces = frozenset[int]
#: what each hollow shows when no figure stands on it: a colour, or a tree
Layout = tuple[str, ...]
#: where the mover's hare, the fox and the molehills stand (a ``_Node`` starts so)
Figures = tuple[int, int, Spaces]
#: one fox or molehill placement: the space it leaves (None: from the supply), the space it takes
Placement = tuple[int | None, int]
#: which placements a search may make: (kind, source, cell) -> allowed; None allows all
Keep = Callable[[str, int | None, int], bool] | None
USE = re.compile(r"^([a-z]+)(?:\+([a-z]+)=([a-z]+))?:(?:([a-z0-9_]+)-)?([a-z0-9_]+)$")


class SetupError(RulesError):
    """A laid-out setup that breaks the rules; ``reason`` says what to change."""

    def __init__(self, reason: str | Words) -> None:
        super().__init__(reason)
        self.reason = str(self.words)


@dataclass(frozen=True)
class Use:
    """One marble (or a joker of two) used as ``kind``: a jump, fox move or molehill.

    ``to`` is the cell the hare, fox or molehill goes to; ``source`` is where a moved
    molehill came from. Notation: ``lettuce:c5``, ``fox:m3``, ``molehill:d4``,
    ``molehill:d4-f6`` (moved), ``field+field=carrot:e7`` (a joker).
    """

    marbles: tuple[str, ...]
    kind: str
    to: str
    source: str | None = None

    def __str__(self) -> str:
        head = self.marbles[0] if len(self.marbles) == 1 else "+".join(self.marbles)
        if len(self.marbles) == 2:
            head += f"={self.kind}"
        return f"{head}:{self.source + '-' if self.source else ''}{self.to}"


@dataclass(frozen=True, slots=True)
class Turn:
    """A whole turn: the marble uses in order, written space-separated; ``pass`` if none."""

    uses: tuple[Use, ...]

    def __str__(self) -> str:
        return " ".join(map(str, self.uses)) or "pass"


@dataclass(frozen=True)
class Survey:
    """The jumps open to a hare on one position, and which placements would change them.

    ``lanes`` holds each direction's spaces up to its first blocker (tree or fox),
    ``blockers`` that blocker (None at the edge).
    """

    targets: dict[str, list[tuple[str, int]]]
    blockers: tuple[int | None, ...]
    lanes: tuple[tuple[int, ...], ...]
    #: (kind, live) -> (cells, sources) for ``changes``, filled on first use
    _sensitive: dict = field(default_factory=dict, compare=False, repr=False)

    def changes(self, kind: str, source: int | None, cell: int, live: frozenset[str]) -> bool:
        """Whether moving the fox, or placing or moving a molehill, from ``source`` to
        ``cell`` changes where some colour in ``live`` would take the hare."""
        cells, sources = self.sensitive(kind, live)
        return bool(cells >> cell & 1) or source in sources

    def sensitive(self, kind: str, live: frozenset[str]) -> tuple[int, frozenset]:
        """The cells (bits) a placement of ``kind`` changes a jump of ``live`` by
        going to, and those it does by leaving (kept per kind and colours)."""
        found = self._sensitive.get((kind, live))
        if found is None:
            found = self._sensitive[kind, live] = self._sensitive_to(kind, live)
        return found

    def _sensitive_to(self, kind: str, live: frozenset[str]) -> tuple[int, frozenset]:
        """The cells (bits) a placement of ``kind`` changes a jump of ``live`` by
        going to, and the cells it does by leaving."""
        if kind == FOX:
            wanted = {c for colour in live for _, c in self.targets[colour]}
            # the fox blocks a lane at or before a target of a live colour
            cells = {c for lane in self.lanes for c in lane[: _last(lane, wanted) + 1]}
            # the fox leaving the end of a lane opens it for a live colour with no
            # target before the fox
            sources = {
                blocker
                for lane, blocker in zip(self.lanes, self.blockers)
                if blocker is not None
                and any(not set(lane) & {c for _, c in self.targets[colour]} for colour in live)
            }
            return _mask(cells), frozenset(sources)
        if FIELD not in live:
            return 0, frozenset()
        fields = {c for _, c in self.targets[FIELD]}
        # a molehill taken off a lane before its field target opens a nearer target
        sources = {
            c
            for lane in self.lanes
            for c in (lane[: _last(lane, fields) + 1] if fields & set(lane) else lane)
        }
        return _mask(fields), frozenset(sources)


class _Node(NamedTuple):
    """A point of the turn search: where the mover's hare, the fox and the molehills
    stand, the marbles still in hand, whether the hare has turned, and whether the
    turn has won the game (no use follows)."""

    hare: int
    fox: int
    moles: Spaces
    hand: tuple[str, ...]
    turned: bool
    won: bool


class _Group(NamedTuple):
    """A way the turn search reached some ends: the uses ``done`` to ``node``, then
    placements of the kinds in ``order`` (each passing ``keep``), then ``tail``;
    with ``jump`` (a colour), then that marble's jump to the end's hollow. Without
    placements the node is not kept (None): nothing is written out from it."""

    done: tuple[Use, ...]
    node: _Node | None
    order: tuple[tuple[tuple[str, ...], str], ...]
    keep: Keep
    tail: tuple[Use, ...]
    jump: str | None = None


@dataclass
class _Found:
    """The distinct ends of one turn and the group that reached each first; ``turn``
    writes the uses to one end out. Iterating gives the ends packed (``_pack``).

    Ends are kept by row (the end without the fox, ``_row``) with the fox's spaces
    as the bits of one int: a fox marble then adds a row's ends in one operation.
    """

    game: Hakenschlagen
    others: Spaces
    layout: Layout
    #: row -> every fox space found with it (bits)
    foxes: dict[int, int] = field(default_factory=dict)
    #: (group, {row: fox bits}) with the ends each group found first, in order
    claims: list[tuple[int, dict[int, int]]] = field(default_factory=list)
    #: how many ends each claim holds
    sizes: list[int] = field(default_factory=list)
    groups: list[_Group] = field(default_factory=list)
    count: int = 0
    _fields: dict[tuple, list[int]] = field(default_factory=dict)
    _by_row: dict[int, list[tuple[int, int]]] | None = None
    _written: int = 0

    def add(self, rows: dict[int, int], group: _Group) -> None:
        """Record the ends ``rows`` (row -> fox bits) that ``group`` reaches."""
        foxes = self.foxes
        if len(rows) == 1:  # a turn ended where its search node stands
            ((row, bits),) = rows.items()
            have = foxes.get(row, 0)
            new = bits & ~have
            if new:
                foxes[row] = have | new
                self.claim(rows if new == bits else {row: new}, new.bit_count(), group)
            return
        if foxes.keys().isdisjoint(rows):  # all new, as most are: taken as they come
            foxes.update(rows)
            self.claim(rows, sum(map(int.bit_count, rows.values())), group)
            return
        # a whole list at a time with ``map`` in C; the ends new to the turn keep the
        # order of ``rows``, so the turn's listing is the same in every interpreter
        had = list(map(foxes.get, rows, repeat(0)))
        added = list(map(and_, rows.values(), map(invert, had)))
        fresh = dict(compress(zip(rows, added), added))
        if fresh:
            foxes.update(zip(rows, map(or_, had, rows.values())))
            self.claim(fresh, sum(map(int.bit_count, fresh.values())), group)

    def claim(self, rows: dict[int, int], size: int, group: _Group) -> None:
        """Record ``group`` as the first way to the ``size`` ends ``rows``, which
        ``foxes`` already holds."""
        self.claims.append((len(self.groups), rows))
        self.sizes.append(size)
        self.groups.append(group)
        self.count += size

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[int]:
        for _, rows in self.claims:
            for row, bits in rows.items():
                while bits:
                    low = bits & -bits
                    yield row | (low.bit_length() - 1) << 7
                    bits ^= low

    def __contains__(self, end: object) -> bool:
        return isinstance(end, int) and bool(self.foxes.get(_row(end), 0) >> (end >> 7 & 127) & 1)

    def at(self, n: int) -> int:
        """The ``n``-th end in iteration order, found without listing those before it
        (a random player picks one of tens of thousands)."""
        if n < 0:
            n += self.count
        if not 0 <= n < self.count:
            raise IndexError("no such outcome")
        for (_, rows), size in zip(self.claims, self.sizes):
            if n >= size:
                n -= size
                continue
            for row, bits in rows.items():
                held = bits.bit_count()
                if n >= held:
                    n -= held
                    continue
                for _ in range(n):
                    bits &= bits - 1
                return row | ((bits & -bits).bit_length() - 1) << 7
        raise AssertionError("the sizes disagree with the ends")

    def let_ends_go(self) -> None:
        """Forget which ends were found (once the caller knows each end's claim):
        only ``write`` works afterwards. A big turn's ends take megabytes."""
        self.foxes, self.claims, self.sizes, self._by_row = {}, [], [], None

    def free_fields(self, node: _Node) -> list[int]:
        if node not in self._fields:
            self._fields[node] = self.game._free_fields(node, self.others, self.layout)
        return self._fields[node]

    def turn(self, end: int) -> Turn:
        """The uses to ``end`` (one of the ends found)."""
        fox_bit, row = 1 << (end >> 7 & 127), _row(end)
        self._written += 1
        if self._by_row is None and self._written > WRITTEN_BEFORE_INDEX:
            self._by_row = {}
            for gid, rows in self.claims:
                for at, bits in rows.items():
                    self._by_row.setdefault(at, []).append((gid, bits))
        if self._by_row is None:  # a few turns read: look through the claims
            gid = next(g for g, rows in self.claims if rows.get(row, 0) & fox_bit)
        else:
            gid = next(g for g, bits in self._by_row[row] if bits & fox_bit)
        return self.write(gid, end)

    def write(self, gid: int, end: int) -> Turn:
        """The uses to ``end``, one of the ends claim ``gid`` holds."""
        group = self.groups[gid]
        _, fox, mask, _ = _unpack(end)
        names = self.game._names
        placed: tuple[Use, ...] = ()
        if group.order:
            steps = self.game._steps_to(
                group, fox, mask, self.others, self.layout, self.free_fields
            )
            placed = tuple(
                Use(marbles, kind, names[c], _source_name(kind, names, s))
                for (marbles, kind), (s, c) in zip(group.order, steps)
            )
        if group.jump is None:
            return Turn(group.done + placed + group.tail)
        jump = Use((group.jump,), group.jump, names[end & 127])
        return Turn(group.done + placed + group.tail + (jump,))


class _Cut(NamedTuple):
    """What one layout fixes for a whole game: the hare's runs cut at its trees, and
    the hollows (bits) the fox and a molehill may go to when no figure stands there."""

    lanes: Lanes
    #: the inner hollows without a tree
    fox_ground: int
    #: the inner field hollows
    molehill_ground: int


@dataclass(frozen=True)
class HakenschlagenState:
    """The static layer and the figures (cell indices), whose turn and their hand.

    ``layout[i]`` is what lies on hollow ``i`` ("field", a disk or "tree"); None
    until the setup is drawn or laid. ``hand`` is None until the turn's marbles are
    drawn. ``turned[seat]`` is True once that hare has been on a turning point.
    """

    layout: Layout | None
    hares: tuple[int, ...]
    turned: tuple[bool, ...]
    fox: int
    molehills: frozenset[int] = frozenset()
    turn: int = 0
    hand: tuple[str, ...] | None = None
    winner: int | None = None
    turns: int = 0


class Hakenschlagen(Game[HakenschlagenState]):
    name = "hakenschlagen"
    player_counts = (2, 3, 4, 5)
    default_players = 4
    state_type = HakenschlagenState
    OPTIONS = (
        Option("board", "hex", "the board", kind=str, choices=tuple(BOARDS)),
        Option("dandelions", 15, "dandelion disks on the board", kind=int, minimum=0, maximum=15),
        Option("lettuces", 12, "lettuce disks on the board", kind=int, minimum=0, maximum=12),
        Option("carrots", 9, "carrot disks on the board", kind=int, minimum=0, maximum=9),
        Option("trees", 6, "trees on the board", kind=int, minimum=0, maximum=6),
        FIRST_SEAT,
    )

    def __init__(self, players: int | None = None, **options: Any) -> None:
        super().__init__(players, **options)
        board, data = self.board, self.board.game
        self._names = tuple(cell.id for cell in board.cells)
        self.hare_colours: tuple[str, ...] = tuple(data["hares"][: self.players])
        self.colours: dict[str, str] = dict(data["colours"])
        self.centre = board.index[data["centre"]]
        self._starts = tuple(board.index[c] for c in data["hare_starts"][: self.players])
        self.start_spaces = frozenset(i for i, c in enumerate(board.cells) if c.kind == "start")
        self.turning_points = frozenset(
            i for i, c in enumerate(board.cells) if c.kind == "turning_point"
        )
        #: hollows that take disks, trees, the fox and molehills, in board order
        self.inner = tuple(
            i
            for i in range(len(board.cells))
            if i not in self.start_spaces and i not in self.turning_points
        )
        self._inner = frozenset(self.inner)
        self._counts = {kind: self.options[kind + "s"] for kind in (*DISKS, TREE)}
        self._rays = tuple(self._rays_from(i) for i in range(len(board.cells)))
        self._cut: _Cut | None = None  # the last layout's, looked up by identity
        self._cuts: dict[Layout, _Cut] = {}

    def _board_name(self) -> str:
        return BOARDS[self.options["board"]]

    def _rays_from(self, cell: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """Every straight run of cells from ``cell`` to the edge, with its compass name."""
        rays = []
        for line in self.board.lines:
            at = [self.board.index[c] for c in line]
            if cell not in at:
                continue
            k = at.index(cell)
            for ray in (tuple(at[k + 1 :]), tuple(reversed(at[:k]))):
                if ray:
                    (x0, y0), (x1, y1) = self.board.cells[cell].xy, self.board.cells[ray[0]].xy
                    angle = math.degrees(math.atan2(y1 - y0, x1 - x0)) % 360
                    rays.append((COMPASS[round(angle / 45) % 8], ray))
        return tuple(rays)

    def seat_words(self, seat: int) -> Words:
        return colour_words(self.hare_colours[seat])

    # --- setup --------------------------------------------------------------------

    def initial_state(self) -> HakenschlagenState:
        """Before the setup: figures on their spaces, the static layer still to draw."""
        return HakenschlagenState(
            None,
            self._starts,
            (False,) * self.players,
            self.centre,
            turn=self.options["first_seat"],
        )

    def setup_from(
        self, layout: Mapping[str, Iterable[str]], hares: Iterable[str] | None = None
    ) -> HakenschlagenState:
        """The start of a game on a setup laid by the players.

        ``layout`` maps "tree", "dandelion", "lettuce" and "carrot" to the cell ids
        they lie on; ``hares`` optionally names each seat's start space. Raises
        ``SetupError`` saying what breaks the rules.
        """
        if not isinstance(layout, Mapping):
            raise SetupError(
                words(
                    "rules.hakenschlagen.layout_maps_tree_dandelion",
                    "a layout maps tree/dandelion/lettuce/carrot to lists of cells",
                )
            )
        ground = [FIELD] * len(self._names)
        for kind, cells in layout.items():
            if kind not in self._counts:
                raise SetupError(
                    words(
                        "rules.hakenschlagen.not_part_static_layer_trees",
                        "{kind} is not part of the static layer (trees and disks)",
                        kind=repr(kind),
                    )
                )
            if isinstance(cells, str) or not isinstance(cells, Iterable):
                raise SetupError(
                    words(
                        "rules.hakenschlagen.give_list_cell_ids",
                        "{kind}: give a list of cell ids",
                        kind=kind,
                    )
                )
            for cell_id in cells:
                if cell_id not in self.board.index:
                    raise SetupError(
                        words(
                            "rules.hakenschlagen.not_hollow",
                            "{kind}: {cell_id} is not a hollow of {name}",
                            kind=kind,
                            cell_id=repr(cell_id),
                            name=self.board.name,
                        )
                    )
                i = self.board.index[cell_id]
                if ground[i] != FIELD:
                    raise SetupError(
                        words(
                            "rules.hakenschlagen.holds_both",
                            "{cell_id} holds both a {first} and a {kind}",
                            cell_id=cell_id,
                            first=ground[i],
                            kind=kind,
                        )
                    )
                ground[i] = kind
        starts = self._starts
        if hares is not None:
            starts = self._hare_starts(hares)
        laid = tuple(ground)
        self._check_layout(laid)
        return HakenschlagenState(
            laid, starts, (False,) * self.players, self.centre, turn=self.options["first_seat"]
        )

    def _hare_starts(self, hares: Iterable[str]) -> tuple[int, ...]:
        cells = tuple(hares) if not isinstance(hares, str) else (hares,)
        if len(cells) != self.players or len(set(cells)) != self.players:
            raise SetupError(
                words(
                    "rules.hakenschlagen.name_different_start_spaces",
                    "name {players, plural, one {# start space} other {# different start "
                    "spaces}}, one per hare",
                    players=self.players,
                )
            )
        for cell_id in cells:
            if self.board.index.get(cell_id) not in self.start_spaces:
                raise SetupError(
                    words(
                        "rules.hakenschlagen.not_start_space",
                        "{cell_id} is not a start space",
                        cell_id=repr(cell_id),
                    )
                )
        return tuple(self.board.index[c] for c in cells)

    def _check_layout(self, ground: tuple[str, ...]) -> None:
        """Counts, empty start spaces and turning points, no tree next to a tree."""
        names = self._names
        counts = Counter(ground)
        for kind, wanted in self._counts.items():
            if counts[kind] != wanted:
                raise SetupError(
                    words(
                        "rules.hakenschlagen.laid_game_uses",
                        "{kind, select, tree {{count, plural, one {# tree} other {# trees}}} "
                        "other {{count, plural, one {# {kind} disk} other {# {kind} disks}}}} "
                        "laid; this game uses {wanted}",
                        count=counts[kind],
                        kind=kind,
                        wanted=wanted,
                    )
                )
        for i, kind in enumerate(ground):
            if kind == FIELD:
                continue
            if i not in self._inner:
                where = "start space" if i in self.start_spaces else "turning point"
                raise SetupError(
                    words(
                        "rules.hakenschlagen.stays_empty_take_off",
                        "{cell} is a {where}; it stays empty, take the {kind} off",
                        cell=names[i],
                        where=where,
                        kind=kind,
                    )
                )
            if i == self.centre:
                raise SetupError(
                    words(
                        "rules.hakenschlagen.fox_centre_space",
                        "{cell} is the fox's centre space; the fox stands there first, "
                        "so take the {kind} off",
                        cell=names[i],
                        kind=kind,
                    )
                )
            if kind == TREE:
                for j in self.board.neighbours[i]:
                    if ground[j] == TREE:
                        raise SetupError(
                            words(
                                "rules.hakenschlagen.trees_adjacent",
                                "the trees on {cell} and {other} are adjacent",
                                cell=names[i],
                                other=names[j],
                            )
                        )

    def _layout_from_order(self, order: Any) -> tuple[str, ...]:
        """The setup a ``Shuffle`` of the inner hollows gives (see the module doc)."""
        index = self.board.index
        if (
            not isinstance(order, tuple | list)
            or any(not isinstance(c, str) for c in order)
            or sorted(index.get(c, -1) for c in order) != sorted(self.inner)
        ):
            raise RulesError(
                words(
                    "rules.hakenschlagen.setup_draw_order_every",
                    "a setup draw is an order of every hollow between the columns",
                )
            )
        ground = [FIELD] * len(self._names)
        rest = []
        trees = 0
        for cell_id in order:
            i = index[cell_id]
            free = i != self.centre and all(ground[j] != TREE for j in self.board.neighbours[i])
            if trees < self._counts[TREE] and free:
                ground[i] = TREE
                trees += 1
            elif i != self.centre:
                rest.append(i)
        disks = [kind for kind in DISKS for _ in range(self._counts[kind])]
        for i, kind in zip(rest, disks):
            ground[i] = kind
        return tuple(ground)

    # --- chance -------------------------------------------------------------------

    def chance(self, state: HakenschlagenState) -> Shuffle | BagDraw | None:
        self._require_state(state)
        if state.winner is not None:
            return None
        if state.layout is None:
            return Shuffle(tuple(self._names[i] for i in self.inner))
        if state.hand is None:
            near = state.fox in self.board.neighbours[state.hares[state.turn]]
            return BAG.draw(HAND_NEAR_FOX if near else HAND)
        return None

    def resolve(self, state: HakenschlagenState, outcome: Any) -> HakenschlagenState:
        spec = self.chance(state)
        if spec is None:
            raise RulesError(
                words("rules.hakenschlagen.nothing_drawn_now", "nothing is to be drawn now")
            )
        if state.layout is None:
            ground = self._layout_from_order(outcome)
            return replace(state, layout=ground)
        if not isinstance(spec, BagDraw):
            raise AssertionError("once the board is set up, only marbles are drawn")
        if not isinstance(outcome, tuple | list) or len(outcome) != spec.count:
            raise RulesError(
                words(
                    "rules.hakenschlagen.draw_marble_bag",
                    "the draw is {count, plural, one {# marble} other {# marbles}} from the bag",
                    count=spec.count,
                )
            )
        try:
            BAG.take(outcome)
        except (RulesError, TypeError):
            raise RulesError(
                words(
                    "rules.hakenschlagen.not_handful_bag",
                    "{hand} is not a handful from the bag",
                    hand=repr(outcome),
                )
            ) from None
        return replace(state, hand=tuple(sorted(outcome)))

    # --- what a marble can do -----------------------------------------------------

    def _survey(self, hare: int, fox: int, moles: Spaces, others: Spaces, layout: Layout) -> Survey:
        """Where each colour would take the hare, and which spaces matter for that."""
        return Survey(*self._lanes(layout).survey(hare, fox, moles, others))

    def _lanes(self, layout: Layout) -> Lanes:
        """The runs cut at the trees of ``layout`` (a search or a referee asks
        thousands of times a turn)."""
        return self._cut_of(layout).lanes

    def _cut_of(self, layout: Layout) -> _Cut:
        """What ``layout`` fixes, kept for the few layouts in play."""
        cut = self._cut
        if cut is None or cut.lanes.layout is not layout:
            cut = self._cuts.get(layout)
            if cut is None:
                if len(self._cuts) >= LAYOUTS_KEPT:
                    self._cuts.clear()
                cut = self._cuts[layout] = _Cut(
                    Lanes(self._rays, layout, COLOURS, TREE),
                    _mask(c for c in self.inner if layout[c] != TREE),
                    _mask(c for c in self.inner if layout[c] == FIELD),
                )
            self._cut = cut
        return cut

    def _open(
        self, kind: str, hare: int, fox: int, moles: Spaces, others: Spaces, layout: Layout
    ) -> int:
        """The hollows (bits) the fox (``kind`` FOX) or a molehill may go to: those of
        its ground with no figure."""
        cut = self._cut_of(layout)
        ground = cut.fox_ground if kind == FOX else cut.molehill_ground
        return ground & ~(1 << hare | 1 << fox | _mask(moles) | _mask(others))

    def _fox_cells(
        self, hare: int, fox: int, moles: Spaces, others: Spaces, layout: Layout
    ) -> list[int]:
        return _ascending(self._open(FOX, hare, fox, moles, others, layout))

    def _molehill_moves(
        self, hare: int, fox: int, moles: Spaces, others: Spaces, layout: Layout
    ) -> list[Placement]:
        """``(source or None, cell)`` for each way the molehill marble can be used."""
        cells = self._molehill_cells(hare, fox, moles, others, layout)
        return [(s, c) for s in _molehill_sources(moles) for c in cells]

    def _molehill_cells(
        self, hare: int, fox: int, moles: Spaces, others: Spaces, layout: Layout
    ) -> list[int]:
        """The spaces a molehill may go to (from the supply or moved)."""
        return _ascending(self._open(MOLEHILL, hare, fox, moles, others, layout))

    def marble_targets(self, state: HakenschlagenState, marble: str) -> dict[str, str]:
        """Where a colour marble takes the hare to move: {direction: cell id}."""
        layout = self._require_playing(state)
        if marble not in COLOURS:
            raise RulesError(
                words(
                    "rules.hakenschlagen.not_colour_marble",
                    "{marble} is not a colour marble ({colours})",
                    marble=repr(marble),
                    colours=", ".join(COLOURS),
                )
            )
        hare, others = self._hare_and_others(state)
        survey = self._survey(hare, state.fox, state.molehills, others, layout)
        return {direction: self._names[c] for direction, c in survey.targets[marble]}

    def placements(self, state: HakenschlagenState, marble: str) -> tuple[str, ...]:
        """Where the fox or a molehill may go now (cell ids, board order)."""
        layout = self._require_playing(state)
        hare, others = self._hare_and_others(state)
        args = (hare, state.fox, state.molehills, others, layout)
        if marble == FOX:
            return tuple(self._names[c] for c in self._fox_cells(*args))
        if marble == MOLEHILL:
            return tuple(dict.fromkeys(self._names[c] for _, c in self._molehill_moves(*args)))
        raise RulesError(
            words(
                "rules.hakenschlagen.places_nothing_only_fox",
                "{marble} places nothing; only the fox and molehill marbles do",
                marble=repr(marble),
            )
        )

    def _require_playing(self, state: HakenschlagenState) -> tuple[str, ...]:
        """The board's layout, which the game must have been set up with by now."""
        self._require_state(state)
        if state.layout is None:
            raise RulesError(
                words("rules.hakenschlagen.board_not_set_up_yet", "the board is not set up yet")
            )
        return state.layout

    def _in_turn(self, state: HakenschlagenState) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The layout and the hand of the turn under way: an error in words before the
        board is set up or the marbles are drawn."""
        layout = self._require_playing(state)
        if state.hand is None:
            raise RulesError(
                words(
                    "rules.hakenschlagen.marbles_turn_not_drawn_yet",
                    "the marbles for this turn are not drawn yet: draw first",
                )
            )
        return layout, state.hand

    def _hare_and_others(self, state: HakenschlagenState) -> tuple[int, frozenset[int]]:
        hare = state.hares[state.turn]
        return hare, frozenset(h for s, h in enumerate(state.hares) if s != state.turn)

    # --- a turn: every outcome ------------------------------------------------------

    def _to_move(self, state: HakenschlagenState) -> int:
        return state.turn

    def drawer(self, state: HakenschlagenState) -> int | None:
        """The seat in turn draws its marbles; the table draws the setup."""
        spec = self.chance(state)
        return None if spec is None or state.layout is None else state.turn

    def _legal_moves(self, state: HakenschlagenState) -> Outcomes:
        found = self._outcomes(state)
        return Outcomes(found, found.turn, partial(self._end_of, state))

    def must_pass(self, state: HakenschlagenState) -> bool:
        """Never: a turn is the uses of the marbles drawn (none, when no marble can
        be used), not a pass. The referee asks after every move; answered without
        the turn's whole search, which the indexing of its outcomes runs anyway."""
        return False

    def successors(self, state: HakenschlagenState) -> list[tuple[Turn, HakenschlagenState]]:
        """Each distinct turn with the position it ends in, taken from the search
        itself rather than replaying thousands of turns (the referee indexes them)."""
        if self.to_move(state) is None:
            return []
        found = self._outcomes(state)
        molehills: dict[int, frozenset[int]] = {}
        pairs = []
        for key in found:
            hare, fox, mask, turned = _unpack(key)
            if mask not in molehills:
                molehills[mask] = _cells(mask)
            pairs.append((found.turn(key), self._ending(state, hare, fox, molehills[mask], turned)))
        return pairs

    def sensed_successors(
        self, state: HakenschlagenState, sensors: tuple[str, ...]
    ) -> tuple[Iterable[tuple[Any, ...]], Callable[[int], tuple[Turn, HakenschlagenState]]]:
        """Each distinct end of the turn, in ``legal_moves``'s order, as
        ``SensedOutcomes`` (the cells whose reading it changes), told from the
        figures' moves alone: tens of thousands of ends a turn are indexed without
        building a position for any of them. Most ends share their row (the
        reading without the fox) with others and add the fox on one cell."""
        if not set(sensors) <= {"camera", "presence"}:
            return super().sensed_successors(state, sensors)
        if self.to_move(state) is None:
            return (), _no_end
        found, seat = self._outcomes(state), state.turn
        # what shows on a hollow without a figure: its disk or tree (a field shows none)
        layout, _ = self._in_turn(state)
        ground = [None if kind == FIELD else kind for kind in layout]
        figures = list(self._figures(state).values())  # board order
        hare_token = figures[state.hares[seat]]
        still = list(figures)  # the figures that stay where they are: all but the mover's
        for i in (state.hares[seat], state.fox, *state.molehills):
            still[i] = None
        camera = [figure or under for figure, under in zip(figures, ground)]
        presence = [None if figure is None else PIECE for figure in figures]
        moved_from = 1 << state.hares[seat] | 1 << state.fox
        mask_before = _mask(state.molehills)
        occupied = _mask(i for i, figure in enumerate(figures) if figure is not None)
        standing = occupied & ~(moved_from | mask_before)

        # Each reading is first made for an end's row, without the fox (the fox's
        # space left as it was before the turn), then the fox is set on each of the
        # row's fox spaces: one cell more or less per end, not a whole comparison.
        # A reader appends a row's changes to ``rows`` (sensor ``s``'s arrays) and
        # gives their cells (bits).
        rows = Rows(len(sensors))
        piece, empty = rows.id(PIECE), rows.id(None)

        def felt(s: int, hare: int, mask: int) -> int:
            at, shows = rows.at[s].append, rows.shows[s].append
            now = standing | 1 << hare | mask
            bits = changed = occupied ^ now
            while bits:
                low = bits & -bits
                bits ^= low
                at(low.bit_length() - 1)
                shows(piece if now & low else empty)
            return changed

        def seen(s: int, hare: int, mask: int) -> int:
            at, shows, id_of = rows.at[s].append, rows.shows[s].append, rows.id
            bits = moved_from | 1 << hare | (mask ^ mask_before)
            changed = 0
            while bits:
                low = bits & -bits
                bits ^= low
                i = low.bit_length() - 1
                if i == hare:
                    token = hare_token
                elif mask & low:
                    token = MOLEHILL
                else:
                    token = still[i] or ground[i]
                if token != camera[i]:
                    at(i)
                    shows(id_of(token))
                    changed |= low
            return changed

        readers = [
            (seen, FOX, camera) if sensor == "camera" else (felt, PIECE, presence)
            for sensor in sensors
        ]

        # a row's packed end: its hare and fox (15 bits) and a bit per hollow
        width = (15 + len(layout) + 7) // 8
        sensed, refs, starts = _sensed_ends(found, rows, readers, state.fox, width)
        found.let_ends_go()
        of_row, cells = sensed.row, sensed.cell

        def resolve(n: int) -> tuple[Turn, HakenschlagenState]:
            cell = cells[n]
            at = of_row[n] * width
            end = int.from_bytes(refs[at : at + width], "little")
            end |= cell << 7 if cell != NO_CELL else 0
            hare, fox, mask, turned = _unpack(end)
            turn = found.write(bisect_right(starts, n) - 1, end)
            return turn, self._ending(state, hare, fox, _cells(mask), turned)

        return sensed, resolve

    def _end_of(self, state: HakenschlagenState, move: Any) -> int | None:
        """The packed end of ``move`` from ``state``, or None if it is not legal."""
        try:
            after = self._apply(state, move)
        except RulesError:
            return None
        seat = state.turn
        return _pack(after.hares[seat], after.fox, _mask(after.molehills), after.turned[seat])

    def canonical(self, state: HakenschlagenState, turn: Any) -> Turn:
        """The turn ``legal_moves`` lists for the outcome of ``turn``: the one way of
        writing every order of uses that ends alike. Raises ``IllegalMove`` with the
        reason when ``turn`` is not legal here."""
        self.apply(state, turn)
        listed: Turn = self._legal_moves(state).listed(turn)
        return listed

    def hints(self, state: HakenschlagenState) -> frozenset[str]:
        """Where the colour marbles in hand would take the hare now (for the LEDs)."""
        if self.to_move(state) is None:
            return frozenset()
        return frozenset(
            cell
            for marble in set(self._in_turn(state)[1]) & set(COLOURS)
            for cell in self.marble_targets(state, marble).values()
        )

    def random_play(
        self, state: HakenschlagenState, pick: random.Random
    ) -> tuple[Turn, HakenschlagenState]:
        """A legal turn drawn with ``pick`` and the position it ends in, found by a
        random walk over the steps of the turn, never listing its outcomes (what
        random playouts use; ``legal_moves`` lists them all).

        The walk, from the marbles drawn: at each moment the ways to go on are each
        way to use one marble, or two of a kind as a joker, that has somewhere to go
        (a colour with a target now, the fox or a molehill with a space free), and
        ending the turn when the rules allow it (every colour marble still in hand
        offered no target at some moment of the turn). One of those is drawn, all
        equally likely; a jump then goes to one of its targets, the fox to one of its
        spaces, a molehill to one of its (source, space) pairs, each equally likely.
        The walk stops when the hand is empty or the race is won. So the draw is
        uniform neither over turns nor over outcomes: the fox has dozens of spaces,
        yet ending the turn at once is as likely as moving it. Every turn it draws
        is legal (``turn in legal_moves(state)``), and every legal outcome can come
        up.
        """
        self._require_move_due(state)
        hare, others = self._hare_and_others(state)
        layout, hand = self._in_turn(state)
        names, fox, moles = self._names, state.fox, state.molehills
        turned = state.turned[state.turn]
        idle: set[str] = set()  # colours that offered no target at some moment
        uses: list[Use] = []
        while hand:
            targets = self._survey(hare, fox, moles, others, layout).targets
            idle |= _idle_colours(hand, targets)
            options = [
                (marbles, kind)
                for marbles, kind in _uses(hand)
                if kind not in COLOURS or targets[kind]
            ]
            may_end = all(m in idle for m in hand if m in COLOURS)
            step: Placement | None = None
            while step is None:
                at = pick.randrange(len(options) + may_end)
                if at == len(options):
                    break
                marbles, kind = options[at]
                if kind in COLOURS:
                    step = None, pick.choice(targets[kind])[1]
                else:
                    step = self._random_placement(kind, hare, fox, moles, others, layout, pick)
                    if step is None:  # nowhere to go: not a way to go on
                        del options[at]
            if step is None:
                break
            source, cell = step
            uses.append(Use(marbles, kind, names[cell], _source_name(kind, names, source)))
            hand = _without(hand, marbles)
            if kind in COLOURS:
                after = self._jump(cell, fox, moles, hand, turned)
                hare, turned = cell, after.turned
                if after.won:
                    break  # marbles still in hand are forfeited
            else:
                fox, moles = _placed(kind, source, cell, fox, moles)
        return Turn(tuple(uses)), self._ending(state, hare, fox, moles, turned)

    def _random_placement(
        self,
        kind: str,
        hare: int,
        fox: int,
        moles: Spaces,
        others: Spaces,
        layout: Layout,
        pick: random.Random,
    ) -> Placement | None:
        """``(source, cell)`` of one fox move or molehill use drawn uniformly among
        those open (``_placements_of``), or None when there is none. A few guesses at
        random hollows find one far sooner than listing them all; the list is the
        fallback, so every placement stays equally likely."""
        inner = self.inner
        movable = sorted(moles) if kind == MOLEHILL and len(moles) >= MOLEHILLS else None
        for _ in range(PLACEMENT_GUESSES):
            cell = inner[pick.randrange(len(inner))]
            kept = layout[cell] == FIELD if kind == MOLEHILL else layout[cell] != TREE
            if kept and cell != fox and cell != hare and cell not in moles and cell not in others:
                if kind == FOX:
                    return fox, cell
                return (None if movable is None else pick.choice(movable)), cell
        placed = self._placements_of(kind, (hare, fox, moles), others, layout)
        return pick.choice(placed) if placed else None

    def _transitions(
        self,
        node: _Node,
        others: Spaces,
        layout: Layout,
        survey: Survey | None = None,
        within: frozenset[int] | None = None,
    ) -> Iterator[tuple[Use | None, _Node]]:
        """Every single step of a turn from ``node``: ``(use or None, next node)``.

        A node is a ``_Node``; a step is a marble
        use, or (use None) a colour marble going back because it offers no target.
        Given the node's ``survey``, only placements that change where a colour
        still in hand would jump are listed (the search tries only those); given
        the cells ``within``, only placements onto those.
        """
        hare, fox, moles, hand, turned, won = node
        if won:
            return
        names = self._names
        targets = (survey or self._survey(hare, fox, moles, others, layout)).targets
        for marbles, kind in _uses(hand):
            left = _without(hand, marbles)
            if kind in COLOURS:
                for _, c in targets[kind]:
                    yield Use(marbles, kind, names[c]), self._jump(c, fox, moles, left, turned)
                if len(marbles) == 1 and not targets[kind]:
                    yield None, _Node(hare, fox, moles, left, turned, False)
                continue
            live = _live(left)
            if survey is not None and not live:
                continue
            if survey is None:
                placed = self._placements_of(kind, node, others, layout, within)
            else:
                placed = self._changing(kind, node, others, layout, survey.sensitive(kind, live))
                if within is not None:
                    placed = [(s, c) for s, c in placed if c in within]
            for source, c in placed:
                use = Use(marbles, kind, names[c], _source_name(kind, names, source))
                fox_after, moles_after = _placed(kind, source, c, fox, moles)
                yield use, _Node(hare, fox_after, moles_after, left, turned, False)

    def _changing(
        self,
        kind: str,
        node: _Node | Figures,
        others: Spaces,
        layout: Layout,
        sensitive: tuple[int, frozenset],
        changing: bool = True,
    ) -> list[Placement]:
        """The placements of ``kind`` (in ``_placements_of``'s order) that go to a
        cell or leave a source of ``sensitive`` (a survey's); not ``changing``, those
        that leave a space on the board and do neither."""
        hare, fox, moles = node[:3]
        cells, sources = sensitive
        open_ = self._open(kind, hare, fox, moles, others, layout)
        spelt: dict[int, list[int]] = {}
        placed: list[Placement] = []
        for s in [fox] if kind == FOX else _molehill_sources(moles):
            if changing:
                bits = open_ if s in sources else open_ & cells
            else:
                bits = 0 if s is None or s in sources else open_ & ~cells
            if bits not in spelt:
                spelt[bits] = _ascending(bits)
            placed += zip(repeat(s), spelt[bits])
        return placed

    def _placements_of(
        self,
        kind: str,
        node: _Node | Figures,
        others: Spaces,
        layout: Layout,
        within: frozenset[int] | None = None,
    ) -> list[Placement]:
        """``(source, cell)`` for each way to use the fox or molehill marble (onto the
        cells ``within`` alone, when given)."""
        hare, fox, moles = node[:3]  # a _Node, or the figures alone
        open_ = self._open(kind, hare, fox, moles, others, layout)
        cells = _ascending(open_ if within is None else open_ & _mask(within))
        if kind == FOX:
            return [(fox, c) for c in cells]
        return [(s, c) for s in _molehill_sources(moles) for c in cells]

    def _outcomes(self, state: HakenschlagenState) -> _Found:
        """Every distinct end of the turn, packed (``_pack``), each with the group
        of ways that first reached it (``_Group``), from which ``_Found.turn``
        writes one order of uses out.

        A depth-first search over the steps of a turn. Fox and molehill moves are
        the expensive branches (dozens of cells each), so before a jump only those
        that change where some colour still in hand would jump are tried: any other
        placement can as well be made after the jump. When no jump follows, or the
        jump wins, the remaining placements are added all at once by ``_finish``,
        as sets of packed ends (a hand with fox and molehill ends in thousands).
        """
        hare, others = self._hare_and_others(state)
        layout, hand = self._in_turn(state)
        start = _Node(hare, state.fox, state.molehills, hand, state.turned[state.turn], False)
        found, lanes = _Found(self, others, layout), self._lanes(layout)
        seen: set[_Node] = set()
        stack: list[tuple[_Node, tuple[Use, ...]]] = [(start, ())]
        while stack:
            node, done = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            hare, fox, moles, hand, turned, won = node
            if won or not hand:
                row = _pack(hare, 0, _mask(moles), turned)
                found.add({row: 1 << fox}, _Group(done, None, (), None, ()))
                continue
            if len(hand) == 1 and hand[0] in COLOURS:
                self._last_jump(node, done, others, layout, lanes, found)
                continue
            if not _live(hand):  # placements alone are left: no jump to survey or make
                self._finish(node, done, None, others, layout, found)
                continue
            survey = self._survey(hare, fox, moles, others, layout)
            self._finish(node, done, survey, others, layout, found)
            for use, after in self._transitions(node, others, layout, survey):
                if use is not None:
                    if after.won:
                        self._finish(node, done, survey, others, layout, found, (use, after))
                    done_after = done + (use,)
                else:
                    done_after = done
                stack.append((after, done_after))
            for step in self._vacate_then_fill(node, survey, others, layout):
                stack.append((step[-1], done + step[:-1]))
        return found

    def _last_jump(
        self,
        node: _Node,
        done: tuple[Use, ...],
        others: Spaces,
        layout: Layout,
        lanes: Lanes,
        found: _Found,
    ) -> None:
        """Record the ends of the turn from ``node`` whose one marble left is a colour:
        each jump it offers ends the turn, or with none the marble goes back and the
        turn ends here. The ends and the ways recorded for them are those the search
        would find stepping on to each jump's node (in the order it would take them
        off its stack), without making the nodes or surveying the other colours."""
        hare, fox, moles, (colour,), turned, _ = node
        targets = lanes.jumps(colour, hare, fox, moles, others)
        here, mask, foxes = 1 << fox, _mask(moles) << 15, found.foxes
        if not targets:
            found.add({_pack(hare, 0, 0, turned) | mask: here}, _Group(done, None, (), None, ()))
            return
        for c in targets:
            if turned and c in self.start_spaces:  # the jump wins the race
                use = Use((colour,), colour, self._names[c])
                after = self._jump(c, fox, moles, (), turned)
                # no survey: after the jump the hand is empty, so nothing is placed
                self._finish(node, done, None, others, layout, found, (use, after))
        turning, fresh = self.turning_points, dict[int, int]()
        for c in reversed(targets):
            row = c | (turned or c in turning) << 14 | mask  # _pack, inlined: once per jump
            have = foxes.get(row, 0)
            if not have & here:
                foxes[row] = have | here
                fresh[row] = here
        if fresh:  # one way for all of them: the jump is written out with the turn
            found.claim(fresh, len(fresh), _Group(done, None, (), None, (), colour))

    def _vacate_then_fill(
        self, node: _Node, survey: Survey, others: Spaces, layout: Layout
    ) -> Iterator[tuple[Use, Use, _Node]]:
        """Two placements before a jump where the second needs the first's space.

        A fox or molehill leaving a space where it changes no jump may still make
        room for the other figure on a space where it does (a molehill moved off the
        hare's line to the fox's old space, say).
        """
        hare, fox, moles, hand, turned, _ = node
        names = self._names
        for first_marbles, first, live_left, second_marbles, second, live in _placement_pairs(hand):
            rest = _without(_without(hand, first_marbles), second_marbles)
            alone = survey.sensitive(first, live_left)
            for left, c in self._changing(first, node, others, layout, alone, changing=False):
                if left is None:
                    raise AssertionError("a placement from the supply leaves no space")
                f1, m1 = _placed(first, left, c, fox, moles)
                if not self._open(second, hare, f1, m1, others, layout) >> left & 1:
                    continue  # the second may not go to the space the first left
                first_use = Use(first_marbles, first, names[c], _source_name(first, names, left))
                later = self._survey(hare, f1, m1, others, layout)
                for s2 in [f1] if second == FOX else _molehill_sources(m1):
                    if later.changes(second, s2, left, live):
                        use = Use(
                            second_marbles, second, names[left], _source_name(second, names, s2)
                        )
                        f2, m2 = _placed(second, s2, left, f1, m1)
                        yield first_use, use, _Node(hare, f2, m2, rest, turned, False)

    def _finish(
        self,
        node: _Node,
        done: tuple[Use, ...],
        survey: Survey | None,
        others: Spaces,
        layout: Layout,
        found: _Found,
        win: tuple[Use, _Node] | None = None,
    ) -> None:
        """Record the ends of the turn reached from ``node`` by placements alone.

        Without ``win``: every colour marble left must offer no target (it goes
        back: ``survey`` tells, needed only when the hand holds one); the fox,
        molehill and joker placements left are made in any order.
        With ``win = (jump, after)``: placements that leave the winning jump alone,
        made before it.
        """
        hare, fox, moles, hand, turned, _ = node
        tail: tuple[Use, ...] = ()
        keep: Keep = None
        going_back: dict[str, list[tuple[str, int]]] | None = None
        if win is None:
            free, landing = hand, hare
            if any(m in COLOURS for m in hand):
                if survey is None:
                    raise AssertionError("colour marbles going back need the node's survey")
                going_back = survey.targets
        else:
            jump, after = win
            free, landing, tail, turned = after.hand, after.hare, (jump,), True

            def leaves_jump(
                kind: str, s: int | None, c: int, live: frozenset[str] = frozenset((jump.kind,))
            ) -> bool:
                if survey is None:
                    raise AssertionError(
                        "a placement before a winning jump needs the node's survey"
                    )
                return not survey.changes(kind, s, c, live)

            keep = leaves_jump

        base = _pack(landing, 0, 0, turned)
        for chosen, left in _placement_plans(free):
            # colour marbles left over go back, so none may offer a target now
            if going_back is not None and any(going_back[m] for m in left):
                continue
            for order, rows in self._placed_all(chosen, node, others, layout, keep, base):
                found.add(rows, _Group(done, node if order else None, order, keep, tail))

    def _allowed(
        self,
        kind: str,
        node: _Node | Figures,
        others: Spaces,
        layout: Layout,
        keep: Keep,
    ) -> list[Placement]:
        return [
            (s, c)
            for s, c in self._placements_of(kind, node, others, layout)
            if keep is None or keep(kind, s, c)
        ]

    def _placed_all(
        self,
        chosen: tuple[tuple[tuple[str, ...], str], ...],
        node: _Node,
        others: Spaces,
        layout: Layout,
        keep: Keep,
        base: int,
    ) -> Iterator[tuple[tuple[tuple[tuple[str, ...], str], ...], dict[int, int]]]:
        """``(order, rows)`` for the placements ``chosen`` made in ``order`` (both
        orders when they differ), each step passing ``keep`` (when given); ``rows``
        maps each end's row (``_row``) to the fox's spaces in those ends (bits)."""
        hare, fox, moles = node[:3]  # a _Node, or the figures alone
        mask = _mask(moles)
        here = 1 << fox
        if not chosen:
            yield (), {base | mask << 15: here}
            return
        kinds = [kind for _, kind in chosen]
        if len(chosen) == 1 and keep is None:
            # every placement allowed: the rows built a whole list at a time in C
            open_ = self._open(kinds[0], *node[:3], others, layout)
            if kinds[0] == FOX:
                yield chosen, {base | mask << 15: open_}
                return
            cells = list(map((1).__lshift__, _ascending(open_ << 15)))
            lifts = [base | _lifted(mask, s) << 15 for s in _molehill_sources(moles)]
            yield (
                chosen,
                dict.fromkeys(chain.from_iterable(map(at.__or__, cells) for at in lifts), here),
            )
            return
        if len(chosen) == 1:
            placed = self._allowed(kinds[0], node, others, layout, keep)
            if kinds[0] == FOX:
                yield chosen, {base | mask << 15: _mask(c for _, c in placed)}
            else:
                yield chosen, {base | _moved(mask, s, c) << 15: here for s, c in placed}
            return
        if kinds == [MOLEHILL, MOLEHILL] and keep is None:
            fields = self._free_fields(node, others, layout)
            ends = map(base.__or__, map((15).__rlshift__, _two_molehills(moles, fields)))
            yield chosen, dict.fromkeys(ends, here)
            return
        if kinds[0] == kinds[1]:
            kind, rows = kinds[0], dict[int, int]()
            for s, c in self._allowed(kind, node, others, layout, keep):
                f1, m1 = _placed(kind, s, c, fox, moles)
                m1_mask = _mask(m1)
                for s2, c2 in self._allowed(kind, (hare, f1, m1), others, layout, keep):
                    if kind == FOX:
                        row, bit = base | m1_mask << 15, 1 << c2
                    else:
                        row, bit = base | _moved(m1_mask, s2, c2) << 15, here
                    rows[row] = rows.get(row, 0) | bit
            yield chosen, rows
            return
        fox_first = chosen if kinds[0] == FOX else chosen[::-1]
        foxes = _mask(c for _, c in self._allowed(FOX, node, others, layout, keep))
        hills = [
            (s, c, _moved(mask, s, c))
            for s, c in self._allowed(MOLEHILL, node, others, layout, keep)
        ]
        # the fox first: a molehill may then go to the fox's old space
        into_den = []
        if layout[fox] == FIELD:
            into_den = [
                (s, fox, _moved(mask, s, fox))
                for s in _molehill_sources(moles)
                if keep is None or keep(MOLEHILL, s, fox)
            ]
        rows = {base | hm << 15: foxes & ~(1 << hc) for _, hc, hm in hills + into_den}
        yield fox_first, {row: bits for row, bits in rows.items() if bits}
        # the molehill first reaches one thing more: the fox on the space a moved
        # molehill left (every other pair the fox-first order has reached)
        if len(moles) == MOLEHILLS:
            yield (
                fox_first[::-1],
                {
                    base | hm << 15: 1 << hs
                    for hs, _, hm in hills
                    # with every molehill out, each molehill use moves one: hs is a space
                    if hs is not None and (keep is None or keep(FOX, fox, hs))
                },
            )

    def _free_fields(self, node: _Node | Figures, others: Spaces, layout: Layout) -> list[int]:
        """The field spaces a molehill may go to from ``node``, whatever the supply."""
        return self._molehill_cells(*node[:3], others, layout)

    def _steps_to(
        self,
        group: _Group,
        fox_end: int,
        mask_end: int,
        others: Spaces,
        layout: Layout,
        fields: Callable[[_Node], list[int]],
    ) -> list[Placement]:
        """The placements of ``group`` that lead from its node to ``fox_end`` and the
        molehills ``mask_end``: ``(s, c)`` per use of ``group.order``; ``fields(node)``
        gives ``_free_fields`` (the caller keeps them)."""
        node = group.node
        if node is None:
            raise AssertionError("a way without placements has no steps to write out")
        hare, fox, moles = node.hare, node.fox, node.moles
        kinds = [kind for _, kind in group.order]
        if kinds == [MOLEHILL, MOLEHILL] and group.keep is None:
            return _two_molehill_steps(moles, mask_end, fields(node))
        if len(kinds) == 2 and kinds[0] == kinds[1]:
            # two of a kind: try where the first goes, the second is then forced
            for s, c in self._allowed(kinds[0], node, others, layout, group.keep):
                f1, m1 = _placed(kinds[0], s, c, fox, moles)
                second = _step(kinds[0], f1, m1, fox_end, mask_end)
                if second and second in self._allowed(
                    kinds[0], (hare, f1, m1), others, layout, group.keep
                ):
                    return [(s, c), second]
            raise AssertionError("a recorded end no placement reaches")
        steps = []
        for kind in kinds:
            step = _step(kind, fox, moles, fox_end, mask_end)
            if step is None:
                raise AssertionError(f"a recorded end one {kind} placement does not reach")
            fox, moles = _placed(kind, *step, fox, moles)
            steps.append(step)
        return steps

    # --- applying a turn ------------------------------------------------------------

    def apply(self, state: HakenschlagenState, move: Any) -> HakenschlagenState:
        self._require_state(state)
        if state.winner is None and self.chance(state) is not None:
            raise IllegalMove(
                words(
                    "rules.hakenschlagen.marbles_turn_not_drawn_yet",
                    "the marbles for this turn are not drawn yet: draw first",
                ),
                move=str(move),
            )
        after: HakenschlagenState = super().apply(state, move)
        return after

    def can_extend(self, state: HakenschlagenState, move: Any, sensor: str = "camera") -> bool:
        """Whether the board after ``move``, as a ``sensor`` reads it, may show a turn
        still under way: the figures stand where some order of uses leaves them with a
        marble still in hand that could be used. A hare's jumps leave no trace, so
        ``lettuce:d8`` halfway through a turn looks like ``field+field=carrot:b6
        lettuce:d8``; a turn carried out one figure at a time is not over when it first
        matches. Neither sensor sees whether a hare has turned, and hall sensors feel a
        piece, not which: the hare on a dandelion with the fox still to move feels
        like the fox there and the hare where the fox stood. Any longer turn is legal
        too: a marble that offered no target at some moment stays free to go back
        unused."""
        return bool(self._uses_left(state, move, sensor, enough=bool))

    def still_to_do(self, state: HakenschlagenState, move: Any, sensor: str = "camera") -> Words:
        """What the marbles still in hand may do where the board after ``move`` shows
        a turn under way ("move the fox, set a molehill"), each once; or confirm."""

        def action(kinds: Iterable[str]) -> set[str]:
            return {_ACTION_OF.get(kind, FIELD) for kind in kinds}

        possible = action(kind for _, kind in _uses(state.hand))
        kinds = action(self._uses_left(state, move, sensor, lambda k: action(k) >= possible))
        end, _ = self._walk(state, self._checked(move))
        if MOLEHILL in kinds and len(end.moles) >= MOLEHILLS:
            kinds = (kinds - {MOLEHILL}) | {"molehill_moved"}
        actions = [_ACTIONS[kind] for kind in _ACTIONS if kind in kinds]
        if not actions:
            return super().still_to_do(state, move, sensor)
        return words(
            "rules.hakenschlagen.still_to_do", "{actions}, or press Confirm move", actions=actions
        )

    def _uses_left(
        self,
        state: HakenschlagenState,
        move: Any,
        sensor: str,
        enough: Callable[[set[str]], bool] = lambda kinds: False,
    ) -> set[str]:
        """The kinds of use (a colour, fox, molehill) a marble still in hand could make
        in some order of uses that leaves the board as ``move`` does (``can_extend``),
        as far as the search goes before ``enough(kinds)``."""
        end, others = self._walk(state, self._checked(move))
        if end.won:
            return set()
        if sensor == "presence":
            pieces = end.moles | {end.hare, end.fox}

            def reads_as_end(node: _Node) -> bool:
                return node.moles | {node.hare, node.fox} == pieces

            def may_stay(use: Use, after: _Node) -> bool:
                return after.fox in pieces if use.kind == FOX else after.moles <= pieces
        else:
            pieces = end.moles | {end.fox}

            def reads_as_end(node: _Node) -> bool:
                return (node.hare, node.fox, node.moles) == (end.hare, end.fox, end.moles)

            def may_stay(use: Use, after: _Node) -> bool:
                return after.fox == end.fox if use.kind == FOX else after.moles <= end.moles

        layout, hand = self._in_turn(state)
        hare = state.hares[state.turn]
        turned = state.turned[state.turn]
        stack = [_Node(hare, state.fox, state.molehills, hand, turned, False)]
        seen = set()
        kinds = set()
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            if reads_as_end(node):
                kinds |= {use.kind for use, _ in self._transitions(node, others, layout) if use}
                if enough(kinds):
                    return kinds
            # a fox or molehill put where the end shows none would have to move again
            stack.extend(
                after
                for use, after in self._transitions(node, others, layout, within=pieces)
                if use is not None and (use.kind in COLOURS or may_stay(use, after))
            )
        return kinds

    def _apply(self, state: HakenschlagenState, move: Any) -> HakenschlagenState:
        node, _ = self._walk(state, self._checked(move))
        hare, fox, moles, _, turned, _ = node
        return self._ending(state, hare, fox, moles, turned)

    def _walk(self, state: HakenschlagenState, turn: Turn) -> tuple[_Node, frozenset[int]]:
        """The turn's end node (see ``_transitions``) and the other hares; raises
        ``IllegalMove`` where a use is impossible or a colour marble that had a target
        throughout goes unused."""
        layout, hand = self._in_turn(state)
        hare, others = self._hare_and_others(state)
        fox, moles, turned = state.fox, state.molehills, state.turned[state.turn]
        node = _Node(hare, fox, moles, hand, turned, False)
        idle = set()  # colours that offered no target at some moment of the turn
        won = False
        for use in turn.uses:
            if won:
                raise IllegalMove(
                    words(
                        "rules.hakenschlagen.race_won_before_nothing",
                        "{turn}: the race is won before {use}, and nothing follows: stop there",
                        turn=str(turn),
                        use=str(use),
                    )
                )
            targets = self._survey(*node[:3], others, layout).targets
            idle |= _idle_colours(node.hand, targets)
            if Counter(use.marbles) - Counter(node.hand):
                raise IllegalMove(
                    words(
                        "rules.hakenschlagen.needs_marbles_not_no_longer",
                        "{turn}: {use} needs marbles not (or no longer) in hand: use only the "
                        "marbles drawn",
                        turn=str(turn),
                        use=str(use),
                    )
                )
            step = self._taken(node, use, others, layout, targets)
            if step is None:
                raise IllegalMove(
                    words(
                        "rules.hakenschlagen.not_possible_here",
                        "{turn}: {use} is not possible here ({why}); put the figure back and "
                        "choose another place",
                        turn=str(turn),
                        use=str(use),
                        why=self._why(use, node),
                    )
                )
            node = step
            won = node.won
        idle |= _idle_colours(node.hand, self._survey(*node[:3], others, layout).targets)
        if not won:
            for marble in sorted(set(node.hand)):
                if marble in COLOURS and marble not in idle:
                    raise IllegalMove(
                        words(
                            "rules.hakenschlagen.marble_must_used_hare",
                            (
                                "{turn}: the {marble} marble must be used, as the hare can reach "
                                "a {marble} space: move the hare there"
                            ),
                            turn=str(turn),
                            marble=marble,
                        )
                    )
        return node, others

    def _ending(
        self, state: HakenschlagenState, hare: int, fox: int, moles: Spaces, turned: bool
    ) -> HakenschlagenState:
        """The position after the mover's turn ends with these figures; landing on a
        start space after turning is the win."""
        won = turned and hare in self.start_spaces
        hares = tuple(hare if s == state.turn else h for s, h in enumerate(state.hares))
        turned_all = tuple(turned if s == state.turn else t for s, t in enumerate(state.turned))
        return HakenschlagenState(
            state.layout,
            hares,
            turned_all,
            fox,
            moles,
            (state.turn + 1) % self.players,
            None,
            state.turn if won else None,
            state.turns + 1,
        )

    def _taken(
        self,
        node: _Node,
        use: Use,
        others: Spaces,
        layout: Layout,
        targets: dict[str, list[tuple[str, int]]],
    ) -> _Node | None:
        """The node after ``use`` from ``node`` (``targets`` its survey's), the one
        ``_transitions`` lists for it, or None when it is not possible there: told
        from that one use, not by listing every step."""
        hare, fox, moles, hand, turned, won = node
        if won or (use.marbles, use.kind) not in _uses(hand):
            return None
        index, kind = self.board.index, use.kind
        cell = index[use.to]
        left = _without(hand, use.marbles)
        if kind in COLOURS:
            if use.source is not None or all(c != cell for _, c in targets[kind]):
                return None
            return self._jump(cell, fox, moles, left, turned)
        source: int | None = fox
        if kind != FOX:
            source = None if use.source is None else index.get(use.source)
        if (kind == FOX and use.source is not None) or (
            (source, cell) not in self._placements_of(kind, node, others, layout)
        ):
            return None
        fox_after, moles_after = _placed(kind, source, cell, fox, moles)
        return _Node(hare, fox_after, moles_after, left, turned, False)

    def _jump(
        self, cell: int, fox: int, moles: Spaces, left: tuple[str, ...], turned: bool
    ) -> _Node:
        """The node after the hare jumps to ``cell``, ``left`` in hand: it has turned
        on a turning point, and wins on a start space once turned."""
        lands = turned and cell in self.start_spaces
        return _Node(cell, fox, moles, left, turned or cell in self.turning_points, lands)

    def _why(self, use: Use, node: _Node) -> Words:
        if use.kind in COLOURS:
            return words(
                "rules.hakenschlagen.no_straight_jump_lands",
                "no straight jump from {cell} lands on {to} with {kind}",
                cell=self._names[node.hare],
                to=use.to,
                kind=use.kind,
            )
        if use.kind == MOLEHILL and use.source is None and len(node.moles) == MOLEHILLS:
            return words(
                "rules.hakenschlagen.all_six_molehills_out",
                "all six molehills are out; move one: molehill:<from>-<to>",
            )
        if use.kind == MOLEHILL and use.source is not None and len(node.moles) < MOLEHILLS:
            return words(
                "rules.hakenschlagen.molehills_left_beside_board",
                "molehills are left beside the board; place one instead of moving one",
            )
        return words(
            "rules.hakenschlagen.may_not_go",
            "the {kind} may not go to {to}",
            kind=use.kind,
            to=use.to,
        )

    def _checked(self, move: Any) -> Turn:
        """``move`` as a well-formed ``Turn``; ``IllegalMove`` for anything else."""
        if not isinstance(move, Turn):
            raise IllegalMove(
                words(
                    "rules.hakenschlagen.not_hakenschlagen_turn",
                    "{move} is not a Hakenschlagen turn: write each use as marble:cell",
                    move=repr(move),
                )
            )
        try:
            text = str(move)
        except (TypeError, AttributeError):
            raise IllegalMove(
                words(
                    "rules.hakenschlagen.not_well_formed_turn",
                    "{move} is not a well-formed turn: write each use as marble:cell",
                    move=repr(move),
                )
            ) from None
        parsed = self._parse(text)
        if parsed != move:
            raise IllegalMove(
                words(
                    "rules.hakenschlagen.not_well_formed_turn",
                    "{move} is not a well-formed turn: write each use as marble:cell",
                    move=repr(move),
                )
            )
        return parsed

    def _parse(self, text: str) -> Turn:
        if not isinstance(text, str):
            raise NotationError(
                words(
                    "rules.hakenschlagen.turn_is_text",
                    "a turn is text like 'lettuce:c5 fox:m3', not {kind}: write it so",
                    kind=type(text).__name__,
                )
            )
        parts = text.strip().lower().split()
        if parts == ["pass"]:
            return Turn(())
        if not parts:
            raise NotationError(
                words(
                    "rules.hakenschlagen.empty_turn_written_pass",
                    "an empty turn is written 'pass': write pass",
                )
            )
        return Turn(tuple(self._parse_use(word) for word in parts))

    def _parse_use(self, word: str) -> Use:
        match = USE.match(word)
        if not match:
            raise NotationError(
                words(
                    "rules.hakenschlagen.write_use_marble_cell",
                    (
                        "{word}: write a use as marble:cell, e.g. lettuce:c5, molehill:d4-f6, "
                        "field+field=carrot:e7"
                    ),
                    word=repr(word),
                )
            )
        first, second, kind, source, to = match.groups()
        marbles = (first,) if second is None else (first, second)
        kind = kind or first
        for name in (*marbles, kind):
            if name not in MARBLES:
                raise NotationError(
                    words(
                        "rules.hakenschlagen.no_marble",
                        "{word}: no {name} marble ({marbles}): use a marble in hand",
                        word=repr(word),
                        name=repr(name),
                        marbles=", ".join(MARBLES),
                    )
                )
        if second is not None and (first != second or kind == first):
            raise NotationError(
                words(
                    "rules.hakenschlagen.joker_two_marbles_one",
                    "{word}: a joker is two marbles of one kind used as another: use two alike "
                    "marbles",
                    word=repr(word),
                )
            )
        for cell_id in (source, to):
            if cell_id is not None and cell_id not in self.board.index:
                raise NotationError(
                    words(
                        "rules.hakenschlagen.there_no_hollow_board",
                        "{word}: there is no hollow {cell_id} on this board: name a hollow of the "
                        "board",
                        word=repr(word),
                        cell_id=repr(cell_id),
                    )
                )
        if source is not None and kind != MOLEHILL:
            raise NotationError(
                words(
                    "rules.hakenschlagen.only_molehill_moved_one",
                    "{word}: only a molehill is moved from one space to another: move a molehill "
                    "or place the figure",
                    word=repr(word),
                )
            )
        return Use(marbles, kind, to, source)

    # --- the end --------------------------------------------------------------------

    def outcome(self, state: HakenschlagenState) -> Outcome | None:
        self._require_state(state)
        if state.winner is None:
            return None
        cell = self._names[state.hares[state.winner]]
        return Outcome(
            (state.winner,),
            words(
                "rules.hakenschlagen.hare_turned_reached_start",
                "the {seat} hare turned and reached the start space {cell}",
                seat=self.seat_words(state.winner),
                cell=cell,
            ),
        )

    # --- what sensors see, and records ------------------------------------------------

    def observe(self, state: HakenschlagenState) -> dict[str, str | None]:
        """The figure on top of each hollow, else its disk or tree, else None."""
        self._require_state(state)
        tokens = self._figures(state)
        if state.layout is not None:
            for i, kind in enumerate(state.layout):
                name = self._names[i]
                if tokens[name] is None and kind != FIELD:
                    tokens[name] = kind
        return tokens

    def _figures(self, state: HakenschlagenState) -> dict[str, str | None]:
        tokens: dict[str, str | None] = dict.fromkeys(self._names)
        for i in state.molehills:
            tokens[self._names[i]] = MOLEHILL
        tokens[self._names[state.fox]] = FOX
        for seat, i in enumerate(state.hares):
            tokens[self._names[i]] = f"hare_{self.hare_colours[seat]}"
        return tokens

    def stacks(self, state: HakenschlagenState) -> dict[str, tuple[str, ...]]:
        """The figures a hand lifts; disks and trees are part of the board."""
        self._require_state(state)
        return {cell: (token,) for cell, token in self._figures(state).items() if token}

    def supply(self, state: HakenschlagenState) -> dict[str, int]:
        """The molehills not yet on the board."""
        self._require_state(state)
        return {MOLEHILL: MOLEHILLS - len(state.molehills)}

    def sense(self, state: HakenschlagenState, sensor: str) -> dict[str, str | None]:
        """Hall sensors feel the magnets in the figures only, never disks or trees."""
        if sensor == "presence":
            self._require_state(state)
            return {c: None if t is None else PIECE for c, t in self._figures(state).items()}
        return super().sense(state, sensor)

    def render(self, state: HakenschlagenState) -> str:
        """The board as text: hares by seat number, F fox, m molehill, T tree, disks
        by initial (d, l, c)."""
        letters = {FOX: "F", MOLEHILL: "m", TREE: "T", DANDELION: "d", LETTUCE: "l", CARROT: "c"}
        symbols = {}
        for cell, token in self.observe(state).items():
            if token is None:
                continue
            if token.startswith("hare_"):
                symbols[cell] = str(self.hare_colours.index(token[5:]))
            else:
                symbols[cell] = letters[token]
        return self.board.render(symbols)

    def _state_to_json(self, state: HakenschlagenState) -> dict:
        names = self._names
        layout = None
        if state.layout is not None:
            layout = {
                kind: [names[i] for i, k in enumerate(state.layout) if k == kind]
                for kind in (TREE, *DISKS)
            }
        return {
            "layout": layout,
            "hares": [names[i] for i in state.hares],
            "turned": list(state.turned),
            "fox": names[state.fox],
            "molehills": sorted(names[i] for i in state.molehills),
            "turn": state.turn,
            "hand": None if state.hand is None else list(state.hand),
            "winner": state.winner,
            "turns": state.turns,
        }

    def _check_figures(
        self, layout: Layout | None, hares: list[int], fox: int, molehills: list[int]
    ) -> None:
        """A record's figures stand where the rules let them: one to a hollow, never on a
        tree, the fox and the molehills on inner spaces, molehills on fields."""
        figures = [*hares, fox, *molehills]
        if len(set(figures)) != len(figures):
            raise RecordError(
                words("rules.hakenschlagen.two_figures_share_hollow", "two figures share a hollow")
            )
        if len(molehills) > MOLEHILLS:
            raise RecordError(
                words(
                    "rules.hakenschlagen.molehills_there",
                    "{count, plural, one {# molehill} other {# molehills}}; there are {molehills}",
                    count=len(molehills),
                    molehills=MOLEHILLS,
                )
            )
        if layout is not None and any(layout[i] == TREE for i in figures):
            raise RecordError(
                words("rules.hakenschlagen.figure_stands_tree", "a figure stands on a tree")
            )
        if fox not in self._inner or any(i not in self._inner for i in molehills):
            raise RecordError(
                words(
                    "rules.hakenschlagen.fox_molehills_never_stand",
                    "the fox and molehills never stand on start spaces or turning points",
                )
            )
        if layout is not None and any(layout[i] != FIELD for i in molehills):
            raise RecordError(
                words(
                    "rules.hakenschlagen.molehills_stand_field_spaces",
                    "molehills stand on field spaces only",
                )
            )

    def _state_from_json(self, data: Any) -> HakenschlagenState:
        if not isinstance(data, dict):
            raise RecordError(
                words(
                    "rules.hakenschlagen.hakenschlagen_state_json_object",
                    "a Hakenschlagen state is a JSON object",
                )
            )
        layout = None
        if data["layout"] is not None:
            try:
                layout = self.setup_from(data["layout"]).layout
            except SetupError as exc:
                raise RecordError(
                    words("rules.hakenschlagen.layout", "layout: {reason}", reason=exc.words)
                ) from None
        hares = self._cell_list(data["hares"], "hares")
        if len(hares) != self.players:
            raise RecordError(
                words(
                    "rules.hakenschlagen.hares_game",
                    "{count, plural, one {# hare} other {# hares}}; this game has {players}",
                    count=len(hares),
                    players=self.players,
                )
            )
        (fox,) = self._cell_list([data["fox"]], "fox")
        molehills = self._cell_list(data["molehills"], "molehills")
        turned = data["turned"]
        if (
            not isinstance(turned, list)
            or len(turned) != self.players
            or not all(isinstance(t, bool) for t in turned)
        ):
            raise RecordError(
                words(
                    "rules.hakenschlagen.turned_must_list_true",
                    "'turned' must list true/false for each hare",
                )
            )
        self._check_figures(layout, hares, fox, molehills)
        turn, turns, winner = data["turn"], data["turns"], data["winner"]
        for value, what in ((turn, "turn"), (turns, "turns")):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise RecordError(
                    words(
                        "rules.hakenschlagen.must_whole_number",
                        "{what} must be a whole number >= 0",
                        what=repr(what),
                    )
                )
        if turn >= self.players:
            raise RecordError(
                words(
                    "rules.hakenschlagen.turn_must_name_seat",
                    "'turn' must name a seat below {players}",
                    players=self.players,
                )
            )
        if winner is not None and (
            isinstance(winner, bool) or winner not in range(self.players) or layout is None
        ):
            raise RecordError(
                words(
                    "rules.hakenschlagen.winner_must_seat_once",
                    "'winner' must be a seat, once the board is set up",
                )
            )
        hand = data["hand"]
        if hand is not None:
            if layout is None or winner is not None:
                raise RecordError(
                    words(
                        "rules.hakenschlagen.hand_drawn_only_while",
                        "a hand is drawn only while the game is on",
                    )
                )
            if not isinstance(hand, list) or len(hand) not in (HAND, HAND_NEAR_FOX):
                raise RecordError(
                    words(
                        "rules.hakenschlagen.hand_must_list_marbles",
                        "'hand' must list the marbles drawn",
                    )
                )
            try:
                BAG.take(hand)
            except (RulesError, TypeError):
                raise RecordError(
                    words(
                        "rules.hakenschlagen.not_handful_bag",
                        "{hand} is not a handful from the bag",
                        hand=repr(hand),
                    )
                ) from None
            hand = tuple(sorted(hand))
        return HakenschlagenState(
            layout,
            tuple(hares),
            tuple(turned),
            fox,
            frozenset(molehills),
            turn,
            hand,
            winner,
            turns,
        )


#: what a use still open in a turn does, said as the action: every colour jumps the hare
_ACTION_OF = {FOX: FOX, MOLEHILL: MOLEHILL}
_ACTIONS = {
    FIELD: words("rules.hakenschlagen.jump_hare", "jump with your hare"),
    FOX: words("rules.hakenschlagen.move_fox", "move the fox"),
    MOLEHILL: words("rules.hakenschlagen.set_molehill", "set a molehill"),
    "molehill_moved": words("rules.hakenschlagen.move_molehill", "move a molehill"),
}


def _without(hand: tuple[str, ...], marbles: tuple[str, ...]) -> tuple[str, ...]:
    left = list(hand)
    for marble in marbles:
        left.remove(marble)
    return tuple(left)


def _live(hand: tuple[str, ...]) -> frozenset[str]:
    """The colours the hare may still jump to with ``hand`` (a joker gives any)."""
    if len(set(hand)) < len(hand):
        return frozenset(COLOURS)
    return frozenset(m for m in hand if m in COLOURS)


def _idle_colours(hand: tuple[str, ...], targets: dict) -> set[str]:
    """The colour marbles in ``hand`` that offer no target in ``targets`` (a survey's)."""
    return {m for m in set(hand) if m in COLOURS and not targets[m]}


def _last(lane: Sequence[int], cells: set[int]) -> int:
    """The index in ``lane`` of its last cell in ``cells``, or -1."""
    return max((k for k, c in enumerate(lane) if c in cells), default=-1)


def _placed(
    kind: str, source: int | None, cell: int, fox: int, moles: Spaces
) -> tuple[int, frozenset[int]]:
    """``(fox, molehills)`` after one placement."""
    if kind == FOX:
        return cell, moles
    return fox, (moles - {source} if source is not None else moles) | {cell}


def _no_end(n: int) -> tuple[Turn, HakenschlagenState]:
    raise IndexError(f"end {n}: a finished game has no ends to resolve")


def _source_name(kind: str, names: Sequence[str], source: int | None) -> str | None:
    return names[source] if kind == MOLEHILL and source is not None else None


# An end of a turn packed in one int: the hare's hollow (7 bits), the fox's (7 bits),
# whether the hare has turned (1 bit), then one bit per hollow with a molehill.
def _pack(hare: int, fox: int, mask: int, turned: bool) -> int:
    return hare | fox << 7 | turned << 14 | mask << 15


def _unpack(end: int) -> tuple[int, int, int, bool]:
    return end & 127, end >> 7 & 127, end >> 15, bool(end >> 14 & 1)


def _mask(moles: Iterable[int]) -> int:
    return reduce(or_, map((1).__lshift__, moles), 0)


def _cells(mask: int) -> frozenset[int]:
    """The cells of a few bits (the molehills): bit by bit."""
    cells = []
    while mask:
        low = mask & -mask
        cells.append(low.bit_length() - 1)
        mask ^= low
    return frozenset(cells)


def _ascending(mask: int) -> list[int]:
    """The cells whose bits ``mask`` holds, lowest first, read off its binary digits
    in C: for the many bits of open spaces (``_cells`` is quicker for a few)."""
    return list(compress(count(), map("1".__eq__, bin(mask)[:1:-1])))


def _lifted(mask: int, source: int | None) -> int:
    """The molehill mask with the one on ``source`` taken up (None: from the supply)."""
    return mask & ~(1 << source) if source is not None else mask


def _moved(mask: int, source: int | None, cell: int) -> int:
    """The molehill mask after placing one on ``cell`` (taken from ``source``)."""
    return _lifted(mask, source) | 1 << cell


def _molehill_sources(moles: Spaces) -> list[int | None]:
    """Where a molehill use takes its molehill from: the supply (None) while it
    holds one, else each molehill on the board."""
    if len(moles) < MOLEHILLS:
        return [None]
    return list[int | None](sorted(moles))


def _step(kind: str, fox: int, moles: Spaces, fox_end: int, mask_end: int) -> Placement | None:
    """The one placement of ``kind`` from ``(fox, moles)`` towards ``fox_end`` /
    ``mask_end``: ``(source, cell)``, or None when one step cannot do it."""
    if kind == FOX:
        return (fox, fox_end) if fox_end != fox else None
    mask = _mask(moles)
    added, removed = _cells(mask_end & ~mask), _cells(mask & ~mask_end)
    if len(added) != 1 or len(removed) > 1:
        return None
    return (next(iter(removed), None), next(iter(added)))


def _two_molehills(moles: Spaces, fields: list[int]) -> set[int]:
    """The molehill masks two molehill uses can leave, from ``moles`` with the free
    field spaces ``fields``. A use places one from the supply while
    there is one, else it moves one (perhaps the one just placed, or back)."""
    mask, supply = _mask(moles), MOLEHILLS - len(moles)
    if len(fields) < (2 if supply else 1):
        return set()
    # each set is filled in the same order as ever (its order is the turn's listing),
    # a whole list at a time with ``map`` in C
    pairs = list(starmap(or_, combinations(map((1).__lshift__, fields), 2)))
    if supply >= 2:
        return set(map(mask.__or__, pairs))
    # the first from the supply (or moved), the second moves one: net, one
    # molehill fewer than two new ones stays where it was
    singles = list(map((1).__lshift__, fields))
    if supply == 1:
        found = set(map(mask.__or__, singles))
        lifted = set[int]()
        for a in moles:
            lifted.update(map((mask & ~(1 << a)).__or__, pairs))
        return found | lifted
    found = {mask}
    for a in moles:
        found.update(map((mask & ~(1 << a)).__or__, singles))
    for a, b in combinations(sorted(moles), 2):
        found.update(map((mask & ~(1 << a | 1 << b)).__or__, pairs))
    return found


def _two_molehill_steps(moles: Spaces, end: int, fields: list[int]) -> list[tuple]:
    """``(source, cell)`` of two molehill uses from ``moles`` to the mask ``end``, one
    of those ``_two_molehills`` counts."""
    mask = _mask(moles)
    added, removed = sorted(_cells(end & ~mask)), sorted(_cells(mask & ~end))
    if MOLEHILLS - len(moles) >= 2:
        return [(None, added[0]), (None, added[1])]
    if len(moles) < MOLEHILLS:
        if removed:
            return [(None, added[0]), (removed[0], added[1])]
        spare = next(c for c in fields if c != added[0])
        return [(None, spare), (spare, added[0])]
    if len(added) == 2:
        return [(removed[0], added[0]), (removed[1], added[1])]
    if added:
        # another one goes to the new space first, then takes the old one's place
        other = min(moles - {removed[0]})
        return [(other, added[0]), (removed[0], other)]
    return [(min(moles), fields[0]), (fields[0], min(moles))]


#: a hollow's bit -> the hollow
_CELL_OF_BIT = {1 << cell: cell for cell in range(128)}


@lru_cache(maxsize=4096)
def _cells_of_bits(bits: int) -> tuple[int, ...]:
    """The cells whose bits ``bits`` holds, lowest first: a turn's rows share a few
    sets of fox spaces, so each set is spelt out once."""
    return tuple(_ascending(bits))


def _sensed_ends(
    found: _Found, rows: Rows, readers: list[tuple], fox_before: int, width: int
) -> tuple[SensedOutcomes, bytearray, array[int]]:
    """The ends of ``found`` as ``SensedOutcomes`` (in ``found``'s order) on
    ``rows``, each row's packed end (without the fox where the row is shared;
    ``width`` bytes each, not an int object each) and where each claim's ends start
    among them; one reading per reader ``(read, fox
    token, reading before)``, where ``read(sensor, hare, mask)`` appends a row's
    changes without the fox to ``rows`` and gives their cells (bits).

    An end's reading is its row's with the fox added, except where the fox lands
    on a cell the row changes or on its own space before the turn: those ends get
    rows of their own, read exactly."""
    refs = bytearray()
    ids: dict[int, int] = {}  # a row comes up in several claims
    touchy: list[int] = []  # per row id: the fox spaces whose ends read otherwise
    of_row, cells = array("i"), array("h")
    add_row, add_cell = of_row.append, cells.append
    tokens = tuple(token for _, token, _ in readers)
    starts = array("i")  # per claim: its first end's position
    for _, claimed in found.claims:
        starts.append(len(of_row))
        for row, bits in claimed.items():
            rid = ids.get(row)
            if rid is None:
                hare, mask = row & 127, row >> 15
                near = 1 << fox_before
                for s, (read, _, _) in enumerate(readers):
                    near |= read(s, hare, mask)
                rows.end()
                rid = ids[row] = len(touchy)
                refs += row.to_bytes(width, "little")
                touchy.append(near)
            near = touchy[rid]
            fox = _CELL_OF_BIT.get(bits)
            if fox is not None and not bits & near:  # most rows of a claim: one fox space
                add_row(rid)
                add_cell(fox)
                continue
            odd = bits & near
            while True:
                # the fox spaces up to the next that reads otherwise, a whole run at once
                low = odd & -odd
                run = _cells_of_bits(bits & (low - 1) if low else bits)
                of_row.extend(repeat(rid, len(run)))
                cells.extend(run)
                if not low:
                    break
                bits &= ~((low << 1) - 1)
                odd ^= low
                fox = low.bit_length() - 1
                add_row(len(touchy))
                add_cell(NO_CELL)
                same = tuple(token == before[fox] for _, token, before in readers)
                rows.add_with(rid, fox, tokens, same)
                refs += (row | fox << 7).to_bytes(width, "little")
                touchy.append(0)
    return SensedOutcomes(rows, tokens, of_row, cells), refs, starts


def _row(end: int) -> int:
    """A packed end without its fox."""
    return end & ~(127 << 7)


@cache
def _uses(hand: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], str], ...]:
    """``(marbles, kind)`` for each way to spend part of ``hand`` once."""
    counts = Counter(hand)
    found: list[tuple[tuple[str, ...], str]] = []
    for marble in sorted(counts):
        found.append(((marble,), marble))
        if counts[marble] >= 2:
            found.extend(((marble, marble), kind) for kind in MARBLES if kind != marble)
    return tuple(found)


@cache
def _placement_plans(hand: tuple[str, ...]) -> tuple[tuple[tuple, tuple[str, ...]], ...]:
    """``(chosen, colours left)`` for each set of at most two placements (fox,
    molehill, or a joker for one) that ``hand`` can make, with the colour marbles
    it leaves."""
    placing = [(m, k) for m, k in _uses(hand) if k in PLACING]
    options: list[tuple] = [()]
    for n, first in enumerate(placing):
        options.append((first,))
        for second in placing[n + 1 :]:
            if not Counter(first[0]) + Counter(second[0]) - Counter(hand):
                options.append((first, second))
    plans = []
    for chosen in options:
        left = Counter(hand) - sum((Counter(m) for m, _ in chosen), Counter())
        plans.append((chosen, tuple(m for m in left if m in COLOURS)))
    return tuple(plans)


@cache
def _placement_pairs(hand: tuple[str, ...]) -> tuple[tuple, ...]:
    """``(first marbles, first kind, live after it, second marbles, second kind,
    live after both)`` for two placements of different kinds from ``hand`` that
    leave a colour to jump with."""
    placing = [(m, k) for m, k in _uses(hand) if k in PLACING]
    pairs = []
    for first_marbles, first in placing:
        left = _without(hand, first_marbles)
        for second_marbles, second in placing:
            if second == first or Counter(second_marbles) - Counter(left):
                continue
            live = _live(_without(left, second_marbles))
            if live:
                pairs.append((first_marbles, first, _live(left), second_marbles, second, live))
    return tuple(pairs)
