"""Strength of the computer players, per game (2 seats): the search player against
the random player, and each difficulty against the one below, as wins, draws and
losses with 95% Wilson intervals of the win rate, beside its target, and
the seconds and playouts a move the search took (p50 and max, beside the top
level's ceiling). First, per game, the search's playouts per CPU-second (the slowest
game's against the budget) and each level's thinking time a move on a Pi (this
machine's CPU time times ``PI_SLOWER``). Prints one JSON line.

Seats rotate between games, so each player sits in each seat equally often; a game
that reaches its move limit (``max_plies``, 1000 moves) is a draw and counted as
one.

By default the run is quick (a few minutes): ``QUICK_GAMES`` games of a search on
``QUICK_PLAYOUTS`` playouts a move against random, per game, no ladder; a rough
check that each search still beats random. ``--full`` plays the counts below.

With ``--full``, against random the search plays, by default, on a fixed playout budget with
no clock, so the run is reproducible: in Catch the Hare and Sternhalma (the
alpha-beta search) that is "hard"'s own count (its 2000 positions judged a move),
in the other games fewer playouts than "hard" gets (``HARD_PLAYOUTS``, a quicker
lower bound). ``--as-shipped`` plays "hard" itself: its playouts, cut only by its
ceiling of seconds, which only a machine far slower than a Pi reaches.
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
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from smoke import SMOKE, sized

from engines import GAMES
from engines.chance import Stream
from engines.players import LEVELS, SearchPlayer, minimax, random_playout
from engines.players.arena import Match, play_game, summarise, verdict
from engines.players.knowledge import knowledge_of

SEED = 11
#: games of the search player against the random player, per game; a game not
#: listed gets GAMES_VS_RANDOM
GAMES_VS_RANDOM = 60
GAMES_VS_RANDOM_OF = {"catch_the_hare": 100, "sternhalma": 40}
#: games of each difficulty against the one below, per game
GAMES_PER_RUNG = 20
#: the playouts a move the search gets here, per game; a game not listed (the
#: alpha-beta games) gets the "hard" level's positions judged
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
#: the ceiling of one move at the top level, in seconds
MOVE_BUDGET_S = LEVELS["hard"].ceiling_s
#: how much slower a Raspberry Pi 4 core is than this machine's (an estimate: the
#: thinking times "on a Pi" are this machine's CPU seconds times this)
PI_SLOWER = 4
#: playouts a CPU-second: positions searched per game, and playouts on each
RATE_POSITIONS = sized(8, 1)
RATE_PLAYOUTS = sized(300, 5)
#: playouts a CPU-second the slowest game must reach, and the aim
BUDGET_PLAYOUTS_PER_CPU_S = 1000
GOAL_PLAYOUTS_PER_CPU_S = 3000


def playout_rate(name: str) -> dict:
    """Playouts (positions judged, in the alpha-beta games) per CPU-second of the
    search, 2 seats: ``RATE_PLAYOUTS`` a move from positions spread over a seeded
    random game, the process's own CPU time (a busy machine does not lower it)."""
    game = Match(name, ("random", "random"), 1, SEED).load()
    states = random_playout(game, game.initial_state(), random.Random(SEED), Stream("rate"))
    choices = [s for s in states if game.to_move(s) is not None and len(game.legal_moves(s)) > 1]
    step = max(1, len(choices) // RATE_POSITIONS)
    playouts, cpu = 0, 0.0
    for number, state in enumerate(choices[::step][:RATE_POSITIONS]):
        bot = SearchPlayer(f"{SEED}:{number}", playouts=RATE_PLAYOUTS)
        started = time.process_time()
        bot.choose(game, state)
        cpu += time.process_time() - started
        playouts += bot.last_playouts
    rate = playouts / cpu
    judged = minimax.fits(game, knowledge_of(game))
    return {
        "playouts": playouts,
        "cpu_s": round(cpu, 3),
        "per_cpu_s": round(rate),
        "pi_thinking_s": {
            name: round((level.judgements if judged else level.playouts) / rate * PI_SLOWER, 1)
            for name, level in LEVELS.items()
        },
    }


def playout_rates(names: list[str], pool: ProcessPoolExecutor) -> dict:
    """Each game's ``playout_rate`` and the slowest game's, beside the budget."""
    rates = dict(zip(names, pool.map(playout_rate, names)))
    slowest = min(rates, key=lambda name: rates[name]["per_cpu_s"])
    return {
        "games": rates,
        "slowest": slowest,
        "slowest_per_cpu_s": rates[slowest]["per_cpu_s"],
        "budget_per_cpu_s": BUDGET_PLAYOUTS_PER_CPU_S,
        "goal_per_cpu_s": GOAL_PLAYOUTS_PER_CPU_S,
    }


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
    budget = HARD_PLAYOUTS.get(name, LEVELS["hard"].judgements) if full else QUICK_PLAYOUTS
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
        rates = playout_rates(list(args.names or GAMES), pool)
        print(json.dumps({"playout_rates": rates}), file=sys.stderr, flush=True)
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
                    k: {
                        "playouts": v.playouts,
                        "judgements": v.judgements,
                        "ceiling_s": v.ceiling_s,
                    }
                    for k, v in LEVELS.items()
                },
                "pi_slower": PI_SLOWER,
                "playout_rates": rates,
                "games": games,
                "seconds": round(time.perf_counter() - started, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
