"""The referee's ledger: an accepted event goes to the event log first and only then
changes the match, so a restart replays exactly what the players saw. A log that
refuses the event (a full disk) leaves everything as it was and is said on the
panel. What follows from a position by itself (a pass, the end of the game) is
logged here too. It never judges a reading.
"""

from __future__ import annotations

import json
from typing import Any

from boardref.eventlog.store import Store, StoreError
from boardref.referee.events import Event, Outbox
from boardref.referee.kinds import EventKind, Phase
from boardref.referee.match import Match
from boardref.referee.verdicts import hides_hands, move_not_saved
from engines import PASS, Move, RulesError
from engines.chance import commitment
from engines.words import words


class Ledger:
    """Logs, then changes the match, then tells the listeners."""

    def __init__(self, match: Match, store: Store, outbox: Outbox):
        self.match = match
        self.store = store
        self.outbox = outbox

    def accept_move(self, move: Move, mark: str | None = None, after: Any = None) -> bool:
        """Log and play ``move``; ``mark`` says how the referee came to accept it
        ("confirmed", "chosen", "corrected"), for the game's record; ``after``, the
        position it leads to, where the caller has it already."""
        m = self.match
        state = m.positions[-1]
        data: dict[str, Any] = {"move": str(move), "seat": m.rules.to_move(state)}
        if mark is not None:
            data[mark] = True
        if after is None:
            after = m.rules.apply(state, move)
        if not self.accept(EventKind.MOVE, data, after):
            return False
        m.view.last_move = getattr(move, "path", ())
        self.after_change()
        return True

    def accept(self, kind: EventKind, data: dict[str, Any], state: Any) -> bool:
        """Log first, then change; a store failure leaves everything as it was."""
        m = self.match
        try:
            self.store.append(m.logged_as, kind, data)
        except StoreError as exc:
            self.save_failed(exc)
            self.outbox.emit(Event(EventKind.STORE_ERROR, {"error": str(exc)}))
            return False
        m.log.append((kind, data))
        m.step(kind, data, state)
        m.make_room()
        # a move the computer announced was for the position before this one
        m.expected = None
        m.view.clear_problems()
        self.outbox.emit(Event(kind, self._public(kind, data), accepted=True))
        return True

    def save_failed(self, error: StoreError) -> None:
        m = self.match
        m.failed_saves += 1
        m.save_error = error
        m.view.say(move_not_saved(error))

    def _public(self, kind: EventKind, data: dict[str, Any]) -> dict[str, Any]:
        """What listeners beyond the log hear of an accepted event. In a game with
        hidden hands a draw (a shuffled deck) and a whole position would tell every
        hand: they are told as a commitment instead, which the seed revealed at the
        end lets anyone check against the log."""
        if kind not in (EventKind.CHANCE, EventKind.CORRECTION) or not hides_hands(
            self.match.rules
        ):
            return data
        secret = {k: v for k, v in data.items() if k in ("outcome", "record")}
        sealed = json.dumps(secret, sort_keys=True).encode()
        public = {k: v for k, v in data.items() if k not in secret}
        if "spec" in public:  # what was drawn, not the cards it was drawn from
            public["spec"] = {"kind": public["spec"].get("kind")}
        return {**public, "hidden": commitment(self.match.seed + sealed)}

    def after_change(self) -> None:
        """Passes, the end of the game and pending chance follow from the position."""
        m = self.match
        game, state = m.rules, m.positions[-1]
        while m.phase != Phase.SETUP and game.outcome(state) is None and game.must_pass(state):
            if not self.accept(
                EventKind.MOVE,
                {"move": "pass", "seat": game.to_move(state)},
                game.apply(state, PASS),
            ):
                return
            state = m.positions[-1]
        ended = game.outcome(state)
        if ended is not None and m.phase != Phase.OVER:
            data: dict[str, Any] = {
                "winners": list(ended.winners),
                "reason": ended.reason,
                "seed": m.seed.hex(),
            }
            if ended.scores is not None:
                data["scores"] = list(ended.scores)
            try:
                self.store.end_game(m.logged_as, EventKind.GAME_OVER, data)
            except StoreError as exc:
                self.save_failed(exc)
                return
            m.log.append((EventKind.GAME_OVER, data))
            m.phase = Phase.OVER
            m.view.say(words("referee.game_over", "Game over: {reason}", reason=ended.words))
            self.outbox.emit(Event(EventKind.GAME_OVER, data, accepted=True))
            return
        if m.phase != Phase.SETUP:
            m.phase = m.phase_after_change()

    def replay(self, kind: EventKind, data: dict[str, Any]) -> None:
        """Follow an event of the log again, as on resuming."""
        m = self.match
        game, state = m.rules, m.positions[-1]
        if kind == EventKind.MOVE:
            m.step(kind, data, game.apply(state, game.parse_move(state, data["move"])))
        elif kind == EventKind.CHANCE:
            m.chances.counter = data["counter"]
            m.step(kind, data, game.resolve(state, _tuples(data["outcome"])))
        elif kind == EventKind.TAKEBACK:
            m.step(kind, data, None)
        elif kind == EventKind.CORRECTION:
            m.step(kind, data, game.from_json(data["record"]))
        elif kind == EventKind.SEATS:
            m.computer, m.level = frozenset(data["computer"]), data["level"]
        elif kind != EventKind.GAME_OVER:
            raise RulesError(f"unknown event kind {kind!r}")


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value
