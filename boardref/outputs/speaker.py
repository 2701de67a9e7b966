"""The Pi's speaker: sentences said one after another on a thread of their own, in the
table's language, and dropped when they come too late.

Each sentence belongs to a moment of the game (``Utterance.moment``: the game, the
number of plies, the phase). When its turn to be said comes and the table has moved
on to another moment, it is dropped: a turn's prompt is never read after the turn is
over. A newer sentence of the same moment waits behind an older one; a burst of many
keeps only the last few (``WAITING``). Saying never blocks the caller (the event loop);
a missing engine or voice is logged once, in words, and kept for the referee page.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from boardref.outputs import voice
from boardref.outputs.panel.words import said
from engines.words import Words

log = logging.getLogger("boardref")

#: sentences that may wait to be said; an older one is dropped for a newer one
WAITING = 4


@dataclass(frozen=True)
class Utterance:
    """One sentence to say, and the moment of the game it is about."""

    #: words, or their JSON as the announcer gives them (``{"key", "params"}``)
    said: Words | dict[str, Any]
    moment: Hashable
    #: when it was asked for (``time.monotonic``): the time to speech is measured from it
    asked: float = field(default_factory=time.monotonic)


class Speaker:
    """Says ``Utterance``s through ``voice`` on its own thread, dropping stale ones.

    ``moment()`` is the table's moment now (read on the speaker's thread, so it must
    be cheap and safe to read there: one attribute). ``render`` and ``play`` are the
    engine's (``voice.render`` / ``voice.play``); a bench may hand others that time
    what happens."""

    def __init__(
        self,
        settings: voice.VoiceSettings,
        language: str,
        moment: Callable[[], Hashable],
        render: Callable[[str, str, voice.VoiceSettings], bytes] = voice.render,
        play: Callable[[bytes, str], None] = voice.play,
        told: Callable[[Words | None], None] = lambda problem: None,
    ):
        self.settings = settings
        self.language = language
        self.moment = moment
        self._render = render
        self._play = play
        #: called on the speaker's thread when ``problem`` changes
        self._told = told
        self._waiting: queue.Queue[Utterance | None] = queue.Queue()
        #: what is wrong with the voice (``VoiceMissing.said``), None while it speaks
        self.problem: Words | None = None
        #: seconds from asking to the start of playing, of each sentence said
        self.delays: list[float] = []
        #: sentences said, and dropped as too late
        self.spoken = 0
        self.dropped = 0
        self._thread = threading.Thread(target=self._run, name="speaker", daemon=True)
        self._thread.start()

    def say(self, utterance: Utterance) -> None:
        """Queue ``utterance``; returns at once."""
        while self._waiting.qsize() >= WAITING:
            try:
                self._waiting.get_nowait()
                self.dropped += 1
            except queue.Empty:
                break
        self._waiting.put(utterance)

    def close(self, timeout: float = 5.0) -> None:
        """Stop after the sentence being said."""
        self._waiting.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        while (utterance := self._waiting.get()) is not None:
            if utterance.moment != self.moment():
                self.dropped += 1
                continue
            try:
                sound = self._render(said(self.language, utterance.said), self.language,
                                     self.settings)
                if utterance.moment != self.moment():  # the table moved on meanwhile
                    self.dropped += 1
                    continue
                self.delays.append(time.monotonic() - utterance.asked)
                self._play(sound, self.settings.device)
            except voice.VoiceMissing as missing:
                if self.problem != missing.said:
                    log.warning("the table cannot speak: %s", missing)
                self._trouble(missing.said)
                continue
            except Exception:  # the speaker must never take the table down with it
                log.exception("the speaker failed to say a sentence")
                continue
            self._trouble(None)
            self.spoken += 1

    def _trouble(self, problem: Words | None) -> None:
        if problem != self.problem:
            self.problem = problem
            self._told(problem)
