"""Hakenschlagen: full-turn enumeration (every distinct outcome of a turn) p50/p99
over positions from seeded random 5-player games, the number of distinct outcomes
per turn, and a chi-square check of the bag's draws on a fixed seed. Prints one
JSON line.

The biggest turn of those positions is also indexed as the referee indexes it on a
table with a camera and hall sensors (``index_successors`` with both), timed on CPU.

The enumeration finds every distinct end of the turn (``legal_moves`` returns them
as packed ends; a turn's uses are written out when read): the bench also times
writing one out, and writing all out with their positions (``successors``, what
the referee indexes in a worker thread once the marbles are drawn).

Every position is timed in several rounds on this process's CPU time (the machine
is shared, so wall clock would measure the neighbours) and all timings count, so
p99 includes the machine's own noise. The computer player's playouts per CPU
second are its search's (``SearchPlayer`` on a fixed playout count, as
``bench_players.py`` plays it, no clock) on positions of a seeded game. The
chi-square test compares the hands drawn from one stream with the exact hand
probabilities of ``BagDraw.outcomes()``.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import time

from smoke import SMOKE, sized

from boardref.referee.kinds import Sensor
from boardref.referee.successors import index_successors
from boardref.runtime.loop_lag import percentile
from engines import load_game
from engines.chance import Stream
from engines.hakenschlagen import BAG
from engines.players import random_step
from engines.players.search import SearchPlayer

PLAYERS = 5
#: the boards whose turns are timed (the smoke run's one board runs every step)
BOARDS = sized(("hex", "square"), ("hex",))
GAMES = sized(2, 1)
ROUNDS = sized(2, 1)
#: every how many positions the turn is also written out whole, with the position
#: each outcome leads to (what the referee indexes while the player thinks)
WRITE_OUT_EVERY = 10
BUDGET_P99_MS = 50.0
GOAL_P99_MS = 5.0
#: CPU to index the biggest turn's outcomes for camera and hall sensors, in rounds
INDEX_ROUNDS = sized(5, 1)
BUDGET_INDEX_CPU_MS = 300.0
GOAL_INDEX_CPU_MS = 50.0
DRAWS = sized(200_000, 500)
#: CPU seconds of random play (the computer players' playouts) and its budget
PLAYOUT_CPU_S = sized(5.0, 0.1)
BUDGET_RANDOM_PLIES_PER_CPU_S = 3000
GOAL_RANDOM_PLIES_PER_CPU_S = 10_000
#: the computer player's search on a fixed playout count (as ``bench_players.py``
#: plays it, no clock), on this many turn-start positions spread over a 2-player game
SEARCH_PLAYOUTS = sized(150, 2)
SEARCH_POSITIONS = sized(8, 1)
BUDGET_PLAYOUTS_PER_CPU_S = 1000
GOAL_PLAYOUTS_PER_CPU_S = 3000
SEED = b"bench hakenschlagen bag"


def chi2_sf(statistic: float, dof: int) -> float:
    """P(X >= statistic) for chi-square with ``dof``: 1 - the regularised lower
    incomplete gamma P(dof/2, statistic/2), summed as its power series."""
    a, x = dof / 2, statistic / 2
    term = total = 1 / a
    n = 0
    while term > total * 1e-15:
        n += 1
        term *= x / (a + n)
        total += term
    return max(0.0, 1 - math.exp(a * math.log(x) - x - math.lgamma(a)) * total)


def uniform_game(game, pick: random.Random, stream: Stream) -> list:
    """Every state of a game whose every turn is picked uniformly from the listed
    outcomes (as ``RandomPlayer`` picks), not drawn by the playouts' random walk: the
    positions then compare with those of earlier runs."""
    state = game.initial_state()
    states = [state]
    while game.outcome(state) is None:
        spec = game.chance(state)
        if spec is not None:
            state = game.resolve(state, spec.draw(stream))
        else:
            state = game.apply(state, pick.choice(game.legal_moves(state)))
        states.append(state)
    return states


def positions(board: str) -> tuple[list, object, list[int]]:
    """Every turn-start position (marbles drawn) of seeded random games."""
    game = load_game("hakenschlagen", PLAYERS, board=board)
    pick, found, lengths = random.Random(2026), [], []
    for n in range(GAMES):
        played = uniform_game(game, pick, Stream(f"bench game {n}"))
        end = played[-1]
        if not (end.turned[end.winner] and end.hares[end.winner] in game.start_spaces):
            raise AssertionError(f"game {n} on the {board} board ended without a rightful winner")
        turns = [s for s in played if game.to_move(s) is not None]
        found.extend(turns)
        lengths.append(len(turns))
    return found, game, lengths


def bench_turns(board: str) -> dict:
    found, game, lengths = positions(board)
    found = found[: sized(len(found), 12)]
    samples, outcomes, one, every = [], [], [], []
    pick = random.Random(5)
    for round_ in range(ROUNDS):
        outcomes.clear()
        for n, state in enumerate(found):
            start = time.process_time_ns()
            moves = game.legal_moves(state)
            samples.append((time.process_time_ns() - start) / 1e6)
            outcomes.append(len(moves))
            start = time.process_time_ns()
            moves[pick.randrange(len(moves))]
            one.append((time.process_time_ns() - start) / 1e6)
            if round_ == 0 and n % WRITE_OUT_EVERY == 0:
                start = time.process_time_ns()
                game.successors(state)
                every.append((time.process_time_ns() - start) / 1e6)
    biggest = found[outcomes.index(max(outcomes))]
    return {
        **bench_index(game, biggest),
        "positions": len(found),
        "turns_per_game_mean": round(statistics.mean(lengths), 1),
        "full_turn_ms_p50": round(percentile(samples, 0.50), 3),
        "full_turn_ms_p99": round(percentile(samples, 0.99), 3),
        "full_turn_ms_max": round(max(samples), 3),
        "one_turn_written_out_ms_p99": round(percentile(one, 0.99), 3),
        "successors_all_written_out_ms_p50": round(percentile(every, 0.50), 1),
        "successors_all_written_out_ms_p99": round(percentile(every, 0.99), 1),
        "successors_positions": len(every),
        "outcomes_per_turn_p50": percentile(outcomes, 0.50),
        "outcomes_per_turn_p99": percentile(outcomes, 0.99),
        "outcomes_per_turn_max": max(outcomes),
        "outcomes_per_turn_mean": round(statistics.mean(outcomes), 1),
    }


def bench_index(game, state) -> dict:
    """CPU to index every outcome of ``state`` by what a camera and hall sensors read."""
    index_successors(game, state, Sensor.BOTH)  # not timed: the first loads numpy
    samples = []
    for _ in range(INDEX_ROUNDS):
        start = time.process_time()
        indexed = index_successors(game, state, Sensor.BOTH)
        samples.append((time.process_time() - start) * 1000)
    return {
        "index_biggest_turn_outcomes": indexed.outcomes,
        "index_biggest_turn_cpu_ms_p50": round(statistics.median(samples), 1),
        "index_biggest_turn_cpu_ms_max": round(max(samples), 1),
    }


def random_plies_per_cpu_s(players: int) -> float:
    """Moves of random play per CPU second (draws of marbles not counted), finished
    games started again: the playouts of the computer players, each turn drawn by the
    engine's ``random_play`` (a random walk over the steps of a turn) without listing
    its outcomes."""
    game = load_game("hakenschlagen", players)
    pick, stream, plies = random.Random(7), Stream("bench playouts"), 0
    state, start = game.initial_state(), time.process_time()
    while time.process_time() - start < PLAYOUT_CPU_S:
        if game.outcome(state) is not None:
            state = game.initial_state()
        plies += game.to_move(state) is not None
        state = random_step(game, state, pick, stream)
    return plies / (time.process_time() - start)


def playouts_per_cpu_s(board: str) -> float:
    """Playouts of the computer player's search per CPU second: a search of
    ``SEARCH_PLAYOUTS`` playouts a move on turn-start positions of a seeded 2-player
    game, the listing of each position's turn included (the search lists the turns
    of the positions it reaches)."""
    game = load_game("hakenschlagen", 2, board=board)
    pick, stream = random.Random(2026), Stream(f"bench search {board}")
    state, turns = game.initial_state(), []
    while game.outcome(state) is None:  # a random walk's game: no turn listed
        if game.to_move(state) is not None:
            turns.append(state)
        state = random_step(game, state, pick, stream)
    turns = turns[:: len(turns) // SEARCH_POSITIONS][:SEARCH_POSITIONS]
    player, playouts = SearchPlayer(seed=SEED, playouts=SEARCH_PLAYOUTS), 0
    start = time.process_time()
    for state in turns:
        player.choose(game, state)
        playouts += player.last_playouts
    return playouts / (time.process_time() - start)


def bench_bag() -> dict:
    """Chi-square of 3-marble hands drawn from one stream against the exact odds."""
    spec = BAG.draw(3)
    odds = dict(spec.outcomes())
    stream, seen = Stream(SEED), dict.fromkeys(odds, 0)
    for _ in range(DRAWS):
        seen[spec.draw(stream)] += 1
    statistic = sum((seen[h] - DRAWS * p) ** 2 / (DRAWS * p) for h, p in odds.items())
    dof = len(odds) - 1
    return {
        "draws": DRAWS,
        "hands": len(odds),
        "chi2": round(statistic, 2),
        "dof": dof,
        "p_value": round(chi2_sf(statistic, dof), 4),
    }


def main() -> None:
    result: dict = {
        "bench": "hakenschlagen",
        "players": PLAYERS,
        **{board: bench_turns(board) for board in BOARDS},
        "bag_chi_square": bench_bag(),
        "random_plies_per_cpu_s": {f"{n}p": round(random_plies_per_cpu_s(n)) for n in (2, PLAYERS)},
        "budget_random_plies_per_cpu_s": BUDGET_RANDOM_PLIES_PER_CPU_S,
        "goal_random_plies_per_cpu_s": GOAL_RANDOM_PLIES_PER_CPU_S,
        "search_playouts_per_cpu_s": {board: round(playouts_per_cpu_s(board)) for board in BOARDS},
        "budget_playouts_per_cpu_s": BUDGET_PLAYOUTS_PER_CPU_S,
        "goal_playouts_per_cpu_s": GOAL_PLAYOUTS_PER_CPU_S,
        "budget_index_biggest_turn_cpu_ms": BUDGET_INDEX_CPU_MS,
        "goal_index_biggest_turn_cpu_ms": GOAL_INDEX_CPU_MS,
        "budget_full_turn_ms_p99": BUDGET_P99_MS,
        "goal_full_turn_ms_p99": GOAL_P99_MS,
    }
    result["within_budget"] = (
        not SMOKE
        and all(
            board["full_turn_ms_p99"] <= BUDGET_P99_MS
            and board["index_biggest_turn_cpu_ms_p50"] <= BUDGET_INDEX_CPU_MS
            for board in (result[name] for name in BOARDS)
        )
        and min(result["random_plies_per_cpu_s"].values()) >= BUDGET_RANDOM_PLIES_PER_CPU_S
        and min(result["search_playouts_per_cpu_s"].values()) >= BUDGET_PLAYOUTS_PER_CPU_S
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
