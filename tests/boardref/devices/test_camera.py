"""The camera as the referee's sensor: observations weighed against the legal outcomes
(a doubtful cell settled by the rules, near ties asked on the panel, a board no
outcome explains refused), hall presence fused with camera tokens, and the table's
camera: frames in, committed positions back to the reader, a failing source that
leaves the game as it was."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from boardref.devices.camera import TableCamera
from boardref.referee.kinds import Phase, Sensor
from boardref.referee.referee import Referee
from boardref.runtime.table_control import board_found, camera_status
from engines import load_game
from hardware.frame_source import FolderSource, SyntheticSource
from vision.boards.reader import BoardReader
from vision.mishaps import bumped
from vision.observation import Observation
from vision.render import Renderer, random_scene

SETTLE = 0.3


class Watched:
    """A Sternhalma referee read by the camera (and the hall sensors with ``Sensor.BOTH``)."""

    def __init__(self, store, sensor: str):
        self.referee = Referee(store, sensor=sensor, settle=SETTLE)
        self.referee.new_game("sternhalma", 2, seed=b"camera")
        self.game = self.referee.game
        self.now = 0.0
        self.events: list[str] = []
        self.referee.listeners.append(lambda e: self.events.append(e.kind))

    def tokens(self, state=None) -> dict:
        return self.game.observe(self.referee.positions[-1] if state is None else state)

    def see(self, tokens: dict, doubt: dict | None = None, hall: bool = True) -> None:
        """The camera reads ``tokens`` surely, but for ``doubt`` (cell -> ranked
        readings, best first); with hall sensors they feel the presence of
        ``tokens`` first. Then the reading settles."""
        doubt = doubt or {}
        if self.referee.sensor == Sensor.BOTH and hall:
            self.referee.sense({c: "piece" if t else None for c, t in tokens.items()}, self.now)
        ranked = {c: doubt.get(c, ((t, 1.0),)) for c, t in tokens.items()}
        self.now += 0.05
        self.referee.see(
            Observation(
                {c: r[0][0] for c, r in ranked.items()},
                {c: r[0][1] for c, r in ranked.items()},
                ranked,
            ),
            self.now,
        )
        self.now += SETTLE + 0.01
        self.referee.tick(self.now)

    def start(self) -> None:
        self.see(self.tokens())
        assert self.referee.phase == Phase.MOVE

    def step(self) -> tuple:
        """A step from the position, and the board after it."""
        base = self.referee.positions[-1]
        move = _two_steps(self.game, base)[0]
        return move, self.tokens(self.game.apply(base, move))

    def moves(self) -> list[str]:
        return [data["move"] for kind, data in self.referee.log if kind == "move"]


def _two_steps(game, state):
    """Two step moves of one piece to different cells."""
    by_origin: dict[str, list] = {}
    for move in game.legal_moves(state):
        if not move.leap:
            by_origin.setdefault(move.origin, []).append(move)
    return next(moves[:2] for moves in by_origin.values() if len(moves) >= 2)


def test_a_surely_read_step_is_committed(store):
    t = Watched(store, Sensor.CAMERA)
    t.start()
    move = t.game.legal_moves(t.referee.positions[-1])[0]
    t.see(t.tokens(t.game.apply(t.referee.positions[-1], move)))
    assert t.moves() == [str(move)]


def test_a_doubtful_cell_is_read_as_the_only_legal_outcome_that_fits(store):
    t = Watched(store, Sensor.CAMERA)
    t.start()
    base = t.referee.positions[-1]
    move = _two_steps(t.game, base)[0]
    after = t.tokens(t.game.apply(base, move))
    mover = after[move.destination]
    other = "blue" if mover == "red" else "red"
    # the camera leans towards the colour not to move: no legal outcome has it there
    t.see(after, {move.destination: ((other, 0.6), (mover, 0.4))})
    assert t.moves() == [str(move)]
    assert "illegal" not in t.events and "unreadable" not in t.events


def _see_in_doubt(t, base, played, doubted) -> None:
    """The board after ``played``, the camera torn between a piece and nothing on
    the destinations of the moves ``doubted``."""
    board = t.tokens(t.game.apply(base, played))
    half = ((board[played.destination], 0.5), (None, 0.5))
    t.see(board, {move.destination: half for move in doubted})


def test_outcomes_the_camera_cannot_tell_apart_are_asked_on_the_panel(store):
    t = Watched(store, Sensor.CAMERA)
    t.start()
    base = t.referee.positions[-1]
    first, second = _two_steps(t.game, base)
    _see_in_doubt(t, base, first, (first, second))
    assert t.referee.phase == Phase.AMBIGUOUS
    assert set(t.referee.published.candidates) == {str(first), str(second)}
    assert t.moves() == []
    t.referee.choose(str(second))
    assert t.moves() == [str(second)]


@pytest.mark.parametrize(
    "origin_doubt",
    [
        None,
        # the camera sees the piece land surely and its origin empty almost surely: the
        # unchanged position then costs 6.9 + 13.8, which the weighing once took for it
        # (FIT 1.5 x 13.8) and said nothing (Hakenschlagen, simulate seed 1)
        ((None, 0.999), ("red", 0.001)),
    ],
)
def test_a_board_no_legal_outcome_explains_is_refused_and_nothing_is_logged(store, origin_doubt):
    t = Watched(store, Sensor.CAMERA)
    t.start()
    board = t.tokens()
    origin = next(c for c, token in board.items() if token == "red")
    far = [c for c, token in board.items() if token is None][-1]
    t.see({**board, origin: None, far: "red"}, {origin: origin_doubt} if origin_doubt else None)
    assert t.moves() == []
    assert {"illegal", "unreadable"} & set(t.events)
    assert far in t.referee.published.errors


def test_a_piece_set_down_surely_where_no_move_reaches_is_not_taken_for_a_doubtful_step(store):
    # a figure set down surely (p 0.999995) on a point no move reaches while a step's
    # destination reads empty at p 0.979: the step costs 12.2 + 3.9, which the
    # weighing once took (FIT 1.25 x 13.8) and committed (Catch the Hare, simulate seed 1)
    t = Watched(store, Sensor.CAMERA)
    t.start()
    base = t.referee.positions[-1]
    move = _two_steps(t.game, base)[0]
    board = t.tokens()
    mover = board[move.origin]
    reached = {m.destination for m in t.game.legal_moves(base)}
    far = [c for c, token in board.items() if token is None and c not in reached][-1]
    doubt = {
        far: ((mover, 0.999995), (None, 5e-6)),
        move.destination: ((None, 0.979), (mover, 0.021)),
    }
    t.see({**board, move.origin: None, far: mover}, doubt)
    assert t.moves() == []
    assert {"illegal", "unreadable"} & set(t.events)


def test_with_hall_sensors_their_presence_decides_what_the_camera_doubts(store):
    t = Watched(store, Sensor.BOTH)
    t.start()
    base = t.referee.positions[-1]
    first, second = _two_steps(t.game, base)
    # the camera cannot tell the two destinations apart; the hall sensors feel one
    _see_in_doubt(t, base, second, (first, second))
    assert t.moves() == [str(second)]
    assert t.referee.phase == Phase.MOVE


def test_with_hall_sensors_a_camera_view_older_than_their_change_is_not_judged(store):
    t = Watched(store, Sensor.BOTH)
    t.start()
    base = t.referee.positions[-1]
    after = t.tokens(t.game.apply(base, t.game.legal_moves(base)[0]))
    t.see(after, hall=False)  # the camera saw the move...
    t.referee.sense({c: "piece" if v else None for c, v in after.items()}, t.now)
    t.now += SETTLE + 0.01
    t.referee.tick(t.now)
    assert t.moves() == []  # ...before the hall sensors felt it: wait for a new frame
    t.see(after)
    assert len(t.moves()) == 1


def test_with_hall_sensors_a_camera_in_doubt_everywhere_does_not_stop_the_table(store):
    t = Watched(store, Sensor.BOTH)
    t.start()
    move, after = t.step()
    # references gone wrong: every piece leans a little to the other colour, so no
    # reading fits; the hall sensors feel one legal move and the camera is sure of
    # nothing against it
    swap = {"red": "blue", "blue": "red"}
    doubt = {c: ((swap[k], 0.8), (k, 0.2)) for c, k in after.items() if k is not None}
    t.see(after, doubt)
    assert t.moves() == [str(move)]
    # a camera sure of another colour on a cell is not overruled: the players say
    move, after = t.step()
    mover = after[move.destination]
    doubt = {c: ((swap[k], 0.8), (k, 0.2)) for c, k in after.items() if k is not None}
    doubt[move.destination] = ((swap[mover], 1.0),)
    t.see(after, doubt)
    assert len(t.moves()) == 1
    assert t.referee.phase == Phase.AMBIGUOUS
    assert t.referee.published.candidates == (str(move),)
    assert t.referee.published.notice.key == "referee.camera_doubts"
    t.referee.choose(str(move))
    assert t.moves()[-1] == str(move)


@pytest.mark.slow
def test_a_camera_that_learned_the_board_wrong_asks_once_and_learns_it_again(store, scene):
    """Once the game is under way, the camera learns the board with every colour
    swapped: it surely sees the pieces otherwise than they are. The hall sensors feel
    the move; the players are asked, choose it, and the camera learns the board again
    and reads the next move by itself."""
    shown = {"tokens": None, "hands": ()}
    t, camera, frames = _watched_camera(store, scene, shown, sensor=Sensor.BOTH)
    shown["tokens"] = t.tokens()
    assert camera.learn(t.tokens())

    def play(move) -> None:
        after = t.tokens(t.game.apply(t.referee.positions[-1], move))
        t.referee.sense({c: "piece" if v else None for c, v in after.items()}, t.now)
        shown["tokens"] = after
        frames(6)

    t.referee.sense({c: "piece" if v else None for c, v in t.tokens().items()}, t.now)
    frames(6)
    assert t.referee.phase == Phase.MOVE
    swap = {"red": "blue", "blue": "red", None: None}
    camera.reader.learn(camera.frame, {c: swap[k] for c, k in t.tokens().items()}, fresh=True)
    move = t.step()[0]
    play(move)
    assert t.referee.phase == Phase.AMBIGUOUS, t.referee.published.notice
    assert t.referee.published.notice.key == "referee.camera_doubts"
    t.referee.choose(str(move))
    following = t.step()[0]
    play(following)
    assert t.moves() == [str(move), str(following)]


@pytest.fixture(scope="module")
def scene():
    game = load_game("sternhalma", 2)
    view = random_scene(game.board, 1, "easy", (640, 360))
    return view, Renderer(game, view, 1)


def test_the_table_camera_reads_a_move_and_learns_the_committed_position(store, scene):
    view, renderer = scene
    t = Watched(store, Sensor.CAMERA)
    shown = {"tokens": t.tokens(), "hands": ()}
    source = SyntheticSource(renderer, lambda: (shown["tokens"], shown["hands"], {}))
    camera = TableCamera(t.referee, source, BoardReader(t.game, view.lens))
    assert camera.learn(t.tokens())

    def frames(n: int) -> None:
        for _ in range(n):
            t.now += 0.1
            assert camera.step(t.now)
            t.referee.tick(t.now)

    frames(8)
    assert t.referee.phase == Phase.MOVE
    base = t.referee.positions[-1]
    move = t.game.legal_moves(base)[0]
    shown["hands"] = (move.destination,)
    shown["tokens"] = t.tokens(t.game.apply(base, move))
    frames(3)
    assert t.moves() == [], "a hand over the board is never read"
    shown["hands"] = ()
    frames(9)
    assert t.moves() == [str(move)]
    assert camera.reader.truth == t.tokens()
    png = camera.snapshot()
    assert png.startswith(b"\x89PNG")


def test_a_position_committed_while_a_frame_is_read_is_learned_once_the_read_is_done(store, scene):
    """The service reads frames in a worker thread: a move committed meanwhile (on the
    loop) does not wait for that read, and the reader learns the position right after."""
    shown = {"tokens": None, "hands": ()}
    t, camera, frames = _watched_camera(store, scene, shown)
    shown["tokens"] = t.tokens()
    assert camera.learn(t.tokens())
    frames(8)
    base = t.referee.positions[-1]
    move = t.game.legal_moves(base)[0]
    shown["tokens"] = t.tokens(t.game.apply(base, move))
    reading, done = threading.Event(), threading.Event()

    def a_read_under_way() -> None:
        with camera.lock:
            reading.set()
            done.wait(10)

    committed_during_a_read = False
    for _ in range(20):
        t.now += 0.1
        assert camera.step(t.now)
        assert not t.moves(), "the move is taken by the verdict after the frame"
        holder = threading.Thread(target=a_read_under_way)
        holder.start()
        reading.wait(10)
        t.referee.tick(t.now)  # the verdict, on the "loop": must not wait for the read
        committed_during_a_read = bool(t.moves())
        if committed_during_a_read:
            assert camera.reader.truth == t.tokens(base), "learned only once the read is done"
        done.set()
        holder.join()
        reading.clear()
        done.clear()
        if committed_during_a_read:
            break
    assert committed_during_a_read and t.moves() == [str(move)]
    t.now += 0.1
    assert camera.step(t.now)
    assert camera.reader.truth == t.tokens()


@pytest.mark.slow
def test_a_move_felt_before_the_camera_saw_it_set_down_teaches_the_camera_nothing_wrong(
    store, scene
):
    """The hall sensors feel a piece set down while the camera's next frames, taken a
    moment before, still show it in the hand: the move is taken, but those frames
    never teach the reader that the hole looks like the piece (which left every piece
    of that colour unreadable and the table stuck). Move after move is taken right."""
    shown = {"tokens": None, "hands": ()}
    t, camera, frames = _watched_camera(store, scene, shown, sensor=Sensor.BOTH)
    shown["tokens"] = t.tokens()
    assert camera.learn(t.tokens())

    def feel(tokens: dict) -> None:
        t.referee.sense({c: "piece" if v else None for c, v in tokens.items()}, t.now)

    feel(t.tokens())
    frames(6)
    pick = random.Random(21)
    for _ in range(4):
        base = t.referee.positions[-1]
        move = pick.choice([m for m in t.game.legal_moves(base) if not m.leap])
        in_hand = {**t.tokens(), move.origin: None}
        after = t.tokens(t.game.apply(base, move))
        feel(in_hand)
        shown["tokens"] = in_hand
        frames(5)
        feel(after)
        frames(4)  # frames taken before the piece was set down
        shown["tokens"] = after
        frames(6)
        assert t.referee.positions[-1] == t.game.apply(base, move), t.referee.published.notice


@pytest.mark.slow
def test_a_camera_knocked_during_a_move_asks_for_a_still_board_and_then_reads_the_move(
    store, scene
):
    view, _ = scene
    renderer = Renderer(load_game("sternhalma", 2), view, 1)
    t = Watched(store, Sensor.CAMERA)
    shown = {"tokens": t.tokens(), "hands": ()}
    source = SyntheticSource(renderer, lambda: (shown["tokens"], shown["hands"], {}))
    camera = TableCamera(t.referee, source, BoardReader(t.game, view.lens))
    assert camera.learn(t.tokens())
    notices = []

    def frames(n: int) -> None:
        for _ in range(n):
            t.now += 0.1
            assert camera.step(t.now)
            t.referee.tick(t.now)
            notice = t.referee.published.notice
            notices.append(None if notice is None else notice.key)

    frames(8)
    base = t.referee.positions[-1]
    move = t.game.legal_moves(base)[0]
    shown["hands"] = (move.destination,)
    shown["tokens"] = t.tokens(t.game.apply(base, move))
    frames(2)
    renderer.move_camera(bumped(view, 2.0, np.random.default_rng(4)))  # an elbow
    frames(2)
    shown["hands"] = ()
    frames(4)
    assert camera.reader.knocked and t.referee.waiting is not None
    assert notices[-1] == "camera.keep_still", "the panel asks for a still board"
    assert t.moves() == [], "nothing is judged while the camera waits for a still board"
    frames(12)
    assert t.moves() == [str(move)]
    assert t.referee.waiting is None and notices[-1] != "camera.keep_still"
    renderer.move_camera(view)  # knocked back
    frames(6)
    assert t.referee.waiting is not None
    assert not camera.hand_over(None, camera.read(None), t.now), "the camera gives no frame"
    assert t.referee.waiting is None, "a camera that gives no frames holds nothing up"


def test_a_camera_that_stops_giving_frames_says_why_and_the_game_stays(store, tmp_path, scene):
    import cv2

    view, renderer = scene
    t = Watched(store, Sensor.CAMERA)
    t.start()
    cv2.imwrite(str(tmp_path / "0.png"), renderer.frame(t.tokens()))
    camera = TableCamera(t.referee, FolderSource(tmp_path), BoardReader(t.game, view.lens))
    assert camera.learn(t.tokens())
    before = (list(t.referee.log), t.referee.phase)
    assert not camera.step(t.now)
    assert "no more images" in camera.failure
    assert (list(t.referee.log), t.referee.phase) == before
    assert camera.snapshot().startswith(b"\x89PNG")  # the last frame it had
    camera.close()
    assert camera._on_event not in t.referee.listeners


def _serve(tmp_path, config: str, *args: str):
    """`boardref serve --sim` with ``config``; the process and a client once it answers."""
    import httpx

    from tests.harness import free_port

    port = free_port()
    path = tmp_path / "config.toml"
    path.write_text(f'[store]\npath = "{tmp_path}/log.db"\n{config}')
    args = ["--sim", "--config", str(path), "--port", str(port), *args]
    service = subprocess.Popen(
        [sys.executable, "-m", "boardref", "serve", *args],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    client = httpx.Client(base_url=url, headers={"origin": url}, timeout=10)
    deadline = time.monotonic() + 30
    while True:
        try:
            client.get("/api/health").raise_for_status()
            return service, client
        except httpx.HTTPError:
            if time.monotonic() > deadline or service.poll() is not None:
                service.kill()
                raise AssertionError(service.communicate()[1]) from None
            time.sleep(0.2)


def _play_a_step(client) -> None:
    """Carry the first step of a red piece on the virtual board; wait for the log."""
    # generous: a busy machine renders and reads the simulated camera's frames slowly
    deadline = time.monotonic() + 60
    while client.get("/api/state").json()["phase"] != Phase.MOVE:  # the start is being read
        assert time.monotonic() < deadline, "the start position was never seen"
        time.sleep(0.2)
    board = client.get("/api/state").json()["position"]
    events = client.get("/api/health").json()["events"]
    game = load_game("sternhalma", 2)
    state = game.initial_state()
    move = next(m for m in game.legal_moves(state) if not m.leap)
    assert board[move.origin] == "red"
    client.post("/api/sim/lift", json={"cell": move.origin}).raise_for_status()
    client.post("/api/sim/place", json={"cell": move.destination}).raise_for_status()
    deadline = time.monotonic() + 60
    while client.get("/api/health").json()["events"] == events:
        assert time.monotonic() < deadline, "the move was never logged"
        time.sleep(0.2)


@pytest.mark.process
def test_serve_with_the_rendered_camera_referees_and_shows_the_snapshot(tmp_path):
    from boardref.outputs.panel.access import hash_pin

    # frames a quarter of the default size: the board is found and read all the same
    config = f'[panel]\nreferee_pin_hash = "{hash_pin("2468")}"\n[camera]\nsize = [640, 360]\n'
    service, client = _serve(tmp_path, config, "--camera", "synthetic")
    try:
        assert client.get("/api/camera.png").status_code == 403, "referee only"
        client.post("/api/referee/login", json={"pin": "2468"}).raise_for_status()
        assert client.get("/api/diagnostics").json()["sensor"] == Sensor.BOTH
        _play_a_step(client)
        picture = client.get("/api/camera.png")
        assert picture.headers["content-type"] == "image/png"
        assert picture.content.startswith(b"\x89PNG")
        shown = client.get("/api/diagnostics").json()
        assert shown["camera"] in ("still", "moving", "located")
        assert shown["board_found"]["way"] == "markers", "the referee page says how"
    finally:
        service.send_signal(signal.SIGTERM)
        service.communicate(timeout=30)


@pytest.mark.process
def test_an_unplugged_camera_leaves_the_table_on_its_hall_sensors(tmp_path, scene):
    import cv2

    view, renderer = scene
    folder = tmp_path / "frames"
    folder.mkdir()
    start = load_game("sternhalma", 2).initial_state()
    cv2.imwrite(str(folder / "0.png"), renderer.frame(load_game("sternhalma", 2).observe(start)))
    # one frame, then none: the camera is gone a moment after the service started
    service, client = _serve(tmp_path, f'[camera]\nsource = "{folder}"\nsize = [640, 360]\n')
    try:
        _play_a_step(client)
        assert client.get("/api/state").json()["phase"] == Phase.MOVE
    finally:
        service.send_signal(signal.SIGTERM)
        _, errors = service.communicate(timeout=30)
    assert "no more images; refereeing from the hall sensors alone" in errors


class Unmarked(SyntheticSource):
    """The rendered camera on a board whose markers are covered (lost, or never
    printed): only the corner cells clicked by hand can locate it."""

    def __init__(self, renderer, shows):
        super().__init__(renderer, shows)
        from vision import looks

        scene = renderer.scene
        self.patches = []
        for marker in looks.markers(renderer.game.board):
            h = marker.size * 0.75
            x, y = marker.xy
            corners = [[x - h, y - h, 0], [x + h, y - h, 0], [x + h, y + h, 0], [x - h, y + h, 0]]
            px = scene.lens.project(np.array(corners, float), scene.rvec, scene.tvec)
            self.patches.append(np.round(px).astype(np.int32))

    def read(self):
        import cv2

        frame = super().read()
        cv2.fillPoly(frame, self.patches, (90, 110, 130))
        return frame


def _watched_camera(
    store, scene, shown, source=SyntheticSource, corners_file=None, sensor=Sensor.CAMERA
):
    view, renderer = scene
    t = Watched(store, sensor)
    shows = lambda: (shown["tokens"], shown["hands"], {})  # noqa: E731
    reader = BoardReader(t.game, view.lens)
    camera = TableCamera(t.referee, source(renderer, shows), reader, corners_file)

    def frames(n: int) -> None:
        for _ in range(n):
            t.now += 0.1
            assert camera.step(t.now)
            t.referee.tick(t.now)

    return t, camera, frames


def _play_first_step(t, shown, frames) -> None:
    base = t.referee.positions[-1]
    move = next(m for m in t.game.legal_moves(base) if not m.leap)
    shown["tokens"] = t.tokens(t.game.apply(base, move))
    frames(6)
    assert t.moves() == [str(move)]


@pytest.mark.slow
def test_the_start_is_learned_only_once_the_view_is_still_and_clear(store, scene):
    shown = {"tokens": None, "hands": ()}
    t, camera, frames = _watched_camera(store, scene, shown)
    shown["tokens"] = t.tokens()
    for cell in ("a13", "e9", "i5", "m9"):  # hands still laying out the pieces
        shown["hands"] = (cell,)
        frames(1)
    assert camera.reader.truth is None, "nothing is learned while hands are over the board"
    shown["hands"] = ()
    frames(60)  # the first view had a hand in it: clear once it has been gone a while
    assert camera.reader.truth == t.tokens()
    assert t.referee.phase == Phase.MOVE
    _play_first_step(t, shown, frames)


@pytest.mark.slow
def test_learn_now_mends_a_start_learned_before_the_pieces_were_laid_out(store, scene):
    shown = {"tokens": {}, "hands": ()}  # the camera sees a bare board...
    t, camera, frames = _watched_camera(store, scene, shown)
    frames(5)  # ...and takes it for the start position the panel asks for
    assert camera.reader.truth == t.tokens()
    shown["tokens"] = t.tokens()  # the players lay the pieces out
    frames(5)
    camera.learn_now()  # the referee presses "learn the board now"
    frames(5)
    assert t.referee.phase == Phase.MOVE
    _play_first_step(t, shown, frames)


def test_the_camera_says_what_it_learned_from_the_start_position(store, scene, caplog):
    """Learning the start is said in words: the empty cells and the pieces' colours."""
    shown = {"tokens": None, "hands": ()}
    t, camera, frames = _watched_camera(store, scene, shown)
    shown["tokens"] = t.tokens()
    with caplog.at_level("INFO", logger="boardref"):
        frames(5)
    assert camera.reader.truth == t.tokens()
    said = f"{sum(v is None for v in t.tokens().values())} empty cells and the pieces (blue, red)"
    assert any(said in record.getMessage() for record in caplog.records), caplog.text
    lesson = camera.learn_now()
    assert lesson is not None and said in str(lesson)
    assert lesson.to_json()["key"] == "camera.learned"


def test_corner_cells_clicked_by_hand_locate_a_board_without_markers(store, scene, tmp_path):
    from boardref.referee.verdicts import RefereeError
    from vision import looks

    view, _ = scene
    shown = {"tokens": None, "hands": ()}
    saved = tmp_path / "corners.json"
    t, camera, frames = _watched_camera(store, scene, shown, Unmarked, saved)
    shown["tokens"] = t.tokens()
    frames(5)
    assert camera.reader.status == "unlocated" and camera.reader.truth is None
    # the referee page's diagnostics say why, in words
    assert camera_status(camera).startswith("unlocated: 0 of the board's 4 markers seen")
    assert board_found(camera) is None
    assert camera.corner_cells() == ["a13", "y13", "y5", "a5"]
    cells = np.array([[*c.xy, 0.0] for c in looks.corner_cells(t.game.board)])
    clicks = view.lens.project(cells, view.rvec, view.tvec) + [[1.0, -1.0]]
    with pytest.raises(RefereeError, match="a13, y13, y5, a5, in that order"):
        camera.set_corners(clicks[::-1])
    camera.set_corners(clicks)
    assert camera.reader.truth == t.tokens()
    found = board_found(camera)
    assert found["way"] == "clicked" and found["markers"] == 0 and found["matched"] is None
    frames(5)
    assert t.referee.phase == Phase.MOVE
    _play_first_step(t, shown, frames)

    # after a restart the saved clicks locate the board at once
    shown["tokens"] = t.tokens(t.referee.positions[-1])
    again = TableCamera(
        t.referee, Unmarked(scene[1], camera.source.shows), BoardReader(t.game, view.lens), saved
    )
    assert again.reader.status == "located"
    saved.write_text("[1, 2")  # a damaged file is said and passed over
    assert (
        TableCamera(t.referee, camera.source, BoardReader(t.game, view.lens), saved).reader.pose
        is None
    )


@pytest.mark.slow
@pytest.mark.parametrize("game", ["sternhalma", "catch_the_hare"])
def test_players_who_wait_when_asked_lose_no_move_to_a_camera_knocked_during_it(game, monkeypatch):
    from boardref.sim import rig, simulate
    from vision import mishaps

    monkeypatch.setattr(rig, "BUMP_AFTER", 20)  # knocked during the second move
    committed: list[str] = []
    knocked: list[int] = []  # the moves committed when the camera was knocked
    bump = mishaps.bumped
    monkeypatch.setattr(
        mishaps, "bumped", lambda *args: knocked.append(len(committed)) or bump(*args)
    )
    result = simulate.simulate(
        game,
        None,
        1,
        0.0,
        4,
        on_commit=committed.append,
        sensor="camera",
        mishap="bump during a move",
    )
    assert knocked == [1], "knocked once, during the second move: two more follow it"
    assert result["wrong_commits"] == 0
    assert result["committed"] == result["moves_played"] == 4, "the move knocked is read"
