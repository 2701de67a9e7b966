"""The history of a table: games the referee played become records that verify in the
terminal, a tampered record fails naming where, an open game keeps its seed and
hands secret, imports take only records that verify, and pruning never touches
the game being played."""

from __future__ import annotations

import json
import random
import time

import pytest
from typer.testing import CliRunner

from boardref.cli.app import app
from boardref.eventlog.history import History, HistoryError
from boardref.eventlog.retention import prune
from boardref.eventlog.store import Store
from boardref.outputs.panel.api import build_app
from boardref.referee.referee import Referee
from engines.records import from_json, read, to_json, write
from engines.replay import verify

runner = CliRunner()
#: seats a game is played with here: Fang den Hut! for two ends in about 300 plies,
#: for its default four in about 800
SEATS = {"fang_den_hut": 2}


def play_to_the_end(
    store, name: str, seed: int = 3, takeback_at: int = 5, referee: Referee | None = None
) -> Referee:
    """A game tapped on the panel from start to end, with a takeback on the way (by
    ``referee``, else by a referee of its own)."""
    referee = referee or Referee(store, sensor="panel")
    referee.new_game(name, SEATS.get(name), {}, seed=f"history {name} {seed}".encode())
    pick = random.Random(seed)
    for ply in range(5000):
        if referee.phase == "over":
            return referee
        if referee.phase == "chance":
            referee.draw()
            continue
        referee.play(str(pick.choice(referee.game.legal_moves(referee.positions[-1]))))
        if ply == takeback_at:
            referee.takeback()
    raise AssertionError(f"{name} did not end")


def cli(*args: str):
    return runner.invoke(app, [*args])


@pytest.fixture(scope="module")
def ended(tmp_path_factory):
    """``ended(name)``: a store holding one game of ``name`` played to its end (as
    ``play_to_the_end`` plays it) and its referee, played once for the module's tests,
    which only read it (Fang den Hut!'s 300 plies take half a second)."""
    played = {}

    def game(name: str) -> tuple[Store, Referee]:
        if name not in played:
            store = Store(tmp_path_factory.mktemp(name) / "boardref.db")
            played[name] = store, play_to_the_end(store, name)
        return played[name]

    yield game
    for store, _ in played.values():
        store.close()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["fang_den_hut", "catch_the_hare", "haegar"])
def test_a_played_game_exports_and_verifies_in_the_terminal(ended, tmp_path, name):
    store, referee = ended(name)
    listed = cli("games", "list", "--store", str(store.path), "--json")
    assert listed.exit_code == 0, listed.output
    (summary,) = json.loads(listed.output)
    assert summary["id"] == referee.game_id and not summary["abandoned"]
    named = [referee.game.seat_words(s).to_json() for s in summary["winners"]]
    assert summary["winners_said"] == named, "the winners named as the game names its seats"
    shown = cli("games", "list", "--store", str(store.path)).output
    winners = ", ".join(referee.game.seat_name(s) for s in summary["winners"])
    assert f"won by {winners or 'nobody'}" in shown, shown
    for form in ([], ["--json"]):
        out = tmp_path / f"record{len(form)}"
        exported = cli("games", "export", str(referee.game_id), "--store", str(store.path),
                       "--out", str(out), *form)  # fmt: skip
        assert exported.exit_code == 0, exported.output
        checked = cli("games", "verify", str(out))
        assert checked.exit_code == 0, checked.output
        assert "verifies" in checked.output


def test_a_record_with_one_changed_roll_fails_naming_the_draw(ended, tmp_path):
    store, referee = ended("fang_den_hut")
    lines = History(store, "t1").record(referee.game_id)
    text = write(lines).splitlines()
    at = [n for n, line in enumerate(text) if line.startswith("d6: ")][4]
    rolled = int(text[at].split()[1])
    text[at] = f"d6: {rolled % 6 + 1}"
    plies_before = sum(1 for line in text[:at] if line[:1].isdigit())
    changed = tmp_path / "changed.txt"
    changed.write_text("\n".join(text) + "\n")
    result = cli("games", "verify", str(changed))
    assert result.exit_code == 1
    assert (
        f"draw 5 (after ply {plies_before}, d6): the record says {rolled % 6 + 1}" in result.output
    )


def test_a_record_with_one_illegal_ply_fails_naming_the_ply(ended, tmp_path):
    store, referee = ended("catch_the_hare")
    text = write(History(store, "t1").record(referee.game_id)).splitlines()
    at = next(n for n, line in enumerate(text) if line.startswith("7. "))
    number, seat, move = text[at].split(" ", 2)
    origin, destination = move.split("-")[0], move.split("-")[-1]
    text[at] = f"{number} {seat} {destination}-{origin}"
    forged = tmp_path / "forged.txt"
    forged.write_text("\n".join(text) + "\n")
    result = cli("games", "verify", str(forged))
    assert result.exit_code == 1
    assert f"does not verify: ply 7 ({destination}-{origin}) is not legal" in result.output


def test_an_open_game_has_no_record_and_its_seed_stays_secret(store):
    referee = Referee(store, sensor="panel")
    referee.new_game("fang_den_hut_cards", None, {}, seed=b"secret")
    referee.draw()  # the deal: every hand is in the shuffle
    history = History(store, "t1")
    assert history.games() == []
    with pytest.raises(HistoryError, match="still being played") as refused:
        history.record(referee.game_id)
    assert refused.value.status == 409
    exported = cli("games", "export", str(referee.game_id), "--store", str(store.path))
    assert exported.exit_code == 1 and "still being played" in exported.output


def test_an_abandoned_game_is_listed_with_its_seed_revealed(store):
    referee = Referee(store, sensor="panel")
    referee.new_game("fang_den_hut", 2, {}, seed=b"left early")
    referee.draw()
    referee.new_game("sternhalma", 2, {})  # the first game is abandoned
    history = History(store, "t1")
    (summary,) = history.games()
    assert summary.abandoned and summary.game == "fang_den_hut"
    record = history.record(summary.id)
    assert record.abandoned and record.seed == b"left early".hex()
    assert '[Result "abandoned"]' in write(record)


def test_an_imported_record_replays_the_same_and_only_once(ended, tmp_path):
    store, referee = ended("haegar")
    record = History(store, "t4").record(referee.game_id)
    elsewhere = Store(tmp_path / "club.db")
    club = History(elsewhere, "club")
    number = club.import_record(from_json(json.loads(json.dumps(to_json(record)))))
    assert write(club.record(number)) == write(record)
    assert club.games(table="t4")[0].id == number
    assert club.games(table="club") == []
    with pytest.raises(HistoryError, match="already in the history"):
        club.import_record(record)
    # the referee resumes nothing from an import: every game in it has ended
    assert elsewhere.open_game() is None
    elsewhere.close()


def test_an_import_that_does_not_verify_is_refused(ended, tmp_path):
    store, referee = ended("catch_the_hare")
    text = write(History(store, "t1").record(referee.game_id))
    forged = tmp_path / "forged.txt"
    forged.write_text(text.replace('[Result "', '[Result "1 2 ').replace("\n1. 1: ", "\n1. 2: "))
    result = cli("games", "import", str(forged), "--store", str(tmp_path / "other.db"))
    assert result.exit_code == 1
    assert "not imported: ply 1" in result.output


def test_the_list_filters_by_game_day_and_table(store):
    play_to_the_end(store, "catch_the_hare")
    play_to_the_end(store, "fang_den_hut")
    history = History(store, "t1")
    assert [s.game for s in history.games(game="catch_the_hare")] == ["catch_the_hare"]
    today = time.strftime("%Y-%m-%d")
    assert len(history.games(day=today)) == 2
    assert history.games(day="2001-01-01") == []
    assert len(history.games(table="t1")) == 2 and history.games(table="t9") == []
    with pytest.raises(HistoryError, match="not a day"):
        history.games(day="yesterday")


def test_a_bad_record_file_is_refused_in_words(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text('[Game "sternhalma"]\n[Players "2"]\n\n1. 1: a1-a2 {lucky}\n')
    result = cli("games", "verify", str(bad))
    assert result.exit_code == 2
    assert "is not a game record: line 4" in result.output
    missing = cli("games", "verify", str(tmp_path / "none.txt"))
    assert missing.exit_code == 2 and "cannot read" in missing.output


def test_text_and_json_of_a_played_game_say_the_same(ended):
    store, referee = ended("haegar")
    record = History(store, "t1").record(referee.game_id)
    assert read(write(record)) == record == from_json(to_json(record))


@pytest.fixture
def panel_table(tmp_path):
    """A panel table (moves tapped) keeping at most two ended games."""
    import asyncio

    from boardref.runtime.config import load_config
    from boardref.runtime.service import Service

    config = load_config(
        **{
            "store.path": tmp_path / "log.db",
            "game.name": "fang_den_hut_cards",
            "game.players": 3,
            "store.keep_games": 2,
            "fleet.table_id": "t7",
        }
    )
    service = Service(config, asyncio.new_event_loop())
    yield service
    service.close()


def test_the_panel_lists_replays_and_downloads_ended_games_never_the_open_one(panel_table):
    from fastapi.testclient import TestClient

    local = TestClient(build_app(panel_table.panel), base_url="http://localhost")
    referee = panel_table.referee
    first = referee.game_id
    referee.draw()  # the deal of the card game: every hand is in it
    nothing = {"games": [], "next": None, "names": {}, "left_out": {}}
    assert local.get("/api/games").json() == nothing
    refused = local.get(f"/api/games/{first}")
    assert refused.status_code == 409 and "still being played" in refused.json()["detail"]
    assert local.get(f"/api/games/{first}/replay").status_code == 409
    assert local.get("/api/games/999").status_code == 404
    play = play_to_the_end(panel_table.store, "catch_the_hare", 3, 2, referee)
    listed = local.get("/api/games", params={"table": "t7"}).json()["games"]
    assert [g["id"] for g in listed] == [play.game_id, first]
    assert listed[1]["abandoned"] and not listed[0]["abandoned"]
    assert local.get("/api/games", params={"game": "sternhalma"}).json()["games"] == []
    assert local.get("/api/games", params={"day": "24.11.2026"}).status_code == 422
    text = local.get(f"/api/games/{play.game_id}", params={"form": "text"})
    assert "attachment" in text.headers["content-disposition"]
    assert verify(read(text.text)).plies == read(text.text).plies
    assert from_json(local.get(f"/api/games/{play.game_id}").json()) == read(text.text)
    replayed = local.get(f"/api/games/{play.game_id}/replay").json()
    frames = replayed["frames"]
    assert frames[0]["kind"] == "start" and frames[-1]["table"]["phase"] == "over"
    assert [f["kind"] for f in frames[1:]] == [e.kind for e in read(text.text).entries]
    assert {c["id"] for c in replayed["board"]["cells"]} == set(frames[0]["table"]["position"])
    # the abandoned card game's deal is in its record once it has ended, not before
    dealt = local.get(f"/api/games/{first}").json()
    assert dealt["abandoned"] and dealt["entries"][0]["spec"] == "deck" and dealt["seed"]
    paths = local.get("/openapi.json").json()["paths"]
    assert {"/api/games", "/api/games/{game_id}", "/api/games/{game_id}/replay"} <= set(paths)


def test_the_oldest_games_are_pruned_as_games_end_never_the_open_one(panel_table):
    referee = panel_table.referee
    for seed in range(3):
        play_to_the_end(panel_table.store, "catch_the_hare", seed, 5, referee)
    panel_table.pruner.wait()
    ids = [s.id for s in panel_table.history.games()]
    assert len(ids) == 2 and ids[0] == referee.game_id
    referee.new_game("catch_the_hare", None, {})
    referee.play(str(referee.game.legal_moves(referee.positions[-1])[0]))
    panel_table.pruner.wait()
    assert prune(panel_table.history, 0, 1) == 1
    assert panel_table.store.open_game().id == referee.game_id


def test_the_panel_lists_a_page_at_a_time_off_the_event_loop(panel_table, monkeypatch):
    import asyncio

    from fastapi.testclient import TestClient

    local = TestClient(build_app(panel_table.panel), base_url="http://localhost")
    referee = panel_table.referee
    played = [
        play_to_the_end(panel_table.store, "catch_the_hare", s, 5, referee).game_id for s in (1, 2)
    ]
    panel_table.pruner.wait()
    on_loop = []
    listing = panel_table.history.games

    def spied(*args):
        try:
            asyncio.get_running_loop()
            on_loop.append(True)
        except RuntimeError:
            on_loop.append(False)
        return listing(*args)

    monkeypatch.setattr(panel_table.history, "games", spied)
    first = local.get("/api/games", params={"limit": 1}).json()
    assert [g["id"] for g in first["games"]] == [played[1]] and first["next"] == played[1]
    second = local.get("/api/games", params={"limit": 1, "before": first["next"]}).json()
    assert [g["id"] for g in second["games"]] == [played[0]] and second["next"] is None
    assert on_loop == [False, False]
    assert local.get("/api/games", params={"limit": 0}).status_code == 422
