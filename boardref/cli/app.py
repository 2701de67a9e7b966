"""The `boardref` command line. Each command parses its options and hands over to the
module that does the work; no game logic lives here."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

import typer

from boardref.cli import arguments
from boardref.cli.league import players_app, seasons_app, standings
from boardref.cli.logs import (
    CONFIG_HELP,
    STORE_HELP,
    history_of,
    log_named,
    log_of,
    refused,
    sole_writer,
    usage,
)
from engines import GAMES, RulesError

#: where `boardref fleet` finds the dashboard's broker password, out of sight of `ps`
PASSWORD_VARIABLE = "BOARDREF_BROKER_PASSWORD"

app = typer.Typer(help="boardref: a referee for physical board games.", no_args_is_help=True)


@app.callback()
def main() -> None:
    """boardref: a referee for physical board games."""


@app.command()
def play(
    game: str = typer.Option("sternhalma", help=f"one of: {', '.join(GAMES)}"),
    players: int | None = typer.Option(None, help="number of players (the game's default)"),
    seed: int | None = typer.Option(None, help="seed of the random players (random if omitted)"),
    max_plies: int = typer.Option(300, min=1, help="declare a draw after this many moves"),
    delay: float = typer.Option(0.2, min=0, help="seconds to pause after each move"),
    wrong_tries: float = typer.Option(0.2, min=0, max=1, help="how often a player errs first"),
) -> None:
    """Play a refereed random game in the terminal, showing the board each turn."""
    from boardref.sim.terminal import play as play_game

    seed = secrets.randbelow(10**6) if seed is None else seed
    try:
        summary = play_game(game, players, seed, max_plies, delay, wrong_tries)
    except RulesError as exc:
        raise usage(exc) from None
    typer.echo(json.dumps(summary))


def sim_store_path() -> Path:
    """Where ``--sim`` keeps its event log when neither ``--store`` nor the config
    names one."""
    state = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(state) / "boardref" / "sim.db"


@app.command()
def serve(
    config: Path | None = typer.Option(
        None, help="config file (default /etc/boardref/config.toml)"
    ),
    sim: bool = typer.Option(False, help="simulated MCU, mock GPIO: no hardware needed"),
    game: str | None = typer.Option(None, help="the game to referee (overrides the config)"),
    host: str | None = typer.Option(None, help="panel address (overrides the config)"),
    port: int | None = typer.Option(None, help="panel port (overrides the config)"),
    mqtt: str | None = typer.Option(None, help="report to this broker: mqtt://host:1883"),
    table_id: str | None = typer.Option(None, help="this table's name on the broker"),
    camera: str | None = typer.Option(
        None,
        help="camera over the board: 0 or /dev/video0, picamera, a video file, an image "
        "folder, or synthetic (rendered, with --sim); overrides the config",
    ),
    store: Path | None = typer.Option(
        None, help="the event log (overrides the config's and --sim's own)"
    ),
) -> None:
    """Run the referee service: sensors in, verdicts out, until SIGTERM."""
    from boardref.runtime.memory import settle_allocator

    settle_allocator()  # before any thread starts or numpy is imported

    from boardref.eventlog.log_lock import OWN_LOG
    from boardref.runtime.config import DEFAULT_PATH, ConfigError, load_config

    overrides = {
        key: value
        for key, value in (
            ("game.name", game),
            ("panel.host", host),
            ("panel.port", port),
            ("fleet.url", mqtt),
            ("fleet.table_id", table_id),
            ("camera.source", camera),
            ("store.path", store),
        )
        if value is not None
    }
    if config is None and DEFAULT_PATH.exists():
        config = DEFAULT_PATH
    if sim and config is None and store is None:
        overrides["store.path"] = sim_store_path()
    log_named(store)
    try:
        settings = load_config(config, **overrides)
    except ConfigError as exc:
        raise usage(exc) from None
    # the log is claimed before the service and its panel are even imported, so a
    # second service on it is refused at once and the first one's game left alone
    panel = (settings.panel.host, settings.panel.port)
    from boardref.eventlog.store import LogFault

    try:
        claim = sole_writer(settings.store.path, "serve", OWN_LOG, panel, faults=True)
    except LogFault as fault:  # the table's panel and LED say why it cannot start
        _run_service(settings, sim, fault.said)
        return
    with claim:
        _run_service(settings, sim)


def _run_service(settings, sim: bool, fault=None) -> None:
    import asyncio
    import logging

    from boardref.eventlog.store import StoreError
    from boardref.outputs.panel.server import ServiceError
    from boardref.runtime.serving import serve as run_service

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(run_service(settings, sim, fault))
    except (StoreError, ServiceError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None


@app.command()
def fleet(
    mqtt: str = typer.Option(..., help="the café's broker: mqtt://host:1883"),
    host: str = typer.Option("127.0.0.1", help="address the dashboard listens on"),
    port: int = typer.Option(8080, min=1, max=65535, help="dashboard port"),
    ca_file: str | None = typer.Option(None, help="CA certificate for an mqtts broker"),
    records: Path | None = typer.Option(
        None, help="folder keeping the ended games' records across restarts"
    ),
    user: str | None = typer.Option(None, help="the dashboard's login on the broker"),
    password: str | None = typer.Option(
        None,
        envvar=PASSWORD_VARIABLE,
        show_envvar=True,
        help="its password: better in the environment or a file, since every user of the "
        "machine sees a command line",
    ),
    password_file: Path | None = typer.Option(
        None, exists=True, dir_okay=False, help="a file holding its password (one line)"
    ),
    certfile: Path | None = typer.Option(
        None, exists=True, dir_okay=False, help="the dashboard's own certificate (PEM)"
    ),
    keyfile: Path | None = typer.Option(
        None, exists=True, dir_okay=False, help="the key of that certificate (PEM)"
    ),
) -> None:
    """Serve the café dashboard: every table on the broker, live, and the day's games."""
    import asyncio
    import logging

    from boardref.cafe.dashboard import run_dashboard
    from boardref.outputs.fleet import LOGIN, Broker

    options = {key: f"--{key.replace('_', '-')}" for key in LOGIN} | {"url": "--mqtt"}
    login = (user, password, password_file, certfile, keyfile)
    try:
        broker = Broker.logged_in(mqtt, *login, names=options)
        arguments.listen_address(host)
        if records is not None:
            arguments.folder(records, "--records")
        if ca_file is not None:
            arguments.certificate(Path(ca_file))
    except ValueError as exc:
        raise usage(exc) from None
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    asyncio.run(run_dashboard(broker, host, port, ca_file, records))


@app.command("pin-hash")
def pin_hash(
    pin: str = typer.Option(
        ...,
        prompt="Referee PIN",
        hide_input=True,
        confirmation_prompt=True,
        help="the PIN (asked when not given)",
    ),
) -> None:
    """Print the hash of a referee PIN: the value of referee_pin_hash in the config."""
    from boardref.outputs.panel.access import PIN_DIGITS, hash_pin

    if not PIN_DIGITS <= len(pin) <= 32:
        typer.echo(f"error: a PIN has {PIN_DIGITS} to 32 characters", err=True)
        raise typer.Exit(2)
    typer.echo(hash_pin(pin))


@app.command()
def simulate(
    game: str = typer.Option("sternhalma", help=f"one of: {', '.join(GAMES)}"),
    players: int | None = typer.Option(None, help="number of players (the game's default)"),
    seed: int = typer.Option(1, help="seed of the hands' choices and the sensor noise"),
    noise: float = typer.Option(0.0, min=0, max=0.5, help="chance a sensor misreads per scan"),
    moves: int = typer.Option(100, min=1, help="moves to play, over as many games as it takes"),
    sensor: str = typer.Option(
        "hall", help="hall, camera (rendered frames) or both (hall presence, camera tokens)"
    ),
    store: Path | None = typer.Option(
        None, help="event log to use and resume (default: a temporary one)"
    ),
    echo_moves: bool = typer.Option(False, help="print each move the moment it is logged"),
    computer: str = typer.Option("", help="seats the computer plays, e.g. 1 or 0,2"),
    mishap: str | None = typer.Option(
        None, help="what goes wrong at the camera's table, e.g. 'camera bumped 2 degrees'"
    ),
) -> None:
    """Play random legal games through simulated hands, the simulated MCU and the referee."""
    import contextlib

    from boardref.eventlog.log_lock import OWN_LOG
    from boardref.eventlog.store import StoreError
    from boardref.sim.simulate import simulate as run
    from engines import load_game

    if sensor not in ("hall", "camera", "both"):
        typer.echo(f"error: sensor {sensor!r}: choose hall, camera or both", err=True)
        raise typer.Exit(2)
    on_commit = (lambda move: print(f"committed {move}", flush=True)) if echo_moves else None
    log_named(store)
    claimed = contextlib.nullcontext() if store is None else sole_writer(store, "simulate", OWN_LOG)
    try:
        seats = arguments.seats(computer, load_game(game, players).players)
        with claimed:
            result = run(game, players, seed, noise, moves, store, on_commit, seats, sensor, mishap)
    except (RulesError, ValueError, StoreError) as exc:
        raise usage(exc) from None
    typer.echo(json.dumps(result))


@app.command()
def arena(
    game: str = typer.Option("catch_the_hare", help=f"one of: {', '.join(GAMES)}"),
    players: str = typer.Option(
        "search,random", help="one computer player per seat: random, search, easy, medium, hard"
    ),
    games: int = typer.Option(20, min=1, help="games to play; seats rotate between games"),
    seed: int = typer.Option(1, help="seed of the players and the chance draws"),
    playouts: int | None = typer.Option(
        None, min=1, help="search iterations a move instead of the levels' clock (reproducible)"
    ),
    max_plies: int = typer.Option(1000, min=1, help="draw limit where the game has max_plies"),
) -> None:
    """Play computer players against each other; JSON with win rates and 95% intervals."""
    from engines.players.arena import Match, play_match

    try:
        match = Match(game, tuple(players.split(",")), games, seed, {}, playouts, max_plies)
        result = play_match(match)
    except RulesError as exc:
        raise usage(exc) from None
    typer.echo(json.dumps(result))


vision_app = typer.Typer(help="The camera: calibration, markers, accuracy.", no_args_is_help=True)
app.add_typer(vision_app, name="vision")


@vision_app.command("eval")
def vision_eval(
    game: str = typer.Option("sternhalma", help=f"one of: {', '.join(GAMES)}"),
    frames: int = typer.Option(100, min=1, help="positions to read"),
    seed: int = typer.Option(1, help="seed of the scenes and positions"),
    difficulty: str = typer.Option("easy", help="easy or hard"),
) -> None:
    """Read rendered frames of random positions; JSON with the error rates and timings."""
    from vision.boards.evaluate import evaluate
    from vision.coasters.evaluate import evaluate_coasters
    from vision.render import DIFFICULTY

    if difficulty not in DIFFICULTY:
        typer.echo(f"error: difficulty {difficulty!r}; use easy or hard", err=True)
        raise typer.Exit(2)
    try:
        if game == "haegar":  # coasters on a table mat, read spot by spot
            result = evaluate_coasters(frames, seed, difficulty)
        else:
            result = evaluate(game, frames, seed, difficulty)
    except (RulesError, KeyError) as exc:
        raise usage(exc) from None
    typer.echo(json.dumps(result))


@vision_app.command("calibrate-camera")
def vision_calibrate(
    images: list[Path] = typer.Argument(..., help="photos of a printed chessboard"),
    pattern: str = typer.Option("9x6", help="inner corners, across x down"),
    out: Path | None = typer.Option(None, help="where to save (default: the service's file)"),
) -> None:
    """Calibrate the lens from chessboard photos; JSON with rms_px, camera_matrix,
    dist_coeffs, saved where the service loads it."""
    from vision.lens import CalibrationError, calibrate, default_path, parse_pattern

    try:
        camera = calibrate(images, parse_pattern(pattern))
    except CalibrationError as exc:
        raise usage(exc) from None
    path = out or default_path()
    camera.save(path)
    typer.echo(json.dumps({**camera.to_json(), "saved": str(path)}))


@vision_app.command("markers")
def vision_markers(
    game: str = typer.Option("sternhalma", help=f"one of: {', '.join(GAMES)}"),
    out: Path | None = typer.Option(None, help="PNG to write (300 dpi: print at 100%)"),
) -> None:
    """Where the board's ArUco markers go (JSON: id, side, centre in mm, and from
    the nearest corner cell); with --out, also the sheet to print them at true size."""
    from engines import load_game
    from vision.coasters.mat import mat_board
    from vision.drawings import marker_sheet
    from vision.looks import marker_places

    try:
        loaded = load_game(game)
        # Hägar has no board: its markers go round the table mat the coasters lie on
        board = mat_board(loaded) if game == "haegar" else loaded.board
        found = {"game": game, "markers": marker_places(board)}
        if out is not None:
            arguments.new_file(out, "--out")
    except ValueError as exc:  # a rules error, a game with no board to mark, a bad --out
        raise usage(exc) from None
    if out is not None:
        out.write_bytes(marker_sheet(board))
        found["out"] = str(out)
    typer.echo(json.dumps(found))


board_app = typer.Typer(
    help="Bring up a new board: check its sensors and LEDs, map its wiring.",
    no_args_is_help=True,
)
app.add_typer(board_app, name="board")

_CONFIG_OPTION = typer.Option(None, help="config file (default /etc/boardref/config.toml)")
_DEVICE_OPTION = typer.Option(None, help="the board's serial device (default: the config's)")
_GAME_OPTION = typer.Option(None, help="the game whose board is built (default: the config's)")


def _bringup_setup(config: Path | None, device: str | None, game: str | None):
    """The config, the board of the game, its wiring and the device path, or an error."""
    from boardref.referee.kinds import Sensor
    from boardref.runtime.config import DEFAULT_PATH, ConfigError, load_config
    from engines import load_game

    overrides = {"game.name": game} if game else {}
    if config is None and DEFAULT_PATH.exists():
        config = DEFAULT_PATH
    try:
        settings = load_config(config, **overrides)
        loaded = load_game(settings.game.name, settings.game.players)
        if Sensor.PRESENCE not in loaded.SENSORS:
            raise arguments.BadValue(f"{loaded.name} is played on the panel: it has no board")
        board = loaded.board
        wiring = settings.board_wiring(board)
    except (ConfigError, RulesError, arguments.BadValue) as exc:
        raise usage(exc) from None
    hall = settings.sensors.hall
    path = device or (hall.device if hall else "/dev/boardref-pico")
    wiring_dir = hall.wiring_dir if hall else None
    return settings, board, wiring, path, wiring_dir


def _link(device: str):
    from boardref.cli.bringup import open_link
    from firmware_bridge.host import LinkError

    try:
        return open_link(device)
    except LinkError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None


@board_app.command("check")
def board_check(
    config: Path | None = _CONFIG_OPTION,
    device: str | None = _DEVICE_OPTION,
    game: str | None = _GAME_OPTION,
    seconds: float = typer.Option(120.0, min=0, help="how long to watch the board"),
    every: float = typer.Option(2.0, min=0.1, help="seconds between two grids"),
    as_json: bool = typer.Option(False, "--json", help="print only the final report, as JSON"),
) -> None:
    """Watch the raw scan while you sweep a piece over every cell of an empty board:
    a grid of the cells with their change counts, stuck and never-seen sensors,
    sensors that answer for a neighbour, and the link's counters."""
    from boardref.cli.bringup import run_check

    _, board, wiring, path, _ = _bringup_setup(config, device, game)
    link = _link(path)
    try:
        report = run_check(link, wiring, board, seconds, every, typer.echo, as_json)
    finally:
        link.close()
    if report["findings"]:
        raise typer.Exit(1)


@board_app.command("leds")
def board_leds(
    config: Path | None = _CONFIG_OPTION,
    device: str | None = _DEVICE_OPTION,
    game: str | None = _GAME_OPTION,
    mode: str = typer.Option("walk", help="walk (every cell in turn), cell, all or colours"),
    cell: str | None = typer.Option(None, help="the cell to light (mode cell)"),
    colour: str = typer.Option("white", help="red, green, blue or white"),
    delay: float = typer.Option(0.5, min=0, help="seconds each frame stays lit"),
) -> None:
    """The LED test, through the board's wiring; says how the strip runs."""
    from boardref.cli.bringup import run_leds

    _, board, wiring, path, _ = _bringup_setup(config, device, game)
    link = _link(path)
    try:
        run_leds(link, wiring, [c.id for c in board.cells], mode, cell, colour, delay, typer.echo)
    except ValueError as exc:
        raise usage(exc) from None
    finally:
        link.close()


@board_app.command("map")
def board_map(
    config: Path | None = _CONFIG_OPTION,
    device: str | None = _DEVICE_OPTION,
    game: str | None = _GAME_OPTION,
    out_dir: Path | None = typer.Option(None, help="where to write the wiring file"),
    patience: float = typer.Option(30.0, min=1, help="seconds to wait at each cell"),
) -> None:
    """The wiring wizard: put a piece on each cell it names, then on each lit cell;
    writes the board's wiring file, which the service loads."""
    from boardref.cli.bringup import run_map
    from hardware.wiring import DEFAULT_DIR

    _, board, _, path, wiring_dir = _bringup_setup(config, device, game)
    link = _link(path)
    try:
        result = run_map(link, board, out_dir or wiring_dir or DEFAULT_DIR, typer.echo, patience)
    finally:
        link.close()
    if result.findings:
        raise typer.Exit(1)


firmware_app = typer.Typer(help="The board's firmware on its Raspberry Pi Pico.")
app.add_typer(firmware_app, name="firmware")


@firmware_app.command("flash")
def firmware_flash(
    device: str = typer.Option("/dev/boardref-pico", help="the Pico's serial device"),
    mpremote: str = typer.Option("mpremote", help="the mpremote program"),
    check_only: bool = typer.Option(False, help="only compare the board's version"),
    timeout: float = typer.Option(10.0, min=1, help="seconds to wait for the board's HELLO"),
) -> None:
    """Copy the firmware to a Pico with mpremote (maintenance jumper fitted), then
    check the version the board announces against this boardref's."""
    from boardref.cli.bringup import run_flash

    problem = run_flash(device, None if check_only else mpremote, typer.echo, timeout)
    if problem is not None:
        typer.echo(f"error: {problem}", err=True)
        raise typer.Exit(1)
    typer.echo("the board runs the firmware this boardref ships")


@board_app.command("calibrate")
def board_calibrate(
    config: Path | None = _CONFIG_OPTION,
    device: str | None = _DEVICE_OPTION,
    game: str | None = _GAME_OPTION,
    kinds: str = typer.Option("north,south", help="the piece kinds to sweep: north, south"),
    seconds: float = typer.Option(300.0, min=1, help="time for each sweep"),
    out_dir: Path | None = typer.Option(None, help="where the wiring file lives"),
) -> None:
    """Magnet boards: learn each sensor's baseline from the empty board and its
    thresholds from a sweep of each piece kind; stored with the board's wiring."""
    from boardref.cli.bringup import run_calibrate
    from hardware.calibration import NORTH_UP, SOUTH_UP
    from hardware.wiring import DEFAULT_DIR

    wanted = [kind.strip() for kind in kinds.split(",") if kind.strip()]
    if not wanted or set(wanted) - {NORTH_UP, SOUTH_UP}:
        typer.echo("error: --kinds takes north, south or both", err=True)
        raise typer.Exit(2)
    _, board, wiring, path, wiring_dir = _bringup_setup(config, device, game)
    link = _link(path)
    try:
        calibration = run_calibrate(
            link, wiring, out_dir or wiring_dir or DEFAULT_DIR, wanted, seconds, typer.echo
        )
    except ValueError as exc:
        raise usage(exc) from None
    finally:
        link.close()
    if calibration.findings:
        raise typer.Exit(1)


games_app = typer.Typer(
    help="Played games: list, export, verify and import records.", no_args_is_help=True
)
app.add_typer(games_app, name="games")
app.add_typer(players_app, name="players")
app.add_typer(seasons_app, name="seasons")
app.command("standings")(standings)


@games_app.command("list")
def games_list(
    game: str | None = typer.Option(None, help=f"only this game: {', '.join(GAMES)}"),
    day: str | None = typer.Option(None, help="only games begun that day, YYYY-MM-DD"),
    table: str | None = typer.Option(None, help="only games played at this table"),
    as_json: bool = typer.Option(False, "--json", help="one JSON list instead of lines"),
    config: Path | None = typer.Option(None, help=CONFIG_HELP),
    store: Path | None = typer.Option(None, help=STORE_HELP),
) -> None:
    """The games that ended (finished or abandoned), newest first."""
    import dataclasses
    import time

    from boardref.eventlog.history import HistoryError
    from boardref.outputs.panel.words import said

    try:
        found = history_of(*log_of(config, store)).games(game, day, table)
    except HistoryError as exc:
        raise refused(exc) from None
    if as_json:
        typer.echo(json.dumps([dataclasses.asdict(summary) for summary in found]))
        return
    for s in found:
        began = time.strftime("%Y-%m-%d %H:%M", time.localtime(s.started))
        result = (
            "abandoned"
            if s.abandoned
            else "won by " + (", ".join(said("en", w) for w in s.winners_said) or "nobody (draw)")
        )
        typer.echo(f"{s.id:>5}  {began}  {s.table:<10} {s.game:<20} {s.plies:>4} plies  {result}")


@games_app.command("export")
def games_export(
    game_id: int = typer.Argument(..., help="the game's number (from `boardref games list`)"),
    as_json: bool = typer.Option(False, "--json", help="the JSON form instead of the text"),
    out: Path | None = typer.Option(None, help="write to this file instead of the terminal"),
    config: Path | None = typer.Option(None, help=CONFIG_HELP),
    store: Path | None = typer.Option(None, help=STORE_HELP),
) -> None:
    """The record of an ended game (docs/records.md)."""
    from boardref.eventlog.history import HistoryError
    from engines.records import to_json, write

    try:
        record = history_of(*log_of(config, store)).record(game_id)
    except HistoryError as exc:
        raise refused(exc) from None
    text = json.dumps(to_json(record), indent=1) + "\n" if as_json else write(record)
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")


@games_app.command("verify")
def games_verify(
    record_file: Path = typer.Argument(..., help="a record, as text or JSON"),
) -> None:
    """Replay a record through the rules and recompute its draws from the revealed seed;
    exits 1 and says where when it does not verify."""
    from engines.replay import verify

    record = _read_record(record_file)
    try:
        found = verify(record)
    except RulesError as exc:
        typer.echo(f"{record_file} does not verify: {exc}")
        raise typer.Exit(1) from None
    chance = (
        f"{found.draws} draws recomputed from the revealed seed, which matches the commitment"
        if found.seed_checked
        else "no draws"
    )
    result = "not over" if found.result is None else found.result.reason
    typer.echo(
        f"{record_file} verifies: {found.game}, {found.plies} plies legal, {chance}; {result}"
    )


@games_app.command("import")
def games_import(
    record_files: list[Path] = typer.Argument(..., help="records, as text or JSON"),
    config: Path | None = typer.Option(None, help=CONFIG_HELP),
    store: Path | None = typer.Option(None, help=STORE_HELP),
) -> None:
    """Add records of games played elsewhere to the history; each must verify."""
    from boardref.eventlog.history import HistoryError

    log_named(store)
    path, table = log_of(config, store)
    failed = False
    with sole_writer(path, "games import", ", then import again"):
        history = history_of(path, table, reading=False)
        try:
            for record_file in record_files:
                try:
                    number = history.import_record(_read_record(record_file))
                except (RulesError, HistoryError) as exc:
                    typer.echo(f"{record_file} not imported: {exc}", err=True)
                    failed = True
                    continue
                typer.echo(f"{record_file} imported as game {number}")
        finally:
            history.store.close()
    if failed:
        raise typer.Exit(1)


def _read_record(path: Path):
    """A record file, text or JSON, or the reason it cannot be read."""
    from engines.records import from_json, read

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        typer.echo(f"error: cannot read {path}: {exc}", err=True)
        raise typer.Exit(2) from None
    try:
        return from_json(json.loads(text)) if text.lstrip().startswith("{") else read(text)
    except (RulesError, ValueError) as exc:
        typer.echo(f"{path} is not a game record: {exc}", err=True)
        raise typer.Exit(2) from None
