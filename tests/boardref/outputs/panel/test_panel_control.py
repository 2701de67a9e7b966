"""The panel gives the table's commands through ``TableControl`` alone: no module of
the panel names the service or the referee behind it, and the panel and its app do
not import each other, not even for the type checker."""

import ast
from pathlib import Path

import grimp

import boardref.outputs.panel
from boardref.runtime.control import TableControl
from boardref.runtime.table_control import ServiceControl
from tests.test_import_circles import circles

PANEL = Path(boardref.outputs.panel.__file__).parent
#: panel.py still builds each page's state from the service (its link and virtual board)
STATE_SIDE = {"panel.py"}
BEHIND = ("service", "referee")


def reaching_past(source: str) -> list[str]:
    """Where ``source`` names the service or the referee as an attribute."""
    return [
        f"line {node.lineno}: .{node.attr}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and node.attr in BEHIND
    ]


def test_no_route_reaches_past_the_table_controls():
    found = {
        path.name: reaching_past(path.read_text())
        for path in sorted(PANEL.glob("*.py"))
        if path.name not in STATE_SIDE
    }
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_a_route_reaching_past_is_found():
    assert sorted(reaching_past("panel.service.referee.settle = 0.5")) == [
        "line 1: .referee",
        "line 1: .service",
    ]
    assert reaching_past("panel.control.set_settle_time(500)") == []


def test_the_panel_and_its_app_import_no_circle_even_for_the_type_checker():
    graph = grimp.build_graph("boardref")  # imports under TYPE_CHECKING included
    assert [group for group in circles(graph) if "boardref.outputs.panel.panel" in group] == []


def test_the_service_carries_out_every_control():
    controls = [name for name in vars(TableControl) if not name.startswith("_")]
    assert len(controls) > 30
    assert [name for name in controls if not hasattr(ServiceControl, name)] == []
