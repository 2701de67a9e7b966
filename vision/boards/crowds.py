"""Fields several hats may share (Fang den Hut!): which hat, or the board, each probe
of a field's sites sees for every way of setting hats on its spots, found by casting
the camera's rays past the hats; and the cost of each such reading.

Scores readings the classifier hands it; it never looks at a frame.
"""

from __future__ import annotations

import itertools

import numpy as np

from vision import looks
from vision.boards.sight import LOW_PROBE_MM, UNSEEN_COST
from vision.boards.sites import Site, crowd_layouts, outward
from vision.looks import JOIN, Look

#: extra cost of each hat beyond the first on one field (-2 log of its odds: in random
#: Fang den Hut! games about one field in 16 that holds hats holds two, and one in 16
#: of those three)
CROWD_COST = 5.5
#: extra cost of a field holding a hat at all (-2 log of its odds: in random games
#: about one field in 12 beside the home fields holds one): a yellow hat on a yellow
#: field looks much like the field, and read up to ``placement_mm`` off its centre it
#: finds a likeness somewhere; an empty field is read where it is
HAT_COST = 4.7
#: a probe sees a hat (or none) of a crowded field when more than this share of its
#: points' rays meets that hat first (or none): their median shows it
CROWD_SHARE = 1 / 2
#: a probe that shows neither one hat nor the board, whose points' rays meet a hat
#: less often than this (more pass close by one), shows the board with the hat's
#: colour bled in: not a clean hat colour (3 of 12 points on a hat leave the median
#: among the points beside it)
NEAR_SHARE = 1 / 3
#: heights at which a ray is tested against the hats of a crowded field
RAY_STEPS = 33
#: a hat's colour bleeds this far (mm) past its outline in a frame (blur, and JPEG's
#: colour at half resolution): a probe that close to one shows no clear board
BLEED_MM = 4.0
#: the most a probe that shows a blend of hats and board may cost
BLEND_MOST = 25.0
#: what a reading costs that mixes hats of several colours on a field that holds one
#: colour only (looks.toml ``one_colour``)
MIXED_COST = 1000.0
#: what a spot's probe showing the board costs beyond the board's own cost where the
#: reading has it see the slope of a hat on another of the field's sites (its middle,
#: or the spot beside): people set a hat up to 5 mm off its place, and a probe looking
#: for its slope then lands on the print beside it. Without a bound the print decided
#: the hat's colour: a red hat set off a yellow field's middle left those probes on
#: the yellow print, which only a yellow hat's slope explained, and it was read yellow
OFF_MIDDLE_COST = 10.0
#: a hat beside others on a field is looked for off its spot, but at most this much
#: (mm) nearer the field's middle: two hats touching (18 mm wide, looks.toml) on
#: spots 20 mm apart stand 1 mm nearer it each; further in, a spot's probes would
#: find a hat standing alone in the middle
INWARD_MM = 1.0


class Crowds:
    """The fields several hats may share, for one pose: their sites (centre first) and,
    per count of hats, what the camera sees through each probe of each site (the hat
    on one spot, no hat, or a mix), from which each reading of a field is scored."""

    CLEAR, MIXED, NEAR = -1, -2, -3

    def __init__(self, sites: list[Site], look: Look, points: np.ndarray, eye: np.ndarray):
        _, layouts = crowd_layouts(look)
        hat = max((p for p in look.pieces.values() if not p.under), key=lambda p: p.height)
        self.colours = [p.token for p in look.pieces.values() if not p.under]
        self.probes = len(look.probes)
        self.low = np.array([probe.z <= LOW_PROBE_MM for probe in look.probes])
        fields: dict[str, list[int]] = {}
        for i, site in enumerate(sites):
            if site.slot is None:
                fields.setdefault(site.cell, []).append(i)
        #: (fields, sites of a field): the site rows, the centre first
        self.rows = np.array(list(fields.values()))
        xy = np.array([site.xy for site in sites])
        index, holds, names, prior = [], [], [None], [0.0]
        for count, layout in sorted(layouts.items()):
            views = self._views(points[self.rows], eye, xy[self.rows[:, list(layout)]], hat)
            # every way of setting ``count`` of the colours on the spots
            sets = np.array(list(itertools.product(range(len(self.colours)), repeat=count)))
            pick = sets[:, np.maximum(views, 0)].transpose(1, 0, 2, 3)
            # a probe sees a hat standing on another spot from outside: its slope (the
            # options of a probe: each colour as a hat on its own spot shows it, each as
            # seen from beside, the board, then the blends)
            own = np.array(layout)[np.maximum(views, 0)] == np.arange(views.shape[1])[:, None]
            pick = pick + len(self.colours) * ~own[:, None]
            board = np.select([views == self.CLEAR, views == self.NEAR], [0, 1], 2)
            clear = 2 * len(self.colours) + board[:, None]
            index.append(np.where(views[:, None] >= 0, pick, clear))
            holds.append(sets[:, :, None] == np.arange(len(self.colours)))
            names += [JOIN.join(sorted(self.colours[c] for c in chosen)) for chosen in sets]
            prior += [HAT_COST + CROWD_COST * (count - 1)] * len(sets)
        index = np.concatenate(index, axis=1)
        # the fields whose hats are all of one colour (looks.toml ``one_colour``): a
        # reading that mixes colours there costs MIXED_COST
        kinds = looks.data()["games"][look.game].get("one_colour", [])
        one = np.array([sites[row].kind in kinds for row in self.rows[:, 0]], bool)
        mixes = np.array([len(set(looks.split(name))) > 1 for name in names[1:]], dtype=bool)
        #: (fields, readings with hats) what the rule book says of each reading
        self.ruled = np.where(one[:, None] & mixes[None], MIXED_COST, 0.0).astype(np.float32)
        #: (readings with hats, sites of a field) the sites a reading stands a hat on
        self.standing = np.concatenate(
            [
                np.repeat(np.isin(np.arange(self.rows.shape[1]), layouts[n])[None], len(h), 0)
                for n, h in zip(sorted(layouts), holds)
            ]
        )
        #: the sets of colours readings hold (colours), and which each reading holds
        self.holds, held = np.unique(
            np.concatenate([h.any(axis=1) for h in holds]), axis=0, return_inverse=True
        )
        #: per reading with hats, which set of colours of ``holds`` it holds
        self.held = held.ravel()
        # a probe that sees a mix counts the blend of the set of colours the reading holds
        mixed = index == 2 * len(self.colours) + 2
        index = np.where(mixed, 2 * len(self.colours) + 2 + held.reshape(1, -1, 1, 1), index)
        fields, width = self.rows.shape
        options = 2 * len(self.colours) + 2 + len(self.holds)
        place = np.arange(fields * width * self.probes).reshape(fields, 1, width, self.probes)
        #: (fields, readings, sites, probes): which option of each probe a reading
        #: counts, in the flattened (fields, sites, probes, options) of ``read``
        self.index = place * options + index
        self.names = names
        self.prior = np.array(prior, np.float32)

    def _views(self, points, eye, hats, hat) -> np.ndarray:
        """Per field, site and probe (``points``, hats standing at ``hats``, each
        field's): the hat it sees, CLEAR, NEAR (few of its points' rays meet a hat,
        more pass close by one) or MIXED. Each probe on its own: a probe near a hat's
        tip sees that hat past a neighbour that hides the same hat from the site's
        low probe. Every field at once: one field at a time took most of the time a
        Fang den Hut! board was located."""
        flat = points.reshape(len(points), -1, 3)
        hits, near = (
            seen.reshape(points.shape[:4])
            for seen in _first_hat(flat, eye, hats, hat, (0.0, BLEED_MM))
        )
        shares = np.stack(
            [(near < 0).mean(axis=3), *((hits == j).mean(axis=3) for j in range(hats.shape[1]))],
            axis=3,
        )
        seen = np.where(shares.max(axis=3) > CROWD_SHARE, shares.argmax(axis=3) - 1, self.MIXED)
        # a high probe over a spot without a hat may see anything past it
        near = (seen == self.MIXED) & ((hits >= 0).mean(axis=3) < NEAR_SHARE) & self.low
        return np.where(near, self.NEAR, seen)

    def read(
        self,
        rows: np.ndarray,
        cost: np.ndarray,
        names: list,
        limit: float,
        probes,
        slopes,
        shaded,
        stands=None,
    ):
        """Split one group's per-site costs (``rows`` sorted, ``cost`` over the
        readings ``names``, ``probes`` the same per probe) into (rows, cost, names,
        limit) of the single sites and of the fields (each on its centre row, a
        reading's name as ``observe`` joins it). ``slopes`` (sites, colours, probes) is
        what a probe seeing a hat beside it costs, where the probe stands (its
        slope, or its colour as a hat on that site shows it; ``probes`` has each
        site's hats where they explain the probes best: a spot's moved probes would
        find the hat in the middle), ``shaded`` (sites, probes) what the
        board, perhaps in a hat's shadow, costs; ``stands`` (per site: a field's disc
        as unlike its print as it looks, a hat there (``Prints.costs``), and per
        colour what the colour of the part of its disc unlike the print costs) what
        the field's print says of it being bare, or holding hats, and of a hat on
        each spot beside its middle."""
        at = np.searchsorted(rows, self.rows)
        site = probes[at]  # (fields, sites, readings, probes)
        empty = site[:, :, names.index(None)]
        colour = np.moveaxis(site[:, :, [names.index(colour) for colour in self.colours]], 2, 3)
        slope = np.moveaxis(slopes[at], 2, 3)
        # the middle's probes, moved, may find a hat beside it: the pair's between them
        slope[:, 0] = np.minimum(slope[:, 0], colour[:, 0])
        colour = np.concatenate([colour, slope], axis=3)
        shaded = shaded[at]
        # a probe partly on a hat and partly on the board shows a blend of them; a clean
        # colour of no hat the reading holds there is unlikely, though how unlikely the
        # blend does not say
        by_colour = np.moveaxis(slope, 3, 0)
        held = np.stack([by_colour[holds].min(axis=0) for holds in self.holds], axis=3)
        blend = np.clip(np.minimum(held, shaded[..., None]), UNSEEN_COST * 0.5, BLEND_MOST)
        # the board, perhaps in the shadow of a hat here or on a neighbouring field; an
        # empty field's centre is far enough from its neighbours' hats to show no shadow
        clear = np.minimum(empty, shaded)
        # board with a nearby hat's colour bled into it: never a clean hat's colour
        near = np.minimum(clear, BLEND_MOST)
        # a spot's probe that would see the slope of a hat on another site may see the
        # board there: the hat was set down off its place, away from the probe
        beside = colour[:, 1:, :, len(self.colours) :]
        beside[...] = np.minimum(beside, clear[:, 1:, :, None] + OFF_MIDDLE_COST)
        options = np.concatenate([colour, clear[..., None], near[..., None], blend], axis=3)
        spread = options.ravel()[self.index].sum(axis=(2, 3))
        bare = empty[:, 0].sum(axis=1) + clear[:, 1:].sum(axis=(1, 2))
        field = np.concatenate([bare[:, None], spread], axis=1)
        if stands is not None:
            bare, hats, hue = stands
            field[:, 0] += bare[self.rows[:, 0]]
            field[:, 1:] += hats[self.rows[:, 0], None]
            # a hat on a spot beside the middle whose disc looks like its print: the
            # disc there looks unlike it by less than a hat would (a spot's disc that
            # looks unlike it says little: a hat on the next field shades it)
            like = np.maximum(hats - bare, 0.0)[self.rows[:, 1:]]  # (fields, spots)
            field[:, 1:] += (self.standing[None, :, 1:] * like[:, None]).sum(axis=2)
            # a field whose print changed shows its hats' colour: the nearest of those
            # a reading holds
            hue = hue[self.rows[:, 0]]  # (fields, colours)
            nearest = np.stack([np.where(h, hue, np.inf).min(axis=1) for h in self.holds], 1)
            field[:, 1:] += nearest[:, self.held]
        field[:, 1:] += self.ruled
        single = ~np.isin(rows, self.rows)
        return [
            (rows[single], cost[single], names, limit),
            (self.rows[:, 0], field + self.prior, self.names, limit * self.rows.shape[1]),
        ]


def inward(sites: list[Site], moves: np.ndarray) -> np.ndarray:
    """(offsets, sites): whether a hat on a spot beside a field's middle, set down
    ``moves`` (offsets, sites, 2 mm) off it, stands nearer the middle than INWARD_MM
    less than its spot: it would stand in the hat beside it (hats of a crowd touch, a
    hat's width apart)."""
    spots = np.array([site.spot is not None for site in sites])
    towards = (moves * outward(sites)[None]).sum(axis=2)
    # rounded: a move of exactly INWARD_MM in is looked at
    return (np.round(towards, 6) < -INWARD_MM) & spots[None]


def _first_hat(points: np.ndarray, eye: np.ndarray, hats: np.ndarray, hat, margins):
    """Per margin of ``margins``, for each point (fields, n, 3): the hat (of each
    field's ``hats`` standing at (fields, k, 2) mm, shaped as ``hat`` and the margin
    mm wider) that the camera's ray through it meets first, -1 for none."""
    heights = np.linspace(hat.height, 0.0, RAY_STEPS)
    reach = (eye[2] - heights) / np.maximum(eye[2] - points[..., 2:3], 1e-6)
    xy = eye[:2] + reach[..., None] * (points[..., None, :2] - eye[:2])  # (f, n, heights, 2)
    # (f, n, h, k): each component apart on its own, no (f, n, h, k, 2) array to sum
    dx = xy[..., None, 0] - hats[:, None, None, :, 0]
    dy = xy[..., None, 1] - hats[:, None, None, :, 1]
    apart = np.sqrt(dx * dx + dy * dy)
    found = []
    for margin in margins:
        radius = np.broadcast_to(hat.radius_at(heights), heights.shape) + margin
        distance = apart / radius[:, None]
        inside = (distance <= 1).any(axis=-1)
        first = inside.argmax(axis=-1)
        at_first = np.take_along_axis(distance, first[..., None, None], axis=-2)[..., 0, :]
        found.append(np.where(inside.any(axis=-1), at_first.argmin(axis=-1), -1))
    return found
