"""Cells to tokens: normalise each probe by what the empty cell looks like under the
same light, and name the piece on each site with a confidence, every site's reading
chosen together (a single piece on one site, what stays where it stood).

Empty references and token colours are learned from a known position (the start
position when a game starts, each committed position after that); tokens never seen
yet start from their colours in ``vision/looks.toml``. Classifies only; whether the
frame is still enough to read is ``vision.stillness``'s business.
"""

from __future__ import annotations

import math

import numpy as np

from vision.boards.choosing import cells, one_each, ranked_labels
from vision.boards.colours import SPREAD_NOMINAL, Colours, spread_of
from vision.boards.crowds import Crowds, inward
from vision.boards.hiding import Hiding
from vision.boards.rings import EmptyRings, Rings, guessed_costs
from vision.boards.sight import (
    ANY,
    BEYOND,
    BOARD,
    EDGE,
    SEES_ANY,
    SEES_BEYOND,
    SEES_BOARD,
    SEES_PAST,
    SEES_SHADED_BOARD,
    SEES_SHADED_TOKEN,
    SEES_TOKEN,
    SIDE,
    TOP,
    UNSEEN_COST,
    Past,
    Shaded,
    bleeds,
    hypotheses,
    stacks_of,
    views,
)
from vision.boards.sites import Site
from vision.looks import Look
from vision.observation import Observation

#: spread of a site's empty look borrowed from its neighbours (never seen empty)
SPREAD_BORROWED = 0.3
#: a probe's cost is capped so one odd probe cannot outvote the others entirely
COST_CAP = 200.0
#: a figure's shadow beside it, or its own side hiding the points behind it, leaves
#: a ``darkest`` probe around it at most this much of the light (log) of what lies
#: there: a figure on a disk of its own colour, seen from straight above
SHADE_MOST = math.log(0.8)
#: ... though it may not (a white figure's side under a flash, its shadow behind it):
#: a figure costs at most this much through a ``darkest`` probe
SHADE_CAP = 2 * UNSEEN_COST
#: a site whose best reading costs more than this shows nothing the reader knows
#: (a finger, a sleeve); this many such sites and the frame is not read
UNEXPLAINED_COST = 120.0
UNEXPLAINED_SITES = 3
#: extra cost of a reading with a figure on a disk (-2 log of its prior odds)
STACK_COST = 4.0
#: extra cost of a reading that moves a piece that ``stays`` (looks.toml) from where the
#: last known position had it, or puts one where it had none (-2 log of the odds that
#: one was knocked off or misplaced since: about one in three million, as the rule
#: book never moves them; at one in 400 a green hare or a molehill was read as a tree
#: on a hollow that holds none)
MOVED_COST = 30.0
#: the darkest shadow a hat casts beside it (log of the light left)
SHADOW = math.log(0.4)
#: extra cost of a piece read a ring further off its cell's centre (-2 log of the
#: odds it stands there rather than nearer)
OFF_CENTRE = 1.0
#: a site and this many of its nearest ones share their board level
NEIGHBOURS = 7
#: weight of the newest sample when a reference is refreshed
REFRESH = 0.3
#: what the colour of the part of a field's disc unlike its print (``Prints``) counts
#: toward each hat colour: a probe's worth (a median of ~20 points), at most half its cap
HUE_WEIGHT, HUE_MOST = 1.0, 100.0


class Classifier:
    """Learned references for one pose: empty sites per probe, token colours.

    ``sight`` is the ``Sampler`` of the pose (its probes' points, the camera's centre
    and scale): with it a piece's colour is learned and predicted apart for probes
    that see its top and its side (without it, all as its top), and not from probes
    that see the rim between them."""

    def __init__(self, sites: list[Site], look: Look, centres: np.ndarray, sight=None):
        self.sites, self.look, self.sight = sites, look, sight
        self.centres = centres
        self.slotted = np.array([s.slot is not None for s in sites])
        #: every reading a site can have, with what each probe sees then: for the plain
        #: sites (False) and a home field's spots (True)
        self.readings = {slot: hypotheses(look, slot) for slot in (False, True)}
        #: the fields several hats may share (needs the probes' points and the camera)
        self.crowds = (
            Crowds(sites, look, sight.points, sight.eye)
            if sight is not None and any(s.spot is not None for s in sites)
            else None
        )
        #: per hypothesis list: (sites, hypotheses, probes) TOP, SIDE or EDGE, and the
        #: pieces each hypothesis stands on a site
        self.view: dict[int, np.ndarray] = {}
        self.stacks: dict[int, list[list]] = {}
        #: per hypothesis list: where a figure's colour may show the disk under it
        self.bleeds: dict[int, tuple | None] = {}
        #: the last known position's pieces that stay, and which sites may hold a disk
        self._disks: tuple[list, np.ndarray] = ([], np.zeros(0, bool))
        for slot in (False, True):
            stacks = [stack for _, stack in stacks_of(look, slot)]
            self.stacks[slot] = stacks
            self.bleeds[slot] = bleeds(look, stacks)
            self.view[slot] = (
                views(look, stacks, sites, sight)
                if sight is not None
                else np.full((len(sites), len(stacks), len(look.probes)), TOP, np.int8)
            )
        #: the extra cost of reading a piece at each offset the sampler looks at
        rings = sight.rings if sight is not None else np.zeros(1)
        moves = sight.moves if sight is not None else np.zeros((1, len(sites), 2))
        #: (offsets, sites) the extra cost of a piece read at each offset
        self.off_centre = np.where(
            inward(sites, moves), np.inf, OFF_CENTRE * rings[:, None]
        ).astype(np.float32)
        self.spots = np.array([s.spot is not None for s in sites])
        #: the home fields' rings of spots, and the extra cost of a piece read at each
        #: offset from its spot the sampler looks at
        self.rings = Rings(sites, [label for label, _ in self.readings[True]])
        self.ring_off = OFF_CENTRE * (sight.ring_rings if sight is not None else np.zeros(1))
        self.ring_empty = np.array([label is None for label, _ in self.readings[True]])
        #: which probes the pieces standing on other sites hide from the camera
        self.hiding = None
        if sight is not None:
            xy = np.array([s.xy for s in sites])
            self.hiding = Hiding(sight, xy, [s.cell for s in sites])
        #: per token: (sites, probes) what each probe sees of it standing alone
        self.alone = {
            label: self.view[False][:, h]
            for h, (label, stack) in enumerate(stacks_of(look, False))
            if len(stack) == 1
        }
        #: the probes some reading sees a figure's shade through (a ``darkest`` probe
        #: elsewhere reads a piece or the board as any other probe does)
        self.shading = np.array(
            [
                any(
                    isinstance(seen[k], Shaded)
                    for hyps in self.readings.values()
                    for _, seen in hyps
                )
                for k in range(len(look.probes))
            ]
        )
        self.empty = np.ones((len(sites), len(look.probes), 3), np.float32)
        self.known = np.zeros(len(sites), bool)
        #: each home field's spots' empty look at every turn of its ring
        self.empty_rings = EmptyRings(self.rings, REFRESH)
        self.spread_empty = 0.12
        #: per token, its colours through each probe's view of its top and its side
        self.colours = Colours(look)
        #: the plain board points as first learned: the light the references are in
        self.paper: np.ndarray | None = None
        self._predicted: dict = {}
        self._levels: np.ndarray | None = None
        #: each site and its nearest neighbours in the frame
        distance = np.linalg.norm(centres[:, None] - centres[None], axis=2)
        self.near = np.argsort(distance, axis=1)[:, :NEIGHBOURS]
        #: sites the last frame showed something unknown on
        self.unexplained = 0
        #: per site the piece that stays there as last known ("" none, None unknown),
        #: and the pieces the last known position holds
        self.kept: list[str | None] = [None] * len(sites)
        #: per single piece on the board, the sites the last reading found likeliest
        self.candidates: dict[str, np.ndarray] = {}
        self.present: set[str] = set()

    @property
    def ready(self) -> bool:
        return bool(self.known.any())

    def carry(self, other: Classifier) -> None:
        """Take every reference ``other`` (the same sites, another pose) learned: the
        empty looks, the token colours, the light they were learned in and what
        stays where."""
        self.empty, self.known = other.empty.copy(), other.known.copy()
        self.empty_rings = other.empty_rings.copy()
        self.spread_empty = other.spread_empty
        self.colours.carry(other.colours)
        self.paper = other.paper
        self.kept, self.present = list(other.kept), set(other.present)
        self._predicted.clear()
        self._levels = None

    # --- learning ----------------------------------------------------------------------

    def learn(
        self, features: np.ndarray, paper: np.ndarray, labels: list[str | None], fresh: bool
    ) -> None:
        """Take ``labels`` (per site) as the truth of ``features``: refresh the empty
        references and token colours (``fresh``: forget what was learned before).
        ``paper`` is the plain board seen in the same frame."""
        self._predicted.clear()
        self._levels = None
        if fresh or self.paper is None:
            self.paper = paper
        features = features / self._gain(paper)
        empty = np.array([label is None for label in labels])
        weight = 1.0 if fresh else REFRESH
        if fresh:
            self.known[:] = False
            self.kept = [None] * len(self.sites)
        before = list(self.kept)
        self._remember(labels)
        # a piece that stays, placed or lifted, sets the board up anew: its shadow is new
        renewed = 1.0 if any(k not in (None, n) for k, n in zip(before, self.kept)) else weight
        # a probe a piece on another site hides shows that piece: nothing learned there
        hidden, beyond = self._hidden_by(labels)
        seen = ~(hidden | beyond)
        renew = (empty & self.known)[:, None] & seen
        # how far an empty site strays from its reference, taken before this frame
        # refreshes it; a first lesson has none, and how its empty sites stray from
        # their empty neighbours stands in (the paper's grain, the sensor's noise)
        strays = np.log(features / self.empty)[renew] if renew.any() else None
        self.empty[renew] = (1 - renewed) * self.empty[renew] + renewed * features[renew]
        self.empty[empty & ~self.known] = features[empty & ~self.known]
        self.known |= empty
        self._fill_unknown()
        if strays is None and empty.any():
            strays = self._strays(features, empty, seen)
        if strays is not None and len(strays):
            self.spread_empty = spread_of(strays)
        ratio = np.log(features / self._level())
        for token in {label for label in labels if label in self.look.pieces}:
            probes = self._own_probes(token)
            # the ratio is to the light at the site, which a site never seen empty
            # borrows from its neighbours: the start position teaches every colour
            rows = [i for i, label in enumerate(labels) if label == token]
            if not probes or not rows:
                continue
            if token not in self.colours.means or fresh:
                self.colours.forget(token)
            # each probe and view on its own: a figure's top and its side are lit
            # differently
            rows = np.array(rows)
            for k in probes:
                shown = rows[~hidden[rows, k]]
                channels = self._channel(token, shown, k)
                # a probe on the rim shows neither the top nor the side
                for c in np.unique(channels[channels < 2 * len(self.look.probes)]):
                    self.colours.learn(token, c, ratio[shown[channels == c], k], weight)

    def learn_rings(self, turned, paper: np.ndarray, labels: list[str | None], fresh: bool) -> None:
        """Take the home fields ``labels`` leave empty as showing their empty look at
        every turn of their rings (``turned``: ``Sampler.turned_features``)."""
        if len(self.rings.rows) and turned is not None:
            bare = np.array([labels[i] is None for i in self.rings.rows])
            self.empty_rings.learn(turned[:, 0] / self._gain(paper), bare, fresh)

    def _strays(self, features: np.ndarray, empty: np.ndarray, seen: np.ndarray) -> np.ndarray:
        """(n, 3) log colour of each seen probe of an empty site whose neighbours are
        all empty, against their median through the same probe."""
        among = empty[self.near].all(axis=1)
        near = np.median(features[self.near[among]], axis=1)
        return np.log(features[among] / near)[seen[among]]

    def _remember(self, labels: list[str | None]) -> None:
        """Keep what stays where, and which pieces are on the board, from a known
        position (under a figure the piece that stays there is not seen: as before)."""
        pieces = self.look.pieces
        for i, label in enumerate(labels):
            if label is None:
                self.kept[i] = ""
            elif label in pieces and pieces[label].stays:
                self.kept[i] = label
        self.present = {label for label in labels if label in pieces}

    def _hidden_by(self, labels: list[str | None]) -> tuple[np.ndarray, np.ndarray]:
        """(sites, probes) twice: the probes the pieces ``labels`` name hide, and those
        that see one of them past the probe (``Hiding.hidden``)."""
        if self.hiding is None:
            none = np.zeros(self.empty.shape[:2], bool)
            return none, none
        pieces = self.look.pieces
        return self.hiding.hidden([[pieces[label]] if label in pieces else [] for label in labels])

    def _channel(self, token: str, sites, probe: int):
        """The channel through which ``probe`` sees ``token`` alone on ``sites``."""
        return probe + len(self.look.probes) * self.alone[token][sites, probe].astype(int)

    def _level(self) -> np.ndarray:
        """(sites, 1, 3) what a piece's colour is compared with: the first probe's
        empty look under the light at each site (the plain board, or a hole's ring
        read at its darkest), the brighter among it and its neighbours' (a probe near
        a printed line or a coloured ring sees that, not the light)."""
        if self._levels is None:
            self._levels = np.percentile(self.empty[self.near, 0], 75, axis=1)[:, None]
        return self._levels

    def _own_probes(self, token: str) -> list[int]:
        """Probes that see ``token`` itself whatever lies under it."""
        seen = [s for label, s in self.readings[False] if label == token]
        return [k for k in range(len(self.look.probes)) if all(s[k] == token for s in seen)]

    def _fill_unknown(self) -> None:
        """Sites never seen empty borrow the references of the nearest ones that were."""
        if not self.known.any() or self.known.all():
            return
        known = np.flatnonzero(self.known)
        for i in np.flatnonzero(~self.known):
            d = np.linalg.norm(self.centres[known] - self.centres[i], axis=1)
            nearest = known[np.argsort(d)[:3]]
            self.empty[i] = np.exp(np.log(self.empty[nearest]).mean(axis=0))

    # --- reading -----------------------------------------------------------------------

    def lesson(self, features, turned, paper, labels: list[str | None]):
        """``features`` and ``labels`` of a lesson with each home field's ring sites at
        the turn, offsets and order round it that best explain the hats it is known to
        hold (``turned``: ``Sampler.turned_features``), by what was learned or looks.toml."""
        rows = self.rings.rows
        if not len(rows) or turned is None:
            return features, labels
        names = [label for label, _ in self.readings[True]]
        if self.ready:
            cost = self._turned_costs(turned, paper).sum(axis=4)
        else:
            k = len(self.look.probes)
            means = np.array(
                [
                    [self.colours.prototype(t, p)[0] if t else np.zeros(3) for p in range(k)]
                    for t in names
                ]
            )
            cost = guessed_costs(turned, paper, means, SPREAD_NOMINAL, COST_CAP)
        cost, offsets = self.rings.settle(cost, self.ring_off, self.ring_empty)
        known = np.array([names.index(labels[i]) for i in rows])
        turns, readings = self.rings.lesson(cost, known)
        taught = dict(zip(rows, readings))
        labels = [names[taught[i]] if i in taught else label for i, label in enumerate(labels)]
        offsets = offsets[turns, np.arange(len(rows)), readings]
        return self.rings.at(features, turned, turns, offsets), labels

    def _turned_costs(self, turned: np.ndarray, paper: np.ndarray) -> np.ndarray:
        """``_costs`` (turns, offsets, ring sites, readings, probes) of the ring sites
        at each turn and offset the sampler tries."""
        rows, k = self.rings.rows, len(self.look.probes)
        f = turned / self._gain(paper)
        empty = self.empty_rings.at_turns(self.empty[rows], len(f))
        boards, ratios = np.log(f / empty[:, None]), np.log(f / self._level()[rows])
        every = np.tile(rows, boards.shape[0] * boards.shape[1])
        cost = self._costs(every, boards.reshape(-1, k, 3), ratios.reshape(-1, k, 3), True)
        return cost.reshape(boards.shape[:3] + cost.shape[1:])

    def classify(
        self, features: np.ndarray, paper: np.ndarray, visible: np.ndarray, turned=None, stands=None
    ) -> Observation:
        """Name the piece on each site, and join sites into cells. Read once, then
        again without the probes the pieces read hide (a tree in front of a cell seen
        from low); the first reading says whether something unknown is in view.
        ``features`` (sites, probes, 3), or (offsets, sites, probes, 3) with the
        probes moved to where a piece set off its centre may stand (``Sampler``);
        ``turned``: the home fields' ring sites' at each turn of their rings, each
        field read at the turn that explains it best; ``stands``: what its print says
        of each field being bare or holding hats (``Prints.costs``)."""
        placed = features if features.ndim == 4 else features[None]
        f = placed / self._gain(paper)
        boards = np.log(f / self.empty)  # (O, S, K, 3)
        ratios = np.log(f / self._level())
        board, ratio = boards[0], ratios[0]
        groups, ring = [], None
        for group, slot in ((~self.slotted, False), (self.slotted, True)):
            rows = np.flatnonzero(group)
            if not len(rows):
                continue
            if slot and turned is not None:
                each = self.rings.admitted(self._turned_costs(turned, paper))
                cost, off = self.rings.settle(each.sum(axis=4), self.ring_off, self.ring_empty)
                each = np.take_along_axis(each, off[:, None, ..., None], axis=1)[:, 0]
                places = self.sight.ring_places
                cost, *at = self.rings.nudged(cost, off, self.ring_empty, places)
                at.append(np.arange(cost.shape[2]))
                each, off = each[tuple(at)], off[tuple(at)]
                turn = self.rings.read_turns(cost + self._tables(slot, rows)[3])
                spots = np.arange(len(rows))
                probes = each[turn, spots]
                ring = at[0][turn, spots], at[1][turn, spots], off[turn, spots]
            else:
                probes, still = self._placed(rows, boards[:, rows], ratios[:, rows], slot)
            crowd = None
            if not slot and self.crowds is not None:
                # a field several hats may share is read from all its sites at once; a
                # hat beside a probe shows where the probe stands
                names = [label for label, _ in self.readings[slot]]
                own = still[:, [names.index(c) for c in self.crowds.colours]]
                crowd = (
                    np.minimum(own, self._slopes(ratio[rows], self.crowds.colours)),
                    self._shaded(rows, board[rows]),
                    self._hues(stands, paper),
                )
            groups.append((rows, slot, probes, crowd))
        parts, stacks, self.unexplained = self._read(groups)
        if self.hiding is not None:
            # a piece that stays where the last known position had it hides what stands
            # behind it (the same for every reading of a site) even where the first
            # reading missed it; what a probe shows past a bare cell (a hat right behind
            # a low one too), which spares only the empty reading, comes from what the
            # frame was read to hold
            # the home fields' hats where they were read (the ring sites' part is last)
            places = self.sight.ring_places
            stacks, moved = self.rings.standing(stacks, places, parts[-1][1], ring)
            hidden, beyond = self.hiding.hidden(self._with_kept(stacks), stacks, moved)
            if hidden.any() or beyond.any():
                parts = self._read(groups, (hidden, beyond))[0]
        labels: list[str | None] = [None] * len(self.sites)
        probs: list[list[tuple[str | None, float]]] = [[] for _ in self.sites]
        for rows, cost, names, _ in parts:
            for i, ranked in zip(rows, ranked_labels(cost, names)):
                labels[i] = ranked[0][0]
                probs[i] = ranked
        return cells(self.sites, labels, probs, visible)

    def _read(self, groups, hiding=None):
        """Costs of every reading: (rows, costs, names, limit) of the single sites and
        of the crowded fields (each on its centre row); per site the pieces its best
        single reading stands there (none on a crowded field's spots); how many sites
        or fields show nothing known. ``groups``: (rows, hypotheses, per probe costs,
        a crowded field's slope and shade costs or None) of the plain and the slot
        sites. ``hiding``: (sites, probes) the probes a piece on another site hides,
        and those where an empty site's probe shows one past it: they count as seeing
        anything."""
        parts: list[tuple] = []
        stacks: list[list] = [[] for _ in self.sites]
        unexplained = 0
        for rows, slot, probes, crowd in groups:
            probes, cost = self._whole_costs(rows, slot, probes, hiding)
            names = [label for label, _ in self.readings[slot]]
            if not slot:
                cost, self.candidates = one_each(cost, names, self.look.pieces, self.present)
            for i, h in zip(rows, cost.argmin(axis=1)):
                if self.sites[i].spot is None:
                    stacks[i] = self.stacks[slot][h]
            part = (rows, cost, names, UNEXPLAINED_COST * len(self.look.probes))
            found = [part] if crowd is None else self.crowds.read(*part, probes, *crowd)
            for _, cost, _, limit in found:
                unexplained += int(np.count_nonzero(cost.min(axis=1) > limit))
            parts += found
        return parts, stacks, unexplained

    def _whole_costs(self, rows, slot: bool, probes, hiding=None) -> tuple:
        """The per probe costs of the sites ``rows`` (those hidden or seeing past a
        piece count as seeing anything, see ``_read``) and each reading's whole cost
        there, before a single piece is kept to one site."""
        if hiding is not None:
            kinds = self._tables(slot, rows)[2]
            hidden, beyond = hiding[0][rows][:, None], hiding[1][rows][:, None]
            unseen = hidden | (beyond & np.isin(kinds, (SEES_BEYOND, SEES_PAST, SEES_BOARD)))
            probes = np.where(unseen, UNSEEN_COST * 0.5, probes)
        return probes, probes.sum(axis=2) + self._tables(slot, rows)[3] + self._moved(rows, slot)

    def _with_kept(self, stacks: list) -> list:
        """``stacks`` (per site, as a first reading stands them) with each piece that
        stays where the last known position had it: a tree read as something else
        still hides what stands behind it. A disk goes under what was read there, any
        other such piece stands alone."""
        pieces = self.look.pieces
        out = []
        for stack, kept in zip(stacks, self.kept):
            piece = pieces.get(kept or "")
            if piece is not None and piece not in stack:
                others = [p for p in stack if not p.stays]
                stack = [piece, *others] if piece.under else [piece]
            out.append(stack)
        # a single piece read on one of its likeliest sites may stand on another: on a
        # bare one (or a disk) in front, it would hide what the first reading took it for
        for token, sites in self.candidates.items():
            for i in sites:
                if all(p.under for p in out[i]):
                    out[i] = [*out[i], pieces[token]]
        return out

    def _moved(self, rows: np.ndarray, slot: bool) -> np.ndarray:
        """(sites, hypotheses): MOVED_COST where a hypothesis puts another piece that
        stays (or none) on a site than the last known position had there."""
        key = ("moved", slot)
        if key not in self._predicted:
            stays = [next((p.token for p in stack if p.stays), "") for stack in self.stacks[slot]]
            kept = np.array(self.kept, object)
            known = np.array([k is not None for k in self.kept])
            moved = (kept[:, None] != np.array(stays, object)[None]) & known[:, None]
            self._predicted[key] = np.where(moved, MOVED_COST, 0.0).astype(np.float32)
        return self._predicted[key][rows]

    def _slopes(self, ratio, tokens: list[str]) -> np.ndarray:
        """(sites, tokens, probes): what each probe costs if it shows ``tokens`` as a
        hat standing beside it, seen from outside. The camera's ray may meet that hat
        anywhere from its foot to its top face, so the probe may show it as any probe
        learned a hat's top or side: the cheapest of those counts (the front probe's
        own view of a side lies at the hat's foot, blurred with the board; from low,
        a probe behind a hat sees its top face, lit brighter than its slope)."""
        k = len(self.look.probes)
        if "slopes" not in self._predicted:
            found = [[self.colours.prototype(token, c) for c in range(2 * k)] for token in tokens]
            means = np.array([[mean for mean, _ in row] for row in found], np.float32)
            spreads = np.array([[spread for _, spread in row] for row in found], np.float32)
            self._predicted["slopes"] = means, spreads
        means, spreads = self._predicted["slopes"]  # (tokens, looks, 3), (tokens, looks)
        d = (ratio[:, None, :, None] - means[None, :, None]) / spreads[None, :, None, :, None]
        return np.minimum((d * d).sum(axis=4).min(axis=3), COST_CAP)

    def _hues(self, stands, paper):
        """``stands`` (``Prints.costs``) with per site and hat colour what its disc's
        colour costs as that hat's top or side (``HUE_WEIGHT`` of it, at most
        ``HUE_MOST``; none where the disc gave no colour)."""
        if stands is None:
            return None
        hue = np.zeros((len(self.sites), len(self.crowds.colours)), np.float32)
        shown = np.flatnonzero(~np.isnan(stands[2][:, 0]))
        colour = np.log(stands[2][shown] / self._gain(paper) / self._level()[shown, 0])
        found = self._slopes(colour[:, None], self.crowds.colours)[..., 0]
        hue[shown] = np.minimum(HUE_WEIGHT * found, HUE_MOST)
        return *stands[:2], hue

    def _shaded(self, rows, board) -> np.ndarray:
        """Per site and probe: the cost of its empty look dimmed evenly, by no more
        than SHADOW (the board in a neighbouring hat's shadow)."""
        dim = np.clip(board.mean(axis=2, keepdims=True), SHADOW, 0.0)
        spread = np.where(self.known[rows], self.spread_empty, SPREAD_BORROWED)
        e = (board - dim) / spread[:, None, None]
        return np.minimum((e * e).sum(axis=2), COST_CAP)

    def _gain(self, paper: np.ndarray) -> np.ndarray:
        """The overall change of light since learning, from the plain board points
        (their median: a shadow or a highlight on a few does not count)."""
        if self.paper is None or not len(paper):
            return np.ones(3, np.float32)
        return np.median(paper / self.paper, axis=0)

    def _placed(self, rows, boards, ratios, slot: bool) -> tuple[np.ndarray, np.ndarray]:
        """``_costs`` with each piece where it stands: per site and reading, the
        probes at whichever offset explains them best, an offset OFF_CENTRE more per
        ring out, an empty site's reading where the probes stand (nothing moved); and
        ``_costs`` where the probes stand."""
        probes = np.stack([self._costs(rows, b, r, slot) for b, r in zip(boards, ratios)])
        if len(probes) == 1:
            return probes[0], probes[0]
        total = probes.sum(axis=3) + self.off_centre[:, rows, None]
        empty = [label is None for label, _ in self.readings[slot]]
        total[1:, :, empty] = np.inf
        best = total.argmin(axis=0)  # (sites, readings)
        return np.take_along_axis(probes, best[None, ..., None], axis=0)[0], probes[0]

    def _costs(self, rows, board, ratio, slot: bool) -> np.ndarray:
        """Cost (sites, hypotheses, probes): the squared distance, in spreads, of what
        a probe shows from what the hypothesis predicts there, capped."""
        means, spreads, kinds, _ = self._tables(slot, rows)
        spread_empty = np.where(self.known[rows], self.spread_empty, SPREAD_BORROWED)
        d = (ratio[:, None] - means) / spreads[..., None]
        token = (d * d).sum(axis=3)  # (S, H, K)
        # a standing piece's light (its channels' mean) is judged with figure_light
        # times its colour's spread (looks.toml)
        if self.look.figure_light != 1.0:
            standing, lights = self._standing(slot, rows)
            light = (ratio.mean(axis=2)[:, None] - lights) / spreads
            token -= standing * (3 * (1 - self.look.figure_light**-2)) * light * light
        bleed = self.bleeds[slot]
        if bleed is not None:
            token = self._bled(token, d, rows, slot, bleed)
        e = board / spread_empty[:, None, None]
        empty = (e * e).sum(axis=2)[:, None, :]  # (S, 1, K)
        beyond = np.minimum(empty, UNSEEN_COST * 2)
        per = np.select(
            [kinds == SEES_TOKEN, kinds == SEES_BOARD, kinds == SEES_BEYOND, kinds == SEES_PAST],
            [
                token,
                np.broadcast_to(empty, token.shape),
                np.broadcast_to(beyond, token.shape),
                np.minimum(token, beyond),
            ],
            UNSEEN_COST * 0.5,
        )
        dark = self.shading
        if dark.any():
            # what lies beside a figure, at most SHADE_MOST as bright: any darker costs
            # nothing (a dark figure's side). A shadow dims every channel alike: judged
            # on their mean (three times its square: a sum over three channels' scale),
            # as the dark floor keeps a dark channel from dimming as much
            darker = np.maximum(d[:, :, dark].mean(axis=3) - SHADE_MOST / spreads[:, :, dark], 0)
            dimmed = np.maximum(e[:, dark].mean(axis=2) - SHADE_MOST / spread_empty[:, None], 0)
            on_token = np.minimum(3 * darker * darker, SHADE_CAP)
            on_board = np.minimum(3 * dimmed * dimmed, SHADE_CAP)[:, None, :]
            per[:, :, dark] = np.select(
                [kinds[:, :, dark] == SEES_SHADED_TOKEN, kinds[:, :, dark] == SEES_SHADED_BOARD],
                [on_token, np.broadcast_to(on_board, on_token.shape)],
                per[:, :, dark],
            )
        return np.minimum(per, COST_CAP)

    def _bled(self, token, d, rows, slot: bool, bleed: tuple) -> np.ndarray:
        """``token`` with a figure on a disk judged at its colour moved up to
        figure_bleed of the way (in log colour, its light kept) to the disk's there,
        wherever that explains the probe best: the cost is a parabola in the share
        moved, lowest where the probe's distance along the way says (its light, and so
        figure_light's part, the same all along). Only on the sites that may hold a
        disk (disks stay where the set-up put them: elsewhere a figure on one costs
        MOVED_COST more)."""
        on, disk, seen = bleed  # sight.bleeds
        key = ("bleeds", slot, rows.tobytes())
        if key not in self._predicted:
            means, spreads = self._tables(slot, rows)[:2]
            way = (means[:, disk] - means[:, on]) * seen[None, ..., None]
            # JPEG keeps colour at half resolution and light at full: the disk's
            # colour bleeds into a figure's probes, its light hardly
            way -= way.mean(axis=3, keepdims=True)
            way /= spreads[:, on, :, None]
            self._predicted[key] = way, (way * way).sum(axis=3)
        way, a = self._predicted[key]
        if self._disks[0] != self.kept:
            pieces = self.look.pieces
            self._disks = (
                list(self.kept),
                np.array([k is None or (k in pieces and pieces[k].under) for k in self.kept]),
            )
        where = np.flatnonzero(self._disks[1][rows])
        way, a = way[where], a[where]
        off = d[where][:, on]  # what the probe shows less the figure's colour, in spreads
        b = np.einsum("shkc,shkc->shk", off, way)
        share = np.clip(b / np.maximum(a, 1e-9), 0.0, self.look.figure_bleed)
        token[where[:, None], on] += share * (a * share - 2 * b)
        return token

    def _standing(self, slot: bool, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(hypotheses, probes) whether the probe sees a standing piece's colour, and
        (sites of ``rows``, hypotheses, probes) the light (channels' mean) predicted."""
        key = ("standing", slot, rows.tobytes())
        if key not in self._predicted:
            pieces = self.look.pieces
            seen = [[getattr(w, "lies", w) for w in s] for _, s in self.readings[slot]]
            standing = [[w in pieces and not pieces[w].under for w in row] for row in seen]
            lights = self._tables(slot, rows)[0].mean(axis=3)
            self._predicted[key] = np.array(standing), lights
        return self._predicted[key]

    def _tables(self, slot: bool, rows: np.ndarray):
        """Per site of ``rows``, hypothesis and probe: predicted mean and spread (by
        what the probe sees of the piece there, its top or its side) and what is seen
        (kept until the next learning); per hypothesis its prior cost."""
        key = ("tables", slot, rows.tobytes())
        if key in self._predicted:
            return self._predicted[key]
        hyps = self.readings[slot]
        k = len(self.look.probes)
        means = np.zeros((len(hyps), 2 * k, 3), np.float32)
        spreads = np.ones((len(hyps), 2 * k), np.float32)
        kinds = np.full((len(hyps), k), SEES_ANY)
        # a figure on a disk is rarer than a bare disk: when both fit, the disk; a
        # piece with ``odds`` in looks.toml is rarer than an empty cell
        pieces = self.look.pieces
        prior = np.array(
            [
                STACK_COST
                * any(getattr(w, "lies", w) not in (label, BOARD, ANY, BEYOND) for w in seen)
                - 2 * math.log(pieces[label].odds if label in pieces else 1.0)
                for label, seen in hyps
            ],
            np.float32,
        )
        known: dict[tuple[str, int], tuple[np.ndarray, float]] = {}
        for h, (_, seen) in enumerate(hyps):
            for p, what in enumerate(seen):
                shaded, past = isinstance(what, Shaded), isinstance(what, Past)
                what = getattr(what, "lies", what)
                if what == BOARD:
                    kinds[h, p] = SEES_SHADED_BOARD if shaded else SEES_BOARD
                elif what == BEYOND:
                    kinds[h, p] = SEES_BEYOND
                elif what != ANY:  # a token
                    kinds[h, p] = SEES_SHADED_TOKEN if shaded else SEES_PAST if past else SEES_TOKEN
                    for c in (p, p + k):
                        if (what, c) not in known:
                            known[what, c] = self.colours.prototype(what, c)
                        means[h, c], spreads[h, c] = known[what, c]
        view = self.view[slot][rows]  # (S, H, K)
        channel = np.arange(k) + k * np.minimum(view, SIDE).astype(int)
        h = np.arange(len(hyps))[None, :, None]
        # a probe on a piece's rim sees a blend of its top and side: anything
        kinds = np.where(view == EDGE, SEES_ANY, kinds[None])
        self._predicted[key] = means[h, channel], spreads[h, channel], kinds, prior
        return self._predicted[key]
