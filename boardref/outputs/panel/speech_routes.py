"""The referee's speech settings: ``POST /api/speech`` changes how the kiosk, the
phones or the Pi speak, and every page is shown the new settings at once (in its
state's ``speech``).

Referee only. It never decides anything about the game; a value out of range is
refused in words (422) before anything changes.
"""

from __future__ import annotations

from fastapi import APIRouter

from boardref.outputs.panel.routes import CHANGE, ONLY_REFEREE, ThePanel
from boardref.outputs.speech import SpeechChange, SpeechShown

speech_router = APIRouter()


@speech_router.post(
    "/api/speech", response_model=SpeechShown, dependencies=[*CHANGE, ONLY_REFEREE]
)
async def speech(body: SpeechChange, panel: ThePanel) -> SpeechShown:
    """Change one outlet's speech: the fields given, the others kept."""
    return panel.control.set_speech(body)
