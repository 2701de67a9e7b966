"""A head office's dashboard in Chromium over a real mosquitto: of hundreds of tables
only the rows in view are in the page, yet scrolling reaches the last table, the
find box any table, and the counts are the whole fleet's. Screenshots at desk and
phone size, English and German, when $BOARDREF_SHOTS names a folder."""

from __future__ import annotations

import json
import os
import time

import paho.mqtt.client as mqtt

from tests.boardref.outputs.test_fleet import broker, free_port, until  # noqa: F401 (a fixture)
from tests.harness import start_dashboard

TABLES = 300
#: rows a 800-pixel view holds, and those kept beyond it (dashboard.js's BEYOND_VIEW)
AT_MOST_IN_PAGE = 60
TWO_FRAMES = "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def name_of(number: int) -> str:
    return f"north-t{number:03d}"


def publish_fleet(port: int) -> mqtt.Client:
    """TABLES tables' retained status and state, as their services leave them; the
    last one's board is disconnected."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="a-head-office")
    client.connect("127.0.0.1", port)
    client.loop_start()
    for number in range(TABLES):
        name = name_of(number)
        state = {
            "table": name,
            "game": "catch_the_hare",
            "players": 2,
            "seat_name": "hunters",
            "phase": "move",
            "plies": number,
            "alerts": ["board disconnected"] if number == TABLES - 1 else [],
            "started": time.time() - 60 * number,
        }
        client.publish(f"boardref/{name}/status", "online", qos=1, retain=True)
        client.publish(
            f"boardref/{name}/state", json.dumps(state), qos=1, retain=True
        ).wait_for_publish()
    return client


def rows_in_page(page) -> list[str]:
    return [row.get_attribute("data-table") for row in page.locator("#rows > [role=row]").all()]


def test_only_the_rows_in_view_are_in_the_page_and_every_table_is_reached(broker, browser):  # noqa: F811
    publisher = publish_fleet(broker.port)
    port = free_port()
    dashboard = start_dashboard(broker.url, port)
    shots = os.environ.get("BOARDREF_SHOTS")
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800}, locale="en")
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_function(
            f"() => document.getElementById('count-playing').textContent === '{TABLES}'"
        )
        assert page.text_content("#count-alerts") == "1", "the counts are the whole fleet's"
        assert page.evaluate("scrollY") == 0, "the page opens at its top, the counts in view"
        first = rows_in_page(page)
        assert first[0] == name_of(0)
        assert len(first) <= AT_MOST_IN_PAGE, "rows far out of view are not in the page"
        assert name_of(TABLES - 1) not in first
        if shots:
            page.screenshot(path=f"{shots}/fleet-many-en-1280.png")

        last = page.locator(f"[data-table={name_of(TABLES - 1)}]")

        def at_the_bottom() -> bool:
            """The staff press End (again, where the list grew meanwhile)."""
            page.keyboard.press("End")
            return last.is_visible()

        until(at_the_bottom, "the last table after End")
        assert last.is_visible() and last.bounding_box()["y"] < 800, "the last table in view"
        assert (
            page.text_content(f"[data-table={name_of(TABLES - 1)}] .alert") == "board disconnected"
        )
        assert len(rows_in_page(page)) <= AT_MOST_IN_PAGE

        page.set_viewport_size({"width": 390, "height": 844})  # the screen turned at the end
        until(
            lambda: last.is_visible() and 0 < last.bounding_box()["y"] < 844,
            "the last table still in view on rows of another height",
        )
        page.set_viewport_size({"width": 1280, "height": 800})

        page.keyboard.press("Home")
        page.fill("#find", "t150")  # a table far down, found by name
        page.wait_for_function("() => document.querySelectorAll('#rows > [role=row]').length === 1")
        assert rows_in_page(page) == [name_of(150)]
        assert page.text_content("#shown") == f"1 of {TABLES} tables shown"
        page.fill("#find", "")

        page.set_viewport_size({"width": 390, "height": 844})  # a phone: rows of two lines
        page.evaluate(TWO_FRAMES)
        assert page.evaluate("scrollY") == 0, "a screen turned at the top stays at the top"
        page.select_option("#language", "de")
        page.wait_for_function("() => document.querySelector('h1').textContent === 'Alle Tische'")
        page.mouse.move(200, 600)
        page.mouse.wheel(0, 100 * TABLES)  # a thumb flicks to the bottom
        last.wait_for()
        until(
            lambda: last.bounding_box() and last.bounding_box()["y"] < 844, "the last card in view"
        )
        assert len(rows_in_page(page)) <= AT_MOST_IN_PAGE
        if shots:
            page.screenshot(path=f"{shots}/fleet-many-de-390-end.png")
            page.mouse.wheel(0, -100 * TABLES)
            first_row = "document.querySelector('#rows > [role=row]').dataset.table"
            page.wait_for_function(f"() => {first_row} === '{name_of(0)}'")
            page.screenshot(path=f"{shots}/fleet-many-de-390.png")
            page.set_viewport_size({"width": 1280, "height": 800})
            page.screenshot(path=f"{shots}/fleet-many-de-1280.png")
    finally:
        dashboard.terminate()
        dashboard.wait(30)
        publisher.loop_stop()
        publisher.disconnect()
