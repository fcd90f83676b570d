"""Fixtures for llm_retry: a fake clock, scripted backends, and the plugin's fixture."""

import pytest

from llm_retry import RetryPolicy

# The fixture users get from the ``pytest11`` entry point; imported here so this
# suite gets it even before the plugin is registered.
from llm_retry._pytest_plugin import llm_retry_testing

__all__ = ["llm_retry_testing"]


class FakeClock:
    """A monotonic clock that only moves when something sleeps or work is simulated."""

    def __init__(self):
        self.now = 1000.0
        self.sleeps = []

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds

    async def async_sleep(self, seconds):
        self.sleep(seconds)


class Script:
    """A fake backend: raises or returns the scripted outcomes in order, counting calls.

    An exception *class* in the script is instantiated fresh for each call, so notes
    never pile up on a shared instance. The last outcome repeats.
    """

    def __init__(self, *outcomes, clock=None, latency=0.0):
        self.outcomes = list(outcomes)
        self.calls = 0
        self.clock = clock
        self.latency = latency

    def next_outcome(self):
        outcome = self.outcomes[min(self.calls, len(self.outcomes) - 1)]
        self.calls += 1
        if self.clock is not None:
            self.clock.advance(self.latency)
        if isinstance(outcome, type) and issubclass(outcome, BaseException):
            outcome = outcome("scripted failure")
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def __call__(self, *_args, **_kwargs):
        return self.next_outcome()

    async def acall(self, *_args, **_kwargs):
        return self.next_outcome()


@pytest.fixture
def clock():
    """A fresh fake clock."""
    return FakeClock()


@pytest.fixture
def make_policy(clock):
    """Build policies that sleep on the fake clock, without jitter or logging."""

    def build(**settings):
        defaults = {
            "clock": clock,
            "sleep": clock.sleep,
            "async_sleep": clock.async_sleep,
            "jitter": False,
            "on_retry": None,
        }
        return RetryPolicy(**(defaults | settings))

    return build


@pytest.fixture
def script(clock):
    """Build scripted backends whose attempts may take fake time (``latency``)."""

    def build(*outcomes, latency=0.0):
        return Script(*outcomes, clock=clock, latency=latency)

    return build
