"""Hakenschlagen played by people, by clicking and tapping only: the virtual board
(``/sim``), the kiosk (``/table``) and three phones (joined by their QR codes) open at
once. The table draws the setup; each seat draws its marbles on its own phone; a turn
is carried out figure by figure on the virtual board (the hare's jumps, the fox moved,
a molehill taken from the supply or moved), confirmed on the phone where the board
could still show a turn under way, and chosen there among turns the sensors cannot
tell apart. The players know the rules (the engine), read the draw and the setup from
the pages, and keep their own picture of the game from what they see; they steer for
what the game has not shown yet and stop once it has shown everything. Nothing here
is timed: waits are generous, so a busy machine cannot fail it.
"""

from __future__ import annotations

import random
import time

import pytest

from engines import load_game
from engines.hakenschlagen import COLOURS, FOX
from tests.boardref.at_the_table import WAIT_MS
from tests.boardref.conftest import needs_chromium

pytestmark = [needs_chromium, pytest.mark.browser]

#: what the players show before they stop: the fox moved, a molehill put out and
#: (once all six are out) one moved, a turn confirmed on a phone where the board could
#: still show it under way, and one chosen among turns the sensors cannot tell apart
EVENTS = {"fox", "molehill", "molehill moved", "confirmed", "chosen"}
#: turns at most; most games show every event in about a dozen
MOST = 40
#: the turns a player weighs, picked at random among the outcomes (a hand with the fox
#: and molehills has tens of thousands)
SEEN = 600


def read_layout(kiosk) -> dict[str, list[str]]:
    """The disks and trees the kiosk draws, by kind."""
    layout = {"tree": kiosk.eval_on_selector_all("g.tree", "gs => gs.map(g => g.dataset.cell)")}
    for kind in ("dandelion", "lettuce", "carrot"):
        layout[kind] = kiosk.eval_on_selector_all(
            f'circle.disk[data-kind="{kind}"]', "cs => cs.map(c => c.dataset.cell)"
        )
    return layout


def worth(turn, missing: set[str]) -> int:
    """How much of what the game has not shown yet ``turn`` shows: molehills put out
    (six must be out before one is moved) and the fox, which moved with the hare makes
    turns the hall sensors cannot tell apart (the table then offers them)."""
    kinds = [use.kind for use in turn.uses]
    moles = kinds.count("molehill") if missing & {"molehill", "molehill moved"} else 0
    return 2 * moles + (FOX in kinds and bool(missing & {"fox", "chosen"}))


def choose_turn(game, state, choose: random.Random, missing: set[str]):
    """A turn a player would make: one that changes the board and does not end the
    race early, among ``SEEN`` turns picked at random, preferring those that show
    what is ``missing``: one that reads like another (when no turn was chosen yet),
    else one that may look unfinished (when none was confirmed yet), else the most
    ``worth``; returns (turn, the position after it)."""
    moves = game.legal_moves(state)  # each move is written out only when read
    turns = [moves[n] for n in choose.sample(range(len(moves)), min(len(moves), SEEN))]
    felt = frozenset(game.sense(state, "presence").items())
    ends: dict[frozenset, set] = {}  # what the sensors feel after a turn: its ends
    changing = []
    for turn in turns:
        after = game.apply(state, turn)
        reading = frozenset(game.sense(after, "presence").items())
        ends.setdefault(reading, set()).add(after)
        if game.outcome(after) is None and reading != felt:
            changing.append((turn, after, reading))
    if not changing:
        return turns[0], game.apply(state, turns[0])
    changing.sort(key=lambda f: worth(f[0], missing), reverse=True)
    if "chosen" in missing:
        alike = [(t, a) for t, a, reading in changing if len(ends[reading]) > 1]
        if alike:
            return alike[0]
    if "confirmed" in missing:
        for turn, after, _ in changing[:20]:
            if game.can_extend(state, turn, "presence"):
                return turn, after
    return changing[0][:2]


def carry_out(sim, game, state, turn) -> None:
    """Each use as a hand makes it on the virtual board: lift the figure (or take a
    molehill from the supply), put it down on its space."""
    cells = [c.id for c in game.board.cells]
    hare, fox = cells[state.hares[state.turn]], cells[state.fox]
    sim.bring_to_front()
    for use in turn.uses:
        if use.kind in COLOURS:
            sim.click(f'g[data-cell="{hare}"]')
            hare = use.to
        elif use.kind == FOX:
            sim.click(f'g[data-cell="{fox}"]')
            fox = use.to
        elif use.source is not None:
            sim.click(f'g[data-cell="{use.source}"]')
        else:
            sim.click('#sim-supply button[data-token="molehill"]')
        sim.click(f'g[data-cell="{use.to}"]')


def fitting(game, state, text: str | None, after, sensor: str | None = None) -> bool:
    """Whether the turn written ``text`` ends in ``after`` (with ``sensor``: ends in a
    board that sensor reads as ``after``)."""
    try:
        end = game.apply(state, game.parse_move(state, text))
    except Exception:  # an open part of the turn, or the last turn's text
        return False
    if sensor is None:
        return end == after
    return game.sense(end, sensor) == game.sense(after, sensor)


def tapped_unseen(game, state, after, mover) -> bool:
    """Where the mover's phone asks whether a move the board cannot feel was made (a
    pass leaves the board as it was), tap the one that ends in ``after``, as its words
    say; True if one was tapped."""
    from playwright.sync_api import expect

    offered = mover.eval_on_selector_all(
        "#unseen:not([hidden]) button", "bs => bs.map(b => b.dataset.move)"
    )
    move = next((m for m in offered if m and fitting(game, state, m, after)), None)
    if move is None:
        return False
    mover.bring_to_front()
    mover.locator(f'#unseen button[data-move="{move}"]').click(timeout=WAIT_MS)
    expect(mover.locator("#unseen")).to_be_hidden(timeout=WAIT_MS)
    return True


def until_played(game, state, after, kiosk, mover, plies: int) -> set[str]:
    """Wait until the table has taken a turn ending in ``after``: confirm it on the
    mover's phone once the turn the table holds feels like ``after`` (or, holding
    none, when the board shows no change: a pass), choose it if several fit the board.
    The hall sensors feel a piece, not which: the turn the table holds may be another
    that feels alike, and confirming it brings the choice. A hare that jumps away and
    back to its own hollow leaves the board as it was while the table still holds the
    half-made turn it judged before the last jump: that one is not confirmed.
    ``plies``: the moves played before it. Returns what the mover did: "confirmed",
    "chosen" (among the turns the table offered)."""
    from playwright.sync_api import expect

    done = set()
    deadline = time.monotonic() + WAIT_MS / 1000 * 2
    while time.monotonic() < deadline:
        if int(kiosk.get_attribute("body", "data-plies")) > plies:
            return done
        shown = kiosk.get_attribute("body", "data-last")
        confirm = mover.locator("#confirm")
        unseen = game.sense(after, "presence") == game.sense(state, "presence")
        held = shown if kiosk.locator("#tentative").text_content() else None
        ready = confirm.is_visible() and confirm.is_enabled()
        if tapped_unseen(game, state, after, mover):
            done.add("chosen")
        elif ready and (unseen if held is None else fitting(game, state, held, after, "presence")):
            mover.bring_to_front()
            confirm.click()
            # once, not twice: the turn is taken, or the table asks which move the board
            # could not feel was made
            mover.wait_for_function(
                "() => document.querySelector('#confirm').disabled"
                " || !document.querySelector('#unseen').hidden",
                timeout=WAIT_MS,
            )
            done.add("confirmed")
        offered = mover.eval_on_selector_all(
            "#candidates button", "bs => bs.map(b => b.dataset.move)"
        )
        for move in offered:
            if fitting(game, state, move, after):
                mover.bring_to_front()
                mover.locator("#candidates button").nth(offered.index(move)).click(timeout=WAIT_MS)
                expect(mover.locator("#candidates button")).to_have_count(0, timeout=WAIT_MS)
                done.add("chosen")
        time.sleep(0.1)
    raise AssertionError(f"the table did not take the turn; it shows {shown!r}")


def test_three_people_play_hakenschlagen_until_the_fox_and_a_moved_molehill(people):
    table = people("hakenschlagen", 3, "en")
    from playwright.sync_api import expect

    game = load_game("hakenschlagen", players=3)
    sim = table.open("sim", "/sim")
    kiosk = table.open("table", "/table")
    phones = [table.join(seat) for seat in range(3)]
    for phone in phones:  # the setup is the table's to draw
        expect(phone.locator("#draw")).to_be_hidden(timeout=WAIT_MS)
    kiosk.bring_to_front()
    kiosk.click("#draw")
    expect(kiosk.locator("g.tree")).to_have_count(6, timeout=WAIT_MS)
    state = game.setup_from(read_layout(kiosk))
    table.check()
    table.shoot("setup")
    choose = random.Random(19)
    seen: set[str] = set()
    drawn_on_phones = 0
    while EVENTS - seen and drawn_on_phones < MOST:
        drawer = phones[state.turn]
        drawer.bring_to_front()
        expect(drawer.locator('body[data-yours="yes"]')).to_have_count(1, timeout=WAIT_MS)
        expect(drawer.locator("#draw")).to_be_enabled(timeout=WAIT_MS)
        for other in phones:
            if other is not drawer:
                expect(other.locator("#draw")).to_be_hidden()
        drawer.click("#draw")
        drawer.wait_for_selector('body[data-phase="move"]', timeout=WAIT_MS)
        drawn_on_phones += 1
        marbles = drawer.eval_on_selector_all(
            "#drawn .marble", "ms => ms.map(m => m.dataset.marble)"
        )
        state = game.resolve(state, tuple(marbles))
        turn, after = choose_turn(game, state, choose, EVENTS - seen)
        plies = int(kiosk.get_attribute("body", "data-plies"))
        carry_out(sim, game, state, turn)
        seen |= until_played(game, state, after, kiosk, drawer, plies)
        seen |= {use.kind + (" moved" if use.source else "") for use in turn.uses}
        state = after
        if drawn_on_phones == 3:
            table.check()
            table.shoot(f"ply{drawn_on_phones}")
    assert seen >= EVENTS, f"only {seen} in {drawn_on_phones} turns"
    table.check()
    table.shoot(f"ply{drawn_on_phones}")
