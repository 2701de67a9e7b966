"""The referee: settled sensor readings become verdicts, and commands (draw, confirm,
takeback, correction) become events. It is the only place that decides.

A reading is stable once it has not changed for the settle time; it is then matched
against what the sensor would report for every legal successor of the turn-start
position. One match is a move; a move that could still grow (a jump chain set down
mid-way) stays tentative until the next player acts, a confirm, or a draw. No match
is explained in words and the differing cells are shown. Every accepted event goes
to the store before anything changes, so a restart replays exactly this game.

Time comes from the caller (``at`` and ``tick(now)``), so the referee runs the same
on the wall clock and on a simulated one. It never touches a device.
"""

from __future__ import annotations

import time
from typing import Any, Generic, TypeVar, cast

from boardref.eventlog.store import Store, StoreError
from boardref.referee.commands import Commands
from boardref.referee.events import Event, Listener, Outbox
from boardref.referee.guidance import Guidance
from boardref.referee.judging import Judging
from boardref.referee.kinds import EventKind, Phase, Sensor
from boardref.referee.ledger import Ledger
from boardref.referee.match import Logged, Match
from boardref.referee.snapshot import Snapshots, TableState
from boardref.referee.successors import Successors
from boardref.referee.unseen import Unseen
from boardref.referee.verdicts import Reading
from boardref.referee.weighing import Weighing
from engines import Game, Move, RulesError, load_game
from engines.chance import Stream, commitment, new_seed
from engines.words import Words, words

SAVE_RETRY_S = 1.0  # seconds between tries to log a verdict the log refused

T = TypeVar("T")


class OfTheMatch(Generic[T]):
    """An attribute of the referee that is its match's: read and set there."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, referee: Referee, owner: type | None = None) -> T:
        return cast(T, getattr(referee.match, self.name))

    def __set__(self, referee: Referee, value: T) -> None:
        setattr(referee.match, self.name, value)


class Referee:
    """Referees one table: a game, its sensor, its settle time and its log.

    Its parts share one ``Match`` (the whole state) and receive what else they use:
    the ledger logs before anything changes, judging turns readings into verdicts,
    guidance and weighing serve it, the commands act for people and computer seats,
    and the outbox tells the listeners, a snapshot after every change."""

    def __init__(self, store: Store, sensor: Sensor = Sensor.PRESENCE, settle: float = 0.3):
        self.match = match = Match(sensor, settle)
        unseen = Unseen(match)
        self.snapshots = Snapshots(match, unseen)
        self.outbox = outbox = Outbox(self.snapshots.snapshot)
        self.ledger = ledger = Ledger(match, store, outbox)
        self.guidance = Guidance(match, outbox)
        self.weighing = Weighing(match)
        self.judging = Judging(match, ledger, self.guidance, self.weighing, outbox)
        self.commands = commands = Commands(match, ledger, self.judging, unseen, outbox)
        #: prepare lookups on idle ticks; the service turns it off and prepares them
        #: in a worker thread instead (see ``unprepared`` and ``adopt``)
        self.prepare_on_tick = True
        self.unseen_moves = unseen.unseen_moves
        self.asked_unseen = unseen.asked_unseen
        self.snapshot = self.snapshots.snapshot
        self.current = match.current
        self.judge = self.judging.judge
        # the commands, as their part gives them
        self.draw = commands.draw
        self.confirm = commands.confirm
        self.choose = commands.choose
        self.takeback = commands.takeback
        self.seat_computer = commands.seat_computer
        self.computer_to_move = commands.computer_to_move
        self.computer_moves_itself = commands.computer_moves_itself
        self.computer_to_draw = commands.computer_to_draw
        self.expect = commands.expect
        self.play = commands.play
        self.decline = commands.decline
        self.correct = commands.correct
        self.correction_choices = commands.correction_choices
        self.set_position = commands.set_position
        self.hold = commands.hold
        self.rule_out = commands.rule_out

    # --- the match, as callers read it ---------------------------------------------------

    game = OfTheMatch[Game | None]()
    game_id = OfTheMatch[int | None]()
    sensor = OfTheMatch[Sensor]()
    settle = OfTheMatch[float]()
    started = OfTheMatch[float]()
    stream = OfTheMatch[Stream | None]()
    positions = OfTheMatch[list[Any]]()
    steps = OfTheMatch[list[Logged]]()
    log = OfTheMatch[list[Logged]]()
    phase = OfTheMatch[Phase]()
    tentative = OfTheMatch[tuple[Move, Any] | None]()
    expected = OfTheMatch[tuple[Move, Any] | None]()
    computer = OfTheMatch[frozenset[int]]()
    level = OfTheMatch[str]()
    reading = OfTheMatch[Reading | None]()
    read_as = OfTheMatch[Reading | None]()
    failed_saves = OfTheMatch[int]()
    save_error = OfTheMatch[StoreError | None]()
    waiting = OfTheMatch[Words | None]()

    @property
    def store(self) -> Store:
        return self.ledger.store

    @property
    def listeners(self) -> list[Listener]:
        return self.outbox.listeners

    @property
    def published(self) -> TableState:
        """The last snapshot of the table sent to the listeners."""
        return self.outbox.published

    # --- starting and resuming ---------------------------------------------------------

    def new_game(
        self,
        name: str,
        players: int | None = None,
        options: dict[str, Any] | None = None,
        seed: bytes | None = None,
    ) -> None:
        """Start a game; the players then lay out the start position (SETUP)."""
        m = self.match
        options = dict(options or {})
        game = load_game(name, players, **options)
        seed = new_seed() if seed is None else seed
        game_id = self.ledger.store.start_game(name, game.players, options, seed, commitment(seed))
        m.begin(game, game_id, seed)
        m.started = time.time()
        m.view.say(words("referee.setup", "Lay out the start position"))
        if m.sensor == Sensor.PANEL:
            m.phase = m.phase_after_change()
            m.view.clear_problems()
        self.outbox.emit(
            Event(
                EventKind.GAME_STARTED,
                {
                    "game": name,
                    "players": game.players,
                    "options": options,
                    "commitment": commitment(seed),
                },
                accepted=True,
            )
        )
        self.ledger.after_change()
        self.outbox.publish()

    def resume(self) -> bool:
        """Replay the game that was open when the service stopped; False if none."""
        m = self.match
        stored = self.ledger.store.open_game()
        if stored is None:
            return False
        try:
            game = load_game(stored.game, stored.players, **stored.options)
        except RulesError as exc:
            raise StoreError(f"cannot resume game {stored.id}: {exc}") from None
        m.begin(game, stored.id, stored.seed)
        m.started = stored.started
        for stored_kind, data in stored.events:
            try:
                kind = EventKind(stored_kind)
                self.ledger.replay(kind, data)
            except (RulesError, KeyError, TypeError, ValueError) as exc:
                raise StoreError(
                    f"cannot replay game {stored.id} at {stored_kind} {data}: {exc}"
                ) from None
            m.log.append((kind, data))
        ended = bool(m.log) and m.log[-1][0] == EventKind.GAME_OVER
        m.phase = Phase.OVER if ended else Phase.SETUP
        if m.sensor == Sensor.PANEL and not ended:
            m.phase = m.phase_after_change()
        if not ended and m.sensor != Sensor.PANEL:
            m.view.say(words("referee.resumed", "Resumed: the board must match the game"))
        self.outbox.emit(
            Event(EventKind.RESUMED, {"game": stored.game, "events": len(stored.events)})
        )
        self.outbox.publish()
        return True

    # --- sensing -------------------------------------------------------------------------

    def sense(self, reading: Reading, at: float) -> None:
        """A new full reading of the board from the hall sensors, taken at time ``at``."""
        m = self.match
        if m.sensor != Sensor.BOTH:
            m.take(reading, at)
            return
        if reading != m.hall:
            m.hall, m.hall_since = dict(reading), at
        self.weighing.fuse(at)

    def see(self, observation: Any, at: float) -> None:
        """A camera observation (``vision.observation.Observation``) taken at ``at``; the
        verdict weighs it against the legal outcomes (``Weighing.weigh``, ``fusion``)."""
        m = self.match
        m.observation, m.observed_at = observation, at
        if m.sensor in (Sensor.CAMERA, Sensor.BOTH):
            self.weighing.fuse(at)

    def wait_for_still(self, why: Words | None) -> None:
        """A sensor cannot be trusted until the board has been still a while (the camera
        was knocked): show ``why`` on the panel and judge no reading until it reads
        again; None when it does."""
        m = self.match
        if why == m.waiting:
            return
        ours = m.view.notice is not None and m.view.notice == m.waiting
        m.waiting = why
        if why is not None:
            m.view.say(why)
        elif ours:
            m.view.notice = None
        self.outbox.publish()

    def tick(self, now: float) -> bool:
        """Judge the reading if it has settled and was not judged yet; True if judged.

        A tick with nothing to judge prepares the next verdict instead: it indexes the
        successors of the position on the board, work done while players think.
        """
        m = self.match
        if not self.due(now):
            if self.prepare_on_tick and m.game is not None and m.waiting is None:
                self.prepare()
            return False
        reading = m.judged = cast(Reading, m.reading)  # due: a reading is there
        failed = m.failed_saves
        self.judging.judge(reading)
        # the log refused the verdict's event (a full disk): judge again until it takes it
        m.retry_at = now + SAVE_RETRY_S if m.failed_saves != failed else None
        return True

    def due(self, now: float) -> bool:
        """Whether ``tick(now)`` judges the reading: it has settled and was not judged
        yet, or the log refused its verdict a while ago."""
        m = self.match
        if m.game is None or m.sensor == Sensor.PANEL:
            return False  # a panel table's moves are tapped: a reading left over is no move
        if m.waiting is not None:
            return False  # the sensor asked for a still board: what it read before may be stale
        retry = m.retry_at is not None and now >= m.retry_at
        return not (
            m.reading is None
            or now - m.reading_since < m.settle
            or (m.reading == m.judged and not retry)
        )

    def settles_at(self) -> float | None:
        """When the reading on the board will have been still for the settle time and
        is to be judged (on the caller's clock); None when there is nothing to judge."""
        m = self.match
        if m.game is None or m.reading is None or m.reading == m.judged:
            return None
        if m.waiting is not None:
            return None
        return m.reading_since + m.settle

    def prepare(self) -> None:
        """Index what the sensor would read after every legal move from here."""
        m = self.match
        for state in self.unprepared():
            m.successors_of(state)

    def unprepared(self) -> list[Any]:
        """Positions whose successors the next verdict may need and nobody indexed."""
        m = self.match
        if m.sensor == Sensor.PANEL or m.phase not in (Phase.MOVE, Phase.AMBIGUOUS, Phase.SETUP):
            return []  # a panel table's moves are tapped, never read
        return [state for state in m.wanted() if state not in m.successors]

    def adopt(self, game: Game, state: Any, index: Successors) -> None:
        """Take an index built elsewhere (``index_successors``) if it still fits."""
        m = self.match
        if game is m.game and index.sensor == m.sensor:
            m.remember(state, index)
            if self.snapshots.can_confirm() != self.outbox.published.can_confirm:
                self.outbox.publish()

    # --- commands ------------------------------------------------------------------------

    def lights(self, on: bool) -> None:
        """The board's cell lights went on or off (its link up or down): what the
        referee says next points at them, or at the drawing on the screen."""
        self.match.lights_on = on

    def fit_lights(self, fitted: bool) -> None:
        """Whether the board has cell lights at all (a board built without the LED
        strip has none): told once a board is linked, and again when its strip is
        mapped anew."""
        self.match.lights_fitted = fitted

    def use_sensor(self, sensor: Sensor) -> None:
        """Read the board with ``sensor`` from now on. A panel table has no board to
        lay out, so its game starts at once."""
        m = self.match
        was, m.sensor = m.sensor, sensor
        m.successors.clear()
        if was == Sensor.BOTH and sensor != Sensor.BOTH and m.hall is not None:
            m.take(m.hall, m.hall_since)  # the hall sensors' reading goes on
        if sensor == Sensor.PANEL and m.game is not None and m.phase == Phase.SETUP:
            self.judging.start_play()
            self.outbox.publish()
