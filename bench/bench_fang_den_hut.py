"""Fang den Hut! (board game) engine speed: legal-move generation per position, with
the die already rolled, over positions from seeded random 4-player games; random-playout
plies per CPU-second; and the computer's playouts per CPU-second (its search on a fixed
playout count, no clock, from positions of those games, as a computer seat plays).
Prints one JSON line.

Every position is timed in several rounds and all timings count; the CPU-time p99 is
what the budget holds, the engine's own time, which a machine busy with other work does
not inflate (the wall-clock p99 beside it does include the machine's own noise).
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
from engines.players.search import SearchPlayer

PLAYERS = 4
GAMES = sized(20, 1)
ROUNDS = sized(3, 1)
PLAYOUT_SECONDS = sized(3.0, 0.01)
BUDGET_CPU_P99_MS = 1.0
#: the positions the search is timed from, and its playouts from each
SEARCHED = sized(8, 1)
PLAYOUTS = sized(200, 5)
BUDGET_PLAYOUTS_PER_CPU_S = 1000
GOAL_PLAYOUTS_PER_CPU_S = 3000


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


def playouts_per_cpu_s(game, positions: list) -> int:
    """The search's playouts per CPU-second from ``SEARCHED`` positions spread over
    ``positions`` where there is a choice to make."""
    choices = [state for state in positions if len(game.legal_moves(state)) > 1]
    choices = choices[:: max(1, len(choices) // SEARCHED)][:SEARCHED]
    done, start = 0, time.process_time()
    for seed, state in enumerate(choices):
        player = SearchPlayer(seed=seed, playouts=PLAYOUTS)
        player.choose(game, state)
        done += player.last_playouts
    return round(done / (time.process_time() - start))


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
    plies, seed, start = 0, GAMES, time.process_time()
    while time.process_time() - start < PLAYOUT_SECONDS:
        plies += sum(1 for _ in random_game(game, seed))
        seed += 1
    return {
        "positions": len(positions),
        "legal_moves_ms_p50": round(percentile(samples, 0.50), 4),
        "legal_moves_ms_p99": round(percentile(samples, 0.99), 4),
        "legal_moves_cpu_ms_p99": round(percentile(cpu, 0.99), 4),
        "moves_per_position_mean": round(statistics.mean(moves), 1),
        "moves_per_position_max": max(moves),
        "playout_plies_per_cpu_s": round(plies / (time.process_time() - start)),
        "playouts_per_cpu_s": playouts_per_cpu_s(game, positions),
    }


def main() -> None:
    rules = bench({})
    golden = bench({"golden_hat": True})
    result = {
        "bench": "fang_den_hut",
        "fang_den_hut_4p": rules,
        "fang_den_hut_4p_golden_hat": golden,
        "budget_legal_moves_cpu_ms_p99": BUDGET_CPU_P99_MS,
        "budget_playouts_per_cpu_s": BUDGET_PLAYOUTS_PER_CPU_S,
        "goal_playouts_per_cpu_s": GOAL_PLAYOUTS_PER_CPU_S,
        "within_budget": not SMOKE
        and max(rules["legal_moves_cpu_ms_p99"], golden["legal_moves_cpu_ms_p99"])
        <= BUDGET_CPU_P99_MS
        and min(rules["playouts_per_cpu_s"], golden["playouts_per_cpu_s"])
        >= BUDGET_PLAYOUTS_PER_CPU_S,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
