"""Engine speed: Sternhalma legal-move generation per position and random-playout
plies per second, with OpenSpiel's ``chinese_checkers`` measured beside it in the
same run, and Catch the Hare playouts. Prints one JSON line.

Positions come from seeded random 3-player games. Every position is timed in
several rounds and all timings count, so p99 includes the machine's own noise.
OpenSpiel treats each jump of a chain as its own action (the same player keeps
moving), so its legal_actions() never searches a whole chain; ours returns every
complete move, chains included.
"""

from __future__ import annotations

import json
import random
import statistics
import time

from boardref.harness import percentile
from engines import load_game

PLAYERS = 3
GAMES = 40
PLIES_PER_GAME = 120
ROUNDS = 3
PLAYOUT_SECONDS = 3.0
BUDGET_P99_MS = 0.5
GOAL_P99_MS = 0.1


def timings_ms(positions, legal) -> list[float]:
    samples = []
    for _ in range(ROUNDS):
        for state in positions:
            start = time.perf_counter_ns()
            legal(state)
            samples.append((time.perf_counter_ns() - start) / 1e6)
    return samples


def summary(samples: list[float], positions: int, moves: list[int], plies_per_s: float) -> dict:
    return {
        "positions": positions,
        "legal_moves_ms_p50": round(percentile(samples, 0.50), 4),
        "legal_moves_ms_p99": round(percentile(samples, 0.99), 4),
        "moves_per_position_mean": round(statistics.mean(moves), 1),
        "playout_plies_per_s": round(plies_per_s),
    }


def playout_rate(new_game, step) -> float:
    """Plies per second of random play, restarting finished games."""
    pick, plies = random.Random(1), 0
    deadline = time.perf_counter() + PLAYOUT_SECONDS
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        state = new_game()
        for _ in range(PLIES_PER_GAME):
            state = step(state, pick)
            if state is None:
                break
            plies += 1
    return plies / (time.perf_counter() - start)


def bench_sternhalma() -> dict:
    game = load_game("sternhalma", PLAYERS)
    pick, positions = random.Random(2026), []
    for _ in range(GAMES):
        state = game.initial_state()
        for _ in range(PLIES_PER_GAME):
            positions.append(state)
            state = game.apply(state, pick.choice(game.legal_moves(state)))
    samples = timings_ms(positions, game.legal_moves)
    moves = [len(game.legal_moves(s)) for s in positions]

    def step(state, pick):
        if game.outcome(state) is not None:
            return None
        return game.apply(state, pick.choice(game.legal_moves(state)))

    rate = playout_rate(game.initial_state, step)
    return summary(samples, len(positions), moves, rate)


def bench_open_spiel() -> dict:
    try:
        from importlib.metadata import version

        import pyspiel
    except ImportError as exc:
        return {"unavailable": f"open_spiel not installed ({exc}); `make bench` installs it"}
    game = pyspiel.load_game("chinese_checkers", {"players": PLAYERS})
    pick, positions = random.Random(2026), []
    for _ in range(GAMES):
        state = game.new_initial_state()
        for _ in range(PLIES_PER_GAME):
            if state.is_terminal():
                break
            positions.append(state.clone())
            state.apply_action(pick.choice(state.legal_actions()))
    samples = timings_ms(positions, lambda s: s.legal_actions())
    moves = [len(s.legal_actions()) for s in positions]

    def step(state, pick):
        if state.is_terminal():
            return None
        state.apply_action(pick.choice(state.legal_actions()))
        return state

    rate = playout_rate(game.new_initial_state, step)
    result = summary(samples, len(positions), moves, rate)
    result["peer"] = f"open_spiel {version('open_spiel')} chinese_checkers (C++ via pybind11)"
    result["note"] = "one action per jump of a chain; ours is one move per whole chain"
    return result


def bench_catch_the_hare() -> dict:
    game = load_game("catch_the_hare", max_plies=PLIES_PER_GAME)

    def step(state, pick):
        if game.outcome(state) is not None:
            return None
        return game.apply(state, pick.choice(game.legal_moves(state)))

    return {"playout_plies_per_s": round(playout_rate(game.initial_state, step))}


def main() -> None:
    ours = bench_sternhalma()
    result = {
        "bench": "engines",
        "sternhalma_3p": ours,
        "open_spiel_chinese_checkers_3p": bench_open_spiel(),
        "catch_the_hare": bench_catch_the_hare(),
        "budget_legal_moves_ms_p99": BUDGET_P99_MS,
        "goal_legal_moves_ms_p99": GOAL_P99_MS,
        "within_budget": ours["legal_moves_ms_p99"] <= BUDGET_P99_MS,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
