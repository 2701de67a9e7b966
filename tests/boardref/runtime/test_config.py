"""The service configuration: defaults, overrides and clear refusals."""

from __future__ import annotations

import pytest

from boardref.runtime.config import ConfigError, load_config


def write(tmp_path, text: str):
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_defaults_give_a_sternhalma_table_on_localhost():
    config = load_config()
    assert config.game.name == "sternhalma" and config.panel.host == "127.0.0.1"
    assert config.sensors.settle_ms == 300


def test_a_full_file_is_read(tmp_path):
    config = load_config(
        write(
            tmp_path,
            """
[game]
name = "catch_the_hare"
options = { board = "no_diagonal", max_plies = 200 }
[sensors]
settle_ms = 250
[sensors.hall]
device = "/dev/serial/by-id/usb-boardref"
[gpio]
draw = 17
status_led = [5, 6, 13]
buzzer = 19
[store]
path = "/tmp/x.db"
""",
        )
    )
    assert config.game.options["board"] == "no_diagonal"
    assert config.gpio.status_led == (5, 6, 13) and config.gpio.confirm is None
    assert config.sensors.hall.device.endswith("usb-boardref")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[game]\nplayers = 'three'", "game.players = 'three'"),
        ("[gpio]\ndraw = 40", "gpio.draw = 40: Input should be less than or equal to 27"),
        ("[gpio]\nstatus_led = [5, 6]", "gpio.status_led"),
        ("[panel]\nprot = 80", "panel.prot is not a setting boardref knows"),
        ("[sensors]\nsettle_ms = 5", "sensors.settle_ms = 5"),
        ("[game]\nname = 'chess'", "[game] no game 'chess'"),
        ("[game]\nplayers = 5", "sternhalma is for 2, 3, 4, 6 players, not 5"),
        ("[game]\noptions = { colour = 'red' }", "no option 'colour'"),
        ("[sensors.hall.cell_maps]\nsternhalma = ['m1', 'zz']", "names cells not on the board: zz"),
        ("[sensors.hall.cell_maps]\nsternhalma = ['m1', 'm1']", "lists a cell twice"),
        ("[game\n", "not valid TOML"),
    ],
)
def test_a_bad_file_is_refused_with_the_key_the_value_and_what_was_expected(tmp_path, text, words):
    with pytest.raises(ConfigError) as refused:
        load_config(write(tmp_path, text))
    assert str(refused.value).startswith(str(tmp_path / "config.toml"))
    assert words in str(refused.value)


def test_a_missing_file_is_reported(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "nope.toml")


def test_command_line_overrides_win(tmp_path):
    config = load_config(write(tmp_path, "[panel]\nport = 9000"), **{"panel.port": 8123})
    assert config.panel.port == 8123


def test_colour_and_signal_overrides_are_checked_at_start(tmp_path):
    config = load_config(write(tmp_path, "[palette.colours]\nred = [200, 0, 0]\n"))
    assert config.palette == {"colours": {"red": [200, 0, 0]}}
    with pytest.raises(ConfigError, match=r"\[palette\]/\[status\]"):
        load_config(write(tmp_path, "[palette.cells]\nsparkle = [1, 2, 3]\n"))
    with pytest.raises(ConfigError, match=r"\[palette\]/\[status\]"):
        load_config(write(tmp_path, "[status.moods]\ndisco = { colour = 'red' }\n"))


def test_the_example_config_is_valid():
    from pathlib import Path

    example = Path(__file__).parents[3] / "systemd" / "config.example.toml"
    assert load_config(example).gpio.status_led == (5, 6, 13)


def test_a_common_anode_led_and_a_low_trigger_buzzer_reach_the_status_panel():
    gpio = load_config(
        **{
            "gpio.status_led": [17, 27, 22],
            "gpio.status_led_common_anode": True,
            "gpio.buzzer": 18,
            "gpio.buzzer_active_high": False,
            "gpio.confirm": 5,
        }
    ).gpio
    pins = gpio.status_pins()
    assert (pins.led_red, pins.led_green, pins.led_blue) == (17, 27, 22)
    assert pins.led_common_anode and not pins.buzzer_active_high
    assert (pins.buzzer, pins.confirm, pins.draw) == (18, 5, None)


def test_the_camera_section_of_the_config_is_checked(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[camera]\nsource = "picamera"\nsize = [1920, 1080]\nfps = 15\n')
    camera = load_config(path).camera
    assert (camera.source, camera.size, camera.fps) == ("picamera", (1920, 1080), 15)
    assert load_config(None).camera.source is None, "no camera unless one is named"
    path.write_text("[camera]\nsize = [10, 10]\n")
    with pytest.raises(ConfigError, match="camera.size.*160x120"):
        load_config(path)
    path.write_text("[camera]\nlens = 3\n")
    with pytest.raises(ConfigError, match="camera.lens is not a setting"):
        load_config(path)
