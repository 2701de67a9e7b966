"""The camera pipeline: accuracy on the held-out seeds (never used while tuning) for
every game the camera reads, easy and hard, and the time per 1280x720 frame on one
core, stage by stage (locate once per set-up; stillness on every frame; sample and
classify on the frames that are read). Prints one JSON line with the budgets beside
the figures.

Peers are quoted as published, not run here: chesscog (Wölflein & Arandjelović,
2021) 0.23 % per-square error at 2.1 s per image on a CPU; LiveChess2FEN (Mallasén
Quintana et al., 2021) 0.5-0.7 s per board on a Jetson Nano.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
from smoke import sized  # noqa: E402

from engines import load_game  # noqa: E402
from vision.coaster_eval import evaluate_coasters  # noqa: E402
from vision.evaluate import evaluate  # noqa: E402
from vision.locate import Locator  # noqa: E402
from vision.render import HELD_OUT, Renderer, random_scene  # noqa: E402

GAMES = sized(("sternhalma", "catch_the_hare", "hakenschlagen", "fang_den_hut"), ("sternhalma",))
DIFFICULTIES = sized(("easy", "hard"), ("hard",))
#: frames a set: the first argument that is a number, else 100
FRAMES = next((int(a) for a in sys.argv[1:] if a.isdigit()), sized(100, 2))
LOCATE_SAMPLES = sized(20, 1)
#: issue 9's targets
BUDGET = {
    "easy": {"per_cell_error": 0.001, "board_exact_rate": 0.99},
    "hard": {"per_cell_error": 0.005, "board_exact_rate": 0.95},
    "hand_frames_with_observation": 0,
    "ms_per_frame_p50": 8.0,
    "haegar_easy_layouts_exact_rate": 0.99,
}
PEERS = {
    "chesscog": {"per_square_error": 0.0023, "s_per_image_cpu": 2.1, "source": "published"},
    "livechess2fen": {"s_per_board_jetson_nano": [0.5, 0.7], "source": "published"},
}


def locate_ms() -> float:
    """Finding the board by its markers from scratch (done once, and when it moved)."""
    game = load_game("sternhalma")
    times = []
    for n in range(LOCATE_SAMPLES):
        scene = random_scene(game.board, HELD_OUT + n)
        frame = Renderer(game, scene).frame(game.observe(game.initial_state()))
        locator = Locator(game.board, scene.camera)
        start = time.perf_counter()
        locator.locate(frame)
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 3)


def main() -> None:
    cv2.setNumThreads(1)  # the budget is for one core
    results = {}
    for game in GAMES:
        for difficulty in DIFFICULTIES:
            r = evaluate(game, FRAMES, HELD_OUT // 1000 + 1, difficulty)
            results[f"{game}/{difficulty}"] = {
                k: r[k]
                for k in (
                    "per_cell_error",
                    "board_exact_rate",
                    "hand_frames",
                    "hand_frames_with_observation",
                    "unlocated_scenes",
                    "clear_frames_unread",
                    "confusions",
                    "ms_per_frame_p50",
                    "ms_per_frame_p95",
                    "ms_per_read_p50",
                    "ms_per_read_p95",
                    "ms_per_stage",
                )
            }
    for difficulty in DIFFICULTIES:  # Hägar: coasters on the mat, layout by layout
        r = evaluate_coasters(FRAMES, HELD_OUT // 1000 + 1, difficulty)
        results[f"haegar/{difficulty}"] = {
            k: v for k, v in r.items() if k.endswith("_rate") or k.startswith("ms_per")
        }
    print(
        json.dumps(
            {
                "bench": "vision",
                "frame": "1280x720",
                "threads": 1,
                "frames_per_set": FRAMES,
                "seeds": f">= {HELD_OUT} (held out)",
                "locate_ms_p50": locate_ms(),
                "results": results,
                "budget": BUDGET,
                "peers": PEERS,
            }
        )
    )


if __name__ == "__main__":
    main()
