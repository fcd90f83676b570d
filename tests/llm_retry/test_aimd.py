"""A rate learned from 429s alone (AIMD), on a fake clock (pure), and in the in-process backend."""

import pytest

from llm_errors import RateLimitError, ServerError
from llm_retry import InProcessCoordination, LearnedRate
from llm_retry._aimd import MEASURE_WINDOW, Learner


def send(learner, clock, count, every):
    """``count`` attempts ``every`` seconds apart; the waits each was told."""
    waits = []
    for _ in range(count):
        waits.append(learner.wait("s"))
        clock.advance(every)
    return waits


def test_a_scope_without_a_429_is_never_held(clock):
    """No 429, no rate: any number of attempts at once."""
    learner = Learner(LearnedRate(), clock=clock)
    assert [learner.wait("s") for _ in range(1000)] == [0.0] * 1000
    assert learner.rate("s") is None


def test_a_429_halves_the_rate_measured_and_spaces_the_attempts(clock):
    """40 attempts a second measured; a 429 sets 20 a second: one every 50 ms."""
    learner = Learner(LearnedRate(decrease=0.5, increase=0.0), clock=clock)
    send(learner, clock, 40, 1 / 40)
    learner.limited("s")
    assert learner.rate("s") == pytest.approx(20.0)
    assert learner.wait("s") == pytest.approx(0.05)  # the next free time is a spacing away
    clock.advance(0.05)
    assert learner.wait("s") == 0.0
    assert learner.wait("s") == pytest.approx(0.05)  # a wait admits nothing
    clock.advance(0.02)
    assert learner.wait("s") == pytest.approx(0.03)


def test_the_rate_grows_by_the_increase_each_second(clock):
    """Additive increase: 5 % of the rate set, per second, until the next 429."""
    learner = Learner(LearnedRate(decrease=0.5, increase=0.05), clock=clock)
    send(learner, clock, 40, 1 / 40)
    learner.limited("s")
    clock.advance(10.0)
    assert learner.rate("s") == pytest.approx(20.0 * 1.5)
    clock.advance(10.0)
    assert learner.rate("s") == pytest.approx(20.0 * 2.0)


def test_a_second_429_decreases_from_the_lower_of_allowed_and_measured(clock):
    """Sending below the rate allowed, the rate measured is what is halved."""
    learner = Learner(LearnedRate(decrease=0.5, increase=0.0, hold=0.5), clock=clock)
    send(learner, clock, 40, 1 / 40)
    learner.limited("s")  # 20 a second allowed
    clock.advance(1.0)
    send(learner, clock, 10, 0.1)  # 10 a second sent
    learner.limited("s")
    assert learner.rate("s") == pytest.approx(5.0)


def test_429s_within_the_hold_decrease_once(clock):
    """Requests already on their way when the first 429 came back decrease nothing more."""
    learner = Learner(LearnedRate(decrease=0.5, increase=0.0, hold=0.5), clock=clock)
    send(learner, clock, 40, 1 / 40)
    learner.limited("s")
    clock.advance(0.2)
    learner.limited("s")
    learner.limited("s")
    assert learner.rate("s") == pytest.approx(20.0)
    clock.advance(0.4)
    learner.limited("s")  # past the hold: a new decrease, from the rate allowed
    assert learner.rate("s") == pytest.approx(10.0)


def test_the_rate_never_falls_below_the_minimum(clock):
    learner = Learner(LearnedRate(decrease=0.1, min_rate=2.0, hold=0.0), clock=clock)
    for _ in range(10):
        learner.limited("s")
        clock.advance(0.01)
    assert learner.rate("s") >= 2.0


def test_a_first_429_with_nothing_measured_starts_at_the_minimum(clock):
    """Nothing admitted yet to measure: the floor, from which the rate grows."""
    learner = Learner(LearnedRate(min_rate=1.5, increase=0.0), clock=clock)
    learner.limited("s")
    assert learner.rate("s") == 1.5


def test_the_rate_measured_is_the_last_full_window_s_when_the_current_is_short(clock):
    """A 429 right after a window closed reads the window before it."""
    learner = Learner(LearnedRate(decrease=0.5, increase=0.0), clock=clock)
    send(learner, clock, 30, MEASURE_WINDOW / 30)  # 30 a second over one full window
    learner.wait("s")  # opens the next window
    clock.advance(0.01)
    learner.limited("s")
    assert learner.rate("s") == pytest.approx(15.0, rel=0.05)


def test_a_learned_rate_is_forgotten_after_its_last_429(clock):
    learner = Learner(LearnedRate(increase=0.0, forget=60.0), clock=clock)
    send(learner, clock, 40, 1 / 40)
    learner.limited("s")
    clock.advance(61.0)
    assert learner.rate("s") is None
    assert [learner.wait("s") for _ in range(100)] == [0.0] * 100


def test_scopes_are_bounded(clock):
    """Past ``max_scopes`` the least recently used scope is forgotten."""
    learner = Learner(LearnedRate(), max_scopes=2, clock=clock)
    for scope in ("a", "b", "c"):
        learner.limited(scope)
    assert learner.rate("a") is None
    assert learner.rate("b") is not None
    assert learner.rate("c") is not None


@pytest.mark.parametrize(
    "settings",
    [
        {"decrease": 1.0},
        {"decrease": 0.0},
        {"increase": -0.1},
        {"min_rate": 0.0},
        {"hold": -1.0},
        {"forget": 0.0},
        {"decrease": "0.5"},
    ],
)
def test_bad_settings_fail_at_construction(settings):
    with pytest.raises((TypeError, ValueError)):
        LearnedRate(**settings)


def test_the_backend_learns_only_when_asked(clock, make_policy, script):
    """``learn=None`` (the default): a 429 holds nothing beyond its cooldown."""
    plain = InProcessCoordination(clock=clock)
    plain.record_limited("s")
    assert plain.learner is None
    assert [plain.admit("s").wait for _ in range(100)] == [0.0] * 100
    with pytest.raises(TypeError, match="learn must be a LearnedRate"):
        InProcessCoordination(learn=0.5)


def test_a_rate_limit_teaches_the_policy_s_scope_its_rate(clock, make_policy, script):
    """A 429 through a policy decreases the scope's rate; a 503 does not."""
    shared = InProcessCoordination(clock=clock, learn=LearnedRate(increase=0.0, hold=0.0))
    policy = make_policy(coordination=shared, scope="s", max_attempts=2, initial_wait=0.0)
    for _ in range(20):
        shared.admit("s")
        clock.advance(0.05)  # 20 a second measured
    policy.wrap(script(ServerError("down"), "ok"))()
    assert shared.learner.rate("s") is None
    policy.wrap(script(RateLimitError("slow down", retry_after=0.0), "ok"))()
    rate = shared.learner.rate("s")
    assert rate is not None
    assert 5.0 < rate < 15.0  # half of the 20 to 30 a second the calls above measured
    assert shared.admit("s").wait > 0  # spaced: the call just sent took the free time


def test_a_held_prober_gives_its_lease_back(clock):
    """After a cooldown the prober held by the learned rate leaves the probe to the next."""
    learn = LearnedRate(increase=0.0, hold=0.0, min_rate=4.0)
    shared = InProcessCoordination(clock=clock, learn=learn)
    shared.record_limited("s")  # the floor: one every 250 ms, within the 1 s probe lease
    shared.extend_cooldown("s", 1.0)
    clock.advance(0.9)
    assert shared.learner.wait("s") == 0.0  # an attempt of another kind takes the free time
    clock.advance(0.1)
    held = shared.admit("s")
    assert held.probe is None
    assert held.wait > 0
    clock.advance(held.wait)
    assert shared.admit("s").probe is not None  # the lease was given back
