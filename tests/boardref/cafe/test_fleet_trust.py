"""The café broker believes each table only about itself. On a real mosquitto set up
as docs/fleet.md tells a café (password file, ``boardref/cafe/mosquitto.acl``), one
table's login cannot write another table's topics nor read them; and the real
dashboard, on a broker without that ACL (as a bridge passes messages on), believes
no message that speaks for another table, no name outside the safe charset, no
record that names another table or does not verify, and links a table only to an
http(s) address."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import random
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from boardref.cafe.dashboard import RECORDS_WAITING, Fleet
from boardref.cafe.daybook import DayBook, day_of
from boardref.outputs.fleet import Broker
from boardref.runtime.config import ConfigError, load_config
from engines.records import to_json
from tests.boardref.outputs.test_fleet import (  # noqa: F401 (broker is a fixture)
    broker,
    client_of,
    play,
    pytestmark,
)
from tests.engines.test_records import random_record
from tests.harness import (
    ACL,
    CHROMIUM,
    CHROMIUM_ARGS,
    MAX_PACKET,
    WAIT,
    Login,
    Mosquitto,
    dashboard_row,
    free_port,
    reporting_table,
    start_dashboard,
    until,
)

USERS = {"t1": "pw-t1", "t2": "pw-t2", "dashboard": "pw-dashboard"}
NOT_AUTHORIZED = 0x87  # MQTT 5's PUBACK reason code for a refused publish
#: names no table may have: a path, letters outside ASCII, too long, a space (a line
#: break in a topic makes mosquitto drop the client: it is sent inside records)
BAD_NAMES = ["..", "tïsch", "x" * 200, "t 1"]
HEADER_BREAK = "a\r\nContent-Type: text/html"


@pytest.fixture
def cafe_broker(tmp_path):
    mosquitto = Mosquitto(tmp_path, users=USERS)
    mosquitto.start()
    yield mosquitto
    mosquitto.stop()


@pytest.mark.broker
def test_another_tables_login_can_neither_write_nor_read_a_tables_topics(tmp_path, cafe_broker):
    t1 = reporting_table(tmp_path, cafe_broker.url_of("t1"), "t1")
    port = free_port()
    dashboard = start_dashboard(cafe_broker.url_of("dashboard"), port)
    t2 = Login(cafe_broker.port, "t2", USERS["t2"])
    http = client_of(port)
    try:
        play(t1, 2, random.Random(1))
        before = until(
            lambda: (
                (row := dashboard_row(http, "t1"))
                and (row["state"] or {}).get("plies") == 2
                and row
            ),
            "t1's moves on the dashboard",
        )
        t2.client.subscribe("boardref/#", qos=1)
        assert t2.subscribed.wait(WAIT)
        forged = {
            "state": json.dumps({**before["state"], "plies": 99, "winner": "t2"}),
            "event": json.dumps({"table": "t1", "kind": "move", "seq": 999, "data": {}}),
            "record": json.dumps({"table": "t1", "record": {}}),
            "status": "offline",
        }
        refused = {kind: t2.send(f"boardref/t1/{kind}", text) for kind, text in forged.items()}
        assert refused == dict.fromkeys(forged, NOT_AUTHORIZED)
        # its own topic is open to it: the broker refuses by the topic's table alone
        own = {"table": "t2", "game": "catch_the_hare", "plies": 0}
        assert t2.send("boardref/t2/state", json.dumps(own)) == 0
        play(t1, 1, random.Random(2))
        moved = before["state"]["plies"] + 1

        def heard() -> bool:
            # a move's event and its state come on topics of their own, in either order
            t1 = dashboard_row(http, "t1")
            return (
                dashboard_row(http, "t2")
                and t1["events"] > before["events"]
                and t1["state"]["plies"] >= moved
            )

        until(heard, "t2's own state and t1's next move at the dashboard")
        after = dashboard_row(http, "t1")
        assert after["status"] == "online" and after["state"]["plies"] == moved
        assert after["last_event"]["seq"] != 999
        assert t2.heard == [], "a table's login reads nothing of any table"
    finally:
        http.close()
        t2.close()
        dashboard.terminate()
        dashboard.wait(WAIT)
        t1.close()


@pytest.mark.broker
def test_a_table_whose_login_is_not_its_name_is_refused_in_words():
    with pytest.raises(ConfigError, match="broker login is 't2' but the table is 't1'"):
        load_config(**{"fleet.url": "mqtt://t2:pw@127.0.0.1:1883", "fleet.table_id": "t1"})
    with pytest.raises(ConfigError, match="fleet.table_id .* letters A-Z or a-z, digits"):
        load_config(**{"fleet.table_id": "../t1"})
    serve = subprocess.run(
        [sys.executable, "-m", "boardref", "serve", "--sim", "--mqtt", "mqtt://t2:pw@127.0.0.1:1"]
        + ["--table-id", "t1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert serve.returncode == 2
    assert serve.stderr.count("\n") == 1 and "Traceback" not in serve.stderr
    assert "must be the same" in serve.stderr


def a_record(table: str):
    """A real game's record (it verifies) as table ``table`` sent it."""
    record = random_record(("catch_the_hare", None, {}), 0)
    return dataclasses.replace(record, table=table)


def record_message(record, table: str | None = None) -> str:
    return json.dumps({"table": table or record.table, "record": to_json(record)})


@pytest.mark.browser
def test_the_dashboard_believes_a_table_only_about_itself(tmp_path, broker):  # noqa: F811
    port = free_port()
    dashboard = start_dashboard(broker.url, port)
    anyone = Login(broker.port, None, None)
    http = client_of(port)
    state = {"table": "t1", "game": "catch_the_hare", "plies": 3}
    try:
        anyone.send("boardref/t1/state", json.dumps({**state, "panel_url": "javascript:alert(1)"}))
        anyone.send("boardref/t1/status", "online")
        # each refused message is sent before one that is believed: when that one
        # shows, the broker has passed the refused one on too
        anyone.send("boardref/t1/state", json.dumps({**state, "table": "t2", "plies": 50}))
        anyone.send("boardref/t1/event", json.dumps({"table": "t2", "kind": "move", "seq": 9}))
        anyone.send("boardref/t1/status", "pwned")
        anyone.send("boardref/t1/state", "[1, 2]")
        for name in BAD_NAMES:
            anyone.send(f"boardref/{name}/state", json.dumps({**state, "table": name}))
            anyone.send(f"boardref/{name}/record", record_message(a_record(name)))
        good = a_record("t3")
        slipping = dataclasses.replace(good, table="../../../../tmp/zipslip")
        loser = 1 - good.result.winners[0]  # a game of two seats, won by the other
        broken = dataclasses.replace(
            good, result=dataclasses.replace(good.result, winners=(loser,))
        )
        breaking = dataclasses.replace(good, table=HEADER_BREAK)
        anyone.send("boardref/t3/record", record_message(slipping, table="t3"))
        anyone.send("boardref/t3/record", record_message(breaking, table="t3"))
        anyone.send("boardref/t3/record", record_message(breaking))
        anyone.send("boardref/t3/record", record_message(a_record("t1"), table="t3"))
        anyone.send("boardref/t3/record", record_message(broken))
        anyone.send("boardref/t3/record", record_message(good))
        anyone.send(
            "boardref/t1/state", json.dumps({**state, "plies": 4, "panel_url": "http:///x"})
        )
        until(
            lambda: (dashboard_row(http, "t1") or {}).get("state", {}).get("plies") == 4, "t1's 4th"
        )
        day = day_of(good)
        shown = until(lambda: http.get(f"/api/day?day={day}").json()["tables"], "t3's game")

        tables = {row["table"]: row for row in http.get("/api/tables").json()}
        assert set(tables) == {"t1"}, "no row for a name outside the safe charset"
        assert tables["t1"]["status"] == "online" and tables["t1"]["events"] == 0
        assert tables["t1"]["state"]["panel_url"] is None
        assert list(shown) == ["t3"] and len(shown["t3"]) == 1
        record = http.get(f"/api/day/{day}/t3/1")
        disposition = record.headers["content-disposition"]
        assert disposition == 'attachment; filename="boardref-t3-game-1-catch_the_hare.txt"'
        for name in BAD_NAMES:  # asked for by name, a bad name finds nothing, says so
            assert http.get(f"/api/day/{day}/{name}/1").status_code == 404
        packed = http.get(f"/api/day/{day}.zip")
        with zipfile.ZipFile(io.BytesIO(packed.content)) as archive:
            assert archive.namelist() == [
                "t3/boardref-t3-game-1-catch_the_hare.txt",
                "t3/boardref-t3-game-1-catch_the_hare.json",
            ]

        anyone.send("boardref/t1/state", json.dumps({**state, "panel_url": "javascript:alert(1)"}))
        until(lambda: dashboard_row(http, "t1")["state"]["plies"] == 3, "t1's state again")
        shown_without_link(port, tmp_path)
    finally:
        http.close()
        anyone.close()
        dashboard.terminate()
        dashboard.wait(WAIT)


def shown_without_link(port: int, folder) -> None:
    """The German staff page in Chromium, wide and on a phone: t1's row is there,
    its name linking nowhere."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for width, height in ((1280, 800), (390, 844)):
                page = chromium.new_page(viewport={"width": width, "height": height}, locale="de")
                page.goto(f"http://127.0.0.1:{port}/")
                row = page.locator("[data-table=t1]")
                expect(row.locator(".game")).to_have_text("Hasenjagd", timeout=WAIT * 1000)
                expect(page.locator("h1")).to_have_text("Alle Tische")
                name = row.locator("a")
                expect(name).to_have_text("t1")
                assert name.get_attribute("href") is None
                name.click()  # a name without a link opens nothing
                assert len(page.context.pages) == 1
                page.screenshot(path=str(folder / f"dashboard-{width}.png"))
                page.close()
        finally:
            chromium.close()


def test_the_day_book_keeps_its_files_inside_its_folder(tmp_path):
    folder, elsewhere = tmp_path / "records", tmp_path / "elsewhere"
    elsewhere.mkdir()
    record = a_record("t3")
    day = day_of(record)
    folder.mkdir()
    (folder / day).symlink_to(elsewhere)  # a day's folder that leads out of the book
    book = DayBook(folder)
    assert not book.take(
        HEADER_BREAK, record_message(dataclasses.replace(record, table=HEADER_BREAK))
    )
    assert book.take("t3", record_message(record))
    assert list(elsewhere.iterdir()) == [], "nothing written outside the book's folder"
    (folder / day).unlink()
    (folder / day).mkdir()
    (folder / day / "a b-1.json").write_text(json.dumps(to_json(record)))
    (folder / day / "t1-1.json").write_text(json.dumps(to_json(record)))  # names t3
    assert DayBook(folder).days == {}, "no record under a bad name or another table's"


@pytest.mark.broker
def test_the_acl_in_the_docs_is_the_one_the_tests_run(tmp_path):
    docs = (Path(__file__).parents[3] / "docs" / "fleet.md").read_text(encoding="utf-8")
    assert f"```\n{ACL.read_text(encoding='utf-8')}```" in docs
    assert "pattern write boardref/%u/#" in ACL.read_text(encoding="utf-8")
    settings = Mosquitto(tmp_path, users={"t1": "pw"}).config.read_text()
    for line in ("use_username_as_clientid true", f"max_packet_size {MAX_PACKET}"):
        assert line in docs and line in settings


def test_a_table_not_believed_is_said_once_per_reason(caplog):
    fleet = Fleet(Broker.from_url("mqtt://127.0.0.1:1"))  # never started: no broker needed
    fleet._loop = asyncio.new_event_loop()
    try:
        forged = json.dumps({"table": "t2", "plies": 9})
        for _ in range(50):
            fleet._take("t1", "state", forged)
            fleet._take("t1", "status", "pwned")
            fleet._take("..", "state", forged)
        said = [r.getMessage() for r in caplog.records if r.name == "boardref.cafe.trust"]
        assert said == [
            "not believed of table 't1': its state speaks for another table",
            "not believed of table 't1': a status is online or offline",
            "not believed of table '..': not a table name: a table's name is 1 to 32 letters "
            "A-Z or a-z, digits, - or _",
        ]
        assert fleet.tables == {}
    finally:
        fleet._loop.close()


def test_a_flood_of_records_from_one_table_waits_no_longer_than_a_few(caplog):
    fleet = Fleet(Broker.from_url("mqtt://127.0.0.1:1"))  # never started: no broker needed
    fleet._loop = asyncio.new_event_loop()  # not running: no record is kept meanwhile
    try:
        flood = record_message(a_record("t1"))
        for _ in range(RECORDS_WAITING * 3):
            fleet._take("t1", "record", flood)
        fleet._take("t2", "record", record_message(a_record("t2")))
        assert fleet._records_waiting == {"t1": RECORDS_WAITING, "t2": 1}
        said = [r.getMessage() for r in caplog.records if r.name == "boardref.cafe.trust"]
        assert said == [
            f"not believed of table 't1': more than {RECORDS_WAITING} of its records wait"
        ]
        fleet._checker.shutdown(wait=True)
        fleet._loop.run_until_complete(asyncio.sleep(0))
        assert fleet._records_waiting == {}
        assert [list(tables) for tables in fleet.book.days.values()] == [["t1", "t2"]]
    finally:
        fleet._loop.close()
