"""The camera asks the referee for no more than ``Judge``: it knows the game from the
published snapshot and hands its readings in."""

from __future__ import annotations

from boardref.devices.camera import TableCamera
from boardref.referee.kinds import Phase, Sensor
from boardref.referee.referee import Referee
from hardware.frame_source import SyntheticSource
from tests.boardref.devices import test_camera
from tests.boardref.devices.test_camera import Watched
from vision.boards.reader import BoardReader

scene = test_camera.scene  # the rendered Sternhalma board the camera tests look at


class OnlyJudge:
    """A referee seen only through ``camera.Judge``: what the camera may ask of it."""

    def __init__(self, referee: Referee):
        self._referee = referee
        self.listeners = referee.listeners

    @property
    def published(self):
        return self._referee.published

    @property
    def read_as(self):
        return self._referee.read_as

    def see(self, observation, at: float) -> None:
        self._referee.see(observation, at)

    def wait_for_still(self, why) -> None:
        self._referee.wait_for_still(why)


def test_the_camera_learns_and_reads_through_the_judge_surface_alone(store, scene):
    """The camera knows the game from the published snapshot and hands readings in:
    a referee showing it nothing else is read and taught from just the same."""
    view, renderer = scene
    t = Watched(store, Sensor.CAMERA)
    shown = {"tokens": t.tokens()}
    source = SyntheticSource(renderer, lambda: (shown["tokens"], (), {}))
    camera = TableCamera(OnlyJudge(t.referee), source, BoardReader(t.game, view.lens))
    assert camera.first_truth() == t.tokens()

    def frames(n: int) -> None:
        for _ in range(n):
            t.now += 0.1
            assert camera.step(t.now)
            t.referee.tick(t.now)

    frames(8)  # the start, learned from the first still view
    assert t.referee.phase == Phase.MOVE and camera.first_truth() is None
    base = t.referee.positions[-1]
    move = t.game.legal_moves(base)[0]
    shown["tokens"] = t.tokens(t.game.apply(base, move))
    frames(9)
    assert t.moves() == [str(move)]
    assert camera.reader.truth == t.tokens(), "it learns the position the snapshot shows"
    camera.learn_now()
    camera.close()
    assert camera._on_event not in t.referee.listeners
