"""What ships works: the sdist and the wheel are built from this tree as a user's pip
would build them (the wheel from the sdist), the wheel is installed non-editable
into a fresh venv outside the tree, as systemd/install.sh installs it on a Pi, and
that install is used from another folder:

- it holds every file git knows in the packages, and nothing else;
- `boardref serve --sim` answers, and every page draws in Chromium with no 404 and no
  console error, for every game; every static file of the panel answers 200;
- a few Sternhalma moves are played by clicks on the virtual board and reach the
  table, and the game is found and replayed on the played-games page.

A file the package data rule in pyproject.toml leaves out fails here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from unittest.mock import patch

import httpx
import pytest

from engines import GAMES, load_game
from tests.boardref.conftest import needs_chromium, new_game, on_board, serve, stop_service
from tests.boardref.outputs.panel.test_browser_games import WAIT_MS

ROOT = Path(__file__).resolve().parents[2]
#: the folders pyproject.toml makes into packages; every file git knows in them ships
PACKAGES = ("boardref", "engines", "firmware_bridge", "hardware", "vision")
#: the pages every role opens, and the game page of seat 0's phone
PAGES = ("/table", "/sim", "/watch", "/referee", "/play/0")
#: how long a build, the install or a start may take on a slow, busy machine (s)
SLOW = 600


def run(*command: str | Path, cwd: Path) -> str:
    """``command``'s output; its own words when it fails."""
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=outside_env(),
        capture_output=True,
        text=True,
        timeout=SLOW,
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def outside_env() -> dict[str, str]:
    """This environment less anything that would let the tree or its venv leak into
    the install: no PYTHONPATH, no active venv."""
    env = dict(os.environ)
    for name in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"):
        env.pop(name, None)
    return env


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """The built sdist and wheel, and the venv the wheel is installed in."""
    folder = tmp_path_factory.mktemp("ships")
    source, dist = folder / "source", folder / "dist"
    for name in git_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    run(sys.executable, "-m", "build", "--outdir", dist, source, cwd=folder)
    (wheel,) = dist.glob("boardref-*.whl")
    (sdist,) = dist.glob("boardref-*.tar.gz")
    venv = folder / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=folder)
    run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel, cwd=folder)
    return sdist, wheel, venv


def git_files(*folders: str) -> set[str]:
    """Every file in ``folders`` (or the whole tree) that git knows or would add:
    untracked but not ignored, such as a new file a contributor has not committed yet.
    What a clean clone would hold, without the builds, venvs and caches beside it (an
    old ``boardref.egg-info`` would make setuptools add files its rules leave out)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *folders],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    return {name for name in listed if name and (ROOT / name).is_file()}


def installed_files(venv: Path) -> set[str]:
    """The package files the install put into ``venv``, as its RECORD lists them
    (the metadata, the `boardref` script and compiled bytecode left aside)."""
    listing = run(
        venv / "bin" / "python",
        "-c",
        "import importlib.metadata, json; "
        "print(json.dumps([str(f) for f in importlib.metadata.files('boardref')]))",
        cwd=venv,
    )
    return {
        name
        for name in json.loads(listing)
        if name.split("/", 1)[0] in PACKAGES and "__pycache__" not in name
    }


@pytest.mark.process
def test_the_install_holds_every_file_of_the_packages_and_nothing_else(shipped):
    _, _, venv = shipped
    installed, tracked = installed_files(venv), git_files(*PACKAGES)
    assert not tracked - installed, (
        f"not in the installed wheel: {sorted(tracked - installed)}; "
        "[tool.setuptools.package-data] in pyproject.toml must take them"
    )
    assert not installed - tracked, f"installed but not in git: {sorted(installed - tracked)}"


@pytest.mark.process
def test_the_sdist_and_wheel_carry_the_licence(shipped):
    sdist, wheel, _ = shipped
    import tarfile

    with tarfile.open(sdist) as archive:
        assert any(name.endswith("/LICENSE") for name in archive.getnames())
    with zipfile.ZipFile(wheel) as archive:
        assert any(name.endswith(".dist-info/licenses/LICENSE") for name in archive.namelist())


@pytest.mark.process
def test_the_installed_command_runs_from_the_install_not_the_tree(shipped, tmp_path):
    _, _, venv = shipped
    assert "serve" in run(venv / "bin" / "boardref", "--help", cwd=tmp_path)
    where = run(
        venv / "bin" / "python",
        "-c",
        "import boardref, engines, firmware_bridge, hardware, vision; "
        "print(*(m.__file__ for m in (boardref, engines, firmware_bridge, hardware, vision)))",
        cwd=tmp_path,
    ).split()
    assert all(Path(path).is_relative_to(venv) for path in where), where


@pytest.fixture(scope="module")
def installed_table(shipped, tmp_path_factory):
    """`boardref serve --sim` of the install, playing Sternhalma, started in a folder of
    its own with no way to the tree; its address."""
    _, _, venv = shipped
    folder = tmp_path_factory.mktemp("installed-table")
    with patch.dict(os.environ, outside_env(), clear=True):
        service, url = serve(folder, "sternhalma", 2, boardref=[str(venv / "bin" / "boardref")])
    try:
        yield url
    finally:
        stop_service(service)


@pytest.mark.process
def test_every_static_file_of_the_install_answers(shipped, installed_table):
    _, _, venv = shipped
    static = next(venv.glob("lib/python*/site-packages/boardref/outputs/panel/static"))
    files = [path.relative_to(static).as_posix() for path in static.rglob("*") if path.is_file()]
    assert "games/hakenschlagen.js" in files
    with httpx.Client(base_url=installed_table, timeout=10) as client:
        answers = {name: client.get(f"/static/{name}").status_code for name in files}
    assert set(answers.values()) == {200}, answers


class Watched:
    """A page whose console errors, failed requests and answers of 400 or more are
    noted, for the assertion that a page loaded whole."""

    def __init__(self, page):
        self.page = page
        self.faults: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.faults.append(m.text))
        page.on("pageerror", lambda error: self.faults.append(str(error)))
        page.on("requestfailed", lambda r: self.faults.append(f"failed: {r.url}"))
        page.on("response", self._answered)

    def _answered(self, response) -> None:
        if response.status >= 400:
            self.faults.append(f"{response.status}: {response.url}")


@needs_chromium
@pytest.mark.browser
@pytest.mark.parametrize("game", GAMES)
def test_every_page_of_the_installed_table_draws_every_game(installed_table, browser, game):
    from playwright.sync_api import expect

    new_game(installed_table, game, load_game(game).players)
    context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 800})
    for path in PAGES:
        watched = Watched(context.new_page())
        watched.page.goto(installed_table + path)
        expect(watched.page.locator("#turn")).not_to_be_empty(timeout=WAIT_MS)
        if game != "fang_den_hut_cards":  # the card game's board is the table itself
            watched.page.wait_for_selector("svg.board g[data-cell]", state="attached")
        assert not watched.faults, f"{path}: {watched.faults}"
        watched.page.close()
    context.close()


@needs_chromium
@pytest.mark.browser
def test_moves_clicked_on_the_installed_table_reach_it_and_are_replayed(installed_table, browser):
    from playwright.sync_api import expect

    game = load_game("sternhalma", players=2)
    new_game(installed_table, "sternhalma", 2)
    context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 800})
    sim = Watched(on_board(context.new_page(), installed_table + "/sim"))
    kiosk = Watched(on_board(context.new_page(), installed_table + "/table"))
    state = game.initial_state()
    for ply in range(4):
        move = next(m for m in game.legal_moves(state) if "-" in str(m))  # a step
        sim.page.click(f'g[data-cell="{move.path[0]}"]')
        sim.page.click(f'g[data-cell="{move.path[-1]}"]')
        said = f"Last move: {('red', 'blue')[ply % 2]}: one step"
        expect(kiosk.page.locator("#last")).to_have_text(said, timeout=WAIT_MS)
        state = game.apply(state, move)
    # a new game ends this one: the played-games page lists it and replays it
    new_game(installed_table, "sternhalma", 2)
    games = Watched(context.new_page())
    games.page.goto(installed_table + "/games")
    games.page.locator("#games tbody tr a", has_text="Replay").first.click()
    games.page.wait_for_selector("svg.board g[data-cell]", state="attached")
    for watched in (sim, kiosk, games):
        assert not watched.faults, watched.faults
    context.close()
