"""Hägar engine speed: legal placement enumeration (every spot and facing for the
coaster in hand) per position, p50/p99 against the 5 ms budget, and whole random
games per second. Prints one JSON line.

Positions are every placement decision of seeded random 1-, 2- and 3-player games,
honky_tonk included; each is timed in several rounds and all timings count, so p99
includes the machine's own noise. The p99 of each position's best round is printed
beside it: the engine's own cost with a busy machine's pauses taken out.
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
from engines.players import random_playout

GAMES_PER_SETUP = sized(40, 2)
SETUPS = [(1, {}), (2, {}), (3, {}), (3, {"honky_tonk": True})]
ROUNDS = sized(5, 1)
PLAYOUT_SECONDS = sized(3.0, 0.01)
BUDGET_P99_MS = 5.0


def random_game(game, seed: int):
    """Every state of one random game, chance drawn from a seeded stream."""
    return random_playout(game, game.initial_state(), random.Random(seed), Stream(f"bench {seed}"))


def main() -> None:
    timings, best, counts = [], [], []
    for players, options in SETUPS:
        game = load_game("haegar", players, **options)
        positions = [
            (game, state)
            for seed in range(GAMES_PER_SETUP)
            for state in random_game(game, seed)
            if state.phase == "place"
        ]
        rounds = [[] for _ in positions]
        for _ in range(ROUNDS):
            for (game, state), taken in zip(positions, rounds):
                start = time.perf_counter_ns()
                game.legal_moves(state)
                taken.append((time.perf_counter_ns() - start) / 1e6)
        timings.extend(ms for taken in rounds for ms in taken)
        best.extend(min(taken) for taken in rounds)
        counts.extend(len(game.legal_moves(state)) for game, state in positions)

    game, games, seed = load_game("haegar", 2), 0, 0
    deadline = time.perf_counter() + PLAYOUT_SECONDS
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        random_game(game, seed)
        games, seed = games + 1, seed + 1
    rate = games / (time.perf_counter() - start)

    p99 = percentile(timings, 0.99)
    print(
        json.dumps(
            {
                "bench": "haegar",
                "placement_positions": len(counts),
                "placements_ms_p50": round(percentile(timings, 0.50), 4),
                "placements_ms_p99": round(p99, 4),
                "placements_ms_p99_best_of_rounds": round(percentile(best, 0.99), 4),
                "placements_per_position_mean": round(statistics.mean(counts), 1),
                "placements_per_position_max": max(counts),
                "random_2p_games_per_s": round(rate, 1),
                "budget_placements_ms_p99": BUDGET_P99_MS,
                "within_budget": not SMOKE and p99 <= BUDGET_P99_MS,
            }
        )
    )


if __name__ == "__main__":
    main()
