"""A kiosk table with a computer seat: the service thinks off the event loop,
announces the move, and the referee takes only that move."""

from __future__ import annotations

import asyncio

import pytest

from boardref.referee.verdicts import RefereeError
from boardref.runtime.config import load_config
from boardref.runtime.service import Service


def test_the_computer_announces_its_move_and_only_that_move_is_accepted(tmp_path):
    config = load_config(
        **{
            "store.path": tmp_path / "cpu.db",
            "game.name": "catch_the_hare",
            "game.computer": [1],
            "game.level": "easy",
        }
    )

    async def scenario():
        service = Service(config, asyncio.get_running_loop())
        referee = service.referee
        try:
            referee.play("a3-a4")  # the guest plays the hunters
            service.computer.act(referee)
            assert service.computer.acting is not None, "the hare's seat is the computer's"
            await service.computer.acting
            expected = referee.published.expected
            assert expected and referee.published.notice.key == "referee.computer_moves"
            assert referee.published.notice.params["seconds"] >= 0, "pages say how long it thought"
            others = [str(m) for m in referee.game.legal_moves(referee.positions[-1])]
            wrong = next(
                m
                for m in others
                if referee.game.apply(
                    referee.positions[-1], referee.game.parse_move(referee.positions[-1], m)
                )
                != referee.expected[1]
            )
            with pytest.raises(RefereeError, match="computer's move"):
                referee.play(wrong)
            referee.play(expected)
            assert referee.log[-1][1]["move"] == expected
            service.computer.act(referee)
            assert service.computer.acting is None, "now the guest is to move"
        finally:
            service.close()

    asyncio.run(scenario())


def test_computer_seats_survive_a_restart(tmp_path):
    config = load_config(
        **{"store.path": tmp_path / "cpu.db", "game.name": "catch_the_hare", "game.computer": [1]}
    )
    first = Service(config, asyncio.new_event_loop())
    first.close()
    again = Service(config, asyncio.new_event_loop())
    try:
        assert again.referee.computer == {1}
    finally:
        again.close()
