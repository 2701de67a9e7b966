"""Home fields' rings of spots (Fang den Hut!): nothing printed says where on its
field a hat stands, so each field is read at the turn of its ring that explains its
hats best, and taught at the turn and order that explain the hats it is known to
hold.

Chooses among costs the classifier hands it, and keeps the empty looks of the spots at
every turn (``EmptyRings``) from the colours it hands over; it never looks at a frame.
"""

from __future__ import annotations

import numpy as np

from vision.boards.sites import MIDDLE, Site

#: the most one spot counts toward the turn its field is read at: an empty spot beside
#: hats shows their shadows and their sides leaning into its view, and one never seen
#: empty borrows its look from other fields; such a spot, which no reading explains
#: well, must not outvote the spots whose hats fit (a field's hats are known well:
#: every one of them was learned from the start position)
SPOT_MOST = 30.0
#: the most the board half a spot's step round from a spot counts toward a turn: at the
#: turn the hats stand on, there lies the board between two of them; at a turn half a
#: step off, the hats (a turn that puts its spots between the hats reads the board
#: there cheaply, and nothing else looks at the hats it leaves unexplained)
GAP_MOST = 30.0
#: what a hat read one turn round from its spot's place at its field's turn costs (past
#: the last turn, on the next spot's first): people set a home's hats side by side by
#: eye, not a spot's step apart, so two neighbours may stand up to two turns' steps
#: closer together or further apart than the ring's spots
NUDGE_COST = 2.0
#: two hats read on neighbouring spots of a home field closer than this (mm) are one
#: hat read twice: hats 18 mm wide stand a hat's width apart or a little less
APART_MM = 16.0
#: what each probe costs for a hat of another home's colour on a home field: the rule
#: book admits only a home's own colour there (captives brought home are prisoners,
#: set aside), so a spot that looks like a foreign hat holds its own or none
FOREIGN_COST = 1000.0


class Rings:
    """The sites on rings of spots among ``sites`` (``rows``, each field's in its
    spots' order, its middle after them), the field each belongs to and whether it is
    its field's middle; with the ``names`` of the readings a spot can have, which of
    them it does not admit (another home's colour)."""

    def __init__(self, sites: list[Site], names: list[str | None] | None = None):
        self.rows = np.flatnonzero([site.slot is not None for site in sites])
        cells = [sites[i].cell for i in self.rows]
        _, self.field = np.unique(cells, return_inverse=True)
        self.member = np.eye(self.field.max(initial=-1) + 1, dtype=np.float32)[self.field]
        self.middle = np.array([sites[i].slot == MIDDLE for i in self.rows], bool)
        #: per ring site the next spot round its ring and the one before (a middle, itself)
        self.after, self.before = np.arange(len(self.rows)), np.arange(len(self.rows))
        for f in np.unique(self.field):
            spots = np.flatnonzero((self.field == f) & ~self.middle)
            self.after[spots], self.before[spots] = np.roll(spots, -1), np.roll(spots, 1)
        zones = [sites[i].zone for i in self.rows]
        self.foreign = np.array(
            [[n in zones and n != zone for n in names or []] for zone in zones], bool
        ).reshape(len(self.rows), len(names or []))

    def admitted(self, cost: np.ndarray) -> np.ndarray:
        """``cost`` (turns, offsets, ring sites, readings, probes) with every probe of a
        reading its spot does not admit at FOREIGN_COST."""
        if not self.foreign.any():
            return cost
        return np.where(self.foreign[:, :, None], np.float32(FOREIGN_COST), cost)

    def read_turns(self, cost: np.ndarray) -> np.ndarray:
        """Per ring site, the turn its field is read at: of ``cost`` (turns, ring
        sites, readings; reading 0 none), the turn whose best readings of all the
        field's spots cost least together, each spot's at most SPOT_MOST, with what
        the empty board costs half a spot's step round from each spot (the turns
        tried cover one step), each at most GAP_MOST."""
        spots = np.minimum(cost.min(axis=2), SPOT_MOST)
        fields = spots @ self.member  # (turns, fields)
        gaps = np.where(self.middle, 0.0, np.minimum(cost[:, :, 0], GAP_MOST)) @ self.member
        fields = fields + np.roll(gaps, -(len(cost) // 2), axis=0)
        return fields.argmin(axis=0)[self.field]

    def nudged(self, cost: np.ndarray, off: np.ndarray, empty: np.ndarray, places: np.ndarray):
        """``cost`` (turns, ring sites, readings; ``off`` the offset each is read at)
        with each spot's hat readings also taken one turn round either way from each
        turn (past the last turn, the next spot's first turn; before the first, the
        spot before's last), at NUDGE_COST more, unless the hat there would stand
        closer than APART_MM to a hat its neighbour on that side reads at the turn
        (the one hat read twice); ``empty`` the readings of no hat; ``places``
        (turns, offsets, ring sites, 2) where each ring site stands (mm). Also where
        each reading was taken, its turn and ring site: each (turns, ring sites,
        readings)."""
        turns, spots, readings = cost.shape
        t, j = np.arange(turns)[:, None], np.arange(spots)[None, :]
        best_reading = cost.argmin(axis=2)
        hat = ~empty[best_reading]  # (turns, ring sites): a hat read where it is
        held = places[t, np.take_along_axis(off, best_reading[..., None], 2)[..., 0], j]
        best = cost.copy()
        at_turn = np.broadcast_to(t[..., None], cost.shape).copy()
        at_site = np.broadcast_to(j[..., None], cost.shape).copy()
        for step, neighbour in ((1, self.after), (-1, self.before)):
            round_ = t + step
            site = np.where((round_ >= turns) | (round_ < 0), neighbour[j], j)
            round_ = round_ % turns
            there = cost[round_, site] + NUDGE_COST
            stands = places[round_[..., None], off[round_, site], site[..., None]]
            near = neighbour[j]
            apart = np.linalg.norm(stands - held[t, near][:, :, None], axis=3)
            there[hat[t, near][..., None] & (apart < APART_MM)] = np.inf
            there[:, self.middle] = np.inf
            there[..., empty] = np.inf
            better = there < best
            best = np.where(better, there, best)
            at_turn = np.where(better, round_[..., None], at_turn)
            at_site = np.where(better, site[..., None], at_site)
        # a hat read round from its spot that stands closer than APART_MM to the hat
        # its neighbour is read with (round from its own spot, perhaps) is read where
        # its spot is
        pick = best.argmin(axis=2)[..., None]
        turn, site = (np.take_along_axis(a, pick, 2)[..., 0] for a in (at_turn, at_site))
        read = np.take_along_axis(off[at_turn, at_site, np.arange(readings)], pick, 2)[..., 0]
        stands, hat = places[turn, read, site], ~empty[pick[..., 0]]
        moved = (turn != t) | (site != j)
        for neighbour in (self.after, self.before):
            near = neighbour[j]
            apart = np.linalg.norm(stands - stands[t, near], axis=2)
            back = moved & hat & hat[t, near] & (apart < APART_MM) & (near != j)
            best = np.where(back[..., None], cost, best)
            at_turn = np.where(back[..., None], t[..., None], at_turn)
            at_site = np.where(back[..., None], j[..., None], at_site)
        return best, at_turn, at_site

    def standing(self, stacks: list, places: np.ndarray, cost: np.ndarray, ring):
        """``stacks`` (per site) without the home fields' hats, and those hats each
        where it stands, as ``Hiding.hidden`` takes pieces off their sites' places
        (piece, mm, site): where it was read, at a turn of its field's ring and set off
        a spot (``ring``: per ring site and reading the turn, the ring site whose place
        it was read on and the offset, or None; ``cost`` the ring sites' readings;
        ``places``: ``Sampler.ring_places``)."""
        if ring is None:
            return stacks, []
        turn, site, off = ring
        stacks, moved = list(stacks), []
        for j, (i, h) in enumerate(zip(self.rows, cost.argmin(axis=1))):
            at = places[turn[j, h], off[j, h], site[j, h]]
            moved += [(piece, at, i) for piece in stacks[i]]
            stacks[i] = []
        return stacks, moved

    def at(self, features: np.ndarray, turned: np.ndarray, turns, offsets) -> np.ndarray:
        """``features`` (sites, probes, 3) with the ring sites' taken from ``turned``
        (turns, offsets, ring sites, probes, 3) at each one's turn and offset."""
        features = features.copy()
        features[self.rows] = turned[turns, offsets, np.arange(len(self.rows))]
        return features

    @staticmethod
    def settle(total: np.ndarray, off: np.ndarray, empty: np.ndarray):
        """Of ``total`` (turns, offsets, ring sites, readings), each reading's cost at
        the offset that explains it best, ``off`` (offsets) more the further out, an
        empty spot's (``empty`` readings) where the spot is; and that offset: two
        (turns, ring sites, readings)."""
        total = total + off[None, :, None, None]
        total[:, 1:, :, empty] = np.inf
        best = total.argmin(axis=1)
        return np.take_along_axis(total, best[:, None], axis=1)[:, 0], best

    def lesson(self, cost: np.ndarray, known: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per ring site, the turn its field is taught at and the reading it is taught
        as: of ``cost`` (turns, ring sites, readings) and ``known`` (ring sites: the
        reading each field's spots hold in order, from any one of them, its middle
        empty; reading 0 is none), the turn and first spot that cost least (a field's
        hats stand in that order round it from some spot on), or a hat alone in the
        middle."""
        turns = np.zeros(len(self.rows), int)
        readings = known.copy()
        for f in range(self.member.shape[1]):
            spots = np.flatnonzero(self.field == f)
            ring = ~self.middle[spots]
            held = known[spots]
            ways = [held.copy() for _ in range(int(ring.sum()))]
            for k, way in enumerate(ways):
                way[ring] = np.roll(held[ring], k)
            hats = np.flatnonzero(ring & (held != 0))
            if (~ring).any() and len(hats) == 1 and not held[~ring].any():
                alone = np.zeros_like(held)
                alone[~ring] = held[hats[0]]
                ways.append(alone)
            orders = np.array(ways)
            # (turns, orders): every spot's reading in that order, at that turn
            total = cost[:, spots][:, np.arange(len(spots))[None], orders].sum(axis=2)
            turn, order = np.unravel_index(total.argmin(), total.shape)
            turns[spots], readings[spots] = turn, orders[order]
        return turns, readings


class EmptyRings:
    """Each home field's spots' empty look at every turn of its ring, learned while the
    field stood empty: a spot turned onto the line printed into the field, or its rim,
    looks unlike the place it was first taught at. None until a field was seen empty;
    refreshed with weight ``refresh`` as the classifier's other references are."""

    def __init__(self, rings: Rings, refresh: float):
        self.rings, self.refresh = rings, refresh
        #: (turns, ring sites, probes, 3) linear colour, and which ring sites are known
        self.looks: np.ndarray | None = None
        self.known = np.zeros(len(rings.rows), bool)

    def copy(self) -> EmptyRings:
        other = EmptyRings(self.rings, self.refresh)
        other.looks = None if self.looks is None else self.looks.copy()
        other.known = self.known.copy()
        return other

    def learn(self, shown: np.ndarray, bare: np.ndarray, fresh: bool) -> None:
        """``shown`` (turns, ring sites, probes, 3): the spots at each turn, where they
        stand; ``bare`` (ring sites): whether the position leaves each spot empty.
        Only fields empty all round are learned; ``fresh`` forgets the rest."""
        if fresh or self.looks is None:
            self.looks = np.ones(shown.shape, np.float32)
            self.known[:] = False
        field = self.rings.field
        empty = np.isin(field, [f for f in np.unique(field) if bare[field == f].all()])
        renew = (self.known & empty)[None, :, None, None]
        weight = np.where(renew, self.refresh, 1.0)
        self.looks[:, empty] = ((1 - weight) * self.looks + weight * shown)[:, empty]
        self.known |= empty

    def at_turns(self, looks: np.ndarray, turns: int) -> np.ndarray:
        """(turns, ring sites, probes, 3): the empty look of each spot at each turn
        where learned, else ``looks`` (ring sites, probes, 3), the one taught."""
        every = np.broadcast_to(looks, (turns, *looks.shape))
        if self.looks is None or not self.known.any():
            return every
        return np.where(self.known[None, :, None, None], self.looks, every)


def guessed_costs(turned, paper, means: np.ndarray, spread: float, cap: float) -> np.ndarray:
    """Before anything is learned: (..., ring sites, readings) the squared distance,
    in ``spread``, of what each probe shows (``turned`` linear colour, as plain board
    ``paper`` shows it) from each reading's colour ``means`` (readings, probes, 3: log
    colour ratio to the board, zero for none), each probe's at most ``cap``, summed."""
    ratio = np.log(turned / np.median(paper, axis=0))  # (..., sites, probes, 3)
    d = (ratio[..., None, :, :] - means) / spread
    return np.minimum((d * d).sum(axis=-1), cap).sum(axis=-1)
