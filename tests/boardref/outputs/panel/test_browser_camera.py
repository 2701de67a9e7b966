"""The camera's set-up on the referee page in a real browser (Playwright driving
Debian's /usr/bin/chromium): the referee clicks the lit corner cells on the camera
picture and the table locates the board from those clicks, and "learn the board now"
relearns it. Against `boardref serve --sim` with the rendered camera, whose scene the
test renders again to know where the cells are in the picture."""

from __future__ import annotations

import time

import httpx
import numpy as np
import pytest

from engines import load_game
from tests.boardref.conftest import (
    PIN,
    PIN_HASH,
    needs_chromium,
    start_service,
    stop_service,
)
from tests.harness import free_port
from vision import looks
from vision.render import random_scene

SIZE = (640, 360)
WAIT_MS = 15_000

pytestmark = [needs_chromium, pytest.mark.browser]


@pytest.fixture
def table(tmp_path):
    port = free_port()
    config = tmp_path / "config.toml"
    config.write_text(
        f'[store]\npath = "{tmp_path / "boardref.db"}"\n'
        f'[panel]\nport = {port}\nreferee_pin_hash = "{PIN_HASH}"\n'
        f'[camera]\nsource = "synthetic"\nsize = [{SIZE[0]}, {SIZE[1]}]\nfps = 2\n'
    )
    service = start_service(tmp_path, port, "--config", str(config))
    url = f"http://127.0.0.1:{port}"
    camera_open(url)
    yield url
    stop_service(service)


def camera_open(url: str) -> None:
    """Wait until the service's camera is open (it opens off the loop, after the panel
    answers): the camera's picture is there to click on."""
    with httpx.Client(base_url=url, headers={"origin": url}) as referee:
        referee.post("/api/referee/login", json={"pin": PIN}).raise_for_status()
        deadline = time.monotonic() + WAIT_MS / 1000
        while referee.get("/api/diagnostics").json()["camera"] in ("none", "opening"):
            assert time.monotonic() < deadline, "the camera did not open"
            time.sleep(0.1)


def test_the_referee_locates_the_board_by_clicking_its_corner_cells(table, browser):
    from playwright.sync_api import expect

    page = browser.new_page(locale="en-US")
    page.goto(f"{table}/referee")
    page.fill("#pin", PIN)
    page.click("#login")
    page.click("#camera-view summary")
    picture = page.locator("#camera-picture")
    expect(picture).to_be_visible(timeout=WAIT_MS)
    page.click("#camera-corners")
    note = page.locator("#camera-note")
    expect(note).to_have_text("Click the centre of cell a13 (1 of 4) on the picture")
    expect(page.locator('.cell.corner[data-cell="a13"]')).to_have_count(1)

    # where the service's rendered camera (`serve --sim`, seed 1, easy) shows the cells
    board = load_game("sternhalma", 2).board
    scene = random_scene(board, 1, "easy", SIZE)
    cells = np.array([[*c.xy, 0.0] for c in looks.corner_cells(board)])
    pixels = scene.lens.project(cells, scene.rvec, scene.tvec)
    box = picture.bounding_box()
    scale = box["width"] / SIZE[0]
    for n, (x, y) in enumerate(pixels[:3]):
        picture.click(position={"x": x * scale, "y": y * scale})
        expect(note).to_contain_text(f"({n + 2} of 4)")
    with page.expect_request("**/api/camera/corners") as sent:
        picture.click(position={"x": pixels[3][0] * scale, "y": pixels[3][1] * scale})
    posted = np.array(sent.value.post_data_json["points"])
    assert np.abs(posted - pixels).max() < 1.5, "clicks are sent in the frame's pixels"
    expect(note).to_have_text("Board located by hand", timeout=WAIT_MS)
    expect(page.locator(".cell.corner")).to_have_count(0)

    page.click("#camera-learn")
    # the reader says what it learned: the empty holes counted, the marbles' colours
    expect(note).to_contain_text(
        "The camera learned the board as it lies, in this light:", timeout=WAIT_MS
    )
    expect(note).to_contain_text("empty cells and the pieces (")
    with httpx.Client(base_url=table, headers={"origin": table}) as referee:
        referee.post("/api/referee/login", json={"pin": PIN}).raise_for_status()
        assert referee.get("/api/camera/corners").json() == {"cells": ["a13", "y13", "y5", "a5"]}
        wrong = referee.post("/api/camera/corners", json={"points": pixels[::-1].tolist()})
        assert wrong.status_code == 409 and "in that order" in wrong.json()["detail"]
        bad = referee.post("/api/camera/corners", json={"points": [[1, 2]]})
        assert bad.status_code == 422
    assert httpx.post(f"{table}/api/camera/learn", headers={"origin": table}).status_code == 403
