"""Hägar's table read by the camera as the referee's sensor: rendered frames of the
mat through ``vision.coasters.sensor.CoasterSensor`` and the ``TableCamera`` into the
referee, which commits the lays and tokens it sees and refuses a coaster laid where
the rules forbid; a hand over the mat is never read."""

from __future__ import annotations

import time

import pytest

from boardref.devices.camera import TableCamera, reader_for
from boardref.eventlog.store import Store
from boardref.referee.kinds import Sensor
from boardref.referee.referee import Referee
from boardref.sim.rendered_source import rendered_camera
from boardref.sim.simulate import simulate
from hardware.frame_source import SyntheticSource
from vision.coasters.mat import mat_board
from vision.coasters.sensor import CoasterSensor

SETTLE = 0.3
FPS = 10
SIZE = (1280, 720)


class Table:
    """A two-seat Hägar referee watched by a rendered camera; ``shown`` is the table."""

    def __init__(self, store):
        self.referee = Referee(store, sensor=Sensor.CAMERA, settle=SETTLE)
        self.referee.new_game("haegar", 2, seed=b"coasters")
        self.game = self.referee.game
        self.shown = dict.fromkeys(cell.id for cell in self.game.board.cells)
        self.hands: tuple[str, ...] = ()
        renderer, lens = rendered_camera(self.game, 4, "easy", SIZE)
        source = SyntheticSource(renderer, lambda: (self.shown, self.hands, {}))
        self.camera = TableCamera(self.referee, source, reader_for(self.game, lens))
        self.events: list[str] = []
        self.referee.listeners.append(lambda event: self.events.append(event.kind))
        self.now = 0.0

    def watch(self, seconds: float) -> None:
        for _ in range(round(seconds * FPS)):
            self.now += 1 / FPS
            assert self.camera.step(self.now)
            self.referee.tick(self.now)

    def lay(self, move_text: str | None = None, tokens: dict | None = None) -> None:
        """A hand lays ``move_text`` (or makes the table show ``tokens``), then leaves."""
        if tokens is None:
            state = self.referee.positions[-1]
            tokens = self.game.observe(
                self.game.apply(state, self.game.parse_move(state, move_text))
            )
        self.hands = ("n0e0",)
        self.watch(0.1)
        self.shown = tokens
        self.watch(0.2)
        self.hands = ()
        self.watch(0.6)

    def moves(self) -> list[str]:
        return [data["move"] for kind, data in self.referee.log if kind == "move"]


@pytest.fixture
def table(store):
    watched = Table(store)
    watched.watch(1.0)  # the bare table: learned, then read as the start
    return watched


@pytest.fixture(scope="module")
def bare_table(tmp_path_factory):
    """A table read as the start, for the tests that only look at it."""
    store = Store(tmp_path_factory.mktemp("bare") / "boardref.db")
    watched = Table(store)
    watched.watch(1.0)
    yield watched
    watched.camera.close()
    store.close()


def _with_coaster(game, seen: dict, coaster: str, spot: str, turn: int) -> dict:
    shown = dict(seen)
    for corner, printed, _ in game.coasters[coaster].on_table(turn):
        shown[f"{spot}_{corner}"] = f"{coaster}_{printed}"
    return shown


@pytest.mark.slow
def test_the_camera_commits_a_lay_and_its_token_and_refuses_a_coaster_laid_apart(table):
    referee, game = table.referee, table.game
    assert isinstance(table.camera.reader, CoasterSensor)
    referee.draw()
    first = referee.positions[-1].hand
    table.lay(f"{first} n0e0 north")
    assert table.moves() == [f"{first} n0e0 north"]
    table.lay(f"hagar n0e0_{_free_field(game, referee.positions[-1])}")
    assert len(table.moves()) == 2
    referee.draw()
    second = referee.positions[-1].hand
    before = list(referee.log)
    # the rules want the next coaster edge to edge with the first: n0e2 is apart
    apart = _with_coaster(game, table.shown, second, "n0e2", 0)
    table.events.clear()
    table.lay(tokens=apart)
    assert "illegal" in table.events or "unreadable" in table.events
    assert referee.log == before, "nothing is committed from a forbidden lay"
    legal = str(game.legal_moves(referee.positions[-1])[0])
    table.lay(legal)  # taken back and laid where the rules allow
    assert table.moves()[-1] == legal


def _free_field(game, state) -> str:
    """A corner of the coaster just laid that takes a token."""
    return next(str(m).split("_")[1] for m in game.legal_moves(state) if str(m).startswith("hagar"))


@pytest.mark.slow
def test_a_hand_over_the_mat_yields_no_observation(table):
    referee, game = table.referee, table.game
    referee.draw()
    state = referee.positions[-1]
    laid = game.observe(game.apply(state, game.parse_move(state, f"{state.hand} n0e0 east")))
    table.watch(0.5)
    seen = table.camera.observation
    table.shown, table.hands = laid, ("n0e0",)
    for _ in range(20):  # two seconds of a hand resting over the coaster just laid
        table.watch(1 / FPS)
        assert table.camera.observation is seen
        assert table.camera.reader.status in ("moving", "blocked", "settling")
    table.hands = ()
    table.watch(0.6)
    assert table.camera.observation.tokens == laid


@pytest.mark.slow
def test_an_observation_gives_each_field_a_confidence_and_unknown_beyond_the_mat(bare_table):
    table = bare_table
    observation = table.camera.observation
    fields = [cell.id for cell in table.game.board.cells]
    assert set(observation.tokens) == set(fields)
    assert observation.tokens == dict.fromkeys(fields)
    on_mat = {f"{spot.id}_{c}" for spot in mat_board(table.game).cells for c in ("sw", "nw")}
    assert min(observation.confidence[f] for f in on_mat) > 0.98
    beyond = "n6e0_sw"
    assert observation.confidence[beyond] == 0.0
    assert len(observation.ranked[beyond]) == 1, "one reading at the floor: all equal"


def test_the_snapshot_of_the_mat_is_a_png(bare_table):
    assert bare_table.camera.snapshot().startswith(b"\x89PNG")


@pytest.mark.slow
def test_a_short_simulated_game_through_the_camera_is_refereed_without_a_mistake():
    # six moves: by then a forbidden lay has been injected (seed 3), and caught
    result = simulate("haegar", 2, seed=3, noise=0.0, moves=6, sensor="camera")
    assert result["committed"] == result["moves_played"] == 6
    assert result["wrong_commits"] == result["missed_moves"] == 0
    assert result["false_rejections"] == 0 and result["final_state_match"]
    assert result["illegal_injected"] >= 1
    assert result["illegal_caught"] == result["illegal_injected"]
    assert result["camera"]["hand_frames"] > 0
    assert result["camera"]["hand_frames_read"] == 0


@pytest.mark.process
def test_serve_reads_haegars_table_with_the_rendered_camera_and_shows_the_mat(tmp_path):
    import signal

    from tests.boardref.conftest import PIN, PIN_HASH
    from tests.boardref.devices.test_camera import _serve

    # frames a quarter of the default size, as ``simulate`` reads Hägar's table
    config = f'[panel]\nreferee_pin_hash = "{PIN_HASH}"\n[camera]\nsize = [640, 360]\n'
    service, client = _serve(tmp_path, config, "--game", "haegar", "--camera", "synthetic")
    try:
        client.post("/api/referee/login", json={"pin": PIN}).raise_for_status()
        assert client.get("/api/diagnostics").json()["sensor"] == Sensor.CAMERA
        deadline = time.monotonic() + 30
        # the bare table, read by the camera, is the start: the first coaster is drawn
        while client.get("/api/state").json()["phase"] == "setup":
            assert time.monotonic() < deadline, "the bare table was never read"
            time.sleep(0.2)
        picture = client.get("/api/camera.png")
        assert picture.content.startswith(b"\x89PNG")
    finally:
        service.send_signal(signal.SIGTERM)
        service.communicate(timeout=30)
