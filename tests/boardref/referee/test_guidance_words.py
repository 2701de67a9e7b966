"""What the referee tells the players when the board matches no legal move: put the
pieces back as the table shows them (its cell lights where it has them and they are
on, else the board drawn on its screen), and, once a turn is drawn for, that the
referee page can name the move made when the board was misread."""

from __future__ import annotations

from boardref.referee.kinds import Phase
from tests.boardref.referee.test_referee import P

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
