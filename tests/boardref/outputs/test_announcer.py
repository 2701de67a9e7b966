"""What the table says aloud, through whole games of every game played by people and
the computer through the referee: every sentence in both word tables, no cell's label
and no card still in a hand in any of them, nothing said twice for one moment, every
person's turn prompted to the table and to that seat, and the end said once."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from boardref.eventlog.store import Store
from boardref.outputs.announcer import SOUNDS, Announcement, Announcer
from boardref.outputs.panel.words import said, table
from boardref.outputs.spoken import heard as heard_aloud
from boardref.referee.events import NewSnapshot
from boardref.referee.kinds import Phase
from boardref.referee.snapshot import Said
from tests.boardref.referee.test_no_dead_ends import _Table, quick_computer  # noqa: F401

pytestmark = pytest.mark.slow

#: (game, players, the computer's seats): each game once, people and the computer
GAMES = [
    ("catch_the_hare", 2, {1}),
    ("sternhalma", 2, {1}),
    ("fang_den_hut", 2, {1}),
    ("hakenschlagen", 2, {1}),
    ("fang_den_hut_cards", 3, {1}),
    ("haegar", 1, set()),
]


def keys_of(value) -> set[str]:
    """Every word key in ``value`` (words and the words among their parameters)."""
    if isinstance(value, dict):
        found = {value["key"]} if "key" in value else set()
        return found.union(*(keys_of(v) for v in value.values()))
    if isinstance(value, list | tuple):
        return set().union(*(keys_of(v) for v in value))
    return set()


def played(name, players, computer, tmp_path):
    """The snapshots of a whole game and the announcements each brought."""
    store = Store(tmp_path / "table.db")
    table_ = _Table(store, name, players, {"max_plies": 40} if name == "sternhalma" else {},
                    frozenset(computer))
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


@pytest.mark.parametrize(("name", "players", "computer"), GAMES, ids=[g[0] for g in GAMES])
def test_a_whole_game_is_said_in_words_of_the_board(
    tmp_path, quick_computer, name, players, computer  # noqa: F811
):
    game, heard = played(name, players, computer, tmp_path)
    tables = {language: table(language) for language in ("en", "de")}
    labels = re.compile(
        r"\b(" + "|".join(re.escape(cell.id) for cell in game.board.cells) + r")\b"
    )
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
    labels = re.compile(r"\b(" + "|".join(re.escape(c.id) for c in game.board.cells) + r")\b")
    for announcement in refused:
        for language in ("en", "de"):
            text = said(language, announcement.to_json()["said"])
            assert not labels.search(text), text
    # the referee's sentences that name cells: said as the places that glow
    state = referee.published
    for key, params in (("referee.may_not_go_there", {"cell": "c3"}),
                        ("referee.goes_elsewhere", {"allowed": ["b2", "d2"], "reason": "x"}),
                        ("referee.capture", {"cells": ["b2", "d2"]})):
        text = said("en", heard_aloud(Said(key=key, params=params), state).model_dump())
        assert not labels.search(text) and ("marked" in text or "glowing" in text), text
