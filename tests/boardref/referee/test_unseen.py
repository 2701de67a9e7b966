"""Moves the board cannot feel: on hall sensors a legal move that leaves the reading
as it was (a Fang den Hut! hat from a home that keeps others onto hats the sensors
already feel) is listed for the mover while the turn is open; play waits until it is
chosen or ruled out, and the game and the board never drift apart."""

from __future__ import annotations

import random

import pytest

from boardref.referee.kinds import Phase
from boardref.referee.successors import outcomes_read_as
from boardref.referee.verdicts import RefereeError
from engines import GAMES, PASS, load_game
from tests.engines.test_fang_den_hut import position

#: red's hat waits on r1; a two takes another from home onto it, which the sensors
#: cannot feel, or onto green's tower on r44 (a capture they cannot feel either)
ONTO_OWN = {"r1": ["red"]}
ONTO_TOWER = {"r44": ["green[red]"], "r10": ["green"]}


def at(table, fields, roll=2):
    """A Fang den Hut! table of two on hall sensors at ``fields``, red to move with
    ``roll``, the board showing it and the position indexed (as the worker does)."""
    t = table("fang_den_hut", 2)
    state = position(t.game, fields, roll=roll)
    t.referee.positions[-1], t.referee.phase = state, Phase.MOVE
    t.show_position(state)
    t.referee.prepare()
    t.referee.outbox.publish()
    return t, state


@pytest.mark.parametrize("fields", [ONTO_OWN, ONTO_TOWER], ids=["onto_own", "onto_tower"])
def test_a_move_the_board_cannot_feel_is_asked_for_and_play_waits_until_it_is_chosen(table, fields):
    t, state = at(table, fields)
    game, referee = t.game, t.referee
    unseen = [
        m
        for m in game.legal_moves(state)
        if game.sense(game.apply(state, m), "presence") == game.sense(state, "presence")
    ]
    assert len(unseen) == 1
    shown = referee.published
    assert shown.unseen == (str(unseen[0]),) and shown.can_rule_out and shown.can_confirm
    assert shown.to_move == 0 and shown.drawer is None and shown.chance is None
    with pytest.raises(RefereeError, match="Nothing to draw"):
        referee.draw()  # the next roll waits for the mover's answer
    referee.choose(str(unseen[0]))
    after = game.apply(state, unseen[0])
    assert referee.log[-1] == ("move", {"move": str(unseen[0]), "seat": 0, "chosen": True})
    assert referee.positions[-1] == after and referee.phase == Phase.CHANCE
    assert referee.published.unseen == () and not referee.published.can_rule_out
    referee.draw()  # and play goes on, the game as the board shows it
    assert game.sense(referee.positions[-1], "presence") == referee.reading


def test_ruled_out_the_table_stops_asking_and_takes_the_move_the_board_shows(table):
    t, state = at(table, ONTO_OWN)
    referee = t.referee
    referee.rule_out()
    assert referee.published.unseen == () and not referee.published.can_rule_out
    assert referee.published.can_confirm, "a confirm still names the unseen move"
    with pytest.raises(RefereeError, match="cannot feel"):
        referee.rule_out()
    t.change(r44="piece")  # then a hat from home onto the empty r44, which it feels
    assert referee.log[-1] == ("move", {"move": "red home_red-gate_red-r44", "seat": 0})


def test_a_confirm_offers_the_move_and_none_of_these_takes_the_question_back(table):
    t, state = at(table, {"r1": ["red"], "r44": ["red"]})
    referee = t.referee
    assert len(referee.published.unseen) == 2
    referee.confirm()
    assert referee.phase == "ambiguous" and referee.published.can_rule_out
    referee.rule_out()
    assert referee.phase == Phase.MOVE and referee.published.candidates == ()
    assert referee.published.unseen == () and not [k for k, _ in referee.log if k == "move"]


def test_a_confirm_pressed_before_moving_anything_plays_no_move(table):
    """The lit Confirm pressed at the start of a turn took the one unseen move, which
    nobody had made: the game had two hats on r1 and four at home, the board one and
    five. It asks now, and "none of these" leaves the game as the board shows it."""
    t, state = at(table, ONTO_OWN)
    referee = t.referee
    referee.confirm()
    assert referee.phase == "ambiguous"
    assert referee.published.candidates == ("red home_red-gate_red-r1",)
    referee.rule_out()
    assert referee.positions[-1] == state and not [k for k, _ in referee.log if k == "move"]
    t.change(r1=None, r3="piece")
    assert referee.log[-1][1]["move"] == "red r1-r2-r3"
    assert t.game.sense(referee.positions[-1], "presence") == referee.reading


def test_a_move_the_board_shows_is_taken_while_unseen_moves_are_listed(table):
    t, state = at(table, ONTO_OWN)
    t.change(r1=None, r3="piece")
    assert t.referee.log[-1][1]["move"] == "red r1-r2-r3"
    assert t.referee.published.unseen == ()


def test_the_computers_unseen_move_is_the_only_one_asked_about(table):
    t, state = at(table, {"r1": ["red"], "r44": ["red"]})
    referee = t.referee
    referee.expect("red home_red-gate_red-r44")
    assert referee.published.unseen == ("red home_red-gate_red-r44",)
    with pytest.raises(RefereeError):
        referee.choose("red home_red-gate_red-r1")
    referee.confirm()
    assert referee.log[-1][1]["move"] == "red home_red-gate_red-r44"


def board_games():
    return [name for name in GAMES if "presence" in load_game(name).SENSORS]


@pytest.mark.parametrize("name", board_games())
def test_every_board_game_on_hall_sensors_asks_for_exactly_its_unseen_moves(table, name):
    """Random games through the referee, each move shown as the hall sensors read it:
    wherever the board cannot feel some legal moves (found one outcome at a time, apart
    from the index the referee asks), the table lists exactly those and waits; the
    mover chooses the one made, and the game and the board agree after every move."""
    t = table(name, None, seed=b"unseen")
    game, referee = t.game, t.referee
    t.lay_out_start()
    pick = random.Random(name)
    plies = {"hakenschlagen": 12}.get(name, 80)
    asked = 0
    for _ in range(plies):
        while referee.phase == Phase.CHANCE:
            referee.draw()
            t.show_position(referee.positions[-1])
        if referee.phase != Phase.MOVE:
            break
        state = referee.positions[-1]
        referee.prepare()
        shown = referee.snapshot()
        base = game.sense(state, "presence")
        key = tuple(base.values())
        alike = {s: m for m, s in outcomes_read_as(game, state, "presence", key, key)}
        assert sorted(shown.unseen) == sorted(map(str, alike.values())), state
        moves = [m for m in game.legal_moves(state) if m != PASS]
        move = pick.choice(list(alike.values()) if alike and pick.random() < 0.7 else moves)
        after = game.apply(state, move)
        if shown.unseen and str(move) not in shown.unseen and pick.random() < 0.3:
            referee.rule_out()  # the mover says first that it made none of them
        t.show_position(after)
        if shown.unseen and str(move) in shown.unseen:
            asked += 1
            assert referee.positions[-1] == state and referee.phase == Phase.MOVE
            assert referee.published.chance is None, "no roll while the move is asked for"
            if pick.random() < 0.3:
                referee.confirm()  # the mover confirms, then names the move
                assert str(move) in referee.published.candidates
            referee.choose(str(move))
        elif referee.tentative is not None or referee.phase == "ambiguous":
            if referee.tentative is not None:
                referee.confirm()
            if referee.phase == "ambiguous":
                referee.choose(
                    next(
                        c
                        for c in referee.published.candidates
                        if game.apply(state, game.parse_move(state, c)) == after
                    )
                )
        assert referee.positions[-1] == after, f"{move}: the game left the board"
        assert referee.published.remove is None
    if name in ("fang_den_hut", "hakenschlagen"):  # the games with such moves
        assert asked, "no unseen move came up"
