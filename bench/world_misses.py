"""Why the camera missed moves on the physically rendered world: plays a table of
``bench_world_simulate`` (``--game=NAME``, ``--moves=N``, default Hakenschlagen's 100)
and, for each move the referee did not commit, lists every board the reader handed
over meanwhile that differs from what the table showed: per cell what stood there,
what was read instead, the reader's next readings, whether an arm was in the
picture, and what the cheapest reading of each (the true and the read token) cost
there, probe by probe. With ``$CROPS`` (a folder) the last frame read round each
misread cell is saved there. Prints one JSON line a miss, then the table's result
and the misses counted by what the last clear frame misread.
"""

from __future__ import annotations

import collections
import json
import os
from pathlib import Path

import bench_world_simulate as world_simulate
import cv2
import numpy as np

from boardref.sim import simulate as simulate_module
from vision.boards import classifier as classifier_module
from vision.boards.reader import BoardReader

#: the boards read since the last move was judged: (shown, hands, under, observation)
READS: list[tuple] = []
#: the last full reading's costs: (sites, labels, per probe costs of the plain sites
#: (rows, hypotheses, probes), their whole costs before one piece is kept to a site)
COSTS: dict = {}
#: where crops of the misread cells go (``$CROPS``), or None
CROPS = Path(os.environ["CROPS"]) if os.environ.get("CROPS") else None
#: what the world table drew last (its tokens, the hands over it, disks under figures)
SHOWN: list = [None]


def _remember_shown(frame):
    def drawn(self, tokens, hands=(), under=None):
        SHOWN[0] = (dict(tokens), tuple(hands), dict(under or {}))
        return frame(self, tokens, hands, under)

    return drawn


def _remember_reads(feed):
    def fed(self, frame):
        observation = feed(self, frame)
        if observation is not None and not self.quiet and SHOWN[0] is not None:
            centres = {s.cell: c for s, c in zip(self.sites, self.sampler.centres)}
            READS.append((*SHOWN[0], observation, (frame, centres)))
        return observation

    return fed


def _remember_costs(costs):
    def costed(self, rows, slot, probes, hiding=None):
        probes, whole = costs(self, rows, slot, probes, hiding)
        if not slot:  # the plain sites, where single pieces are read
            COSTS.update(
                sites=[self.sites[i].cell for i in rows],
                labels=[label for label, _ in self.readings[slot]],
                probes=probes,
                whole=whole,
                singles=[t for t, piece in self.look.pieces.items() if piece.single],
            )
        return probes, whole

    return costed


def _costs_of(cell: str, token) -> dict:
    """The cheapest reading of ``token`` on ``cell``: its whole cost, how much more
    than the best reading of another kind, and its probes' costs."""
    if cell not in COSTS.get("sites", ()):
        return {}
    i = COSTS["sites"].index(cell)
    names = np.array(COSTS["labels"], object)
    mine = np.flatnonzero(names == token)
    h = mine[np.argmin(COSTS["whole"][i, mine])]
    plain = ~np.isin(names, COSTS["singles"])
    return {
        "token": token,
        "cost": round(float(COSTS["whole"][i, h]), 1),
        "over_plain": round(float(COSTS["whole"][i, h] - COSTS["whole"][i, plain].min()), 1),
        "probes": [round(float(c), 1) for c in COSTS["probes"][i, h]],
    }


def _wrong(shown: dict, under: dict, observation) -> list[dict]:
    wrong = [
        {
            "cell": cell,
            "stood": token,
            "under": under.get(cell),
            "read": observation.tokens.get(cell),
            "ranked": [(t, round(p, 2)) for t, p in observation.ranked.get(cell, ())],
        }
        for cell, token in shown.items()
        if observation.tokens.get(cell) != token
    ]
    for w in wrong:
        w["costs"] = [_costs_of(w["cell"], t) for t in (w["stood"], w["read"])]
    return wrong


def _judging(judge, misses: list):
    def judged(referee, truth, after, rejections, score):
        missed = score.missed_moves
        number = score.moves_played + 1
        judge(referee, truth, after, rejections, score)
        if score.missed_moves > missed:
            game = referee.game
            final = game.observe(after)
            reads = [
                {
                    "arm": list(hands),
                    "final": shown == final,
                    "wrong": _wrong(shown, under, observation),
                }
                for shown, hands, under, observation, _ in READS
            ]
            if CROPS and READS:
                _crop(number, READS[-1], reads[-1]["wrong"])
            misses.append(
                {
                    "move": number,
                    "rejections": sorted(set(rejections)),
                    "reads": [r for r in reads if r["wrong"]],
                    "reads_right": sum(1 for r in reads if not r["wrong"]),
                }
            )
            print(json.dumps(misses[-1]), flush=True)
        READS.clear()

    return judged


def _crop(number: int, read: tuple, wrong: list[dict]) -> None:
    """Save the part of the last frame read round each misread cell, 3x, to CROPS."""
    frame, centres = read[-1]
    CROPS.mkdir(parents=True, exist_ok=True)
    for w in wrong:
        x, y = (int(v) for v in centres[w["cell"]])
        part = frame[max(y - 50, 0) : y + 50, max(x - 50, 0) : x + 50]
        name = f"{number:03d}-{w['cell']}-{w['stood']}-as-{w['read']}.png"
        cv2.imwrite(str(CROPS / name), cv2.resize(part, None, fx=3, fy=3))


def _cause(miss: dict) -> str:
    last = [r for r in miss["reads"] if not r["arm"] and r["final"]]
    if not last:
        return "no clear read of the final board wrong (arm or in-between reads only)"
    return "; ".join(
        sorted(
            {
                f"{w['stood']}{'/' + w['under'] if w['under'] else ''} as {w['read']}"
                for w in last[-1]["wrong"]
            }
        )
    )


def main() -> None:
    world_simulate.WorldTable.frame = _remember_shown(world_simulate.WorldTable.frame)
    BoardReader.feed = _remember_reads(BoardReader.feed)
    classifier_module.Classifier._whole_costs = _remember_costs(
        classifier_module.Classifier._whole_costs
    )
    misses: list[dict] = []
    simulate_module._judge = _judging(simulate_module._judge, misses)
    only = world_simulate.ONLY or "hakenschlagen"
    for game_name, players, seed in world_simulate.TABLES:
        if only in f"{game_name}_{players}p":
            result = world_simulate.play(game_name, players, seed)
            tally = collections.Counter(_cause(m) for m in misses)
            print(
                json.dumps(
                    {
                        "table": f"{game_name}_{players}p",
                        "result": result,
                        "causes": tally.most_common(),
                    }
                ),
                flush=True,
            )
            misses.clear()


if __name__ == "__main__":
    main()
