"""Hypothesis settings for the whole suite: a generated test judges what the code does,
never how fast a shared, busy machine runs it (speed is measured in bench/)."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "suite",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("suite")
