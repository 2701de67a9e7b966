"""Every refusal says what to do, and none contradicts the lights.

The refusal keys are read from the source: an engine's words that are not about a
record, an option, a board file or a state given by hand and not a game's end, and
the referee's words in its refusals and on a board it cannot take. Each, in English
and German, has a clause that begins with a verb of doing, in the imperative (du in
German). Refusals built by the referee from real games (random positions, a piece
carried somewhere) never list as allowed the cell they forbid.
"""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import numpy as np
import pytest

from boardref.eventlog.store import Store
from boardref.outputs.panel.words import table as word_table
from boardref.referee.kinds import Phase
from boardref.referee.referee import Referee
from engines import GAMES as ENGINE_GAMES
from engines import IllegalMove, load_game
from engines.chance import Stream
from vision.boards.evaluate import random_position

ROOT = Path(__file__).resolve().parents[3]
#: verbs of doing a refusal may end with: the English imperative, the German du-form
ACTIONS = {
    "en": [
        "put",
        "take",
        "move",
        "jump",
        "step",
        "roll",
        "draw",
        "choose",
        "press",
        "wait",
        "play",
        "lay",
        "place",
        "write",
        "name",
        "list",
        "leave",
        "give",
        "use",
        "start",
        "pass",
        "turn",
        "carry",
        "set",
        "lift",
        "make",
        "try",
        "click",
        "pick",
        "tap",
        "call",
        "bring",
        "go",
        "keep",
        "free",
        "stop",
    ],
    "de": [
        "stell",
        "setz",
        "nimm",
        "zieh",
        "spring",
        "würfle",
        "wähl",
        "drück",
        "warte",
        "spiel",
        "leg",
        "schreib",
        "nenn",
        "lass",
        "gib",
        "nutz",
        "starte",
        "pass",
        "dreh",
        "trag",
        "heb",
        "mach",
        "versuch",
        "klick",
        "tipp",
        "ruf",
        "bring",
        "geh",
        "räum",
        "halt",
        "versetz",
        "hör",
    ],
}
#: words that may stand before the verb of a clause ("then move", "bitte warte")
LEAD_IN = {"then", "so", "first", "please", "dann", "also", "zuerst", "bitte", "erst"}


def _words_calls(tree) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "words"
    ]


def _engine_refusal_keys() -> set[str]:
    """The words an engine raises as ``IllegalMove`` (or ``NotationError``) itself; the
    words it builds elsewhere and gives as a refusal's reason are checked as the
    refusals of real games below."""
    keys = set()
    for path in sorted((ROOT / "engines").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if getattr(getattr(node, "func", None), "id", None) in ("IllegalMove", "NotationError"):
                keys |= {call.args[0].value for call in _words_calls(node)}
    return keys


def _referee_refusal_keys() -> set[str]:
    """The words of the referee's refusals (raised, or built by a function a raise
    calls) and of its words on a board no move fits."""
    # the service's modules, in its rooms too; the panel's refusals are its own words
    found = [*(ROOT / "boardref").glob("*.py"), *(ROOT / "boardref").glob("*/*.py")]
    modules = {
        p: ast.parse(p.read_text(encoding="utf-8")) for p in found if p.parent.name != "panel"
    }
    keys, helpers = set(), set()
    for tree in modules.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "RefereeError":
                keys |= {call.args[0].value for call in _words_calls(node)}
                helpers |= {
                    sub.func.id
                    for sub in ast.walk(node)
                    if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name)
                }
    for path, tree in modules.items():
        whole = path.name in ("refusals.py", "guidance.py")
        for node in ast.walk(tree):
            if whole or (isinstance(node, ast.FunctionDef) and node.name in helpers):
                keys |= {call.args[0].value for call in _words_calls(node)}
    # a piece's name, and a reason referee.goes_elsewhere ends with the action
    return keys - {"referee.token", "referee.may_not_go_there"}


ENGINE_KEYS = _engine_refusal_keys()
REFEREE_KEYS = _referee_refusal_keys()


def names_an_action(text: str, language: str) -> bool:
    """Whether a clause of ``text`` begins with a verb of doing (after a lead-in)."""
    for clause in re.split(r"[:;,(]|\. | and | or | und | oder ", re.sub(r"\{\w+\}", "", text)):
        said = [w for w in re.findall(r"[^\W\d_]+", clause.lower()) if w not in LEAD_IN]
        if said and said[0] in ACTIONS[language]:
            return True
    return False


def test_the_keys_are_found():
    assert {
        "rules.sternhalma.not_jump_over_one_hole",
        "rules.sternhalma.occupied",
    } <= ENGINE_KEYS
    assert {"referee.goes_elsewhere", "referee.not_now", "referee.piece_stays"} <= REFEREE_KEYS
    assert "rules.record_seed_hex" not in ENGINE_KEYS
    assert "rules.haegar.wins" not in ENGINE_KEYS


def test_the_check_tells_an_action_from_a_reason():
    assert names_an_action("l6 is taken: put the piece on a free hole", "en")
    assert not names_an_action("a move needs a start and an end hole", "en")
    assert names_an_action("Das Loch ist besetzt: stell die Figur auf ein freies Loch", "de")
    assert not names_an_action("Ein Zug braucht ein Start- und ein Zielloch", "de")


@pytest.mark.parametrize("language", ["en", "de"])
def test_every_refusal_says_what_to_do(language):
    words = word_table(language)
    silent = sorted(
        key
        for key in ENGINE_KEYS | REFEREE_KEYS
        # a frame around a reason that says the action itself ("Not allowed: {reason}")
        if not re.search(r"\{(reason|problem)\}$", words[key])
        and not names_an_action(words[key], language)
    )
    assert not silent, f"{language}: {len(silent)} refusals say no action: {silent}"


def _played(game, seed: int, plies: int):
    """A position of a random game after up to ``plies`` moves, chance drawn."""
    stream = Stream(f"refusals {seed}")
    state = random_position(game, game.initial_state(), np.random.default_rng(seed), plies, stream)
    while game.chance(state) is not None and game.outcome(state) is None:
        state = game.resolve(state, game.chance(state).draw(stream))
    return state


GAMES = [("sternhalma", 2), ("sternhalma", 3), ("catch_the_hare", 2), ("fang_den_hut", 4),
         ("hakenschlagen", 3)]  # fmt: skip


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_a_piece_carried_where_the_rules_refuse_is_told_where_it_may_go(tmp_path, name, players):
    """From random positions, a piece of the mover is carried to a random empty
    cell that makes no legal move: the refusal names an action in both languages,
    the cells it lights as allowed never hold the one it forbids, and the cells the
    pages list (``cells``) are those lit."""
    store = Store(tmp_path / "log.db")
    referee = Referee(store, sensor="presence", settle=0.3)
    referee.new_game(name, players, seed=b"refusals")
    game, checked = referee.game, 0
    tables = {language: word_table(language) for language in ("en", "de")}
    for seed in range(12):
        state = _played(game, seed, random.Random(seed).randrange(0, 40))
        if game.outcome(state) is not None:
            continue
        referee.positions[-1], referee.phase, referee.tentative = state, Phase.MOVE, None
        felt = game.sense(state, "presence")
        pick = random.Random(seed)
        full = sorted(c for c, token in felt.items() if token is not None)
        empty = sorted(c for c, token in felt.items() if token is None)
        for origin, destination in ((pick.choice(full), pick.choice(empty)) for _ in range(4)):
            reading = dict(felt, **{origin: None, destination: "piece"})
            if referee.match.successors_of(state).get(referee.match.key(reading)):
                continue  # a legal move after all
            referee.guidance.explain(reading)
            shown = referee.snapshot()
            assert shown.errors == {origin, destination}, (name, origin, destination)
            assert destination not in shown.destinations, (name, shown.message)
            notice = shown.notice.model_dump()
            for language, words in tables.items():
                assert names_an_action(_said(notice, words), language), _said(notice, words)
            listed = _param(notice, "allowed")
            if listed is not None and notice["params"]["reason"]["key"] == "referee.goes_elsewhere":
                assert set(listed) == shown.destinations and destination not in listed
            checked += 1
    store.close()
    assert checked >= 10, f"{name}: only {checked} refusals made"


def _said(notice: dict, words: dict) -> str:
    """A notice ({key, params}) in a word table's language, as a page says it."""

    def value(v):
        if isinstance(v, dict) and "key" in v:
            return _said(v, words)
        if isinstance(v, list):
            return ", ".join(value(x) for x in v)
        return str(v)

    text = words[notice["key"]]
    return re.sub(r"\{(\w+)\}", lambda m: value(notice["params"].get(m[1], m[0])), text)


def _param(notice: dict, name: str):
    """The first parameter ``name`` anywhere in a notice and the words inside it."""
    for key, value in notice["params"].items():
        if key == name:
            return value
        if isinstance(value, dict) and "key" in value:
            found = _param(value, name)
            if found is not None:
                return found
    return None


@pytest.mark.parametrize("name", ENGINE_GAMES)
def test_engine_refusals_of_real_wrong_moves_say_what_to_do(name):
    """The refusals an engine gives real wrong moves (the legal moves of one random
    position tried in another) name an action in both languages, the reasons it
    builds apart from its raises included."""
    game = load_game(name)
    tables = {language: word_table(language) for language in ("en", "de")}
    refused = 0
    for seed in range(8):
        here, there = _played(game, seed, 10 + 3 * seed), _played(game, 100 + seed, 5 + 4 * seed)
        if game.outcome(here) is not None or game.outcome(there) is not None:
            continue
        for move in game.legal_moves(here)[:30]:
            try:
                game.apply(there, move)
            except IllegalMove as refusal:
                said = refusal.words.to_json()
                for language, words in tables.items():
                    assert names_an_action(_said(said, words), language), _said(said, words)
                refused += 1
    assert refused >= 10, f"{name}: only {refused} refusals made"


def _in(language: str, notice) -> str:
    return _said(notice.model_dump(), word_table(language))


def test_a_sternhalma_piece_set_beyond_its_reach_is_told_to_step_or_jump(table):
    t = table("sternhalma", 2)
    t.lay_out_start()
    t.change(l4=None, l6="piece")
    shown = t.referee.published
    assert shown.destinations == {"k5", "m5"} and shown.errors == {"l4", "l6"}
    english, german = _in("en", shown.notice), _in("de", shown.notice)
    assert "neither a step to the next hole nor a jump over one piece" in english
    assert "jump over one hole" not in english
    assert "spring über genau eine Figur" in german and "stell die Figur auf" in german


def test_a_hare_set_on_an_unlit_hollow_is_told_the_destination_not_the_hare(table):
    """Hakenschlagen: the hare lifted lights its targets; set down elsewhere, the
    refusal is about where it went ("may not go there"), never that it may not move."""
    t = table("hakenschlagen", 3, seed=b"x")
    t.lay_out_start()
    t.referee.draw()  # the setup
    t.referee.draw()  # the marbles of white's turn
    t.change(a5=None)
    lit = t.referee.published.destinations
    assert lit
    elsewhere = next(
        c.id for c in t.game.board.cells if c.id not in lit and t.referee.reading[c.id] is None
    )
    t.change(**{elsewhere: "piece"})
    shown = t.referee.published
    assert shown.destinations == lit and elsewhere not in lit
    english = _in("en", shown.notice)
    assert f"may not go to {elsewhere}" in english and "No piece may move" not in english
    assert "Die Figur darf nicht auf" in _in("de", shown.notice)


def test_a_tower_brought_home_and_not_taken_apart_is_said_so(table):
    """Fang den Hut!: red brings the tower red[red] home and carries the whole tower
    out again onto r1, where one red hat may go. The rules allow r1; what is wrong
    is the hat that stays at home: the refusal says so and never lists r1 as the
    place the piece may go while forbidding it."""
    from tests.engines.test_fang_den_hut import position

    t = table("fang_den_hut", 4)
    state = position(t.game, {"r1": ["red[red]"], "r44": ["red"]}, roll=4, red=1)
    t.referee.positions[-1], t.referee.phase = state, Phase.MOVE
    t.show_position(state)
    t.change(r1=None)
    t.change(home_red="piece")
    t.change(home_red=None)
    t.change(r1="piece")
    shown = t.referee.published
    assert shown.notice.params["reason"]["key"] == "referee.piece_stays"
    assert shown.place == "home_red" and "r1" not in shown.destinations
    assert "take the tower apart there first" in _in("en", shown.notice)
    assert "nimm den Turm dort zuerst auseinander" in _in("de", shown.notice)
