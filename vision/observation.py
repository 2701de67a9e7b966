"""What the camera read, as both pipelines hand it to the referee: per cell a token
or None, a confidence, and the best few readings.

A plain record: it decides nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: readings per site an observation lists in ``ranked``
RANKED = 3


@dataclass(frozen=True)
class Observation:
    """What the camera read: per cell a token or None, the confidence (0-1) of that
    reading, and the best few readings with their probabilities."""

    tokens: dict[str, str | None]
    confidence: dict[str, float]
    ranked: dict[str, tuple[tuple[str | None, float], ...]] = field(default_factory=dict)
