"""schemathesis against the panel's own /openapi.json: whatever a client sends, the
panel never answers with a server error (5xx). A few requests a route here, as many
as before in ``bench/bench_volume.py``."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

from boardref.outputs.panel.api import build_app
from boardref.runtime.config import load_config
from tests.boardref.conftest import PIN_HASH, started
from tests.volume import volume


@pytest.fixture(scope="module")
def panel_schema(tmp_path_factory):
    """The panel's own schema, read from a table without sensors built for this
    module's tests (not at collection: a run that selects none of them builds none)."""
    scratch = tmp_path_factory.mktemp("openapi")
    config = load_config(
        **{
            "store.path": scratch / "log.db",
            "panel.referee_pin_hash": PIN_HASH,
            "panel.hosts": ["testserver"],  # the name schemathesis calls the app by
        }
    )
    config = config.model_copy(update={"sensors": config.sensors.model_copy(update={"hall": None})})
    service = started(config)
    yield schemathesis.openapi.from_asgi("/openapi.json", build_app(service.panel))
    service.close()


@pytest.mark.slow
def test_no_request_makes_the_panel_fail(panel_schema):
    for found in panel_schema.get_all_operations():
        operation = found.ok()
        requests = st.one_of(*(operation.as_strategy(mode) for mode in GenerationMode))

        @given(requests)
        @settings(
            max_examples=volume(5, 40),
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        )
        def never_a_server_error(case):
            case.call_and_validate(checks=[not_a_server_error])

        never_a_server_error()


@pytest.mark.slow
def test_the_schema_lists_the_commands(panel_schema):
    paths = set(panel_schema.raw_schema["paths"])
    assert {"/api/state", "/api/game", "/api/draw", "/api/referee/login"} <= paths


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
