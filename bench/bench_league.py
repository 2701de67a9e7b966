"""The café league over a year of history: 10,000 ended games of Catch the Hare and
the Fang den Hut! card game in one table's log, played by forty named players
(and anonymous seats), and what a standings request costs the table. Per game: the
CPU the service spends on one ``/api/standings``: the first after a start, then
median and p99 over calls made just after a game's seats change and with nothing
changed; and how late the panel answers health probes while they are asked.
Prints one JSON line.

The games are real ones (played by ``simulate``), copied with their events and
spread over a year, each copy with its league row as the table keeps it when a game
ends (worked out from the copied game's record once, as the table would). The service
is ``boardref serve --sim`` on that log with retention off. CPU is the service's own
(/proc), idle CPU over the same time taken off; the probes' lateness is wall time.
"""

from __future__ import annotations

import json
import random
import sqlite3
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import checkout  # noqa: F401  (the tests' helpers, below)
from bench_history import Table, ask, build, idle_rates, probing, seed_games
from smoke import sized

from boardref.eventlog.history import History
from boardref.eventlog.league_games import outcome_of
from boardref.eventlog.store import Store

GAMES = sized(10_000, 60)
PLAYERS_IN_CAFE = 40
#: standings asked per game
CALLS = sized(30, 3)
#: the games copied, each a game and how many moves of it are played
SEED_PLAYS = tuple((game, sized(400, 60)) for game in ("catch_the_hare", "fang_den_hut_cards"))
BUDGET_STANDINGS_CPU_MS = 200.0
BUDGET_LAG_MS = 20.0


def name_the_seats(path: Path) -> None:
    """Forty players in the café; each seat of each game one of them, or anonymous
    one time in five; and every game's league row, worked out once per copied game."""
    store = Store(path)
    history = History(store, "t1")
    rows = store.read("SELECT id, game, players, commitment, ended FROM games ORDER BY id")
    kept: dict[tuple, str] = {}
    pick = random.Random(45)
    statements = [
        ("INSERT INTO players (name, created) VALUES (?, 0)", (f"Player {n}",))
        for n in range(1, PLAYERS_IN_CAFE + 1)
    ]
    for gid, game, players, commitment, ended in rows:
        # a copy's row is its original's: the same events, another end
        if (game, commitment) not in kept:
            kept[game, commitment] = outcome_of(gid, history.record(gid)).to_json()
        end = datetime.fromtimestamp(ended, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        said = json.loads(kept[game, commitment]) | {"end": end}
        if not said["by_the_rules"]:  # the simulated hands' corrections: the referee rates it
            statements.append(("INSERT INTO league_rated (game_id, rated) VALUES (?, 1)", (gid,)))
        statements.append(
            (
                "INSERT INTO league_games (game_id, game, ended, outcome) VALUES (?, ?, ?, ?)",
                (gid, game, ended, json.dumps(said, separators=(",", ":"))),
            )
        )
        for seat, player in enumerate(pick.sample(range(1, PLAYERS_IN_CAFE + 1), players)):
            if pick.random() > 0.2:
                statements.append(
                    (
                        "INSERT INTO seat_players (game_id, seat, player_id) VALUES (?, ?, ?)",
                        (gid, seat, player),
                    )
                )
    store.write(statements)
    history.close()
    store.close()


def measure(table: Table, path: Path, game: str) -> dict:
    """CPU per standings call, idle CPU taken off: the first after the service starts
    (every game rated), then, alternately, just after the newest game's seats change
    (a game ended: the games before it are not rated again) and with nothing changed
    (the standings remembered); the median and p99 of those, and the health probes'
    p99 while they are asked for."""
    idle_rate, _ = idle_rates(table)

    def asked() -> tuple[float, int]:
        begun, used = time.perf_counter(), table.cpu()
        rows = len(json.loads(ask(f"{table.url}/api/standings?game={game}"))["rows"])
        took = time.perf_counter() - begun
        return max(table.cpu() - used - idle_rate * took, 0.0) * 1000, rows

    with sqlite3.connect(path) as db:
        [(newest,)] = db.execute("SELECT MAX(game_id) FROM league_games WHERE game = ?", (game,))
    spent: list[float] = []
    with probing(table) as lates:
        first, rows = asked()
        for call in range(CALLS):
            if newest is not None and call % 2 == 0:  # another player in its newest game
                with sqlite3.connect(path) as db:
                    db.execute(
                        "INSERT OR REPLACE INTO seat_players (game_id, seat, player_id)"
                        " VALUES (?, 0, ?)",
                        (newest, 1 + call % PLAYERS_IN_CAFE),
                    )
            spent.append(asked()[0])
    spent.sort()
    return {
        "first_standings_cpu_ms": round(first, 1),
        "standings_cpu_ms": round(spent[len(spent) // 2], 1),
        "standings_cpu_ms_p99": round(spent[min(int(len(spent) * 0.99), len(spent) - 1)], 1),
        "health_ms_p99": round(lates[min(int(len(lates) * 0.99), len(lates) - 1)], 1),
        "rows": rows,
    }


def main() -> None:
    found: dict = {"bench": "league", "games": GAMES}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        games, events = seed_games(folder, SEED_PLAYS)
        path = folder / "league.db"
        build(path, GAMES, games, events)
        name_the_seats(path)
        table = Table(folder, path)
        try:
            per_game = {game: measure(table, path, game) for game, _ in SEED_PLAYS}
        finally:
            table.stop()
    found["per_game"] = per_game
    found["worst"] = {
        key: max(row[key] for row in per_game.values())
        for key in (
            "first_standings_cpu_ms",
            "standings_cpu_ms",
            "standings_cpu_ms_p99",
            "health_ms_p99",
        )
    }
    found |= {
        "budget_standings_cpu_ms": BUDGET_STANDINGS_CPU_MS,
        "budget_lag_ms": BUDGET_LAG_MS,
    }
    print(json.dumps(found))


if __name__ == "__main__":
    main()
