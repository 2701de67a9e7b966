"""The Pi's voice, for real: espeak-ng makes the WAV files through the code the service
uses, Python's ``wave`` measures them, and a missing engine or voice is a sentence.

The speaker's thread is run with the real engine and a player that only notes what it
was handed (this machine has no sound card); a sentence whose moment has passed is
not said."""

import io
import shutil
import threading
import wave

import pytest

from boardref.outputs import voice
from boardref.outputs.panel.words import said, table
from boardref.outputs.speaker import Speaker, Utterance
from engines.words import words

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        shutil.which("espeak-ng") is None, reason="apt-get install espeak-ng (.ci/run does)"
    ),
]

#: sentences of the table in both languages, with their parameters
SENTENCES = [
    words("speech.no_voice", "No {engine} voice is set for {language}: name one under [speech]",
          engine="espeak-ng", language="fr"),
    words("speech.engine_failed", "{engine} could not say the sentence: {reason}",
          engine="piper", reason="the model file is damaged"),
]


def seconds(wav: bytes) -> float:
    with wave.open(io.BytesIO(wav)) as sound:
        return sound.getnframes() / sound.getframerate()


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_voices_own_sentences_are_said_in_both_languages(language):
    keys = [key for key in table(language) if key.startswith("speech.")]
    assert len(keys) >= 6
    for sentence in SENTENCES:
        text = said(language, sentence)
        assert "{" not in text and "speech." not in text
        assert seconds(voice.render(text, language, voice.VoiceSettings())) > 1.0, text


def test_speed_and_volume_change_the_sound():
    text = "Red to move: roll the die."
    normal = voice.render(text, "en", voice.VoiceSettings())
    slow = voice.render(text, "en", voice.VoiceSettings(speed=0.5))
    assert seconds(slow) > 1.5 * seconds(normal)
    quiet = voice.louder(normal, 0.25)
    loud_peak = max(abs(s) for s in memoryview(normal[44:]).cast("h"))
    quiet_peak = max(abs(s) for s in memoryview(quiet[44:]).cast("h"))
    assert 0 < quiet_peak <= loud_peak // 3


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        (voice.VoiceSettings(engine="festival"), "speech.no_engine"),
        (voice.VoiceSettings(engine="piper", voices=(("de", "/nowhere/de.onnx"),)),
         "speech.not_installed" if shutil.which("piper") is None else "speech.voice_missing"),
        (voice.VoiceSettings(voices=(("de", "no-such-voice"),)), "speech.voice_missing"),
    ],
)
def test_a_missing_engine_or_voice_is_a_sentence(settings, key):
    with pytest.raises(voice.VoiceMissing) as missing:
        voice.render("Hallo", "de", settings)
    assert missing.value.said.key == key
    assert str(missing.value)  # English for the log
    for language in ("en", "de"):
        assert "{" not in said(language, missing.value.said)


def test_the_speaker_says_what_is_due_and_drops_what_came_too_late():
    moment = ["turn 1"]
    played: list[float] = []
    done = threading.Event()

    def play(sound: bytes, device: str) -> None:
        played.append(seconds(sound))
        done.set()

    speaker = Speaker(voice.VoiceSettings(), "de", lambda: moment[0], play=play)
    try:
        speaker.say(Utterance(words("speech.no_sound", "x", device="hw:0", reason="busy"),
                              "turn 1"))
        assert done.wait(30)
        moment[0] = "turn 2"
        speaker.say(Utterance(SENTENCES[0], "turn 1"))  # about a turn that is over
        speaker.close()
        assert len(played) == 1 and played[0] > 1.0
        assert (speaker.spoken, speaker.dropped) == (1, 1)
        assert speaker.problem is None and len(speaker.delays) == 1
    finally:
        speaker.close()


def test_a_speaker_without_its_engine_keeps_the_problem_and_goes_on():
    speaker = Speaker(voice.VoiceSettings(engine="festival"), "en", lambda: 0,
                      play=lambda sound, device: None)
    speaker.say(Utterance(SENTENCES[0], 0))
    speaker.close()
    assert speaker.problem is not None and speaker.problem.key == "speech.no_engine"
    assert speaker.spoken == 0
