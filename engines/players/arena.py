"""Computer players against each other: whole games with seats rotating, and win
rates with 95% Wilson intervals (``boardref arena`` and ``bench/bench_players.py``).

Game ``k`` seats player ``(seat + k) % len(players)`` in each seat, so every player
sits in every seat equally often. Chance is drawn from a ``Stream`` seeded by the
match seed and the game number, as at a real table. A game that reaches its move
limit is a draw and counted as one: through the game's own ``max_plies`` where it
has that option, else at ``CAP_PLIES`` moves.

It plays games and counts; parallelism, if any, is the caller's (``map``).
"""

from __future__ import annotations

import math
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from engines import load_game
from engines.chance import Stream
from engines.core import Game
from engines.players import player
from engines.players.search import SearchPlayer

#: moves after which a game without a ``max_plies`` option is stopped as a draw
CAP_PLIES = 5000
#: the ``max_plies`` given to games that have the option, unless the match sets one
MAX_PLIES = 1000
#: the z of a two-sided 95% interval
Z95 = 1.959963984540054


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (``(0, 1)`` with no trials).

    >>> [round(x, 3) for x in wilson(95, 100)]
    [0.888, 0.978]
    """
    if trials == 0:
        return 0.0, 1.0
    if successes in (0, trials):
        # the closed form, exact at the ends where rounding would leave 0.9999...
        edge = trials / (trials + z * z)
        return (0.0, 1 - edge) if successes == 0 else (edge, 1.0)
    p = successes / trials
    centre = p + z * z / (2 * trials)
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    denominator = 1 + z * z / trials
    return max(0.0, (centre - spread) / denominator), min(1.0, (centre + spread) / denominator)


@dataclass(frozen=True)
class Match:
    """What to play: the game and its setup, the players (one per seat), the budget."""

    game: str
    players: tuple[str, ...]
    games: int
    seed: int
    options: dict[str, Any] = field(default_factory=dict)
    #: a search player's iterations a move instead of its level's clock (reproducible)
    playouts: int | None = None
    #: the draw limit for games with a ``max_plies`` option
    max_plies: int = MAX_PLIES

    def load(self) -> Game:
        options = dict(self.options)
        game = load_game(self.game, len(self.players), **options)
        if "max_plies" in game.options and options.get("max_plies") is None:
            game = load_game(self.game, len(self.players), max_plies=self.max_plies, **options)
        return game


@dataclass(frozen=True)
class GameResult:
    """One game: who sat where, the winning seats, why it ended, its length, and
    per player the seconds each move took and the playouts each searched move ran
    (a search player's ``last_playouts``; none for the random player or a forced move)."""

    seating: tuple[int, ...]
    winners: tuple[int, ...]
    reason: str
    plies: int
    move_seconds: tuple[tuple[float, ...], ...]
    move_playouts: tuple[tuple[int, ...], ...]


def play_game(match: Match, number: int) -> GameResult:
    """Game ``number`` of ``match`` (seats rotated by the number)."""
    game = match.load()
    count = len(match.players)
    seating = tuple((seat + number) % count for seat in range(count))
    players = [
        player(name, seed=f"{match.seed}:{number}:{index}", playouts=match.playouts)
        for index, name in enumerate(match.players)
    ]
    times: list[list[float]] = [[] for _ in players]
    playouts: list[list[int]] = [[] for _ in players]
    stream = Stream(f"arena {match.seed} game {number}")
    state, plies = game.initial_state(), 0
    while game.outcome(state) is None and plies < CAP_PLIES:
        spec = game.chance(state)
        if spec is not None:
            state = game.resolve(state, spec.draw(stream))
            continue
        seat = game.to_move(state)
        if seat is None:
            raise AssertionError("a position with no draw due and no outcome has a seat to act")
        index = seating[seat]
        started = time.perf_counter()
        chooser = players[index]
        move = chooser.choose(game, state)
        times[index].append(time.perf_counter() - started)
        if isinstance(chooser, SearchPlayer) and chooser.last_playouts:
            playouts[index].append(chooser.last_playouts)
        state = game.apply(state, move)
        plies += 1
    ended = game.outcome(state)
    winners = () if ended is None else ended.winners
    reason = f"stopped after {CAP_PLIES} moves" if ended is None else str(ended.reason)
    return GameResult(
        seating, winners, reason, plies, tuple(map(tuple, times)), tuple(map(tuple, playouts))
    )


def play_match(match: Match, map: Callable[..., Iterable] = map) -> dict:
    """Every game of ``match`` and the summary ``boardref arena`` prints."""
    results = list(map(play_game, [match] * match.games, range(match.games)))
    return summarise(match, results)


def summarise(match: Match, results: list[GameResult]) -> dict:
    """Win rates per player and per seat, with 95% intervals, as JSON-able data."""
    game = match.load()
    summary = []
    for index, name in enumerate(match.players):
        tally: Counter[str] = Counter()
        seats: list[Counter[str]] = [Counter() for _ in range(game.players)]
        seconds: list[float] = []
        playouts: list[int] = []
        for result in results:
            seat = result.seating.index(index)
            end = verdict(seat, result.winners)
            tally[end] += 1
            seats[seat][end] += 1
            seats[seat]["games"] += 1
            seconds.extend(result.move_seconds[index])
            playouts.extend(result.move_playouts[index])
        summary.append(
            {
                "player": name,
                **_rate(tally, len(results)),
                "draws": tally["draw"],
                "shared": tally["shared"],
                "losses": tally["loss"],
                "by_seat": [
                    {"seat": seat, "seat_name": game.seat_name(seat), **_rate(t, t["games"])}
                    for seat, t in enumerate(seats)
                ],
                "move_seconds": _spread(seconds),
                "move_playouts": _spread([float(n) for n in playouts]),
            }
        )
    return {
        "game": match.game,
        "players": list(match.players),
        "options": {k: v for k, v in game.options.items() if v is not None},
        "games": len(results),
        "seed": match.seed,
        "playouts": match.playouts,
        "results": summary,
        "plies_mean": round(statistics.fmean(r.plies for r in results), 1) if results else None,
        "draw_reasons": dict(Counter(r.reason for r in results if not r.winners)),
    }


def verdict(seat: int, winners: tuple[int, ...]) -> str:
    """The game's end for ``seat``: "win", "shared" (a win with others), "loss" or "draw"."""
    if not winners:
        return "draw"
    if seat not in winners:
        return "loss"
    return "win" if len(winners) == 1 else "shared"


def _rate(tally: Counter, games: int) -> dict:
    """Sole wins over games, and the 95% interval of that rate."""
    wins = tally["win"]
    low, high = wilson(wins, games)
    return {
        "games": games,
        "wins": wins,
        "win_rate": round(wins / games, 4) if games else None,
        "interval95": [round(low, 4), round(high, 4)],
    }


def _spread(seconds: list[float]) -> dict | None:
    if not seconds:
        return None
    ordered = sorted(seconds)
    return {
        "p50": round(ordered[len(ordered) // 2], 4),
        "max": round(ordered[-1], 4),
        "moves": len(ordered),
    }
