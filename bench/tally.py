"""One area of ``bench_hardening.py``: how many attacks were tried, how many the
table held, and, for each that got through, what happened in words.

An area is a module ``bench/hardening_<area>.py`` with ``attack(scratch: Path) ->
Tally``; ``bench_hardening.py`` finds them by name, runs each in a folder of its own
and prints one line per area. An attack holds when the table answered as it should
(refused, kept the game, kept answering); anything else is a failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Tally:
    """What one area's attacks did."""

    area: str
    tried: int = 0
    held: int = 0
    failures: list[str] = field(default_factory=list)

    def check(self, held: bool, what: str) -> bool:
        """Count one attack; ``what`` says what it tried, kept when it got through."""
        self.tried += 1
        if held:
            self.held += 1
        else:
            self.failures.append(what)
        return held

    @property
    def failed(self) -> int:
        return self.tried - self.held

    def to_json(self) -> dict:
        return {
            "tried": self.tried,
            "held": self.held,
            "failed": self.failed,
            "failures": self.failures[:10],
        }
