"""Strength of the computer players, per game (2 seats): the search player against
the random player, and each difficulty against the one below, as win rates with 95%
Wilson intervals. Prints one JSON line.

Seats rotate between games, so each player sits in each seat equally often; a game
that reaches its move limit is a draw and counted as one. "hard" is a 2 s clock a
move, too slow for enough games here, so the bench gives the search a fixed playout
budget per game instead (reproducible, stated in the output as ``hard_playouts``,
at most what 2 s buys on a 2-core box; the seconds a move it took are reported
beside it). Games are spread over the machine's cores.
"""

from __future__ import annotations

import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engines import GAMES  # noqa: E402
from engines.players import LEVELS  # noqa: E402
from engines.players.arena import Match, play_match  # noqa: E402

SEED = 11
#: games of the search player against the random player, per game
GAMES_VS_RANDOM = 24
#: games of each difficulty against the one below, per game
GAMES_PER_RUNG = 8
#: the playouts a move standing for "hard" here, per game; a game not listed (a
#: newcomer) gets DEFAULT_PLAYOUTS
HARD_PLAYOUTS = {
    "sternhalma": 300,
    "catch_the_hare": 600,
    "fang_den_hut_cards": 300,
    "fang_den_hut": 200,
    "haegar": 150,
    "hakenschlagen": 150,
}
DEFAULT_PLAYOUTS = 200
#: the draw limit of the games that have one: room to finish (Sternhalma), not
#: so much that drawn games eat the run
MAX_PLIES = {"sternhalma": 600, "catch_the_hare": 400}
#: the issue's targets for the search against random, per game
TARGETS = {"sternhalma": 0.95, "catch_the_hare": 0.95}
TARGET_OTHERS = 0.90


def measure(name: str, pool: ProcessPoolExecutor) -> dict:
    hard = f"search:{HARD_PLAYOUTS.get(name, DEFAULT_PLAYOUTS)}"
    started = time.perf_counter()

    def match(players: tuple[str, str], games: int) -> dict:
        limit = MAX_PLIES.get(name, 1000)
        found = play_match(Match(name, players, games, SEED, max_plies=limit), map=pool.map)
        print(f"{name} {'+'.join(players)}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
        strong = found["results"][0]
        return {
            "players": "+".join(players),
            "games": found["games"],
            "wins": strong["wins"],
            "win_rate": strong["win_rate"],
            "interval95": strong["interval95"],
            "draws": strong["draws"],
            "by_seat": {s["seat_name"]: [s["wins"], s["games"]] for s in strong["by_seat"]},
            "move_seconds": strong["move_seconds"],
            "plies_mean": found["plies_mean"],
        }

    vs_random = match((hard, "random"), GAMES_VS_RANDOM)
    ladder = [
        match(pair, GAMES_PER_RUNG)
        for pair in (("easy", "random"), ("medium", "easy"), (hard, "medium"))
    ]
    target = TARGETS.get(name, TARGET_OTHERS)
    return {
        "hard_playouts": int(hard.partition(":")[2]),
        "max_plies": MAX_PLIES.get(name),
        "search_vs_random": vs_random,
        "target": target,
        "rate_meets_target": vs_random["win_rate"] >= target,
        "interval_clears_target": vs_random["interval95"][0] >= target,
        "ladder": ladder,
        "seconds": round(time.perf_counter() - started, 1),
    }


def main() -> None:
    started = time.perf_counter()
    workers = os.cpu_count() or 1
    with ProcessPoolExecutor(workers) as pool:
        games = {name: measure(name, pool) for name in sys.argv[1:] or GAMES}
    print(
        json.dumps(
            {
                "bench": "players",
                "seed": SEED,
                "workers": workers,
                "levels": {
                    k: {"playouts": v.playouts, "seconds": v.seconds} for k, v in LEVELS.items()
                },
                "games": games,
                "seconds": round(time.perf_counter() - started, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
