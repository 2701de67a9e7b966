"""Fang den Hut! board game: the rule book's situations and the engine's readings of
it, on constructed positions of the 2-4 and 5-6 player boards."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from engines import PASS, BoardFileError, IllegalMove, OptionError, RecordError, load_game
from engines.fang_den_hut import Hat, HatState, read_track
from engines.geometry import load_board, parse_board
from engines.observation import project

# The 2-4 player board: ring fields r1-r44 run clockwise from the red gate (r1-r11 to
# the blue gate); grey are the gates, r4, r8, r15, r19, ... and the middle of each spoke.


def position(game, fields=None, turn="red", roll=None, prisoners=None, **home):
    """A position with ``fields`` {cell: [hat text...]}; every hat not placed on a field,
    in a tower or among the prisoners waits at home unless ``home`` says otherwise."""
    cells = [() for _ in game.board.cells]
    placed: Counter[str] = Counter()
    for cell, hats in (fields or {}).items():
        cells[game.board.index[cell]] = tuple(sorted(Hat.parse(h) for h in hats))
        for hat in cells[game.board.index[cell]]:
            placed.update(hat.hats())
    prisoners = prisoners or {}
    for taken in prisoners.values():
        placed.update(taken)
    hats = game.board.game["hats"]
    return HatState(
        tuple(cells),
        tuple(home.get(colour, hats - placed[colour]) for colour in game.colours),
        tuple(tuple(sorted(prisoners.get(c, ()))) for c in game.colours),
        None,
        game.colours.index(turn),
        roll,
    )


def moves(game, state) -> set[str]:
    return {str(m) for m in game.legal_moves(state)}


def play(game, state, text):
    return game.apply(state, game.parse_move(state, text))


def hats_on(game, state, cell) -> list[str]:
    return [str(h) for h in state.fields[game.board.index[cell]]]


def near(board, cell) -> set[str]:
    return {board.cells[i].id for i in board.neighbours[board.index[cell]]}


def refusal(game, state, text) -> str:
    with pytest.raises(IllegalMove) as refused:
        game.parse_move(state, text)
    return refused.value.reason


# --- the boards --------------------------------------------------------------------------


def test_the_four_player_board_is_a_ring_with_two_paths_crossing_the_centre():
    board = load_board("fang_den_hut")
    kinds = Counter(cell.kind for cell in board.cells)
    assert kinds == {"home": 4, "grey": 16, "yellow": 52, "centre": 1}
    assert near(board, "centre") == {"sb5", "sg5", "sr5", "sy5"}
    assert near(board, "gate_red") == {"home_red", "r1", "r44", "sr1"}
    gate = board.index["gate_red"]
    assert board.jumps[gate] == (), "paths are links: hats walk them, nobody jumps along"


def test_the_six_player_board_gives_every_colour_four_home_fields():
    game = load_game("fang_den_hut", 6)
    assert game.colours == ("red", "blue", "green", "yellow", "black", "white")
    for colour in game.colours:
        homes = game.board.zone(colour)
        assert len(homes) == 4
        assert {game.board.neighbours[i] for i in homes} == {(game.board.index[f"gate_{colour}"],)}
    seen = game.observe(game.initial_state())
    assert [seen[f"home_black{k}"] for k in range(1, 5)] == ["black"] * 4


def test_a_link_may_bend_and_adds_neighbours_but_no_jumps():
    board = parse_board(
        'name = "bend"\ntitle = "Bend"\ncells = [\n'
        '{ id = "a", xy = [0, 0], kind = "x" },\n'
        '{ id = "b", xy = [10, 3], kind = "x" },\n'
        '{ id = "c", xy = [12, 20], kind = "x" },\n]\nlinks = ["a b c"]\n',
        "bend.toml",
    )
    a, b, c = (board.index[x] for x in "abc")
    assert set(board.neighbours[b]) == {a, c} and board.jumps[a] == ()


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda g: g.pop("hats"), "missing ['hats']"),
        (lambda g: g.update(seats={"2": ["red", "red"]}), "has no row for 4 players"),
        (lambda g: g.update(golden_start="r4"), "golden_start 'r4' must be a yellow field"),
        (lambda g: g.update(colours=["red", "blue", "green", "gold"]), "distinct lower-case"),
        (lambda g: g.update(letters=["r", "r", "g", "y"]), "one distinct character"),
    ],
)
def test_a_broken_game_table_names_the_file_and_the_problem(change, problem):
    board = load_board("fang_den_hut")
    table = {**board.game, "seats": dict(board.game["seats"])}
    change(table)
    broken = type(board)(board.name, board.title, board.cells, board.lines, table, board.links)
    with pytest.raises(BoardFileError) as refused:
        read_track(broken, 4, "my_board.toml")
    assert str(refused.value).startswith("my_board.toml: ") and problem in str(refused.value)


def test_a_track_that_leaves_a_field_cut_off_is_refused():
    text = (
        'name = "cut"\ntitle = "Cut"\ncells = [\n'
        '{ id = "home_red", xy = [0, 0], kind = "home", zone = "red" },\n'
        '{ id = "a", xy = [10, 0], kind = "yellow" },\n'
        '{ id = "b", xy = [30, 0], kind = "yellow" },\n'
        '{ id = "c", xy = [40, 0], kind = "grey" },\n]\n'
        'links = ["home_red a", "b c"]\n'
        '[game]\ncolours = ["red"]\nletters = ["r"]\nhats = 2\ngolden_start = "a"\n'
        '[game.seats]\n1 = ["red"]\n'
    )
    with pytest.raises(BoardFileError, match="cut.toml: the paths do not join every field: b, c"):
        read_track(parse_board(text, "cut.toml"), 1, "cut.toml")


# --- moving ------------------------------------------------------------------------------


def test_the_die_is_rolled_before_every_move():
    game = load_game("fang_den_hut")
    state = game.initial_state()
    assert game.to_move(state) is None and game.legal_moves(state) == []
    assert [face for face, _ in game.chance(state).outcomes()] == [1, 2, 3, 4, 5, 6]
    with pytest.raises(IllegalMove, match="chance draw is pending"):
        game.apply(state, PASS)
    with pytest.raises(IllegalMove, match="1 to 6"):
        game.resolve(state, 7)


def test_a_hat_moves_the_exact_count_in_any_direction_without_turning_back():
    game = load_game("fang_den_hut")
    state = position(game, {"r6": ["red"]}, roll=3, red=0)
    assert moves(game, state) == {"red r6-r7-r8-r9", "red r6-r5-r4-r3"}
    assert "turn back" in refusal(game, state, "red r6-r7-r6-r5")
    assert "2 steps, and the die shows 3: move the hat" in refusal(game, state, "red r6-r7-r8")


def test_at_a_junction_the_hat_takes_any_branch():
    game = load_game("fang_den_hut")
    state = position(game, {"r2": ["red"]}, roll=4, red=0)
    assert moves(game, state) == {
        "red r2-r3-r4-r5-r6",
        "red r2-r1-gate_red-r44-r43",
        "red r2-r1-gate_red-sr1-sr2",
    }


def test_hats_on_the_way_are_jumped_and_their_fields_count():
    game = load_game("fang_den_hut")
    state = position(game, {"r6": ["red"], "r7": ["blue"], "r8": ["red", "green"]}, roll=3)
    after = play(game, state, "red r6-r7-r8-r9")
    assert hats_on(game, after, "r9") == ["red"]
    assert hats_on(game, after, "r7") == ["blue"], "jumping over captures nothing"


def test_blue_with_a_three_cannot_reach_the_two_green_hats_and_captures_the_red_yellow_tower():
    game = load_game("fang_den_hut")
    state = position(
        game,
        {"r16": ["blue"], "r18": ["green"], "r20": ["green"], "r13": ["red[yellow]"]},
        turn="blue",
        roll=3,
        blue=0,
    )
    assert moves(game, state) == {"blue r16-r17-r18-r19", "blue r16-r15-r14-r13"}
    after = play(game, state, "blue r16-r15-r14-r13")
    assert hats_on(game, after, "r13") == ["blue[red,yellow]"]
    assert hats_on(game, after, "r18") == ["green"] and hats_on(game, after, "r20") == ["green"]
    assert game.scores(after)[1] == 2, "hats in a tower on the board count as captives"


def test_a_capture_needs_a_yellow_field():
    game = load_game("fang_den_hut")
    state = position(game, {"r1": ["red"], "r4": ["blue"]}, roll=3, red=0)
    after = play(game, state, "red r1-r2-r3-r4")
    assert hats_on(game, after, "r4") == ["blue", "red"], "grey fields are rest fields"


def test_own_hats_share_a_yellow_field_and_are_captured_together():
    game = load_game("fang_den_hut")
    state = position(game, {"r2": ["red"], "r5": ["red[green]"], "r9": ["blue"]}, roll=3, red=0)
    together = play(game, state, "red r2-r3-r4-r5")
    assert hats_on(game, together, "r5") == ["red", "red[green]"]
    blue = position(game, {"r5": ["red", "red[green]"], "r9": ["blue"]}, turn="blue", roll=4)
    taken = play(game, blue, "blue r9-r8-r7-r6-r5")
    assert hats_on(game, taken, "r5") == ["blue[green,red,red]"]


def test_a_grey_field_with_three_towers_blocks_and_the_player_must_pass():
    game = load_game("fang_den_hut")
    full = ["blue[red,red]", "green[red]", "yellow[red,red]"]
    state = position(
        game,
        {"r6": ["red"], "r4": full, "r8": ["blue[green]", "green[yellow]", "yellow[blue]"]},
        roll=2,
    )
    assert state.home[0] == 0
    assert game.legal_moves(state) == [PASS]
    assert "three hats or towers" in refusal(game, state, "red r6-r5-r4")
    passed = game.apply(state, PASS)
    assert game.to_move(game.resolve(passed, 1)) == 1
    jump = position(
        game,
        {"r6": ["red"], "r4": full, "r8": ["blue[green]", "green[yellow]", "yellow[blue]"]},
        roll=3,
    )
    assert moves(game, jump) == {"red r6-r7-r8-r9", "red r6-r5-r4-r3"}, "full fields are passed"


def test_passing_is_refused_while_a_move_exists():
    game = load_game("fang_den_hut")
    state = game.resolve(game.initial_state(), 1)
    assert "moving is compulsory" in refusal(game, state, "pass")


def test_a_six_gives_another_roll_for_any_hat_in_either_direction():
    game = load_game("fang_den_hut")
    state = position(game, {"r8": ["red"]}, roll=6, red=0)
    after = play(game, state, "red r8-r9-r10-r11-gate_blue-r12-r13")
    assert game.to_move(after) is None and game.chance(after) is not None
    again = game.resolve(after, 2)
    assert game.to_move(again) == 0
    assert "red r13-r12-gate_blue" in moves(game, again), "the same hat may go back"


# --- home ---------------------------------------------------------------------------------


def test_a_hat_without_captives_never_goes_home_and_nobody_enters_a_foreign_home():
    game = load_game("fang_den_hut")
    state = position(game, {"r1": ["red"], "r11": ["red"]}, roll=2, red=0)
    assert "only carrying captives" in refusal(game, state, "red r1-gate_red-home_red")
    assert "home of blue" in refusal(game, state, "red r11-gate_blue-home_blue")


def test_home_needs_no_exact_count_and_leftover_pips_carry_a_hat_back_out():
    game = load_game("fang_den_hut")
    state = position(game, {"r3": ["red[green]"]}, roll=6, red=0)
    entering = "red[green] r3-r2-r1-gate_red-home_red"
    assert moves(game, state) == {
        "red[green] r3-r4-r5-r6-r7-r8-r9",
        "red[green] r3-r2-r1-gate_red-r44-r43-r42",
        "red[green] r3-r2-r1-gate_red-sr1-sr2-sr3",
        f"{entering}, red home_red-gate_red-r1",
        f"{entering}, red home_red-gate_red-r44",
        f"{entering}, red home_red-gate_red-sr1",
    }, "home counts one pip: four to get in, two to get out; or the tower walks on"
    after = play(game, state, f"{entering}, red home_red-gate_red-r44")
    assert after.prisoners[0] == ("green",) and after.home[0] == 0
    assert hats_on(game, after, "r44") == ["red"]
    assert "pips are left" in refusal(game, state, entering)


def test_a_hat_leaving_onto_hats_the_sensors_feel_may_still_be_a_move_under_way():
    """Halfway through bringing red[red] home and carrying two pips back out, the
    board shows r1 empty and a hat at home: to hall sensors that is also the whole
    move whose hat left onto the red hat on r44, so that move is not over yet."""
    game = load_game("fang_den_hut")
    state = position(game, {"r1": ["red[red]"], "r44": ["red"]}, roll=4, red=0)
    home = "red[red] r1-gate_red-home_red, red home_red-gate_red-"
    unseen = game.parse_move(state, home + "r44")
    assert game.can_extend(state, unseen, "presence")
    assert not game.can_extend(state, unseen, "camera"), "a camera sees two hats on r44"
    over = [m for m in game.legal_moves(state) if not game.can_extend(state, m, "presence")]
    assert over == [m for m in game.legal_moves(state) if m != unseen]


def test_a_hat_that_reaches_home_with_the_last_pip_stays_there():
    game = load_game("fang_den_hut")
    state = position(game, {"r3": ["red[green]"]}, roll=4, red=0)
    after = play(game, state, "red[green] r3-r2-r1-gate_red-home_red")
    assert after.home[0] == 1 and game.observe(after)["home_red"] == "red"


def test_greens_tower_taken_by_red_and_brought_home_wins_three_hats_and_frees_the_red_one():
    game = load_game("fang_den_hut")
    state = position(game, {"r6": ["red"], "r3": ["green[blue,red,yellow]"]}, roll=3)
    taken = play(game, state, "red r6-r5-r4-r3")
    assert hats_on(game, taken, "r3") == ["red[blue,green,red,yellow]"]
    later = replace(taken, turn=0, roll=4)
    home = play(game, later, "red[blue,green,red,yellow] r3-r2-r1-gate_red-home_red")
    assert home.prisoners[0] == ("blue", "green", "yellow")
    assert home.home[0] == 6, "the red hat inside the tower is free again"
    assert game.scores(home)[0] == 3


def test_the_five_six_player_board_fills_home_fields_in_order():
    game = load_game("fang_den_hut", 6)
    state = position(game, {"r3": ["red[blue]"]}, roll=4, red=2)
    entering = "red[blue] r3-r2-r1-gate_red-home_red3"
    assert moves(game, state) >= {entering}
    assert "fill in order" in refusal(game, state, "red[blue] r3-r2-r1-gate_red-home_red4")
    after = play(game, state, entering)
    seen = game.observe(after)
    assert [seen[f"home_red{k}"] for k in range(1, 5)] == ["red", "red", "red", None]
    out = position(game, {}, roll=1, red=4)
    assert moves(game, out) == {"red home_red4-gate_red"}, "the last home field empties first"


# --- the end ------------------------------------------------------------------------------


def test_the_game_ends_when_one_colour_is_left_and_most_captives_wins():
    game = load_game("fang_den_hut", 2)
    state = position(
        game, {"r5": ["red[green,green]"]}, prisoners={"green": ["red"] * 5}, green=0, red=0
    )
    outcome = game.outcome(state)
    assert outcome.winners == (1,) and outcome.scores == (2, 5)
    assert game.to_move(state) is None and game.chance(state) is None
    last = load_game("fang_den_hut", 2, last_standing=True)
    assert last.outcome(state).winners == (0,)


def test_hats_at_home_keep_a_colour_in_the_game():
    game = load_game("fang_den_hut", 2)
    state = position(game, {"r5": ["red[green]"]}, red=0, green=5)
    assert game.outcome(state) is None


def test_a_player_with_nothing_left_is_skipped():
    game = load_game("fang_den_hut", 3)
    state = position(game, {"r6": ["red"], "r20": ["green[blue,blue,blue,blue,blue,blue]"]}, roll=2)
    assert state.home == (5, 0, 5)
    after = play(game, state, "red r6-r7-r8")
    assert game.seat_name(after.turn) == "green"


# --- variants -------------------------------------------------------------------------------


def test_team_mates_are_not_captured_and_their_yellow_field_is_closed():
    game = load_game("fang_den_hut", 4, team=True)
    state = position(game, {"r2": ["red"], "r5": ["green"], "r9": ["blue"]}, roll=3, red=0)
    assert "team mate" in refusal(game, state, "red r2-r3-r4-r5")
    assert "red r2-r1-gate_red-r44" in moves(game, state)


def test_bringing_captives_home_frees_the_team_mates_hats():
    game = load_game("fang_den_hut", 4, team=True)
    state = position(game, {"r3": ["red[blue,green]"]}, roll=4, red=0, green=5)
    after = play(game, state, "red[blue,green] r3-r2-r1-gate_red-home_red")
    assert after.home == (1, 5, 6, 6) and after.prisoners[0] == ("blue",)


def test_in_the_total_team_game_a_player_moves_the_team_mates_hats_too():
    team = load_game("fang_den_hut", 4, team=True)
    total = load_game("fang_den_hut", 4, total_team=True)
    state = position(team, {"r20": ["green"]}, roll=1, red=0, green=0)
    assert team.legal_moves(state) == [PASS]
    assert moves(total, state) == {"green r20-r19", "green r20-r21"}


def test_team_games_end_with_one_team_and_the_team_with_more_captives_wins():
    game = load_game("fang_den_hut", 4, team=True)
    state = position(
        game,
        {"r5": ["red[blue,yellow]"], "r9": ["green"]},
        prisoners={"blue": ["red", "green", "green"]},
        red=0,
        green=0,
        blue=0,
        yellow=0,
    )
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winners == (1, 3), "3 captives beat 2"


def test_in_the_tower_game_no_hat_goes_home_and_the_top_of_the_last_tower_wins():
    game = load_game("fang_den_hut", 2, tower=True)
    state = position(game, {"r3": ["red[green]"], "r20": ["green"]}, roll=4, red=0, green=4)
    assert "tower game" in refusal(game, state, "red[green] r3-r2-r1-gate_red-home_red")
    end = position(game, {"r3": ["red[green,green,green,green,green,green,red,red,red,red,red]"]})
    assert game.outcome(end).winners == (0,)


def test_variant_options_that_do_not_fit_are_refused():
    with pytest.raises(OptionError, match="4 or 6 players"):
        load_game("fang_den_hut", 5, team=True)
    with pytest.raises(OptionError, match="not both"):
        load_game("fang_den_hut", 4, team=True, total_team=True)
    with pytest.raises(OptionError, match="tower forbids"):
        load_game("fang_den_hut", 4, tower=True, golden_hat=True)


# --- the golden hat -----------------------------------------------------------------------


def test_the_golden_hat_starts_on_the_centre_and_is_captured_like_any_hat():
    game = load_game("fang_den_hut", golden_hat=True)
    start = game.initial_state()
    assert game.observe(start)["centre"] == "gold"
    state = position(game, {"sr3": ["red"], "centre": ["gold"]}, roll=3, red=5)
    after = play(game, state, "red sr3-sr4-sr5-centre")
    assert hats_on(game, after, "centre") == ["red[gold]"]


def test_the_golden_hat_must_be_brought_home_before_it_moves_for_its_owner():
    game = load_game("fang_den_hut", golden_hat=True)
    state = position(game, {"r2": ["red[gold]"]}, roll=3, red=5)
    home = play(game, state, "red[gold] r2-r1-gate_red-home_red")
    assert game.seat_name(home.gold_home) == "red"
    assert game.observe(home)["home_red"] == "gold+red+red+red+red+red"
    again = replace(home, turn=0, roll=2)
    assert "gold/red home_red-gate_red-r1" in moves(game, again)
    out = play(game, again, "gold/red home_red-gate_red-r1")
    assert game.observe(out)["r1"] == "gold" and out.gold_home is None


def test_the_golden_hat_captures_on_grey_fields_too():
    game = load_game("fang_den_hut", golden_hat=True)
    state = position(game, {"r2": ["gold/red"], "r4": ["blue", "green"]}, roll=2, red=5)
    after = play(game, state, "gold/red r2-r3-r4")
    assert hats_on(game, after, "r4") == ["gold/red[blue,green]"]
    plain = position(game, {"r2": ["red"], "r4": ["blue"], "centre": ["gold"]}, roll=2, red=5)
    assert hats_on(game, play(game, plain, "red r2-r3-r4"), "r4") == ["blue", "red"]


def test_the_golden_hat_goes_back_and_forth_within_a_move_capturing_where_it_turns():
    game = load_game("fang_den_hut", golden_hat=True)
    state = position(game, {"r6": ["gold/red"], "r7": ["blue"], "r5": ["green"]}, roll=4, red=5)
    after = play(game, state, "gold/red r6-r7-r6-r5-r6")
    assert hats_on(game, after, "r6") == ["gold/red[blue,green]"]
    assert hats_on(game, after, "r5") == [] and hats_on(game, after, "r7") == []
    results = {game.apply(state, move) for move in game.legal_moves(state)}
    assert len(results) == len(game.legal_moves(state)), "one move per distinct result"
    assert after in results


def test_whoever_captures_the_golden_hat_and_brings_it_home_owns_it():
    game = load_game("fang_den_hut", golden_hat=True)
    state = position(game, {"r5": ["gold/red"], "r9": ["blue"]}, turn="blue", roll=4, red=5)
    taken = play(game, state, "blue r9-r8-r7-r6-r5")
    assert hats_on(game, taken, "r5") == ["blue[gold,red]"]
    state = position(game, {"r12": ["blue[gold,red]"]}, turn="blue", roll=2, blue=5, red=5)
    home = play(game, state, "blue[gold,red] r12-gate_blue-home_blue")
    assert game.seat_name(home.gold_home) == "blue" and home.prisoners[1] == ("red",)


def test_the_golden_hat_turning_back_into_its_home_needs_captives_before_it_turns():
    # it turns on the gate and would capture blue there, but it steps home carrying none
    game = load_game("fang_den_hut", golden_hat=True)
    state = replace(position(game, {"gate_red": ["blue"]}, roll=2, red=5), gold_home=0)
    turned = "gold/red home_red-gate_red-home_red"
    assert turned not in moves(game, state)
    assert "only carrying captives" in refusal(game, state, turned)
    assert "gold/red home_red-gate_red-r1" in moves(game, state)


@pytest.mark.parametrize("options", [{}, {"golden_hat": True}, {"team": True}])
def test_a_random_play_is_a_legal_move_drawn_uniformly_and_its_position(options):
    game = load_game("fang_den_hut", **options)
    state, draws = game.initial_state(), random.Random(5)
    for number in range(400):
        if game.outcome(state) is not None:
            break
        if game.chance(state) is not None:
            state = game.resolve(state, 1 + draws.randrange(6))
            continue
        move, after = game.random_play(state, random.Random(number))
        assert move == random.Random(number).choice(game.legal_moves(state))
        assert after == game.apply(state, move)
        state = after


# --- sensing and records ------------------------------------------------------------------


def test_the_camera_sees_top_colours_and_hall_sensors_only_presence():
    game = load_game("fang_den_hut")
    state = position(game, {"r3": ["red[blue,green]"], "r4": ["blue", "yellow[red]"]})
    seen = game.observe(state)
    assert seen["r3"] == "red" and seen["r4"] == "blue+yellow" and seen["r5"] is None
    assert seen["home_red"] == "+".join(["red"] * 4)
    hall = game.sense(state, "presence")
    assert hall == project(seen, "presence") and hall["r3"] == hall["r4"] == "piece"
    assert game.towers(state, "r4") == [["blue"], ["yellow", "red"]]


def test_records_round_trip_and_hats_that_do_not_add_up_are_refused():
    game = load_game("fang_den_hut", golden_hat=True)
    state = position(game, {"r3": ["red[blue,gold]"]}, turn="blue", roll=5, red=5)
    record = game.to_json(state)
    assert record["state"]["fields"] == {"r3": ["red[blue,gold]"]}
    assert game.from_json(record) == state
    extra = {**record["state"], "fields": {"r3": ["red[blue,blue,gold]"]}}
    with pytest.raises(RecordError, match="do not add up"):
        game.from_json({**record, "state": extra})
    crowded = {**record["state"], "fields": {**extra["fields"], "r4": ["a", "b", "c", "d"]}}
    with pytest.raises(RecordError):
        game.from_json({**record, "state": crowded})


def test_notation_round_trips_and_garbage_is_refused_with_a_reason():
    game = load_game("fang_den_hut")
    state = position(game, {"r3": ["red[green]"]}, roll=6, red=0)
    for move in game.legal_moves(state):
        assert game.parse_move(state, str(move)) == move
    for text in ["red", "red r3", "purple r3-r4", "red[] r3-r4", "red r3-x9", "red[green r3-r4"]:
        assert refusal(game, state, text)


# --- who starts, and the extra roll after a six -------------------------------------


def test_the_table_chooses_the_starting_seat():
    game = load_game("fang_den_hut", players=4, first_seat=2)
    state = game.initial_state()
    assert game.drawer(state) == 2 and game.to_move(game.resolve(state, 3)) == 2
    with pytest.raises(OptionError, match="first_seat=4 is not a seat of 4 players"):
        load_game("fang_den_hut", players=4, first_seat=4)


def test_the_extra_roll_after_a_six_is_offered_and_may_be_declined():
    game = load_game("fang_den_hut", players=4)
    state = game.resolve(game.initial_state(), 6)
    state = game.apply(state, game.legal_moves(state)[0])
    spec = game.chance(state)
    assert spec.optional and spec.outcomes() == game.chance(game.initial_state()).outcomes()
    assert game.to_move(state) is None and game.legal_moves(state) == []
    assert game.drawer(state) == 0
    assert game.from_json(game.to_json(state)) == state
    declined = game.apply(state, game.parse_move(state, "pass"))
    assert game.parse_move(state, "pass") == PASS
    assert game.drawer(declined) == 1 and not game.chance(declined).optional
    assert declined.fields == state.fields and declined.ply == state.ply + 1
    taken = game.resolve(state, 2)
    assert game.to_move(taken) == 0


def test_a_roll_that_is_not_the_extra_one_cannot_be_declined():
    game = load_game("fang_den_hut", players=4)
    state = game.initial_state()
    with pytest.raises(IllegalMove, match="chance draw is pending"):
        game.apply(state, PASS)
    after = game.resolve(state, 2)
    after = game.apply(after, game.legal_moves(after)[0])
    assert not game.chance(after).optional
    with pytest.raises(IllegalMove):
        game.apply(after, PASS)


def test_a_record_from_before_first_seat_and_the_offered_roll_still_reads():
    game = load_game("fang_den_hut", players=4)
    state = game.resolve(game.initial_state(), 3)
    record = game.to_json(state)
    del record["options"]["first_seat"], record["state"]["again"]
    assert game.from_json(record) == state
    record["options"]["first_seat"] = 1
    with pytest.raises(RecordError, match="options"):
        game.from_json(record)
