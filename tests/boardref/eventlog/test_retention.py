"""The history without growth: the list comes a page at a time from a connection of its
own, an old log gains its indexes and still lists its games, a pruned game leaves its
result for a league, and a bad retention value is refused in words."""

from __future__ import annotations

import json
import sqlite3
import threading
import time

import pytest

from boardref.eventlog.history import History
from boardref.eventlog.retention import prune
from boardref.eventlog.store import SCHEMA_VERSION, Store, open_log
from boardref.outputs.panel.seats import Seats
from boardref.referee.referee import Referee
from boardref.runtime.config import ConfigError, load_config
from tests.boardref.eventlog.test_history import play_to_the_end


def test_the_list_comes_a_page_at_a_time_newest_first(store):
    for seed in range(5):
        play_to_the_end(store, "catch_the_hare", seed)
    history = History(store, "t1")
    every = [s.id for s in history.games()]
    pages, before = [], None
    while True:
        page = history.games(limit=2, before=before)
        if not page:
            break
        pages.append([s.id for s in page])
        before = page[-1].id
    assert pages == [every[0:2], every[2:4], every[4:5]] and len(every) == 5


def test_the_list_is_read_beside_a_write_in_progress(store):
    play_to_the_end(store, "catch_the_hare")
    history = History(store, "t1")
    found = []
    with store._write():  # the referee writing: the store's connection is taken
        reading = threading.Thread(target=lambda: found.extend(history.games()))
        reading.start()
        reading.join(timeout=30)
        assert not reading.is_alive(), "the list waited for the referee's write"
    assert len(found) == 1
    history.close()


def test_an_old_log_gains_its_indexes_and_lists_its_games(tmp_path):
    path = tmp_path / "old.db"
    old = Store(path)
    played = play_to_the_end(old, "catch_the_hare").game_id
    old.close()
    with sqlite3.connect(path) as db:  # as a boardref of schema 3 left it
        db.execute("DROP INDEX ended_games")
        db.execute("DROP INDEX events_by_kind")
        db.execute("PRAGMA user_version=3")
    store, damage = open_log(path)
    try:
        assert damage is None
        assert store.read("PRAGMA user_version")[0][0] == SCHEMA_VERSION
        indexes = {name for (name,) in store.read("SELECT name FROM sqlite_master")}
        assert {"ended_games", "events_by_kind"} <= indexes
        plan = store.read(
            "EXPLAIN QUERY PLAN SELECT id FROM games WHERE ended IS NOT NULL"
            " ORDER BY started DESC, id DESC LIMIT 50"
        )
        assert any("ended_games" in row[-1] for row in plan)
        assert [s.id for s in History(store, "t1").games()] == [played]
    finally:
        store.close()


def test_a_pruned_game_leaves_who_played_and_the_result(store):
    history = History(store, "t1")
    referee = play_to_the_end(store, "catch_the_hare", 1)
    seats = Seats(store)
    device = "d" * 43
    assert seats.holds(referee.game_id, 0, seats.token(referee.game_id, 0), device)
    over = store.read(
        "SELECT data FROM events WHERE game_id = ? AND kind = 'game_over'", (referee.game_id,)
    )
    (listed,) = history.games()
    newer = play_to_the_end(store, "catch_the_hare", 2)
    assert prune(history, 0, 1) == 1
    (row,) = store.read("SELECT * FROM results")
    gid, game, players, table, started, ended, said, winners, reason, scores, counted = row
    assert (gid, game, players, table) == (referee.game_id, "catch_the_hare", 2, "t1")
    assert started <= ended
    assert [seat["computer"] for seat in json.loads(said)] == [False, False]
    assert json.loads(said)[0]["device"] and json.loads(said)[1]["device"] is None
    assert json.loads(winners) == json.loads(over[0][0])["winners"]
    assert reason == json.loads(over[0][0])["reason"] and counted == listed.plies
    for table_name in ("events", "seat_claims", "games"):
        column = "id" if table_name == "games" else "game_id"
        assert not store.read(f"SELECT 1 FROM {table_name} WHERE {column} = ?", (referee.game_id,))
    assert [s.id for s in history.games()] == [newer.game_id]
    history.close()


def test_pruning_keeps_the_newest_games_and_never_the_open_one(store):
    history = History(store, "t1")
    for seed in range(3):
        play_to_the_end(store, "catch_the_hare", seed)
    open_game = Referee(store, sensor="panel")
    open_game.new_game("catch_the_hare", None, {})
    open_game.play(str(open_game.game.legal_moves(open_game.positions[-1])[0]))
    newest = [s.id for s in history.games()]
    assert prune(history, 0, 0) == 0
    assert prune(history, 0, 2) == 1
    assert [s.id for s in history.games()] == newest[:2]
    assert prune(history, 1, 0, now=time.time() + 2 * 86400) == 2
    assert history.games() == []
    assert store.open_game().id == open_game.game_id
    assert len(store.read("SELECT * FROM results")) == 3
    history.close()


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("keep_games", "-1", "store.keep_games = -1: Input should be greater than or equal to 0"),
        ("keep_days", "'a year'", "store.keep_days = 'a year': Input should be a valid integer"),
        ("keep_days", "1.5", "store.keep_days = 1.5: Input should be a valid integer"),
    ],
)
def test_a_bad_retention_is_refused_naming_the_key(tmp_path, key, value, said):
    config = tmp_path / "config.toml"
    config.write_text(f"[store]\n{key} = {value}\n")
    with pytest.raises(ConfigError, match=said.replace(".", r"\.")):
        load_config(config)


def test_a_table_keeps_five_thousand_games_unless_told():
    assert (load_config().store.keep_games, load_config().store.keep_days) == (5000, 0)
