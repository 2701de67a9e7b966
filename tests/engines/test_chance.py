"""Chance streams, specs and the seed commitment."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines import RulesError
from engines.chance import (
    Bag,
    BagDraw,
    Die,
    Shuffle,
    Stream,
    TileDraw,
    commitment,
    deal,
    new_seed,
    spec_from_json,
    verify,
)


def test_the_same_seed_gives_the_same_draws_and_another_seed_others():
    def rolls(seed):
        stream = Stream(seed)
        return [Die(6).draw(stream) for _ in range(40)]

    assert rolls("table 1") == rolls("table 1")
    assert rolls("table 1") != rolls("table 2")


def test_a_stream_is_hmac_sha256_of_the_seed_and_a_counter():
    stream = Stream(b"seed")
    block = hmac.new(b"seed", (0).to_bytes(8, "big"), hashlib.sha256).digest()
    assert stream.below(256) == block[0]
    assert stream.counter == 1


def test_rejection_sampling_skips_values_out_of_range_instead_of_folding_them():
    # With n = 3 a block's top two bits give 0..3; 3 must be drawn again, not wrapped.
    seed = b"rejection"
    tops = [
        hmac.new(seed, k.to_bytes(8, "big"), hashlib.sha256).digest()[0] >> 6 for k in range(64)
    ]
    first_reject = tops.index(3)
    stream = Stream(seed, counter=first_reject)
    value = stream.below(3)
    assert value == next(t for t in tops[first_reject:] if t < 3)
    assert stream.counter > first_reject + 1


@given(st.binary(min_size=1, max_size=40), st.integers(min_value=1, max_value=10**12))
def test_below_always_lands_in_range(seed, n):
    assert 0 <= Stream(seed).below(n) < n


def test_a_resumed_stream_continues_where_it_stopped():
    whole = Stream("resume")
    draws = [whole.below(100) for _ in range(10)]
    first = Stream("resume")
    head = [first.below(100) for _ in range(4)]
    tail = Stream("resume", counter=first.counter)
    assert head + [tail.below(100) for _ in range(6)] == draws


def test_the_commitment_is_the_sha256_of_the_seed_and_new_seeds_are_fresh():
    assert commitment(b"abc") == hashlib.sha256(b"abc").hexdigest()
    assert Stream(b"abc").commitment == commitment(b"abc")
    assert new_seed() != new_seed() and len(new_seed()) == 32


def test_verify_recomputes_every_draw_and_names_the_first_that_differs():
    seed = new_seed()
    stream = Stream(seed)
    bag = Bag.of(yellow=3, green=2, red=1)
    specs = [Die(6), bag.draw(3), Shuffle(("a", "b", "c")), TileDraw(("t1", "t2"))]
    record = [(spec.to_json(), spec.draw(stream)) for spec in specs]
    verify(seed, commitment(seed), json.loads(json.dumps(record)))
    tampered = [*record[:1], (record[1][0], ["red", "red", "red"]), *record[2:]]
    with pytest.raises(RulesError, match="draw 2"):
        verify(seed, commitment(seed), tampered)
    with pytest.raises(RulesError, match="does not match the commitment"):
        verify(b"another seed", commitment(seed), record)


def test_die_outcomes_are_uniform():
    faces = Die(6).outcomes()
    assert [f for f, _ in faces] == [1, 2, 3, 4, 5, 6]
    assert sum(p for _, p in faces) == pytest.approx(1)


def test_bag_outcomes_follow_the_hypergeometric_law():
    draw = Bag.of(yellow=2, black=1).draw(2)
    assert draw.outcomes() == [(("black", "yellow"), 2 / 3), (("yellow", "yellow"), 1 / 3)]
    twelve = Bag.of(field=2, yellow=2, green=2, orange=2, red=2, black=2).draw(3)
    assert sum(p for _, p in twelve.outcomes()) == pytest.approx(1)


@given(st.dictionaries(st.sampled_from("abcdef"), st.integers(1, 3), min_size=1), st.data())
def test_a_drawn_hand_comes_out_of_the_bag_and_goes_back(counts, data):
    bag = Bag.of(**counts)
    count = data.draw(st.integers(0, len(bag.marbles)))
    hand = bag.draw(count).draw(Stream(data.draw(st.binary(min_size=1))))
    assert len(hand) == count
    assert hand in dict(bag.draw(count).outcomes())
    left = bag.take(hand)
    assert len(left.marbles) == len(bag.marbles) - count
    assert left.put_back(hand) == bag


def test_taking_what_the_bag_does_not_hold_is_refused():
    with pytest.raises(RulesError, match="does not hold red"):
        Bag.of(yellow=1).take(["red"])
    with pytest.raises(RulesError, match="cannot draw 3"):
        BagDraw(("a", "b"), 3)


def test_a_shuffle_is_a_permutation_and_deals_split_it():
    deck = tuple(f"card{i}" for i in range(33))
    order = Shuffle(deck).draw(Stream("deal"))
    assert sorted(order) == sorted(deck) and order != deck
    hands, rest = deal(order, [10, 10, 10])
    assert [len(h) for h in hands] == [10, 10, 10] and len(rest) == 3
    assert Shuffle(deck).outcomes() is None, "33! orders are not listed"
    assert len(Shuffle(("a", "a", "b")).outcomes()) == 3
    with pytest.raises(RulesError, match="cannot deal"):
        deal(order, [30, 10])


def test_tiles_are_drawn_from_the_pile_and_an_empty_pile_is_refused():
    pile = ("c1", "c2", "c3")
    assert TileDraw(pile).draw(Stream("tiles")) in pile
    with pytest.raises(RulesError, match="empty"):
        TileDraw(())


@pytest.mark.parametrize("bad", [{}, {"kind": "coin"}, {"kind": "die"}, "die", None])
def test_a_corrupt_spec_record_is_refused(bad):
    with pytest.raises(RulesError, match="not a chance spec"):
        spec_from_json(bad)


def test_a_stream_refuses_nonsense():
    with pytest.raises(RulesError):
        Stream(b"")
    with pytest.raises(RulesError):
        Stream(42)
    with pytest.raises(RulesError):
        Stream("x").below(0)


def test_draw_counts_spread_over_every_face():
    stream = Stream("spread")
    counts = Counter(Die(6).draw(stream) for _ in range(600))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
