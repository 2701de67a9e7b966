"""The table as the referee last judged it: one immutable snapshot per change.

The referee publishes a ``TableState`` with every change; the cell lights, the status
LED, the panel's pages and the café fleet render it as it is and never ask the
referee again. Words in it are keys with parameters (``Said``), so each page says
them in its reader's language. What one seat may know alone (a hand of cards) is in
``views`` and ``seat_moves``, which are never part of the public JSON.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from boardref.referee.choices import Choice, choices_of
from boardref.referee.kinds import EventKind, Phase, Sensor, projection
from boardref.referee.match import Match
from boardref.referee.unseen import Unseen
from boardref.referee.verdicts import hides_hands, no_game
from engines import Game
from engines.chance import commitment
from engines.words import Words


class Said(BaseModel):
    """Words by key: a page looks ``key`` up in its word table and fills in ``params``
    (a parameter may itself be ``{"key", "params"}``, said the same way)."""

    model_config = ConfigDict(frozen=True)

    key: str
    params: dict[str, Any] = {}
    #: the same in English, for logs and programs that read no word table
    english: str = ""

    @classmethod
    def of(cls, words: Words) -> Said:
        data = words.to_json()
        return cls(key=data["key"], params=data["params"], english=str(words))


class SeatState(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    words: Said
    colour: str | None
    computer: bool = False


def seats_of(game: Game, computer: frozenset[int] = frozenset()) -> tuple[SeatState, ...]:
    """The seats of ``game`` as pages show them; ``computer``: the seats it plays."""
    return tuple(
        SeatState(
            name=game.seat_name(s),
            words=Said.of(game.seat_words(s)),
            colour=game.seat_colour(s),
            computer=s in computer,
        )
        for s in range(game.players)
    )


class Ending(BaseModel):
    model_config = ConfigDict(frozen=True)

    winners: tuple[int, ...]
    reason: Said
    scores: tuple[int | float, ...] | None = None


class TableState(BaseModel):
    """Everything the outputs show, as of the referee's last change."""

    model_config = ConfigDict(frozen=True)

    game: str = ""
    players: int = 0
    options: dict[str, Any] = {}
    seats: tuple[SeatState, ...] = ()
    phase: Phase = Phase.SETUP
    #: how the table reads moves: "presence", "camera", "both" or "panel" (tapped)
    sensor: Sensor = Sensor.PRESENCE
    #: the seat to move, or None while something is drawn, set up or over
    to_move: int | None = None
    #: the seat whose roll or draw it is (None: nothing to draw, or the table draws)
    drawer: int | None = None
    #: the seat that acts now (to move, or to draw), its name and colour
    acting: int | None = None
    seat_name: str | None = None
    seat_colour: str | None = None
    notice: Said | None = None
    #: the notice in English
    message: str = ""
    #: the pieces as a perfect camera sees them
    position: dict[str, str | None] = {}
    #: the cells of the last move played (or set down, still open), in order
    last_move: tuple[str, ...] = ()
    #: the last move played, in the game's notation
    last_played: str | None = None
    tentative: str | None = None
    #: the seat whose move is tentative (it may still confirm or extend it)
    tentative_seat: int | None = None
    #: what the seat of a tentative move that may still grow may do to finish it
    still_to_do: Said | None = None
    #: the computer's announced move, still to be carried out, and its cells
    expected: str | None = None
    expected_path: tuple[str, ...] = ()
    computer: tuple[int, ...] = ()
    lifted: str | None = None
    destinations: frozenset[str] = frozenset()
    hints: frozenset[str] = frozenset()
    errors: frozenset[str] = frozenset()
    place: str | None = None
    remove: str | None = None
    #: what must be drawn now, in English (e.g. "d6"), and whether it may be declined
    chance: str | None = None
    chance_optional: bool = False
    last_draw: Any = None
    candidates: tuple[str, ...] = ()
    #: moves the mover may have made that the board cannot feel, asked about while
    #: the turn is open, the cells of each, and whether "none of these" may be said
    #: (``Unseen``)
    unseen: tuple[str, ...] = ()
    unseen_paths: tuple[tuple[str, ...], ...] = ()
    can_rule_out: bool = False
    #: the candidates as drawn on the board: each one's path and the cells it changes
    choices: tuple[Choice, ...] = ()
    outcome: Ending | None = None
    #: whether a confirm would do something now: a move waits, or one the sensors
    #: cannot see may have been made
    can_confirm: bool = False
    can_takeback: bool = False
    commitment: str = ""
    plies: int = 0
    #: the legal moves, for a table whose moves are tapped (public for open games)
    moves: tuple[str, ...] = ()
    #: the position's record as pages show it (``Game.shown_record``: its size never
    #: grows with the game), for games with nothing hidden
    record: dict[str, Any] | None = None
    #: the game's public report (scores per landscape, open stacks...)
    report: dict[str, Any] = {}
    #: per seat, what that seat alone may know, and its moves (hidden hands only)
    views: tuple[dict[str, Any], ...] = Field(default=(), exclude=True)
    seat_moves: tuple[tuple[str, ...], ...] = Field(default=(), exclude=True)

    def view_of(self, seat: int | None) -> dict[str, Any] | None:
        """What ``seat`` alone may see, or None."""
        if seat is None or not 0 <= seat < len(self.views):
            return None
        return self.views[seat]

    def moves_of(self, seat: int | None) -> tuple[str, ...]:
        """The moves a page of ``seat`` may offer: the public ones, or its own."""
        if self.moves or seat is None or not 0 <= seat < len(self.seat_moves):
            return self.moves
        return self.seat_moves[seat]


class Snapshots:
    """Builds the referee's snapshot of the table (``TableState``). What a move leaves
    as it was, or changes by one, is kept from the last snapshot: the seats as shown,
    and the moves counted in the log (a log only grows, or starts anew)."""

    def __init__(self, match: Match, unseen: Unseen):
        self.match = match
        self.unseen = unseen
        #: the game and computer seats the seats were last shown for, and those seats
        self._seats_shown: tuple[Any, frozenset[int], tuple[SeatState, ...]] = (
            None,
            frozenset(),
            (),
        )
        #: the log last counted, how many of its events were counted, and how many moves
        self._plies_counted: tuple[Any, int, int] = (None, 0, 0)
        #: the game, position and tentative move last said as still to do, and the words
        self._still_to_do_said: tuple[Any, Said | None] = (None, None)
        #: the game, position and candidates last drawn as choices, and those choices
        self._choices_drawn: tuple[Any, tuple[Choice, ...]] = (None, ())
        #: the position and origin a held piece was last lit for, and where it may go
        self._held_lit: tuple[Any, str, frozenset[str]] | None = None

    def snapshot(self) -> TableState:
        """The table as judged now: what every output shows (``published`` holds the
        last one sent to the listeners)."""
        m = self.match
        if m.game is None:
            notice = no_game()
            return TableState(notice=Said.of(notice), message=str(notice))
        game, state, base = m.rules, m.current(), m.positions[-1]
        acting = m.phase in (Phase.MOVE, Phase.AMBIGUOUS, Phase.CHANCE)
        # the moves offered to choose from are the last position's: its mover chooses,
        # even while a turn judged earlier is still held. A turn that may still grow
        # (``can_extend``) is its mover's until it is over: the next seat's roll or draw
        # is not offered meanwhile, so nobody is invited to freeze a half-made turn. A
        # finished move held only because it looks like a piece in the hand is ended
        # by the next roll as before, and the mover's own roll again (after a six)
        # ends a held move too.
        left = self._still_to_do(base)
        after = state if m.roll_after_tentative() else None
        own = after is not None and game.drawer(after) == game.to_move(base)
        held = after is not None and not own and left is not None
        seat = (
            game.to_move(base if m.phase == Phase.AMBIGUOUS or held else state) if acting else None
        )
        rolls = None if held else base if m.phase == Phase.CHANCE else after
        drawer = None if rolls is None else game.drawer(rolls)
        spec = None if rolls is None else game.chance(rolls)
        ended = game.outcome(base) if m.phase == Phase.OVER else None
        actor = seat if seat is not None else drawer
        hidden = hides_hands(game)
        moves = self._panel_moves()
        unseen = self.unseen.asked_unseen()
        v = m.view
        asked = v.candidates if m.phase == Phase.AMBIGUOUS else ()
        lifted, destinations = v.lifted, v.destinations
        if lifted is None and not v.errors:
            lifted, destinations = self.held_destinations()
        return TableState(
            game=game.name,
            players=game.players,
            options=dict(game.options),
            seats=self._seats(),
            phase=m.phase,
            sensor=m.sensor,
            to_move=seat,
            drawer=drawer,
            acting=actor,
            seat_name=None if actor is None else game.seat_name(actor),
            seat_colour=None if actor is None else game.seat_colour(actor),
            notice=None if v.notice is None else Said.of(v.notice),
            message=v.message,
            position=game.observe(state),
            last_move=v.last_move,
            last_played=self._last_played(),
            tentative=None if m.tentative is None else str(m.tentative[0]),
            tentative_seat=None if m.tentative is None else game.to_move(base),
            still_to_do=left,
            expected=None if m.expected is None else str(m.expected[0]),
            expected_path=() if m.expected is None else getattr(m.expected[0], "path", ()),
            computer=tuple(sorted(m.computer)),
            lifted=lifted,
            destinations=destinations,
            hints=game.hints(state) if m.phase == Phase.MOVE else frozenset(),
            errors=v.errors,
            place=v.place,
            remove=v.remove,
            chance=None if spec is None else str(spec),
            chance_optional=bool(getattr(spec, "optional", False)),
            last_draw=v.last_draw,
            # asked only while the players are asked: a board read since then may have
            # settled it without a choice
            candidates=asked,
            choices=self._choices(base, asked),
            unseen=tuple(map(str, unseen)),
            unseen_paths=tuple(tuple(getattr(move, "path", ())) for move in unseen),
            can_rule_out=bool(unseen)
            or (m.phase == Phase.AMBIGUOUS and bool(self.unseen.unseen_moves())),
            outcome=None
            if ended is None
            else Ending(winners=ended.winners, reason=Said.of(ended.words), scores=ended.scores),
            can_confirm=self.can_confirm(),
            can_takeback=m.tentative is not None
            or (m.phase != Phase.OVER and bool(m.steps) and m.steps[-1][0] != EventKind.CHANCE),
            commitment=commitment(m.seed),
            plies=self._plies(),
            moves=() if hidden else moves,
            record=None if hidden else game.shown_record(state),
            report=game.report(state),
            views=tuple(game.view(state, s) for s in range(game.players)) if hidden else (),
            seat_moves=tuple(moves if s == seat else () for s in range(game.players))
            if hidden
            else (),
        )

    def _still_to_do(self, base: Any) -> Said | None:
        """What the seat of a tentative move that may still grow may do to finish it
        (None: no move is held, or it is held only as it looks like a piece in the
        hand), worked out once per move held."""
        m = self.match
        if m.tentative is None:
            return None
        held, said = self._still_to_do_said
        move = m.tentative[0]
        if held != (m.game, base, move):
            sensor = projection(m.sensor)
            growing = m.rules.can_extend(base, move, sensor)
            said = Said.of(m.rules.still_to_do(base, move, sensor)) if growing else None
            self._still_to_do_said = ((m.game, base, move), said)
        return said

    def _choices(self, base: Any, candidates: tuple[str, ...]) -> tuple[Choice, ...]:
        """The candidates drawn (``choices_of``), worked out once per question."""
        m = self.match
        asked, drawn = self._choices_drawn
        if asked != (m.game, base, candidates):
            drawn = choices_of(m.rules, base, candidates) if candidates else ()
            self._choices_drawn = ((m.game, base, candidates), drawn)
        return drawn

    def _seats(self) -> tuple[SeatState, ...]:
        """The game's seats as pages show them (``seats_of``)."""
        m = self.match
        game, computer, seats = self._seats_shown
        if game is not m.game or computer != m.computer:
            seats = seats_of(m.rules, m.computer)
            self._seats_shown = (m.game, m.computer, seats)
        return seats

    def _plies(self) -> int:
        """How many moves the log holds, passes included."""
        m = self.match
        log, (counted, done, plies) = m.log, self._plies_counted
        if log is not counted or len(log) < done:
            done = plies = 0
        plies += sum(kind == EventKind.MOVE for kind, _ in log[done:])
        self._plies_counted = (log, len(log), plies)
        return plies

    def _panel_moves(self) -> tuple[str, ...]:
        """The legal moves of a table whose moves are tapped on the panel."""
        m = self.match
        if m.sensor != Sensor.PANEL or m.phase != Phase.MOVE:
            return ()
        return tuple(str(move) for move in m.rules.legal_moves(m.positions[-1]))

    def _last_played(self) -> str | None:
        """The last move a seat played (passes left out), in the game's notation."""
        m = self.match
        for kind, data in reversed(m.steps):
            if kind == EventKind.MOVE and data["move"] != "pass":
                return data["move"]
        return None

    def can_confirm(self) -> bool:
        """Whether a confirm does something now: a move waits for it, or the board
        shows the position and a legal move the sensors cannot see (a hat onto its
        own hats) may have been made. Looked up only where already indexed, so the
        answer never costs an indexing on the loop. Not while the players are asked
        which move was played: a choice answers that, not a confirm."""
        m = self.match
        if m.phase == Phase.AMBIGUOUS:
            return False
        return m.tentative is not None or (
            m.phase == Phase.MOVE and bool(self.unseen.unseen_moves())
        )

    def held_destinations(self) -> tuple[str | None, frozenset[str]]:
        """The origin ``hold`` names and where its legal moves end, or (None, ())."""
        m = self.match
        if not m.held or m.phase != Phase.MOVE or m.tentative is not None:
            return None, frozenset()
        state, origin = m.positions[-1], m.held[0]
        lit = self._held_lit
        if lit is None or lit[:2] != (state, origin):
            no_path: tuple[str, ...] = ()
            paths = (getattr(move, "path", no_path) for move in m.rules.legal_moves(state))
            ends = frozenset(path[-1] for path in paths if path[:1] == (origin,))
            self._held_lit = lit = (state, origin, ends)
        return origin, lit[2]
