"""docs/classifier.md's batch recipes are the ones tested here, each by its own module."""

from pathlib import Path

RECIPES = {"polars", "dask"}


def test_the_page_holds_the_tested_recipes(recipe_names):
    """The page holds exactly the recipes this folder runs."""
    assert recipe_names == RECIPES


def test_every_recipe_has_its_test_module(recipe_names):
    """Each documented recipe is run by tests/llm_errors/recipes/test_<name>.py."""
    here = Path(__file__).parent
    assert [name for name in recipe_names if not (here / f"test_{name}.py").exists()] == []
