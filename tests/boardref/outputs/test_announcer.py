"""What the table says aloud, through whole games of every game played by people and
the computer through the referee: every sentence in both word tables with every
placeholder filled, one sentence each, no cell's label, arrow, identifier or card still
in a hand in any of them, the computer's every move in its game's own sentence (the
words the players' pages show), nothing said twice for one moment, every person's turn
prompted to the table and to that seat, and the end said once."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from boardref.eventlog.store import Store
from boardref.outputs.announcer import SOUNDS, Announcement, Announcer, sentences
from boardref.outputs.computer_words import computer_words
from boardref.outputs.panel.words import said, table
from boardref.outputs.spoken import COMPUTER_MOVES, COMPUTER_PLAYS, LIT, announced
from boardref.outputs.spoken import heard as heard_aloud
from boardref.referee.events import NewSnapshot
from boardref.referee.kinds import Phase
from boardref.referee.snapshot import Said, TableState, seats_of
from engines import load_game
from engines.geometry import load_board
from tests.boardref.referee.test_no_dead_ends import _Table, quick_computer  # noqa: F401

pytestmark = pytest.mark.slow

REFEREE = Path(__file__).resolve().parents[3] / "boardref" / "referee"

#: (game, players, options, the computer's seats): each game and board, people and the
#: computer
GAMES = [
    ("catch_the_hare", 2, {}, {1}),
    ("catch_the_hare", 2, {"board": "no_diagonal"}, {0}),
    ("sternhalma", 2, {"max_plies": 40}, {1}),
    ("fang_den_hut", 2, {}, {1}),
    ("fang_den_hut", 2, {"golden_hat": True}, {0}),
    ("fang_den_hut", 2, {"tower": True}, {1}),
    ("hakenschlagen", 2, {}, {1}),
    ("hakenschlagen", 2, {"board": "square"}, {0}),
    ("fang_den_hut_cards", 3, {}, {1}),
    ("haegar", 2, {}, {1}),
    ("haegar", 1, {}, set()),
]
#: what no sentence says: an arrow, an identifier (snake_case), a sentence's end inside it
NEVER_SAID = re.compile(r"→|->|\b[a-z]+_[a-z0-9_]+\b|[.!?] [A-ZÄÖÜ]")


def cell_labels(board) -> re.Pattern:
    """The labels of ``board``'s cells ("c3", "17", "home_red"); a cell named by a word
    of its own ("centre") is said by that word, the way players say it."""
    ids = [cell.id for cell in board.cells if re.search(r"[\d_]", cell.id)]
    return re.compile(r"\b(" + "|".join(map(re.escape, ids)) + r")\b")


def keys_of(value) -> set[str]:
    """Every word key in ``value`` (words and the words among their parameters)."""
    if isinstance(value, dict):
        found = {value["key"]} if "key" in value else set()
        return found.union(*(keys_of(v) for v in value.values()))
    if isinstance(value, list | tuple):
        return set().union(*(keys_of(v) for v in value))
    return set()


def played(name, players, computer, tmp_path, options=None):
    """The snapshots of a whole game and the announcements each brought."""
    store = Store(tmp_path / "table.db")
    table_ = _Table(store, name, players, options or {}, frozenset(computer))
    announcer = Announcer()
    heard: list[tuple[object, tuple[Announcement, ...]]] = []

    def listen(event) -> None:
        if isinstance(event, NewSnapshot):
            heard.append((event.table, announcer.hear(event.table, 1)))

    table_.referee.listeners.append(listen)
    try:
        asyncio.run(table_.play_to_the_end())
    finally:
        store.close()
    return table_.game, heard


@pytest.mark.parametrize(
    ("name", "players", "options", "computer"), GAMES,
    ids=[f"{g[0]}-{'-'.join(g[2]) or 'default'}-{len(g[3])}" for g in GAMES],
)
def test_a_whole_game_is_said_in_words_of_the_board(
    tmp_path, quick_computer, name, players, options, computer  # noqa: F811
):
    game, heard = played(name, players, computer, tmp_path, options)
    tables = {language: table(language) for language in ("en", "de")}
    labels = cell_labels(game.board)
    announcements = [a for _, said_now in heard for a in said_now]
    assert announcements, "the table said nothing"
    once = set()
    for announcement in announcements:
        spoken = announcement.to_json()
        missing = {k for k in keys_of(spoken["said"]) for t in tables.values() if k not in t}
        assert not missing, f"{spoken['said']}: not in both word tables: {missing}"
        assert announcement.sound in (*SOUNDS, None)
        for language in tables:
            text = said(language, spoken["said"])
            assert not labels.search(text), f"a cell's label is said: {text!r}"
            assert "{" not in text and "_" not in text, f"an identifier is said: {text!r}"
            assert not NEVER_SAID.search(text), f"not one sentence in words: {text!r}"
        key = (announcement.moment, json.dumps(spoken["said"], sort_keys=True), announcement.to)
        assert key not in once, f"said twice in one moment: {spoken}"
        once.add(key)
    numbers = [a.number for a in announcements]
    assert numbers == sorted(set(numbers))
    ends = [a for a in announcements if a.sound == "over"]
    assert len(ends) == 1 and ends[0].said.key in ("winner", "draw_game")
    turns = {(s.acting, s.plies, s.phase) for s, _ in heard if s.acting is not None
             and not s.seats[s.acting].computer and s.phase in (Phase.MOVE, Phase.CHANCE)}
    prompted = {(a.to, a.moment[1], a.moment[2]) for a in announcements if a.to is not None
                and a.said.key in ("your_turn", "your_roll", "your_draw")}
    assert not turns - prompted, f"turns never prompted: {sorted(turns - prompted)[:5]}"
    # the computer's every move in its game's own sentence, the one its pages show
    moves = [s for s, _ in heard if s.notice and s.notice.key in (COMPUTER_MOVES, COMPUTER_PLAYS)]
    assert bool(moves) == bool(computer)
    for state in moves:
        shown = announced(state)
        assert shown is not None and shown["key"] != LIT, state.notice
        spoken = heard_aloud(state.notice, state)
        carried = spoken.key == "computer_carry_out"
        inner = spoken.params["sentence"] if carried else {
            "key": spoken.key, "params": spoken.params
        }
        assert inner == shown, (shown, spoken)


def test_the_card_game_never_says_a_card_before_it_is_played(tmp_path, quick_computer):  # noqa: F811
    _, heard = played("fang_den_hut_cards", 3, {1, 2}, tmp_path)
    shown = {card for state, _ in heard if state.last_played for card in
             state.last_played.split(":")}
    cards = re.compile(r"^[a-z]+?(_blank|\d+)$")
    for state, said_now in heard:
        for announcement in said_now:
            named = {v for v in _strings(announcement.to_json()["said"]) if cards.match(v)}
            assert named <= shown, f"a card still in a hand is said: {named - shown}"
            for seat in range(len(state.views)):
                hand = set(map(str, state.views[seat].get("hand", ())))
                kept = named & hand - {str(state.expected)}
                assert not kept, f"seat {seat}'s hand is said: {kept}"


def _strings(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, str):
        yield value


def test_a_refusal_is_said_with_what_fixes_it_and_no_cell_by_its_label(tmp_path):
    store = Store(tmp_path / "table.db")
    try:
        table_ = _Table(store, "catch_the_hare", 2, {}, frozenset())
        announcer = Announcer()
        heard: list[Announcement] = []
        table_.referee.listeners.append(
            lambda event: isinstance(event, NewSnapshot)
            and heard.extend(announcer.hear(event.table, 1))
        )
        game, referee = table_.game, table_.referee
        start = referee.positions[-1]
        table_.carry_out(start)
        reachable = {cell for move in game.legal_moves(start)
                     for cell, token in game.observe(game.apply(start, move)).items() if token}
        at = game.observe(start)
        piece = next(cell for cell, token in at.items() if token)
        nowhere = next(c.id for c in game.board.cells if not at.get(c.id) and c.id not in reachable)
        board = {**game.sense(start, "presence"), piece: False, nowhere: True}
        table_.now += 0.01
        referee.sense(board, table_.now)
        table_.now += 1.0
        referee.tick(table_.now)
    finally:
        store.close()
    refused = [a for a in heard if a.sound == "refused"]
    assert refused, [a.said.english for a in heard]
    labels = cell_labels(game.board)
    for announcement in refused:
        for language in ("en", "de"):
            text = said(language, announcement.to_json()["said"])
            assert not labels.search(text), text
    # the referee's sentences that name cells: by the board's names for its places, a
    # few at most; where a piece may go, one place, else the places that glow
    state = referee.published
    for key, params, said_as in (
        ("referee.may_not_go_there", {"cell": "c3"}, "the middle"),
        ("referee.goes_elsewhere", {"allowed": ["b2", "d2"], "reason": "x"}, "glowing"),
        ("referee.goes_elsewhere", {"allowed": ["a5"], "reason": "x"}, "the top left corner"),
        ("referee.capture", {"cells": ["b2", "d2"]}, "the place down and right of the middle"),
        ("referee.capture", {"cells": ["a1", "b1", "c1", "d1"]}, "the marked places"),
    ):
        text = said("en", heard_aloud(Said(key=key, params=params), state).model_dump())
        assert not labels.search(text) and said_as in text, text


def test_the_computer_moves_the_hare_between_places_the_board_names(tmp_path):
    store = Store(tmp_path / "table.db")
    try:
        state = _Table(store, "catch_the_hare", 2, {}, frozenset({1})).referee.published
    finally:
        store.close()
    sentence = computer_words("c3-b4", state.model_copy(update={"position": {"c3": "hare"}}))
    assert sentence is not None
    assert said("en", sentence.to_json()) == (
        "The computer moves the hare from the middle to the place up and left of the middle"
    )
    assert said("de", sentence.to_json()) == (
        "Der Computer zieht den Hasen von der Mitte auf die Stelle links über der Mitte"
    )
    jump = computer_words("c3:a5", state.model_copy(update={"position": {"c3": "hare"}}))
    assert jump is not None and said("en", jump.to_json()) == (
        "The computer's hare jumps from the middle over one hunter to the top left corner"
    )


@pytest.mark.parametrize("board", ["catch_the_hare", "catch_the_hare_less_diagonal",
                                   "catch_the_hare_no_diagonal"])
def test_every_place_a_board_names_is_in_both_word_tables_once(board):
    places = load_board(board).game["places"]
    assert set(places) == {cell.id for cell in load_board(board).cells}
    assert len(set(places.values())) == len(places), "two places of one name"
    for language in ("en", "de"):
        missing = set(places.values()) - set(table(language))
        assert not missing, f"{language} lacks {missing}"


#: what each refusal or guidance of the referee tells the table to do, said aloud
#: (en): a test for each kind the referee's refusals and guidance can say
WHAT_TO_DO = {
    "referee.nothing_goes_there": ({"cell": "c3"}, "take that piece off again"),
    "referee.cannot_move_from": ({"origin": "a5"}, "put it back on the top left corner"),
    "referee.goes_elsewhere": ({"reason": {"key": "referee.may_not_go_there",
                                           "params": {"cell": "c3"}}, "allowed": ["b2", "d2"]},
                               "put the piece on one of the glowing places"),
    "referee.may_not_go_there": ({"cell": "c3"}, "may not go to the middle"),
    "referee.piece_stays": ({"origin": "a1", "cell": "b2"}, "Take the tower apart on"),
    "referee.not_this_way": ({"cell": "c3", "lights": "on"},
                             "put the pieces back as the lights show"),
    "referee.capture": ({"cells": ["b2"]}, "Take the captured piece off"),
    "referee.illegal": ({"reason": {"key": "referee.cannot_move_from",
                                    "params": {"origin": "a1"}}}, "put it back on"),
    "referee.unreadable": (
        {"count": 2, "lights": "on", "misread": "no"},
        "put the pieces back as the lights show",
    ),
    "referee.differs_remove": ({"count": 1, "cell": "c3"}, "take the piece off the middle"),
    "referee.differs_place": ({"count": 1, "cell": "c3", "token": "hare"},
                              "put a piece (hare) on the middle"),
    "referee.not_computer_move": ({"move": "c3-c4"}, "carry out the move that glows"),
    "referee.not_a_move_for": ({"who": {"key": "seat.the_hare", "params": {}}},
                               "choose a card on the phone of the hare"),
}


def test_every_refusal_is_said_as_one_short_sentence_of_what_to_do(tmp_path):
    # every sentence the referee's refusals and guidance say (and the computer's move
    # played otherwise): a new kind fails here until its spoken form is checked
    source = "".join(
        (REFEREE / name).read_text(encoding="utf-8") for name in ("refusals.py", "guidance.py")
    )
    kinds = {*re.findall(r'"(referee\.[a-z_]+)",', source), "referee.not_computer_move"}
    assert not kinds - set(WHAT_TO_DO), f"refusals not checked aloud: {kinds - set(WHAT_TO_DO)}"
    store = Store(tmp_path / "table.db")
    try:
        state = _Table(store, "catch_the_hare", 2, {}, frozenset()).referee.published
    finally:
        store.close()
    labels = cell_labels(load_board("catch_the_hare"))
    for key, (params, to_do) in WHAT_TO_DO.items():
        spoken = heard_aloud(Said(key=key, params=params), state).model_dump(mode="json")
        assert to_do in said("en", spoken), (key, said("en", spoken))
        for language in ("en", "de"):
            text = said(language, spoken)
            assert "{" not in text and not labels.search(text), (key, text)
            assert not NEVER_SAID.search(text) and len(text.split()) <= 30, (key, text)


def test_a_corrected_move_and_what_to_do_next_are_said_one_after_the_other():
    then = {"key": "referee.differs_remove", "params": {"count": 1, "cell": "c3"}}
    replaced = {"key": "referee.replaced", "params": {"replaced": "c3-c4", "move": "c3-b4"}}
    notice = Said(key="referee.replaced_then", params={"replaced": replaced, "then": then})
    state = TableState(game="catch_the_hare", players=2, notice=notice, position={"c3": "hare"})
    said_now = [s for s, _, _ in sentences(None, state)]
    assert [s.key for s in said_now] == ["referee.replaced", "referee.differs_remove"]
    assert "the middle" in said("en", said_now[1].model_dump(mode="json"))


def test_a_hole_of_a_star_point_is_said_by_the_colour_of_its_point():
    game = load_game("sternhalma", 2)
    state = TableState(game="sternhalma", players=2, seats=seats_of(game),
                       position=game.observe(game.initial_state()))

    def aloud(cells, language="en"):
        spoken = heard_aloud(Said(key="referee.capture", params={"cells": cells}), state)
        return said(language, spoken.model_dump(mode="json"))

    assert aloud(["m1"]) == "Take the captured piece off the marked place in the star point of red"
    assert "im Zacken von Rot" in aloud(["m1"], "de")
    # two holes of one point are not told apart by its name
    assert aloud(["m1", "l2"]) == "Take the captured piece off the marked places"
