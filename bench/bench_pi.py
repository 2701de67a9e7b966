"""The Pi budget: the whole service, `boardref serve`, and the table's kiosk browser
beside it (Chromium with the kiosk unit's flags, headless, on the table page;
``bench/kiosk_browser.py``), held together in one group to a Raspberry Pi 4 of 1 GB
(1 GB, and a quarter of this machine's core for the Pi's slower one), play a 6-player
Sternhalma game and a 5-player Hakenschlagen game, each to its end, on a hall-sensor
table as a café has one: the board's microcontroller is simulated in a process of its
own outside the group, as a Pico is beside the Pi (``python -m firmware_bridge.sim``,
the firmware's own device logic on a pseudo-terminal), the service reads it on that
serial device through the real link, and the hands put and lift the magnets through
the simulator's controls, as a person's hand does: no request reaches the service
for a piece (``bench/pi_hands.py``, ``Hall``). Then both again with the synthetic
camera over the board (``serve --sim --camera synthetic``: camera and hall sensors),
for each game that a camera reads: its rendered camera draws the virtual board of
``--sim``, so there the hands move the pieces through the panel's simulator (a
request a piece lifted or put down) and the simulated board is a thread of the
service; both count in that service's CPU, as they would not at a real table. Each
game's figures say which way its board was driven (``board``), and a hall table's
the CPU its simulated microcontroller took a move (``board_cpu_ms_per_move``, not
the Pi's). A Hakenschlagen turn is made a figure at a time, sometimes pausing
mid-turn long enough for the table to judge the half-made turn; the player confirms
the turn once the table holds one that reads as the turn made, and chooses it when
the table asks which of several that feel alike it was.

Before the first move the board stands still (``STILL_S``) and the CPU of the
service, the camera's stand-in and the kiosk is measured (% of a core). Reports per
game: the service's peak resident memory (VmHWM; with the synthetic camera, the
renderer that stands in for the camera runs in a child process and its peak is
reported beside, as a real camera adds nothing of the kind; once the service
answers, the renderer is taken out of the group), the CPU a move of the service's
event loop thread alone (``loop_cpu_ms_per_move``: the panel's requests and pushes),
with a camera its frames a move, those it read in full and the CPU of its reading
thread (``camera_*_per_move``: the reader, and the source: the rendered camera's
view and frame copy, which a real camera replaces by its driver or decoding), the
event loop's lag (a timer in the service, every 50 ms, notes how late it fires: p50,
p99, worst, from the first move, once the kiosk has loaded the page and the board
stood still), the states a page is sent a move (``pushes_per_move``, as the hands'
own page receives them: the kiosk draws each), the panel's answer time (a phone
asking for the table's health every ``PROBE_S``), board-link drops (reconnects), the
service's and the kiosk's CPU per move, the kiosk's peak memory of its own
(``kiosk_own_mb_peak``: the anonymous and shared-memory pages of all its processes,
PSS; the figure the budget judges) and its whole PSS beside (``kiosk_pss_mb_peak``,
most of it Chromium's code and fonts mapped from disk: clean pages the kernel drops
when memory runs short and reads again), the CPU quota's periods the group used up
(a cgroup holds every thread of the service and the kiosk still until the next
period: it shows as loop lag), and moves the table took as another than the hands
made (wrong commits). At the end of each game the service's resident memory is split
into file-backed (the code of the libraries it loaded) and its own (``rss_mb_end``,
``bench/memory_map.py``). Prints a line per game for people, then one JSON line.
A game that did not end (stuck, stopped at the move cap, a wrong commit or a service
that died) keeps its folder: the service's log (``service.log``), the table's record
and event log (``table.db``) and its config, in a folder of its own that outlives
the run (``kept``, also on the game's line: ``KEPT ...``); a table that stopped
taking moves adds what it showed then (``witness``): the state its pages were
pushed last, its position, the simulator's virtual board, its diagnostics and the
camera's last frame with the cell overlay.

The CPU quota is a quarter of a core given in short slices (2.5 ms in every 10 ms,
``CPU_PERIOD_US``): a Pi's slower core runs without pause, while the kernel's
default period (25 ms in 100) would stop the service and its kiosk together for up
to 75 ms at a time, a stall no Pi shows.

The limits are set by the best means the machine offers, and the
output says which held (``limits``; see ``bench/confine.py``): `systemd-run --scope
-p MemoryMax=... -p CPUQuota=...` where systemd runs the machine; else a cgroup of
its own written as root (v2 ``memory.max``/``cpu.max``, or v1
``memory.limit_in_bytes``/``cpu.cfs_quota_us`` where the v1 controllers are
mounted, as in many containers), which also reports the group's peak memory and
out-of-memory kills; else ``RLIMIT_AS`` and one CPU core (the kiosk then runs
unheld). The kiosk joins the service's groups before it runs. ``--limits`` picks a
way (auto, systemd, cgroup, rlimit, none). A service the memory limit kills is
reported as dead, with its group's peak.

The hands look at the table as its players look at the kiosk: they watch the state
every page is pushed on the panel's WebSocket (the phase, the move count, what the
table holds), and ask the panel only for the position: once a move (what the table
took) and once a draw (what was drawn). A request costs the service a few
milliseconds of CPU on its event loop, so hands that asked for the whole state twenty
times a second, beside a health probe as often, would spend a third and more of the
quarter core themselves and show it as the table's loop lag.

Every game is played to its end: the hands mostly make the move that takes their own
pieces furthest, as people playing to win do (``aimed``). Options: ``--smoke`` (a move a
game: does it still run?), ``--no-camera``, ``--no-kiosk`` (the service alone);
``--full`` plays the same; ``--table hakenschlagen_5p_camera`` (again for more)
plays only the tables named.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import checkout  # noqa: F401  (the tests' helpers, below)
import httpx
from confine import WAYS, confine
from kiosk_browser import Kiosk
from memory_map import by_library, totals
from pi_hands import SETTLE_MS, WAIT, Hall, Hands, cpu_seconds
from smoke import SMOKE, sized

from boardref.outputs.panel.access import hash_pin
from boardref.runtime.kiosk import kiosk_url
from boardref.runtime.loop_lag import percentile
from engines import PASS, load_game
from engines.players.knowledge import knowledge_of
from tests.harness import free_port

#: the games played: the biggest of each, as a café plays them
GAMES = (("sternhalma", 6), ("hakenschlagen", 5))
#: moves a game may last: every game is played to its end (the hands aim, below: six
#: players' Sternhalma ends in about 230-300 moves, five players' Hakenschlagen in
#: 25-40 turns); a game still going at the cap counts as stopped
MOVES = {"sternhalma": sized(600, 1), "hakenschlagen": sized(150, 1)}
#: how often the hands make the move that takes their own pieces furthest (else any
#: legal move): people play to win, with a slip now and then, so games end
AIM = 0.8
SEED = 21
PIN = "2121"
#: a Pi 4 with 1 GB, the service and its kiosk browser held together: a quarter of
#: this machine's core stands for a Pi's core, which is about 4x slower
MEMORY_MAX = "1G"
#: (the smoke run, which judges nothing, is given a whole core to stay quick)
CPU_QUOTA = sized(25, 100)
#: the quota's period: a Pi's slower core runs all the time, only slower, so the
#: quarter is given in short slices (2.5 ms in every 10), not 25 ms in 100, which
#: would stop service and kiosk together for 75 ms at a time, as no Pi does
CPU_PERIOD_US = 10_000
BUDGET_RSS_MB = 150.0
BUDGET_LOOP_LAG_MS_P99 = 50.0
BUDGET_LOOP_LAG_MS_MAX = 200.0
BUDGET_KIOSK_CPU_MS_PER_MOVE = 20.0
#: the kiosk's own memory (anonymous and shared-memory pages, PSS)
BUDGET_KIOSK_OWN_MB = 250.0
#: how long the board stands still, the kiosk showing it, while the service's CPU
#: (and its camera's) is measured
STILL_S = sized(20.0, 2.0, quick=10.0)
#: how long the kiosk may take to open the table page and fall quiet
KIOSK_OPENS_S = 30.0
#: the kiosk counts as quiet once it takes less than this share of a core for a second
KIOSK_QUIET = 0.02
BUDGET_LINK_DROPS = 0
#: how often the service's lag timer fires while it plays
LAG_EVERY_MS = 50
#: how often the health probe asks: a phone now and then (no page of the table asks
#: for its health; a probe four times a second was half the requests the service
#: answered a Hakenschlagen move, CPU a real table never spends), still hundreds of
#: answers a whole game
PROBE_S = 1.0
#: how often the hands look at the table's setup before the game starts
LOOK_S = 0.05
#: file-backed libraries named in a game's memory at its end
LIBRARIES_SHOWN = 5
#: the service's own log (its standard error), in the game's folder
SERVICE_LOG = "service.log"
#: where a game that did not end keeps its folder (a new folder under the system's
#: temporary folder, named after the table)
KEPT_PREFIX = "bench-pi-"


def children_of(pid: int) -> list[int]:
    """The child processes of ``pid``, whichever of its threads started them (the
    service starts its camera's renderer in a worker thread)."""
    found = []
    for children in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            found += [int(c) for c in children.read_text().split()]
    return found


def is_service(pid: int) -> bool:
    command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    return b"boardref" in command and b"serve" in command


def service_pid(root: int) -> int:
    """The Python process of the service: ``root`` itself, or its child under a
    launcher (systemd-run)."""
    if is_service(root):
        return root
    return next((pid for pid in children_of(root) if is_service(pid)), root)


def camera_pid(service: int, wait: float) -> int | None:
    """The synthetic camera's renderer, a child of the service (``--camera synthetic``),
    waiting up to ``wait`` seconds for it: the service answers before its camera has
    opened."""
    deadline = time.monotonic() + wait
    while True:
        for pid in children_of(service):
            if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.02)


def proc_status(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def memory_split(pid: int) -> dict:
    """The service's resident memory at the end of its game: file-backed (the code of
    the libraries it loaded) and its own, and the libraries that take the most."""
    rows = by_library(pid)
    largest = sorted(rows.items(), key=lambda kv: -kv[1]["file"])[:LIBRARIES_SHOWN]
    whole = {part: round(mb, 1) for part, mb in totals(rows).items()}
    return {**whole, "largest_libraries_file": {name: round(r["file"], 1) for name, r in largest}}


class Probe(threading.Thread):
    """Asks the panel for its health every ``PROBE_S`` and keeps the answer times."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        self.url, self.times, self.done = url, [], threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=WAIT) as client:
            while not self.done.wait(PROBE_S):
                start = time.perf_counter()
                client.get("/api/health")
                self.times.append((time.perf_counter() - start) * 1000)


def start(config: Path, folder: Path, way: str, sim: bool = True):
    """``serve --sim`` (or, ``sim`` false, ``serve`` on the board its config names) with
    ``config``, held to the Pi's limits by ``way``; returns the process and its
    ``Confinement``."""
    serve = [sys.executable, "-m", "boardref", "serve", "--config", str(config)]
    held = confine(
        serve + (["--sim"] if sim else []),
        MEMORY_MAX,
        CPU_QUOTA,
        way,
        CPU_PERIOD_US,
    )
    env = {**os.environ, "XDG_STATE_HOME": str(folder), "XDG_CONFIG_HOME": str(folder)}
    # its log goes to a file: a pipe nobody reads until the end fills and stops the service
    with open(folder / SERVICE_LOG, "wb") as log:
        service = subprocess.Popen(
            held.command,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log,
            preexec_fn=held.preexec,
        )
    return service, held


def stop(service: subprocess.Popen) -> None:
    service.send_signal(signal.SIGTERM)
    try:
        service.wait(WAIT)
    except subprocess.TimeoutExpired:
        service.kill()
        service.wait(WAIT)


def ready(client: httpx.Client, service: subprocess.Popen, folder: Path) -> None:
    deadline = time.monotonic() + WAIT
    while True:
        try:
            if client.get("/api/health").status_code == 200:
                return
        except httpx.TransportError:
            pass
        if service.poll() is not None or time.monotonic() > deadline:
            service.kill()
            why = (folder / SERVICE_LOG).read_bytes()[-2000:].decode(errors="replace")
            raise RuntimeError(f"the service did not start (exit {service.returncode}): {why}")
        time.sleep(0.05)


def quiet(kiosk: Kiosk) -> None:
    """Wait until the kiosk has opened the table page and stopped drawing."""
    deadline, before = time.monotonic() + KIOSK_OPENS_S, kiosk.cpu_seconds()
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = kiosk.cpu_seconds()
        if now - before < KIOSK_QUIET:
            return
        before = now


def still(hands: Hands, pid: int, renderer: int | None, kiosk: Kiosk | None) -> dict:
    """CPU (% of a core) of the service, its camera's stand-in and the kiosk while the
    board stands still at the start of the game, once the table has taken it."""
    deadline = time.monotonic() + WAIT
    while hands.shown()["phase"] == "setup" and time.monotonic() < deadline:
        time.sleep(LOOK_S)
    busy = {"service": lambda: cpu_seconds(pid)}
    if renderer is not None:
        busy["camera_renderer"] = lambda: cpu_seconds(renderer)
    if kiosk is not None:
        busy["kiosk"] = kiosk.cpu_seconds
    before = {who: cpu() for who, cpu in busy.items()}
    time.sleep(STILL_S)
    return {
        f"still_{who}_cpu_percent": round((cpu() - before[who]) / STILL_S * 100, 2)
        for who, cpu in busy.items()
    }


def table_config(config: Path, game, port: int, camera: bool, board: Hall | None) -> None:
    """The table's config: its game, log, sensors (the synthetic camera, or the hall
    board ``board``), panel and loop-lag timer."""
    config.write_text(
        f'[game]\nname = "{game.name}"\nplayers = {game.players}\n'
        f'[store]\npath = "{config.parent / "table.db"}"\n'
        f"[sensors]\nsettle_ms = {SETTLE_MS}\n"
        + ('[camera]\nsource = "synthetic"\n' if camera else "")
        + (
            f'[sensors.hall]\ndevice = "{board.device}"\nwiring_dir = "{config.parent}"\n'
            if board
            else ""
        )
        + f'[panel]\nport = {port}\nreferee_pin_hash = "{hash_pin(PIN)}"\n'
        f"[diagnostics]\nloop_lag_every_ms = {LAG_EVERY_MS}\n"
    )


def play(name: str, players: int, camera: bool, folder: Path, way: str, with_kiosk: bool) -> dict:
    """One game on a held service, its kiosk beside it in the same groups: moves
    played and the figures the budget names. A service that dies (the memory limit's
    out-of-memory kill) is reported, not raised."""
    port, table = free_port(), _name(name, players, camera)
    folder = folder / table
    folder.mkdir()
    config, game = folder / "config.toml", load_game(name, players)
    # a hall table's board is its own process, as a Pico is; a camera table's rendered
    # camera draws the virtual board of ``serve --sim``, moved through the panel
    board = None if camera else Hall(folder / "pico", [c.id for c in game.board.cells])
    table_config(config, game, port, camera, board)
    service, held = start(config, folder, way, sim=board is None)
    url, started = f"http://127.0.0.1:{port}", time.monotonic()
    probe, found = Probe(url), {"moves": 0, "died": None}
    client = httpx.Client(base_url=url, timeout=WAIT)
    kiosks = contextlib.ExitStack()
    try:
        ready(client, service, folder)
        client.post("/api/referee/login", json={"pin": PIN}).raise_for_status()
        hands = kiosks.enter_context(Hands(client, game, "camera" if camera else "presence", board))
        pid = service_pid(service.pid)
        renderer = camera_pid(pid, WAIT if camera else 0.0)
        if renderer is not None:  # a stand-in for a camera, not part of the service
            held.release(renderer)
        kiosk = None
        if with_kiosk:
            # the page the kiosk's unit opens, at the address the service leaves it
            kiosk = kiosks.enter_context(Kiosk(kiosk_url(("127.0.0.1", port)), held.beside(pid)))
            quiet(kiosk)
        found.update(still(hands, pid, renderer, kiosk))
        # the lag is the game's: from its first move, the kiosk loaded
        found["diagnostics_before"] = client.get("/api/diagnostics").json()
        lag_from = found["diagnostics_before"]["loop_lag"]["taken"]
        probe.start()
        cpu, loop_cpu, kiosk_cpu, pushed = (
            cpu_seconds(pid),
            cpu_seconds(pid, pid),
            kiosk.cpu_seconds() if kiosk else 0.0,
            hands.watch.received,
        )
        found["moves"] = play_moves(hands, MOVES[name], random.Random(SEED))
        moves = max(found["moves"], 1)
        found.update(stuck=hands.stuck, wrong_commits=hands.wrong_commits)
        witness(client, hands, folder)
        found.update(
            cpu_ms_per_move=round((cpu_seconds(pid) - cpu) / moves * 1000, 1),
            loop_cpu_ms_per_move=round((cpu_seconds(pid, pid) - loop_cpu) / moves * 1000, 1),
            pushes_per_move=round((hands.watch.received - pushed) / moves, 1),
        )
        found.update(hands.board.figures(moves))
        if kiosk is not None:
            found["kiosk_cpu_ms_per_move"] = round(
                (kiosk.cpu_seconds() - kiosk_cpu) / moves * 1000, 1
            )
            found["kiosk_pss_mb_peak"] = round(max(kiosk.pss_mb_peak, kiosk.pss_mb()), 1)
            found["kiosk_own_mb_peak"] = round(max(kiosk.own_mb_peak, kiosk.own_mb()), 1)
            found["kiosk_processes"] = kiosk.processes()
        found["diagnostics"] = client.get("/api/diagnostics", params={"lag_after": lag_from}).json()
        found["rss_mb_peak"] = round(proc_status(pid, "VmHWM"), 1)
        found["rss_mb_end"] = memory_split(pid)
        if renderer is not None:  # what a real camera would not add to the service
            found["camera_renderer_rss_mb_peak"] = round(proc_status(renderer, "VmHWM"), 1)
    except (RuntimeError, TimeoutError, httpx.HTTPError) as exc:
        if service.poll() is None:
            raise
        found["died"] = f"the service ended (exit {service.returncode}): {exc}"[:500]
    finally:
        probe.done.set()
        client.close()
        kiosks.close()  # before the service: its groups are removed once both left
        stop(service)
        found["limits"] = held.figures()
        held.close()
        if board is not None:
            board.close()
    found.update(
        minutes=round((time.monotonic() - started) / 60, 2),
        kept=None if ended(found) else keep(folder, table),
    )
    return _figures(found, probe.times)


def witness(client: httpx.Client, hands: Hands, folder: Path) -> None:
    """What the table showed if it stopped taking moves, into ``folder``: the state
    pushed last (its message and the cells it marks), the position it holds, the
    simulator's virtual board (what the hands' pieces are), its diagnostics and the
    camera's last frame. Whatever it cannot give is left out."""
    if not hands.stuck:
        return
    (folder / "shown.json").write_text(json.dumps(hands.shown(), indent=1))
    asked = {
        "position.json": "/api/position",
        "virtual.json": "/api/sim/virtual",
        "diagnostics.json": "/api/diagnostics",
        "camera.png": "/api/camera.png",
    }
    for name, path in asked.items():
        answer = client.get(path)
        if answer.status_code == 200:
            (folder / name).write_bytes(answer.content)


def ended(found: dict) -> bool:
    """Whether the game was played to its end as the hands made it."""
    return found["died"] is None and not found.get("stuck") and not found.get("wrong_commits")


def keep(folder: Path, table: str) -> str:
    """Copy the game's folder (the service's log, the table's record and event log)
    where it outlives the run; returns where."""
    kept = Path(tempfile.mkdtemp(prefix=f"{KEPT_PREFIX}{table}-"))
    # the hall board's device is a link to a pseudo-terminal gone with its simulator
    shutil.copytree(folder, kept, symlinks=True, dirs_exist_ok=True)
    return str(kept)


def camera_work(before: dict, after: dict, moves: int) -> dict:
    """The camera's work a move, from the diagnostics before and after the game: the
    frames taken and read in full, and the CPU of its thread in the source (the
    rendered camera's view and frame copy; a real camera's decoding) and the reader."""
    if before.get("camera_work") is None or after.get("camera_work") is None:
        return {}
    spent = {k: after["camera_work"][k] - before["camera_work"][k] for k in after["camera_work"]}
    return {
        "camera_frames_per_move": round(spent["frames"] / max(moves, 1), 1),
        "camera_full_reads_per_move": round(spent["full_reads"] / max(moves, 1), 2),
        "camera_source_cpu_ms_per_move": round(spent["source_cpu_ms"] / max(moves, 1), 1),
        "camera_reader_cpu_ms_per_move": round(spent["reader_cpu_ms"] / max(moves, 1), 1),
    }


def aimed(game, state, pick: random.Random):
    """The move a player makes: mostly (``AIM``) the one that takes the mover's pieces
    furthest towards its goal (the computer player's own measure of a game's race),
    else any legal move."""
    moves = game.legal_moves(state)
    if len(moves) == 1 or pick.random() >= AIM:
        return pick.choice(moves)
    knowledge, mover = knowledge_of(game), game.to_move(state)

    def worth(move) -> float:  # the game's own cheap guess where it has one
        if knowledge.order is not None:
            return knowledge.order(game, state, move)
        return knowledge.advantage(game, game.apply(state, move))[mover]

    return max(moves, key=lambda move: (worth(move), pick.random()))


def play_moves(hands: Hands, moves: int, pick: random.Random) -> int:
    """Moves carried out by hand (``aimed``) until the game ended or ``moves`` were
    taken (then the hands say the game was stopped); returns how many were taken."""
    game, client, played, deadline = hands.game, hands.client, 0, time.monotonic() + WAIT
    state = None  # the position the table holds, read once a move
    drawn = None  # the push before the last draw: the players see the draw once it is shown
    while played < moves:
        shown, drawn = hands.shown(drawn), None
        if shown["phase"] == "over":
            return played
        if shown["phase"] == "setup":  # the table checks the start position
            if time.monotonic() > deadline:
                raise TimeoutError("the table never saw the start position")
            time.sleep(LOOK_S)
            continue
        state = state or hands.state()
        if game.chance(state) is not None:
            drawn = hands.watch.newest["seq"]
            client.post("/api/draw", json={}).raise_for_status()
            state = None
            continue
        move = aimed(game, state, pick)
        hands.carry_out(state, move, pick)
        after = game.apply(state, move)
        try:
            hands.until_taken(state, after, shown)
        except TimeoutError as exc:  # the table is stuck: said in the figures, not a crash
            hands.stuck = f"after {played} moves, making {move}: {exc}"
            break
        while game.outcome(after) is None and game.legal_moves(after) == [PASS]:
            after = game.apply(after, PASS)  # passes the table takes by itself
        state = hands.state()
        if state != after:  # the table took another move than the hands made
            hands.wrong_commits += 1
        played += 1
    if not SMOKE and hands.stuck is None and hands.shown()["phase"] != "over":
        hands.stuck = f"not over after {played} moves"
    return played


def _figures(found: dict, answers: list[float]) -> dict:
    """The JSON of one game's run."""
    diagnostics = found.pop("diagnostics", {})
    found.update(camera_work(found.pop("diagnostics_before", {}), diagnostics, found["moves"]))
    lag = diagnostics.get("loop_lag") or {}
    mcu = diagnostics.get("mcu", {})
    return {
        **found,
        "rss_mb_peak": found.get("rss_mb_peak", found["limits"].get("group_peak_mb")),
        "loop_lag_ms_p50": lag.get("p50_ms"),
        "loop_lag_ms_p99": lag.get("p99_ms"),
        "loop_lag_ms_max": lag.get("max_ms"),
        "panel_answer_ms_p99": round(percentile(answers, 0.99), 2) if answers else None,
        "link_drops": mcu.get("reconnects"),
        "link_counters": mcu,
    }


def within(table: dict) -> bool:
    return (
        table["died"] is None
        and table.get("stuck") is None
        and table.get("wrong_commits", 0) == 0
        and table["rss_mb_peak"] <= BUDGET_RSS_MB
        and (table["loop_lag_ms_p99"] or 0.0) <= BUDGET_LOOP_LAG_MS_P99
        and (table["loop_lag_ms_max"] or 0.0) <= BUDGET_LOOP_LAG_MS_MAX
        and table.get("kiosk_cpu_ms_per_move", 0.0) <= BUDGET_KIOSK_CPU_MS_PER_MOVE
        and table.get("kiosk_own_mb_peak", 0.0) <= BUDGET_KIOSK_OWN_MB
        and table["link_drops"] <= BUDGET_LINK_DROPS
        and table["limits"].get("oom_kills", 0) == 0
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="a move a game: does it run?")
    parser.add_argument("--limits", choices=WAYS, default="auto", help="how to hold the service")
    parser.add_argument("--full", action="store_true", help="the same: every game is whole")
    parser.add_argument("--no-camera", action="store_true", help="hall sensors only")
    parser.add_argument("--no-kiosk", action="store_true", help="the service alone")
    parser.add_argument(
        "--table", action="append", help="play only this table (hakenschlagen_5p_camera...)"
    )
    options = parser.parse_args()
    tables = [
        (name, players, camera)
        for name, players in GAMES
        for camera in (False, True)
        if not camera or (not options.no_camera and "camera" in load_game(name).SENSORS)
    ]
    if options.table:
        tables = [t for t in tables if _name(*t) in options.table]
    if SMOKE:  # every path once: the first game on hall sensors, the last with a camera
        # (once each: with one --table the first and the last are the same)
        tables = list(dict.fromkeys([tables[0], *[t for t in tables if t[0] == GAMES[-1][0]][-1:]]))
    with tempfile.TemporaryDirectory() as scratch:
        games = {}
        for name, players, camera in tables:
            table = _name(name, players, camera)
            games[table] = play(
                name, players, camera, Path(scratch), options.limits, not options.no_kiosk
            )
            print(_line(table, games[table]), file=sys.stderr)
    result = {
        "bench": "pi",
        "games": games,
        "memory_max": MEMORY_MAX,
        "cpu_quota_percent": CPU_QUOTA,
        "cpu_period_ms": CPU_PERIOD_US / 1000,
        "budget_rss_mb": BUDGET_RSS_MB,
        "budget_loop_lag_ms_p99": BUDGET_LOOP_LAG_MS_P99,
        "budget_loop_lag_ms_max": BUDGET_LOOP_LAG_MS_MAX,
        "budget_kiosk_cpu_ms_per_move": BUDGET_KIOSK_CPU_MS_PER_MOVE,
        "budget_kiosk_own_mb": BUDGET_KIOSK_OWN_MB,
        "budget_link_drops": BUDGET_LINK_DROPS,
    }
    result["within_budget"] = not SMOKE and all(within(t) for t in games.values())
    print(json.dumps(result))


def _name(name: str, players: int, camera: bool) -> str:
    """A table's name in the figures (and for ``--table``)."""
    return f"{name}_{players}p" + ("_camera" if camera else "")


def _line(table: str, found: dict) -> str:
    """One table's figures for people."""
    limits = found["limits"]
    held = ", ".join(limits["applied"]) if limits["applied"] else "unlimited"
    if found["died"] is not None:
        return (
            f"{table:28} {found['died']} [{limits['how']}: {held}] {limits}  KEPT {found['kept']}"
        )
    return (
        f"{table:28} {found['moves']:4} moves  peak {found['rss_mb_peak']:6.1f} MB "
        f"(budget {BUDGET_RSS_MB:.0f})  loop lag p99 {found['loop_lag_ms_p99']} ms "
        f"(budget {BUDGET_LOOP_LAG_MS_P99:.0f})  link drops {found['link_drops']}  "
        f"{found['cpu_ms_per_move']} ms CPU a move  loop lag worst {found['loop_lag_ms_max']} ms"
        + (
            f"  kiosk {found['kiosk_cpu_ms_per_move']} ms CPU a move,"
            f" {found['kiosk_own_mb_peak']} MB its own ({found['kiosk_pss_mb_peak']} MB PSS)"
            if "kiosk_cpu_ms_per_move" in found
            else ""
        )
        + (
            f"  camera {found['camera_frames_per_move']} frames,"
            f" {found['camera_full_reads_per_move']} read in full a move, CPU"
            f" {found['camera_reader_cpu_ms_per_move']} ms reading,"
            f" {found['camera_source_cpu_ms_per_move']} ms taking"
            if "camera_frames_per_move" in found
            else ""
        )
        + f"  loop thread {found['loop_cpu_ms_per_move']} ms CPU a move"
        + f"  still board: service {found.get('still_service_cpu_percent')} % of a core"
        + f"  [{limits['how']}: {held}]  board: {found.get('board')}"
        + (
            f"  quota used up in {limits['cpu_periods_throttled']} of {limits['cpu_periods']}"
            " periods"
            if "cpu_periods" in limits
            else ""
        )
        + (f"  STUCK {found['stuck']}" if found.get("stuck") else "")
        + (f"  WRONG COMMITS {found['wrong_commits']}" if found.get("wrong_commits") else "")
        + (f"  KEPT {found['kept']}" if found.get("kept") else "")
    )


if __name__ == "__main__":
    main()
