"""`make bench`'s runner: its summary judges each budget on the bench's own line, the
worst place of a pattern, and says when a figure is missing; every budget in
`bench/budgets.toml` names a bench that exists."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import run  # noqa: E402


def rows(lines: list[dict], budgets: list[run.Budget]) -> list[list[str]]:
    text = "\n".join(json.dumps(line) for line in lines)
    table, _ = run.summary(run.json_lines("noise\n" + text), budgets)
    return [[cell.strip() for cell in row.split("|")[1:-1]] for row in table.splitlines()[2:]]


def test_the_worst_place_of_a_pattern_is_shown_and_judged():
    budget = run.Budget(
        "referee", "verdict", ["tables", "*", "ms"], at_most=["budget_ms"], goal=0.3
    )
    line = {"bench": "referee", "budget_ms": 5.0, "tables": {"a": {"ms": 1.0}, "b": {"ms": 7.5}}}
    [row] = rows([line], [budget])
    assert row[2:8] == ["b", "", "7.5", "<= 5", "<= 0.3", "no (1 of 2)"]


def test_at_least_takes_the_budget_where_the_pattern_took_the_figure():
    budget = run.Budget("players", "win", ["games", "*", "rate"], at_least=["games", "*", "target"])
    line = {
        "bench": "players",
        "games": {"x": {"rate": 0.8, "target": 0.5}, "y": {"rate": 0.9, "target": 0.95}},
    }
    [row] = rows([line], [budget])
    assert row[2:8] == ["y", "", "0.9", ">= 0.95", "", "no (1 of 2)"]


def test_a_line_is_picked_by_its_fields_and_a_missing_figure_says_so():
    budgets = [
        run.Budget("fleet", "p99", ["p99"], at_most=["budget"], line={"tables": 500}),
        run.Budget("fleet", "gone", ["nothing"], at_most=1),
        run.Budget("vision", "never ran", ["x"], at_most=1),
    ]
    lines = [
        {"bench": "fleet", "tables": 500, "p99": 50, "budget": 100},
        {"bench": "fleet", "tables": 2000, "p99": 300, "budget": 250},
    ]
    table = rows(lines, budgets)
    assert [row[7] for row in table] == ["yes", "missing", "did not run"]
    assert table[0][4] == "50"


def test_the_figure_before_is_shown_beside_ours():
    budget = run.Budget("pi", "idle CPU %", ["idle"], at_most=0.3, before=1.36)
    [row] = rows([{"bench": "pi", "idle": 0.08}], [budget])
    assert row[3:7] == ["1.36", "0.08", "<= 0.3", ""]


def test_every_budget_names_a_bench_that_exists():
    benches = {p.stem.removeprefix("bench_") for p in BENCH.glob("bench_*.py")}
    budgets = run.load_budgets()
    assert budgets
    assert {b.bench for b in budgets} <= benches


@pytest.mark.process
def test_the_next_bench_starts_beside_one_that_only_waits(tmp_path: Path, capsys):
    waits = tmp_path / "bench_waits.py"
    waits.write_text(
        "import json, time\n"
        f"print({run.ONLY_WAITING!r}, flush=True)\n"
        "time.sleep(1.0)\n"
        "print(json.dumps({'bench': 'waits', 'ended': time.monotonic()}))\n"
    )
    works = tmp_path / "bench_works.py"
    works.write_text(
        "import json, time\nprint(json.dumps({'bench': 'works', 'began': time.monotonic()}))\n"
    )
    first, second = run.run_all([waits, works], [])
    lines = run.json_lines("".join(first.output + second.output))
    assert lines["works"][0]["began"] < lines["waits"][0]["ended"]
    assert first.code == second.code == 0 and first.wall >= 1.0
    assert capsys.readouterr().out.count("== bench_") == 2
