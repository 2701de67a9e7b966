"""Pictures for people: the marker sheet to print at true size, and the camera
snapshot with the cell overlay that the referee page shows.

Draws only; never reads a cell or decides anything.
"""

from __future__ import annotations

import struct
import zlib

import cv2
import numpy as np

from engines.coasters import CORNERS
from vision import looks
from vision.boards.reader import BoardReader

DPI = 300
MM_PER_INCH = 25.4
#: overlay colours (BGR): a cell read with confidence, a doubtful one, an unseen one
SURE, DOUBTFUL, UNSEEN = (80, 200, 60), (0, 180, 255), (60, 60, 230)
#: below this confidence a cell is drawn as doubtful
DOUBT = 0.9


def marker_sheet(board) -> bytes:
    """A PNG (300 dpi, so it prints at true size) with each of the board's markers,
    its quiet zone and where its centre goes on the board, in millimetres."""
    markers = looks.markers(board)
    px = DPI / MM_PER_INCH
    cell = max(m.size for m in markers) * 1.6
    width = int(cell * px * min(len(markers), 4))
    rows = (len(markers) + 3) // 4
    sheet = np.full((int(rows * (cell + 12) * px), width), 255, np.uint8)
    dictionary = looks.dictionary()
    for n, marker in enumerate(markers):
        side = int(round(marker.size * px))
        x = int((n % 4) * cell * px + (cell * px - side) / 2)
        y = int((n // 4) * (cell + 12) * px + 0.3 * cell * px)
        sheet[y : y + side, x : x + side] = cv2.aruco.generateImageMarker(
            dictionary, marker.id, side
        )
        label = f"#{marker.id} at x={marker.xy[0]:.1f} y={marker.xy[1]:.1f} mm, top to north"
        cv2.putText(
            sheet,
            label,
            (int(x - 0.25 * side), y + side + int(8 * px)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.9,
            0,
            2,
            cv2.LINE_AA,
        )
        cv2.putText(
            sheet,
            f"{marker.size:g} mm",
            (x, y - int(2 * px)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.9,
            0,
            2,
            cv2.LINE_AA,
        )
    ok, png = cv2.imencode(".png", sheet)
    return _with_dpi(png.tobytes(), DPI)


def _with_dpi(png: bytes, dpi: int) -> bytes:
    """Insert a pHYs chunk so printers know the true size (OpenCV writes none)."""
    per_metre = int(round(dpi / MM_PER_INCH * 1000))
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    end_of_header = 8 + 4 + 4 + 13 + 4  # signature, IHDR length, type, data, crc
    return png[:end_of_header] + chunk + png[end_of_header:]


def overlay_png(reader: BoardReader, frame: np.ndarray, observation=None) -> bytes:
    """The camera frame with each cell's centre marked and named, coloured by how sure
    the last reading was, and the markers' outline: a PNG for the referee page."""
    image = frame.copy()
    if reader.sampler is None:
        return _not_found(image, "board")
    outline = np.round(reader._outline()).astype(np.int32)
    cv2.polylines(image, [outline], True, (255, 255, 255), 2, cv2.LINE_AA)
    done: set[str] = set()
    for site, centre, seen in zip(reader.sites, reader.sampler.centres, reader.sampler.visible):
        if site.cell in done:
            continue
        done.add(site.cell)
        colour = UNSEEN
        text = site.cell
        if seen and observation is not None:
            sure = observation.confidence.get(site.cell, 0.0)
            colour = SURE if sure >= DOUBT else DOUBTFUL
            token = observation.tokens.get(site.cell)
            text = f"{site.cell} {token}" if token else site.cell
        elif seen:
            colour = SURE
        _mark(image, centre, text, colour)
    return cv2.imencode(".png", image)[1].tobytes()


def mat_overlay_png(sensor, frame: np.ndarray, observation=None) -> bytes:
    """The camera frame with Hägar's mat outlined and each spot's centre marked,
    named with the coaster read there, coloured by how sure the last reading was
    (its least sure field): a PNG for the referee page. ``sensor`` is a
    ``vision.coasters.sensor.CoasterSensor``."""
    image = frame.copy()
    if sensor.pose is None:
        return _not_found(image, "mat")
    pose, lens = sensor.pose, sensor.lens
    outline = np.round(sensor.outline()).astype(np.int32)
    cv2.polylines(image, [outline], True, (255, 255, 255), 2, cv2.LINE_AA)
    spots = sensor.mat.cells
    centres = lens.project(np.array([[*c.xy, 0.0] for c in spots]), pose.rvec, pose.tvec)
    for spot, centre in zip(spots, centres):
        colour, text = SURE, ""
        if observation is not None:
            fields = [f"{spot.id}_{corner}" for corner in CORNERS]
            sure = min(observation.confidence.get(f, 1.0) for f in fields)
            colour = SURE if sure >= DOUBT else DOUBTFUL if sure > 0 else UNSEEN
            token = observation.tokens.get(fields[0])
            text = token.split("_")[0] if token else ""
        _mark(image, centre, text, colour)
    return cv2.imencode(".png", image)[1].tobytes()


def _mark(image: np.ndarray, centre, text: str, colour) -> None:
    """A ring at ``centre`` with ``text`` beside it."""
    c = tuple(int(round(v)) for v in centre)
    cv2.circle(image, c, 5, colour, 2, cv2.LINE_AA)
    cv2.putText(
        image, text, (c[0] + 6, c[1] - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.35, colour, 1, cv2.LINE_AA
    )


def _not_found(image: np.ndarray, what: str) -> bytes:
    cv2.putText(
        image,
        f"{what} not found: check the markers or set the corners",
        (20, 40),
        cv2.FONT_HERSHEY_SIMPLEX,
        1.0,
        UNSEEN,
        2,
        cv2.LINE_AA,
    )
    return cv2.imencode(".png", image)[1].tobytes()
