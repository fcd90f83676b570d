"""The Mistral model catalog and the cost of a call.

The figures live in ``catalog.json`` next to this module, as data: one pi
:class:`ModelInfo` per model, its aliases, the public sources of its figures and
notes on the uncertain ones, with the date they were compiled (:data:`CATALOG_DATE`).
``docs/models.md`` renders the same table.

An alias (``mistral-large-latest``) takes its figures (capabilities, limits, prices)
from the snapshot the catalog maps it to (``mistral-large-2512``), but keeps its own
``id``: an alias is the user's choice to follow Mistral's latest model, so the request
carries the alias and the message records it (the dated model that served it, when
the response names another, is the message's ``upstreamModel``). When Mistral moves
an alias, the catalog's figures move with its next update, not before.

.. versionadded:: 0.1.0
"""

import difflib
import functools
import json
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType
from typing import Any

from adapter.pi._content import Usage, UsageCost
from adapter.pi._model import ModelInfo
from llm_errors import redact

__all__ = [
    "CATALOG_DATE",
    "UnknownModelError",
    "calculate_cost",
    "get_model",
    "list_models",
]

#: When the catalog's figures were compiled (ISO date).
CATALOG_DATE = "2026-11-30"

_PER_MILLION = 1_000_000


class UnknownModelError(LookupError):
    """No catalog model has this id or alias; the message lists near matches.

    A caller bug, not a runtime failure, so it is not an ``LlmError``.

    .. versionadded:: 0.1.0
    """

    def __init__(self, model_id: str, suggestions: list[str]) -> None:
        shown = redact(model_id[:100])
        hint = f"; did you mean {', '.join(map(repr, suggestions))}?" if suggestions else ""
        super().__init__(
            f"unknown Mistral model {shown!r}{hint} (adapter.list_models() lists the catalog)"
        )
        self.model_id = model_id
        self.suggestions = suggestions


@dataclass(frozen=True, slots=True)
class _Catalog:
    models: MappingProxyType[str, ModelInfo]
    aliases: MappingProxyType[str, str]


@functools.cache
def _catalog() -> _Catalog:
    """Load and validate the data file once, on first use."""
    raw: dict[str, Any] = json.loads(
        resources.files("adapter._mistral").joinpath("catalog.json").read_text(encoding="utf-8")
    )
    if raw["asOf"] != CATALOG_DATE:
        raise RuntimeError("catalog.json and CATALOG_DATE disagree on the catalog date")
    models: dict[str, ModelInfo] = {}
    aliases: dict[str, str] = {}
    for entry in raw["models"]:
        model = ModelInfo.model_validate(entry["model"])
        models[model.id] = model
        for alias in entry["aliases"]:
            aliases[alias] = model.id
    return _Catalog(MappingProxyType(models), MappingProxyType(aliases))


def list_models() -> tuple[ModelInfo, ...]:
    """Every catalog model, in catalog order (aliases not repeated).

    .. versionadded:: 0.1.0
    """
    return tuple(_catalog().models.values())


def get_model(model_id: str) -> ModelInfo:
    """The catalog model with this id or alias (case and surrounding blanks ignored).

    Raises:
        UnknownModelError: no such model; the message lists up to three near matches.

    .. versionadded:: 0.1.0
    """
    catalog = _catalog()
    key = model_id.strip().lower()
    target = catalog.aliases.get(key)
    if target is not None:
        return _aliased(key, target)
    try:
        return catalog.models[key]
    except KeyError:
        names = [*catalog.models, *catalog.aliases]
        suggestions = difflib.get_close_matches(key, names, n=3, cutoff=0.6)
        raise UnknownModelError(model_id, suggestions) from None


@functools.cache
def _aliased(alias: str, target: str) -> ModelInfo:
    """The snapshot ``target``'s figures under the alias's own id."""
    return _catalog().models[target].model_copy(update={"id": alias})


def calculate_cost(model: ModelInfo, usage: Usage) -> UsageCost:
    """Price ``usage`` at ``model``'s rates, store it in ``usage.cost`` and return it.

    Counts follow pi: ``usage.input`` is the *uncached* prompt tokens and
    ``usage.cacheRead`` the cached ones (for Mistral: ``prompt_tokens - cached_tokens``
    and ``cached_tokens``), so no token is billed twice. Rates are per million tokens.

    .. versionadded:: 0.1.0
    """
    rates = model.cost
    parts = {
        "input": usage.input * rates.input / _PER_MILLION,
        "output": usage.output * rates.output / _PER_MILLION,
        "cacheRead": usage.cacheRead * rates.cacheRead / _PER_MILLION,
        "cacheWrite": usage.cacheWrite * rates.cacheWrite / _PER_MILLION,
    }
    usage.cost = UsageCost(**parts, total=sum(parts.values()))
    return usage.cost
