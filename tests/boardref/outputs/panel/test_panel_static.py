"""What an upgrade needs from the panel's files: every page names its static files
under the build, a hash that changes with any of them; those answer for good
(immutable), the pages and unversioned files must be checked again (no-cache, ETag,
304); the state names the build; the web manifest and its icons; one version,
pyproject.toml's; and ``make demo PORT=``."""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import tomllib
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from boardref.cafe.dashboard import CAFE_BUILD, CAFE_STATIC, Fleet, dashboard_app
from boardref.outputs import fleet
from boardref.outputs.fleet import Broker
from boardref.outputs.panel.api import build_app
from boardref.outputs.panel.pages import BUILD, STATIC, build_of
from firmware_bridge import host, sim
from firmware_bridge.flash import shipped_firmware, version_of

ROOT = Path(__file__).resolve().parents[4]
PAGES = ("/table", "/watch", "/referee", "/sim", "/play/0", "/games")
#: what a page links to: its scripts, styles and icons
LINKED = re.compile(r'(?:src|href)="(/static/[^"]+)"')
KEEP = "public, max-age=31536000, immutable"


def client(app) -> TestClient:
    return TestClient(app, client=("127.0.0.1", 50000), base_url="http://localhost")


@pytest.fixture
def panel(service):
    return client(build_app(service.panel))


@pytest.fixture(scope="module")
def dashboard():
    """The café dashboard's app and its fleet, never started: no broker needed."""
    watched = Fleet(Broker.from_url("mqtt://127.0.0.1:1"))
    return client(dashboard_app(watched)), watched


def linked(page: str) -> list[str]:
    return LINKED.findall(page)


@pytest.mark.parametrize("path", PAGES)
def test_every_page_names_its_files_under_the_build_and_they_answer_for_good(panel, path):
    page = panel.get(path)
    assert page.status_code == 200
    assert f'data-build="{BUILD}"' in page.text
    files = [f for f in linked(page.text) if not f.endswith(".webmanifest")]
    assert files and all(f.startswith(f"/static/{BUILD}/") for f in files), files
    for url in files:
        answer = panel.get(url)
        assert answer.status_code == 200, url
        assert answer.headers["cache-control"] == KEEP


def test_the_dashboard_names_its_files_under_the_build_and_its_first_message_the_build(
    dashboard,
):
    dashboard, watched = dashboard
    page = dashboard.get("/")
    assert page.headers["cache-control"] == "no-cache"
    files = [f for f in linked(page.text) if not f.endswith(".webmanifest")]
    assert {f"/static/{CAFE_BUILD}/dashboard.js", f"/static/{CAFE_BUILD}/panel.css"} <= set(files)
    assert all(dashboard.get(f).headers["cache-control"] == KEEP for f in files)
    assert json.loads(watched.whole())["build"] == CAFE_BUILD


def test_the_dashboard_serves_its_own_files_and_the_panels_it_shares(dashboard, panel):
    """The café's scripts live in its own folder, the shared ones (core.js) in the
    panel's; the dashboard serves both under one build, the panel only its own."""
    dashboard, _ = dashboard
    for name, folder in (("dashboard.js", CAFE_STATIC), ("core.js", STATIC)):
        answer = dashboard.get(f"/static/{CAFE_BUILD}/{name}")
        assert answer.content == (Path(str(folder)) / name).read_bytes(), name
    assert panel.get(f"/static/{BUILD}/dashboard.js").status_code == 404
    assert CAFE_BUILD != BUILD


@pytest.mark.parametrize("path", [*PAGES, "/i18n/de.json"])
def test_the_pages_and_word_tables_are_checked_again_and_answered_304_when_unchanged(
    panel, path
):
    first = panel.get(path)
    assert first.headers["cache-control"] == "no-cache" and BUILD in first.headers["etag"]
    again = panel.get(path, headers={"if-none-match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert panel.get(path, headers={"if-none-match": '"another"'}).status_code == 200


@pytest.mark.parametrize("path", ["/static/panel.js", "/static/0123456789ab/panel.js"])
def test_a_file_without_this_build_still_answers_but_must_be_checked_again(panel, path):
    """A page from before an upgrade asks for its files unversioned or under its
    own build: it gets them as they are now, never kept for good."""
    answer = panel.get(path)
    assert answer.status_code == 200
    assert answer.content == (Path(str(STATIC)) / "panel.js").read_bytes()
    assert answer.headers["cache-control"] == "no-cache"
    again = panel.get(path, headers={"if-none-match": answer.headers["etag"]})
    assert again.status_code == 304


def test_a_file_that_is_not_there_is_404_under_the_build_too(panel):
    assert panel.get(f"/static/{BUILD}/nothing.js").status_code == 404
    assert panel.get(f"/static/{BUILD}/../pages.py").status_code == 404


def test_every_script_asks_to_be_type_checked():
    """tsconfig.json checks every script; the line says so to an editor opening one."""
    scripts = [*Path(str(STATIC)).rglob("*.js"), *Path(str(CAFE_STATIC)).rglob("*.js")]
    unchecked = [p.name for p in scripts if not p.read_text().startswith("// @ts-check\n")]
    assert scripts and not unchecked, unchecked


def test_the_build_changes_with_any_static_file(tmp_path):
    copy = tmp_path / "static"
    shutil.copytree(Path(str(STATIC)), copy)
    assert build_of(copy) == build_of(Path(str(STATIC)))
    before = build_of(copy)
    with (copy / "games" / "haegar.js").open("a") as script:
        script.write("\n")
    changed = build_of(copy)
    (copy / "added.js").write_text("")
    assert len({before, changed, build_of(copy)}) == 3


def test_the_state_names_the_build(panel):
    assert panel.get("/api/state").json()["build"] == BUILD
    with panel.websocket_connect("ws://localhost/ws") as socket:
        assert socket.receive_json()["build"] == BUILD


def _png_size(data: bytes) -> str:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return f"{width}x{height}"


@pytest.mark.parametrize("path", ["/table", "/play/0", "/games"])
def test_every_page_links_the_manifest_the_touch_icon_and_the_theme_colour(panel, path):
    page = panel.get(path).text
    manifest = panel.get("/static/manifest.webmanifest")
    assert '<link rel="manifest" href="/static/manifest.webmanifest">' in page
    assert manifest.headers["content-type"] == "application/manifest+json"
    colour = manifest.json()["theme_color"]
    assert f'<meta name="theme-color" content="{colour}">' in page
    touch = re.search(r'<link rel="apple-touch-icon" href="([^"]+)">', page).group(1)
    icon = panel.get(touch)
    assert icon.headers["content-type"] == "image/png" and _png_size(icon.content) == "180x180"


def test_the_manifest_installs_the_table_with_its_icons(panel):
    manifest = panel.get("/static/manifest.webmanifest").json()
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    assert manifest["name"] and manifest["short_name"] and manifest["background_color"]
    pngs = {}
    for icon in manifest["icons"]:
        answer = panel.get(f"/static/{icon['src']}")
        assert answer.status_code == 200 and answer.headers["content-type"] == icon["type"]
        if icon["type"] == "image/png":
            assert _png_size(answer.content) == icon["sizes"]
            pngs[icon["sizes"], icon["purpose"]] = len(answer.content)
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= set(pngs)
    assert all(size < 32_000 for size in pngs.values()), pngs


def test_the_version_is_written_once_in_pyproject():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert declared == fleet.VERSION
    assert f"boardref-host {declared}" == host.HOST_FIRMWARE


def test_the_simulated_board_runs_the_firmware_this_boardref_ships():
    assert version_of(sim.FIRMWARE) == version_of(shipped_firmware())


@pytest.mark.process
@pytest.mark.parametrize(("args", "port"), [((), "8000"), (("PORT=8001",), "8001")])
def test_make_demo_serves_on_the_port_asked_for(args, port):
    commands = subprocess.run(
        ["make", "-n", "-C", str(ROOT), "demo", *args],
        capture_output=True,
        text=True,
        check=True,
        env={k: v for k, v in os.environ.items() if k != "PORT"},
    ).stdout
    assert f"boardref serve --sim --port {port}" in commands
    assert f"http://127.0.0.1:{port}" in commands
