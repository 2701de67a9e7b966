"""The simulated hands of ``boardref simulate``: they set the board up, carry out
moves as people do (hesitating, setting a chain down half-way, knocking a neighbour,
taking a capture off late), try moves the rules forbid and answer the panel when the
referee asks. They move pieces only on the simulated board (``Rig``); of the referee
they read the published snapshot and answer what the panel would ask a person
(confirm a move the board cannot feel, choose among alike readings), as people do."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from boardref.referee.kinds import Phase, Sensor, projection
from boardref.referee.verdicts import RefereeError
from engines import Move
from engines.coasters import SIDES
from vision.stillness import STILL_FRAMES

if TYPE_CHECKING:
    from boardref.sim.rig import Rig

#: the sensors ``simulate`` can play with, and the referee's sensor for each
SENSORS = {"hall": Sensor.PRESENCE, "camera": Sensor.CAMERA, "both": Sensor.BOTH}
#: how long a reading must stay still before the referee judges it (seconds)
SETTLE = 0.3
#: how often the hands do each thing, per move
HABITS = {
    "hesitate": 0.25,  # hold a lifted piece past the settle time
    "set_down_mid_chain": 0.5,  # of chains that could stop early
    "bump": 0.1,  # knock a neighbour and put it back at once
    "slow_capture": 0.3,  # take a captured piece off only after a pause
    "illegal": 0.08,  # try a move the rules forbid, then undo it
    "disobey": 0.2,  # play another legal move than the computer's, then undo it
}
#: settle times the players wait at most while the panel asks for a still board
PATIENCE = 20


class Hands:
    """Players' hands: they make the chosen moves on the board, with human habits."""

    def __init__(self, rig: Rig, game, pick: random.Random, sensor: str):
        self.rig, self.game, self.pick = rig, game, pick
        self.view = projection(SENSORS[sensor])
        # the camera needs a few still frames after the hand has gone
        latency = 0.0 if rig.camera is None else (STILL_FRAMES + 2) / rig.fps
        self.settle_time = SETTLE + 0.05 + latency

    def settle(self) -> None:
        """Take the hand off the board and wait until the referee has judged; while the
        panel asks for a still board (a knocked camera), wait until it reads again."""
        self.rig.withdraw()
        self.rig.pause(self.settle_time)
        for _ in range(PATIENCE):
            if self.rig.board.referee.waiting is None:
                break
            self.rig.pause(self.settle_time)

    def hold(self) -> None:
        """Hold a lifted piece over the board past the settle time."""
        self.rig.pause(self.settle_time)

    def quick(self) -> None:
        self.rig.pause(self.pick.uniform(0.02, SETTLE * 0.6))

    def reading(self, state) -> dict[str, str | None]:
        """What the referee's sensor reads of ``state``."""
        return self.game.sense(state, self.view)

    def play(self, before, move, after) -> None:
        """Move the pieces from ``before`` to ``after``, the way hands do."""
        pick = self.pick
        if pick.random() < HABITS["bump"]:
            self.bump(before)
        path = getattr(move, "path", ())
        stops = [(path[0] if path else None, after)]
        chain = getattr(move, "leap", False) and len(path) > 2
        if chain and pick.random() < HABITS["set_down_mid_chain"]:
            cut = pick.randrange(2, len(path))
            halfway = self.game.apply(before, Move(path[:cut], leap=True))
            # a chain whose first part already wins ends there: nobody plays on
            if self.game.outcome(halfway) is None:
                stops = [(path[0], halfway), (path[cut - 1], after)]
        at = before
        for mover, stop in stops:
            self.carry(at, stop, mover)
            self.settle()
            at = stop

    def carry(self, before, after, mover: str | None) -> None:
        """Lift the moving piece, put it down, then take captured pieces off; what
        only the camera sees change (a disk left bare) changes as the figure goes."""
        was, now = self.game.sense(before, Sensor.PRESENCE), self.game.sense(after, Sensor.PRESENCE)
        shown = self.game.observe(after)
        gone = [c for c in was if was[c] and not now[c]]
        arrive = [c for c in now if now[c] and not was[c]]
        if mover in gone:  # the piece that moves goes first, whatever the board order
            gone.remove(mover)
            gone.insert(0, mover)
        moving, captured = gone[: len(arrive)], gone[len(arrive) :]
        seen_before = self.game.observe(before)
        others = [c for c in shown if shown[c] != seen_before[c] and c not in gone + arrive]
        self.rig.expect_disks(before, after)
        for cell in moving:
            self.rig.set_cell(cell, shown[cell], False)
            if self.pick.random() < HABITS["hesitate"]:
                self.hold()
            else:
                self.quick()
        for cell in arrive + others:
            self.rig.set_cell(cell, shown[cell], bool(now[cell]))
            self.quick()
        for cell in captured:
            if self.pick.random() < HABITS["slow_capture"]:
                self.settle()
            self.rig.set_cell(cell, shown[cell], False)
            self.quick()

    def answer_panel(self, before, after) -> int:
        """What a player does when the sensors cannot tell: press confirm for a move
        they cannot see, and tap the move played when several fit. Returns the taps."""
        referee = self.rig.board.referee
        taps = 0
        unseen = self.reading(before) == self.reading(after)
        if unseen and referee.positions[-1] == before and referee.phase == Phase.MOVE:
            try:
                referee.confirm()
                taps += 1
            except RefereeError:
                pass  # the referee reads another board than the one played: scored below
        if referee.phase == Phase.AMBIGUOUS:
            base = referee.positions[-1]
            for text in referee.published.candidates:
                if self.game.apply(base, self.game.parse_move(base, text)) == after:
                    referee.choose(text)
                    taps += 1
                    break
        return taps

    def outcomes(self, state) -> set[tuple]:
        """What the referee's sensor reads after each legal move, cells in board order."""
        return {
            tuple(self.reading(self.game.apply(state, move)).values())
            for move in self.game.legal_moves(state)
        }

    def disobey(self, state, announced) -> int:
        """Play another legal move than the computer announced, then put it back;
        1 if the referee refused it."""
        target = self.reading(self.game.apply(state, announced))
        others = [
            m
            for m in self.game.legal_moves(state)
            if self.reading(self.game.apply(state, m)) != target
        ]
        if not others:
            return 0
        referee = self.rig.board.referee
        before = len(referee.log)
        self.rig.set_board(self.game.apply(state, self.pick.choice(others)))
        self.settle()
        refused = len(referee.log) == before and referee.expected is not None
        self.rig.set_board(state)
        self.settle()
        return int(refused)

    def bump(self, state) -> None:
        felt = self.game.sense(state, Sensor.PRESENCE)
        shown = self.game.observe(state)
        standing = [c for c, token in felt.items() if token]
        if not standing:  # Hägar's table before the first coaster
            return
        cell = self.pick.choice(standing)
        self.rig.expect_disks(state)
        self.rig.set_cell(cell, self.rig.under.get(cell), False)
        self.rig.pause(0.02)
        self.rig.set_cell(cell, shown[cell], True)
        self.quick()

    def try_illegal(self, state) -> bool | None:
        """Carry a piece to an empty cell where the board then shows no legal outcome,
        then put it back; True if the referee refused it, None if no such mistake
        exists. At Hägar's table the mistake is a coaster laid where the rules forbid
        (``try_illegal_lay``)."""
        if hasattr(self.game, "coasters"):
            return self.try_illegal_lay(state)
        self.rig.expect_disks(state)
        bare = self.rig.under  # what a figure leaves behind: the disk it stood on
        mistakes = self.mistakes(state, bare)
        if not mistakes:
            return None
        origin, target = self.pick.choice(mistakes)
        piece = self.game.observe(state)[origin]
        referee = self.rig.board.referee
        before = len(referee.log)
        events: list[str] = []
        referee.listeners.append(recorder(events))
        try:
            self.rig.set_cell(origin, bare.get(origin), False)
            self.quick()
            self.rig.set_cell(target, piece, True)
            self.settle()
            caught = ("illegal" in events or "unreadable" in events) and len(referee.log) == before
            self.rig.set_cell(target, None, False)
            self.quick()
            self.rig.set_cell(origin, piece, True)
            self.settle()
        finally:
            referee.listeners.pop()
        return caught

    def mistakes(self, state, bare: dict[str, str]) -> list[tuple[str, str]]:
        """Up to 36 (origin, target) carries of a piece to an empty cell after which
        the referee's sensor reads no legal move, whole or with its captured pieces
        still standing (the referee rightly waits for those to go); ``bare`` is the
        disk a figure leaves behind where it stood."""
        seen, felt = self.reading(state), self.game.sense(state, Sensor.PRESENCE)
        # what the sensor reads where the piece stood: hall sensors never feel a disk
        left = bare if self.view == Sensor.CAMERA else {}
        before = tuple(seen.values())
        moves = _moves_by_fill(before, self.outcomes(state))
        where = {cell: i for i, cell in enumerate(seen)}
        occupied = [c for c, token in felt.items() if token]
        empty = [c for c, token in seen.items() if not token]
        return [
            (origin, target)
            for origin in self.pick.sample(occupied, min(6, len(occupied)))
            for target in self.pick.sample(empty, min(6, len(empty)))
            if not _reads_as_move(
                moves, {where[origin]: left.get(origin), where[target]: seen[origin]}
            )
        ]

    def try_illegal_lay(self, state) -> bool | None:
        """Lay Hägar's coaster in hand on a free spot of the mat at a facing the rules
        forbid there (not beside a laid one, or not meeting a like landscape, or a
        beer glass turned away from its seat), then take it back; True if the referee
        refused it, None when no coaster is in hand or no such lay exists."""
        from vision.coasters.mat import layout_of, mat_board

        legal = {str(move) for move in self.game.placements(state)}
        if not legal:
            return None  # no coaster in hand
        coaster = self.game.coasters[state.hand]
        seen = self.game.observe(state)
        laid, _ = layout_of(self.game, seen)
        outcomes = self.outcomes(state)
        lays = []
        for spot in (cell.id for cell in mat_board(self.game).cells):
            for turn, side in enumerate(SIDES):
                if spot in laid or f"{coaster.id} {spot} {side}" in legal:
                    continue
                shown = dict(seen)
                for corner, printed, _ in coaster.on_table(turn):
                    shown[f"{spot}_{corner}"] = f"{coaster.id}_{printed}"
                if tuple(shown.values()) not in outcomes:
                    lays.append((spot, shown))
        if not lays:
            return None
        spot, shown = self.pick.choice(lays)
        referee = self.rig.board.referee
        before = len(referee.log)
        events: list[str] = []
        referee.listeners.append(recorder(events))
        try:
            self.rig.show(shown, spot)
            self.quick()
            self.settle()
            caught = ("illegal" in events or "unreadable" in events) and len(referee.log) == before
            self.rig.show(seen, spot)
            self.quick()
            self.settle()
        finally:
            referee.listeners.pop()
        return caught


def _moves_by_fill(before: tuple, outcomes: set[tuple]) -> dict[frozenset, list[tuple]]:
    """Legal outcomes (readings) keyed by the cells they fill or change, leaving out
    those they only take a piece off."""
    found: dict[frozenset, list[tuple]] = {}
    for after in outcomes:
        key = frozenset(
            i for i, (was, now) in enumerate(zip(before, after)) if was != now and now is not None
        )
        found.setdefault(key, []).append(after)
    return found


def _reads_as_move(moves: dict[frozenset, list[tuple]], changes: dict[int, Any]) -> bool:
    """Whether a board that differs from the position by ``changes`` (cell index to
    reading) reads as a legal move, whole or with its captured pieces still standing:
    the move fills or changes the same cells to the same, and takes off the cells
    ``changes`` empties and maybe others."""
    key = frozenset(i for i, token in changes.items() if token is not None)
    return any(
        all(after[i] == token for i, token in changes.items()) for after in moves.get(key, ())
    )


def recorder(kinds: list[str]):
    """A referee listener that notes the kind of every event in ``kinds``."""
    return lambda event: kinds.append(event.kind)
