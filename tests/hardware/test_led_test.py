"""The LED test's frames go through the wiring, and the strip's order is said."""

import pytest

from hardware.led_test import frame, strip_order, walk

CELLS = ["a1", "b1", "c1"]


def test_a_cell_lights_the_led_the_wiring_puts_under_it():
    reversed_strip = list(reversed(CELLS))
    assert frame(reversed_strip, ["a1"], "red") == bytes(6) + b"\xff\x00\x00"
    assert frame(CELLS, CELLS, "blue") == b"\x00\x00\xff" * 3


def test_walk_lights_every_cell_in_cell_order_whatever_the_strip():
    steps = list(walk(["c1", None, "a1", "b1"], CELLS))
    assert [cell for cell, _ in steps] == CELLS
    assert steps[0][1] == bytes(6) + b"\xff\xff\xff" + bytes(3)


def test_strip_order_is_said_in_words():
    assert str(strip_order(CELLS, CELLS)) == "The strip runs in the board's cell order"
    assert str(strip_order(CELLS[::-1], CELLS)).startswith("The strip runs against")
    assert str(strip_order(["b1", "a1", "c1"], CELLS)).startswith("The strip runs in an order")
    assert "No LED sits under 1 cell (first: c1)" in str(strip_order(["a1", "b1", None], CELLS))


def test_unknown_colour_or_cell_is_refused_in_words():
    with pytest.raises(ValueError, match="choose one of red, green, blue, white"):
        frame(CELLS, ["a1"], "pink")
    with pytest.raises(ValueError, match="no LED sits under zz"):
        frame(CELLS, ["zz"])
