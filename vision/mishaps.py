"""What people and tables do to a camera set-up, for the synthetic renderer: pieces
set down off their cell's centre, markers glued a little off their printed places,
a camera bumped (between moves or while a move is made), a lens nobody calibrated,
a game started without showing the empty board first.

``CONDITIONS`` names the set-ups ``make bench`` and ``boardref simulate --mishap``
run under; each draws its mishaps from the seed it is given, so tuning seeds and
held-out seeds stay apart exactly as for the plain scenes. ``Staged`` is the
renderer of a table that suffers them as play goes on. The reader never imports
this module.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision import looks
from vision.lens import Lens
from vision.render import Renderer, Scene, random_scene


@dataclass(frozen=True)
class Mishaps:
    """One condition. Distances in mm, angles in degrees."""

    #: each piece set down up to this far from its cell's centre (direction at random)
    placement_mm: float = 0.0
    #: each marker glued up to this far from its place and turned up to this much
    marker_mm: float = 0.0
    marker_deg: float = 0.0
    #: once per scene, halfway through, the camera is knocked this far round its centre
    bump_deg: float = 0.0
    #: ... while a move is made: the next still frame shows the new position and pose
    bump_in_move: bool = False
    #: the reader is shown the empty board before the start position
    bare_board: bool = True
    #: the reader is given the lens (as a chessboard calibration would find it), else
    #: only the frame size
    calibrated: bool = True
    #: the lens's horizontal field of view and first distortion term, if not the
    #: difficulty's
    hfov: tuple[float, float] | None = None
    k1: tuple[float, float] | None = None

    def lens_range(self) -> dict:
        """Overrides of the scene's lens ranges for ``render.random_scene``."""
        found = {}
        if self.hfov is not None:
            found["hfov"] = self.hfov
        if self.k1 is not None:
            found["k1"] = self.k1
        return found


#: nothing goes wrong: pieces on their centres, markers where printed, a still camera
PLAIN = Mishaps()
#: the conditions of ``make bench``: name -> (games, mishaps)
BOARD_GAMES = ("sternhalma", "catch_the_hare", "hakenschlagen", "fang_den_hut")
CONDITIONS: dict[str, tuple[tuple[str, ...], Mishaps]] = {
    "marbles 1.5 mm off centre": (("sternhalma",), Mishaps(placement_mm=1.5)),
    "pieces 4 mm off centre": (("catch_the_hare", "fang_den_hut"), Mishaps(placement_mm=4.0)),
    "figures 2 mm off centre": (("hakenschlagen",), Mishaps(placement_mm=2.0)),
    "markers 2 mm and 2 degrees off": (BOARD_GAMES, Mishaps(marker_mm=2.0, marker_deg=2.0)),
    "camera bumped 2 degrees": (BOARD_GAMES, Mishaps(bump_deg=2.0)),
    "bump during a move": (
        ("sternhalma", "catch_the_hare"),
        Mishaps(bump_deg=2.0, bump_in_move=True),
    ),
    "no empty board before the start": (BOARD_GAMES, Mishaps(bare_board=False)),
    "uncalibrated lens 55-75 degrees, k1 to -0.15": (
        BOARD_GAMES,
        Mishaps(calibrated=False, hfov=(55.0, 75.0), k1=(-0.15, 0.0)),
    ),
}


def placement(tokens: dict[str, str | None], rng: np.random.Generator, reach_mm: float):
    """Where each piece of ``tokens`` stands off its cell's centre (cell -> (dx, dy) mm):
    up to ``reach_mm`` in any direction; {} for pieces set down exactly."""
    if reach_mm <= 0:
        return {}
    found = {}
    for cell, token in tokens.items():
        if token is None:
            continue
        angle = rng.uniform(0, 2 * math.pi)
        reach = reach_mm * math.sqrt(rng.uniform())  # evenly over the disk
        found[cell] = (reach * math.cos(angle), reach * math.sin(angle))
    return found


def misplaced_markers(board, rng: np.random.Generator, reach_mm: float, turn_deg: float):
    """Per marker id, how it was glued off its place: (dx mm, dy mm, turn degrees)."""
    if reach_mm <= 0 and turn_deg <= 0:
        return {}
    found = {}
    for marker in looks.markers(board):
        angle = rng.uniform(0, 2 * math.pi)
        reach = reach_mm * math.sqrt(rng.uniform())
        turn = rng.uniform(-turn_deg, turn_deg)
        found[marker.id] = (reach * math.cos(angle), reach * math.sin(angle), turn)
    return found


def bumped(scene: Scene, degrees: float, rng: np.random.Generator) -> Scene:
    """``scene`` with the camera knocked ``degrees`` round its own centre, about an axis
    at random (its position stays; where it looks changes)."""
    axis = rng.normal(size=3)
    axis *= math.radians(degrees) / np.linalg.norm(axis)
    knock = cv2.Rodrigues(axis)[0]
    rotation = knock @ scene.rotation
    rvec = cv2.Rodrigues(rotation)[0]
    tvec = knock @ scene.tvec
    return Scene(scene.lens, rvec, tvec, scene.pitch, scene.light)


class Staged(Renderer):
    """The renderer of a table that suffers ``mishaps`` as play goes on: each piece
    set down off its centre (anew whenever its cell's token changes), the markers
    glued off their places, and the camera knocked once, after ``bump_after``
    frames: on a frame with a hand over the board for a bump during a move, else on
    one without."""

    def __init__(self, game, scene: Scene, seed: int, mishaps: Mishaps, bump_after: int = 0):
        self.luck = np.random.default_rng([seed, 3])
        glued = misplaced_markers(game.board, self.luck, mishaps.marker_mm, mishaps.marker_deg)
        super().__init__(game, scene, seed, glued)
        self.mishaps, self.bump_after = mishaps, bump_after
        self.frames = 0
        self.bumped = False
        self._set_down: dict[str, tuple[float, float]] = {}
        self._tokens: dict[str, str | None] = {}

    def frame(self, tokens, hands=(), under=None, offsets=None) -> np.ndarray:
        """``Renderer.frame`` with the pieces where they were set down."""
        self.frames += 1
        if (
            self.mishaps.bump_deg
            and not self.bumped
            and self.frames > self.bump_after
            and bool(hands) == self.mishaps.bump_in_move
        ):
            self.move_camera(bumped(self.scene, self.mishaps.bump_deg, self.luck))
            self.bumped = True
        changed = {c: t for c, t in tokens.items() if t != self._tokens.get(c)}
        self._set_down.update(placement(changed, self.luck, self.mishaps.placement_mm))
        self._tokens = dict(tokens)
        return super().frame(tokens, hands, under, self._set_down if offsets is None else offsets)


def staged_camera(game, seed: int, difficulty: str, size, mishaps: Mishaps, bump_after: int):
    """A ``Staged`` renderer of ``game``'s board for ``seed`` and the lens the reader
    is given: the scene's own, or only a guess from the frame size when the mishaps
    leave the lens uncalibrated."""
    scene = random_scene(game.board, seed, difficulty, size, **mishaps.lens_range())
    lens = scene.lens if mishaps.calibrated else Lens.guess(scene.lens.size)
    return Staged(game, scene, seed, mishaps, bump_after), lens
