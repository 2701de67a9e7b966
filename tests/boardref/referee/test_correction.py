"""The referee's correction of the last move: it replaces the move read (not a move
after it), is logged so a replay gives the same game, and a correction that is not
legal where the last move was made is refused in words that say what to do."""

from __future__ import annotations

import random

import pytest

from boardref.eventlog.history import record_of
from boardref.referee import placing
from boardref.referee.kinds import Phase
from boardref.referee.referee import Referee
from boardref.referee.verdicts import RefereeError
from engines import PASS, RulesError, load_game
from engines.replay import replay
from tests.boardref.conftest import PIN
from tests.boardref.referee.test_referee import P

#: every game and a variant of each with something different in it
GAMES = [
    ("sternhalma", 2, {}),
    ("sternhalma", 3, {}),
    ("catch_the_hare", None, {}),
    ("hakenschlagen", 2, {}),
    ("hakenschlagen", 3, {"board": "square"}),
    ("fang_den_hut", 3, {}),
    ("fang_den_hut_cards", 3, {}),
    ("haegar", 2, {}),
]


def play_until_alternatives(referee: Referee, pick: random.Random):
    """Play on the panel until the last move had another legal move beside it; the
    move played, the position before it and an alternative."""
    game = referee.game
    for _ in range(400):
        if referee.phase == Phase.CHANCE:
            referee.draw()
            continue
        assert referee.phase == Phase.MOVE, referee.phase
        before = referee.positions[-1]
        moves = [m for m in game.legal_moves(before) if m != PASS]
        move = pick.choice(moves)
        referee.play(str(move))
        others = [m for m in moves if game.apply(before, m) != game.apply(before, move)]
        if others and referee.phase in (Phase.MOVE, Phase.CHANCE):
            return move, before, pick.choice(others)
    raise AssertionError(f"{game.name}: no move with an alternative in 400 steps")


@pytest.mark.parametrize(("name", "players", "options"), GAMES)
def test_a_correction_replaces_the_last_move_and_replays_the_same(store, name, players, options):
    referee = Referee(store, sensor="panel")
    referee.new_game(name, players, options, seed=b"correction")
    pick = random.Random(name)
    for _ in range(pick.randrange(1, 4)):  # not always the first move of the game
        played, before, other = play_until_alternatives(referee, pick)
    game = referee.game
    choices = referee.correction_choices()
    assert choices["replaces"] == str(played)
    assert str(other) in {m["move"] for m in choices["moves"]}
    assert choices["position"] == game.observe(before)
    # a move is told on the board by the cells it changes: a Hakenschlagen turn by them all
    seen, after = choices["position"], game.observe(game.apply(before, other))
    alternative = next(m for m in choices["moves"] if m["move"] == str(other))
    assert alternative["cells"] == sorted(c for c in after if after[c] != seen[c])
    if name == "hakenschlagen":
        assert all(m["cells"] for m in choices["moves"])

    referee.correct(str(other))

    assert referee.positions[-1] == game.apply(before, other) or referee.steps[-1][1].get(
        "move"
    ) == str(PASS)  # passes that follow the correction are the rules', not the referee's
    assert ("takeback", {"move": str(played)}) in referee.log
    corrected = [d for k, d in referee.log if k == "move" and d.get("corrected")]
    assert corrected[-1]["move"] == str(other)
    said = referee.published.notice
    assert said.key in ("referee.replaced", "referee.replaced_then")
    assert str(played) in referee.published.message and str(other) in referee.published.message

    again = Referee(store, sensor="panel")
    assert again.resume()
    assert again.positions == referee.positions
    *_, last = replay(record_of(store.game(referee.game_id), "here", None))
    assert last.state == referee.positions[-1]


def test_the_real_version_of_a_misread_move_needs_no_takeback(table):
    t = table("sternhalma", 2)
    t.lay_out_start()
    t.change(l4=None, m5=P)  # read as l4-m5; really l4-k5
    assert t.referee.published.last_played == "l4-m5"
    t.referee.correct("l4-k5")
    assert t.logged()[-2:] == [
        ("takeback", {"move": "l4-m5"}),
        ("move", {"move": "l4-k5", "seat": 0, "corrected": True}),
    ]
    shown = t.referee.published
    assert shown.message.startswith("The last move l4-m5 was replaced by l4-k5")
    assert shown.errors == {"m5", "k5"}  # the board still shows the misread
    t.change(m5=None, k5=P)
    assert not t.referee.published.errors


def test_a_correction_not_legal_before_the_last_move_is_refused_in_words(table):
    t = table("sternhalma", 2)
    t.lay_out_start()
    t.change(l4=None, m5=P)
    with pytest.raises(RefereeError) as refused:
        t.referee.correct("m5-m7")  # legal after the move read, not in its place
    said = str(refused.value)
    assert said.startswith("m5-m7 cannot replace l4-m5: ")
    assert said.endswith("Pick one of the moves the referee page offers")
    assert refused.value.words.key == "referee.cannot_replace"
    assert t.logged()[-1] == ("move", {"move": "l4-m5", "seat": 0})


def test_nothing_to_correct_is_said_with_what_to_do_instead(table, store):
    t = table("sternhalma", 2)
    t.lay_out_start()
    with pytest.raises(RefereeError, match="No move has been played yet: set the position"):
        t.referee.correct("l4-k5")
    referee = Referee(store, sensor="panel")
    referee.new_game("fang_den_hut", 2, seed=b"draw")
    referee.draw()
    state = referee.positions[-1]
    referee.play(str(referee.game.legal_moves(state)[0]))
    while referee.phase == Phase.MOVE:  # a six rolls again: play on to the next draw
        referee.play(str(referee.game.legal_moves(referee.positions[-1])[0]))
    referee.draw()
    # the move before the draw stays: what a correction names now is the move under way
    choices = referee.correction_choices()
    assert choices["replaces"] is None
    under_way = referee.game.legal_moves(referee.positions[-1])
    assert [m["move"] for m in choices["moves"]] == [str(m) for m in under_way if m != PASS]


@pytest.mark.parametrize(
    ("name", "players", "options"), [g for g in GAMES if placing.pieces(load_game(*g[:2]))]
)
def test_every_piece_a_tap_may_set_stands_where_it_was_tapped(store, name, players, options):
    """Each piece the editor offers, set on an empty cell that may hold it (a piece
    the game has a fixed number of moved there from one of its cells)."""
    referee = Referee(store, sensor="panel")
    referee.new_game(name, players, options, seed=b"placing")
    game = referee.game
    pick = random.Random(name)
    for token in placing.pieces(game):
        seen = game.observe(referee.current())
        empty = [c for c, t in seen.items() if t is None]
        held = [c for c in seen if seen[c] == token]
        taps = [] if placing.single(game, token) or not held else [(held[0], None)]
        state = game.to_json(referee.current())["state"]
        for cell in pick.sample(empty, len(empty)):
            try:
                placed = placing.place_all(game, state, [*taps, (cell, token)])
                referee.set_position(placing.record_of(game, placed))
            except RulesError:  # a cell this piece never stands on: refused in words
                continue
            break
        assert game.observe(referee.current())[cell] == token
        assert referee.log[-1][0] == "correction"


def test_a_tap_empties_a_cell_but_never_takes_the_hare_off(store):
    referee = Referee(store, sensor="panel")
    referee.new_game("catch_the_hare", seed=b"placing")
    game = referee.game
    state = game.to_json(referee.current())["state"]
    emptied = placing.place(game, state, "a1", None)
    assert "a1" not in emptied["hunters"] and "a1" in state["hunters"]
    moved = placing.place(game, state, "b3", "hare")
    assert moved["hare"] == "b3"
    with pytest.raises(RefereeError, match="The hare always stands on the board: tap the cell"):
        placing.place(game, state, state["hare"], None)
    with pytest.raises(RefereeError, match="no piece fox to set: pick one of the pieces"):
        placing.place(game, state, "b3", "fox")
    hats = load_game("fang_den_hut", 2)
    hat_state = hats.to_json(hats.initial_state())["state"]
    with pytest.raises(RefereeError, match="not set by taps: set the whole record as JSON"):
        placing.place(hats, hat_state, hats.board.cells[0].id, None)


def test_the_referee_sets_a_position_by_taps_through_the_api(service):
    from tests.boardref.outputs.panel.test_panel import REMOTE, client, lay_out

    lay_out(service)
    referee = client(service, REMOTE)
    taps = {"placings": [{"cell": "l4", "token": None}, {"cell": "k5", "token": "red"}]}
    assert referee.post("/api/position/cells", json=taps).status_code == 403
    assert referee.post("/api/referee/login", json={"pin": PIN}).status_code == 200
    shown = referee.get("/api/position").json()
    assert shown["pieces"] == [
        {"token": "red", "single": False},
        {"token": "blue", "single": False},
    ]
    assert referee.post("/api/position/cells", json=taps).status_code == 200
    position = service.referee.published.position
    assert position["k5"] == "red" and position["l4"] is None
    one_more = {"placings": [{"cell": "k7", "token": "red"}]}
    refused = referee.post("/api/position/cells", json=one_more)
    assert refused.status_code == 409 and "11 pieces, not 10" in refused.json()["detail"]


def test_a_move_under_way_is_replaced_as_it_stands(table):
    from tests.engines.test_sternhalma import position

    t = table("sternhalma", 2)
    # a lone red piece on i9 with the blue ring around m9's hexagon: i9:k11 can grow
    ring = ["j10", "m11", "p10", "p8", "m7", "j8"]
    t.referee.positions[-1] = position(t.game, {0: ["i9"], 1: ring})
    t.show_position(t.referee.positions[-1])
    t.change(i9=None, k11=P)
    assert t.referee.published.tentative == "i9:k11"
    assert t.referee.correction_choices()["replaces"] == "i9:k11"
    step = next(str(m) for m in t.game.legal_moves(t.referee.positions[-1]) if "-" in str(m))
    t.referee.correct(step)
    assert t.logged()[-1] == ("move", {"move": step, "seat": 0, "corrected": True})
    assert not any(kind == "takeback" for kind, _ in t.logged())
    assert t.referee.published.message.startswith(f"The last move i9:k11 was replaced by {step}")


def test_a_board_still_being_laid_out_is_not_corrected(table):
    t = table("sternhalma", 2)
    with pytest.raises(RefereeError, match="No move can be played now"):
        t.referee.correct("l4-k5")


def test_while_the_players_are_asked_the_referee_names_the_move_played(table, monkeypatch):
    t = table("sternhalma", 2)
    t.lay_out_start()
    start = t.game.initial_state()
    two = t.game.legal_moves(start)[:2]
    reading = t.game.sense(t.game.apply(start, two[0]), "presence")
    index, key = t.referee.match.successors_of(start), t.referee.match.key(reading)
    found = index.get
    asked = [(m, t.game.apply(start, m)) for m in two]
    monkeypatch.setattr(index, "get", lambda k: asked if k == key else found(k))
    t.show(reading)
    assert t.referee.phase == Phase.AMBIGUOUS
    assert t.referee.correction_choices()["replaces"] is None
    t.referee.correct(str(two[1]))
    assert t.logged()[-1] == ("move", {"move": str(two[1]), "seat": 0, "corrected": True})
    assert t.referee.published.message.startswith("The referee entered the move played")
    assert t.referee.published.candidates == ()


def test_a_turn_drawn_for_whose_board_reads_as_no_move_is_entered_and_play_goes_on(table):
    """Hakenschlagen draws before every turn: when the turn's board matches no legal
    move (a misread cell), the referee names the move played and the next turn is
    drawn for, with no position to set by hand."""
    t = table("hakenschlagen", 3, seed=b"x")
    t.lay_out_start()
    t.referee.draw()  # the setup
    t.referee.draw()  # field, field, lettuce for white on a5
    start = t.referee.positions[-1]
    made = "lettuce:d8 field:g5 field:f4"
    after = t.game.apply(start, t.game.parse_move(start, made))
    misread = dict(t.game.sense(after, "presence"), a1=P, a2=P)  # two pieces never there
    t.show(misread)
    assert t.referee.phase == Phase.MOVE and t.referee.tentative is None
    assert "matches no legal move" in str(t.referee.published.message)
    assert t.referee.correction_choices()["replaces"] is None
    t.referee.correct(made)
    assert t.logged()[-1] == ("move", {"move": made, "seat": 0, "corrected": True})
    assert t.referee.positions[-1] == after and t.referee.phase == Phase.CHANCE
    t.show_position(after)  # the cells misread are read right again
    t.referee.draw()
    assert t.referee.phase == Phase.MOVE and t.referee.published.errors == frozenset()
