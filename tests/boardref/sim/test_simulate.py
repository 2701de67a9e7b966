"""The referee's acceptance check: random games played by simulated hands on the
simulated MCU, through the real link, with sensor noise, must be refereed perfectly.

Each game the referee supports joins ``TABLES``; a run takes 10-20 s of wall time
because the MCU's scanning runs in real time. Where hall sensors cannot tell moves
apart (hats onto towers), the simulated players answer on the panel, as people do;
``panel_choices`` counts those taps.
"""

from __future__ import annotations

import dataclasses
import random
from types import SimpleNamespace

import pytest

from boardref.sim.hands import Hands
from boardref.sim.simulate import simulate
from engines import load_game
from engines.catch_the_hare import HareState
from vision.render import underlays

#: (game, players, seed, moves): every game that can be played on hall sensors, a
#: short run each; bench/bench_simulate.py plays the long runs (300 moves a table)
TABLES = [
    ("sternhalma", 2, 7, 60),
    ("sternhalma", 3, 8, 60),
    ("catch_the_hare", 2, 9, 60),
    ("fang_den_hut", 4, 10, 60),
    ("hakenschlagen", 4, 11, 20),
]


@pytest.mark.slow
@pytest.mark.parametrize(("game", "players", "seed", "moves"), TABLES)
def test_noisy_games_are_refereed_without_a_mistake(game, players, seed, moves):
    result = simulate(game, players, seed=seed, noise=0.01, moves=moves)
    assert result["moves_played"] == moves
    assert result["committed"] == moves
    assert result["wrong_commits"] == 0
    assert result["missed_moves"] == 0
    assert result["false_rejections"] == 0
    assert result["illegal_injected"] > 0
    assert result["illegal_caught"] == result["illegal_injected"]
    assert result["final_state_match"]
    assert result["mcu"]["crc_errors"] == 0


#: (game, seed, moves, computer's seat): each run plays a few moves past the end of
#: its seed's first game (move 15 of the hare's, 31 of Hakenschlagen's, 78 of Fang
#: den Hut!'s) and sees the guest disobey; the computer's search is most of the cost
GUESTS = [("catch_the_hare", 12, 20, 1), ("fang_den_hut", 3, 80, 0), ("hakenschlagen", 7, 32, 1)]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "seed", "moves", "seat"), GUESTS)
def test_a_guest_against_the_computer_finishes_games_without_a_wrong_commit(
    name, seed, moves, seat
):
    """In Fang den Hut! the computer's move taken on the panel (chosen among moves
    the hall sensors cannot tell apart, or confirmed) used to leave it announced,
    and every later move was refused as not the computer's."""
    result = simulate(name, 2, seed=seed, noise=0.01, moves=moves, computer=(seat,))
    assert result["computer_seats"] == [seat]
    assert result["games"] >= 1, "at least one whole game against the computer"
    assert result["wrong_commits"] == 0 and result["missed_moves"] == 0
    assert result["false_rejections"] == 0 and result["final_state_match"]
    assert result["computer_refusals"] > 0, "the guest's other moves were refused"


def _hare_on_a_dandelion():
    """Hakenschlagen: the white hare on a dandelion with two dandelions drawn, so it
    may leap off it. Hall sensors do not feel the disk: carried off, the hare leaves a
    hollow they read as empty. The hands once counted the disk as read there, so
    their "mistake" could be a legal move; the referee rightly took it and the run
    scored a wrong commit (seed 7, computer in seat 1)."""
    game = load_game("hakenschlagen", players=2, trees=0, dandelions=1, lettuces=2, carrots=0)
    start = game.setup_from({"dandelion": ["c7"], "lettuce": ["b6", "d6"]})
    index = game.board.index
    hares = (index["c7"], index["r4"])
    return game, dataclasses.replace(start, hares=hares, hand=("dandelion",) * 2), "c7"


def _hare_beside_a_hunter():
    """Catch the Hare: the hare at c1 may leap the hunter at c2 to c3. Carried there
    with the hunter still standing, the board is that capture half done, which the
    referee rightly waits out ("take off c2"); the hands counted it as illegal."""
    game = load_game("catch_the_hare", min_hunters=1)
    index = game.board.index
    return game, HareState(index["c1"], frozenset({index["c2"], index["a5"]}), turn=1), "c1"


@pytest.mark.parametrize("position", [_hare_on_a_dandelion, _hare_beside_a_hunter])
def test_every_mistake_of_the_hands_is_one_the_referee_refuses(table, position):
    game, state, hare = position()
    carries, bare = set(), underlays(game, state)
    hands = Hands(SimpleNamespace(camera=None), game, random.Random(), "hall")
    outcomes = hands.outcomes(state)
    hands.outcomes = lambda _: outcomes  # one state, so its outcomes are listed once
    for seed in range(40):
        hands.pick = random.Random(seed)  # as new hands with this seed pick
        carries |= set(hands.mistakes(state, bare))
    assert any(origin == hare for origin, _ in carries)
    t = table(game.name, game.players, dict(game.options))
    t.referee.positions[-1] = state
    t.show_position(state)
    for origin, target in sorted(carries):
        t.events.clear()
        t.change(**{origin: None, target: "piece"})
        assert {"illegal", "unreadable"} & set(t.kinds()), (origin, target, t.kinds())
        t.change(**{origin: "piece", target: None})
    assert t.referee.positions[-1] == state


@pytest.mark.slow
@pytest.mark.parametrize("sensor", ["camera", "both"])
def test_games_read_by_the_camera_are_refereed_without_a_mistake(sensor):
    """Frames rendered from the game (hands over the board while they work), read by
    the board reader and weighed against the legal outcomes; with both, the hall
    sensors' presence rules out what they contradict. Seed 22's hands try an illegal
    move within 3 moves with either sensor."""
    result = simulate("sternhalma", 2, seed=22, noise=0.0, moves=3, sensor=sensor)
    assert result["sensor"] == sensor and result["camera"]["frame_size"]
    assert result["committed"] == result["moves_played"] == 3
    assert result["wrong_commits"] == result["missed_moves"] == 0
    assert result["false_rejections"] == 0
    assert result["illegal_caught"] == result["illegal_injected"] > 0
    assert result["final_state_match"]
    assert ("mcu" in result) == (sensor == "both")
    assert result["camera"]["hand_frames"] > 0
    assert result["camera"]["hand_frames_read"] == 0, "a hand over the board is never read"


def test_an_unknown_sensor_is_refused_in_words():
    with pytest.raises(ValueError, match="choose one of hall, camera, both"):
        simulate("sternhalma", 2, seed=1, noise=0.0, moves=1, sensor="sonar")


def test_a_table_no_hall_board_can_scan_is_refused_with_what_to_use():
    with pytest.raises(ValueError, match="haegar: 1060 cells: .* use --sensor camera"):
        simulate("haegar", 2, seed=1, noise=0.0, moves=5, sensor="hall")


@pytest.mark.slow
def test_a_table_given_to_simulate_is_the_camera_it_reads():
    """A bench's world hands simulate its own table: the frames come from it, at
    its size, and the game is refereed from them."""
    from boardref.sim.rendered_source import rendered_camera

    drawn: list[tuple] = []

    class Counted:
        def __init__(self, game, seed):
            self.renderer, self.lens = rendered_camera(game, seed, "easy", (800, 450))

        def frame(self, tokens, hands=(), under=None):
            drawn.append(tuple(hands))
            return self.renderer.frame(tokens, hands, under)

    def table(game, seed):
        counted = Counted(game, seed)
        return counted, counted.lens

    result = simulate("catch_the_hare", 2, seed=5, noise=0.0, moves=2, sensor="camera", table=table)
    assert result["camera"]["scene"] == "given"
    assert result["camera"]["frame_size"] == [800, 450]
    assert drawn and any(drawn), "frames with a hand over the board came from the table"
    assert result["committed"] == result["moves_played"] == 2
    assert result["wrong_commits"] == 0


def test_a_camera_tables_heartbeat_is_kept_by_the_tables_clock(tmp_path):
    """A still board is read again every ``READ_EVERY_S`` of the table's simulated
    time, not of the machine's: a run repeats itself however fast the machine is."""
    from boardref.eventlog.store import Store
    from boardref.referee.referee import Referee
    from boardref.sim.hands import SENSORS, SETTLE
    from boardref.sim.rig import Rig
    from vision.boards.reader import READ_EVERY_S

    store = Store(tmp_path / "still.db")
    referee = Referee(store, sensor=SENSORS["camera"], settle=SETTLE)
    referee.new_game("sternhalma", 2, seed=b"still")
    rig = Rig(referee, 0.0, 3, "camera")
    try:
        rig.pause(1.0)
        read = rig.camera.work.full_reads
        rig.pause(4 * READ_EVERY_S + 1)  # a still board, some 20 s at the table
        assert rig.camera.work.full_reads - read == 4
    finally:
        rig.close()
        store.close()
