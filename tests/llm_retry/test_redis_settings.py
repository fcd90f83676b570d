"""RedisCoordination's settings: checked at construction, no server needed (pure)."""

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


@pytest.mark.parametrize(
    ("query", "option"),
    [
        pytest.param("socket_timeout=abc", "'socket_timeout'", id="value"),
        pytest.param("nosuch=1", "'nosuch'", id="name"),
    ],
)
def test_an_option_a_connection_does_not_take_fails_at_construction(query, option):
    """redis-py reads a URL's options only when it connects: checked at construction.

    The error names the option, never the URL (its password) or the value.
    """
    with pytest.raises(ValueError, match=f"url has the option {option}") as raised:
        RedisCoordination(f"redis://:{PASSWORD}@127.0.0.1:1/0?{query}")
    assert PASSWORD not in str(raised.value)
    assert "abc" not in str(raised.value)


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
