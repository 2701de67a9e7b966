"""People at a table, in a real browser: a served ``--sim`` table with its pages open
side by side (the virtual board, the kiosk, one phone per human seat, joined by the
QR code as a phone's camera reads it), and the checks every page passes while they
play: no unfilled ``{placeholder}``, no JSON, no identifiers or English on a German
page, nothing in the console; each page is screenshotted at phone and kiosk size
when $BOARDREF_SHOTS names a folder.

The people here only click and tap (Playwright on Debian's chromium); they read the
pages, never the API, to decide what to do, except where a person would know it from
the rules (the engine says which moves are legal, as a player knows).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.boardref.conftest import serve, stop_service

WAIT_MS = 15_000
PHONE, KIOSK = {"width": 390, "height": 844}, {"width": 1280, "height": 800}
#: where the screenshots go: the folder $BOARDREF_SHOTS names; none are taken without it
SHOTS = Path(os.environ["BOARDREF_SHOTS"]) if os.environ.get("BOARDREF_SHOTS") else None
#: words that give an English sentence away on a German page
ENGLISH = re.compile(
    r"\b(the|to move|your turn|not allowed|last move|seat|player|hunters?|red|blue|green|"
    r"yellow|white|black|draw|roll|waiting|move|piece|capture|take|put|board)\b"
)
#: a programmer's name (game_name, home_red, min_hunters) or a card's id (red7)
IDENTIFIER = re.compile(r"\b[a-z]+_[a-z0-9_]+\b|\b(red|blue|yellow)(\d|_blank)\b")
#: names an owner types into the config or the terminal, quoted as they are
CONFIG_NAMES = ("public_url", "referee_pin_hash", "pin-hash")
JSON = re.compile(r"[{\[]\s*\"\w+\"\s*:")


class Table:
    """The pages of one table, open in one browser, in one language."""

    def __init__(self, browser, url: str, language: str, name: str):
        self.url, self.language, self.name = url, language, name
        locale = "de-DE" if language == "de" else "en-US"
        self.context = browser.new_context(locale=locale, viewport=KIOSK)
        self.errors: list[str] = []
        #: console lines the people expect, one each: (page, words in the line)
        self.expected: list[tuple[str, str]] = []
        self.pages: dict[str, object] = {}
        self.scanner = None  # the page a phone's camera reads the join codes on
        self.shots = 0

    def open(self, role: str, path: str, size=KIOSK):
        """Open ``path`` as the page called ``role`` ("sim", "table", "seat 2"...)."""
        page = self.context.new_page()
        page.set_viewport_size(size)
        page.on("console", lambda m: m.type == "error" and self.errors.append(f"{role}: {m.text}"))
        page.on("pageerror", lambda e: self.errors.append(f"{role}: {e}"))
        page.goto(self.url + path)
        # drawn its first state: the turn line has words (hidden on a phone that has
        # not joined, which says how to join instead)
        page.wait_for_selector("#turn:not(:empty)", state="attached", timeout=WAIT_MS)
        self.pages[role] = page
        return page

    def join(self, seat: int):
        """A phone joins ``seat`` by the QR code on the table page, at phone size: the
        code the kiosk shows is read at full size, as a phone's camera reads it."""
        import cv2
        import numpy

        code = self.pages["table"].locator(f'#join-codes figure[data-seat="{seat}"] img')
        if self.scanner is None:  # one camera for every seat's code
            self.scanner = self.context.new_page()
        self.scanner.goto(self.url + code.get_attribute("src"))
        # only the code itself: the rest of the window is blank, and costs to look at
        width, height = self.scanner.evaluate(
            "() => { const r = document.documentElement.getBoundingClientRect();"
            " return [r.width, r.height]; }"
        )
        shot = self.scanner.screenshot(clip={"x": 0, "y": 0, "width": width, "height": height})
        image = cv2.imdecode(numpy.frombuffer(shot, numpy.uint8), cv2.IMREAD_COLOR)
        # the plain detector misreads about one random code in twenty; the ArUco one
        # reads them, and a code read at none of the sizes is looked at closer
        readers = (cv2.QRCodeDetectorAruco(), cv2.QRCodeDetector())
        address = ""
        for zoom in (1, 2, 3):
            near = cv2.resize(image, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_NEAREST)
            address = next((a for r in readers if (a := r.detectAndDecode(near)[0])), "")
            if address:
                break
        assert address.startswith(f"{self.url}/play/{seat}?token="), address
        return self.open(f"seat {seat}", address[len(self.url) :], PHONE)

    def check(self) -> None:
        """Every open page reads as words, in its language, and nothing failed."""
        for role, page in self.pages.items():
            text = page.locator("body").inner_text()
            assert "{" not in text and "}" not in text, f"{role}: a template shows: {text!r}"
            assert not JSON.search(text), f"{role}: JSON shows: {text!r}"
            if self.language == "de":
                prose = re.sub("|".join(CONFIG_NAMES), "", text)
                found = IDENTIFIER.search(prose) or ENGLISH.search(prose)
                assert not found, f"{role}: {found.group(0)!r} on a German page: {text!r}"
        errors = list(self.errors)
        for role, words in self.expected:
            met = next((e for e in errors if e.startswith(f"{role}: ") and words in e), None)
            if met is not None:  # not yet logged: let pass when it is
                errors.remove(met)
        assert not errors, errors

    def expect_error(self, role: str, words: str) -> None:
        """A refusal the people met and acted on: Chromium logs the refused request on
        the page's console as an error. From now on the checks let one console line of
        ``role``'s page that contains ``words`` pass, logged before this call or after."""
        self.expected.append((role, words))

    def shoot(self, moment: str) -> None:
        """Screenshot every open page at phone and kiosk size, for a person to look
        through, when $BOARDREF_SHOTS names a folder (they cost Chromium's CPU)."""
        self.shots += 1
        if SHOTS is None:
            return
        for role, page in self.pages.items():
            size = page.viewport_size
            for label, shape in (("phone", PHONE), ("kiosk", KIOSK)):
                page.set_viewport_size(shape)
                name = f"{self.name}-{self.language}-{self.shots:02d}-{moment}-{role}-{label}"
                page.screenshot(path=SHOTS / f"{name.replace(' ', '_')}.png", full_page=True)
            page.set_viewport_size(size)

    def close(self) -> None:
        self.context.close()


#: how long a place on the page must hold still before a test taps it
STILL_MS = 400


def open_section(page, section: str) -> None:
    """Open the page's folded ``section`` (a ``<details>`` id) by tapping its title, as
    a referee does, once the title holds still (a tap made while something above it
    is still drawn would land elsewhere), and check it opened."""
    from playwright.sync_api import expect

    page.wait_for_function(
        """([selector, still]) => {
          const box = document.querySelector(selector)?.getBoundingClientRect();
          if (!box || !box.height) return false;
          const at = `${box.x},${box.y}`, now = performance.now();
          const kept = (window.__heldStill ||= {});
          if (kept[selector]?.at !== at) kept[selector] = { at, since: now };
          return now - kept[selector].since >= still;
        }""",
        arg=[f"#{section} summary", STILL_MS],
        timeout=WAIT_MS,
        polling=100,
    )
    page.click(f"#{section} summary")
    expect(page.locator(f"#{section}")).to_have_js_property("open", True)


#: how long the computer's own moves and draws are shown before they are made: long
#: enough to be seen (and waited for) on the pages, short enough for whole games
COMPUTER_PAUSE_MS = 400


@pytest.fixture
def people(tmp_path, browser):
    """``sit_down(game, players, language, fleet)``: a served table (reporting to the
    broker at ``fleet`` when given) and its pages' browser
    context, closed and stopped after the test. Test modules import this fixture."""
    started = []

    def sit_down(game: str, players: int, language: str, fleet: str | None = None) -> Table:
        service, url = serve(
            tmp_path,
            game,
            players,
            settle_ms=150,
            public=True,
            computer_pause_ms=COMPUTER_PAUSE_MS,
            fleet=fleet,
        )
        table = Table(browser, url, language, game)
        started.append((service, table))
        return table

    yield sit_down
    for service, table in started:
        table.close()
        stop_service(service)
