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

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from boardref.eventlog.store import Store, StoreError
from boardref.referee import fusion
from boardref.referee.commands import Commands
from boardref.referee.guidance import Guidance
from boardref.referee.snapshot import Snapshots, TableState
from boardref.referee.successors import (
    BOTH,
    CAMERA,
    Successors,
    index_successors,
    outcomes_read_as,
    projection,
)
from boardref.referee.unseen import Unseen
from boardref.referee.verdicts import (
    AMBIGUOUS,
    CHANCE,
    MOVE,
    OVER,
    PANEL,
    SETUP,
    Event,
    Reading,
    RefereeError,
    TableView,
    hides_hands,
    not_saved,
)
from boardref.referee.weighing import Weighing
from boardref.runtime.memory import give_back
from engines import PASS, Move, RulesError, load_game
from engines.chance import Stream, commitment, new_seed
from engines.words import Words, words

log = logging.getLogger("boardref")

#: names other modules take from here
__all__ = [
    "AMBIGUOUS",
    "BOTH",
    "CAMERA",
    "CHANCE",
    "MOVE",
    "OVER",
    "PANEL",
    "SETUP",
    "Event",
    "Reading",
    "Referee",
    "RefereeError",
    "hides_hands",
    "projection",
]

SAVE_RETRY_S = 1.0  # seconds between tries to log a verdict the log refused
#: the most the indexed successors of recent positions may take (those the next
#: verdict needs are kept whatever they take): an old position's index serves only
#: a move taken back, and is built again then; on a camera table every megabyte
#: kept adds to the service's peak
INDEX_BYTES = 8 * 2**20


class Referee(Guidance, Commands, Snapshots, Weighing, Unseen):
    """Referees one table: a game, its sensor kind, its settle time and its log."""

    def __init__(self, store: Store, sensor: str = "presence", settle: float = 0.3):
        self.store = store
        self.sensor = sensor
        self.settle = settle
        self.listeners: list[Callable[[Event], None]] = []
        #: the last snapshot of the table sent with a "display" event
        self.published = TableState()
        #: prepare lookups on idle ticks; the service turns it off and prepares them
        #: in a worker thread instead (see ``unprepared`` and ``adopt``)
        self.prepare_on_tick = True
        self.game = None
        self.game_id: int | None = None
        #: when the game began (wall clock), for "time in game"
        self.started = 0.0
        self._seed = b""
        self.stream: Stream | None = None
        self.positions: list[Any] = []
        #: the event that led to each position after the first (takeback pops both)
        self.steps: list[tuple[str, dict[str, Any]]] = []
        self.log: list[tuple[str, dict[str, Any]]] = []
        self.phase = SETUP
        self.tentative: tuple[Move, Any] | None = None
        #: the computer's move the players are to carry out, and where it leads
        self.expected: tuple[Any, Any] | None = None
        #: seats the computer plays, and how strongly
        self.computer: frozenset[int] = frozenset()
        self.level = "hard"
        self.reading: Reading | None = None
        #: the reading the last verdict judged: with a camera, the legal outcome it fits
        self.read_as: Reading | None = None
        self._reading_since = 0.0
        self._judged: Reading | None = None
        self._successors: dict[Any, Successors] = {}
        #: the last position whose reading ``_key_of`` made, with its game and sensor:
        #: a verdict asks for the same one up to three times
        self._key_kept: tuple[Any, str, Any, tuple] = (None, "", None, ())
        self._view = TableView()
        #: the camera's last observation, the hall sensors' last reading and since when
        self._observation = None
        self._observed_at = 0.0
        self._hall: Reading | None = None
        self._hall_since = 0.0
        self._tokens = fusion.Tokens()
        #: the camera could not tell some legal outcomes apart: (reading, their readings)
        #: (reading, their readings, what the panel asks; None: which was played)
        self._doubt: tuple[tuple, tuple[tuple, ...], Words | None] | None = None
        #: cells a hand lifted pieces from that the sensors still feel (see ``hold``)
        self._held: tuple[str, ...] = ()
        self._held_lit: tuple[Any, str, frozenset[str]] | None = None
        #: events the log refused (a full disk), and the last refusal
        self.failed_saves = 0
        self.save_error: StoreError | None = None
        #: when a reading whose event the log refused is judged again
        self._retry_at: float | None = None
        #: why a sensor asks for a still board before it reads again (a knocked
        #: camera); no reading is judged meanwhile (``wait_for_still``)
        self.waiting: Words | None = None

    # --- starting and resuming ---------------------------------------------------------

    def new_game(
        self,
        name: str,
        players: int | None = None,
        options: dict | None = None,
        seed: bytes | None = None,
    ) -> None:
        """Start a game; the players then lay out the start position (SETUP)."""
        options = dict(options or {})
        game = load_game(name, players, **options)
        seed = new_seed() if seed is None else seed
        game_id = self.store.start_game(name, game.players, options, seed, commitment(seed))
        self._begin(game, game_id, seed)
        self.started = time.time()
        self._view.say(words("referee.setup", "Lay out the start position"))
        if self.sensor == PANEL:
            self.phase = self._phase_after_change()
            self._view.clear_problems()
        self._emit(
            Event(
                "game_started",
                {
                    "game": name,
                    "players": game.players,
                    "options": options,
                    "commitment": commitment(seed),
                },
                accepted=True,
            )
        )
        self._after_change()
        self._publish()

    def resume(self) -> bool:
        """Replay the game that was open when the service stopped; False if none."""
        stored = self.store.open_game()
        if stored is None:
            return False
        try:
            game = load_game(stored.game, stored.players, **stored.options)
        except RulesError as exc:
            raise StoreError(f"cannot resume game {stored.id}: {exc}") from None
        self._begin(game, stored.id, stored.seed)
        self.started = stored.started
        for kind, data in stored.events:
            try:
                self._replay(kind, data)
            except (RulesError, KeyError, TypeError) as exc:
                raise StoreError(
                    f"cannot replay game {stored.id} at {kind} {data}: {exc}"
                ) from None
            self.log.append((kind, data))
        ended = bool(self.log) and self.log[-1][0] == "game_over"
        self.phase = OVER if ended else SETUP
        if self.sensor == PANEL and not ended:
            self.phase = self._phase_after_change()
        if not ended and self.sensor != PANEL:
            self._view.say(words("referee.resumed", "Resumed: the board must match the game"))
        self._emit(Event("resumed", {"game": stored.game, "events": len(stored.events)}))
        self._publish()
        return True

    def _begin(self, game, game_id: int, seed: bytes) -> None:
        self.game, self.game_id, self._seed = game, game_id, seed
        self._cell_ids = [cell.id for cell in game.board.cells]
        self.stream = Stream(seed)
        self.positions = [game.initial_state()]
        self.steps = []
        self.log = []
        self.tentative = None
        self.expected = None
        self.computer = frozenset()
        self.phase = SETUP
        self._successors = {}
        self._judged = None
        self._view = TableView()
        self._tokens = fusion.Tokens()
        self._doubt = None
        self.read_as = None
        self._held = ()

    def _replay(self, kind: str, data: dict[str, Any]) -> None:
        state = self.positions[-1]
        if kind == "move":
            self._step(
                kind, data, self.game.apply(state, self.game.parse_move(state, data["move"]))
            )
        elif kind == "chance":
            self.stream.counter = data["counter"]
            self._step(kind, data, self.game.resolve(state, _tuples(data["outcome"])))
        elif kind == "takeback":
            self._step(kind, data, None)
        elif kind == "correction":
            self._step(kind, data, self.game.from_json(data["record"]))
        elif kind == "seats":
            self.computer, self.level = frozenset(data["computer"]), data["level"]
        elif kind != "game_over":
            raise RulesError(f"unknown event kind {kind!r}")

    def _step(self, kind: str, data: dict[str, Any], state) -> None:
        if kind == "takeback":
            self.positions.pop()
            self.steps.pop()
        else:
            self.positions.append(state)
            self.steps.append((kind, data))

    # --- sensing -------------------------------------------------------------------------

    def sense(self, reading: Reading, at: float) -> None:
        """A new full reading of the board from the hall sensors, taken at time ``at``."""
        if self.sensor != BOTH:
            self._take(reading, at)
            return
        if reading != self._hall:
            self._hall, self._hall_since = dict(reading), at
        self._fuse(at)

    def observe(self, observation, at: float) -> None:
        """A camera observation (``vision.observation.Observation``) taken at ``at``; the
        verdict weighs it against the legal outcomes (``_weigh``, ``fusion``)."""
        self._observation, self._observed_at = observation, at
        if self.sensor in (CAMERA, BOTH):
            self._fuse(at)

    def _take(self, reading: Reading, at: float) -> None:
        if reading != self.reading:
            self.reading = dict(reading)
            self._reading_since = at

    def wait_for_still(self, why: Words | None) -> None:
        """A sensor cannot be trusted until the board has been still a while (the camera
        was knocked): show ``why`` on the panel and judge no reading until it reads
        again; None when it does."""
        if why == self.waiting:
            return
        ours = self._view.notice is not None and self._view.notice == self.waiting
        self.waiting = why
        if why is not None:
            self._view.say(why)
        elif ours:
            self._view.notice = None
        self._publish()

    def tick(self, now: float) -> bool:
        """Judge the reading if it has settled and was not judged yet; True if judged.

        A tick with nothing to judge prepares the next verdict instead: it indexes the
        successors of the position on the board, work done while players think.
        """
        if self.game is None or self.sensor == PANEL:
            return False  # a panel table's moves are tapped: a reading left over is no move
        if self.waiting is not None:
            return False  # the sensor asked for a still board: what it read before may be stale
        settled = self.reading is not None and now - self._reading_since >= self.settle
        retry = self._retry_at is not None and now >= self._retry_at
        if not settled or (self.reading == self._judged and not retry):
            if self.prepare_on_tick:
                self.prepare()
            return False
        self._judged = self.reading
        failed = self.failed_saves
        self.judge(self.reading)
        # the log refused the verdict's event (a full disk): judge again until it takes it
        self._retry_at = now + SAVE_RETRY_S if self.failed_saves != failed else None
        return True

    def _judge_unsettled(self) -> bool:
        """Judge the reading on the board now, before it has settled (a player says
        the move is made); True if there was one to judge."""
        if self.game is None or self.sensor == PANEL or self.waiting is not None:
            return False
        if self.reading is None or self.reading == self._judged:
            return False
        if self.phase not in (MOVE, AMBIGUOUS):
            return False
        self._judged, failed = self.reading, self.failed_saves
        self.judge(self.reading)
        if self.failed_saves != failed:  # the log refused it: the next tick judges again
            self._judged = None
        return True

    def settles_at(self) -> float | None:
        """When the reading on the board will have been still for the settle time and
        is to be judged (on the caller's clock); None when there is nothing to judge."""
        if self.game is None or self.reading is None or self.reading == self._judged:
            return None
        if self.waiting is not None:
            return None
        return self._reading_since + self.settle

    def prepare(self) -> None:
        """Index what the sensor would read after every legal move from here."""
        for state in self.unprepared():
            self._successors_of(state)

    def unprepared(self) -> list:
        """Positions whose successors the next verdict may need and nobody indexed."""
        if self.sensor == PANEL or self.phase not in (MOVE, AMBIGUOUS, SETUP):
            return []  # a panel table's moves are tapped, never read
        return [state for state in self._wanted() if state not in self._successors]

    def _wanted(self) -> list:
        """The positions a reading may be one move from: the last, and a tentative one."""
        return [self.positions[-1]] + ([self.tentative[1]] if self.tentative else [])

    def adopt(self, game, state, index: Successors) -> None:
        """Take an index built elsewhere (``index_successors``) if it still fits."""
        if game is self.game and index.sensor == self.sensor:
            self._remember(state, index)
            if self._can_confirm() != self.published.can_confirm:
                self._publish()

    def judge(self, reading: Reading) -> None:
        """The verdict on a settled reading (settling is the caller's or ``tick``'s job)."""
        if self.sensor in (CAMERA, BOTH) and self._observation is not None:
            reading = self._weigh(reading)
        self.read_as = reading
        if self.phase == OVER:
            self._show_differences(reading, self.current(), quiet=True)
        elif self.phase == SETUP:
            if self._guide_back(reading):
                self._start_play()
            elif (
                len(self.positions) > 1
                and self._phase_after_change() == MOVE
                and self._successors_of(self.positions[-1]).get(self._key(reading))
            ):
                # resumed while a move was on the board but not yet logged
                self._start_play()
                self._judge_move(reading)
        elif self.phase == CHANCE:
            self._guide_back(reading)
        else:
            self._judge_move(reading)
        self._publish()

    def _looks_lifted(self, base, key: tuple) -> bool:
        """Whether a move's reading only empties cells, as a piece held in the hand
        does (a hat put onto a tower the sensor already feels): it waits for the
        player's confirm or the next player rather than being taken at once. A cell
        that shows something else (the camera sees a figure land on a disk) is a
        piece put down, not lifted."""
        before = self._key_of(base)
        return all(then is None or now == then for now, then in zip(before, key)) and any(
            now is not None and then is None for now, then in zip(before, key)
        )

    def _may_grow(self, base, move) -> bool:
        """Whether the board after ``move`` may, as this table's sensors read it, show
        a turn still under way."""
        return self.game.can_extend(base, move, projection(self.sensor))

    def _start_play(self) -> None:
        self.phase = self._phase_after_change()
        self._view.clear_problems()
        self._emit(Event("in_position", {}))
        self._after_change()

    def _judge_move(self, reading: Reading) -> None:
        base, key = self.positions[-1], self._key(reading)
        if self._doubt is not None and self._doubt[0] == key:
            doubtful = {
                state: move
                for tie in self._doubt[1]
                for move, state in self._successors_of(base).get(tie)
            }
            if doubtful:
                self._ask(doubtful.values(), self._doubt[2])
                return
        if key == self._key_of(self.current()):
            self._view.clear_problems()
            return
        if self.expected is not None and key == self._key_of(self.expected[1]):
            self._judge_expected({self.expected[1]: self.expected[0]})  # no need to list all
            return
        matches = self._read_as(base, key)
        if not matches and self.tentative is not None:
            after = self.tentative[1]
            following = self._read_as(after, key)
            if following:
                if not self._finalise():
                    return
                self._judge_move(reading)
                return
        distinct = {state: move for move, state in matches}
        if self.expected is not None and distinct:
            self._judge_expected(distinct)
            return
        if len(distinct) > 1 and (
            self.tentative is not None or any(self._may_grow(base, m) for m in distinct.values())
        ):
            near = self._nearest(distinct, self.current())
            # a turn that can no longer grow is not taken on a guess of which figure
            # went where: the players are asked
            if any(self._may_grow(base, m) for m in near.values()):
                distinct = near
        if len(distinct) == 1:
            state, move = next(iter(distinct.items()))
            self._view.clear_problems()
            self.phase = MOVE
            if self.game.outcome(state) is None and (
                self._may_grow(base, move) or self._looks_lifted(base, key)
            ):
                self.tentative = (move, state)
                self._view.last_move = getattr(move, "path", ())
                self._emit(Event("tentative", {"move": str(move)}))
            else:
                self.tentative = None
                self._accept_move(move, after=state)
            return
        if distinct:
            self._ask(distinct.values())
            return
        if self.phase == AMBIGUOUS:
            self.phase = MOVE
            self._view.candidates = ()
        self._explain(reading)

    def _nearest(self, distinct: dict, judged) -> dict:
        """Of several positions that fit the board, those a hand reaches from the one
        judged on it (``current``) by the fewest changed cells: a turn carried out a
        figure at a time grows from what is on the board (a molehill put beside the
        hare that just jumped, not the hare jumping there and a molehill put where it
        was). Used only to keep a turn that may still grow: finished moves are asked
        about, as near ones may differ in what the sensors cannot tell apart (which
        hat is on top, which figure a hall sensor feels). Positions as near as each
        other are asked about too."""
        seen = self.game.observe(judged)

        def changes(state) -> int:
            return sum(token != seen[cell] for cell, token in self.game.observe(state).items())

        fewest = min(map(changes, distinct))
        return {state: move for state, move in distinct.items() if changes(state) == fewest}

    # --- commands ------------------------------------------------------------------------

    def use_sensor(self, sensor: str) -> None:
        """Read the board with ``sensor`` from now on. A panel table has no board to
        lay out, so its game starts at once."""
        was, self.sensor = self.sensor, sensor
        self._successors.clear()
        if was == BOTH and sensor != BOTH and self._hall is not None:
            self._take(self._hall, self._hall_since)  # the hall sensors' reading goes on
        if sensor == PANEL and self.game is not None and self.phase == SETUP:
            self._start_play()
            self._publish()

    # --- what the outputs show -----------------------------------------------------------

    # --- inside ----------------------------------------------------------------------------

    def current(self):
        """The position on the board as judged: the tentative move's, or the last."""
        return self.tentative[1] if self.tentative is not None else self.positions[-1]

    def _require_game(self) -> None:
        if self.game is None:
            raise RefereeError(words("referee.no_game", "No game: start one"))

    def _key(self, reading: Reading) -> tuple:
        return tuple(map(reading.get, self._cell_ids))

    def _key_of(self, state) -> tuple:
        game, sensor, kept, key = self._key_kept
        if state is not kept or game is not self.game or sensor != self.sensor:
            # sense() lists every cell in board order, so its values are the key
            key = tuple(self.game.sense(state, projection(self.sensor)).values())
            self._key_kept = (self.game, self.sensor, state, key)
        return key

    def _successors_of(self, state) -> Successors:
        found = self._successors.get(state)
        if found is None:
            found = index_successors(self.game, state, self.sensor)
            self._remember(state, found)
        return found

    def _read_as(self, state, key: tuple) -> list:
        """The outcomes from ``state`` that read as ``key``: from its index, or, with
        none built yet on hall sensors, matched one by one (the next idle tick indexes)."""
        found = self._successors.get(state)
        if found is None and self.sensor not in (CAMERA, BOTH):
            return outcomes_read_as(self.game, state, self.sensor, key, self._key_of(state))
        return self._successors_of(state).get(key)

    def _remember(self, state, found: Successors) -> None:
        """Keep ``found``; the oldest indexes go first once they take more than
        ``INDEX_BYTES``, never those the next verdict needs."""
        self._successors[state] = found
        self._trim(INDEX_BYTES, state)

    def _trim(self, budget: int, keep=None) -> None:
        """Let the oldest indexes go until the rest take at most ``budget`` bytes,
        never those the next verdict needs (nor ``keep``)."""
        wanted = set(self._wanted()) if self.positions else set()
        total = sum(index.nbytes for index in self._successors.values())
        let_go = False
        for old in list(self._successors):
            if total <= budget:
                break
            if old not in wanted and old != keep:
                total -= self._successors.pop(old).nbytes
                let_go = True
        if let_go:
            give_back()

    def _finalise(self, mark: str | None = None) -> bool:
        """Play the tentative move, now finished; when other finished moves read alike
        on this table's sensors (which figure a hall sensor feels where), ask which
        was played instead. False unless the move was played."""
        move, state = self.tentative
        self.tentative = None
        alike = {s: m for m, s in self._read_as(self.positions[-1], self._key_of(state))}
        if len(alike) > 1:
            self._ask(alike.values())
            return False
        return self._accept_move(move, mark, after=state)

    def _accept_move(self, move: Move, mark: str | None = None, after=None) -> bool:
        """Log and play ``move``; ``mark`` says how the referee came to accept it
        ("confirmed", "chosen", "corrected"), for the game's record; ``after``, the
        position it leads to, where the caller has it already."""
        state = self.positions[-1]
        seat = self.game.to_move(state)
        data = {"move": str(move), "seat": seat}
        if mark is not None:
            data[mark] = True
        if after is None:
            after = self.game.apply(state, move)
        if not self._accept("move", data, after):
            return False
        self._view.last_move = getattr(move, "path", ())
        self._after_change()
        return True

    def _accept(self, kind: str, data: dict[str, Any], state) -> bool:
        """Log first, then change; a store failure leaves everything as it was."""
        try:
            self.store.append(self.game_id, kind, data)
        except StoreError as exc:
            self._save_failed(exc)
            self._emit(Event("store_error", {"error": str(exc)}))
            return False
        self.log.append((kind, data))
        self._step(kind, data, state)
        # room for the next index before it is built, not beside it: a Hakenschlagen
        # turn's index takes tens of megabytes, the last one's is no longer needed
        largest = max((index.nbytes for index in self._successors.values()), default=0)
        self._trim(INDEX_BYTES - largest)
        # a move the computer announced was for the position before this one
        self.expected = None
        self._view.clear_problems()
        self._emit(Event(kind, self._public(kind, data), accepted=True))
        return True

    def _save_failed(self, error: StoreError) -> None:
        self.failed_saves += 1
        self.save_error = error
        self._view.say(not_saved(error))

    def _public(self, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        """What listeners beyond the log hear of an accepted event. In a game with
        hidden hands a draw (a shuffled deck) and a whole position would tell every
        hand: they are told as a commitment instead, which the seed revealed at the
        end lets anyone check against the log."""
        if kind not in ("chance", "correction") or not hides_hands(self.game):
            return data
        secret = {k: v for k, v in data.items() if k in ("outcome", "record")}
        sealed = json.dumps(secret, sort_keys=True).encode()
        public = {k: v for k, v in data.items() if k not in secret}
        if "spec" in public:  # what was drawn, not the cards it was drawn from
            public["spec"] = {"kind": public["spec"].get("kind")}
        return {**public, "hidden": commitment(self._seed + sealed)}

    def _after_change(self) -> None:
        """Passes, the end of the game and pending chance follow from the position."""
        state = self.positions[-1]
        while (
            self.phase != SETUP
            and self.game.outcome(state) is None
            and self.game.legal_moves(state) == [PASS]
        ):
            if not self._accept(
                "move",
                {"move": "pass", "seat": self.game.to_move(state)},
                self.game.apply(state, PASS),
            ):
                return
            state = self.positions[-1]
        ended = self.game.outcome(state)
        if ended is not None and self.phase != OVER:
            data = {
                "winners": list(ended.winners),
                "reason": ended.reason,
                "seed": self._seed.hex(),
            }
            if ended.scores is not None:
                data["scores"] = list(ended.scores)
            try:
                self.store.end_game(self.game_id, "game_over", data)
            except StoreError as exc:
                self._save_failed(exc)
                return
            self.log.append(("game_over", data))
            self.phase = OVER
            self._view.say(words("referee.game_over", "Game over: {reason}", reason=ended.words))
            self._emit(Event("game_over", data, accepted=True))
            return
        if self.phase != SETUP:
            self.phase = self._phase_after_change()

    def _phase_after_change(self) -> str:
        state = self.positions[-1]
        if self.game.outcome(state) is not None:
            return OVER
        return CHANCE if self.game.chance(state) is not None else MOVE

    def _recheck(self) -> None:
        """After a command changed the position, show how the board differs from it
        (a panel table's reading is one left over from a board game before it)."""
        if self.reading is not None and self.phase != OVER and self.sensor != PANEL:
            self._show_differences(self.reading, self.current(), quiet=False)
        self._judged = self.reading

    def _publish(self) -> None:
        """Send the new snapshot of the table to every listener ("display")."""
        self.published = self.snapshot()
        self._emit(Event("display", {"table": self.published}))

    def _emit(self, event: Event) -> None:
        """Tell every listener; one that fails is logged and the others still hear
        it: the verdict stands (it is in the log already) whatever an output does."""
        for listener in list(self.listeners):
            try:
                listener(event)
            except Exception:
                log.exception("a listener failed on a %s event; the others were told", event.kind)


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value
