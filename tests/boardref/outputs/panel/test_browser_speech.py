"""What the pages hand to the browser's speechSynthesis, in real Chromium, clicking
only. Each page's speechSynthesis is replaced before its scripts run by a recorder of
every utterance (its text, language, rate and volume) with a German and an English
voice (headless Chromium has none), and its WebSocket by one that also keeps every
announcement the service pushed: what a page should say is then known without
asking the service. A whole Catch the Hare game in German and a card game in English
are played; the kiosk and the phones must say each new announcement meant for them
once, after a tap, in the page's language (German words on a German page), with no
word-table key, cell label, card id or card still in a hand: every turn, the refusal
and the end (once, last). A page reloaded mid-game says nothing again and then the
next move once; a spectator's page says nothing; a device that asks for reduced
motion keeps the voice and stills the turn line's pulse. The referee page's speech
settings are screenshotted in both languages at phone and kiosk size when
$BOARDREF_SHOTS names a folder.
"""

from __future__ import annotations

import re

import pytest

from boardref.runtime.kiosk import KIOSK_PAGE
from tests.boardref.at_the_table import (
    ENGLISH,
    IDENTIFIER,
    KIOSK,
    PHONE,
    SHOTS,
    WAIT_MS,
    open_section,
)
from tests.boardref.conftest import PIN, needs_chromium
from tests.boardref.outputs.panel.test_play_games import (
    carry_out,
    hare_game,
    new_game,
    play_first_card,
    play_the_hare_game,
    wait_for_move,
)

pytestmark = [needs_chromium, pytest.mark.browser]

#: run in every page before its own scripts: the recorder and the listening socket
RECORDER = """
(() => {
  const voices = [
    {name: "Anna", lang: "de-DE", voiceURI: "Anna", default: false, localService: true},
    {name: "Kate", lang: "en-GB", voiceURI: "Kate", default: true, localService: true},
  ];
  window.spoken = [];
  window.heard = {};
  window.SpeechSynthesisUtterance = class {
    constructor(text) { Object.assign(this, {text, lang: "", rate: 1, volume: 1, voice: null}); }
  };
  const synthesis = new EventTarget();
  const queued = [];
  Object.assign(synthesis, {
    getVoices: () => voices,
    speak: (u) => {
      const voice = u.voice && u.voice.name;
      window.spoken.push({text: u.text, lang: u.lang, rate: u.rate, volume: u.volume, voice});
      queued.push(u);
      if (u.onstart) u.onstart();
    },
    // a recorded sentence is "being said" until the next change cuts it short
    cancel: () => { for (const u of queued.splice(0)) if (u.onend) u.onend(); },
  });
  Object.defineProperty(window, "speechSynthesis", {value: synthesis});
  window.sounded = 0;
  const Audio = window.AudioContext;
  window.AudioContext = class extends Audio {
    createOscillator() { window.sounded += 1; return super.createOscillator(); }
  };
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    set onmessage(take) {
      super.onmessage = (message) => {
        for (const a of JSON.parse(message.data).said || []) window.heard[a.number] = a;
        take(message);
      };
    }
    get onmessage() { return super.onmessage; }
  };
})();
"""
#: the lines and controls of the page's main part that the "tap to hear" button covers
COVERED = """() => {
  const tap = document.getElementById("hear").getBoundingClientRect();
  return [...document.querySelectorAll("main p, main button, main label")].filter((e) => {
    const box = e.getBoundingClientRect();
    return box.width && box.height && box.left < tap.right && tap.left < box.right
      && box.top < tap.bottom && tap.top < box.bottom;
  }).map((e) => e.id || e.textContent.trim());
}"""
#: a Catch the Hare cell as the referee page and records name it
CELL = re.compile(r"\b[a-e][1-5]\b")


def listening(table):
    """``table``, every page it opens from now on with the recorder installed."""
    table.context.add_init_script(RECORDER)
    return table


def allow_audio(page) -> int:
    """Tap the page's "tap to hear the table" button; the highest announcement number
    the page had heard of by then (none of those may be said)."""
    from playwright.sync_api import expect

    page.bring_to_front()
    expect(page.locator("#hear")).to_be_visible(timeout=WAIT_MS)
    covered = page.evaluate(COVERED)
    assert not covered, f"the tap to hear the table covers {covered}"
    heard = page.evaluate("() => Math.max(0, ...Object.keys(window.heard).map(Number))")
    page.click("#hear")
    expect(page.locator("#hear")).to_be_hidden()
    return heard


def check_spoken(page, since: int, meant, language: str) -> list[dict]:
    """What ``page`` said: each announcement numbered above ``since`` that ``meant``
    chooses, once, in order, in ``language``, and nothing else; no key, cell or id."""
    heard = page.evaluate("() => Object.values(window.heard)")
    spoken = page.evaluate("() => window.spoken")
    expected = [a for a in heard if a["number"] > since and meant(a)]
    assert len(spoken) == len(expected), (spoken, expected)
    keys = {a["said"]["key"] for a in heard}
    for utterance in spoken:
        text = utterance["text"]
        assert utterance["lang"].startswith(language), utterance
        assert text and text not in keys and "{" not in text, utterance
        assert not IDENTIFIER.search(text) and not CELL.search(text), utterance
        if language == "de":  # German words, not an English sentence in a German voice
            assert not ENGLISH.search(text), utterance
    return spoken


def said_for(page, since: int, meant) -> list[dict]:
    """The announcements numbered above ``since`` that ``meant`` chooses, as ``page``
    heard them, in order."""
    heard = page.evaluate("() => Object.values(window.heard)")
    return sorted((a for a in heard if a["number"] > since and meant(a)),
                  key=lambda a: a["number"])


def keys_of(announcements: list[dict]) -> list[str]:
    return [a["said"]["key"] for a in announcements]


def card_ids(phone) -> list[str]:
    """The cards in the hand ``phone`` shows ("red7", "blue_blank")."""
    return phone.eval_on_selector_all(".hand-card", "cards => cards.map(c => c.dataset.card)")


def said_as(card: str) -> str:
    """A card as an English page says it ("red 7", "blue blank")."""
    colour, value = re.fullmatch(r"([a-z]+?)_?(blank|\d+)", card).groups()
    return f"{colour} {value}"


def hands(phones) -> list[str]:
    """Every card the ``phones`` hold, as a page says it."""
    return [said_as(card) for phone in phones for card in card_ids(phone)]


def next_ply(page, after: int) -> int:
    """How far the game on ``page`` is, once past ``after`` plies or over (the
    computer may play more than one ply meanwhile)."""
    page.wait_for_function(
        """after => Number(document.body.dataset.plies) > after
                    || !document.getElementById("outcome").hidden""",
        arg=after,
        timeout=WAIT_MS,
    )
    return int(page.locator("body").get_attribute("data-plies"))


def play_catch_the_hare_with_a_refusal(table, sim) -> None:
    """The hare game of test_play_games on the virtual board, after a hunter set where
    it may not go (refused) and put back."""
    from playwright.sync_api import expect

    carry_out(sim, ("b2", "d4"))
    expect(sim.locator('#message[data-kind="error"]')).to_have_count(1, timeout=WAIT_MS)
    carry_out(sim, ("d4", "b2"))
    expect(sim.locator('#message[data-kind="error"]')).to_have_count(0, timeout=WAIT_MS)
    play_the_hare_game(table, sim, hare_game())
    for page in table.pages.values():
        expect(page.locator("#outcome")).to_be_visible(timeout=WAIT_MS)


def test_catch_the_hare_in_german_is_said_once_on_the_kiosk_and_the_phones(people):
    """The kiosk says the table's announcements after its tap; the hare's phone, its
    box "table too" ticked, says them as well as its own; the hunters' phone only its
    own. A reload says nothing again."""
    from playwright.sync_api import expect

    table = listening(people("catch_the_hare", 2, "de"))
    sim = table.open("sim", "/sim")
    kiosk = table.open("table", "/table")
    hunters, hare = (table.join(seat) for seat in range(2))
    since = {page: allow_audio(page) for page in (kiosk, hunters, hare)}
    hare.click("#table-too")  # a tap, so after the one that allowed audio
    expect(hare.locator("#table-too")).to_be_checked()
    play_catch_the_hare_with_a_refusal(table, sim)
    table.check()
    table.shoot("spoken")
    to_table = lambda a: a["to"] is None  # noqa: E731
    said = check_spoken(kiosk, since[kiosk], to_table, "de")
    check_spoken(hunters, since[hunters], lambda a: a["to"] == 0, "de")
    check_spoken(hare, since[hare], lambda a: a["to"] in (None, 1), "de")
    assert said, "the kiosk said nothing through a whole game"
    assert kiosk.evaluate("() => window.sounded"), "the kiosk played no sound"
    assert {u["voice"] for u in said} == {"Anna"}
    # every turn after the first (said before the taps), the refusal, the end once, last
    moves = hare_game()
    table_said = said_for(kiosk, since[kiosk], to_table)
    assert keys_of(table_said).count("to_move") >= len(moves) - 1, keys_of(table_said)
    assert [a["sound"] for a in table_said].count("refused") >= 1, table_said
    assert [a["sound"] for a in table_said].count("over") == 1, table_said
    assert table_said[-1]["said"]["key"] == "winner", table_said[-1]
    for phone, seat in ((hunters, 0), (hare, 1)):
        own = keys_of(said_for(phone, since[phone], lambda a, s=seat: a["to"] == s))
        turns = sum(1 for ply, _ in enumerate(moves) if ply % 2 == seat) - (seat == 0)
        assert own.count("your_turn") >= turns, (seat, own)
    # a reload finds the game's announcements said already
    kiosk.reload()
    kiosk.wait_for_selector("#turn:not(:empty)", timeout=WAIT_MS)
    kiosk.click("#hear")
    expect(kiosk.locator("#outcome")).to_be_visible(timeout=WAIT_MS)
    assert kiosk.evaluate("() => window.spoken") == []


def test_the_card_game_in_english_never_says_a_hand(people):
    """Two phones and the computer play the card game; the kiosk and seat 0's phone
    say what is meant for them, each turn's prompt and the end once, and never a card
    then in a hand: not seat 1's, nor seat 0's own."""
    from playwright.sync_api import expect

    table = listening(people("fang_den_hut_cards", 3, "en"))
    kiosk = table.open("table", "/table")
    since = {kiosk: allow_audio(kiosk)}  # before the new game's tap would allow it
    new_game(kiosk, {"single_game": True}, computer=(2,))
    phones = [table.join(seat) for seat in range(2)]
    since[phones[0]] = allow_audio(phones[0])
    kiosk.click("#draw")
    hidden = []  # the text of every card either phone held, with how much had been said then
    over = kiosk.locator("#outcome")
    for _ in range(40):
        plies = next_ply(kiosk, -1)
        if over.is_visible():
            break
        for phone in phones:
            next_ply(phone, plies - 1)
        held = hands(phones)
        said = [len(p.evaluate("() => window.spoken")) for p in (kiosk, phones[0])]
        hidden.append((held, said))
        movers = [p for p in phones if p.locator('body[data-yours="yes"]').count()]
        if movers and not over.is_visible():  # else the computer plays by itself
            play_first_card(movers[0])
        next_ply(kiosk, plies)
    expect(kiosk.locator("#outcome")).to_be_visible(timeout=WAIT_MS)
    spoken = [
        check_spoken(kiosk, since[kiosk], lambda a: a["to"] is None, "en"),
        check_spoken(phones[0], since[phones[0]], lambda a: a["to"] == 0, "en"),
    ]
    table_said = said_for(kiosk, since[kiosk], lambda a: a["to"] is None)
    assert [a["sound"] for a in table_said].count("over") == 1, table_said
    assert table_said[-1]["said"]["key"] in ("winner", "draw_game"), table_said[-1]
    assert "to_move" in keys_of(table_said), keys_of(table_said)
    assert "your_turn" in keys_of(said_for(phones[0], since[phones[0]], lambda a: a["to"] == 0))
    # each card is in the deck once: one held before and after a sentence was hidden
    # while it was said
    last = hands(phones)
    for (held, counts), (still, later) in zip(hidden, [*hidden[1:], (last, map(len, spoken))]):
        for page_spoken, start, end in zip(spoken, counts, later):
            for utterance in page_spoken[start:end]:
                shown = [card for card in set(held) & set(still)
                         if re.search(rf"\b{card}\b", utterance["text"])]
                assert not shown, (utterance, held)


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_referee_sets_how_the_table_speaks(people, language):
    """The referee page's speech settings, every outlet in the page's language, with
    the Pi's engine; its "try it" says a sample on that page in its language."""
    from playwright.sync_api import expect

    table = listening(people("catch_the_hare", 2, language))
    referee = table.open("referee", "/referee")
    referee.fill("#pin", PIN)
    referee.click("#login")
    open_section(referee, "speech-settings")
    outlets = referee.locator("#speech-outlets fieldset")
    expect(outlets).to_have_count(3, timeout=WAIT_MS)
    expect(referee.locator("#speech-pi-engine")).to_contain_text("espeak-ng")
    expect(referee.locator("#speech-kiosk-on")).to_be_checked()
    expect(referee.locator("#speech-pi-on")).not_to_be_checked()
    referee.click("#speech-kiosk-test")
    (sample,) = referee.evaluate("() => window.spoken")
    assert sample["lang"].startswith(language) and "{" not in sample["text"], sample
    table.check()
    if SHOTS is not None:
        for label, size in (("phone", PHONE), ("kiosk", KIOSK)):
            referee.set_viewport_size(size)
            referee.locator("#speech-settings").scroll_into_view_if_needed()
            shot = SHOTS / f"speech-settings-{language}-{label}.png"
            referee.locator("#speech-settings").screenshot(path=shot)


def test_a_table_muted_on_the_referee_page_is_silent_but_still_sounds(people):
    """The referee turns the table screen's speech off: the kiosk says nothing of the
    next turns, and still plays their sounds."""
    import httpx
    from playwright.sync_api import expect

    table = listening(people("catch_the_hare", 2, "en"))
    if httpx.post(f"{table.url}/api/speech", json={}).status_code == 404:
        pytest.skip("this service has no speech settings (POST /api/speech)")
    sim = table.open("sim", "/sim")
    kiosk = table.open("table", "/table")
    referee = table.open("referee", "/referee")
    referee.fill("#pin", PIN)
    referee.click("#login")
    open_section(referee, "speech-settings")
    referee.click("#speech-kiosk-on")
    expect(referee.locator("#speech-kiosk-on")).not_to_be_checked(timeout=WAIT_MS)
    allow_audio(kiosk)
    for move in hare_game()[:2]:
        carry_out(sim, move.path)
        wait_for_move(kiosk, move)
    expect(kiosk.locator("#turn")).to_contain_text("hunters", timeout=WAIT_MS)
    assert kiosk.evaluate("() => window.spoken") == []
    assert kiosk.evaluate("() => window.sounded")


def test_a_page_reloaded_mid_game_says_nothing_twice_then_the_next_move_once(people):
    """Two moves in, the kiosk and the hare's phone are reloaded: after a tap they say
    nothing of what was said before, then each says the next move's announcements for
    it once. A spectator's page, tapped too, says nothing and plays no sound."""
    from playwright.sync_api import expect

    table = listening(people("catch_the_hare", 2, "en"))
    sim = table.open("sim", "/sim")
    kiosk = table.open("table", "/table")
    hare = table.join(1)
    watching = table.open("watch", "/watch")
    for page in (kiosk, hare):
        allow_audio(page)
    watching.click("#turn")  # a tap, as it would allow a speaking page's audio
    first, second, third = hare_game()[:3]
    for move in (first, second):
        carry_out(sim, move.path)
        wait_for_move(kiosk, move)
    assert kiosk.evaluate("() => window.spoken"), "the kiosk said nothing of two moves"
    since = {}
    for page in (kiosk, hare):
        page.reload()
        page.wait_for_selector("#turn:not(:empty)", timeout=WAIT_MS)
        since[page] = allow_audio(page)
        assert page.evaluate("() => window.spoken") == []
    carry_out(sim, third.path)
    wait_for_move(kiosk, third)
    expect(hare.locator('body[data-yours="yes"]')).to_have_count(1, timeout=WAIT_MS)
    to_table = check_spoken(kiosk, since[kiosk], lambda a: a["to"] is None, "en")
    to_hare = check_spoken(hare, since[hare], lambda a: a["to"] == 1, "en")
    assert to_table and to_hare, (to_table, to_hare)
    assert "to_move" in keys_of(said_for(kiosk, since[kiosk], lambda a: a["to"] is None))
    assert keys_of(said_for(hare, since[hare], lambda a: a["to"] == 1)) == ["your_turn"]
    assert watching.evaluate("() => window.spoken") == []
    assert watching.evaluate("() => window.sounded") == 0
    table.check()


def test_reduced_motion_stills_the_turn_line_but_not_the_voice(people):
    """On a device that asks for reduced motion, and at the kiosk's own address on any
    device, the turn line does not pulse while the table speaks; the table still speaks
    and sounds (they are not motion). Beside them, a table page that is not asked
    pulses."""
    table = listening(people("catch_the_hare", 2, "en"))
    sim = table.open("sim", "/sim")
    pulsing = table.open("table", "/table")
    calm = table.open("calm table", "/table")
    kiosk = table.open("kiosk", KIOSK_PAGE)
    # (the tests' browser asks for reduced motion unless told otherwise)
    for page in (pulsing, kiosk):
        page.emulate_media(reduced_motion="no-preference")
    calm.emulate_media(reduced_motion="reduce")
    for page in (pulsing, calm, kiosk):
        allow_audio(page)
    move = hare_game()[0]
    carry_out(sim, move.path)
    pulse = "() => getComputedStyle(document.getElementById('turn')).animationName"
    for page, animation in ((pulsing, "speaking"), (calm, "none"), (kiosk, "none")):
        wait_for_move(page, move)
        page.wait_for_selector('body[data-speaking="yes"]', timeout=WAIT_MS)
        assert page.evaluate("() => window.spoken"), "a kiosk said nothing of a move"
        assert page.evaluate("() => window.sounded"), "a kiosk played no sound"
        assert page.evaluate(pulse) == animation
    table.check()
