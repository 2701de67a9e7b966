"""Fang den Hut! (board game) engine speed: legal-move generation per position, with
the die already rolled, over positions from seeded random 4-player games, and
random-playout plies per second. Prints one JSON line.

Every position is timed in several rounds and all timings count, so p99 includes the
machine's own noise; the CPU-time p99 beside it is what the engine itself spends, which
a machine busy with other work does not inflate.
"""

from __future__ import annotations

import json
import random
import statistics
import time

from smoke import SMOKE, sized

from boardref.runtime.loop_lag import percentile
from engines import load_game
from engines.chance import Stream

PLAYERS = 4
GAMES = sized(20, 1)
ROUNDS = sized(3, 1)
PLAYOUT_SECONDS = sized(3.0, 0.01)
BUDGET_P99_MS = 1.0


def random_game(game, seed: int):
    """Every position of one random game, chance resolved from a seeded stream."""
    pick, stream = random.Random(seed), Stream(f"bench {seed}")
    state = game.initial_state()
    while game.outcome(state) is None:
        spec = game.chance(state)
        if spec is not None:
            state = game.resolve(state, spec.draw(stream))
            continue
        yield state
        state = game.apply(state, pick.choice(game.legal_moves(state)))


def bench(options: dict) -> dict:
    game = load_game("fang_den_hut", PLAYERS, **options)
    positions = [state for seed in range(GAMES) for state in random_game(game, seed)]
    positions = positions[: sized(len(positions), 40)]  # the smoke run times a few
    samples, cpu = [], []
    for _ in range(ROUNDS):
        for state in positions:
            start, start_cpu = time.perf_counter_ns(), time.process_time_ns()
            game.legal_moves(state)
            cpu.append((time.process_time_ns() - start_cpu) / 1e6)
            samples.append((time.perf_counter_ns() - start) / 1e6)
    moves = [len(game.legal_moves(s)) for s in positions]
    plies, seed, start = 0, GAMES, time.perf_counter()
    while time.perf_counter() - start < PLAYOUT_SECONDS:
        plies += sum(1 for _ in random_game(game, seed))
        seed += 1
    return {
        "positions": len(positions),
        "legal_moves_ms_p50": round(percentile(samples, 0.50), 4),
        "legal_moves_ms_p99": round(percentile(samples, 0.99), 4),
        "legal_moves_cpu_ms_p99": round(percentile(cpu, 0.99), 4),
        "moves_per_position_mean": round(statistics.mean(moves), 1),
        "moves_per_position_max": max(moves),
        "playout_plies_per_s": round(plies / (time.perf_counter() - start)),
    }


def main() -> None:
    rules = bench({})
    golden = bench({"golden_hat": True})
    result = {
        "bench": "fang_den_hut",
        "fang_den_hut_4p": rules,
        "fang_den_hut_4p_golden_hat": golden,
        "budget_legal_moves_ms_p99": BUDGET_P99_MS,
        "within_budget": not SMOKE
        and max(rules["legal_moves_ms_p99"], golden["legal_moves_ms_p99"]) <= BUDGET_P99_MS,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
