"""Shared test configuration: Hypothesis profiles (CI runs without deadlines), pytester."""

import os

from hypothesis import HealthCheck, settings

# pytester runs a user's suite against our pytest plugins (tests/adapter/testing).
pytest_plugins = ["pytester"]

settings.register_profile("default", deadline=None)
settings.register_profile(
    "ci", deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
