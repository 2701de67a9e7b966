"""Hägar's coasters seen by the camera: the reader finds the table mat by its
markers, then reads every spot of its dot grid: bare mat, or which coaster lies there
at which quarter turn (and so the landscape of each quarter), and the token on each
field of it. The result compares directly with ``game.observe``.

A coaster is known by its printed face (``vision.coasters.mat.face``). The reader
never imports the renderer and changes nothing it reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from engines.coasters import CORNERS
from vision import looks
from vision.coasters.mat import LINEAR, coaster_mm, data, face, mat_board, rgb, turned
from vision.lens import Lens
from vision.locate import Locator, Pose

#: the bare mat's place among the candidates a spot is compared with
BARE = None


@dataclass(frozen=True)
class SpotReading:
    """One coaster read on one spot: which, how turned, and its landscapes by table
    corner (sw, se, nw, ne)."""

    coaster: str
    turn: int
    quarters: tuple[tuple[str, str], ...]
    #: how badly the best picture fitted (0 is perfect); for tuning and doubt
    misfit: float


@dataclass
class TableReading:
    """What the camera saw on the mat. ``found`` is False (with ``problem`` saying
    why) when the mat itself was not seen; ``spots`` holds the coasters by spot,
    ``tokens`` the tokens by field; ``unclear`` the spots where neither the bare mat
    nor any coaster fits (a hand, a glass, a coaster far off its spot), which are in
    neither. Only a ``clear`` reading describes the whole table."""

    found: bool
    problem: str | None = None
    spots: dict[str, SpotReading] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    unclear: tuple[str, ...] = ()
    #: per spot, the pictures that fitted it best: ((coaster id, turn) or None for the
    #: bare mat, misfit), best first; how sure the reading is comes from the gaps
    fits: dict[str, tuple[tuple[tuple[str, int] | None, float], ...]] = field(default_factory=dict)
    #: per field of a coaster read, each token (None: no token) and how far the colour
    #: seen on the field is from it, best first
    token_fits: dict[str, tuple[tuple[str | None, float], ...]] = field(default_factory=dict)

    @property
    def clear(self) -> bool:
        return self.found and not self.unclear

    def observation(self, game) -> dict[str, str | None]:
        """Per table field, as ``game.observe`` writes it (fields off the mat: None)."""
        seen: dict[str, str | None] = dict.fromkeys(cell.id for cell in game.board.cells)
        for spot, reading in self.spots.items():
            for corner, printed, _ in game.coasters[reading.coaster].on_table(reading.turn):
                name = f"{spot}_{corner}"
                token = f"{reading.coaster}_{printed}"
                if name in self.tokens:
                    token += looks.JOIN + self.tokens[name]
                seen[name] = token
        return seen


class CoasterReader:
    """Reads one game's coasters on the mat through one camera."""

    def __init__(self, game, lens: Lens):
        self.game, self.lens = game, lens
        self.mat = mat_board(game)
        self.locator = Locator(self.mat, lens)
        self.pose: Pose | None = None
        spec = data()["reader"]
        self.patch = int(spec["patch_px"])
        self.keep = float(spec["keep"])
        self.unclear = float(spec["unclear"])
        self.side = coaster_mm(game)
        self.spots = tuple(cell.id for cell in self.mat.cells)
        self._candidates, self._references = self._pictures()
        self._tokens = (*game.colours, "gold")
        self._token_colours = np.array([LINEAR[np.array(rgb(t))] for t in self._tokens], np.float32)

    def _pictures(self):
        """Every candidate (bare mat, then each coaster at each turn) as a linear
        patch, flattened."""
        fine = 4.0
        big = np.empty((int(round(self.side * fine)),) * 2 + (3,), np.uint8)
        big[:] = rgb("mat")
        dot = data()["mat"]["dot_mm"] * fine
        centre = big.shape[0] // 2
        cv2.circle(big, (centre, centre), int(dot), looks.colour("board_line"), -1, cv2.LINE_AA)
        candidates, pictures = [BARE], [big]
        for coaster in self.game.coasters.values():
            upright = face(coaster, self.side, fine)
            for turn in range(4):
                candidates.append((coaster.id, turn))
                pictures.append(turned(upright, turn))
        small = [
            cv2.resize(p, (self.patch, self.patch), interpolation=cv2.INTER_AREA) for p in pictures
        ]
        references = LINEAR[np.stack(small)].reshape(len(small), -1)
        self._blocks = _blocks(references)
        return tuple(candidates), references

    # --- the pose ---------------------------------------------------------------------

    def locate(self, frame: np.ndarray) -> bool:
        """Find the mat's markers in ``frame``; True if the pose is known now."""
        return self.use(self.locator.locate(frame) if _usable(frame) else None)

    def use(self, pose: Pose | None) -> bool:
        """Read from now on in ``pose`` (found by the markers, or from the mat's corner
        spots clicked by hand); False, and the old pose kept, when it is None."""
        if pose is not None:
            self.pose = pose
            self._maps = self._sampling_maps(pose)
        return pose is not None

    def _sampling_maps(self, pose: Pose):
        """Where in the frame each spot's patch pixels (two samples per patch pixel
        each way) and each field's token ring lie."""
        fine = 2 * self.patch
        u = ((np.arange(fine) + 0.5) / fine - 0.5) * self.side
        gx, gy = np.meshgrid(u, -u)  # rows from north to south
        points = []
        for spot in self.spots:
            x, y = self.mat.cell(spot).xy
            points.append(np.stack([gx + x, gy + y, np.zeros_like(gx)], -1).reshape(-1, 3))
        px = self.lens.project(np.concatenate(points), pose.rvec, pose.tvec)
        px = px.reshape(len(self.spots) * fine, fine, 2).astype(np.float32)
        spec = data()["reader"]
        angles = np.linspace(0, 2 * np.pi, 8, endpoint=False)
        ring = np.stack([np.cos(angles), np.sin(angles)], 1) * spec["probe_r"]
        quarter = self.side / 4
        probes = []
        for spot in self.spots:
            x, y = self.mat.cell(spot).xy
            for ox, oy in CORNERS.values():
                fx, fy = x + (2 * ox - 1) * quarter, y + (2 * oy - 1) * quarter
                probes.append(
                    np.column_stack([ring[:, 0] + fx, ring[:, 1] + fy, np.full(8, spec["probe_z"])])
                )
        probes = np.concatenate(probes)
        ring_px = self.lens.project(probes, pose.rvec, pose.tvec)
        # where the camera's ray through each probe point meets the coaster: what a
        # field with no token shows there
        eye = (-cv2.Rodrigues(pose.rvec)[0].T @ pose.tvec).ravel()
        ground = probes[:, :2] + (probes[:, :2] - eye[:2]) * (
            probes[:, 2:] / (eye[2] - probes[:, 2:])
        )
        centres = np.repeat([self.mat.cell(spot).xy for spot in self.spots], 4 * 8, axis=0)
        local = (ground - centres) / self.side + 0.5
        col = (local[:, 0] * self.patch).astype(int).clip(0, self.patch - 1)
        row = ((1 - local[:, 1]) * self.patch).astype(int).clip(0, self.patch - 1)
        landing = (row * self.patch + col).reshape(len(self.spots), 4, 8)
        return px[..., 0], px[..., 1], np.round(ring_px).astype(np.int32), landing

    # --- reading ---------------------------------------------------------------------

    def read(self, frame: np.ndarray) -> TableReading:
        """The coasters and tokens in ``frame``. The mat is located on the first frame
        (and again with ``locate``); a frame that is no picture or where the mat is
        not seen gives a reading with ``found`` False and the reason."""
        if not _usable(frame):
            return TableReading(False, "no picture: the frame is empty, blank or not BGR")
        if self.pose is None and not self.locate(frame):
            return TableReading(
                False, "table not found: fewer than two of the mat's markers are seen"
            )
        map_x, map_y, ring_px, landing = self._maps
        samples = cv2.remap(frame, map_x, map_y, cv2.INTER_LINEAR, borderValue=(0, 0, 0))
        p = self.patch
        pooled = cv2.resize(samples, (p, p * len(self.spots)), interpolation=cv2.INTER_AREA)
        patches = LINEAR[pooled[..., ::-1]].reshape(len(self.spots), p, p, 3)
        blocks = _blocks(patches)
        # the blocks tell which picture each spot shows; the camera's tone curve fitted
        # from those pairs recolours the pictures before the closer comparison
        coarse, _ = _misfit(blocks, self._blocks[None], 1.0)
        slope, tint = _tone(blocks, self._blocks[coarse.argmin(1)])
        pictures = tint * self._references.reshape(len(self._candidates), -1, 3) ** slope
        pictures = pictures.reshape(len(self._candidates), -1)
        best, gain, misfit, shortlist, costs = self._match(patches, blocks, pictures)
        unclear = misfit > self.unclear
        reading = TableReading(True, unclear=tuple(np.array(self.spots)[unclear]))
        for s, spot in enumerate(self.spots):
            reading.fits[spot] = tuple(
                (self._candidates[c], float(cost)) for c, cost in zip(shortlist[s], costs[s])
            )
        h, w = frame.shape[:2]
        ring_px[:, 0].clip(0, w - 1, out=ring_px[:, 0])
        ring_px[:, 1].clip(0, h - 1, out=ring_px[:, 1])
        laid = [
            s
            for s in range(len(self.spots))
            if self._candidates[best[s]] is not BARE and not unclear[s]
        ]
        if not laid:
            return reading
        rings = LINEAR[frame[ring_px[:, 1], ring_px[:, 0], ::-1]].reshape(-1, 4, 8, 3)[laid]
        seen = np.median(rings, axis=2) / gain[laid, None, None]
        laid_pictures = pictures[best[laid]].reshape(len(laid), -1, 3)
        under = laid_pictures[np.arange(len(laid))[:, None, None], landing[laid]]
        colours = tint * self._token_colours**slope
        error = self._tokens_seen(seen, np.median(under, axis=2), colours)
        tokens = error.argmin(-1)
        order = np.argsort(error, axis=-1)
        names = (None, *self._tokens)
        for n, s in enumerate(laid):
            coaster_id, turn = self._candidates[best[s]]
            fields = self.game.coasters[coaster_id].on_table(turn)
            quarters = tuple((corner, f.landscape) for corner, _, f in fields)
            spot = self.spots[s]
            reading.spots[spot] = SpotReading(coaster_id, turn, quarters, float(misfit[s]))
            for k, corner in enumerate(CORNERS):
                name = f"{spot}_{corner}"
                if tokens[n, k] > 0:
                    reading.tokens[name] = self._tokens[tokens[n, k] - 1]
                reading.token_fits[name] = tuple(
                    (names[t], float(error[n, k, t])) for t in order[n, k]
                )
        return reading

    def _match(self, patches: np.ndarray, blocks: np.ndarray, pictures: np.ndarray):
        """Each spot's best candidate among ``pictures``, the light gain it was seen
        at, its misfit, and its shortlist of candidates with their misfits, best
        first. The blocks (4 x 4 per spot) settle the spots that plainly show the bare
        mat and keep the few likeliest candidates for the others; their full patches
        decide among those."""
        cost, gain = _misfit(blocks, _blocks(pictures)[None], 1.0)
        order = np.argsort(cost, axis=1)
        rows = np.arange(len(patches))
        best = order[:, 0].copy()
        seen_gain, misfit = gain[rows, best], cost[rows, best]
        shortlist = order[:, :SHORTLIST].copy()
        costs = np.take_along_axis(cost, shortlist, axis=1)
        plain = (best == 0) & (misfit * PLAINLY < cost[rows, order[:, 1]])
        look = np.flatnonzero(~plain)
        if look.size:
            likely = shortlist[look]
            cost, gain = _misfit(patches[look].reshape(len(look), -1), pictures[likely], self.keep)
            ranks = np.argsort(cost, axis=1)
            at = np.arange(len(look))
            pick = ranks[:, 0]
            best[look], seen_gain[look] = likely[at, pick], gain[at, pick]
            misfit[look] = cost[at, pick]
            shortlist[look] = np.take_along_axis(likely, ranks, axis=1)
            costs[look] = np.take_along_axis(cost, ranks, axis=1)
        return best, seen_gain, misfit, shortlist, costs

    def _tokens_seen(self, seen: np.ndarray, bare: np.ndarray, colours: np.ndarray):
        """Per field (spots, 4) and option (no token, then each token of ``colours``):
        how far the colour ``seen`` through the field's ring is from the option at its
        best shading; no token means ``bare``, what the field shows there."""
        options = np.concatenate(
            [bare[..., None, :], np.broadcast_to(colours, (*bare.shape[:2], *colours.shape))],
            axis=2,
        )
        scale = (options * seen[..., None, :]).sum(-1) / np.maximum((options**2).sum(-1), 1e-9)
        scale = scale.clip(0.25, 1.4)
        return np.linalg.norm(seen[..., None, :] - scale[..., None] * options, axis=-1)


#: candidates per spot that the coarse pass keeps for the full comparison
SHORTLIST = 6
#: a spot is plainly bare mat when every coaster fits its blocks this many times worse
PLAINLY = 3.0
#: how strongly the tone curve's slope is held at 1 when few colours are seen
_SLOPE_PRIOR = 0.02
#: the fraction of pixels the tone curve is refitted to (tokens and misreads dropped)
_TONE_KEEP = 0.8


def _blocks(images: np.ndarray) -> np.ndarray:
    """Square linear pictures (flattened or not) as means of 4 x 4 blocks, flattened."""
    n = len(images)
    side = int(round(np.sqrt(images[0].size // 3)))
    return images.reshape(n, 4, side // 4, 4, side // 4, 3).mean((2, 4)).reshape(n, -1)


def _tone(patches: np.ndarray, pictures: np.ndarray) -> tuple[float, np.ndarray]:
    """The camera's tone curve from pairs of seen patches and the pictures they show
    (both (spots, n), linear): seen = gain(spot) * tint(channel) * picture ** slope,
    which is what white balance, exposure and a gamma off the standard one do. Fitted
    in logarithms, each spot's own gain removed, twice (the second time without the
    worst-fitting pixels); returns the slope and the tint (3,)."""
    spots = len(patches)
    y = np.log(patches.reshape(spots, -1, 3) + 1e-3)
    x = np.log(pictures.reshape(spots, -1, 3) + 1e-3)
    y = (y - y.mean((1, 2), keepdims=True)).reshape(-1, 3)
    x = (x - x.mean((1, 2), keepdims=True)).reshape(-1, 3)
    channel = np.broadcast_to(np.eye(3), (len(x), 3, 3)).reshape(-1, 3)
    design = np.column_stack([x.ravel(), channel])
    target = y.ravel()
    keep = np.ones(len(target), bool)
    for _ in range(2):
        a, b = design[keep], target[keep]
        prior = _SLOPE_PRIOR * len(b)
        normal = a.T @ a + np.diag([prior, 0, 0, 0])
        solution = np.linalg.solve(normal + 1e-9 * np.eye(4), a.T @ b + [prior, 0, 0, 0])
        residual = np.abs(design @ solution - target)
        keep = residual <= np.quantile(residual, _TONE_KEEP)
    return float(solution[0]), np.exp(solution[1:])


def _misfit(patches: np.ndarray, references: np.ndarray, keep: float):
    """How badly each reference explains each patch once scaled by its best gain:
    the mean of the best ``keep`` fraction of per-pixel differences, relative to the
    patch's brightness; and that gain. ``patches`` (spots, n), ``references``
    (spots or 1, candidates, n), both linear RGB flattened."""
    n = len(patches)
    seen = patches.reshape(n, 1, -1, 3).sum(-1)
    shown = references.reshape(*references.shape[:2], -1, 3).sum(-1)
    # the median brightness ratio: a token or a shadow over part of the coaster does
    # not pull the gain the way a least-squares fit would
    gain = np.maximum(np.median(seen / np.maximum(shown, 1e-6), axis=-1), 1e-6)
    # a camera saturates: nothing brighter than white is ever seen
    diff = np.abs(patches[:, None, :] - np.minimum(gain[..., None] * references, 1.0))
    side = int(round(np.sqrt(diff.shape[-1] // 3)))
    # per field (quarter of the patch), so trimming never hides a whole field
    per_pixel = diff.reshape(*diff.shape[:2], 2, side // 2, 2, side // 2, 3).sum(-1)
    per_pixel = per_pixel.transpose(0, 1, 2, 4, 3, 5).reshape(*diff.shape[:2], 4, -1)
    kept = max(1, int(keep * per_pixel.shape[-1]))
    if kept < per_pixel.shape[-1]:
        per_pixel = np.partition(per_pixel, kept - 1, axis=-1)[..., :kept]
    per_pixel = per_pixel.reshape(*diff.shape[:2], -1)
    brightness = patches.reshape(len(patches), -1, 3).sum(-1).mean(-1)
    return per_pixel.mean(-1) / np.maximum(brightness, 1e-6)[:, None], gain


def _usable(frame) -> bool:
    """A BGR frame with something in it (not all one value, as a dead camera gives)."""
    return (
        isinstance(frame, np.ndarray)
        and frame.ndim == 3
        and frame.shape[2] == 3
        and frame.dtype == np.uint8
        and min(frame.shape[:2]) >= 16
        and int(frame.max()) - int(frame.min()) > 8
    )
