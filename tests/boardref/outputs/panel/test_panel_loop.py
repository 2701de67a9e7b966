"""The panel's requests are answered on the event loop without a worker thread: a
plain (not async) endpoint or dependency is handed by FastAPI to a worker thread on
every request, which on a Pi costs the loop more than the function itself."""

import inspect

from fastapi.routing import APIRoute, APIWebSocketRoute

from boardref.outputs.panel.api import build_app


def calls_of(dependant):
    """The endpoint and every dependency of ``dependant``, depth first."""
    yield dependant.call
    for below in dependant.dependencies:
        yield from calls_of(below)


def routes_of(routes):
    """Every route of ``routes``, those of included routers too."""
    for route in routes:
        included = getattr(route, "original_router", None)  # FastAPI keeps them apart
        yield from [route] if included is None else routes_of(included.routes)


def plain_calls(app) -> list[str]:
    found = set()
    routes = [r for r in routes_of(app.routes) if isinstance(r, APIRoute | APIWebSocketRoute)]
    assert len(routes) > 40  # the routers' routes were found
    for route in routes:
        found |= {
            call.__qualname__
            for call in calls_of(route.dependant)
            if call is not None and not inspect.iscoroutinefunction(call)
        }
    return sorted(found)


def test_no_route_hands_its_request_to_a_worker_thread(service):
    assert plain_calls(build_app(service.panel)) == []


def test_a_plain_dependency_is_found(service):
    from fastapi import Depends

    app = build_app(service.panel)

    def plain() -> int:
        return 1

    @app.get("/plain")
    async def answer(value: int = Depends(plain)) -> int:
        return value

    assert plain_calls(app) == ["test_a_plain_dependency_is_found.<locals>.plain"]
