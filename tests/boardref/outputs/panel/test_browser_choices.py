"""The moves the table asks about, and whose turn it is, in a real browser (Debian's
chromium): every set of moves the hall sensors cannot tell apart, found by playing the
engines, is offered with buttons whose words all differ, in English and German, and
never a cell's coordinate; people choose among them by tapping the board (Fang den
Hut!'s golden hat or the red hat under it, Hakenschlagen's alike turns), and a
half-made Hakenschlagen turn stays its mover's. Waits are generous; nothing is timed.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections import defaultdict

import httpx
import pytest

from boardref.referee.choices import choices_of
from engines import load_game
from engines.chance import Stream
from tests.boardref.conftest import PIN, needs_chromium
from vision.boards.evaluate import random_position

pytestmark = [needs_chromium, pytest.mark.browser]

WAIT_MS = 15_000
#: the turns a Hakenschlagen position is weighed by: a sample of its outcomes (a hand
#: with the fox and a molehill has tens of thousands)
SAMPLE = 300
#: a cell's id as the engines write it (r44, sg1, home_red, i1)
COORDINATE = re.compile(r"\b([a-z]{1,2}\d+|[a-z]+_[a-z]+)\b")

#: each choice's words as the page says them (the page's own copy of candidates.js)
LABELS = """async (sets) => {
  const src = document.querySelector("script[type=module]").src;
  const candidates = await import(src.replace(/panel[.]js$/, "candidates.js"));
  return sets.map((choices) => candidates.choiceLabels(choices));
}"""


def alike_moves(game, state, pick: random.Random) -> list[tuple[str, ...]]:
    """The sets of moves from ``state`` that hall sensors feel as one board."""
    moves = game.legal_moves(state)
    tried = pick.sample(range(len(moves)), min(len(moves), SAMPLE))
    felt: dict[tuple, dict] = defaultdict(dict)
    for n in tried:
        after = game.apply(state, moves[n])
        felt[tuple(sorted(game.sense(after, "presence").items()))][after] = str(moves[n])
    return [tuple(ends.values()) for ends in felt.values() if len(ends) > 1]


def asked(name: str, players: int, seeds, plies: int, **options) -> list[list[dict]]:
    """The choices the table would offer in random games of ``name``, as pages get them."""
    import numpy

    game = load_game(name, players=players, **options)
    found = []
    for seed in seeds:
        pick, stream, state = random.Random(seed), Stream(f"choices-{seed}"), game.initial_state()
        walk = numpy.random.default_rng(seed)
        for _ in range(plies):
            if game.outcome(state) is None and game.chance(state) is None:
                for moves in alike_moves(game, state, pick):
                    found.append([c.model_dump() for c in choices_of(game, state, moves)])
            state = random_position(game, state, walk, 1, stream)
    return found


def alike_pieces(name: str, players: int, wanted: int) -> list[list[dict]]:
    """``wanted`` sets of moves in random games of ``name`` in which two moves leave the
    same pieces everywhere (a hare that lands on a turning point on the way, or not)."""
    game, found = load_game(name, players=players), []
    for seed in range(20):
        pick, stream, state = random.Random(seed), Stream(f"pieces-{seed}"), game.initial_state()
        while game.outcome(state) is None and len(found) < wanted:
            if (chance := game.chance(state)) is not None:
                state = game.resolve(state, chance.draw(stream))
                continue
            for moves in alike_moves(game, state, pick):
                choices = [c.model_dump() for c in choices_of(game, state, moves)]
                if len({json.dumps(c["after"], sort_keys=True) for c in choices}) < len(moves):
                    found.append(choices)
            state = game.apply(state, pick.choice(game.legal_moves(state)))
    return found


def golden_beside_red() -> tuple[dict, list[list[dict]]]:
    """Red's golden hat riding on a red hat beside a plain red hat on r44, a 2 rolled:
    the record, and every set of moves the hall sensors cannot tell apart."""
    game = load_game("fang_den_hut", players=2, golden_hat=True)
    record = game.to_json(game.initial_state())
    record["state"].update(fields={"r44": ["gold/red", "red"]}, home={"red": 4, "green": 6}, roll=2)
    state = game.from_json(record)
    sets = [choices_of(game, state, moves) for moves in alike_moves(game, state, random.Random(1))]
    return record, [[c.model_dump() for c in choices] for choices in sets]


@pytest.mark.parametrize(
    ("name", "players", "options", "sets"),
    [
        ("fang_den_hut", 3, {}, lambda: asked("fang_den_hut", 3, range(3), 80)),
        ("fang_den_hut", 2, {"golden_hat": True}, lambda: golden_beside_red()[1]),
        ("hakenschlagen", 2, {}, lambda: asked("hakenschlagen", 2, range(2), 12)),
        ("hakenschlagen", 2, {}, lambda: alike_pieces("hakenschlagen", 2, 3)),
    ],
)
def test_no_two_choices_read_alike_in_english_or_german(
    sim_table, browser, kiosk, name, players, options, sets
):
    found = sets()
    assert len(found) >= 3, f"too few alike moves found in {name} to test with"
    with httpx.Client(base_url=sim_table, timeout=10) as table:
        body = {"game": name, "players": players, "options": options}
        assert table.post("/api/game", json=body).status_code == 200
    kiosk.goto(f"{sim_table}/table")
    kiosk.wait_for_selector("#board svg", timeout=WAIT_MS)
    for language in ("en", "de"):
        kiosk.select_option("#language", language)
        kiosk.wait_for_function(f"() => document.documentElement.lang === '{language}'")
        for choices, labels in zip(found, kiosk.evaluate(LABELS, found), strict=True):
            moves = [c["move"] for c in choices]
            assert len(set(labels)) == len(labels), f"{language}: {moves} read {labels}"
            for label in labels:
                assert label.strip(), f"{language}: {moves} read {labels}"
                assert not COORDINATE.search(label), f"{language}: {label!r} names a cell"


#: the marbles a page shows drawn
MARBLES = "ms => ms.map(m => m.dataset.marble)"


def tap_choice(table, page, move: str) -> None:
    """Choose ``move`` on the board: a tap lights it, a tap on the lit one chooses it
    (every page is screenshotted with it lit)."""
    from playwright.sync_api import expect

    drawn = page.locator(f'svg.board g.choice[data-choice="{move}"] .choice-badge')
    page.bring_to_front()
    drawn.click()
    lit = page.locator(f'svg.board g.choice[data-choice="{move}"][data-lit="yes"] .choice-badge')
    expect(lit).to_have_count(1, timeout=WAIT_MS)
    expect(page.locator('#candidates button[data-lit="yes"]')).to_have_attribute("data-move", move)
    table.shoot("lit")
    lit.click()
    expect(page.locator("#candidates button")).to_have_count(0, timeout=WAIT_MS)


def test_the_red_hat_under_the_golden_one_is_chosen_by_tapping_the_board(people):
    """Red's golden hat rides on a red hat beside a plain red hat; Red rolled a 2 and
    carries the plain hat on: the sensors feel the same for either hat, so Red's phone
    asks "Golden hat" or "Red hat", each drawn on the board, and Red taps it there."""
    from playwright.sync_api import expect

    table = people("fang_den_hut", 2, "en")
    record, _ = golden_beside_red()
    with httpx.Client(base_url=table.url, timeout=10) as referee:
        body = {"game": "fang_den_hut", "players": 2, "options": {"golden_hat": True}}
        assert referee.post("/api/game", json=body).status_code == 200
        assert referee.post("/api/referee/login", json={"pin": PIN}).status_code == 200
        assert referee.post("/api/position", json={"record": record}).status_code == 200
    sim = table.open("sim", "/sim")
    kiosk = table.open("table", "/table")
    red = table.join(0)
    sim.click('g[data-cell="r44"]')
    sim.click('#sim-cell .sim-piece[data-token="red"]')
    sim.click('g[data-cell="r42"]')
    expect(red.locator("#candidates button")).to_have_count(2, timeout=WAIT_MS)
    labels = red.locator("#candidates .choice-words").all_text_contents()
    assert sorted(labels) == ["Golden hat", "Red hat"], labels
    expect(red.locator("svg.board g.choice")).to_have_count(2)
    table.check()
    table.shoot("golden-or-red")
    kiosk.bring_to_front()  # over a button, its move lights on the board
    kiosk.hover('#candidates button[data-move="gold/red r44-r43-r42"]')
    golden = kiosk.locator('svg.board g.choice[data-choice="gold/red r44-r43-r42"]')
    expect(golden).to_have_attribute("data-lit", "yes", timeout=WAIT_MS)
    expect(golden.locator('.stack[data-cell="r42"]')).to_have_attribute("data-top", "gold")
    tap_choice(table, red, "red r44-r43-r42")
    expect(kiosk.locator("body")).to_have_attribute("data-last", "red r44-r43-r42", timeout=WAIT_MS)
    table.check()


def not_taken(table, kiosk, mover, turn) -> str:
    """What the kiosk and the mover's phone show when the table did not take ``turn``."""
    state = httpx.get(f"{table.url}/api/state", timeout=10).json()
    kept = ("phase", "to_move", "tentative", "last_played", "candidates", "errors", "plies")
    service = {key: state.get(key) for key in kept}
    return (
        f"the table did not take {turn}: kiosk {kiosk.locator('#turn').text_content()!r}, "
        f"holding {kiosk.locator('#tentative').text_content()!r}; the mover's phone "
        f"{mover.locator('#turn').text_content()!r}; the service {service}"
    )


def held_and_confirmed(table, kiosk, mover, following, seen: set[str]) -> None:
    """The table holds a half-made turn: the mover's phone says what is left to do or
    to confirm, the next seat's draw is not offered; the mover confirms it."""
    from playwright.sync_api import expect

    expect(mover.locator("#turn")).to_contain_text("Du bist dran:")
    expect(mover.locator("#turn")).to_contain_text("oder drück Zug bestätigen")
    expect(kiosk.locator("#turn")).to_contain_text("ist noch dran")
    expect(following.locator("#draw")).to_be_hidden()
    expect(kiosk.locator("#draw")).to_be_disabled()
    if "held" not in seen:
        table.check()
        table.shoot("half-made-turn")
    seen.add("held")
    # the last reading may have come since and turned the held turn into a choice
    # between alike turns (confirm then waits for that choice)
    if mover.locator("#confirm").is_enabled():
        mover.locator("#confirm").click()
        expect(kiosk.locator("#tentative")).to_be_empty(timeout=WAIT_MS)


def test_hakenschlagen_in_german_a_half_made_turn_stays_and_alike_turns_are_tapped(people):
    """Three people play Hakenschlagen in German until a turn was held open (its mover's
    phone says what is left to do, the next seat's draw is not offered until the turn is
    confirmed) and turns the sensors cannot tell apart were chosen on the board."""
    from playwright.sync_api import expect

    from tests.boardref.outputs.panel.test_play_hakenschlagen import (
        carry_out,
        choose_turn,
        fitting,
        read_layout,
        tapped_unseen,
    )

    table = people("hakenschlagen", 3, "de")
    game = load_game("hakenschlagen", players=3)
    sim = table.open("sim", "/sim")
    kiosk = table.open("table", "/table")
    phones = [table.join(seat) for seat in range(3)]
    kiosk.bring_to_front()
    kiosk.click("#draw")
    expect(kiosk.locator("g.tree")).to_have_count(6, timeout=WAIT_MS)
    state = game.setup_from(read_layout(kiosk))
    # the long meadow: upright on a phone held upright, the kiosk's whole width
    upright = phones[0].locator("svg.board").bounding_box()
    across = kiosk.locator("svg.board").bounding_box()
    assert upright["height"] > 2 * upright["width"] and across["width"] > 1000, (upright, across)
    expect(kiosk.locator(".meadow-legend li")).to_have_count(6)
    expect(phones[0].locator(".molehill-supply")).to_have_text("6 Maulwurfshügel neben dem Brett")
    choose, seen = random.Random(7), set()
    for _ in range(40):
        if seen >= {"held", "chosen"}:
            break
        mover, following = phones[state.turn], phones[(state.turn + 1) % 3]
        mover.bring_to_front()
        expect(mover.locator("#draw")).to_be_enabled(timeout=WAIT_MS)
        mover.click("#draw")
        mover.wait_for_selector('body[data-phase="move"]', timeout=WAIT_MS)
        marbles = mover.eval_on_selector_all(
            "#drawn .marble", "ms => ms.map(m => m.dataset.marble)"
        )
        state = game.resolve(state, tuple(marbles))
        wanted = {"confirmed"} if "held" not in seen else {"chosen"}
        turn, after = choose_turn(game, state, choose, wanted)
        plies = int(kiosk.get_attribute("body", "data-plies"))
        carry_out(sim, game, state, turn)
        deadline = time.monotonic() + 2 * WAIT_MS / 1000
        while int(kiosk.get_attribute("body", "data-plies")) == plies:
            # a table that never takes the turn fails the test with what it shows, it
            # does not keep the run waiting
            assert time.monotonic() < deadline, not_taken(table, kiosk, mover, turn)
            offered = mover.eval_on_selector_all(
                "#candidates button", "bs => bs.map(b => b.dataset.move)"
            )
            if offered:
                table.check()
                table.shoot("alike-turns")
                tap_choice(table, mover, next(m for m in offered if fitting(game, state, m, after)))
                seen.add("chosen")
                break
            if kiosk.locator("#tentative").text_content():
                # a half-made turn the table holds while the hands still move is not
                # the one to look at: only the turn that feels like the whole one stays
                if not fitting(
                    game, state, kiosk.get_attribute("body", "data-last"), after, "presence"
                ):
                    kiosk.wait_for_timeout(100)
                    continue
                held_and_confirmed(table, kiosk, mover, following, seen)
            elif tapped_unseen(game, state, after, mover):
                pass  # the table asked whether the move the board cannot feel was made
            elif game.sense(after, "presence") == game.sense(state, "presence"):
                mover.locator("#confirm").click()
            kiosk.wait_for_timeout(100)
        expect(kiosk.locator("body")).not_to_have_attribute(
            "data-plies", str(plies), timeout=WAIT_MS
        )
        state = after
    assert seen >= {"held", "chosen"}, f"only {seen} shown"
    table.check()
