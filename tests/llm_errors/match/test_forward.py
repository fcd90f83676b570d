"""Look-behinds read forward: a pattern that matches at least every line the rule's does."""

import json
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_errors import RULES
from llm_errors._match.forward import forwarded
from llm_errors._match.matcher import FLAGS

CORPUS = Path(__file__).parents[1] / "corpus"
_STATUS = r"\b(?:500|503)\b(?![.,]\d)(?<=(?:\bstatus|\bcode)\W{1,3}\d{3})"


def _lines() -> list[str]:
    """Every rule example and every corpus message, one line each."""
    texts = [example.text for rule in RULES for example in rule.examples]
    for path in sorted(CORPUS.glob("*.jsonl")):
        texts += [json.loads(row)["text"] for row in path.read_text().splitlines() if row]
    return [line for text in texts for line in text.splitlines()]


def test_a_status_look_behind_is_read_forward():
    """The words behind the status come before it: a bare ``503`` is no longer enough."""
    forward = forwarded(_STATUS)
    assert forward is not None
    assert "(?<=" not in forward
    pattern = regex.compile(forward, FLAGS)
    assert pattern.search("upstream said status: 503")
    assert pattern.search("error code 500 from gateway")
    assert not pattern.search("worker heartbeat ok queue_depth=503")
    without_look_behinds = regex.sub(r"\(\?<=.*\)$", "", _STATUS)
    assert regex.search(without_look_behinds, "queue_depth=503", FLAGS)  # what the filter had


def test_a_look_behind_at_an_alternative_start_is_reached_by_distributing():
    """``R(?:(?<=B E)T|U)`` becomes ``B R T | R U``."""
    forward = forwarded(r"\b503\b(?:(?<=\[\d{3})\]|[ ]status code\b)")
    assert forward is not None
    assert "(?<=" not in forward
    pattern = regex.compile(forward, FLAGS)
    assert pattern.search("failed: [503] upstream")
    assert pattern.search("503 status code (no body)")
    assert not pattern.search("queue 503] upstream")


@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param(r"\bcancelled\b", id="no-look-behind"),
        pytest.param(r"\d+(?<=\bstatus \d{3})", id="run-of-varying-width"),
        pytest.param(r"\b503\b(?<=status \d+)", id="tail-of-varying-width"),
        pytest.param(r"\b503\b(?<!status \d{3})", id="negative"),
        pytest.param(r"a(?:b(?<=ab)c)", id="inside-a-group-after-a-start"),
        pytest.param(r"(?:b(?<=ab)c)+", id="inside-a-repeat"),
        pytest.param(r"\p{L}(?<=a\w)", id="outside-the-syntax"),
    ],
)
def test_what_cannot_be_read_forward_is_left(pattern):
    """``None``: no look-behind to read forward, or none that may be (the filter drops it)."""
    assert forwarded(pattern) is None


def test_every_forwarded_rule_matches_every_line_its_pattern_matches():
    """Soundness on every rule example and corpus message, for each rule read forward."""
    lines = _lines()
    read = [(rule, forwarded(rule.pattern)) for rule in RULES]
    read = [(rule, forward) for rule, forward in read if forward is not None]
    assert len(read) >= 14  # the status rules at least
    for rule, forward in read:
        original, widened = regex.compile(rule.pattern, FLAGS), regex.compile(forward, FLAGS)
        missed = [line for line in lines if original.search(line) and not widened.search(line)]
        assert not missed, (rule.id, missed[:3])


_PIECES = {
    "before": ["", r"\b", "a", "x?"],
    "run": ["ab", r"\d\d", "(?:ab|01)", "(?:ab|a1)", "a.", r"\b1\b"],
    "behind": ["", "a", "b", r"\s", "(?:a|bb)", "^", r"\b", "x*"],
    "tail": ["..", r"\w\w", "ab", r"\d{2}", r"[a0]\d", "1"],
    "after": ["", "a", r"\b", "$", "(?:0|b)"],
}


@settings(max_examples=300, deadline=None)
@given(
    parts=st.fixed_dictionaries({key: st.sampled_from(values) for key, values in _PIECES.items()}),
    spread=st.booleans(),
    texts=st.lists(st.text(alphabet="ab01x \n", max_size=12), min_size=1, max_size=20),
)
def test_reading_forward_only_widens(parts, spread, texts):
    """Whatever the pieces, a text the pattern matches is matched read forward (Hypothesis)."""
    behind = f"(?<={parts['behind']}{parts['tail']})"
    body = f"(?:{behind}{parts['after']}|x)" if spread else behind + parts["after"]
    pattern = parts["before"] + parts["run"] + body
    forward = forwarded(pattern)
    if forward is None:
        return
    original, widened = regex.compile(pattern, FLAGS), regex.compile(forward, FLAGS)
    for text in texts:
        if original.search(text):
            assert widened.search(text), (pattern, forward, text)


def test_distributing_is_bounded():
    """A group is distributed once per sequence: the result stays near the pattern's size."""
    pattern = r"\d" + r"(?:(?<=a\d)b|c)\d" * 20
    forward = forwarded(pattern)
    assert forward is not None
    assert len(forward) < 4 * len(pattern)
