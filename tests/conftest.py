"""Shared test configuration: Hypothesis profiles (CI runs without deadlines)."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None)
settings.register_profile(
    "ci", deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
