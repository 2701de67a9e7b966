"""The Pi's own speaker as an output: each new announcement for the whole table said
aloud in the table's language, while ``[speech.pi]`` is on.

It hands sentences to a ``Speaker`` (its own thread) and returns at once, so showing
the table never waits for speech; a sentence whose moment has passed by the time its
turn comes is dropped there. A seat's own prompts are never said here (they belong to
that seat's phone). Where a buzzer is fitted, it sounds the start of a person's turn
(its other signals follow the referee's verdicts). A missing engine or voice is never
a crash: ``problem`` holds the sentence the referee page shows, and ``told`` is called
when it changes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable

from boardref.outputs import voice
from boardref.outputs.announcer import moment_of
from boardref.outputs.display import Display
from boardref.outputs.speaker import Speaker, Utterance
from boardref.outputs.speech import PiOutlet, TableSpeech
from engines.words import Words


def voice_settings(pi: PiOutlet, language: str) -> voice.VoiceSettings:
    """The engine's settings for the Pi's outlet as the referee set it."""
    voices = ((language, pi.voice),) if pi.voice else ()
    return voice.VoiceSettings(engine=pi.engine, voices=voices, speed=pi.speed,
                               volume=pi.volume, device=pi.device)


def voice_missing(pi: PiOutlet, language: str, voices: list[str]) -> Words | None:
    """Why the Pi cannot speak in the voice it is set to (none: it can)."""
    chosen = voice_settings(pi, language).voice(language)
    if chosen is None or chosen in voices:
        return None
    return voice.no_voice(pi.engine, language, chosen)


class PiVoice:
    """Says the table's new announcements on the Pi's speaker (an output)."""

    def __init__(self, speech: TableSpeech, told: Callable[[Words | None], None],
                 speaker: Callable[..., Speaker] = Speaker,
                 buzz: Callable[[str], None] | None = None):
        self.speech = speech
        self._told = told
        #: the status panel's buzzer (``StatusPanel.signal``), where one is fitted: it
        #: sounds a turn's beginning; the referee's events sound the rest
        self._buzz = buzz
        self._speaker_of = speaker
        self.speaker: Speaker | None = None
        #: the moment of the game the table shows now (read on the speaker's thread)
        self.moment: Hashable = None
        #: the newest announcement seen: only newer ones are said
        self._heard = 0
        #: the engine is missing, else None (both known once the Pi was first on)
        self._no_engine: Words | None = None
        self._looked = False
        self.check()

    def check(self) -> bool:
        """Note why the Pi cannot speak as it is set (none: it can), as the referee
        page shows it; whether that changed. The first time the Pi is on, its voices
        are looked for (a program is run, once: a table whose Pi is off runs none)."""
        settings = self.speech.settings
        if not settings.pi.on:
            return self.speech.trouble(None)
        if not self._looked:
            self._looked = True
            try:
                self.speech.voices = voice.voices_for(settings.pi.engine, settings.language,
                                                      settings.pi.piper_voices)
            except voice.VoiceMissing as missing:
                self._no_engine = missing.said
        problem = self._no_engine or voice_missing(settings.pi, settings.language,
                                                   self.speech.voices)
        return self.speech.trouble(problem)

    def __call__(self, shown: Display) -> None:
        self.moment = moment_of(shown.state, shown.game_id)
        fresh = [a for a in shown.said if a.number > self._heard]
        self._heard = max([self._heard, *(a.number for a in shown.said)])
        settings = self.speech.settings
        if self._buzz is not None and settings.pi.sounds and any(
            a.sound == "your_turn" for a in fresh
        ):
            self._buzz("your_turn")
        fresh = [a for a in fresh if a.to is None]  # a seat's own is its phone's
        if not settings.pi.on:
            return
        tuned = voice_settings(settings.pi, settings.language)
        if self.speaker is None:
            self.speaker = self._speaker_of(tuned, settings.language, lambda: self.moment,
                                            told=self._told)
        self.speaker.settings = tuned
        now = time.monotonic()
        for announcement in fresh:
            self.speaker.say(Utterance(announcement.said.model_dump(), announcement.moment, now))

    def close(self) -> None:
        if self.speaker is not None:
            self.speaker.close()
