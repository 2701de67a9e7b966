"""One writer per event log: the program that writes a log (``boardref serve``,
``simulate --store``, ``games import``) holds an advisory lock on ``<log>.lock``
beside it for as long as it runs, and notes there who it is, so that a second writer
is refused at once with a sentence naming the first.

The kernel lets go of the lock when the holder ends, however it ends (kill -9
included): there is never a stale lock to clean by hand. It must never wait for a
holder, nor delete the lock file (a deleted file guards nothing). Readers take no lock.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
from pathlib import Path

from boardref.eventlog.log_check import cause
from boardref.eventlog.store import LogFault, StoreError

#: what a refused ``serve`` or ``simulate`` can do instead of stopping the holder
OWN_LOG = " or give this one its own log with --store PATH"


class LogInUse(StoreError):
    """Another program writes to the event log; the message names it."""


class LogLock:
    """The lock on the event log at ``path``, held from here until ``close`` (or the
    process's end) by ``command`` (``serve``, ``simulate``, ``games import``).
    ``panel`` is the host and port a service's panel listens on; ``instead`` ends the
    refusal of a second writer (with its own joining word: " or ...", ", then ...").
    Raises ``LogInUse`` when another program holds it, ``StoreError`` when the lock
    file cannot be opened."""

    def __init__(
        self,
        path: Path | str,
        command: str,
        instead: str,
        panel: tuple[str, int] | None = None,
    ):
        self._fd: int | None = None
        if str(path) == ":memory:":
            return
        path = Path(path)
        lock = Path(f"{path}.lock")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise LogFault(cause(exc, path)) from None  # the words a table's fault page shows
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _holder(fd)
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise StoreError(f"cannot lock the event log {path}: {exc.strerror}") from None
            raise LogInUse(_refusal(path, holder, instead)) from None
        self._fd = fd
        note = {"pid": os.getpid(), "command": command, "unit": _system_unit()}
        if panel is not None:
            note["host"], note["port"] = panel
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(note).encode(), 0)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # the kernel lets go of the lock
            self._fd = None

    def __enter__(self) -> LogLock:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _holder(fd: int) -> dict:
    """What the holder noted about itself; empty while it has not yet written it."""
    try:
        found = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _system_unit() -> str | None:
    """The systemd system service this process runs as (``boardref.service``), so a
    refusal can say how to stop it; None when started by hand."""
    if "INVOCATION_ID" not in os.environ:  # set by systemd for the processes it starts
        return None
    try:
        groups = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for group in groups:
        where = group.rpartition(":")[2]
        if where.startswith("/system.slice/") and where.endswith(".service"):
            return where.rpartition("/")[2]
    return None


def _refusal(path: Path, holder: dict, instead: str) -> str:
    """The sentence refusing a second writer: who holds the log, and what to do."""
    pid, command, unit = holder.get("pid"), holder.get("command"), holder.get("unit")
    known = [f"PID {pid}"] if pid else []
    if holder.get("port"):
        known.append(f"panel on port {holder['port']}")
    if unit:
        who = "the boardref service"
        stop = f"stop it first (sudo systemctl stop {unit.removesuffix('.service')})"
    elif command == "serve":
        who = "another boardref service"
        stop = "stop it first (Ctrl+C where it runs" + (f", or kill {pid})" if pid else ")")
    elif command:
        who = f"boardref {command}"
        stop = "let it finish" + (f" (or kill {pid})" if pid else "")
    else:
        who, stop = "another boardref program", "stop it first"
    running = f"{who} ({', '.join(known)})" if known else who
    return f"the event log {path} is in use by {running}; {stop}{instead}"
