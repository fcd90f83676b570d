"""A pattern's size with counted repeats multiplied out, and its nesting, before compiling."""

import pytest

from llm_errors import RULES, Classifier, ErrorCode, Rule, RulesFileError, rules_from_toml
from llm_errors._match.bounds import NESTING_LIMIT, SIZE_LIMIT, bounds_problem, pattern_bounds

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
