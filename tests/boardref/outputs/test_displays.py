"""What the outputs are shown: one ``Display`` pushed whole to each of them. The panel
draws only what was pushed, the café's report does not depend on which output hears
first, an output that fails hides the table from no other, and the service that
pushes it is whole once made."""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import replace

import pytest

from boardref.outputs import announcer
from boardref.outputs.fleet import dashboard_state
from boardref.runtime.config import load_config
from boardref.runtime.service import Service
from tests.boardref.outputs.panel.test_panel import lay_out, play_on_board
from tests.harness import free_port

#: the parts a table may do without (or has only while they work), and nothing else
OPTIONAL = {
    "loop_lag",
    "reporter",
    "status",
    "camera",
    "camera_opening",
    "link",
    "simulator",
    "virtual",
    "board_check",
    "damaged_log",
    "_indexing",
    "_unindexed",
}


@pytest.fixture
def reporting(tmp_path):
    """A board table that reports to a broker nobody runs: what it would send is kept."""
    config = load_config(
        **{
            "store.path": tmp_path / "log.db",
            "sensors.hall": {"device": str(tmp_path / "unplugged-pico")},
            "fleet.url": f"mqtt://127.0.0.1:{free_port()}",
            "fleet.table_id": "t1",
        }
    )
    service = Service(config, asyncio.new_event_loop())
    yield service
    service.close()


def reported(service) -> dict:
    """The table's state as the reporter would send it to the café's dashboard."""
    return json.loads(service.reporter._state)


def test_the_panel_draws_only_the_display_it_was_pushed(service):
    shown = service.displays.shown
    assert service.link_state() != "up"
    pushed = replace(shown, link="up", sim=True, virtual=None)
    service.panel.show(pushed)
    state = service.panel.state()
    assert (state.link, state.sim, state.plies) == ("up", True, shown.state.plies)
    lay_out(service)  # the referee's next snapshot comes with the table's own facts again
    assert service.panel.state().link == service.link_state()


def test_the_cafe_report_is_right_whichever_output_hears_first(reporting):
    service = reporting
    service.referee.listeners.reverse()
    service.displays.outputs.reverse()
    lay_out(service)
    move = play_on_board(service)
    report = reported(service)
    assert report["last_move"] == str(move) and report["plies"] == 1
    assert report == {
        "table": "t1",
        **dashboard_state(service.panel.shown, service.panel.public_base()),
    }
    assert report["started"] == service.referee.started > 0


def test_an_output_that_fails_hides_the_table_from_no_other(reporting, caplog):
    service = reporting

    def broken(shown):
        raise RuntimeError("a broken output")

    service.displays.outputs.insert(0, broken)
    lay_out(service)
    with caplog.at_level(logging.ERROR, "boardref"):
        move = play_on_board(service)
    assert service.panel.shown.state.last_played == str(move)
    assert reported(service)["last_move"] == str(move)
    assert "an output failed to show the table" in caplog.text
    assert [kind for kind, _ in service.referee.log][-1] == "move"


def test_a_sentence_that_cannot_be_made_keeps_no_state_from_the_table(
    reporting, caplog, monkeypatch
):
    service = reporting
    said = announcer.sentences
    broken = True

    def sentences(before, after):
        if broken:
            raise KeyError("a place with no words")
        return said(before, after)

    monkeypatch.setattr(announcer, "sentences", sentences)
    said_before = service.displays.shown.said
    with caplog.at_level(logging.ERROR, "boardref"):
        lay_out(service)
        move = play_on_board(service)
    assert service.panel.shown.state.last_played == str(move)
    assert reported(service)["last_move"] == str(move)
    failures = [r for r in caplog.records if "could not say what happened" in r.message]
    assert len(failures) == 1, "a fault at every state is logged once"
    assert "KeyError" in failures[0].message and "the game goes on" in failures[0].message
    assert service.panel.shown.said == said_before
    broken = False  # the table speaks again at its next state
    referee = service.referee
    state = referee.positions[-1]
    following = referee.game.apply(state, referee.game.legal_moves(state)[0])
    referee.sense(referee.game.sense(following, "presence"), 300.0)
    referee.tick(301.0)
    assert service.panel.shown.state.plies == 2
    assert {a.said.key for a in service.panel.shown.said} > {a.said.key for a in said_before}


@pytest.mark.parametrize("sim", [False, True])
def test_a_service_is_whole_once_made(tmp_path, sim):
    config = load_config(**{"store.path": tmp_path / "log.db", "panel.port": free_port()})
    service = Service(config, asyncio.new_event_loop(), sim)
    try:
        unset = {name for name, value in vars(service).items() if value is None}
        assert unset <= OPTIONAL, unset - OPTIONAL
        if sim:  # the simulated board and its link are there from the start
            assert None not in (service.link, service.simulator, service.virtual)
            assert service.displays.shown.virtual == service.virtual.snapshot()
    finally:
        service.close()
