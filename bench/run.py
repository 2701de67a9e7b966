"""Run every benchmark (``bench/bench_*.py``) one after another, as ``make bench``
does: each bench's own output as it comes, then a line with its wall and CPU time,
the total, and at the end one summary table of every budget in ``budgets.toml``:
the figure before (where a budget records it), ours, the budget, met or not, and
the peer's figure where a bench has one.
A bench whose last part only waits (``bench_service.py``'s idle minute) says so
(``smoke.only_waiting``), and the next bench starts beside it; every bench still
measures alone.

Arguments after the script go to every bench (``--full`` for the long forms,
``--smoke`` for the tiny ones). ``--only NAME[,NAME]`` runs some benches alone
(``--only vision,pi``); ``--summary LOG`` prints the summary table of a saved
``make bench`` log without running anything.

CPU time is each bench's own and its children's (user + system); wall time
depends on what else the machine does, so the load average is printed beside it.
The machine is described first and again last (``bench/machine.py``: its processor
and a fixed workload's CPU time), so figures from different machines, or from one
machine busy beneath the benches, can be told apart.
A bench that fails does not stop the others; ``make bench`` fails at the end.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import subprocess
import sys
import threading
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from machine import machine
from smoke import ONLY_WAITING

HERE = Path(__file__).resolve().parent
BUDGETS = HERE / "budgets.toml"


@dataclass(frozen=True)
class Budget:
    """One budget of one bench (a ``[[budget]]`` of ``budgets.toml``)."""

    bench: str
    what: str
    figure: list[str]
    at_most: list[str] | float | None = None
    at_least: list[str] | float | None = None
    goal: list[str] | float | None = None
    #: ``true`` (the figure must be true) or ``none`` (must be absent: no failure)
    must_be: str | None = None
    peer: list[str] | None = None
    #: the line of a bench that prints several, by a field's value (``{tables = 500}``)
    line: dict | None = None
    #: the figure before the work that set this budget, measured the same way, so the
    #: summary shows what changed
    before: float | None = None


def load_budgets(path: Path = BUDGETS) -> list[Budget]:
    """Every budget in ``path``; a misspelt key is an error, not a silent blank row."""
    with path.open("rb") as f:
        return [Budget(**entry) for entry in tomllib.load(f)["budget"]]


def matches(tree: object, path: list[str], bound: tuple[str, ...] = ()) -> list:
    """``(keys the wildcards took, value)`` for every place ``path`` reaches in
    ``tree``; a path step may be a shell pattern (``*``, ``*/easy``)."""
    if not path:
        return [(bound, tree)]
    if not isinstance(tree, dict):
        return []
    step, rest = path[0], path[1:]
    if not any(c in step for c in "*?["):
        return matches(tree[step], rest, bound) if step in tree else []
    found = []
    for key in tree:
        if fnmatch.fnmatchcase(key, step):
            found += matches(tree[key], rest, (*bound, key))
    return found


def value_at(tree: dict, where: list[str] | float | None, bound: tuple[str, ...]):
    """A budget's number: written in ``budgets.toml``, or read from the bench's
    line at ``where``, its wildcards taking the keys the figure's took."""
    if where is None or isinstance(where, int | float):
        return where
    keys = iter(bound)
    path = [next(keys, step) if any(c in step for c in "*?[") else step for step in where]
    found = matches(tree, path)
    return found[0][1] if found else None


@dataclass
class Row:
    """A budget judged on one run: the worst figure among the places it covers."""

    budget: Budget
    figure: object = None
    where: str = ""
    limit: object = None
    goal: object = None
    met: str = "missing"
    peer: object = None


def judge(budget: Budget, line: dict | None) -> Row:
    """``budget`` on a bench's line: met when every place it covers keeps it; the row
    shows the worst place (``met`` reads ``no (2 of 3)`` when some keep it)."""
    row = Row(budget)
    if line is None:
        row.met = "did not run"
        return row
    places = matches(line, budget.figure)
    if not places:
        return row
    judged = []
    for bound, figure in places:
        bound_by = budget.at_most if budget.at_least is None else budget.at_least
        limit = value_at(line, bound_by, bound)
        if budget.must_be == "true":
            ok = figure is True
        elif budget.must_be == "none":
            ok = figure is None
        elif not isinstance(figure, int | float) or not isinstance(limit, int | float):
            continue  # a place with no number to judge (a target not set for it)
        elif budget.at_least is not None:
            ok = figure >= limit
        else:
            ok = figure <= limit
        judged.append((ok, figure, limit, bound))
    if not judged:
        return row

    def badness(item: tuple) -> tuple:
        ok, figure, _, _ = item
        if not isinstance(figure, int | float) or isinstance(figure, bool):
            return (not ok, 0)
        return (not ok, -figure if budget.at_least is not None else figure)

    _, row.figure, row.limit, bound = max(judged, key=badness)
    row.where = "/".join(bound)
    row.goal = value_at(line, budget.goal, bound)
    kept = sum(item[0] for item in judged)
    row.met = "yes" if kept == len(judged) else "no"
    if len(judged) > 1:
        row.met += f" ({kept} of {len(judged)})"
    if budget.peer is not None:
        found = matches(line, budget.peer)
        row.peer = found[0][1] if found else None
    return row


def line_of(budget: Budget, lines: dict[str, list[dict]]) -> dict | None:
    """The bench's JSON line the budget reads: the last one, or the one whose fields
    match ``budget.line``."""
    candidates = lines.get(budget.bench, [])
    if budget.line:
        candidates = [c for c in candidates if all(c.get(k) == v for k, v in budget.line.items())]
    return candidates[-1] if candidates else None


def shown(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def summary(lines: dict[str, list[dict]], budgets: list[Budget]) -> tuple[str, bool]:
    """The summary table (Markdown) and whether every budget was met."""
    head = "| bench | figure | where (worst) | before | ours | budget | goal | met | peer |"
    out = [head, "|---|---|---|---|---|---|---|---|---|"]
    every = True
    for budget in budgets:
        row = judge(budget, line_of(budget, lines))
        every = every and row.met == "yes"
        sign = "" if budget.must_be else ("<= " if budget.at_least is None else ">= ")
        limit = budget.must_be or (sign + shown(row.limit) if row.limit is not None else "")
        goal = sign + shown(row.goal) if row.goal is not None else ""
        out.append(
            f"| {budget.bench} | {budget.what} | {row.where} | {shown(budget.before)} | "
            f"{shown(row.figure)} | "
            f"{limit} | {goal} | {row.met} | {shown(row.peer)} |"
        )
    return "\n".join(out), every


def json_lines(text: str) -> dict[str, list[dict]]:
    """Every bench's JSON lines (``{"bench": ...}``) in ``text``, by bench."""
    found: dict[str, list[dict]] = {}
    for raw in text.splitlines():
        raw = raw.strip()
        if not raw.startswith("{"):
            continue
        try:
            line = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if isinstance(line, dict) and "bench" in line:
            found.setdefault(line["bench"], []).append(line)
    return found


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


class Bench:
    """One bench running, its output passed through as it comes (whole lines, so
    that the lines of two benches never mix) and kept; ``waiting`` is set once it has
    said it only waits from now on (``ONLY_WAITING``) or has ended."""

    def __init__(self, script: Path, arguments: list[str], lock: threading.Lock):
        self.name = script.name
        self.lock, self.output = lock, []
        self.waiting = threading.Event()
        self.begin = time.monotonic()
        self.process = subprocess.Popen(
            [sys.executable, str(script), *arguments], stdout=subprocess.PIPE, text=True
        )
        # a failure until its exit code is read
        self.code, self.wall, self.cpu = 1, 0.0, 0.0
        self._pump = threading.Thread(target=self._pass_through, daemon=True)
        self._pump.start()

    def _pass_through(self) -> None:
        assert self.process.stdout is not None
        try:
            with self.process.stdout:
                for text in self.process.stdout:
                    with self.lock:
                        sys.stdout.write(text)
                        sys.stdout.flush()
                    self.output.append(text)
                    if text.strip() == ONLY_WAITING:
                        self.waiting.set()
            # its own CPU and that of the processes it started and waited for, not
            # that of a bench running beside it
            _, status, used = os.wait4(self.process.pid, 0)
            self.wall = time.monotonic() - self.begin
            self.cpu = used.ru_utime + used.ru_stime
            self.code = self.process.returncode = os.waitstatus_to_exitcode(status)
            with self.lock:
                print(
                    f"== {self.name}: {self.wall:.1f} s wall, {self.cpu:.1f} s CPU"
                    f"{f', FAILED (exit {self.code})' if self.code else ''}  [load {load()}]",
                    flush=True,
                )
        finally:
            self.waiting.set()

    def finish(self) -> None:
        """Wait until it has ended and its times are said."""
        self._pump.join()


def run_all(scripts: list[Path], arguments: list[str]) -> list[Bench]:
    """Run ``scripts`` one after another, each alone on the machine while it measures:
    the next starts once one has ended or said it only waits from now on (it leaves a
    process of its own idle, whose own CPU time no other work adds to, and which
    does not slow other work)."""
    lock, started = threading.Lock(), []
    for script in scripts:
        started.append(Bench(script, arguments, lock))
        started[-1].waiting.wait()
    for bench in started:
        bench.finish()
    return started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="the benches to run, by name (vision,pi)")
    parser.add_argument("--summary", type=Path, help="summarise a saved log; run nothing")
    options, arguments = parser.parse_known_args()
    budgets = load_budgets()
    if options.summary:
        table, _ = summary(json_lines(options.summary.read_text()), budgets)
        print(table)
        return
    scripts = sorted(HERE.glob("bench_*.py"))
    if options.only:
        names = options.only.split(",")
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in names]
    print(json.dumps(machine()), flush=True)
    begin = time.monotonic()
    benches = run_all(scripts, arguments)
    elapsed = time.monotonic() - begin
    lines: dict[str, list[dict]] = {}
    for bench in benches:
        for name, found in json_lines("".join(bench.output)).items():
            lines.setdefault(name, []).extend(found)
    failed = [bench.name for bench in benches if bench.code]
    print("\n| bench | wall s | CPU s |\n|---|---|---|")
    for bench in benches:
        print(f"| {bench.name} | {bench.wall:.1f} | {bench.cpu:.1f} |")
    # a bench that only waited at its end ran beside the next: the total is the time
    # the whole run took, not the sum of the benches' walls
    total_cpu = sum(bench.cpu for bench in benches)
    print(f"| total | {elapsed:.1f} ({elapsed / 60:.1f} min) | {total_cpu:.1f} |")
    print(f"load average at the end: {load()} ({os.cpu_count()} cores)")
    print(json.dumps(machine()) + "\n")
    table, every = summary(lines, budgets)
    print(table)
    print(f"\nevery budget met: {'yes' if every else 'no'}")
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
