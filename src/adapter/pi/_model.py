"""pi's model and thinking descriptors (pi-ai's ``modelDefs``; see ``docs/models.md``).

Unlike transcript records these are not open: a descriptor is "the client-relevant
subset of the server's model record", so unknown keys are ignored rather than kept.
They are frozen, because catalog entries are shared by every caller.

.. versionadded:: 0.1.0
"""
# ruff: noqa: N815  -- camelCase attribute names are pi's wire names, kept verbatim

from typing import Annotated, Literal, TypeAlias

from pydantic import ConfigDict, Field

from adapter.pi._record import Boolean, Integer, JsonObject, Number, OpenRecord

__all__ = [
    "ConfiguredThinkingLevel",
    "Effort",
    "ModelCost",
    "ModelInfo",
    "ThinkingConfig",
    "ThinkingLevel",
]

#: How hard a reasoning model should think.
Effort: TypeAlias = Literal["minimal", "low", "medium", "high", "xhigh", "max"]
#: Thinking selector; `inherit` defers to a higher-level selector.
ThinkingLevel: TypeAlias = Annotated[
    Literal["inherit", "off", "minimal", "low", "medium", "high", "xhigh", "max"],
    Field(description="Thinking selector; `inherit` defers to a higher-level selector."),
]
#: User-configured thinking selector, including automatic selection.
ConfiguredThinkingLevel: TypeAlias = Annotated[
    Literal["auto", "inherit", "off", "minimal", "low", "medium", "high", "xhigh", "max"],
    Field(description="User-configured thinking selector, including automatic selection."),
]


class _Descriptor(OpenRecord):
    """A closed, frozen descriptor: unknown keys are dropped, instances are shared."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class ModelCost(_Descriptor):
    """Per-million-token USD rates."""

    input: Number
    output: Number
    cacheRead: Number
    cacheWrite: Number


class ThinkingConfig(_Descriptor):
    """How a model exposes reasoning: its mode and the efforts it accepts."""

    mode: str
    efforts: list[Effort]
    defaultLevel: Effort | None = None
    effortMap: JsonObject | None = None
    supportsDisplay: Boolean | None = None
    prefixBinding: Boolean | None = None
    effortRouting: JsonObject | None = None
    effortBudgets: JsonObject | None = None
    suppressWhenOff: Boolean | None = None
    requiresEffort: Boolean | None = None


class ModelInfo(_Descriptor):
    """Model descriptor: the client-relevant subset of the server's model record."""

    id: str
    name: str
    api: str
    provider: str
    baseUrl: str
    reasoning: Boolean
    input: list[str] = Field(description="Accepted input modalities, e.g. `text`, `image`.")
    cost: ModelCost
    contextWindow: Integer | None = Field(
        description="Null when the provider does not report a limit."
    )
    maxTokens: Integer | None = Field(description="Null when the provider does not report a limit.")
    headers: JsonObject | None = None
    premiumMultiplier: Number | None = None
    preferWebsockets: Boolean | None = None
    contextPromotionTarget: str | None = None
    priority: Integer | None = None
    thinking: ThinkingConfig | None = None
    compat: JsonObject | None = None
