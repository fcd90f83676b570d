"""The pattern table: every row is real, tested and unambiguous."""

import pytest
import regex

from llm_errors import RULES, ErrorCode, Example, Rule, classify
from llm_errors._match.matcher import FLAGS

EXAMPLES = [
    pytest.param(rule, example, id=f"{rule.id}[{i}]")
    for rule in RULES
    for i, example in enumerate(rule.examples)
]


def test_ids_are_unique_and_every_rule_has_a_sourced_example():
    """Ids are unique; each rule has a rationale and at least one example with a source."""
    ids = [rule.id for rule in RULES]
    assert len(ids) == len(set(ids))
    for rule in RULES:
        assert rule.why.strip(), rule.id
        assert rule.examples, rule.id
        assert all(example.source.strip() for example in rule.examples), rule.id


@pytest.mark.parametrize(("rule", "example"), EXAMPLES)
def test_rule_matches_its_own_examples(rule, example):
    """Each example really contains the wording its rule describes."""
    assert regex.search(rule.pattern, example.text, FLAGS), (rule.id, example.text)


@pytest.mark.parametrize(("rule", "example"), EXAMPLES)
def test_every_example_classifies_to_its_rules_code(rule, example):
    """Precedence resolves every example to its rule's code."""
    assert classify(example.text).code is rule.code, classify(example.text)


def test_no_example_is_claimed_by_an_earlier_rule_with_another_code():
    """An earlier rule with a different code never matches another rule's example.

    The spirit of httpx's ``test_httpcore_all_exceptions_mapped``: a conflict that
    precedence does not resolve in the example's favour is a bug in the table.
    """
    conflicts = []
    for position, rule in enumerate(RULES):
        for example in rule.examples:
            for earlier in RULES[:position]:
                if earlier.code is rule.code:
                    continue
                if regex.search(earlier.pattern, example.text, FLAGS):
                    conflicts.append((rule.id, earlier.id, example.text[:80]))
    assert conflicts == []


def test_rule_rejects_bad_fields():
    """A malformed rule fails at construction and names itself."""
    with pytest.raises(TypeError, match="'r1'"):
        Rule("r1", "TIMEOUT", "x", "why")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-empty"):
        Rule(" ", ErrorCode.TIMEOUT, "x", "why")
    with pytest.raises(ValueError, match="'r2'"):
        Rule("r2", ErrorCode.TIMEOUT, "", "why")
    with pytest.raises(TypeError, match="'r3'"):
        Rule("r3", ErrorCode.TIMEOUT, "x", "why", ("text",))  # type: ignore[arg-type]
    assert Rule("r4", ErrorCode.TIMEOUT, "x", "why", (Example("x", "s"),)).examples
