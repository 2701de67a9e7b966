"""The virtual board of a simulated table (pure, fast): stacks lifted one piece at a
time, a hand of several pieces, the tray and the supply, refusals in words; the
games' stacks it is laid out from; and the referee lighting a lift the hall sensors
cannot feel (``Referee.hold``)."""

from __future__ import annotations

import pytest

from boardref.sim.virtual_board import SUPPLY, TRAY, HandRefused, VirtualBoard
from engines import load_game


def board(stacks: bool = False, **pieces) -> VirtualBoard:
    virtual = VirtualBoard(["a1", "a2", "a3", "home"], stacks)
    virtual.lay_out({cell: tuple(tokens) for cell, tokens in pieces.items()}, {"molehill": 1})
    return virtual


def refusal(action, *args) -> str:
    with pytest.raises(HandRefused) as refused:
        action(*args)
    return refused.value.words.key


def test_a_lifted_piece_is_held_until_put_down_where_the_hand_puts_it():
    virtual = board(a1=["hare"])
    piece = virtual.lift("a1")
    assert (piece.token, piece.origin) == ("hare", "a1")
    assert virtual.presence() == [False, False, False, False]
    virtual.place("a3")
    assert virtual.stacks["a3"] == ["hare"] and virtual.hand == []
    assert virtual.presence(["a3", "a1"]) == [True, False]


def test_several_pieces_in_hand_and_the_chosen_one_is_put_down():
    virtual = board(a1=["hare"], a2=["hunter"])
    hare = virtual.lift("a1")
    virtual.lift("a2")
    assert virtual.place("a3", hare.id).token == "hare"
    assert [p.token for p in virtual.hand] == ["hunter"]
    assert virtual.place("a1").token == "hunter"  # none named: the one lifted last


def test_a_stack_gives_its_top_piece_and_the_cell_still_holds_the_rest():
    virtual = board(stacks=True, home=["red"] * 5 + ["gold"])
    assert virtual.lift("home").token == "gold"
    assert virtual.stacks["home"] == ["red"] * 5
    assert virtual.unseen_lifts() == ["home"]  # the sensor still feels the home
    virtual.place("a1")
    virtual.lift("a1")
    assert virtual.unseen_lifts() == []  # a1 is empty now: the sensor felt it


def test_a_piece_standing_beside_others_is_lifted_by_its_token():
    virtual = board(stacks=True, a1=["blue[green]", "green", "yellow"])
    assert virtual.lift("a1", "green").token == "green"
    assert virtual.stacks["a1"] == ["blue[green]", "yellow"]
    assert refusal(virtual.lift, "a1", "red") == "sim.not_on_cell"
    assert virtual.stacks["a1"] == ["blue[green]", "yellow"] and len(virtual.hand) == 1


def test_captured_pieces_go_to_the_tray_and_come_back_from_it():
    virtual = board(a1=["hunter"], a2=["hunter"])
    for cell in ("a1", "a2"):
        virtual.lift(cell)
        virtual.put(TRAY)
    assert virtual.tray == ["hunter", "hunter"] and virtual.presence() == [False] * 4
    assert virtual.take(TRAY, "hunter").origin == TRAY
    virtual.place("a2")
    assert virtual.tray == ["hunter"]


def test_the_supply_gives_its_pieces_and_takes_back_only_its_own():
    virtual = board(a1=["hare"])
    assert virtual.take(SUPPLY).token == "molehill"
    assert virtual.supply == {"molehill": 0}
    assert refusal(virtual.take, SUPPLY, "molehill") == "sim.supply_empty"
    virtual.lift("a1")
    hare = virtual.hand[-1]
    assert refusal(virtual.put, SUPPLY, hare.id) == "sim.not_supply"
    virtual.put(SUPPLY, virtual.hand[0].id)
    assert virtual.supply == {"molehill": 1}


def test_what_no_hand_can_do_is_refused_in_words_and_nothing_changes():
    virtual = board(a1=["hare"], a2=["hunter"])
    before = virtual.snapshot()
    assert refusal(virtual.lift, "a3") == "sim.empty"
    assert refusal(virtual.lift, "z9") == "sim.no_cell"
    assert refusal(virtual.place, "a3") == "sim.nothing_held"
    assert refusal(virtual.take, TRAY) == "sim.tray_empty"
    assert virtual.snapshot() == before
    virtual.lift("a1")
    assert refusal(virtual.place, "a2") == "sim.occupied"  # one piece a hole
    assert refusal(virtual.place, "a3", 999) == "sim.not_in_hand"
    assert virtual.stacks["a2"] == ["hunter"] and len(virtual.hand) == 1


def test_a_page_acting_on_an_older_board_is_told_to_look_again():
    virtual = board(a1=["hare"])
    seen = virtual.version
    virtual.lift("a1")  # another page's click
    assert refusal(virtual.check, seen) == "sim.stale"
    virtual.check(virtual.version)
    virtual.check(None)


def test_a_hat_put_over_foreign_hats_nests_into_the_games_tower_and_moves_as_one():
    virtual = board(stacks=True, a1=["blue", "green"], a2=["red"])
    virtual.lift("a2")
    virtual.place("a1")
    assert virtual.regroup({"a1": ("red[blue,green]",)})
    assert virtual.stacks["a1"] == ["red[blue,green]"]
    assert virtual.lift("a1").token == "red[blue,green]" and virtual.stacks["a1"] == []
    # a cell holding other hats than the game's is left as the hand left it
    virtual.place("a3")
    assert not virtual.regroup({"a3": ("red[blue]",)})
    assert virtual.stacks["a3"] == ["red[blue,green]"]


def test_a_tower_brought_home_comes_apart_in_the_hand_own_hats_in_prisoners_out():
    virtual = board(stacks=True, a1=["red[blue,red]"], a2=["red"])
    virtual.lift("a1")
    hats = virtual.unpack()
    assert [p.token for p in hats] == ["blue", "red", "red"] and virtual.hand == hats
    assert {p.origin for p in hats} == {"a1"}
    virtual.place("a2", hats[1].id)
    virtual.place("a2")
    virtual.put(TRAY)
    assert virtual.stacks["a2"] == ["red"] * 3 and virtual.tray == ["blue"]
    virtual.lift("a2")
    with pytest.raises(HandRefused, match="one piece"):
        virtual.unpack()
    assert [p.token for p in virtual.hand] == ["red"]


def test_laying_out_empties_the_hand_and_the_tray():
    virtual = board(a1=["hare"], a2=["hunter"])
    virtual.lift("a1")
    virtual.lift("a2")
    virtual.put(TRAY)
    virtual.lay_out({"a3": ("hare",)}, {})
    assert virtual.hand == [] and virtual.tray == [] and virtual.stacks["a3"] == ["hare"]


def test_the_games_tell_each_cells_whole_stack_and_their_supply():
    hats = load_game("fang_den_hut", players=4)
    stacks = hats.stacks(hats.initial_state())
    assert stacks["home_red"] == ("red",) * 6 and hats.STACKS
    assert set(stacks) == {"home_red", "home_blue", "home_green", "home_yellow"}
    hares = load_game("hakenschlagen", players=2)
    state = hares.initial_state()
    assert set(hares.stacks(state).values()) <= {("fox",), ("hare_white",), ("hare_yellow",)}
    assert hares.supply(state) == {"molehill": 6}
    hunt = load_game("catch_the_hare")
    assert hunt.stacks(hunt.initial_state())["c3"] == ("hare",) and hunt.supply(None) == {}


def test_a_hat_held_off_a_full_home_lights_where_it_may_go(table):
    felt = table("fang_den_hut", 4)
    felt.lay_out_start()
    referee = felt.referee
    referee.draw()
    state = referee.positions[-1]
    ends = {m.path[-1] for m in referee.game.legal_moves(state) if m.path[0] == "home_red"}
    referee.hold(["home_red"])
    shown = referee.published
    assert shown.lifted == "home_red" and shown.destinations == ends and ends
    referee.hold([])
    assert referee.published.lifted is None and not referee.published.destinations
