"""The Pi bench's hands and eyes (``bench_pi.py``): a player's hands moving the pieces
on the table and their eyes on the state every page is pushed.

The hands change the board one of two ways (``board``):

- ``Hall``: as a person's hand changes the magnets over a hall-sensor board. The
  board's microcontroller is simulated in a process of its own
  (``python -m firmware_bridge.sim``, the firmware's own device logic on a
  pseudo-terminal), outside the service as a Pico is: the service reads it over its
  serial link as it reads a real board, and the hands set what its sensors feel
  through the simulator's controls on its standard input. The hall board feels the
  figures only: a Hakenschlagen figure lifted off a disk leaves its hollow empty to
  the sensors (disks and trees are no magnets), a molehill taken from the supply is
  felt once it is put down. Every piece of Sternhalma and Hakenschlagen stands alone
  on its cell, so every lift and every placing is felt.
- ``Panel``: through the panel's simulator (``/api/sim/lift``, ``/api/sim/place``) of
  ``serve --sim``, whose virtual board its rendered camera draws: the camera tables'
  way, a request for each piece lifted or put down, and the simulated board a thread
  of the service.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

#: how long the hands wait for the next state pushed before they look again at the
#: last one (a confirm the table refused brings no new state)
PUSH_WAIT_S = 1.0
WAIT = 60.0
#: the table judges no board still for less (its ``[sensors] settle_ms``)
SETTLE_MS = 150
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int, thread: int | None = None) -> float:
    """The CPU of process ``pid`` so far, or of its thread ``thread`` alone (the main
    thread's id is the process's)."""
    where = f"/proc/{pid}" + ("" if thread is None else f"/task/{thread}")
    fields = Path(f"{where}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class Panel:
    """The board as the panel's simulator holds it: a request for each piece."""

    way = "the panel's simulator (a request a piece, the simulated board in the service)"

    def __init__(self, client: httpx.Client):
        self.client = client

    def lay_out(self, stacks: dict) -> None:
        """Nothing to lay out: ``serve --sim`` lays the pieces out itself."""

    def lift(self, cell: str) -> None:
        self._act("/api/sim/lift", {"cell": cell})

    def take(self, token: str) -> None:
        self._act("/api/sim/lift", {"off": "supply", "token": token})

    def place(self, cell: str) -> None:
        self._act("/api/sim/place", {"cell": cell})

    def _act(self, path: str, body: dict) -> None:
        answer = self.client.post(path, json=body)
        if answer.status_code != 200:
            raise RuntimeError(f"{path} {body}: {answer.status_code} {answer.text}")

    def figures(self, moves: int) -> dict:
        return {"board": self.way}

    def close(self) -> None:
        pass


class Hall:
    """A hall-sensor board whose microcontroller is simulated in a process of its own
    at ``device``, ``cells`` its cells in sensor order: the hands change the magnets
    on it through the simulator's controls (``set SENSOR STATE``), one line a piece
    felt or no longer felt, and the service links to ``device`` as to a Pico."""

    way = "hall sensors: the simulated board a process of its own on a serial device"

    def __init__(self, device: Path, cells: list[str]):
        self.device = device
        self._sensor = {cell: i for i, cell in enumerate(cells)}
        #: how many figures stand on each cell, as the hands left them
        self._pieces: Counter[str] = Counter()
        self._board = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "firmware_bridge.sim",
                "--cells",
                str(len(cells)),
                "--path",
                str(device),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        if not self._board.stdout.readline():  # its device path: the board is there
            raise RuntimeError(f"the simulated board did not start ({self._board.wait()})")

    @property
    def pid(self) -> int:
        return self._board.pid

    def lay_out(self, stacks: dict) -> None:
        """Put the pieces of the position's ``stacks`` on the board."""
        for cell, stack in stacks.items():
            for _ in stack:
                self.place(cell)
        self._laid_out = cpu_seconds(self.pid)

    def figures(self, moves: int) -> dict:
        """The board's way and its microcontroller's CPU a move (not the Pi's), from
        the start position laid out."""
        spent = cpu_seconds(self.pid) - self._laid_out
        return {"board": self.way, "board_cpu_ms_per_move": round(spent / max(moves, 1) * 1000, 1)}

    def lift(self, cell: str) -> None:
        self._pieces[cell] -= 1
        if not self._pieces[cell]:
            self._feel(cell, 0)

    def take(self, token: str) -> None:
        """A piece from the supply in the hand: nothing the sensors feel yet."""

    def place(self, cell: str) -> None:
        self._pieces[cell] += 1
        if self._pieces[cell] == 1:
            self._feel(cell, 1)

    def _feel(self, cell: str, state: int) -> None:
        self._board.stdin.write(f"set {self._sensor[cell]} {state}\n")
        self._board.stdin.flush()
        said = self._board.stdout.readline().strip()
        if said != "ok":
            raise RuntimeError(f"the simulated board refused set {cell} {state}: {said!r}")

    def close(self) -> None:
        self._board.terminate()
        try:
            self._board.wait(WAIT)
        except subprocess.TimeoutExpired:
            self._board.kill()
            self._board.wait(WAIT)


class Watch(threading.Thread):
    """The table's state as every page is pushed it, on the panel's WebSocket."""

    #: where to keep every state as it came, one text a line (``bench_kiosk.py``)
    record: Path | None = None

    def __init__(self, url: str):
        super().__init__(daemon=True)
        self._address = url.replace("http", "ws", 1) + "/ws"
        self._changed = threading.Condition()
        self._socket = None
        self.newest: dict = {}
        #: how many states this page has been sent
        self.received = 0
        self.start()
        with self._changed:  # the first state comes as the page connects
            if not self._changed.wait_for(lambda: self.newest, WAIT):
                raise TimeoutError("the panel pushed no state to the hands")

    def run(self) -> None:
        with contextlib.suppress(ConnectionClosed), connect(self._address) as socket:
            self._socket = socket
            for text in socket:
                state = json.loads(text)
                if self.record is not None:
                    with self.record.open("a") as kept:
                        kept.write(text + "\n")
                with self._changed:
                    self.newest = state
                    self.received += 1
                    self._changed.notify_all()

    def after(self, seq: int, wait: float = PUSH_WAIT_S) -> dict:
        """The newest state once one newer than push ``seq`` came, or after ``wait``."""
        with self._changed:
            self._changed.wait_for(lambda: self.newest["seq"] > seq, wait)
            return self.newest

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
        self.join(WAIT)


class Hands:
    """A player's hands on the table's ``board`` (``Hall`` or, by default, the panel's
    simulator); its eyes on the state pushed to every page (``watch``)."""

    def __init__(self, client: httpx.Client, game, sensor: str, board=None):
        self.client, self.game, self.sensor = client, game, sensor
        self.board = board if board is not None else Panel(client)
        self.watch = Watch(str(client.base_url).rstrip("/"))
        self.board.lay_out(game.stacks(self.state()))  # the start position, by hand
        #: why the table stopped taking moves, if it did (the move it did not take)
        self.stuck: str | None = None
        #: moves the table took as another than the hands made
        self.wrong_commits = 0

    def __enter__(self) -> Hands:
        return self

    def __exit__(self, *_) -> None:
        self.watch.close()

    def state(self):
        record = self.client.get("/api/position").json()["record"]
        return self.game.from_json(record)

    def shown(self, after: int | None = None) -> dict:
        """The state the table's pages were pushed last, as its players see it on the
        kiosk (once one newer than push ``after`` came, or ``PUSH_WAIT_S`` passed)."""
        return self.watch.newest if after is None else self.watch.after(after)

    def carry_out(self, state, move, pause: random.Random) -> None:
        """Move the pieces as the move says: a Hakenschlagen turn use by use (now and
        then pausing mid-turn long enough for the table to judge the half-made turn),
        a Sternhalma piece from its start to its end."""
        uses, board = getattr(move, "uses", None), self.board
        if uses is None:
            board.lift(move.path[0])
            board.place(move.path[-1])
            return
        cells = [c.id for c in self.game.board.cells]
        hare, fox = cells[state.hares[state.turn]], cells[state.fox]
        for use in uses:
            if use.kind == "fox":
                board.lift(fox)
                fox = use.to
            elif use.kind == "molehill":
                board.lift(use.source) if use.source is not None else board.take("molehill")
            else:
                board.lift(hare)
                hare = use.to
            board.place(use.to)
            if pause.random() < 0.5:
                time.sleep(SETTLE_MS * 2 / 1000)

    def until_taken(self, state, after, shown: dict) -> None:
        """Wait until the table has taken the turn ending in ``after``: confirm it
        once the turn the table holds reads as ``after`` (or, holding none, when the
        board shows no change: a turn no sensor sees), choose it when several fit the
        board. Hall sensors feel a piece, not which: the turn held may be another that
        feels alike, and confirming it brings the choice. A hare that jumps away and
        back to its own hollow leaves the board as it was, yet the table holds the
        turn it saw half-made until it has judged the last jump: that one is not
        confirmed. ``shown`` is the state the panel gave before the move was made."""
        deadline = time.monotonic() + WAIT
        plies, looked = shown["plies"], shown["seq"] - 1
        unseen = self._read(after) == self._read(state)
        time.sleep(SETTLE_MS / 1000)  # the table judges no board still for less
        while time.monotonic() < deadline:
            shown = self.watch.after(looked)
            looked = shown["seq"]
            if shown["plies"] > plies:
                return
            held = shown["tentative"]
            if shown["phase"] == "ambiguous":
                for text in shown["candidates"]:
                    if self._ends(state, text) == after:
                        self.client.post("/api/choose", json={"move": text})
                        break
            elif shown["can_confirm"] and (
                unseen if held is None else self._holds(state, held, after)
            ):
                self.client.post("/api/confirm", json={})
        raise TimeoutError(f"the table did not take the move: {shown['message']}")

    def _holds(self, state, held: str, after) -> bool:
        """Whether the move the table holds feels like the one that leads to ``after``."""
        return self._read(self._ends(state, held)) == self._read(after)

    def _ends(self, state, text: str | None):
        """The position the move written ``text`` leads to; None if it is no move."""
        try:
            return self.game.apply(state, self.game.parse_move(state, text))
        except Exception:  # no move held, or an open part of a turn
            return None

    def _read(self, state) -> dict | None:
        """What this table's sensors read of ``state``."""
        return None if state is None else self.game.sense(state, self.sensor)
