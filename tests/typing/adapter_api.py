"""Type-checked, never run: the ``adapter`` API from a user's point of view.

``mypy --strict src tests/typing`` checks this file; every ``# type: ignore`` below is
an assertion that mypy rejects the line (``warn_unused_ignores`` is part of strict).
"""

from collections.abc import AsyncGenerator, Generator
from typing import assert_type

from adapter import (
    AsyncMessageStream,
    AsyncMistralAdapter,
    Context,
    MessageStream,
    MistralAdapter,
    StreamOptions,
    Timeouts,
    Tool,
    calculate_cost,
    get_model,
    partial_of,
)
from adapter.pi import (
    AssistantMessage,
    AssistantMessageEvent,
    ModelInfo,
    Usage,
    UsageCost,
    UserMessage,
    parse_agent_message,
)
from llm_errors import LlmError
from llm_retry import RetryPolicy

model = get_model("mistral-small-latest")
assert_type(model, ModelInfo)
assert_type(model.contextWindow, int | None)
usage = Usage(
    input=10,
    output=5,
    cacheRead=0,
    cacheWrite=0,
    totalTokens=15,
    cost=UsageCost(input=0, output=0, cacheRead=0, cacheWrite=0, total=0),
)
assert_type(calculate_cost(model, usage), UsageCost)

weather = Tool(
    name="get_weather",
    description="Current weather for a city.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)
context = Context(
    system_prompt="Be brief.",
    messages=[UserMessage(content="Weather in Paris?", timestamp=0)],
    tools=[weather],
)
options = StreamOptions(temperature=0.2, max_tokens=256, reasoning="high", never_raise=True)
StreamOptions(temperature="hot")  # type: ignore[arg-type]

sync_adapter = MistralAdapter(
    api_key="k", timeouts=Timeouts(connect=5.0, read=30.0), retry=RetryPolicy()
)
sync_stream = sync_adapter.stream(model, context, options)
assert_type(sync_stream, MessageStream)
as_generator: Generator[AssistantMessageEvent, None, None] = sync_stream  # still a generator
assert_type(sync_stream.message, AssistantMessage | None)
assert_type(sync_adapter.complete("mistral-small-latest", context), AssistantMessage)
for event in sync_adapter.stream(model, context):
    if event.type == "text_delta":
        assert_type(event.delta, str)


async def use_async() -> None:
    """The asyncio twin has the same surface."""
    async with AsyncMistralAdapter(api_key="k") as mistral:
        events = mistral.stream(model, context)
        assert_type(events, AsyncMessageStream)
        as_async: AsyncGenerator[AssistantMessageEvent, None] = events  # an async generator
        assert_type(as_async, AsyncGenerator[AssistantMessageEvent, None])
        assert_type(events.message, AssistantMessage | None)
        async for _event in events:
            pass
        assert_type(await mistral.complete(model, context), AssistantMessage)


def on_failure(error: LlmError) -> None:
    """Every adapter error carries the message so far."""
    assert_type(partial_of(error), AssistantMessage | None)


message = parse_agent_message({"role": "user", "content": "hi", "timestamp": 0})
if message.role == "user":
    assert_type(message, UserMessage)
