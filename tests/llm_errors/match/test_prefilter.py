"""Trigger tokens and anchors: sound (never skip a rule that matches), and useful."""

import functools

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_errors import RULES
from llm_errors._match.matcher import FLAGS, TextMatcher
from llm_errors._match.prefilter import (
    Triggers,
    derive_triggers,
    is_foreign,
    text_tokens,
    translate,
)


@pytest.mark.parametrize(
    ("pattern", "tokens", "anchors"),
    [
        pytest.param(
            r"\boverloaded_error\b", {"overloaded_error"}, {"overloaded_error"}, id="identifier"
        ),
        pytest.param(
            r"\bconnection (?:reset|refused)\b",
            {"reset", "refused"},
            {"connection"},
            id="rarer-word-preferred",
        ),
        pytest.param(
            r"\b(?:ECONNRESET|EPIPE)\b",
            {"econnreset", "epipe"},
            {"econnreset", "epipe"},
            id="alternatives",
        ),
        pytest.param(r"status\W{1,3}429\b", {"429"}, set(), id="unanchored-start"),
        pytest.param(
            r"\b52[0-7]\b",
            {str(n) for n in range(520, 528)},
            {str(n) for n in range(520, 528)},
            id="small-range",
        ),
        pytest.param(r"\bUND_ERR_\w+", set(), set(), id="open-ended-identifier"),
    ],
)
def test_derived_tokens_and_anchors(pattern, tokens, anchors):
    """Tokens are whole words every match contains; anchors are words matches start with."""
    triggers = derive_triggers(pattern)
    assert set(triggers.tokens) == tokens
    assert set(triggers.anchors) == anchors


@pytest.mark.parametrize(
    ("pattern", "tokens"),
    [
        pytest.param(
            r"(?:请求|调用)(?:过于|太)频繁|负载已饱和",
            {"请求过于频繁", "请求太频繁", "调用过于频繁", "调用太频繁", "负载已饱和"},
            id="alternatives",
        ),
        pytest.param(r"被用户[^\n]{1,8}?中断", {"被用户"}, id="run-before-a-gap"),
        pytest.param("令牌\uff1a\\s+无效", {"令牌\uff1a"}, id="punctuation-in-the-run"),
        pytest.param(
            r"\bErrno\s+121\b[^\n]{0,200}?信号灯超时", {"信号灯超时"}, id="preferred-to-ascii"
        ),
    ],
)
def test_caseless_non_ascii_runs_are_tokens(pattern, tokens):
    """A run of two or more caseless non-ASCII literals (CJK, kana, punctuation) is a token."""
    triggers = derive_triggers(pattern)
    assert set(triggers.tokens) == tokens
    assert all(is_foreign(token) for token in tokens)


@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param(r"\béchec\b", id="cased-letters"),
        pytest.param(r"用[^\n]中", id="single-characters"),
    ],
)
def test_other_non_ascii_literals_are_not_tokens(pattern):
    """Letters with case (IGNORECASE equates É and é) and lone characters are not tokens."""
    assert not any(is_foreign(token) for token in derive_triggers(pattern).tokens)


@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param(r"foo", id="no-boundaries"),
        pytest.param(r"\w+ failed", id="open-word"),
        pytest.param(r"\p{Lu}+ error", id="regex-only-syntax"),
        pytest.param(r".*", id="anything"),
        # ``re`` reads these as literals; ``regex`` matches "rat" and "foo1" with them
        pytest.param(r"\brate{d}\b", id="fuzzy-constraint"),
        pytest.param(r"\bfoo[[:digit:]]\b", id="posix-class"),
        pytest.param(r"(?i)\bfoo\b", id="inline-flags"),
    ],
)
def test_underivable_patterns_fall_back_safely(pattern):
    """What cannot be proved degrades to substrings or "always try", never to a guess."""
    triggers = derive_triggers(pattern)
    assert not triggers.tokens
    if triggers.substrings:
        assert all(sub in pattern.lower() for sub in triggers.substrings)


def test_a_group_named_in_angles_reads_as_one_named_with_p():
    """``regex`` reads ``(?<name>...)`` as ``(?P<name>...)``: a user's rule gets its triggers."""
    angle = derive_triggers(r"\bquota (?<kind>daily|hourly) exceeded")
    assert not angle.always
    assert angle == derive_triggers(r"\bquota (?P<kind>daily|hourly) exceeded")


def test_unreadable_syntax_means_always_try():
    """A pattern the parser refuses is always tried: no tokens, substrings, anchors or ways."""
    assert derive_triggers(r"\brate{d}\b") == Triggers()


@pytest.mark.parametrize(
    ("pattern", "ways"),
    [
        pytest.param(
            r"\bconnection (?:error|reset)\b",
            {
                ("connection", frozenset({"connection", "error"})),
                ("connection", frozenset({"connection", "reset"})),
            },
            id="every-word-of-each-alternative",
        ),
        pytest.param(
            r"\bstream(?: ended)?\b",
            {("stream", frozenset({"stream"}))},
            id="supersets-of-a-way-dropped",
        ),
        pytest.param(
            r"(?:\bread|\bwrite) timeout\b",
            {("read", frozenset({"read", "timeout"})), ("write", frozenset({"write", "timeout"}))},
            id="anchor-per-way",
        ),
        pytest.param(r"status\W{1,3}429\b", {(None, frozenset({"429"}))}, id="unanchored"),
        pytest.param(r"\bUND_ERR_\w+", set(), id="no-tokens-no-ways"),
        pytest.param(
            r"\bhit (?:\w+ ){0,3}rate limit\b",
            {("hit", frozenset({"hit", "rate", "limit"}))},
            id="words-after-a-repeat-that-ends-with-a-separator",
        ),
        pytest.param(
            r"\bhit(?: \w+){1,3}rate limit\b",
            {("hit", frozenset({"hit", "limit"}))},
            id="words-before-a-repeat-that-starts-with-a-separator",
        ),
        pytest.param(
            r"\btoo large [KMG]B\b",
            {("too", frozenset({"too", "large", unit})) for unit in ("kb", "mb", "gb")},
            id="capitals-in-a-class-are-word-characters",
        ),
        pytest.param(
            r"\bsize[A-Z]+limit\b",
            set(),
            id="a-range-of-capitals-holds-word-characters",
        ),
        pytest.param(
            r"^\W{0,8}(?:operation|stream) cancell?ed\b|^Aborted\b|(?m:^)\W?Stopped\b",
            {
                # no \W before the word: it starts there; one or more: the line start
                *(
                    (start, frozenset({word, cancelled}))
                    for word in ("operation", "stream")
                    for start in ("^", word)
                    for cancelled in ("cancelled", "canceled")
                ),
                ("aborted", frozenset({"aborted"})),
                ("^", frozenset({"stopped"})),
                ("stopped", frozenset({"stopped"})),
            },
            id="a-line-start-anchors-where-no-word-follows-it",
        ),
        pytest.param(
            r"\bhit (?:\w+-?){0,3}rate limit\b",
            {("hit", frozenset({"hit", "limit"}))},
            id="a-repeat-that-may-end-in-a-word-character-bounds-nothing",
        ),
    ],
)
def test_ways(pattern, ways):
    """A way is an expansion's start token and all the whole tokens it contains."""
    assert set(derive_triggers(pattern).ways) == ways


#: Rules with an alternative that starts with no literal word: they are tried only on
#: lines holding their tokens, then searched rather than tried at anchor positions (the
#: linear-time test bounds them too). A new rule should not join this set lightly.
SEARCHED = frozenset(
    {
        "filter.blocked-wording",
        "filter.usage-policy",
        "quota.daily-window",
        "auth.missing-credentials",
        "request.malformed-body",
        "local.runner-crashed",
        "abort.interrupt-names",
        "connect.failure-names",
        "http2.goaway-reset",
        "net.io-timeout",
        "litellm.connection-error",
        # worded in Chinese: triggered by their CJK runs, in non-ASCII lines only
        "zh.moderation",
        "zh.quota-balance",
        "zh.auth-failure",
        "zh.rate-limit",
        "zh.user-cancel",
    }
)


# The analysis reads each pattern with its own parser (``_match/syntax.py``, as ``regex``
# reads it; nothing walks ``re``'s private parser): test_syntax.py checks every built-in
# rule parses, and this test that each gets triggers, so a change in either shows here.
def test_every_builtin_rule_has_tokens_and_anchors():
    """No built-in rule turns the token prefilter off; anchors are missing only where named."""
    unanchored = set()
    for rule in RULES:
        triggers = derive_triggers(rule.pattern)
        assert triggers.tokens, rule.id
        if not triggers.anchors:
            unanchored.add(rule.id)
    assert unanchored == SEARCHED


def test_tokens_of_text():
    """Tokens are lower-cased ASCII word runs; punctuation separates them."""
    assert text_tokens("Error: read ECONNRESET (UND_ERR_SOCKET)") == [
        b"error",
        b"read",
        b"econnreset",
        b"und_err_socket",
    ]
    assert translate("A-b") == b"a b"


def test_non_ascii_characters_are_separators_at_their_offsets():
    """Each character is one byte: offsets into the translation are offsets into the text."""
    assert translate("caf\u00e9 \u2019ok") == b"caf   ok"
    assert translate("\U0001f600x") == b" x"
    assert text_tokens("d\u00e9j\u00e0 vu") == [b"d", b"j", b"vu"]


def test_ignorecase_equivalents_are_folded():
    """Characters IGNORECASE equates with ASCII letters do not hide a token."""
    assert b"kill" in text_tokens("\u212aill")  # KELVIN SIGN
    assert b"socket" in text_tokens("\u017focket")  # LONG S
    assert b"invalid" in text_tokens("\u0130NVAL\u0130D")  # DOTTED CAPITAL I


FRAGMENTS = [example.text for rule in RULES for example in rule.examples]
#: Pieces of Chinese wordings (new-api's throttle notice, Roo Code's cancel), to recombine.
CJK = ["请求", "过于频繁", "被用户", "\uff0c", "负载已饱和"]


@functools.cache
def compiled():
    """Each rule, its compiled pattern and its ways (built when a test first asks)."""
    return [
        (rule, regex.compile(rule.pattern, FLAGS), derive_triggers(rule.pattern).ways)
        for rule in RULES
    ]


@functools.cache
def foreign():
    """The non-ASCII trigger tokens of the rules."""
    return {
        token
        for _, _, ways in compiled()
        for _, tokens in ways
        for token in tokens
        if is_foreign(token)
    }


def _whole_tokens(text):
    return {token.decode() for token in text_tokens(text)} | {t for t in foreign() if t in text}


@settings(deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(FRAGMENTS),
            st.text(alphabet=" :=[]{}()\"'_-.,/abcdefghijklmnopqrstuvwxyz0123456789", max_size=20),
            st.sampled_from(
                [
                    "\u212a",
                    "\u017f",
                    "\u0130",
                    "\u2019",
                    *CJK,
                    "\u00e9",
                    "\n",
                    "\t",
                ]
            ),
        ),
        max_size=4,
    ),
    st.sampled_from([str, str.upper, str.lower, str.swapcase]),
)
def test_every_match_goes_through_a_way(parts, case):
    """Soundness of ways: each match starts at a way's anchor and holds all its tokens."""
    text = case("".join(parts))
    tokens = _whole_tokens(text)
    translated = translate(text)
    for rule, pattern, ways in compiled():
        for found in pattern.finditer(text, overlapped=True):
            start = translated[found.start() :].split(maxsplit=1)[:1]
            assert any(
                needed <= tokens and (anchor is None or [anchor.encode()] == start)
                for anchor, needed in ways
            ), (rule.id, found.group())


MATCHER = TextMatcher(RULES)


def _matching_rules(text):
    return {i for i, (_, pattern, _) in enumerate(compiled()) if pattern.search(text)}


@settings(deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(FRAGMENTS),
            st.text(alphabet=" :=[]{}()\"'_-.,/abcdefghijklmnopqrstuvwxyz0123456789", max_size=20),
            st.sampled_from(
                [
                    "\u212a",
                    "\u017f",
                    "\u0130",
                    "\u2019",
                    *CJK,
                    "\n",
                    "\t",
                ]
            ),
        ),
        max_size=4,
    ),
    st.sampled_from([str, str.upper, str.lower, str.swapcase]),
)
def test_candidates_never_miss_a_matching_rule(parts, case):
    """Soundness: every rule that matches a text is among its candidates."""
    text = case("".join(parts))
    assert _matching_rules(text) <= set(MATCHER.candidates(text))
