"""schemathesis against the panel's own /openapi.json: whatever a client sends, the
panel never answers with a server error (5xx). A few requests a route here, as many
as before in ``bench/bench_volume.py``."""

from __future__ import annotations

import asyncio
import atexit
import shutil
import tempfile

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from boardref.outputs.panel.api import build_app
from boardref.runtime.config import load_config
from boardref.runtime.service import Service
from tests.boardref.conftest import PIN_HASH
from tests.volume import volume


def _panel_app():
    # The app is built when the module is collected, before any fixture: its scratch
    # folder is removed when the test run ends.
    scratch = tempfile.mkdtemp(prefix="boardref-openapi-")
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)
    config = load_config(
        **{
            "store.path": f"{scratch}/log.db",
            "panel.referee_pin_hash": PIN_HASH,
            "panel.hosts": ["testserver"],  # the name schemathesis calls the app by
        }
    )
    config = config.model_copy(update={"sensors": config.sensors.model_copy(update={"hall": None})})
    service = Service(config)
    service.start(asyncio.new_event_loop())
    return build_app(service.panel)


schema = schemathesis.openapi.from_asgi("/openapi.json", _panel_app())


@schema.parametrize()
@settings(
    max_examples=volume(5, 40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_no_request_makes_the_panel_fail(case):
    case.call_and_validate(checks=[not_a_server_error])


def test_the_schema_lists_the_commands():
    paths = set(schema.raw_schema["paths"])
    assert {"/api/state", "/api/game", "/api/draw", "/api/referee/login"} <= paths


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
