"""Run every benchmark (``bench/bench_*.py``) one after another, as ``make bench``
does: each bench's own output as it comes, then a line with its wall and CPU time,
the total, and at the end one summary table of every budget in ``budgets.toml``:
our figure, the budget, met or not, and the peer's figure where a bench has one.

Arguments after the script go to every bench (``--full`` for the long forms,
``--smoke`` for the tiny ones). ``--only NAME[,NAME]`` runs some benches alone
(``--only vision,pi``); ``--summary LOG`` prints the summary table of a saved
``make bench`` log without running anything.

CPU time is the benches' own and their children's (user + system); wall time
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
import resource
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from machine import machine

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
    head = "| bench | figure | where (worst) | ours | budget | goal | met | peer |"
    out = [head, "|---|---|---|---|---|---|---|---|"]
    every = True
    for budget in budgets:
        row = judge(budget, line_of(budget, lines))
        every = every and row.met == "yes"
        sign = "" if budget.must_be else ("<= " if budget.at_least is None else ">= ")
        limit = budget.must_be or (sign + shown(row.limit) if row.limit is not None else "")
        goal = sign + shown(row.goal) if row.goal is not None else ""
        out.append(
            f"| {budget.bench} | {budget.what} | {row.where} | {shown(row.figure)} | "
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


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run(script: Path, arguments: list[str]) -> tuple[int, str, float, float]:
    """Run one bench, passing its output through; its exit code, its output, and its
    wall and CPU seconds."""
    cpu, begin = children_cpu(), time.monotonic()
    bench = subprocess.Popen(
        [sys.executable, str(script), *arguments], stdout=subprocess.PIPE, text=True
    )
    assert bench.stdout is not None
    output = []
    for text in bench.stdout:
        sys.stdout.write(text)
        sys.stdout.flush()
        output.append(text)
    bench.wait()
    return bench.returncode, "".join(output), time.monotonic() - begin, children_cpu() - cpu


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
    lines: dict[str, list[dict]] = {}
    times, failed = [], []
    print(json.dumps(machine()), flush=True)
    for script in scripts:
        code, output, wall, cpu = run(script, arguments)
        for bench, found in json_lines(output).items():
            lines.setdefault(bench, []).extend(found)
        if code:
            failed.append(script.name)
        times.append((script.name, wall, cpu))
        print(
            f"== {script.name}: {wall:.1f} s wall, {cpu:.1f} s CPU"
            f"{f', FAILED (exit {code})' if code else ''}  [load {load()}]",
            flush=True,
        )
    print("\n| bench | wall s | CPU s |\n|---|---|---|")
    for name, wall, cpu in times:
        print(f"| {name} | {wall:.1f} | {cpu:.1f} |")
    total_wall, total_cpu = sum(t[1] for t in times), sum(t[2] for t in times)
    print(f"| total | {total_wall:.1f} ({total_wall / 60:.1f} min) | {total_cpu:.1f} |")
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
