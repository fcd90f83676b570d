"""The langchain recipe of docs/retry.md: ``with_fallbacks(exceptions_to_handle=TRANSIENT)``.

langchain-core's own ``RunnableLambda`` around a ``MistralAdapter`` per fake Mistral
server, so the errors langchain sees are the ones the adapter raises over real sockets.
The error bodies are Mistral's documented shapes (docs/wire.md §7.2).
"""

from collections.abc import Iterator

import pytest

import llm_errors
from adapter import Context, MistralAdapter
from adapter.pi import UserMessage
from adapter.testing import (
    CloseBeforeHeaders,
    FakeMistral,
    Reply,
    error_object,
    example_error_body,
    text_reply,
)
from llm_errors import ErrorCode

pytestmark = pytest.mark.integration

pytest.importorskip("langchain_core")

from langchain_core.runnables import RunnableLambda  # noqa: E402

MODEL = "mistral-small-latest"
CONTEXT = Context(messages=[UserMessage(content="Hello", timestamp=0)])

#: The first server's failure, by the code the table sends to the next runnable.
SENT_ON = {
    "rate limit": Reply(429, example_error_body("A")),
    "outage": Reply(503, error_object("Service unavailable", error_type="service_unavailable")),
    "connection reset": CloseBeforeHeaders(reset=True),
}
#: The first server's failure, by the code that stops.
STOPPED = {
    "invalid request": (Reply(422, example_error_body("B")), ErrorCode.INVALID_REQUEST),
    "unauthorized": (Reply(401, example_error_body("F")), ErrorCode.AUTH),
}


@pytest.fixture
def servers() -> Iterator[tuple[FakeMistral, FakeMistral]]:
    """Two fake Mistral servers, closed after the test."""
    with FakeMistral() as first, FakeMistral() as second:
        yield first, second


def run(recipe, servers):
    """One call of the recipe's chain: an adapter per server, each wrapped in a runnable."""
    first, second = servers
    with (
        MistralAdapter(api_key="test-key", base_url=first.url) as a,
        MistralAdapter(api_key="test-key", base_url=second.url) as b,
    ):
        runnables = [RunnableLambda(lambda text, m=m: m.complete(MODEL, text)) for m in (a, b)]
        message = recipe("langchain").with_fallback(*runnables).invoke(CONTEXT)
    return "".join(block.text for block in message.content if block.type == "text")


@pytest.mark.parametrize("case", sorted(SENT_ON))
def test_a_transient_failure_goes_to_the_next_runnable(case, recipe, servers):
    """Rate limit, outage, a connection reset before any answer: the second server answers."""
    first, second = servers
    first.enqueue(SENT_ON[case])
    second.enqueue(text_reply("from the second server"))

    assert run(recipe, servers) == "from the second server"
    assert (len(first.requests), len(second.requests)) == (1, 1)


@pytest.mark.parametrize("case", sorted(STOPPED))
def test_an_error_the_table_stops_on_is_raised_without_the_next_runnable(case, recipe, servers):
    """A request Mistral refuses, a bad key: raised as the adapter's typed error."""
    reply, code = STOPPED[case]
    first, second = servers
    first.enqueue(reply)
    second.enqueue(text_reply("from the second server"))

    with pytest.raises(llm_errors.LlmError) as raised:
        run(recipe, servers)
    assert raised.value.code is code
    assert (len(first.requests), len(second.requests)) == (1, 0)


def test_the_types_are_exactly_the_codes_the_table_sends_on(recipe):
    """Every code whose rule is ``next``, no other: a type says nothing of windows or keys."""
    transient = recipe("langchain").TRANSIENT
    assert {cls.default_code for cls in transient} == {
        ErrorCode.RATE_LIMIT,
        ErrorCode.SERVER,
        ErrorCode.TIMEOUT,
        ErrorCode.TRANSPORT,
    }
