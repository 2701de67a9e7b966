"""The service configuration: one TOML file (``/etc/boardref/config.toml`` or
``--config``), validated with pydantic when the service starts.

A bad file is refused with the key, the value and what was expected; the game and
its variants are checked against the engines, and the hall-sensor map against the
board file. This module reads the file and nothing else.
"""

from __future__ import annotations

import ipaddress
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, field_validator

from boardref.cafe.trust import TABLE_NAME_SAID, is_table_name, login_matches
from boardref.outputs.panel.access import PIN_HASH
from boardref.outputs.panel.tls import check_tls
from boardref.outputs.speech import SpeechConfig
from engines import RulesError, load_game
from hardware.status import StatusPins
from hardware.wiring import DEFAULT_DIR, Wiring, WiringError, wiring_path

if TYPE_CHECKING:  # MQTT loads only at a table that reports
    from boardref.outputs.fleet import Broker

DEFAULT_PATH = Path("/etc/boardref/config.toml")
#: settings that may hold a password: a message about them never shows their value
SECRET = ("fleet.url", "fleet.password")


class ConfigError(ValueError):
    """The configuration cannot be used; the message says where and why."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GameConfig(_Section):
    name: str = "sternhalma"
    players: int | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    #: seats the computer plays (kiosk tables), and how strongly
    computer: list[int] = Field(default_factory=list)
    level: str = Field("hard", pattern=r"^(easy|medium|hard)$")
    #: how long a move or draw the computer makes itself is shown before it is made
    computer_pause_ms: int = Field(1500, ge=0, le=10_000)


class HallConfig(_Section):
    #: a device path, a /dev/serial/by-id link or a pyserial URL
    device: str = "/dev/boardref-pico"
    #: cell ids in sensor-index order, per board file; a board not listed uses the
    #: board file's own cell order
    cell_maps: dict[str, list[str]] = Field(default_factory=dict)
    #: where `boardref board map` writes each board's wiring (sensor and LED order)
    #: and the service reads it; a board in cell_maps ignores its file
    wiring_dir: Path = DEFAULT_DIR


class SensorsConfig(_Section):
    #: the hall-sensor board; a table without one is played on the panel
    hall: HallConfig | None = None
    #: a reading counts once it has been stable this long
    settle_ms: int = Field(300, ge=20, le=5000)


class CameraConfig(_Section):
    """The camera over the board; without a source the table has none."""

    #: "0" or "/dev/video0" (USB), "picamera" (the Pi's camera module), a video file
    #: or an image folder (replayed), "synthetic" (rendered; with --sim only)
    source: str | None = None
    #: the lens from `boardref vision calibrate-camera`; none: the default path if it
    #: exists, else a 60-degree guess
    calibration: Path | None = None
    size: tuple[int, int] = (1280, 720)
    #: frames read a second
    fps: float = Field(10.0, gt=0, le=60)

    @field_validator("size")
    @classmethod
    def _size(cls, size):
        if not (160 <= size[0] <= 4096 and 120 <= size[1] <= 4096):
            raise ValueError("width and height in pixels, 160x120 to 4096x4096")
        return size


class GpioConfig(_Section):
    """BCM pin numbers; leave a pin out when that part is not fitted."""

    draw: StrictInt | None = Field(None, ge=0, le=27)
    confirm: StrictInt | None = Field(None, ge=0, le=27)
    takeback: StrictInt | None = Field(None, ge=0, le=27)
    status_led: tuple[StrictInt, StrictInt, StrictInt] | None = None
    #: a common-anode RGB LED lights a colour when its pin is low
    status_led_common_anode: bool = False
    buzzer: StrictInt | None = Field(None, ge=0, le=27)
    #: most buzzer modules sound on high; "low level trigger" modules need false
    buzzer_active_high: bool = True

    @field_validator("status_led")
    @classmethod
    def _status_pins(cls, pins):
        if pins is not None and not all(0 <= p <= 27 for p in pins):
            raise ValueError("the three pins (red, green, blue) must be BCM numbers 0-27")
        return pins

    def status_pins(self) -> StatusPins:
        """Where the status panel is wired, and how its LED and buzzer switch."""
        red, green, blue = self.status_led or (None, None, None)
        return StatusPins(
            led_red=red,
            led_green=green,
            led_blue=blue,
            led_common_anode=self.status_led_common_anode,
            buzzer=self.buzzer,
            buzzer_active_high=self.buzzer_active_high,
            draw=self.draw,
            confirm=self.confirm,
            takeback=self.takeback,
        )


class StoreConfig(_Section):
    path: Path = Path("/var/lib/boardref/boardref.db")
    #: ended games older than this many days are pruned (0: kept however old)
    keep_days: int = Field(0, ge=0, le=36500, strict=True)
    #: only this many ended games are kept, the newest (0: kept however many); 5,000
    #: games are about 60 MB, half a year of a busy café's table
    keep_games: int = Field(5000, ge=0, le=10_000_000, strict=True)


class PanelConfig(_Section):
    #: 127.0.0.1 keeps the panel on this machine; 0.0.0.0 opens it to the LAN
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    #: "scrypt$..." from `boardref pin-hash`; without one the referee page stays shut
    referee_pin_hash: str | None = None
    #: the address phones use to reach the panel (for the join QR code), e.g.
    #: "http://192.168.1.20:8000"; by default the address the table page was opened at
    public_url: str | None = None
    #: more names phones and browsers may call the panel by (a reverse proxy's, a DNS
    #: name); the machine's own names and addresses, localhost and ``host`` always pass
    hosts: list[str] = Field(default_factory=list, max_length=32)
    #: addresses of reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are
    #: believed; none: every client is who it connects from
    proxies: list[str] = Field(default_factory=list, max_length=32)
    #: a PEM certificate and its key: the panel is served over HTTPS (both or neither)
    certificate: Path | None = None
    key: Path | None = None

    @property
    def scheme(self) -> str:
        return "http" if self.certificate is None else "https"

    @field_validator("referee_pin_hash")
    @classmethod
    def _pin_hash(cls, value):
        if value is not None and not PIN_HASH.match(value):
            raise ValueError("expected the line `boardref pin-hash` prints (scrypt$<salt>$<hash>)")
        return value

    @field_validator("proxies")
    @classmethod
    def _proxies(cls, value):
        for address in value:
            try:
                ipaddress.ip_network(address, strict=False)
            except ValueError:
                raise ValueError(f"{address!r} is not an IP address or network") from None
        return value


class FleetConfig(_Section):
    """Reporting to the café's MQTT broker (`boardref serve --mqtt URL --table-id T`)."""

    #: mqtt://host:1883 or mqtts://host:8883; none: the table stays alone
    url: str | None = None
    #: also the broker login's user name, when there is one (the café's ACL)
    table_id: str = "table1"
    #: the broker login: a user and its password, or a file holding the password (one
    #: line), so the config itself may be readable; or both in the URL, percent-encoded
    user: str | None = None
    password: str | None = None
    password_file: Path | None = None
    #: the CA certificate that signed the broker's, for mqtts
    ca_file: str | None = None
    #: the table's own certificate and its key (PEM), for a broker that asks for one
    certfile: Path | None = None
    keyfile: Path | None = None
    discovery_prefix: str = "homeassistant"
    #: the players' names in the records sent to the broker: true for the café's own
    #: broker; false for one outside the café, which then gets anonymous seats
    names: bool = True

    @field_validator("table_id")
    @classmethod
    def _table_id(cls, value):
        if not is_table_name(value):
            raise ValueError(TABLE_NAME_SAID)
        return value

    @field_validator("ca_file", "certfile", "keyfile", "password_file")
    @classmethod
    def _a_file(cls, value):
        if value is not None and not Path(value).is_file():
            raise ValueError("expected the path of a file; there is none there")
        return value

    def broker(self) -> Broker:
        """The broker ``url`` names, logged in as these settings say; a ``ValueError``
        says what is wrong in words that never show the password."""
        from boardref.outputs.fleet import Broker

        if self.url is None:
            raise ValueError("url is missing")
        login = (self.user, self.password, self.password_file, self.certfile, self.keyfile)
        return Broker.logged_in(self.url, *login)


class DiagnosticsConfig(_Section):
    """Measurements a benchmark turns on; an ordinary table leaves them off."""

    #: how often a timer checks how late the event loop runs it (the lag shows in
    #: /api/diagnostics); none: no timer, so an idle table sleeps
    loop_lag_every_ms: int | None = Field(None, ge=10, le=10_000)


class Config(_Section):
    game: GameConfig = Field(default_factory=GameConfig)
    sensors: SensorsConfig = Field(default_factory=SensorsConfig)
    camera: CameraConfig = Field(default_factory=CameraConfig)
    gpio: GpioConfig = Field(default_factory=GpioConfig)
    store: StoreConfig = Field(default_factory=StoreConfig)
    panel: PanelConfig = Field(default_factory=PanelConfig)
    fleet: FleetConfig = Field(default_factory=FleetConfig)
    diagnostics: DiagnosticsConfig = Field(default_factory=DiagnosticsConfig)
    speech: SpeechConfig = Field(default_factory=SpeechConfig)
    #: entries laid over hardware/palette.toml (same tables and keys)
    palette: dict[str, dict[str, Any]] = Field(default_factory=dict)
    #: entries laid over hardware/status.toml (moods, signals, buttons)
    status: dict[str, dict[str, Any]] = Field(default_factory=dict)

    def board_wiring(self, board) -> Wiring:
        """Which cell each sensor and each LED of ``board`` sits under: the config's
        cell map, else the wiring file `boardref board map` wrote, else cell order."""
        hall = self.sensors.hall
        cells = [cell.id for cell in board.cells]
        if hall is None or board.name in hall.cell_maps:
            mapped = self.sensor_cells(board)
            return Wiring(board.name, list(mapped), list(mapped))
        path = wiring_path(hall.wiring_dir, board.name)
        if not path.exists():
            return Wiring.straight(board.name, cells)
        try:
            return Wiring.load(path, cells)
        except WiringError as exc:
            raise ConfigError(f"{exc}: run `boardref board map` again") from None

    def sensor_cells(self, board) -> list[str]:
        """Cell ids in hall-sensor order for ``board``."""
        hall = self.sensors.hall
        if hall is not None and board.name in hall.cell_maps:
            return hall.cell_maps[board.name]
        return [cell.id for cell in board.cells]


def load_config(path: Path | str | None = None, **overrides: Any) -> Config:
    """The validated configuration from ``path`` (defaults when None).

    ``overrides`` replace whole sections or keys given as ``section.key``; the
    command line uses them (``--game``, ``--port`` ...).
    """
    data: dict[str, Any] = {}
    source = "defaults"
    if path is not None:
        source = str(path)
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"{source}: cannot read: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise ConfigError(
                f"{source}: not UTF-8 text (byte {exc.start}); save the file as UTF-8"
            ) from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    for dotted, value in overrides.items():
        section, _, key = dotted.partition(".")
        data.setdefault(section, {})[key] = value
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{source}: " + "; ".join(_describe(e) for e in exc.errors())) from None
    _check_against_engines(config, source)
    _check_lights(config, source)
    try:
        check_tls(config.panel.certificate, config.panel.key)
    except ValueError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    if config.fleet.url is not None:
        try:
            broker = config.fleet.broker()
        except ValueError as exc:
            raise ConfigError(f"{source}: fleet.{exc}") from None
        mismatch = login_matches(broker.username, config.fleet.table_id)
        if mismatch:
            raise ConfigError(f"{source}: fleet: {mismatch}")
    return config


def _describe(error: dict) -> str:
    key = ".".join(str(part) for part in error["loc"])
    if error["type"] == "extra_forbidden":
        return f"{key} is not a setting boardref knows"
    if error["type"] == "missing":
        return f"{key} is missing"
    if key in SECRET:
        return f"{key}: {error['msg']}"
    return f"{key} = {error['input']!r}: {error['msg']}"


def _check_lights(config: Config, source: str) -> None:
    from hardware.datafiles import load
    from hardware.lights import Palette

    try:
        Palette.load(config.palette)
        load("status.toml", config.status)
    except ValueError as exc:
        raise ConfigError(f"{source}: [palette]/[status] {exc}") from None


def _check_against_engines(config: Config, source: str) -> None:
    game = config.game
    try:
        rules = load_game(game.name, game.players, **game.options)
    except RulesError as exc:
        raise ConfigError(f"{source}: [game] {exc}") from None
    strangers = [seat for seat in game.computer if not 0 <= seat < rules.players]
    if strangers:
        raise ConfigError(
            f"{source}: game.computer = {game.computer}: seats are numbered 0 to "
            f"{rules.players - 1} for {rules.players} players"
        )
    cells = config.sensor_cells(rules.board)
    known = set(rules.board.index)
    unknown = [c for c in cells if c not in known]
    if unknown:
        raise ConfigError(
            f"{source}: sensors.hall.cell_maps.{rules.board.name} names cells not on the "
            f"board: {', '.join(unknown[:5])}"
        )
    if len(set(cells)) != len(cells):
        raise ConfigError(f"{source}: sensors.hall.cell_maps.{rules.board.name} lists a cell twice")
    config.board_wiring(rules.board)
