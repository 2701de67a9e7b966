"""A camera table whose camera surely misreads a piece: the referee sets the position
by hand, and the camera learns it from the next still view when nobody touched the
board since (then it shows the position set), never from a board the players went
on to put right."""

from __future__ import annotations

from boardref.referee.kinds import Phase
from tests.boardref.devices import test_camera
from tests.boardref.devices.test_camera import _watched_camera

scene = test_camera.scene  # the rendered Sternhalma board the camera tests look at

#: what the camera is shown of a piece it misreads: the other side's colour
OTHER = {"red": "blue", "blue": "red"}


def _misread_step(store, scene, misread: int = 2):
    """A table read by the camera alone, a step played while the camera surely sees
    ``misread`` pieces the step left alone in the other colour (one such cell the
    referee lets pass; two fit no legal move), and the reader's lessons kept in a list."""
    shown = {"tokens": None, "hands": ()}
    t, camera, frames = _watched_camera(store, scene, shown)
    shown["tokens"] = t.tokens()
    assert camera.learn(t.tokens())
    frames(6)
    assert t.referee.phase == Phase.MOVE
    lessons: list[dict] = []
    learn = camera.reader.learn

    def kept_learn(frame, truth, fresh=False):
        lessons.append(dict(truth))
        return learn(frame, truth, fresh)

    camera.reader.learn = kept_learn
    base = t.referee.positions[-1]
    move = next(m for m in t.game.legal_moves(base) if not m.leap)
    after = t.game.apply(base, move)
    mover = t.tokens(base)[move.origin]
    left = [c for c, token in t.tokens(after).items() if token == OTHER[mover]][:misread]
    shown["tokens"] = {**t.tokens(after), **dict.fromkeys(left, mover)}
    frames(6)
    assert t.moves() == [], "pieces read surely in another colour are no legal move"
    return t, camera, frames, shown, after, lessons


def test_a_position_set_on_a_board_left_as_it_was_is_learned_from_the_next_still_view(store, scene):
    t, camera, frames, shown, after, lessons = _misread_step(store, scene)
    t.referee.set_position(t.game.to_json(after))
    frames(2)
    assert lessons == [t.tokens(after)], "the board nobody touched shows the position set"
    assert camera.reader.truth == t.tokens(after)


def test_a_position_set_and_then_put_right_on_the_board_is_not_learned_from_the_old_view(
    store, scene
):
    """The board differed from the position set (a piece of the wrong colour): the
    players put it right. The view the position was set on is never taught as it;
    the board put right is read as the position and learned as any committed one."""
    t, camera, frames, shown, after, lessons = _misread_step(store, scene)
    t.referee.set_position(t.game.to_json(after))
    shown["tokens"] = t.tokens(after)
    frames(6)
    assert lessons == []
    assert camera.reader.truth == t.tokens(after)


def test_a_position_set_far_from_the_board_is_a_board_to_put_right_not_a_misread(store, scene):
    """Three cells read surely otherwise than the position set: more than a misread;
    the players are still to put the board right, so the view is not taught as it."""
    t, camera, frames, shown, after, lessons = _misread_step(store, scene, misread=3)
    t.referee.set_position(t.game.to_json(after))
    frames(2)
    assert lessons == []
