"""Fang den Hut! card game speed: legal-move generation per position (budget p99
1 ms) and one seat's view, over positions from seeded random matches of 2 to 5
players, and random-playout plies per second. Prints one JSON line.

Every position is timed in several rounds and all timings count, so p99 includes
the machine's own noise (the timing helpers are bench_engines.py's).
"""

from __future__ import annotations

import json
import random
import statistics
import time

from bench_engines import timings_ms
from smoke import SMOKE, sized

from boardref.runtime.loop_lag import percentile
from engines import load_game
from engines.chance import Stream
from engines.players import random_step

NAME = "fang_den_hut_cards"
MATCHES = sized(10, 1)
PLAYOUT_SECONDS = sized(2.0, 0.02)
BUDGET_P99_MS = 1.0


def positions(game, seed: int) -> list:
    """Every position where a player is to move in seeded random matches."""
    pick, found = random.Random(seed), []
    for n in range(MATCHES):
        stream, state = Stream(f"bench {seed} {n}"), game.initial_state()
        while game.outcome(state) is None:
            if game.to_move(state) is not None:
                found.append(state)
            state = random_step(game, state, pick, stream)
    return found


def playout_rate(game) -> float:
    """Plies (moves and deals) per second of random play, restarting finished matches."""
    pick, stream, plies = random.Random(1), Stream("playouts"), 0
    start = time.perf_counter()
    state = game.initial_state()
    while time.perf_counter() - start < PLAYOUT_SECONDS:
        if game.outcome(state) is not None:
            state = game.initial_state()
        state = random_step(game, state, pick, stream)
        plies += 1
    return plies / (time.perf_counter() - start)


def main() -> None:
    legal, views, per_count = [], [], {}
    for players in (2, 3, 4, 5):
        game = load_game(NAME, players)
        states = positions(game, players)
        samples = timings_ms(states, game.legal_moves)
        legal += samples
        views += timings_ms(states, lambda s, g=game: g.view(s, g.to_move(s)))
        per_count[f"{players}p"] = {
            "positions": len(states),
            "legal_moves_ms_p99": round(percentile(samples, 0.99), 4),
            "moves_per_position_mean": round(
                statistics.mean(len(game.legal_moves(s)) for s in states), 1
            ),
            "playout_plies_per_s": round(playout_rate(game)),
        }
    p99 = percentile(legal, 0.99)
    print(
        json.dumps(
            {
                "bench": NAME,
                "positions": sum(p["positions"] for p in per_count.values()),
                "legal_moves_ms_p50": round(percentile(legal, 0.50), 4),
                "legal_moves_ms_p99": round(p99, 4),
                "budget_legal_moves_ms_p99": BUDGET_P99_MS,
                "within_budget": not SMOKE and p99 <= BUDGET_P99_MS,
                "view_ms_p50": round(percentile(views, 0.50), 4),
                "view_ms_p99": round(percentile(views, 0.99), 4),
                "by_players": per_count,
            }
        )
    )


if __name__ == "__main__":
    main()
