"""Moves in words in a real browser (Debian's chromium): on the players' pages (the
table, here) no move, played or announced by the computer, is said by a cell label
printed on no board, in English and German, for random legal moves of every board
game; the referee page keeps the notation. The board lights where each went.
Waits are generous; nothing is timed.
"""

from __future__ import annotations

import re

import httpx
import pytest

from engines import load_game
from tests.boardref.conftest import needs_chromium, new_game, on_board
from tests.boardref.outputs.panel.test_browser_games import WAIT_MS
from tests.boardref.outputs.panel.test_browser_referee import logged_in, shoot
from tests.boardref.outputs.test_computer_words import random_plays

pytestmark = [needs_chromium, pytest.mark.browser]

#: each board game, its players, and its options for the engine
BOARD_GAMES = [
    ("sternhalma", 3, {}),
    ("catch_the_hare", 2, {}),
    ("fang_den_hut", 4, {"golden_hat": True, "last_standing": False}),
    ("hakenschlagen", 3, {}),
]
LOCALES = {"en": "en-US", "de": "de-DE"}

#: each move as the page says it: played ("Last move: ...") and announced by the
#: computer (its own sentence), in the page's own copy of core.js
SAY_MOVES = """async (moves) => {
  const src = document.querySelector("script[type=module]").src;
  const core = await import(src.replace(/panel[.]js$/, "core.js"));
  return moves.map((move) => [core.say("last_move", {move}),
                              core.said({key: "referee.computer_moves", params: {move}})]);
}"""


def random_moves(name: str, players: int, options: dict, wanted: int, seed: int) -> list[str]:
    """``wanted`` legal moves from the positions of random games (seeded)."""
    game = load_game(name, players=players, **options)
    return [str(move) for _, move in random_plays(game, wanted, seed)]


def labels(url: str, language: str) -> re.Pattern:
    """A cell label of the board the table plays as a word: the coordinates (``r44``,
    ``home_red``) in any language, and on a German page the English names (``centre``)."""
    ids = [cell["id"] for cell in httpx.get(f"{url}/api/board").json()["cells"]]
    printed = [i for i in ids if language == "de" or re.search(r"[\d_]", i)]
    return re.compile(r"\b(" + "|".join(map(re.escape, printed)) + r")\b")


@pytest.mark.parametrize(("name", "players", "options"), BOARD_GAMES)
@pytest.mark.parametrize("language", ["en", "de"])
def test_the_players_pages_say_no_move_by_a_cell_label(
    sim_table, browser, name, players, options, language
):
    new_game(sim_table, name, players)
    moves = random_moves(name, players, options, wanted=40, seed=len(name))
    page = on_board(browser.new_page(locale=LOCALES[language]), f"{sim_table}/table")
    label = labels(sim_table, language)
    for move, said in zip(moves, page.evaluate(SAY_MOVES, moves)):
        for sentence in said:
            assert not label.search(sentence), (move, sentence)
            assert move not in sentence or move == "pass", (move, sentence)


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_referee_page_says_moves_in_notation(sim_table, browser, language):
    new_game(sim_table, "sternhalma", 2)
    moves = random_moves("sternhalma", 2, {}, wanted=5, seed=1)
    page = logged_in(browser, sim_table, language)
    for move, (played, announced) in zip(moves, page.evaluate(SAY_MOVES, moves)):
        assert move in played and move in announced, (move, played, announced)


#: what the table says of the hare's step or jump, announced and played, by language
HARE_WORDS = {
    "en": {
        "-": ("The computer moves the hare from the middle to ", "Last move: the hare one step"),
        ":": ("The computer's hare jumps from the middle over", "Last move: the hare over"),
    },
    "de": {
        "-": ("Der Computer zieht den Hasen von der Mitte auf ",
              "Letzter Zug: der Hase einen Schritt"),
        ":": ("Der Hase des Computers springt von der Mitte über", "Letzter Zug: der Hase über"),
    },
}


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_computers_move_and_the_last_move_are_said_and_lit(sim_table, browser, language):
    """The computer plays Catch the Hare's hare: its move is announced in a sentence
    and lit on the board; carried out on the virtual board, the last move is said the
    same way and stays lit."""
    from playwright.sync_api import expect

    new_game(sim_table, "catch_the_hare", 2, computer=[1])
    context = browser.new_context(locale=LOCALES[language], viewport={"width": 1280, "height": 800})
    sim = on_board(context.new_page(), f"{sim_table}/sim")
    table = on_board(context.new_page(), f"{sim_table}/table")
    game = load_game("catch_the_hare", players=2)
    hunter = game.legal_moves(game.initial_state())[0]
    for cell in (hunter.path[0], hunter.path[-1]):
        sim.click(f'g.cell[data-cell="{cell}"]')
    expect(table.locator("#message")).to_contain_text("computer", ignore_case=True, timeout=WAIT_MS)
    expected = httpx.get(f"{sim_table}/api/state").json()["expected"]
    jumping = ":" if ":" in expected else "-"
    announced, played = HARE_WORDS[language][jumping]
    expect(table.locator("#message")).to_contain_text(announced)
    cells = expected.split(jumping)
    for cell in cells:
        expect(table.locator(f'g.cell[data-cell="{cell}"]')).to_have_class("cell expected")
    shoot(table, f"move-words-computer-{language}")
    for cell in (cells[0], cells[-1]):
        sim.click(f'g.cell[data-cell="{cell}"]')
    expect(table.locator("#last")).to_contain_text(played, timeout=WAIT_MS)
    for cell in cells:
        expect(table.locator(f'g.cell[data-cell="{cell}"]')).to_have_class(re.compile(r"\blast\b"))
    shoot(table, f"move-words-last-{language}")
    context.close()


#: the computer's announcement with how long it thought, in the page's own core.js
SAY_THOUGHT = """async () => {
  const src = document.querySelector("script[type=module]").src;
  const core = await import(src.replace(/panel[.]js$/, "core.js"));
  return core.said({key: "referee.computer_plays", params: {move: "a3-a4", seconds: 4.25}});
}"""


@pytest.mark.parametrize(("language", "thought"), [("en", "(thought 4.3 s)"), ("de", "(4,3 s")])
def test_the_computer_says_how_long_it_thought(sim_table, browser, language, thought):
    new_game(sim_table, "catch_the_hare", 2)
    page = on_board(browser.new_page(locale=LOCALES[language]), f"{sim_table}/table")
    assert thought in page.evaluate(SAY_THOUGHT)


#: the turn line while the computer thinks, from the page's own core.js: for a state
#: whose seat to move is the computer's, then once it announced its move, then for a
#: guest's seat
SAY_THINKING = """async () => {
  const src = document.querySelector("script[type=module]").src;
  const core = await import(src.replace(/panel[.]js$/, "core.js"));
  const thinking = {phase: "move", acting: 1, computer: [1], expected: null};
  return [core.computerThinking(thinking),
          core.computerThinking({...thinking, expected: "a3-a4"}),
          core.computerThinking({...thinking, acting: 0}),
          core.computerThinking({...thinking, phase: "chance"}),
          core.say("computer_thinking", {seat: "Blue"})];
}"""


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("en", "Blue to move: the computer is thinking"),
        ("de", "Am Zug: Blue, der Computer überlegt"),
    ],
)
def test_the_pages_say_the_computer_is_thinking_until_it_announces_its_move(
    sim_table, browser, language, line
):
    new_game(sim_table, "catch_the_hare", 2)
    page = on_board(browser.new_page(locale=LOCALES[language]), f"{sim_table}/table")
    assert page.evaluate(SAY_THINKING) == [True, False, False, False, line]
