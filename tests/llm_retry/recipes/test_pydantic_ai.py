"""The pydantic-ai recipe of docs/retry.md: ``FallbackModel(fallback_on=fallback_predicate())``.

Two of pydantic-ai's own OpenAI chat models, each on a loopback server with the openai
SDK's retries off, so every request a server counts is one pydantic-ai made. The error
bodies are real openai bodies from the corpus (the row named beside each).
"""

import asyncio
import contextlib
from collections.abc import Iterator

import pytest

import llm_errors
from llm_errors import ErrorCode

pytestmark = pytest.mark.integration

openai = pytest.importorskip("openai")
pytest.importorskip("pydantic_ai")

from pydantic_ai.exceptions import FallbackExceptionGroup, ModelHTTPError  # noqa: E402
from pydantic_ai.models.openai import OpenAIChatModel  # noqa: E402
from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402

from .conftest import LoopbackServer, json_reply  # noqa: E402

COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1_700_000_000,
    "model": "gpt-4o-mini",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "from the second model"},
            "finish_reason": "stop",
            "logprobs": None,
        }
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
}

#: ``(status, corpus row)`` of the first model's failure, by what the second one does.
SENT_ON = {
    "rate limit": (429, "ratelimit-openai-011"),
    "outage": (503, "server-openai-013"),
    # The hook sees the error only: a larger window is the caller's ordering of models.
    "context overflow": (400, "ctx-openai-014"),
}
STOPPED = {
    "invalid request": (400, "inv-openai-021", ErrorCode.INVALID_REQUEST),
    "content filter": (400, "cf-openai-004", ErrorCode.CONTENT_FILTER),
}


@pytest.fixture
def servers() -> Iterator[tuple[LoopbackServer, LoopbackServer]]:
    """Two loopback servers, one per model, closed after the test."""
    first, second = LoopbackServer(), LoopbackServer()
    try:
        yield first, second
    finally:
        first.close()
        second.close()


def run(recipe, servers):
    """One run of the recipe's agent over pydantic-ai's OpenAI chat model on each server.

    The openai SDK's own retries are off; its clients are closed after the run.
    """

    async def go():
        async with contextlib.AsyncExitStack() as stack:
            models = []
            for server in servers:
                client = openai.AsyncOpenAI(
                    base_url=f"{server.url}/v1", api_key="sk-test", max_retries=0
                )
                await stack.enter_async_context(client)
                provider = OpenAIProvider(openai_client=client)
                models.append(OpenAIChatModel("gpt-4o-mini", provider=provider))
            return await recipe("pydantic-ai").fallback_agent(*models).run("Hello")

    return asyncio.run(go())


@pytest.mark.parametrize("case", sorted(SENT_ON))
def test_a_failure_another_model_can_serve_goes_to_the_next_model(case, recipe, servers, corpus):
    """Rate limit, outage, overflow: the first model once, then the second model answers."""
    status, row = SENT_ON[case]
    first, second = servers
    first.script(json_reply(status, corpus.json(row)))
    second.script(json_reply(200, COMPLETION))

    assert run(recipe, servers).output == "from the second model"
    assert (first.attempts, second.attempts) == (1, 1)


@pytest.mark.parametrize("case", sorted(STOPPED))
def test_a_failure_no_model_can_serve_is_raised_without_the_next_model(
    case, recipe, servers, corpus
):
    """A wrong request or a filtered prompt: the first model's error, the second never asked.

    pydantic-ai's default, ``(ModelAPIError,)``, would have sent both on.
    """
    status, row, code = STOPPED[case]
    first, second = servers
    first.script(json_reply(status, corpus.json(row)))
    second.script(json_reply(200, COMPLETION))

    with pytest.raises(ModelHTTPError) as raised:
        run(recipe, servers)
    assert raised.value.status_code == status
    assert llm_errors.classify(raised.value).code is code
    assert (first.attempts, second.attempts) == (1, 0)


def test_when_every_model_fails_the_group_classifies_as_its_most_actionable_code(
    recipe, servers, corpus
):
    """A rate limit, then an outage: pydantic-ai's group holds both; classify() reads it."""
    first, second = servers
    first.script(json_reply(429, corpus.json("ratelimit-openai-011")))
    second.script(json_reply(503, corpus.json("server-openai-013")))

    with pytest.raises(FallbackExceptionGroup) as raised:
        run(recipe, servers)
    codes = [llm_errors.classify(error).code for error in raised.value.exceptions]
    assert codes == [ErrorCode.RATE_LIMIT, ErrorCode.SERVER]
    assert llm_errors.classify(raised.value).code in {ErrorCode.RATE_LIMIT, ErrorCode.SERVER}
    assert (first.attempts, second.attempts) == (1, 1)
