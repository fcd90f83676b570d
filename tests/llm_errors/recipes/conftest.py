"""The batch recipes' harness: the recipes from docs/classifier.md and the corpus's strings.

The recipes are not copied here: :func:`load_recipe` takes the Python block that follows
``<!-- recipe: NAME -->`` in docs/classifier.md and executes it, so the documented code
is the code under test (as tests/llm_retry/recipes does for docs/retry.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[3]
CLASSIFIER_DOC = ROOT / "docs" / "classifier.md"
CORPUS = ROOT / "tests" / "llm_errors" / "corpus"

_RECIPE = re.compile(
    r"<!-- recipe: (?P<name>[\w-]+) -->\s*```python\n(?P<code>.*?)^```", re.MULTILINE | re.DOTALL
)


def documented_recipes() -> dict[str, str]:
    """Every recipe block of docs/classifier.md, by name."""
    text = CLASSIFIER_DOC.read_text(encoding="utf-8")
    return {m["name"]: m["code"] for m in _RECIPE.finditer(text)}


def load_recipe(name: str) -> SimpleNamespace:
    """Execute the docs' recipe ``name`` in a fresh namespace and return its names.

    The namespace's module name is not importable, so functions sent to other
    processes (Dask's workers) are pickled by value, as a user's script's are.
    """
    source = documented_recipes()[name]
    namespace: dict[str, object] = {"__name__": f"recipe_{name.replace('-', '_')}"}
    exec(compile(source, f"docs/classifier.md (recipe {name})", "exec"), namespace)  # noqa: S102 - our own docs
    return SimpleNamespace(**namespace)


@pytest.fixture(scope="session")
def recipe() -> Callable[[str], SimpleNamespace]:
    """Load a recipe from docs/classifier.md: ``recipe("polars").with_verdicts``."""
    return load_recipe


@pytest.fixture
def recipe_names() -> set[str]:
    """The names of the recipes docs/classifier.md holds."""
    return set(documented_recipes())


@pytest.fixture(scope="session")
def corpus() -> dict[str, str]:
    """The corpus's real error strings, by row id."""
    return {
        row["id"]: row["text"]
        for path in sorted(CORPUS.glob("*.jsonl"))
        for row in map(json.loads, path.read_text(encoding="utf-8").splitlines())
    }
