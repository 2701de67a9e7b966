"""Hakenschlagen played by people, by clicking and tapping only: the virtual board
(``/sim``), the kiosk (``/table``) and three phones (joined by their QR codes) open at
once. The table draws the setup; each seat draws its marbles on its own phone; a turn
is carried out figure by figure on the virtual board (the hare's jumps, the fox moved,
a molehill taken from the supply or moved), and confirmed on the phone where the board
could still show a turn under way. The players know the rules (the engine), read the
draw and the setup from the pages, and keep their own picture of the game from what
they see. Nothing here is timed: waits are generous, so a busy machine cannot fail it.
"""

from __future__ import annotations

import random
import time

from engines import load_game
from engines.hakenschlagen import COLOURS, FOX
from tests.boardref.at_the_table import WAIT_MS
from tests.boardref.conftest import needs_chromium

pytestmark = needs_chromium

PLIES = 40
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


def choose_turn(game, state, choose: random.Random, wanted: str | None):
    """A turn a player would make: one that changes the board and does not end the
    race early, using the fox or a molehill when ``wanted`` names it and the hand
    allows, among ``SEEN`` turns picked at random; returns (turn, the position after
    it)."""
    moves = game.legal_moves(state)  # each move is written out only when read
    turns = [moves[n] for n in choose.sample(range(len(moves)), min(len(moves), SEEN))]
    using = [t for t in turns if any(u.kind == wanted for u in t.uses)] if wanted else []
    felt = game.sense(state, "presence")
    for pool in (using, turns):
        for turn in pool[:200]:
            after = game.apply(state, turn)
            if game.outcome(after) is None and game.sense(after, "presence") != felt:
                return turn, after
    turn = turns[0]
    return turn, game.apply(state, turn)


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


def until_played(game, state, after, kiosk, mover, plies: int) -> None:
    """Wait until the table has taken a turn ending in ``after``: confirm it on the
    mover's phone once the turn the table holds feels like ``after`` (or, holding
    none, when the board shows no change: a pass), choose it if several fit the board.
    The hall sensors feel a piece, not which: the turn the table holds may be another
    that feels alike, and confirming it brings the choice. A hare that jumps away and
    back to its own hollow leaves the board as it was while the table still holds the
    half-made turn it judged before the last jump: that one is not confirmed.
    ``plies``: the moves played before it."""
    from playwright.sync_api import expect

    deadline = time.monotonic() + WAIT_MS / 1000 * 2
    while time.monotonic() < deadline:
        if int(kiosk.get_attribute("body", "data-plies")) > plies:
            return
        shown = kiosk.get_attribute("body", "data-last")
        confirm = mover.locator("#confirm")
        unseen = game.sense(after, "presence") == game.sense(state, "presence")
        held = shown if kiosk.locator("#tentative").text_content() else None
        ready = confirm.is_visible() and confirm.is_enabled()
        if ready and (unseen if held is None else fitting(game, state, held, after, "presence")):
            mover.bring_to_front()
            confirm.click()
            expect(confirm).to_be_disabled(timeout=WAIT_MS)  # once, not twice
        offered = mover.eval_on_selector_all(
            "#candidates button", "bs => bs.map(b => b.dataset.move)"
        )
        for move in offered:
            if fitting(game, state, move, after):
                mover.bring_to_front()
                mover.locator("#candidates button").nth(offered.index(move)).click(timeout=WAIT_MS)
                expect(mover.locator("#candidates button")).to_have_count(0, timeout=WAIT_MS)
        time.sleep(0.1)
    raise AssertionError(f"the table did not take the turn; it shows {shown!r}")


def test_three_people_play_forty_plies_of_hakenschlagen_with_the_fox_and_molehills(people):
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
    used = {"fox": 0, "molehill": 0}
    drawn_on_phones = 0
    for ply in range(PLIES):
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
        wanted = min(used, key=used.get) if choose.random() < 0.7 else None
        turn, after = choose_turn(game, state, choose, wanted)
        for kind in used:
            used[kind] += any(u.kind == kind for u in turn.uses)
        plies = int(kiosk.get_attribute("body", "data-plies"))
        carry_out(sim, game, state, turn)
        until_played(game, state, after, kiosk, drawer, plies)
        state = after
        if ply in (2, 20):
            table.check()
            table.shoot(f"ply{ply + 1}")
    assert used["fox"] and used["molehill"], used
    assert drawn_on_phones == PLIES
    table.check()
    table.shoot(f"ply{PLIES}")
