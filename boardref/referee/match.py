"""The match a referee follows: the game, its positions and log, the phase, the move
under way, the board's last reading, and the lookups every part of the referee
judges with (the readings of positions and the indexed successors).

Every part of the referee receives this one object; it is the referee's whole
state, so nothing is hidden in a part. It never logs, tells or decides anything.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterator
from typing import Any

from boardref.eventlog.store import StoreError
from boardref.referee import fusion
from boardref.referee.kinds import EventKind, Phase, Sensor, projection
from boardref.referee.successors import Successors, index_successors, outcomes_read_as
from boardref.referee.verdicts import Reading, RefereeError, TableView, no_game
from boardref.runtime.memory import give_back
from engines import PASS, Game, Move
from engines.chance import Stream
from engines.words import Words

#: the most the indexed successors of recent positions may take (those the next
#: verdict needs are kept whatever they take): an old position's index serves only
#: a move taken back, and is built again then; on a camera table every megabyte
#: kept adds to the service's peak
INDEX_BYTES = 8 * 2**20
#: the most indexes of old positions kept beside those the next verdict needs: a
#: small index's own bytes leave out what its outcomes hold in Python (the moves, the
#: positions after them), several times its arrays for a Sternhalma turn, so a
#: count bounds them where the bytes would not (a long game's service grew some
#: 8 KB a move); a move taken back further than this is indexed again
KEPT_INDEXES = 64
#: indexes let go at once that take less than this stay with the allocator for the
#: next ones: handing memory back walks the whole heap, which grows with the moves
#: a long game keeps, and a small index's room is taken again by the next one
GIVE_BACK_BYTES = 2**20
#: once over their budget, the oldest indexes go until the rest take this much less
#: (a quarter of ``INDEX_BYTES``): letting one go with every move would take the
#: garbage collector's count of new objects down by what each move's index adds, so
#: it would collect the young objects of some thirty moves at once, in a verdict
LET_GO_SHARE = 4

#: an event of the game as the log keeps it
Logged = tuple[EventKind, dict[str, Any]]


class Indexes:
    """The indexed successors of positions, oldest first, with the bytes they take
    kept as they come and go: a long game keeps hundreds, and adding them up at every
    move would make a verdict slower the longer the game."""

    def __init__(self) -> None:
        self.clear()

    def __contains__(self, state: object) -> bool:
        return state in self._by_state

    def __getitem__(self, state: Any) -> Successors:
        return self._by_state[state]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._by_state)

    def __len__(self) -> int:
        return len(self._by_state)

    def get(self, state: Any) -> Successors | None:
        return self._by_state.get(state)

    def values(self) -> Iterator[Successors]:
        return iter(self._by_state.values())

    def keep(self, state: Any, found: Successors) -> None:
        """Keep ``found`` as ``state``'s index (in the place of one kept before)."""
        if state in self._by_state:
            self._forget(self._by_state[state])
        self._by_state[state] = found
        self.nbytes += found.nbytes
        heapq.heappush(self._sizes, -found.nbytes)

    def pop(self, state: Any) -> Successors:
        found = self._by_state.pop(state)
        self._forget(found)
        return found

    def clear(self) -> None:
        self._by_state: dict[Any, Successors] = {}
        #: the bytes every index kept takes
        self.nbytes = 0
        #: the sizes of the indexes, largest on top (negated, a heap); a size let go
        #: leaves when it comes to the top (``_let_go`` counts those waiting)
        self._sizes: list[int] = []
        self._let_go: Counter[int] = Counter()

    def largest(self) -> int:
        """The bytes the largest index kept takes (0: none kept)."""
        sizes, let_go = self._sizes, self._let_go
        while sizes and let_go[-sizes[0]]:
            let_go[-heapq.heappop(sizes)] -= 1
        return -sizes[0] if sizes else 0

    def _forget(self, found: Successors) -> None:
        self.nbytes -= found.nbytes
        self._let_go[found.nbytes] += 1


class Match:
    """One table's game as the referee judged it, and how the table reads it."""

    def __init__(self, sensor: Sensor, settle: float):
        self.sensor = sensor
        #: how long a reading stays unchanged before it is judged, in seconds
        self.settle = settle
        self.game: Game | None = None
        self.game_id: int | None = None
        #: when the game began (wall clock), for "time in game"
        self.started = 0.0
        self.seed = b""
        self.stream: Stream | None = None
        self.cell_ids: list[str] = []
        self.positions: list[Any] = []
        #: the event that led to each position after the first (takeback pops both)
        self.steps: list[Logged] = []
        self.log: list[Logged] = []
        self.phase = Phase.SETUP
        self.tentative: tuple[Move, Any] | None = None
        #: the computer's move the players are to carry out, and where it leads
        self.expected: tuple[Move, Any] | None = None
        #: seats the computer plays, and how strongly
        self.computer: frozenset[int] = frozenset()
        self.level = "hard"
        self.reading: Reading | None = None
        self.reading_since = 0.0
        #: the reading the last verdict judged: with a camera, the legal outcome it fits
        self.read_as: Reading | None = None
        self.judged: Reading | None = None
        self.successors = Indexes()
        #: the last position whose reading ``key_of`` made, with its game and sensor:
        #: a verdict asks for the same one up to three times
        self._key_kept: tuple[Game | None, Sensor | None, Any, tuple] = (None, None, None, ())
        self.view = TableView()
        #: the camera's last observation, the hall sensors' last reading and since when
        self.observation: Any = None
        self.observed_at = 0.0
        self.hall: Reading | None = None
        self.hall_since = 0.0
        self.tokens = fusion.Tokens()
        #: the camera could not tell some legal outcomes apart: (reading, their
        #: readings, what the panel asks; None: which was played)
        self.doubt: tuple[tuple, tuple[tuple, ...], Words | None] | None = None
        #: cells a hand lifted pieces from that the sensors still feel (``hold``)
        self.held: tuple[str, ...] = ()
        #: events the log refused (a full disk), and the last refusal
        self.failed_saves = 0
        self.save_error: StoreError | None = None
        #: when a reading whose event the log refused is judged again
        self.retry_at: float | None = None
        #: why a sensor asks for a still board before it reads again (a knocked
        #: camera); no reading is judged meanwhile
        self.waiting: Words | None = None
        #: whether the board has cell lights (its wiring puts an LED under a cell),
        #: and whether they are on (its link is up); a table read by the camera
        #: alone, or tapped on the panel, has none (``lit``)
        self.lights_fitted = True
        self.lights_on = True

    def lit(self) -> bool:
        """Whether the table lights its cells: a hall-sensor board with cell lights,
        and they are on."""
        hall = self.sensor in (Sensor.PRESENCE, Sensor.BOTH)
        return hall and self.lights_fitted and self.lights_on

    def shown_by(self) -> str:
        """What the players' words point at to show where the pieces go (the words'
        ``lights`` select): "on", the table's cell lights (``lit``), else "off", the
        board drawn on the screen."""
        return "on" if self.lit() else "off"

    def drawn_for(self) -> bool:
        """Whether the turn under way was drawn for (Hakenschlagen, Fang den Hut!):
        a correction then names the move under way, not the move before the draw."""
        if self.phase != Phase.MOVE:
            return False
        for kind, data in reversed(self.steps):
            if kind == EventKind.CHANCE:
                return True
            if kind == EventKind.CORRECTION or (
                kind == EventKind.MOVE and data["move"] != str(PASS)
            ):
                return False
        return False

    def begin(self, game: Game, game_id: int, seed: bytes) -> None:
        """Follow ``game`` from its start position."""
        self.game, self.game_id, self.seed = game, game_id, seed
        self.cell_ids = [cell.id for cell in game.board.cells]
        self.stream = Stream(seed)
        self.positions = [game.initial_state()]
        self.steps = []
        self.log = []
        self.tentative = None
        self.expected = None
        self.computer = frozenset()
        self.phase = Phase.SETUP
        self.successors = Indexes()
        self.judged = None
        self.view = TableView()
        self.tokens = fusion.Tokens()
        self.doubt = None
        self.read_as = None
        self.held = ()

    @property
    def rules(self) -> Game:
        """The game in play; refused in words when there is none."""
        if self.game is None:
            raise RefereeError(no_game())
        return self.game

    @property
    def logged_as(self) -> int:
        """The game's id in the event log; refused in words when no game is in play."""
        if self.game_id is None:
            raise RefereeError(no_game())
        return self.game_id

    @property
    def chances(self) -> Stream:
        """The game's committed stream of chance; refused in words when none is in play."""
        if self.stream is None:
            raise RefereeError(no_game())
        return self.stream

    def require_game(self) -> None:
        """Refuse, in words, when no game is in play."""
        self.rules  # noqa: B018  (raises when there is none)

    def step(self, kind: EventKind, data: dict[str, Any], state: Any) -> None:
        """Follow a logged event: a takeback returns to the position before."""
        if kind == EventKind.TAKEBACK:
            self.positions.pop()
            self.steps.pop()
        else:
            self.positions.append(state)
            self.steps.append((kind, data))

    def take(self, reading: Reading, at: float) -> None:
        """The board reads ``reading`` since ``at``, unless it read so already."""
        if reading != self.reading:
            self.reading = dict(reading)
            self.reading_since = at

    def current(self) -> Any:
        """The position on the board as judged: the tentative move's, or the last."""
        return self.tentative[1] if self.tentative is not None else self.positions[-1]

    def wanted(self) -> list[Any]:
        """The positions a reading may be one move from: the last, and a tentative one."""
        return [self.positions[-1]] + ([self.tentative[1]] if self.tentative else [])

    def phase_after_change(self) -> Phase:
        state = self.positions[-1]
        if self.rules.outcome(state) is not None:
            return Phase.OVER
        return Phase.CHANCE if self.rules.chance(state) is not None else Phase.MOVE

    def may_grow(self, base: Any, move: Move) -> bool:
        """Whether the board after ``move`` may, as this table's sensors read it, show
        a turn still under way."""
        return bool(self.rules.can_extend(base, move, projection(self.sensor)))

    def roll_after_tentative(self) -> bool:
        """Whether a tentative move waits and a roll or draw follows it: the turn is
        still its mover's."""
        if self.tentative is None or self.phase != Phase.MOVE:
            return False
        after = self.tentative[1]
        return self.rules.outcome(after) is None and self.rules.chance(after) is not None

    # --- lookups -------------------------------------------------------------------------

    def key(self, reading: Reading) -> tuple:
        """A reading in board order."""
        return tuple(map(reading.get, self.cell_ids))

    def key_of(self, state: Any) -> tuple:
        """What this table's sensor reads of ``state``, in board order."""
        game, sensor, kept, key = self._key_kept
        if state is not kept or game is not self.game or sensor != self.sensor:
            # sense() lists every cell in board order, so its values are the key
            key = tuple(self.rules.sense(state, projection(self.sensor)).values())
            self._key_kept = (self.game, self.sensor, state, key)
        return key

    def successors_of(self, state: Any) -> Successors:
        """The indexed successors of ``state``, indexed now if nobody has yet."""
        found = self.successors.get(state)
        if found is None:
            found = index_successors(self.rules, state, self.sensor)
            self.remember(state, found)
        return found

    def matches(self, state: Any, key: tuple) -> list[tuple[Move, Any]]:
        """The outcomes from ``state`` that read as ``key``: from its index, or, with
        none built yet on hall sensors, matched one by one (the next idle tick indexes)."""
        found = self.successors.get(state)
        if found is None and self.sensor not in (Sensor.CAMERA, Sensor.BOTH):
            return outcomes_read_as(self.rules, state, self.sensor, key, self.key_of(state))
        return self.successors_of(state).get(key)

    def remember(self, state: Any, found: Successors) -> None:
        """Keep ``found``; the oldest indexes go first once they take more than
        ``INDEX_BYTES``, never those the next verdict needs."""
        self.successors.keep(state, found)
        self.trim(INDEX_BYTES, state)

    def make_room(self) -> None:
        """Room for the next index before it is built, not beside it: a Hakenschlagen
        turn's index takes tens of megabytes, the last one's is no longer needed."""
        self.trim(INDEX_BYTES - self.successors.largest())

    def trim(self, budget: int, keep: Any = None) -> None:
        """Once the indexes take more than ``budget`` bytes, or more than
        ``KEPT_INDEXES`` are kept, let the oldest go until the rest take a share of
        ``INDEX_BYTES`` less and are a share fewer, never those the next verdict needs
        (nor ``keep``)."""
        kept = self.successors
        if kept.nbytes <= budget and len(kept) <= KEPT_INDEXES:
            return
        wanted = set(self.wanted()) if self.positions else set()
        bytes_left = budget - INDEX_BYTES // LET_GO_SHARE
        count_left = KEPT_INDEXES - KEPT_INDEXES // LET_GO_SHARE
        freed = 0
        for old in list(kept):
            if kept.nbytes <= bytes_left and len(kept) <= count_left:
                break
            if old not in wanted and old != keep:
                freed += kept.pop(old).nbytes
        if freed >= GIVE_BACK_BYTES:
            give_back()
