"""Hägar: Auf zu neuen Ufern! -- coasters laid edge to edge on the table. The coaster
pile and the die are virtual.

A turn: the seat draws a coaster from the pile (chance), lays it (a ``Placement``),
then puts one own token on a free field of it (a ``TokenPlacement``) while it has
tokens. After the last coaster the starting player rolls the die (chance); then,
from the seat after the starting player round to the starting player, each seat may
move one own Hägar (``a-b`` or ``pass``). The game then scores. This module decides
the rules only; it never draws chance itself and reads nothing but its packaged data
files.

The table (``engines/boards/haegar.toml``) is a grid of fields around the first
coaster, on spot ``n0e0``; spot ``n2w1`` is two coasters north and one west of it and
its fields are ``n2w1_nw`` ... ``n2w1_se``. The same file's ``[[game.coaster]]``
tables are the 12 coasters (our reconstruction; owners correct it).

Readings of the rule book this engine follows:

- Laying: a coaster lies whole edge on whole edge beside a laid one; the first lies on
  ``n0e0``. It must put at least one field against a field of the same landscape
  across a shared edge; only when no spot and allowed facing of the coaster in hand
  does that may it go on any spot touching the others.
- A coaster turns freely; a beer coaster has the one facing that points its glass at
  the side of the table where the seat sits (option ``seats``, else the table file's
  default: south; south, north; south, west, north). The fallback above counts only
  that facing.
- Tokens: 4 Hägars each (3 each with 3 players) and 1 gold. After laying, the seat
  must place one token (Hägar or gold, its choice) on a field of that coaster without
  a skull; a seat with no tokens left, or a coaster with no such field, skips this.
  Water takes tokens too. A gold token belongs to nobody once placed.
- The die: the field showing the rolled number doubles its whole row (arrow "row") or
  column of fields across the table, gaps included, after the coaster's turn. A
  number on no laid coaster (the solo game leaves 3 out) doubles nothing; a number on
  two fields doubles both lines; a token in both still counts twice, not four times.
- Final round: a seat may move one own Hägar to any free, skull-free field of the same
  landscape kind anywhere on the table, or pass. Gold tokens stay.
- Scoring, per landscape (fields of one kind joined along rows and columns) holding a
  Hägar: every seat with a Hägar there scores its gold (printed and tokens; doubled
  gold 2). If a shield touches it, the seat with strictly the most Hägars (doubled ones
  count 2) also scores 1 per field. Most points wins; equal scores all win.
- Solo: 9 coasters from the 12, 4 Hägars and 1 gold; the outcome names the rank.
- A skull field belongs to its landscape like any other field: it joins fields into
  one landscape and counts for its size (dominion scores 1 per field, skulls
  included); the book only forbids tokens on it.
- Who starts is decided at the table (the book: whoever rolls highest); option
  ``first_seat`` names that seat. The starting player lays the first coaster, rolls
  the die at the end and acts last in the final round. ``drawer(state)`` is the seat
  that draws the coaster or rolls the die.

Options:

- ``honky_tonk`` (False): a beer coaster laid in the same row or column of coasters as
  an earlier beer coaster is still legal, but the seat owes the winner a beer unless
  it wins itself; ``beers_owed(state)`` and the outcome's reason say who owes.
- ``seats`` (None): the table sides of the seats in turn order, e.g. "south,east".
- ``first_seat`` (0): the starting player's seat.

>>> from engines import load_game
>>> game = load_game("haegar", players=2)
>>> state = game.resolve(game.initial_state(), "c02")
>>> [str(m) for m in game.legal_moves(state)]
['c02 n0e0 north', 'c02 n0e0 east', 'c02 n0e0 south', 'c02 n0e0 west']
>>> state = game.apply(state, game.parse_move(state, "c02 n0e0 north"))
>>> [str(m) for m in game.legal_moves(state)][:3]
['hagar n0e0_sw', 'gold n0e0_sw', 'hagar n0e0_se']
>>> state = game.apply(state, game.parse_move(state, "hagar n0e0_nw"))
>>> game.observe(state)["n0e0_nw"], game.to_move(state)
('c02_nw+blue', None)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import cache
from typing import Any

from engines.chance import Die, TileDraw
from engines.coasters import ARROWS, CORNERS, SIDES, Coaster, Field, parse_coasters
from engines.core import (
    FIRST_SEAT,
    PASS,
    Game,
    Move,
    Option,
    Outcome,
    colour_words,
    drawn_from,
    joined,
    parse_path,
)
from engines.errors import (
    BoardFileError,
    IllegalMove,
    NotationError,
    OptionError,
    RecordError,
    RulesError,
)
from engines.geometry import Board
from engines.words import Words, words

DRAW, PLACE, TOKEN, DIE, FINAL, OVER = "draw", "place", "token", "die", "final", "over"
PHASES = (DRAW, PLACE, TOKEN, DIE, FINAL, OVER)
HAGAR, GOLD = "hagar", "gold"
#: the seat number a gold token carries in ``HaegarState.tokens``
GOLD_TOKEN = -1
HAGARS_PER_SEAT = {1: 4, 2: 4, 3: 3}
#: the die rolled after the last coaster
ROLL = Die(6)
SOLO_COASTERS = 9
#: the solo game's ranks: (most points for the title, title); the last has no limit
SOLO_RANKS = (
    (15, words("rules.haegar.rank_simple_drunkard", "simple drunkard")),
    (20, words("rules.haegar.rank_lower_sailor", "lower sailor")),
    (25, words("rules.haegar.rank_higher_chief", "higher chief")),
    (None, words("rules.haegar.rank_legendary_conqueror", "legendary conqueror")),
)
#: one coaster step in each of SIDES
STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0))
#: the corners along each side of a coaster, ordered so that they face the corners
#: of the opposite side of the neighbour across that edge
#: the quarter turns (ascending) whose bits are set in each number below 16
TURNS_OF_BITS = tuple(tuple(turn for turn in range(4) if bits >> turn & 1) for bits in range(16))
EDGE_CORNERS = (("nw", "ne"), ("se", "ne"), ("sw", "se"), ("sw", "nw"))


@dataclass(frozen=True)
class Laid:
    """A coaster on the table: its id, spot (coaster column, row) and quarter turns."""

    coaster: str
    spot: tuple[int, int]
    turn: int


@dataclass(frozen=True)
class HaegarState:
    """The table and the supplies. ``laid[k]`` was laid by seat ``seat_after(k)``;
    ``tokens`` is sorted ``(field cell index, seat or GOLD_TOKEN)``; ``supply[seat]``
    is (Hägars, gold) still in front of the seat; ``beers`` lists the seat of every
    honky-tonk offence; ``finals_left`` counts the seats still to act in the final
    round; ``ply`` counts moves (chance draws excluded). ``open_spots`` is derived
    from ``laid`` (``HaegarGame.open_spots``), kept as coasters are laid so that a
    placement need not search the table; None until first worked out."""

    phase: str
    turn: int
    pile: tuple[str, ...]
    supply: tuple[tuple[int, int], ...]
    laid: tuple[Laid, ...] = ()
    hand: str | None = None
    tokens: tuple[tuple[int, int], ...] = ()
    die: int | None = None
    finals_left: int = 0
    beers: tuple[int, ...] = ()
    ply: int = 0
    open_spots: dict[tuple[int, int], tuple[tuple[int, tuple], ...]] | None = dataclass_field(
        default=None, compare=False, repr=False
    )


def _changed(state: HaegarState, **changes: Any) -> HaegarState:
    """``state`` with ``changes``: ``dataclasses.replace`` without its checks, which
    cost a random playout a fifth of its time."""
    return HaegarState(**{**state.__dict__, **changes})


@dataclass(frozen=True)
class Placement:
    """Lay ``coaster`` on ``spot`` with its printed top edge facing ``facing``."""

    coaster: str
    spot: str
    facing: str

    def __str__(self) -> str:
        return f"{self.coaster} {self.spot} {self.facing}"


@dataclass(frozen=True)
class TokenPlacement:
    """Put a token (``hagar`` or ``gold``) from the seat's supply on ``field``."""

    token: str
    field: str

    def __str__(self) -> str:
        return f"{self.token} {self.field}"


@dataclass(frozen=True)
class Landscape:
    """One scored landscape: its kind, fields, gold and shield, the Hägar count of each
    seat (doubled ones twice), the conqueror (or None) and each seat's points."""

    kind: str
    fields: tuple[str, ...]
    shield: bool
    gold: int
    hagars: tuple[int, ...]
    conqueror: int | None
    gold_points: tuple[int, ...]
    dominion_points: tuple[int, ...]


def solo_rank(points: int) -> str:
    """The solo game's title for ``points``, from the rule book's table."""
    return str(solo_rank_words(points))


def solo_rank_words(points: int) -> Words:
    """``solo_rank`` as ``Words``, for a page to translate."""
    return next(title for most, title in SOLO_RANKS if most is None or points <= most)


class Haegar(Game[HaegarState]):
    name = "haegar"
    player_counts = (1, 2, 3)
    default_players = 2
    state_type = HaegarState
    OPTIONS = (
        Option("honky_tonk", False, "a beer coaster in line with another costs a beer"),
        Option("seats", None, "table sides of the seats in turn order, e.g. 'south,north'", str),
        FIRST_SEAT,
    )
    # coasters lie on a bare table: a camera sees them, or players tap the panel
    SENSORS = ("camera", "panel")

    def __init__(self, players: int | None = None, **options: Any) -> None:
        super().__init__(players, **options)
        setup = self.board.game
        source = f"engines/boards/{self.board.name}.toml"
        try:
            self.coasters: dict[str, Coaster] = parse_coasters(setup["coaster"], source)
            pitch = float(setup["field_mm"])
            colours = tuple(setup["colours"])
            default_sides = tuple(setup["sides"][str(self.players)])
            centre = setup["centre"]
        except (KeyError, TypeError, ValueError) as exc:
            raise BoardFileError(
                f"{source}: [game] needs field_mm, colours, centre, sides "
                f"for {self.players} players and [[game.coaster]] ({exc!r})"
            ) from None
        if len(set(colours)) < max(self.player_counts) or GOLD in colours:
            raise BoardFileError(f"{source}: [game] colours needs 3 different colours, not gold")
        self.colours = colours[: self.players]
        self._names = tuple(cell.id for cell in self.board.cells)
        grid = _table_grid(self.board, pitch, centre, len(self.coasters) - 1, source)
        self._field_at, self._xy = grid.field_at, grid.xy
        #: per field cell, the field cells beside it along rows and columns
        self._beside = tuple(
            tuple(
                grid.field_at[(x + dx, y + dy)]
                for dx, dy in STEPS
                if (x + dx, y + dy) in grid.field_at
            )
            for x, y in grid.xy
        )
        self._spot_name, self._spot_of, self._centre = grid.spot_name, grid.spot_of, grid.centre
        self.sides = self._seat_sides(default_sides, source)
        self.coasters_in_play = SOLO_COASTERS if self.players == 1 else len(self.coasters)
        self._edges = {
            (c.id, turn): tuple(
                tuple(self._corner_field(c, turn, corner).landscape for corner in corners)
                for corners in EDGE_CORNERS
            )
            for c in self.coasters.values()
            for turn in range(4)
        }
        #: ``_turns_meeting`` worked out so far (coasters x sides x edges, bounded)
        self._meeting: dict[tuple[str, int, tuple], int] = {}
        #: ``_coaster_fields`` of every coaster laid so far (a few hundred at most)
        self._laid_fields: dict[Laid, tuple[tuple[int, Field], ...]] = {}

    def _seat_sides(self, default: tuple[str, ...], source: str) -> tuple[int, ...]:
        seats = self.options["seats"]
        sides = default if seats is None else tuple(s.strip() for s in seats.split(","))
        if seats is None:
            where = f"{source}: [game.sides]"
            if len(sides) != self.players or len(set(sides)) != len(sides):
                raise BoardFileError(f"{where} must name {self.players} different table sides")
            for side in sides:
                if side not in SIDES:
                    raise BoardFileError(f"{where}: {side!r} is not one of {', '.join(SIDES)}")
        elif len(sides) != self.players or len(set(sides)) != len(sides):
            raise OptionError(
                words(
                    "rules.haegar.seats_different_sides",
                    "haegar: option seats must name {players, plural, one {# table side} other {# "
                    "different table sides}}",
                    players=self.players,
                )
            )
        elif any(side not in SIDES for side in sides):
            raise OptionError(
                words(
                    "rules.haegar.seats_unknown_side",
                    "haegar: option seats: {side} is not one of {sides}",
                    side=repr(next(side for side in sides if side not in SIDES)),
                    sides=", ".join(SIDES),
                )
            )
        return tuple(SIDES.index(side) for side in sides)

    def seat_words(self, seat: int) -> Words:
        return colour_words(self.colours[seat])

    def seat_after(self, k: int) -> int:
        """The seat ``k`` turns after the starting player: the one that lays coaster
        ``k`` (0 first), and in the final round the one that acts ``k``-th after the
        starting player's roll."""
        return (int(self.options["first_seat"]) + k) % self.players

    # --- the start, chance and whose turn -----------------------------------------

    def initial_state(self) -> HaegarState:
        hagars = HAGARS_PER_SEAT[self.players]
        return HaegarState(
            DRAW, self.seat_after(0), tuple(sorted(self.coasters)), ((hagars, 1),) * self.players
        )

    def chance(self, state: HaegarState) -> TileDraw | Die | None:
        self._require_state(state)
        if state.phase == DRAW:
            return TileDraw(state.pile)
        if state.phase == DIE:
            return ROLL
        return None

    def resolve(self, state: HaegarState, outcome: Any) -> HaegarState:
        self._require_state(state)
        if state.phase == DRAW:
            if outcome not in state.pile:
                raise RulesError(
                    words(
                        "rules.haegar.not_coaster_pile",
                        "{outcome} is not a coaster in the pile",
                        outcome=repr(outcome),
                    )
                )
            pile = list(state.pile)
            pile.remove(outcome)
            return _changed(state, phase=PLACE, pile=tuple(pile), hand=outcome)
        if state.phase == DIE:
            if not _is_count(outcome) or outcome not in range(1, 7):
                raise RulesError(
                    words(
                        "rules.haegar.die_shows_not",
                        "a die shows 1 to 6, not {outcome}",
                        outcome=repr(outcome),
                    )
                )
            return _changed(
                state,
                phase=FINAL,
                die=outcome,
                turn=self.seat_after(1),
                finals_left=self.players,
            )
        raise RulesError(
            words("rules.haegar.haegar_no_chance_event", "haegar has no chance event pending")
        )

    def _to_move(self, state: HaegarState) -> int:
        return state.turn

    def drawer(self, state: HaegarState) -> int | None:
        """The seat in turn draws the coaster; the starting player rolls the die."""
        return state.turn if self.chance(state) is not None else None

    # --- laying coasters -----------------------------------------------------------

    def placements(self, state: HaegarState) -> list[Placement]:
        """Every legal spot and facing for the coaster in hand ([] when none is):
        what the panel offers while the camera cannot see the table."""
        self._require_state(state)
        if state.phase != PLACE or state.hand is None:
            return []
        coaster = self.coasters[state.hand]
        return [
            Placement(coaster.id, self._spot_name[spot], SIDES[turn])
            for spot, turn in self._spots_and_turns(
                state.laid, coaster, state.turn, self.open_spots(state)
            )
        ]

    def _allowed_turns(self, coaster: Coaster, seat: int) -> tuple[int, ...]:
        beer_turn = coaster.beer_turn(self.sides[seat])
        return tuple(range(4)) if beer_turn is None else (beer_turn,)

    def _spots_and_turns(
        self,
        laid: tuple[Laid, ...],
        coaster: Coaster,
        seat: int,
        spots: dict[tuple[int, int], tuple[tuple[int, tuple], ...]] | None = None,
    ) -> list[tuple[tuple[int, int], int]]:
        """Legal (spot, turn) pairs: those meeting a like landscape, else all touching;
        ``spots`` are ``laid``'s open spots when known (``open_spots``)."""
        turns = self._allowed_turns(coaster, seat)
        if not laid:
            return [(self._centre, turn) for turn in turns]
        if spots is None:
            spots = self._spots_opened(laid)
        ordered = sorted(spots)
        allowed = sum(1 << turn for turn in turns)
        known, matching = self._meeting, []
        for spot in ordered:
            # the neighbours' edges once per spot, not once per turn tried there
            meeting = 0
            for side, edge in spots[spot]:
                bits = known.get((coaster.id, side, edge))
                meeting |= self._turns_meeting(coaster.id, side, edge) if bits is None else bits
            for turn in TURNS_OF_BITS[meeting & allowed]:
                matching.append((spot, turn))
        return matching or [(spot, turn) for spot in ordered for turn in turns]

    def open_spots(
        self, state: HaegarState
    ) -> dict[tuple[int, int], tuple[tuple[int, tuple], ...]]:
        """The free spots sharing an edge with a laid coaster, each with
        ``(side of the spot, landscapes of the laid edge facing it)`` per laid neighbour."""
        if state.open_spots is not None:
            return state.open_spots
        return self._spots_opened(state.laid) if state.laid else {}

    def _spots_opened(
        self, laid: tuple[Laid, ...], spots: dict | None = None
    ) -> dict[tuple[int, int], tuple[tuple[int, tuple], ...]]:
        """``open_spots`` of ``laid``, from those of ``laid`` but its last coaster when
        ``spots`` gives them, else coaster by coaster."""
        if spots is None:
            spots = {}
            for count in range(1, len(laid)):
                spots = self._spots_opened(laid[:count], spots)
        last = laid[-1]
        taken = {one.spot for one in laid}
        edges = self._edges[(last.coaster, last.turn)]
        spots = dict(spots)
        spots.pop(last.spot, None)
        for side, (dx, dy) in enumerate(STEPS):
            near = (last.spot[0] + dx, last.spot[1] + dy)
            if near in self._spot_name and near not in taken:
                # seen from ``near``, the new coaster lies across its opposite side
                spots[near] = spots.get(near, ()) + (((side + 2) % 4, edges[side]),)
        return spots

    def _turns_meeting(self, coaster: str, side: int, edge: tuple) -> int:
        """The turns (bit ``1 << turn``) at which ``coaster``'s edge on ``side`` shares
        a landscape with a neighbour's facing ``edge``; worked out once per triple."""
        key = (coaster, side, edge)
        turns = self._meeting.get(key)
        if turns is None:
            turns = self._meeting[key] = sum(
                1 << turn
                for turn in range(4)
                if self._edges[(coaster, turn)][side][0] == edge[0]
                or self._edges[(coaster, turn)][side][1] == edge[1]
            )
        return turns

    def _placement_problem(
        self, laid: tuple[Laid, ...], coaster: Coaster, seat: int, spot: tuple[int, int], turn: int
    ) -> Words | None:
        """Why laying ``coaster`` at ``spot``/``turn`` is illegal, or None if it is legal."""
        turns = self._allowed_turns(coaster, seat)
        if turn not in turns:
            side = SIDES[self.sides[seat]]
            return words(
                "rules.haegar.beer_coaster_glass_must",
                (
                    "{cell} is a beer coaster: its glass must point {side} at {seat}, so turn it "
                    "to face {facing}"
                ),
                cell=coaster.id,
                side=side,
                seat=self.seat_words(seat),
                facing=SIDES[turns[0]],
            )
        if not laid:
            centre = self._spot_name[self._centre]
            if spot == self._centre:
                return None
            return words(
                "rules.haegar.first_coaster_in_middle",
                "the first coaster lies in the middle, {centre}",
                centre=centre,
            )
        occupied = {other.spot: other for other in laid}
        if spot in occupied:
            return words(
                "rules.haegar.already_holds",
                "{spot} already holds {coaster}: lay the coaster on a free spot",
                spot=self._spot_name[spot],
                coaster=occupied[spot].coaster,
            )
        spots = self._spots_opened(laid)
        if spot not in spots:
            return words(
                "rules.haegar.does_not_share_edge_laid",
                "{spot} does not share an edge with a laid coaster: lay the coaster beside one",
                spot=self._spot_name[spot],
            )
        if any(self._turns_meeting(coaster.id, *it) >> turn & 1 for it in spots[spot]):
            return None
        legal = self._spots_and_turns(laid, coaster, seat, spots)
        if (spot, turn) in legal:
            return None  # nothing matches anywhere: the fallback allows any touching spot
        name, facing = self._spot_name[legal[0][0]], SIDES[legal[0][1]]
        return words(
            "rules.haegar.no_field_meets_field",
            (
                "no field of {cell} meets a field of its own landscape there, and it can "
                "elsewhere (e.g. {name} {facing}): lay it where a landscape goes on"
            ),
            cell=coaster.id,
            name=name,
            facing=facing,
        )

    def _lay(self, state: HaegarState, move: Placement) -> HaegarState:
        if move.coaster != state.hand:
            raise IllegalMove(
                words(
                    "rules.haegar.coaster_hand",
                    "the coaster in hand is {hand}: lay that one",
                    hand=state.hand,
                ),
                move=str(move),
            )
        if not isinstance(move.spot, str) or move.spot not in self._spot_of:
            raise IllegalMove(
                words(
                    "rules.haegar.there_no_spot_table",
                    "there is no spot {spot} on the table grid: lay the coaster on the grid",
                    spot=repr(move.spot),
                ),
                move=str(move),
            )
        if move.facing not in SIDES:
            raise IllegalMove(
                words(
                    "rules.haegar.coaster_faces",
                    "a coaster faces {sides}: turn it to one of them",
                    sides=", ".join(SIDES),
                ),
                move=str(move),
            )
        spot, turn = self._spot_of[move.spot], SIDES.index(move.facing)
        coaster = self.coasters[move.coaster]
        problem = self._placement_problem(state.laid, coaster, state.turn, spot, turn)
        if problem is not None:
            raise IllegalMove(
                words(
                    "rules.haegar.placement_refused",
                    "{move}: {problem}",
                    move=str(move),
                    problem=problem,
                )
            )
        return self._laid(state, coaster, spot, turn)

    def _laid(
        self, state: HaegarState, coaster: Coaster, spot: tuple[int, int], turn: int
    ) -> HaegarState:
        """The state after a placement already known to be legal."""
        beers = state.beers
        if self.options["honky_tonk"] and self._in_line_with_beer(state.laid, coaster, spot):
            beers = beers + (state.turn,)
        laid = state.laid + (Laid(coaster.id, spot, turn),)
        spots = self._spots_opened(laid, self.open_spots(state))
        after = _changed(
            state, laid=laid, hand=None, beers=beers, ply=state.ply + 1, open_spots=spots
        )
        if self._token_moves(after, state.turn):
            return _changed(after, phase=TOKEN)
        return self._end_turn(after)

    def _in_line_with_beer(
        self, laid: Iterable[Laid], coaster: Coaster, spot: tuple[int, int]
    ) -> bool:
        return coaster.beer is not None and any(
            self.coasters[other.coaster].beer is not None
            and (other.spot[0] == spot[0] or other.spot[1] == spot[1])
            for other in laid
        )

    def _end_turn(self, state: HaegarState) -> HaegarState:
        if len(state.laid) == self.coasters_in_play:
            return _changed(state, phase=DIE, turn=self.seat_after(0))
        return _changed(state, phase=DRAW, turn=(state.turn + 1) % self.players)

    # --- tokens ----------------------------------------------------------------------

    def _token_moves(self, state: HaegarState, seat: int) -> list[TokenPlacement]:
        kinds, free = self._token_choice(state.laid, dict(state.tokens), state.supply[seat])
        return [TokenPlacement(kind, self._names[index]) for index in free for kind in kinds]

    def _token_choice(
        self, laid: tuple[Laid, ...], tokens: dict[int, int], supply: Iterable[int]
    ) -> tuple[tuple[str, ...], list[int]]:
        """The kinds of token a seat with ``supply`` (Hägars, gold) may place, and the
        free skull-free fields of the coaster laid last (none if no kind is left)."""
        hagars, gold = supply
        kinds = ((HAGAR,) if hagars else ()) + ((GOLD,) if gold else ())
        if not kinds:
            return kinds, []
        return kinds, [
            index
            for index, field in self._coaster_fields(laid[-1])
            if not field.skull and index not in tokens
        ]

    def _place_token(self, state: HaegarState, move: TokenPlacement) -> HaegarState:
        seat = state.turn
        if move not in self._token_moves(state, seat):
            raise IllegalMove(
                words(
                    "rules.haegar.token_refused",
                    "{move}: {problem}",
                    move=str(move),
                    problem=self._token_problem(state, move),
                )
            )
        return self._token_placed(state, move)

    def _token_placed(self, state: HaegarState, move: TokenPlacement) -> HaegarState:
        """The state after a token placement already known to be legal."""
        seat = state.turn
        index = self.board.index[move.field]
        hagars, gold = state.supply[seat]
        if move.token == HAGAR:
            piece, left = seat, (hagars - 1, gold)
        else:
            piece, left = GOLD_TOKEN, (hagars, gold - 1)
        supply = state.supply[:seat] + (left,) + state.supply[seat + 1 :]
        tokens = tuple(sorted(state.tokens + ((index, piece),)))
        return self._end_turn(_changed(state, tokens=tokens, supply=supply, ply=state.ply + 1))

    def _token_problem(self, state: HaegarState, move: TokenPlacement) -> Words:
        seat = state.turn
        hagars, gold = state.supply[seat]
        if move.token not in (HAGAR, GOLD):
            return words(
                "rules.haegar.token_not",
                "a token is {hagar} or {gold}, not {token}: choose one of them",
                hagar=HAGAR,
                gold=GOLD,
                token=repr(move.token),
            )
        if (move.token == HAGAR and not hagars) or (move.token == GOLD and not gold):
            return words(
                "rules.haegar.no_token_left",
                "{seat} has no {token} token left: choose another token",
                seat=self.seat_words(seat),
                token=move.token,
            )
        index = self.board.index.get(move.field) if isinstance(move.field, str) else None
        fields = dict(self._coaster_fields(state.laid[-1]))
        if index not in fields:
            return words(
                "rules.haegar.token_goes_coaster_just",
                "a token goes on the coaster just laid, {coaster}: put it there",
                coaster=state.laid[-1].coaster,
            )
        if fields[index].skull:
            return words(
                "rules.haegar.shows_skull_wasteland_takes",
                "{field} shows a skull, and wasteland takes no token: choose a field without a "
                "skull",
                field=move.field,
            )
        return words(
            "rules.haegar.already_holds_token",
            "{field} already holds a token: choose a free field",
            field=move.field,
        )

    # --- the final round -------------------------------------------------------------

    def _hagar_moves(self, state: HaegarState) -> list[Move]:
        return [
            Move((self._names[field], self._names[to]))
            for field, free in self._hagar_reaches(state)
            for to in free
        ]

    def _hagar_reaches(self, state: HaegarState) -> list[tuple[int, list[int]]]:
        """Each Hägar of the seat to act (its field) with the free fields of its
        landscape's kind that it may move to."""
        return self._reaches(self._table(state.laid), dict(state.tokens), state.turn)

    def _reaches(
        self, table: dict[int, tuple[Field, Laid]], tokens: dict[int, int], seat: int
    ) -> list[tuple[int, list[int]]]:
        """``_hagar_reaches`` of ``seat`` with ``tokens`` (field: seat or gold) on the
        fields of ``table`` (``_table``)."""
        free: dict[str, list[int]] = {}
        for i, (field, _) in table.items():
            if not field.skull and i not in tokens:
                free.setdefault(field.landscape, []).append(i)
        return [
            (field, free.get(table[field][0].landscape, []))
            for field in sorted(field for field, piece in tokens.items() if piece == seat)
        ]

    def _move_hagar(self, state: HaegarState, move: Move) -> HaegarState:
        if move != PASS and move not in self._hagar_moves(state):
            raise IllegalMove(
                words(
                    "rules.haegar.hagar_refused",
                    "{move}: {problem}",
                    move=str(move),
                    problem=self._hagar_problem(state, move),
                )
            )
        return self._hagar_moved(state, move)

    def _hagar_moved(self, state: HaegarState, move: Move) -> HaegarState:
        """The state after a final-round move or pass already known to be legal."""
        if move != PASS:
            origin, dest = (self.board.index[f] for f in move.path)
            seat = state.turn
            tokens = tuple(sorted({*state.tokens} - {(origin, seat)} | {(dest, seat)}))
            state = _changed(state, tokens=tokens)
        left = state.finals_left - 1
        return _changed(
            state,
            phase=FINAL if left else OVER,
            turn=(state.turn + 1) % self.players if left else state.turn,
            finals_left=left,
            ply=state.ply + 1,
        )

    def _hagar_problem(self, state: HaegarState, move: Move) -> Words | None:
        if move.leap or len(move.path) != 2 or not all(isinstance(f, str) for f in move.path):
            return words(
                "rules.haegar.hagar_moves_from_to",
                "a Hägar moves in one go from its field to another: write from-to",
            )
        origin, dest = (self.board.index.get(f) for f in move.path)
        who = self.seat_words(state.turn)
        if origin is None or (origin, state.turn) not in state.tokens:
            return words(
                "rules.haegar.no_hagar_there",
                "no Hägar of {who} stands on {path}: move a Hägar of {who}",
                who=who,
                path=move.path[0],
            )
        table = self._table(state.laid)
        if dest is None or dest not in table:
            return words(
                "rules.haegar.no_coaster_lies_under",
                "no coaster lies under {path}: move the Hägar onto a laid coaster",
                path=move.path[1],
            )
        if table[dest][0].landscape != table[origin][0].landscape:
            kinds = f"{table[origin][0].landscape} to {table[dest][0].landscape}"
            return words(
                "rules.haegar.hagar_stays_in_landscape",
                "a Hägar stays in its kind of landscape, not {kinds}: move it within its landscape",
                kinds=kinds,
            )
        if table[dest][0].skull:
            return words(
                "rules.haegar.shows_skull_wasteland_takes",
                "{field} shows a skull, and wasteland takes no token: choose a field without a "
                "skull",
                field=move.path[1],
            )
        return words(
            "rules.haegar.not_free",
            "{path} is not free: move the Hägar to a free field",
            path=move.path[1],
        )

    # --- moves -----------------------------------------------------------------------

    def _legal_moves(self, state: HaegarState) -> list:
        if state.phase == PLACE:
            return self.placements(state)
        if state.phase == TOKEN:
            return self._token_moves(state, state.turn)
        return [PASS, *self._hagar_moves(state)]

    def random_play(self, state: HaegarState, pick: random.Random) -> tuple[Any, HaegarState]:
        """Uniformly from ``legal_moves``, as every game; a placement is drawn from
        the legal spots and turns, a final-round move from each Hägar's reach,
        writing out only the one drawn."""
        if self.to_move(state) is not None and state.phase == FINAL:
            reaches = self._hagar_reaches(state)
            number, to = drawn_from(pick, [(None,), *(free for _, free in reaches)])
            move = (
                PASS if to is None else Move((self._names[reaches[number - 1][0]], self._names[to]))
            )
            return move, self._hagar_moved(state, move)
        if self.to_move(state) is None or state.phase != PLACE or state.hand is None:
            return super().random_play(state, pick)
        coaster = self.coasters[state.hand]
        spot, turn = pick.choice(
            self._spots_and_turns(state.laid, coaster, state.turn, self.open_spots(state))
        )
        placement = Placement(coaster.id, self._spot_name[spot], SIDES[turn])
        return placement, self._laid(state, coaster, spot, turn)

    def playout(
        self,
        state: HaegarState,
        pick: random.Random,
        sample: Callable[[Any], Any],
        limit: int,
        tick: Callable[[], None] = lambda: None,
    ) -> Outcome | HaegarState:
        """``engines.playouts.played_out`` on a working copy of the table (lists and
        dicts changed in place, no state, move or sentence a step): the same draws
        from ``pick`` and ``sample`` as ``random_play`` and ``resolve`` step by step,
        several times as fast. The clock is read once: a whole game of Hägar is a few
        milliseconds."""
        self._require_state(state)
        tick()
        phase, turn, hand, die = state.phase, state.turn, state.hand, state.die
        pile = list(state.pile)
        supply = [list(left) for left in state.supply]
        laid, tokens, spots = state.laid, dict(state.tokens), self.open_spots(state)
        # the fields of the table, once every coaster is laid
        table = self._table(laid)
        finals_left, beers, plies = state.finals_left, list(state.beers), 0
        while phase != OVER:
            if phase == DRAW:
                hand = sample(TileDraw(tuple(pile)))
                pile.remove(hand)
                phase = PLACE
                continue
            if phase == DIE:
                die = sample(ROLL)
                phase, turn, finals_left = FINAL, self.seat_after(1), self.players
                table = self._table(laid)
                continue
            if plies >= limit:
                left = tuple((hagars, gold) for hagars, gold in supply)
                ply = state.ply + plies
                tokens_laid = tuple(sorted(tokens.items()))
                return HaegarState(
                    phase, turn, tuple(pile), left, laid, hand, tokens_laid, die, finals_left,
                    tuple(beers), ply, spots,
                )  # fmt: skip
            plies += 1
            if phase == FINAL:
                self._final_move(table, tokens, turn, pick)
                finals_left -= 1
                if finals_left:
                    turn = (turn + 1) % self.players
                else:
                    phase = OVER
                continue
            if phase == PLACE:
                if hand is None:
                    raise AssertionError("a coaster is in hand while it is to be laid")
                coaster = self.coasters[hand]
                spot, facing = pick.choice(self._spots_and_turns(laid, coaster, turn, spots))
                if self.options["honky_tonk"] and self._in_line_with_beer(laid, coaster, spot):
                    beers.append(turn)
                laid = laid + (Laid(coaster.id, spot, facing),)
                spots = self._spots_opened(laid, spots)
                hand = None
                kinds, free = self._token_choice(laid, tokens, supply[turn])
                if kinds and free:
                    phase = TOKEN
                    continue
            else:
                kinds, free = self._token_choice(laid, tokens, supply[turn])
                drawn = pick.randrange(len(free) * len(kinds))  # pick.choice of the moves
                kind = kinds[drawn % len(kinds)]
                tokens[free[drawn // len(kinds)]] = turn if kind == HAGAR else GOLD_TOKEN
                supply[turn][kind == GOLD] -= 1
            if len(laid) == self.coasters_in_play:
                phase, turn = DIE, self.seat_after(0)
            else:
                phase, turn = DRAW, (turn + 1) % self.players
        return self._ending(self._points(table, tokens, die), beers)

    def _final_move(
        self,
        table: dict[int, tuple[Field, Laid]],
        tokens: dict[int, int],
        seat: int,
        pick: random.Random,
    ) -> None:
        """A final-round move (or pass) of ``seat`` drawn as ``random_play`` draws it,
        made on ``tokens`` in place."""
        reaches = self._reaches(table, tokens, seat)
        number, to = drawn_from(pick, [(None,), *(free for _, free in reaches)])
        if to is not None:
            del tokens[reaches[number - 1][0]]
            tokens[to] = seat

    def _made(self, state: HaegarState, move: Any) -> HaegarState:
        if state.phase == TOKEN:
            return self._token_placed(state, move)
        return self._hagar_moved(state, move)

    def _apply(self, state: HaegarState, move: Any) -> HaegarState:
        who = self.seat_words(state.turn)
        if state.phase == PLACE:
            if not isinstance(move, Placement):
                raise IllegalMove(
                    words(
                        "rules.haegar.lays_coaster_first",
                        "{who} lays coaster {hand} first: lay it, then go on",
                        who=who,
                        hand=state.hand,
                    ),
                    move=str(move),
                )
            return self._lay(state, move)
        if state.phase == TOKEN:
            if not isinstance(move, TokenPlacement):
                raise IllegalMove(
                    words(
                        "rules.haegar.puts_token_first",
                        "{who} puts a token on {coaster} first: place it, then go on",
                        who=who,
                        coaster=state.laid[-1].coaster,
                    ),
                    move=str(move),
                )
            return self._place_token(state, move)
        if not isinstance(move, Move):
            raise IllegalMove(
                words(
                    "rules.haegar.final_round_hagar_or_pass",
                    "in the final round {who} moves a Hägar or passes: move a Hägar or pass",
                    who=who,
                ),
                move=str(move),
            )
        return self._move_hagar(state, move)

    def _parse(self, text: str) -> Move | TokenPlacement | Placement:
        if not isinstance(text, str):
            raise NotationError(
                words(
                    "rules.haegar.move_is_text",
                    "a move is text like 'c07 n1e0 east', not {kind}: write it so",
                    kind=type(text).__name__,
                )
            )
        parts = text.strip().lower().replace("hägar", HAGAR).split()
        if len(parts) == 1 and (parts[0] == "pass" or "-" in parts[0] or ":" in parts[0]):
            return parse_path(parts[0], self.board.index)
        if len(parts) == 2 and parts[0] in (HAGAR, GOLD):
            if parts[1] not in self.board.index:
                raise NotationError(
                    words(
                        "rules.haegar.there_no_field_table",
                        "{text}: there is no field {cell} on the table: name a field of a laid "
                        "coaster",
                        text=repr(text),
                        cell=repr(parts[1]),
                    )
                )
            return TokenPlacement(parts[0], parts[1])
        if len(parts) == 3 and parts[0] in self.coasters and parts[2] in SIDES:
            if parts[1] not in self._spot_of:
                raise NotationError(
                    words(
                        "rules.haegar.no_spot_on_table",
                        "{text}: there is no spot {cell} on the table: name a spot of the table",
                        text=repr(text),
                        cell=repr(parts[1]),
                    )
                )
            return Placement(*parts)
        raise NotationError(
            words(
                "rules.haegar.not_a_hagar_move",
                (
                    "{text} is not a Hägar move: write 'c07 n1e0 east' to lay a coaster, 'hagar "
                    "n1e0_nw' or 'gold n1e0_nw' for a token, 'n1e0_nw-n0e0_se' to move a Hägar, or "
                    "'pass'"
                ),
                text=repr(text),
            )
        )

    # --- the table -------------------------------------------------------------------

    def _corner_field(self, coaster: Coaster, turn: int, corner: str) -> Field:
        return next(f for at, _, f in coaster.on_table(turn) if at == corner)

    def _coaster_fields(self, laid: Laid) -> tuple[tuple[int, Field], ...]:
        """``(field cell index, printed field)`` for the four fields of a laid coaster."""
        fields = self._laid_fields.get(laid)
        if fields is None:
            x, y = laid.spot
            fields = self._laid_fields[laid] = tuple(
                (self._field_at[(2 * x + CORNERS[corner][0], 2 * y + CORNERS[corner][1])], field)
                for corner, _, field in self.coasters[laid.coaster].on_table(laid.turn)
            )
        return fields

    def _table(self, laid: Iterable[Laid]) -> dict[int, tuple[Field, Laid]]:
        """Every covered field cell: its printed field and the coaster it belongs to."""
        return {index: (field, one) for one in laid for index, field in self._coaster_fields(one)}

    def doubled(self, state: HaegarState) -> tuple[str, ...]:
        """The fields whose tokens and gold count double (none before the die)."""
        self._require_state(state)
        doubled = self._doubled(self._table(state.laid), state.die)
        return tuple(self._names[i] for i in sorted(doubled))

    def _doubled(self, table: dict[int, tuple[Field, Laid]], die: int | None) -> set[int]:
        """The fields of ``table`` in a row or column doubled by ``die`` (None: not rolled)."""
        if die is None:
            return set()
        xy = self._xy
        columns, rows = set(), set()
        for i, (field, laid) in table.items():
            if field.die == die:
                if field.arrow_on_table(laid.turn) == ARROWS[0]:
                    rows.add(xy[i][1])
                else:
                    columns.add(xy[i][0])
        return {i for i in table if xy[i][0] in columns or xy[i][1] in rows}

    # --- scoring and the end -----------------------------------------------------------

    def scoring(self, state: HaegarState) -> tuple[Landscape, ...]:
        """Every landscape holding a Hägar, scored as if the game ended now."""
        self._require_state(state)
        table = self._table(state.laid)
        scored = [
            Landscape(
                kind=table[min(region)][0].landscape,
                fields=tuple(self._names[i] for i in sorted(region)),
                shield=shield,
                gold=gold,
                hagars=tuple(hagars),
                conqueror=conqueror,
                gold_points=tuple(gold if p else 0 for p in present),
                dominion_points=tuple(
                    len(region) if s == conqueror else 0 for s in range(self.players)
                ),
            )
            for region, hagars, present, gold, shield, conqueror in self._landscapes(
                table, dict(state.tokens), state.die
            )
        ]
        # the table's order, by each landscape's first field
        return tuple(sorted(scored, key=lambda land: self.board.index[land.fields[0]]))

    def _landscapes(
        self, table: dict[int, tuple[Field, Laid]], tokens: dict[int, int], die: int | None
    ) -> Iterator[tuple[set[int], list[int], list[bool], int, bool, int | None]]:
        """Each landscape holding a Hägar: its fields, each seat's Hägars (doubled ones
        twice) and presence, its gold, whether a shield touches it, and its conqueror."""
        doubled = self._doubled(table, die)
        seen: set[int] = set()
        # only a landscape holding a Hägar scores: the search for landscapes starts at
        # the Hägars
        for start, seat in tokens.items():
            if seat == GOLD_TOKEN or start in seen:
                continue
            region = self._landscape(table, start)
            seen |= region
            hagars = [0] * self.players
            present = [False] * self.players
            gold, shield = 0, False
            for i in region:
                field = table[i][0]
                weight = 2 if i in doubled else 1
                piece = tokens.get(i)
                if piece is None:
                    gold += weight * field.gold
                elif piece == GOLD_TOKEN:
                    gold += weight * (field.gold + 1)
                else:
                    gold += weight * field.gold
                    hagars[piece] += weight
                    present[piece] = True
                shield = shield or field.shield is not None
            most = max(hagars)
            leaders = [s for s in range(self.players) if hagars[s] == most]
            conqueror = leaders[0] if shield and len(leaders) == 1 else None
            yield region, hagars, present, gold, shield, conqueror

    def _points(
        self, table: dict[int, tuple[Field, Laid]], tokens: dict[int, int], die: int | None
    ) -> tuple[int, ...]:
        """Each seat's points for ``tokens`` on ``table`` after ``die``."""
        points = [0] * self.players
        for region, _, present, gold, _, conqueror in self._landscapes(table, tokens, die):
            for seat, there in enumerate(present):
                if there:
                    points[seat] += gold
            if conqueror is not None:
                points[conqueror] += len(region)
        return tuple(points)

    def _landscape(self, table: dict, start: int) -> set[int]:
        """The fields of ``start``'s kind joined to it along rows and columns."""
        kind = table[start][0].landscape
        beside = self._beside
        region, todo = {start}, [start]
        while todo:
            for near in beside[todo.pop()]:
                if near in table and near not in region and table[near][0].landscape == kind:
                    region.add(near)
                    todo.append(near)
        return region

    def report(self, state: HaegarState) -> dict:
        """Per landscape its kind, fields and points, and the doubled fields."""
        self._require_state(state)
        return {
            "landscapes": [
                {
                    "kind": land.kind,
                    "fields": list(land.fields),
                    "shield": land.shield,
                    "gold": land.gold,
                    "hagars": list(land.hagars),
                    "conqueror": land.conqueror,
                    "gold_points": list(land.gold_points),
                    "dominion_points": list(land.dominion_points),
                }
                for land in self.scoring(state)
            ],
            "doubled": list(self.doubled(state)),
        }

    def scores(self, state: HaegarState) -> tuple[int, ...]:
        """Each seat's points as ``scoring`` counts them (the final scores once the
        game is over)."""
        self._require_state(state)
        return self._points(self._table(state.laid), dict(state.tokens), state.die)

    def beers_owed(self, state: HaegarState) -> dict[int, int]:
        """Honky-tonk: beers each seat owes the winner; winners owe none once it is over."""
        self._require_state(state)
        ended = self.outcome(state)
        return _owed(state.beers, ended.winners if ended is not None else ())

    def outcome(self, state: HaegarState) -> Outcome | None:
        self._require_state(state)
        if state.phase != OVER:
            return None
        return self._ending(self.scores(state), state.beers)

    def _ending(self, scores: tuple[int, ...], beers: Iterable[int]) -> Outcome:
        """The outcome of a game over with ``scores``, ``beers`` owed for honky-tonk."""
        if self.players == 1:
            return Outcome(
                (0,),
                words(
                    "rules.haegar.solo_points",
                    "{points, plural, one {# point} other {# points}}: {rank}",
                    points=scores[0],
                    rank=solo_rank_words(scores[0]),
                ),
                scores,
            )
        best = max(scores)
        winners = tuple(s for s in range(self.players) if scores[s] == best)
        each = tuple(
            words("rules.haegar.seat_points", "{seat} {points}", seat=self.seat_words(s), points=p)
            for s, p in enumerate(scores)
        )
        names = joined(self.seat_words(s) for s in winners)
        if len(winners) == 1:
            reason = words(
                "rules.haegar.wins",
                "{seat} wins with {best, plural, one {# point} other {# points}} ({scores})",
                seat=names,
                best=best,
                scores=each,
            )
        else:
            reason = words(
                "rules.haegar.tie",
                "{seats} tie with {best, plural, one {# point} other {# points}} ({scores})",
                seats=names,
                best=best,
                scores=each,
            )
        for seat, count in sorted(_owed(beers, winners).items()):
            reason = words(
                "rules.haegar.owes_beers",
                "{reason}; {seat} owes the winner {count, plural, one {# beer} other {# beers}}",
                reason=reason,
                seat=self.seat_words(seat),
                count=count,
            )
        return Outcome(winners, reason, scores)

    # --- what the camera sees, text, records -----------------------------------------

    def observe(self, state: HaegarState) -> dict[str, str | None]:
        """Per table field: None where no coaster lies, else the printed field
        (``c03_nw``: coaster c03's upright nw field, which also fixes the facing) and
        ``+colour`` or ``+gold`` for a token on it. The die and pile are virtual."""
        self._require_state(state)
        seen: dict[str, str | None] = dict.fromkeys(self._names)
        tokens = dict(state.tokens)
        for laid in state.laid:
            x, y = laid.spot
            for corner, printed, _ in self.coasters[laid.coaster].on_table(laid.turn):
                ox, oy = CORNERS[corner]
                index = self._field_at[(2 * x + ox, 2 * y + oy)]
                token = f"{laid.coaster}_{printed}"
                if index in tokens:
                    token += "+" + self._piece_name(tokens[index])
                seen[self._names[index]] = token
        return seen

    def _piece_name(self, piece: int) -> str:
        return GOLD if piece == GOLD_TOKEN else self.colours[piece]

    def render(self, state: HaegarState) -> str:
        """The laid coasters as text, north up: per field its landscape (L, F, W), what is
        printed ($ gold, x skull, a dice number) and the token (a colour's initial,
        G for gold, . for none)."""
        self._require_state(state)
        table = self._table(state.laid)
        if not table:
            return "(no coaster laid yet)"
        tokens = dict(state.tokens)
        where = {self._xy[i]: i for i in table}
        xs = [x for x, _ in where]
        ys = [y for _, y in where]
        rows = []
        for y in range(max(ys), min(ys) - 1, -1):
            cells = []
            for x in range(min(xs), max(xs) + 1):
                i = where.get((x, y))
                if i is None:
                    cells.append("   ")
                    continue
                field = table[i][0]
                mark = "$" if field.gold else "x" if field.skull else str(field.die or " ")
                piece = tokens.get(i)
                token = "." if piece is None else self._piece_name(piece)[0].upper()
                cells.append(field.landscape[0].upper() + mark + token)
            rows.append(" ".join(cells).rstrip())
        return "\n".join(rows)

    def _state_to_json(self, state: HaegarState) -> dict:
        return {
            "phase": state.phase,
            "turn": self.seat_name(state.turn),
            "pile": list(state.pile),
            "hand": state.hand,
            "laid": [[c.coaster, self._spot_name[c.spot], SIDES[c.turn]] for c in state.laid],
            "tokens": {self._names[i]: self._piece_name(p) for i, p in state.tokens},
            "supply": {
                self.seat_name(s): {HAGAR + "s": h, GOLD: g}
                for s, (h, g) in enumerate(state.supply)
            },
            "die": state.die,
            "finals_left": state.finals_left,
            "beers": [self.seat_name(s) for s in state.beers],
            "ply": state.ply,
        }

    def _state_from_json(self, data: Any) -> HaegarState:
        return _Reader(self).read(data)


class _Reader:
    """Reads a state record and checks it holds together: the coasters were laid
    legally in turn, tokens and supplies add up, and the phase fits."""

    KEYS = {"phase", "turn", "pile", "hand", "laid", "tokens", "supply", "die", "finals_left",
            "beers", "ply"}  # fmt: skip

    def __init__(self, game: Haegar) -> None:
        self.game = game

    def read(self, data: Any) -> HaegarState:
        game = self.game
        if not isinstance(data, dict) or set(data) != self.KEYS:
            raise RecordError(
                words(
                    "rules.haegar.haegar_state_exactly_keys",
                    "a haegar state has exactly the keys {keys}",
                    keys=sorted(self.KEYS),
                )
            )
        phase = data["phase"]
        if phase not in PHASES:
            raise RecordError(
                words(
                    "rules.haegar.phase_not_one",
                    "phase {phase} is not one of {phases}",
                    phase=repr(phase),
                    phases=", ".join(PHASES),
                )
            )
        turn = self.seat(data["turn"], "turn")
        laid, beers = self.laid(data["laid"])
        hand = data["hand"]
        if hand is not None and hand not in game.coasters:
            raise RecordError(
                words(
                    "rules.haegar.hand_not_coaster", "hand {hand} is not a coaster", hand=repr(hand)
                )
            )
        pile = data["pile"]
        if not isinstance(pile, list) or not all(isinstance(c, str) for c in pile):
            raise RecordError(
                words("rules.haegar.pile_must_list_coaster", "pile must be a list of coaster ids")
            )
        every = pile + [c.coaster for c in laid] + ([hand] if hand is not None else [])
        if sorted(every) != sorted(game.coasters):
            raise RecordError(
                words(
                    "rules.haegar.pile_hand_laid_coasters",
                    "pile, hand and laid coasters must be the 12 coasters, each once",
                )
            )
        recorded_beers = data["beers"]
        if not isinstance(recorded_beers, list):
            raise RecordError(
                words("rules.haegar.beers_must_list_colours", "beers must be a list of colours")
            )
        if tuple(self.seat(s, "beers") for s in recorded_beers) != beers:
            raise RecordError(
                words(
                    "rules.haegar.beers_do_not_match_beer",
                    "beers do not match the beer coasters laid (honky-tonk)",
                )
            )
        tokens, supply = self.tokens(data["tokens"], data["supply"], laid)
        die, finals_left, ply = data["die"], data["finals_left"], data["ply"]
        for value, what in ((finals_left, "finals_left"), (ply, "ply")):
            if not _is_count(value) or value < 0:
                raise RecordError(
                    words(
                        "rules.haegar.must_whole_number_not",
                        "{what} must be a whole number >= 0, not {value}",
                        what=what,
                        value=repr(value),
                    )
                )
        if die is not None and (not _is_count(die) or die not in range(1, 7)):
            raise RecordError(
                words(
                    "rules.haegar.die_must_null_not",
                    "die must be 1 to 6 or null, not {die}",
                    die=repr(die),
                )
            )
        state = HaegarState(
            phase,
            turn,
            tuple(sorted(pile)),
            supply,
            laid,
            hand,
            tokens,
            die,
            finals_left,
            beers,
            ply,
        )
        problem = self.phase_problem(state)
        if problem:
            raise RecordError(
                words(
                    "rules.haegar.phase", "phase {phase}: {problem}", phase=phase, problem=problem
                )
            )
        return state

    def seat(self, name: Any, what: str) -> int:
        if name not in self.game.colours:
            raise RecordError(
                words(
                    "rules.haegar.not_colour_game",
                    "{what}: {name} is not a colour in this game",
                    what=what,
                    name=repr(name),
                )
            )
        return self.game.colours.index(name)

    def laid(self, raw: Any) -> tuple[tuple[Laid, ...], tuple[int, ...]]:
        """The laid coasters, each checked against the rules as it was laid."""
        game = self.game
        if not isinstance(raw, list) or len(raw) > game.coasters_in_play:
            raise RecordError(
                words(
                    "rules.haegar.laid_must_list_most",
                    "laid must be a list of at most {coasters_in_play} coasters",
                    coasters_in_play=game.coasters_in_play,
                )
            )
        laid: tuple[Laid, ...] = ()
        beers: tuple[int, ...] = ()
        for n, entry in enumerate(raw):
            if not (isinstance(entry, list) and len(entry) == 3):
                raise RecordError(
                    words(
                        "rules.haegar.laid_must_coaster_spot",
                        "laid[{n}] must be [coaster, spot, facing]",
                        n=n,
                    )
                )
            coaster_id, spot_name, facing = entry
            if coaster_id not in game.coasters or spot_name not in game._spot_of:
                raise RecordError(
                    words(
                        "rules.haegar.laid_unknown_coaster_spot",
                        "laid[{n}]: unknown coaster or spot in {entry}",
                        n=n,
                        entry=repr(entry),
                    )
                )
            if facing not in SIDES:
                raise RecordError(
                    words(
                        "rules.haegar.laid_facing_not_one",
                        "laid[{n}]: facing {facing} is not one of {sides}",
                        n=n,
                        facing=repr(facing),
                        sides=SIDES,
                    )
                )
            coaster, spot, turn = (
                game.coasters[coaster_id],
                game._spot_of[spot_name],
                SIDES.index(facing),
            )
            seat = game.seat_after(n)
            problem = game._placement_problem(laid, coaster, seat, spot, turn)
            if problem is not None:
                raise RecordError(
                    words(
                        "rules.haegar.laid",
                        "laid[{n}] {entry}: {problem}",
                        n=n,
                        entry=" ".join(entry),
                        problem=problem,
                    )
                )
            if game.options["honky_tonk"] and game._in_line_with_beer(laid, coaster, spot):
                beers += (seat,)
            laid += (Laid(coaster_id, spot, turn),)
        return laid, beers

    def tokens(
        self, raw_tokens: Any, raw_supply: Any, laid: tuple[Laid, ...]
    ) -> tuple[tuple, tuple]:
        game = self.game
        if not isinstance(raw_tokens, dict) or not isinstance(raw_supply, dict):
            raise RecordError(
                words(
                    "rules.haegar.tokens_supply_must_objects", "tokens and supply must be objects"
                )
            )
        table = game._table(laid)
        tokens = []
        for field, piece in raw_tokens.items():
            index = game.board.index.get(field)
            if index not in table or table[index][0].skull:
                raise RecordError(
                    words(
                        "rules.haegar.token_not_skull_free_field",
                        "token on {field}: not a skull-free field of a laid coaster",
                        field=repr(field),
                    )
                )
            tokens.append((index, GOLD_TOKEN if piece == GOLD else self.seat(piece, "tokens")))
        if set(raw_supply) != set(game.colours):
            raise RecordError(
                words(
                    "rules.haegar.supply_must_list",
                    "supply must list {colours}",
                    colours=", ".join(game.colours),
                )
            )
        supply = []
        hagars = HAGARS_PER_SEAT[game.players]
        for seat, colour in enumerate(game.colours):
            entry = raw_supply[colour]
            if not isinstance(entry, dict) or set(entry) != {HAGAR + "s", GOLD}:
                raise RecordError(
                    words(
                        "rules.haegar.supply_must",
                        "supply of {colour} must be {{hagars: n, gold: n}}",
                        colour=colour,
                    )
                )
            h, g = entry[HAGAR + "s"], entry[GOLD]
            on_table = sum(piece == seat for _, piece in tokens)
            if not (_is_count(h) and _is_count(g)) or h < 0 or g not in (0, 1):
                raise RecordError(
                    words(
                        "rules.haegar.supply_whole_numbers_gold",
                        "supply of {colour}: whole numbers, gold 0 or 1",
                        colour=colour,
                    )
                )
            if h + on_table != hagars:
                raise RecordError(
                    words(
                        "rules.haegar.hagars_do_not_add_up",
                        "{colour} has {h, plural, one {# Hägar} other {# Hägars}} in supply and "
                        "{on_table} laid, not {hagars}",
                        colour=colour,
                        h=h,
                        on_table=on_table,
                        hagars=hagars,
                    )
                )
            supply.append((h, g))
        gold_laid = sum(piece == GOLD_TOKEN for _, piece in tokens)
        if gold_laid + sum(g for _, g in supply) != game.players:
            raise RecordError(
                words(
                    "rules.haegar.gold_tokens_laid_do_not",
                    "{gold_laid, plural, one {# gold token laid does} other {# gold tokens laid "
                    "do}} not match the gold supplies",
                    gold_laid=gold_laid,
                )
            )
        return tuple(sorted(tokens)), tuple(supply)

    def phase_problem(self, state: HaegarState) -> Words | None:
        game, n = self.game, self.game.players
        count = len(state.laid)
        if state.phase in (DRAW, PLACE, TOKEN):
            if (state.die, state.finals_left) != (None, 0):
                return words(
                    "rules.haegar.no_die_no_final",
                    "no die and no final round before the last coaster",
                )
            if (state.hand is not None) != (state.phase == PLACE):
                return words(
                    "rules.haegar.coaster_hand_exactly_while",
                    "a coaster is in hand exactly while it is to be laid",
                )
            if state.phase == TOKEN:
                if not count or state.turn != game.seat_after(count - 1):
                    return words(
                        "rules.haegar.seat_laid_last_coaster",
                        "the seat that laid the last coaster places the token",
                    )
                if not game._token_moves(state, state.turn):
                    return words("rules.haegar.there_no_token_place", "there is no token to place")
            elif count >= game.coasters_in_play or state.turn != game.seat_after(count):
                return words(
                    "rules.haegar.seat_turn_draws_lays",
                    "the seat in turn draws and lays the next coaster",
                )
            return None
        if count != game.coasters_in_play or state.hand is not None:
            return words(
                "rules.haegar.all_coasters_laid",
                "all {coasters_in_play} coasters are laid",
                coasters_in_play=game.coasters_in_play,
            )
        if state.phase == DIE:
            if state.die is not None or state.finals_left or state.turn != game.seat_after(0):
                return words(
                    "rules.haegar.starting_player_rolls_die",
                    "the starting player rolls the die once",
                )
            return None
        if state.die is None:
            return words("rules.haegar.die_been_rolled", "the die has been rolled")
        if state.phase == FINAL:
            acting = game.seat_after(n - state.finals_left + 1)
            if not 0 < state.finals_left <= n or state.turn != acting:
                return words(
                    "rules.haegar.final_round_runs_second",
                    "the final round runs from the seat after the starting player round to it",
                )
            return None
        if state.finals_left or state.turn != game.seat_after(0):
            return words("rules.haegar.final_round_over", "the final round is over")
        return None


@dataclass(frozen=True, eq=False)
class _TableGrid:
    """The table file's fields and spots as grid coordinates (column, row)."""

    field_at: dict[tuple[int, int], int]
    #: field coordinates of each cell, the inverse of field_at
    xy: tuple[tuple[int, int], ...]
    spot_name: dict[tuple[int, int], str]
    spot_of: dict[str, tuple[int, int]]
    centre: tuple[int, int]


@cache
def _table_grid(board: Board, pitch: float, centre: str, reach: int, source: str) -> _TableGrid:
    """Field and spot coordinates from the cells' xy, once per table file; the file
    must be a full grid holding every field within ``reach`` coasters of the centre."""
    field_at: dict[tuple[int, int], int] = {}
    spot_name: dict[tuple[int, int], str] = {}
    for i, cell in enumerate(board.cells):
        fx, fy = (round(v / pitch + 0.5) for v in cell.xy)
        if abs((fx - 0.5) * pitch - cell.xy[0]) + abs((fy - 0.5) * pitch - cell.xy[1]) > 0.5:
            raise BoardFileError(f"{source}: field {cell.id} is off the {pitch} mm grid")
        if cell.zone is None:
            raise BoardFileError(f"{source}: field {cell.id} names no spot (its zone)")
        name = spot_name.setdefault((fx // 2, fy // 2), cell.zone)
        corner = _corner_of(fx, fy)
        if cell.zone != name or cell.id != f"{name}_{corner}":
            raise BoardFileError(
                f"{source}: field {cell.id} lies at corner {corner} of the spot named "
                f"{name!r}; name it {name}_{corner}"
            )
        field_at[(fx, fy)] = i
    spot_of = {name: spot for spot, name in spot_name.items()}
    if centre not in spot_of:
        raise BoardFileError(f"{source}: the centre spot {centre!r} is not on the grid")
    cx, cy = spot_of[centre]
    for dx in range(-reach, reach + 1):
        for dy in range(abs(dx) - reach, reach - abs(dx) + 1):
            x, y = cx + dx, cy + dy
            if any((2 * x + ox, 2 * y + oy) not in field_at for ox, oy in CORNERS.values()):
                raise BoardFileError(
                    f"{source}: the grid must hold every field within {reach} coasters of "
                    f"the centre; spot {dx:+d},{dy:+d} from it is incomplete"
                )
    xy = tuple(sorted(field_at, key=field_at.__getitem__))
    return _TableGrid(field_at, xy, spot_name, spot_of, (cx, cy))


def _owed(beers: Iterable[int], winners: tuple[int, ...]) -> dict[int, int]:
    """Beers per seat that owes one: every offence, except by a winner."""
    owed: dict[int, int] = {}
    for seat in beers:
        if seat not in winners:
            owed[seat] = owed.get(seat, 0) + 1
    return owed


def _is_count(value: Any) -> bool:
    """A whole number, and not a bool (JSON true is no count)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _corner_of(fx: int, fy: int) -> str:
    return next(corner for corner, (ox, oy) in CORNERS.items() if (fx % 2, fy % 2) == (ox, oy))
