"""The block filter's expression of each rule is stored in the cache directory and reused."""

import pytest

from llm_errors import RULES
from llm_errors.logs import _stored, _superset
from llm_errors.logs._stored import CACHE_ENV, stored_supersets


def _supersets_file(directory):
    (path,) = directory.glob("supersets-*.json")
    return path


def _written(patterns):
    return {pattern: _superset._written(pattern) for pattern in patterns}


def test_stored_expressions_are_the_written_ones(tmp_path, monkeypatch):
    """Stored once, loaded back equal to what the writer gives, for every built-in rule."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(_superset, "_known", {})
    patterns = [rule.pattern for rule in RULES] + [r"\bquota\p{L}+"]  # (none written for it)
    stored_supersets(patterns)
    path = _supersets_file(tmp_path)
    monkeypatch.setattr(_superset, "_known", {})
    stored_supersets(patterns)  # loaded this time
    assert _superset._known == _written(patterns)
    assert _superset._known[r"\bquota\p{L}+"] is None
    assert _supersets_file(tmp_path) == path


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
        pytest.param(lambda _data: b"[]", id="not-a-table"),
        pytest.param(lambda data: data.replace(b'": "', b'": 7, "x": "', 1), id="a-wrong-type"),
        pytest.param(lambda _data: b'{"x": null}', id="patterns-missing"),
        pytest.param(lambda data: data.replace(b'": "', b'": "\\u20ac', 1), id="not-bytes"),
    ],
)
def test_a_damaged_table_is_written_again_and_replaced(tmp_path, monkeypatch, damage):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    patterns = [rule.pattern for rule in RULES[:20]]
    monkeypatch.setattr(_superset, "_known", {})
    stored_supersets(patterns)
    path = _supersets_file(tmp_path)
    good = path.read_bytes()
    path.write_bytes(damage(good))
    monkeypatch.setattr(_superset, "_known", {})
    stored_supersets(patterns)
    assert _superset._known == {}  # nothing taken from the damaged file
    assert path.read_bytes() == good


@pytest.mark.parametrize("changed", range(len(_stored._SUPERSET_ANALYSIS)))
def test_another_analysis_reads_another_table(tmp_path, monkeypatch, changed):
    """Keyed on the writer's and the forward reading's sources: a change never reads old ones."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    patterns = [rule.pattern for rule in RULES[:5]]
    stored_supersets(patterns)
    sources = list(_stored._SUPERSET_ANALYSIS)
    copy = tmp_path / sources[changed].name
    copy.write_bytes(sources[changed].read_bytes() + b"\n# changed\n")
    sources[changed] = copy
    monkeypatch.setattr(_stored, "_SUPERSET_ANALYSIS", tuple(sources))
    stored_supersets(patterns)
    assert len(list((tmp_path / "cache").glob("supersets-*.json"))) == 2


def test_known_expressions_are_bounded(monkeypatch):
    monkeypatch.setattr(_superset, "_known", {})
    monkeypatch.setattr(_superset, "KNOWN_LIMIT", 3)
    _superset.known_supersets({f"p{i}": b"x" for i in range(5)})
    assert list(_superset._known) == ["p0", "p1", "p2"]
    _superset.known_supersets({"p1": None})  # a known pattern is replaced, past the limit too
    assert _superset._known["p1"] is None


@pytest.mark.integration
def test_the_command_line_loads_the_stored_expressions(tmp_path, monkeypatch, calls_in_two_runs):
    """A second run writes no expression: the filter's come from the table."""
    pytest.importorskip("hyperscan")
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    written = calls_in_two_runs(
        "from llm_errors.logs import _superset; calls = [];"
        "real = _superset._written;"
        "_superset._written = lambda p: calls.append(p) or real(p)"
    )
    assert written[0] >= len(RULES)
    assert written[1] == 0
