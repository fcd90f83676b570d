"""RedisCoordination's settings: checked at construction, no server needed (pure)."""

import logging

import pytest

from llm_retry import RetryPolicy
from llm_retry.redis import RedisCoordination

PASSWORD = "hunter2secret"
ACCEPTED = "redis://, rediss://, unix://"

#: URLs a Redis client cannot use, with what the error must say about each (a scheme
#: error lists the accepted schemes).
BAD_URLS = {
    "no-scheme": ("localhost:6379", ["url has no scheme", ACCEPTED]),
    "no-scheme-password": (f"default:{PASSWORD}@localhost:6379", ["url has no scheme", ACCEPTED]),
    "other-scheme": (f"http://:{PASSWORD}@localhost:6379", ["the scheme 'http'", ACCEPTED]),
    "bad-scheme": (f"x y://:{PASSWORD}@localhost", ["url has a bad scheme", ACCEPTED]),
    "empty": ("  ", ["url is empty", ACCEPTED]),
    "port": (f"redis://:{PASSWORD}@localhost:63790000", ["malformed host or port", "65535"]),
    "port-text": (f"redis://:{PASSWORD}@localhost:sixty", ["malformed host or port"]),
    "ipv6": (f"redis://:{PASSWORD}@[::1:6379", ["malformed host or port", "brackets"]),
    "unix-no-path": ("unix://", ["unix:// URL without the socket's path"]),
}


def test_a_url_a_client_cannot_use_fails_at_construction():
    """Each bad URL is a ValueError saying what is wrong (and the schemes), never the password."""
    failing = []
    for case, (url, said) in BAD_URLS.items():
        try:
            RedisCoordination(url)
        except ValueError as error:
            message = str(error)
            if PASSWORD in message or not all(part in message for part in said):
                failing.append(f"{case}: {message}")
        else:
            failing.append(f"{case}: accepted")
    assert failing == []


def test_a_cluster_url_must_be_tcp():
    """A Redis Cluster client takes no unix:// URL: said at construction, with the choices."""
    with pytest.raises(ValueError, match="which a Redis Cluster client does not take") as raised:
        RedisCoordination("unix:///run/redis.sock", cluster=True)
    assert "redis://, rediss:// (" in str(raised.value)


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("redis://localhost:6379/0", id="redis"),
        pytest.param(f" rediss://:{PASSWORD}@cache.internal:6380/2 ", id="rediss-blanks"),
        pytest.param("REDIS://localhost", id="upper-case"),
        pytest.param("redis://[::1]:6379", id="ipv6"),
        pytest.param("unix:///run/redis.sock?db=1", id="unix"),
    ],
)
def test_usable_urls_are_accepted(url):
    """Every scheme redis-py takes, in any case, with blanks around it."""
    RedisCoordination(url).close()


def test_the_environment_route_names_the_variable():
    """``LLM_RETRY_REDIS_URL=localhost:6379`` fails in ``from_env``, naming the variable."""
    with pytest.raises(ValueError, match="LLM_RETRY_REDIS_URL has no scheme") as raised:
        RetryPolicy.from_env(environ={"LLM_RETRY_REDIS_URL": f"default:{PASSWORD}@localhost:6379"})
    assert ACCEPTED in str(raised.value)
    assert PASSWORD not in str(raised.value)
    with pytest.raises(ValueError, match="MYAPP_REDIS_URL has the scheme 'http'"):
        RetryPolicy.from_env("MYAPP_", environ={"MYAPP_REDIS_URL": "http://localhost:6379"})


def test_a_url_redis_py_refuses_later_never_fails_a_call(caplog):
    """A query value redis-py rejects at first use: the call succeeds, one WARNING, no URL.

    ``socket_timeout=abc`` passes the construction check (the scheme, host and port are
    fine) and redis-py raises ``ValueError`` when it makes its client, before any
    connection: the backend's error is not the call's (coordination fails open).
    """
    url = f"redis://:{PASSWORD}@127.0.0.1:1/0?socket_timeout=abc"
    backend = RedisCoordination(url)
    policy = RetryPolicy(coordination=backend, scope="openai:gpt-4o", on_retry=None)
    try:
        with caplog.at_level(logging.WARNING, logger="llm_retry"):
            assert [policy.wrap(lambda: "ok")() for _ in range(3)] == ["ok"] * 3
    finally:
        backend.close()
    (warning,) = [r.getMessage() for r in caplog.records if r.name == "llm_retry"]
    assert warning == (
        "llm_retry: RedisCoordination.admit() raised ValueError; the call goes on without "
        "coordination for it (reported once per process)"
    )
    assert PASSWORD not in caplog.text
    assert "127.0.0.1" not in caplog.text


def test_repr_never_shows_the_url():
    """The URL may carry a password: it is not in the repr."""
    backend = RedisCoordination(f"redis://:{PASSWORD}@127.0.0.1:1/0")
    try:
        assert PASSWORD not in repr(backend)
        assert PASSWORD not in repr(RetryPolicy(coordination=backend))
    finally:
        backend.close()


@pytest.mark.parametrize(
    ("settings", "match"),
    [
        pytest.param({"url": " "}, "url", id="url"),
        pytest.param({"url": 6379}, "url must be a str", id="url-type"),
        pytest.param({"prefix": "a{b}"}, "scope", id="prefix"),
        pytest.param({"timeout": 0}, "timeout", id="timeout"),
        pytest.param({"key_ttl": -1}, "key_ttl", id="ttl"),
    ],
)
def test_settings_are_checked(settings, match):
    """Bad settings raise at construction, naming what was wrong."""
    with pytest.raises((TypeError, ValueError), match=match):
        RedisCoordination(**({"url": "redis://127.0.0.1:1/0"} | settings))
