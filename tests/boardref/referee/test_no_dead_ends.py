"""No dead ends: every game, every variant and every mix of people and computer seats
is played through the referee to its end, and nobody ever acts as the referee.

The people at the table do only what a player does: carry a move out on the board
(their own, or the computer's lit one), tap a move on the panel, press Draw or
Confirm, and choose the move they played when the table asks. A correction, a
takeback, a position set by hand or a computer seat left waiting fails the test, and
so does a position the referee holds that is not the one on the table.
"""

from __future__ import annotations

import asyncio
import itertools
import random

import pytest

import engines.players
from boardref.eventlog.store import Store
from boardref.referee.computer_seats import ComputerSeats
from boardref.referee.kinds import Phase, Sensor
from boardref.referee.referee import Referee
from boardref.referee.verdicts import RefereeError
from engines import load_game
from engines.players import SearchPlayer
from tests.engines.test_random_games import SETUPS
from tests.volume import FULL

pytestmark = pytest.mark.slow

#: a game whose rule book may end it after a number of moves (``max_plies``: a
#: draw) ends there; the others run to their own end
MAX_PLIES = 60
#: steps (a move, a draw, a confirm, a choice) after which a game still going is stuck
STEPS = 5000
SETTLE = 0.3
#: the computer's search a move
PLAYOUTS = 2
#: games with the longest games (hundreds of turns, each matched against thousands of
#: outcomes), and the one variant of each the suite plays (players, options), people
#: and the computer taking turns; the full volume plays every variant and mix
SLOW = {
    "fang_den_hut": (4, {"team": True, "tower": True}),
    "hakenschlagen": (3, {"trees": 2, "carrots": 4}),
}
#: up to this many seats the full volume plays every mix; beyond, each seat alone
#: the computer's and each alone a person's besides the suite's mixes
EVERY_MIX_UP_TO = 4


def every_mix(players: int) -> list[frozenset[int]]:
    """The mixes of people and computer seats the full volume plays."""
    if players <= EVERY_MIX_UP_TO:
        return [
            frozenset(seat for seat, computer in enumerate(mask) if computer)
            for mask in itertools.product((False, True), repeat=players)
        ]
    everyone = frozenset(range(players))
    alone = [frozenset({seat}) for seat in everyone] + [everyone - {seat} for seat in everyone]
    return list(dict.fromkeys(suite_mixes(players) + alone))


def suite_mixes(players: int) -> list[frozenset[int]]:
    """The mixes the suite plays: people only, the computer only, and turns passed
    from people to the computer and back (every other seat, and its complement)."""
    seats = range(players)
    chosen = [
        frozenset(),
        frozenset(seats),
        frozenset(s for s in seats if s % 2),
        frozenset(s for s in seats if not s % 2),
    ]
    return list(dict.fromkeys(chosen))


def _cases():
    """Every variant of the random-game test (each game's defaults among them). The
    suite plays the suite's mixes at each game's defaults, and people and the
    computer taking turns in its other variants."""
    for name, seats, options in SETUPS:
        players = load_game(name, seats, **options).players
        taking_turns = [frozenset(range(1, players, 2)) or frozenset({0})]  # a solo: its seat
        if FULL:
            mixes = every_mix(players)
        elif name in SLOW:
            mixes = taking_turns if SLOW[name] == (players, options) else []
        elif seats is None and not options:
            mixes = suite_mixes(players)
        else:
            mixes = taking_turns
        for computer in mixes:
            yield pytest.param(
                name, players, options, computer, id=_id(name, players, options, computer)
            )


def _id(name, players, options, computer) -> str:
    extra = ",".join(f"{k}={v}" for k, v in options.items())
    seats = "".join("C" if s in computer else "P" for s in range(players))
    return f"{name}-{players}{'-' + extra if extra else ''}-{seats}"


@pytest.fixture
def quick_computer(monkeypatch):
    """The computer held to a few playouts of its search, from a seeded generator
    (and shown for no time: the table's ComputerSeats below): the test is about the
    table never getting stuck, not about strength, and a run repeats itself move for
    move however busy the machine is."""
    seeds = random.Random(0)

    def computer_move(game, state, level):
        return SearchPlayer(seeds.random(), playouts=PLAYOUTS).choose(game, state)

    monkeypatch.setattr(engines.players, "computer_move", computer_move)


@pytest.mark.parametrize(("name", "players", "options", "computer"), list(_cases()))
def test_every_game_ends_with_nobody_acting_as_the_referee(
    tmp_path, quick_computer, name, players, options, computer
):
    if "max_plies" in load_game(name, players, **options).options:
        options = {**options, "max_plies": MAX_PLIES}
    store = Store(tmp_path / "table.db")
    try:
        table = _Table(store, name, players, options, computer)
        asyncio.run(table.play_to_the_end())
    finally:
        store.close()
    assert table.referee.phase == Phase.OVER
    assert table.game.outcome(table.referee.positions[-1]) is not None
    kinds = {kind for kind, _ in table.referee.log}
    assert not kinds & {"takeback", "correction"}, "a referee's act was logged"
    if computer:
        assert table.computer_acts, "the computer never acted"


class _Table:
    """A table with people who only play: a board read by hall sensors where the game
    has one, else the panel; the computer's seats acted for by ``ComputerSeats``."""

    def __init__(self, store: Store, name: str, players: int, options: dict, computer):
        game = load_game(name, players, **options)
        self.sensor = "presence" if "presence" in game.SENSORS else Sensor.PANEL
        self.referee = Referee(store, sensor=self.sensor, settle=SETTLE)
        self.referee.prepare_on_tick = False  # as in the service: verdicts index cold
        self.referee.new_game(name, players, options, seed=f"{name} {sorted(computer)}".encode())
        if computer:
            self.referee.seat_computer(computer, "easy")
        self.game = self.referee.game
        self.seats = ComputerSeats(lambda: None, showing_s=0.0)
        self.pick = random.Random(f"{name} {players} {sorted(computer)}")
        self.now = 0.0
        self.computer_acts = 0

    async def play_to_the_end(self) -> None:
        referee, game = self.referee, self.game
        if self.sensor != Sensor.PANEL:
            self.carry_out(referee.positions[-1])  # the start position laid out
        for _ in range(STEPS):
            if referee.phase == Phase.OVER:
                return
            self.seats.act(referee)
            if self.seats.acting is not None:
                await self.seats.acting
                self.computer_acts += 1
                notice = referee.published.notice
                told_to_carry_out = notice is not None and notice.key == "referee.computer_moves"
                assert not (told_to_carry_out and self.sensor == Sensor.PANEL), "there is no board"
                continue
            truth = referee.current()
            if referee.tentative is not None and self._computers_turn(truth):
                # the guest says the turn is done: the computer is next
                self.confirm(referee.positions[-1], truth)
                continue
            if game.chance(truth) is not None:
                assert not self._computers_turn(truth), "the computer's draw was left waiting"
                self.draw(referee.positions[-1], truth)
                continue
            assert referee.phase == Phase.MOVE, (
                f"stuck in {referee.phase}: {referee.published.message}"
            )
            if referee.expected is not None:
                assert self.sensor != Sensor.PANEL, (
                    "the computer's move was left for a person to tap"
                )
                move = referee.expected[0]  # the guest carries out the computer's move
            else:
                seat = game.to_move(truth)
                assert seat not in referee.computer, f"the computer left seat {seat} waiting"
                move = self.pick.choice(game.legal_moves(truth))
            self.play(truth, move)
        pytest.fail(f"the game did not end within {STEPS} steps")

    def _computers_turn(self, state) -> bool:
        """Whether a computer seat is to draw or move next at ``state``."""
        game = self.game
        seat = game.drawer(state) if game.chance(state) is not None else game.to_move(state)
        return seat is not None and seat in self.referee.computer

    def play(self, before, move) -> None:
        """A person plays ``move``: tapped on the panel, or carried out on the board and
        answered to the table when its sensors cannot tell (Confirm, then a choice)."""
        referee, game = self.referee, self.game
        after = game.apply(before, move)
        if self.sensor == Sensor.PANEL:
            referee.play(str(move))
        else:
            self.carry_out(after)
            if referee.phase == Phase.AMBIGUOUS:
                self.choose(before, after)
            elif referee.current() != after:
                self.confirm(before, after)  # a move the hall sensors cannot feel
        assert referee.current() == after, (
            f"{move} was played, the referee holds another position: "
            f"{referee.published.message}"
        )

    def draw(self, before, after) -> None:
        """Press Draw; a turn still open before it (``before`` to ``after``) may be
        asked about first: the one played is chosen, and Draw pressed again."""
        try:
            self.referee.draw()
        except RefereeError:
            assert self.referee.phase == Phase.AMBIGUOUS, self.referee.published.message
            self.choose(before, after)

    def confirm(self, before, after) -> None:
        """Press Confirm for the turn from ``before`` to ``after``; choose it when the
        table asks which of the turns that read alike it was."""
        self.referee.confirm()
        if self.referee.phase == Phase.AMBIGUOUS:
            self.choose(before, after)

    def choose(self, before, after) -> None:
        for text in self.referee.published.candidates:
            if self.game.apply(before, self.game.parse_move(before, text)) == after:
                self.referee.choose(text)
                return
        pytest.fail(f"the move played is not among {self.referee.published.candidates}")

    def carry_out(self, state) -> None:
        """The board shows ``state`` and is left alone until the reading settles."""
        self.now += 0.01
        self.referee.sense(self.game.sense(state, self.sensor), self.now)
        self.now += SETTLE + 0.01
        self.referee.tick(self.now)
