"""The generated pattern reference in docs/ stays in sync with the tables."""

import pathlib
import runpy
import warnings

import pytest

from llm_errors import RULES
from llm_errors._reference import render_rules_reference


@pytest.mark.policy
def test_docs_reference_is_up_to_date():
    """``docs/patterns.md`` equals what ``python -m llm_errors._reference`` generates."""
    path = pathlib.Path(__file__).parents[2] / "docs" / "patterns.md"
    expected = render_rules_reference()
    assert path.read_text(encoding="utf-8") == expected, (
        "docs/patterns.md is stale: run `python -m llm_errors._reference > docs/patterns.md`"
    )


def test_reference_lists_every_rule_with_its_examples_and_sources():
    """Every rule id, example source and (flattened) example appears in the reference."""
    text = render_rules_reference()
    for rule in RULES:
        assert f"`{rule.id}`" in text
        for example in rule.examples:
            assert example.source in text
            assert example.text.replace("\r", "\\r") in text


def test_running_the_module_prints_the_reference(capsys):
    """``python -m llm_errors._reference`` writes exactly the generated reference."""
    with warnings.catch_warnings():  # the module is imported already: runpy says so
        warnings.simplefilter("ignore", RuntimeWarning)
        runpy.run_module("llm_errors._reference", run_name="__main__")
    assert capsys.readouterr().out == render_rules_reference()
