"""Users' patterns bounded: size, nesting and backtracking before compiling, time matching."""

import warnings

import pytest

from llm_errors import (
    RULES,
    Classifier,
    ErrorCode,
    Example,
    Layer,
    Rule,
    RulesFileError,
    rules_from_toml,
)
from llm_errors._match import matcher
from llm_errors._match.bounds import (
    NESTING_LIMIT,
    SIZE_LIMIT,
    SMALL_REPEAT,
    backtracking_problem,
    bounds_problem,
    pattern_bounds,
)
from llm_errors._match.matcher import MatchTimeoutWarning

#: Over the size limit, yet small enough to compile in a moment if the check let it through.
REPEATED_REPEAT = r"w(?:zq{400}){400}x"
TOO_DEEP = "(?:" * (NESTING_LIMIT + 1) + "boom" + ")" * (NESTING_LIMIT + 1)


def test_the_builtin_rules_are_well_within_the_bounds():
    """The largest built-in pattern is a twentieth of the size limit and nests a few deep."""
    sizes, depths = zip(*(pattern_bounds(rule.pattern) for rule in RULES), strict=True)
    assert max(sizes) < SIZE_LIMIT // 20
    assert max(depths) < NESTING_LIMIT // 10


@pytest.mark.parametrize(
    ("pattern", "size", "depth"),
    [
        pytest.param("abc", 3, 0, id="literal"),
        pytest.param("ab{3}", 4, 0, id="counted-atom"),
        pytest.param("a{2,}b{,5}", 7, 0, id="open-bounds"),
        pytest.param("(ab){3}", 6, 1, id="counted-group"),
        pytest.param("((ab){3}c){10}", 70, 2, id="nested-multiplies"),
        pytest.param(r"[{3}]x\{3\}", 5, 0, id="no-quantifier-in-a-class-or-escaped"),
        pytest.param("x{a}", 4, 0, id="not-a-quantifier"),
        pytest.param("[]{]{2}", 2, 0, id="bracket-first-in-a-class"),
        pytest.param(")a)", 3, 0, id="unbalanced"),
    ],
)
def test_sizes_multiply_out_counted_repeats(pattern, size, depth):
    """Escapes and classes count one, groups what they hold, ``X{m,n}`` X times the bound."""
    assert pattern_bounds(pattern) == (size, depth)


def test_problems_name_the_figure_and_the_limit():
    """A pattern over a bound is refused with its figure and the limit; others pass."""
    assert bounds_problem(r"\bupstream hiccup\b") is None
    assert f"over the limit of {SIZE_LIMIT:,}" in bounds_problem(REPEATED_REPEAT)
    assert bounds_problem(TOO_DEEP) == (
        f"nests groups {NESTING_LIMIT + 1} deep, over the limit of {NESTING_LIMIT}"
    )


@pytest.mark.parametrize(
    ("pattern", "detail"),
    [
        pytest.param(REPEATED_REPEAT, "once its counted repeats are multiplied out", id="size"),
        pytest.param(TOO_DEEP, "nests groups", id="depth"),
        pytest.param("(?V1)boom", "VERSION0 and VERSION1", id="version-flag"),
        pytest.param(r"\bboom (a|aa)+$", "the shape of '(a|aa)+'", id="backtracking"),
    ],
)
def test_a_users_pattern_over_a_bound_is_refused_before_it_is_compiled(pattern, detail):
    """A rules file and a Classifier both refuse it, naming the rule and the reason."""
    text = (
        f"[[rules]]\nid = 'u.bomb'\ncode = 'SERVER'\npattern = '{pattern}'\n"
        "why = 'x'\nexamples = ['boom']\n"
    )
    with pytest.raises(RulesFileError) as caught:
        rules_from_toml(text, name="bomb.toml")
    assert (caught.value.rule, caught.value.field) == ("'u.bomb'", "pattern")
    assert detail in str(caught.value)
    with pytest.raises(ValueError, match=r"rule 'u\.bomb'"):
        Classifier(extra_rules=[Rule("u.bomb", ErrorCode.SERVER, pattern, "x")])


def test_every_builtin_pattern_passes_the_backtracking_check():
    """No built-in rule has a refused shape (``rules check --builtin`` checks them so)."""
    refused = {rule.id: backtracking_problem(rule.pattern) for rule in RULES}
    assert {rule: problem for rule, problem in refused.items() if problem} == {}


NESTED = "which holds an unbounded repeat (the shape of '(a+)+')"
OVERLAPPING = "whose alternatives can start with the same character (the shape of '(a|aa)+')"


@pytest.mark.parametrize(
    ("pattern", "at", "shape"),
    [
        pytest.param(r"\bfoo (a|aa)+$", 6, OVERLAPPING, id="issue-21"),
        pytest.param(r"(a+)+", 0, NESTED, id="plus-in-plus"),
        pytest.param(r"x(\w+\s?)*", 1, NESTED, id="word-and-optional-space"),
        pytest.param(r"(?:x*y?)+", 0, NESTED, id="star-in-plus"),
        pytest.param(rf"(?:\w+\s+){{0,{SMALL_REPEAT + 1}}}", 0, NESTED, id="large-count"),
        pytest.param(rf"(?:\w+\s+){{{SMALL_REPEAT},}}", 0, NESTED, id="open-count"),
        pytest.param(rf"(?:a{{1,{SMALL_REPEAT + 1}}}b)+", 0, NESTED, id="large-inner-count"),
        pytest.param(r"(?:(?!x.*)b)+", 0, NESTED, id="in-a-lookahead"),
        pytest.param(r"(?:a+?)*?", 0, NESTED, id="lazy"),
        pytest.param(r"(a|aa)+", 0, OVERLAPPING, id="prefix"),
        pytest.param(r"(?:ab|a)*", 0, OVERLAPPING, id="longer-first"),
        pytest.param(r"(?:a|A)+", 0, OVERLAPPING, id="case-insensitive"),
        pytest.param("(?:\u017f|s)+", 0, OVERLAPPING, id="long-s-folds-to-s"),
        pytest.param(r"(?:\d|5)+", 0, OVERLAPPING, id="digit-class"),
        pytest.param(r"(?:[a-z]|K)+", 0, OVERLAPPING, id="class-and-capital"),
        pytest.param(r"(?:a?b|b)+", 0, OVERLAPPING, id="optional-first"),
        pytest.param(r"(?:a|)+", 0, OVERLAPPING, id="empty-alternative"),
        pytest.param(r"(?:.|a)+", 0, OVERLAPPING, id="any-character"),
        pytest.param(r"(?P<name>a|aa)+", 0, OVERLAPPING, id="named-group"),
        pytest.param("(?x:(?: a # a comment\n | a b )+)", 4, OVERLAPPING, id="verbose"),
    ],
)
def test_backtracking_shapes_are_refused_with_the_group_and_the_fix(pattern, at, shape):
    """The reason names the group's position, its shape and how to write it safely."""
    problem = bounds_problem(pattern)
    assert problem is not None
    assert problem.startswith(f"repeats the group at position {at}, {shape}, so failing")
    assert "possessive" in problem
    assert "atomic ('(?>...)')" in problem


@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param(r"(?:\s|-)+", id="space-or-dash"),
        pytest.param(r"(?:a|b)+", id="different-letters"),
        pytest.param(r"(?:\s|\w)+", id="disjoint-categories"),
        pytest.param(r"(?:\d|a)+", id="digit-or-letter"),
        pytest.param(r"(?:[a-z]|-)+", id="class-or-outside"),
        pytest.param(r"(?:\bnot found|\bmissing)+", id="after-a-boundary"),
        pytest.param(rf"(?:\w+\s+){{0,{SMALL_REPEAT}}}", id="small-count"),
        pytest.param(rf"(?:a{{1,{SMALL_REPEAT}}}b)+", id="small-inner-count"),
        pytest.param(r"(a++)+", id="possessive-inner"),
        pytest.param(r"(?:a|aa)++", id="possessive-outer"),
        pytest.param(r"(?>a+)+", id="atomic-inner"),
        pytest.param(r"(?>a|aa)+", id="atomic-alternatives"),
        pytest.param(r"(?:a|aa)?", id="not-repeated"),
        pytest.param(r"[(a|aa)+]", id="in-a-class"),
        pytest.param(r"\(a|aa\)+", id="escaped-parentheses"),
        pytest.param("(?x:(?: a | b )+)", id="verbose-spaces"),
    ],
)
def test_safe_repeats_pass(pattern):
    """Repeats that cannot split a text many ways pass (with the regex module's syntax)."""
    assert bounds_problem(pattern) is None


#: Not a refused shape (a group repeated at most SMALL_REPEAT times), yet failing on
#: ``foo`` and 200 letters tries about C(200, 9), 10**16, ways to split them: no
#: machine finishes it within the limit, so the verdict is certain. Without a space after
#: ``foo`` the rule has no known start and is searched for; with one, it is tried where
#: ``foo`` starts (the matcher's two routes).
SLOW = {
    "searched": (rf"\bfoo(?:\w+\s?){{1,{SMALL_REPEAT}}}\d", "foo12", "foo" + "a" * 200),
    "anchored": (rf"\bfoo (?:\w+\s?){{1,{SMALL_REPEAT}}}\d", "foo 12", "foo " + "a" * 200),
}


@pytest.fixture(params=sorted(SLOW))
def slow(request):
    """A classifier with a slow rule, whose patterns get 0.05 s per text; a match, a slow text."""
    pattern, match, slow_text = SLOW[request.param]
    assert bounds_problem(pattern) is None  # the static check does not catch it
    rule = Rule("u.slow", ErrorCode.SERVER, pattern, "slow", (Example(match, "test"),))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matcher, "MATCH_TIMEOUT", 0.05)
        return Classifier(extra_rules=[rule]), match, slow_text


def test_a_text_over_the_match_time_limit_matches_no_rule(slow):
    """The verdict is the non-retryable fallback, and a warning names the limit and rule."""
    classifier, match, slow_text = slow
    assert classifier.classify(match).rule == "u.slow"
    with pytest.warns(MatchTimeoutWarning) as caught:
        verdict = classifier.classify(slow_text)
    assert (verdict.code, verdict.rule, verdict.layer) == (
        ErrorCode.PROVIDER_ERROR,
        "fallback",
        Layer.FALLBACK,
    )
    assert not verdict.retryable
    (warning,) = caught
    assert "over the match-time limit (MATCH_TIMEOUT, 0.05 s)" in str(warning.message)
    assert "tried: u.slow)" in str(warning.message)
    with pytest.warns(MatchTimeoutWarning):
        assert classifier.explain(slow_text).classification.rule == "fallback"


class _FakeClock:
    """``time`` for the matcher, whose ``monotonic`` moves only when told to."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


def test_compiling_a_pattern_is_not_counted_against_the_limit(monkeypatch):
    """A compile that takes longer than the limit (a loaded machine) times nothing out."""
    clock = _FakeClock()
    monkeypatch.setattr(matcher, "time", clock)
    compile_rules = matcher.TextMatcher._compile
    compile_rule = matcher.TextMatcher._compile_rule

    def slow_compile(self, candidates):
        clock.now += 10 * matcher.MATCH_TIMEOUT
        return compile_rules(self, candidates)

    def slow_compile_rule(self, index):
        clock.now += 10 * matcher.MATCH_TIMEOUT
        return compile_rule(self, index)

    monkeypatch.setattr(matcher.TextMatcher, "_compile", slow_compile)
    monkeypatch.setattr(matcher.TextMatcher, "_compile_rule", slow_compile_rule)
    searched = Rule("u.searched", ErrorCode.SERVER, r"[a-z]+ relay hiccup", "w")
    anchored = Rule("u.anchored", ErrorCode.SERVER, r"\bupstream wobble\b", "w")
    classifier = Classifier(extra_rules=[searched, anchored])
    with warnings.catch_warnings():
        warnings.simplefilter("error", MatchTimeoutWarning)
        assert classifier.classify("a relay hiccup").rule == "u.searched"
        assert classifier.classify("an upstream wobble").rule == "u.anchored"


def test_the_limit_is_spent_across_the_pattern_calls_on_a_text(monkeypatch):
    """Each call gets what the calls before it left; once none is left, the next one times out."""
    clock = _FakeClock()
    monkeypatch.setattr(matcher, "time", clock)
    given: list[float] = []

    class Pattern:  # a pattern whose every call takes 0.4 s of the clock
        def match(self, _text: str, _at: int, *, timeout: float) -> None:
            given.append(timeout)
            clock.now += 0.4

        def search(self, _text: str, *, timeout: float) -> None:
            self.match(_text, 0, timeout=timeout)

    budget = matcher._Budget(1.0)
    pattern = Pattern()
    assert budget.match(pattern, "x", 0) is None  # type: ignore[arg-type]
    assert budget.search(pattern, "x") is None  # type: ignore[arg-type]
    assert budget.match(pattern, "x", 0) is None  # type: ignore[arg-type]
    with pytest.raises(TimeoutError):
        budget.search(pattern, "x")  # type: ignore[arg-type]
    assert given == pytest.approx([1.0, 0.6, 0.2])


def test_built_in_rules_still_decide_a_text_over_the_limit(slow):
    """Only the user rules lose the text: the built-in table is tried on it, without a limit."""
    classifier, _, slow_text = slow
    text = slow_text + " rate limit exceeded"
    expected = Classifier().classify(text)
    assert expected.rule != "fallback"
    with pytest.warns(MatchTimeoutWarning) as caught:
        verdict = classifier.classify(text)
    assert verdict == expected
    assert "only the built-in rules were tried" in str(caught[0].message)


def test_other_evidence_still_decides_when_the_text_is_over_the_limit(slow):
    """Only the text layer fails: an error body's status still routes the error."""
    classifier, _, slow_text = slow
    with pytest.warns(MatchTimeoutWarning):
        verdict = classifier.classify({"status": 429, "message": slow_text})
    assert (verdict.code, verdict.layer) == (ErrorCode.RATE_LIMIT, Layer.STATUS)


def test_only_rules_from_outside_the_table_get_a_time_limit():
    """The built-in rules run without one (no cost); a user's rule, or a replaced one, with."""
    assert Classifier()._matcher.timeout is None
    replaced = Rule(RULES[0].id, RULES[0].code, r"\bupstream hiccup\b", "why")
    assert Classifier(extra_rules=[replaced])._matcher.timeout == matcher.MATCH_TIMEOUT
