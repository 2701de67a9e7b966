"""The table's kiosk browser as a bench runs it beside the service: Debian's Chromium
with the flags of ``systemd/boardref-kiosk.service`` (read from the unit, so the bench
measures what a table runs), on the table page, at the table screen's size.

It runs headless (``--headless=new``: the same renderer, layout and paint, with no
screen to show them on) and, as root, without its sandbox. It measures the browser's
whole process tree: CPU (every process's own and that of the children it has reaped)
and proportional memory (PSS, so pages shared between its processes count once):
the whole, and its own (the anonymous and shared-memory pages, without the files it
maps: Chromium's code and fonts are clean pages the kernel drops when memory runs
short and reads again, so its own is what it needs resident). It never opens any page
but the one it is given.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from checkout import ROOT

CHROMIUM = "/usr/bin/chromium"
UNIT = Path(ROOT) / "systemd" / "boardref-kiosk.service"
#: the table's touchscreen (the panel's kiosk layout is drawn for it): width, height
SCREEN = (1280, 800)
#: what the unit's command line holds that only a screen under cage needs
SCREEN_ONLY = ("--ozone-platform=",)
TICKS = os.sysconf("SC_CLK_TCK")
#: how often the kiosk's memory is looked at while it runs
PSS_EVERY_S = 1.0


def unit_setting(name: str, unit: Path = UNIT) -> str | None:
    """The value of the kiosk unit's setting ``name`` (its continued lines joined)."""
    text = unit.read_text().replace("\\\n", " ")
    return next(
        (line.partition("=")[2] for line in text.splitlines() if line.startswith(name + "=")),
        None,
    )


def unit_flags() -> list[str]:
    """Chromium's flags in the kiosk unit's ``ExecStart`` (the page's address and
    what only a screen needs left out)."""
    words = shlex.split(unit_setting("ExecStart") or "")
    flags = words[words.index(CHROMIUM) + 1 :]
    return [f for f in flags if f.startswith("--") and not f.startswith(SCREEN_ONLY)]


def tree(root: int) -> list[int]:
    """``root`` and every process below it."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        with contextlib.suppress(OSError):  # a thread or process that ended meanwhile
            for children in Path(f"/proc/{pid}/task").glob("*/children"):
                with contextlib.suppress(OSError):
                    todo += [int(c) for c in children.read_text().split()]
    return found


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / TICKS  # utime stime cutime cstime


#: the parts of a process's PSS that are its own memory, not files mapped from disk
OWN = ("Pss_Anon", "Pss_Shmem")


def _rollup_mb(pid: int, fields: tuple[str, ...]) -> float:
    """The sum of ``fields`` of the process's ``smaps_rollup``, in MB."""
    total = 0
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in fields:
            total += int(value.split()[0])
    return total / 1024


def _pss_mb(pid: int) -> float:
    return _rollup_mb(pid, ("Pss",))


def _own_mb(pid: int) -> float:
    return _rollup_mb(pid, OWN)


def _summed(root: int, figure: Callable[[int], float]) -> float:
    total = 0.0
    for pid in tree(root):
        with contextlib.suppress(OSError):  # a renderer that ended meanwhile
            total += figure(pid)
    return total


def _starting(joining: Callable[[], None] | None) -> Callable[[], None]:
    """What the kiosk runs before ``exec``: join the service's groups, and yield to the
    service as the unit's ``Nice=`` says (in one group, niceness decides who of the
    two runs first)."""

    def start() -> None:
        if joining is not None:
            joining()
        os.nice(int(unit_setting("Nice") or 0))

    return start


class Kiosk:
    """Chromium on ``url`` with the kiosk unit's flags and niceness; ``joining`` puts it
    into the service's groups before it runs. Use as a context manager."""

    def __init__(self, url: str, joining: Callable[[], None] | None, extra: list[str] = ()):
        self._profile = tempfile.TemporaryDirectory(prefix="boardref-kiosk-")
        command = [
            CHROMIUM,
            *unit_flags(),
            *extra,
            "--headless=new",
            "--no-sandbox",
            # the headless screen is the touchscreen: ``--kiosk`` fills the screen, and a
            # headless one is 800x600 unless told (a window size alone is not kept)
            f"--screen-info={{{SCREEN[0]}x{SCREEN[1]}}}",
            f"--window-size={SCREEN[0]},{SCREEN[1]}",
            f"--user-data-dir={self._profile.name}",
            url,
        ]
        #: what Chromium says, read back if it ends before it is stopped
        self._said = tempfile.TemporaryFile()  # noqa: SIM115 - closed in __exit__
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=self._said,
            preexec_fn=_starting(joining),
        )
        self.pss_mb_peak = self.own_mb_peak = 0.0
        self._stop = threading.Event()
        self._watch = threading.Thread(target=self._watching, daemon=True)
        self._watch.start()

    def cpu_seconds(self) -> float:
        self.check_alive()
        return _summed(self.process.pid, _cpu)

    def check_alive(self) -> None:
        """Raise, with the last of what Chromium said, if the kiosk has ended: its
        figures would be those of no browser."""
        status = self.process.poll()
        if status is None:
            return
        self._said.seek(0)
        last = self._said.read().decode(errors="replace").strip().splitlines()[-5:]
        raise RuntimeError(
            f"the kiosk browser ended with status {status} while the bench ran: "
            + (" | ".join(last) or "it said nothing")
        )

    def pss_mb(self) -> float:
        return _summed(self.process.pid, _pss_mb)

    def own_mb(self) -> float:
        return _summed(self.process.pid, _own_mb)

    def processes(self) -> int:
        return len(tree(self.process.pid))

    def _watching(self) -> None:
        while not self._stop.wait(PSS_EVERY_S):
            if self.process.poll() is not None:
                return
            self.pss_mb_peak = max(self.pss_mb_peak, self.pss_mb())
            self.own_mb_peak = max(self.own_mb_peak, self.own_mb())

    def __enter__(self) -> Kiosk:
        return self

    def __exit__(self, *_) -> None:
        self._stop.set()
        self._watch.join()
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._said.close()
        self._profile.cleanup()
