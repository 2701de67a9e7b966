"""Hakenschlagen: the rule book's worked examples on constructed positions, the setup
(drawn and laid), the bag, the sensors, and the turn search against an exhaustive
one."""

from __future__ import annotations

import dataclasses
import hashlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import PASS, IllegalMove, load_game
from engines.chance import BagDraw, Shuffle, Stream, commitment, verify
from engines.hakenschlagen import BAG, COLOURS, SetupError, Turn
from engines.players import random_decisions, random_playout

KINDS = {"tree": "trees", "dandelion": "dandelions", "lettuce": "lettuces", "carrot": "carrots"}


def lay(players=4, board="hex", **layout):
    """A game whose options match ``layout`` and its start position."""
    counts = {KINDS[kind]: len(cells) for kind, cells in layout.items()}
    counts = {**{option: 0 for option in KINDS.values()}, **counts}
    game = load_game("hakenschlagen", players=players, board=board, **counts)
    return game, game.setup_from(layout)


def at(game, state, hand, turn=0, hares=None, fox=None, molehills=(), turned=None):
    """``state`` with figures moved, the seat ``turn`` to play and ``hand`` drawn."""
    index = game.board.index
    changes = {"hand": tuple(sorted(hand)), "turn": turn, "molehills": frozenset()}
    if hares is not None:
        changes["hares"] = tuple(index[c] for c in hares)
    if fox is not None:
        changes["fox"] = index[fox]
    changes["molehills"] = frozenset(index[c] for c in molehills)
    if turned is not None:
        changes["turned"] = tuple(turned)
    return dataclasses.replace(state, **changes)


def hare(game, state, seat):
    return game.board.cells[state.hares[seat]].id


def play(game, state, text):
    """Apply the turn ``text``, checking that legal_moves offers the same outcome."""
    after = game.apply(state, game.parse_move(state, text))
    assert after in {game.apply(state, move) for move in game.legal_moves(state)}
    return after


# --- the rule book's examples ------------------------------------------------------


def test_white_hare_jumps_to_lettuce_then_dandelion_then_a_field_space():
    game, state = lay(lettuce=["b6"], dandelion=["c7", "c3"])
    state = at(game, state, ("lettuce", "dandelion", "field"))
    assert game.marble_targets(state, "lettuce") == {"ne": "b6"}
    after = play(game, state, "lettuce:b6 dandelion:c7 field:c9")
    assert hare(game, after, 0) == "c9" and game.to_move(after) is None
    # the bag then serves the yellow hare, which stands far from the fox: 3 marbles
    assert game.chance(after) == BagDraw(game.chance(after).marbles, 3)


def test_yellow_hare_spends_two_dandelions_as_a_joker_for_a_carrot():
    game, state = lay(dandelion=["c5", "c3", "c1"], carrot=["e7"])
    state = at(game, state, ("field", "dandelion", "dandelion"), turn=1)
    after = play(game, state, "field:b4 dandelion+dandelion=carrot:e7")
    assert hare(game, after, 1) == "e7"
    with pytest.raises(IllegalMove, match="joker is two marbles of one kind used as another"):
        game.parse_move(state, "field:b4 dandelion+dandelion=dandelion:c5")


def test_pink_hare_jumps_over_its_molehill_and_over_the_hare_on_the_nearest_carrot():
    game, state = lay(carrot=["e7", "g5"])
    state = at(
        game,
        state,
        ("molehill", "field", "carrot"),
        turn=2,
        hares=["a5", "e7", "a7", "a1"],
        fox="f4",
    )
    assert game.marble_targets(state, "field")["ne"] == "b8"
    with pytest.raises(IllegalMove, match="field:c9 is not possible"):
        game.parse_move(state, "field:c9 molehill:b8")
    after = play(game, state, "molehill:b8 field:c9 carrot:g5")
    assert hare(game, after, 2) == "g5"
    assert after.molehills == {game.board.index["b8"]}
    # g5 lies next to the fox: pink will draw a single marble next time
    assert game.chance(dataclasses.replace(after, turn=2)).count == 1


def test_green_hare_leaps_over_one_then_two_hares_and_moves_the_fox_next_to_two_hares():
    game, state = lay(lettuce=["f8"])
    state = at(
        game,
        state,
        ("field", "lettuce", "fox"),
        turn=3,
        hares=["c3", "d6", "e7", "c1"],
        fox="k5",
    )
    after = play(game, state, "field:c5 lettuce:f8 fox:d4")
    assert hare(game, after, 3) == "f8" and game.board.cells[after.fox].id == "d4"
    assert game.to_move(after) is None and game.chance(after).count == 1  # white
    assert game.chance(dataclasses.replace(after, turn=1)).count == 1  # yellow


def test_a_carrot_marble_with_no_carrot_space_left_in_reach_goes_back_unused():
    game, state = lay(lettuce=["b4"], carrot=["e9"])
    state = at(game, state, ("lettuce", "field", "carrot"))
    assert game.marble_targets(state, "carrot") == {"ne": "e9"}
    after = play(game, state, "lettuce:b4 field:b2")
    assert (
        hare(game, after, 0) == "b2"
        and game.marble_targets(dataclasses.replace(after, turn=0, hand=("carrot",)), "carrot")
        == {}
    )
    with pytest.raises(IllegalMove, match="the carrot marble must be used"):
        game.apply(state, Turn(()))


def test_pink_hare_turns_at_the_turning_point_and_jumps_back():
    game, state = lay(dandelion=["s3"])
    state = at(
        game, state, ("field", "dandelion", "carrot"), turn=2, hares=["a5", "a3", "t6", "a1"]
    )
    after = play(game, state, "field:u5 dandelion:s3")
    assert hare(game, after, 2) == "s3" and after.turned == (False, False, True, False)
    assert game.to_json(after)["state"]["turned"][2] is True


# --- the finish -------------------------------------------------------------------


def test_the_first_hare_to_land_on_a_start_space_after_turning_wins_at_once():
    game, state = lay(players=2, dandelion=["b6"])
    state = at(game, state, ("field", "lettuce", "fox"), hares=["c5", "a3"], turned=(True, False))
    after = play(game, state, "field:a7")
    assert game.outcome(after).winners == (0,) and "white hare" in game.outcome(after).reason
    assert game.to_move(after) is None and game.chance(after) is None
    with pytest.raises(IllegalMove, match="the race is won before fox"):
        game.parse_move(state, "field:a7 fox:d4")


def test_a_hare_that_has_not_turned_lands_on_a_start_space_without_winning():
    game, state = lay(players=2, dandelion=["b6"])
    state = at(game, state, ("field",), hares=["c5", "a3"])
    after = game.apply(state, game.parse_move(state, "field:a7"))
    assert game.outcome(after) is None and game.to_move(after) is None


# --- fox, molehills, jokers ---------------------------------------------------------


def test_the_fox_never_goes_to_a_start_space_a_turning_point_a_tree_or_a_figure():
    game, state = lay(tree=["e5"])
    state = at(game, state, ("fox",), hares=["a5", "c5", "a7", "a1"], molehills=["g5"])
    allowed = set(game.placements(state, "fox"))
    assert not allowed & {"a9", "u5", "e5", "c5", "g5", "k5"}
    assert len(allowed) == 85 - 1 - 1 - 1 - 1  # tree, hare, molehill, the fox's own
    with pytest.raises(IllegalMove, match="the fox may not go to a9"):
        game.parse_move(state, "fox:a9")


def test_with_all_six_molehills_out_the_molehill_marble_moves_one():
    game, state = lay()
    hills = ["c5", "e5", "g5", "i5", "m5", "o5"]
    state = at(game, state, ("molehill",), molehills=hills)
    with pytest.raises(IllegalMove, match="all six molehills are out"):
        game.parse_move(state, "molehill:q5")
    after = play(game, state, "molehill:c5-q5")
    assert {game.board.cells[i].id for i in after.molehills} == {*hills[1:], "q5"}


def test_molehills_go_on_field_spaces_only():
    game, state = lay(dandelion=["e5"])
    state = at(game, state, ("molehill",))
    assert "e5" not in game.placements(state, "molehill")
    assert "a9" not in game.placements(state, "molehill")


def test_a_jump_is_blocked_by_a_tree_or_the_fox_and_ends_at_the_edge():
    # from e5: the tree on e7 closes the north, the fox on f6 the north-east; the
    # carrots on e9 and g7 lie behind them, and none lies elsewhere on e5's lines
    game, state = lay(tree=["e7"], carrot=["e9", "g7"])
    state = at(game, state, ("carrot",), hares=["a5", "a3", "e5", "a1"], turn=2, fox="f6")
    assert game.marble_targets(state, "carrot") == {}
    free = dataclasses.replace(state, fox=game.board.index["m1"])
    assert game.marble_targets(free, "carrot") == {"ne": "g7"}


def test_two_identical_marbles_go_one_by_one_or_together_as_a_joker():
    game, state = lay()
    state = at(game, state, ("field", "field"))
    moves = game.legal_moves(state)
    # two field jumps: north-east to b6, then on to c7
    assert "c7" in {hare(game, game.apply(state, m), 0) for m in moves}
    assert (
        game.apply(state, game.parse_move(state, "field:b6 field:c7")).hares[0]
        == (game.board.index["c7"])
    )
    assert any("field+field=fox" in str(m) for m in moves)


# --- setup ------------------------------------------------------------------------


def test_a_drawn_setup_is_legal_reproducible_and_verifiable():
    game = load_game("hakenschlagen", players=3)
    start = game.initial_state()
    spec = game.chance(start)
    assert isinstance(spec, Shuffle) and game.to_move(start) is None
    seed = b"club night"
    order = spec.draw(Stream(seed))
    state = game.resolve(start, order)
    assert game.resolve(start, spec.draw(Stream(seed))) == state
    verify(seed, commitment(seed), [(spec.to_json(), order)])
    layout = game.to_json(state)["state"]["layout"]
    assert {k: len(v) for k, v in layout.items()} == {
        "tree": 6,
        "dandelion": 15,
        "lettuce": 12,
        "carrot": 9,
    }
    assert game.setup_from(layout) == state
    assert game.chance(state).count == 3


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda d: {**d, "tree": ["c5", "c7", *d["tree"][2:]]}, "trees on c5 and c7 are adjacent"),
        (
            lambda d: {**d, "dandelion": d["dandelion"][1:]},
            "14 dandelion disks laid; this game uses 15",
        ),
        (
            lambda d: {**d, "carrot": ["a5", *d["carrot"][1:]]},
            "a5 is a start space; it stays empty",
        ),
        (lambda d: {**d, "lettuce": ["u9", *d["lettuce"][1:]]}, "u9 is a turning point"),
        (lambda d: {**d, "tree": ["k5", *d["tree"][1:]]}, "k5 is the fox's centre space"),
        (
            lambda d: {**d, "carrot": [d["tree"][0], *d["carrot"][1:]]},
            "holds both a tree and a carrot",
        ),
        (lambda d: {**d, "grass": []}, "'grass' is not part of the static layer"),
        (lambda d: {**d, "tree": ["z9"]}, "'z9' is not a hollow"),
    ],
)
def test_a_laid_setup_that_breaks_the_rules_is_refused_with_the_reason(change, reason):
    game = load_game("hakenschlagen")
    trees = ["e3", "e9", "i5", "o3", "o7", "s5"]
    spare = {*trees, "c5", "c7", "k5"}
    cells = [game.board.cells[i].id for i in game.inner if game.board.cells[i].id not in spare]
    layout = {
        "tree": trees,
        "dandelion": cells[:15],
        "lettuce": cells[15:27],
        "carrot": cells[27:36],
    }
    assert game.setup_from(layout).layout is not None
    with pytest.raises(SetupError) as refused:
        game.setup_from(change(layout))
    assert reason in refused.value.reason


def test_fewer_disks_and_trees_are_a_variant():
    game = load_game("hakenschlagen", players=2, dandelions=5, lettuces=0, carrots=9, trees=2)
    start = game.initial_state()
    state = game.resolve(start, game.chance(start).draw(Stream("small")))
    layout = game.to_json(state)["state"]["layout"]
    assert [len(layout[k]) for k in ("tree", "dandelion", "lettuce", "carrot")] == [2, 5, 0, 9]


def test_players_choose_their_start_spaces():
    game, state = lay(players=2)
    chosen = game.setup_from({}, hares=["a9", "a1"])
    assert [game.board.cells[i].id for i in chosen.hares] == ["a9", "a1"]
    with pytest.raises(SetupError, match="'c5' is not a start space"):
        game.setup_from({}, hares=["c5", "a1"])


# --- the bag, sensors, notation -----------------------------------------------------


def test_a_hare_next_to_the_fox_draws_one_marble():
    game, state = lay()
    state = dataclasses.replace(state, fox=game.board.index["b4"])
    assert game.chance(state).count == 1  # white on a5 touches b4
    with pytest.raises(Exception, match="the draw is 1 marble"):
        game.resolve(state, ("field", "field", "fox"))
    assert game.resolve(state, ("fox",)).hand == ("fox",)


def test_hall_sensors_feel_figures_but_not_disks_or_trees():
    game, state = lay(tree=["e5"], carrot=["c5"])
    state = at(game, state, ("field",), molehills=["g5"])
    camera, hall = game.observe(state), game.sense(state, "presence")
    assert camera["e5"] == "tree" and camera["c5"] == "carrot" and camera["a5"] == "hare_white"
    assert camera["k5"] == "fox" and camera["g5"] == "molehill"
    assert hall["e5"] is None and hall["c5"] is None
    assert {c for c, v in hall.items() if v} == {"a5", "a3", "a7", "a1", "k5", "g5"}


def test_a_turn_reads_back_from_its_notation_and_garbage_is_refused():
    game, state = lay(dandelion=["c5", "c1"], carrot=["e7"])
    state = at(game, state, ("field", "dandelion", "dandelion"), turn=1)
    for move in game.legal_moves(state):
        assert game.parse_move(state, str(move)) == move
    for text in ("field", "field:zz", "banana:c5", "field+lettuce=fox:c5", "fox:c5-d4", 7):
        with pytest.raises(IllegalMove):
            game.parse_move(state, text)
    with pytest.raises(IllegalMove, match="not drawn yet"):
        game.apply(dataclasses.replace(state, hand=None), game.legal_moves(state)[0])


# --- the search against an exhaustive one -------------------------------------------


def exhaustive(game, state):
    """Every end of the turn by trying every placement before every jump."""
    seat = state.turn
    others = frozenset(h for s, h in enumerate(state.hares) if s != seat)
    start = (state.hares[seat], state.fox, state.molehills, state.hand, state.turned[seat], False)
    ends, seen, stack = set(), set(), [start]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node[5] or not any(m in COLOURS for m in node[3]):
            ends.add((node[0], node[1], node[2], node[4]))
        stack.extend(after for _, after in game._transitions(node, others, state.layout))
    return ends


def ends_of(game, state):
    seat = state.turn
    ends = [game.apply(state, move) for move in game.legal_moves(state)]
    found = [(s.hares[seat], s.fox, s.molehills, s.turned[seat]) for s in ends]
    assert len(found) == len(set(found)), "two moves with one outcome"
    return set(found)


def early_positions(board, turns):
    """Turn-start positions of the first ``turns`` turns of a seeded random game."""
    game = load_game("hakenschlagen", players=3, board=board)
    start = game.initial_state()
    return game, random_decisions(game, start, random.Random(7), Stream(board), turns)


# one of each shape: fox and jumps, molehill and jumps, jokers, jumps only
HANDS = [
    ("field", "fox", "lettuce"),
    ("dandelion", "field", "molehill"),
    ("field", "field", "field"),
    ("carrot", "lettuce", "lettuce"),
]


@pytest.mark.slow
@pytest.mark.parametrize("board", ["hex", "square"])
def test_the_turn_search_finds_exactly_the_outcomes_of_an_exhaustive_one(board):
    game, found = early_positions(board, 12)
    for state in found[5::6]:
        for hand in HANDS:
            probe = dataclasses.replace(state, hand=hand)
            assert ends_of(game, probe) == exhaustive(game, probe), (hand, game.render(probe))


# two placements of one kind (a joker as the second), with the supply of molehills
# full, down to one, and empty (then each use moves one)
TWO_OF_A_KIND = [("field", "field", "molehill"), ("fox", "lettuce", "lettuce")]


@pytest.mark.slow
@pytest.mark.parametrize("on_board", [0, 5, 6])
def test_two_molehill_or_fox_uses_find_exactly_the_outcomes_of_an_exhaustive_one(on_board):
    game, found = early_positions("hex", 6)
    state = found[5]
    taken = {state.fox, *state.hares}
    fields = [c for c in game.inner if state.layout[c] == "field" and c not in taken]
    probe = dataclasses.replace(state, molehills=frozenset(fields[:on_board]))
    seat = state.turn
    for hand in TWO_OF_A_KIND:
        probe = dataclasses.replace(probe, hand=hand)
        pairs = game.successors(probe)
        ends = [(s.hares[seat], s.fox, s.molehills, s.turned[seat]) for _, s in pairs]
        assert len(ends) == len(set(ends)) == len(game.legal_moves(probe))
        assert set(ends) == exhaustive(game, probe), hand
        # thousands of outcomes: each written-out turn of a sample leads where the
        # search says it does, and counts as one of the legal moves
        moves = game.legal_moves(probe)
        for move, after in pairs[:: max(1, len(pairs) // 60)]:
            assert game.apply(probe, move) == after and move in moves


# --- the order of the listing ---------------------------------------------------------

# Seeded searches and record digests depend on the order ``legal_moves`` lists a turn's
# outcomes in (and the referee's index follows it): any change to the search keeps it.
# The digests are of the search as first written, on both boards.
LISTING_DIGESTS = {"hex": "44421afb06619b94", "square": "ac8636826e48238b"}
BIG_HANDS = [
    ("field", "fox", "molehill"),
    ("field", "field", "molehill"),
    ("fox", "lettuce", "molehill"),
    ("fox", "molehill", "molehill"),
    ("dandelion", "dandelion", "fox"),
]


def listing_digest(board: str) -> str:
    """A digest of the ends ``legal_moves`` lists, in order, with a few turns written
    out and the referee's rows, for big hands on positions of a seeded 5-player game,
    with no molehill out, five and all six."""
    game = load_game("hakenschlagen", players=5, board=board)
    start = game.initial_state()
    found = random_decisions(game, start, random.Random(43), Stream(f"order {board}"), 40)
    digest = hashlib.sha256()
    for n, state in enumerate(found[4::9]):
        taken = {state.fox, *state.hares}
        fields = [c for c in game.inner if state.layout[c] == "field" and c not in taken]
        for on_board in (0, 5, 6):
            for hand in BIG_HANDS:
                probe = dataclasses.replace(
                    state, hand=hand, molehills=frozenset(fields[n : n + on_board])
                )
                moves = game.legal_moves(probe)
                digest.update(repr(list(moves.ends)).encode())
                digest.update(f"{moves[len(moves) // 2]} {moves[-1]}".encode())
            rows, _ = game.sensed_successors(probe, ("camera", "presence"))
            digest.update(repr(list(rows.rows)).encode() + bytes(rows.row) + bytes(rows.cell))
    return digest.hexdigest()[:16]


@pytest.mark.slow
@pytest.mark.parametrize("board", ["hex", "square"])
def test_the_outcomes_of_a_turn_keep_the_order_they_are_listed_in(board):
    assert listing_digest(board) == LISTING_DIGESTS[board]


# --- a random turn drawn without listing the outcomes ---------------------------------

ALL_HANDS = sorted({hand for n in (1, 3) for hand, _ in BAG.draw(n).outcomes()})
EARLY = {board: early_positions(board, 6) for board in ("hex", "square")}


@pytest.mark.slow
@settings(max_examples=120)
@given(
    board=st.sampled_from(sorted(EARLY)),
    position=st.integers(0, 5),
    hand=st.sampled_from(ALL_HANDS),
    hare_at=st.integers(0, 10_000),
    turned=st.booleans(),
    on_board=st.integers(0, 6),
    seed=st.integers(0, 2**32),
)
def test_a_random_turn_is_legal_and_ends_where_applying_it_does(
    board, position, hand, hare_at, turned, on_board, seed
):
    game, found = EARLY[board]
    state = found[position]
    seat = state.turn
    # the hare anywhere free (near a start space after turning, it may win), some
    # molehills out or all six, the supply empty
    taken = {state.fox, *state.hares}
    free = [c for c in range(len(game.board.cells)) if state.layout[c] != "tree" and c not in taken]
    hare_cell = free[hare_at % len(free)]
    fields = [c for c in game.inner if state.layout[c] == "field" and c not in taken | {hare_cell}]
    probe = dataclasses.replace(
        state,
        hand=hand,
        hares=tuple(hare_cell if s == seat else h for s, h in enumerate(state.hares)),
        turned=tuple(turned if s == seat else t for s, t in enumerate(state.turned)),
        molehills=frozenset(random.Random(seed).sample(fields, on_board)),
    )
    turn, after = game.random_play(probe, random.Random(seed))
    assert turn in game.legal_moves(probe), (str(turn), game.render(probe))
    assert game.apply(probe, turn) == after


@pytest.mark.parametrize(
    "hand", [("dandelion", "field", "lettuce"), ("carrot", "dandelion", "lettuce")]
)
def test_every_outcome_of_a_small_turn_comes_up_in_random_play(hand):
    game, found = EARLY["hex"]
    probe = dataclasses.replace(found[3], hand=hand)
    pick = random.Random(0)
    drawn = {game.random_play(probe, pick)[1] for _ in range(3000)}
    listed = {game.apply(probe, move) for move in game.legal_moves(probe)}
    assert 1 < len(listed) < 100
    assert drawn == listed


def test_random_play_before_the_marbles_are_drawn_is_refused_with_the_reason():
    game = load_game("hakenschlagen", players=2)
    with pytest.raises(IllegalMove, match="a chance draw is pending"):
        game.random_play(game.initial_state(), random.Random(0))


def test_random_play_of_hakenschlagen_never_lists_a_turn(monkeypatch):
    game, found = EARLY["hex"]

    def listing(state):
        raise AssertionError("a random playout listed every outcome of a turn")

    monkeypatch.setattr(game, "legal_moves", listing)
    end = random_playout(game, found[0], random.Random(3), Stream(b"no listing"))[-1]
    assert game.outcome(end) is not None


def test_a_turn_is_never_a_pass_and_asking_searches_no_outcome(monkeypatch):
    game, found = EARLY["hex"]
    turns = [s for s in found if game.to_move(s) is not None][:3]
    assert turns and all(PASS not in game.legal_moves(s) for s in turns)

    def search(state):
        raise AssertionError("must_pass searched the whole turn")

    monkeypatch.setattr(game, "_outcomes", search)
    assert not any(game.must_pass(s) for s in turns)


@pytest.mark.parametrize("players", [2])  # bench_hakenschlagen plays five on both boards
@pytest.mark.parametrize("board", ["hex", "square"])
def test_random_games_on_both_boards_end_with_a_winner(board, players):
    game = load_game("hakenschlagen", players=players, board=board)
    pick, stream = random.Random(players), Stream(f"{board} {players}")
    state = random_playout(game, game.initial_state(), pick, stream)[-1]
    outcome = game.outcome(state)
    assert state.winner is not None and outcome.winners == (state.winner,)
    assert state.turned[state.winner] and state.hares[state.winner] in game.start_spaces


@pytest.mark.parametrize("board", ["hex", "square"])
def test_the_fox_is_placed_first_so_no_drawn_disk_lies_under_it(board):
    game = load_game("hakenschlagen", players=2, board=board)
    start = game.initial_state()
    stream = Stream(b"fox first")
    for _ in range(60):
        state = game.resolve(start, game.chance(start).draw(stream))
        assert state.layout[game.centre] == "field"


def test_a_turn_in_another_legal_order_is_in_the_legal_moves_and_reads_as_listed():
    game = load_game("hakenschlagen", players=2)
    state = game.initial_state()
    state = game.resolve(state, game.chance(state).draw(Stream(b"orders")))
    state = game.resolve(state, ("field", "fox", "lettuce"))
    listed = game.parse_move(state, "lettuce:e1 field:d2 fox:b2")
    other = game.parse_move(state, "lettuce:e1 fox:b2 field:d2")
    moves = game.legal_moves(state)
    assert listed in moves and other in moves
    assert game.apply(state, other) == game.apply(state, listed)
    assert game.canonical(state, other) == listed
    assert str(game.canonical(state, other)) == str(listed)
    with pytest.raises(IllegalMove):  # the field marble must be used
        game.canonical(state, Turn(()))


def test_the_table_chooses_who_starts_and_that_seat_draws_its_marbles():
    game = load_game("hakenschlagen", players=3, first_seat=1)
    start = game.initial_state()
    assert game.drawer(start) is None  # the table draws the setup
    state = game.resolve(start, game.chance(start).draw(Stream(b"who starts")))
    assert game.drawer(state) == 1
    state = game.resolve(state, ("field", "field", "field"))
    assert game.to_move(state) == 1 and game.drawer(state) is None
