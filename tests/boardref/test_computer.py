"""A kiosk table with a computer seat: the service thinks off the event loop,
announces the move, and the referee takes only that move."""

from __future__ import annotations

import asyncio
import random

import pytest

from boardref.config import load_config
from boardref.referee import RefereeError
from boardref.service import Service


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
        service = Service(config)
        service.start(asyncio.get_running_loop())
        referee = service.referee
        try:
            referee.play("a3-a4")  # the guest plays the hunters
            service.computer.act(referee)
            assert service.computer.acting is not None, "the hare's seat is the computer's"
            await service.computer.acting
            expected = referee.published.expected
            assert expected and referee.published.notice.key == "referee.computer_moves"
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
    first = Service(config)
    first.start(asyncio.new_event_loop())
    first.close()
    again = Service(config)
    again.start(asyncio.new_event_loop())
    try:
        assert again.referee.computer == {1}
    finally:
        again.close()


#: games with no board, read on the panel alone, each with a mix of seats
NO_BOARD = [
    ("fang_den_hut_cards", 3, [2]),
    ("fang_den_hut_cards", 2, [0, 1]),
    ("fang_den_hut_cards", 5, [0, 2, 4]),
    ("haegar", 1, [0]),
    ("haegar", 2, [1]),
    ("haegar", 3, [0, 2]),
]


@pytest.mark.parametrize(("game", "players", "computer"), NO_BOARD)
def test_a_game_with_no_board_ends_with_nobody_acting_for_the_computer(
    tmp_path, monkeypatch, game, players, computer
):
    """The computer's seats draw and move by themselves (there is nothing to carry a
    move out on, and nobody to tap it): the people play their own seats alone."""
    import boardref.computer_seats

    monkeypatch.setattr(boardref.computer_seats, "SHOWING_S", 0.0)
    monkeypatch.setattr(boardref.computer_seats, "THINKING_S", 0.01)
    config = load_config(
        **{
            "store.path": tmp_path / "cpu.db",
            "game.name": game,
            "game.players": players,
            "game.computer": computer,
            "game.level": "easy",
        }
    )
    pick = random.Random(players)

    async def scenario():
        service = Service(config)
        service.start(asyncio.get_running_loop())
        referee = service.referee
        computer_moves = 0
        try:
            for _ in range(5000):
                if referee.phase == "over":
                    break
                game, state = referee.game, referee.positions[-1]
                if referee.computer_to_draw() or referee.computer_to_move():
                    acted = len(referee.log)
                    service.computer.act(referee)
                    await service.computer.acting
                    assert len(referee.log) > acted, f"the computer did not act: {referee.phase}"
                    assert referee.published.notice is None or (
                        referee.published.notice.key != "referee.computer_moves"
                    ), "told to carry out on a board there is not"
                    computer_moves += 1
                elif referee.phase == "chance":
                    assert game.drawer(state) not in referee.computer
                    referee.draw()  # a person's draw
                else:
                    assert game.to_move(state) not in referee.computer
                    referee.play(str(pick.choice(game.legal_moves(state))))
            assert referee.phase == "over", "the game did not end"
            assert computer_moves > 0
        finally:
            service.close()

    asyncio.run(scenario())
