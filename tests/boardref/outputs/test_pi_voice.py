"""The Pi's speaker as the service drives it: every sentence the announcer can say,
rendered by espeak-ng through the service's own path (``PiVoice`` -> ``Speaker`` ->
``voice.render``) in both languages and measured with ``wave``; only the table's
sentences are said, each once; a missing engine or voice is a sentence on the
referee page, never a crash."""

from __future__ import annotations

import io
import shutil
import threading
import wave

import pytest

from boardref.outputs import voice
from boardref.outputs.announcer import Announcer
from boardref.outputs.display import Display
from boardref.outputs.panel.words import said
from boardref.outputs.pi_voice import PiVoice
from boardref.outputs.speaker import Speaker
from boardref.outputs.speech import SpeechChange, SpeechConfig, TableSpeech
from tests.boardref.outputs.test_announcer import GAMES, played
from tests.boardref.referee.test_no_dead_ends import quick_computer  # noqa: F401
from tests.harness import until

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        shutil.which("espeak-ng") is None, reason="apt-get install espeak-ng (.ci/run does)"
    ),
]


def seconds(wav: bytes) -> float:
    with wave.open(io.BytesIO(wav)) as sound:
        return sound.getnframes() / sound.getframerate()


class Recorder:
    """A Speaker that renders for real and keeps the WAV files instead of playing them
    (this machine has no sound card)."""

    def __init__(self) -> None:
        self.played: list[tuple[str, bytes]] = []
        self.done = threading.Event()
        self.speaker: Speaker | None = None

    def __call__(self, settings, language, moment, told) -> Speaker:
        def render(text: str, language_: str, tuned) -> bytes:
            self.text = text
            return voice.render(text, language_, tuned)

        def play(wav: bytes, device: str) -> None:
            self.played.append((self.text, wav))

        self.speaker = Speaker(settings, language, moment, render, play, told)
        return self.speaker


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize(("name", "players", "options", "computer"),
                         [GAMES[0], next(g for g in GAMES if g[0] == "fang_den_hut_cards")],
                         ids=["catch_the_hare", "fang_den_hut_cards"])
def test_every_sentence_of_a_whole_game_is_spoken_on_the_pi(
    tmp_path, quick_computer, language, name, players, options, computer  # noqa: F811
):
    _, heard = played(name, players, computer, tmp_path, options)
    speech = TableSpeech(SpeechConfig(language=language, pi={"on": True}))
    recorder = Recorder()
    pi = PiVoice(speech, told=lambda problem: None, speaker=recorder)
    assert speech.problem is None and speech.voices
    announcer = Announcer()
    handed = 0
    for state, _ in heard:
        fresh = announcer.hear(state, 1)
        pi(Display(state, game_id=1, said=tuple(announcer.recent)))
        handed += sum(a.to is None for a in fresh)
        speaker = recorder.speaker
        assert speaker is not None
        # the table waits for the sentence here, so none is dropped as stale
        until(lambda s=speaker, n=handed: s.spoken + s.dropped >= n, "the Pi to speak")
    pi.close()
    assert speaker.dropped == 0 and speaker.problem is None
    assert len(recorder.played) == handed > 0
    for text, wav in recorder.played:
        assert seconds(wav) > 0.3, text
        assert "{" not in text and "_" not in text, text
    own = said(language, {"key": "your_turn", "params": {}})
    assert own not in [text for text, _ in recorder.played], "a seat's prompt on the Pi"


def test_a_stale_sentence_is_dropped_and_an_off_pi_says_nothing(tmp_path, quick_computer):  # noqa: F811
    _, heard = played("catch_the_hare", 2, {1}, tmp_path)
    speech = TableSpeech(SpeechConfig())
    recorder = Recorder()
    pi = PiVoice(speech, told=lambda problem: None, speaker=recorder)
    announcer = Announcer()
    for state, _ in heard[:4]:
        announcer.hear(state, 1)
        pi(Display(state, game_id=1, said=tuple(announcer.recent)))
    assert recorder.speaker is None  # off by default: no thread, nothing said
    speech.change(SpeechChange(outlet="pi", on=True))
    for state, _ in heard[4:]:  # the whole rest of the game at once: most turns pass unsaid
        announcer.hear(state, 1)
        pi(Display(state, game_id=1, said=tuple(announcer.recent)))
    speaker = recorder.speaker
    assert speaker is not None
    pi.close()
    assert speaker.dropped > 0 and speaker.spoken < len(heard)


def test_a_missing_voice_or_engine_is_a_sentence_not_a_crash(monkeypatch):
    told = []
    speech = TableSpeech(SpeechConfig(pi={"on": True, "voice": "klingon"}))
    pi = PiVoice(speech, told=told.append)
    assert speech.problem is not None and speech.problem.key == "speech.voice_missing"
    assert "klingon" in said("de", speech.problem)
    assert speech.shown.pi.problem is not None
    speech.change(SpeechChange(outlet="pi", voice=None))
    assert pi.check() and speech.problem is None
    monkeypatch.setattr(shutil, "which", lambda program: None)
    speech = TableSpeech(SpeechConfig(pi={"on": True}))
    PiVoice(speech, told=told.append)
    assert speech.problem is not None and speech.problem.key == "speech.not_installed"
    assert speech.shown.pi.problem.params["package"] == "espeak-ng"


def test_the_buzzer_sounds_a_persons_turn_unless_the_sounds_are_off(tmp_path, quick_computer):  # noqa: F811
    _, heard = played("catch_the_hare", 2, {1}, tmp_path)
    buzzed: list[str] = []
    speech = TableSpeech(SpeechConfig())  # the Pi's voice off: its sounds still play
    pi = PiVoice(speech, told=lambda problem: None, buzz=buzzed.append)
    announcer = Announcer()
    turns = 0
    for state, _ in heard[:6]:
        fresh = announcer.hear(state, 1)
        turns += any(a.sound == "your_turn" for a in fresh)
        pi(Display(state, game_id=1, said=tuple(announcer.recent)))
    assert turns and buzzed == ["your_turn"] * turns
    speech.change(SpeechChange(outlet="pi", sounds=False))
    for state, _ in heard[6:]:
        announcer.hear(state, 1)
        pi(Display(state, game_id=1, said=tuple(announcer.recent)))
    assert len(buzzed) == turns
