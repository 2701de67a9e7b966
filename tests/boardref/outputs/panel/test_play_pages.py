"""What every page shows around the game, tried by people who only click and tap
(``at_the_table``: the kiosk, the virtual board, the phones joined by their codes):
the header names the game, its variants and who plays which seat; a game played to
its end tells each phone its own result and a rematch keeps the seats; no button
moves when a line of words appears; a phone turns the board to its seat; the
new-game dialog's Start is in sight on the kiosk and on a phone. Half in German.
"""

from __future__ import annotations

import pytest

from boardref.outputs.panel.words import table as word_table
from tests.boardref.at_the_table import KIOSK, PHONE, WAIT_MS
from tests.boardref.conftest import PIN, needs_chromium
from tests.boardref.outputs.panel.test_play_games import new_game, play_to_the_end, wait_for_ply

pytestmark = [needs_chromium, pytest.mark.browser]


def box(page, selector: str) -> dict:
    return page.locator(selector).bounding_box()


@pytest.mark.parametrize("language", ["de"])
def test_every_page_names_the_game_its_variant_and_who_plays_which_seat(people, language):
    """Sternhalma for three, "stay in the target" ticked, the computer playing the
    third seat: the kiosk, both phones, the spectators, the virtual board and the
    referee's page say so in their header, and a phone's header fits its screen."""
    from playwright.sync_api import expect

    said = word_table(language)
    table = people("sternhalma", 3, language)
    kiosk = table.open("table", "/table")
    new_game(kiosk, {"no_leaving_goal": True}, computer=(2,))
    phones = [table.join(seat) for seat in range(2)]
    table.open("watch", "/watch", PHONE)
    table.open("sim", "/sim")
    referee = table.open("referee", "/referee", PHONE)
    referee.fill("#pin", PIN)
    referee.click("#login")
    name, variant = said["game.sternhalma.title"], said["option.sternhalma.no_leaving_goal.title"]
    for role, page in table.pages.items():
        expect(page.locator("#game-name")).to_have_text(name, timeout=WAIT_MS)
        expect(page.locator("#game-variant")).to_have_text(variant)
        seats = page.locator("#seat-list li")
        expect(seats).to_have_count(3)
        expect(seats.nth(0)).to_contain_text("Rot" if language == "de" else "Red")
        expect(seats.nth(2)).to_contain_text(f"({said['header.computer']})")
        for target in ("#language", ".history-link"):  # a finger's size
            if page.locator(target).is_visible():
                assert box(page, target)["height"] >= 44, (role, target)
        if page.viewport_size == PHONE:
            header = box(page, "header")
            assert header["x"] + header["width"] <= PHONE["width"], role
            assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"], role
    for seat, phone in enumerate(phones):
        mine = phone.locator(f'#seat-list li[data-seat="{seat}"]')
        expect(mine).to_contain_text(f"({said['header.you']})")
        assert phone.locator("#seat-list li", has_text=f"({said['header.you']})").count() == 1
    table.check()
    table.shoot("header")


#: what a phone says of its own result, by language
YOU_WON = {"en": "You won!", "de": "Du hast gewonnen!"}
YOU_CAME_2ND = {"en": "You came 2nd", "de": "Du bist auf dem 2. Platz"}


@pytest.mark.parametrize("language", ["en"])
def test_each_phone_reads_its_own_result_and_a_rematch_keeps_the_seats(people, language):
    """Two people play the card game to its end on their phones: each phone says its
    own result, the reason is said once on each page; the kiosk's Rematch starts the
    same game again, the second seat starting, and both phones are still seated in it
    without scanning again."""
    from playwright.sync_api import expect

    table = people("fang_den_hut_cards", 2, language)
    kiosk = table.open("table", "/table")
    new_game(kiosk, {"single_game": True})
    phones = [table.join(seat) for seat in range(2)]
    play_to_the_end(kiosk, phones)
    reason = kiosk.locator("#outcome .reason").inner_text()
    results = []
    for page in (kiosk, *phones):
        expect(page.locator("#outcome")).to_be_visible(timeout=WAIT_MS)
        assert page.locator("body").inner_text().count(reason) == 1, "the reason is said once"
    for phone in phones:
        results.append(phone.locator("#outcome .own-result").inner_text())
    first = kiosk.locator("#outcome .scores li").first.inner_text()
    winners = [seat for seat in range(2) if results[seat] == YOU_WON[language]]
    assert winners, results
    assert set(results) <= {YOU_WON[language], YOU_CAME_2ND[language]}, results
    assert any(first.startswith(kiosk.locator(f'#seat-list li[data-seat="{s}"]').inner_text() + ":")
               for s in winners), (first, results)
    table.check()
    table.shoot("over")
    expect(phones[0].locator("#rematch")).to_have_count(0)  # the table starts it
    expect(kiosk.locator("#join-codes img")).to_have_count(0)  # both seats joined
    kiosk.click("#rematch")
    for page in (kiosk, *phones):
        expect(page.locator("#outcome")).to_be_hidden(timeout=WAIT_MS)
        expect(page.locator("body")).to_have_attribute("data-plies", "0", timeout=WAIT_MS)
    # the phones' claims are carried into the rematch: no code to scan again
    expect(kiosk.locator('#join-codes figure[data-joined="yes"]')).to_have_count(2)
    expect(kiosk.locator("#join-codes img")).to_have_count(0)
    for phone in phones:  # still seated, with the new game's token
        expect(phone.locator("body")).to_have_attribute("data-joined", "yes", timeout=WAIT_MS)
        expect(phone.locator("#not-joined")).to_be_hidden()
        expect(phone.locator("#game-variant")).to_have_text("Single game, player 2 starts")
    kiosk.click("#draw")
    for phone in phones:
        expect(phone.locator(".hand-card").first).to_be_visible(timeout=WAIT_MS)
    table.check()
    table.shoot("rematch")


@pytest.mark.parametrize("language", ["de"])
def test_no_button_moves_when_a_line_of_words_appears(people, language):
    """On the kiosk and a phone, the buttons stand where they stood while a piece is
    lifted, put down where it may not go (the error line and its refusal) and a
    move is played (the last move's line)."""
    table = people("sternhalma", 2, language)
    sim = table.open("sim", "/sim")
    kiosk = table.open("table", "/table")
    phone = table.join(0)
    buttons = ("#draw", "#confirm", "#takeback", "#new-game-open")
    where = {id_: box(kiosk, id_) for id_ in buttons}
    where_phone = box(phone, "#confirm")
    message = kiosk.locator("#message")

    def unmoved() -> None:
        for id_ in buttons:
            assert box(kiosk, id_) == where[id_], (id_, message.inner_text())
        assert box(phone, "#confirm") == where_phone, phone.locator("#message").inner_text()

    sim.click('g[data-cell="l4"]')  # lifted: its destinations light up, words say so
    kiosk.wait_for_selector('g.cell.lifted[data-cell="l4"]', timeout=WAIT_MS)
    unmoved()
    sim.click('g[data-cell="m9"]')  # far out of reach: an error, in words
    kiosk.wait_for_selector('#message[data-kind="error"]', timeout=WAIT_MS)
    unmoved()
    table.shoot("error")
    sim.click('g[data-cell="m9"]')
    sim.click('g[data-cell="m5"]')  # a step the rules allow
    wait_for_ply(kiosk, 1)
    kiosk.wait_for_selector("#last:not(:empty)", timeout=WAIT_MS)
    unmoved()
    table.check()


def pieces_y(page, token: str) -> float:
    """How far down the page a seat's pieces stand, on average."""
    boxes = [cell.bounding_box() for cell in page.locator(f'g.cell[data-token="{token}"]').all()]
    return sum(b["y"] + b["height"] / 2 for b in boxes) / len(boxes)


@pytest.mark.parametrize("language", ["en"])
def test_the_second_seats_phone_has_its_pieces_at_the_bottom(people, language):
    """The kiosk shows red at the bottom of the star; blue's phone turns the star so
    that blue's pieces stand at the bottom, red's at the top, and the board's words
    still read upright."""
    table = people("sternhalma", 2, language)
    kiosk = table.open("table", "/table")
    red, blue = table.join(0), table.join(1)
    assert pieces_y(kiosk, "red") > pieces_y(kiosk, "blue")
    assert pieces_y(red, "red") > pieces_y(red, "blue")
    assert pieces_y(blue, "blue") > pieces_y(blue, "red")
    # the board's ground and its pieces are drawn in two layers, turned alike
    turned = blue.locator("g.turned")
    assert turned.count() == 2
    assert {turned.nth(n).get_attribute("transform") for n in range(2)} == {"rotate(180)"}
    label = blue.locator("text.label").first
    assert label.get_attribute("transform").startswith("rotate(-180 ")
    board = box(blue, "svg.board")
    assert board["width"] <= PHONE["width"]
    table.check()
    table.shoot("turned")


@pytest.mark.parametrize("language", ["de", "en"])
def test_the_new_game_dialog_keeps_start_in_sight_for_every_game(people, language):
    """For every game in the list, at the most players it takes, Start is in sight on
    the kiosk and on a phone without scrolling the page; it starts the chosen game."""
    from playwright.sync_api import expect

    table = people("sternhalma", 2, language)
    kiosk = table.open("table", "/table")
    for size in (KIOSK, PHONE):
        kiosk.set_viewport_size(size)
        kiosk.click("#new-game-open")
        names = kiosk.locator("#new-game-name option").evaluate_all("os => os.map((o) => o.value)")
        for name in names:
            kiosk.select_option("#new-game-name", name)
            most = kiosk.locator("#new-game-players option").last.get_attribute("value")
            kiosk.select_option("#new-game-players", most)
            start = box(kiosk, "#new-game-start")
            in_sight = start["y"] >= 0 and start["y"] + start["height"] <= size["height"]
            assert in_sight, (name, size, start)
            assert kiosk.evaluate("scrollY") == 0
        kiosk.click("#new-game-cancel")
    kiosk.set_viewport_size(KIOSK)
    kiosk.click("#new-game-open")
    kiosk.select_option("#new-game-name", "catch_the_hare")
    kiosk.click("#new-game-start")
    expect(kiosk.locator("#new-game")).not_to_be_visible(timeout=WAIT_MS)
    expect(kiosk.locator("#game-name")).to_have_text(word_table(language)["game.catch_the_hare.title"],
                                                      timeout=WAIT_MS)
    table.check()
