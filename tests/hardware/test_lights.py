"""The cell-light plan: each role lands on its LED, overlapping roles follow the
documented precedence, and a bad palette is refused with a message naming the entry."""

import doctest

import pytest

import hardware.lights
from hardware import datafiles
from hardware.lights import ROLES, CellLights, Highlights, Palette

CELLS = ("a1", "a2", "a3", "a4", "a5")
PALETTE = Palette.load()


def highlight(role: str, cell: str) -> dict:
    """Highlights arguments that give ``cell`` the cell-LED ``role``."""
    return {
        "last_move": {"last_move": (cell,)},
        "destination": {"destinations": frozenset({cell})},
        "lifted": {"lifted": cell},
        "error": {"errors": frozenset({cell})},
        "place": {"place": cell},
        "remove": {"remove": cell},
    }[role]


def led(frame: bytes, index: int) -> tuple[int, int, int]:
    return tuple(frame[3 * index : 3 * index + 3])


def test_module_examples_run():
    assert doctest.testmod(hardware.lights).failed == 0


def test_a_board_with_nothing_to_say_is_dark():
    frame = CellLights(CELLS, PALETTE).frame(Highlights())
    assert frame == bytes(3 * len(CELLS))


@pytest.mark.parametrize("role", ROLES)
def test_each_role_lights_its_cell_and_nothing_else(role):
    frame = CellLights(CELLS, PALETTE).frame(Highlights(**highlight(role, "a3")))
    assert led(frame, 2) == PALETTE.cells[role]
    assert [led(frame, i) for i in (0, 1, 3, 4)] == [(0, 0, 0)] * 4


def test_the_last_move_lights_every_cell_of_its_path():
    frame = CellLights(CELLS, PALETTE).frame(Highlights(last_move=("a1", "a3", "a5")))
    colour = PALETTE.cells["last_move"]
    assert [led(frame, i) for i in range(5)] == [colour, (0, 0, 0), colour, (0, 0, 0), colour]


def test_led_order_follows_the_cell_list_not_the_names():
    frame = CellLights(("a5", "a1", "a3"), PALETTE).frame(Highlights(lifted="a1"))
    assert led(frame, 1) == PALETTE.cells["lifted"]


@pytest.mark.parametrize(
    ("lower", "higher"),
    [(low, high) for i, low in enumerate(ROLES) for high in ROLES[i + 1 :]],
)
def test_the_higher_role_shows_where_two_roles_meet(lower, higher):
    frame = CellLights(CELLS, PALETTE).frame(
        Highlights(**highlight(lower, "a2"), **highlight(higher, "a2"))
    )
    assert led(frame, 1) == PALETTE.cells[higher]


def test_guidance_beats_errors_beats_the_lifted_piece_beats_destinations_beats_history():
    assert ROLES == ("last_move", "destination", "lifted", "error", "place", "remove")


def test_the_seat_to_move_glows_dimly_where_no_role_shows():
    frame = CellLights(CELLS, PALETTE).frame(Highlights(lifted="a1", turn_colour="blue"))
    glow = tuple(round(c * PALETTE.turn_level) for c in PALETTE.colour("blue"))
    assert glow != (0, 0, 0)
    assert led(frame, 0) == PALETTE.cells["lifted"]
    assert [led(frame, i) for i in range(1, 5)] == [glow] * 4


def test_turn_colours_do_not_leak_into_each_other():
    lights = CellLights(CELLS, PALETTE)
    red = lights.frame(Highlights(turn_colour="red"))
    green = lights.frame(Highlights(turn_colour="green"))
    assert red != green
    assert lights.frame(Highlights(turn_colour="red")) == red
    assert lights.frame(Highlights()) == bytes(15)


def test_leds_on_no_cell_stay_dark_and_cells_without_leds_are_skipped():
    lights = CellLights(("a1", None, "a2"), PALETTE)
    frame = lights.frame(Highlights(errors=frozenset({"a2", "z9"}), turn_colour="white"))
    assert len(frame) == 9
    assert led(frame, 1) == (0, 0, 0)
    assert led(frame, 2) == PALETTE.cells["error"]


def test_a_cell_with_two_leds_is_refused():
    with pytest.raises(ValueError, match="more than one LED: a2"):
        CellLights(("a1", "a2", "a2"), PALETTE)


def test_an_unknown_turn_colour_is_refused_naming_the_known_ones():
    lights = CellLights(CELLS, PALETTE)
    with pytest.raises(ValueError, match=r"no colour named 'mauve'.*known: .*red"):
        lights.frame(Highlights(turn_colour="mauve"))


def test_overrides_recolour_roles_and_add_colour_names():
    palette = Palette.load({"cells": {"error": [1, 2, 3]}, "colours": {"hare": [4, 5, 6]}})
    assert palette.cells["error"] == (1, 2, 3)
    assert palette.colour("hare") == (4, 5, 6)
    assert palette.colour("red") == PALETTE.colour("red")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"cells": {"destinaton": [0, 0, 255]}}, r"cells\.destinaton: no such entry"),
        ({"cels": {}}, r"'cels': no such table"),
        ({"cells": [1, 2, 3]}, r"cells = \[1, 2, 3\]: expected a table"),
        ({"colours": {"red": [300, 0, 0]}}, r"colours\.red = \[300, 0, 0\]: expected \[r, g, b\]"),
        ({"colours": {"red": "#ff0000"}}, r"colours\.red = '#ff0000'"),
        ({"colours": {"red": [255, 0]}}, r"colours\.red = \[255, 0\]"),
        ({"colours": {"red": [1.5, 0, 0]}}, r"colours\.red"),
        ({"turn": {"level": 2}}, r"turn\.level = 2: expected a number 0\.\.1"),
    ],
)
def test_a_bad_override_is_refused_naming_the_entry(overrides, message):
    with pytest.raises(ValueError, match=message):
        Palette.load(overrides)


def test_a_palette_file_that_is_not_toml_is_refused_naming_the_file():
    with pytest.raises(ValueError, match="palette.toml is not valid TOML"):
        datafiles.parse("palette.toml", "[cells\nerror = [255, 0, 0]")


def test_a_palette_file_missing_a_role_is_refused_naming_the_roles():
    tables = datafiles.load("palette.toml")
    del tables["cells"]["lifted"]
    with pytest.raises(ValueError, match="must give exactly the roles"):
        Palette.from_tables(tables, "palette.toml")


def test_a_palette_file_missing_a_table_is_refused():
    tables = datafiles.parse("palette.toml", "[cells]\n[status]\n[colours]\n")
    with pytest.raises(ValueError, match="missing tables turn"):
        Palette.from_tables(tables, "palette.toml")


def test_a_full_star_frame_is_three_bytes_per_hole():
    cells = [f"h{i}" for i in range(121)]
    frame = CellLights(cells, PALETTE).frame(
        Highlights(destinations=frozenset(cells[:6]), last_move=tuple(cells[10:14]))
    )
    assert isinstance(frame, bytes)
    assert len(frame) == 363
