"""`boardref simulate`: random legal games played by simulated hands on the simulated
MCU, through the real host driver and the referee, scored on what the referee got
right.

The hands lift, carry, put down, hesitate, set a jumping piece down mid-chain, bump
a neighbour and put it back, leave a captured piece standing a moment, and now and
then make a deliberate illegal move that they then undo; the sensors flicker at the
``noise`` rate. Waiting happens on a simulated clock (the referee's settle time), so
games run far faster than real play: only the MCU's own scanning runs in real time.
This module plays the players; it never decides a rule itself.
"""

from __future__ import annotations

import queue
import random
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardref.referee import AMBIGUOUS, MOVE, OVER, Referee
from boardref.store import Store
from boardref.table import Table
from engines import Move
from firmware_bridge.host import Link
from firmware_bridge.sim import Simulator
from hardware.lights import CellLights, Palette

SETTLE = 0.3
#: fast scanning and a long debounce: noise never passes, changes arrive in ~15 ms
MCU_SETTINGS = {"scan_period_ms": 2, "debounce_scans": 6}
#: how often the hands do each thing, per move
HABITS = {
    "hesitate": 0.25,  # hold a lifted piece past the settle time
    "set_down_mid_chain": 0.5,  # of chains that could stop early
    "bump": 0.1,  # knock a neighbour and put it back at once
    "slow_capture": 0.3,  # take a captured piece off only after a pause
    "illegal": 0.08,  # try a move the rules forbid, then undo it
    "disobey": 0.2,  # play another legal move than the computer's, then undo it
}
COMPUTER_LEVEL = "easy"
COMPUTER_SECONDS = 0.2
WAIT = 10.0  # seconds of real time a scan may take to arrive before we give up


@dataclass
class Score:
    moves_played: int = 0
    committed: int = 0
    false_rejections: int = 0
    missed_moves: int = 0
    wrong_commits: int = 0
    illegal_injected: int = 0
    illegal_caught: int = 0
    games: int = 0
    corrections: int = 0
    panel_choices: int = 0
    computer_refusals: int = 0
    final_state_match: bool = False
    verdict_ms: list[float] = field(default_factory=list)


class SimClock:
    """The simulated time the referee judges by."""

    def __init__(self):
        self.now = 1000.0

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Rig:
    """The simulated MCU, the real link and a table, kept in step on a simulated clock."""

    def __init__(self, referee: Referee, cells: list[str], noise: float, seed: int):
        self.clock = SimClock()
        self.cells = cells
        self.index = {cell: i for i, cell in enumerate(cells)}
        self.mcu = Simulator(len(cells), noise=noise, seed=seed, settings=MCU_SETTINGS).start()
        self.link = Link(self.mcu.path)
        self.scans: queue.Queue[bytes] = queue.Queue()
        self.link.subscribe(lambda scan: self.scans.put(bytes(scan.cells)))
        self.link.open(timeout=WAIT)
        lights = CellLights(cells, Palette.load())
        self.table = Table(referee, cells, lights, send_leds=self.link.set_leds)
        self.verdict_ms: list[float] = []
        self.delivered = bytes(len(cells))

    def close(self) -> None:
        self.link.close()
        self.mcu.close()

    def set_board(self, reading: dict[str, str | None]) -> None:
        """Put the true board in this state and wait until the host has seen it."""
        states = bytes(1 if reading.get(cell) else 0 for cell in self.cells)
        self.mcu.set_board(states)
        self._until_seen(states)

    def set_cell(self, cell: str, present: bool) -> None:
        self.mcu.set_cell(self.index[cell], 1 if present else 0)
        self._until_seen(self.mcu.board)

    def pause(self, seconds: float) -> None:
        """Let simulated time pass, judging whatever has settled meanwhile."""
        self._drain()
        self.clock.advance(seconds)
        start = time.perf_counter()
        if self.table.tick(self.clock.now):
            self.verdict_ms.append((time.perf_counter() - start) * 1000)

    def _drain(self) -> None:
        while True:
            try:
                states = self.scans.get_nowait()
            except queue.Empty:
                return
            self.delivered = states
            self.table.on_scan(states, self.clock.now)

    def _until_seen(self, states: bytes) -> None:
        deadline = time.monotonic() + WAIT
        self._drain()
        while self.delivered != states:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("the simulated board did not report the change in time")
            try:
                self.delivered = self.scans.get(timeout=remaining)
            except queue.Empty:
                continue
            self.table.on_scan(self.delivered, self.clock.now)


class Hands:
    """Players' hands: they make the chosen moves on the board, with human habits."""

    def __init__(self, rig: Rig, game, pick: random.Random):
        self.rig, self.game, self.pick = rig, game, pick

    def settle(self) -> None:
        self.rig.pause(SETTLE + 0.05)

    def quick(self) -> None:
        self.rig.pause(self.pick.uniform(0.02, SETTLE * 0.6))

    def reading(self, state) -> dict[str, str | None]:
        return self.game.sense(state, "presence")

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
        """Lift the moving piece, put it down, then take captured pieces off."""
        was, now = self.reading(before), self.reading(after)
        gone = [c for c in was if was[c] and not now[c]]
        arrive = [c for c in now if now[c] and not was[c]]
        if mover in gone:  # the piece that moves goes first, whatever the board order
            gone.remove(mover)
            gone.insert(0, mover)
        moving, captured = gone[: len(arrive)], gone[len(arrive) :]
        for cell in moving:
            self.rig.set_cell(cell, False)
            if self.pick.random() < HABITS["hesitate"]:
                self.settle()
            else:
                self.quick()
        for cell in arrive:
            self.rig.set_cell(cell, True)
            self.quick()
        for cell in captured:
            if self.pick.random() < HABITS["slow_capture"]:
                self.settle()
            self.rig.set_cell(cell, False)
            self.quick()

    def answer_panel(self, before, after) -> int:
        """What a player does when the sensors cannot tell: press confirm for a move
        they cannot see, and tap the move played when several fit. Returns the taps."""
        referee = self.rig.table.referee
        taps = 0
        unseen = self.reading(before) == self.reading(after)
        if unseen and referee.positions[-1] == before and referee.phase == MOVE:
            referee.confirm()
            taps += 1
        if referee.phase == AMBIGUOUS:
            base = referee.positions[-1]
            for text in referee.display().candidates:
                if self.game.apply(base, self.game.parse_move(base, text)) == after:
                    referee.choose(text)
                    taps += 1
                    break
        return taps

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
        referee = self.rig.table.referee
        before = len(referee.log)
        self.rig.set_board(self.reading(self.game.apply(state, self.pick.choice(others))))
        self.settle()
        refused = len(referee.log) == before and referee.expected is not None
        self.rig.set_board(self.reading(state))
        self.settle()
        return int(refused)

    def bump(self, state) -> None:
        occupied = [c for c, token in self.reading(state).items() if token]
        cell = self.pick.choice(occupied)
        self.rig.set_cell(cell, False)
        self.rig.pause(0.02)
        self.rig.set_cell(cell, True)
        self.quick()

    def try_illegal(self, state) -> bool | None:
        """Carry a piece to a cell where the board then shows no legal outcome, then
        put it back; True if the referee refused it, None if no such mistake exists."""
        seen = self.reading(state)
        outcomes = {
            tuple(self.reading(self.game.apply(state, move)).values())
            for move in self.game.legal_moves(state)
        }
        occupied = [c for c, token in seen.items() if token]
        empty = [c for c, token in seen.items() if not token]
        mistakes = [
            (origin, target)
            for origin in self.pick.sample(occupied, min(6, len(occupied)))
            for target in self.pick.sample(empty, min(6, len(empty)))
            if tuple({**seen, origin: None, target: "piece"}.values()) not in outcomes
        ]
        if not mistakes:
            return None
        origin, target = self.pick.choice(mistakes)
        referee = self.rig.table.referee
        before = len(referee.log)
        events: list[str] = []
        referee.listeners.append(_recorder(events))
        try:
            self.rig.set_cell(origin, False)
            self.quick()
            self.rig.set_cell(target, True)
            self.settle()
            caught = ("illegal" in events or "unreadable" in events) and len(referee.log) == before
            self.rig.set_cell(target, False)
            self.quick()
            self.rig.set_cell(origin, True)
            self.settle()
        finally:
            referee.listeners.pop()
        return caught


def simulate(
    game_name: str,
    players: int | None,
    seed: int,
    noise: float,
    moves: int,
    store_path: Path | None = None,
    on_commit=None,
    computer: tuple[int, ...] = (),
) -> dict[str, Any]:
    """Play ``moves`` moves of random legal games; return the scores as a dict.

    With ``store_path`` the game is resumed from that log and kept there;
    ``on_commit(move_text)`` hears each move the moment it is in the log; the
    ``computer`` seats are played by the computer, carried out by the hands.
    """
    pick = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="boardref-simulate-") as scratch:
        store = Store(store_path or Path(scratch) / "simulate.db")
        referee = Referee(store, sensor="presence", settle=SETTLE)
        resumed = store_path is not None and referee.resume()
        if on_commit is not None:
            referee.listeners.append(
                lambda e: on_commit(e.data["move"]) if e.kind == "move" and e.accepted else None
            )
        if not resumed:
            referee.new_game(game_name, players, seed=f"simulate {seed}".encode())
            if computer:
                referee.seat_computer(computer, COMPUTER_LEVEL)
        game = referee.game
        cells = [cell.id for cell in game.board.cells]
        rig = Rig(referee, cells, noise, seed)
        try:
            score = _play(rig, referee, Hands(rig, game, pick), pick, moves)
        finally:
            rig.close()
            store.close()
    timings = score.verdict_ms or [0.0]
    result = {
        "game": game_name,
        "players": game.players,
        "seed": seed,
        "noise": noise,
        "sensor": "hall",
        "moves_played": score.moves_played,
        "committed": score.committed,
        "false_rejections": score.false_rejections,
        "missed_moves": score.missed_moves,
        "wrong_commits": score.wrong_commits,
        "illegal_injected": score.illegal_injected,
        "illegal_caught": score.illegal_caught,
        "final_state_match": score.final_state_match,
        "games": score.games,
        "corrections": score.corrections,
        "panel_choices": score.panel_choices,
        "computer_seats": sorted(referee.computer),
        "computer_refusals": score.computer_refusals,
        "verdict_ms_p50": round(statistics.median(timings), 3),
        "verdict_ms_p99": round(_percentile(timings, 0.99), 3),
        "mcu": rig.link.counters(),
    }
    return result


def _play(rig: Rig, referee: Referee, hands: Hands, pick, moves: int) -> Score:
    score = Score()
    game = referee.game
    truth = referee.positions[-1]
    rig.set_board(hands.reading(truth))
    hands.settle()
    while score.moves_played < moves:
        if referee.phase == OVER:
            score.games += 1
            computer = referee.computer
            referee.new_game(
                game.name, game.players, dict(game.options), seed=f"game {score.games}".encode()
            )
            if computer:
                referee.seat_computer(computer, COMPUTER_LEVEL)
            truth = referee.positions[-1]
            rig.set_board(hands.reading(truth))
            hands.settle()
            continue
        if game.chance(truth) is not None:
            referee.draw()
            truth = referee.positions[-1]
            rig.pause(1.0)  # the player looks at the draw; the referee prepares meanwhile
            continue
        if pick.random() < HABITS["illegal"]:
            caught = hands.try_illegal(truth)
            if caught is not None:
                score.illegal_injected += 1
                score.illegal_caught += caught
        waiting = referee.tentative
        if waiting is not None and game.to_move(waiting[1]) in referee.computer:
            referee.confirm()  # the guest confirms: the computer does not act on a guess
        if referee.computer_to_move():
            from engines.players import computer_move  # the search, only for computer seats

            move = computer_move(game, truth, COMPUTER_SECONDS, COMPUTER_LEVEL, pick.random())
            referee.expect(str(move))
            if pick.random() < HABITS["disobey"]:
                score.computer_refusals += hands.disobey(truth, move)
        else:
            move = pick.choice(game.legal_moves(truth))
        after = game.apply(truth, move)
        rejections: list[str] = []
        referee.listeners.append(_recorder(rejections))
        hands.play(truth, move, after)
        score.panel_choices += hands.answer_panel(truth, after)
        referee.listeners.pop()
        score.moves_played += 1
        seen = referee.current() if referee.tentative else referee.positions[-1]
        if seen == after or (referee.phase == OVER and referee.positions[-1] == after):
            score.committed += 1
        else:
            if seen == truth or seen in referee.positions[:-1]:
                score.missed_moves += 1
                if "illegal" in rejections or "unreadable" in rejections:
                    score.false_rejections += 1
            else:
                score.wrong_commits += 1
            referee.tentative = None
            referee.set_position(game.to_json(after))
            score.corrections += 1
        truth = after
    if referee.tentative is not None:
        referee.confirm()
    score.final_state_match = referee.positions[-1] == truth
    score.verdict_ms = rig.verdict_ms
    return score


def _recorder(kinds: list[str]):
    """A referee listener that notes the kind of every event in ``kinds``."""
    return lambda event: kinds.append(event.kind)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
