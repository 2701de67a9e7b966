"""The synthetic camera: frames of any board in any position, for tests, benchmarks
and ``boardref simulate``. Pieces are shaded solids with shadows; the camera has a
random pose (30-90 degrees of pitch), lens distortion, lighting (spotlights, flash
and glare, gain, gamma, white balance), noise, blur and JPEG; hands in skin tones
reach over the board.

``easy`` and ``hard`` scenes come from a seed; seeds below ``HELD_OUT`` are for
tuning, seeds from it on are held out for the figures we publish. The renderer knows
the truth; the reader never imports it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision import looks
from vision.boards.sites import crowd_layouts, crowd_spots
from vision.lens import Lens
from vision.looks import Look, Piece
from vision.printing import bgr, board_texture

SIZE = (1280, 720)
#: seeds from here on are never used while tuning the reader
HELD_OUT = 1_000_000
#: the hand hovers this high over the cell it works on, mm
HAND_HEIGHT = 60.0

DIFFICULTY = {
    "easy": dict(
        pitch=(55, 90),
        hfov=(55, 65),
        k1=(-0.05, 0.0),
        spots=(0, 1),
        spot=(0.0, 0.3),
        flash=(0.0, 0.2),
        glare=(0.0, 0.0),
        gain=(0.85, 1.15),
        gamma=(0.95, 1.05),
        balance=0.04,
        noise=(1.0, 2.5),
        blur=(0.0, 0.6),
        jpeg=(88, 95),
        fill=(0.75, 0.92),
    ),
    "hard": dict(
        pitch=(30, 90),
        hfov=(50, 78),
        k1=(-0.25, 0.05),
        spots=(0, 3),
        spot=(0.0, 0.9),
        flash=(0.0, 0.6),
        glare=(0.0, 0.5),
        gain=(0.6, 1.5),
        gamma=(0.8, 1.25),
        balance=0.15,
        noise=(2.0, 6.0),
        blur=(0.0, 1.4),
        jpeg=(60, 90),
        fill=(0.6, 0.95),
    ),
}


@dataclass
class Scene:
    """One camera set-up over one board: lens, pose and light, all from a seed."""

    lens: Lens
    rvec: np.ndarray
    tvec: np.ndarray
    pitch: float
    light: dict = field(default_factory=dict)

    @property
    def rotation(self) -> np.ndarray:
        return cv2.Rodrigues(self.rvec)[0]

    @property
    def position(self) -> np.ndarray:
        """The camera's centre on the board's axes, mm."""
        return (-self.rotation.T @ self.tvec).ravel()


def random_scene(board, seed: int, difficulty: str = "easy", size=SIZE, **ranges) -> Scene:
    """A camera over ``board`` at a random pose, lens and lighting for ``seed``;
    ``ranges`` replace the difficulty's (``hfov=(55, 75)``)."""
    spec = {**DIFFICULTY[difficulty], **ranges}
    rng = np.random.default_rng(seed)
    u = lambda bounds: float(rng.uniform(*bounds))  # noqa: E731
    w, h = size
    f = w / (2 * math.tan(math.radians(u(spec["hfov"]) / 2)))
    centre = (w / 2 + rng.normal(0, w * 0.01), h / 2 + rng.normal(0, h * 0.01))
    matrix = np.array([[f, 0, centre[0]], [0, f, centre[1]], [0, 0, 1]])
    dist = np.array([u(spec["k1"]), u(spec["k1"]) * 0.2, 0, 0, 0])
    lens = Lens(matrix, dist, size)
    left, bottom, right, top = looks.extent(board)
    target = np.array([(left + right) / 2, (bottom + top) / 2, 0.0])
    pitch = u(spec["pitch"])
    azimuth = u((0, 360))
    roll = float(rng.normal(0, 4))
    fill = u(spec["fill"])
    corners = np.array([[left, bottom, 0], [right, bottom, 0], [right, top, 0], [left, top, 0]])
    distance = 4 * max(right - left, top - bottom)
    for _ in range(4):  # scale the distance until the board fills the frame as wished
        rvec, tvec = _look_at(target, pitch, azimuth, roll, distance)
        px = lens.project(corners, rvec, tvec)
        span = max((px[:, 0].max() - px[:, 0].min()) / w, (px[:, 1].max() - px[:, 1].min()) / h)
        off = max(
            np.abs(px[:, 0] - w / 2).max() / (w / 2), np.abs(px[:, 1] - h / 2).max() / (h / 2)
        )
        distance *= max(span / fill, off / 0.97)
    rvec, tvec = _look_at(target, pitch, azimuth, roll, distance)
    spots = int(rng.integers(spec["spots"][0], spec["spots"][1] + 1))
    reach = max(right - left, top - bottom)
    light = {
        "spots": [
            (
                float(rng.uniform(left, right)),
                float(rng.uniform(bottom, top)),
                float(rng.uniform(0.15, 0.5) * reach),
                u(spec["spot"]),
            )
            for _ in range(spots)
        ],
        "flash": u(spec["flash"]),
        "glare": u(spec["glare"]),
        "gain": u(spec["gain"]),
        "gamma": u(spec["gamma"]),
        "balance": tuple(1 + rng.uniform(-spec["balance"], spec["balance"], 3)),
        "noise": u(spec["noise"]),
        "blur": u(spec["blur"]),
        "jpeg": int(u(spec["jpeg"])),
        "shadow": (float(rng.uniform(-0.6, 0.6)), float(rng.uniform(-0.6, 0.6))),
    }
    return Scene(lens, rvec, tvec, pitch, light)


def _look_at(target, pitch, azimuth, roll, distance):
    """Lens at ``pitch`` degrees above the board, from ``azimuth``, aimed at ``target``."""
    p, a = math.radians(pitch), math.radians(azimuth)
    toward = np.array([math.cos(a), math.sin(a), 0.0])  # from the camera's side to the board
    centre = target - distance * math.cos(p) * toward + np.array([0, 0, distance * math.sin(p)])
    forward = (target - centre) / np.linalg.norm(target - centre)
    far = toward - forward * forward.dot(toward)
    if np.linalg.norm(far) < 1e-9:  # straight down: the image's top is the far side
        far = toward
    down = -far / np.linalg.norm(far)
    right = np.cross(down, forward)
    rotation = np.stack([right, down, forward])
    r = math.radians(roll)
    spin = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
    rotation = spin @ rotation
    rvec = cv2.Rodrigues(rotation)[0]
    tvec = -rotation @ centre.reshape(3, 1)
    return rvec, tvec


class Renderer:
    """Frames of one game's board seen in one scene. The empty board and the light
    are computed once; each frame adds pieces, shadows, hands and sensor noise."""

    def __init__(self, game, scene: Scene, seed: int = 0, misplaced: dict | None = None):
        """``misplaced``: per marker id, (dx mm, dy mm, turn degrees) it was glued off
        its place (``vision.mishaps.misplaced_markers``)."""
        self.game, self.scene = game, scene
        self.look: Look = looks.look_for(game)
        self.board = game.board
        self._seed(seed)
        self._texture, self._to_texture = board_texture(self.board, self.look, misplaced)
        self._base, self._light, self._plane = self._warp()
        self._skin = looks.skin_tones()
        self._layouts = crowd_layouts(self.look)[1]
        #: the last board drawn: (key, image, shade, developed before its sensor
        #: noise); a still board is drawn once, each frame of it gets noise and hands
        #: of its own
        self._kept: tuple | None = None

    def _seed(self, seed: int) -> None:
        """The frames' randomness: hands and glare from ``rng``, and the sensor noise
        from seeds of its own, so a frame does not depend on what else the process
        drew before it (OpenCV's generator is shared by the whole thread)."""
        self.rng = np.random.default_rng(seed)
        self._noise_seeds = np.random.default_rng([seed, 1])
        #: per cell, how far (radians) a home field's ring of hats is turned: players
        #: set the first hat anywhere on the field, and leave the ring as it is; or a
        #: tuple of each hat's own angle (hats set round the field by eye)
        homes = [cell.id for cell in self.board.cells if cell.kind in self.look.slots]
        turns = np.random.default_rng([seed, 2]).uniform(0, 2 * math.pi, len(homes))
        self.turns: dict[str, float | tuple[float, ...]] = dict(zip(homes, map(float, turns)))

    def move_camera(self, scene: Scene) -> None:
        """The camera now sees the board as ``scene`` has it (bumped, or set up anew)."""
        self.scene = scene
        self._base, self._light, self._plane = self._warp()
        self._kept = None

    # --- the static part ---------------------------------------------------------------

    def _warp(self):
        cam, scene = self.scene.lens, self.scene
        w, h = cam.size
        step = 8
        gx, gy = np.meshgrid(np.arange(0, w + step, step), np.arange(0, h + step, step))
        pix = np.stack([gx, gy], -1).reshape(-1, 1, 2).astype(np.float64)
        norm = cv2.undistortPoints(pix, cam.matrix, cam.dist).reshape(-1, 2)
        rays = np.concatenate([norm, np.ones((len(norm), 1))], 1) @ scene.rotation
        origin = scene.position
        t = -origin[2] / np.where(rays[:, 2] < -1e-9, rays[:, 2], -1e-9)
        plane = origin[:2] + rays[:, :2] * t[:, None]
        plane[rays[:, 2] >= -1e-9] = 1e7  # above the horizon: far away
        plane = plane.reshape(gy.shape + (2,)).astype(np.float32)
        # the coarse grid holds every step-th pixel: interpolate it back to each pixel
        fine_x, fine_y = np.meshgrid(
            np.arange(w, dtype=np.float32) / step, np.arange(h, dtype=np.float32) / step
        )
        full = cv2.remap(plane, fine_x, fine_y, cv2.INTER_LINEAR)
        (sx, ox), (sy, oy) = self._to_texture
        map_x = (full[..., 0] * sx + ox).astype(np.float32)
        map_y = (full[..., 1] * sy + oy).astype(np.float32)
        base = cv2.remap(
            self._texture,
            map_x,
            map_y,
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=looks.colour("table")[::-1],
        )
        light = self._illumination(full)
        return base, light, full

    def _illumination(self, plane: np.ndarray) -> np.ndarray:
        """Light falling on each pixel's board point: ambient, spotlights, flash, glare."""
        light = self.scene.light
        h, w = plane.shape[:2]
        small = cv2.resize(plane, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
        level = np.ones(small.shape[:2], np.float32)
        for x, y, sigma, strength in light["spots"]:
            d2 = (small[..., 0] - x) ** 2 + (small[..., 1] - y) ** 2
            level += strength * np.exp(-d2 / (2 * sigma**2))
        if light["flash"]:
            yy, xx = np.mgrid[0 : h // 4, 0 : w // 4]
            r2 = ((xx - w / 8) ** 2 + (yy - h / 8) ** 2) / (w / 8) ** 2
            level += light["flash"] * (1 / (1 + r2) - 0.5)
            if light["glare"]:
                gx = self.rng.uniform(0.3, 0.7) * w / 4
                gy = self.rng.uniform(0.3, 0.7) * h / 4
                g2 = ((xx - gx) ** 2 + (yy - gy) ** 2) / (w / 40) ** 2
                level += light["glare"] * 2.5 * np.exp(-g2)
        return cv2.resize(level.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)

    # --- frames ------------------------------------------------------------------------

    def frame(
        self,
        tokens: dict[str, str | None],
        hands: tuple[str, ...] = (),
        under: dict[str, str] | None = None,
        offsets: dict[str, tuple[float, float]] | None = None,
    ) -> np.ndarray:
        """A BGR frame of the board holding ``tokens`` (cell -> token, as
        ``game.observe`` gives) with the disks in ``under`` beneath the figures
        (see ``underlays``), and a hand over each cell in ``hands``. ``offsets``:
        per cell, how far (dx, dy mm) its pieces were set down off its centre. A frame
        of the same board as the last one is drawn and lit once and differs only by
        its sensor noise and the hands over it (the same pixels as drawn anew)."""
        key = (
            tuple(tokens.items()),
            tuple(sorted((under or {}).items())),
            tuple(sorted((offsets or {}).items())),
            tuple(self.turns.items()),
        )
        return self._framed(key, hands, lambda: self._draw(tokens, under or {}, offsets or {}))

    def _framed(self, key: tuple, hands: tuple[str, ...], draw) -> np.ndarray:
        """The frame of the still board ``key`` names, drawn by ``draw`` (image and
        quarter-size shade) unless it is the one kept, with a hand over each cell in
        ``hands``: drawn onto the kept drawing and developed anew only round the
        pixels the hands changed."""
        if self._kept is None or self._kept[0] != key:
            image, shade = draw()
            developed = self._develop(image, shade)
            self._kept = (key, image, shade, *_levels(developed))
        _, image, shade, frame, blue = self._kept
        frame, blue = frame.copy(), blue.copy()
        if hands:
            drawn, dimmed = image.copy(), shade.copy()
            for cell in hands:
                self._hand(drawn, dimmed, cell)
            box = self._changed(image, drawn, shade, dimmed)
            if box is not None:
                inner, outer, within = box
                frame[inner], blue[inner] = _levels(self._develop(drawn, dimmed, outer)[within])
        return self._finish(frame, blue)

    def _changed(self, image, drawn, shade, dimmed):
        """Where developing ``drawn`` and ``dimmed`` differs from developing ``image``
        and ``shade``: (the rows and columns that differ, the rows and columns their
        blur reaches, the first within the second), or None where nothing differs."""
        h, w = image.shape[:2]
        boxes = []
        x, y, bw, bh = cv2.boundingRect(cv2.absdiff(drawn, image).reshape(h, w * 3))
        if bw:
            boxes.append((y, y + bh, x // 3, (x + bw + 2) // 3))
        x, y, bw, bh = cv2.boundingRect((dimmed != shade).view(np.uint8))
        if bw:  # a quarter-size pixel reaches the full-size ones round it
            boxes.append((4 * y - 8, 4 * (y + bh) + 8, 4 * x - 8, 4 * (x + bw) + 8))
        if not boxes:
            return None
        blur = self.scene.light["blur"]
        reach = int(math.ceil(4 * blur)) + 1 if blur > 0.3 else 0
        top, bottom = min(b[0] for b in boxes) - reach, max(b[1] for b in boxes) + reach
        left, right = min(b[2] for b in boxes) - reach, max(b[3] for b in boxes) + reach
        inner = (slice(max(top, 0), min(bottom, h)), slice(max(left, 0), min(right, w)))
        outer = (
            slice(max(top - reach, 0), min(bottom + reach, h)),
            slice(max(left - reach, 0), min(right + reach, w)),
        )
        within = tuple(
            slice(i.start - o.start, i.stop - o.start) for i, o in zip(inner, outer, strict=True)
        )
        return inner, outer, within

    def _draw(self, tokens, under, offsets) -> tuple[np.ndarray, np.ndarray]:
        """The board holding ``tokens`` as drawn, before the light: the image and its
        quarter-size shade."""
        image = self._base.copy()
        shade = np.ones((image.shape[0] // 4, image.shape[1] // 4), np.float32)
        solids = self._solids(tokens, under, offsets)
        if solids:  # shadows fall on the board, never on the pieces drawn over them
            self._shadows(shade, solids)
            image = self._dim(image, shade)
            shade[:] = 1.0
        disks = [solid for solid in solids if solid[2].under]
        figures = [solid for solid in solids if not solid[2].under]
        if disks:
            # a figure's shadow falls on whatever it stands on: the disks are drawn
            # first and then darkened where a figure's shadow reaches them
            covered = np.zeros(image.shape[:2], np.uint8)
            self._draw_solids(image, disks, covered)
            if figures:
                self._shadows(shade, figures)
                image = np.where(covered[..., None] > 0, self._dim(image, shade), image)
                shade[:] = 1.0
        self._draw_solids(image, figures)
        return image, shade

    def _solids(self, tokens, under, offsets) -> list[tuple[float, np.ndarray, Piece, float]]:
        """(depth, base xy, piece, base height) of every piece to draw, far first."""
        solids = []
        for cell in self.board.cells:
            token = tokens.get(cell.id)
            if token is None:
                continue
            dx, dy = offsets.get(cell.id, (0.0, 0.0))
            for (x, y), piece, z in self._stack(cell, token, under.get(cell.id)):
                solids.append((np.array([x + dx, y + dy]), piece, z))
        if not solids:
            return []
        bases = np.array([[*xy, z] for xy, _, z in solids])
        depth = (self.scene.rotation @ bases.T + self.scene.tvec).T[:, 2]
        order = sorted(range(len(solids)), key=lambda i: (-depth[i], solids[i][2]))
        return [(depth[i], *solids[i]) for i in order]

    def _stack(self, cell, token, below: str | None):
        """The pieces a token stands for on ``cell``: one, a figure on its disk, a
        home field's hats on their spots, or several hats side by side on a field."""
        pieces = [self.look.piece(t) for t in sorted(looks.split(token))]
        slots = self.look.slots.get(cell.kind)
        x, y = cell.xy
        if slots is not None:
            turn = self.turns[cell.id]
            # a turn of the whole ring, or each hat's own angle (hats set by eye)
            if isinstance(turn, tuple):
                ring = [slots.offsets(a)[0] for a in turn]
            else:
                ring = slots.offsets(turn)
            return [((x + dx, y + dy), p, 0.0) for (dx, dy), p in zip(ring, pieces)]
        if len(pieces) > 1 and self._layouts:
            spots = crowd_spots(self.board, cell, self.look)
            # more hats than the largest layout stand on its spots again
            layout = self._layouts[min(len(pieces), max(self._layouts))]
            return [(tuple(spots[layout[n % len(layout)]]), p, 0.0) for n, p in enumerate(pieces)]
        if below is not None:
            disk = self.look.piece(below)
            return [((x, y), disk, 0.0), ((x, y), pieces[0], disk.height)]
        return [((x, y), p, 0.0) for p in pieces]

    def _ring(self, xy, z, radius, n=28):
        a = np.linspace(0, 2 * np.pi, n, endpoint=False)
        return np.stack([xy[0] + radius * np.cos(a), xy[1] + radius * np.sin(a), np.full(n, z)], 1)

    def _dim(self, image: np.ndarray, shade: np.ndarray) -> np.ndarray:
        """``image`` darkened by the quarter-size ``shade`` (linear light)."""
        dim = cv2.resize(shade, image.shape[1::-1], interpolation=cv2.INTER_LINEAR)
        return (image * cv2.pow(dim, 1 / 2.2)[..., None]).astype(np.uint8)

    def _shadows(self, shade, solids) -> None:
        """Each solid's shadow, on the plane it stands on (a disk's top for a figure
        on a disk)."""
        dx, dy = self.scene.light["shadow"]
        cam = self.scene.lens
        for _, xy, piece, base in solids:
            reach = piece.height * 0.6
            ring = self._ring((xy[0] + dx * reach, xy[1] + dy * reach), base, piece.radius * 1.1)
            pts = cam.project(ring, self.scene.rvec, self.scene.tvec) / 4
            cv2.fillConvexPoly(shade, np.round(pts).astype(np.int32), 0.55, cv2.LINE_AA)
        cv2.GaussianBlur(shade, (0, 0), 2.0, dst=shade)

    def _draw_solids(self, image, solids, covered: np.ndarray | None = None) -> None:
        """Draw ``solids`` in order; mark the pixels they cover in ``covered``."""
        cam, scene = self.scene.lens, self.scene
        for _, xy, piece, z in solids:
            rgb = np.array(piece.colour, dtype=np.float64)
            top_z = z + piece.height
            if piece.shape == "sphere":
                centre = np.array([[xy[0], xy[1], z + piece.radius]])
                c = cam.project(centre, scene.rvec, scene.tvec)[0]
                edge = self._ring((xy[0], xy[1]), z + piece.radius, piece.radius, 16)
                pe = cam.project(edge, scene.rvec, scene.tvec)
                r = float(np.max(np.linalg.norm(pe - c, axis=1)))
                self._disc(image, c, r, rgb * 0.6)
                self._disc(image, c - r * 0.08, r * 0.85, rgb * 0.85)
                self._disc(image, c - r * 0.2, r * 0.55, rgb * 1.0)
                self._disc(image, c - r * 0.35, r * 0.15, np.minimum(rgb * 0.6 + 110, 255))
                continue
            top_r = piece.radius * (0.25 if piece.shape == "cone" else 1.0)
            base = self._ring(xy, z, piece.radius)
            top = self._ring(xy, top_z, top_r)
            px = cam.project(np.concatenate([base, top]), scene.rvec, scene.tvec)
            hull = cv2.convexHull(np.round(px * 16).astype(np.int32))
            cv2.fillConvexPoly(image, hull, bgr(rgb * 0.62), cv2.LINE_AA, shift=4)
            top_px = np.round(px[len(base) :] * 16).astype(np.int32)
            cv2.fillConvexPoly(image, top_px, bgr(rgb * 0.95), cv2.LINE_AA, shift=4)
            if covered is not None:
                cv2.fillConvexPoly(covered, hull, 255, cv2.LINE_8, shift=4)

    def _disc(self, image, centre, radius, rgb) -> None:
        c = tuple(int(round(v * 16)) for v in centre)
        cv2.circle(image, c, max(1, int(round(radius * 16))), bgr(rgb), -1, cv2.LINE_AA, 4)

    def _hand(self, image, shade, cell_id: str) -> None:
        """A hand in a skin tone over ``cell_id``, its arm reaching in from the nearest
        side of the frame."""
        rng, cam, scene = self.rng, self.scene.lens, self.scene
        x, y = self.board.cell(cell_id).xy
        pts = cam.project(
            np.array([[x, y, HAND_HEIGHT], [x + 10, y, HAND_HEIGHT], [x, y + 10, HAND_HEIGHT]]),
            scene.rvec,
            scene.tvec,
        )
        palm = pts[0] + rng.normal(0, 3, 2)
        mm = (
            max(float(np.linalg.norm(pts[1] - pts[0])), float(np.linalg.norm(pts[2] - pts[0]))) / 10
        )
        w, h = cam.size
        edges = [(palm[0], h + 40), (palm[0], -40), (-40, palm[1]), (w + 40, palm[1])]
        weights = np.array([4.0, 1.0, 1.5, 1.5])  # players mostly reach from the near side
        shoulder = np.array(edges[rng.choice(4, p=weights / weights.sum())])
        skin = np.array(self._skin[rng.integers(len(self._skin))], dtype=np.float64)
        along = palm - shoulder
        along /= np.linalg.norm(along) + 1e-9
        side = np.array([-along[1], along[0]])
        arm = 38 * mm
        quad = np.array(
            [
                shoulder + side * arm,
                palm + side * arm * 0.8,
                palm - side * arm * 0.8,
                shoulder - side * arm,
            ]
        )
        cv2.fillConvexPoly(image, np.round(quad).astype(np.int32), bgr(skin * 0.9), cv2.LINE_AA)
        angle = math.degrees(math.atan2(along[1], along[0]))
        centre = tuple(int(v) for v in palm)
        axes = (int(50 * mm), int(42 * mm))
        cv2.ellipse(image, centre, axes, angle, 0, 360, bgr(skin), -1, cv2.LINE_AA)
        for k in range(4):
            spread = math.radians(angle + (k - 1.5) * 14)
            tip = palm + 85 * mm * np.array([math.cos(spread), math.sin(spread)])
            cv2.line(
                image,
                centre,
                tuple(int(v) for v in tip),
                bgr(skin * 0.95),
                max(2, int(15 * mm)),
                cv2.LINE_AA,
            )
        drop = np.array(self.scene.light["shadow"]) * 40 * mm / 4
        cv2.ellipse(
            shade,
            tuple(int(v) for v in palm / 4 + drop),
            (int(60 * mm / 4), int(50 * mm / 4)),
            angle,
            0,
            360,
            0.7,
            -1,
        )

    def _develop(self, image, shade, box=None) -> np.ndarray:
        """The scene's light and white balance, gain and gamma, blur: the frame (or
        the part ``box`` = (rows, columns) of it) as float32 levels before the
        sensor's noise."""
        light = self.scene.light
        h, w = image.shape[:2]
        level = self._light * cv2.resize(shade, (w, h), interpolation=cv2.INTER_LINEAR)
        if box is not None:
            image, level = image[box], level[box]
        # clip(linear * level * balance, 0, 1) ** gamma * 255, as the power of each
        # factor: the colour's from a table of its 256 values, the light's on one channel
        gamma = 1 / (2.2 * light["gamma"])
        balance = np.array(light["balance"][::-1], np.float32) * light["gain"]
        tone = np.power(_LINEAR[:, None] * balance, gamma, dtype=np.float32) * 255
        out = cv2.LUT(image, tone.reshape(1, 256, 3))
        out *= cv2.pow(level, gamma)[..., None]
        np.minimum(out, 255, out=out)
        if light["blur"] > 0.3:
            cv2.GaussianBlur(out, (0, 0), light["blur"], dst=out)
        return out

    def _finish(self, frame: np.ndarray, blue: np.ndarray) -> np.ndarray:
        """Sensor noise (from the frame's own seed) and JPEG, on ``frame`` (BGR levels)
        in place; ``blue`` is its blue channel before rounding. The noise falls on the
        blue channel alone, as the figures were measured: ``cv2.randn`` given one
        deviation draws three numbers a pixel and scales the first (the other two
        are still drawn, so each frame's noise stays what its seed gives)."""
        light = self.scene.light
        noise = np.empty(frame.shape, np.float32)
        cv2.setRNGSeed(int(self._noise_seeds.integers(2**31)))
        cv2.randn(noise, 0, light["noise"])
        noise = noise[..., 0] + blue
        np.clip(noise, 0, 255, out=noise)
        frame[..., 0] = noise
        ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, light["jpeg"]])
        return cv2.imdecode(jpeg, cv2.IMREAD_COLOR)


def _levels(developed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A developed frame (float levels) as the sensor rounds it (BGR, down to whole
    levels), and its blue channel before rounding, which the noise falls on."""
    return np.clip(developed, 0, 255).astype(np.uint8), developed[..., 0].copy()


def underlays(game, state) -> dict[str, str]:
    """Disks hidden under figures (``game.observe`` shows only the figure): read from a
    state's ``layout`` where the game has one (Hakenschlagen)."""
    layout = getattr(state, "layout", None)
    if layout is None:
        return {}
    look = looks.look_for(game)
    seen = game.observe(state)
    return {
        cell.id: kind
        for cell, kind in zip(game.board.cells, layout)
        if kind in look.pieces and look.pieces[kind].under and seen[cell.id] != kind
    }


_LINEAR = (np.arange(256, dtype=np.float32) / 255) ** 2.2
