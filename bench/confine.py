"""Holding a benchmarked process to a Raspberry Pi's memory and CPU, with the best
means this machine offers, and saying which was used.

In order of preference:

1. ``systemd-run --scope -p MemoryMax=... -p CPUQuota=...``, where systemd runs the
   machine (a Pi does);
2. a cgroup of its own, written directly as root: cgroup v2 (``memory.max``,
   ``cpu.max``) or, on a machine still mounting v1 controllers (many containers),
   v1 (``memory.limit_in_bytes``, ``cpu.cfs_quota_us``). The process moves into it
   before it runs a line of Python, so all of its memory counts;
3. what a process can do to itself: an address-space limit (``RLIMIT_AS``, which
   counts mapped, not resident, memory: looser than a cgroup) and one CPU core
   (``sched_setaffinity``, what ``taskset`` does), for CPUQuota=100 %.

A bench prints ``Confinement.figures()``: how the limits were set, which held, and
(with a cgroup) the group's peak memory, out-of-memory kills and the CPU quota's
periods it used up (the whole group stands still until the next one). It never
changes a limit of the machine itself, only of the group it creates, which it removes
again.
"""

from __future__ import annotations

import itertools
import os
import resource
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

#: where the kernel's control groups are mounted
CGROUPS = Path("/sys/fs/cgroup")
#: the ways ``confine`` may be told to use; "auto" takes the first that works
WAYS = ("auto", "systemd", "cgroup", "rlimit", "none")
#: the CPU quota's period unless told otherwise: the kernel's own default
PERIOD_US = 100_000
#: numbers the groups one bench makes: each held process gets a group of its own, so a
#: group still being emptied (a process just ended) never passes its limit to the next
_SERIAL = itertools.count(1)
#: how long a group whose last process just ended may take to be removable
EMPTYING_S = 5.0


def _bytes(size: str) -> int:
    """``"300M"`` as bytes (K, M, G suffixes, powers of 1024)."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if size[-1:].upper() in units:
        return int(float(size[:-1]) * units[size[-1].upper()])
    return int(size)


class Confinement:
    """A command to start under limits (``command``, ``preexec``), what was applied,
    and the group to clean up afterwards."""

    def __init__(self, command: list[str], memory_max: str, cpu_quota: int, period_us: int):
        self.command = command
        self.preexec: Callable[[], None] | None = None
        self.memory_max, self.cpu_quota, self.period_us = memory_max, cpu_quota, period_us
        #: how: "systemd-run", "cgroup v2", "cgroup v1", "rlimit", or "none"
        self.how = "none"
        #: the limits that hold, in words
        self.applied: list[str] = []
        #: why better means were not used
        self.notes: list[str] = []
        self._groups: list[Path] = []

    def figures(self) -> dict:
        """How the process was held, for the bench's JSON line."""
        found = {"how": self.how, "applied": self.applied, "notes": self.notes}
        peak = self._group_peak_mb()
        if peak is not None:
            found["group_peak_mb"] = peak
            found["oom_kills"] = self._oom_kills()
        found.update(self._throttled())
        return found

    def close(self) -> None:
        """Remove the groups created (once the process in them has ended)."""
        deadline = time.monotonic() + EMPTYING_S
        for group in self._groups:
            while True:
                try:
                    group.rmdir()
                    break
                except OSError as exc:  # busy while its last process is being reaped
                    if time.monotonic() > deadline:
                        self.notes.append(f"could not remove {group}: {exc.strerror}")
                        break
                    time.sleep(0.05)
        self._groups = []

    # --- the ways ------------------------------------------------------------------

    def by_systemd(self) -> bool:
        runner = shutil.which("systemd-run")
        if runner is None:
            self.notes.append("no systemd-run")
            return False
        limits = [
            *("-p", f"MemoryMax={self.memory_max}", "-p", f"CPUQuota={self.cpu_quota}%"),
            *("-p", f"CPUQuotaPeriodSec={self.period_us}us"),
        ]
        trial = subprocess.run(
            [runner, "--scope", "--quiet", *limits, "true"], capture_output=True, text=True
        )
        if trial.returncode != 0:
            why = trial.stderr.strip().splitlines()[-1:] or ["failed"]
            self.notes.append(f"systemd-run: {why[0]}")
            return False
        self.command = [runner, "--scope", "--quiet", *limits, *self.command]
        self.how = "systemd-run"
        self.applied = [
            f"MemoryMax={self.memory_max}",
            f"CPUQuota={self.cpu_quota}%",
            f"CPUQuotaPeriodSec={self.period_us}us",
        ]
        return True

    def by_cgroup(self) -> bool:
        if os.geteuid() != 0:
            self.notes.append("cgroups: not root")
            return False
        name = f"boardref-bench-{os.getpid()}-{next(_SERIAL)}"
        for unified in (CGROUPS, CGROUPS / "unified"):
            controllers = unified / "cgroup.controllers"
            if controllers.exists() and {"memory", "cpu"} <= set(controllers.read_text().split()):
                return self._v2(unified, name)
        memory, cpu = CGROUPS / "memory", CGROUPS / "cpu"
        if (memory / "memory.limit_in_bytes").exists() and (cpu / "cpu.cfs_quota_us").exists():
            return self._v1(memory / name, cpu / name)
        self.notes.append("cgroups: no memory and cpu controllers mounted")
        return False

    def _v2(self, root: Path, name: str) -> bool:
        group = root / name
        try:
            (root / "cgroup.subtree_control").write_text("+memory +cpu")
            group.mkdir()
            self._groups.append(group)
            (group / "memory.max").write_text(str(_bytes(self.memory_max)))
            if (group / "memory.swap.max").exists():
                (group / "memory.swap.max").write_text("0")
            (group / "cpu.max").write_text(f"{self._quota_us()} {self.period_us}")
        except OSError as exc:
            self.notes.append(f"cgroup v2 at {root}: {exc.strerror or exc}")
            self.close()
            return False
        self.preexec = _joining([group / "cgroup.procs"])
        self.how = "cgroup v2"
        self.applied = [
            f"memory.max={self.memory_max}",
            f"cpu.max={self._quota_us()} {self.period_us} ({self.cpu_quota}%)",
        ]
        return True

    def _v1(self, memory: Path, cpu: Path) -> bool:
        try:
            for group in (memory, cpu):
                group.mkdir()
                self._groups.append(group)
            (memory / "memory.limit_in_bytes").write_text(str(_bytes(self.memory_max)))
            if (memory / "memory.swappiness").exists():
                (memory / "memory.swappiness").write_text("0")
            (cpu / "cpu.cfs_period_us").write_text(str(self.period_us))
            (cpu / "cpu.cfs_quota_us").write_text(str(self._quota_us()))
        except OSError as exc:
            self.notes.append(f"cgroup v1: {exc.strerror or exc}")
            self.close()
            return False
        self.preexec = _joining([memory / "cgroup.procs", cpu / "cgroup.procs"])
        self.how = "cgroup v1"
        self.applied = [
            f"memory.limit_in_bytes={self.memory_max}",
            f"cpu.cfs_quota_us={self._quota_us()} of cpu.cfs_period_us={self.period_us}"
            f" ({self.cpu_quota}%)",
        ]
        return True

    def _quota_us(self) -> int:
        return self.period_us * self.cpu_quota // 100

    def by_rlimit(self) -> bool:
        limit = _bytes(self.memory_max)
        cores = sorted(os.sched_getaffinity(0))
        one = {cores[-1]} if self.cpu_quota <= 100 else set(cores)

        def holding() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            os.sched_setaffinity(0, one)

        self.preexec = holding
        self.how = "rlimit"
        self.applied = [f"RLIMIT_AS={self.memory_max} (address space)", f"CPU cores {sorted(one)}"]
        return True

    def release(self, pid: int) -> bool:
        """Take ``pid`` (a child of the held process that a Pi would not run, the
        synthetic camera's renderer) out of the groups, back into their parents.
        False where it cannot be: under systemd-run or an rlimit it stays held."""
        if not self._groups:
            return False
        try:
            for group in self._groups:
                (group.parent / "cgroup.procs").write_text(str(pid))
        except OSError as exc:
            self.notes.append(f"could not release {pid}: {exc.strerror or exc}")
            return False
        self.notes.append(f"process {pid} (the synthetic camera's renderer) released")
        return True

    def beside(self, pid: int) -> Callable[[], None] | None:
        """What a second process runs before ``exec`` to be held in the same groups as
        the held process ``pid`` (the kiosk browser beside the service: one memory
        limit and one CPU quota for both, as on a Pi). None when no group holds it (an
        rlimit holds each process alone; an address-space limit would stop a browser,
        which reserves far more address space than it uses)."""
        procs = [CGROUPS / where / "cgroup.procs" for where in _groups_of(pid)]
        procs = [path for path in procs if path.exists()]
        return _joining(procs) if procs else None

    # --- what the group saw --------------------------------------------------------

    def _group_peak_mb(self) -> float | None:
        for group in self._groups:
            for name in ("memory.peak", "memory.max_usage_in_bytes"):
                if (group / name).exists():
                    return round(int((group / name).read_text()) / (1 << 20), 1)
        return None

    def _oom_kills(self) -> int:
        for group in self._groups:
            for name in ("memory.events", "memory.oom_control"):
                if (group / name).exists():
                    for line in (group / name).read_text().splitlines():
                        key, _, value = line.partition(" ")
                        if key == "oom_kill":
                            return int(value)
        return 0

    def _throttled(self) -> dict:
        """The CPU quota's periods and those in which the group ran out of it (and
        stood still until the next one): a stall the service cannot help but see as
        loop lag."""
        for group in self._groups:
            stat = group / "cpu.stat"
            if stat.exists():
                figures = dict(line.split() for line in stat.read_text().splitlines())
                if "nr_periods" in figures:
                    return {
                        "cpu_periods": int(figures["nr_periods"]),
                        "cpu_periods_throttled": int(figures["nr_throttled"]),
                    }
        return {}


def _groups_of(pid: int) -> list[str]:
    """The memory and CPU groups ``pid`` is in, as paths under ``CGROUPS`` (v1: one per
    controller; v2: the unified one), its own groups only, not the machine's root."""
    found = []
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, where = line.split(":", 2)
        if where == "/":
            continue
        if not controllers:  # cgroup v2: one tree for every controller
            unified = "unified" if (CGROUPS / "unified" / "cgroup.procs").exists() else ""
            found.append(f"{unified}{where}".lstrip("/"))
        found += [f"{c}{where}" for c in controllers.split(",") if c in ("memory", "cpu")]
    return found


def _joining(procs: list[Path]) -> Callable[[], None]:
    """What the child runs before ``exec``: move itself into the groups."""

    def join() -> None:
        for path in procs:
            path.write_text(str(os.getpid()))

    return join


def confine(
    command: list[str],
    memory_max: str,
    cpu_quota: int,
    way: str = "auto",
    period_us: int = PERIOD_US,
):
    """``command`` held to ``memory_max`` (``"300M"``) and ``cpu_quota`` (% of one
    core in each period of ``period_us``) by ``way`` (one of ``WAYS``); returns the
    ``Confinement``. Call its ``close`` once the process has ended."""
    held = Confinement(command, memory_max, cpu_quota, period_us)
    ways = {"systemd": held.by_systemd, "cgroup": held.by_cgroup, "rlimit": held.by_rlimit}
    tried = list(ways) if way == "auto" else [way] if way in ways else []
    for name in tried:
        if ways[name]():
            return held
    if way != "none":
        held.notes.append("no limit could be set: the process runs unlimited")
    return held
