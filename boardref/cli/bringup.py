"""Bringing a new board up from the terminal: `boardref board check|leds|map|calibrate`
and `boardref firmware flash`.

Each function opens the board's link, does one bring-up job with the helpers in
``hardware`` (board check, LED test, wiring wizard) or ``firmware_bridge.flash``,
and writes what it sees for a maker to read. It must never run while the service
holds the port (one program per serial port), and never touches a game.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from engines.words import Words
from firmware_bridge import protocol
from firmware_bridge.flash import mpremote_command, version_problem
from firmware_bridge.host import Link, LinkError
from hardware import led_test
from hardware.board_check import ANSWERS_TOO, NEVER_SEEN, STUCK, BoardCheck
from hardware.calibration import Calibration, Calibrator, board_calibration
from hardware.wiring import Wiring, wiring_path
from hardware.wiring_wizard import MapResult, MapWizard

Say = Callable[[str], None]

#: One character per sensor state in the check's grid; a flag overrides the state.
MARKS = {STUCK: "S", NEVER_SEEN: "?", ANSWERS_TOO: "!"}


def open_link(device: str, timeout: float = 5.0) -> Link:
    """The board's link, up; LinkError (in words) when no board answers."""
    link = Link(device)
    try:
        link.open(timeout=timeout)
    except LinkError:
        link.close()
        raise
    return link


def board_rows(board, cells: Sequence[str]) -> list[list[str]]:
    """The board's ``cells`` in rows as they lie on the board (by y, then x)."""
    xy = {cell.id: cell.xy for cell in board.cells}
    rows: dict[float, list[str]] = {}
    for cell in cells:
        rows.setdefault(round(xy[cell][1], 1), []).append(cell)
    return [sorted(row, key=lambda c: xy[c][0]) for _, row in sorted(rows.items())]


def render_check(report: dict, rows: list[list[str]]) -> str:
    """The check as text: a grid of the board's cells (``#`` a piece, ``.`` empty,
    ``S`` stuck, ``?`` never seen, ``!`` answers too) with each cell's change count,
    then the link's counters and the findings."""
    by_cell = {entry["cell"]: entry for entry in report["sensors"] if entry["cell"]}
    width = max((len(cell) for row in rows for cell in row), default=2)
    lines = []
    for row in rows:
        marks = []
        for cell in row:
            entry = by_cell.get(cell)
            if entry is None:
                marks.append(f"{cell:>{width}} -   ")
                continue
            mark = MARKS.get(entry["flag"], "#" if entry["state"] else ".")
            marks.append(f"{cell:>{width}} {mark}{min(entry['changes'], 99):<3}")
        lines.append("  ".join(marks))
    magnet = [entry for entry in report["sensors"] if entry.get("reading") is not None]
    if magnet:
        lines.append("sensor cell      reading  (south .. north)")
        lines += [
            f"{e['sensor']:>6} {e['cell'] or '-':<9} {e['reading']:>7}"
            f"  ({e['south']} .. {e['north']})"
            for e in magnet
        ]
    link = report["link"]
    lines.append(
        f"scans {report['scans']}  frames {link['frames']}  CRC errors {link['crc_errors']}"
        f"  dropped {link['dropped']}  retransmits {link['retransmits']}"
        f"  reconnects {link['reconnects']}"
    )
    return "\n".join(lines)


def run_check(
    link: Link, wiring: Wiring, board, seconds: float, every: float, say: Say, as_json: bool
) -> dict:
    """Watch the board for ``seconds``, showing the grid every ``every`` seconds; the
    final report is returned (and printed as JSON with ``as_json``)."""
    check = BoardCheck(len(wiring.sensors), wiring.sensors)
    calibration = board_calibration(wiring)
    thresholds = (calibration.north, calibration.south)
    if link.hello.sensor_kind == protocol.SENSOR_MAGNET:
        link.configure(raw_readings=1)
    check.take_scan(bytes(link.last_scan.cells))
    link.subscribe(lambda scan: check.take_scan(bytes(scan.cells)))
    cells = [cell for cell in wiring.sensors if cell is not None]
    rows = board_rows(board, cells)
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if not as_json:
            say(
                render_check(check.report(link.counters(), link.last_readings, thresholds), rows)
                + "\n"
            )
        if left <= 0:
            break
        time.sleep(min(every, left))
    report = check.report(link.counters(), link.last_readings, thresholds)
    if as_json:
        say(json.dumps(report))
    else:
        for finding in check.findings():
            say(str(finding))
    return report


def run_leds(
    link: Link,
    wiring: Wiring,
    cells: Sequence[str],
    mode: str,
    cell: str | None,
    colour: str,
    delay: float,
    say: Say,
) -> None:
    """The LED test: ``walk`` every cell in turn, one ``cell``, ``all`` in a colour,
    or ``colours`` (all cells red, green, blue, white); then the strip's order."""
    say(str(led_test.strip_order(wiring.leds, cells)))
    shown: list[tuple[str, bytes]]
    if mode == "walk":
        shown = list(led_test.walk(wiring.leds, cells, colour))
    elif mode == "cell":
        if cell is None:
            raise ValueError("--cell names the cell to light")
        shown = [(cell, led_test.frame(wiring.leds, (cell,), colour))]
    elif mode == "all":
        shown = [(colour, led_test.frame(wiring.leds, cells, colour))]
    elif mode == "colours":
        shown = [(name, led_test.frame(wiring.leds, cells, name)) for name in led_test.COLOURS]
    else:
        raise ValueError(f"mode {mode!r}: walk, cell, all or colours")
    for label, frame in shown:
        link.set_leds(frame)
        say(f"lit: {label}")
        time.sleep(delay)
    link.set_leds(bytes(3 * len(wiring.leds)))


def run_map(link: Link, board, wiring_dir: Path, say: Say, patience: float) -> MapResult:
    """The wiring wizard on the terminal; writes the board's wiring file."""
    cells = [cell.id for cell in board.cells]
    wizard = MapWizard(
        lambda: bytes(link.last_scan.cells),
        link.set_leds,
        lambda said: say(str(said)),
        lambda: link.shown,
        patience=patience,
    )
    result = wizard.run(board.name, cells)
    path = wiring_path(wiring_dir, board.name)
    result.wiring.save(path)
    for finding in result.findings:
        say(str(finding))
    say(f"wrote {path}")
    return result


def run_flash(device: str, mpremote: str | None, say: Say, timeout: float) -> Words | str | None:
    """Copy the firmware with mpremote (unless ``mpremote`` is None: check only),
    then compare the board's HELLO with this host; returns what is wrong, or None."""
    if mpremote is not None:
        command = mpremote_command(device, mpremote)
        say(" ".join(command))
        try:
            done = subprocess.run(command, check=False)
        except FileNotFoundError:
            return f"{mpremote} not found: install it with `pip install mpremote`"
        if done.returncode != 0:
            return (
                f"mpremote failed (exit {done.returncode}): is the maintenance jumper "
                "(GP14 to GND) fitted and the service stopped (`systemctl stop boardref`)?"
            )
        say("copied; remove the maintenance jumper and replug the USB cable now")
    try:
        link = open_link(device, timeout)
    except LinkError as exc:
        return str(exc)
    try:
        hello = link.hello
        say(
            f"the board says: {hello.firmware}, protocol {hello.protocol_version}, "
            f"{hello.cells} cells"
        )
        return version_problem(hello, device)
    finally:
        link.close()


def run_calibrate(
    link: Link,
    wiring: Wiring,
    wiring_dir: Path,
    kinds: Sequence[str],
    seconds: float,
    say: Say,
) -> Calibration:
    """Learn a magnet board's per-sensor thresholds, store them with its wiring and
    send them to the board."""
    if link.hello.sensor_kind != protocol.SENSOR_MAGNET:
        raise ValueError("this board senses presence only: there is nothing to calibrate")
    link.configure(raw_readings=1, heartbeat_ms=50)
    try:
        calibrator = Calibrator(lambda: link.last_readings, lambda said: say(str(said)), seconds)
        calibration = calibrator.run(wiring.sensors, kinds)
    finally:
        link.configure(raw_readings=0, heartbeat_ms=500)
    wiring.calibration = calibration.to_json()
    path = wiring_path(wiring_dir, wiring.board)
    wiring.save(path)
    link.calibrate(calibration.north, calibration.south)
    for finding in calibration.findings:
        say(str(finding))
    say(f"wrote {path}")
    return calibration
