"""Each package's ``__all__`` is complete, duplicate-free and importable."""

import importlib

import pytest


@pytest.mark.parametrize("name", ["llm_errors", "llm_retry", "adapter"])
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
