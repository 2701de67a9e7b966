"""What every rules engine shares: ``Game`` (the base class), ``Move``, ``Outcome``
and ``Option`` (a variant flag with its check).

Engines are pure: no I/O but reading packaged data, no clocks, threads or randomness
of their own (chance is drawn by the caller through ``engines.chance``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar, Generic, TypeVar

from engines.errors import IllegalMove, NotationError, OptionError, RecordError, RulesError
from engines.geometry import Board, load_board
from engines.observation import project
from engines.words import Words, as_words, words

STEP, LEAP = "-", ":"

#: the colours seats play, by name, for a page to translate
COLOUR_WORDS = {
    "red": words("seat.red", "red"),
    "blue": words("seat.blue", "blue"),
    "green": words("seat.green", "green"),
    "yellow": words("seat.yellow", "yellow"),
    "white": words("seat.white", "white"),
    "black": words("seat.black", "black"),
    "pink": words("seat.pink", "pink"),
    "brown": words("seat.brown", "brown"),
}


def joined(items: Iterable[Words | str]) -> Words | str:
    """``a and b and c`` as ``Words``, each item translated where it is ``Words``."""
    items = list(items)
    if not items:
        return ""
    said: Words | str = items[0]
    for item in items[1:]:
        said = words("rules.and", "{before} and {after}", before=said, after=item)
    return said


def drawn_from(pick: random.Random, groups: Sequence[Sequence[Any]]) -> tuple[int, Any]:
    """``(group number, item)`` of one item drawn uniformly from ``groups`` with
    ``pick``: the same draw as ``pick.choice`` over the items listed group by group, for
    a random play that writes out only the move drawn."""
    drawn = pick.randrange(sum(len(group) for group in groups))
    for number, group in enumerate(groups):
        if drawn < len(group):
            return number, group[drawn]
        drawn -= len(group)
    raise ValueError("a draw from no items")


def colour_words(colour: str) -> Words:
    """A seat named by its colour; a colour an owner's board file adds is kept as it is."""
    return COLOUR_WORDS.get(colour) or words("seat.colour", "{colour}", colour=colour)


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
        raise NotationError(
            words(
                "rules.move_is_text",
                "a move is text like 'a1-a2', not {kind}: write it so",
                kind=type(text).__name__,
            )
        )
    text = text.strip().lower()
    if text == "pass":
        return PASS
    has_step, has_leap = STEP in text, LEAP in text
    if has_step and has_leap:
        raise NotationError(
            words(
                "rules.mixes_steps_jumps_never",
                "{text} mixes '-' and ':', but steps and jumps never mix: write steps with '-' or "
                "jumps with ':'",
                text=repr(text),
            )
        )
    if not (has_step or has_leap):
        raise NotationError(
            words(
                "rules.not_move_write_step_jump",
                "{text} is not a move: write 'a1-a2' for a step, 'a1:a3' for a jump",
                text=repr(text),
            )
        )
    path = tuple(part.strip() for part in text.split(LEAP if has_leap else STEP))
    for cell_id in path:
        if cell_id not in cell_ids:
            raise NotationError(
                words(
                    "rules.there_no_cell_board",
                    "{text}: there is no cell {cell_id} on this board: name a cell of the board",
                    text=repr(text),
                    cell_id=repr(cell_id),
                )
            )
    return Move(path, leap=has_leap)


@dataclass(frozen=True)
class Outcome:
    """How a game ended: ``winners`` (seats; empty for a draw), why in ``words`` (for a
    page to translate; a plain sentence is kept as it is), and any scores.

    ``reason`` is the English of ``words``, said only when first read: a search ends
    thousands of games a second and reads only their winners.
    """

    winners: tuple[int, ...]
    words: Words
    scores: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "words", as_words(self.words))

    @cached_property
    def reason(self) -> str:
        return str(self.words)

    @property
    def is_draw(self) -> bool:
        return not self.winners

    def __repr__(self) -> str:
        # as a reader asks for it: why in English, not the words' key and parameters
        return f"Outcome(winners={self.winners!r}, reason={self.reason!r}, scores={self.scores!r})"


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
            if self.default is None:
                raise OptionError(
                    words(
                        "rules.option_kind_or_none",
                        "{game}: option {option}={value} must be {kind} or None",
                        game=game,
                        option=self.name,
                        value=repr(value),
                        kind=self.kind.__name__,
                    )
                )
            raise OptionError(
                words(
                    "rules.option_kind",
                    "{game}: option {option}={value} must be {kind}",
                    game=game,
                    option=self.name,
                    value=repr(value),
                    kind=self.kind.__name__,
                )
            )
        if self.choices is not None and value not in self.choices:
            choices = ", ".join(repr(c) for c in self.choices)
            raise OptionError(
                words(
                    "rules.option_choose_one",
                    "{game}: option {option}={value}; choose one of {choices}",
                    game=game,
                    option=self.name,
                    value=repr(value),
                    choices=choices,
                )
            )
        if self.minimum is not None and value < self.minimum:
            raise OptionError(
                words(
                    "rules.option_below",
                    "{game}: option {option}={value} is below {minimum}",
                    game=game,
                    option=self.name,
                    value=repr(value),
                    minimum=self.minimum,
                )
            )
        if self.maximum is not None and value > self.maximum:
            raise OptionError(
                words(
                    "rules.option_above",
                    "{game}: option {option}={value} is above {maximum}",
                    game=game,
                    option=self.name,
                    value=repr(value),
                    maximum=self.maximum,
                )
            )
        return value


#: the option of every game whose book lets the table choose who starts
FIRST_SEAT = Option(
    "first_seat",
    0,
    "the seat that starts (0 is the first seat); the table decides who starts",
    kind=int,
    minimum=0,
)


#: a game's position type: each engine has its own
S = TypeVar("S")


class Game(Generic[S]):
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

    def __init__(self, players: int | None = None, **options: Any) -> None:
        if players is None:
            players = self.default_players
        if isinstance(players, bool) or not isinstance(players, int):
            raise OptionError(
                words(
                    "rules.players_must_whole_number_not",
                    "{game}: players must be a whole number, not {players}",
                    game=self.name,
                    players=repr(players),
                )
            )
        if players not in self.player_counts:
            counts = ", ".join(map(str, self.player_counts))
            raise OptionError(
                words(
                    "rules.players_not_supported",
                    "{game} is for {counts} players, not {players}",
                    game=self.name,
                    counts=counts,
                    players=players,
                )
            )
        known = {option.name: option for option in self.OPTIONS}
        for key in options:
            if key not in known:
                names = ", ".join(known) or "none"
                raise OptionError(
                    words(
                        "rules.no_option_options",
                        "{game} has no option {option} (options: {names})",
                        game=self.name,
                        option=repr(key),
                        names=names,
                    )
                )
        self.players = players
        self.options: dict[str, Any] = {
            name: option.check(self.name, options.get(name, option.default))
            for name, option in known.items()
        }
        first = self.options.get("first_seat", 0)
        if first >= players:
            raise OptionError(
                words(
                    "rules.first_seat_not_a_seat",
                    "{game}: first_seat={seat} is not a seat of {players, plural, one {# player} "
                    "other {# players}} (0 to {last})",
                    game=self.name,
                    seat=first,
                    players=players,
                    last=players - 1,
                )
            )
        self.board: Board = load_board(self._board_name())

    def __repr__(self) -> str:
        changed = "".join(
            f" {o.name}={self.options[o.name]!r}"
            for o in self.OPTIONS
            if self.options[o.name] != o.default
        )
        return f"<{type(self).__name__} players={self.players}{changed}>"

    # --- the contract -------------------------------------------------------------

    def initial_state(self) -> S:
        raise NotImplementedError

    def to_move(self, state: S) -> int | None:
        """The seat to act, or None while chance is pending or the game is over."""
        self._require_state(state)
        if self.outcome(state) is not None or self.chance(state) is not None:
            return None
        return self._to_move(state)

    def chance(self, state: S) -> Any:
        """What must be drawn before play goes on (``engines.chance`` spec), or None."""
        return None

    def resolve(self, state: S, outcome: Any) -> S:
        raise RulesError(
            words(
                "rules.no_chance_event_resolve",
                "{game} has no chance event to resolve",
                game=self.name,
            )
        )

    def legal_moves(self, state: S) -> Sequence[Any]:
        """Every distinct legal move of the seat to act; [] during chance or at the end."""
        if self.to_move(state) is None:
            return []
        return self._legal_moves(state)

    def must_pass(self, state: S) -> bool:
        """Whether passing is the only legal move of the seat to act. The referee asks
        it after every move; a game that can answer without listing its moves says so
        in its own ``must_pass``."""
        return self.legal_moves(state) == [PASS]

    def random_play(self, state: S, pick: random.Random) -> tuple[Any, S]:
        """``(move, state after it)`` for a legal move of the seat to act drawn with
        ``pick``: uniformly from ``legal_moves`` unless the engine says otherwise in its
        own docstring (a game whose turns end in tens of thousands of ways draws one
        without listing them). Random playouts spend their time here."""
        moves = self.legal_moves(state)
        if not moves:
            self._require_move_due(state)  # says why nobody may move
        move = pick.choice(moves)
        return move, self._made(state, move)

    def _made(self, state: S, move: Any) -> S:
        """The state after ``move``, one of ``legal_moves(state)``: an engine whose
        check of a move costs a playout much makes it here without the check."""
        return self.apply(state, move)

    def successors(self, state: S) -> list[tuple]:
        """Every legal move with the state it leads to. Engines that compute those
        states while listing moves override this to hand them over."""
        return [(move, self._apply(state, move)) for move in self.legal_moves(state)]

    def sensed_successors(
        self, state: S, sensors: tuple[str, ...]
    ) -> tuple[Iterable[tuple[Any, ...]], Callable[[int], tuple[Any, Any]]]:
        """Every legal outcome from ``state`` by what each of ``sensors`` reads
        differently there: an iterable of ``(ref, changes, ...)``, one ``changes``
        per sensor, each a flat tuple ``(cell index, token, cell index, token, ...)``
        in board order of the cells where the outcome's reading differs from
        ``state``'s; and ``resolve(ref)``, the
        ``(move, state)`` a ``ref`` stands for. Lets the referee index tens of
        thousands of outcomes by their few changed cells; engines that can tell the
        changes without building each position override it, and may give them as
        ``engines.sensed.SensedOutcomes`` instead (iterating gives the same rows,
        each outcome's position ``n`` its ref)."""
        pairs = self.successors(state)
        bases = [tuple(self.sense(state, sensor).values()) for sensor in sensors]

        def rows() -> Iterator[tuple[Any, ...]]:
            for ref, (_, after) in enumerate(pairs):
                changes: list[tuple[Any, ...]] = []
                for sensor, base in zip(sensors, bases):
                    reading = self.sense(after, sensor).values()
                    differ = [(i, t) for i, (t, b) in enumerate(zip(reading, base)) if t != b]
                    changes.append(tuple(part for pair in differ for part in pair))
                yield (ref, *changes)

        return rows(), pairs.__getitem__

    def apply(self, state: S, move: Any) -> S:
        """The state after ``move``; raises ``IllegalMove`` with the reason in words."""
        self._require_move_due(state)
        return self._apply(state, move)

    def _require_move_due(self, state: S) -> None:
        """``IllegalMove`` saying why when nobody may move: the game is over, or a
        chance draw comes first."""
        self._require_state(state)
        ended = self.outcome(state)
        if ended is not None:
            raise IllegalMove(
                words(
                    "rules.game_over",
                    "the game is over ({reason}): start a new game",
                    reason=ended.words,
                )
            )
        if self.chance(state) is not None:
            raise IllegalMove(
                words(
                    "rules.chance_draw_pending_resolve",
                    "a chance draw is pending: draw or roll first, then move",
                )
            )

    def outcome(self, state: S) -> Outcome | None:
        raise NotImplementedError

    def can_extend(self, state: S, move: Any, sensor: str = "camera") -> bool:
        """Whether ``move``, made from ``state``, could still grow into a longer legal
        move by the same player (a jump chain set down mid-way), as far as a sensor of
        kind ``sensor`` ("camera", "presence") can tell from the board. The referee
        keeps such a move tentative. By default no move can grow.
        """
        return False

    def still_to_do(self, state: S, move: Any, sensor: str = "camera") -> Words:
        """What the mover may still do after ``move``, made from ``state``, while the
        referee holds it open (``can_extend`` for the same ``sensor``), said as the
        action to take. By default the move may go on or be confirmed."""
        return words("rules.still_to_do", "go on with your move or press Confirm move")

    def observe(self, state: S) -> dict[str, str | None]:
        """What a perfect camera sees: every cell id with its token or None."""
        raise NotImplementedError

    def sense(self, state: S, sensor: str) -> dict[str, str | None]:
        """What a sensor of kind ``sensor`` ("camera", "presence") reports here.

        The referee matches readings against this, like with like. Games whose
        sensors see less than the camera (disks a hall sensor cannot feel, say)
        override it.
        """
        return project(self.observe(state), sensor)

    def stacks(self, state: S) -> dict[str, tuple[str, ...]]:
        """The pieces on each cell that holds any, bottom first, each as the token of
        the piece a hand lifts (a tower is one piece). By default ``observe``'s token,
        one piece a cell."""
        return {cell: (token,) for cell, token in self.observe(state).items() if token}

    def supply(self, state: S) -> dict[str, int]:
        """Pieces waiting beside the board for a player to take, by token (zero counts
        name what the supply takes back). By default none."""
        return {}

    def seat_name(self, seat: int) -> str:
        """How players call a seat: a colour, or a side such as "the hare"."""
        return str(self.seat_words(seat))

    def seat_words(self, seat: int) -> Words:
        """A seat's name as ``Words`` (keys ``seat.*``), for a page to translate."""
        return words("seat.player", "player {n}", n=seat + 1)

    def drawer(self, state: S) -> int | None:
        """The seat that draws or rolls the pending chance (it presses the button), or
        None when nothing is pending or the table draws (a deal, the set-up)."""
        self._require_state(state)
        return None

    def report(self, state: S) -> dict:
        """Public facts a page may show beyond the position (scores per landscape,
        the stacks on a card table), JSON-able and free of hidden information."""
        return {}

    def hints(self, state: S) -> frozenset[str]:
        """Cells worth lighting for the player to move before they touch anything
        (where the marbles in hand would take the hare, say). None by default."""
        return frozenset()

    def seat_colour(self, seat: int) -> str | None:
        """The colour of a seat's pieces, for lights and the panel; None if they have none."""
        return None

    def view(self, state: S, seat: int) -> dict:
        """What one seat may know, JSON-able. Perfect-information games show everything."""
        return self.to_json(state)

    def parse_move(self, state: S, text: str) -> Any:
        """The legal move written as ``text``; raises ``NotationError`` or ``IllegalMove``."""
        self._require_state(state)
        move = self._parse(text)
        self._require_legal(state, move)
        return move

    def _require_legal(self, state: S, move: Any) -> None:
        """``IllegalMove`` with the reason unless ``move`` is legal in ``state``: by
        applying it, unless the engine tells legality without building the position
        after the move."""
        self.apply(state, move)

    def to_json(self, state: S) -> dict:
        self._require_state(state)
        return {
            "game": self.name,
            "players": self.players,
            "options": dict(self.options),
            "state": self._state_to_json(state),
        }

    def shown_record(self, state: S) -> dict:
        """The position's record as the pages receive it with every change: the state
        part of ``to_json``, less what grows with the length of a game (the positions
        seen so far, which only the record of a whole game needs). ``from_json`` takes
        it back as the same position with its history starting there."""
        self._require_state(state)
        return self._state_to_json(state)

    def from_json(self, record: Any) -> S:
        """The state in a ``to_json`` record; ``RecordError`` if corrupt or foreign."""
        if not isinstance(record, dict):
            raise RecordError(
                words(
                    "rules.record_json_object_not",
                    "a {game} record is a JSON object, not {kind}",
                    game=self.name,
                    kind=type(record).__name__,
                )
            )
        for key in ("game", "players", "options", "state"):
            if key not in record:
                raise RecordError(
                    words("rules.record_missing_key", "the record has no {field}", field=repr(key))
                )
        if record["game"] != self.name:
            raise RecordError(
                words(
                    "rules.record_other_game",
                    "the record is for {game}, not {game2}",
                    game=repr(record["game"]),
                    game2=repr(self.name),
                )
            )
        # an option a record does not name had its default (records older than it)
        options = record["options"]
        if isinstance(options, dict):
            options = {o.name: o.default for o in self.OPTIONS} | options
        if record["players"] != self.players or options != self.options:
            raise RecordError(
                words(
                    "rules.record_players_options_game",
                    (
                        "the record is for {players, plural, one {# player} other {# players}} "
                        "with options {options}; this game has {players2} with {options2}"
                    ),
                    players=record["players"],
                    options=str(record["options"]),
                    players2=self.players,
                    options2=str(self.options),
                )
            )
        try:
            return self._state_from_json(record["state"])
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise RecordError(
                words(
                    "rules.corrupt_record",
                    "corrupt {game} record: {exc}",
                    game=self.name,
                    exc=repr(exc),
                )
            ) from None

    # --- hooks for subclasses ------------------------------------------------------

    def _board_name(self) -> str:
        return self.name

    def _require_state(self, state: Any) -> None:
        if not isinstance(state, self.state_type):
            raise RulesError(
                words(
                    "rules.not_a_state",
                    "not a {game} state: {kind}",
                    game=self.name,
                    kind=type(state).__name__,
                )
            )

    def _to_move(self, state: S) -> int:
        raise NotImplementedError

    def _legal_moves(self, state: S) -> Sequence[Any]:
        raise NotImplementedError

    def _apply(self, state: S, move: Any) -> S:
        raise NotImplementedError

    def _parse(self, text: str) -> Any:
        return parse_path(text, self.board.index)

    def _state_to_json(self, state: S) -> dict:
        raise NotImplementedError

    def _state_from_json(self, data: Any) -> S:
        raise NotImplementedError

    # --- helpers for path-moving games ---------------------------------------------

    def _cells_of(self, move: Any) -> tuple[int, ...]:
        """The path of a ``Move`` as cell indices, or ``IllegalMove`` if it is not one."""
        if not isinstance(move, Move):
            raise IllegalMove(
                words(
                    "rules.not_a_move",
                    "{move} is not a {game} move: move as the rules of {game} say",
                    move=repr(move),
                    game=self.name,
                )
            )
        try:
            return tuple(self.board.index[cell_id] for cell_id in move.path)
        except (KeyError, TypeError):
            raise IllegalMove(
                words(
                    "rules.not_every_cell_board",
                    "not every cell is on this board: name cells of the board",
                ),
                move=str(move),
            ) from None

    def _cell_list(self, data: Any, what: str) -> list[int]:
        """A JSON list of cell ids as indices, with a clear error for anything else."""
        if not isinstance(data, list):
            raise RecordError(
                words("rules.must_list_cell_ids", "{what} must be a list of cell ids", what=what)
            )
        cells = []
        for cell_id in data:
            if cell_id not in self.board.index:
                raise RecordError(
                    words(
                        "rules.not_a_cell",
                        "{what}: {cell_id} is not a cell of {name}",
                        what=what,
                        cell_id=repr(cell_id),
                        name=self.board.name,
                    )
                )
            cells.append(self.board.index[cell_id])
        if len(set(cells)) != len(cells):
            raise RecordError(
                words("rules.cell_listed_twice", "{what}: a cell is listed twice", what=what)
            )
        return cells
