"""Security headers on every answer of the panel and the fleet dashboard, and a real
Chromium running every page under the policy without one violation, and refusing to
show the panel inside another site's frame."""

from __future__ import annotations

import os

import httpx
import pytest
from fastapi.testclient import TestClient

from boardref.cafe.dashboard import CAFE_BUILD, Fleet, dashboard_app
from boardref.outputs.fleet import Broker
from boardref.outputs.panel.doorway import Doorway
from boardref.outputs.panel.headers import HEADERS, POLICY
from boardref.outputs.panel.pages import BUILD
from tests.boardref.at_the_table import KIOSK, PHONE, WAIT_MS
from tests.boardref.conftest import PIN, serve, stop_service
from tests.boardref.outputs.panel.test_panel import client
from tests.harness import MOSQUITTO, WAIT, Mosquitto, free_port, start_dashboard, until
from tests.harness import reporting_table as reporting

#: one path of each kind of answer the panel gives
PANEL_PATHS = {
    "/": 307,
    "/table": 200,
    "/watch": 200,
    "/referee": 200,
    "/play/0": 200,
    "/play/9": 404,
    "/games": 200,
    "/api/state": 200,
    "/api/health": 200,
    "/api/qr/0": 200,
    "/openapi.json": 200,
    f"/static/{BUILD}/panel.js": 200,
    "/i18n/de.json": 200,
    "/no/such/page": 404,
}


def assert_guarded(answer: httpx.Response, policy: str = POLICY) -> None:
    for name, value in HEADERS:
        assert answer.headers[name.decode()] == value.decode(), (answer.url, name)
    assert answer.headers["content-security-policy"] == policy, answer.url
    assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]


@pytest.mark.parametrize(("path", "status"), PANEL_PATHS.items())
def test_every_kind_of_panel_answer_carries_the_headers(service, path, status):
    answer = client(service).get(path, follow_redirects=False)
    assert answer.status_code == status
    assert_guarded(answer)


def test_refusals_of_the_gate_and_the_api_docs_carry_them_too(service):
    panel = client(service)
    assert_guarded(panel.get("/table", headers={"host": "evil.example"}))  # 421
    assert_guarded(panel.post("/api/takeback", content=b"x" * 20_000))  # 413
    assert_guarded(client(service, ("192.168.1.30", 1)).post("/api/takeback", json={}))  # 403
    docs = panel.get("/api/docs")
    policy = docs.headers["content-security-policy"]
    assert "script-src 'self' 'sha256-" in policy and "unsafe-inline" not in policy
    assert_guarded(docs, policy)


def test_the_pages_served_while_the_panel_opens_carry_them(service):
    doorway = Doorway(service.panel.names.allow, sim=False)
    opening = TestClient(doorway, base_url="http://localhost")  # no lifespan: it waits
    assert_guarded(opening.get("/table"))
    assert_guarded(opening.get("/table", headers={"host": "evil.example"}))


def test_every_kind_of_dashboard_answer_carries_the_headers():
    dashboard = TestClient(dashboard_app(Fleet(Broker.from_url("mqtt://127.0.0.1:1"))))
    for path in ("/", "/api/tables", f"/static/{CAFE_BUILD}/dashboard.js", "/i18n/en.json", "/x"):
        assert_guarded(dashboard.get(path))


def violations(page) -> list[str]:
    """What the policy refused on ``page`` so far (console and violation events)."""
    return page.evaluate("window.__violations || []") + page.__dict__.setdefault("_csp", [])


def watched(page):
    """``page`` with every policy violation collected, from the console and from the
    document's own securitypolicyviolation events."""
    page.__dict__["_csp"] = said = []
    page.on(
        "console",
        lambda message: (
            said.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.add_init_script(
        "window.__violations = [];"
        "document.addEventListener('securitypolicyviolation',"
        " e => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));"
    )
    return page


def test_chromium_runs_every_page_with_no_policy_violation_and_no_frame(tmp_path, browser):
    from playwright.sync_api import expect

    process, url = serve(tmp_path, "sternhalma", 2)
    try:
        for language, viewport in (("de-DE", PHONE), ("en-US", KIOSK)):
            page = watched(browser.new_page(locale=language, viewport=viewport))
            for path in ("/table", "/watch", "/play/1", "/sim", "/games", "/api/docs"):
                page.goto(url + path)
                page.wait_for_load_state("networkidle")
            page.goto(url + "/table")
            expect(page.locator("#join-codes img").first).to_be_visible(timeout=WAIT_MS)
            page.goto(url + "/referee")
            page.fill("#pin", PIN)
            page.click("#login")
            expect(page.locator("#logout")).to_be_visible(timeout=WAIT_MS)
            page.click("#diagnostics summary")
            page.wait_for_load_state("networkidle")
            page.screenshot(path=str(tmp_path / f"referee-{language}.png"))
            assert violations(page) == [], language
        framing = watched(browser.new_page())
        framing.set_content(f'<iframe id="panel" src="{url}/table"></iframe>')
        framing.wait_for_timeout(0)
        until(
            lambda: any("frame-ancestors" in said for said in framing.__dict__["_csp"]),
            "Chromium to refuse the panel in a frame",
        )
        assert framing.frame_locator("#panel").locator("svg.board").count() == 0
    finally:
        stop_service(process)


@pytest.mark.broker
@pytest.mark.skipif(not os.path.exists(MOSQUITTO), reason="mosquitto is missing")
def test_chromium_runs_the_dashboard_with_no_policy_violation(tmp_path, browser):
    from playwright.sync_api import expect

    broker = Mosquitto(tmp_path)
    broker.start()
    table = reporting(tmp_path, broker.url, "t1")
    port = free_port()
    dashboard = start_dashboard(broker.url, port)
    try:
        page = watched(browser.new_page(locale="de-DE", viewport=KIOSK))
        page.goto(f"http://127.0.0.1:{port}/")
        expect(page.locator("text=t1").first).to_be_visible(timeout=WAIT_MS)
        page.wait_for_load_state("networkidle")
        assert violations(page) == []
    finally:
        dashboard.terminate()
        dashboard.wait(WAIT)
        table.close()
        broker.stop()
