"""The table's status panel on the Pi's GPIO: an RGB LED that shows the referee's mood,
an active buzzer that signals verdicts, and the draw/roll, confirm and takeback buttons.

It shows and sounds what it is told and reports presses; it never decides anything
about the game. Looks, rhythms and debounce are data (``hardware/status.toml``), colours
come from the palette, pins from the service config.

Devices are gpiozero's, so the pin factory is swappable: on a Raspberry Pi gpiozero
picks lgpio by itself (the python3-lgpio package; it also drives the Pi 5's RP1 chip),
while tests and ``boardref serve --sim`` pass ``MockFactory(pin_class=MockPWMPin)``
(the LED dims by PWM, so its pins must be PWM-capable).

Button callbacks are called with no arguments on gpiozero's threads (lgpio's callback
thread on a Pi), never on the caller's event loop: hand them over, for example with
``loop.call_soon_threadsafe``, and do nothing slow in them.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hardware import datafiles
from hardware.lights import RGB, Palette

if TYPE_CHECKING:  # gpiozero loads only when a part is wired (a table may have none)
    from gpiozero import Button, Buzzer
    from gpiozero.pins import Factory

log = logging.getLogger(__name__)

#: A gpiozero pin name (17, "GPIO17", "BOARD11"), or None when the part is not fitted.
Pin = int | str | None

_OFF = (0.0, 0.0, 0.0)
#: the parts of a status panel, each on a pin of its own when fitted
_PARTS = ("led_red", "led_green", "led_blue", "buzzer", "draw", "confirm", "takeback")


@dataclass(frozen=True)
class StatusPins:
    """Where the status panel is wired. Any part may be missing (None)."""

    led_red: Pin = None
    led_green: Pin = None
    led_blue: Pin = None
    # A common-anode LED has its anode on 3V3 and lights a colour when its pin is low.
    led_common_anode: bool = False
    buzzer: Pin = None
    # Most buzzer modules switch on high; "low level trigger" modules need False.
    buzzer_active_high: bool = True
    draw: Pin = None  # draw a marble, roll a die
    confirm: Pin = None  # finalise a tentative move, accept a correction
    takeback: Pin = None  # undo the last accepted event

    def __post_init__(self):
        led = (self.led_red, self.led_green, self.led_blue)
        if any(pin is None for pin in led) and any(pin is not None for pin in led):
            raise ValueError(f"the status LED needs all three pins (red, green, blue), not {led}")
        wired = {}
        for part in _PARTS:
            pin = getattr(self, part)
            if pin is None:
                continue
            if pin in wired:
                raise ValueError(f"pin {pin!r} is wired to both {wired[pin]} and {part}")
            wired[pin] = part

    @property
    def wired(self) -> bool:
        """Whether any part is wired at all."""
        return any(getattr(self, part) is not None for part in _PARTS)


@dataclass(frozen=True)
class _Look:
    """How the status LED shows one mood."""

    seat: bool  # shows the seat colour passed to show()
    colour: RGB | None  # shown when no seat colour applies
    blink: tuple[float, float] | None  # seconds on, off
    pulse: tuple[float, float] | None  # seconds fading in, out


class StatusPanel:
    """The status LED, buzzer and buttons of one table.

    >>> from gpiozero.pins.mock import MockFactory, MockPWMPin
    >>> pins = StatusPins(led_red=17, led_green=27, led_blue=22, buzzer=18, confirm=5)
    >>> with StatusPanel(pins, MockFactory(pin_class=MockPWMPin)) as panel:
    ...     panel.show("turn", "yellow")
    ...     panel.colour
    (1.0, 0.7843137254901961, 0.0)
    """

    def __init__(
        self,
        pins: StatusPins,
        pin_factory: Factory | None = None,
        on_draw: Callable[[], None] | None = None,
        on_confirm: Callable[[], None] | None = None,
        on_takeback: Callable[[], None] | None = None,
        *,
        palette: Palette | None = None,
        overrides: Mapping | None = None,
    ):
        """``pin_factory`` None means gpiozero's default (lgpio on a Pi). ``palette``
        resolves colour names (default: the packaged one); ``overrides`` are laid over
        status.toml, same tables and keys. ValueError for a wrong entry; gpiozero's
        errors if a pin is busy or does not exist."""
        self._palette = palette or Palette.load()
        tables = datafiles.load("status.toml", overrides)
        self._looks = _looks(tables["moods"], self._palette)
        self._rhythms = _rhythms(tables["signals"])
        bounce_time = _seconds("buttons.bounce_time", tables["buttons"].get("bounce_time"))
        self._showing = None
        self._led = self._buzzer = None
        self._buttons: list[Button] = []
        self._rhythm = _Rhythm()
        if not pins.wired:
            return
        from gpiozero import RGBLED, Button, Buzzer

        try:
            if pins.led_red is not None:
                self._led = RGBLED(
                    pins.led_red,
                    pins.led_green,
                    pins.led_blue,
                    active_high=not pins.led_common_anode,
                    pin_factory=pin_factory,
                )
            if pins.buzzer is not None:
                self._buzzer = Buzzer(
                    pins.buzzer, active_high=pins.buzzer_active_high, pin_factory=pin_factory
                )
            for pin, callback in (
                (pins.draw, on_draw),
                (pins.confirm, on_confirm),
                (pins.takeback, on_takeback),
            ):
                if pin is not None:
                    button = Button(
                        pin, pull_up=True, bounce_time=bounce_time, pin_factory=pin_factory
                    )
                    self._buttons.append(button)
                    if callback is not None:
                        button.when_pressed = _without_arguments(callback)
        except BaseException:
            self.close()
            raise

    @property
    def moods(self) -> frozenset[str]:
        """The moods ``show`` knows."""
        return frozenset(self._looks)

    @property
    def signals(self) -> frozenset[str]:
        """The signals ``signal`` knows."""
        return frozenset(self._rhythms)

    @property
    def colour(self) -> tuple[float, float, float] | None:
        """The colour the status LED shows at full (0..1 per channel), None if none is
        fitted; blinking and pulsing move between this and dark."""
        return None if self._showing is None else self._showing[1]

    def show(self, mood: str, colour: str | None = None) -> None:
        """Show ``mood`` on the status LED. ``colour`` names the seat (to move, pending
        a draw, or the winner); moods with a colour of their own ignore it.

        Showing the mood already shown changes nothing, so a blink keeps its rhythm when
        the caller repeats itself. ValueError for an unknown mood or colour, or a seat
        mood without a colour, also when no LED is fitted.
        """
        look = self._looks.get(mood)
        if look is None:
            raise ValueError(f"no mood {mood!r} (known: {', '.join(sorted(self._looks))})")
        if look.seat and colour is not None:
            rgb = self._palette.colour(colour)
        elif look.colour is not None:
            rgb = look.colour
        else:
            raise ValueError(f"mood {mood!r} shows the colour of a seat: pass colour=")
        if self._led is None:
            return
        on = tuple(channel / 255 for channel in rgb)
        if self._showing == (mood, on):
            return
        if look.blink is not None:
            self._led.blink(*look.blink, on_color=on, off_color=_OFF)
        elif look.pulse is not None:
            self._led.pulse(*look.pulse, on_color=on, off_color=_OFF)
        else:
            self._led.color = on
        self._showing = (mood, on)

    def signal(self, name: str) -> None:
        """Sound the buzzer pattern ``name``; returns at once. A new signal cuts the one
        still sounding short, so the newest verdict is the one heard. ValueError for an
        unknown name, also when no buzzer is fitted."""
        rhythm = self._rhythms.get(name)
        if rhythm is None:
            raise ValueError(f"no signal {name!r} (known: {', '.join(sorted(self._rhythms))})")
        if self._buzzer is not None:
            self._rhythm.play(self._buzzer, rhythm)

    def close(self) -> None:
        """Silence and darken everything and free the pins; safe to call twice."""
        self._rhythm.stop()
        for device in (self._led, self._buzzer, *self._buttons):
            if device is not None:
                device.close()
        self._led = self._buzzer = None
        self._buttons = []
        self._showing = None

    def __enter__(self) -> StatusPanel:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class _Rhythm:
    """Plays one buzzer pattern at a time on a thread of its own."""

    def __init__(self):
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def play(self, buzzer: Buzzer, pattern: tuple[float, ...]) -> None:
        self.stop()
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._sound, args=(buzzer, pattern, self._stop), name="buzzer", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None

    @staticmethod
    def _sound(buzzer: Buzzer, pattern: tuple[float, ...], stop: threading.Event) -> None:
        try:
            for step, seconds in enumerate(pattern):
                if step % 2 == 0:
                    buzzer.on()
                else:
                    buzzer.off()
                if stop.wait(seconds):
                    return
        finally:
            buzzer.off()


def _without_arguments(callback: Callable[[], None]) -> Callable[[], None]:
    # gpiozero passes the device to a callback that takes one argument; the caller's
    # callbacks must not depend on gpiozero, so they always get none.
    def pressed():
        callback()

    return pressed


def _looks(moods: Mapping, palette: Palette) -> dict[str, _Look]:
    looks = {}
    for mood, entry in moods.items():
        where = f"status.toml: moods.{mood}"
        if not isinstance(entry, Mapping) or not entry.keys() <= {
            "seat",
            "colour",
            "blink",
            "pulse",
        }:
            raise ValueError(
                f"{where} = {entry!r}: expected a table of seat, colour, blink or pulse"
            )
        seat = entry.get("seat", False)
        if not isinstance(seat, bool):
            raise ValueError(f"{where}.seat = {seat!r}: expected true or false")
        name = entry.get("colour")
        if name is None and not seat:
            raise ValueError(f"{where}: needs seat = true or a colour")
        if name is not None and name not in palette.status:
            raise ValueError(
                f"{where}.colour = {name!r}: not a [status] colour of the palette "
                f"(known: {', '.join(sorted(palette.status))})"
            )
        if "blink" in entry and "pulse" in entry:
            raise ValueError(f"{where}: blink or pulse, not both")
        blink, pulse = (
            _pair(f"{where}.{key}", entry[key]) if key in entry else None
            for key in ("blink", "pulse")
        )
        colour = None if name is None else palette.status[name]
        looks[mood] = _Look(seat=seat, colour=colour, blink=blink, pulse=pulse)
    return looks


def _rhythms(signals: Mapping) -> dict[str, tuple[float, ...]]:
    rhythms = {}
    for name, pattern in signals.items():
        where = f"status.toml: signals.{name}"
        if not isinstance(pattern, list) or not pattern:
            raise ValueError(f"{where} = {pattern!r}: expected [on, off, on, ...] in seconds")
        rhythms[name] = tuple(_seconds(where, step) for step in pattern)
    return rhythms


def _pair(where: str, value) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise ValueError(f"{where} = {value!r}: expected [seconds, seconds]")
    return _seconds(where, value[0]), _seconds(where, value[1])


def _seconds(where: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 60:
        raise ValueError(f"{where}: {value!r} is not a time in seconds (more than 0, up to 60)")
    return float(value)


def open_status_panel(
    pins: StatusPins,
    mock: bool,
    palette: Palette,
    on_draw: Callable[[], None],
    on_confirm: Callable[[], None],
    on_takeback: Callable[[], None],
) -> StatusPanel | None:
    """The status panel on ``pins`` (on gpiozero's mock pins when ``mock``: a simulated
    table), or None when it cannot be driven: the error is logged and the table
    referees without it."""
    factory = None
    if mock:
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        factory = MockFactory(pin_class=MockPWMPin)
    try:
        return StatusPanel(
            pins,
            factory,
            palette=palette,
            on_draw=on_draw,
            on_confirm=on_confirm,
            on_takeback=on_takeback,
        )
    except Exception as exc:  # gpiozero raises many kinds; none may stop the referee
        log.error("status LED, buzzer and buttons unavailable: %s", exc)
        return None
