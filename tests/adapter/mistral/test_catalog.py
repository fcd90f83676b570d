"""The Mistral model catalog: coverage, alias resolution, clear misses, hand-checked costs."""

import json
from importlib import resources
from pathlib import Path

import pytest
from pydantic import ValidationError

from adapter import CATALOG_DATE, UnknownModelError, calculate_cost, get_model, list_models
from adapter.pi import ModelCost, ModelInfo, Usage, UsageCost
from llm_errors import LlmError

RAW = json.loads(
    resources.files("adapter._mistral").joinpath("catalog.json").read_text(encoding="utf-8")
)
DOCS = Path(__file__).resolve().parents[3] / "docs" / "models.md"


def usage(**counts) -> Usage:
    zero = UsageCost(input=0, output=0, cacheRead=0, cacheWrite=0, total=0)
    base = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
    base.update(counts)
    return Usage(**base, totalTokens=sum(base.values()), cost=zero)


@pytest.mark.parametrize(
    ("alias", "model_id"),
    [
        pytest.param("mistral-large-latest", "mistral-large-2512", id="large"),
        pytest.param("mistral-medium-latest", "mistral-medium-3.5", id="medium"),
        pytest.param("mistral-small-latest", "mistral-small-2603", id="small"),
        pytest.param("codestral-latest", "codestral-2508", id="codestral"),
        pytest.param("devstral-medium-latest", "devstral-2512", id="devstral"),
        pytest.param("ministral-3b-latest", "ministral-3b-2512", id="ministral-3b"),
        pytest.param("ministral-8b-latest", "ministral-8b-2512", id="ministral-8b"),
        pytest.param("ministral-14b-latest", "ministral-14b-2512", id="ministral-14b"),
        pytest.param("pixtral-large-latest", "pixtral-large-2411", id="pixtral"),
        pytest.param("magistral-medium-latest", "magistral-medium-2509", id="magistral"),
    ],
)
def test_latest_aliases_take_their_snapshots_figures_and_keep_their_id(alias, model_id):
    """Each ``-latest`` alias has its snapshot's figures but its own id (what goes on the wire)."""
    model = get_model(alias)
    snapshot = get_model(model_id)
    assert model.id == alias
    assert model.model_dump(exclude={"id"}) == snapshot.model_dump(exclude={"id"})
    assert get_model(alias) is model


def test_lookup_ignores_case_and_blanks():
    """Ids are matched case-insensitively after stripping blanks."""
    assert get_model("  Mistral-Large-Latest\n").id == "mistral-large-latest"
    assert get_model(" Mistral-Large-2512 ").id == "mistral-large-2512"


def test_unknown_id_lists_near_matches():
    """A typo names the id it got and suggests the closest catalog names."""
    with pytest.raises(UnknownModelError) as info:
        get_model("mistral-larg-latest")
    assert info.value.suggestions[0] == "mistral-large-latest"
    message = str(info.value)
    assert "'mistral-larg-latest'" in message
    assert "did you mean 'mistral-large-latest'" in message


def test_unknown_id_without_near_match():
    """Nothing close: the error still says how to list the catalog."""
    with pytest.raises(UnknownModelError, match=r"list_models\(\)") as info:
        get_model("gpt-4o")
    assert info.value.suggestions == []


def test_unknown_id_is_a_lookup_error_and_never_echoes_secrets():
    """A bad id is a caller bug (a LookupError, not an LlmError); a pasted key is redacted."""
    secret = "sk-proj-" + "a1B2c3D4" * 6
    with pytest.raises(LookupError) as info:
        get_model(secret)
    assert not isinstance(info.value, LlmError)
    assert secret not in str(info.value)


def test_catalog_covers_every_family():
    """Large, medium, small, codestral, devstral, ministral 3b/8b/14b, pixtral, magistral."""
    ids = " ".join(model.id for model in list_models())
    for family in (
        "mistral-large",
        "mistral-medium",
        "mistral-small",
        "codestral",
        "devstral",
        "ministral-3b",
        "ministral-8b",
        "ministral-14b",
        "pixtral",
        "magistral",
    ):
        assert family in ids, family


def test_data_file_is_well_formed():
    """No unknown descriptor keys (they would be dropped silently), sources exist, names unique."""
    known_keys = set(ModelInfo.model_fields)
    names: list[str] = []
    for entry in RAW["models"]:
        assert set(entry["model"]) <= known_keys
        assert set(entry["model"]["cost"]) == set(ModelCost.model_fields)
        assert set(entry["sources"]) <= set(RAW["sources"])
        names += [entry["model"]["id"], *entry["aliases"]]
    assert len(names) == len(set(names))
    assert all(name == name.lower() for name in names)
    assert RAW["asOf"] == CATALOG_DATE


@pytest.mark.parametrize("model", [pytest.param(m, id=m.id) for m in list_models()])
def test_entries_are_consistent(model):
    """Every entry is a Mistral chat model with sane limits and Mistral's cache discount."""
    assert model.provider == "mistral"
    assert model.baseUrl == "https://api.mistral.ai"
    assert set(model.input) <= {"text", "image"}
    assert "text" in model.input
    assert model.contextWindow is not None
    assert model.maxTokens is None or model.maxTokens <= model.contextWindow
    assert model.cost.cacheRead == pytest.approx(model.cost.input / 10)
    assert model.cost.cacheWrite == 0


def test_catalog_entries_are_frozen():
    """Shared entries cannot be changed by one caller for everybody."""
    with pytest.raises(ValidationError, match="frozen"):
        get_model("mistral-small-latest").contextWindow = 1


@pytest.mark.parametrize(
    ("model_id", "counts", "expected"),
    [
        pytest.param(
            "mistral-medium-latest",
            {"input": 10_000, "output": 2_000, "cacheRead": 50_000},
            # 10k x $1.50/M, 2k x $7.50/M, 50k x $0.15/M
            {"input": 0.015, "output": 0.015, "cacheRead": 0.0075, "cacheWrite": 0.0},
            id="medium-with-cache-hits",
        ),
        pytest.param(
            "mistral-large-latest",
            {"input": 1_234_567, "output": 89_012},
            # 1,234,567 x $0.50/M = 0.6172835; 89,012 x $1.50/M = 0.133518
            {"input": 0.6172835, "output": 0.133518, "cacheRead": 0.0, "cacheWrite": 0.0},
            id="large",
        ),
        pytest.param(
            "ministral-3b-latest",
            {"input": 0, "output": 0},
            {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0},
            id="nothing-used",
        ),
    ],
)
def test_calculate_cost_matches_hand_computed_values(model_id, counts, expected):
    """Each part is tokens x rate / 1M; the total is their sum."""
    spent = usage(**counts)
    cost = calculate_cost(get_model(model_id), spent)
    for part, value in expected.items():
        assert getattr(cost, part) == pytest.approx(value, rel=1e-12, abs=1e-15), part
    assert cost.total == pytest.approx(sum(expected.values()), rel=1e-12, abs=1e-15)


def test_calculate_cost_prices_cache_writes():
    """A model that bills cache writes gets them priced too (all four rates are used)."""
    model = get_model("mistral-large-latest").model_copy(
        update={"cost": ModelCost(input=3, output=15, cacheRead=0.3, cacheWrite=3.75)}
    )
    cost = calculate_cost(model, usage(input=1_000, output=500, cacheRead=2_000, cacheWrite=4_000))
    # 0.003 + 0.0075 + 0.0006 + 0.015
    assert cost.model_dump() == pytest.approx(
        {
            "input": 0.003,
            "output": 0.0075,
            "cacheRead": 0.0006,
            "cacheWrite": 0.015,
            "total": 0.0261,
        }
    )


def test_calculate_cost_fills_usage_cost():
    """Like pi's ``calculateCost``, the result is also stored on the usage."""
    spent = usage(input=100, output=100)
    cost = calculate_cost(get_model("codestral-latest"), spent)
    assert spent.cost is cost
    assert spent.model_dump()["cost"]["total"] == pytest.approx(100 * 0.3e-6 + 100 * 0.9e-6)


def test_docs_list_every_model_and_alias():
    """``docs/models.md`` names every catalog id and alias, so the table cannot drift silently."""
    text = DOCS.read_text(encoding="utf-8")
    for entry in RAW["models"]:
        for name in (entry["model"]["id"], *entry["aliases"]):
            assert f"`{name}`" in text, name
    assert CATALOG_DATE in text
