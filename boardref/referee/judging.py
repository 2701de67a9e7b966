"""The referee's verdicts: a settled reading of the board is judged against the
legal successors of the turn-start position. One match is a move; a move that could
still grow (a jump chain set down mid-way) stays tentative until the next player
acts, a confirm, or a draw; several are asked about on the panel; none is explained
by the guidance. Accepted moves go through the ledger, log first. A part of the
referee; it never touches a device and never reads a clock.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from boardref.referee.events import Event, Outbox
from boardref.referee.guidance import Guidance
from boardref.referee.kinds import EventKind, Phase, Sensor
from boardref.referee.ledger import Ledger
from boardref.referee.match import Match
from boardref.referee.verdicts import Reading, not_computer_move
from boardref.referee.weighing import Weighing
from engines import Move
from engines.words import Words, words


class Judging:
    """Judges readings and settles the move under way."""

    def __init__(
        self, match: Match, ledger: Ledger, guidance: Guidance, weighing: Weighing, outbox: Outbox
    ):
        self.match = match
        self.ledger = ledger
        self.guidance = guidance
        self.weighing = weighing
        self.outbox = outbox

    def judge(self, reading: Reading) -> None:
        """The verdict on a settled reading (settling is the caller's or ``tick``'s job)."""
        m = self.match
        if m.sensor in (Sensor.CAMERA, Sensor.BOTH) and m.observation is not None:
            reading = self.weighing.weigh(reading)
        m.read_as = reading
        if m.phase == Phase.OVER:
            self.guidance.show_differences(reading, m.current(), quiet=True)
        elif m.phase == Phase.SETUP:
            if self.guidance.guide_back(reading):
                self.start_play()
            elif (
                len(m.positions) > 1
                and m.phase_after_change() == Phase.MOVE
                and m.successors_of(m.positions[-1]).get(m.key(reading))
            ):
                # resumed while a move was on the board but not yet logged
                self.start_play()
                self._judge_move(reading)
        elif m.phase == Phase.CHANCE:
            self.guidance.guide_back(reading)
        else:
            self._judge_move(reading)
        self.outbox.publish()

    def judge_unsettled(self) -> bool:
        """Judge the reading on the board now, before it has settled (a player says
        the move is made); True if there was one to judge."""
        m = self.match
        if m.game is None or m.sensor == Sensor.PANEL or m.waiting is not None:
            return False
        if m.reading is None or m.reading == m.judged:
            return False
        if m.phase not in (Phase.MOVE, Phase.AMBIGUOUS):
            return False
        m.judged, failed = m.reading, m.failed_saves
        self.judge(m.reading)
        if m.failed_saves != failed:  # the log refused it: the next tick judges again
            m.judged = None
        return True

    def _judge_move(self, reading: Reading) -> None:
        m = self.match
        base, key = m.positions[-1], m.key(reading)
        if m.doubt is not None and m.doubt[0] == key:
            doubtful = {
                state: move for tie in m.doubt[1] for move, state in m.successors_of(base).get(tie)
            }
            if doubtful:
                self.ask(doubtful.values(), m.doubt[2])
                return
        if key == m.key_of(m.current()):
            m.view.clear_problems()
            return
        if m.expected is not None and key == m.key_of(m.expected[1]):
            self._judge_expected(m.expected, {m.expected[1]: m.expected[0]})  # no need to list all
            return
        matches = m.matches(base, key)
        if not matches and m.tentative is not None:
            after = m.tentative[1]
            following = m.matches(after, key)
            if following:
                if not self.finalise():
                    return
                self._judge_move(reading)
                return
        distinct = {state: move for move, state in matches}
        if m.expected is not None and distinct:
            self._judge_expected(m.expected, distinct)
            return
        if len(distinct) > 1 and (
            m.tentative is not None or any(m.may_grow(base, move) for move in distinct.values())
        ):
            near = self._nearest(distinct, m.current())
            # a turn that can no longer grow is not taken on a guess of which figure
            # went where: the players are asked
            if any(m.may_grow(base, move) for move in near.values()):
                distinct = near
        if len(distinct) == 1:
            state, move = next(iter(distinct.items()))
            m.view.clear_problems()
            m.phase = Phase.MOVE
            if m.rules.outcome(state) is None and (
                m.may_grow(base, move) or self._looks_lifted(base, key)
            ):
                m.tentative = (move, state)
                m.view.last_move = getattr(move, "path", ())
                self.outbox.emit(Event(EventKind.TENTATIVE, {"move": str(move)}))
            else:
                m.tentative = None
                self.ledger.accept_move(move, after=state)
            return
        if distinct:
            self.ask(distinct.values())
            return
        if m.phase == Phase.AMBIGUOUS:
            m.phase = Phase.MOVE
            m.view.candidates = ()
        self.guidance.explain(reading)

    def _judge_expected(self, expected: tuple[Move, Any], distinct: dict[Any, Move]) -> None:
        m = self.match
        move, after = expected
        if after in distinct:  # accepting it ends the announcement (``Ledger.accept``)
            m.view.clear_problems()
            self.ledger.accept_move(move)
            return
        played = next(iter(distinct.values()))
        m.view.clear_problems()
        m.view.errors = frozenset(getattr(played, "path", ())) | frozenset(
            getattr(move, "path", ())
        )
        m.view.say(not_computer_move(move))
        self.outbox.emit(
            Event(EventKind.ILLEGAL, {"cells": sorted(m.view.errors), "reason": m.view.message})
        )

    def _nearest(self, distinct: dict[Any, Move], judged: Any) -> dict[Any, Move]:
        """Of several positions that fit the board, those a hand reaches from the one
        judged on it (``current``) by the fewest changed cells: a turn carried out a
        figure at a time grows from what is on the board (a molehill put beside the
        hare that just jumped, not the hare jumping there and a molehill put where it
        was). Used only to keep a turn that may still grow: finished moves are asked
        about, as near ones may differ in what the sensors cannot tell apart (which
        hat is on top, which figure a hall sensor feels). Positions as near as each
        other are asked about too."""
        m = self.match
        seen = m.rules.observe(judged)

        def changes(state: Any) -> int:
            return sum(token != seen[cell] for cell, token in m.rules.observe(state).items())

        fewest = min(map(changes, distinct))
        return {state: move for state, move in distinct.items() if changes(state) == fewest}

    def _looks_lifted(self, base: Any, key: tuple[Any, ...]) -> bool:
        """Whether a move's reading only empties cells, as a piece held in the hand
        does (a hat put onto a tower the sensor already feels): it waits for the
        player's confirm or the next player rather than being taken at once. A cell
        that shows something else (the camera sees a figure land on a disk) is a
        piece put down, not lifted."""
        m = self.match
        before = m.key_of(base)
        return all(then is None or now == then for now, then in zip(before, key)) and any(
            now is not None and then is None for now, then in zip(before, key)
        )

    def start_play(self) -> None:
        m = self.match
        m.phase = m.phase_after_change()
        m.view.clear_problems()
        self.outbox.emit(Event(EventKind.IN_POSITION, {}))
        self.ledger.after_change()

    def finalise(self, mark: str | None = None) -> bool:
        """Play the tentative move, now finished; when other finished moves read alike
        on this table's sensors (which figure a hall sensor feels where), ask which
        was played instead. False unless the move was played."""
        m = self.match
        if m.tentative is None:
            return False
        move, state = m.tentative
        m.tentative = None
        alike = {after: move for move, after in m.matches(m.positions[-1], m.key_of(state))}
        if len(alike) > 1:
            self.ask(alike.values())
            return False
        return self.ledger.accept_move(move, mark, after=state)

    def ask(self, moves: Iterable[Move], why: Words | None = None) -> None:
        """Several moves fit the board (or, as ``why`` says, one the sensors disagree
        on): the players choose on the panel."""
        m = self.match
        m.phase = Phase.AMBIGUOUS
        m.view.candidates = tuple(str(move) for move in moves)
        m.view.say(
            why
            or words(
                "referee.ambiguous", "Several moves fit the board: choose the one that was played"
            )
        )
        self.outbox.emit(Event(EventKind.AMBIGUOUS, {"candidates": list(m.view.candidates)}))

    def recheck(self) -> None:
        """After a command changed the position, show how the board differs from it
        (a panel table's reading is one left over from a board game before it)."""
        m = self.match
        if m.reading is not None and m.phase != Phase.OVER and m.sensor != Sensor.PANEL:
            self.guidance.show_differences(m.reading, m.current(), quiet=False)
        m.judged = m.reading
