"""Firmware bridge speed: frame decoder throughput on 121-cell scans (one core), and,
over a real pseudo-terminal with the simulated board, how long a cell change takes
to reach a host subscriber, how long an LED frame takes to be acknowledged, and how
fast an unplug is noticed and a replug resynchronised. Prints one JSON line.

Latency runs the simulator at the firmware's defaults (10 ms scan period, 3
agreeing scans), then at 1 ms and 1 scan to show what the link itself costs.
"""

import json
import logging
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

from smoke import SMOKE, sized

from boardref.runtime.loop_lag import percentile
from firmware_bridge.host import UP, Link
from firmware_bridge.protocol import Decoder, Scan, encode
from firmware_bridge.sim import Simulator

CELLS = 121
DECODER_FRAMES = sized(20_000, 200)
DECODER_ROUNDS = sized(5, 1)
READ_SIZE = 4096
LATENCY_SAMPLES = sized(150, 3)
UNPLUG_CYCLES = sized(5, 1)
BUDGET_FRAMES_PER_S = 50_000
BUDGET_UNPLUG_NOTICED_MS = 2000
BUDGET_RESYNC_MS = 3000


def decoder_frames_per_s(states):
    """Best-of-rounds frames per second decoding a stream of scans read in chunks."""
    rng = random.Random(1)
    frames = []
    for counter in range(DECODER_FRAMES):
        board = bytes(rng.choice(states) if rng.random() < 0.5 else 0 for _ in range(CELLS))
        frames.append(encode(Scan(counter & 0xFFFF, board, seq=counter & 0xFF)))
    stream = b"".join(frames)
    chunks = [stream[start : start + READ_SIZE] for start in range(0, len(stream), READ_SIZE)]
    rates = []
    for _ in range(DECODER_ROUNDS):
        decoder = Decoder()
        started = time.perf_counter()
        delivered = sum(len(decoder.feed(chunk)) for chunk in chunks)
        rates.append(delivered / (time.perf_counter() - started))
        assert delivered == DECODER_FRAMES and decoder.errors == 0
    return max(rates), len(stream) / DECODER_FRAMES


def _waiter(link, wanted):
    """A subscriber that stamps the moment the board first reads ``wanted[0]``."""
    arrived = threading.Event()
    stamp = []

    def on_scan(scan):
        if scan.cells == wanted[0] and not arrived.is_set():
            stamp.append(time.perf_counter())
            arrived.set()

    link.subscribe(on_scan)
    return arrived, stamp


def change_latency_ms(sim, link, rng):
    wanted = [None]
    arrived, stamp = _waiter(link, wanted)
    samples = []
    for _ in range(LATENCY_SAMPLES):
        board = bytearray(sim.board)
        cell = rng.randrange(CELLS)
        board[cell] ^= 1
        arrived.clear()
        stamp.clear()
        wanted[0] = bytes(board)
        started = time.perf_counter()
        sim.set_cell(cell, board[cell])
        if not arrived.wait(5):
            raise RuntimeError("a cell change never reached the host")
        samples.append((stamp[0] - started) * 1000)
        # Let the next change start at a random phase of the scan period.
        time.sleep(rng.uniform(0.005, 0.02))
    return samples


def led_ack_ms(link, rng):
    samples = []
    for _ in range(LATENCY_SAMPLES // 3):
        colors = rng.randbytes(3 * CELLS)
        started = time.perf_counter()
        link.set_leds(colors)
        while link.shown != colors:
            time.sleep(0.0002)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def unplug_cycle_ms(sim, link):
    noticed, resynced = [], []
    for cycle in range(UNPLUG_CYCLES):
        started = time.perf_counter()
        sim.unplug()
        while link.state == UP:
            time.sleep(0.001)
        noticed.append((time.perf_counter() - started) * 1000)
        sim.set_cell(cycle, 1 - sim.board[cycle])
        # unplugged until the host has found no device and waits for one to appear
        deadline = time.monotonic() + 5
        while not (link.error or "").startswith("no device"):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the host never missed the board: {link.error}")
            time.sleep(0.001)
        wanted = sim.board
        started = time.perf_counter()
        sim.plug()
        while link.state != UP or link.last_scan.cells != wanted:
            time.sleep(0.001)
        resynced.append((time.perf_counter() - started) * 1000)
    return noticed, resynced


def summary_ms(samples):
    return {
        "p50": round(statistics.median(samples), 2),
        "p99": round(percentile(samples, 0.99), 2),
    }


def main():
    # The unplug cycles make the link log each loss; only the JSON line belongs here.
    logging.disable(logging.WARNING)
    presence_rate, frame_bytes = decoder_frames_per_s((1,))
    magnet_rate, _ = decoder_frames_per_s((1, 2))
    rng = random.Random(7)
    path = Path(tempfile.mkdtemp(prefix="bench-bridge-")) / "pico"
    with Simulator(cells=CELLS, path=str(path), seed=3) as sim, Link(sim.path) as link:
        link.open(timeout=10)
        default_latency = change_latency_ms(sim, link, rng)
        link.configure(scan_period_ms=1, debounce_scans=1)
        while sim.device.settings["scan_period_ms"] != 1:
            time.sleep(0.01)
        fast_latency = change_latency_ms(sim, link, rng)
        led_ack = led_ack_ms(link, rng)
        noticed, resynced = unplug_cycle_ms(sim, link)
        counters = link.counters()
    path.parent.rmdir()
    print(
        json.dumps(
            {
                "bench": "bridge",
                "decoder_frames_per_s": round(presence_rate),
                "decoder_budget_frames_per_s": BUDGET_FRAMES_PER_S,
                "decoder_budget_met": not SMOKE and presence_rate >= BUDGET_FRAMES_PER_S,
                "decoder_frame_bytes": round(frame_bytes, 1),
                "decoder_magnet_class_frames_per_s": round(magnet_rate),
                "change_to_event_ms": summary_ms(default_latency),
                "change_to_event_settings": {"scan_period_ms": 10, "debounce_scans": 3},
                "change_to_event_fast_ms": summary_ms(fast_latency),
                "change_to_event_fast_settings": {"scan_period_ms": 1, "debounce_scans": 1},
                "led_frame_ack_ms": summary_ms(led_ack),
                "unplug_noticed_ms_max": round(max(noticed), 1),
                "budget_unplug_noticed_ms": BUDGET_UNPLUG_NOTICED_MS,
                "replug_resync_ms_max": round(max(resynced), 1),
                "budget_replug_resync_ms": BUDGET_RESYNC_MS,
                "unplug_budget_met": not SMOKE
                and max(noticed) <= BUDGET_UNPLUG_NOTICED_MS
                and max(resynced) <= BUDGET_RESYNC_MS,
                "samples": LATENCY_SAMPLES,
                "link_counters": counters,
            }
        )
    )


if __name__ == "__main__":
    main()
