"""How the table speaks, outlet by outlet: the kiosk page, the players' phones and
the Pi's own speaker each speak or not, at a volume, a speed and in a voice, and play
the short sounds or not (``[speech]`` in the config, changed on the referee page).

``TableSpeech`` holds the settings while the table runs and what every page is shown
of them (``speech`` in the pages' state). It never decides anything about the game,
and a voice that is not installed is never a refusal: it is the Pi's ``problem``, said
in words on the referee page.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from boardref.referee.snapshot import Said
from engines.words import Words

#: where the table speaks
OUTLETS = ("kiosk", "phones", "pi")
OutletName = Literal["kiosk", "phones", "pi"]


class Outlet(BaseModel):
    """One outlet's speech: ``speed`` 1.0 is the voice's normal pace."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    on: bool = True
    volume: Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)] = 0.8
    speed: Annotated[float, Field(ge=0.5, le=2.0, allow_inf_nan=False)] = 1.0
    #: the voice by name (a browser's voice, espeak-ng's or a Piper voice file);
    #: none: the first voice of the table's language
    voice: Annotated[str | None, Field(min_length=1, max_length=200)] = None
    #: the short sounds (accepted, refused, your turn, over), also with speech off
    sounds: bool = True


class PiOutlet(Outlet):
    """The Pi's own speaker: off unless a table has one."""

    on: bool = False
    engine: Literal["espeak-ng", "piper"] = "espeak-ng"
    #: the ALSA device it plays on (``aplay -D``)
    device: Annotated[str, Field(min_length=1, max_length=100)] = "default"
    #: where Piper voice files (``*.onnx``) are looked for
    piper_voices: str = "/usr/local/share/piper-voices"


class SpeechConfig(BaseModel):
    """``[speech]``: the table's language and each outlet's settings."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: the language the Pi speaks (each page speaks its own)
    language: Literal["en", "de"] = "en"
    kiosk: Outlet = Outlet()
    phones: Outlet = Outlet()
    pi: PiOutlet = PiOutlet()


class SpeechChange(Outlet):
    """A change the referee makes to one outlet: the fields given are changed, the
    others are kept (``voice`` null: back to the language's first voice)."""

    outlet: OutletName


class PiShown(PiOutlet):
    #: why the Pi is silent although it is on (a missing engine or voice), else none
    problem: Said | None = None
    #: the voices the referee may choose among for the table's language
    voices: list[str] = []


class SpeechShown(BaseModel):
    """``speech`` in every page's state."""

    kiosk: Outlet
    phones: Outlet
    pi: PiShown


class TableSpeech:
    """The speech settings of a running table, and the Pi's problem and voices."""

    def __init__(self, config: SpeechConfig, voices: list[str] | None = None):
        self.settings = config
        #: the Pi's voices for the table's language, found once at start
        self.voices = list(voices or [])
        #: why the Pi cannot speak (``VoiceMissing.said``), none while it can
        self.problem: Words | None = None
        #: what every page is shown, made again only when something changes
        self.shown = self._shown()

    def change(self, change: SpeechChange) -> None:
        """Apply the fields ``change`` gives to its outlet."""
        given = change.model_dump(include=change.model_fields_set - {"outlet"})
        outlet = getattr(self.settings, change.outlet)
        changed = type(outlet).model_validate({**outlet.model_dump(), **given})
        self.settings = self.settings.model_copy(update={change.outlet: changed})
        self.shown = self._shown()

    def trouble(self, problem: Words | None) -> bool:
        """Note why the Pi cannot speak (none: it can); whether that changed."""
        if problem == self.problem:
            return False
        self.problem = problem
        self.shown = self._shown()
        return True

    def _shown(self) -> SpeechShown:
        settings = self.settings
        problem = None if self.problem is None else Said.of(self.problem)
        pi = PiShown(**settings.pi.model_dump(), problem=problem, voices=self.voices)
        return SpeechShown(kiosk=settings.kiosk, phones=settings.phones, pi=pi)
