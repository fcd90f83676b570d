"""The compiled per-line core (``src/native``, built at install time), where it was built.

Every function in it has a pure Python definition, used where the module is absent
(``LLM_RESILIENCE_PURE=1``, or no C compiler): the prefix reader (``logs._prefix``),
the token look-up of ``may_match`` (``_match.matcher``) and the excerpt's JSON
(``logs._scan.excerpt_json``). Tests hold each pair equal.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Final

__all__ = ["FUNCTIONS", "NATIVE"]


#: What the package calls in the compiled module: one built from an older source (an
#: editable install not rebuilt after a change) lacks some, and is not used.
FUNCTIONS: Final = ("canonical", "message_start", "excerpt_json", "TokenSet")


def _load() -> ModuleType | None:
    try:
        module = importlib.import_module("_llm_errors_native")
    except ImportError:
        return None
    return module if all(hasattr(module, name) for name in FUNCTIONS) else None


#: The compiled module, or ``None`` where it was not built.
NATIVE: Final = _load()
