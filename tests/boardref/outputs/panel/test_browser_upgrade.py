"""A kiosk left open across an upgrade, in a real browser (Playwright driving Debian's
/usr/bin/chromium) against real `boardref serve` processes: when the service comes
back with other page files, the page reloads itself onto them, once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import boardref
from boardref.outputs.panel.pages import BUILD, build_of
from tests.boardref.conftest import PIN_HASH, needs_chromium, on_board, start_service, stop_service
from tests.harness import free_port

pytestmark = [needs_chromium, pytest.mark.browser]
#: a build no service serves: the page of a service from before an upgrade
OLD = "0" * 12


def watched(page) -> list[str]:
    """What went wrong on ``page`` as it happens: console errors, uncaught errors and
    answers of 400 or more."""
    wrong: list[str] = []
    page.on("console", lambda m: wrong.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: wrong.append(str(error)))
    page.on("response", lambda r: wrong.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    return wrong


def upgraded_copy(folder: Path) -> str:
    """A copy of the boardref package in ``folder`` whose style sheet has changed, as
    an upgrade changes it; the build it serves."""
    package = folder / "boardref"
    shutil.copytree(
        Path(boardref.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__")
    )
    panel = package / "outputs" / "panel"
    with (panel / "static" / "panel.css").open("a", encoding="utf-8") as style:
        style.write("\n/* the upgrade */\n")
    return build_of(panel / "static", panel / "i18n")


def test_a_kiosk_left_open_reloads_itself_when_the_service_comes_back_upgraded(
    tmp_path, browser, monkeypatch
):
    from playwright.sync_api import expect

    upgraded = upgraded_copy(tmp_path / "upgraded")
    assert upgraded != BUILD
    port = free_port()
    config = tmp_path / "config.toml"
    config.write_text(
        f'[game]\nname = "catch_the_hare"\n[store]\npath = "{tmp_path / "boardref.db"}"\n'
        f'[panel]\nport = {port}\nreferee_pin_hash = "{PIN_HASH}"\n'
    )
    page = browser.new_page()
    wrong = watched(page)
    loads = []
    page.on("domcontentloaded", lambda _: loads.append(page.url))
    service = start_service(tmp_path, port, "--config", str(config))
    try:
        on_board(page, f"http://127.0.0.1:{port}/table")
        expect(page.locator("html")).to_have_attribute("data-build", BUILD)
        stop_service(service)
        # the same table, started again on the upgraded package (from another folder:
        # `python -m` looks in the folder it starts in first)
        monkeypatch.setenv("PYTHONPATH", str(tmp_path / "upgraded"))
        monkeypatch.chdir(tmp_path)
        service = start_service(tmp_path, port, "--config", str(config))
        expect(page.locator("html")).to_have_attribute("data-build", upgraded)
        page.wait_for_selector("svg.board g[data-cell]", state="attached")
        expect(page.locator("body")).to_have_attribute("data-phase", "move")
    finally:
        stop_service(service)
    assert len(loads) == 2
    # while the service was away the socket could not connect: nothing else went wrong
    assert all("/ws" in line or "ERR_CONNECTION_REFUSED" in line for line in wrong), wrong


def test_a_page_that_comes_back_old_after_its_reload_stays_rather_than_reloading_again(
    sim_table, browser
):
    page = browser.new_page()
    wrong = watched(page)
    served = []

    def old_scripts(route):
        """The page's scripts as a cache in between might keep giving them: another
        build's. (A page fulfilled here would lose its local address, and Chromium
        would refuse its socket to this machine.)"""
        answer = route.fetch()
        served.append(route.request.url)
        script = answer.text().replace("document.documentElement.dataset.build", f'"{OLD}"')
        route.fulfill(response=answer, body=script)

    page.route("**/core.js", old_scripts)
    on_board(page, f"{sim_table}/table")  # the board is drawn only where no reload is due
    page.wait_for_selector("body[data-phase]")
    assert len(served) == 2
    assert page.evaluate("sessionStorage.getItem('boardref-reloaded')") == f"{OLD}>{BUILD}"
    assert not wrong
