"""The café's players in the event log: named seats reach each record, a rename, a
merge and a delete change every record of theirs, an existing log gains the tables,
and bad names are refused in words."""

from __future__ import annotations

import sqlite3

import pytest

from boardref.eventlog.history import History
from boardref.eventlog.players import LeagueError
from boardref.eventlog.store import Store


def ended_game(store: Store, winner: int = 0) -> int:
    """A finished Sternhalma game of two, one move long (its record is not replayed)."""
    game_id = store.start_game("sternhalma", 2, {}, b"seed", "c0ffee")
    store.append(game_id, "move", {"move": "a1-b2", "seat": 0})
    store.end_game(game_id, "game_over", {"winners": [winner], "reason": "home", "seed": "00"})
    return game_id


@pytest.fixture
def history(tmp_path):
    store = Store(tmp_path / "log.db")
    yield History(store, "table1")
    store.close()


def test_named_seats_are_in_the_record_and_follow_a_rename(history):
    players = history.players
    game_id = ended_game(history.store)
    anna, ben = players.add("Anna"), players.called("Ben")
    assert players.called("anna") == players.named("ANNA") and players.get(anna.id).name == "Anna"
    players.seat(game_id, 0, anna.id)
    players.seat(game_id, 1, ben.id)
    assert history.record(game_id).tags == {"Player1": "Anna", "Player2": "Ben"}
    players.rename(ben.id, "Benedikt")
    assert history.record(game_id).tags["Player2"] == "Benedikt"
    players.seat(game_id, 1, None)
    assert history.record(game_id).tags == {"Player1": "Anna"}
    players.set_rated(game_id, False)
    assert history.record(game_id).tags["Rated"] == "no"


def test_a_merge_gives_the_games_to_one_and_a_delete_leaves_them_anonymous(history):
    players = history.players
    first, second = ended_game(history.store), ended_game(history.store)
    anna, anne, ben = players.add("Anna"), players.add("Anne"), players.add("Ben")
    players.seat(first, 0, anna.id)
    players.seat(second, 1, anne.id)
    players.seat(second, 0, ben.id)
    merged = players.merge(anne.id, anna.id)
    assert (merged.name, merged.games) == ("Anna", 2)
    assert history.record(second).tags == {"Player1": "Ben", "Player2": "Anna"}
    players.delete(anna.id)
    assert history.record(first).tags == {} and history.record(second).tags == {"Player1": "Ben"}
    assert [p.name for p in players.all()] == ["Ben"]
    rows = history.store.read("SELECT COUNT(*) FROM seat_players WHERE player_id = ?", (anna.id,))
    assert rows == [(0,)]


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("", "1 to 24 characters"),
        ("x" * 25, "1 to 24 characters"),
        ("An\x00na", "letters, digits and signs only"),
        ("  ANNA ", "already a player called ANNA"),
    ],
)
def test_bad_names_are_refused_in_words(history, name, said):
    history.players.add("Anna")
    with pytest.raises(LeagueError, match=said):
        history.players.add(name)


def test_one_player_holds_one_seat_of_a_game(history):
    players, game_id = history.players, ended_game(history.store)
    anna = players.add("Anna")
    players.seat(game_id, 0, anna.id)
    with pytest.raises(LeagueError, match="Anna already plays seat 1") as refused:
        players.seat(game_id, 1, anna.id)
    assert refused.value.status == 409
    with pytest.raises(LeagueError, match="no player 99"):
        players.seat(game_id, 1, 99)
    with pytest.raises(LeagueError, match="merged into themselves"):
        players.merge(anna.id, anna.id)


def test_a_log_from_before_the_league_gains_its_tables_and_a_reader_changes_nothing(tmp_path):
    path = tmp_path / "old.db"
    store = Store(path)  # the log alone, as a table wrote it before the league
    game_id = ended_game(store)
    store.close()
    reader = Store(path, reading=True)
    read = History(reader, "table1")
    assert read.players.all() == [] and read.record(game_id).tags == {}
    reader.close()
    with sqlite3.connect(path) as db:
        assert not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'players'").fetchall()
    store = Store(path)
    history = History(store, "table1")
    history.players.seat(game_id, 0, history.players.add("Anna").id)
    assert history.record(game_id).tags == {"Player1": "Anna"}
    store.close()
