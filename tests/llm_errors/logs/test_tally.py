"""Aggregation: message folding, the capped counter, the tally."""

import pytest

from llm_errors import Classification, ErrorCode, Layer
from llm_errors.logs._scan import Finding, Problem, ProblemKind
from llm_errors.logs._tally import WAITS_KEPT, CappedCounter, Tally, Waits, normalise


@pytest.mark.parametrize(
    ("first", "second"),
    [
        pytest.param(
            "2025-03-14 09:13:18,290 ERROR jobs: job 8812 failed: KeyError: 'choices'",
            "2025-03-15 23:01:02,007 ERROR jobs: job 17 failed: KeyError: 'choices'",
            id="timestamps-and-numbers",
        ),
        pytest.param(
            "request req_7Hq2ZkP9 failed (trace 3f1c2b4e-0d9a-4e7b-8c1d-2a3b4c5d6e7f)",
            "request req_Lm3vXc81 failed (trace 00000000-1111-2222-3333-444444444444)",
            id="ids-and-uuids",
        ),
        pytest.param(
            "Mar 14 09:12:01 host app[4127]: ERROR pool exhausted at 0x7f3a2c",
            "Mar  2 23:59:59 host app[88]: ERROR pool exhausted at 0xdeadbeef",
            id="syslog",
        ),
    ],
)
def test_normalise_folds_variable_parts(first, second):
    """Messages that differ only in times, numbers and ids fold to the same key."""
    assert normalise(first) == normalise(second)


def test_normalise_keeps_words():
    """Words that say what failed survive folding, and the leading time is dropped."""
    assert normalise("2025-03-14 09:13:18,290 ERROR jobs: job 8812 failed: KeyError: 'x'") == (
        "ERROR jobs: job <n> failed: KeyError: 'x'"
    )


def test_normalise_bounds_the_key():
    """Very long messages fold to a bounded key."""
    assert len(normalise("word " * 1000)) <= 160


def test_capped_counter_exact_below_the_cap():
    """Below the cap counts are exact and ordered by frequency."""
    counter = CappedCounter(cap=3)
    for key in "aabbbc":
        counter.add(key)
    assert counter.most_common(2) == [("b", 3), ("a", 2)]
    assert not counter.approximate


def test_capped_counter_bounds_memory_and_keeps_heavy_hitters():
    """Many distinct rare keys never grow it past twice the cap; frequent keys survive."""
    counter = CappedCounter(cap=10)
    for i in range(10_000):
        counter.add("frequent" if i % 3 == 0 else f"rare-{i}")
        assert counter.distinct <= 20
    top, count = counter.most_common(1)[0]
    assert top == "frequent"
    assert count > 3000
    assert counter.approximate
    assert counter.untracked + sum(n for _, n in counter.most_common(20)) == 10_000


def finding(code, *, retryable, layer=Layer.TEXT, rule="r", message="m"):
    verdict = Classification(code=code, retryable=retryable, rule=rule, layer=layer)
    return Finding(1, 1, "line", verdict, message)


def test_tally_counts_codes_rules_and_unmatched():
    """Every finding counts once per code and rule; unmatched ones also by folded message."""
    tally = Tally(fail_on=frozenset({ErrorCode.AUTH, ErrorCode.QUOTA_EXCEEDED}))
    tally.add(finding(ErrorCode.RATE_LIMIT, retryable=True, rule="http.429"))
    tally.add(finding(ErrorCode.RATE_LIMIT, retryable=True, rule="http.429"))
    tally.add(finding(ErrorCode.AUTH, retryable=False, rule="http.401"))
    for n in (1, 2):
        unmatched = {"layer": Layer.FALLBACK, "rule": "fallback", "message": f"job {n} failed"}
        tally.add(finding(ErrorCode.PROVIDER_ERROR, retryable=False, **unmatched))
    assert tally.errors == 5
    assert tally.retryable == 2
    assert tally.unmatched == 2
    assert tally.by_code == {
        ErrorCode.RATE_LIMIT: 2,
        ErrorCode.AUTH: 1,
        ErrorCode.PROVIDER_ERROR: 2,
    }
    assert tally.by_rule[("http.429", ErrorCode.RATE_LIMIT)] == 2
    assert tally.unmatched_messages.most_common(5) == [("job <n> failed", 2)]
    assert tally.failed == {ErrorCode.AUTH}


def test_tally_problems_list_unreadable_files():
    """Problems are counted by kind; unreadable files are also named."""
    tally = Tally()
    tally.add_problem("gone.log", Problem(ProblemKind.UNREADABLE, None, "No such file"))
    tally.add_problem("a.log", Problem(ProblemKind.BAD_JSON, 3, "bad"))
    tally.add_problem("a.log", Problem(ProblemKind.BAD_JSON, 4, "bad"))
    assert tally.problems == {ProblemKind.UNREADABLE: 1, ProblemKind.BAD_JSON: 2}
    assert tally.unreadable == ["gone.log: No such file"]


def test_tally_summarises_the_waits_asked_for():
    """Errors with a ``retry_after`` are counted with their median and max wait, batched too."""
    tally = Tally()
    for wait in (2.06, None, 2.0, 20.0):  # sample.log's two hints, a Retry-After: 20
        verdict = Classification(
            code=ErrorCode.RATE_LIMIT, retryable=True, rule="http.429", retry_after=wait
        )
        tally.add(Finding(1, 1, "line", verdict, "m"))
    tally.count_verdict(Classification(code=ErrorCode.SERVER, retryable=True, retry_after=1), 2)
    waits = tally.waits
    assert (waits.count, waits.median, waits.longest) == (5, 2.0, 20.0)
    assert waits.summary() == "5 asked to wait (median 2 s, max 20 s)"
    assert Tally().waits.summary() is None


def test_tally_gives_the_range_of_the_reset_instants_stated():
    """Errors with a ``resets_at`` are counted, with the earliest and latest, batched too."""
    tally = Tally()
    for resets_at in (1_788_224_400.0, None, 1_788_220_800.0):
        verdict = Classification(
            code=ErrorCode.QUOTA_EXCEEDED, retryable=False, rule="q", resets_at=resets_at
        )
        tally.add(Finding(1, 1, "line", verdict, "m"))
    quota = Classification(code=ErrorCode.QUOTA_EXCEEDED, retryable=False, resets_at=1.79e9)
    tally.count_verdict(quota, 3)
    assert tally.resets.summary() == (
        "5 stated when their limit resets (2026-09-01T00:00:00Z to 2026-09-21T14:13:20Z)"
    )
    one = Tally()
    one.add(Finding(1, 1, "line", quota, "m"))
    assert one.resets.summary() == "1 stated when their limit resets (2026-09-21T14:13:20Z)"
    assert Tally().resets.summary() is None


def test_waits_are_bounded():
    """Past ``WAITS_KEPT`` distinct waits they are kept to two digits; count and max stay exact."""
    waits = Waits()
    for n in range(3 * WAITS_KEPT):
        waits.add(n / 1000)
    assert waits.distinct <= WAITS_KEPT
    assert waits.approximate
    assert (waits.count, waits.longest) == (3 * WAITS_KEPT, (3 * WAITS_KEPT - 1) / 1000)
    exact = (3 * WAITS_KEPT - 1) / 2000
    assert abs(waits.median - exact) <= 0.05 * exact
    assert waits.summary().startswith(f"{3 * WAITS_KEPT:,} asked to wait (median about ")
