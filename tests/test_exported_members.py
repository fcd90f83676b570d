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


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_all_is_sorted_and_complete(name):
    """``__all__`` lists exactly the public names the package defines or re-exports."""
    module = importlib.import_module(name)
    public = sorted(
        attr
        for attr in vars(module)
        if not attr.startswith("_") and not isinstance(getattr(module, attr), type(module))
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
