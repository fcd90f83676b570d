"""The rules' compiled patterns are stored in the cache directory and given to the matcher."""

import copyreg
import hashlib
import os
import pickle
import subprocess
import sys

import pytest
import regex

from llm_errors import RULES
from llm_errors._match import matcher as _matcher
from llm_errors._match.matcher import TextMatcher
from llm_errors.engine import FLAGS
from llm_errors.logs import _stored
from llm_errors.logs._rules_command import classifier_for
from llm_errors.logs._stored import CACHE_ENV, store_patterns, stored_patterns


def _patterns_file(directory):
    (path,) = directory.glob("patterns-*.pickle")
    return path


def _write_table(path, table):
    payload = pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL)
    path.write_bytes(hashlib.sha256(payload).digest() + payload)


def _flip_in_code(data):
    code = copyreg.dispatch_table[regex.Pattern](regex.compile(RULES[0].pattern, FLAGS))[1][2]
    at = data.index(code) + len(code) // 2
    return data[:at] + bytes([data[at] ^ 1]) + data[at + 1 :]


def _examples():
    return [(rule.id, example.text) for rule in RULES for example in rule.examples]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache directory and a matcher that has compiled nothing yet."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(_matcher, "_compiled", {})
    return tmp_path


def _refuse_compiles(monkeypatch, sources):
    compile_ = regex.compile

    def refuse(source, *args, **kwargs):
        assert source not in sources, "compiled a pattern that was stored"
        return compile_(source, *args, **kwargs)

    monkeypatch.setattr(_matcher._re, "compile", refuse)


@pytest.mark.integration
def test_a_run_stores_what_it_compiled_and_the_next_decides_without_compiling(cache, monkeypatch):
    log = cache / "app.log"
    log.write_text("".join(f"{text}\n" for _, text in _examples()), "utf-8")
    environment = {**os.environ, CACHE_ENV: str(cache)}
    command = [sys.executable, "-m", "llm_errors", "classify", "--format", "jsonl", str(log)]
    subprocess.run(command, env=environment, capture_output=True, check=True)  # noqa: S603
    path = _patterns_file(cache)
    written = path.stat().st_mtime_ns
    # The same run again compiles nothing new: the file is left as it is.
    subprocess.run(command, env=environment, capture_output=True, check=True)  # noqa: S603
    assert path.stat().st_mtime_ns == written
    fresh = TextMatcher(RULES)
    expected = [fresh.match(text) for _, text in _examples()]
    monkeypatch.setattr(_matcher, "_compiled", {})
    stored_patterns()
    stored = _matcher.compiled_patterns().keys()
    assert len(stored & {rule.pattern for rule in RULES}) > len(RULES) // 2
    _refuse_compiles(monkeypatch, stored)
    loaded = TextMatcher(RULES)
    found = [loaded.match(text) for _, text in _examples()]
    assert [(m.index, m.matched, m.status) if m else None for m in found] == [
        (m.index, m.matched, m.status) if m else None for m in expected
    ]


def test_the_command_line_classifier_starts_with_what_was_stored(cache, monkeypatch):
    pattern = RULES[0].pattern
    _matcher.known_patterns({pattern: regex.compile(pattern, FLAGS)})
    store_patterns()
    monkeypatch.setattr(_matcher, "_compiled", {})
    classifier_for.cache_clear()
    try:
        classifier_for(())
    finally:
        classifier_for.cache_clear()
    assert set(_matcher.compiled_patterns()) == {pattern}


def test_a_new_pattern_is_added_to_those_stored(cache, monkeypatch):
    first, second = (rule.pattern for rule in RULES[:2])
    _matcher.known_patterns({first: regex.compile(first, FLAGS)})
    store_patterns()
    monkeypatch.setattr(_matcher, "_compiled", {})
    _matcher.known_patterns({second: regex.compile(second, FLAGS)})
    store_patterns()
    monkeypatch.setattr(_matcher, "_compiled", {})
    stored_patterns()
    assert set(_matcher.compiled_patterns()) == {first, second}


def test_past_the_limit_a_run_keeps_only_its_own(cache, monkeypatch):
    monkeypatch.setattr(_stored, "PATTERNS_KEPT", 2)
    patterns = [rule.pattern for rule in RULES[:3]]
    _matcher.known_patterns({p: regex.compile(p, FLAGS) for p in patterns[:2]})
    store_patterns()
    monkeypatch.setattr(_matcher, "_compiled", {})
    _matcher.known_patterns({patterns[2]: regex.compile(patterns[2], FLAGS)})
    store_patterns()
    monkeypatch.setattr(_matcher, "_compiled", {})
    stored_patterns()
    assert set(_matcher.compiled_patterns()) == {patterns[2]}


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
        pytest.param(lambda data: data[:40] + bytes([data[40] ^ 1]) + data[41:], id="a-bit-off"),
        pytest.param(lambda _data: b"", id="empty"),
        # In the compiled code, not the source: only the digest tells it was changed.
        pytest.param(_flip_in_code, id="code-changed"),
    ],
)
def test_a_damaged_file_is_ignored_and_replaced(cache, monkeypatch, damage):
    pattern = RULES[0].pattern
    _matcher.known_patterns({pattern: regex.compile(pattern, FLAGS)})
    store_patterns()
    path = _patterns_file(cache)
    good = path.read_bytes()
    path.write_bytes(damage(good))
    monkeypatch.setattr(_matcher, "_compiled", {})
    stored_patterns()
    assert _matcher.compiled_patterns() == {}
    TextMatcher(RULES).match(RULES[0].examples[0].text)  # compiles it again
    store_patterns()
    assert path.read_bytes() == good


def test_a_pattern_stored_under_another_source_is_dropped(cache, monkeypatch):
    first, second = (rule.pattern for rule in RULES[:2])
    path = _stored._patterns_path(cache)
    _write_table(path, {first: regex.compile(second, FLAGS), second: regex.compile(second, FLAGS)})
    stored_patterns()
    assert set(_matcher.compiled_patterns()) == {second}


def test_a_file_naming_anything_but_a_pattern_runs_nothing(cache, monkeypatch):
    """A stored file whose digest holds still cannot make a run call another function."""
    canary = cache / "canary"
    canary.write_text("still here")

    class Removes:
        def __reduce__(self):
            return (os.remove, (str(canary),))

    _write_table(_stored._patterns_path(cache), {"x": Removes()})
    stored_patterns()
    assert canary.exists()
    assert _matcher.compiled_patterns() == {}


def test_the_matcher_keeps_at_most_its_limit(monkeypatch):
    monkeypatch.setattr(_matcher, "_compiled", {})
    monkeypatch.setattr(_matcher, "CACHE_LIMIT", 1)
    first, second = (rule.pattern for rule in RULES[:2])
    _matcher.known_patterns({first: regex.compile(first, FLAGS)})
    _matcher._compiled_source(second)
    assert set(_matcher.compiled_patterns()) == {first}
