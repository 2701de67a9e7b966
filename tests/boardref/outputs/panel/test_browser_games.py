"""Each newer game drawn by the panel in a real browser (Playwright driving Debian's
/usr/bin/chromium, as in test_browser.py): Hakenschlagen's disks in their colours,
Fang den Hut!'s towers with their top colour, the card game's hand played from a
phone, and a Hägar coaster laid by taps. Waits are generous; nothing here is timed.
"""

from __future__ import annotations

import random
import re

import httpx
import pytest

from boardref.referee.choices import choices_of
from engines import load_game
from engines.chance import Stream
from tests.boardref.conftest import PIN, needs_chromium, new_game, on_board

WAIT_MS = 10_000
#: the panel's colour table (board.js TOKEN_COLOURS) for the colours asserted here
YELLOW, RED = "#f2c200", "#d62828"

pytestmark = [needs_chromium, pytest.mark.browser]

# the colour the panel draws a token in (board.js, an ES module)
TOKEN_COLOUR = 'async (name) => (await import("/static/board.js")).tokenColour(name)'


@pytest.fixture
def table(sim_table, request):
    """The shared table, playing the game and player count a test names."""
    new_game(sim_table, *request.param)
    return sim_table


def draw(url):
    assert httpx.post(f"{url}/api/draw", json={}).status_code == 200


def set_position(url, record):
    """The referee sets the whole position (PIN login, then POST /api/position)."""
    with httpx.Client(base_url=url) as referee:
        assert referee.post("/api/referee/login", json={"pin": PIN}).status_code == 200
        assert referee.post("/api/position", json={"record": record}).status_code == 200


def played(name: str, players: int, seed: int, until) -> dict:
    """The record of a game played by random legal moves (seeded) until ``until``."""
    game = load_game(name, players=players)
    choose, stream = random.Random(seed), Stream(f"test-{seed}")
    state = game.initial_state()
    while not until(state):
        chance = game.chance(state)
        if chance is not None:
            state = game.resolve(state, chance.draw(stream))
        else:
            state = game.apply(state, choose.choice(game.legal_moves(state)))
    return game.to_json(state)


def join_by_qr(phone, url, seat: int) -> None:
    """The phone goes to the address in a seat's join QR code, as its camera reads it
    (the code shown on the phone's own screen first)."""
    import cv2
    import numpy

    phone.goto(f"{url}/api/qr/{seat}")
    image = cv2.imdecode(numpy.frombuffer(phone.screenshot(), numpy.uint8), cv2.IMREAD_COLOR)
    # OpenCV's first detector misses about one code in a hundred at this size: a
    # phone's camera would look again, here the second detector does
    text = (
        cv2.QRCodeDetector().detectAndDecode(image)[0]
        or cv2.QRCodeDetectorAruco().detectAndDecode(image)[0]
    )
    assert text.startswith(f"{url}/play/{seat}?token="), text
    phone.goto(text)


@pytest.mark.parametrize("table", [("hakenschlagen", 3)], indirect=True)
def test_hakenschlagen_draws_the_disks_in_their_colours_and_the_marbles(table, browser, kiosk):
    from playwright.sync_api import expect

    draw(table)  # the setup
    draw(table)  # the first hand of marbles
    layout = httpx.get(f"{table}/api/state").json()["record"]["layout"]
    page = on_board(kiosk, f"{table}/table")
    dandelion = layout["dandelion"][0]
    disk = page.locator(f'.ground .disk[data-cell="{dandelion}"]')
    expect(disk).to_have_attribute("fill", YELLOW, timeout=WAIT_MS)
    expect(page.locator(".ground .disk")).to_have_count(15 + 12 + 9)
    expect(page.locator(".over .tree")).to_have_count(6)
    expect(page.locator(".over .hare")).to_have_count(3)
    expect(page.locator(".over .fox")).to_have_count(1)
    expect(page.locator("#drawn .marble")).to_have_count(3)
    # the legend's entries stand alone: "Dandelion disk"
    expect(page.locator(".meadow-legend li").first).to_have_text("Dandelion disk")


@pytest.mark.parametrize("table", [("fang_den_hut", 4)], indirect=True)
def test_fang_den_hut_draws_a_tower_with_its_top_colour_first(table, browser, kiosk):
    from playwright.sync_api import expect

    hats = {"last_standing": False, "team": False, "total_team": False}
    record = {
        "game": "fang_den_hut",
        "players": 4,
        "options": {**hats, "tower": False, "golden_hat": False},
        "state": {
            "fields": {"r1": ["red[blue,yellow]"], "r12": ["blue"]},
            "home": {"red": 5, "blue": 4, "green": 6, "yellow": 5},
            "prisoners": {"red": [], "blue": [], "green": [], "yellow": []},
            "golden_home": None,
            "turn": "red",
            "roll": None,
            "ply": 4,
        },
    }
    with httpx.Client(base_url=table) as referee:
        assert referee.post("/api/referee/login", json={"pin": PIN}).status_code == 200
        assert referee.post("/api/position", json={"record": record}).status_code == 200
    draw(table)
    page = on_board(kiosk, f"{table}/table")
    tower = page.locator('.over .stack[data-cell="r1"]')
    expect(tower).to_have_attribute("data-top", "red", timeout=WAIT_MS)
    expect(tower).to_have_attribute("data-hats", "3")
    expect(tower.locator(".hat.top")).to_have_attribute("fill", RED)
    expect(tower.locator(".hat.captive")).to_have_count(2)
    expect(page.locator('.over .stack.home[data-cell="home_green"]')).to_have_attribute(
        "data-count", "6"
    )
    expect(page.locator('.ground [data-cell="r4"]')).to_have_attribute("data-kind", "grey")
    expect(page.locator("#drawn svg.die")).to_have_count(1)


#: the words of each choice of each list, as a players' page names the moves it asks
#: about (its own copy of candidates.js, which reads the state the page holds)
CHOICE_LABELS = """async (lists) => {
  const src = document.querySelector("script[type=module]").src;
  const candidates = await import(src.replace(/panel[.]js$/, "candidates.js"));
  return lists.map((choices) => candidates.choiceLabels(choices));
}"""


def legal_move_lists(game, seed: int, games: int) -> list[tuple[object, list[str]]]:
    """Every position of ``games`` random games (seeded) where there is more than one
    outcome, with its legal moves, one move per outcome (moves that end alike, by
    another way round, are one choice: the table never asks which)."""
    choose, stream = random.Random(seed), Stream(f"test-{seed}")
    lists = []
    for _ in range(games):
        state = game.initial_state()
        while game.outcome(state) is None and len(lists) < 2000:
            chance = game.chance(state)
            if chance is not None:
                state = game.resolve(state, chance.draw(stream))
                continue
            moves = game.legal_moves(state)
            outcomes = {game.apply(state, move): str(move) for move in reversed(moves)}
            if len(outcomes) > 1:
                lists.append((state, list(outcomes.values())))
            state = game.apply(state, choose.choice(moves))
    return lists


@pytest.mark.parametrize("table", [("fang_den_hut", 4)], indirect=True)
@pytest.mark.parametrize("language", ["en-US", "de-DE"])
def test_no_two_fang_den_hut_moves_of_a_position_are_called_alike(table, browser, language):
    """Every list of moves a players' page could ask about names each by what tells it
    apart, with no cell label (the board draws each): the golden hat from the hat it
    rides on, a tower from a hat, a hat going home and out again from one going
    straight, one hat's walk from another's."""
    game = load_game("fang_den_hut", players=4, golden_hat=True, last_standing=False)
    lists = legal_move_lists(game, seed=40, games=3)
    assert any(move.startswith("gold/") for _, moves in lists for move in moves)
    asked = [
        [choice.model_dump() for choice in choices_of(game, state, tuple(moves))]
        for state, moves in lists
    ]
    page = on_board(browser.new_page(locale=language), f"{table}/table")
    for (_, moves), said in zip(lists, page.evaluate(CHOICE_LABELS, asked)):
        alike = {label for label in said if said.count(label) > 1}
        assert not alike, [m for m, label in zip(moves, said) if label in alike]


#: notes what a page animates (window.rolled: each animated element's class)
COUNT_ANIMATIONS = """window.rolled = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (...how) {
  window.rolled.push(this.getAttribute("class"));
  return animate.apply(this, how);
};"""


@pytest.mark.parametrize("table", [("fang_den_hut", 2)], indirect=True)
def test_a_roll_rolls_in_unless_the_device_asks_for_less_motion(table, browser):
    """The die comes in turning on a screen that welcomes motion, and simply appears
    on one that asks for less (as the browser tests' pages do). The die turns alone,
    not the line it stands in: the compositor moves it, nothing around it is painted
    again."""
    from playwright.sync_api import expect

    draw(table)
    page = browser.new_page(locale="en-US", reduced_motion="no-preference")
    page.add_init_script(COUNT_ANIMATIONS)
    for motion, rolled in (("no-preference", ["die rolls"]), ("reduce", [])):
        page.emulate_media(reduced_motion=motion)
        on_board(page, f"{table}/table")
        expect(page.locator("#drawn svg.die")).to_have_count(1, timeout=WAIT_MS)
        assert page.evaluate("window.rolled") == rolled, motion


@pytest.mark.parametrize("table", [("fang_den_hut_cards", 3)], indirect=True)
def test_a_phone_plays_a_tapped_card_and_the_next_is_offered_only_the_allowed_captures(
    table, browser, kiosk
):
    from playwright.sync_api import expect

    draw(table)  # the deal
    first = browser.new_page(locale="en-US")
    join_by_qr(first, table, 0)
    expect(first.locator(".hand-card")).to_have_count(10, timeout=WAIT_MS)
    card = first.locator(".hand-card").first.get_attribute("data-card")
    first.locator(".hand-card").first.click()
    first.click("#play-alone")
    tablepage = on_board(kiosk, f"{table}/table")
    stack = tablepage.locator('.over .card[data-cell="stack_1"]')
    expect(stack).to_have_attribute("data-card", card, timeout=WAIT_MS)
    expect(stack).to_have_attribute("data-points-at", "player 1")
    expect(tablepage.locator("text.seat-name").first).to_have_text(re.compile(r"^Player \d$"))
    expect(first.locator(".hand-card")).to_have_count(9, timeout=WAIT_MS)
    # each seat's hats said apart from its name ("Player 1: 0", not "player 1 0")
    hats = "Hats won — Player 1: 0 · Player 2: 0 · Player 3: 0"
    expect(first.locator("#game-panel")).to_contain_text(hats)

    second = browser.new_page(locale="en-US")
    join_by_qr(second, table, 1)
    expect(second.locator(".hand-card")).to_have_count(10, timeout=WAIT_MS)
    # the second seat's phone turns the table so that its own stacks lie below the deck
    cells = (f'g.cell[data-cell="{c}"]' for c in ("deck", "taken_2"))
    deck, own = (second.locator(cell).bounding_box() for cell in cells)
    assert own["y"] > deck["y"] + deck["height"], (deck, own)
    assert abs(own["x"] + own["width"] / 2 - deck["x"] - deck["width"] / 2) < deck["width"] / 2
    top = httpx.get(f"{table}/api/state").json()["position"]["stack_1"]
    assert top == card
    game = load_game("fang_den_hut_cards", players=3)
    hand = [card.get_attribute("data-card") for card in second.locator(".hand-card").all()]
    for card in hand:
        second.locator(f'.hand-card[data-card="{card}"]').click()
        expect(second.locator("#play-alone")).to_be_visible(timeout=WAIT_MS)
        capture = second.locator(f'button.capture[data-target="{top}"]')
        expect(capture).to_have_count(1 if game.can_capture(card, top) else 0)
        second.locator(f'.hand-card[data-card="{card}"]').click()  # put it back


@pytest.mark.parametrize("table", [("haegar", 2)], indirect=True)
def test_a_coaster_laid_by_taps_joins_the_landscape(table, browser, kiosk):
    from playwright.sync_api import expect

    draw(table)  # the first coaster
    page = on_board(kiosk, f"{table}/table")
    hand = httpx.get(f"{table}/api/state").json()["record"]["hand"]
    in_hand = page.locator("#coaster-in-hand")
    expect(in_hand).to_have_attribute("data-coaster", hand, timeout=WAIT_MS)
    # drawn as a coaster, said in words to a screen reader, and shown once: not also as drawn
    expect(in_hand.locator("svg.coaster-picture .field-area")).to_have_count(4)
    expect(in_hand.locator("svg.coaster-picture")).to_have_attribute(
        "aria-label", re.compile("upper left: ")
    )
    expect(in_hand).not_to_contain_text(hand)
    expect(page.locator("#drawn")).to_be_hidden()
    expect(page.locator(".over .coaster")).to_have_count(0)
    page.locator('.over .spot[data-spot="n0e0"]').click()
    page.locator("button.facing").first.click()
    coaster = page.locator('.over .coaster[data-spot="n0e0"]')
    expect(coaster).to_have_attribute("data-coaster", hand, timeout=WAIT_MS)
    expect(page.locator(".ground .field")).to_have_count(4)


@pytest.mark.parametrize("table", [("hakenschlagen", 3)], indirect=True)
def test_hakenschlagen_takes_its_disk_colours_from_the_board_file(table, browser, kiosk):
    from playwright.sync_api import expect

    colours = httpx.get(f"{table}/api/board").json()["game"]["colours"]
    draw(table)
    layout = httpx.get(f"{table}/api/state").json()["record"]["layout"]
    page = on_board(kiosk, f"{table}/table")
    for kind in ("dandelion", "lettuce", "carrot"):
        colour = page.evaluate(TOKEN_COLOUR, colours[kind])
        disk = page.locator(f'.ground .disk[data-cell="{layout[kind][0]}"]')
        expect(disk).to_have_attribute("fill", colour, timeout=WAIT_MS)


@pytest.mark.parametrize("table", [("sternhalma", 2)], indirect=True)
def test_the_table_page_shows_each_stack_size(table, browser, kiosk):
    """The card game started after a board game, whose last reading the referee
    keeps, takes a position set by the referee."""
    from playwright.sync_api import expect

    new_game(table, "fang_den_hut_cards", 3)
    record = played(
        "fang_den_hut_cards", 3, 1, lambda s: sum(len(stack) > 1 for stack in s.table) >= 2
    )
    set_position(table, record)
    report = httpx.get(f"{table}/api/state").json()["report"]
    page = on_board(kiosk, f"{table}/table")
    for stack in report["table"]:
        card = page.locator(f'.over .card[data-cell="stack_{stack["points_at"] + 1}"]')
        expect(card).to_have_attribute("data-card", stack["top"], timeout=WAIT_MS)
        expect(card).to_have_attribute("data-size", str(stack["cards"]))
        expect(card.locator(".card-size-count")).to_have_text(str(stack["cards"]))
    for seat, count in enumerate(report["taken"]):
        if count:
            pile = page.locator(f'.over .card[data-cell="taken_{seat + 1}"]')
            expect(pile).to_have_attribute("data-size", str(count))


@pytest.mark.parametrize("table", [("haegar", 2)], indirect=True)
def test_haegar_fields_show_their_landscape_and_a_running_tally(table, browser, kiosk):
    from playwright.sync_api import expect

    record = played("haegar", 2, 1, lambda s: len(s.laid) >= 6 and s.phase == "draw")
    set_position(table, record)
    state = httpx.get(f"{table}/api/state").json()
    prints = {c["id"]: c for c in httpx.get(f"{table}/api/board").json()["game"]["coaster"]}
    page = on_board(kiosk, f"{table}/table")

    def printed(token):  # "c03_nw+blue": coaster c03's upright nw field, a blue token on it
        coaster, corner = token.split("+")[0].rsplit("_", 1)
        return prints[coaster][corner]

    covered = {cell: printed(token) for cell, token in state["position"].items() if token}
    cell, landscape = next((cell, field["landscape"]) for cell, field in covered.items())
    name = {"land": "beige", "forest": "darkgreen", "water": "blue"}[landscape]
    colour = page.evaluate(TOKEN_COLOUR, name)
    field = page.locator(f'.ground .field[data-cell="{cell}"]')
    expect(field).to_have_attribute("data-landscape", landscape, timeout=WAIT_MS)
    expect(field.locator(".field-area")).to_have_attribute("fill", colour)
    shields = sum("shield" in field for field in covered.values())
    expect(page.locator(".ground .field-shield")).to_have_count(shields)
    lands = state["report"]["landscapes"]
    assert lands, "the seeded game has Hägars on the table"
    expect(page.locator("#landscape-scores:not(.final) .landscape-row")).to_have_count(len(lands))
    expect(page.locator("#landscape-scores h2")).to_have_text(
        "Landscapes so far (scored as if the game ended now)"
    )
    left = re.compile(r"Tokens left — Blue: \d+ Hägars? and \d+ gold · Red: \d+ Hägars? and ")
    expect(page.locator("#game-panel")).to_contain_text(left)


@pytest.mark.parametrize("table", [("haegar", 2)], indirect=True)
def test_haegar_end_scores_per_landscape_and_the_doubled_line(table, browser, kiosk):
    from playwright.sync_api import expect

    record = played("haegar", 2, 1, lambda s: s.phase == "over")
    set_position(table, record)
    state = httpx.get(f"{table}/api/state").json()
    report = state["report"]
    assert report["doubled"], "the seeded game's die doubles a line"
    page = on_board(kiosk, f"{table}/table")
    scores = page.locator("#landscape-scores.final")
    expect(scores.locator(".landscape-row")).to_have_count(
        len(report["landscapes"]), timeout=WAIT_MS
    )
    for seat, total in enumerate(state["outcome"]["scores"]):
        expect(scores.locator(f'.seat-total[data-seat="{seat}"]')).to_have_text(str(total))
    expect(page.locator(".over .doubled-mark")).to_have_count(len(report["doubled"]))
    for cell in report["doubled"]:
        expect(page.locator(f'.ground .field.doubled[data-cell="{cell}"]')).to_have_count(1)
    conquered = sum(land["conqueror"] is not None for land in report["landscapes"])
    expect(scores.locator(".conqueror")).to_have_count(conquered)
    # names standing alone, after a label or as a column's heading: "Winner: Red"
    expect(page.locator("#outcome .winners")).to_have_text(re.compile(r"^Winner: (Blue|Red)$"))
    expect(scores.locator("thead th").last).to_have_text("Red")
    first_kind = scores.locator(".landscape-row td").first
    expect(first_kind).to_have_text(re.compile(r"^\s*(Forest|Land|Water)\b"))
