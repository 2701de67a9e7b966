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
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from boardref import fusion
from boardref.snapshot import Ending, Said, TableState, seats_of
from boardref.store import Store, StoreError
from boardref.successors import (
    BOTH,
    CAMERA,
    Successors,
    changes_between,
    index_successors,
    projection,
)
from engines import PASS, Game, IllegalMove, Move, RulesError, load_game
from engines.chance import Shuffle, Stream, commitment, new_seed
from engines.words import Words, as_words, words

Reading = dict[str, str | None]

SETUP, CHANCE, MOVE, AMBIGUOUS, OVER = "setup", "chance", "move", "ambiguous", "over"
SAVE_RETRY_S = 1.0  # seconds between tries to log a verdict the log refused
#: the sensor of a table whose moves are tapped on the panel, not read from a board
PANEL = "panel"
#: the most the indexed successors of recent positions may take
INDEX_BYTES = 24 * 2**20


class RefereeError(RuntimeError):
    """A command that cannot be carried out now; the message says why, in words
    (``words``: by key, for a page to translate)."""

    def __init__(self, message: str | Words):
        self.words = as_words(message)
        super().__init__(str(self.words))


@dataclass(frozen=True)
class Event:
    """Something players should hear about. ``accepted`` events are in the log."""

    kind: str
    data: dict[str, Any]
    accepted: bool = False


class Referee:
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
        self._view = _View()
        #: the camera's last observation, the hall sensors' last reading and since when
        self._observation = None
        self._observed_at = 0.0
        self._hall: Reading | None = None
        self._hall_since = 0.0
        self._tokens = fusion.Tokens()
        #: the camera could not tell some legal outcomes apart: (reading, their readings)
        self._doubt: tuple[tuple, tuple[tuple, ...]] | None = None
        #: cells a hand lifted pieces from that the sensors still feel (see ``hold``)
        self._held: tuple[str, ...] = ()
        self._held_lit: tuple[Any, str, frozenset[str]] | None = None
        #: events the log refused (a full disk), and the last refusal
        self.failed_saves = 0
        self.save_error: StoreError | None = None
        #: when a reading whose event the log refused is judged again
        self._retry_at: float | None = None

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
        self._view = _View()
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

    def _fuse(self, at: float) -> None:
        """The camera's observation as the reading to judge, as seen. With hall
        sensors, only once the camera has seen the board since they last felt it
        change, and where the two disagree, what the hall sensors feel. ``_weigh``
        weighs it when it is judged."""
        seen = self._observation
        if seen is None or self.game is None:
            return
        key = fusion.seen_key(seen, self._cell_ids)
        if self.sensor == BOTH:
            if self._hall is None or self._observed_at < self._hall_since:
                return
            key = self._as_felt(key, self._key(self._hall))
        # the reader emits only views that have been still for a few frames: the
        # reading has settled already and counts at the next tick
        self._take(dict(zip(self._cell_ids, key)), at - self.settle)

    def _weigh(self, reading: Reading) -> Reading:
        """The legal outcome a settled camera reading most likely shows: weighed
        against the position, its legal outcomes and those of a tentative move (with
        hall sensors, only those whose presence they feel). Near ties leave the
        reading as it is and note the tying readings in ``_doubt``; a reading nothing
        explains stays as it is, for the referee to say what is wrong."""
        seen, key = self._observation, self._key(reading)
        self._doubt = None
        hall = self._key(self._hall) if self.sensor == BOTH else None
        states = [self.current(), self.positions[-1]]
        indexes = [self._successors_of(state) for state in self._wanted()]
        keys = [self._key_of(state) for state in states]
        presence = [tuple(self.game.sense(state, "presence").values()) for state in states]
        if fusion.is_sure(seen) and (key in keys or any(key in i for i in indexes)):
            felt = dict(zip(keys, presence)).get(key)
            for index in indexes:
                if key in index:
                    felt = index.felt(index.changes(key))
            if hall is None or felt == hall:
                return reading
        own = fusion.Candidates.of(keys[0], [(), changes_between(keys[1], keys[0])])
        groups = [own, *(index.candidates for index in indexes)]
        keep = None
        if hall is not None:
            keep = [[felt == hall for felt in presence]]
            keep += [index.agreeing(hall) for index in indexes]

        def label(group: int, n: int) -> tuple:
            return keys[n] if group == 0 else indexes[group - 1].candidate(n)

        fused = fusion.fuse(seen, self._cell_ids, groups, self._tokens, label, keep)
        if fused is None:
            return reading
        if fused.ties:
            self._doubt = (key, fused.ties)
            return reading
        return dict(zip(self._cell_ids, fused.key))

    def _as_felt(self, key: tuple, hall: tuple) -> tuple:
        """The camera's reading where the hall sensors agree with it, and where they do
        not, what they feel (a piece of unknown kind, or nothing): a board the sensors
        disagree on is never taken for a legal outcome."""
        current = self.current()
        figure = {
            token: felt is not None
            for token, felt in zip(
                self._key_of(current), self.game.sense(current, "presence").values()
            )
        }
        return tuple(
            token if figure.get(token, token is not None) == (felt is not None) else felt
            for token, felt in zip(key, hall)
        )

    def tick(self, now: float) -> bool:
        """Judge the reading if it has settled and was not judged yet; True if judged.

        A tick with nothing to judge prepares the next verdict instead: it indexes the
        successors of the position on the board, work done while players think.
        """
        if self.game is None or self.sensor == PANEL:
            return False  # a panel table's moves are tapped: a reading left over is no move
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

    def settles_at(self) -> float | None:
        """When the reading on the board will have been still for the settle time and
        is to be judged (on the caller's clock); None when there is nothing to judge."""
        if self.game is None or self.reading is None or self.reading == self._judged:
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
                self._ask(doubtful.values())
                return
        if key == self._key_of(self.current()):
            self._view.clear_problems()
            return
        matches = self._successors_of(base).get(key)
        if not matches and self.tentative is not None:
            after = self.tentative[1]
            following = self._successors_of(after).get(key)
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
            self.tentative is not None
            or any(self.game.can_extend(base, m) for m in distinct.values())
        ):
            distinct = self._nearest(distinct, self.current())
        if len(distinct) == 1:
            state, move = next(iter(distinct.items()))
            self._view.clear_problems()
            self.phase = MOVE
            if self.game.outcome(state) is None and (
                self.game.can_extend(base, move) or self._looks_lifted(base, key)
            ):
                self.tentative = (move, state)
                self._view.last_move = getattr(move, "path", ())
                self._emit(Event("tentative", {"move": str(move)}))
            else:
                self.tentative = None
                self._accept_move(move)
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
        was). Used only while a turn is, or may still be, under way: finished moves
        are asked about, as near ones may differ in what the sensors cannot feel
        (which hat is on top). Positions as near as each other are asked about too."""
        seen = self.game.observe(judged)

        def changes(state) -> int:
            return sum(token != seen[cell] for cell, token in self.game.observe(state).items())

        fewest = min(map(changes, distinct))
        return {state: move for state, move in distinct.items() if changes(state) == fewest}

    # --- commands ------------------------------------------------------------------------

    def draw(self) -> Any:
        """Draw what the game asks for (a roll, marbles...) from the committed stream."""
        self._require_game()
        if self.tentative is not None:  # a draw is the next player acting
            self._finalise()
        if self.phase != CHANCE:
            raise RefereeError(words("referee.nothing_to_draw", "Nothing to draw now"))
        spec = self.game.chance(self.positions[-1])
        outcome = spec.draw(self.stream)
        data = {"spec": spec.to_json(), "outcome": _lists(outcome), "counter": self.stream.counter}
        state = self.game.resolve(self.positions[-1], outcome)
        if self._accept("chance", data, state):
            # a shuffled deck holds every hand: it is logged, never shown
            self._view.last_draw = None if isinstance(spec, Shuffle) else _lists(outcome)
            self._after_change()
        self._publish()
        return outcome

    def confirm(self) -> None:
        """The player says their move is complete. With no move waiting, it names a
        move the sensors cannot see (a hat put onto a tower the hall sensors already
        felt): the one such legal move is taken, several are offered to choose."""
        self._require_game()
        if self.tentative is not None:
            self._finalise(mark="confirmed")
        elif self.phase == MOVE and self.reading is not None:
            self._offer_unseen()
        else:
            raise RefereeError(_nothing_to_confirm())
        self._publish()

    def _offer_unseen(self) -> None:
        base = self.positions[-1]
        key = self._key(self.reading if self.read_as is None else self.read_as)
        if key != self._key_of(base):
            raise RefereeError(
                words(
                    "referee.board_not_position",
                    "The board does not show the position; there is nothing to confirm",
                )
            )
        unseen = {state: move for move, state in self._successors_of(base).get(key)}
        if not unseen:
            raise RefereeError(_nothing_to_confirm())
        if len(unseen) == 1:
            self._accept_move(next(iter(unseen.values())))
            return
        self._ask(unseen.values())

    def _ask(self, moves) -> None:
        """Several moves fit the board: the players choose on the panel."""
        self.phase = AMBIGUOUS
        self._view.candidates = tuple(str(m) for m in moves)
        self._view.say(
            words(
                "referee.ambiguous", "Several moves fit the board: choose the one that was played"
            )
        )
        self._emit(Event("ambiguous", {"candidates": list(self._view.candidates)}))

    def choose(self, move_text: str) -> None:
        """Pick the move that was played when several fit the board."""
        self._require_game()
        if self.phase != AMBIGUOUS or move_text not in self._view.candidates:
            raise RefereeError(
                words(
                    "referee.not_a_candidate",
                    "{move} is not one of the moves that fit the board",
                    move=move_text,
                )
            )
        move = self.game.parse_move(self.positions[-1], move_text)
        self._view.candidates = ()
        self.phase = MOVE
        self._accept_move(move, mark="chosen")
        self._publish()

    def takeback(self) -> str:
        """Undo the tentative move, or the last accepted move; returns what was undone."""
        self._require_game()
        self.expected = None
        if self.tentative is not None:
            undone = str(self.tentative[0])
            self.tentative = None
            self._view.last_move = ()
            self._emit(Event("takeback", {"move": undone}))
            self._recheck()
            self._publish()
            return undone
        if self.phase == OVER:
            raise RefereeError(words("referee.over", "The game is over; start a new one"))
        if not self.steps:
            raise RefereeError(words("referee.nothing_to_take_back", "Nothing to take back"))
        last_kind, last = self.steps[-1]
        if last_kind == "chance":
            raise RefereeError(
                words(
                    "referee.draw_stays",
                    "A draw cannot be taken back: the dice and draws are committed",
                )
            )
        undone = last.get("move", "correction")
        if self._accept("takeback", {"move": undone}, None):
            self._view.last_move = ()
            self._after_change()
            self._recheck()
        self._publish()
        return undone

    def seat_computer(self, seats, level: str = "hard") -> None:
        """Let the computer play ``seats`` at ``level``; logged, so it survives a restart."""
        self._require_game()
        seats = frozenset(seats)
        if not seats <= set(range(self.game.players)):
            raise RefereeError(
                words(
                    "referee.no_such_seats",
                    "Seats {seats} are not all seats of this game",
                    seats=[s + 1 for s in sorted(seats)],
                )
            )
        data = {"computer": sorted(seats), "level": level}
        try:
            self.store.append(self.game_id, "seats", data)
        except StoreError as exc:
            raise RefereeError(_not_saved(exc)) from None
        self.log.append(("seats", data))
        self.computer, self.level = seats, level
        self._publish()

    def computer_to_move(self) -> bool:
        """Whether the computer should now choose a move for the seat to act."""
        return (
            self.phase == MOVE
            and self.expected is None
            and self.tentative is None
            and self.game.to_move(self.positions[-1]) in self.computer
        )

    def expect(self, move_text: str) -> None:
        """The computer has chosen ``move_text`` for the seat to move: announce it,
        light it, and accept only that move from the board."""
        self._require_game()
        if self.phase != MOVE:
            raise RefereeError(_not_now(self.phase))
        base = self.positions[-1]
        move = self.game.parse_move(base, move_text)
        self.expected = (move, self.game.apply(base, move))
        self._view.say(
            words(
                "referee.computer_moves",
                "The computer plays {move}: please carry it out on the board",
                move=str(move),
            )
        )
        self._emit(Event("computer_move", {"move": str(move)}))
        self._publish()

    def _judge_expected(self, distinct: dict) -> None:
        move, after = self.expected
        if after in distinct:  # accepting it ends the announcement (``_accept``)
            self._view.clear_problems()
            self._accept_move(move)
            return
        played = next(iter(distinct.values()))
        self._view.clear_problems()
        self._view.errors = frozenset(getattr(played, "path", ())) | frozenset(
            getattr(move, "path", ())
        )
        self._view.say(_not_computer_move(move))
        self._emit(
            Event("illegal", {"cells": sorted(self._view.errors), "reason": self._view.message})
        )

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

    def play(self, move_text: str) -> None:
        """A move tapped on the panel, at a table whose game no sensor reads."""
        self._require_game()
        if self.sensor != PANEL:
            raise RefereeError(
                words(
                    "referee.play_on_board",
                    "Moves at this table are read from the board: play on it",
                )
            )
        if self.phase != MOVE:
            raise RefereeError(_not_now(self.phase))
        base = self.positions[-1]
        move = self.game.parse_move(base, move_text)
        if self.expected is not None and self.game.apply(base, move) != self.expected[1]:
            raise RefereeError(_not_computer_move(self.expected[0]))
        self._accept_move(move)
        self._publish()

    def decline(self) -> None:
        """The seat to roll declines a roll the rules offer but do not force (the
        extra roll after a six); the turn passes. Logged as that seat's pass."""
        self._require_game()
        if self._roll_after_tentative():  # declining is the mover's next act: the move stands
            self._finalise()
        base = self.positions[-1]
        spec = self.game.chance(base) if self.phase == CHANCE else None
        if not getattr(spec, "optional", False):
            raise RefereeError(
                words("referee.nothing_to_decline", "There is no roll to decline now")
            )
        data = {"move": str(PASS), "seat": self.game.drawer(base)}
        if self._accept("move", data, self.game.apply(base, PASS)):
            self._after_change()
        self._publish()

    def correct(self, move_text: str) -> None:
        """A referee's correction of a misread: ``move_text`` is what was played."""
        self._require_game()
        if self.phase not in (MOVE, AMBIGUOUS):
            raise RefereeError(_not_now(self.phase))
        move = self.game.parse_move(self.positions[-1], move_text)
        self.tentative = self.expected = None
        self._view.candidates = ()
        self.phase = MOVE
        if self._accept_move(move, mark="corrected"):
            self._recheck()
        self._publish()

    def set_position(self, record: dict[str, Any]) -> None:
        """A referee sets the whole position (a record as ``game.to_json`` writes it)."""
        self._require_game()
        state = self.game.from_json(record)
        self.tentative = None
        if self._accept("correction", {"record": self.game.to_json(state)}, state):
            self._after_change()
            self._recheck()
        self._publish()

    def hold(self, cells) -> None:
        """A sensor observation the sensors cannot make: the hand holds pieces lifted
        from ``cells``, which still hold others (one hat of six off a home). Until the
        reading says more, the display lights the first such origin and the ends of
        the legal moves whose path starts there."""
        held = tuple(cells)
        if held != self._held:
            self._held = held
            self._publish()

    def _held_destinations(self) -> tuple[str | None, frozenset[str]]:
        """The origin ``hold`` names and where its legal moves end, or (None, ())."""
        if not self._held or self.phase != MOVE or self.tentative is not None:
            return None, frozenset()
        state, origin = self.positions[-1], self._held[0]
        if self._held_lit is None or self._held_lit[:2] != (state, origin):
            paths = (getattr(move, "path", ()) for move in self.game.legal_moves(state))
            ends = frozenset(path[-1] for path in paths if path[:1] == (origin,))
            self._held_lit = (state, origin, ends)
        return origin, self._held_lit[2]

    # --- what the outputs show -----------------------------------------------------------

    def snapshot(self) -> TableState:
        """The table as judged now: what every output shows (``published`` holds the
        last one sent to the listeners)."""
        if self.game is None:
            notice = words("referee.no_game", "No game: start one")
            return TableState(notice=Said.of(notice), message=str(notice))
        game, state, base = self.game, self.current(), self.positions[-1]
        acting = self.phase in (MOVE, AMBIGUOUS, CHANCE)
        seat = game.to_move(state) if acting else None
        # the roll after a tentative move is the next player's to tap: it ends the move
        rolls = base if self.phase == CHANCE else state if self._roll_after_tentative() else None
        drawer = None if rolls is None else game.drawer(rolls)
        spec = None if rolls is None else game.chance(rolls)
        ended = game.outcome(base) if self.phase == OVER else None
        actor = seat if seat is not None else drawer
        hidden = hides_hands(game)
        moves = self._panel_moves()
        v = self._view
        lifted, destinations = v.lifted, v.destinations
        if lifted is None and not v.errors:
            lifted, destinations = self._held_destinations()
        return TableState(
            game=game.name,
            players=game.players,
            options=dict(game.options),
            seats=seats_of(game, self.computer),
            phase=self.phase,
            sensor=self.sensor,
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
            tentative=None if self.tentative is None else str(self.tentative[0]),
            tentative_seat=None if self.tentative is None else game.to_move(base),
            expected=None if self.expected is None else str(self.expected[0]),
            expected_path=() if self.expected is None else getattr(self.expected[0], "path", ()),
            computer=tuple(sorted(self.computer)),
            lifted=lifted,
            destinations=destinations,
            hints=game.hints(state) if self.phase == MOVE else frozenset(),
            errors=v.errors,
            place=v.place,
            remove=v.remove,
            chance=None if spec is None else str(spec),
            chance_optional=bool(getattr(spec, "optional", False)),
            last_draw=v.last_draw,
            candidates=v.candidates,
            outcome=None
            if ended is None
            else Ending(winners=ended.winners, reason=Said.of(ended.words), scores=ended.scores),
            can_confirm=self._can_confirm(),
            can_takeback=self.tentative is not None
            or (self.phase != OVER and bool(self.steps) and self.steps[-1][0] != "chance"),
            commitment=commitment(self._seed),
            plies=sum(k == "move" for k, _ in self.log),
            moves=() if hidden else moves,
            record=None if hidden else game.to_json(state)["state"],
            report=game.report(state),
            views=tuple(game.view(state, s) for s in range(game.players)) if hidden else (),
            seat_moves=tuple(moves if s == seat else () for s in range(game.players))
            if hidden
            else (),
        )

    def _panel_moves(self) -> tuple[str, ...]:
        """The legal moves of a table whose moves are tapped on the panel."""
        if self.sensor != PANEL or self.phase != MOVE:
            return ()
        return tuple(str(move) for move in self.game.legal_moves(self.positions[-1]))

    def _last_played(self) -> str | None:
        """The last move a seat played (passes left out), in the game's notation."""
        for kind, data in reversed(self.steps):
            if kind == "move" and data["move"] != "pass":
                return data["move"]
        return None

    def _roll_after_tentative(self) -> bool:
        """Whether a tentative move waits and a roll or draw follows it."""
        if self.tentative is None or self.phase != MOVE:
            return False
        after = self.tentative[1]
        return self.game.outcome(after) is None and self.game.chance(after) is not None

    def _can_confirm(self) -> bool:
        """Whether a confirm does something now: a move waits for it, or the board
        shows the position and a legal move the sensors cannot see (a hat onto its
        own hats) may have been made. Looked up only where already indexed, so the
        answer never costs an indexing on the loop."""
        if self.tentative is not None:
            return True
        if self.phase != MOVE or self.sensor == PANEL or self.reading is None:
            return False
        base = self.positions[-1]
        index = self._successors.get(base)
        key = self._key(self.reading if self.read_as is None else self.read_as)
        return index is not None and key == index.base and bool(index.get(key))

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
        # sense() lists every cell in board order, so its values are the key
        return tuple(self.game.sense(state, projection(self.sensor)).values())

    def _successors_of(self, state) -> Successors:
        found = self._successors.get(state)
        if found is None:
            found = index_successors(self.game, state, self.sensor)
            self._remember(state, found)
        return found

    def _remember(self, state, found: Successors) -> None:
        """Keep ``found``; the oldest indexes go first once they take more than
        ``INDEX_BYTES``, never those the next verdict needs."""
        self._successors[state] = found
        wanted = set(self._wanted()) if self.positions else set()
        total = sum(index.nbytes for index in self._successors.values())
        for old in list(self._successors):
            if total <= INDEX_BYTES:
                break
            if old not in wanted and old != state:
                total -= self._successors.pop(old).nbytes

    def _finalise(self, mark: str | None = None) -> bool:
        move, _ = self.tentative
        self.tentative = None
        return self._accept_move(move, mark)

    def _accept_move(self, move: Move, mark: str | None = None) -> bool:
        """Log and play ``move``; ``mark`` says how the referee came to accept it
        ("confirmed", "chosen", "corrected"), for the game's record."""
        state = self.positions[-1]
        seat = self.game.to_move(state)
        data = {"move": str(move), "seat": seat}
        if mark is not None:
            data[mark] = True
        if not self._accept("move", data, self.game.apply(state, move)):
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
        # a move the computer announced was for the position before this one
        self.expected = None
        self._view.clear_problems()
        self._emit(Event(kind, self._public(kind, data), accepted=True))
        return True

    def _save_failed(self, error: StoreError) -> None:
        self.failed_saves += 1
        self.save_error = error
        self._view.say(_not_saved(error))

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
        """After a command changed the position, show how the board differs from it."""
        if self.reading is not None and self.phase != OVER:
            self._show_differences(self.reading, self.current(), quiet=False)
        self._judged = self.reading

    def _guide_back(self, reading: Reading) -> bool:
        """Guide the players to the expected position; True once the board matches."""
        return self._show_differences(reading, self.current(), quiet=False)

    def _show_differences(self, reading: Reading, state, quiet: bool) -> bool:
        expected = self.game.sense(state, projection(self.sensor))
        differ = [c.id for c in self.game.board.cells if reading.get(c.id) != expected[c.id]]
        v = self._view
        v.clear_problems()
        if not differ:
            return True
        first = differ[0]
        if expected[first] is None:
            v.remove = first
        else:
            v.place = first
        v.errors = frozenset(differ)
        if not quiet:
            if v.remove:
                v.say(
                    words(
                        "referee.differs_remove",
                        "The board differs from the game in {count} place(s): "
                        "take the piece off {cell}",
                        count=len(differ),
                        cell=first,
                    )
                )
            else:
                v.say(
                    words(
                        "referee.differs_place",
                        "The board differs from the game in {count} place(s): "
                        "put a piece ({token}) on {cell}",
                        count=len(differ),
                        cell=first,
                        token=token_words(expected[first]),
                    )
                )
            self._emit(Event("out_of_sync", {"cells": differ, "next": v.message}))
        return False

    def _explain(self, reading: Reading) -> None:
        """No legal move fits: a lifted piece, or an illegal or unreadable board."""
        base, current = self.positions[-1], self.current()
        expected = self.game.sense(current, projection(self.sensor))
        cells = [c.id for c in self.game.board.cells]
        vacated = [c for c in cells if expected[c] is not None and reading.get(c) is None]
        filled = [c for c in cells if expected[c] is None and reading.get(c) is not None]
        changed = [
            c
            for c in cells
            if None not in (expected[c], reading.get(c)) and expected[c] != reading.get(c)
        ]
        v = self._view
        v.clear_problems()
        if len(vacated) == 1 and not filled and not changed:
            v.lifted = vacated[0]
            v.destinations = self._destinations(reading)
            self._emit(Event("lifted", {"cell": v.lifted, "destinations": sorted(v.destinations)}))
            return
        captured = self._captures_left(reading)
        if captured:
            v.remove = captured[0]
            v.say(words("referee.capture", "Take the captured piece off {cells}", cells=captured))
            self._emit(Event("capture_pending", {"cells": captured}))
            return
        v.errors = frozenset(vacated + filled + changed)
        if len(vacated) == 1 and len(filled) == 1 and not changed:
            origin = vacated[0] if self.tentative is None else self._origin_in(base, reading)
            reason = self._reason(base, origin, filled[0])
            v.say(words("referee.illegal", "Not allowed: {reason}", reason=reason))
            self._emit(Event("illegal", {"cells": sorted(v.errors), "reason": str(reason)}))
        else:
            v.say(
                words(
                    "referee.unreadable",
                    "The board matches no legal move ({count} cells differ); "
                    "put the pieces back as the lights show",
                    count=len(v.errors),
                )
            )
            self._emit(Event("unreadable", {"cells": sorted(v.errors)}))

    def _captures_left(self, reading: Reading) -> list[str]:
        """The pieces still to take off when the board is a legal move whose captured
        pieces are still standing; [] when it is not."""
        keys = self._key(reading)
        cells = self.game.board.cells
        for state in [self.positions[-1]] + ([self.tentative[1]] if self.tentative else []):
            index = self._successors_of(state)
            off_base = index.off_base(keys)
            least = 2 * len(off_base)
            for changes in index.readings():
                # a capture left standing differs from the successor only on cells
                # the move changed (they held a piece before and it shows one now)
                if len(changes) < least:
                    continue
                moved = changes[0::2]
                if not off_base.issubset(moved):
                    continue
                extra = index.apart(keys, off_base, changes)
                shows = dict(zip(moved, changes[1::2]))
                left = extra and all(keys[i] is not None and shows[i] is None for i in extra)
                if left and _leaves_board(index.base, moved, extra):
                    return [cells[i].id for i in extra]
        return []

    def _origin_in(self, base, reading: Reading) -> str:
        expected = self.game.sense(base, projection(self.sensor))
        gone = [c for c, token in expected.items() if token is not None and reading.get(c) is None]
        return gone[0] if gone else ""

    def _reason(self, state, origin: str, destination: str) -> Words:
        """Why no legal move takes the piece from ``origin`` to ``destination``: the
        engine's own reason where its moves are plain paths, else where it may go."""
        moves = self.game.legal_moves(state)
        # a turn that is no path (Hakenschlagen's) starts nowhere: none is written out
        pathless = not moves or not hasattr(moves[0], "path")
        from_origin = [] if pathless else [m for m in moves if m.path[:1] == (origin,)]
        if not from_origin:
            if origin not in self.game.board.index:
                return words(
                    "referee.nothing_goes_there",
                    "No legal move puts a piece on {cell}",
                    cell=destination,
                )
            return words(
                "referee.cannot_move_from", "No piece may move from {cell} now", cell=origin
            )
        if all(type(m) is Move for m in moves):
            near = (
                self.game.board.index[destination]
                in self.game.board.neighbours[self.game.board.index[origin]]
            )
            try:
                self.game.apply(state, Move((origin, destination), leap=not near))
            except IllegalMove as refusal:
                return refusal.words
        ends = sorted({m.path[-1] for m in from_origin}, key=self.game.board.index.get)
        return words(
            "referee.goes_elsewhere",
            "The piece from {origin} may not go to {cell}; it may go to {cells}",
            origin=origin,
            cell=destination,
            cells=ends,
        )

    def _destinations(self, reading: Reading) -> frozenset[str]:
        """Cells where the lifted piece may go: successors one piece away from it."""
        found = set()
        states = [self.positions[-1]] + ([self.tentative[1]] if self.tentative else [])
        keys = self._key(reading)
        for state in states:
            index = self._successors_of(state)
            off_base = index.off_base(keys)
            # cells off the position that are empty now, and that show another piece
            empty = {i for i in off_base if keys[i] is None}
            other = {i for i in off_base if keys[i] is not None and index.base[i] is not None}
            least = 2 * len(other)
            for changes in index.readings():
                if len(changes) < least:
                    continue
                moved = changes[0::2]
                if not other.issubset(moved):
                    continue
                # the cells the successor fills that are empty now: one, the place
                # the lifted piece goes
                fills = empty.difference(moved)
                if len(fills) > 1:
                    continue
                shows = dict(zip(moved, changes[1::2]))
                fills = fills.union(i for i in moved if shows[i] is not None and keys[i] is None)
                if len(fills) != 1:
                    continue
                apart = index.apart(keys, off_base, changes)
                added = [i for i in apart if keys[i] is None]
                # cells where both show a piece, but not the same
                changed = any(
                    keys[i] is not None and shows.get(i, index.base[i]) is not None for i in apart
                )
                if len(added) == 1 and not changed:
                    found.add(self.game.board.cells[added[0]].id)
        return frozenset(found)

    def _publish(self) -> None:
        """Send the new snapshot of the table to every listener ("display")."""
        self.published = self.snapshot()
        self._emit(Event("display", {"table": self.published}))

    def _emit(self, event: Event) -> None:
        for listener in list(self.listeners):
            listener(event)


@dataclass
class _View:
    """The referee's words and highlights of the moment."""

    notice: Words | None = None
    last_move: tuple[str, ...] = ()
    lifted: str | None = None
    destinations: frozenset[str] = frozenset()
    errors: frozenset[str] = frozenset()
    place: str | None = None
    remove: str | None = None
    last_draw: Any = None
    candidates: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        return "" if self.notice is None else str(self.notice)

    def say(self, notice: Words) -> None:
        """Set the words of the moment."""
        self.notice = notice

    def clear_problems(self) -> None:
        self.notice = None
        self.lifted = self.place = self.remove = None
        self.destinations = self.errors = frozenset()


def hides_hands(game) -> bool:
    """Whether ``game`` keeps something from some players (it has its own ``view``)."""
    return type(game).view is not Game.view


def _leaves_board(before: tuple, moved: tuple, extra: list[int]) -> bool:
    """Whether every ``extra`` cell held a piece before the move (a capture) rather
    than one the move itself lifted (then the board shows no move at all)."""
    return all(before[i] is not None for i in extra) and len(moved) > len(extra)


def token_words(token: str | None) -> Words:
    """A piece's token (``red``, ``hare``, ``red+red`` for a stack...) as words a page
    translates, part by part."""
    parts = [Words(f"token.{part}", part) for part in str(token).split("+")]
    return words("referee.token", "{parts}", parts=parts)


def _not_saved(error: Exception) -> Words:
    return words("referee.not_saved", "Not saved, so not accepted: {error}", error=str(error))


def _not_computer_move(move) -> Words:
    return words(
        "referee.not_computer_move", "Please play the computer's move: {move}", move=str(move)
    )


def _nothing_to_confirm() -> Words:
    return words("referee.nothing_to_confirm", "There is no move waiting for confirmation")


def _not_now(phase: str) -> Words:
    return words(
        "referee.not_now",
        "No move can be played now ({phase})",
        phase=Words(f"phase_{phase}", phase),
    )


def _lists(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_lists(v) for v in value]
    return value


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value
