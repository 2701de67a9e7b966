"""The league's ratings from records alone: places from winners and scores, teams
where the game has them, computer seats as their level, anonymous seats forgotten,
abandoned and corrected games left out unless the referee says so, and the same
ratings whatever order the records come in."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from openskill.models import PlackettLuce

from boardref.eventlog.league_games import teams_and_places
from boardref.league import ratings as ratings_module
from boardref.league.ratings import counts, played, ratings, seat_entrants
from boardref.league.standings import csv_text, standings
from engines.records import Entry, GameRecord, Result


def record(game="sternhalma", players=3, winners=(0,), names=("Anna", "Ben", "Cleo"), **more):
    tags = {f"Player{s + 1}": name for s, name in enumerate(names) if name}
    fields = {"result": Result(winners, "home"), "end": "2026-11-29T20:00:00Z"} | more
    return GameRecord(game=game, players=players, tags=tags, **fields)


def test_places_come_from_winners_then_scores():
    scored = record("fang_den_hut_cards", winners=(1,), result=Result((1,), "hats", (2, 5, 2)))
    assert teams_and_places(scored) == (((0,), (1,), (2,)), (2, 1, 2))
    assert teams_and_places(record(winners=()))[1] == (1, 1, 1)


def test_team_mates_share_their_place_and_are_rated_as_a_team():
    names = ("Anna", "Ben", "Cleo", "Dora")
    team_game = record("fang_den_hut", 4, (0, 2), names, options={"team": True})
    assert teams_and_places(team_game) == (((0, 2), (1, 3)), (1, 2))
    model = PlackettLuce()
    [[anna, cleo], [ben, dora]] = model.rate(
        [[model.rating(), model.rating()], [model.rating(), model.rating()]], ranks=[1, 2]
    )
    rated = ratings([played(1, team_game)])
    assert rated["player:anna"].mu == pytest.approx(anna.mu)
    assert rated["player:dora"].mu == pytest.approx(dora.mu)
    assert rated["player:cleo"].wins == 1 and rated["player:ben"].wins == 0


def test_a_computer_seat_is_rated_as_its_level_and_an_anonymous_seat_not_at_all():
    game = record(names=("Anna", None, None), computer=(2,), level="easy")
    named = [e and e.name for e in seat_entrants(played(1, game))]
    assert named == ["Anna", None, "computer (easy)"]
    rows = standings([played(1, game)])
    assert [(r.player, r.computer) for r in rows] == [("Anna", False), ("computer (easy)", True)]
    # the seat's holder at the end counts: here the computer took seat 1 over
    later = record(entries=(Entry("computer", computer=(1,), level="hard"),))
    assert seat_entrants(played(1, later))[1].name == "computer (hard)"
    # a game of the computer against anonymous seats changes nobody
    assert ratings([played(2, record(names=(), computer=(0,), level="easy"))]) == {}


def test_abandoned_and_corrected_games_count_only_when_the_referee_says_so():
    corrected = record(entries=(Entry("ply", seat=0, move="a1-b2", marks=("corrected",)),))
    placed = record(entries=(Entry("position", position={}),))
    abandoned = record(result=None, abandoned=True)
    for game in (corrected, placed, abandoned):
        assert not counts(played(1, game))
        assert counts(played(1, game, rated=True))
    assert not counts(played(1, record(), rated=False))
    # an abandoned game the referee rates is a draw
    drawn = ratings([played(1, abandoned, rated=True)])
    assert len({round(r.mu, 9) for r in drawn.values()}) == 1


def test_ratings_follow_the_order_games_ended_not_the_order_they_are_read():
    pick = random.Random(5)
    games = [
        played(n, record(winners=(pick.randrange(3),), end=f"2026-11-{10 + n:02d}T20:00:00Z"))
        for n in range(12)
    ]
    first = standings(games)
    pick.shuffle(games)
    assert standings(games) == first
    assert [r.games for r in first] == [12, 12, 12] and not first[0].provisional


def test_games_that_ended_in_the_same_second_are_rated_alike_in_every_log():
    """Another log numbers imported records its own way: games that ended in the same
    second come in the order they began, then by commitment, never by number."""
    same_second = [
        record(winners=(w,), start=f"2026-11-29T19:{m:02d}:00Z", commitment=c)
        for w, m, c in ((0, 10, "c1"), (1, 20, "b2"), (2, 20, "a3"))
    ]
    here = standings([played(n, game) for n, game in enumerate(same_second, start=1)])
    there = standings([played(n, game) for n, game in zip((9, 8, 7), same_second, strict=True)])
    assert [(r.player, r.mu, r.sigma) for r in there] == [(r.player, r.mu, r.sigma) for r in here]
    by_number = standings([played(n, g) for n, g in zip((1, 3, 2), same_second, strict=True)])
    assert [(r.player, r.mu) for r in by_number] == [(r.player, r.mu) for r in here]


def test_the_csv_has_a_header_and_keeps_a_formula_out():
    rows = standings([played(7, record(names=("=cmd()", "Ben", None)))])
    lines = csv_text(rows).splitlines()
    assert lines[0].startswith("place,player,computer,rating,mu,sigma,games,wins")
    assert any(line.split(",")[1] == "'=cmd()" for line in lines[1:])
    assert all(line.endswith(",7") for line in lines[1:])


def test_remembered_ratings_are_the_ratings_afresh():
    pick = random.Random(9)
    games = [
        played(
            n,
            record(
                winners=(pick.randrange(3),),
                names=tuple(pick.sample(("Anna", "Ben", "Cleo", "Dora", None), 3)),
                end=f"2026-11-{1 + n // 2:02d}T20:00:00Z",
            ),
        )
        for n in range(40)
    ]

    def afresh(listed):
        ratings_module._MEMO.clear()
        return standings(listed)

    remembered = [standings(games[:30]), standings(games), standings(games[:30])]
    assert remembered == [afresh(games[:30]), afresh(games), afresh(games[:30])]
    standings(games)
    # a rename inside the list: every game from the first it touches is rated again
    renamed = [
        replace(g, names={s: n.replace("Ben", "Benno") for s, n in g.names.items()}) for g in games
    ]
    assert standings(renamed) == afresh(renamed) != afresh(games)
