"""Whole games played by people, by clicking and tapping only: the virtual board
(``/sim``), the kiosk (``/table``) and one phone per human seat (joined by its QR
code) are open at once; half the games are played in German. Every page is checked
as it is played (``at_the_table.Table.check``) and screenshotted at phone and kiosk
size. Nothing here is timed: waits are generous, so a busy machine cannot fail it.
"""

from __future__ import annotations

import random

import pytest

from engines import load_game
from tests.boardref.at_the_table import WAIT_MS
from tests.boardref.conftest import needs_chromium

pytestmark = [needs_chromium, pytest.mark.browser]


def new_game(page, options: dict[str, bool] = {}, computer=()) -> None:  # noqa: B006 - read only
    """Start a new game of the table's game from the dialog, ticking ``options`` and
    the seats the ``computer`` plays (at the easy level: a whole game in a test)."""
    from playwright.sync_api import expect

    code = page.locator("#join-codes img").first
    old_code = code.get_attribute("src")
    page.click("#new-game-open")
    for name, ticked in options.items():
        page.locator(f'#new-game-options [data-option="{name}"]').set_checked(ticked)
    for seat in computer:
        page.locator(f'#new-game-computer input[data-seat="{seat}"]').check()
    if computer:
        page.select_option("#new-game-level", "easy")
    page.click("#new-game-start")
    expect(page.locator("#new-game")).not_to_be_visible(timeout=WAIT_MS)
    expect(code).not_to_have_attribute("src", old_code, timeout=WAIT_MS)  # the new game's


def wait_for_ply(page, plies: int) -> None:
    page.wait_for_selector(f'body[data-plies="{plies}"]', timeout=WAIT_MS)


def movers_at(kiosk, phones, ply: int) -> list:
    """The phones whose seat is to move once every page shows ``ply`` plies."""
    for page in (kiosk, *phones):
        wait_for_ply(page, ply)
    return [p for p in phones if p.locator('body[data-yours="yes"]').count()]


def play_to_the_end(kiosk, phones) -> None:
    """The card game dealt and played to its end on the ``phones``: each plays its first
    card, capturing where it may."""
    from playwright.sync_api import expect

    kiosk.click("#draw")
    for phone in phones:  # the deal reached every phone
        expect(phone.locator(".hand-card").first).to_be_visible(timeout=WAIT_MS)
    for ply in range(60):
        if kiosk.locator("#outcome").is_visible():
            break
        movers = movers_at(kiosk, phones, ply)
        if not movers:  # the last card was played
            break
        (mover,) = movers
        mover.bring_to_front()
        mover.locator(".hand-card").first.click()
        expect(mover.locator("#play-alone")).to_be_visible(timeout=WAIT_MS)
        capture = mover.locator(".card-actions .capture")
        (capture.first if capture.count() else mover.locator("#play-alone")).click()
    expect(kiosk.locator("#outcome")).to_be_visible(timeout=WAIT_MS)


@pytest.mark.parametrize("language", ["de"])
def test_three_people_play_the_card_game_on_their_phones_to_the_final_score(people, language):
    """The table deals; each phone plays from its own hand, capturing where it may."""
    from playwright.sync_api import expect

    table = people("fang_den_hut_cards", 3, language)
    kiosk = table.open("table", "/table")
    new_game(kiosk, {"single_game": True})
    phones = [table.join(seat) for seat in range(3)]
    for phone in phones:  # the deal is the table's, not a phone's
        expect(phone.locator("#draw")).to_be_hidden(timeout=WAIT_MS)
    kiosk.click("#draw")
    table.check()
    table.shoot("dealt")
    captures = 0
    for ply in range(30):
        for page in (kiosk, *phones):
            wait_for_ply(page, ply)
        mover = next(p for p in phones if p.locator('body[data-yours="yes"]').count())
        expect(mover.locator(".hand-card").first).to_be_visible(timeout=WAIT_MS)
        captures += play_first_card(mover)
        if ply in (1, 15):
            wait_for_ply(kiosk, ply + 1)
            table.check()
            table.shoot(f"ply{ply + 1}")
    expect(kiosk.locator("#outcome")).to_be_visible(timeout=WAIT_MS)
    expect(kiosk.locator("#outcome .scores li")).to_have_count(3)
    for phone in phones:
        expect(phone.locator("#outcome")).to_be_visible(timeout=WAIT_MS)
    assert captures > 0, "nobody captured a stack in a whole game"
    table.check()
    table.shoot("over")


#: what the table says while the computer plays, and what it must not add, by language
COMPUTER_PLAYS = {
    "en": ("The computer plays", "on the board", "Winner: "),
    "de": ("Der Computer spielt", "auf dem Brett", "Gewonnen: "),
}


@pytest.mark.parametrize("language", ["en", "de"])
def test_two_people_and_the_computer_play_the_card_game_to_the_end(people, language):
    """The computer plays player 3 by itself: its cards are played by the table, with
    no button for anyone to press and no referee; the two phones play theirs."""
    from playwright.sync_api import expect

    table = people("fang_den_hut_cards", 3, language)
    kiosk = table.open("table", "/table")
    new_game(kiosk, {"single_game": True}, computer=(2,))
    phones = [table.join(seat) for seat in range(2)]
    # every line the kiosk's message shows, however briefly: the computer's card is
    # announced for a moment only, then played
    kiosk.evaluate(
        """() => {
          window.messagesSaid = [];
          const message = document.getElementById("message");
          new MutationObserver(() => window.messagesSaid.push(message.textContent))
            .observe(message, {childList: true, characterData: true, subtree: true});
        }"""
    )
    kiosk.click("#draw")
    computer_plays = 0
    for ply in range(40):
        if kiosk.locator("#outcome").is_visible():
            break
        movers = movers_at(kiosk, phones, ply)
        if not movers and kiosk.locator("#outcome").is_visible():  # a phone's card ended it
            break
        if not movers:  # the computer's turn: it plays by itself, announced on the table
            plays, on_board, _ = COMPUTER_PLAYS[language]
            if not computer_plays:  # said for a moment only: the kiosk's every line counts
                kiosk.wait_for_function(
                    "(plays) => window.messagesSaid.some((line) => line.includes(plays))",
                    arg=plays,
                    timeout=WAIT_MS,
                )
                table.shoot("computer")
            computer_plays += 1
            wait_for_ply(kiosk, ply + 1)
            said = kiosk.evaluate("() => window.messagesSaid.splice(0)")
            assert any(plays in line for line in said), said
            assert not any(on_board in line for line in said), said
            continue
        (mover,) = movers
        play_first_card(mover)
    expect(kiosk.locator("#outcome")).to_be_visible(timeout=WAIT_MS)
    for phone in phones:
        expect(phone.locator("#outcome")).to_be_visible(timeout=WAIT_MS)
    assert computer_plays > 0
    # the final ranking is by place: the winner first, then by hats, highest first
    won = COMPUTER_PLAYS[language][2]
    winner = kiosk.locator("#outcome strong").inner_text().removeprefix(won)
    rows = kiosk.locator("#outcome .scores li")
    places = [int(row.get_attribute("value")) for row in rows.all()]
    hats = [int(text.rsplit(": ", 1)[1]) for text in rows.all_inner_texts()]
    # the ranking's lines stand alone, each beginning with a capital
    assert rows.first.inner_text().lower().startswith(winner.split(",")[0].lower())
    assert places == sorted(places) and places[0] == 1
    assert hats == sorted(hats, reverse=True), hats
    table.check()
    table.shoot("over")


def carry_out(sim, path: tuple[str, ...]) -> None:
    """Move a piece on the virtual board as a hand does: pick it up, put it down."""
    sim.bring_to_front()  # the one a person looks at; chromium slows the others
    sim.click(f'g[data-cell="{path[0]}"]')
    sim.click(f'g[data-cell="{path[-1]}"]')


def wait_for_move(page, move) -> None:
    """Until the page shows ``move`` as the move on the board (open or played)."""
    page.wait_for_selector(f'body[data-last="{move}"]', timeout=WAIT_MS)


@pytest.mark.parametrize("language", ["en"])
def test_three_people_play_sternhalma_until_five_jump_chains(people, language):
    """Moves are carried out on the virtual board, more than half of them jumps where
    a jump is legal; a jump chain waits, open, until the next player moves; the phones
    follow whose turn it is. The game stops after its fifth jump chain (9 plies)."""
    from playwright.sync_api import expect

    table = people("sternhalma", 3, language)
    game = load_game("sternhalma", players=3)
    state = game.initial_state()
    sim = table.open("sim", "/sim")
    table.open("table", "/table")
    phones = [table.join(seat) for seat in range(3)]
    choose = random.Random(19)
    chains = 0
    while chains < 5:
        moves = game.legal_moves(state)
        jumps = [m for m in moves if len(m.path) > 2]
        move = choose.choice(jumps if jumps and choose.random() < 0.6 else moves)
        chains += len(move.path) > 2
        carry_out(sim, move.path)
        wait_for_move(table.pages["table"], move)
        state = game.apply(state, move)
        if state.ply == 1:
            table.check()
            table.shoot("ply1")
    mover = phones[game.to_move(state)]
    expect(mover.locator('body[data-yours="yes"]')).to_have_count(1, timeout=WAIT_MS)
    for other in phones:
        if other is not mover:
            expect(other.locator('body[data-yours="yes"]')).to_have_count(0, timeout=WAIT_MS)
    table.check()
    table.shoot(f"ply{state.ply}")


def jumped(game, path: tuple[str, ...]) -> list[str]:
    """The cells a leaping piece passed over: the point between each two it landed on."""
    at = {cell.xy: cell.id for cell in game.board.cells}
    cells = {cell.id: cell.xy for cell in game.board.cells}
    return [
        at[((cells[a][0] + cells[b][0]) / 2, (cells[a][1] + cells[b][1]) / 2)]
        for a, b in zip(path, path[1:])
    ]


def positions(game, moves) -> list:
    """The position before each of ``moves``."""
    states = [game.initial_state()]
    for move in moves[:-1]:
        states.append(game.apply(states[-1], move))
    return states


def hare_game(seed: int = 366) -> list:
    """A game whose hare leaps whenever it can: with seed 366 it stops one capture
    short of a second (the hare confirms it), then captures twice in one move and
    wins, in 6 plies (the shortest such game among the first 2,000 seeds)."""
    game = load_game("catch_the_hare")
    choose, state, moves = random.Random(seed), game.initial_state(), []
    while game.outcome(state) is None:
        legal = game.legal_moves(state)
        leaps = [m for m in legal if m.leap] if game.to_move(state) == 1 else []
        move = choose.choice(leaps or legal)
        moves.append(move)
        state = game.apply(state, move)
    return moves


def play_the_hare_game(table, sim, moves, before_confirm=lambda: None) -> None:
    """Catch the Hare's ``moves`` carried out on the virtual board ``sim``, captured
    hunters put into the tray, each capture that could have gone on confirmed on the
    hare's phone (``table``'s "seat 1") after ``before_confirm()``."""
    from playwright.sync_api import expect

    game = load_game("catch_the_hare")
    hunters, hare = table.pages["seat 0"], table.pages["seat 1"]
    state = game.initial_state()
    for move in moves:
        carry_out(sim, move.path)
        for hunter in jumped(game, move.path) if move.leap else ():
            sim.click(f'g[data-cell="{hunter}"]')
            sim.click("#sim-to-tray")
        wait_for_move(table.pages["table"], move)
        open_ended = game.can_extend(state, move)
        state = game.apply(state, move)
        if open_ended and game.outcome(state) is None:
            # a leap that could have gone on stays open until the hare says it is done
            hare.bring_to_front()
            expect(hare.locator("#confirm")).to_be_enabled(timeout=WAIT_MS)
            before_confirm()
            hare.click("#confirm")
            expect(hunters.locator('body[data-yours="yes"]')).to_have_count(1, timeout=WAIT_MS)


def play_first_card(mover) -> bool:
    """The phone ``mover`` plays its first card: a capture where it may, else alone;
    whether it captured."""
    from playwright.sync_api import expect

    mover.bring_to_front()
    mover.locator(".hand-card").first.click()
    expect(mover.locator("#play-alone")).to_be_visible(timeout=WAIT_MS)
    capture = mover.locator(".card-actions .capture")
    captures = capture.count() > 0
    (capture.first if captures else mover.locator("#play-alone")).click()
    return captures


@pytest.mark.parametrize("language", ["de"])
def test_the_hunters_and_the_hare_play_to_the_end_with_a_double_capture(people, language):
    """Captured hunters are taken off the virtual board into the tray; the hare's
    phone confirms a capture that could have gone on; the game ends on the score."""
    from playwright.sync_api import expect

    table = people("catch_the_hare", 2, language)
    game = load_game("catch_the_hare")
    moves = hare_game()
    assert any(len(m.path) > 2 for m in moves), "the game has a double capture"
    sim = table.open("sim", "/sim")
    table.open("table", "/table")
    hare = [table.join(seat) for seat in range(2)][-1]
    # a seat's name stands as it is said alone: "der Hase", not "Du spielst der Hase"
    expect(hare.locator("#me")).to_have_text("Deine Seite: der Hase", timeout=WAIT_MS)
    table.check()
    table.shoot("start")

    def captured_once():
        table.check()
        table.shoot("captured")

    play_the_hare_game(table, sim, moves, captured_once)
    confirmed = sum(game.can_extend(s, m) for s, m in zip(positions(game, moves), moves))
    assert confirmed, "no capture needed the hare's confirm"
    captured = sum(len(m.path) - 1 for m in moves if m.leap)
    expect(sim.locator("#sim-tray .sim-piece")).to_have_count(captured)
    for page in table.pages.values():
        expect(page.locator("#outcome")).to_be_visible(timeout=WAIT_MS)
    table.check()
    table.shoot("over")
