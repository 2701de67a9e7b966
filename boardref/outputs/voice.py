"""The Pi's own voice: a sentence made into sound by an offline speech engine, for a
table with a speaker and no screen.

Two engines, both run as programs: espeak-ng (Debian's ``espeak-ng``, every language
boardref speaks) and Piper (a ``piper`` program and a voice file, ``*.onnx``, where a
café has installed one: it sounds more natural and costs more CPU). Each makes a WAV
file, scaled to the table's volume; ALSA's ``aplay`` plays it. An engine or voice that
is not there is a ``VoiceMissing`` with a sentence saying what to install, never a
crash.

Everything here blocks (a program runs), so it is never called on the event loop:
``speaker.Speaker`` calls it from its own thread.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from engines.words import Words, words

#: the engines a table may name in ``[speech] engine``
ENGINES = ("espeak-ng", "piper")
#: espeak-ng's voice for each language the pages speak, unless the config names another
ESPEAK_VOICES = {"en": "en-gb", "de": "de"}
#: espeak-ng's words per minute at speed 1.0
ESPEAK_WPM = 165
#: how long an engine may take for one sentence before it is given up
RENDER_TIMEOUT_S = 20.0


class VoiceMissing(RuntimeError):
    """The engine or voice a table asks for is not installed; ``said`` tells how to
    install it, in words a page translates."""

    def __init__(self, said: Words):
        super().__init__(str(said))
        self.said = said


@dataclass(frozen=True)
class VoiceSettings:
    """How the Pi speaks: ``speed`` 1.0 is the engine's normal pace, ``volume`` 0-1."""

    engine: str = "espeak-ng"
    #: the engine's voice per language (espeak-ng's voice name, or a Piper ``.onnx``
    #: file); a language without one takes espeak-ng's own (``ESPEAK_VOICES``)
    voices: tuple[tuple[str, str], ...] = ()
    speed: float = 1.0
    volume: float = 0.8
    #: the ALSA device ``aplay -D`` plays on ("default": the system's)
    device: str = "default"

    def voice(self, language: str) -> str | None:
        return dict(self.voices).get(language) or (
            ESPEAK_VOICES.get(language) if self.engine == "espeak-ng" else None
        )


def command(
    text: str, language: str, settings: VoiceSettings, wav: Path
) -> tuple[list[str], bytes | None]:
    """The program that writes ``text`` said in ``language`` to the WAV file ``wav``,
    and what it reads on its standard input. Raises ``VoiceMissing`` if the engine or
    voice is absent."""
    voice = settings.voice(language)
    if settings.engine == "espeak-ng":
        program = _installed("espeak-ng", "espeak-ng")
        if voice is None:
            raise VoiceMissing(no_voice(settings.engine, language))
        if voice.split("+")[0].lower() not in espeak_voices(program):
            # espeak-ng says an unknown voice in its default one, without a word
            raise VoiceMissing(no_voice(settings.engine, language, voice))
        wpm = round(ESPEAK_WPM * settings.speed)
        return [program, "-v", voice, "-s", str(wpm), "-w", str(wav), "--", text], None
    if settings.engine == "piper":
        program = _installed("piper", "piper-tts")
        if voice is None or not Path(voice).is_file():
            raise VoiceMissing(no_voice(settings.engine, language, voice))
        # Piper's length scale stretches speech: 2.0 is half as fast
        return [program, "--model", voice, "--length_scale", f"{1.0 / settings.speed:.2f}",
                "--output_file", str(wav)], text.encode()
    raise VoiceMissing(
        words("speech.no_engine", "There is no speech engine called {engine}: choose "
              "espeak-ng or piper", engine=settings.engine)
    )


@cache
def espeak_voices(program: str) -> frozenset[str]:
    """Every name espeak-ng knows a voice by (language, voice name, file), lower case;
    a variant (``en-gb+f3``) is named by the part before its ``+``."""
    listing = subprocess.run([program, "--voices"], capture_output=True, text=True,
                             timeout=RENDER_TIMEOUT_S, check=False).stdout
    names: set[str] = set()
    for line in listing.splitlines()[1:]:
        columns = line.split()
        if len(columns) >= 5:  # priority, language, age/gender, name, file, others
            names.update(name.lower() for name in (columns[1], columns[3], columns[4]))
    return frozenset(names)


def voices_for(engine: str, language: str, piper_folder: str) -> list[str]:
    """The voices ``engine`` has for ``language``, as ``[speech.pi] voice`` names them:
    espeak-ng's language variants ("de", "en-gb", "en-us"...; its MBROLA voices need
    packages of their own and are left out), or the Piper voice files in
    ``piper_folder`` whose name starts with the language ("de_DE-thorsten-low.onnx").
    Raises ``VoiceMissing`` when the engine is not installed."""
    if engine == "piper":
        _installed("piper", "piper-tts")
        folder = Path(piper_folder)
        found = sorted(folder.glob(f"{language}_*.onnx")) if folder.is_dir() else []
        return [str(path) for path in found]
    program = _installed("espeak-ng", "espeak-ng")
    listing = subprocess.run([program, f"--voices={language}"], capture_output=True,
                             text=True, timeout=RENDER_TIMEOUT_S, check=False).stdout
    rows = [line.split() for line in listing.splitlines()[1:]]
    return list(dict.fromkeys(
        row[1] for row in rows if len(row) >= 5 and not row[4].startswith("mb/")
    ))


def render(text: str, language: str, settings: VoiceSettings) -> bytes:
    """``text`` said in ``language`` at the settings' volume, as the bytes of a WAV file."""
    with tempfile.TemporaryDirectory(prefix="boardref-voice-") as folder:
        wav = Path(folder) / "said.wav"
        argv, stdin = command(text, language, settings, wav)
        try:
            done = subprocess.run(argv, input=stdin, capture_output=True,
                                  timeout=RENDER_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as problem:
            raise VoiceMissing(_failed(settings.engine, str(problem))) from problem
        if done.returncode != 0 or not wav.is_file():
            reason = done.stderr.decode(errors="replace").strip().splitlines()
            raise VoiceMissing(_failed(settings.engine, reason[-1] if reason else "no sound"))
        return louder(wav.read_bytes(), settings.volume)


def louder(wav: bytes, volume: float) -> bytes:
    """A 16-bit WAV file's bytes with every sample scaled by ``volume`` (0-1): the
    engines differ in how they set a volume, a sample is the same everywhere."""
    with wave.open(io.BytesIO(wav)) as said:
        shape, frames = said.getparams(), said.readframes(said.getnframes())
    if shape.sampwidth != 2:
        return wav
    import numpy  # loaded once the table first speaks, not at every service start

    samples = numpy.frombuffer(frames, dtype="<i2").astype(numpy.float32) * volume
    out = io.BytesIO()
    with wave.open(out, "wb") as scaled:
        scaled.setparams(shape)
        scaled.writeframes(numpy.clip(samples, -32768, 32767).astype("<i2").tobytes())
    return out.getvalue()


def play(wav: bytes, device: str = "default") -> None:
    """Play a WAV file's bytes on the ALSA ``device`` and return when it has been said."""
    program = _installed("aplay", "alsa-utils")
    done = subprocess.run([program, "-q", "-D", device, "-"], input=wav,
                          capture_output=True, check=False)
    if done.returncode != 0:
        reason = done.stderr.decode(errors="replace").strip().splitlines()
        said = reason[-1] if reason else f"aplay ended with {done.returncode}"
        raise VoiceMissing(
            words("speech.no_sound", "The speaker could not play on {device}: {reason}",
                  device=device, reason=said)
        )


def _installed(program: str, package: str) -> str:
    found = shutil.which(program)
    if found is None:
        raise VoiceMissing(
            words("speech.not_installed", "{program} is not installed: install the "
                  "{package} package to hear the table", program=program, package=package)
        )
    return found


def no_voice(engine: str, language: str, voice: str | None = None) -> Words:
    """The words for a voice that is not set, or not installed."""
    if voice:
        return words("speech.voice_missing", "The voice {voice} is not installed, so the "
                     "table is silent in {language}", voice=voice, language=language)
    return words("speech.no_voice", "No {engine} voice is set for {language}: name one "
                 "under [speech]", engine=engine, language=language)


def _failed(engine: str, reason: str) -> Words:
    return words("speech.engine_failed", "{engine} could not say the sentence: {reason}",
                 engine=engine, reason=reason)
