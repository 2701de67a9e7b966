"""The café fleet at café and head-office scale, on a mosquitto of our own (loopback).

N simulated tables report to the broker, each through the project's own ``Reporter``
and ``Store`` (its SQLite outbox, each event acknowledged before the next leaves);
the real ``boardref fleet`` watches them in a process of its own, and a WebSocket
client stands for a page. Every table makes a move every 5 to 10 seconds, replaying
the events and states a served table sent for a real game of catch_the_hare.
Printed per N, one JSON line each: move → page p50/p99, the dashboard's CPU (% of
one core) and RSS, the broker's CPU, and the bytes the broker received per table per
minute, beside the budgets. At the largest N one page in Debian's Chromium is
measured too: what it receives per second, and its frames per second beside an
empty page's on the same machine at the same moment. A first line gives one
table's events per second through its outbox.

A served table runs three threads (network loop, sender, event-log flusher); 2,000
of them would be 6,000 threads, more than two cores can wake. So the simulated
tables run in processes of TABLES_PER_PROCESS, each with one network thread for all
its tables and SENDERS threads doing their reporters' sending; the reporters, event
logs and outboxes are each table's own.

By default the sizes with a budget (500 and 2,000 tables), 20 s measured each;
``--full`` adds 100 tables and measures 30 s. Run ``--smoke`` for a few tables for a
few seconds (no budgets judged), ``--tables 100,500`` for other sizes. The machine's
load (``uptime``) is printed beside the figures: on a shared machine the simulated
tables compete with the dashboard.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import heapq
import json
import logging
import multiprocessing
import os
import queue
import random
import resource
import selectors
import socket
import tempfile
import threading
import time
from pathlib import Path

import checkout  # noqa: F401  (the tests' helpers, below)
import paho.mqtt.client as mqtt
import websockets
from smoke import sized

from boardref.eventlog.store import Store
from boardref.outputs.fleet import Broker, Reporter
from boardref.referee.events import Event
from boardref.runtime.loop_lag import percentile
from tests.harness import (
    CHROMIUM,
    CHROMIUM_ARGS,
    Mosquitto,
    free_port,
    reporting_table,
    start_dashboard,
    until,
)

MOVE_EVERY = (5.0, 10.0)  # seconds between two moves at one table
BUDGETS = {500: {"p99_ms": 100, "cpu_percent": 5}, 2000: {"p99_ms": 250, "cpu_percent": 25}}
PAGE_BUDGET = {"kb_per_s": 50, "frames_per_s": 50}
GOALS = {500: {"cpu_percent": 3}, "page": {"frames_per_s": 60}}
TABLES_PER_PROCESS = 500  # the simulated tables' processes share the machine's cores
SENDERS = 8  # threads sending for the tables of one process
CAPTURED_MOVES = sized(40, 8)
EVENTS = sized(500, 50)  # events queued at once for one table's outbox rate
#: how long the page is given, once it shows every table, before its frames are counted
SETTLE_MS = sized(1000, 200)
TICK = os.sysconf("SC_CLK_TCK")


# --- what a real table sends ----------------------------------------------------------


def capture(folder: Path, url: str) -> list[tuple[list[dict], dict]]:
    """A served table's messages for CAPTURED_MOVES moves: per move, the events its
    outbox sent and the state it reported after."""
    seen: list[tuple[str, dict]] = []
    listener = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-capture")
    listener.on_connect = lambda client, *_: client.subscribe("boardref/capture/+", qos=1)
    listener.on_message = lambda c, u, m: seen.append(
        (m.topic.rsplit("/", 1)[1], json.loads(m.payload) if m.payload[:1] == b"{" else {})
    )
    listener.connect("127.0.0.1", int(url.rsplit(":", 1)[1]))
    listener.loop_start()
    service = reporting_table(folder, url, "capture")
    moves = []
    try:
        pick = random.Random(7)
        referee = service.referee
        until(lambda: service.reporter.connected, "the captured table to connect")
        for _ in range(CAPTURED_MOVES):
            if referee.phase == "over":
                referee.new_game("catch_the_hare")
            referee.play(str(pick.choice(referee.game.legal_moves(referee.positions[-1]))))
            plies = referee.published.plies
            until(
                lambda p=plies: any(k == "state" and m.get("plies") == p for k, m in seen),
                "the captured move",
            )
            events = [m for k, m in seen if k == "event"]
            state = next(m for k, m in reversed(seen) if k == "state")
            moves.append((events, state))
            seen.clear()
    finally:
        service.close()
        listener.loop_stop()
        listener.disconnect()
    return [
        (
            [{"kind": e["kind"], "data": e["data"]} for e in events],
            {k: v for k, v in state.items() if k != "table"},
        )
        for events, state in moves
    ]


class SimulatedTable:
    """One table as the broker sees it: its own Store and Reporter, replaying a game."""

    def __init__(self, folder: Path, broker: Broker, name: str, moves: list, started: float):
        self.name = name
        self.store = Store(folder / f"{name}.db")
        self.reporter = Reporter(self.store, broker, name)
        self.moves = moves
        self.next = random.randrange(len(moves))
        self.started = started

    def move(self) -> int:
        """Play the next captured move: its events into the outbox, then the state."""
        events, state = self.moves[self.next]
        self.next = (self.next + 1) % len(self.moves)
        for event in events:
            self.reporter.on_event(Event(event["kind"], event["data"], accepted=True))
        self.reporter.report_state({**state, "started": self.started})
        return state["plies"]

    def close(self) -> None:
        self.reporter.close()
        self.store.close()


class SharedNetwork:
    """One thread doing every simulated table's socket work through paho's interface
    for an event loop of one's own (``loop_read``, ``loop_write``, ``loop_misc``), where
    a served table runs a network thread of its own. It waits with epoll, which has no
    limit at descriptor 1,023 as the select() of paho's own loop has."""

    def __init__(self):
        self.selector = selectors.DefaultSelector()
        self._wake, self._waker = socket.socketpair()
        for end in (self._wake, self._waker):
            end.setblocking(False)
        self.selector.register(self._wake, selectors.EVENT_READ, None)
        self.clients: list[mqtt.Client] = []
        self._writing: set[mqtt.Client] = set()
        self._lock = threading.Lock()
        threading.Thread(target=self._run, name="bench-network", daemon=True).start()

    def connect(self, reporter: Reporter) -> None:
        """Connect a table's client, as ``Reporter.start`` would, on this thread's loop."""
        client = reporter.client
        client.on_socket_register_write = lambda c, userdata, sock: self._want_write(c)
        client.connect(reporter.broker.host, reporter.broker.port, keepalive=15)
        self.clients.append(client)
        self.selector.register(client.socket(), selectors.EVENT_READ, client)
        self._want_write(client)

    def _want_write(self, client: mqtt.Client) -> None:
        with self._lock:
            self._writing.add(client)
        with contextlib.suppress(BlockingIOError):
            self._waker.send(b"w")

    def _run(self) -> None:
        misc = time.monotonic() + 1.0
        while True:
            for key, _ in self.selector.select(timeout=0.5):
                if key.data is None:
                    with contextlib.suppress(BlockingIOError):
                        self._wake.recv(4096)
                else:
                    key.data.loop_read()
            with self._lock:
                writing, self._writing = self._writing, set()
            for client in writing:
                client.loop_write()
            if time.monotonic() >= misc:  # keepalive pings, as paho's own loop does
                misc += 1.0
                for client in self.clients:
                    client.loop_misc()


class Senders:
    """A few threads sending for many tables (``Reporter.send``, the work of a served
    table's own sender thread); each table always on the same thread, so its events
    leave in order."""

    def __init__(self, count: int):
        self._queues = [queue.SimpleQueue() for _ in range(count)]
        for waiting in self._queues:
            threading.Thread(target=self._run, args=(waiting,), daemon=True).start()

    def wake(self, number: int, reporter: Reporter) -> None:
        self._queues[number % len(self._queues)].put(reporter)

    @staticmethod
    def _run(waiting: queue.SimpleQueue) -> None:
        while True:
            waiting.get().send()


def outbox_rate(folder: Path, url: str, moves: list) -> float:
    """Events per second one table gets acknowledged, EVENTS queued at once."""
    table = SimulatedTable(folder, Broker.from_url(url), "outbox", moves, time.time())
    table.reporter.start()
    try:
        until(lambda: table.reporter.connected, "the table to connect")
        events = [Event(e["kind"], e["data"], accepted=True) for m, _ in moves for e in m]
        start = time.perf_counter()
        for number in range(EVENTS):
            table.reporter.on_event(events[number % len(events)])
        until(lambda: not table.store.size()["outbox"], "the outbox to empty", 120)
        return EVENTS / (time.perf_counter() - start)
    finally:
        table.close()


# --- the page's side ------------------------------------------------------------------


class Page:
    """A WebSocket client on the dashboard, on a thread of its own: it notes when each
    table's move count reaches the page."""

    def __init__(self, port: int):
        self.port = port
        self.rows: dict[str, dict] = {}
        self.arrived: list[tuple[str, int, float]] = []
        self.received = 0  # bytes
        self.messages = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._watch()), daemon=True)
        self._thread.start()

    async def _watch(self) -> None:
        url = f"ws://127.0.0.1:{self.port}/ws"
        async with websockets.connect(url, max_size=2**24, ping_interval=None) as socket:
            while not self._stop.is_set():
                try:
                    text = await asyncio.wait_for(socket.recv(), 0.5)
                except TimeoutError:
                    continue
                now = time.monotonic()
                message = json.loads(text)
                self.received += len(text)
                self.messages += 1
                for name, fields in message["rows"].items():
                    self.rows.setdefault(name, {}).update(fields)
                    if "plies" in fields:
                        self.arrived.append((name, fields["plies"], now))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)


def latencies(moved: dict[tuple[str, int], float], arrived: list, since: float) -> list[float]:
    """Milliseconds from each move made after ``since`` to the page holding it."""
    found = []
    for name, plies, at in arrived:
        made = moved.pop((name, plies), None)
        if made is not None and made >= since:
            found.append((at - made) * 1000)
    return found


# --- the machine's side ---------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


class BrokerBytes:
    """The broker's count of bytes received ($SYS, published every second)."""

    def __init__(self, port: int):
        self.value = 0
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-sys")
        client.on_connect = lambda c, *_: c.subscribe("$SYS/broker/bytes/received")
        client.on_message = lambda c, u, m: setattr(self, "value", int(m.payload))
        client.connect("127.0.0.1", port)
        client.loop_start()
        self.client = client

    def fresh(self) -> int:
        """The count of the next report, so that it covers everything up to now."""
        before = self.value
        until(lambda: self.value != before, "the broker's byte count", 5)
        return self.value

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def move(tables, every, seed: int, moved: dict, stop: threading.Event, senders: Senders):
    """Each table moves every ``every`` seconds (uniform), all on this one thread; when
    each move was made goes into ``moved``, by table and move count."""
    pick = random.Random(seed)
    now = time.monotonic()
    due = [(now + pick.uniform(0, every[1]), i) for i in range(len(tables))]
    heapq.heapify(due)
    while not stop.is_set():
        at, i = due[0]
        wait = at - time.monotonic()
        if wait > 0:
            stop.wait(min(wait, 0.1))
            continue
        made = time.monotonic()  # one clock for every process on the machine
        moved[(tables[i].name, tables[i].move())] = made
        senders.wake(i, tables[i].reporter)
        heapq.heapreplace(due, (at + pick.uniform(*every), i))


def tables_at_work(connection, folder: str, url: str, names, moves, every, started, seed):
    """A process of simulated tables: connect them, move them when told, say when
    each move was made when asked, stop when told."""
    broker = Broker.from_url(url)
    network, senders = SharedNetwork(), Senders(SENDERS)
    tables = [SimulatedTable(Path(folder), broker, name, moves, started) for name in names]
    for number, table in enumerate(tables):
        network.connect(table.reporter)
        if number % 10 == 9:
            time.sleep(0.05)  # a café's tables come online over time, not in one instant
    until(lambda: all(t.reporter.connected for t in tables), "tables to connect", 300)
    connection.send("connected")
    moved: dict[tuple[str, int], float] = {}
    stop = threading.Event()
    mover = threading.Thread(
        target=move, args=(tables, every, seed, moved, stop, senders), daemon=True
    )
    while (command := connection.recv()) != "stop":
        if command == "move":
            mover.start()
        elif command == "moved":
            connection.send(dict(moved))
    stop.set()
    connection.send("stopped")


class Fleet:
    """N simulated tables in processes of TABLES_PER_PROCESS, a broker and a dashboard."""

    def __init__(self, folder: Path, n: int, moves: list, every: tuple[float, float]):
        self.n = n
        self.broker = Mosquitto(folder, "sys_interval 1\nmax_queued_messages 100000\n")
        self.broker.start()
        names = [f"site{i % 4}-t{i:04d}" for i in range(n)]
        spawn = multiprocessing.get_context("spawn")
        self.workers = []
        started = time.time()
        for first in range(0, n, TABLES_PER_PROCESS):
            mine, theirs = spawn.Pipe()
            process = spawn.Process(
                target=tables_at_work,
                args=(
                    theirs,
                    str(folder),
                    self.broker.url,
                    names[first : first + TABLES_PER_PROCESS],
                ),
                kwargs={"moves": moves, "every": every, "started": started, "seed": first},
                daemon=True,
            )
            process.start()
            self.workers.append((process, mine))
        # the dashboard starts while the tables' processes start and connect: it reads
        # what they said so far from the broker's retained messages
        self.port = free_port()
        # (on a busy machine, it starts beside the thousands of tables starting)
        self.dashboard = start_dashboard(self.broker.url, self.port, wait=300)

    def _ask(self, command: str | None, wait: float = 300) -> list:
        if command is not None:
            for _, connection in self.workers:
                connection.send(command)
        answers = []
        for process, connection in self.workers:
            if not connection.poll(wait):
                raise RuntimeError(f"tables process {process.pid} did not answer {command}")
            answers.append(connection.recv())
        return answers

    def connected(self) -> None:
        self._ask(None)

    def start_moving(self) -> None:
        for _, connection in self.workers:
            connection.send("move")

    def moved(self) -> dict[tuple[str, int], float]:
        found = {}
        for part in self._ask("moved"):
            found.update(part)
        return found

    def tables_cpu(self) -> float:
        return sum(cpu_seconds(process.pid) for process, _ in self.workers)

    def close(self) -> None:
        try:
            self._ask("stop", 60)
        finally:
            for process, _ in self.workers:
                process.join(10)
                if process.is_alive():
                    process.kill()
            self.dashboard.terminate()
            self.dashboard.wait(30)
            self.broker.stop()


def on_their_way(fleet: Fleet, page: Page, start: float, end: float, wait: float = 1.0):
    """The moves made between ``start`` and ``end`` (when each was made, by table and
    move count), once every one has reached the page or ``wait`` seconds have passed:
    moves made just before the end are still on their way."""
    deadline = time.monotonic() + wait
    while True:
        moved = {key: at for key, at in fleet.moved().items() if start <= at <= end}
        seen = {(name, plies) for name, plies, at in list(page.arrived) if at >= start}
        if moved.keys() <= seen or time.monotonic() >= deadline:
            return moved
        time.sleep(0.05)


def measure(fleet: Fleet, page: Page, counter: BrokerBytes, seconds: float) -> dict:
    """Everything the fleet costs over ``seconds`` of moves."""
    dashboard, broker = fleet.dashboard.pid, fleet.broker.process.pid
    bytes_before = counter.fresh()
    cpu_before = cpu_seconds(dashboard), cpu_seconds(broker), fleet.tables_cpu()
    received_before, start = page.received, time.monotonic()
    time.sleep(seconds)
    end = time.monotonic()
    cpu_after = cpu_seconds(dashboard), cpu_seconds(broker), fleet.tables_cpu()
    received = page.received - received_before
    bytes_after = counter.fresh()
    moved = on_their_way(fleet, page, start, end)
    made = len(moved)
    samples = latencies(moved, list(page.arrived), start)
    elapsed = end - start
    n = fleet.n
    return {
        "move_to_page_ms_p50": round(percentile(samples, 0.5), 1) if samples else None,
        "move_to_page_ms_p99": round(percentile(samples, 0.99), 1) if samples else None,
        "moves": made,
        "moves_not_seen": made - len(samples),
        "dashboard_cpu_percent": round(100 * (cpu_after[0] - cpu_before[0]) / elapsed, 1),
        "dashboard_rss_mb": round(rss_mb(dashboard), 1),
        "broker_cpu_percent": round(100 * (cpu_after[1] - cpu_before[1]) / elapsed, 1),
        "broker_bytes_per_table_per_minute": round(
            (bytes_after - bytes_before) / n / (elapsed / 60)
        ),
        "page_kb_per_s": round(received / 1024 / elapsed, 1),
        "tables_processes_cpu_percent": round(100 * (cpu_after[2] - cpu_before[2]) / elapsed, 1),
        "seconds": round(elapsed, 1),
    }


FRAMES = """(ms) => new Promise((done) => {
  const gaps = [];
  let last = performance.now();
  const end = last + ms;
  function frame(now) {
    gaps.push(now - last);
    last = now;
    if (now < end) requestAnimationFrame(frame); else done(gaps);
  }
  requestAnimationFrame(frame);
})"""


#: the tables the page counts (playing, idle and offline), as its staff read them at the top
COUNTED = (
    "['playing', 'idle', 'offline'].reduce((sum, key) =>"
    " sum + Number(document.getElementById(`count-${key}`).textContent), 0)"
)


def frames_per_second(gaps: list[float]) -> float:
    return round(len(gaps) / (sum(gaps) / 1000), 1)


def in_chromium(port: int, n: int, seconds: float) -> dict:
    """One dashboard page in Debian's Chromium (1280x800): what it receives per second
    over its WebSocket and how many frames a second it draws."""
    from playwright.sync_api import sync_playwright

    received = [0]

    def count(payload: str | bytes) -> None:
        received[0] += len(payload.encode() if isinstance(payload, str) else payload)

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = chromium.new_page(viewport={"width": 1280, "height": 800})
            # what this machine draws at all just now: an empty page, the same way
            blank = page.evaluate(FRAMES, seconds * 1000)
            page.on("websocket", lambda socket: socket.on("framereceived", count))
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_function(f"() => {COUNTED} >= {n}", timeout=120_000)
            page.wait_for_timeout(SETTLE_MS)  # the first, whole fleet is in
            before, start = received[0], time.monotonic()
            gaps = page.evaluate(FRAMES, seconds * 1000)
            elapsed = time.monotonic() - start
            tables = page.evaluate(COUNTED)
            rows = page.evaluate("document.querySelectorAll('#rows > [role=row]').length")
        finally:
            chromium.close()
    return {
        "page_kb_per_s": round((received[0] - before) / 1024 / elapsed, 1),
        "frames_per_s": frames_per_second(gaps),
        "frames_per_s_empty_page": frames_per_second(blank),
        "frames_kept_percent": round(100 * frames_per_second(gaps) / frames_per_second(blank)),
        "frames_over_20ms": sum(1 for gap in gaps if gap > 20),
        "longest_frame_ms": round(max(gaps), 1),
        "tables": tables,
        "rows_in_document": rows,
        "seconds": round(elapsed, 1),
    }


def run(folder: Path, n: int, moves: list, args, browser: bool) -> dict:
    fleet = Fleet(folder, n, moves, args.every)
    counter = page = None
    try:
        fleet.connected()
        counter = BrokerBytes(fleet.broker.port)
        page = Page(fleet.port)
        until(lambda: len(page.rows) >= n, "the page to hold every table", 300)
        fleet.start_moving()
        time.sleep(args.warmup)
        figures = {"bench": "fleet", "tables": n, **measure(fleet, page, counter, args.seconds)}
        budget = BUDGETS.get(n)
        if budget and not args.smoke:
            figures["budget"] = budget
            figures["goal"] = GOALS.get(n, {})
            figures["within_budget"] = (
                figures["move_to_page_ms_p99"] is not None
                and figures["move_to_page_ms_p99"] <= budget["p99_ms"]
                and figures["dashboard_cpu_percent"] <= budget["cpu_percent"]
            )
        if browser:
            start = time.monotonic()
            shown = in_chromium(fleet.port, n, args.browser_seconds)
            moved = on_their_way(fleet, page, start, time.monotonic())
            samples = latencies(moved, list(page.arrived), start)
            if samples:
                shown["move_to_page_ms_p99_with_chromium"] = round(percentile(samples, 0.99), 1)
            if not args.smoke:
                shown["budget"] = PAGE_BUDGET
                shown["goal"] = GOALS["page"]
                shown["within_budget"] = (
                    shown["page_kb_per_s"] <= PAGE_BUDGET["kb_per_s"]
                    and shown["frames_per_s"] >= PAGE_BUDGET["frames_per_s"] * 0.95
                )
            figures["chromium"] = shown
        figures["load"] = load()
        return figures
    finally:
        if page is not None:
            page.close()
        if counter is not None:
            counter.close()
        fleet.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="a few tables, a few seconds")
    parser.add_argument(
        "--full", action="store_true", help="100 tables too, and 30 s measured per size"
    )
    parser.add_argument("--tables", help="fleet sizes, comma-separated (default 500,2000)")
    parser.add_argument("--seconds", type=float, help="measured seconds per size (default 20)")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds of moves first")
    parser.add_argument("--browser-seconds", type=float, default=10.0)
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium page")
    args = parser.parse_args()
    logging.getLogger("boardref.outputs.fleet").setLevel(logging.ERROR)  # 2,000 goodbyes
    args.every = MOVE_EVERY
    if args.tables is None:  # the sizes with a budget; --full adds a small café
        args.tables = "100,500,2000" if args.full else "500,2000"
    if args.seconds is None:
        args.seconds = 30.0 if args.full else 20.0
    sizes = [int(n) for n in args.tables.split(",")]
    if args.smoke:
        sizes, args.seconds, args.warmup, args.browser_seconds = [3], 1.0, 0.3, 0.3
        args.every = (0.3, 0.6)
    # the broker, started from here, holds a socket per table
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8 * max(sizes) + 1024)), hard))
    with tempfile.TemporaryDirectory(
        dir="/dev/shm" if os.path.isdir("/dev/shm") else None
    ) as scratch:
        folder = Path(scratch)
        broker = Mosquitto(folder)
        broker.start()
        try:
            moves = capture(folder, broker.url)
            rate = outbox_rate(folder, broker.url, moves)
        finally:
            broker.stop()
        print(
            json.dumps(
                {
                    "bench": "fleet",
                    "tables": 1,
                    "events_per_s_one_table": round(rate),
                    "events": EVENTS,
                    "note": "each event waits for the broker's PUBACK before the next leaves",
                    "load": load(),
                }
            ),
            flush=True,
        )
        for n in sizes:
            where = folder / f"n{n}"
            where.mkdir()
            browser = n == max(sizes) and not args.no_browser and os.path.exists(CHROMIUM)
            print(json.dumps(run(where, n, moves, args, browser)), flush=True)


if __name__ == "__main__":
    main()
