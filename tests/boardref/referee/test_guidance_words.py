"""What the referee tells the players to put the pieces right by: as the table shows
them, its cell lights where it has them and they are on, else the board drawn on its
screen (a board that matches no legal move, a piece moved with the board out of step,
a confirm pressed on a board that is not the position); and, once a turn is drawn
for, that the referee page can name the move made when the board was misread."""

from __future__ import annotations

import pytest

from boardref.referee.kinds import Phase
from boardref.referee.verdicts import RefereeError
from tests.boardref.referee.test_referee import P
from tests.engines.test_sternhalma import position

LIGHTS = "as the lights show"
SCREEN = "as the board on the screen marks them"
MISREAD = "The referee page can name the move made"


def misread_sternhalma(t) -> str:
    t.lay_out_start()
    t.change(l4=None, n4=None, m9=P)
    assert "unreadable" in t.kinds()
    return t.referee.published.message


def test_a_board_with_its_lights_on_points_at_them(table):
    said = misread_sternhalma(table("sternhalma", 2))
    assert LIGHTS in said and SCREEN not in said
    # no draw holds the turn: a correction would replace the move before, not name it
    assert MISREAD not in said


def test_a_board_whose_lights_are_off_points_at_the_screen(table):
    t = table("sternhalma", 2)
    t.referee.lights(False)
    said = misread_sternhalma(t)
    assert SCREEN in said and LIGHTS not in said
    t.referee.lights(True)
    t.change(l4=P, n4=P, m9=None)  # put back
    t.change(l4=None, n4=None, m9=P)  # and misread again, the lights back on
    assert LIGHTS in t.referee.published.message


def test_a_camera_table_has_no_lights_to_point_at(table):
    t = table("sternhalma", 2)
    t.referee.use_sensor("camera")
    said = misread_sternhalma(t)
    assert SCREEN in said and LIGHTS not in said


def test_after_a_turns_draw_the_players_hear_the_referee_can_name_the_move(table):
    t = table("hakenschlagen", 3, seed=b"x")
    t.lay_out_start()
    t.referee.draw()  # the setup
    t.referee.draw()  # the first turn's draw
    assert t.referee.phase == Phase.MOVE
    start = t.referee.positions[-1]
    made = t.game.legal_moves(start)[0]
    t.show(dict(t.game.sense(t.game.apply(start, made), "presence"), a1=P, a2=P))
    said = t.referee.published.message
    assert said.startswith("The board matches no legal move") and LIGHTS in said
    assert said.endswith(MISREAD)
    assert t.referee.correction_choices()["replaces"] is None


def no_lights(t, why: str) -> None:
    """The table shows no cell lights: ``why`` is a camera table, a hall board whose
    link is down, or one built without the LED strip."""
    if why == "camera":
        t.referee.use_sensor("camera")
    elif why == "link down":
        t.referee.lights(False)
    else:
        t.referee.fit_lights(False)


def moved_out_of_step(t) -> str:
    """Red's jump i9:k11 may still grow; red then steps its other piece f10 to g9,
    where i9 could have stepped: the piece may go there, not with the board so."""
    ring = ["j10", "m11", "p10", "p8", "m7", "j8"]
    state = position(t.game, {0: ["i9", "f10"], 1: ring})
    t.referee.positions[-1] = state
    t.show_position(state)
    t.change(i9=None, k11=P)
    assert t.referee.published.tentative == "i9:k11"
    t.change(f10=None, g9=P)
    assert t.referee.published.notice.params["reason"]["key"] == "referee.not_this_way"
    return t.referee.published.message


def test_a_piece_moved_with_the_board_out_of_step_points_at_the_lights(table):
    said = moved_out_of_step(table("sternhalma", 2))
    assert said.endswith(f"put the pieces back {LIGHTS} and move again")


@pytest.mark.parametrize("why", ["link down", "no strip"])
def test_a_piece_moved_out_of_step_at_a_board_without_lights_points_at_the_screen(table, why):
    t = table("sternhalma", 2)
    no_lights(t, why)
    assert moved_out_of_step(t).endswith(f"put the pieces back {SCREEN} and move again")


def test_a_piece_misread_at_a_camera_table_points_at_the_screen(table):
    """The camera reads red's step l4-k5 with a blue piece on k5: red may go there,
    not as the board reads."""
    t = table("sternhalma", 2)
    t.referee.use_sensor("camera")
    t.lay_out_start()
    t.change(l4=None, k5="blue")
    said = t.referee.published.message
    assert "The piece may go to k5, but not with the board as it is" in said
    assert said.endswith(f"put the pieces back {SCREEN} and move again")


def confirmed_off_position(t) -> str:
    """Confirm pressed on a board that matches no legal move."""
    t.lay_out_start()
    t.change(l4=None, n4=None, m9=P if t.referee.sensor == "presence" else "red")
    with pytest.raises(RefereeError) as refused:
        t.referee.confirm()
    assert refused.value.words.key == "referee.board_not_position"
    return str(refused.value)


@pytest.mark.parametrize(
    ("why", "shown"),
    [("", LIGHTS), ("camera", SCREEN), ("link down", SCREEN), ("no strip", SCREEN)],
)
def test_confirm_on_a_board_off_the_position_says_what_shows_it(table, why, shown):
    t = table("sternhalma", 2)
    if why:
        no_lights(t, why)
    said = confirmed_off_position(t)
    assert said.endswith(f"nothing to confirm: put the pieces {shown}")
