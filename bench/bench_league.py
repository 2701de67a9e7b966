"""The café league over a year of history: 10,000 ended games of Catch the Hare and
the Fang den Hut! card game in one table's log, played by forty named players
(and anonymous seats), and what a standings request costs the table. Per game: the
CPU the service spends on one ``/api/standings``: the first after a start, then
median and p99 over calls made just after a game's seats change and with nothing
changed (as CSV), and how much of that ran on the event loop's thread; and how late
the panel answers health probes while they are asked, and with nothing asked.
Prints one JSON line, and the figures beside their budgets on stderr.

The games are real ones (played by ``simulate``), copied with their events and
spread over a year, each copy with its league row as the table keeps it when a game
ends (worked out from the copied game's record once, as the table would). The service
is ``boardref serve --sim`` on that log with retention off. CPU is the service's own
(/proc), idle CPU over the same time taken off; the probes' lateness is wall time.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import sys
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
    (a game ended: the games before it are not rated again), as JSON, and with nothing
    changed, as CSV; the median and p99 of those, and the health probes' p99 while
    they are asked for, during the first, and over as long a time with nothing asked
    (the machine's own). Then the p99 of the event loop thread's CPU in a call just
    after a change, asked for with no probes."""
    idle_rate, _ = idle_rates(table)
    idle_from, idle_loop = time.perf_counter(), loop_cpu(table)
    time.sleep(sized(2.0, 0.2))
    idle_loop_rate = (loop_cpu(table) - idle_loop) / (time.perf_counter() - idle_from)

    def asked(form: str) -> tuple[float, float, bytes]:
        begun, used, looped = time.perf_counter(), table.cpu(), loop_cpu(table)
        said = ask(f"{table.url}/api/standings{form}?game={game}")
        took = time.perf_counter() - begun
        spent = max(table.cpu() - used - idle_rate * took, 0.0) * 1000
        on_loop = max(loop_cpu(table) - looped - idle_loop_rate * took, 0.0) * 1000
        return spent, on_loop, said

    with sqlite3.connect(path) as db:
        [(newest,)] = db.execute("SELECT MAX(game_id) FROM league_games WHERE game = ?", (game,))

    def seated_anew(call: int) -> None:
        """Another player in the newest game: a game just ended, as the log sees it."""
        if newest is not None:
            with sqlite3.connect(path) as db:
                db.execute(
                    "INSERT OR REPLACE INTO seat_players (game_id, seat, player_id)"
                    " VALUES (?, 0, ?)",
                    (newest, 1 + call % PLAYERS_IN_CAFE),
                )

    spent: list[tuple[float, float]] = []
    with probing(table) as first_lates:
        first, _, said = asked("")
    begun = time.perf_counter()
    with probing(table) as lates:
        for call in range(CALLS):
            if call % 2 == 0:
                seated_anew(call)
            spent.append(asked("" if call % 2 == 0 else ".csv")[:2])
    with probing(table) as idle_lates:
        time.sleep(time.perf_counter() - begun)
    # the event loop's share, asked for alone: the probes' own CPU is the loop's too
    on_loop = []
    for call in range(CALLS):
        seated_anew(call)
        on_loop.append(asked("")[1])
    spent.sort()
    on_loop.sort()
    return {
        "first_standings_cpu_ms": round(first, 1),
        "standings_cpu_ms": round(spent[len(spent) // 2][0], 1),
        "standings_cpu_ms_p99": round(percentile(spent)[0], 1),
        "standings_loop_cpu_ms": round(on_loop[len(on_loop) // 2], 2),
        "standings_loop_cpu_ms_p99": round(percentile(on_loop), 2),
        "health_ms_p99": round(percentile(lates), 1),
        "health_ms_p99_first": round(percentile(first_lates), 1),
        "health_ms_p99_nothing_asked": round(percentile(idle_lates), 1),
        "rows": len(json.loads(said)["rows"]),
    }


def loop_cpu(table: Table) -> float:
    """The CPU seconds of the service's main thread, which runs its event loop, to the
    nanosecond (the scheduler's count: /proc's ticks are 10 ms, a call's whole share)."""
    pid = table.process.pid
    return int(Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()[0]) / 1e9


def percentile(ordered: list, share: float = 0.99):
    return ordered[min(int(len(ordered) * share), len(ordered) - 1)]


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
            "standings_loop_cpu_ms",
            "standings_loop_cpu_ms_p99",
            "health_ms_p99",
            "health_ms_p99_first",
            "health_ms_p99_nothing_asked",
        )
    }
    found |= {
        "budget_standings_cpu_ms": BUDGET_STANDINGS_CPU_MS,
        "budget_lag_ms": BUDGET_LAG_MS,
    }
    worst = found["worst"]
    print(
        f"standings at {GAMES:,} games: first {worst['first_standings_cpu_ms']} ms CPU,"
        f" p99 {worst['standings_cpu_ms_p99']} ms (budget {BUDGET_STANDINGS_CPU_MS}),"
        f" on the event loop median {worst['standings_loop_cpu_ms']},"
        f" p99 {worst['standings_loop_cpu_ms_p99']} ms; health p99"
        f" {worst['health_ms_p99']} ms while asked (budget {BUDGET_LAG_MS}),"
        f" {worst['health_ms_p99_first']} ms during the first,"
        f" {worst['health_ms_p99_nothing_asked']} ms with nothing asked; load average"
        f" {os.getloadavg()[0]:.1f}",
        file=sys.stderr,
    )
    print(json.dumps(found))


if __name__ == "__main__":
    main()
