"""The service touches the referee on its referee thread: moves handed over by the
board while a verdict is under way are judged after it, a page's command given
meanwhile acts after it, and every output hears the verdicts on the loop, in the
order they were given, nothing lost or reordered."""

from __future__ import annotations

import asyncio
import random
import threading
import time

import pytest

from boardref.referee.events import NewSnapshot
from boardref.referee.kinds import Sensor
from boardref.runtime import refereeing
from boardref.runtime.config import load_config
from tests.boardref.conftest import started

MOVES = 40


@pytest.fixture
def hare_table(tmp_path):
    """A Catch the Hare table with an unplugged board: readings are handed over as
    the board's thread hands them."""
    config = load_config(
        **{
            "store.path": tmp_path / "log.db",
            "game.name": "catch_the_hare",
            "sensors.hall": {"device": str(tmp_path / "unplugged-pico")},
            "sensors.settle_ms": 20,
        }
    )
    service = started(config)
    yield service
    service.close()
    service._loop.close()


def hand_over(service, state) -> None:
    """As the board's thread does: the reading of ``state``, settled a second ago."""
    reading = service.referee.game.sense(state, Sensor.PRESENCE)
    service._soon(service.referee.sense, reading, time.monotonic() - 1)


def referee_until(service, done: asyncio.Event) -> None:
    """Run the service's referee loop until ``done``."""

    async def refereeing() -> None:
        stop = asyncio.Event()
        running = asyncio.create_task(service.clock.run(stop))
        async with asyncio.timeout(120):  # a hang, not a timing
            await done.wait()
        stop.set()
        service._wake.set()
        await running

    service._loop.run_until_complete(refereeing())


def planned_game(service, moves: int) -> list:
    """Positions of a random game from the table's start, ``moves`` moves or fewer."""
    game, pick = service.referee.game, random.Random(43)
    states = [service.referee.current()]
    while len(states) <= moves and game.outcome(states[-1]) is None:
        states.append(game.apply(states[-1], pick.choice(game.legal_moves(states[-1]))))
    return states


def test_moves_handed_over_during_verdicts_are_judged_and_told_in_order(hare_table):
    service = hare_table
    referee, game = service.referee, service.referee.game
    states = planned_game(service, MOVES)
    heard: list = []
    told_on: set[int] = set()
    done = asyncio.Event()

    def listener(event) -> None:
        told_on.add(threading.get_ident())
        heard.append(event)
        if event.kind == "move" and sum(e.kind == "move" for e in heard) == len(states) - 1:
            done.set()

    referee.listeners.append(listener)
    verdict = service.board.tick
    following = iter(states[1:])

    def tick_and_move_on(now: float) -> bool:
        """A verdict during which the next move is already on the board: its reading
        is handed over while this one is judged."""
        upcoming = next(following, None)
        if upcoming is not None:
            hand_over(service, upcoming)
            # the loop holds the reading back until this verdict is told
            time.sleep(0.05)
        return verdict(now)

    service.board.tick = tick_and_move_on

    hand_over(service, states[0])  # the start position laid out
    referee_until(service, done)
    moves = [e.data["move"] for e in heard if e.kind == "move"]
    assert moves == [str(m) for m in _moves_of(game, states)]
    assert told_on == {threading.get_ident()}  # every output told on the loop
    # each snapshot told after the moves it shows, none out of order
    snapshots = [e.table for e in heard if isinstance(e, NewSnapshot)]
    shown = [table.plies for table in snapshots]
    assert shown == sorted(shown) and shown[-1] == len(moves)
    assert all(t.last_played == moves[t.plies - 1] for t in snapshots if t.plies)
    logged = [data["move"] for kind, data in referee.log if kind == "move"]
    assert logged == moves


def test_a_command_given_during_a_verdict_acts_after_it(hare_table):
    """A page's takeback while the second move is judged takes back the second move."""
    service = hare_table
    referee, loop = service.referee, service._loop
    states = planned_game(service, 2)
    for state in states[:2]:  # the start laid out, then the first move
        judged = asyncio.Event()
        referee.listeners.append(lambda event, judged=judged: judged.set())
        hand_over(service, state)
        referee_until(service, judged)
    taken_back = asyncio.Event()
    verdict = service.board.tick

    def take_back() -> None:
        asking = asyncio.ensure_future(service.panel.control.takeback())
        asking.add_done_callback(lambda _: taken_back.set())

    def tick_with_a_takeback(now: float) -> bool:
        loop.call_soon_threadsafe(take_back)
        time.sleep(0.05)  # the loop takes the page's command meanwhile
        return verdict(now)

    service.board.tick = tick_with_a_takeback
    hand_over(service, states[2])
    referee_until(service, taken_back)
    kinds = [kind for kind, _ in referee.log]
    assert kinds[-3:] == ["move", "move", "takeback"]
    assert referee.current() == states[1]


def test_the_loop_goes_on_while_a_command_waits_for_a_verdict(hare_table):
    """A page's command given during a slow verdict waits its turn without holding the
    loop up: the loop's own timers fire meanwhile, and it acts after the verdict."""
    service = hare_table
    referee = service.referee
    states = planned_game(service, 1)
    laid_out = asyncio.Event()
    referee.listeners.append(lambda event: laid_out.set())
    hand_over(service, states[0])
    referee_until(service, laid_out)
    verdict = service.board.tick

    def slow_verdict(now: float) -> bool:
        time.sleep(0.3)
        return verdict(now)

    service.board.tick = slow_verdict
    beats: list[int] = []

    async def take_back_during_the_verdict() -> None:
        stop = asyncio.Event()
        running = asyncio.create_task(service.clock.run(stop))
        hand_over(service, states[1])
        async with asyncio.timeout(30):  # a hang, not a timing
            while not service.referee_thread.busy:
                await asyncio.sleep(0.001)
            asking = asyncio.ensure_future(service.panel.control.takeback())
            while not asking.done():
                beats.append(1)
                await asyncio.sleep(0.01)
            await asking
        stop.set()
        service._wake.set()
        await running

    service._loop.run_until_complete(take_back_during_the_verdict())
    assert [kind for kind, _ in referee.log][-2:] == ["move", "takeback"]
    assert referee.current() == states[0]
    assert len(beats) >= 5, "the loop stood still while the command waited"


def test_the_collector_takes_its_turn_once_a_verdict_has_been_quiet(hare_table, monkeypatch):
    service = hare_table
    states = planned_game(service, 1)
    collected: list[int] = []
    told: list[int] = []
    monkeypatch.setattr(refereeing, "QUIET_S", 0.05)
    monkeypatch.setattr(
        refereeing, "collect_while_quiet", lambda: collected.append(len(service.referee.log))
    )
    done = asyncio.Event()
    service.referee.listeners.append(lambda event: told.append(len(service.referee.log)))

    async def played_then_quiet() -> None:
        while not collected or len(collected) < 2:
            await asyncio.sleep(0.01)
        done.set()

    hand_over(service, states[0])
    service._loop.call_later(0.3, hand_over, service, states[1])
    waiting = service._loop.create_task(played_then_quiet())
    referee_until(service, done)
    service._loop.run_until_complete(waiting)
    # once after the start was laid out, once after the move was logged
    assert collected == [0, 1] and told[-1] == 1


def _moves_of(game, states) -> list:
    return [
        next(m for m in game.legal_moves(a) if game.apply(a, m) == b)
        for a, b in zip(states, states[1:])
    ]
