"""The world's data file (``world.toml``), read once."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path


@cache
def world() -> dict:
    with (Path(__file__).with_name("world.toml")).open("rb") as f:
        return tomllib.load(f)


def srgb(name_or_rgb) -> tuple[float, float, float]:
    """A colour of the data file (by name, or as sRGB 0-255) in linear 0-1."""
    rgb = world()["colours"][name_or_rgb] if isinstance(name_or_rgb, str) else name_or_rgb
    c = [v / 255 for v in rgb]
    return tuple(v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in c)
