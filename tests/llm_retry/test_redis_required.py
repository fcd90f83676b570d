"""Without the redis-server binary the Redis tests skip, naming it; CI's switch makes that fail.

``.ci/run`` sets ``LLM_RESILIENCE_REQUIRE_REDIS=1`` so that a machine without the binary
cannot pass by skipping every fleet test. The Redis fixtures all start their servers
through one function; this runs it with a ``PATH`` that holds no binary at all, both ways.
"""

import pytest

REQUIRE = "LLM_RESILIENCE_REQUIRE_REDIS"
REASON = "the redis-server binary is not on PATH"


def _outcome(redis_running, monkeypatch, tmp_path, require):
    """How starting a server as the fixtures do ends with an empty ``PATH``: (kind, message).

    The skip or failure is caught here, so that a wrong one fails this test instead of
    skipping it; nothing may have been built.
    """
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no binary is found
    if require is None:
        monkeypatch.delenv(REQUIRE, raising=False)
    else:
        monkeypatch.setenv(REQUIRE, require)
    built = []
    try:
        next(redis_running(lambda: built.append("a server")))
    except pytest.skip.Exception as exc:
        outcome = ("skipped", str(exc))
    except pytest.fail.Exception as exc:
        outcome = ("failed", str(exc))
    else:
        outcome = ("started", "")
    assert built == []
    return outcome


def test_a_missing_binary_skips(redis_running, monkeypatch, tmp_path):
    """Without the switch, the tests that need Redis skip and say why."""
    kind, message = _outcome(redis_running, monkeypatch, tmp_path, None)
    assert kind == "skipped"
    assert REASON in message


def test_a_missing_binary_fails_when_required(redis_running, monkeypatch, tmp_path):
    """With ``LLM_RESILIENCE_REQUIRE_REDIS=1`` they fail instead, naming the switch."""
    kind, message = _outcome(redis_running, monkeypatch, tmp_path, "1")
    assert kind == "failed"
    assert f"{REQUIRE}=1 but {REASON}" in message
