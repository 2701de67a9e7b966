"""Standings kept up to date: after every kind of change to the league's tables
(a game ended or imported in its place in time, a seat named, the referee's word,
a rename, merge or delete) they equal the standings rated afresh, and only the games
the log noted as touched are read again."""

from __future__ import annotations

import random
import time
from types import SimpleNamespace

import pytest

from boardref.eventlog import league_games
from boardref.eventlog.history import History
from boardref.eventlog.league_games import Outcome, row_statement, touched_since
from boardref.league import ledger as ledger_module
from boardref.league import ratings as ratings_module
from boardref.league.standings import played_games, standings, standings_of

GAME = "sternhalma"


def outcome(game_id: int, day: int, winner: int) -> Outcome:
    return Outcome(
        game_id=game_id,
        game=GAME,
        end=f"2026-{1 + day // 28:02d}-{1 + day % 28:02d}T20:00:00Z",
        computer=(None, None, None),
        teams=((0,), (1,), (2,)),
        places=tuple(1.0 if seat == winner else 2.0 for seat in range(3)),
        winners=(winner,),
        finished=True,
        by_the_rules=True,
    )


def keep(history: History, game_id: int, day: int, winner: int) -> None:
    history.store.write([row_statement(outcome(game_id, day, winner), 1e9 + day * 86400)])


def afresh(history: History):
    ratings_module._MEMO.clear()
    return standings(played_games(history, GAME))


@pytest.fixture
def league(store, monkeypatch):
    """A log with 150 rated games between six players, and what the ledger reads:
    None for every game, else the games it asked for."""
    history = History(store, "t1")
    pick = random.Random(43)
    players = [
        history.players.add(name) for name in ("Anna", "Ben", "Cleo", "Dora", "Emil", "Finn")
    ]
    for gid in range(1, 151):
        keep(history, gid, gid, pick.randrange(3))
        for seat, player in enumerate(pick.sample(players, 3)):
            if pick.random() < 0.9:
                history.players.seat(gid, seat, player.id)
    asked: list = []
    reading = league_games.seated_in

    def seated_in(reader, game, first, after, among=None, outcome=Outcome.from_json):
        asked.append(None if among is None else set(among))
        return reading(reader, game, first, after, among, outcome)

    monkeypatch.setattr(ledger_module, "seated_in", seated_in)
    yield history, players, asked
    history.close()


def test_kept_up_standings_are_the_standings_afresh(league):
    history, (anna, ben, cleo, dora, *_), asked = league
    first = standings_of(history, GAME)
    assert first == afresh(history) and asked == [None]
    assert standings_of(history, GAME) is first  # nothing touched: nothing read
    assert asked == [None]
    changes = {
        "a game ended": lambda: ended(151, 151, ben),
        "its seat named": lambda: history.players.seat(151, 0, anna.id),
        "an imported game, early in the year": lambda: ended(152, 3, cleo),
        "a seat named in the middle": lambda: history.players.seat(75, 2, dora.id),
        "the referee leaves a game out": lambda: history.players.set_rated(40, False),
        "and back as the rules go": lambda: history.players.set_rated(40, None),
        "a rename": lambda: history.players.rename(ben.id, "Benno"),
        "a merge": lambda: history.players.merge(cleo.id, dora.id),
        "a delete": lambda: history.players.delete(anna.id),
    }

    def ended(game_id, day, player):
        keep(history, game_id, day, 0)
        history.players.seat(game_id, 1, player.id)

    for change, made in changes.items():
        before = standings_of(history, GAME)
        made()
        after = standings_of(history, GAME)
        assert after == afresh(history) and after != before, change
        assert asked[-1] is not None, f"{change}: only the touched games are read"
    assert asked[1] == {151}  # the game that ended, and nothing else


def test_standings_that_missed_too_many_touches_read_every_game(league):
    history, (anna, *_), asked = league
    standings_of(history, GAME)
    history.players.seat(149, 0, anna.id)
    history.players.seat(150, 0, anna.id)
    last, _ = touched_since(history.reader(), None)
    # the first of the two forgotten, as the log forgets notes past its bound
    history.store.write([("DELETE FROM league_touched WHERE n < ?", (last,))])
    assert standings_of(history, GAME) == afresh(history)
    assert asked[-1] is None


def test_a_long_pass_pauses_for_the_event_loop(league, monkeypatch):
    history, _, _ = league
    pauses: list[float] = []
    monkeypatch.setattr(ledger_module, "RUN_S", 0.0)
    clock = SimpleNamespace(perf_counter=time.perf_counter, sleep=pauses.append)
    monkeypatch.setattr(ledger_module, "time", clock)
    standings_of(history, GAME)
    # every game read and every game rated is a moment the loop may have
    assert len(pauses) >= 300
