"""Pace: attempts held while a stated window is nearly spent, on a fake clock (pure)."""

import pytest

from llm_retry._limits import RateLimits, Unit, Window
from llm_retry._pace import IN_FLIGHT_KEPT, Pace


def limits(*windows):
    return RateLimits(tuple(windows))


def test_requests_are_admitted_down_to_the_headroom_then_wait_for_the_refill(clock):
    """60 a minute, 5 % kept: with 6 left, 3 go, the 4th waits until the stated refill."""
    pace = Pace(headroom=0.05, clock=clock)
    pace.record("s", limits(Window(Unit.REQUESTS, remaining=6, limit=60, reset=20.0)))
    assert [pace.wait("s") for _ in range(3)] == [0.0, 0.0, 0.0]
    clock.advance(5.0)
    assert pace.wait("s") == 15.0
    assert pace.wait("s") == 15.0  # a wait admits nothing
    clock.advance(16.0)
    assert [pace.wait("s") for _ in range(10)] == [0.0] * 10  # refilled: the statement is gone
    assert pace.wait("other") == 0.0


def test_a_new_statement_replaces_the_count(clock):
    """The server's count is the truth: the next response resets what was admitted."""
    pace = Pace(headroom=0.0, clock=clock)
    pace.record("s", limits(Window(Unit.REQUESTS, remaining=1, limit=None, reset=30.0)))
    assert pace.wait("s") == 0.0
    assert pace.wait("s") == 30.0
    pace.record("s", limits(Window(Unit.REQUESTS, remaining=2, limit=None, reset=30.0)))
    assert pace.wait("s") == 0.0


def test_requests_in_flight_count_against_a_newer_statement(clock):
    """Three on their way; one answers with 3 left: the two others may not be in that count."""
    pace = Pace(headroom=0.0, clock=clock)
    three = limits(Window(Unit.REQUESTS, remaining=3, limit=None, reset=30.0))
    pace.record("s", three)
    assert [pace.wait("s") for _ in range(3)] == [0.0, 0.0, 0.0]
    pace.record("s", three)  # one answered: two still in flight
    assert [pace.wait("s") for _ in range(3)] == [0.0, 30.0, 30.0]
    for _ in range(3):  # every one answered, the last statement the truth again
        pace.record("s", three)
    assert [pace.wait("s") for _ in range(4)] == [0.0, 0.0, 0.0, 30.0]


def test_requests_sent_after_the_refill_are_still_counted_in_flight(clock):
    """Past the refill nothing holds, but what is sent then must count against the next."""
    pace = Pace(headroom=0.0, clock=clock)
    three = limits(Window(Unit.REQUESTS, remaining=3, limit=None, reset=10.0))
    pace.record("s", three)
    clock.advance(11.0)
    assert [pace.wait("s") for _ in range(3)] == [0.0, 0.0, 0.0]
    pace.record("s", three)  # one of the three answered
    assert [pace.wait("s") for _ in range(2)] == [0.0, 10.0]
    clock.advance(IN_FLIGHT_KEPT + 10.0)
    pace.record("s", three)  # a minute past its refill, the count was dropped
    assert [pace.wait("s") for _ in range(4)] == [0.0, 0.0, 0.0, 10.0]


def test_a_spent_token_window_holds_every_attempt(clock):
    """Tokens: no estimate per attempt, so the window holds once what is left is the headroom."""
    pace = Pace(headroom=0.1, clock=clock)
    spent = Window(Unit.TOKENS, remaining=1000, limit=10_000, reset=12.0)
    fresh = Window(Unit.REQUESTS, remaining=50, limit=60, reset=3.0)
    pace.record("s", limits(fresh, spent))
    assert pace.wait("s") == 12.0
    pace.record("s", limits(fresh, spent._replace(remaining=1001)))
    assert pace.wait("s") == 0.0


def test_the_longest_refill_of_the_short_windows_is_waited(clock):
    """Two windows short: the later refill."""
    pace = Pace(headroom=0.0, clock=clock)
    pace.record(
        "s",
        limits(
            Window(Unit.REQUESTS, remaining=0, limit=None, reset=2.0),
            Window(Unit.TOKENS, remaining=0, limit=None, reset=9.0),
        ),
    )
    assert pace.wait("s") == 9.0


@pytest.mark.parametrize("reset", [None, 0.0])
def test_a_window_without_a_refill_time_holds_nothing(clock, reset):
    """Nothing to wait for: never paced on a guess."""
    pace = Pace(clock=clock)
    pace.record("s", limits(Window(Unit.REQUESTS, remaining=0, limit=60, reset=reset)))
    assert pace.wait("s") == 0.0


def test_scopes_are_bounded(clock):
    """Past max_scopes, the scope refilling soonest is forgotten."""
    pace = Pace(headroom=0.0, max_scopes=2, clock=clock)
    for name, reset in (("a", 5.0), ("b", 50.0), ("c", 30.0)):
        pace.record(name, limits(Window(Unit.REQUESTS, remaining=0, limit=None, reset=reset)))
    assert [pace.wait(name) for name in "abc"] == [0.0, 50.0, 30.0]


@pytest.mark.parametrize(
    ("headroom", "error"), [(1.0, ValueError), (-0.1, ValueError), ("x", TypeError)]
)
def test_headroom_is_a_share(clock, headroom, error):
    with pytest.raises(error, match="headroom"):
        Pace(headroom=headroom, clock=clock)


def test_token_estimates_count_against_a_token_window(clock):
    """100k a minute, 5 % kept: estimates of 40k fit twice; the third waits for the refill."""
    pace = Pace(headroom=0.05, clock=clock)
    tokens = Window(Unit.TOKENS, remaining=90_000, limit=100_000, reset=40.0)
    requests = Window(Unit.REQUESTS, remaining=50, limit=60, reset=5.0)
    pace.record("s", limits(requests, tokens))
    assert [pace.wait("s", tokens=40_000) for _ in range(2)] == [0.0, 0.0]
    assert pace.wait("s", tokens=40_000) == 40.0
    assert pace.wait("s", tokens=4_000) == 0.0  # 6,000 left, 5,000 kept: a small one fits
    assert pace.wait("s") == 0.0  # no estimate: only a spent window holds


def test_tokens_in_flight_count_against_a_newer_statement(clock):
    """A response ends one of the requests in flight; the others keep their share of tokens."""
    pace = Pace(headroom=0.0, clock=clock)
    stated = limits(Window(Unit.TOKENS, remaining=10_000, limit=None, reset=60.0))
    pace.record("s", stated)
    assert [pace.wait("s", tokens=3_000) for _ in range(3)] == [0.0, 0.0, 0.0]
    pace.record("s", stated)  # one answered: two in flight, 6,000 of the estimates
    assert pace.wait("s", tokens=4_000) == 0.0
    assert pace.wait("s", tokens=1) == 60.0


def test_an_estimate_larger_than_the_window_goes_when_it_is_full(clock):
    """Never held forever: the window cannot grow past its limit."""
    pace = Pace(headroom=0.05, clock=clock)
    full = limits(Window(Unit.TOKENS, remaining=1_000, limit=1_000, reset=60.0))
    pace.record("s", full)
    assert pace.wait("s", tokens=5_000) == 0.0
    assert pace.wait("s", tokens=5_000) == 60.0  # the window is no longer untouched
    pace.record("s", limits(Window(Unit.TOKENS, remaining=999, limit=1_000, reset=60.0)))
    assert pace.wait("s", tokens=5_000) == 60.0


def test_a_gradual_window_admits_as_it_refills(clock):
    """A spent bucket of 60 a minute refills one a second: each attempt waits its own share."""
    pace = Pace(headroom=0.05, clock=clock)
    bucket = Window(Unit.REQUESTS, remaining=0, limit=60, reset=60.0, gradual=True)
    pace.record("s", limits(bucket))
    assert pace.wait("s") == pytest.approx(4.0)  # 3 kept, then room for this one
    clock.advance(4.0)
    assert pace.wait("s") == 0.0
    assert pace.wait("s") == pytest.approx(1.0)  # the next one's share
    clock.advance(100.0)
    assert pace.wait("s") == 0.0  # refilled: the statement is gone
    pace.record("fixed", limits(bucket._replace(gradual=False)))
    assert pace.wait("fixed") == 60.0  # a window refilled at once is waited for whole


def test_a_gradual_token_window_waits_for_the_estimate(clock):
    """100k a minute, spent: 1,700 tokens and the 5,000 kept refill in about four seconds."""
    pace = Pace(headroom=0.05, clock=clock)
    pace.record(
        "s", limits(Window(Unit.TOKENS, remaining=0, limit=100_000, reset=60.0, gradual=True))
    )
    assert pace.wait("s", tokens=1_700) == pytest.approx(6_700 / (100_000 / 60))
    assert pace.wait("s", tokens=200_000) == 60.0  # more than the window: when it is full


def test_requests_before_any_statement_count_in_flight(clock):
    """A fleet starts unpaced; the first statement must still find its requests on their way."""
    pace = Pace(headroom=0.0, clock=clock)
    assert [pace.wait("s", tokens=100) for _ in range(3)] == [0.0, 0.0, 0.0]
    pace.record(
        "s",
        limits(
            Window(Unit.REQUESTS, remaining=3, limit=None, reset=30.0),
            Window(Unit.TOKENS, remaining=400, limit=None, reset=30.0),
        ),
    )  # one of the three answered: two, and 200 of the tokens, still in flight
    assert pace.wait("s", tokens=250) == 30.0  # 400 - 200 - 250 < 0
    assert pace.wait("s", tokens=200) == 0.0
    assert pace.wait("s", tokens=0) == 30.0  # the requests: two in flight, one admitted
