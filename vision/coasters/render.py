"""The synthetic camera for Hägar: the table mat with its markers and dot grid,
coasters printed with their faces (``vision.coasters.face``) laid on it as a state
has them, each a little off its spot as hands lay them, Hägar figures and gold
tokens as shaded solids with shadows, hands, and the same lens, light and sensor as
``vision.render`` (whose ``Renderer`` this extends). For tests and benchmarks; the
reader never imports it.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision import looks
from vision.coasters.mat import coaster_mm, data, face, layout_of, mat_board, turned
from vision.looks import Look, Piece
from vision.printing import board_texture
from vision.render import Renderer, Scene

#: the coaster layer's resolution, pixels per millimetre
LAYER_PX_PER_MM = 2.0
#: how far off its spot a laid coaster may lie: mm along each axis, degrees turned
LAID_OFF_MM = 3.0
LAID_OFF_DEGREES = 2.0
#: how far from a field's centre a token may stand, mm along each axis
TOKEN_OFF_MM = 2.0


def mat_look(game) -> Look:
    """The mat as a board to print (surface and dots) and the tokens as solids."""
    spec = data()
    pieces = {}
    for token in (*game.colours, "gold"):
        solid = spec["tokens"]["gold" if token == "gold" else "hagar"]
        pieces[token] = Piece(
            token,
            looks.colour(solid.get("colour", token)),
            solid["shape"],
            float(solid["radius"]),
            float(solid["height"]),
        )
    mat = spec["mat"]
    return Look(
        game.name, tuple(spec["colours"]["mat"]), "point", float(mat["dot_mm"]), (), pieces, {}
    )


class CoasterRenderer(Renderer):
    """Frames of Hägar's table seen in one scene: the mat and light once, then per
    frame the coasters of a layout, its tokens, hands and sensor noise."""

    def __init__(self, game, scene: Scene, seed: int = 0):
        self.game, self.scene = game, scene
        self.look = mat_look(game)
        self.board = mat_board(game)
        self._seed(seed)
        self._texture, self._to_texture = board_texture(self.board, self.look)
        self._base, self._light, self._plane = self._warp()
        self._skin = looks.skin_tones()
        self.side = coaster_mm(game)
        # the layer holds the mat's spots and one more ring around them
        self._reach = (data()["mat"]["reach"] + 1.5) * self.side
        x = (self._plane[..., 0] + self._reach) * LAYER_PX_PER_MM
        y = (self._reach - self._plane[..., 1]) * LAYER_PX_PER_MM
        self._layer_map = (x.astype(np.float32), y.astype(np.float32))
        self._faces = {c.id: face(c, self.side, LAYER_PX_PER_MM) for c in game.coasters.values()}
        #: how far each laid coaster and standing token lies off its place
        self._spots = {cell.id: cell.xy for cell in self.board.cells}
        self._off: dict[tuple[str, str], tuple[float, ...]] = {}
        self._kept = None

    def frame(
        self,
        tokens: dict[str, str | None],
        hands: tuple[str, ...] = (),
        under: dict[str, str] | None = None,
    ) -> np.ndarray:
        """A BGR frame of the table holding what ``tokens`` (a ``game.observe`` dict)
        says: the coasters and the tokens on their fields; a hand over each spot or
        table field named in ``hands`` (one beyond the mat reaches across the mat's
        nearest spot). ``under`` is unused (nothing lies under a token). A still
        table is drawn and lit once, as ``Renderer.frame`` does."""
        near = tuple(self._spot_near(name) for name in hands)
        return self._framed(tuple(tokens.items()), near, lambda: self._draw_table(tokens))

    def _draw_table(self, tokens) -> tuple[np.ndarray, np.ndarray]:
        """The table holding ``tokens`` as drawn, before the light: the image and its
        quarter-size shade."""
        spots, on_fields = layout_of(self.game, tokens)
        image = self._base.copy()
        self._lay(image, spots)
        shade = np.ones((image.shape[0] // 4, image.shape[1] // 4), np.float32)
        solids = self._tokens(on_fields)
        self._shadows(shade, solids)
        self._draw_solids(image, solids)
        return image, shade

    def _spot_near(self, name: str) -> str:
        """The mat's spot ``name`` is, or the one nearest the table field ``name``."""
        if name in self._spots:
            return name
        x, y = self.game.board.cell(name).xy
        return min(self._spots, key=lambda spot: np.hypot(*np.subtract(self._spots[spot], (x, y))))

    def _offset(self, spot: str, coaster: str) -> tuple[float, float, float]:
        """How far this coaster lies off its spot: drawn once, kept while it lies."""
        key = (spot, coaster)
        if key not in self._off:
            r = self.rng
            self._off[key] = (
                float(r.uniform(-LAID_OFF_MM, LAID_OFF_MM)),
                float(r.uniform(-LAID_OFF_MM, LAID_OFF_MM)),
                float(r.uniform(-LAID_OFF_DEGREES, LAID_OFF_DEGREES)),
            )
        return self._off[key]

    def _stands(self, name: str, token: str) -> np.ndarray:
        """How far off its field's centre a token stands: drawn once, kept while it
        stands there (frames of a still table are still)."""
        key = (name, token)
        if key not in self._off:
            self._off[key] = tuple(self.rng.uniform(-TOKEN_OFF_MM, TOKEN_OFF_MM, 2))
        return np.array(self._off[key])

    def _lay(self, image: np.ndarray, spots: dict[str, tuple[str, int]]) -> None:
        """Print the laid coasters onto the frame through the scene's view of the
        table plane."""
        if not spots:
            return
        s = LAYER_PX_PER_MM
        n = int(round(2 * self._reach * s))
        layer = np.zeros((n, n, 4), np.uint8)
        centres = {cell.zone: [] for cell in self.game.board.cells}
        for cell in self.game.board.cells:
            centres[cell.zone].append(cell.xy)
        for spot, (coaster, turn) in spots.items():
            x, y = np.mean(centres[spot], axis=0)
            if max(abs(x), abs(y)) + self.side > self._reach:
                continue  # beyond what the camera looks at
            dx, dy, angle = self._offset(spot, coaster)
            picture = turned(self._faces[coaster], turn)
            size = picture.shape[0]
            rgba = np.dstack([picture, np.full(picture.shape[:2], 255, np.uint8)])
            box = int(size * 1.1) + 4
            at = ((x + dx + self._reach) * s, (self._reach - y - dy) * s)
            left, top = int(at[0]) - box // 2, int(at[1]) - box // 2
            spin = cv2.getRotationMatrix2D((size / 2, size / 2), -angle, 1.0)
            spin[:, 2] += (at[0] - left - size / 2, at[1] - top - size / 2)
            patch = cv2.warpAffine(rgba, spin, (box, box), flags=cv2.INTER_LINEAR)
            region = layer[top : top + box, left : left + box]
            alpha = patch[..., 3:4].astype(np.float32) / 255
            region[:] = (patch * alpha + region * (1 - alpha)).astype(np.uint8)
        seen = cv2.remap(layer, *self._layer_map, cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
        alpha = seen[..., 3:4].astype(np.float32) / 255
        image[:] = (seen[..., 2::-1] * alpha + image * (1 - alpha)).astype(np.uint8)

    def _tokens(self, on_fields: dict[str, str]) -> list:
        """(depth, base xy, piece, base height) of every token, far first."""
        solids = []
        for name, token in sorted(on_fields.items()):
            x, y = self.game.board.cell(name).xy
            solids.append(
                (np.array([x, y]) + self._stands(name, token), self.look.piece(token), 0.0)
            )
        if not solids:
            return []
        bases = np.array([[*xy, z] for xy, _, z in solids])
        depth = (self.scene.rotation @ bases.T + self.scene.tvec).T[:, 2]
        order = sorted(range(len(solids)), key=lambda i: -depth[i])
        return [(depth[i], *solids[i]) for i in order]
