"""From the costs of every reading to the reading of the board: each ``single`` piece
(the rule book has one of it) on one site only, each site's labels ranked by
probability, and the sites joined into the cells an observation names.

Pure functions of the costs ``vision.boards.classifier`` works out; nothing learned
is kept here.
"""

from __future__ import annotations

import math

import numpy as np

from vision import looks
from vision.looks import JOIN
from vision.observation import RANKED, Observation

#: extra cost of a single piece the last known position does not hold, and the most
#: any other reading costs more on the cell that looks most like a ``single`` piece
#: (-2 log of the odds it is off the board: none; the most it may look unlike it and
#: still be read there)
SINGLE_COST = 30.0
#: the sites a single piece is likeliest on: on each of them, a second reading takes
#: it to hide what stands behind (``Classifier._with_kept``)
SINGLE_CANDIDATES = 3


def one_each(cost: np.ndarray, labels: list, pieces: dict, present: set) -> tuple:
    """``cost`` (sites, hypotheses named ``labels``) with each ``single`` piece the
    last known position holds (``present``) read on the one site where it costs least
    over the best reading without a single piece (the pieces on distinct sites, chosen
    together). The rule book has one of it, so a reading of it on another site also
    takes it off that one: there it costs what carrying it over costs, and any other
    reading of its own site costs what it costs on its next likeliest site (at most
    SINGLE_COST). A piece that looks like itself on two sites is read on the likelier
    with the other named as nearly as likely, not as impossible. A single piece not
    on the board costs SINGLE_COST more everywhere. Also gives, per single piece on
    the board, the sites found likeliest for it."""
    names = np.array(labels, object)
    singles = [t for t, p in pieces.items() if p.single and t in names]
    candidates: dict[str, np.ndarray] = {}
    if not singles:
        return cost, candidates
    cost = cost.copy()
    playing = [t for t in singles if t in present]
    chosen: tuple = ()
    if playing:
        base = cost[:, ~np.isin(names, singles)].min(axis=1)
        extra = np.array([cost[:, names == t].min(axis=1) - base for t in playing])
        extra = np.minimum(extra, SINGLE_COST)
        candidates = dict(zip(playing, np.argsort(extra, axis=1)[:, :SINGLE_CANDIDATES]))
        chosen = distinct_sites(extra)
    for t in singles:
        if t not in playing:
            cost[:, names == t] += SINGLE_COST
    # a site another single piece was read on is not free for it
    free = np.ones(len(cost), bool)
    free[list(chosen)] = False
    for t, i, costs_more in zip(playing, chosen, extra):
        own = names == t
        others = ~free & (np.arange(len(cost)) != i)
        cost[np.ix_(free, own)] -= costs_more[i]
        cost[np.ix_(others, own)] = np.inf
        cost[i, ~own] += costs_more[free].min(initial=SINGLE_COST)
    return cost, candidates


def distinct_sites(extra: np.ndarray) -> tuple[int, ...]:
    """Per piece (rows of ``extra``, its cost on each site), a site of its own, the
    sum of their costs the least there is. Each piece's site is among its n cheapest
    (n pieces): were it not, one of those would be free, and cheaper. Searched piece
    by piece, a branch left once even the cheapest sites still open to the pieces
    after it cannot beat the best found (a site that looks like every piece, a figure
    on a disk, must not crowd out the one piece standing far from the rest)."""
    n = len(extra)
    order = np.argsort(extra, axis=1)[:, :n]
    options = [[(float(extra[p, i]), int(i)) for i in row] for p, row in enumerate(order)]
    # the least the pieces from each one on can add
    floor = np.append(np.cumsum([row[0][0] for row in options][::-1])[::-1], 0.0)
    best: list = [math.inf, ()]

    def place(p: int, spent: float, taken: tuple) -> None:
        if p == n:
            best[:] = [spent, taken]
            return
        for cost, i in options[p]:
            if spent + cost + floor[p + 1] >= best[0]:
                break
            if i not in taken:
                place(p + 1, spent + cost, (*taken, i))

    place(0, 0.0, ())
    return best[1]


def ranked_labels(cost: np.ndarray, labels: list) -> list[list[tuple[str | None, float]]]:
    """Per site (rows of ``cost``), its best RANKED labels by probability (a label's
    best hypothesis), most likely first."""
    names = list(dict.fromkeys(labels))
    member = np.zeros((len(labels), len(names)), np.float32)
    member[np.arange(len(labels)), [names.index(label) for label in labels]] = 1.0
    p = np.exp(-0.5 * (cost - cost.min(axis=1, keepdims=True)))
    best = (p[:, :, None] * member[None]).max(axis=1)
    best /= best.sum(axis=1, keepdims=True)
    order = np.argsort(-best, axis=1)[:, :RANKED]
    return [[(names[j], float(best[n, j])) for j in row] for n, row in enumerate(order)]


def cells(sites, labels, probs, visible) -> Observation:
    """The observation of ``sites`` read as ``labels`` (ranked ``probs``): a home
    field's slots joined into its cell (its hats, the least sure slot's confidence),
    a site out of view read with no confidence."""
    tokens: dict[str, str | None] = {}
    confidence: dict[str, float] = {}
    ranked: dict[str, tuple] = {}
    for site, label, rank, seen in zip(sites, labels, probs, visible):
        if site.spot is not None:  # read with its field's centre
            continue
        conf = rank[0][1] if seen else 0.0
        if site.slot is None:
            tokens[site.cell] = label
            confidence[site.cell] = conf
            ranked[site.cell] = tuple(rank)
            continue
        parts = looks.split(tokens.get(site.cell))
        if label is not None:
            parts.append(label)
        tokens[site.cell] = JOIN.join(sorted(parts)) or None
        confidence[site.cell] = min(confidence.get(site.cell, 1.0), conf)
        ranked[site.cell] = ((tokens[site.cell], confidence[site.cell]),)
    return Observation(tokens, confidence, ranked)
