"""The computer's move in its game's own sentence, for random legal moves of every game
and board: every move has one, in both word tables with every placeholder filled,
with no cell's label, arrow or identifier in it; and the places the boards name are
said by name, in the German a German speaker says ("aus dem Heimfeld von Grün", not
"von Heimfeld grün"), the marbles one use spends joined as the pages write them."""

from __future__ import annotations

import random
import re

import pytest

from boardref.outputs.computer_words import computer_words
from boardref.outputs.panel.words import said, table
from boardref.referee.snapshot import TableState, seats_of
from engines import load_game
from engines.chance import Stream
from tests.boardref.outputs.test_announcer import GAMES, NEVER_SAID, cell_labels, keys_of

#: each game and board once (players, options)
#: German a German speaker stumbles on: a place after a preposition without its article,
#: a colour named by its adjective ("von blau")
STUMBLES = re.compile(r"\b(von|auf|aus) (Heimfeld|Ausgang)\b|\b(von|über) (rot|blau|grün|gelb)\b")
SETUPS = list({(name, players, tuple(options.items())) for name, players, options, _ in GAMES})


def random_plays(game, wanted: int, seed) -> list[tuple[object, object]]:
    """``wanted`` (position, legal move in it) pairs from random games of ``game``
    (seeded)."""
    pick, stream, found = random.Random(seed), Stream(f"words {seed}"), []
    while len(found) < wanted * 3:
        state = game.initial_state()
        while game.outcome(state) is None and len(found) < wanted * 3:
            if (chance := game.chance(state)) is not None:
                state = game.resolve(state, chance.draw(stream))
                continue
            move, after = game.random_play(state, pick)
            found.append((state, move))
            state = after
    return pick.sample(found, wanted)


@pytest.mark.parametrize(("name", "players", "options"), sorted(SETUPS),
                         ids=[f"{s[0]}-{'-'.join(k for k, _ in s[2]) or 'default'}"
                              for s in sorted(SETUPS)])
def test_every_move_of_the_computer_is_said_in_words_of_the_board(name, players, options):
    game = load_game(name, players, **dict(options))
    labels = cell_labels(game.board)
    tables = {language: table(language) for language in ("en", "de")}
    for position, move in random_plays(game, wanted=40, seed=name):
        state = TableState(game=name, players=game.players, options=dict(options),
                           seats=seats_of(game), position=game.observe(position))
        sentence = computer_words(str(move), state)
        assert sentence is not None, f"{move!r} has no sentence"
        spoken = sentence.to_json()
        missing = {k for k in keys_of(spoken) for t in tables.values() if k not in t}
        assert not missing, f"{move!r}: not in both word tables: {missing}"
        for language in tables:
            text = said(language, spoken)
            assert "{" not in text, f"{move!r}: a placeholder left: {text!r}"
            assert not labels.search(text), f"{move!r}: a cell's label is said: {text!r}"
            assert not NEVER_SAID.search(text), f"{move!r}: not in words: {text!r}"
            assert language != "de" or not STUMBLES.search(text), f"{move!r}: {text!r}"
            marbles_together = name == "hakenschlagen" and "+" in str(move)
            assert not marbles_together or " + " in text, f"{move!r}: {text!r}"
