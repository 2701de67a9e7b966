"""The `boardref` command line. Each command parses its options and hands over to the
module that does the work; no game logic lives here."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import typer

from engines import GAMES, RulesError

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
    from boardref.terminal import play as play_game

    seed = secrets.randbelow(10**6) if seed is None else seed
    try:
        summary = play_game(game, players, seed, max_plies, delay, wrong_tries)
    except RulesError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(summary))


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
) -> None:
    """Run the referee service: sensors in, verdicts out, until SIGTERM."""
    import asyncio
    import logging

    from boardref.config import DEFAULT_PATH, ConfigError, load_config
    from boardref.service import serve as run_service
    from boardref.service import sim_store_path
    from boardref.store import StoreError

    overrides = {
        key: value
        for key, value in (
            ("game.name", game),
            ("panel.host", host),
            ("panel.port", port),
            ("fleet.url", mqtt),
            ("fleet.table_id", table_id),
            ("camera.source", camera),
        )
        if value is not None
    }
    if config is None and DEFAULT_PATH.exists():
        config = DEFAULT_PATH
    if sim and config is None:
        overrides["store.path"] = sim_store_path()
    try:
        settings = load_config(config, **overrides)
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(run_service(settings, sim))
    except StoreError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None


@app.command()
def fleet(
    mqtt: str = typer.Option(..., help="the café's broker: mqtt://host:1883"),
    host: str = typer.Option("127.0.0.1", help="address the dashboard listens on"),
    port: int = typer.Option(8080, min=1, max=65535, help="dashboard port"),
    ca_file: str | None = typer.Option(None, help="CA certificate for an mqtts broker"),
) -> None:
    """Serve the café dashboard: every table on the broker, live."""
    import asyncio
    import logging

    from boardref.dashboard import run_dashboard
    from boardref.fleet import Broker

    try:
        broker = Broker.from_url(mqtt)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    asyncio.run(run_dashboard(broker, host, port, ca_file))


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
    """Print the hash of a referee PIN for [panel] referee_pin_hash in the config."""
    from boardref.panel.access import hash_pin

    if not 4 <= len(pin) <= 32:
        typer.echo("error: a PIN has 4 to 32 characters", err=True)
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
    from boardref.simulate import simulate as run

    if sensor not in ("hall", "camera", "both"):
        typer.echo(f"error: sensor {sensor!r}: choose hall, camera or both", err=True)
        raise typer.Exit(2)
    on_commit = (lambda move: print(f"committed {move}", flush=True)) if echo_moves else None
    try:
        seats = tuple(int(seat) for seat in computer.split(",") if seat.strip())
        result = run(game, players, seed, noise, moves, store, on_commit, seats, sensor, mishap)
    except (RulesError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
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
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
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
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
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
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
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
    except RulesError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    found = {"game": game, "markers": marker_places(board)}
    if out is not None:
        out.write_bytes(marker_sheet(board))
        found["out"] = str(out)
    typer.echo(json.dumps(found))
