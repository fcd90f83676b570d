"""The generated pattern reference in docs/ stays in sync with the tables."""

import pathlib
import runpy

import pytest

from llm_errors import RULES, _reference
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
    # The file ``-m`` runs, run as ``-m`` runs it (run_module would ask pytest's
    # assertion-rewriting importer, which holds an installed package's modules, for code).
    runpy.run_path(_reference.__file__, run_name="__main__")
    assert capsys.readouterr().out == render_rules_reference()
