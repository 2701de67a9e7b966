"""Four people play Fang den Hut! in German, by clicking and tapping only: each rolls
on their own phone, carries the move out on the virtual board (``/sim``) and, where
the hall sensors cannot see it (a hat put onto hats the sensors already feel), ends
it with Confirm on their phone or by the next roll; where other moves read alike, they
choose theirs on the phone. They prefer the moves worth testing: leaving home,
taking a hat from among others on a grey field (the virtual board asks which),
capturing into a tower, bringing prisoners home (the tower is taken apart at home:
own hats back in, prisoners beside the board); a six's extra roll is taken once and
declined once; a tower with prisoners heads for home. The dice are the service's, so
the game is different each run; it goes on until every kind of move was seen.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from engines import load_game
from engines.core import PASS
from tests.boardref.at_the_table import WAIT_MS
from tests.boardref.conftest import needs_chromium
from tests.boardref.outputs.panel.test_play_games import wait_for_ply

pytestmark = [needs_chromium, pytest.mark.browser]

I18N = Path(__file__).parents[4] / "boardref" / "outputs" / "panel" / "i18n"

#: plies at most; most games show every kind of move in about 30
MOST = 160
#: the simulator page's refusal of a tap made on a board older than the service's
STALE = json.loads((I18N / "de" / "sim.json").read_text())["sim.stale"]


def presence(game, state) -> frozenset[str]:
    """The cells the hall sensors feel a hat on."""
    return frozenset(cell for cell, seen in game.observe(state).items() if seen)


def captives(state) -> int:
    return sum(len(hat.captives) for hats in state.fields for hat in hats)


def kinds(game, state, move) -> set[str]:
    """What a move shows of the game: a hat leaving home, a hat taken from among others
    on its field, a capture, prisoners home."""
    after = game.apply(state, move)
    shown = set()
    if move.path[0].startswith("home_"):
        shown.add("leave")
    elif len(state.fields[game.board.index[move.path[0]]]) > 1:
        shown.add("among")
    if captives(after) > captives(state) and sum(map(len, after.prisoners)) == sum(
        map(len, state.prisoners)
    ):
        shown.add("capture")
    if sum(map(len, after.prisoners)) > sum(map(len, state.prisoners)):
        shown.add("home")
    return shown


def playable(game, state) -> list:
    """The moves a person can carry out so that the hall sensors tell them apart: the
    board changes, and no other move with another result reads the same."""
    moves = game.legal_moves(state)
    before = presence(game, state)
    readings: dict[frozenset, set] = {}
    for move in moves:
        readings.setdefault(presence(game, game.apply(state, move)), set()).add(
            game.apply(state, move)
        )
    return [
        move
        for move in moves
        if move != PASS
        and presence(game, game.apply(state, move)) != before
        and len(readings[presence(game, game.apply(state, move))]) == 1
    ]


def steps_home(game, colour: str) -> dict[str, int]:
    """How many fields each field is from ``colour``'s home, along the paths."""
    ids = [cell.id for cell in game.board.cells]
    reached = [ids.index(f"home_{colour}")]
    steps = {reached[0]: 0}
    for here in reached:  # grows as fields are reached
        for there in game.board.neighbours[here]:
            if there not in steps:
                steps[there] = steps[here] + 1
                reached.append(there)
    return {ids[n]: d for n, d in steps.items()}


def choose_move(game, state, choose: random.Random, seen: set[str]):
    """A move preferring what the game has not shown yet, then captures and homecomings,
    and a tower with prisoners that comes nearer home while none was brought there; if
    every move reads like another (two hats on one field going the same way), any
    move: the table then asks which was played."""
    moves = playable(game, state) or [m for m in game.legal_moves(state) if m != PASS]

    def worth(move) -> int:
        shown, hat, path = kinds(game, state, move), move.legs[0].hat, move.legs[0].path
        towards = 0
        if hat.captives and "home" not in seen:
            steps = steps_home(game, hat.colour)
            towards = steps[path[0]] - steps[path[-1]]
        end = game.board.index[path[-1]]
        if "among" not in seen and state.fields[end] and game.board.cells[end].kind == "grey":
            towards += 2  # beside the hats there, to be taken from among them later
        return len(shown - seen) * 4 + len(shown) + towards

    ranked = [(worth(m), m) for m in moves]
    best = max(score for score, _ in ranked)
    return choose.choice([m for score, m in ranked if score == best])


def waits(game, state, move) -> bool:
    """Whether the move waits, tentative: the sensors only feel hats taken away, or
    the board may show a move still under way (a hat that left home onto hats the
    sensors already feel)."""
    before, after = presence(game, state), presence(game, game.apply(state, move))
    return after < before or game.can_extend(state, move, "presence")


def lift(sim, cell: str) -> None:
    sim.click(f'g[data-cell="{cell}"]')


def take(table, sim, cell: str, hat) -> bool:
    """Take ``hat`` from ``cell`` into the empty hand: where different pieces stand
    side by side (a hat beside towers on a grey field), the page asks which; whether it
    asked."""
    # a refusal of an earlier tap still shown (for 6 s) is not this tap's
    sim.evaluate("document.getElementById('refusal').hidden = true")
    lift(sim, cell)
    taken = "#sim-hand .sim-piece, #sim-cell-box:not([hidden])"
    sim.wait_for_selector(f"{taken}, #refusal:not([hidden])", timeout=WAIT_MS)
    if sim.locator("#refusal").is_visible():
        # tapped before the page heard of the board's last change (the hats the roll's
        # commit nested into a tower): it says to look again and repeat, as a person does
        assert STALE in sim.inner_text("#refusal"), sim.inner_text("#refusal")
        table.expect_error("sim", "status of 409")
        lift(sim, cell)
    try:
        sim.wait_for_selector(taken, timeout=WAIT_MS)
    except Exception as exc:  # a lost tap: say what the page showed
        raise AssertionError(f"tapped {cell} for {hat}; the page showed {_seen(sim)}") from exc
    asked = sim.locator("#sim-cell-box").is_visible()
    if asked:
        sim.click(f'#sim-cell .sim-piece[data-token="{hat}"]')
    return asked


def _seen(sim) -> dict:
    """What the simulator page shows, for a failure's message: its refusal, its hand
    and the virtual board as the service holds it."""
    return sim.evaluate(
        """async () => ({
          refusal: document.getElementById("refusal")?.textContent,
          refusalHidden: document.getElementById("refusal")?.hidden,
          hand: document.getElementById("sim-hand")?.textContent,
          virtual: await (await fetch("/api/sim/virtual")).json(),
        })"""
    )


def hand(sim, count: int) -> None:
    from playwright.sync_api import expect

    expect(sim.locator("#sim-hand .sim-piece")).to_have_count(count, timeout=WAIT_MS)


def carry_out(table, sim, game, state, move) -> bool:
    """Move the hat (or tower) on the virtual board as a hand does; a tower brought
    home is taken apart there: own hats into the home, prisoners into the tray. Whether
    the hat was taken from among others."""
    sim.bring_to_front()
    first = move.legs[0]
    asked = take(table, sim, first.path[0], first.hat)
    hand(sim, 1)
    home = f"home_{first.hat.colour}"
    if first.path[-1] == home:
        sim.click("#sim-unpack")
        hats = first.hat.hats()
        hand(sim, len(hats))
        for n, colour in enumerate(hats):
            sim.locator(f'#sim-hand .sim-piece[data-token="{colour}"]').first.click()
            if colour == first.hat.colour:
                lift(sim, home)
            else:
                sim.click("#sim-to-tray")
            hand(sim, len(hats) - n - 1)
        for leg in move.legs[1:]:
            asked |= take(table, sim, leg.path[0], leg.hat)
            hand(sim, 1)
            lift(sim, leg.path[-1])
    else:
        lift(sim, first.path[-1])
    hand(sim, 0)
    return asked


def confirm_on_phone(table, mover, first: bool) -> None:
    """The mover confirms the move that waits; the first time, every page is looked at."""
    from playwright.sync_api import expect

    if first:  # the move open on every page, in words
        table.check()
        table.shoot("open")
    mover.bring_to_front()
    expect(mover.locator("#confirm")).to_be_enabled(timeout=WAIT_MS)
    mover.click("#confirm")


def choose_on_phone(kiosk, mover, game, state, move) -> None:
    """A move that other moves read alike: the mover confirms it where the table
    waits, and chooses it among the moves the table offers."""
    from playwright.sync_api import expect

    after = game.apply(state, move)
    deadline = time.monotonic() + WAIT_MS / 1000
    while int(kiosk.get_attribute("body", "data-plies")) <= state.ply:
        assert time.monotonic() < deadline, f"the table did not take {move}"
        offered = mover.eval_on_selector_all(
            "#candidates button", "bs => bs.map(b => b.dataset.move)"
        )
        fitting = [m for m in offered if game.apply(state, game.parse_move(state, m)) == after]
        confirm = mover.locator("#confirm")
        mover.bring_to_front()
        if fitting:
            mover.locator("#candidates button").nth(offered.index(fitting[0])).click()
            expect(mover.locator("#candidates button")).to_have_count(0, timeout=WAIT_MS)
        elif confirm.is_visible() and confirm.is_enabled():
            confirm.click()
        time.sleep(0.1)


def play(table, sim, kiosk, mover, game, state, move) -> tuple[bool, bool]:
    """Carry ``move`` out until the table shows it; whether it waits, tentative, and
    whether the hat was taken from among others."""
    asked = carry_out(table, sim, game, state, move)
    if move not in playable(game, state):
        choose_on_phone(kiosk, mover, game, state, move)
        return False, asked
    kiosk.wait_for_selector(f'body[data-last="{move}"]', timeout=WAIT_MS)
    return waits(game, state, move), asked


def roll(roller, game, state, decline: bool):
    """The seat to roll declines its extra roll or rolls on its phone; the state after."""
    if decline:
        roller.click("#decline")
        return game.apply(state, PASS)
    roller.click("#draw")
    # rolled: the button goes, or (a six and no move) the pass is counted
    rolled = f'#draw[hidden], body[data-plies="{state.ply + 1}"]'
    roller.wait_for_selector(rolled, state="attached", timeout=WAIT_MS)
    return game.resolve(state, int(roller.locator("#drawn .die").get_attribute("data-value")))


def told_to_others(kiosk, mover) -> None:
    """A turn that may still go on: only the mover's phone says what to do (press
    Confirm move); the kiosk says what the mover may still do, addressing nobody."""
    from playwright.sync_api import expect

    told, described = TOLD
    expect(mover.locator("#turn")).to_contain_text(told, timeout=WAIT_MS)
    expect(kiosk.locator("#turn")).to_contain_text(described, timeout=WAIT_MS)
    expect(kiosk.locator("#turn")).not_to_contain_text(told)


#: the end of a turn held open as its mover reads it, and as the others read it
TOLD = ("oder drück Zug bestätigen", "oder den Zug bestätigen")


def sit_down(people, players: int):
    """``players`` people at a Fang den Hut! table in German: the table, the game, the
    virtual board, the kiosk and a phone per seat, joined by its code."""
    table = people("fang_den_hut", players, "de")
    game = load_game("fang_den_hut", players=players)
    sim = table.open("sim", "/sim")
    kiosk = table.open("table", "/table")
    return table, game, sim, kiosk, [table.join(seat) for seat in range(players)]


def test_four_people_play_fang_den_hut_in_german_until_every_kind_of_move(people):
    from playwright.sync_api import expect

    table, game, sim, kiosk, phones = sit_down(people, 4)
    state = game.initial_state()
    table.check()
    table.shoot("start")
    choose = random.Random(19)
    seen: set[str] = set()
    sixes = {"taken": 0, "declined": 0}
    tentative = {"confirmed": 0, "by_roll": 0}
    open_move = None  # the move on the board that waits, tentative, and its mover
    shots = {"capture", "home"}
    while state.ply < MOST and not (
        {"leave", "among", "capture", "home"} <= seen
        and min(sixes.values()) > 0
        and min(tentative.values()) > 0
    ):
        assert game.outcome(state) is None, "the game ended before it showed everything"
        roller = phones[game.drawer(state)]
        roller.bring_to_front()
        expect(roller.locator('body[data-yours="yes"]')).to_have_count(1, timeout=WAIT_MS)
        declining = state.again and sixes["taken"] and not sixes["declined"]
        if declining:
            sixes["declined"] += 1
        else:
            sixes["taken"] += state.again
        tentative["by_roll"] += open_move is not None  # the roll ends the open move
        open_move = None
        state = roll(roller, game, state, decline=declining)
        if declining or game.legal_moves(state) == [PASS]:  # the referee passes for them
            if not declining:
                state = game.apply(state, PASS)
            wait_for_ply(kiosk, state.ply)
            continue
        move = choose_move(game, state, choose, seen)
        mover = phones[game.to_move(state)]
        shown = kinds(game, state, move) - {"among"}  # seen when the page asks
        waiting, asked = play(table, sim, kiosk, mover, game, state, move)
        # a move that may still go on is its mover's until confirmed: no roll ends it
        going_on = waiting and game.can_extend(state, move, "presence")
        if going_on:
            told_to_others(kiosk, mover)
        state = game.apply(state, move)
        seen |= shown | ({"among"} if asked else set())
        # the first move that waits is confirmed, the next ends by the roll after it
        if waiting and (
            going_on
            or tentative["confirmed"] == 0
            or tentative["by_roll"]
            and choose.random() < 0.3
        ):
            confirm_on_phone(table, mover, first=tentative["confirmed"] == 0)
            tentative["confirmed"] += 1
        elif waiting:
            open_move = move
        if not waiting or open_move is None:
            wait_for_ply(kiosk, state.ply)
            expect(mover.locator("#confirm")).to_be_disabled(timeout=WAIT_MS)
        if shots & shown and open_move is None:
            table.check()
            table.shoot(sorted(shots & shown)[0])
            shots -= shown
    assert {"leave", "among", "capture", "home"} <= seen, f"only {seen} in {state.ply} plies"
    assert sixes["taken"] and sixes["declined"], sixes
    assert tentative["confirmed"] and tentative["by_roll"], tentative
    table.check()
    table.shoot("end")
