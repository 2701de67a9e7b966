"""The status panel on gpiozero's own mock pins: mood colours and blinking on the LED's
PWM pins, buzzer rhythms in the buzzer pin's history, buttons driven through their pins.

Nothing here measures time: blinking and beeping are short (overridden) and every wait
polls with a deadline that a busy machine cannot miss.
"""

import doctest
import time

import pytest
from gpiozero import GPIOPinInUse
from gpiozero.pins.mock import MockFactory, MockPWMPin

import hardware.status
from hardware import datafiles
from hardware.lights import Palette
from hardware.status import StatusPanel, StatusPins

RED, GREEN, BLUE, BUZZER, DRAW, CONFIRM, TAKEBACK = 17, 27, 22, 18, 5, 6, 13
# Closing a gpiozero Button waits up to 0.1 s for its hold thread, so only the tests
# about buttons wire them.
LED_AND_BUZZER = StatusPins(led_red=RED, led_green=GREEN, led_blue=BLUE, buzzer=BUZZER)
WIRED = StatusPins(
    led_red=RED,
    led_green=GREEN,
    led_blue=BLUE,
    buzzer=BUZZER,
    draw=DRAW,
    confirm=CONFIRM,
    takeback=TAKEBACK,
)
PALETTE = Palette.load()
DEADLINE = 10.0
# Every blink, pulse and beep a few milliseconds long, so a test sees many of them.
QUICK = {
    "moods": {
        "error": {"colour": "error", "blink": [0.005, 0.005]},
        "waiting": {"seat": True, "blink": [0.005, 0.005]},
        "tentative": {"seat": True, "pulse": [0.1, 0.1]},
    },
    "signals": {
        name: [0.005] * len(steps)
        for name, steps in datafiles.load("status.toml")["signals"].items()
    },
}


@pytest.fixture
def factory():
    pin_factory = MockFactory(pin_class=MockPWMPin)
    yield pin_factory
    pin_factory.reset()


@pytest.fixture
def make_panel(factory):
    panels = []

    def make(pins=LED_AND_BUZZER, **options):
        panel = StatusPanel(pins, factory, **options)
        panels.append(panel)
        return panel

    yield make
    for panel in panels:
        panel.close()


def wait_until(condition, what: str):
    deadline = time.monotonic() + DEADLINE
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.001)


def led(factory) -> tuple[float, float, float]:
    return tuple(factory.pin(pin).state for pin in (RED, GREEN, BLUE))


def values(pin) -> list:
    return [state.state for state in pin.states]


def test_module_examples_run():
    assert doctest.testmod(hardware.status).failed == 0


def test_the_panel_knows_the_moods_and_signals_the_referee_uses(make_panel):
    panel = make_panel()
    assert panel.moods == {
        "setup",
        "turn",
        "tentative",
        "error",
        "waiting",
        "over",
        "offline",
        "fault",
    }
    assert panel.signals == {"accepted", "illegal", "game_over", "drawn", "error", "your_turn"}


def test_turn_shows_the_seat_colour_steadily(make_panel, factory):
    panel = make_panel()
    panel.show("turn", "yellow")
    r, g, b = PALETTE.colour("yellow")
    assert led(factory) == (r / 255, g / 255, b / 255)
    for pin in (RED, GREEN, BLUE):
        factory.pin(pin).clear_states()
    time.sleep(0.05)
    assert all(len(factory.pin(pin).states) == 1 for pin in (RED, GREEN, BLUE))


def test_a_common_anode_led_is_driven_inverted(make_panel, factory):
    pins = StatusPins(led_red=RED, led_green=GREEN, led_blue=BLUE, led_common_anode=True)
    make_panel(pins).show("turn", "red")
    assert led(factory) == (0.0, 1.0, 1.0)


def test_a_new_turn_changes_the_colour(make_panel, factory):
    panel = make_panel()
    panel.show("turn", "red")
    panel.show("turn", "blue")
    assert led(factory) == (0.0, 0.0, 1.0)
    assert panel.colour == (0.0, 0.0, 1.0)


def test_error_blinks_red(make_panel, factory):
    make_panel(overrides=QUICK).show("error")
    red = factory.pin(RED)
    wait_until(lambda: values(red).count(1.0) >= 3, "the red LED to blink three times")
    assert set(values(red)) == {0.0, 1.0}
    assert values(factory.pin(GREEN)) == [0.0]
    assert values(factory.pin(BLUE)) == [0.0]


def test_waiting_blinks_the_seat_colour(make_panel, factory):
    make_panel(overrides=QUICK).show("waiting", "green")
    green = factory.pin(GREEN)
    wait_until(lambda: values(green).count(1.0) >= 3, "the green LED to blink three times")
    assert set(values(green)) == {0.0, 1.0}
    assert values(factory.pin(RED)) == [0.0]


def test_tentative_breathes_in_the_seat_colour(make_panel, factory):
    make_panel(overrides=QUICK).show("tentative", "blue")
    blue = factory.pin(BLUE)
    wait_until(
        lambda: any(0 < v < 1 for v in values(blue)) and 1.0 in values(blue),
        "the blue LED to fade up to full",
    )
    assert values(factory.pin(RED)) == [0.0]


def test_showing_a_steady_mood_stops_a_blink(make_panel, factory):
    panel = make_panel(overrides=QUICK)
    panel.show("error")
    wait_until(lambda: values(factory.pin(RED)).count(1.0) >= 2, "the red LED to blink")
    panel.show("turn", "blue")
    assert led(factory) == (0.0, 0.0, 1.0)
    factory.pin(RED).clear_states()
    time.sleep(0.05)
    assert values(factory.pin(RED)) == [0.0]


def test_game_over_shows_the_winner_or_the_palette_colour_without_one(make_panel, factory):
    panel = make_panel()
    panel.show("over", "red")
    assert led(factory) == (1.0, 0.0, 0.0)
    panel.show("over")
    r, g, b = PALETTE.status["over"]
    assert led(factory) == (r / 255, g / 255, b / 255)


def test_moods_with_a_colour_of_their_own_ignore_the_seat(make_panel, factory):
    panel = make_panel()
    panel.show("error", "blue")
    assert panel.colour == tuple(c / 255 for c in PALETTE.status["error"])


@pytest.mark.parametrize("mood", ["setup", "turn", "tentative", "error", "waiting", "over"])
def test_every_mood_lights_the_led(make_panel, factory, mood):
    make_panel(overrides=QUICK).show(mood, "white")
    wait_until(lambda: any(v > 0 for v in led(factory)), f"{mood} to light the LED")


def test_offline_flashes_its_own_colour(make_panel, factory):
    overrides = {"moods": {"offline": {"colour": "offline", "blink": [0.005, 0.005]}}}
    make_panel(overrides=overrides).show("offline")
    red = factory.pin(RED)
    wait_until(lambda: values(red).count(1.0) >= 2, "the offline flash")
    assert PALETTE.status["offline"][0] == 255


@pytest.mark.parametrize(
    ("mood", "colour", "message"),
    [
        ("turn", None, "shows the colour of a seat: pass colour="),
        ("turn", "mauve", "no colour named 'mauve'"),
        ("victory", None, r"no mood 'victory' \(known: error, fault, offline, over"),
    ],
)
def test_a_wrong_show_is_refused_even_without_an_led(make_panel, mood, colour, message):
    for pins in (LED_AND_BUZZER, StatusPins()):
        with pytest.raises(ValueError, match=message):
            make_panel(pins).show(mood, colour)


@pytest.mark.parametrize(
    "signal", ["accepted", "illegal", "game_over", "drawn", "error", "your_turn"]
)
def test_each_signal_beeps_its_rhythm(make_panel, factory, signal):
    make_panel(overrides=QUICK).signal(signal)
    steps = datafiles.load("status.toml")["signals"][signal]
    beeps = (len(steps) + 1) // 2
    expected = [False, True] * beeps + [False]
    buzzer = factory.pin(BUZZER)
    wait_until(lambda: len(buzzer.states) == len(expected), f"{beeps} beeps")
    assert values(buzzer) == expected


def test_a_new_signal_cuts_the_one_still_sounding(make_panel, factory):
    panel = make_panel(overrides={"signals": {"error": [60], "accepted": [0.005]}})
    buzzer = factory.pin(BUZZER)
    panel.signal("error")
    wait_until(lambda: buzzer.state, "the long beep to start")
    panel.signal("accepted")
    wait_until(lambda: len(buzzer.states) == 5, "the short beep to end")
    assert values(buzzer) == [False, True, False, True, False]


def test_an_unknown_signal_is_refused_even_without_a_buzzer(make_panel):
    for pins in (LED_AND_BUZZER, StatusPins()):
        with pytest.raises(ValueError, match=r"no signal 'fanfare' \(known: accepted"):
            make_panel(pins).signal("fanfare")


def test_close_silences_the_buzzer_darkens_the_led_and_frees_the_pins(make_panel, factory):
    panel = make_panel(overrides={"signals": {"error": [60]}})
    panel.show("turn", "white")
    panel.signal("error")
    wait_until(lambda: factory.pin(BUZZER).state, "the beep to start")
    panel.close()
    assert factory.pin(BUZZER).state == 0
    assert led(factory) == (0.0, 0.0, 0.0)
    panel.close()
    make_panel().show("turn", "red")


@pytest.mark.parametrize(
    ("pin", "button"), [(DRAW, "draw"), (CONFIRM, "confirm"), (TAKEBACK, "takeback")]
)
def test_a_press_calls_its_button_callback_once(make_panel, factory, pin, button):
    pressed = []
    make_panel(
        WIRED,
        on_draw=lambda: pressed.append("draw"),
        on_confirm=lambda: pressed.append("confirm"),
        on_takeback=lambda: pressed.append("takeback"),
    )
    factory.pin(pin).drive_low()
    wait_until(lambda: pressed, f"the {button} callback")
    factory.pin(pin).drive_high()
    time.sleep(0.02)
    assert pressed == [button]


def test_callbacks_get_no_arguments_from_gpiozero(make_panel, factory):
    calls = []
    make_panel(StatusPins(confirm=CONFIRM), on_confirm=lambda *args: calls.append(args))
    factory.pin(CONFIRM).drive_low()
    wait_until(lambda: calls, "the confirm callback")
    factory.pin(CONFIRM).drive_high()
    assert calls == [()]


def test_a_button_without_a_callback_is_fitted_but_calls_no_other(make_panel, factory):
    confirmed = []
    make_panel(StatusPins(draw=DRAW, confirm=CONFIRM), on_confirm=lambda: confirmed.append(1))
    assert factory.pin(DRAW).pull == "up"  # the button is fitted even with nothing to call
    factory.pin(DRAW).drive_low()
    factory.pin(DRAW).drive_high()
    time.sleep(0.05)
    assert confirmed == []  # pressing draw never reaches the confirm callback
    factory.pin(CONFIRM).drive_low()
    wait_until(lambda: confirmed, "the confirm callback")
    factory.pin(CONFIRM).drive_high()


def test_buttons_pull_up_so_a_switch_to_ground_presses_them(make_panel, factory):
    make_panel(StatusPins(draw=DRAW))
    assert factory.pin(DRAW).pull == "up"
    assert factory.pin(DRAW).state is True


def test_a_panel_with_nothing_fitted_does_nothing(factory):
    with StatusPanel(StatusPins(), factory) as panel:
        panel.show("turn", "red")
        panel.signal("accepted")
        assert panel.colour is None
    assert factory.pins == {}


def test_a_panel_that_cannot_take_its_pins_gives_back_what_it_took(make_panel, factory):
    make_panel(StatusPins(buzzer=BUZZER))
    with pytest.raises(GPIOPinInUse):
        StatusPanel(LED_AND_BUZZER, factory)
    make_panel(StatusPins(led_red=RED, led_green=GREEN, led_blue=BLUE))


@pytest.mark.parametrize(
    ("pins", "message"),
    [
        ({"led_red": RED, "led_green": GREEN}, "needs all three pins"),
        ({"buzzer": 5, "draw": 5}, "pin 5 is wired to both buzzer and draw"),
    ],
)
def test_impossible_wiring_is_refused(pins, message):
    with pytest.raises(ValueError, match=message):
        StatusPins(**pins)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"moods": {"victory": {"seat": True}}}, r"moods\.victory: no such entry"),
        ({"moods": {"turn": {"seat": False}}}, r"moods\.turn: needs seat = true or a colour"),
        ({"moods": {"error": {"colour": "crimson"}}}, r"'crimson': not a \[status\] colour"),
        (
            {"moods": {"error": {"colour": "error", "blink": [1, 1], "pulse": [1, 1]}}},
            "blink or pulse, not both",
        ),
        ({"moods": {"error": {"colour": "error", "blink": [1]}}}, r"expected \[seconds, seconds\]"),
        ({"moods": {"error": {"colour": "error", "glow": True}}}, "expected a table of seat"),
        ({"signals": {"accepted": []}}, r"signals\.accepted = \[\]: expected \[on, off"),
        ({"signals": {"accepted": [0.1, -1]}}, r"-1 is not a time in seconds"),
        ({"buttons": {"bounce_time": "short"}}, r"buttons\.bounce_time: 'short' is not a time"),
    ],
)
def test_a_bad_status_override_is_refused_naming_the_entry(factory, overrides, message):
    with pytest.raises(ValueError, match=message):
        StatusPanel(WIRED, factory, overrides=overrides)
    assert factory.pins == {}
