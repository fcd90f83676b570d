"""CircuitBreaker settings and the sliding window of outcomes (pure)."""

import pytest

from llm_retry._breaker import CircuitBreaker, Outcomes


def test_it_opens_at_the_ratio_once_the_window_has_its_volume():
    """Below min_calls never; at it, when failures reach the ratio."""
    outcomes = Outcomes(CircuitBreaker(min_calls=4, failure_ratio=0.5), max_scopes=8)
    assert not outcomes.record("s", 0.0, failed=True)
    assert not outcomes.record("s", 0.0, failed=True)
    assert not outcomes.record("s", 0.0, failed=True)  # 3 of 3: too few to tell
    assert outcomes.record("s", 0.0, failed=False)  # 3 of 4 failed
    quiet = Outcomes(CircuitBreaker(min_calls=4, failure_ratio=0.5), max_scopes=8)
    for failed in (True, False, False, False, True):
        assert not quiet.record("s", 0.0, failed=failed)  # 2 of 5


def test_outcomes_older_than_the_window_are_forgotten():
    """A sliding window: failures of two windows ago do not count."""
    outcomes = Outcomes(CircuitBreaker(min_calls=3, window=10.0), max_scopes=8)
    outcomes.record("s", 0.0, failed=True)
    outcomes.record("s", 0.5, failed=True)
    assert not outcomes.record("s", 11.0, failed=True)  # the first two have slid out
    assert not outcomes.record("s", 11.5, failed=True)
    assert outcomes.record("s", 12.0, failed=True)


def test_scopes_are_apart_bounded_and_forgettable():
    """One scope's failures never open another's; the oldest-heard scope goes first."""
    outcomes = Outcomes(CircuitBreaker(min_calls=2, failure_ratio=1.0), max_scopes=2)
    outcomes.record("a", 0.0, failed=True)
    outcomes.record("b", 0.0, failed=True)
    outcomes.record("c", 0.0, failed=True)  # "a" is dropped to make room
    assert not outcomes.record("a", 0.0, failed=True)
    assert outcomes.record("c", 0.0, failed=True)
    outcomes.forget("c")
    assert not outcomes.record("c", 0.0, failed=True)


def test_a_failed_probe_doubles_the_open_time_up_to_the_cap():
    settings = CircuitBreaker(open_for=5.0, max_open_for=30.0)
    assert [settings.reopened(t) for t in (5.0, 10.0, 20.0, 30.0)] == [10.0, 20.0, 30.0, 30.0]


@pytest.mark.parametrize(
    ("settings", "error", "match"),
    [
        ({"failure_ratio": 0}, ValueError, "failure_ratio"),
        ({"failure_ratio": 1.5}, ValueError, "failure_ratio"),
        ({"min_calls": 0}, ValueError, "min_calls"),
        ({"window": 0}, ValueError, "window"),
        ({"open_for": -1}, ValueError, "open_for"),
        ({"open_for": 10, "max_open_for": 5}, ValueError, "max_open_for"),
        ({"min_calls": "3"}, TypeError, "min_calls"),
    ],
)
def test_settings_are_checked(settings, error, match):
    with pytest.raises(error, match=match):
        CircuitBreaker(**settings)
