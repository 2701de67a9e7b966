"""Strength of the computer players, per game (2 seats): the search player against
the random player, and each difficulty against the one below, as wins, draws and
losses with 95% Wilson intervals of the win rate, beside its target, and
the seconds and playouts a move the search took (p50 and max, beside the 2 s
budget). Prints one JSON line.

Seats rotate between games, so each player sits in each seat equally often; a game
that reaches its move limit (``max_plies``, 1000 moves) is a draw and counted as
one.

By default the run is quick (a few minutes): ``QUICK_GAMES`` games of a search on
``QUICK_PLAYOUTS`` playouts a move against random, per game, no ladder; a rough
check that each search still beats random. ``--full`` plays the counts below.

With ``--full``, against random the search plays, by default, on a fixed playout budget with
no clock, so the run is reproducible: in Catch the Hare and Sternhalma (the
alpha-beta search) that is "hard" as shipped (2000 positions judged a move, far
inside the 2 s cap), in the other games fewer playouts than "hard" gets
(``HARD_PLAYOUTS``, a quicker lower bound). ``--as-shipped`` plays "hard" itself:
2000 playouts or 2 s, whichever ends first, so a move's playouts depend on the
machine and its load (a busy machine buys fewer: the rate is then a lower bound).
The ladder (easy > random, medium > easy, hard > medium) always plays the levels as
shipped, clocks included. Games run in a pool of ``--workers`` processes (2 by
default: the machine is shared); each game's result goes to stderr as soon as it
is in, so a long run loses nothing it has measured.

    python bench/bench_players.py [--full] [--games N] [--rung-games M] [--as-shipped]
                                  [--part random|ladder|both] [--workers W] [GAME ...]

``--games`` and ``--rung-games`` replace the counts below; ``--part`` runs only
the matches against random or only the ladder.

On two cores, 36 games as shipped of each of the four tree-search games against
random take about an hour, a ladder of 10 games a rung in four games about half an
hour; the ``--full`` counts take hours. A Catch the Hare rung between two searchers
is slow: most of its games run to the 1000-move draw. Ten games a rung cannot tell
two levels apart in the games of chance (Hägar, Hakenschlagen), where more playouts
over the same draw change little.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from smoke import SMOKE

from engines import GAMES
from engines.players import LEVELS
from engines.players.arena import Match, play_game, summarise, verdict

SEED = 11
#: games of the search player against the random player, per game; a game not
#: listed gets GAMES_VS_RANDOM
GAMES_VS_RANDOM = 60
GAMES_VS_RANDOM_OF = {"catch_the_hare": 100, "sternhalma": 40}
#: games of each difficulty against the one below, per game
GAMES_PER_RUNG = 20
#: the playouts a move the search gets here, per game; a game not listed gets
#: the "hard" level's own budget
HARD_PLAYOUTS = {
    "fang_den_hut_cards": 300,
    "fang_den_hut": 200,
    "haegar": 150,
    "hakenschlagen": 150,
}
#: the quick default: games against random, per game, and the search's playouts
QUICK_GAMES = 4
QUICK_PLAYOUTS = 30
#: the smoke run: one game a match, each search on a few playouts, a short draw limit
SMOKE_PLAYOUTS = 2
SMOKE_MAX_PLIES = 20
SMOKE_GAMES = ("catch_the_hare",)
#: the targets for the search against random: its win rate, per game
TARGETS = {"sternhalma": 0.95, "catch_the_hare": 0.95}
TARGET_OTHERS = 0.90
#: the budget of one move at the top level, in seconds
MOVE_BUDGET_S = LEVELS["hard"].seconds


def matches(
    name: str,
    games: int | None,
    rung_games: int | None,
    shipped: bool,
    parts: str,
    full: bool,
) -> dict[str, Match]:
    """The matches of one game: the search against random, then the ladder
    (``parts``: "random", "ladder" or "both"); quick ones unless ``full``."""
    budget = HARD_PLAYOUTS.get(name, LEVELS["hard"].playouts) if full else QUICK_PLAYOUTS
    hard = "hard" if shipped else f"search:{budget}"
    count = games or (GAMES_VS_RANDOM_OF.get(name, GAMES_VS_RANDOM) if full else QUICK_GAMES)
    limits = {"playouts": SMOKE_PLAYOUTS, "max_plies": SMOKE_MAX_PLIES} if SMOKE else {}
    if SMOKE:
        count = rung_games = 1
    found = {}
    if parts != "ladder":
        found["search_vs_random"] = Match(name, (hard, "random"), count, SEED, **limits)
    if parts != "random":
        for pair in (("easy", "random"), ("medium", "easy"), ("hard", "medium")):
            found["+".join(pair)] = Match(name, pair, rung_games or GAMES_PER_RUNG, SEED, **limits)
    return found


def row(summary: dict) -> dict:
    """The first player's figures in one match."""
    strong = summary["results"][0]
    return {
        "players": "+".join(summary["players"]),
        "games": summary["games"],
        "wins": strong["wins"],
        "draws": strong["draws"],
        "losses": strong["losses"],
        "win_rate": strong["win_rate"],
        "interval95": strong["interval95"],
        "by_seat": {s["seat_name"]: [s["wins"], s["games"]] for s in strong["by_seat"]},
        "move_seconds": strong["move_seconds"],
        "move_playouts": strong["move_playouts"],
        "plies_mean": summary["plies_mean"],
    }


def measure(name: str, plan: dict[str, Match], pool: ProcessPoolExecutor) -> dict:
    """Every game of one game's matches, summed up against the target and budget;
    each game's result goes to stderr as it comes in."""
    started = time.perf_counter()
    jobs = [(key, number) for key, match in plan.items() for number in range(match.games)]
    done = pool.map(play_game, [plan[key] for key, _ in jobs], [number for _, number in jobs])
    results: dict[str, list] = {key: [] for key in plan}
    for (key, number), result in zip(jobs, done):
        results[key].append(result)
        end = verdict(result.seating.index(0), result.winners)
        seconds = max(result.move_seconds[0], default=0.0)
        print(
            f"{name} {key} game {number}: {end} ({result.reason}), {result.plies} moves, "
            f"slowest move {seconds:.2f} s",
            file=sys.stderr,
            flush=True,
        )
    rows = {key: row(summarise(match, results[key])) for key, match in plan.items()}
    found: dict = {"ladder": [], "seconds": 0.0}
    vs_random = rows.pop("search_vs_random", None)
    if vs_random is not None:
        target = TARGETS.get(name, TARGET_OTHERS)
        found.update(
            {
                "search": vs_random["players"].split("+")[0],
                "search_vs_random": vs_random,
                "target": target,
                "rate_meets_target": vs_random["win_rate"] >= target,
                "interval_clears_target": vs_random["interval95"][0] >= target,
                # the games played do not rule the target out (its 95 % interval reaches
                # it): all a quick run of a few games can say
                "target_not_ruled_out": vs_random["interval95"][1] >= target,
                "max_move_seconds": vs_random["move_seconds"]["max"],
                "within_move_budget": vs_random["move_seconds"]["max"] <= MOVE_BUDGET_S,
            }
        )
    found["ladder"] = list(rows.values())
    found["seconds"] = round(time.perf_counter() - started, 1)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, help="games against random, per game")
    parser.add_argument("--rung-games", type=int, help="games a ladder rung, per game")
    parser.add_argument(
        "--as-shipped",
        action="store_true",
        help='the search against random plays "hard" as shipped (its clock included)',
    )
    parser.add_argument(
        "--full", action="store_true", help="the full counts (hours), ladder included"
    )
    parser.add_argument(
        "--smoke", action="store_true", help="one short game a match: checks the bench runs"
    )
    parser.add_argument(
        "--part", choices=("random", "ladder", "both"), help="default: random, or both with --full"
    )
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("names", nargs="*", choices=[*GAMES, []], metavar="GAME")
    args = parser.parse_args()
    started = time.perf_counter()
    workers = args.workers
    part = args.part or ("both" if args.full or SMOKE else "random")
    games = {}
    with ProcessPoolExecutor(workers) as pool:
        for name in args.names or (SMOKE_GAMES if SMOKE else GAMES):
            plan = matches(name, args.games, args.rung_games, args.as_shipped, part, args.full)
            games[name] = measure(name, plan, pool)
            print(json.dumps({name: games[name]}), file=sys.stderr, flush=True)
    print(
        json.dumps(
            {
                "bench": "players",
                "seed": SEED,
                "workers": workers,
                "as_shipped": args.as_shipped,
                "full": args.full,
                "move_budget_s": MOVE_BUDGET_S,
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
