"""The computer's seats at a table. When one is to move, the computer thinks in a
worker thread (positions are immutable), its level's playouts however long that
takes (seconds on a Pi), and announces its move back on the event loop with how long
it thought; at a board a guest carries it out. In a game with no board, read on the panel
alone (the card game, Hägar entered on the panel), it also makes the move itself,
after a pause so the players see what it plays. It draws for its seats in every
game, after the same pause: dice, marbles and coasters are drawn on the panel.

It decides nothing: every move and draw goes through the referee, which checks it
like any other, and a takeback, new game or correction in between wins. What it does
to the referee is handed to ``on_referee`` (the service's referee thread, in turn
with every other command); it never touches the referee while it thinks.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from boardref.referee.verdicts import RefereeError
from engines import RulesError

if TYPE_CHECKING:
    from boardref.referee.referee import Referee

log = logging.getLogger("boardref")


class ComputerSeats:
    """Acts for the referee's computer seats, one act at a time; ``woken`` is called
    when an act has ended, so the service looks again. A move or draw the computer
    makes itself is shown for ``showing_s`` before it is made."""

    def __init__(
        self,
        woken: Callable[[], None],
        showing_s: float = 1.5,
        on_referee: Callable[..., Awaitable[Any]] | None = None,
    ):
        self.woken = woken
        self.showing_s = showing_s
        #: ``on_referee(work, *args)`` does ``work(*args)`` on the referee and answers
        #: its result: a service hands it to the referee's thread, in turn
        self.on_referee = on_referee or _at_once
        #: the act under way (thinking, or a pause before a move or draw), if any
        self.acting: asyncio.Future | None = None

    def act(self, referee: Referee) -> None:
        """Start what a computer seat is to do now, if anything and nothing else is
        under way."""
        if self.acting is not None:
            return
        if referee.computer_to_draw():
            self.acting = asyncio.ensure_future(self._draw(referee))
        elif referee.computer_to_move():
            self.acting = asyncio.ensure_future(self._move(referee))

    async def _move(self, referee: Referee) -> None:
        from engines.players import computer_move  # the search, needed only by kiosks

        try:
            game, state = referee.match.rules, referee.positions[-1]
            started = time.monotonic()
            move = await asyncio.to_thread(computer_move, game, state, referee.level)
            thought_s = time.monotonic() - started
            if await self.on_referee(_expect, referee, game, state, str(move), thought_s):
                await asyncio.sleep(self.showing_s)
                await self.on_referee(_play_expected, referee, state)
        except (RefereeError, RulesError) as exc:
            log.warning("the computer's move was not made: %s", exc)
        finally:
            self._done()

    async def _draw(self, referee: Referee) -> None:
        state = referee.positions[-1]
        try:
            await asyncio.sleep(self.showing_s)
            await self.on_referee(_draw, referee, state)
        except RefereeError as exc:
            log.warning("the computer's draw was not made: %s", exc)
        finally:
            self._done()

    def _done(self) -> None:
        self.acting = None
        self.woken()


def _expect(referee: Referee, game: Any, state: Any, move: str, thought_s: float) -> bool:
    """Announce the computer's ``move`` from ``state`` if the table is still there;
    True if the computer also makes it (after a pause)."""
    if referee.game is not game or referee.positions[-1] != state:
        return False
    if not referee.computer_to_move():
        return False
    referee.expect(move, thought_s)
    return referee.computer_moves_itself()


def _play_expected(referee: Referee, state: Any) -> None:
    """Make the move announced from ``state``, unless something came between."""
    if referee.positions[-1] == state and referee.expected is not None:
        referee.play(str(referee.expected[0]))


def _draw(referee: Referee, state: Any) -> None:
    """Draw for the computer's seat, unless something came between."""
    if referee.positions[-1] == state and referee.computer_to_draw():
        referee.draw()


async def _at_once(work: Callable[..., Any], *args: Any) -> Any:
    """Do ``work`` now: a referee touched on the loop alone."""
    return work(*args)
