"""What each kind of sensor can see of a position, so that matching compares like
with like: ``project(game.observe(state), "presence")`` is what hall sensors report.

Never decides anything; it only maps tokens.
"""

from __future__ import annotations

from collections.abc import Mapping

from engines.errors import RulesError
from engines.words import words

#: the token a presence-only sensor reports for an occupied cell
PIECE = "piece"
SENSORS = ("camera", "presence")


def project(observation: Mapping[str, str | None], sensor: str) -> dict[str, str | None]:
    """``observation`` (cell id -> token or None) as ``sensor`` would report it.

    ``camera`` sees every token as it is; ``presence`` (a hall sensor under each
    cell) sees only whether something stands there.
    """
    if sensor == "camera":
        return dict(observation)
    if sensor == "presence":
        return {cell: None if token is None else PIECE for cell, token in observation.items()}
    raise RulesError(
        words(
            "rules.unknown_sensor",
            "unknown sensor kind {sensor}; known: {known}",
            sensor=repr(sensor),
            known=", ".join(SENSORS),
        )
    )
