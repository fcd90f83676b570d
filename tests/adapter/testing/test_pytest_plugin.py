"""The ``fake_mistral`` fixture and ``async with FakeMistral``, over real loopback HTTP."""

import asyncio
import socket
import tomllib
from pathlib import Path

import httpx
import pytest

from adapter.testing import FakeMistral, text_reply

pytestmark = pytest.mark.integration

PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"
PLUGIN = "adapter.testing._pytest_plugin"

# A user's test module, run by an inner pytest that loads only this plugin: the first
# test streams through the fixture, the second (run after the first's teardown) checks
# that the first server's port no longer accepts connections.
USER_TESTS = """
import socket

import httpx
import pytest

from adapter.testing import text_reply

SEEN = []


def test_streams_over_loopback(fake_mistral):
    fake_mistral.enqueue(text_reply("Hello", " from the fixture"))
    assert fake_mistral.url.startswith("http://127.0.0.1:")
    with httpx.Client() as client:
        with client.stream("POST", fake_mistral.chat_url, json={"model": "m"}) as response:
            body = response.read()
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert b'"content":"Hello"' in body and body.endswith(b"data: [DONE]\\n\\n")
    assert [request.json()["model"] for request in fake_mistral.requests] == ["m"]
    SEEN.append(fake_mistral)


def test_a_fresh_server_and_the_last_one_closed(fake_mistral):
    (previous,) = SEEN
    assert fake_mistral is not previous
    assert len(fake_mistral.requests) == 0
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", previous.port), timeout=2).close()
"""


def test_the_plugin_is_a_pytest11_entry_point():
    """The pyproject registers the plugin beside ``llm_retry``: installing it is enough."""
    entry_points = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["entry-points"][
        "pytest11"
    ]
    assert entry_points == {"llm_retry": "llm_retry._pytest_plugin", "adapter": PLUGIN}


def test_fixture_serves_a_stream_and_is_closed_after_the_test(pytester, monkeypatch):
    """In a user's suite, the fixture streams over 127.0.0.1 and its port closes at teardown."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # this plugin, loaded once
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest_subprocess("-p", PLUGIN, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_fixture_is_a_fresh_started_server(fake_mistral):
    """This suite's own use of the fixture: started, nothing queued, the default answer."""
    with httpx.Client() as client:
        response = client.post(fake_mistral.chat_url, json={"model": "m"})
    assert response.status_code == 200
    assert len(fake_mistral.requests) == 1


def test_async_with_serves_then_closes():
    """``async with FakeMistral(...)`` serves a real stream, and the port is closed on exit."""

    async def main():
        async with FakeMistral(text_reply("Hi"), default=None) as fake:
            async with httpx.AsyncClient() as client:
                response = await client.post(fake.chat_url, json={"model": "m"})
            return fake, response

    fake, response = asyncio.run(main())
    assert response.status_code == 200
    assert b'"content":"Hi"' in response.content
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", fake.port), timeout=2).close()


def test_async_exit_closes_on_an_error_too():
    """An exception inside ``async with`` still closes the server, and propagates."""
    seen = []

    async def main():
        async with FakeMistral() as fake:
            seen.append(fake)
            raise LookupError("the test failed")

    with pytest.raises(LookupError):
        asyncio.run(main())
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", seen[0].port), timeout=2).close()
