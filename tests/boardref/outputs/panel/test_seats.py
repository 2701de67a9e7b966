"""The claim rules of seats (``boardref.outputs.panel.seats``) on a real SQLite log, and the
routes that follow them (TestClient): the first device holds a seat, another device
showing the same token is refused in words everywhere, a handover makes a new token,
and the secret and the claims outlive the process."""

from __future__ import annotations

from boardref.eventlog.store import SCHEMA_VERSION, Store, StoreError
from boardref.outputs.panel.seats import (
    CLAIMS,
    DEVICE_COOKIE,
    ELSEWHERE,
    HANDED_OVER,
    JOINED,
    NOT_JOINED,
    Seats,
    new_device,
)
from tests.boardref.outputs.panel.test_panel import LOCAL, REMOTE, card_table, client  # noqa: F401 - a fixture

GAME = 7


def test_the_first_device_holds_a_seat_and_another_is_refused(tmp_path):
    seats = Seats(Store(tmp_path / "log.db"))
    phone, other = new_device(), new_device()
    token = seats.token(GAME, 1)
    assert seats.admit(GAME, 1, token, None) == NOT_JOINED, "no mark, no claim"
    assert seats.joined(GAME) == []
    assert seats.admit(GAME, 1, token, phone) == JOINED
    assert seats.admit(GAME, 1, token, phone) == JOINED, "the same phone, again"
    assert seats.admit(GAME, 1, token, other) == ELSEWHERE
    assert seats.admit(GAME, 1, "guessed", other) == NOT_JOINED
    assert seats.admit(GAME, 2, token, phone) == NOT_JOINED, "a token is one seat's"
    assert seats.admit(GAME + 1, 1, token, phone) == NOT_JOINED, "and one game's"
    assert seats.joined(GAME) == [1] and seats.is_joined(GAME, 1)


def test_a_handover_makes_a_new_token_and_the_old_one_says_so(tmp_path):
    told = []
    seats = Seats(Store(tmp_path / "log.db"), changed=lambda: told.append(1))
    phone, newcomer = new_device(), new_device()
    old = seats.token(GAME, 0)
    assert seats.holds(GAME, 0, old, phone) and len(told) == 1
    seats.hand_over(GAME, 0)
    assert len(told) == 2 and not seats.is_joined(GAME, 0) and seats.handovers(GAME) == 1
    new = seats.token(GAME, 0)
    assert new != old
    assert seats.admit(GAME, 0, old, phone) == HANDED_OVER
    assert seats.admit(GAME, 0, old, newcomer) == HANDED_OVER, "a photo of the old code"
    assert seats.admit(GAME, 0, new, newcomer) == JOINED
    assert seats.admit(GAME, 0, new, phone) == ELSEWHERE


def test_the_secret_and_the_claims_outlive_the_process(tmp_path):
    store = Store(tmp_path / "log.db")
    seats = Seats(store)
    phone = new_device()
    seats.hand_over(GAME, 2)
    token = seats.token(GAME, 2)
    assert seats.holds(GAME, 2, token, phone)
    store.close()
    again = Seats(Store(tmp_path / "log.db"))
    assert again.token(GAME, 2) == token
    assert again.admit(GAME, 2, token, phone) == JOINED
    assert again.admit(GAME, 2, token, new_device()) == ELSEWHERE
    # the log keeps a hash of the mark, never the mark a browser sends
    kept = again._store.read(f"SELECT device FROM {CLAIMS}")
    assert kept and phone not in str(kept)


def test_a_rematch_carries_each_phone_into_the_new_game(tmp_path):
    told = []
    seats = Seats(Store(tmp_path / "log.db"), changed=lambda: told.append(1))
    phone = new_device()
    assert seats.holds(GAME, 1, seats.token(GAME, 1), phone)
    seats.carry(GAME, GAME + 1, (0, 1))
    assert len(told) == 2, "the pages are told of the carried seats"
    assert seats.joined(GAME + 1) == [1]
    assert seats.admit(GAME + 1, 1, seats.token(GAME + 1, 1), phone) == JOINED
    assert seats.admit(GAME + 1, 1, seats.token(GAME + 1, 1), new_device()) == ELSEWHERE
    seats.carry(GAME + 1, GAME + 2, (1, 0))  # the players change sides: the phone too
    assert seats.joined(GAME + 2) == [0]
    assert seats.admit(GAME + 2, 0, seats.token(GAME + 2, 0), phone) == JOINED


def test_a_log_of_the_schema_before_gets_the_seat_tables(tmp_path):
    store = Store(tmp_path / "log.db")
    store.write(
        [
            ("DROP TABLE seat_claims", ()),
            ("DROP TABLE panel_secrets", ()),
            ("PRAGMA user_version=2", ()),
        ]
    )
    store.close()
    store = Store(tmp_path / "log.db")
    assert store.read("PRAGMA user_version")[0][0] == SCHEMA_VERSION
    assert Seats(store).token(GAME, 0)


def test_a_joined_seat_is_refused_to_a_second_phone_on_every_route(card_table):  # noqa: F811
    local = client(card_table, LOCAL)
    assert local.post("/api/draw", json={}).status_code == 200  # deal
    mover = local.get("/api/state").json()["to_move"]
    token = card_table.panel.seats.token(card_table.referee.game_id, mover)
    mine = {"seat": mover, "token": token}
    phone, thief = client(card_table, REMOTE), client(card_table, REMOTE)

    first = phone.get("/api/state", params=mine)
    assert first.status_code == 200 and first.json()["view"]["hand"]
    cookie = first.headers["set-cookie"].lower()
    assert DEVICE_COOKIE in cookie and "httponly" in cookie and "samesite=lax" in cookie
    assert local.get("/api/state").json()["joined"] == [mover]

    elsewhere = "This seat has joined on another phone; ask the table to hand it over"
    state = thief.get("/api/state", params=mine)
    assert state.status_code == 403 and state.json()["detail"] == elsewhere
    move = first.json()["moves"][0]
    play = thief.post("/api/play", json={"move": move, **mine})
    assert play.status_code == 403 and play.json()["detail"] == elsewhere
    assert thief.get(f"/api/join/{mover}", params={"token": token}).json() == {
        "ok": False,
        "detail": ELSEWHERE,
    }
    qr = local.get(f"/api/qr/{mover}")
    assert qr.status_code == 409 and "hand it over" in qr.json()["detail"]

    assert thief.post("/api/hand-over", json={"seat": mover}).status_code == 403
    assert local.post("/api/hand-over", json={"seat": mover}).status_code == 200
    assert local.get(f"/api/qr/{mover}").status_code == 200
    handed = phone.get("/api/state", params=mine)
    assert handed.status_code == 403 and "handed over" in handed.json()["detail"]
    assert local.get("/api/state").json()["handovers"] == 1
    fresh = {
        "seat": mover,
        "token": card_table.panel.seats.token(card_table.referee.game_id, mover),
    }
    assert thief.get("/api/state", params=fresh).status_code == 200
    assert thief.post("/api/play", json={"move": move, **fresh}).status_code == 200


def test_a_log_that_cannot_take_a_claim_keeps_the_game_going(tmp_path, monkeypatch, caplog):
    # a full disk, at the store's boundary: every write refused as the store refuses it
    store = Store(tmp_path / "log.db")

    def full(statements):
        raise StoreError("cannot write the event log: database or disk is full")

    monkeypatch.setattr(store, "write", full)
    seats = Seats(store)
    phone = new_device()
    token = seats.token(GAME, 0)
    assert seats.admit(GAME, 0, token, phone) == JOINED
    assert seats.admit(GAME, 0, token, new_device()) == ELSEWHERE, "held for this run"
    assert "not kept" in caplog.text and "disk is full" in caplog.text
