"""The league reads one kept row a finished game, never the records: the standings
from those rows equal the standings from the records themselves, a pruned game still
counts, and a rename, merge, delete or the referee's word changes them at once
(names and the word are read as they stand, never kept in the row)."""

from __future__ import annotations

from boardref.eventlog.history import History
from boardref.eventlog.retention import prune
from boardref.league.ratings import played
from boardref.league.standings import played_games, standings, standings_of
from tests.boardref.eventlog.test_history import play_to_the_end

GAME = "catch_the_hare"


def from_the_records(history: History):
    """The standings as the records alone give them."""
    return standings(
        [played(s.id, history.record(s.id), history.players.rated(s.id)) for s in history.games()]
    )


def test_a_pruned_game_counts_and_follows_its_players(store):
    history = History(store, "t1")
    players = history.players
    anna, ben, cleo = (players.add(name) for name in ("Anna", "Ben", "Cleo"))
    games = []
    for seed, seating in enumerate(((anna, ben), (ben, anna), (anna, cleo), (cleo, ben))):
        gid = play_to_the_end(store, GAME, seed).game_id
        for seat, player in enumerate(seating):
            players.seat(gid, seat, player.id)
        games.append(gid)
    before = standings(played_games(history, GAME))
    assert before == from_the_records(history)
    assert {r.player: r.games for r in before} == {"Anna": 3, "Ben": 3, "Cleo": 2}

    assert prune(history, 0, 1) == 3
    assert [s.id for s in history.games()] == games[-1:]
    assert standings(played_games(history, GAME)) == before
    assert len(store.read("SELECT 1 FROM league_games")) == 4

    players.rename(anna.id, "Anna K.")
    renamed = standings(played_games(history, GAME))
    assert [r.player for r in renamed] == [
        "Anna K." if r.player == "Anna" else r.player for r in before
    ]
    players.set_rated(games[0], False)  # a pruned game the referee leaves out
    assert {r.player: r.games for r in standings(played_games(history, GAME))} == {
        "Anna K.": 2,
        "Ben": 2,
        "Cleo": 2,
    }
    players.merge(cleo.id, ben.id)
    merged = standings(played_games(history, GAME))
    # Cleo's games are Ben's now; the one they played each other has Ben on both
    # seats, which nothing rates fairly
    assert {r.player: r.games for r in merged} == {"Anna K.": 2, "Ben": 2}
    players.delete(ben.id)
    assert [r.player for r in standings(played_games(history, GAME))] == ["Anna K."]
    history.close()


def test_a_game_gets_its_row_once(store):
    history = History(store, "t1")
    anna = history.players.add("Anna")
    gid = play_to_the_end(store, GAME).game_id
    history.players.seat(gid, 0, anna.id)
    assert not store.read("SELECT 1 FROM league_games")
    [first] = standings(played_games(history, GAME))
    kept = store.read("SELECT game_id, outcome FROM league_games")
    assert [row[0] for row in kept] == [gid]
    # what is kept is what is read: a row changed in the log changes the standings
    flip = ('"by_the_rules":true', '"by_the_rules":false')
    store.write([("UPDATE league_games SET outcome = replace(outcome, ?, ?)", flip)])
    assert standings(played_games(history, GAME)) == []
    assert first.games == 1
    history.close()


def test_standings_are_remembered_until_the_league_changes(store):
    history = History(store, "t1")
    anna, ben = history.players.add("Anna"), history.players.add("Ben")
    gid = play_to_the_end(store, GAME).game_id
    for seat, player in enumerate((anna, ben)):
        history.players.seat(gid, seat, player.id)
    first = standings_of(history, GAME)
    assert standings_of(history, GAME) is first  # nothing changed: not worked out again
    for change in (
        lambda: history.players.rename(anna.id, "Anna K."),
        lambda: history.players.set_rated(gid, False),
        lambda: history.players.set_rated(gid, None),
        lambda: history.players.seat(gid, 1, None),
    ):
        before = standings_of(history, GAME)
        change()
        after = standings_of(history, GAME)
        assert after is not before and after == standings(played_games(history, GAME))
    history.close()
