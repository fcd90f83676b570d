"""Model descriptors: frozen, closed, nullable limits, the schema's shape."""

import pytest
from pydantic import ValidationError

from adapter.pi import ModelCost, ModelInfo, ThinkingConfig

RAW = {
    "id": "m",
    "name": "M",
    "api": "mistral-chat",
    "provider": "mistral",
    "baseUrl": "https://api.mistral.ai",
    "reasoning": False,
    "input": ["text"],
    "cost": {"input": 0.1, "output": 0.3, "cacheRead": 0.01, "cacheWrite": 0},
    "contextWindow": 128000,
    "maxTokens": None,
}


def test_descriptor_round_trips_without_unset_optionals():
    """A descriptor dumps exactly the keys it was given."""
    assert ModelInfo.model_validate(RAW).model_dump() == RAW


def test_descriptors_are_frozen():
    """Catalog entries are shared, so they cannot be changed in place."""
    info = ModelInfo.model_validate(RAW)
    with pytest.raises(ValidationError, match="frozen"):
        info.contextWindow = 1


def test_descriptors_drop_unknown_keys():
    """A server record has more fields than the descriptor; they are not kept."""
    info = ModelInfo.model_validate({**RAW, "ownedBy": "mistralai"})
    assert "ownedBy" not in info.model_dump()


def test_limits_are_required_but_nullable():
    """``contextWindow``/``maxTokens`` must be present; null means "not reported"."""
    raw = dict(RAW)
    del raw["contextWindow"]
    with pytest.raises(ValidationError, match="contextWindow"):
        ModelInfo.model_validate(raw)


def test_thinking_config_efforts_are_checked():
    """An effort outside pi's set is rejected by name."""
    with pytest.raises(ValidationError, match="efforts"):
        ThinkingConfig(mode="effort", efforts=["extreme"])


def test_model_cost_keeps_number_types():
    """Rates keep integers and floats apart, like every seed ``number``."""
    cost = ModelCost(input=2, output=0.5, cacheRead=0, cacheWrite=0)
    assert cost.model_dump_json() == '{"input":2,"output":0.5,"cacheRead":0,"cacheWrite":0}'


def test_model_info_schema_shape():
    """The schema requires pi's ten model fields, allows ``null`` limits, and is not open."""
    schema = ModelInfo.model_json_schema()
    assert set(schema["required"]) == {
        "id", "name", "api", "provider", "baseUrl", "reasoning", "input", "cost",
        "contextWindow", "maxTokens",
    }  # fmt: skip
    assert set(schema["properties"]) - set(schema["required"]) == {
        "compat", "contextPromotionTarget", "headers", "preferWebsockets",
        "premiumMultiplier", "priority", "thinking",
    }  # fmt: skip
    assert {"type": "null"} in schema["properties"]["maxTokens"]["anyOf"]
    assert schema.get("additionalProperties") is not True  # unknown keys are dropped
