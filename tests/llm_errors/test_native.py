"""The compiled core is used only when it has every function the package calls."""

import importlib
import sys
import types

import pytest

from llm_errors import _native


def _reloaded(monkeypatch, module):
    monkeypatch.setitem(sys.modules, "_llm_errors_native", module)
    try:
        return importlib.reload(_native).NATIVE
    finally:
        monkeypatch.undo()
        importlib.reload(_native)


def test_a_module_built_from_an_older_source_is_not_used(monkeypatch):
    stale = types.ModuleType("_llm_errors_native")
    for name in _native.FUNCTIONS[:-1]:
        setattr(stale, name, object())
    assert _reloaded(monkeypatch, stale) is None


def test_a_complete_module_is_used(monkeypatch):
    complete = types.ModuleType("_llm_errors_native")
    for name in _native.FUNCTIONS:
        setattr(complete, name, object())
    assert _reloaded(monkeypatch, complete) is complete


def test_the_built_module_is_complete():
    built = pytest.importorskip("_llm_errors_native")
    assert _native.NATIVE is built
