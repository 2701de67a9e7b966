"""Chance that anyone can re-check: dice, marbles from a bag, shuffled decks, tiles.

Every draw of a game comes from one ``Stream``: block ``k`` is HMAC-SHA256(seed, k),
and whole numbers below ``n`` are taken by rejection sampling, so no outcome is
favoured (no modulo bias). The SHA-256 of the seed (``commitment``) is shown at game
start; the seed is revealed at the end, and ``verify`` recomputes every draw.
Production seeds come from ``secrets`` (``new_seed``); tests pass fixed seeds.

A *spec* says what must be drawn; engines return one from ``game.chance(state)``:

>>> stream = Stream(b"table 7, game 12")
>>> Die(6).draw(stream) in range(1, 7)
True
>>> Bag.of(yellow=2, black=1).draw(2).outcomes()
[(('black', 'yellow'), 0.6666666666666666), (('yellow', 'yellow'), 0.3333333333333333)]

This module draws only when asked; it holds no global random state.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import permutations
from math import comb, factorial, prod
from typing import Any

from engines.errors import RulesError
from engines.words import words

#: ``outcomes()`` returns None rather than list more than this many outcomes.
MAX_OUTCOMES = 10_000
_BLOCK_BITS = 256


def new_seed() -> bytes:
    """A fresh secret seed for a real game."""
    return secrets.token_bytes(32)


def _seed_bytes(seed: bytes | str) -> bytes:
    if isinstance(seed, str):
        return seed.encode("utf-8")
    if isinstance(seed, bytes | bytearray):
        return bytes(seed)
    raise RulesError(
        words(
            "rules.seed_bytes_text_not",
            "a seed is bytes or text, not {kind}",
            kind=type(seed).__name__,
        )
    )


def commitment(seed: bytes | str) -> str:
    """The SHA-256 (hex) of the seed: published at game start, checked at the end."""
    return hashlib.sha256(_seed_bytes(seed)).hexdigest()


class Stream:
    """The game's source of chance: HMAC-SHA256(seed, counter), one block per try."""

    def __init__(self, seed: bytes | str, counter: int = 0) -> None:
        self.seed = _seed_bytes(seed)
        if not self.seed:
            raise RulesError(words("rules.seed_must_not_empty", "a seed must not be empty"))
        #: blocks used so far; store it with the game to resume the same stream
        self.counter = counter

    def __repr__(self) -> str:
        return f"<Stream {self.commitment[:12]}... at block {self.counter}>"

    @property
    def commitment(self) -> str:
        return commitment(self.seed)

    def below(self, n: int) -> int:
        """A whole number in ``range(n)``, each equally likely."""
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 1 << _BLOCK_BITS:
            raise RulesError(words("rules.cannot_draw_below", "cannot draw below {n}", n=repr(n)))
        bits = (n - 1).bit_length()
        while True:
            block = hmac.digest(self.seed, self.counter.to_bytes(8, "big"), hashlib.sha256)
            self.counter += 1
            value = int.from_bytes(block, "big") >> (_BLOCK_BITS - bits)
            if value < n:
                return value


@dataclass(frozen=True)
class Die:
    """One die with ``sides`` faces numbered from 1.

    ``optional``: the roll is offered, not forced (the extra roll after a six in Fang
    den Hut!). The seat may decline it with ``game.apply(state, PASS)``; the turn then
    passes on. ``game.drawer(state)`` is the seat that rolls or declines.
    """

    sides: int = 6
    optional: bool = False

    def draw(self, stream: Stream) -> int:
        return 1 + stream.below(self.sides)

    def outcomes(self) -> list[tuple[int, float]]:
        return [(face, 1 / self.sides) for face in range(1, self.sides + 1)]

    def __str__(self) -> str:
        return f"roll a d{self.sides}"

    def to_json(self) -> dict:
        if self.optional:
            return {"kind": "die", "sides": self.sides, "optional": True}
        return {"kind": "die", "sides": self.sides}


@dataclass(frozen=True)
class Bag:
    """The marbles in a bag (an immutable multiset, kept sorted)."""

    marbles: tuple[str, ...]

    @classmethod
    def of(cls, **counts: int) -> Bag:
        return cls(tuple(sorted(name for name, n in counts.items() for _ in range(n))))

    def __post_init__(self) -> None:
        object.__setattr__(self, "marbles", tuple(sorted(self.marbles)))

    def draw(self, count: int) -> BagDraw:
        """The spec for drawing ``count`` marbles without replacement."""
        return BagDraw(self.marbles, count)

    def take(self, drawn: Iterable[str]) -> Bag:
        """The bag after ``drawn`` came out; an error if they are not all in it."""
        left = Counter(self.marbles)
        left.subtract(drawn)
        if min(left.values(), default=0) < 0:
            missing = sorted(m for m, n in left.items() if n < 0)
            raise RulesError(
                words(
                    "rules.bag_does_not_hold",
                    "the bag does not hold {missing}",
                    missing=", ".join(missing),
                )
            )
        return Bag(tuple(left.elements()))

    def put_back(self, returned: Iterable[str]) -> Bag:
        return Bag(self.marbles + tuple(returned))


@dataclass(frozen=True)
class BagDraw:
    """Draw ``count`` marbles without replacement; the outcome is the sorted hand."""

    marbles: tuple[str, ...]
    count: int

    def __post_init__(self) -> None:
        if not 0 <= self.count <= len(self.marbles):
            raise RulesError(
                words(
                    "rules.cannot_draw_bag",
                    "cannot draw {count} from a bag of {count2}",
                    count=self.count,
                    count2=len(self.marbles),
                )
            )

    def draw(self, stream: Stream) -> tuple[str, ...]:
        return tuple(sorted(_take(list(self.marbles), self.count, stream)))

    def outcomes(self) -> list[tuple[tuple[str, ...], float]] | None:
        colours = Counter(self.marbles)
        total = comb(len(self.marbles), self.count)
        hands: list[tuple[tuple[str, ...], float]] = []
        for hand in _multisets(sorted(colours), colours, self.count):
            ways = prod(comb(colours[c], k) for c, k in Counter(hand).items())
            hands.append((hand, ways / total))
            if len(hands) > MAX_OUTCOMES:
                return None
        return hands

    def __str__(self) -> str:
        return f"draw {self.count} from the bag"

    def to_json(self) -> dict:
        return {"kind": "bag", "marbles": list(self.marbles), "count": self.count}


@dataclass(frozen=True)
class TileDraw:
    """Draw the next tile (a coaster, say) from the face-down pile of ``tiles``."""

    tiles: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.tiles:
            raise RulesError(words("rules.tile_pile_empty", "the tile pile is empty"))

    def draw(self, stream: Stream) -> str:
        return self.tiles[stream.below(len(self.tiles))]

    def outcomes(self) -> list[tuple[str, float]]:
        counts = Counter(self.tiles)
        return [(tile, n / len(self.tiles)) for tile, n in sorted(counts.items())]

    def __str__(self) -> str:
        return "draw a tile"

    def to_json(self) -> dict:
        return {"kind": "tile", "tiles": list(self.tiles)}


@dataclass(frozen=True)
class Shuffle:
    """Shuffle a deck: the outcome is the order of all ``cards``, top first."""

    cards: tuple[str, ...]

    def draw(self, stream: Stream) -> tuple[str, ...]:
        return tuple(_take(list(self.cards), len(self.cards), stream))

    def outcomes(self) -> list[tuple[tuple[str, ...], float]] | None:
        counts = Counter(self.cards)
        distinct = factorial(len(self.cards)) // prod(factorial(n) for n in counts.values())
        if distinct > MAX_OUTCOMES:
            return None
        orders = sorted(set(permutations(self.cards)))
        return [(order, 1 / distinct) for order in orders]

    def __str__(self) -> str:
        return f"shuffle {len(self.cards)} cards"

    def to_json(self) -> dict:
        return {"kind": "shuffle", "cards": list(self.cards)}


def deal(order: tuple[str, ...], hands: Iterable[int]) -> tuple[tuple[tuple[str, ...], ...], tuple]:
    """Split a shuffled ``order`` into hands of the given sizes and the rest."""
    dealt, at = [], 0
    for size in hands:
        if size < 0 or at + size > len(order):
            raise RulesError(
                words(
                    "rules.cannot_deal_more_cards",
                    "cannot deal {size} more cards from {number}",
                    size=size,
                    number=len(order) - at,
                )
            )
        dealt.append(order[at : at + size])
        at += size
    return tuple(dealt), order[at:]


def spec_from_json(data: Any) -> Die | BagDraw | TileDraw | Shuffle:
    """The spec recorded by ``to_json``; ``RulesError`` for anything else."""
    kinds: dict[str, Callable[[Any], Die | BagDraw | TileDraw | Shuffle]] = {
        "die": lambda d: Die(int(d["sides"]), d.get("optional") is True),
        "bag": lambda d: BagDraw(tuple(map(str, d["marbles"])), int(d["count"])),
        "tile": lambda d: TileDraw(tuple(map(str, d["tiles"]))),
        "shuffle": lambda d: Shuffle(tuple(map(str, d["cards"]))),
    }
    try:
        return kinds[data["kind"]](data)
    except (KeyError, TypeError, ValueError) as exc:
        raise RulesError(
            words(
                "rules.not_chance_spec",
                "not a chance spec: {data} ({exc})",
                data=repr(data),
                exc=repr(exc),
            )
        ) from None


def verify(seed: bytes | str, published: str, draws: Iterable[tuple[Any, Any]]) -> None:
    """Check a revealed seed against its commitment and recompute every draw.

    ``draws`` is the game's ``(spec, outcome)`` pairs in order; specs may be objects
    or their JSON. Raises ``RulesError`` naming the first draw that does not match.
    """
    if commitment(seed) != published:
        raise RulesError(
            words(
                "rules.revealed_seed_does_not_match",
                "the revealed seed does not match the commitment shown at the start",
            )
        )
    stream = Stream(seed)
    for n, (spec, recorded) in enumerate(draws, start=1):
        if isinstance(spec, dict):
            spec = spec_from_json(spec)
        expected = spec.draw(stream)
        if _plain(expected) != _plain(recorded):
            raise RulesError(
                words(
                    "rules.draw_recorded_seed_gives",
                    "draw {n} ({spec}): recorded {recorded}, the seed gives {expected}",
                    n=n,
                    spec=str(spec),
                    recorded=repr(recorded),
                    expected=repr(expected),
                )
            )


def _take(items: list, count: int, stream: Stream) -> list:
    """The first ``count`` of a Fisher-Yates shuffle of ``items`` (consumed in place)."""
    return [items.pop(stream.below(len(items))) for _ in range(count)]


def _multisets(
    colours: list[str], available: Counter[str], count: int
) -> Iterator[tuple[str, ...]]:
    """Every sorted hand of ``count`` marbles the bag can give."""
    if count == 0:
        yield ()
        return
    if not colours:
        return
    first, rest = colours[0], colours[1:]
    for k in range(min(count, available[first]), -1, -1):
        for tail in _multisets(rest, available, count - k):
            yield tuple(sorted((first,) * k + tail))


def _plain(value: Any) -> Any:
    """Tuples as lists, so an outcome read back from JSON compares equal."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value
