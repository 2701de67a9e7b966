"""Two people play Fang den Hut! in German on the virtual board (``/sim``), by clicks
only, until one of them puts a hat from home onto hats the hall sensors already feel:
the board cannot feel that move. The mover's phone (390x844) says so and lists the
move; the table says it too; the mover taps the move on the phone and the game goes
on as the board shows it. To get there sooner they bring hats out of their homes.
"""

from __future__ import annotations

import random

import pytest

from engines.core import PASS
from tests.boardref.at_the_table import WAIT_MS
from tests.boardref.conftest import needs_chromium
from tests.boardref.outputs.panel.test_play_fang_den_hut import (
    carry_out,
    confirm_on_phone,
    play,
    playable,
    presence,
    roll,
    sit_down,
)
from tests.boardref.outputs.panel.test_play_games import wait_for_ply

pytestmark = [needs_chromium, pytest.mark.browser]

#: plies at most; two players leaving home meet such a move in about ten
MOST = 80


def unseen(game, state) -> list:
    """The moves the hall sensors cannot feel: the board reads as before."""
    before = presence(game, state)
    return [
        m
        for m in game.legal_moves(state)
        if m != PASS and presence(game, game.apply(state, m)) == before
    ]


def test_a_hat_put_onto_hats_the_board_feels_is_asked_for_on_the_phone_in_german(people):
    from playwright.sync_api import expect

    table, game, sim, kiosk, phones = sit_down(people, 2)
    state = game.initial_state()
    choose = random.Random(40)
    while state.ply < MOST:
        roller = phones[game.drawer(state)]
        roller.bring_to_front()
        expect(roller.locator('body[data-yours="yes"]')).to_have_count(1, timeout=WAIT_MS)
        state = roll(roller, game, state, decline=False)
        if game.legal_moves(state) == [PASS]:  # the referee passes for them
            state = game.apply(state, PASS)
            wait_for_ply(kiosk, state.ply)
            continue
        mover = phones[game.to_move(state)]
        hidden = unseen(game, state)
        if hidden:
            break
        moves = playable(game, state)
        leaving = [m for m in moves if m.legs[0].path[0].startswith("home_")]
        move = choose.choice(leaving or moves)
        waiting, _ = play(table, sim, kiosk, mover, game, state, move)
        state = game.apply(state, move)
        if waiting:
            confirm_on_phone(table, mover, first=False)
        wait_for_ply(kiosk, state.ply)
    else:
        raise AssertionError(f"no move the board cannot feel in {MOST} plies")

    move = hidden[0]
    carry_out(table, sim, game, state, move)
    mover.bring_to_front()
    asked = mover.locator("#unseen")
    expect(asked).to_be_visible(timeout=WAIT_MS)
    expect(asked).to_contain_text("spürt das Brett das nicht")
    expect(asked.locator("button")).to_have_count(len(hidden) + 1)
    expect(asked.locator("button").last).to_have_text("Ich habe keinen davon gemacht")
    # the table says it too, to the mover by name; the other phone is not asked
    expect(kiosk.locator("#unseen")).to_contain_text("spürt das Brett das nicht")
    other = phones[1 - game.to_move(state)]
    expect(other.locator("#unseen")).to_be_hidden()
    # the next roll waits for the mover's answer
    expect(other.locator("#draw")).to_be_hidden()
    table.check()
    table.shoot("unseen")
    asked.locator(f'button[data-move="{move}"]').click()
    state = game.apply(state, move)
    wait_for_ply(kiosk, state.ply)
    expect(asked).to_be_hidden(timeout=WAIT_MS)
    expect(kiosk.locator("#unseen")).to_be_hidden()
    table.check()
    table.shoot("unseen-chosen")
