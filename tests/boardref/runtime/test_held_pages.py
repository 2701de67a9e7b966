"""The pages wait for a turn's index: a state whose position is still being indexed
(the moves the board cannot feel, and whether the turn can be confirmed, come with
the index) is sent to the pages once the index is taken, as one state, not as two
one after the other; a slow index holds them for ``HOLD_S`` at the longest."""

from __future__ import annotations

import json
import time

import pytest

from boardref.outputs.panel.panel import HOLD_S
from tests.boardref.runtime.test_service import _config, _serve_for
from tests.harness import until_on_loop

pytestmark = pytest.mark.slow


class Page:
    """A connected page, as the hub sees it: what it is offered, and when."""

    seat = None
    virtual = False

    def __init__(self):
        self.offered: list[tuple[float, dict]] = []

    def offer(self, text: str, shown: str | None = None) -> None:
        self.offered.append((time.monotonic(), json.loads(text)))


def played(tmp_path, monkeypatch, index_s: float) -> tuple[Page, float, float]:
    """A simulated Sternhalma table whose indexing takes ``index_s``: one move made on
    it, with a page connected. The page, when the move was set down and when the
    new position's index was done."""
    import boardref.runtime.refereeing

    built, slow, indexed = boardref.runtime.refereeing.index_successors, [False], []

    def in_the_worker(game, state, sensor):
        if slow[0]:
            time.sleep(index_s)
        found = built(game, state, sensor)
        indexed.append(time.monotonic())
        return found

    monkeypatch.setattr(boardref.runtime.refereeing, "index_successors", in_the_worker)
    page, set_down = Page(), []

    async def move(service):
        referee = service.referee

        def ready():
            return referee.phase == "move" and not referee.unprepared()

        def lifted():
            return any(state.get("lifted") for _, state in page.offered)

        def indexed_move():
            return len(referee.positions) == 2 and not referee.unprepared()

        await until_on_loop(ready, "the start position indexed")
        service.panel.hub.subscribers.add(page)
        slow[0] = True
        move = referee.game.legal_moves(referee.positions[-1])[0]
        service.sim_act("lift", move.path[0])
        await until_on_loop(lifted, "the lift shown")
        set_down.append(time.monotonic())
        service.sim_act("place", move.path[-1])
        await until_on_loop(indexed_move, "the move taken and indexed")

    # once moved, anything held is sent within HOLD_S
    _serve_for(_config(tmp_path), HOLD_S + 0.2, during=move, sim=True)
    return page, set_down[0], indexed[-1]


def test_the_pages_are_sent_the_move_once_its_position_is_indexed(tmp_path, monkeypatch):
    page, set_down, indexed = played(tmp_path, monkeypatch, index_s=0.1)
    moved = [(at, state) for at, state in page.offered if state["plies"] == 1]
    assert moved, "the pages were never sent the move"
    assert moved[0][0] >= indexed, "the move was sent before its position was indexed"
    assert len(moved) == 1, f"the move came to the pages as {len(moved)} states"
    assert set_down < indexed


def test_a_slow_index_holds_the_pages_a_moment_at_most(tmp_path, monkeypatch):
    page, _, indexed = played(tmp_path, monkeypatch, index_s=HOLD_S + 2.0)
    moved = [at for at, state in page.offered if state["plies"] == 1]
    assert moved, "the pages were never sent the move"
    assert moved[0] < indexed, "the pages waited for the whole of a slow index"
