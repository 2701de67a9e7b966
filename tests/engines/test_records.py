"""Game records: random games of every engine, chance included, are written as text
and JSON, read back unchanged and verified; a record with one changed roll, one
illegal ply or a seed that is not the committed one fails, naming where."""

from __future__ import annotations

import dataclasses
import json
import random
from functools import cache

import pytest

from engines import PASS, RecordError, RulesError, load_game
from engines.chance import Stream, commitment
from engines.records import (
    Entry,
    GameRecord,
    Result,
    from_json,
    read,
    spec_name,
    to_json,
    write,
)
from engines.replay import replay, verify
from tests.engines.test_random_games import HARD_LIMIT, LONG_GAMES, MAX_PLIES, SETUPS, _id

GAMES_PER_SETUP = 2


def random_record(setup, n: int) -> GameRecord:
    """A random game as the referee would log it: plies (some confirmed, corrected or
    taken back), draws from a committed seed, declined rolls, and its end."""
    name, players, options = setup
    return _random_record(name, players, tuple(sorted(options.items())), n)


@cache
def _random_record(name: str, players: int | None, options: tuple, n: int) -> GameRecord:
    # made once for the module: the round trip and the tests that change a record
    # (into a copy: records are frozen) read the same games
    options = dict(options)
    pick = random.Random(f"record {name} {players} {sorted(options.items())} {n}")
    game = load_game(name, players, **options)
    if "max_plies" in game.options:
        options = {**options, "max_plies": MAX_PLIES}
        game = load_game(name, players, **options)
    seed = f"record seed {n}".encode()
    stream = Stream(seed)
    positions, entries = [game.initial_state()], []
    for _ in range(HARD_LIMIT):
        state = positions[-1]
        if game.outcome(state) is not None:
            break
        spec = game.chance(state)
        if spec is not None:
            if getattr(spec, "optional", False) and pick.random() < 0.3:
                entries.append(Entry("ply", seat=game.drawer(state), move=str(PASS)))
                positions.append(game.apply(state, PASS))
                continue
            outcome = spec.draw(stream)
            entries.append(Entry("draw", spec=spec_name(spec), outcome=outcome))
            positions.append(game.resolve(state, outcome))
            continue
        move, after = game.random_play(state, pick)
        marks = pick.choice([(), (), (), ("confirmed",), ("corrected",), ("chosen",)])
        entries.append(Entry("ply", seat=game.to_move(state), move=str(move), marks=marks))
        positions.append(after)
        if pick.random() < 0.05 and game.outcome(positions[-1]) is None:
            entries.append(Entry("takeback"))
            positions.pop()
    else:
        pytest.fail(f"a random game of {name} did not end")
    ended = game.outcome(positions[-1])
    return GameRecord(
        game=name,
        players=game.players,
        options=options,
        seats=tuple(game.seat_name(s) for s in range(game.players)),
        table="t4",
        start="2026-11-24T20:00:00Z",
        end="2026-11-24T20:40:00Z",
        result=Result(ended.winners, ended.reason, ended.scores),
        commitment=commitment(seed),
        seed=seed.hex(),
        entries=tuple(entries),
    )


def records(setup):
    games = LONG_GAMES.get(setup[0], (GAMES_PER_SETUP, 1))[0]
    return [random_record(setup, n) for n in range(min(games, GAMES_PER_SETUP))]


@pytest.mark.slow
@pytest.mark.parametrize("setup", SETUPS, ids=_id)
def test_random_games_of_every_engine_round_trip_and_verify(setup):
    for record in records(setup):
        text = write(record)
        assert read(text) == record
        assert write(read(text)) == text
        assert from_json(json.loads(json.dumps(to_json(record)))) == record
        verified = verify(read(text))
        assert verified.plies == record.plies
        assert verified.seed_checked
        assert verified.result.winners == record.result.winners


def _with_entry(record: GameRecord, at: int, entry: Entry) -> GameRecord:
    entries = list(record.entries)
    entries[at] = entry
    return dataclasses.replace(record, entries=tuple(entries))


def _plies_before(record: GameRecord, at: int) -> int:
    return sum(e.kind == "ply" for e in record.entries[:at])


@pytest.mark.parametrize("name", ["fang_den_hut", "haegar", "hakenschlagen"])
def test_a_changed_roll_fails_naming_the_draw_and_the_ply_before_it(name):
    record = random_record((name, None, {}), 0)
    draws = [i for i, e in enumerate(record.entries) if e.kind == "draw"]
    at = draws[len(draws) // 2]
    drawn = record.entries[at]
    spec = next(s.spec for s in replay(record) if s.entry is drawn)
    other = next(o for o, _ in spec.outcomes() if json.loads(json.dumps(o)) != drawn.outcome)
    changed = _with_entry(record, at, dataclasses.replace(drawn, outcome=other))
    number = draws.index(at) + 1
    with pytest.raises(RecordError) as refused:
        verify(read(write(changed)))
    assert f"draw {number} (after ply {_plies_before(record, at)}," in str(refused.value)
    assert "the revealed seed gives" in str(refused.value)


@pytest.mark.parametrize("name", ["catch_the_hare", "sternhalma", "fang_den_hut"])
def test_an_illegal_ply_fails_naming_the_ply(name):
    record = random_record((name, None, {}), 1)
    plies = [i for i, e in enumerate(record.entries) if e.kind == "ply" and e.move != "pass"]
    at = plies[len(plies) // 2]
    played = record.entries[at]
    game = load_game(name)
    steps = list(replay(record))  # steps[i + 1] is the position after entry i
    before = steps[at].state
    # a move another seat makes later is no move for this one now
    wrong = next(
        str(m)
        for step in steps[at + 1 :]
        for m in game.legal_moves(step.state)
        if not _legal(game, before, str(m))
    )
    changed = _with_entry(record, at, dataclasses.replace(played, move=wrong))
    number = _plies_before(record, at) + 1
    with pytest.raises(RecordError, match=rf"^ply {number} \(.*\) is not legal: "):
        verify(read(write(changed)))


def _legal(game, state, text: str) -> bool:
    try:
        game.parse_move(state, text)
    except RulesError:
        return False
    return True


def test_a_seed_other_than_the_committed_one_fails():
    record = random_record(("fang_den_hut", 2, {}), 0)
    forged = dataclasses.replace(record, seed=b"another seed".hex())
    with pytest.raises(RecordError, match="does not match the commitment"):
        verify(forged)


def test_draws_without_a_revealed_seed_are_not_taken_as_verified():
    record = random_record(("haegar", 2, {}), 0)
    with pytest.raises(RecordError, match="no revealed seed"):
        verify(dataclasses.replace(record, seed=""))


def test_a_result_the_rules_do_not_give_fails():
    record = random_record(("catch_the_hare", None, {}), 0)
    other = tuple(s for s in range(2) if s not in record.result.winners)
    forged = dataclasses.replace(record, result=Result(other, "forged"))
    with pytest.raises(RecordError, match="the rules give"):
        verify(forged)


def test_a_ply_given_to_the_wrong_seat_fails():
    record = random_record(("sternhalma", 2, {}), 0)
    at = next(i for i, e in enumerate(record.entries) if e.kind == "ply")
    wrong = _with_entry(record, at, dataclasses.replace(record.entries[at], seat=1))
    with pytest.raises(RecordError, match=r"^ply 1 .*seat 2, but seat 1 acts"):
        verify(wrong)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('[Game "sternhalma"]\n[Players "2"]\n\n2. 1: a1-a2\n', "line 4 .*ply 2 where ply 1"),
        ('[Game "sternhalma"]\n[Players two]\n', "line 2 .*tag line"),
        ('[Players "2"]\n', "no tag Game"),
        ('[Game "sternhalma"]\n[Players "2"]\n1. 1: a1-a2 {lucky}\n', "unknown mark"),
        ('[Game "sternhalma"]\n[Players "2"]\nd6: six\n', "line 3"),
        ('[Game "sternhalma"]\n[Players "2"]\nhello\n', "not a ply, a draw"),
    ],
)
def test_bad_text_is_refused_in_words_naming_the_line(text, said):
    with pytest.raises(RecordError, match=said):
        read(text)


def test_a_record_reads_as_a_person_writes_it():
    text = (
        '[Record "boardref 1"]\n[Game "catch_the_hare"]\n[Players "2"]\n'
        '[Event "club night"]\n\n; the hunters open\n'
        "1. 1: b2-b3 {confirmed}\ntakeback\n1. 1: d2-d3\n"
    )
    with pytest.raises(RecordError, match=r"line 9 .*ply 1 where ply 2"):
        read(text)
    record = read(text.replace("1. 1: d2-d3", "2. 1: d2-d3"))
    assert [e.kind for e in record.entries] == ["ply", "takeback", "ply"]
    assert record.entries[0].marks == ("confirmed",)
    assert record.tags == {"Event": "club night"}
    assert verify(record).plies == 2
