"""docs/retry.md has a recipe for every SDK and library it promises, each with its test module."""

from pathlib import Path

SDKS = {"openai", "anthropic", "mistralai", "google-genai", "litellm", "boto3"}
#: The other libraries' fallback hooks (docs/retry.md, "Other libraries' fallbacks").
FALLBACK_HOOKS = {"pydantic-ai", "langchain"}


def test_every_sdk_has_a_documented_recipe(recipe_names):
    """The docs hold exactly one recipe block per SDK and per fallback hook."""
    assert recipe_names == SDKS | FALLBACK_HOOKS


def test_every_recipe_has_its_test_module(recipe_names):
    """Each documented recipe is run by tests/llm_retry/recipes/test_<sdk>.py."""
    here = Path(__file__).parent
    missing = [n for n in recipe_names if not (here / f"test_{n.replace('-', '_')}.py").exists()]
    assert missing == []
