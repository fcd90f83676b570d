"""The rules' trigger words are stored in the cache directory and given to the matcher."""

import pytest

from llm_errors import RULES
from llm_errors._match import matcher as _matcher
from llm_errors._match.prefilter import derive_triggers
from llm_errors.engine import TRIGGER_ANALYSIS
from llm_errors.logs import _stored
from llm_errors.logs._stored import CACHE_ENV, cache_dir, stored_triggers


def _triggers_file(directory):
    (path,) = directory.glob("triggers-*.json")
    return path


def test_without_the_setting_the_user_cache_directory(monkeypatch):
    """Tested here: the database tests beside it skip without Hyperscan."""
    platformdirs = pytest.importorskip("platformdirs")
    monkeypatch.delenv(CACHE_ENV, raising=False)
    assert cache_dir() == platformdirs.user_cache_path("llm-errors", appauthor=False)


def test_stored_triggers_are_the_derived_ones(tmp_path, monkeypatch):
    """Stored once, loaded back equal to what the analysis derives, for every built-in rule."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(_matcher, "_known", {})
    patterns = [rule.pattern for rule in RULES]
    stored_triggers(patterns)
    path = _triggers_file(tmp_path)
    monkeypatch.setattr(_matcher, "_known", {})
    stored_triggers(patterns)  # loaded this time
    assert _matcher._known == {pattern: derive_triggers(pattern) for pattern in patterns}
    assert _triggers_file(tmp_path) == path


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
        pytest.param(lambda _data: b"[]", id="not-a-table"),
        pytest.param(lambda data: data.replace(b'[["', b'[[7, "', 1), id="a-wrong-type"),
        pytest.param(lambda _data: b'{"x": []}', id="patterns-missing"),
    ],
)
def test_a_damaged_trigger_table_is_derived_again_and_replaced(tmp_path, monkeypatch, damage):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    patterns = [rule.pattern for rule in RULES[:20]]
    monkeypatch.setattr(_matcher, "_known", {})
    stored_triggers(patterns)
    path = _triggers_file(tmp_path)
    good = path.read_bytes()
    path.write_bytes(damage(good))
    monkeypatch.setattr(_matcher, "_known", {})
    stored_triggers(patterns)
    assert _matcher._known == {pattern: derive_triggers(pattern) for pattern in patterns}
    assert path.read_bytes() == good


@pytest.mark.parametrize("changed", range(len(TRIGGER_ANALYSIS)))
def test_another_trigger_analysis_reads_another_table(tmp_path, monkeypatch, changed):
    """Keyed on the analysis's sources: a changed prefilter or parser never reads an old table."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    patterns = [rule.pattern for rule in RULES[:5]]
    stored_triggers(patterns)
    sources = list(TRIGGER_ANALYSIS)
    copy = tmp_path / sources[changed].name
    copy.write_bytes(sources[changed].read_bytes() + b"\n# changed\n")
    sources[changed] = copy
    monkeypatch.setattr(_stored, "TRIGGER_ANALYSIS", tuple(sources))
    stored_triggers(patterns)
    assert len(list((tmp_path / "cache").glob("triggers-*.json"))) == 2


@pytest.mark.integration
def test_the_command_line_loads_the_stored_triggers(tmp_path, monkeypatch, calls_in_two_runs):
    """A second run derives no trigger: the classifier's come from the table."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    derived = calls_in_two_runs(
        "from llm_errors._match import matcher, prefilter; calls = [];"
        "real = prefilter.derive_triggers;"
        "prefilter.derive_triggers = lambda p: calls.append(p) or real(p);"
        "matcher._derived = matcher.functools.lru_cache(maxsize=None)(prefilter.derive_triggers)"
    )
    assert derived[0] >= len(RULES)
    assert derived[1] == 0
