"""The successor index: outcomes kept as the few cells they change, looked up by a
whole reading, written out only when matched, and kept within a byte budget."""

from __future__ import annotations

import gc
import random
from array import array
from functools import cache, partial

import numpy as np
import pytest

from boardref.eventlog.store import Store
from boardref.referee import fusion
from boardref.referee import match as match_module
from boardref.referee.kinds import Sensor, projection
from boardref.referee.referee import Referee
from boardref.referee.successors import (
    RowsBy,
    Successors,
    index_successors,
    outcomes_read_as,
)
from engines import load_game
from engines.chance import Stream
from engines.core import Game
from engines.players import random_decisions
from engines.sensed import NO_CELL, Rows, SensedOutcomes


def _turns(game, seed: int, turns: int):
    """Turn-start positions (marbles drawn) of a seeded random game."""
    start = game.initial_state()
    return random_decisions(game, start, random.Random(seed), Stream(f"t{seed}"), turns)


@pytest.mark.parametrize("sensors", [("presence",), ("camera",), ("camera", "presence")])
@pytest.mark.parametrize(("name", "players"), [("hakenschlagen", 3), ("sternhalma", 3)])
def test_an_engine_tells_each_outcomes_changes_as_the_positions_would(name, players, sensors):
    game = load_game(name, players)
    for state in _turns(game, 4, 6):
        fast, resolve = game.sensed_successors(state, sensors)
        slow, written = Game.sensed_successors(game, state, sensors)
        ours = {(resolve(end)[1], *changes) for end, *changes in fast}
        theirs = {(written(ref)[1], *changes) for ref, *changes in slow}
        assert ours == theirs


@pytest.mark.parametrize("name", ["hakenschlagen", "sternhalma", "catch_the_hare"])
def test_a_reading_finds_every_move_that_reads_so(name):
    game = load_game(name)
    state = _turns(game, 2, 3)[-1]
    index = index_successors(game, state, "presence")
    moves = game.legal_moves(state)
    for move in random.Random(1).sample(list(moves), min(20, len(moves))):
        after = game.apply(state, move)
        key = tuple(game.sense(after, "presence").values())
        assert after in {position for _, position in index.get(key)}
    assert index.get(tuple("nonsense" for _ in index.base)) == []


@pytest.mark.parametrize("name", ["hakenschlagen", "sternhalma", "catch_the_hare"])
def test_a_reading_matched_without_an_index_finds_what_the_index_finds(name):
    game = load_game(name)
    state = _turns(game, 5, 3)[-1]
    index = index_successors(game, state, "presence")
    moves = game.legal_moves(state)
    for move in random.Random(2).sample(list(moves), min(20, len(moves))):
        key = tuple(game.sense(game.apply(state, move), "presence").values())
        lazy = outcomes_read_as(game, state, "presence", key)
        assert {after for _, after in lazy} == {after for _, after in index.get(key)} != set()
    assert outcomes_read_as(game, state, "presence", ("nonsense",) * len(index.base)) == []


def test_the_referee_keeps_indexes_within_their_byte_budget(tmp_path, monkeypatch):
    referee = Referee(Store(tmp_path / "log.db"))
    referee.new_game("sternhalma", 2)
    game = referee.game
    positions = [game.initial_state()]
    for _ in range(12):
        positions.append(game.apply(positions[-1], game.legal_moves(positions[-1])[0]))
    one = index_successors(game, positions[1], "presence").nbytes
    monkeypatch.setattr(match_module, "INDEX_BYTES", 3 * one)
    for state in positions:
        referee.match.successors_of(state)
    kept = referee.match.successors
    assert sum(index.nbytes for index in kept.values()) <= 4 * one
    assert positions[0] in kept  # the position on the board is never let go


def test_the_referee_keeps_a_bounded_count_of_old_indexes(tmp_path):
    """A long game's small indexes fit the byte budget by the thousand, yet each
    holds its outcomes' moves and positions in Python beside its counted bytes: at
    most ``KEPT_INDEXES`` are kept, far fewer than a long game's positions."""
    referee = Referee(Store(tmp_path / "log.db"))
    referee.new_game("sternhalma", 2)
    game = referee.game
    positions, pick = [game.initial_state()], random.Random(7)
    while len(positions) < 200:
        positions.append(game.apply(positions[-1], pick.choice(game.legal_moves(positions[-1]))))
    for state in positions:
        referee.match.successors_of(state)
    kept = referee.match.successors
    assert len(kept) <= match_module.KEPT_INDEXES < 100  # far fewer than the positions
    assert positions[0] in kept  # the position on the board is never let go
    assert positions[-1] in kept  # nor the one just indexed


def test_a_move_lets_the_last_positions_index_go_before_the_next_is_built(table, monkeypatch):
    """Room for the next position's index is made when the position changes, not
    beside it: a Hakenschlagen turn's index takes tens of megabytes, and two at once
    is what a Pi runs short of."""
    t, base = a_move_with_room_for_one_index(table, monkeypatch)
    assert t.referee.log[-1] == ("move", {"move": "l4-k5", "seat": 0})
    assert base not in t.referee.match.successors


def a_move_with_room_for_one_index(table, monkeypatch, before_the_move=None):
    """A Sternhalma table whose successor cache has room for one index and a half,
    after one move (``before_the_move()`` is called just before it); returns the
    table and the position before the move."""
    t = table("sternhalma", 2)
    t.lay_out_start()
    base = t.referee.positions[-1]
    t.referee.prepare()
    one = t.referee.match.successors[base].nbytes
    monkeypatch.setattr(match_module, "INDEX_BYTES", one + one // 2)
    if before_the_move is not None:
        before_the_move()
    t.change(l4=None, k5="piece")
    return t, base


@cache
def _fox_turns(board: str, seed: int) -> tuple:
    """The first turn-start position of a seeded 5-player game whose hand holds the fox
    marble and whose turn ends in at most a few thousand ways (the plain index
    builds every position); found once per board for the three sensors."""
    game = load_game("hakenschlagen", 5, board=board)
    found = [
        state
        for state in _turns(game, seed, 60)
        if game.to_move(state) is not None
        and "fox" in state.hand
        and len(game.legal_moves(state)) <= 3000
    ]
    return game, found[:1]


@pytest.mark.parametrize("sensor", ["presence", "camera", "both"])
@pytest.mark.parametrize("board", ["hex", "square"])
def test_the_compact_index_finds_what_one_row_per_outcome_finds(board, sensor, monkeypatch):
    """Hakenschlagen's index keeps most outcomes as a shared row and the fox's cell;
    every lookup, candidate and hall agreement is that of an index holding each
    outcome's own changes, as the engine's generic listing gives them."""
    game, states = _fox_turns(board, 11)
    assert states
    pick = random.Random(3)
    for state in states:
        compact = index_successors(game, state, sensor)
        with monkeypatch.context() as patch:
            patch.setattr(game, "sensed_successors", partial(Game.sensed_successors, game))
            plain = index_successors(game, state, sensor)
        assert len(compact._sensed.rows) < compact.outcomes == plain.outcomes
        assert list(compact.readings()) == list(plain.readings())
        every = list(plain.readings())
        keys = [compact.candidate(n) for n in range(compact.outcomes)]
        assert keys == [plain.candidate(n) for n in range(plain.outcomes)]
        for k, key in enumerate(pick.sample(keys, 20)):
            assert compact.get(key) == plain.get(key) != []
            nudged = list(key)
            nudged[pick.randrange(len(key))] = "fox"
            assert compact.get(tuple(nudged)) == plain.get(tuple(nudged))
            if sensor == "both":
                felt = compact.felt(compact.changes(key))
                assert felt == plain.felt(plain.changes(key)) is not None
                assert np.array_equal(compact.agreeing(felt), plain.agreeing(felt))
                assert compact.agreeing(felt).sum() >= 1
            if k < 5:
                # what the lights' guidance looks through: readings changing given cells,
                # showing something on at most one cell bare now
                lifted = list(compact.base)
                lifted[pick.choice([i for i, t in enumerate(lifted) if t is not None])] = None
                cells = compact.changes(key)[0::2]
                covering = set(pick.sample(cells, min(1, len(cells))))
                assert list(compact.readings(covering, tuple(lifted))) == [
                    changes
                    for changes in every
                    if covering.issubset(changes[0::2])
                    and sum(
                        lifted[i] is None and compact.full(changes)[i] is not None
                        for i in range(len(lifted))
                    )
                    <= 1
                ]
        if sensor != "presence":
            tokens = fusion.Tokens()
            ids_of = [tokens.of(i.candidates.names) for i in (compact, plain)]
            table = np.random.default_rng(5).random((len(compact.base), len(tokens.ids)))
            costs = [i.candidates.costs(table, ids) for i, ids in zip((compact, plain), ids_of)]
            assert np.allclose(*costs)


def test_the_kept_indexes_count_their_bytes_and_largest_as_they_come_and_go():
    game = load_game("sternhalma", 3)
    positions = [game.initial_state()]
    for n in range(8):
        moves = game.legal_moves(positions[-1])
        positions.append(game.apply(positions[-1], moves[n % len(moves)]))
    indexes = [index_successors(game, state, "presence") for state in positions]
    kept = match_module.Indexes()
    for state, index in zip(positions, indexes):
        kept.keep(state, index)
    kept.keep(positions[2], indexes[0])  # in the place of the one kept before
    largest = max(kept, key=lambda state: kept[state].nbytes)
    for state in {positions[5], positions[0], largest}:
        kept.pop(state)
    left = [kept[state].nbytes for state in kept]
    assert len(set(left)) > 1  # sizes differ, so the largest is told apart
    assert (kept.nbytes, kept.largest()) == (sum(left), max(left))
    kept.clear()
    assert (kept.nbytes, kept.largest(), len(kept)) == (0, 0, 0)


def test_outcomes_the_camera_tells_apart_and_the_hall_sensors_feel_alike_are_all_found():
    """Thousands of outcomes a camera reads apart (the hare on each cell) while the hall
    sensors feel only two readings: each reading finds every outcome that feels so,
    in order, and each camera reading its one outcome."""
    cells = 4000
    base, presence_base = (None,) * cells, (None,) * cells
    rows = [((n, "hare"), (n % 2, "piece")) for n in range(cells)]
    sensed = SensedOutcomes(
        Rows.of(2, rows), (), array("i", range(cells)), array("h", [NO_CELL]) * cells
    )
    index = Successors(Sensor.BOTH, base, lambda n: (f"move {n}", n))
    index.presence_base = presence_base
    index.fill(sensed)
    for felt in (0, 1):
        hall = tuple("piece" if i == felt else None for i in range(cells))
        assert np.flatnonzero(index.agreeing(hall)).tolist() == list(range(felt, cells, 2))
    seen = tuple("hare" if i == 7 else None for i in range(cells))
    assert index.get(seen) == [("move 7", 7)]


def test_a_big_turns_rows_are_kept_in_a_few_bytes_each():
    """The rows of a big Hakenschlagen turn are flat arrays of cells and token ids,
    not a tuple each (with camera and hall sensors, a tuple per row and one per
    sensor took some 300 bytes a row, whose room the interpreter kept once the
    index was let go); a row written out reads as it was."""
    import tracemalloc

    game = load_game("hakenschlagen", 3)
    state = _turns(game, 1, 1)[0]  # a molehill marble: 4,551 outcomes
    game.sensed_successors(state, ("camera", "presence"))  # the engine's own caches
    tracemalloc.start()
    try:
        sensed, _ = game.sensed_successors(state, ("camera", "presence"))
        gc.collect()
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    rows = sensed.rows
    assert len(rows) > 1000
    assert rows.nbytes < 40 * len(rows)
    assert kept < 100 * len(rows) + 8 * len(sensed)
    written = Rows.of(2, rows)
    assert list(written) == list(rows)


def test_readings_whose_hashes_clash_are_told_apart(monkeypatch):
    """With every reading hashed alike, each still finds only its own rows, in order."""
    from boardref.referee import successors

    monkeypatch.setattr(successors, "_weights", lambda: np.zeros(256, np.uint64))
    monkeypatch.setattr(successors, "_weights_listed", lambda: [0] * 256)
    rows = Rows.of(1, [((1, "hare"),), ((2, "hare"),), ((1, "hare"),), ((),)])
    table = RowsBy(rows, 0)
    assert table.rows_of([(1, "hare"), (2, "hare"), (5, "hare"), (1, "fox"), ()]) == [
        [0, 2],
        [1],
        [],
        [],
        [3],
    ]
    assert RowsBy(rows, 1).rows_of([(1, "hare")]) == [[]]


def test_the_lookup_tables_take_a_few_bytes_a_row():
    """The tables from a reading to its rows are two arrays, not a dict with a tuple
    and an int per row: the biggest Hakenschlagen turns' took megabytes of small
    objects, whose room the interpreter kept once the index was let go."""
    import tracemalloc

    rows = Rows.of(
        2, [((n % 200, "hare", n % 200 + 1, None), (n % 250, "piece")) for n in range(20_000)]
    )
    tracemalloc.start()
    try:
        tables = [RowsBy(rows, sensor) for sensor in (0, 1)]
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [t.rows_of([(7, "hare", 8, None)]) for t in tables] == [
        [list(range(7, 20_000, 200))],
        [[]],
    ]
    assert kept < 2 * 20_000 * 16


@pytest.mark.parametrize("sensor", [Sensor.CAMERA, Sensor.BOTH, Sensor.PRESENCE])
def test_a_position_awaiting_its_draw_is_indexed_without_outcomes(sensor):
    """Before the marbles are drawn nobody moves: the index is empty, for a camera too
    (the camera weighs the positions it might see, a turn's start among them)."""
    import dataclasses

    game = load_game("hakenschlagen", 3)
    waiting = dataclasses.replace(_turns(game, 1, 1)[0], hand=None)
    assert game.to_move(waiting) is None
    found = index_successors(game, waiting, sensor)
    base = tuple(game.sense(waiting, projection(sensor)).values())
    assert found.outcomes == 0 and found.get(base) == [] and list(found.readings()) == []
