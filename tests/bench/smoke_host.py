"""The process the smoke runs of ``bench/bench_*.py`` are forked from: it imports once
what the scripts import (numpy, OpenCV, httpx, the engines, the service's modules),
so that each run, a process of its own, does not pay for those imports again.

Reads a line of JSON a run from its standard input (the script, the folder to run it
in, its environment), forks, and in the child runs the script as ``__main__`` with
``--smoke`` in that folder, its output in ``stdout`` and ``stderr`` there; answers
the child's pid and then its exit code, a line each. It never imports the bench's
own modules (``bench/smoke.py`` reads the command line when imported).
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import gc
import importlib
import json
import os
import runpy
import sys
import threading
import traceback
from pathlib import Path


def imported_by(script: Path) -> set[str]:
    """The modules ``script`` imports at its top level."""
    names = set()
    for node in ast.parse(script.read_text()).body:
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def preload(bench: Path) -> None:
    """Import what the scripts in ``bench`` import, but for the bench's own modules.
    A module that fails to import is left to the script that imports it, whose run
    then fails on it, as it would alone."""
    own = {path.stem for path in bench.glob("*.py")}
    for name in sorted(set().union(*map(imported_by, bench.glob("bench_*.py")))):
        if name.split(".")[0] not in own and name != "__future__":
            with contextlib.suppress(Exception):
                importlib.import_module(name)


def run(script: str, folder: str, env: dict) -> int:
    """In the forked child: ``script --smoke`` as ``__main__``; its exit code."""
    os.chdir(folder)
    os.environ.clear()
    os.environ.update(env)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    for fd, name in ((1, "stdout"), (2, "stderr")):
        os.dup2(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
    sys.argv = [script, "--smoke"]
    sys.path[0] = str(Path(script).parent)
    try:
        runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as stop:  # as Python ends on it: a message is printed, code 1
        code = stop.code if isinstance(stop.code, int) else stop.code is not None
        if not isinstance(stop.code, int | None):
            print(stop.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        code = 1
    return code


def leave(code: int) -> None:
    """End the child as the script would end on its own (its threads joined, its exit
    handlers run), without tearing down every module the host imported: that would
    touch, and so copy, all of the host's memory."""
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def main() -> None:
    preload(Path(sys.argv[1]))
    gc.freeze()  # the children's collections leave the host's objects (and pages) alone
    for line in sys.stdin:
        asked = json.loads(line)
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            leave(run(asked["script"], asked["folder"], asked["env"]))
        print(pid, flush=True)
        print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)


if __name__ == "__main__":
    main()
