"""The event log on SQLite."""

from __future__ import annotations

import sqlite3

import pytest

from boardref.eventlog.store import SCHEMA_VERSION, Store, StoreError


def test_events_come_back_in_order_for_the_open_game(tmp_path):
    store = Store(tmp_path / "log.db")
    first = store.start_game("sternhalma", 2, {}, b"seed-1", "c1")
    store.append(first, "move", {"move": "l4-k5"})
    second = store.start_game("catch_the_hare", 2, {"board": "no_diagonal"}, b"seed-2", "c2")
    store.append(second, "move", {"move": "e3-d3"})
    store.append(second, "move", {"move": "c3-c4"})
    game = store.open_game()
    assert game.id == second and game.options == {"board": "no_diagonal"}
    assert game.events == [("move", {"move": "e3-d3"}), ("move", {"move": "c3-c4"})]
    assert store.game(first).ended, "starting a game closes the one before"
    store.end_game(second, "game_over", {"winners": [1]})
    assert store.open_game() is None
    assert store.size() == {"games": 2, "events": 4, "outbox": 0}


def test_the_log_runs_in_wal_mode_with_a_schema_version(tmp_path):
    Store(tmp_path / "log.db").close()
    db = sqlite3.connect(tmp_path / "log.db")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_log_from_a_newer_boardref_is_refused(tmp_path):
    Store(tmp_path / "log.db").close()
    db = sqlite3.connect(tmp_path / "log.db")
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match="newer boardref"):
        Store(tmp_path / "log.db")


def test_a_full_disk_refuses_the_event_and_keeps_every_earlier_one(tmp_path):
    store = Store(tmp_path / "log.db")
    game = store.start_game("sternhalma", 2, {}, b"s", "c")
    store.append(game, "move", {"move": "l4-k5"})
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count={pages + 1}")  # the disk is now full
    with pytest.raises(StoreError, match="full"):
        for _ in range(100):
            store.append(game, "move", {"move": "x" * 4000})
    store.close()
    assert Store(tmp_path / "log.db").open_game().events[0] == ("move", {"move": "l4-k5"})


def test_an_unwritable_place_is_reported(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreError, match="a file stands in its way"):
        Store(tmp_path / "file" / "log.db")


def test_the_outbox_keeps_messages_in_order_until_sent_and_never_reuses_a_number(tmp_path):
    store = Store(tmp_path / "log.db")
    first = store.queue("boardref/t1/event", "a")
    second = store.queue("boardref/t1/event", "b")
    assert [row[0] for row in store.waiting()] == [first, second]
    store.sent(first)
    store.sent(second)
    assert store.waiting() == []
    assert store.queue("boardref/t1/event", "c") == second + 1, "numbers only grow"
    store.close()
    assert [row[2] for row in Store(tmp_path / "log.db").waiting()] == ["c"], "kept on disk"
