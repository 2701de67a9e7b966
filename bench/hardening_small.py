"""Attacks on the small faults: the card game's refusals as an oracle of the mover's
hand, the simulated table's virtual-board routes on every game, and every bad
command line of ``tests/boardref/cli/bad_cli_calls.toml``.

The oracle: after the deal and three plays, the table tries every card alone and onto
every card of the deck; each holds when its refusal is the one generic sentence
(``smoke`` tries the cards against a few targets). The routes hold when no answer is a 5xx; the
command lines when each exits 2 in words, with no traceback.
"""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path

from fastapi.testclient import TestClient
from smoke import sized
from tally import Tally
from typer.testing import CliRunner

from boardref.cli.app import app
from boardref.outputs.panel.api import build_app
from boardref.runtime.config import load_config
from boardref.runtime.service import Service
from engines import GAMES

CALLS = Path(__file__).parents[1] / "tests" / "boardref" / "cli" / "bad_cli_calls.toml"
#: how many targets each card is tried onto (the whole deck, or a few)
TARGETS = sized(None, 3)
TABLE = ("127.0.0.1", 50000)
SIM_ROUTES = [
    ("get", "/api/sim/board", None),
    ("get", "/api/sim/virtual", None),
    ("post", "/api/sim/lift", {"cell": "a1"}),
    ("post", "/api/sim/place", {"cell": "a1", "piece": 0}),
    ("post", "/api/sim/unpack", {"piece": 0}),
]


def table_of(scratch: Path, game: str, sim: bool = False) -> tuple[Service, TestClient]:
    config = load_config(**{"store.path": scratch / f"{game}-{sim}.db", "game.name": game})
    service = Service(config, asyncio.new_event_loop(), sim=sim)
    return service, TestClient(build_app(service.panel), client=TABLE, base_url="http://localhost")


def card_oracle(scratch: Path, tally: Tally) -> None:
    service, table = table_of(scratch, "fang_den_hut_cards")
    try:
        table.post("/api/draw", json={})
        referee = service.referee
        for _ in range(3):
            move = referee.game.legal_moves(referee.current())[0]
            table.post("/api/play", json={"move": str(move)})
        game, state = referee.game, referee.current()
        legal = {str(m) for m in game.legal_moves(state)}
        targets = game.deck[:TARGETS]
        tried = [*game.deck, *(f"{card}:{top}" for card in game.deck for top in targets)]
        player = f"player {game.to_move(state) + 1}"
        generic = (
            f"That is not a move {player} can make now: choose a card on the phone of {player}"
        )
        for move in (m for m in tried if m not in legal):
            said = table.post("/api/play", json={"move": move}).json().get("detail")
            tally.check(said == generic, f"the table was told for {move}: {said}")
    finally:
        service.close()


def sim_routes(scratch: Path, tally: Tally) -> None:
    for game in sorted(GAMES):
        service, table = table_of(scratch, game, sim=True)
        try:
            for method, path, body in SIM_ROUTES:
                try:
                    status = getattr(table, method)(path, **({"json": body} if body else {}))
                    status = status.status_code
                except Exception as exc:  # noqa: BLE001 - a crash in the route is what is counted
                    status = type(exc).__name__
                tally.check(isinstance(status, int) and status < 500, f"{game} {path}: {status}")
        finally:
            service.close()


def bad_command_lines(scratch: Path, tally: Tally) -> None:
    (scratch / "folder").mkdir()
    (scratch / "file.txt").write_text("nothing boardref reads\n")
    places = {"file": scratch / "file.txt", "folder": scratch / "folder"}
    for call in tomllib.loads(CALLS.read_text())["calls"]:
        args = [part.format(missing=scratch / "nowhere" / "x.db", **places) for part in call]
        done = CliRunner().invoke(app, args)
        crashed = not isinstance(done.exception, SystemExit | None)
        held = done.exit_code == 2 and not crashed and "Traceback" not in done.output
        tally.check(held, f"boardref {' '.join(call)}: exit {done.exit_code}")


def attack(scratch: Path) -> Tally:
    tally = Tally("small")
    card_oracle(scratch, tally)
    sim_routes(scratch, tally)
    bad_command_lines(scratch, tally)
    return tally
