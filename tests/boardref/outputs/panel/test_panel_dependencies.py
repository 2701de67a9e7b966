"""Every dependency of the panel's routes runs on the event loop: FastAPI hands a
plain function to a worker thread and back, on every request that names it."""

from __future__ import annotations

import inspect

from fastapi.routing import APIRoute, APIWebSocketRoute

from boardref.outputs.panel.api import build_app


def _routes(routes):
    """The app's routes, those of the routers it includes too."""
    for route in routes:
        if isinstance(route, APIRoute | APIWebSocketRoute):
            yield route
        included = getattr(route, "original_router", None)  # an included router
        if included is not None:
            yield from _routes(included.routes)


def _dependencies(dependant):
    for below in dependant.dependencies:
        yield below
        yield from _dependencies(below)


def test_every_dependency_of_a_route_is_a_coroutine(service):
    routes = list(_routes(build_app(service.panel).routes))
    plain = {
        f"{route.path}: {getattr(d.call, '__qualname__', d.call)}"
        for route in routes
        for d in _dependencies(route.dependant)
        if d.call is not None and not inspect.iscoroutinefunction(d.call)
    }
    assert any(route.path == "/api/health" for route in routes)
    assert not plain
