"""The panel's fan-out to one page: a burst of states (a move's piece lifted, set down,
judged) reaches the page as its first state and its newest, the newest never lost,
and a state after a quiet spell goes out at once."""

from __future__ import annotations

import asyncio

from boardref.outputs.panel.hub import Subscriber

#: far longer than a burst offered without waiting takes, even on a loaded machine
SPACING_S = 0.2


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


def test_a_burst_of_states_reaches_a_page_as_its_first_and_newest_and_a_later_state_at_once():
    async def burst() -> Page:
        page = Page()
        subscriber = Subscriber(page, None)
        subscriber.spacing = SPACING_S
        pump = asyncio.create_task(subscriber.pump())
        for n in range(10):  # each state offered on a turn of the loop of its own
            subscriber.offer(str(n))
            await _turns()
        await asyncio.sleep(SPACING_S * 1.5)
        assert page.texts() == ["0", "9"]
        first, newest = (when for when, _ in page.sent)
        assert newest - first >= SPACING_S * 0.99
        await asyncio.sleep(SPACING_S)  # quiet: the next state is not held back
        offered = asyncio.get_running_loop().time()
        subscriber.offer("10")
        await _turns()
        assert page.texts()[-1] == "10"
        assert page.sent[-1][0] - offered < SPACING_S / 2
        pump.cancel()
        return page

    asyncio.run(burst())


def test_a_state_that_shows_a_page_nothing_new_is_not_sent_to_it():
    async def offers() -> Page:
        page = Page()
        subscriber = Subscriber(page, None)
        subscriber.spacing = 0.0
        pump = asyncio.create_task(subscriber.pump())
        for text, shown in [("a1", "a"), ("a2", "a"), ("b3", "b"), ("a4", "a"), ("a5", "a")]:
            subscriber.offer(text, shown)
            await _turns()
        pump.cancel()
        return page

    assert asyncio.run(offers()).texts() == ["a1", "b3", "a4"]
