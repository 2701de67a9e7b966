"""Engine speed: Sternhalma legal-move generation per position and random play, turns
per CPU second, with OpenSpiel's ``chinese_checkers`` playing the same random turns
beside it in the same run, and Catch the Hare's random plies. Prints one JSON line.

Positions come from seeded random 3-player games. Every position is timed in
several rounds and all timings count, so p99 includes the machine's own noise.
OpenSpiel treats each jump of a chain as its own action (the same player keeps
moving, then passes), while our ``legal_moves`` returns every complete move,
chains included: the work both do is a turn of random play (from the moves on
offer pick one, play it, see whether the game is over), counted when the seat to
move changes. Ours is ``random_play``, what the computer players' playouts run: it
counts every move, picks one as a pick from ``legal_moves`` would and writes out
only that one, then plays it without checking it again, as OpenSpiel's
``apply_action`` does not check legality either. Both run in alternating slices
and are timed on this process's CPU time, so a busy machine slows neither more
than the other.
"""

from __future__ import annotations

import json
import random
import statistics
import time

from smoke import SMOKE, sized

from boardref.runtime.loop_lag import percentile
from engines import load_game

PLAYERS = 3
GAMES = sized(40, 2)
PLIES_PER_GAME = sized(120, 20)
ROUNDS = sized(3, 1)
#: CPU seconds of random play each side gets, in SLICES alternating slices
PLAYOUT_SECONDS = sized(6.0, 0.02)
SLICES = sized(12, 2)
BUDGET_P99_MS = 0.5
GOAL_P99_MS = 0.1
#: our random turns per CPU second against OpenSpiel's, the same turns
BUDGET_VS_OPEN_SPIEL = 0.15
GOAL_VS_OPEN_SPIEL = 0.25


def timings_ms(positions, legal) -> list[float]:
    samples = []
    for _ in range(ROUNDS):
        for state in positions:
            start = time.process_time_ns()
            legal(state)
            samples.append((time.process_time_ns() - start) / 1e6)
    return samples


def summary(samples: list[float], positions: int, moves: list[int]) -> dict:
    return {
        "positions": positions,
        "legal_moves_cpu_ms_p50": round(percentile(samples, 0.50), 4),
        "legal_moves_cpu_ms_p99": round(percentile(samples, 0.99), 4),
        "moves_per_position_mean": round(statistics.mean(moves), 1),
    }


class RandomTurns:
    """Random play of one engine, a turn at a time, restarting finished games: its
    ``play`` runs for a slice of CPU time and keeps count."""

    def __init__(self, new_game, turn):
        self.new_game, self.turn = new_game, turn
        self.pick, self.state, self.plies = random.Random(1), new_game(), 0
        self.turns, self.cpu = 0, 0.0

    def play(self, seconds: float) -> None:
        start = time.process_time()
        while time.process_time() - start < seconds:
            if self.state is None or self.plies >= PLIES_PER_GAME:
                self.state, self.plies = self.new_game(), 0
            self.state = self.turn(self.state, self.pick)
            self.turns, self.plies = self.turns + 1, self.plies + 1
        self.cpu += time.process_time() - start

    def rate(self) -> float:
        return self.turns / self.cpu


def interleaved(*players: RandomTurns) -> None:
    """Each engine plays PLAYOUT_SECONDS of CPU time, in alternating slices."""
    for _ in range(SLICES):
        for player in players:
            player.play(PLAYOUT_SECONDS / SLICES)


def sternhalma() -> tuple[dict, RandomTurns]:
    game = load_game("sternhalma", PLAYERS)
    pick, positions = random.Random(2026), []
    for _ in range(GAMES):
        state = game.initial_state()
        for _ in range(PLIES_PER_GAME):
            positions.append(state)
            state = game.apply(state, pick.choice(game.legal_moves(state)))
    samples = timings_ms(positions, game.legal_moves)
    moves = [len(game.legal_moves(s)) for s in positions]

    def turn(state, pick):
        after = game.random_play(state, pick)[1]
        return None if game.outcome(after) is not None else after

    return summary(samples, len(positions), moves), RandomTurns(game.initial_state, turn)


def open_spiel() -> tuple[dict, RandomTurns | None]:
    try:
        from importlib.metadata import version

        import pyspiel
    except ImportError as exc:
        return {"unavailable": f"open_spiel not installed ({exc}); `make bench` installs it"}, None
    game = pyspiel.load_game("chinese_checkers", {"players": PLAYERS})

    def turn(state, pick):
        """One seat's turn: its hops, one action each, until the next seat is to move."""
        seat = state.current_player()
        while not state.is_terminal() and state.current_player() == seat:
            state.apply_action(pick.choice(state.legal_actions()))
        return None if state.is_terminal() else state

    return {
        "peer": f"open_spiel {version('open_spiel')} chinese_checkers (C++ via pybind11)",
    }, RandomTurns(game.new_initial_state, turn)


def catch_the_hare() -> RandomTurns:
    game = load_game("catch_the_hare", max_plies=PLIES_PER_GAME)

    def turn(state, pick):
        after = game.apply(state, pick.choice(game.legal_moves(state)))
        return None if game.outcome(after) is not None else after

    return RandomTurns(game.initial_state, turn)


def main() -> None:
    ours, our_turns = sternhalma()
    peer, peer_turns = open_spiel()
    interleaved(*[p for p in (our_turns, peer_turns) if p is not None])
    ours["random_turns_per_cpu_s"] = round(our_turns.rate())
    hare = catch_the_hare()
    hare.play(PLAYOUT_SECONDS)
    result = {
        "bench": "engines",
        "sternhalma_3p": ours,
        "open_spiel_chinese_checkers_3p": peer,
        "catch_the_hare": {"random_plies_per_cpu_s": round(hare.rate())},
        "budget_legal_moves_cpu_ms_p99": BUDGET_P99_MS,
        "goal_legal_moves_cpu_ms_p99": GOAL_P99_MS,
        "budget_vs_open_spiel": BUDGET_VS_OPEN_SPIEL,
        "goal_vs_open_spiel": GOAL_VS_OPEN_SPIEL,
    }
    within = ours["legal_moves_cpu_ms_p99"] <= BUDGET_P99_MS
    if peer_turns is not None:
        peer["random_turns_per_cpu_s"] = round(peer_turns.rate())
        ours["vs_open_spiel"] = round(our_turns.rate() / peer_turns.rate(), 3)
        within = within and ours["vs_open_spiel"] >= BUDGET_VS_OPEN_SPIEL
    result["within_budget"] = not SMOKE and within
    print(json.dumps(result))


if __name__ == "__main__":
    main()
