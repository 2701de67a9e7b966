"""The referee's commands from the panel, the buttons and the computer seats: draw,
confirm, choose, takeback, play, decline, correct, set a position, hold pieces,
name or rule out a move the board cannot feel. A part of the referee; each command
is checked and logged before it changes anything."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from boardref.eventlog.store import StoreError
from boardref.referee.events import Event, Outbox
from boardref.referee.judging import Judging
from boardref.referee.kinds import EventKind, Phase, Sensor
from boardref.referee.ledger import Ledger
from boardref.referee.match import Match
from boardref.referee.unseen import Unseen
from boardref.referee.verdicts import (
    RefereeError,
    as_lists,
    move_not_saved,
    not_computer_move,
    not_now,
    nothing_to_confirm,
)
from engines import PASS, Move, RulesError
from engines.chance import Shuffle
from engines.words import Words, words


class Commands:
    """The commands a person (or a computer seat) gives the referee."""

    def __init__(
        self, match: Match, ledger: Ledger, judging: Judging, unseen: Unseen, outbox: Outbox
    ):
        self.match = match
        self.ledger = ledger
        self.judging = judging
        self.unseen = unseen
        self.outbox = outbox

    def draw(self) -> Any:
        """Draw what the game asks for (a roll, marbles...) from the committed stream."""
        m = self.match
        m.require_game()
        if m.tentative is not None:  # a draw is the next player acting
            self.judging.finalise()
        self._require_chosen()
        if m.phase != Phase.CHANCE:
            raise RefereeError(
                words(
                    "referee.nothing_to_draw",
                    "Nothing to draw now: wait until the table asks for a draw",
                )
            )
        spec = m.rules.chance(m.positions[-1])
        outcome = spec.draw(m.chances)
        data = {
            "spec": spec.to_json(),
            "outcome": as_lists(outcome),
            "counter": m.chances.counter,
        }
        state = m.rules.resolve(m.positions[-1], outcome)
        if self.ledger.accept(EventKind.CHANCE, data, state):
            # a shuffled deck holds every hand: it is logged, never shown
            m.view.last_draw = None if isinstance(spec, Shuffle) else as_lists(outcome)
            self.ledger.after_change()
        self.outbox.publish()
        return outcome

    def _require_chosen(self) -> None:
        """Refuse while the players are to choose which move was played: finalising
        the turn under way may have just asked it, so the question is shown first."""
        m = self.match
        if m.phase == Phase.AMBIGUOUS:
            self.outbox.publish()
            raise RefereeError(
                words("referee.choose_first", "First choose the move that was played")
            )

    def confirm(self) -> None:
        """The player says their move is complete. With no move waiting, it names a
        move the sensors cannot see (a hat put onto a tower the hall sensors already
        felt): such legal moves are offered to choose (the computer's announced one
        is taken).

        The press says the hand is off the board: a reading that has not settled yet
        is judged first, so the turn confirmed is the one the board shows, not the
        half of it judged before the last figure went down."""
        m = self.match
        m.require_game()
        plies = len(m.log)
        if self.judging.judge_unsettled() and (len(m.log) > plies or m.phase == Phase.AMBIGUOUS):
            self.outbox.publish()  # the board's turn was taken, or the players are asked which
            return
        if m.tentative is not None:
            self.judging.finalise(mark="confirmed")
        elif m.phase == Phase.MOVE and m.reading is not None:
            self._offer_unseen()
        else:
            raise RefereeError(nothing_to_confirm())
        self.outbox.publish()

    def _offer_unseen(self) -> None:
        m = self.match
        base = m.positions[-1]
        key = self.unseen.shown_key()
        if key != m.key_of(base):
            raise RefereeError(
                words(
                    "referee.board_not_position",
                    "The board does not show the position, so there is nothing to confirm: put "
                    "the pieces {lights, select, on {as the lights show} other {as the board on "
                    "the screen marks them}}",
                    lights=m.shown_by(),
                )
            )
        unseen = {state: move for move, state in m.successors_of(base).get(key)}
        if not unseen:
            raise RefereeError(nothing_to_confirm())
        if m.expected is not None and m.expected[1] in unseen:
            self.ledger.accept_move(m.expected[0])  # the computer's move, carried out
            return
        # a press is no move: taken unasked, a confirm pressed before moving anything
        # would play a move the board never saw, and the game and the board drift apart
        self.judging.ask(unseen.values())

    def choose(self, move_text: str) -> None:
        """Pick the move that was played when several fit the board, or one of the
        moves the board cannot feel (``Unseen``)."""
        m = self.match
        m.require_game()
        if m.phase == Phase.MOVE and self.take_unseen(move_text):
            self.outbox.publish()  # a move the board cannot feel, named by its mover
            return
        if m.phase != Phase.AMBIGUOUS or move_text not in m.view.candidates:
            raise RefereeError(
                words(
                    "referee.not_a_candidate",
                    "{move} is not one of the moves that fit the board: choose one of the moves "
                    "offered",
                    move=move_text,
                )
            )
        move = m.rules.parse_move(m.positions[-1], move_text)
        m.view.candidates = ()
        m.phase = Phase.MOVE
        m.tentative = None  # the turn chosen is the whole of what was under way
        self.ledger.accept_move(move, mark="chosen")
        self.outbox.publish()

    def takeback(self) -> str:
        """Undo the tentative move, or the last accepted move; returns what was undone."""
        m = self.match
        m.require_game()
        m.expected = None
        if m.tentative is not None:
            undone = str(m.tentative[0])
            m.tentative = None
            m.view.last_move = ()
            self.outbox.emit(Event(EventKind.TAKEBACK, {"move": undone}))
            self.judging.recheck()
            self.outbox.publish()
            return undone
        if m.phase == Phase.OVER:
            raise RefereeError(words("referee.over", "The game is over; start a new one"))
        if not m.steps:
            raise RefereeError(
                words("referee.nothing_to_take_back", "Nothing to take back: make a move first")
            )
        last_kind, last = m.steps[-1]
        if last_kind == EventKind.CHANCE:
            raise RefereeError(
                words(
                    "referee.draw_stays",
                    "A draw cannot be taken back: the dice and draws are committed; play on from "
                    "it",
                )
            )
        undone = last.get("move", "correction")
        if self.ledger.accept(EventKind.TAKEBACK, {"move": undone}, None):
            m.view.last_move = ()
            self.ledger.after_change()
            self.judging.recheck()
        self.outbox.publish()
        return undone

    def seat_computer(self, seats: Iterable[int], level: str = "hard") -> None:
        """Let the computer play ``seats`` at ``level``; logged, so it survives a restart."""
        m = self.match
        m.require_game()
        seats = frozenset(seats)
        if not seats <= set(range(m.rules.players)):
            raise RefereeError(
                words(
                    "referee.no_such_seats",
                    "Seats {seats} are not all seats of this game: choose seats of this game",
                    seats=[s + 1 for s in sorted(seats)],
                )
            )
        data = {"computer": sorted(seats), "level": level}
        try:
            self.ledger.store.append(m.logged_as, EventKind.SEATS, data)
        except StoreError as exc:
            raise RefereeError(move_not_saved(exc)) from None
        m.log.append((EventKind.SEATS, data))
        m.computer, m.level = seats, level
        self.outbox.publish()

    def computer_to_move(self) -> bool:
        """Whether the computer should now choose a move for the seat to act."""
        m = self.match
        return (
            m.phase == Phase.MOVE
            and m.expected is None
            and m.tentative is None
            and m.rules.to_move(m.positions[-1]) in m.computer
        )

    def computer_moves_itself(self) -> bool:
        """Whether the computer's moves are made by the referee itself: in a game with
        no board to carry them out on (the card game, Hägar entered on the panel),
        read on the panel alone."""
        m = self.match
        return m.sensor == Sensor.PANEL and Sensor.PRESENCE not in m.rules.SENSORS

    def computer_to_draw(self) -> bool:
        """Whether the computer should now draw for the seat whose draw it is: the
        draw is made on the panel in every game, so nobody has to press Draw for the
        computer. A draw of the whole table (a deal, the set-up) is the computer's only
        where it plays every seat of a game with no board, with nobody else to press it."""
        m = self.match
        if m.phase != Phase.CHANCE:
            return False
        drawer = m.rules.drawer(m.positions[-1])
        if drawer is None:
            everyone = m.computer >= set(range(m.rules.players))
            return everyone and self.computer_moves_itself()
        return drawer in m.computer

    def expect(self, move_text: str, thought_s: float | None = None) -> None:
        """The computer has chosen ``move_text`` for the seat to move, after thinking
        ``thought_s`` seconds: announce it (pages say how long it thought), light it,
        and accept only that move from the board (or, where it
        ``computer_moves_itself``, from the service that makes it after a pause)."""
        m = self.match
        m.require_game()
        if m.phase != Phase.MOVE:
            raise RefereeError(not_now(m.phase))
        base = m.positions[-1]
        move = m.rules.parse_move(base, move_text)
        m.expected = (move, m.rules.apply(base, move))
        thought = {} if thought_s is None else {"seconds": round(thought_s, 1)}
        if self.computer_moves_itself():
            said = words(
                "referee.computer_plays", "The computer plays {move}", move=str(move), **thought
            )
        else:
            said = words(
                "referee.computer_moves",
                "The computer plays {move}: please carry it out on the board",
                move=str(move),
                **thought,
            )
        m.view.say(said)
        self.outbox.emit(Event(EventKind.COMPUTER_MOVE, {"move": str(move)}))
        self.outbox.publish()

    def play(self, move_text: str) -> None:
        """A move tapped on the panel, at a table whose game no sensor reads."""
        m = self.match
        m.require_game()
        if m.sensor != Sensor.PANEL:
            raise RefereeError(
                words(
                    "referee.play_on_board",
                    "Moves at this table are read from the board: play on it",
                )
            )
        if m.phase != Phase.MOVE:
            raise RefereeError(not_now(m.phase))
        base = m.positions[-1]
        move = m.rules.parse_move(base, move_text)
        if m.expected is not None and m.rules.apply(base, move) != m.expected[1]:
            raise RefereeError(not_computer_move(m.expected[0]))
        self.ledger.accept_move(move)
        self.outbox.publish()

    def decline(self) -> None:
        """The seat to roll declines a roll the rules offer but do not force (the
        extra roll after a six); the turn passes. Logged as that seat's pass."""
        m = self.match
        m.require_game()
        if m.roll_after_tentative():  # declining is the mover's next act: the move stands
            self.judging.finalise()
        self._require_chosen()
        base = m.positions[-1]
        spec = m.rules.chance(base) if m.phase == Phase.CHANCE else None
        if not getattr(spec, "optional", False):
            raise RefereeError(
                words(
                    "referee.nothing_to_decline",
                    "There is no roll to decline now: roll or move as the table says",
                )
            )
        data = {"move": str(PASS), "seat": m.rules.drawer(base)}
        if self.ledger.accept(EventKind.MOVE, data, m.rules.apply(base, PASS)):
            self.ledger.after_change()
        self.outbox.publish()

    def correct(self, move_text: str) -> None:
        """A referee's correction of a misread: ``move_text`` is the move really played
        in place of the last one read. That is the move under way, the one the players
        are asked about, or else the last move played: it is taken back (with the
        passes that followed it) and the correction played from the position before
        it, each logged, so a replay gives the same game."""
        m = self.match
        m.require_game()
        undo, replaced = self._move_to_correct()
        base = m.positions[-1 - undo]
        try:
            move = m.rules.parse_move(base, move_text)
        except RulesError as exc:
            raise RefereeError(cannot_replace(move_text, replaced, exc.words)) from None
        for _ in range(undo):
            if not self.ledger.accept(EventKind.TAKEBACK, {"move": m.steps[-1][1]["move"]}, None):
                self.outbox.publish()
                return
        m.tentative = m.expected = None
        m.view.candidates = ()
        m.phase = Phase.MOVE
        if self.ledger.accept_move(move, mark="corrected"):
            self.judging.recheck()
            said = replaced_by(replaced, str(move))
            m.view.say(
                said
                if m.view.notice is None
                else words(
                    "referee.replaced_then",
                    "{replaced}. {then}",
                    replaced=said,
                    then=m.view.notice,
                )
            )
        self.outbox.publish()

    def correction_choices(self) -> dict[str, Any]:
        """What the referee may put in the place of the last move: that move, the
        position before it as a camera sees it, and every legal move from there with
        its path and the cells it changes."""
        m = self.match
        m.require_game()
        undo, replaced = self._move_to_correct()
        base = m.positions[-1 - undo]
        seen = m.rules.observe(base)

        def changed(move: Move) -> list[str]:  # what a tap can tell a move without a path by
            after = m.rules.observe(m.rules.apply(base, move))
            return sorted(cell for cell, token in after.items() if token != seen[cell])

        return {
            "replaces": replaced,
            "position": seen,
            "moves": [
                {"move": str(m), "path": list(getattr(m, "path", ())), "cells": changed(m)}
                for m in m.rules.legal_moves(base)
                if m != PASS
            ],
        }

    def _move_to_correct(self) -> tuple[int, str | None]:
        """The move a correction replaces, as the number of steps to take back and
        the move's words (None: the move under way, the players asked which move
        fits the board or the board read as none since the turn's draw)."""
        m = self.match
        if m.phase == Phase.OVER:
            raise RefereeError(words("referee.over", "The game is over; start a new one"))
        if m.phase == Phase.SETUP:  # the board is laid out first, then it is refereed
            raise RefereeError(not_now(m.phase))
        if m.tentative is not None:
            return 0, str(m.tentative[0])
        if m.phase == Phase.AMBIGUOUS or m.drawn_for():
            # the turn under way, drawn for, is the one a misread board holds up
            # (the board matches no legal move): the referee names the move played
            return 0, None
        for undo, (kind, data) in enumerate(reversed(m.steps), start=1):
            if kind == EventKind.MOVE and data["move"] != str(PASS):
                return undo, data["move"]
            if kind == EventKind.CHANCE:
                raise RefereeError(
                    words(
                        "referee.correct_after_draw",
                        "A draw came after the last move and stays: "
                        "set the position on the board instead",
                    )
                )
            if kind == EventKind.CORRECTION:
                raise RefereeError(
                    words(
                        "referee.correct_after_position",
                        "No move has been played since the position was set: "
                        "set the position on the board again instead",
                    )
                )
        raise RefereeError(
            words(
                "referee.nothing_to_correct",
                "No move has been played yet: set the position on the board instead",
            )
        )

    def set_position(self, record: dict[str, Any]) -> None:
        """A referee sets the whole position (a record as ``game.to_json`` writes it)."""
        m = self.match
        m.require_game()
        state = m.rules.from_json(record)
        m.tentative = None
        if self.ledger.accept(EventKind.CORRECTION, {"record": m.rules.to_json(state)}, state):
            self.ledger.after_change()
            self.judging.recheck()
        self.outbox.publish()

    def hold(self, cells: Iterable[str]) -> None:
        """A sensor observation the sensors cannot make: the hand holds pieces lifted
        from ``cells``, which still hold others (one hat of six off a home). Until the
        reading says more, the display lights the first such origin and the ends of
        the legal moves whose path starts there."""
        m = self.match
        held = tuple(cells)
        if held != m.held:
            m.held = held
            self.outbox.publish()

    def take_unseen(self, move_text: str) -> bool:
        """The mover names the unseen move they made; False when ``move_text`` is
        not one the table asks about (the caller then refuses it)."""
        offered = {str(move): move for move in self.unseen.asked_unseen()}
        if move_text not in offered:
            return False
        self.ledger.accept_move(offered[move_text], mark="chosen")
        return True

    def rule_out(self) -> None:
        """The mover made none of the unseen moves: the table stops asking for this
        position (a confirm offers them again), and play goes on from the board."""
        m = self.match
        m.require_game()
        if not self.unseen.asked_unseen() and not (
            m.phase == Phase.AMBIGUOUS and self.unseen.unseen_moves()
        ):
            raise RefereeError(
                words("referee.no_unseen", "No move the board cannot feel is waiting: play on")
            )
        self.unseen.ruled_out = self.unseen.turn_mark()
        m.phase = Phase.MOVE
        m.view.candidates = ()
        m.view.clear_problems()
        self.outbox.emit(Event(EventKind.RULED_OUT, {}))
        self.outbox.publish()


def replaced_by(replaced: str | None, move: str) -> Words:
    """What a correction did, said on every page."""
    if replaced is None:
        return words("referee.entered", "The referee entered the move played: {move}", move=move)
    return words(
        "referee.replaced",
        "The last move {replaced} was replaced by {move}",
        replaced=replaced,
        move=move,
    )


def cannot_replace(move: str, replaced: str | None, reason: Words) -> Words:
    """Why ``move`` cannot stand in the place of the last move, and what to do."""
    if replaced is None:
        return words(
            "referee.cannot_enter",
            "{move} cannot be the move played: {reason}. Pick one of the moves the referee "
            "page offers",
            move=move,
            reason=reason,
        )
    return words(
        "referee.cannot_replace",
        "{move} cannot replace {replaced}: {reason}. Pick one of the moves the referee page offers",
        move=move,
        replaced=replaced,
        reason=reason,
    )
