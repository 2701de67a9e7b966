"""The referee page's Board tab over HTTP: the board check of a simulated board with a
stuck sensor, the LED test lighting cells through the wiring, and the virtual board a
simulated table sends its pages."""

from __future__ import annotations

import asyncio
import time

import pytest
from fastapi.testclient import TestClient

from boardref.outputs.panel.api import build_app
from boardref.runtime.config import load_config
from boardref.runtime.service import Service
from tests.boardref.conftest import PIN, PIN_HASH

LOCAL = ("127.0.0.1", 50000)


def _wait(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, condition
        time.sleep(0.01)


@pytest.fixture
def sim_table(tmp_path):
    config = load_config(
        **{
            "store.path": tmp_path / "log.db",
            "game.name": "catch_the_hare",
            "panel.referee_pin_hash": PIN_HASH,
        }
    )
    service = Service(config, asyncio.new_event_loop(), sim=True)
    _wait(lambda: service.link.state == "up")
    client = TestClient(build_app(service.panel), client=LOCAL, base_url="http://localhost")
    assert client.post("/api/referee/login", json={"pin": PIN}).status_code == 200
    yield service, client
    service.close()


def test_the_board_tab_needs_the_referee(sim_table):
    service, _ = sim_table
    stranger = TestClient(
        build_app(service.panel), client=("192.168.1.30", 5000), base_url="http://localhost"
    )
    assert stranger.get("/api/board/check").status_code == 403


def test_the_board_tab_shows_each_cell_and_flags_a_stuck_sensor(sim_table):
    service, client = sim_table
    service.simulator.set_board(bytes(25))
    service.simulator.stick(4)  # shorted from the start
    _wait(lambda: service.link.last_scan.cells == bytes(4) + b"\x01" + bytes(20))
    assert client.post("/api/board/check/reset").status_code == 200
    service.simulator.set_cell(9, 1)
    _wait(lambda: service.link.last_scan.cells[9] == 1)
    report = client.get("/api/board/check").json()
    by_sensor = {entry["sensor"]: entry for entry in report["sensors"]}
    assert by_sensor[4]["flag"] == "stuck"
    assert by_sensor[9]["changes"] == 1 and by_sensor[9]["state"] == 1
    assert by_sensor[0]["cell"] == "a1" and by_sensor[0]["flag"] == "never_seen"
    assert report["link"]["frames"] > 0
    assert report["strip"]["key"] == "board.leds.in_order"
    keys = [finding["key"] for finding in report["findings"]]
    assert "board.stuck" in keys


def test_the_led_test_lights_a_cell_and_gives_the_lights_back(sim_table):
    service, client = sim_table
    before = service.simulator.leds
    answer = client.post("/api/board/leds", json={"mode": "cell", "cell": "c3", "colour": "red"})
    assert answer.status_code == 200
    index = service.wiring.leds.index("c3")
    _wait(
        lambda: service.simulator.leds == bytes(3 * index) + b"\xff\0\0" + bytes(3 * (24 - index))
    )
    assert client.post("/api/board/leds", json={"mode": "off"}).status_code == 200
    _wait(lambda: service.simulator.leds == before)


def test_the_led_test_lights_every_cell_through_the_board_and_gives_the_lights_back(
    sim_table,
):
    service, client = sim_table
    before = service.simulator.leds
    answer = client.post("/api/board/leds", json={"mode": "all", "colour": "blue"})
    assert answer.status_code == 200
    lit = bytearray(3 * len(service.wiring.leds))
    for index, cell in enumerate(service.wiring.leds):
        if cell is not None:
            lit[3 * index : 3 * index + 3] = b"\0\0\xff"
    _wait(lambda: service.simulator.leds == bytes(lit))
    assert client.post("/api/board/leds", json={"mode": "off"}).status_code == 200
    _wait(lambda: service.simulator.leds == before)


def test_the_led_test_refuses_a_cell_not_on_the_board_in_words(sim_table):
    _, client = sim_table
    answer = client.post("/api/board/leds", json={"mode": "cell", "cell": "z9"})
    assert answer.status_code == 422
    assert "no LED sits under z9" in answer.json()["detail"]
    assert client.post("/api/board/leds", json={"mode": "dance"}).status_code == 422


def test_a_table_without_a_board_says_so(tmp_path):
    config = load_config(
        **{
            "store.path": tmp_path / "cards.db",
            "game.name": "fang_den_hut_cards",
            "panel.referee_pin_hash": PIN_HASH,
        }
    )
    service = Service(config, asyncio.new_event_loop())
    try:
        client = TestClient(build_app(service.panel), client=LOCAL, base_url="http://localhost")
        client.post("/api/referee/login", json={"pin": PIN})
        answer = client.get("/api/board/check")
        assert answer.status_code == 409
        assert answer.json()["said"]["key"] == "board.none"
    finally:
        service.close()


def test_the_strip_is_mapped_by_tapping_the_lit_cells(sim_table):
    service, client = sim_table
    cells = [cell.id for cell in service.referee.game.board.cells]
    # A maker whose strip runs from the last cell back: LED i lights cell 24 - i.
    answer = client.post("/api/board/map/leds").json()
    assert answer["led"] == 0 and answer["count"] == 25
    for led in range(25):
        lit = service.simulator.leds
        _wait(lambda led=led: service.simulator.leds[3 * led : 3 * led + 3] == b"\xff\xff\xff")
        assert lit.count(b"\xff") <= 3
        claimed = None if led == 7 else cells[24 - led]
        answer = client.post("/api/board/map/leds/claim", json={"cell": claimed}).json()
    assert answer["led"] is None
    assert answer["saved"] == ""  # a simulated table without [sensors.hall]: kept in memory
    wanted = list(reversed(cells))
    wanted[7] = None
    assert service.wiring.leds == wanted
    report = client.get("/api/board/check").json()
    assert report["strip"]["key"] == "board.leds.missing"
    client.post("/api/board/leds", json={"mode": "cell", "cell": cells[0], "colour": "blue"})
    _wait(lambda: service.simulator.leds[3 * 24 : 3 * 25] == b"\0\0\xff")


def test_claiming_without_mapping_or_a_strange_cell_is_refused_in_words(sim_table):
    _, client = sim_table
    answer = client.post("/api/board/map/leds/claim", json={"cell": "a1"})
    assert answer.status_code == 409
    assert answer.json()["said"]["key"] == "board.map.not_mapping"
    client.post("/api/board/map/leds")
    answer = client.post("/api/board/map/leds/claim", json={"cell": "z9"})
    assert answer.status_code == 422
    assert answer.json()["detail"] == "There is no cell z9"


def test_a_simulated_tables_state_carries_its_virtual_board_as_the_model_says(sim_table):
    """Every page's state holds the virtual board as its model: sent as a plain dict it
    went out unchecked, with a serialiser warning for each page on every change."""
    import warnings

    service, client = sim_table
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sent = service.panel.state().model_dump(mode="json")
    assert sent["virtual"] == client.get("/api/sim/virtual").json()
    assert sent["virtual"]["stacks"]


def test_only_a_page_that_draws_the_virtual_board_is_sent_it_and_its_changes(sim_table):
    """A hand lifting a piece changes the virtual board; pages other than /sim draw no
    virtual board, so they are not sent it, nor a state in which only it changed."""
    import dataclasses
    import json

    service, _ = sim_table
    panel = service.panel
    before = {virtual: panel.sent(None, virtual) for virtual in (False, True)}
    assert json.loads(before[False][0])["virtual"] is None
    assert json.loads(before[True][0])["virtual"]["stacks"]
    board = panel.shown.virtual
    panel.show(dataclasses.replace(panel.shown, virtual={**board, "version": board["version"] + 1}))
    after = {virtual: panel.sent(None, virtual) for virtual in (False, True)}
    assert json.loads(after[False][0])["seq"] == panel.seq
    assert after[False][1] == before[False][1]  # shows the table page nothing new
    assert after[True][1] != before[True][1]  # the /sim page its board's change
