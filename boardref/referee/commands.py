"""The referee's commands from the panel, the buttons and the computer seats: draw,
confirm, choose, takeback, play, decline, correct, set a position, hold pieces.
Part of ``Referee``; each command is checked and logged before it changes anything."""

from __future__ import annotations

from typing import Any

from boardref.eventlog.store import StoreError
from boardref.referee.verdicts import (
    AMBIGUOUS,
    CHANCE,
    MOVE,
    OVER,
    PANEL,
    SETUP,
    Event,
    RefereeError,
    as_lists,
    not_computer_move,
    not_now,
    not_saved,
    nothing_to_confirm,
)
from engines import PASS, RulesError
from engines.chance import Shuffle
from engines.words import Words, words


class Commands:
    """The commands a person (or a computer seat) gives the referee."""

    def draw(self) -> Any:
        """Draw what the game asks for (a roll, marbles...) from the committed stream."""
        self._require_game()
        if self.tentative is not None:  # a draw is the next player acting
            self._finalise()
        self._require_chosen()
        if self.phase != CHANCE:
            raise RefereeError(
                words(
                    "referee.nothing_to_draw",
                    "Nothing to draw now: wait until the table asks for a draw",
                )
            )
        spec = self.game.chance(self.positions[-1])
        outcome = spec.draw(self.stream)
        data = {
            "spec": spec.to_json(),
            "outcome": as_lists(outcome),
            "counter": self.stream.counter,
        }
        state = self.game.resolve(self.positions[-1], outcome)
        if self._accept("chance", data, state):
            # a shuffled deck holds every hand: it is logged, never shown
            self._view.last_draw = None if isinstance(spec, Shuffle) else as_lists(outcome)
            self._after_change()
        self._publish()
        return outcome

    def _require_chosen(self) -> None:
        """Refuse while the players are to choose which move was played: finalising
        the turn under way may have just asked it, so the question is shown first."""
        if self.phase == AMBIGUOUS:
            self._publish()
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
        self._require_game()
        plies = len(self.log)
        if self._judge_unsettled() and (len(self.log) > plies or self.phase == AMBIGUOUS):
            self._publish()  # the board's turn was taken, or the players are asked which
            return
        if self.tentative is not None:
            self._finalise(mark="confirmed")
        elif self.phase == MOVE and self.reading is not None:
            self._offer_unseen()
        else:
            raise RefereeError(nothing_to_confirm())
        self._publish()

    def _offer_unseen(self) -> None:
        base = self.positions[-1]
        key = self.shown_key()
        if key != self._key_of(base):
            raise RefereeError(
                words(
                    "referee.board_not_position",
                    "The board does not show the position, so there is nothing to confirm: put "
                    "the pieces as the lights show",
                )
            )
        unseen = {state: move for move, state in self._successors_of(base).get(key)}
        if not unseen:
            raise RefereeError(nothing_to_confirm())
        if self.expected is not None and self.expected[1] in unseen:
            self._accept_move(self.expected[0])  # the computer's move, carried out
            return
        # a press is no move: taken unasked, a confirm pressed before moving anything
        # would play a move the board never saw, and the game and the board drift apart
        self._ask(unseen.values())

    def _ask(self, moves, why: Words | None = None) -> None:
        """Several moves fit the board (or, as ``why`` says, one the sensors disagree
        on): the players choose on the panel."""
        self.phase = AMBIGUOUS
        self._view.candidates = tuple(str(m) for m in moves)
        self._view.say(
            why
            or words(
                "referee.ambiguous", "Several moves fit the board: choose the one that was played"
            )
        )
        self._emit(Event("ambiguous", {"candidates": list(self._view.candidates)}))

    def choose(self, move_text: str) -> None:
        """Pick the move that was played when several fit the board, or one of the
        moves the board cannot feel (``Unseen``)."""
        self._require_game()
        if self.phase == MOVE and self.take_unseen(move_text):
            self._publish()  # a move the board cannot feel, named by its mover
            return
        if self.phase != AMBIGUOUS or move_text not in self._view.candidates:
            raise RefereeError(
                words(
                    "referee.not_a_candidate",
                    "{move} is not one of the moves that fit the board: choose one of the moves "
                    "offered",
                    move=move_text,
                )
            )
        move = self.game.parse_move(self.positions[-1], move_text)
        self._view.candidates = ()
        self.phase = MOVE
        self.tentative = None  # the turn chosen is the whole of what was under way
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
            raise RefereeError(
                words("referee.nothing_to_take_back", "Nothing to take back: make a move first")
            )
        last_kind, last = self.steps[-1]
        if last_kind == "chance":
            raise RefereeError(
                words(
                    "referee.draw_stays",
                    "A draw cannot be taken back: the dice and draws are committed; play on from "
                    "it",
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
                    "Seats {seats} are not all seats of this game: choose seats of this game",
                    seats=[s + 1 for s in sorted(seats)],
                )
            )
        data = {"computer": sorted(seats), "level": level}
        try:
            self.store.append(self.game_id, "seats", data)
        except StoreError as exc:
            raise RefereeError(not_saved(exc)) from None
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

    def computer_moves_itself(self) -> bool:
        """Whether the computer's moves are made by the referee itself: in a game with
        no board to carry them out on (the card game, Hägar entered on the panel),
        read on the panel alone."""
        return self.sensor == PANEL and "presence" not in self.game.SENSORS

    def computer_to_draw(self) -> bool:
        """Whether the computer should now draw for the seat whose draw it is: the
        draw is made on the panel in every game, so nobody has to press Draw for the
        computer. A draw of the whole table (a deal, the set-up) is the computer's only
        where it plays every seat of a game with no board, with nobody else to press it."""
        if self.phase != CHANCE:
            return False
        drawer = self.game.drawer(self.positions[-1])
        if drawer is None:
            everyone = self.computer >= set(range(self.game.players))
            return everyone and self.computer_moves_itself()
        return drawer in self.computer

    def expect(self, move_text: str) -> None:
        """The computer has chosen ``move_text`` for the seat to move: announce it,
        light it, and accept only that move from the board (or, where it
        ``computer_moves_itself``, from the service that makes it after a pause)."""
        self._require_game()
        if self.phase != MOVE:
            raise RefereeError(not_now(self.phase))
        base = self.positions[-1]
        move = self.game.parse_move(base, move_text)
        self.expected = (move, self.game.apply(base, move))
        if self.computer_moves_itself():
            said = words("referee.computer_plays", "The computer plays {move}", move=str(move))
        else:
            said = words(
                "referee.computer_moves",
                "The computer plays {move}: please carry it out on the board",
                move=str(move),
            )
        self._view.say(said)
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
        self._view.say(not_computer_move(move))
        self._emit(
            Event("illegal", {"cells": sorted(self._view.errors), "reason": self._view.message})
        )

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
            raise RefereeError(not_now(self.phase))
        base = self.positions[-1]
        move = self.game.parse_move(base, move_text)
        if self.expected is not None and self.game.apply(base, move) != self.expected[1]:
            raise RefereeError(not_computer_move(self.expected[0]))
        self._accept_move(move)
        self._publish()

    def decline(self) -> None:
        """The seat to roll declines a roll the rules offer but do not force (the
        extra roll after a six); the turn passes. Logged as that seat's pass."""
        self._require_game()
        if self._roll_after_tentative():  # declining is the mover's next act: the move stands
            self._finalise()
        self._require_chosen()
        base = self.positions[-1]
        spec = self.game.chance(base) if self.phase == CHANCE else None
        if not getattr(spec, "optional", False):
            raise RefereeError(
                words(
                    "referee.nothing_to_decline",
                    "There is no roll to decline now: roll or move as the table says",
                )
            )
        data = {"move": str(PASS), "seat": self.game.drawer(base)}
        if self._accept("move", data, self.game.apply(base, PASS)):
            self._after_change()
        self._publish()

    def correct(self, move_text: str) -> None:
        """A referee's correction of a misread: ``move_text`` is the move really played
        in place of the last one read. That is the move under way, the one the players
        are asked about, or else the last move played: it is taken back (with the
        passes that followed it) and the correction played from the position before
        it, each logged, so a replay gives the same game."""
        self._require_game()
        undo, replaced = self._move_to_correct()
        base = self.positions[-1 - undo]
        try:
            move = self.game.parse_move(base, move_text)
        except RulesError as exc:
            raise RefereeError(cannot_replace(move_text, replaced, exc.words)) from None
        for _ in range(undo):
            if not self._accept("takeback", {"move": self.steps[-1][1]["move"]}, None):
                self._publish()
                return
        self.tentative = self.expected = None
        self._view.candidates = ()
        self.phase = MOVE
        if self._accept_move(move, mark="corrected"):
            self._recheck()
            said = replaced_by(replaced, str(move))
            self._view.say(
                said
                if self._view.notice is None
                else words(
                    "referee.replaced_then",
                    "{replaced}. {then}",
                    replaced=said,
                    then=self._view.notice,
                )
            )
        self._publish()

    def correction_choices(self) -> dict[str, Any]:
        """What the referee may put in the place of the last move: that move, the
        position before it as a camera sees it, and every legal move from there with
        its path and the cells it changes."""
        self._require_game()
        undo, replaced = self._move_to_correct()
        base = self.positions[-1 - undo]
        seen = self.game.observe(base)

        def changed(move) -> list[str]:  # what a tap can tell a move without a path by
            after = self.game.observe(self.game.apply(base, move))
            return sorted(cell for cell, token in after.items() if token != seen[cell])

        return {
            "replaces": replaced,
            "position": seen,
            "moves": [
                {"move": str(m), "path": list(getattr(m, "path", ())), "cells": changed(m)}
                for m in self.game.legal_moves(base)
                if m != PASS
            ],
        }

    def _move_to_correct(self) -> tuple[int, str | None]:
        """The move a correction replaces, as the number of steps to take back and
        the move's words (None: the players are asked which move fits the board)."""
        if self.phase == OVER:
            raise RefereeError(words("referee.over", "The game is over; start a new one"))
        if self.phase == SETUP:  # the board is laid out first, then it is refereed
            raise RefereeError(not_now(self.phase))
        if self.tentative is not None:
            return 0, str(self.tentative[0])
        if self.phase == AMBIGUOUS:
            return 0, None
        for undo, (kind, data) in enumerate(reversed(self.steps), start=1):
            if kind == "move" and data["move"] != str(PASS):
                return undo, data["move"]
            if kind == "chance":
                raise RefereeError(
                    words(
                        "referee.correct_after_draw",
                        "A draw came after the last move and stays: "
                        "set the position on the board instead",
                    )
                )
            if kind == "correction":
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
            "{move} cannot be the move played: {reason}. Pick one of the moves lit on the board",
            move=move,
            reason=reason,
        )
    return words(
        "referee.cannot_replace",
        "{move} cannot replace {replaced}: {reason}. Pick one of the moves lit on the board",
        move=move,
        replaced=replaced,
        reason=reason,
    )
