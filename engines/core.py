"""What every rules engine shares: ``Game`` (the base class), ``Move``, ``Outcome``
and ``Option`` (a variant flag with its check).

Engines are pure: no I/O but reading packaged data, no clocks, threads or randomness
of their own (chance is drawn by the caller through ``engines.chance``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engines.errors import IllegalMove, NotationError, OptionError, RecordError, RulesError
from engines.geometry import Board, load_board
from engines.observation import project
from engines.words import Words, as_words, words

STEP, LEAP = "-", ":"


@dataclass(frozen=True)
class Move:
    """A piece moving along ``path`` (cell ids): one step, or a chain of leaps.

    ``str(move)`` is the notation: ``e13-f12`` for a step, ``e13:g11:e9`` for a jump
    chain, ``pass`` for a player with no legal move.
    """

    path: tuple[str, ...]
    leap: bool = False

    def __str__(self) -> str:
        if not self.path:
            return "pass"
        return (LEAP if self.leap else STEP).join(self.path)

    @property
    def origin(self) -> str:
        return self.path[0]

    @property
    def destination(self) -> str:
        return self.path[-1]


PASS = Move(())


def parse_path(text: str, cell_ids: dict[str, int]) -> Move:
    """Read ``a1-a2``, ``a1:a3:c3`` or ``pass``; checks the notation, not the rules."""
    if not isinstance(text, str):
        raise NotationError(f"a move is text like 'a1-a2', not {type(text).__name__}")
    text = text.strip().lower()
    if text == "pass":
        return PASS
    has_step, has_leap = STEP in text, LEAP in text
    if has_step and has_leap:
        raise NotationError(f"{text!r} mixes '-' and ':': steps and jumps never mix")
    if not (has_step or has_leap):
        raise NotationError(f"{text!r} is not a move: write 'a1-a2' for a step, 'a1:a3' for a jump")
    path = tuple(part.strip() for part in text.split(LEAP if has_leap else STEP))
    for cell_id in path:
        if cell_id not in cell_ids:
            raise NotationError(f"{text!r}: there is no cell {cell_id!r} on this board")
    return Move(path, leap=has_leap)


@dataclass(frozen=True)
class Outcome:
    """How a game ended: ``winners`` (seats; empty for a draw), why, and any scores."""

    winners: tuple[int, ...]
    reason: str
    scores: tuple[float, ...] | None = None

    @property
    def is_draw(self) -> bool:
        return not self.winners


@dataclass(frozen=True)
class Option:
    """One variant flag of ``load_game(name, **options)`` with its default and check."""

    name: str
    default: Any
    doc: str
    kind: type = bool
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None

    def check(self, game: str, value: Any) -> Any:
        if value is None and self.default is None:
            return None
        wrong_type = not isinstance(value, self.kind) or (
            self.kind is int and isinstance(value, bool)
        )
        if wrong_type:
            raise OptionError(
                f"{game}: option {self.name}={value!r} must be {self.kind.__name__}"
                + (" or None" if self.default is None else "")
            )
        if self.choices is not None and value not in self.choices:
            choices = ", ".join(repr(c) for c in self.choices)
            raise OptionError(f"{game}: option {self.name}={value!r}; choose one of {choices}")
        if self.minimum is not None and value < self.minimum:
            raise OptionError(f"{game}: option {self.name}={value!r} is below {self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise OptionError(f"{game}: option {self.name}={value!r} is above {self.maximum}")
        return value


class Game:
    """A game's rules with its chosen players and variant options.

    Subclasses set the class attributes and implement the hooks named with a leading
    underscore; the public methods here add the checks every game needs, so bad
    input gets a clear error before it reaches a game's own code.
    """

    name: ClassVar[str]
    player_counts: ClassVar[tuple[int, ...]]
    default_players: ClassVar[int]
    OPTIONS: ClassVar[tuple[Option, ...]] = ()
    state_type: ClassVar[type]
    #: how a table can read this game: "presence" (hall sensors under the cells),
    #: "camera", "panel" (moves tapped on the web panel)
    SENSORS: ClassVar[tuple[str, ...]] = ("presence", "camera", "panel")
    #: whether a cell may hold several pieces (hats on hats), or one piece at most
    STACKS: ClassVar[bool] = False

    def __init__(self, players: int | None = None, **options: Any):
        if players is None:
            players = self.default_players
        if isinstance(players, bool) or not isinstance(players, int):
            raise OptionError(f"{self.name}: players must be a whole number, not {players!r}")
        if players not in self.player_counts:
            counts = ", ".join(map(str, self.player_counts))
            raise OptionError(f"{self.name} is for {counts} players, not {players}")
        known = {option.name: option for option in self.OPTIONS}
        for key in options:
            if key not in known:
                names = ", ".join(known) or "none"
                raise OptionError(f"{self.name} has no option {key!r} (options: {names})")
        self.players = players
        self.options: dict[str, Any] = {
            name: option.check(self.name, options.get(name, option.default))
            for name, option in known.items()
        }
        self.board: Board = load_board(self._board_name())

    def __repr__(self) -> str:
        changed = "".join(
            f" {o.name}={self.options[o.name]!r}"
            for o in self.OPTIONS
            if self.options[o.name] != o.default
        )
        return f"<{type(self).__name__} players={self.players}{changed}>"

    # --- the contract -------------------------------------------------------------

    def initial_state(self):
        raise NotImplementedError

    def to_move(self, state) -> int | None:
        """The seat to act, or None while chance is pending or the game is over."""
        self._require_state(state)
        if self.outcome(state) is not None or self.chance(state) is not None:
            return None
        return self._to_move(state)

    def chance(self, state):
        """What must be drawn before play goes on (``engines.chance`` spec), or None."""
        return None

    def resolve(self, state, outcome):
        raise RulesError(f"{self.name} has no chance event to resolve")

    def legal_moves(self, state) -> list:
        """Every distinct legal move of the seat to act; [] during chance or at the end."""
        if self.to_move(state) is None:
            return []
        return self._legal_moves(state)

    def successors(self, state) -> list[tuple]:
        """Every legal move with the state it leads to. Engines that compute those
        states while listing moves override this to hand them over."""
        return [(move, self._apply(state, move)) for move in self.legal_moves(state)]

    def apply(self, state, move):
        """The state after ``move``; raises ``IllegalMove`` with the reason in words."""
        self._require_state(state)
        ended = self.outcome(state)
        if ended is not None:
            raise IllegalMove(f"the game is over ({ended.reason})")
        if self.chance(state) is not None:
            raise IllegalMove("a chance draw is pending; resolve it before moving")
        return self._apply(state, move)

    def outcome(self, state) -> Outcome | None:
        raise NotImplementedError

    def can_extend(self, state, move) -> bool:
        """Whether ``move``, made from ``state``, could still grow into a longer legal
        move by the same player (a jump chain set down mid-way). The referee keeps
        such a move tentative. By default no move can grow.
        """
        return False

    def observe(self, state) -> dict[str, str | None]:
        """What a perfect camera sees: every cell id with its token or None."""
        raise NotImplementedError

    def sense(self, state, sensor: str) -> dict[str, str | None]:
        """What a sensor of kind ``sensor`` ("camera", "presence") reports here.

        The referee matches readings against this, like with like. Games whose
        sensors see less than the camera (disks a hall sensor cannot feel, say)
        override it.
        """
        return project(self.observe(state), sensor)

    def stacks(self, state) -> dict[str, tuple[str, ...]]:
        """The pieces on each cell that holds any, bottom first, each as the token of
        the piece a hand lifts (a tower is one piece). By default ``observe``'s token,
        one piece a cell."""
        return {cell: (token,) for cell, token in self.observe(state).items() if token}

    def supply(self, state) -> dict[str, int]:
        """Pieces waiting beside the board for a player to take, by token (zero counts
        name what the supply takes back). By default none."""
        return {}

    def outcome_words(self, state) -> Words | None:
        """How the game ended (``outcome``'s reason) as words a page translates; games
        whose reasons are plain English sentences override it."""
        ended = self.outcome(state)
        return None if ended is None else as_words(ended.reason)

    def seat_name(self, seat: int) -> str:
        """How players call a seat: a colour, or a side such as "the hare"."""
        return str(self.seat_words(seat))

    def seat_words(self, seat: int) -> Words:
        """The seat's name as words a page translates (``engines.words``)."""
        return words("seat.number", "seat {n}", n=seat + 1)

    def drawer(self, state) -> int | None:
        """The seat whose turn it is to draw or roll what ``chance`` asks for; None
        when nothing is pending or the table draws (a deal, the set-up)."""
        return None

    def report(self, state) -> dict:
        """Public facts a page may show beyond the position (scores per landscape,
        the stacks on a card table), JSON-able and free of hidden information."""
        return {}

    def hints(self, state) -> frozenset[str]:
        """Cells worth lighting for the player to move before they touch anything
        (where the marbles in hand would take the hare, say). None by default."""
        return frozenset()

    def seat_colour(self, seat: int) -> str | None:
        """The colour of a seat's pieces, for lights and the panel; None if they have none."""
        return None

    def view(self, state, seat: int) -> dict:
        """What one seat may know, JSON-able. Perfect-information games show everything."""
        return self.to_json(state)

    def parse_move(self, state, text: str):
        """The legal move written as ``text``; raises ``NotationError`` or ``IllegalMove``."""
        self._require_state(state)
        move = self._parse(text)
        self.apply(state, move)
        return move

    def to_json(self, state) -> dict:
        self._require_state(state)
        return {
            "game": self.name,
            "players": self.players,
            "options": dict(self.options),
            "state": self._state_to_json(state),
        }

    def from_json(self, record: Any):
        """The state in a ``to_json`` record; ``RecordError`` if corrupt or foreign."""
        if not isinstance(record, dict):
            raise RecordError(f"a {self.name} record is a JSON object, not {type(record).__name__}")
        for key in ("game", "players", "options", "state"):
            if key not in record:
                raise RecordError(f"the record has no {key!r}")
        if record["game"] != self.name:
            raise RecordError(f"the record is for {record['game']!r}, not {self.name!r}")
        if record["players"] != self.players or record["options"] != self.options:
            raise RecordError(
                f"the record is for {record['players']} players with options "
                f"{record['options']}; this game has {self.players} with {self.options}"
            )
        try:
            return self._state_from_json(record["state"])
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise RecordError(f"corrupt {self.name} record: {exc!r}") from None

    # --- hooks for subclasses ------------------------------------------------------

    def _board_name(self) -> str:
        return self.name

    def _require_state(self, state) -> None:
        if not isinstance(state, self.state_type):
            raise RulesError(f"not a {self.name} state: {type(state).__name__}")

    def _to_move(self, state) -> int:
        raise NotImplementedError

    def _legal_moves(self, state) -> list:
        raise NotImplementedError

    def _apply(self, state, move):
        raise NotImplementedError

    def _parse(self, text: str):
        return parse_path(text, self.board.index)

    def _state_to_json(self, state) -> dict:
        raise NotImplementedError

    def _state_from_json(self, data: Any):
        raise NotImplementedError

    # --- helpers for path-moving games ---------------------------------------------

    def _cells_of(self, move: Any) -> tuple[int, ...]:
        """The path of a ``Move`` as cell indices, or ``IllegalMove`` if it is not one."""
        if not isinstance(move, Move):
            raise IllegalMove(f"{move!r} is not a {self.name} move")
        try:
            return tuple(self.board.index[cell_id] for cell_id in move.path)
        except (KeyError, TypeError):
            raise IllegalMove(f"{move}: not every cell is on this board") from None

    def _cell_list(self, data: Any, what: str) -> list[int]:
        """A JSON list of cell ids as indices, with a clear error for anything else."""
        if not isinstance(data, list):
            raise RecordError(f"{what} must be a list of cell ids")
        cells = []
        for cell_id in data:
            if cell_id not in self.board.index:
                raise RecordError(f"{what}: {cell_id!r} is not a cell of {self.board.name}")
            cells.append(self.board.index[cell_id])
        if len(set(cells)) != len(cells):
            raise RecordError(f"{what}: a cell is listed twice")
        return cells
