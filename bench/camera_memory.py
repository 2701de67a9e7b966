"""Where a camera table's memory goes over a game: ``serve --sim`` with the synthetic
camera plays one game (a 5-player Hakenschlagen unless told), its chance draws from a
fixed seed, the hands' choices from ``bench_pi``'s seed, so two runs make the same
moves; after each move the service's resident memory is noted: VmRSS and VmHWM, its
anonymous and file-backed parts (``smaps_rollup``), and the C allocator's own count
(``mallinfo2``: in use, free inside the arenas, in blocks of their own), asked for
by a signal the service answers in a helper loaded only here. No kiosk and no limits:
the figures are the service's alone.

``python bench/camera_memory.py [--game NAME --players N] [--env KEY=VALUE ...]``
prints a line per move and, at the end, one JSON line (with each move's figures and
the position the table held, to index it again elsewhere). ``--env`` sets a variable
for the service only (``MALLOC_ARENA_MAX=1``; ``CAMERA_MEMORY_INDEX_BYTES=N`` gives
the referee's indexes another budget), so that a setting can be compared with the
same moves. ``--trace-from N`` has the service trace Python's allocations from move
``N`` on (``tracemalloc``: only what is allocated from then, so it stays quick) and
lists the lines that hold the most after each move.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import bench_pi
import httpx

from boardref.outputs.panel.access import hash_pin
from engines import load_game
from tests.harness import free_port

#: loaded by the service through ``PYTHONPATH`` (this bench's only): the chance draws
#: from a fixed seed, and the allocator's count written to a file on SIGUSR2
HELPER = textwrap.dedent(
    """
    import ctypes, json, os, re, signal, sys, tempfile, threading

    import engines.chance

    engines.chance.new_seed = lambda: b"camera-memory".ljust(32, b"-")
    if os.environ.get("CAMERA_MEMORY_INDEX_BYTES"):  # a budget to try
        import boardref.referee.match
        boardref.referee.match.INDEX_BYTES = int(os.environ["CAMERA_MEMORY_INDEX_BYTES"])

    class _Info(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
            "uordblks", "fordblks", "keepcost")]

    def _tell(*_):
        libc = ctypes.CDLL(None)
        libc.mallinfo2.restype = _Info
        info = libc.mallinfo2()
        found = {name: getattr(info, name) for name, _ in _Info._fields_}
        found["threads"] = threading.active_count()
        with tempfile.TemporaryFile("w+") as stats:  # pymalloc's own count, on fd 2
            saved = os.dup(2)
            os.dup2(stats.fileno(), 2)
            try:
                sys._debugmallocstats()
            finally:
                os.dup2(saved, 2)
                os.close(saved)
            stats.seek(0)
            text = stats.read()
        for key, pattern in (("py_arenas", "# arenas allocated current"),
                             ("py_used", "# bytes in allocated blocks"),
                             ("py_free", "# bytes in available blocks")):
            seen = re.search(pattern + r" *= *([0-9,]+)", text)  # none without pymalloc
            found[key] = int(seen[1].replace(",", "")) if seen else 0
        import tracemalloc
        if tracemalloc.is_tracing():  # PYTHONTRACEMALLOC set: what grew since the last
            group = os.environ.get("CAMERA_MEMORY_GROUP", "lineno")
            found["traced"] = [str(s) for s in tracemalloc.take_snapshot().statistics(group)[:25]]
            found["traced_now"], found["traced_peak"] = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
        path = os.environ["CAMERA_MEMORY_OUT"]
        with open(path + ".part", "w") as out:
            json.dump(found, out)
        os.replace(path + ".part", path)

    signal.signal(signal.SIGUSR2, _tell)
    # tracing from a move on: only what is allocated from then on is traced
    signal.signal(signal.SIGUSR1, lambda *_: __import__("tracemalloc").start())
    """
)
MB = 1024 * 1024


def status(pid: int) -> dict[str, float]:
    """VmRSS, VmHWM (MB) and the anonymous and file-backed resident MB."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem"):
            found[key] = int(value.split()[0]) / 1024
    return found


def allocator(pid: int, out: Path) -> dict:
    """The service's ``mallinfo2`` (MB) and thread count, asked for by SIGUSR2."""
    out.unlink(missing_ok=True)
    os.kill(pid, signal.SIGUSR2)
    deadline = time.monotonic() + 5
    while not out.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    if not out.exists():
        return {}
    info = json.loads(out.read_text())
    return {
        "in_use": (info["uordblks"] + info["hblkhd"]) / MB,
        "free_in_arenas": info["fordblks"] / MB,
        "arenas": info["arena"] / MB,
        "own_blocks": info["hblkhd"] / MB,
        "threads": info["threads"],
        **{key: info[key] for key in ("traced", "traced_now", "traced_peak") if key in info},
        "py_arenas": info["py_arenas"],
        "py_used": info["py_used"] / MB,
        "py_free": info["py_free"] / MB,
    }


class Sampler(threading.Thread):
    """The service's VmRSS every 50 ms: the highest seen, and when."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.done, self.highest = pid, threading.Event(), 0.0

    def run(self) -> None:
        while not self.done.wait(0.05):
            try:
                self.highest = max(self.highest, status(self.pid)["VmRSS"])
            except (OSError, KeyError):
                return


class Notes:
    """The service's memory noted after each move (``note``), printed as it goes."""

    def __init__(self, pid: int, client: httpx.Client, out: Path, trace_from: int | None):
        self.pid, self.client, self.out, self.trace_from = pid, client, out, trace_from
        self.rows: list[dict] = []
        self.sampler = Sampler(pid)
        self.sampler.start()

    def note(self, move: int) -> None:
        row = {"move": move, **status(self.pid), **allocator(self.pid, self.out)}
        row["rss_peak_since"], self.sampler.highest = self.sampler.highest, 0.0
        # the position, to index it again in a process of its own
        row["position"] = self.client.get("/api/position").json()["record"]
        self.rows.append(row)
        if move == self.trace_from:
            os.kill(self.pid, signal.SIGUSR1)
        shown = (
            f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}"
            for k, v in row.items()
            if k not in ("position", "traced")
        )
        print(" ".join(shown), file=sys.stderr, flush=True)


def start(folder: Path, name: str, players: int, settings: list[str]):
    """``serve --sim`` with the synthetic camera and the helper; returns the process
    and its port."""
    (folder / "sitecustomize.py").write_text(HELPER)
    port = free_port()
    config = folder / "config.toml"
    config.write_text(
        f'[game]\nname = "{name}"\nplayers = {players}\n'
        f'[store]\npath = "{folder / "table.db"}"\n'
        f"[sensors]\nsettle_ms = {bench_pi.SETTLE_MS}\n"
        '[camera]\nsource = "synthetic"\n'
        f'[panel]\nport = {port}\nreferee_pin_hash = "{hash_pin(bench_pi.PIN)}"\n'
    )
    env = {
        **os.environ,
        "XDG_STATE_HOME": str(folder),
        "XDG_CONFIG_HOME": str(folder),
        "PYTHONPATH": os.pathsep.join([str(folder), bench_pi.checkout.ROOT]),
        "CAMERA_MEMORY_OUT": str(folder / "allocator.json"),
    }
    env.update(setting.split("=", 1) for setting in settings)
    command = [sys.executable, "-m", "boardref", "serve", "--sim", "--config", str(config)]
    with open(folder / "service.log", "wb") as log:
        return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=log), port


def play(options, folder: Path) -> dict:
    """One game from its start position, the memory noted after each move."""
    service, port = start(folder, options.game, options.players, options.env)
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=bench_pi.WAIT)
    try:
        bench_pi.ready(client, service, folder)
        client.post("/api/referee/login", json={"pin": bench_pi.PIN}).raise_for_status()
        game = load_game(options.game, options.players)
        with bench_pi.Hands(client, game, "camera") as hands:
            bench_pi.camera_pid(service.pid, bench_pi.WAIT)
            deadline = time.monotonic() + bench_pi.WAIT
            while hands.shown()["phase"] == "setup" and time.monotonic() < deadline:
                time.sleep(bench_pi.LOOK_S)
            time.sleep(2.0)
            notes = Notes(service.pid, client, folder / "allocator.json", options.trace_from)
            notes.note(0)
            taken = hands.until_taken

            def until_taken(*args) -> None:
                taken(*args)
                notes.note(len(notes.rows))

            hands.until_taken = until_taken
            moves = bench_pi.play_moves(hands, options.moves, random.Random(bench_pi.SEED))
            notes.sampler.done.set()
            time.sleep(1.0)
            notes.note(moves + 1)
            return {"moves": moves, "stuck": hands.stuck, "rows": notes.rows}
    finally:
        client.close()
        service.send_signal(signal.SIGTERM)
        service.wait(bench_pi.WAIT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="hakenschlagen")
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--moves", type=int, default=150)
    parser.add_argument("--trace-from", type=int, help="trace Python's allocations from move N")
    parser.add_argument("--env", action="append", default=[], help="KEY=VALUE for the service")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        found = play(options, Path(scratch))
    first, last = found["rows"][0], found["rows"][-1]
    summary = {
        "game": f"{options.game}_{options.players}p_camera",
        "env": options.env,
        "moves": found["moves"],
        "stuck": found["stuck"],
        "rss_mb_start": round(first["VmRSS"], 1),
        "rss_mb_end": round(last["VmRSS"], 1),
        "rss_mb_peak": round(last["VmHWM"], 1),
        "anon_mb_start": round(first["RssAnon"], 1),
        "anon_mb_end": round(last["RssAnon"], 1),
        "in_use_mb_start": round(first.get("in_use", 0), 1),
        "in_use_mb_end": round(last.get("in_use", 0), 1),
        "free_in_arenas_mb_end": round(last.get("free_in_arenas", 0), 1),
    }
    print(json.dumps({**summary, "rows": found["rows"]}))


if __name__ == "__main__":
    main()
