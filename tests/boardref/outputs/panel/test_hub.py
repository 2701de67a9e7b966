"""The panel's fan-out to one page: a burst of states (a move's piece lifted, set down,
judged; the marbles drawn and the unseen moves found) reaches the page as its newest
once gathered, then spaced, the newest never lost; the state a page connects to goes
out at once."""

from __future__ import annotations

import asyncio

from boardref.outputs.panel.hub import Subscriber

#: far longer than a burst offered without waiting takes, even on a loaded machine
GATHER_S = 0.1
SPACING_S = 0.3


class Page:
    """A page's socket: the texts sent to it, with when they were sent."""

    def __init__(self):
        self.sent: list[tuple[float, str]] = []

    async def send_text(self, text: str) -> None:
        self.sent.append((asyncio.get_running_loop().time(), text))

    def texts(self) -> list[str]:
        return [text for _, text in self.sent]


async def _turns(times: int = 5) -> None:
    """Let the page's pump run, as the event loop does between two states."""
    for _ in range(times):
        await asyncio.sleep(0)


def test_states_a_step_publishes_one_after_another_reach_a_page_as_one():
    """The marbles drawn, then the moves the board cannot feel found a few
    milliseconds later: after a quiet spell the page is sent the newest alone, once
    the gathering wait has passed."""

    async def step() -> tuple[Page, float]:
        page = Page()
        subscriber = Subscriber(page, None)
        subscriber.gather, subscriber.spacing = GATHER_S, SPACING_S
        pump = asyncio.create_task(subscriber.pump())
        await _turns()  # the page is connected and quiet
        offered = asyncio.get_running_loop().time()
        subscriber.offer("drawn")
        await _turns()
        subscriber.offer("drawn, unseen moves found")
        await _turns()
        assert page.texts() == []  # held for the rest of its burst
        await asyncio.sleep(GATHER_S * 1.5)
        pump.cancel()
        return page, offered

    page, offered = asyncio.run(step())
    assert page.texts() == ["drawn, unseen moves found"]
    assert page.sent[0][0] - offered >= GATHER_S * 0.99


def test_a_burst_of_states_reaches_a_page_as_its_newest_gathered_then_spaced():
    async def burst() -> Page:
        page = Page()
        subscriber = Subscriber(page, None)
        subscriber.gather, subscriber.spacing = GATHER_S, SPACING_S
        pump = asyncio.create_task(subscriber.pump())
        await _turns()  # the page is connected and quiet
        for n in range(3):  # each state offered on a turn of the loop of its own
            subscriber.offer(str(n))
            await _turns()
        await asyncio.sleep(GATHER_S * 1.5)
        assert page.texts() == ["2"]
        for n in range(3, 10):  # while the page is spaced
            subscriber.offer(str(n))
            await _turns()
        await asyncio.sleep(SPACING_S)
        assert page.texts() == ["2", "9"]
        first, newest = (when for when, _ in page.sent)
        assert newest - first >= SPACING_S * 0.99
        await asyncio.sleep(SPACING_S * 1.5)  # quiet: the next state waits the gathering alone
        offered = asyncio.get_running_loop().time()
        subscriber.offer("10")
        await asyncio.sleep(GATHER_S * 1.5)
        assert page.texts()[-1] == "10"
        assert page.sent[-1][0] - offered < SPACING_S
        pump.cancel()
        return page

    asyncio.run(burst())


def test_the_state_a_page_is_offered_as_it_connects_goes_at_once():
    async def connect() -> Page:
        page = Page()
        subscriber = Subscriber(page, None)
        subscriber.gather, subscriber.spacing = GATHER_S, SPACING_S
        subscriber.offer("first")  # as ``Hub.serve`` offers it before the pump runs
        pump = asyncio.create_task(subscriber.pump())
        await _turns()
        pump.cancel()
        return page

    assert asyncio.run(connect()).texts() == ["first"]


def test_a_state_that_shows_a_page_nothing_new_is_not_sent_to_it():
    async def offers() -> Page:
        page = Page()
        subscriber = Subscriber(page, None)
        subscriber.gather, subscriber.spacing = 0.0, 0.0
        pump = asyncio.create_task(subscriber.pump())
        for text, shown in [("a1", "a"), ("a2", "a"), ("b3", "b"), ("a4", "a"), ("a5", "a")]:
            subscriber.offer(text, shown)
            await _turns()
        pump.cancel()
        return page

    assert asyncio.run(offers()).texts() == ["a1", "b3", "a4"]
