"""Fallback by error code: the rule table, the hops it picks, streams, the group raised, misuse."""

import asyncio
import inspect
import logging
import math

import pytest
import tenacity

from llm_errors import (
    AbortedError,
    AuthError,
    ContentFilterError,
    ContextOverflowError,
    ErrorCode,
    InvalidRequestError,
    LlmTimeoutError,
    ProviderError,
    QuotaExceededError,
    RateLimitError,
    ServerError,
    TransportError,
    classify,
)
from llm_retry import (
    DEFAULT_FALLBACK_RULES,
    DEFAULT_FALLBACK_WAIT,
    CircuitBreaker,
    FallbackRule,
    Hop,
    InProcessCoordination,
    fallback,
    fallback_predicate,
    retry_llm,
)
from llm_retry._coordination import FailOpen
from llm_retry._fallback import Next, Stop, Wait, decide

NEXT, LARGER, OTHER_KEY, OTHER_PROVIDER, STOP = (
    FallbackRule.NEXT,
    FallbackRule.LARGER_WINDOW,
    FallbackRule.OTHER_KEY,
    FallbackRule.OTHER_PROVIDER,
    FallbackRule.STOP,
)

#: The issue's table, written out: each code and where its error sends the call.
EXPECTED_RULES = {
    ErrorCode.RATE_LIMIT: NEXT,
    ErrorCode.SERVER: NEXT,
    ErrorCode.TIMEOUT: NEXT,
    ErrorCode.TRANSPORT: NEXT,
    ErrorCode.CONTEXT_OVERFLOW: LARGER,
    ErrorCode.QUOTA_EXCEEDED: OTHER_KEY,
    ErrorCode.AUTH: OTHER_KEY,
    ErrorCode.CONTENT_FILTER: STOP,
    ErrorCode.INVALID_REQUEST: STOP,
    ErrorCode.PROVIDER_ERROR: STOP,
    ErrorCode.ABORTED: STOP,
}

#: One real error per code.
ERRORS = {
    ErrorCode.RATE_LIMIT: RateLimitError,
    ErrorCode.SERVER: ServerError,
    ErrorCode.TIMEOUT: LlmTimeoutError,
    ErrorCode.TRANSPORT: TransportError,
    ErrorCode.CONTEXT_OVERFLOW: ContextOverflowError,
    ErrorCode.QUOTA_EXCEEDED: QuotaExceededError,
    ErrorCode.AUTH: AuthError,
    ErrorCode.CONTENT_FILTER: ContentFilterError,
    ErrorCode.INVALID_REQUEST: InvalidRequestError,
    ErrorCode.PROVIDER_ERROR: ProviderError,
    ErrorCode.ABORTED: AbortedError,
}


#: The module the test hops are defined in: how notes and logs name a hop without ``name``.
HERE = __name__


def error(code, provider="a"):
    """A fresh real ``llm_errors`` exception of ``code``."""
    return ERRORS[code](f"scripted {code}", provider=provider)


class Backend:
    """Scripted hops: each name raises its scripted errors in turn, then answers its name."""

    def __init__(self, **scripts):
        self.scripts = {name: list(outcomes) for name, outcomes in scripts.items()}
        self.calls = []

    def outcome(self, name, args):
        """Record the call; raise the hop's next scripted error, or answer its name."""
        self.calls.append((name, args))
        script = self.scripts.get(name, [])
        if script:
            raise script.pop(0)
        return name

    def sync(self, name):
        """A sync hop called ``name``."""

        def hop(*args):
            return self.outcome(name, args)

        hop.__qualname__ = name
        return hop

    def asynchronous(self, name):
        """An async hop called ``name``."""

        async def hop(*args):
            await asyncio.sleep(0)
            return self.outcome(name, args)

        hop.__qualname__ = name
        return hop

    @property
    def called(self):
        """The hops called, in order."""
        return [name for name, _ in self.calls]


@pytest.fixture
def coordination(clock):
    """A real in-process backend on the fake clock."""
    return InProcessCoordination(clock=clock)


@pytest.fixture
def chain(clock):
    """``fallback`` on the fake clock."""

    def build(*hops, **settings):
        return fallback(
            *hops,
            **{"clock": clock, "sleep": clock.sleep, "async_sleep": clock.async_sleep} | settings,
        )

    return build


# --- the table ------------------------------------------------------------------------


def test_the_default_table_has_the_issue_s_row_for_every_code(table):
    """Every code has exactly the rule the issue asks for; none is left unmapped."""
    assert set(DEFAULT_FALLBACK_RULES) == set(ErrorCode)
    table.check(
        ((code.value, (code,)) for code in ErrorCode),
        lambda code: _check_row(DEFAULT_FALLBACK_RULES[code], EXPECTED_RULES[code]),
    )


def _check_row(actual, expected):
    assert actual is expected, f"{actual} != {expected}"


def test_the_table_is_read_only():
    """The default table cannot be changed in place; overrides go through ``rules=``."""
    with pytest.raises(TypeError):
        DEFAULT_FALLBACK_RULES[ErrorCode.CONTENT_FILTER] = OTHER_PROVIDER


# --- the decision, pure ---------------------------------------------------------------

HOPS = (
    Hop(print, name="small-a", provider="mistral", key="k1", context_window=32_000),
    Hop(print, name="small-b", provider="mistral", key="k1", context_window=32_000),
    Hop(print, name="large-a", provider="mistral", key="k2", context_window=128_000),
    Hop(print, name="other", provider="openai", context_window=8_000),
    Hop(print, name="unstated"),
)


def _decide(code, *, failed=0, tried=(0,), closed=None, waited=0.0, max_wait=30.0, left=math.inf):
    return decide(
        HOPS,
        rules=DEFAULT_FALLBACK_RULES,
        failed=failed,
        code=code,
        tried=set(tried),
        closed=closed or {},
        waited=waited,
        max_wait=max_wait,
        time_left=left,
    )


DECISIONS = [
    pytest.param(ErrorCode.RATE_LIMIT, {}, Next(1), id="rate-limit-next"),
    pytest.param(ErrorCode.SERVER, {"closed": {1: 5.0}}, Next(2), id="skip-cooling"),
    pytest.param(ErrorCode.TIMEOUT, {"tried": (0, 1, 2)}, Next(3), id="skip-tried"),
    pytest.param(ErrorCode.TRANSPORT, {"tried": range(5)}, "no untried hop", id="none-left"),
    pytest.param(
        ErrorCode.RATE_LIMIT,
        {"closed": {1: 9.0, 2: 4.0, 3: 6.0, 4: 7.0}},
        Wait(4.0),
        id="all-closed-wait-earliest",
    ),
    pytest.param(
        ErrorCode.RATE_LIMIT,
        {"closed": dict.fromkeys(range(1, 5), 4.0), "waited": 27.0},
        "past max_wait=30",
        id="wait-past-max-wait",
    ),
    pytest.param(
        ErrorCode.RATE_LIMIT,
        {"closed": dict.fromkeys(range(1, 5), 4.0), "left": 3.0},
        "past the deadline",
        id="wait-past-deadline",
    ),
    pytest.param(ErrorCode.RATE_LIMIT, {"left": 0.0}, "deadline has passed", id="deadline"),
    pytest.param(ErrorCode.CONTEXT_OVERFLOW, {}, Next(2), id="overflow-larger"),
    pytest.param(
        ErrorCode.CONTEXT_OVERFLOW, {"failed": 2, "tried": (0, 2)}, "larger", id="overflow-none"
    ),
    pytest.param(
        ErrorCode.CONTEXT_OVERFLOW, {"failed": 4, "tried": (4,)}, "larger", id="overflow-unstated"
    ),
    pytest.param(ErrorCode.QUOTA_EXCEEDED, {}, Next(2), id="quota-other-key"),
    pytest.param(ErrorCode.AUTH, {"tried": (0, 2)}, Next(3), id="auth-other-provider"),
    pytest.param(
        ErrorCode.AUTH, {"failed": 4, "tried": (4,)}, "another provider or key", id="auth-unstated"
    ),
    pytest.param(ErrorCode.CONTENT_FILTER, {}, "rule stop for CONTENT_FILTER", id="filter"),
    pytest.param(ErrorCode.INVALID_REQUEST, {}, "rule stop", id="invalid"),
    pytest.param(ErrorCode.PROVIDER_ERROR, {}, "rule stop", id="unknown"),
    pytest.param(ErrorCode.ABORTED, {}, "rule stop", id="aborted"),
]


@pytest.mark.parametrize(("code", "state", "expected"), DECISIONS)
def test_decide(code, state, expected):
    """The pure decision: the hops a rule lets through, open ones first, bounded waits."""
    decision = _decide(code, **state)
    if isinstance(expected, str):
        assert isinstance(decision, Stop)
        assert expected in decision.why
    else:
        assert decision == expected


def test_other_provider_needs_another_stated_provider():
    """``other_provider`` skips another key of the same provider and unstated hops."""
    rules = dict(DEFAULT_FALLBACK_RULES) | {ErrorCode.CONTENT_FILTER: OTHER_PROVIDER}
    decision = decide(
        HOPS,
        rules=rules,
        failed=0,
        code=ErrorCode.CONTENT_FILTER,
        tried={0},
        closed={},
        waited=0.0,
        max_wait=30.0,
        time_left=math.inf,
    )
    assert decision == Next(3)


def test_a_skipped_hop_is_tried_when_a_later_one_fails():
    """Each hop is tried at most once, in order; a hop skipped while closed is not lost."""
    assert _decide(ErrorCode.SERVER, failed=2, tried=(0, 2)) == Next(1)


# --- sync calls -----------------------------------------------------------------------


def test_a_rate_limit_goes_to_the_next_hop_with_the_same_arguments(chain):
    """The first hop's transient error sends the same call to the second hop."""
    backend = Backend(a=[error(ErrorCode.RATE_LIMIT)])
    call = chain(backend.sync("a"), backend.sync("b"))
    assert call("prompt", 1) == "b"
    assert backend.calls == [("a", ("prompt", 1)), ("b", ("prompt", 1))]


def test_success_on_the_first_hop_calls_no_other(chain):
    """No error, no fallback."""
    backend = Backend()
    assert chain(backend.sync("a"), backend.sync("b"))() == "a"
    assert backend.called == ["a"]


def test_a_stop_after_one_hop_raises_its_error_as_it_was(chain):
    """``INVALID_REQUEST`` stops at once: the original error, with a note, no group."""
    original = error(ErrorCode.INVALID_REQUEST)
    backend = Backend(a=[original])
    with pytest.raises(InvalidRequestError) as info:
        chain(backend.sync("a"), backend.sync("b"))()
    assert info.value is original
    assert backend.called == ["a"]
    assert info.value.__notes__ == [
        (
            f"llm_retry: fallback hop 1 of 2 ({HERE}.a) failed with INVALID_REQUEST; "
            "stopped: rule stop for INVALID_REQUEST"
        )
    ]


def test_every_hop_failing_raises_a_group_of_all_their_errors(chain):
    """Three transient failures: an ExceptionGroup of the three, listed in order."""
    backend = Backend(
        a=[error(ErrorCode.SERVER)],
        b=[error(ErrorCode.TIMEOUT)],
        c=[error(ErrorCode.RATE_LIMIT)],
    )
    with pytest.raises(ExceptionGroup) as info:
        chain(backend.sync("a"), backend.sync("b"), backend.sync("c"))()
    group = info.value
    assert str(group).startswith(
        f"fallback: 3 of 3 hops failed (hop 1 {HERE}.a: SERVER, hop 2 {HERE}.b: TIMEOUT, "
        f"hop 3 {HERE}.c: RATE_LIMIT); no untried hop is left"
    )
    assert [type(e) for e in group.exceptions] == [RateLimitError, ServerError, LlmTimeoutError]
    assert classify(group).code is ErrorCode.RATE_LIMIT
    assert group.__context__ is None
    assert group.__cause__ is None


GROUPS = [
    pytest.param(
        [ErrorCode.RATE_LIMIT, ErrorCode.INVALID_REQUEST], ErrorCode.INVALID_REQUEST, id="invalid"
    ),
    pytest.param(
        [ErrorCode.SERVER, ErrorCode.QUOTA_EXCEEDED], ErrorCode.QUOTA_EXCEEDED, id="quota"
    ),
    pytest.param([ErrorCode.AUTH, ErrorCode.SERVER], ErrorCode.AUTH, id="auth"),
    pytest.param(
        [ErrorCode.TRANSPORT, ErrorCode.CONTENT_FILTER], ErrorCode.CONTENT_FILTER, id="filter"
    ),
]


@pytest.mark.parametrize(("codes", "expected"), GROUPS)
def test_classify_of_the_group_gives_the_most_actionable_code(chain, codes, expected):
    """What a person must fix outranks what passes with time, whatever the hop order."""
    backend = Backend(
        a=[error(codes[0], provider="p1")], b=[error(codes[1], provider="p2")], c=["unused"]
    )
    with pytest.raises(ExceptionGroup) as info:
        chain(
            Hop(backend.sync("a"), provider="p1"),
            Hop(backend.sync("b"), provider="p2"),
        )()
    assert classify(info.value).code is expected
    assert info.value.exceptions[0].code is expected


def test_context_overflow_goes_only_to_a_larger_window(chain):
    """An overflow skips the hops whose stated window is not larger."""
    backend = Backend(a=[error(ErrorCode.CONTEXT_OVERFLOW)])
    call = chain(
        Hop(backend.sync("a"), context_window=32_000),
        Hop(backend.sync("same"), context_window=32_000),
        Hop(backend.sync("unstated")),
        Hop(backend.sync("large"), context_window=128_000),
    )
    assert call() == "large"
    assert backend.called == ["a", "large"]


def test_a_spent_quota_goes_to_another_key_and_skips_the_same_one(chain):
    """``QUOTA_EXCEEDED`` skips a hop with the same provider and key."""
    backend = Backend(a=[error(ErrorCode.QUOTA_EXCEEDED)])
    call = chain(
        Hop(backend.sync("a"), provider="mistral", key="team-a"),
        Hop(backend.sync("same-key"), provider="mistral", key="team-a"),
        Hop(backend.sync("team-b"), provider="mistral", key="team-b"),
    )
    assert call() == "team-b"
    assert backend.called == ["a", "team-b"]


def test_content_filter_stops_unless_the_table_allows_another_provider(chain):
    """The default stops on a filtered prompt; ``rules=`` opts in to another provider."""
    hops = lambda backend: (  # noqa: E731 - the same three hops twice
        Hop(backend.sync("a"), provider="mistral"),
        Hop(backend.sync("mistral-2"), provider="mistral"),
        Hop(backend.sync("openai"), provider="openai"),
    )
    backend = Backend(a=[error(ErrorCode.CONTENT_FILTER)])
    with pytest.raises(ContentFilterError):
        chain(*hops(backend))()
    assert backend.called == ["a"]

    backend = Backend(a=[error(ErrorCode.CONTENT_FILTER)])
    opted_in = chain(*hops(backend), rules={"content_filter": "other_provider"})
    assert opted_in() == "openai"
    assert backend.called == ["a", "openai"]


def test_an_override_can_stop_a_code_the_default_sends_on(chain):
    """Rows of ``rules=`` replace the defaults' for their codes only."""
    backend = Backend(a=[error(ErrorCode.SERVER)], b=[error(ErrorCode.RATE_LIMIT)])
    call = chain(
        backend.sync("a"), backend.sync("b"), backend.sync("c"), rules={ErrorCode.SERVER: STOP}
    )
    with pytest.raises(ServerError):
        call()
    assert backend.called == ["a"]


def test_an_unclassified_error_stops(chain):
    """A bug in a hop (a plain ``ValueError``: ``PROVIDER_ERROR``) is never hidden by a hop."""
    backend = Backend(a=[ValueError("bug")])
    with pytest.raises(ValueError, match="bug"):
        chain(backend.sync("a"), backend.sync("b"))()
    assert backend.called == ["a"]


def test_falling_back_notes_the_error_and_logs_one_warning(chain, caplog):
    """The failed hop's error says where the call went; one WARNING names both hops."""
    first = error(ErrorCode.SERVER)
    backend = Backend(a=[first], b=[error(ErrorCode.INVALID_REQUEST)])
    with caplog.at_level(logging.WARNING, logger="llm_retry"), pytest.raises(ExceptionGroup):
        chain(backend.sync("a"), Hop(backend.sync("b"), name="second"))()
    assert first.__notes__ == [
        (
            f"llm_retry: fallback hop 1 of 2 ({HERE}.a) failed with SERVER; "
            "falling back to hop 2 (second)"
        )
    ]
    assert [r.getMessage() for r in caplog.records] == [
        f"falling back from {HERE}.a to second: SERVER (ServerError)"
    ]


def test_a_cancellation_is_never_a_reason_to_fall_back(chain):
    """``BaseException`` (here ``KeyboardInterrupt``) propagates at once."""
    backend = Backend(a=[KeyboardInterrupt()])
    with pytest.raises(KeyboardInterrupt):
        chain(backend.sync("a"), backend.sync("b"))()
    assert backend.called == ["a"]


# --- coordination: closed scopes are skipped, or waited for -------------------------------


def test_a_cooling_scope_is_skipped(chain, coordination):
    """The next hop whose scope cools down is skipped for the first open one."""
    coordination.extend_cooldown("b", 10.0)
    backend = Backend(a=[error(ErrorCode.RATE_LIMIT)])
    call = chain(
        backend.sync("a"),
        Hop(backend.sync("b"), scope="b", coordination=coordination),
        Hop(backend.sync("c"), scope="c", coordination=coordination),
    )
    assert call() == "c"
    assert backend.called == ["a", "c"]


def test_an_open_breaker_is_skipped(chain, clock):
    """A scope whose circuit breaker is open is skipped."""
    backend_state = InProcessCoordination(
        clock=clock, breaker=CircuitBreaker(min_calls=1, open_for=20.0)
    )
    backend_state.record_outcome("b", failed=True)
    assert backend_state.breaker_state("b")[0] == "open"
    backend = Backend(a=[error(ErrorCode.SERVER)])
    call = chain(
        backend.sync("a"),
        Hop(backend.sync("b"), scope="b", coordination=backend_state),
        backend.sync("c"),
    )
    assert call() == "c"


def test_a_parked_quota_is_skipped(chain, coordination):
    """A scope parked for a spent quota is skipped."""
    coordination.park("b", 3600.0)
    backend = Backend(a=[error(ErrorCode.TIMEOUT)])
    call = chain(
        backend.sync("a"),
        Hop(backend.sync("b"), scope="b", coordination=coordination),
        backend.sync("c"),
    )
    assert call() == "c"


def test_when_every_hop_is_closed_the_call_waits_for_the_earliest(chain, coordination, clock):
    """All closed: one wait, on the injected sleep, for the scope that reopens first."""
    coordination.extend_cooldown("b", 8.0)
    coordination.extend_cooldown("c", 5.0)
    backend = Backend(a=[error(ErrorCode.RATE_LIMIT)])
    call = chain(
        backend.sync("a"),
        Hop(backend.sync("b"), scope="b", coordination=coordination),
        Hop(backend.sync("c"), scope="c", coordination=coordination),
    )
    assert call() == "c"
    assert clock.sleeps == [5.0]


def test_the_wait_is_bounded_by_max_wait(chain, coordination, clock):
    """A reopening past ``max_wait`` is not waited for: the error is raised at once."""
    coordination.extend_cooldown("b", DEFAULT_FALLBACK_WAIT + 1)
    backend = Backend(a=[error(ErrorCode.RATE_LIMIT)])
    call = chain(backend.sync("a"), Hop(backend.sync("b"), scope="b", coordination=coordination))
    with pytest.raises(RateLimitError) as info:
        call()
    assert "past max_wait=30" in info.value.__notes__[-1]
    assert clock.sleeps == []
    assert backend.called == ["a"]


def test_the_wait_is_bounded_by_the_deadline(chain, coordination, clock, script):
    """A reopening after the deadline is not waited for; a passed deadline stops too."""
    coordination.extend_cooldown("b", 5.0)
    backend = Backend(a=[error(ErrorCode.RATE_LIMIT)])
    hop_b = Hop(backend.sync("b"), scope="b", coordination=coordination)
    with pytest.raises(RateLimitError) as info:
        chain(backend.sync("a"), hop_b, deadline=4.0)()
    assert "past the deadline" in info.value.__notes__[-1]

    slow = script(ServerError, latency=10.0)
    with pytest.raises(ServerError) as info:
        chain(slow, backend.sync("c"), deadline=4.0)()
    assert "deadline has passed" in info.value.__notes__[-1]
    assert clock.sleeps == []


def test_hops_wrapped_by_retry_llm_fall_back_after_their_retries(chain, make_policy, script):
    """Composes with ``retry_llm``: hop a's policy retries, then its error falls back."""
    primary = script(ServerError)
    secondary = script("from b")
    call = chain(retry_llm(make_policy(max_attempts=3))(primary), secondary)
    assert call() == "from b"
    assert primary.calls == 3
    assert retry_llm(make_policy())(call)() == "from b"


def test_a_policy_refusing_at_once_for_an_open_breaker_falls_back(chain, make_policy, clock):
    """The issue's outage: scope a's breaker is open, its policy fails at once, b answers."""
    shared = InProcessCoordination(clock=clock, breaker=CircuitBreaker(min_calls=1))
    shared.record_outcome("a", failed=True)
    backend = Backend()
    policy_a = make_policy(scope="a", coordination=shared)
    call = chain(policy_a.wrap(backend.sync("a")), backend.sync("b"))
    assert call() == "b"
    assert backend.called == ["b"]


# --- async ----------------------------------------------------------------------------


def test_async_hops_fall_back_and_wait_on_the_async_sleep(chain, coordination, clock):
    """The async twin: same rules, the wait on ``async_sleep``, the group at the end."""
    coordination.extend_cooldown("b", 3.0)
    coordination.extend_cooldown("c", 5.0)
    backend = Backend(a=[error(ErrorCode.SERVER)], b=[error(ErrorCode.AUTH)])
    call = chain(
        Hop(backend.asynchronous("a"), provider="p1"),
        Hop(backend.asynchronous("b"), scope="b", coordination=coordination, provider="p1"),
        Hop(backend.asynchronous("c"), scope="c", coordination=coordination, provider="p2"),
    )
    assert inspect.iscoroutinefunction(call)
    assert asyncio.run(call("x")) == "c"
    assert backend.calls == [("a", ("x",)), ("b", ("x",)), ("c", ("x",))]
    assert clock.sleeps == [3.0, 2.0]


def test_async_stop_and_group(chain):
    """Async: a stop after two hops raises the group of both."""
    backend = Backend(a=[error(ErrorCode.TIMEOUT)], b=[error(ErrorCode.INVALID_REQUEST)])
    call = chain(backend.asynchronous("a"), backend.asynchronous("b"), backend.asynchronous("c"))
    with pytest.raises(ExceptionGroup) as info:
        asyncio.run(call())
    assert classify(info.value).code is ErrorCode.INVALID_REQUEST
    assert backend.called == ["a", "b"]


def test_async_cancellation_propagates(chain):
    """``asyncio.CancelledError`` never falls back."""
    backend = Backend(a=[asyncio.CancelledError()])
    call = chain(backend.asynchronous("a"), backend.asynchronous("b"))
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(call())
    assert backend.called == ["a"]


def test_async_callable_objects_are_recognised(chain):
    """A callable object with an ``async def __call__`` is an async hop."""

    class Model:
        async def __call__(self):
            raise error(ErrorCode.SERVER)

    backend = Backend()
    call = chain(Model(), backend.asynchronous("b"))
    assert inspect.iscoroutinefunction(call)
    assert call.__name__ == "fallback(test_async_callable_objects_are_recognised.<locals>.Model, b)"
    assert asyncio.run(call()) == "b"


# --- streams --------------------------------------------------------------------------


class Stream:
    """A streaming hop: raises ``fail`` after yielding ``items``; records what it received."""

    def __init__(self, items, fail=None):
        self.items, self.fail = items, fail
        self.opened = 0
        self.closed = 0
        self.received = []

    def sync(self):
        """The sync stream."""
        self.opened += 1
        try:
            for item in self.items:
                self.received.append((yield item))
            if self.fail is not None:
                raise self.fail
            return f"done {self.items}"
        finally:
            self.closed += 1

    async def asynchronous(self):
        """The async stream."""
        self.opened += 1
        try:
            for item in self.items:
                await asyncio.sleep(0)
                self.received.append((yield item))
            if self.fail is not None:
                raise self.fail
        finally:
            self.closed += 1


def test_a_stream_falls_back_before_its_first_item(chain):
    """Failing before any output, the stream is replaced by the next hop's."""
    first, second = Stream([], fail=error(ErrorCode.TRANSPORT)), Stream(["x", "y"])
    call = chain(first.sync, second.sync)
    assert inspect.isgeneratorfunction(call)
    assert list(call()) == ["x", "y"]
    assert (first.opened, second.opened) == (1, 1)


def test_a_stream_never_falls_back_after_delivering_output(chain):
    """After the first item, the error propagates as it was and no other hop is opened."""
    cut = error(ErrorCode.TRANSPORT)
    first, second = Stream(["a"], fail=cut), Stream(["x"])
    stream = chain(first.sync, second.sync)()
    assert next(stream) == "a"
    with pytest.raises(TransportError) as info:
        next(stream)
    assert info.value is cut
    assert not hasattr(info.value, "__notes__")
    assert second.opened == 0


def test_a_stream_forwards_send_throw_close_and_its_return_value(chain):
    """``send``/``throw``/``close`` reach the chosen hop's stream; its return value comes back."""
    chosen = Stream(["a", "b", "c"])
    stream = chain(Stream([], fail=error(ErrorCode.SERVER)).sync, chosen.sync)()
    assert next(stream) == "a"
    assert stream.send("reply") == "b"
    with pytest.raises(ValueError, match="thrown"):
        stream.throw(ValueError("thrown"))
    assert chosen.received == ["reply"]
    assert chosen.closed == 1

    ended = Stream(["only"])
    stream = chain(ended.sync)()
    assert next(stream) == "only"
    with pytest.raises(StopIteration) as info:
        next(stream)
    assert info.value.value == "done ['only']"

    closed = Stream(["a", "b"])
    stream = chain(closed.sync)()
    next(stream)
    stream.close()
    assert closed.closed == 1


def test_an_empty_stream_is_a_success(chain):
    """A stream that ends before any item returns its value; no fallback."""
    empty, other = Stream([]), Stream(["x"])
    stream = chain(empty.sync, other.sync)()
    with pytest.raises(StopIteration) as info:
        next(stream)
    assert info.value.value == "done []"
    assert other.opened == 0


async def _collect(stream):
    return [item async for item in stream]


def test_async_streams_fall_back_only_before_their_first_item(chain):
    """The async twin of both stream rules."""
    first, second = Stream([], fail=error(ErrorCode.SERVER)), Stream(["x", "y"])
    call = chain(first.asynchronous, second.asynchronous)
    assert inspect.isasyncgenfunction(call)
    assert asyncio.run(_collect(call())) == ["x", "y"]

    cut = error(ErrorCode.TIMEOUT)
    broken, spare = Stream(["a"], fail=cut), Stream(["x"])
    with pytest.raises(LlmTimeoutError) as info:
        asyncio.run(_collect(chain(broken.asynchronous, spare.asynchronous)()))
    assert info.value is cut
    assert spare.opened == 0


def test_async_streams_forward_asend_athrow_aclose(chain):
    """``asend``/``athrow``/``aclose`` reach the chosen hop's stream; empty streams end."""
    chosen = Stream(["a", "b", "c"])

    async def drive():
        stream = chain(chosen.asynchronous)()
        assert await anext(stream) == "a"
        assert await stream.asend("reply") == "b"
        with pytest.raises(ValueError, match="thrown"):
            await stream.athrow(ValueError("thrown"))
        closing = chain(Stream(["p", "q"]).asynchronous)()
        await anext(closing)
        await closing.aclose()
        assert await _collect(chain(Stream([]).asynchronous)()) == []

    asyncio.run(drive())
    assert chosen.received == ["reply"]
    assert chosen.closed == 1


# --- predicates for other libraries' hooks -------------------------------------------------


def test_the_predicate_says_yes_exactly_where_the_table_goes_on(table):
    """``fallback_predicate()``: every code whose default rule is not ``stop``."""
    should = fallback_predicate()
    table.check(
        ((code.value, (code,)) for code in ErrorCode),
        lambda code: _check_row(should(error(code)), EXPECTED_RULES[code] is not STOP),
    )
    assert should(asyncio.CancelledError()) is False
    assert fallback_predicate({ErrorCode.CONTENT_FILTER: OTHER_PROVIDER})(
        error(ErrorCode.CONTENT_FILTER)
    )


def test_the_predicate_drives_a_real_tenacity_loop():
    """``retry=tenacity.retry_if_exception(fallback_predicate())`` rotates through models."""
    should = tenacity.retry_if_exception(fallback_predicate())
    models = Backend(a=[error(ErrorCode.RATE_LIMIT)], b=[error(ErrorCode.SERVER)])
    for attempt in tenacity.Retrying(retry=should, stop=tenacity.stop_after_attempt(3)):
        with attempt:
            reply = models.sync("abc"[attempt.retry_state.attempt_number - 1])()
    assert reply == "c"
    assert models.called == ["a", "b", "c"]

    models = Backend(a=[error(ErrorCode.INVALID_REQUEST)])
    retrying = tenacity.Retrying(retry=should, stop=tenacity.stop_after_attempt(3), reraise=True)
    with pytest.raises(InvalidRequestError):
        retrying(models.sync("a"))
    assert models.called == ["a"]


# --- misuse ---------------------------------------------------------------------------

MISUSE = [
    pytest.param((), {}, TypeError, "at least one hop", id="no-hops"),
    pytest.param((print, 3), {}, TypeError, "must be callable, got int", id="not-callable"),
    pytest.param(
        (print, Backend().asynchronous("b")),
        {},
        TypeError,
        "hop 1 is a function, hop 2 is a coroutine function",
        id="sync-and-async",
    ),
    pytest.param(
        (Stream([]).sync, print),
        {},
        TypeError,
        "hop 1 is a generator function, hop 2 is a function",
        id="stream-and-function",
    ),
    pytest.param((print,), {"rules": [1]}, TypeError, "rules must be a mapping", id="not-mapping"),
    pytest.param((print,), {"rules": {"SERVR": "next"}}, ValueError, "unknown code", id="code"),
    pytest.param((print,), {"rules": {"SERVER": "jump"}}, ValueError, "unknown rule", id="rule"),
    pytest.param((print,), {"rules": {503: "next"}}, TypeError, "ErrorCode or its", id="key"),
    pytest.param(
        (print,), {"rules": {"SERVER": None}}, TypeError, "FallbackRule or its", id="value"
    ),
    pytest.param(
        (print,), {"rules": {"ABORTED": "next"}}, ValueError, "ABORTED must stay", id="aborted"
    ),
    pytest.param((print,), {"max_wait": -1}, ValueError, "max_wait must be >= 0", id="max-wait"),
    pytest.param((print,), {"deadline": 0}, ValueError, "deadline must be > 0", id="deadline"),
    pytest.param((print,), {"clock": 1}, TypeError, "clock must be callable", id="clock"),
    pytest.param((print,), {"async_sleep": 1}, TypeError, "async_sleep must be", id="a-sleep"),
]


@pytest.mark.parametrize(("hops", "settings", "kind", "message"), MISUSE)
def test_misuse_is_a_type_or_value_error_naming_it(hops, settings, kind, message):
    """A bad fallback is a caller bug, outside the LlmError tree, named in the message."""
    with pytest.raises(kind, match=message):
        fallback(*hops, **settings)


HOP_MISUSE = [
    pytest.param({"coordination": "redis"}, TypeError, "must be a Coordination", id="backend"),
    pytest.param(
        {"coordination": InProcessCoordination()}, ValueError, "needs Hop.scope", id="no-scope"
    ),
    pytest.param({"scope": "a{b}"}, ValueError, "no '{' or '}'", id="scope"),
    pytest.param({"context_window": 0}, ValueError, "context_window must be >= 1", id="window"),
    pytest.param({"provider": ""}, TypeError, "Hop.provider must be a non-empty", id="provider"),
    pytest.param({"key": 1}, TypeError, "Hop.key must be a non-empty str", id="key"),
]


@pytest.mark.parametrize(("settings", "kind", "message"), HOP_MISUSE)
def test_hop_misuse(settings, kind, message):
    """A hop's bad statement fails when the hop is made."""
    with pytest.raises(kind, match=message):
        Hop(print, **settings)


def test_a_hop_keeps_its_key_out_of_repr():
    """``key`` names the key; it is still left out of ``repr``."""
    assert "team-b" not in repr(Hop(print, key="team-b", provider="mistral"))


# --- reading a backend, failing open ----------------------------------------------------


class Minimal:
    """A backend with the protocol's reads only (no breaker, no parking), scripted."""

    def __init__(self, cooldown):
        self.answer = cooldown

    def cooldown(self, _scope):
        """The scripted answer, or its error."""
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer

    async def acooldown(self, scope):
        """:meth:`cooldown`."""
        return self.cooldown(scope)

    admit = end_probe = extend_cooldown = try_spend = record_success = None
    aadmit = aend_probe = aextend_cooldown = atry_spend = arecord_success = None


@pytest.mark.parametrize(
    ("answer", "expected", "logged"),
    [
        pytest.param(4.5, 4.5, None, id="cooldown"),
        pytest.param(OSError("down"), 0.0, "raised OSError", id="raises"),
        pytest.param(math.nan, 0.0, "not a finite number", id="nan"),
        pytest.param(True, 0.0, "not a finite number", id="bool"),
    ],
)
def test_a_backend_read_fails_open(answer, expected, logged, caplog):
    """A failing or nonsensical read counts as open, reported once; optional reads may be absent."""
    backend = FailOpen(Minimal(answer))
    with caplog.at_level(logging.WARNING, logger="llm_retry"):
        assert backend.closed("s") == expected
        assert asyncio.run(backend.aclosed("s")) == expected
    messages = [record.getMessage() for record in caplog.records]
    assert all(logged in message for message in messages) if logged else messages == []
    assert len(messages) == (2 if logged else 0)


def test_in_process_reads_have_async_twins(coordination):
    """``aparked`` and ``abreaker_state`` answer as their sync twins."""
    coordination.park("s", 60.0)
    assert asyncio.run(coordination.aparked("s")) == 60.0
    assert asyncio.run(coordination.abreaker_state("s")) == ("closed", 0.0)
    assert FailOpen(coordination).closed("s") == 60.0
    assert asyncio.run(FailOpen(coordination).aclosed("s")) == 60.0
