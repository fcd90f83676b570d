"""The combined matcher agrees with "the first rule in table order that matches"."""

import importlib

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_errors import RULES, Classifier, ErrorCode, Rule
from llm_errors._match import matcher as _matcher
from llm_errors._match.matcher import (
    CACHE_LIMIT,
    FLAGS,
    PLAN_CACHE_LIMIT,
    TextMatcher,
    _alternative,
)
from llm_errors._match.prefilter import TOKEN_TABLE, derive_triggers
from llm_errors._rules.status import status_from_text

MATCHER = Classifier()._matcher
FRAGMENTS = [example.text for rule in RULES for example in rule.examples]
#: Pieces of Chinese wordings (new-api's throttle notice, Roo Code's cancel), to recombine.
CJK = ["请求", "过于频繁", "被用户", "\uff0c", "负载已饱和"]


def first_rule_by_loop(text):
    """The reference semantics: try each rule in order, keep the first that matches."""
    for index, rule in enumerate(RULES):
        if regex.search(rule.pattern, text, FLAGS):
            return index
    return None


def test_agrees_with_the_loop_on_every_example(table):
    """Each example is decided by the rule the naive loop picks."""

    def check(text):
        found = MATCHER.match(text)
        assert (found.index if found else None) == first_rule_by_loop(text)

    table.check(((f"example {i}", (t,)) for i, t in enumerate(FRAGMENTS)), check)


@settings(deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(FRAGMENTS),
            st.text(
                alphabet=" :=[]{}()\"'_-.,/abcdefghijklmnopqrstuvwxyzABCXYZ0123456789\n",
                max_size=30,
            ),
        ),
        max_size=4,
    )
)
def test_agrees_with_the_loop_on_mixtures(parts):
    """Concatenations of examples and noise are decided like the naive loop decides them."""
    text = " ".join(parts)
    found = MATCHER.match(text)
    assert (found.index if found else None) == first_rule_by_loop(text)


@settings(deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(FRAGMENTS),
            st.text(alphabet=" :=[]{}_-./abcdekmorstuxz0123459\n", max_size=20),
            # characters IGNORECASE equates with ASCII letters, and other non-ASCII text
            st.sampled_from(
                [
                    "\u212a",
                    "\u017f",
                    "\u0130",
                    "\u0131",
                    "\u2019",
                    *CJK,
                    "\u00e9",
                    "\u0663",
                ]
            ),
        ),
        max_size=5,
    ),
    st.sampled_from([str, str.upper, str.lower, str.swapcase]),
)
def test_agrees_with_the_loop_on_any_case_and_script(parts, case):
    """Non-ASCII text takes the same token path, and still agrees with the naive loop."""
    text = case("".join(parts))
    found = MATCHER.match(text)
    assert (found.index if found else None) == first_rule_by_loop(text)
    if found is not None:
        assert found.status == status_from_text(text)


def test_later_rule_leftmost_does_not_win():
    """A higher-priority rule further right beats a lower-priority one further left."""
    text = "Overloaded ... Error code: 429 - insufficient_quota"
    found = MATCHER.match(text)
    assert found is not None
    assert RULES[found.index].id == "quota.insufficient-quota"


def test_non_ascii_text_is_matched_at_its_anchors():
    """Curly quotes and other non-ASCII text are matched correctly too."""
    found = MATCHER.match("Azure OpenAI\u2019s content management policy \u2014 request blocked")
    assert found is not None
    assert RULES[found.index].code is ErrorCode.CONTENT_FILTER


def test_a_way_needs_all_its_words():
    """A line with only one word of a two-word rule does not try the rule at all."""
    rule = Rule("acme.up", ErrorCode.TRANSPORT, r"\bupstream (?:gone|vanished)\b", "Ours.")
    matcher = TextMatcher((rule,))
    assert matcher.triggers[0].tokens == {"upstream"}
    assert matcher.candidates("upstream pool size=10") == ()
    assert matcher.match("upstream pool size=10") is None
    assert matcher.candidates("upstream gone") == (0,)
    found = matcher.match("db: Upstream GONE")
    assert found is not None
    assert found.matched == "Upstream GONE"


def test_status_is_read_from_the_status_tokens():
    """The stated status is the first 4xx/5xx in a status context, not a count before it."""
    found = MATCHER.match("tokens=500 queue=429 then Error code: 503 - upstream connect error")
    assert found is not None
    assert found.status == 503


def test_rules_without_anchors_are_searched():
    """A rule that does not start with a known word is still found anywhere in the line."""
    rule = Rule("acme.code", ErrorCode.SERVER, r"[#]ACME-5\d\d\b", "Our gateway's codes.")
    matcher = TextMatcher((rule, *RULES))
    assert not matcher.triggers[0].anchors
    found = matcher.match("upstream said #ACME-503 then hung up")
    assert found is not None
    assert (found.index, found.matched) == (0, "#ACME-503")


def test_a_rule_with_some_unanchored_ways_is_tried_at_anchors_where_only_anchored_ones_fit():
    """Searched only when a way with no known start can match the line; else tried at anchors."""
    rule = Rule(
        "acme.mixed",
        ErrorCode.SERVER,
        r"\bupstream (?:gone|vanished)\b|[#]ACME-5\d\d (?:gone|down)\b",
        "Our gateway's two wordings.",
    )
    matcher = TextMatcher((rule,))
    assert not matcher.triggers[0].anchors
    anchored = matcher._plan_for("x", frozenset({b"upstream", b"gone"}))
    assert (anchored.scanned, [t.needle for t in anchored.tries]) == ((), [b" upstream "])
    searched = matcher._plan_for("x", frozenset({b"acme", b"down"}))
    assert (searched.scanned, searched.tries) == ((0,), ())
    for text, matched in [
        ("db: Upstream GONE", "Upstream GONE"),
        ("said #ACME-503 gone, upstream vanished", "#ACME-503 gone"),
        ("said #ACME-503 down", "#ACME-503 down"),
    ]:
        found = matcher.match(text)
        assert found is not None
        assert found.matched == matched


def test_a_way_that_starts_at_a_line_start_is_tried_at_every_line_start():
    """``^`` anchors a way: tried after each newline (however many), not searched."""
    rule = Rule("acme.stop", ErrorCode.ABORTED, r"^\W{0,8}(?-i:Stopped)\b\W*$", "Our UI's notice.")
    matcher = TextMatcher((rule,))
    assert matcher.triggers[0].anchors == {"^", "stopped"}
    plan = matcher._plan_for("x", frozenset({b"stopped"}))
    assert plan.scanned == ()
    assert sorted(t.needle for t in plan.tries) == [b" stopped ", b"^"]
    lines = "\n".join(f"frame {i}: Stopped here" for i in range(40))
    found = matcher.match(f"{lines}\n  -- Stopped --\nend")
    assert found is not None
    assert found.matched == "  -- Stopped --"
    assert matcher.match(f"{lines}\nend") is None
    assert matcher.match("it Stopped") is None


def test_rules_without_triggers_are_always_tried():
    """A rule with no provable trigger is a candidate for every line."""
    rule = Rule("acme.any", ErrorCode.SERVER, r"\w+-\d\d", "Anything numbered.")
    matcher = TextMatcher((rule,))
    assert matcher.triggers[0].always
    assert matcher.candidates("nothing here") == (0,)
    found = matcher.match("the pipe-42 again")
    assert found is not None
    assert found.matched == "pipe-42"


def test_rules_with_only_substring_triggers():
    """A literal that is not a whole token still narrows the candidates."""
    rule = Rule("acme.broke", ErrorCode.SERVER, r"\w+-broke", "Anything broke.")
    matcher = TextMatcher((rule,))
    assert matcher.triggers[0].substrings == {"-broke"}
    assert matcher.candidates("all fine") == ()
    found = matcher.match("the PIPE-BROKE again")
    assert found is not None
    assert found.matched == "PIPE-BROKE"


def test_rules_with_only_non_ascii_triggers():
    """A rule worded in Chinese keeps the prefilter exact: ASCII lines never try it."""
    rule = Rule("acme.zh", ErrorCode.RATE_LIMIT, r"请求(?:过于|太)频繁|负载已饱和", "Ours.")
    matcher = TextMatcher((rule, *RULES))
    assert matcher.exact
    assert matcher.triggers[0].tokens == {"请求过于频繁", "请求太频繁", "负载已饱和"}
    assert 0 not in matcher.candidates("429 Too Many Requests")
    assert 0 in matcher.candidates("当前分组上游负载已饱和")
    assert TextMatcher((rule,)).candidates("当前分组上游负载 已饱和") == ()
    # new-api's throttle notice (QuantumNous/new-api#991): the rule wins over the 429
    found = matcher.match("429 当前分组上游负载已饱和\uff0c请稍后再试")
    assert found is not None
    assert (found.index, found.matched) == (0, "负载已饱和")
    assert matcher.match("负载 已饱和") is None


def test_empty_text():
    """Empty text matches nothing."""
    assert MATCHER.match("") is None
    assert MATCHER.search_all_rules("") is None


def test_triggers_are_derived_once_per_pattern_in_a_bounded_cache():
    """A second matcher over the same rules derives nothing again, and gets the same triggers."""
    first = TextMatcher(RULES)
    before = _matcher._derived.cache_info()
    second = TextMatcher(RULES)
    after = _matcher._derived.cache_info()
    assert after.misses == before.misses
    assert after.maxsize == CACHE_LIMIT
    assert first.triggers == second.triggers == tuple(derive_triggers(r.pattern) for r in RULES)


def test_plan_and_pattern_caches_are_bounded():
    """Lines with thousands of distinct trigger sets never grow the plan caches past their limit."""
    matcher = TextMatcher(RULES)
    words = sorted(token.decode() for token in matcher.tokens)
    for first in words[:200]:
        for second in words[:200]:
            matcher.match(f"{first} {second} x")
    assert matcher._plan.cache_info().currsize == PLAN_CACHE_LIMIT
    assert matcher._pattern.cache_info().currsize <= CACHE_LIMIT


def test_every_built_in_rule_compiles_alone():
    """What a classifier skips for the built-in rules at start-up (``_validate``): each compiles.

    User rules are still compiled one by one when a classifier is built, so a bad one is
    named; the built-in ones are checked here instead, once.
    """
    failed = []
    for position, rule in enumerate(RULES):
        try:
            regex.compile(_alternative(position, rule.pattern), FLAGS)
        except regex.error as exc:
            failed.append(f"{rule.id}: {exc}")
    assert not failed


def test_a_class_of_capitals_is_matched():
    """``[KMG]B`` under IGNORECASE holds word characters: no spurious ``b`` token is required."""
    rule = Rule(
        id="user.size", code=ErrorCode.CONTEXT_OVERFLOW, pattern=r"\btoo large [KMG]B\b", why="w"
    )
    matcher = TextMatcher([rule])
    found = matcher.match("request too large MB")
    assert found is not None
    assert found.matched == "too large MB"


# The compiled token look-up of may_match (src/native), held to the Python expression.
try:
    _NATIVE = importlib.import_module("_llm_errors_native")
except ImportError:  # built without a C compiler: may_match uses the expression alone
    _NATIVE = None
_needs_native = pytest.mark.skipif(_NATIVE is None, reason="the native module was not built")
_SEEN = TextMatcher(RULES)._seen | {b"x" * 70, b"a_b9", b"500"}
_LINE_PARTS = st.one_of(
    st.sampled_from(sorted(_SEEN)),
    st.sampled_from([b"X" * 70, b"x" * 71, b"A_B9", b"Connection", b"TIMEOUT"]),
    st.binary(max_size=6),
    st.sampled_from([b" ", b"\t", b"\n", b"\r", b"\x0b", b"\x0c", b"-", b'":', b"\x80", b"_"]),
)


@_needs_native
@settings(max_examples=2000)
@given(st.lists(_LINE_PARTS, max_size=12).map(b"".join))
def test_the_native_token_lookup_finds_what_the_expression_does(line):
    hits = _NATIVE.TokenSet(_SEEN, TOKEN_TABLE).hits(line)
    assert hits == _SEEN.intersection(line.translate(TOKEN_TABLE).split())
    assert isinstance(hits, frozenset)


@_needs_native
def test_the_matcher_uses_the_native_lookup_where_it_was_built():
    assert isinstance(TextMatcher(RULES)._seen_in.__self__, _NATIVE.TokenSet)


@_needs_native
@pytest.mark.parametrize(
    ("tokens", "table", "error"),
    [
        pytest.param([b"a"], b"x" * 255, ValueError, id="short-table"),
        pytest.param(["a"], TOKEN_TABLE, TypeError, id="str-token"),
    ],
)
def test_the_native_token_lookup_refuses_what_it_cannot_read(tokens, table, error):
    with pytest.raises(error):
        _NATIVE.TokenSet(tokens, table)
