"""Hägar: Auf zu neuen Ufern! -- coasters laid edge to edge on the table, per
``rules/haegar.txt`` and RULINGS.md. The coaster pile and the die are virtual.

A turn: the seat draws a coaster from the pile (chance), lays it (a ``Placement``),
then puts one own token on a free field of it (a ``TokenPlacement``) while it has
tokens. After the last coaster the starting player (seat 0) rolls the die (chance);
then, from seat 1 round to seat 0, each seat may move one own Hägar (``a-b`` or
``pass``). The game then scores. This module decides the rules only; it never draws
chance itself and reads nothing but its packaged data files.

The table (``engines/boards/haegar.toml``) is a grid of fields around the first
coaster, on spot ``n0e0``; spot ``n2w1`` is two coasters north and one west of it and
its fields are ``n2w1_nw`` ... ``n2w1_se``. The same file's ``[[game.coaster]]``
tables are the 12 coasters (our reconstruction; owners correct it).

Readings of the rule book (RULINGS.md decides; these fill what it leaves open):

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

Options:

- ``honky_tonk`` (False): a beer coaster laid in the same row or column of coasters as
  an earlier beer coaster is still legal, but the seat owes the winner a beer unless
  it wins itself; ``beers_owed(state)`` and the outcome's reason say who owes.
- ``seats`` (None): the table sides of the seats in turn order, e.g. "south,east".

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

from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from engines.chance import Die, TileDraw
from engines.coasters import ARROWS, CORNERS, SIDES, Coaster, Field, parse_coasters
from engines.core import PASS, Game, Move, Option, Outcome, parse_path
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
SOLO_COASTERS = 9
#: the solo game's ranks: (most points for the title, title); the last has no limit
SOLO_RANKS = (
    (15, "simple drunkard"),
    (20, "lower sailor"),
    (25, "higher chief"),
    (None, "legendary conqueror"),
)
#: one coaster step in each of SIDES
STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0))
#: the corners along each side of a coaster, ordered so that they face the corners
#: of the opposite side of the neighbour across that edge
EDGE_CORNERS = (("nw", "ne"), ("se", "ne"), ("sw", "se"), ("sw", "nw"))


@dataclass(frozen=True)
class Laid:
    """A coaster on the table: its id, spot (coaster column, row) and quarter turns."""

    coaster: str
    spot: tuple[int, int]
    turn: int


@dataclass(frozen=True)
class HaegarState:
    """The table and the supplies. ``laid[k]`` was laid by seat ``k % players``;
    ``tokens`` is sorted ``(field cell index, seat or GOLD_TOKEN)``; ``supply[seat]``
    is (Hägars, gold) still in front of the seat; ``beers`` lists the seat of every
    honky-tonk offence; ``finals_left`` counts the seats still to act in the final
    round; ``ply`` counts moves (chance draws excluded)."""

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
    return next(title for most, title in SOLO_RANKS if most is None or points <= most)


class Haegar(Game):
    name = "haegar"
    player_counts = (1, 2, 3)
    default_players = 2
    state_type = HaegarState
    OPTIONS = (
        Option("honky_tonk", False, "a beer coaster in line with another costs a beer"),
        Option("seats", None, "table sides of the seats in turn order, e.g. 'south,north'", str),
    )
    # coasters lie on a bare table: a camera sees them, or players tap the panel
    SENSORS = ("camera", "panel")

    def __init__(self, players: int | None = None, **options: Any):
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

    def _seat_sides(self, default: tuple[str, ...], source: str) -> tuple[int, ...]:
        seats = self.options["seats"]
        sides = default if seats is None else tuple(s.strip() for s in seats.split(","))
        error = OptionError if seats is not None else BoardFileError
        where = "haegar: option seats" if seats is not None else f"{source}: [game.sides]"
        if len(sides) != self.players or len(set(sides)) != len(sides):
            raise error(f"{where} must name {self.players} different table sides")
        for side in sides:
            if side not in SIDES:
                raise error(f"{where}: {side!r} is not one of {', '.join(SIDES)}")
        return tuple(SIDES.index(side) for side in sides)

    def seat_name(self, seat: int) -> str:
        return self.colours[seat]

    # --- the start, chance and whose turn -----------------------------------------

    def initial_state(self) -> HaegarState:
        hagars = HAGARS_PER_SEAT[self.players]
        return HaegarState(DRAW, 0, tuple(sorted(self.coasters)), ((hagars, 1),) * self.players)

    def chance(self, state: HaegarState):
        self._require_state(state)
        if state.phase == DRAW:
            return TileDraw(state.pile)
        if state.phase == DIE:
            return Die(6)
        return None

    def drawer(self, state: HaegarState) -> int | None:
        """The seat to lay draws its coaster; the starting player rolls the die."""
        return state.turn if self.chance(state) is not None else None

    def resolve(self, state: HaegarState, outcome) -> HaegarState:
        self._require_state(state)
        if state.phase == DRAW:
            if outcome not in state.pile:
                raise RulesError(f"{outcome!r} is not a coaster in the pile")
            pile = list(state.pile)
            pile.remove(outcome)
            return replace(state, phase=PLACE, pile=tuple(pile), hand=outcome)
        if state.phase == DIE:
            if not _is_count(outcome) or outcome not in range(1, 7):
                raise RulesError(f"a die shows 1 to 6, not {outcome!r}")
            return replace(
                state, phase=FINAL, die=outcome, turn=1 % self.players, finals_left=self.players
            )
        raise RulesError("haegar has no chance event pending")

    def _to_move(self, state: HaegarState) -> int:
        return state.turn

    # --- laying coasters -----------------------------------------------------------

    def placements(self, state: HaegarState) -> list[Placement]:
        """Every legal spot and facing for the coaster in hand ([] when none is):
        what the panel offers while the camera cannot see the table."""
        self._require_state(state)
        if state.phase != PLACE:
            return []
        coaster = self.coasters[state.hand]
        return [
            Placement(coaster.id, self._spot_name[spot], SIDES[turn])
            for spot, turn in self._spots_and_turns(state.laid, coaster, state.turn)
        ]

    def _allowed_turns(self, coaster: Coaster, seat: int) -> tuple[int, ...]:
        beer_turn = coaster.beer_turn(self.sides[seat])
        return tuple(range(4)) if beer_turn is None else (beer_turn,)

    def _spots_and_turns(self, laid, coaster: Coaster, seat: int) -> list[tuple]:
        """Legal (spot, turn) pairs: those meeting a like landscape, else all touching."""
        turns = self._allowed_turns(coaster, seat)
        if not laid:
            return [(self._centre, turn) for turn in turns]
        occupied = {one.spot: one for one in laid}
        touching, matching = [], []
        for spot in sorted(self._frontier(occupied)):
            for turn in turns:
                touching.append((spot, turn))
                if self._meets_like(occupied, coaster, spot, turn):
                    matching.append((spot, turn))
        return matching or touching

    def _frontier(self, occupied: dict) -> set[tuple[int, int]]:
        """Free spots on the grid sharing an edge with a laid coaster."""
        return {
            (x + dx, y + dy)
            for x, y in occupied
            for dx, dy in STEPS
            if (x + dx, y + dy) not in occupied and (x + dx, y + dy) in self._spot_name
        }

    def _meets_like(self, occupied: dict, coaster: Coaster, spot, turn: int) -> bool:
        """Whether a field of ``coaster`` at ``spot``/``turn`` touches the same landscape."""
        edges = self._edges[(coaster.id, turn)]
        for side, (dx, dy) in enumerate(STEPS):
            other = occupied.get((spot[0] + dx, spot[1] + dy))
            if other is not None:
                facing = self._edges[(other.coaster, other.turn)][(side + 2) % 4]
                if edges[side][0] == facing[0] or edges[side][1] == facing[1]:
                    return True
        return False

    def _placement_problem(self, laid, coaster: Coaster, seat: int, spot, turn: int) -> str | None:
        """Why laying ``coaster`` at ``spot``/``turn`` is illegal, or None if it is legal."""
        turns = self._allowed_turns(coaster, seat)
        if turn not in turns:
            side = SIDES[self.sides[seat]]
            return (
                f"{coaster.id} is a beer coaster: its glass must point {side} at "
                f"{self.seat_name(seat)}, so it faces {SIDES[turns[0]]}"
            )
        if not laid:
            centre = self._spot_name[self._centre]
            return (
                None if spot == self._centre else f"the first coaster lies in the middle, {centre}"
            )
        occupied = {other.spot: other for other in laid}
        if spot in occupied:
            return f"{self._spot_name[spot]} already holds {occupied[spot].coaster}"
        if spot not in self._frontier(occupied):
            return f"{self._spot_name[spot]} does not share an edge with a laid coaster"
        if self._meets_like(occupied, coaster, spot, turn):
            return None
        legal = self._spots_and_turns(laid, coaster, seat)
        if (spot, turn) in legal:
            return None  # nothing matches anywhere: the fallback allows any touching spot
        name, facing = self._spot_name[legal[0][0]], SIDES[legal[0][1]]
        return (
            f"no field of {coaster.id} meets a field of its own landscape there, "
            f"and it can elsewhere (e.g. {name} {facing})"
        )

    def _lay(self, state: HaegarState, move: Placement) -> HaegarState:
        if move.coaster != state.hand:
            raise IllegalMove(f"{move}: the coaster in hand is {state.hand}")
        if not isinstance(move.spot, str) or move.spot not in self._spot_of:
            raise IllegalMove(f"{move}: there is no spot {move.spot!r} on the table grid")
        if move.facing not in SIDES:
            raise IllegalMove(f"{move}: a coaster faces {', '.join(SIDES)}")
        spot, turn = self._spot_of[move.spot], SIDES.index(move.facing)
        coaster = self.coasters[move.coaster]
        problem = self._placement_problem(state.laid, coaster, state.turn, spot, turn)
        if problem is not None:
            raise IllegalMove(f"{move}: {problem}")
        beers = state.beers
        if self.options["honky_tonk"] and self._in_line_with_beer(state.laid, coaster, spot):
            beers = beers + (state.turn,)
        laid = state.laid + (Laid(coaster.id, spot, turn),)
        after = replace(state, laid=laid, hand=None, beers=beers, ply=state.ply + 1)
        if self._token_moves(after, state.turn):
            return replace(after, phase=TOKEN)
        return self._end_turn(after)

    def _in_line_with_beer(self, laid, coaster: Coaster, spot) -> bool:
        return coaster.beer is not None and any(
            self.coasters[other.coaster].beer is not None
            and (other.spot[0] == spot[0] or other.spot[1] == spot[1])
            for other in laid
        )

    def _end_turn(self, state: HaegarState) -> HaegarState:
        if len(state.laid) == self.coasters_in_play:
            return replace(state, phase=DIE, turn=0)
        return replace(state, phase=DRAW, turn=(state.turn + 1) % self.players)

    # --- tokens ----------------------------------------------------------------------

    def _token_moves(self, state: HaegarState, seat: int) -> list[TokenPlacement]:
        hagars, gold = state.supply[seat]
        kinds = ((HAGAR,) if hagars else ()) + ((GOLD,) if gold else ())
        if not kinds:
            return []
        taken = {field for field, _ in state.tokens}
        last = state.laid[-1]
        moves = []
        for index, field in self._coaster_fields(last):
            if not field.skull and index not in taken:
                moves.extend(TokenPlacement(kind, self._names[index]) for kind in kinds)
        return moves

    def _place_token(self, state: HaegarState, move: TokenPlacement) -> HaegarState:
        seat = state.turn
        if move not in self._token_moves(state, seat):
            raise IllegalMove(f"{move}: {self._token_problem(state, move)}")
        index = self.board.index[move.field]
        hagars, gold = state.supply[seat]
        if move.token == HAGAR:
            piece, left = seat, (hagars - 1, gold)
        else:
            piece, left = GOLD_TOKEN, (hagars, gold - 1)
        supply = state.supply[:seat] + (left,) + state.supply[seat + 1 :]
        tokens = tuple(sorted(state.tokens + ((index, piece),)))
        return self._end_turn(replace(state, tokens=tokens, supply=supply, ply=state.ply + 1))

    def _token_problem(self, state: HaegarState, move: TokenPlacement) -> str:
        seat = state.turn
        hagars, gold = state.supply[seat]
        if move.token not in (HAGAR, GOLD):
            return f"a token is {HAGAR} or {GOLD}, not {move.token!r}"
        if (move.token == HAGAR and not hagars) or (move.token == GOLD and not gold):
            return f"{self.seat_name(seat)} has no {move.token} token left"
        index = self.board.index.get(move.field) if isinstance(move.field, str) else None
        fields = dict(self._coaster_fields(state.laid[-1]))
        if index not in fields:
            return f"a token goes on the coaster just laid, {state.laid[-1].coaster}"
        if fields[index].skull:
            return f"{move.field} shows a skull: wasteland takes no token"
        return f"{move.field} already holds a token"

    # --- the final round -------------------------------------------------------------

    def _hagar_moves(self, state: HaegarState) -> list[Move]:
        table = self._table(state.laid)
        taken = {field for field, _ in state.tokens}
        free = [i for i, (f, _) in table.items() if not f.skull and i not in taken]
        moves = []
        for field, piece in state.tokens:
            if piece == state.turn:
                kind = table[field][0].landscape
                moves.extend(
                    Move((self._names[field], self._names[to]))
                    for to in free
                    if table[to][0].landscape == kind
                )
        return moves

    def _move_hagar(self, state: HaegarState, move: Move) -> HaegarState:
        if move != PASS:
            if move not in self._hagar_moves(state):
                raise IllegalMove(f"{move}: {self._hagar_problem(state, move)}")
            origin, dest = (self.board.index[f] for f in move.path)
            seat = state.turn
            tokens = tuple(sorted({*state.tokens} - {(origin, seat)} | {(dest, seat)}))
            state = replace(state, tokens=tokens)
        left = state.finals_left - 1
        return replace(
            state,
            phase=FINAL if left else OVER,
            turn=(state.turn + 1) % self.players if left else state.turn,
            finals_left=left,
            ply=state.ply + 1,
        )

    def _hagar_problem(self, state: HaegarState, move: Move) -> str:
        if move.leap or len(move.path) != 2 or not all(isinstance(f, str) for f in move.path):
            return "a Hägar moves in one go from its field to another: write from-to"
        origin, dest = (self.board.index.get(f) for f in move.path)
        who = self.seat_name(state.turn)
        if (origin, state.turn) not in state.tokens:
            return f"no Hägar of {who} stands on {move.path[0]}"
        table = self._table(state.laid)
        if dest not in table:
            return f"no coaster lies under {move.path[1]}"
        if table[dest][0].landscape != table[origin][0].landscape:
            kinds = f"{table[origin][0].landscape} to {table[dest][0].landscape}"
            return f"a Hägar stays in its kind of landscape, not {kinds}"
        if table[dest][0].skull:
            return f"{move.path[1]} shows a skull: wasteland takes no token"
        return f"{move.path[1]} is not free"

    # --- moves -----------------------------------------------------------------------

    def _legal_moves(self, state: HaegarState) -> list:
        if state.phase == PLACE:
            return self.placements(state)
        if state.phase == TOKEN:
            return self._token_moves(state, state.turn)
        return [PASS, *self._hagar_moves(state)]

    def _apply(self, state: HaegarState, move) -> HaegarState:
        who = self.seat_name(state.turn)
        if state.phase == PLACE:
            if not isinstance(move, Placement):
                raise IllegalMove(f"{move}: {who} lays coaster {state.hand} first")
            return self._lay(state, move)
        if state.phase == TOKEN:
            if not isinstance(move, TokenPlacement):
                raise IllegalMove(f"{move}: {who} puts a token on {state.laid[-1].coaster} first")
            return self._place_token(state, move)
        if not isinstance(move, Move):
            raise IllegalMove(f"{move!r}: in the final round {who} moves a Hägar or passes")
        return self._move_hagar(state, move)

    def _parse(self, text: str):
        if not isinstance(text, str):
            raise NotationError(f"a move is text like 'c07 n1e0 east', not {type(text).__name__}")
        words = text.strip().lower().replace("hägar", HAGAR).split()
        if len(words) == 1 and (words[0] == "pass" or "-" in words[0] or ":" in words[0]):
            return parse_path(words[0], self.board.index)
        if len(words) == 2 and words[0] in (HAGAR, GOLD):
            if words[1] not in self.board.index:
                raise NotationError(f"{text!r}: there is no field {words[1]!r} on the table")
            return TokenPlacement(words[0], words[1])
        if len(words) == 3 and words[0] in self.coasters and words[2] in SIDES:
            if words[1] not in self._spot_of:
                raise NotationError(f"{text!r}: there is no spot {words[1]!r} on the table")
            return Placement(*words)
        raise NotationError(
            f"{text!r} is not a Hägar move: write 'c07 n1e0 east' to lay a coaster, "
            "'hagar n1e0_nw' or 'gold n1e0_nw' for a token, 'n1e0_nw-n0e0_se' to move "
            "a Hägar, or 'pass'"
        )

    # --- the table -------------------------------------------------------------------

    def _corner_field(self, coaster: Coaster, turn: int, corner: str) -> Field:
        return next(f for at, _, f in coaster.on_table(turn) if at == corner)

    def _coaster_fields(self, laid: Laid):
        """``(field cell index, printed field)`` for the four fields of a laid coaster."""
        x, y = laid.spot
        for corner, _, field in self.coasters[laid.coaster].on_table(laid.turn):
            ox, oy = CORNERS[corner]
            yield self._field_at[(2 * x + ox, 2 * y + oy)], field

    def _table(self, laid) -> dict[int, tuple[Field, Laid]]:
        """Every covered field cell: its printed field and the coaster it belongs to."""
        return {index: (field, one) for one in laid for index, field in self._coaster_fields(one)}

    def doubled(self, state: HaegarState) -> tuple[str, ...]:
        """The fields whose tokens and gold count double (none before the die)."""
        self._require_state(state)
        return tuple(self._names[i] for i in sorted(self._doubled(state)))

    def _doubled(self, state: HaegarState) -> set[int]:
        if state.die is None:
            return set()
        table = self._table(state.laid)
        xy = {i: self._xy[i] for i in table}
        lines = set()
        for i, (field, laid) in table.items():
            if field.die == state.die:
                axis = 1 if field.arrow_on_table(laid.turn) == ARROWS[0] else 0
                lines.add((axis, xy[i][axis]))
        return {i for i in table if any(xy[i][axis] == at for axis, at in lines)}

    # --- scoring and the end -----------------------------------------------------------

    def scoring(self, state: HaegarState) -> tuple[Landscape, ...]:
        """Every landscape holding a Hägar, scored as if the game ended now."""
        self._require_state(state)
        table = self._table(state.laid)
        doubled = self._doubled(state)
        tokens = dict(state.tokens)
        weight = {i: 2 if i in doubled else 1 for i in table}
        scored, seen = [], set()
        for start in sorted(table):
            if start in seen:
                continue
            region = self._landscape(table, start)
            seen |= region
            hagars = [0] * self.players
            present = [False] * self.players
            for i in region:
                if tokens.get(i, GOLD_TOKEN) != GOLD_TOKEN:
                    hagars[tokens[i]] += weight[i]
                    present[tokens[i]] = True
            if not any(present):
                continue
            gold = sum(
                weight[i] * (table[i][0].gold + (tokens.get(i) == GOLD_TOKEN)) for i in region
            )
            shield = any(table[i][0].shield is not None for i in region)
            most = max(hagars)
            leaders = [s for s in range(self.players) if hagars[s] == most]
            conqueror = leaders[0] if shield and len(leaders) == 1 else None
            scored.append(
                Landscape(
                    kind=table[start][0].landscape,
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
            )
        return tuple(scored)

    def _landscape(self, table: dict, start: int) -> set[int]:
        """The fields of ``start``'s kind joined to it along rows and columns."""
        kind = table[start][0].landscape
        region, todo = {start}, [start]
        while todo:
            x, y = self._xy[todo.pop()]
            for dx, dy in STEPS:
                near = self._field_at.get((x + dx, y + dy))
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
        """Each seat's points from ``scoring`` (the final scores once the game is over)."""
        landscapes = self.scoring(state)
        return tuple(
            sum(land.gold_points[s] + land.dominion_points[s] for land in landscapes)
            for s in range(self.players)
        )

    def beers_owed(self, state: HaegarState) -> dict[int, int]:
        """Honky-tonk: beers each seat owes the winner; winners owe none once it is over."""
        self._require_state(state)
        ended = self.outcome(state)
        return _owed(state.beers, ended.winners if ended is not None else ())

    def outcome(self, state: HaegarState) -> Outcome | None:
        self._require_state(state)
        if state.phase != OVER:
            return None
        scores = self.scores(state)
        if self.players == 1:
            return Outcome((0,), f"{scores[0]} points: {solo_rank(scores[0])}", scores)
        best = max(scores)
        winners = tuple(s for s in range(self.players) if scores[s] == best)
        names = " and ".join(self.seat_name(s) for s in winners)
        reason = (
            f"{names} {'wins' if len(winners) == 1 else 'tie'} with {best} points "
            f"({', '.join(f'{self.seat_name(s)} {p}' for s, p in enumerate(scores))})"
        )
        for seat, beers in sorted(_owed(state.beers, winners).items()):
            reason += f"; {self.seat_name(seat)} owes the winner {beers} beer" + "s" * (beers > 1)
        return Outcome(winners, reason, scores)

    def outcome_words(self, state: HaegarState) -> Words | None:
        """The outcome's reason in words: who wins (or ties) with how many points, each
        seat's points, and the beers owed."""
        ended = self.outcome(state)
        if ended is None or self.players == 1:
            return super().outcome_words(state)
        best, seats = max(ended.scores), tuple(map(self.seat_words, ended.winners))
        scores = tuple(
            words("haegar.seat_points", "{seat} {points}", seat=self.seat_words(s), points=p)
            for s, p in enumerate(ended.scores)
        )
        said = (
            words(
                "haegar.wins",
                "{seat} wins with {points} points ({scores})",
                seat=seats[0],
                points=best,
                scores=scores,
            )
            if len(seats) == 1
            else words(
                "haegar.tie",
                "{seats} tie with {points} points ({scores})",
                seats=seats,
                points=best,
                scores=scores,
            )
        )
        owed = tuple(
            words(
                "haegar.owes_beers",
                "{seat} owes the winner {beers} beer(s)",
                seat=self.seat_words(s),
                beers=n,
            )
            for s, n in sorted(_owed(state.beers, ended.winners).items())
        )
        if owed:
            said = words("haegar.and_beers", "{outcome}; {owed}", outcome=said, owed=owed)
        return said

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

    def __init__(self, game: Haegar):
        self.game = game

    def read(self, data: Any) -> HaegarState:
        game = self.game
        if not isinstance(data, dict) or set(data) != self.KEYS:
            raise RecordError(f"a haegar state has exactly the keys {sorted(self.KEYS)}")
        phase = data["phase"]
        if phase not in PHASES:
            raise RecordError(f"phase {phase!r} is not one of {', '.join(PHASES)}")
        turn = self.seat(data["turn"], "turn")
        laid, beers = self.laid(data["laid"])
        hand = data["hand"]
        if hand is not None and hand not in game.coasters:
            raise RecordError(f"hand {hand!r} is not a coaster")
        pile = data["pile"]
        if not isinstance(pile, list) or not all(isinstance(c, str) for c in pile):
            raise RecordError("pile must be a list of coaster ids")
        every = pile + [c.coaster for c in laid] + ([hand] if hand is not None else [])
        if sorted(every) != sorted(game.coasters):
            raise RecordError("pile, hand and laid coasters must be the 12 coasters, each once")
        recorded_beers = data["beers"]
        if not isinstance(recorded_beers, list):
            raise RecordError("beers must be a list of colours")
        if tuple(self.seat(s, "beers") for s in recorded_beers) != beers:
            raise RecordError("beers do not match the beer coasters laid (honky-tonk)")
        tokens, supply = self.tokens(data["tokens"], data["supply"], laid)
        die, finals_left, ply = data["die"], data["finals_left"], data["ply"]
        for value, what in ((finals_left, "finals_left"), (ply, "ply")):
            if not _is_count(value) or value < 0:
                raise RecordError(f"{what} must be a whole number >= 0, not {value!r}")
        if die is not None and (not _is_count(die) or die not in range(1, 7)):
            raise RecordError(f"die must be 1 to 6 or null, not {die!r}")
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
            raise RecordError(f"phase {phase}: {problem}")
        return state

    def seat(self, name: Any, what: str) -> int:
        if name not in self.game.colours:
            raise RecordError(f"{what}: {name!r} is not a colour in this game")
        return self.game.colours.index(name)

    def laid(self, raw: Any) -> tuple[tuple[Laid, ...], tuple[int, ...]]:
        """The laid coasters, each checked against the rules as it was laid."""
        game = self.game
        if not isinstance(raw, list) or len(raw) > game.coasters_in_play:
            raise RecordError(f"laid must be a list of at most {game.coasters_in_play} coasters")
        laid: tuple[Laid, ...] = ()
        beers: tuple[int, ...] = ()
        for n, entry in enumerate(raw):
            if not (isinstance(entry, list) and len(entry) == 3):
                raise RecordError(f"laid[{n}] must be [coaster, spot, facing]")
            coaster_id, spot_name, facing = entry
            if coaster_id not in game.coasters or spot_name not in game._spot_of:
                raise RecordError(f"laid[{n}]: unknown coaster or spot in {entry!r}")
            if facing not in SIDES:
                raise RecordError(f"laid[{n}]: facing {facing!r} is not one of {SIDES}")
            coaster, spot, turn = (
                game.coasters[coaster_id],
                game._spot_of[spot_name],
                SIDES.index(facing),
            )
            seat = n % game.players
            problem = game._placement_problem(laid, coaster, seat, spot, turn)
            if problem is not None:
                raise RecordError(f"laid[{n}] {' '.join(entry)}: {problem}")
            if game.options["honky_tonk"] and game._in_line_with_beer(laid, coaster, spot):
                beers += (seat,)
            laid += (Laid(coaster_id, spot, turn),)
        return laid, beers

    def tokens(self, raw_tokens: Any, raw_supply: Any, laid) -> tuple[tuple, tuple]:
        game = self.game
        if not isinstance(raw_tokens, dict) or not isinstance(raw_supply, dict):
            raise RecordError("tokens and supply must be objects")
        table = game._table(laid)
        tokens = []
        for field, piece in raw_tokens.items():
            index = game.board.index.get(field)
            if index not in table or table[index][0].skull:
                raise RecordError(f"token on {field!r}: not a skull-free field of a laid coaster")
            tokens.append((index, GOLD_TOKEN if piece == GOLD else self.seat(piece, "tokens")))
        if set(raw_supply) != set(game.colours):
            raise RecordError(f"supply must list {', '.join(game.colours)}")
        supply = []
        hagars = HAGARS_PER_SEAT[game.players]
        for seat, colour in enumerate(game.colours):
            entry = raw_supply[colour]
            if not isinstance(entry, dict) or set(entry) != {HAGAR + "s", GOLD}:
                raise RecordError(f"supply of {colour} must be {{hagars: n, gold: n}}")
            h, g = entry[HAGAR + "s"], entry[GOLD]
            on_table = sum(piece == seat for _, piece in tokens)
            if not (_is_count(h) and _is_count(g)) or h < 0 or g not in (0, 1):
                raise RecordError(f"supply of {colour}: whole numbers, gold 0 or 1")
            if h + on_table != hagars:
                raise RecordError(
                    f"{colour} has {h} Hägars in supply and {on_table} laid, not {hagars}"
                )
            supply.append((h, g))
        gold_laid = sum(piece == GOLD_TOKEN for _, piece in tokens)
        if gold_laid + sum(g for _, g in supply) != game.players:
            raise RecordError(f"{gold_laid} gold tokens laid do not match the gold supplies")
        return tuple(sorted(tokens)), tuple(supply)

    def phase_problem(self, state: HaegarState) -> str | None:
        game, n = self.game, self.game.players
        count = len(state.laid)
        if state.phase in (DRAW, PLACE, TOKEN):
            if (state.die, state.finals_left) != (None, 0):
                return "no die and no final round before the last coaster"
            if (state.hand is not None) != (state.phase == PLACE):
                return "a coaster is in hand exactly while it is to be laid"
            if state.phase == TOKEN:
                if not count or state.turn != (count - 1) % n:
                    return "the seat that laid the last coaster places the token"
                if not game._token_moves(state, state.turn):
                    return "there is no token to place"
            elif count >= game.coasters_in_play or state.turn != count % n:
                return "the seat in turn draws and lays the next coaster"
            return None
        if count != game.coasters_in_play or state.hand is not None:
            return f"all {game.coasters_in_play} coasters are laid"
        if state.phase == DIE:
            if state.die is not None or state.finals_left or state.turn != 0:
                return "the starting player rolls the die once"
            return None
        if state.die is None:
            return "the die has been rolled"
        if state.phase == FINAL:
            if not 0 < state.finals_left <= n or state.turn != (n - state.finals_left + 1) % n:
                return "the final round runs from the second seat round to the first"
            return None
        if state.finals_left or state.turn != 0:
            return "the final round is over"
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


def _owed(beers: tuple[int, ...], winners: tuple[int, ...]) -> dict[int, int]:
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
