"""Who starts a rematch: the next seat where the table chooses who starts, else the
players change sides; a computer seat moves with its side."""

from __future__ import annotations

import pytest

from boardref.outputs.panel.rotation import next_seating
from engines import load_game


@pytest.mark.parametrize(
    ("name", "players", "options"),
    [
        ("fang_den_hut_cards", 4, {"first_seat": 3}),
        ("fang_den_hut_cards", 3, {"single_game": True}),
        ("sternhalma", 6, {}),
        ("hakenschlagen", 2, {"first_seat": 1}),
        ("haegar", 3, {}),
        ("fang_den_hut", 4, {}),
    ],
)
def test_where_the_table_chooses_the_next_seat_starts_and_nobody_moves(name, players, options):
    game = load_game(name, players, **options)
    first = game.options["first_seat"]
    seating = next_seating(game, [1])
    following = (first + 1) % players
    assert seating.options == {**game.options, "first_seat": following}
    assert seating.starter == following and not seating.sides_change
    assert seating.moved == tuple(range(players)) and seating.computer == (1,)
    # the rematch the seating describes is a game its engine takes
    assert load_game(name, players, **seating.options).options["first_seat"] == following


def test_a_solo_game_starts_with_its_one_seat():
    seating = next_seating(load_game("haegar", 1), [])
    assert seating.options["first_seat"] == 0 and seating.starter == 0


@pytest.mark.parametrize("computer", [[], [0], [1]])
def test_in_catch_the_hare_the_players_and_the_computer_change_sides(computer):
    game = load_game("catch_the_hare", hunters=11)
    seating = next_seating(game, computer)
    assert seating.options == game.options  # the variant stays
    assert seating.moved == (1, 0) and seating.sides_change
    assert seating.starter == 1  # the hare's player hunts, and hunters start
    assert seating.computer == tuple(1 - seat for seat in computer)
