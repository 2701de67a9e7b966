"""No refusal tells a hidden hand: in the Fang den Hut! card game, the table (and
anyone but the mover's phone and the referee) gets one sentence for every move the
rules refuse, whatever the card; the mover's own phone keeps the specific reason."""

from __future__ import annotations

import pytest

from boardref.runtime.config import load_config
from tests.boardref.conftest import PIN, PIN_HASH, started
from tests.boardref.outputs.panel.test_panel import LOCAL, REMOTE, client

PLAYERS = 3


@pytest.fixture
def dealt(tmp_path):
    """A card table three plays into its game: stacks lie on the table."""
    config = load_config(
        **{
            "store.path": tmp_path / "cards.db",
            "game.name": "fang_den_hut_cards",
            "game.players": PLAYERS,
            "panel.referee_pin_hash": PIN_HASH,
        }
    )
    service = started(config)
    table = client(service, LOCAL)
    assert table.post("/api/draw", json={}).status_code == 200
    referee = service.referee
    for _ in range(3):
        move = referee.game.legal_moves(referee.current())[0]
        assert table.post("/api/play", json={"move": str(move)}).status_code == 200
    yield service
    service.close()


def refusals(service, who, targets=None, **body) -> dict[str, str]:
    """Every illegal ``card`` and ``card:target`` of the deck (every target, or those
    of ``targets``), tried by ``who``: the English of each refusal, by move."""
    referee = service.referee
    game, state = referee.game, referee.current()
    legal = {str(m) for m in game.legal_moves(state)}
    targets = game.deck if targets is None else targets
    tried = [*game.deck, *(f"{c}:{t}" for c in game.deck for t in targets)]
    said = {}
    for move in (m for m in tried if m not in legal):
        answer = who.post("/api/play", json={"move": move, **body})
        assert answer.status_code == 409, (move, answer.text)
        said[move] = answer.json()["detail"]
    assert referee.current() == state, "nothing refused was played"
    return said


@pytest.mark.slow
def test_the_table_gets_one_sentence_for_every_card(dealt):
    said = refusals(dealt, client(dealt, LOCAL))
    mover = dealt.referee.game.to_move(dealt.referee.current())
    player = f"player {mover + 1}"
    said_once = f"That is not a move {player} can make now: choose a card on the phone of {player}"
    assert set(said.values()) == {said_once}


@pytest.mark.slow
def test_the_movers_phone_and_the_referee_keep_the_reason(dealt):
    referee = dealt.referee
    mover = referee.game.to_move(referee.current())
    token = dealt.panel.seats.token(referee.game_id, mover)
    state = referee.current()
    hand = state.hands[mover]
    # the oracle of old: each card onto a card that tops no stack
    bottom = next(c for c in referee.game.deck if all(s[-1:] != (c,) for s in state.table))
    phone = refusals(dealt, client(dealt, REMOTE), [bottom], seat=mover, token=token)
    held = {move.split(":")[0] for move, said in phone.items() if "not the top card" in said}
    assert held == set(hand), "the mover is told what is wrong with their own card"
    assert all("is not in" in phone[card] for card in referee.game.deck if card not in hand)
    umpire = client(dealt, REMOTE)
    assert umpire.post("/api/referee/login", json={"pin": PIN}).status_code == 200
    assert refusals(dealt, umpire, [bottom]) == phone, "the referee may see every hand"


def test_another_seats_phone_is_refused_before_any_rule_is_asked(dealt):
    referee = dealt.referee
    other = (referee.game.to_move(referee.current()) + 1) % PLAYERS
    token = dealt.panel.seats.token(referee.game_id, other)
    card = referee.current().hands[other][0]
    answer = client(dealt, REMOTE).post(
        "/api/play", json={"move": card, "seat": other, "token": token}
    )
    assert answer.status_code == 403
