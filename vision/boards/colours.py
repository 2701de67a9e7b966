"""The pieces' colours as the camera sees them: per piece and probe, through its top
and through its side, the mean log colour ratio to the plain board under the same
light and its spread, learned from a known position; a channel never seen is
predicted from the piece's other channels, else from its colour in
``vision/looks.toml`` under the light the learned pieces show.

Keeps colours only; which probe sees what of a piece is the classifier's business.
"""

from __future__ import annotations

import math

import numpy as np

from vision.boards.probes import linear_levels
from vision.boards.sight import SIDE, TOP
from vision.looks import Look

#: spreads of log colour ratios: floor and ceiling of learned ones, and an unlearned one
SPREAD_MIN, SPREAD_MAX, SPREAD_NOMINAL = 0.12, 0.35, 0.3
#: the floor of a spread learned from a single sample (shrinking with more)
SPREAD_FEW = 0.2
#: how the top face and the side of a solid are shaded relative to its colour in
#: looks.toml, for a piece not learned yet (the side gets less of the light from above)
TOP_SHADE, SIDE_SHADE = 0.95, 0.62


class Colours:
    """Per token and channel (a probe through the TOP, then the same through the
    SIDE): mean log colour ratio, its spread, whether learned."""

    def __init__(self, look: Look):
        self.look = look
        self.linear = linear_levels(look)
        self.means: dict[str, np.ndarray] = {}
        self.spreads: dict[str, np.ndarray] = {}
        self.learned: dict[str, np.ndarray] = {}
        #: what is kept until the next learning (the light the learned pieces show)
        self._kept: dict[str, np.ndarray | None] = {}

    def carry(self, other: Colours) -> None:
        """Take every colour ``other`` learned."""
        self.means = {k: v.copy() for k, v in other.means.items()}
        self.spreads = {k: v.copy() for k, v in other.spreads.items()}
        self.learned = {k: v.copy() for k, v in other.learned.items()}
        self._kept.clear()

    def forget(self, token: str) -> None:
        """Start ``token`` afresh: nothing learned of it."""
        k = 2 * len(self.look.probes)
        self.means[token] = np.zeros((k, 3), np.float32)
        self.spreads[token] = np.full(k, SPREAD_NOMINAL, np.float32)
        self.learned[token] = np.zeros(k, bool)
        self._kept.clear()

    def learn(self, token: str, c: int, samples: np.ndarray, weight: float) -> None:
        """Take ``samples`` (n, 3) log colour ratios of ``token`` through channel
        ``c``, weighing them ``weight`` against what was learned there before."""
        mean = samples.mean(axis=0)
        # a spread from few samples says little: no tighter than the nominal shrunk
        spread = max(spread_of(samples), min(SPREAD_FEW, SPREAD_NOMINAL / math.sqrt(len(samples))))
        if self.learned[token][c]:
            mean = (1 - weight) * self.means[token][c] + weight * mean
            spread = (1 - weight) * self.spreads[token][c] + weight * spread
        self.means[token][c] = mean
        self.spreads[token][c] = spread
        self.learned[token][c] = True
        self._kept.clear()

    def prototype(self, token: str, channel: int) -> tuple[np.ndarray, float]:
        """What ``token`` adds to an empty cell through ``channel`` (mean log colour
        ratio) and its spread: as learned there, else as learned through its other
        probes with the same view, else as learned through the other view shaded
        like this one, else from its colour in looks.toml."""
        view = channel // len(self.look.probes)
        shade = math.log((TOP_SHADE, SIDE_SHADE)[view] / TOP_SHADE)
        if token in self.means:
            learned = self.learned[token]
            if learned[channel]:
                return self.means[token][channel], float(self.spreads[token][channel])
            same = learned & (self._views() == view)
            if same.any():
                return self.means[token][same].mean(axis=0), SPREAD_NOMINAL
            if learned.any():
                return self._as_top(token) + shade, SPREAD_NOMINAL
        colour = self._log_colour(self.look.piece(token).colour) + math.log(TOP_SHADE)
        light = self._light_now()
        if light is not None:  # relative to colours already learned under this light
            return colour + light + shade, SPREAD_NOMINAL
        return colour - self._log_colour(self.look.surface) + shade, SPREAD_NOMINAL

    def _log_colour(self, rgb) -> np.ndarray:
        """Log linear colour (BGR) of an sRGB colour from looks.toml."""
        return np.log(self.linear[np.array(rgb[::-1])])

    def _views(self) -> np.ndarray:
        """The view (TOP or SIDE) of each channel."""
        return np.repeat([TOP, SIDE], len(self.look.probes))

    def _light_now(self) -> np.ndarray | None:
        """How learned token colours relate to their colours in looks.toml (mean log
        offset over the learned ones), None before any was learned; kept until the
        next learning."""
        if "light" not in self._kept:
            anchors = [t for t in self.means if t in self.look.pieces and self.learned[t].any()]
            self._kept["light"] = (
                np.mean(
                    [
                        self._as_top(t)
                        - (self._log_colour(self.look.piece(t).colour) + math.log(TOP_SHADE))
                        for t in anchors
                    ],
                    axis=0,
                )
                if anchors
                else None
            )
        return self._kept["light"]

    def _as_top(self, token: str) -> np.ndarray:
        """A learned token's mean log colour ratio as its top would show it."""
        learned = self.learned[token]
        side = math.log(SIDE_SHADE / TOP_SHADE) * (self._views()[learned] == SIDE)
        return (self.means[token][learned] - side[:, None]).mean(axis=0)


def spread_of(samples: np.ndarray) -> float:
    """A log-colour spread from samples (n, 3): twice their per-channel deviation,
    within bounds (few samples say little about the spread)."""
    deviation = float(np.sqrt(samples.var(axis=0).mean())) if len(samples) > 1 else 0.0
    return float(np.clip(2 * deviation + 0.03, SPREAD_MIN, SPREAD_MAX))
