"""A year of a café's history at one table: 1,000 and 10,000 ended games in the event
log, and what the table pays for them. Per size: the CPU the service spends on one
call of ``/api/games`` (its first page, as the history page asks; asked for alone)
and the part of it spent on the event loop's thread, how late the panel answers
health probes while a browser keeps asking for that list (asked for again), the
service's start-up (wall seconds to its first answer, and the CPU it took) and the
log's bytes per game. Prints one JSON line.

The games are real ones (played by ``simulate``), copied with their events and
spread over a year. The service is ``boardref serve --sim`` on that log, retention
off so nothing is pruned while it is measured. CPU is the service's own (/proc), with
its idle CPU over the same time taken off; the probes' lateness is wall time.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import checkout  # noqa: F401  (the tests' helpers, below)
from bench_service import cpu_seconds, median, settle
from smoke import sized

from boardref.sim.simulate import simulate
from tests.harness import free_port

SIZES = sized((1_000, 10_000), (20,))
#: services started per size (start-up and the list measured in each)
RUNS = sized(3, 1)
#: calls of /api/games measured per size
CALLS = sized(60, 5)
YEAR_S = 365 * 86400
#: the games copied: a few hundred moves of Catch the Hare and Sternhalma
SEED_PLAYS = (("catch_the_hare", sized(300, 40)), ("sternhalma", sized(200, 30)))
BUDGET_LIST_CPU_MS = 20.0
GOAL_LIST_CPU_MS = 5.0
BUDGET_LAG_MS = 20.0
GOAL_LAG_MS = 5.0


def seed_games(
    folder: Path, plays: tuple[tuple[str, int], ...] = SEED_PLAYS
) -> tuple[list[tuple], dict[int, list[tuple]]]:
    """Real games to copy: ``plays`` (each a game and how many moves of it), played
    by the simulated hands through the referee."""
    games: list[tuple] = []
    events: dict[int, list[tuple]] = {}
    for n, (game, moves) in enumerate(plays):
        # a log of its own each: simulate resumes a log's open game, whatever its kind
        seed = folder / f"seed-{n}.db"
        simulate(game, None, 1, 0.0, moves, seed, None, frozenset(), "hall", None)
        with sqlite3.connect(seed) as db:
            for gid, *rest in db.execute(
                "SELECT id, game, players, options, seed, commitment FROM games"
                " WHERE ended IS NOT NULL"
            ).fetchall():
                events[len(games)] = db.execute(
                    "SELECT kind, data FROM events WHERE game_id = ? ORDER BY id", (gid,)
                ).fetchall()
                games.append((len(games), *rest))
    shutil.copy(folder / "seed-0.db", folder / "seed.db")  # the schema build starts from
    return [g for g in games if len(events[g[0]]) > 1], events


def build(path: Path, n: int, games: list[tuple], events: dict[int, list[tuple]]) -> None:
    """``n`` ended games, the real ones over and over, one every ``YEAR_S / n`` seconds
    up to an hour ago, in a log the service then opens (and migrates) as its own."""
    shutil.copy(path.parent / "seed.db", path)
    first = time.time() - 3600 - YEAR_S
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM events")
        db.execute("DELETE FROM seat_claims")
        db.execute("DELETE FROM games")
        for number in range(n):
            gid, game, players, options, seed, commitment = games[number % len(games)]
            started = first + number * YEAR_S / n
            cursor = db.execute(
                "INSERT INTO games (game, players, options, seed, commitment, started, ended)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game, players, options, seed, commitment, started, started + 1800),
            )
            db.executemany(
                "INSERT INTO events (game_id, kind, data, at) VALUES (?, ?, ?, ?)",
                [(cursor.lastrowid, kind, data, started) for kind, data in events[gid]],
            )
    with sqlite3.connect(path) as db:
        db.execute("VACUUM")


def ask(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as reply:
        return reply.read()


class Table:
    """``boardref serve --sim`` on the log at ``path``, retention off, up and settled."""

    def __init__(self, folder: Path, path: Path):
        config = folder / "history.toml"
        config.write_text(f'[store]\npath = "{path}"\nkeep_days = 0\nkeep_games = 0\n')
        self.url = f"http://127.0.0.1:{free_port()}"
        begun = time.perf_counter()
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "boardref",
                "serve",
                "--sim",
                "--config",
                str(config),
                "--port",
                self.url.rsplit(":", 1)[1],
            ],
            env={**os.environ, "XDG_STATE_HOME": str(folder)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the service ended with {self.process.returncode}")
            try:
                ask(f"{self.url}/api/health")
                break
            except OSError:
                time.sleep(0.01)
        self.start_s = time.perf_counter() - begun
        self.start_cpu_s = cpu_seconds(self.process.pid)
        settle(self.process.pid)  # the first lookups indexed, the sim table still

    def cpu(self) -> float:
        return cpu_seconds(self.process.pid)

    def loop_cpu(self) -> float:
        """The CPU of the service's main thread, which runs its event loop: the time
        the loop was kept from anything else."""
        fields = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/stat").read_text()
        user, system = fields.rsplit(")", 1)[1].split()[11:13]
        return (int(user) + int(system)) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


def idle_rates(table: Table) -> tuple[float, float]:
    """The service's idle CPU, and its event loop's, in seconds a second."""
    idle_from, idle_cpu, idle_loop = time.perf_counter(), table.cpu(), table.loop_cpu()
    time.sleep(sized(2.0, 0.2))
    idle_s = time.perf_counter() - idle_from
    return (table.cpu() - idle_cpu) / idle_s, (table.loop_cpu() - idle_loop) / idle_s


@contextlib.contextmanager
def probing(table: Table) -> Iterator[list[float]]:
    """Health probes sent one after another while the block runs; yields the list
    of their lateness (ms), sorted once the block is done."""
    lates: list[float] = []
    asking = threading.Event()
    asking.set()

    def probe() -> None:
        while asking.is_set():
            sent = time.perf_counter()
            ask(f"{table.url}/api/health")
            lates.append((time.perf_counter() - sent) * 1000)

    prober = threading.Thread(target=probe)
    prober.start()
    try:
        yield lates
    finally:
        asking.clear()
        prober.join()
        lates.sort()


def measure(table: Table) -> dict:
    """The list's CPU per call, asked for alone (idle CPU over the same time taken
    off), and the health probes' p99 and worst lateness while it is asked for again:
    the probes' own CPU is never counted as the list's."""
    idle_rate, idle_loop_rate = idle_rates(table)
    begun, used, looped = time.perf_counter(), table.cpu(), table.loop_cpu()
    sizes = [len(ask(f"{table.url}/api/games")) for _ in range(CALLS)]
    took = time.perf_counter() - begun
    spent = table.cpu() - used - idle_rate * took
    on_loop = table.loop_cpu() - looped - idle_loop_rate * took
    with probing(table) as lates:
        for _ in range(CALLS):
            ask(f"{table.url}/api/games")
    return {
        "list_cpu_ms": round(max(spent, 0.0) / CALLS * 1000, 2),
        "list_loop_cpu_ms": round(max(on_loop, 0.0) / CALLS * 1000, 2),
        "list_bytes": sizes[0],
        "health_ms_p99": round(lates[int(len(lates) * 0.99)], 1),
        "health_ms_max": round(lates[-1], 1),
        "probes": len(lates),
    }


def main() -> None:
    found: dict = {"bench": "history"}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        games, events = seed_games(folder)
        for n in SIZES:
            path = folder / f"history-{n}.db"
            build(path, n, games, events)
            per_game = path.stat().st_size / n
            starts, rows = [], []
            for _ in range(RUNS):
                table = Table(folder, path)
                try:
                    starts.append((table.start_s, table.start_cpu_s))
                    rows.append(measure(table))
                finally:
                    table.stop()
            worst = max(rows, key=lambda row: row["list_cpu_ms"])
            found[f"games_{n}"] = {
                "bytes_per_game": round(per_game),
                "start_s": round(median([s for s, _ in starts]), 2),
                "start_cpu_s": round(median([c for _, c in starts]), 2),
                "list_cpu_ms_runs": [row["list_cpu_ms"] for row in rows],
                **{key: max(row[key] for row in rows) for key in worst if key != "probes"},
            }
    found |= {
        "budget_list_cpu_ms": BUDGET_LIST_CPU_MS,
        "goal_list_cpu_ms": GOAL_LIST_CPU_MS,
        "budget_lag_ms": BUDGET_LAG_MS,
        "goal_lag_ms": GOAL_LAG_MS,
    }
    print(json.dumps(found))


if __name__ == "__main__":
    main()
