"""Each package's ``__all__`` is complete, duplicate-free and importable."""

import importlib

import pytest

PUBLIC_MODULES = [
    "llm_errors",
    "llm_errors.engine",
    "llm_errors.logs",
    "llm_retry",
    "llm_retry.instrumentation",
    "llm_retry.redis",
    "adapter",
    "adapter.pi",
    "adapter.testing",
]


def _imported_module(attr, value):
    """Whether ``attr`` is a module imported under its own name (``import pathlib``).

    A module bound to another name is a value the package exports on purpose
    (``llm_errors.engine.NATIVE``, the compiled core).
    """
    return isinstance(value, type(importlib)) and value.__name__.rpartition(".")[2] == attr


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_all_is_sorted_and_complete(name):
    """``__all__`` lists exactly the public names the package defines or re-exports."""
    module = importlib.import_module(name)
    public = sorted(
        attr
        for attr, value in vars(module).items()
        if attr.isidentifier() and not attr.startswith("_") and not _imported_module(attr, value)
    )
    # Order is ruff's RUF022 (isort-style) order, checked by `ruff check`.
    assert len(set(module.__all__)) == len(module.__all__)
    assert sorted(module.__all__) == public
    for attr in module.__all__:
        assert getattr(module, attr) is not None


def test_adapter_surface_is_the_client_only():
    """``adapter`` exports the client surface (at most 30 names); the content model is in pi."""
    import adapter
    import adapter.pi

    assert len(adapter.__all__) <= 30
    assert "AssistantMessage" not in adapter.__all__
    assert "AssistantMessage" in adapter.pi.__all__
