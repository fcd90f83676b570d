"""The adapter's OpenTelemetry span and GenAI metrics, over real HTTP against ``FakeMistral``."""

import asyncio
import contextlib
import json
import subprocess
import sys
import textwrap

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import SpanKind, StatusCode

from adapter import Context, StreamOptions
from adapter._mistral import telemetry
from adapter._mistral.async_client import AsyncMistralAdapter
from adapter._mistral.client import Settings
from adapter._mistral.stream import start
from adapter._mistral.sync_client import MistralAdapter
from adapter.pi import UserMessage
from adapter.testing import (
    Drop,
    FakeMistral,
    Pause,
    Repeat,
    Reply,
    Stream,
    error_object,
    finish_chunk,
    role_chunk,
    text_chunk,
    text_reply,
    usage_info,
)
from llm_errors import AuthError, LlmError, RateLimitError, TransportError
from llm_retry import RetryPolicy, instant_retries
from llm_retry.instrumentation import OpenTelemetryOnRetryHook, set_on_retry_hooks

KEY = "KEY-SENTINEL-5b1e-not-a-real-key"
MODEL = "mistral-small-latest"
ANSWERED_BY = "mistral-small-2506"
PROMPT = "PROMPT-SENTINEL-c41d what is in my diary?"
REPLY = "REPLY-SENTINEL-9e02"
CONTEXT = Context(
    system_prompt="SYSTEM-SENTINEL-77aa be terse",
    messages=[UserMessage(content=PROMPT, timestamp=1)],
)
#: Mistral's 401 body (docs/wire.md, body shape F, from cline/cline#1734).
UNAUTHORIZED = {"message": "Unauthorized", "request_id": "c61f2f15feca71626a990e3740f99245"}
#: Mistral's 429 error object (docs/wire.md, body shape A).
RATE_LIMITED = error_object("Rate limit exceeded", error_type="rate_limited", code="1300")


def reply():
    """A streamed answer from a dated model, with usage including cached prompt tokens."""
    meta = {"chunk_id": "cmpl-7e1f", "model": ANSWERED_BY}
    return Stream(
        [
            role_chunk(**meta),
            text_chunk(REPLY, **meta),
            text_chunk(" done", **meta),
            finish_chunk(usage=usage_info(12, 5, cached_tokens=4), **meta),
        ]
    )


@pytest.fixture
def otel(monkeypatch, otel_sdk):
    """The test's own SDK providers (tests/conftest.py), given to the adapter and the retries."""
    monkeypatch.setattr(
        telemetry,
        "_telemetry",
        telemetry.Telemetry(
            tracer_provider=otel_sdk.tracer_provider, meter_provider=otel_sdk.meter_provider
        ),
    )
    with set_on_retry_hooks([OpenTelemetryOnRetryHook(meter_provider=otel_sdk.meter_provider)]):
        yield otel_sdk


def everything(otel):
    """Every span name, attribute, event and metric attribute, as one string to search."""
    parts = []
    for span in otel.exporter.get_finished_spans():
        parts.append(span.name)
        parts.append(repr(dict(span.attributes)))
        parts.append(repr(span.status.description))
        parts.extend(repr((e.name, dict(e.attributes))) for e in span.events)
    data = otel.reader.get_metrics_data()
    for resource in data.resource_metrics if data else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                parts.extend(repr(dict(p.attributes)) for p in metric.data.data_points)
    return "\n".join(parts)


def complete(fake, *, use_async, options=None, retry=None):
    """One ``complete()`` call against ``fake``, sync or async."""
    if use_async:

        async def main():
            async with AsyncMistralAdapter(api_key=KEY, base_url=fake.url, retry=retry) as mistral:
                return await mistral.complete(MODEL, CONTEXT, options)

        return asyncio.run(main())
    with MistralAdapter(api_key=KEY, base_url=fake.url, retry=retry) as mistral:
        return mistral.complete(MODEL, CONTEXT, options)


SYNC_AND_ASYNC = [pytest.param(False, id="sync"), pytest.param(True, id="async")]
OPTIONS = StreamOptions(temperature=0.3, top_p=0.9, max_tokens=64, random_seed=7, stop="END")


@pytest.mark.parametrize("use_async", SYNC_AND_ASYNC)
@pytest.mark.integration
def test_one_client_span_in_the_genai_conventions(otel, use_async):
    """Name, kind and every attribute of a successful call's span."""
    exporter = otel.exporter
    with FakeMistral(reply(), default=None) as fake:
        message = complete(fake, use_async=use_async, options=OPTIONS)
    assert message.stopReason == "stop"
    (span,) = exporter.get_finished_spans()
    assert span.name == f"chat {MODEL}"
    assert span.kind is SpanKind.CLIENT
    assert span.status.status_code is StatusCode.UNSET
    attributes = dict(span.attributes)
    ttfc = attributes.pop("gen_ai.response.time_to_first_chunk")
    assert 0 <= ttfc < 10
    assert attributes == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "mistral_ai",
        "gen_ai.request.model": MODEL,
        "gen_ai.request.temperature": 0.3,
        "gen_ai.request.top_p": 0.9,
        "gen_ai.request.max_tokens": 64,
        "gen_ai.request.seed": 7,
        "gen_ai.request.stop_sequences": ("END",),
        "server.address": "127.0.0.1",
        "server.port": fake.port,
        "gen_ai.response.id": "cmpl-7e1f",
        "gen_ai.response.model": ANSWERED_BY,
        "gen_ai.response.finish_reasons": ("stop",),
        "gen_ai.usage.input_tokens": 12,
        "gen_ai.usage.output_tokens": 5,
        "gen_ai.usage.cache_read.input_tokens": 4,
    }
    assert list(span.events) == []


@pytest.mark.integration
def test_only_parameters_that_were_set(otel):
    """A call without options carries no ``gen_ai.request.*`` parameter."""
    exporter = otel.exporter
    with FakeMistral(text_reply("hi"), default=None) as fake:
        complete(fake, use_async=False)
    (span,) = exporter.get_finished_spans()
    assert [name for name in span.attributes if name.startswith("gen_ai.request.")] == [
        "gen_ai.request.model"
    ]


@pytest.mark.parametrize("use_async", SYNC_AND_ASYNC)
@pytest.mark.integration
def test_genai_metrics(otel, use_async):
    """Duration, token usage (input and output) and time to first chunk, with their attributes."""
    with FakeMistral(reply(), default=None) as fake:
        complete(fake, use_async=use_async)
    expected = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "mistral_ai",
        "gen_ai.request.model": MODEL,
        "gen_ai.response.model": ANSWERED_BY,
        "server.address": "127.0.0.1",
        "server.port": fake.port,
    }
    (duration,) = otel.points("gen_ai.client.operation.duration")
    assert dict(duration.attributes) == expected
    assert duration.count == 1
    assert 0 < duration.sum < 30
    tokens = {
        p.attributes["gen_ai.token.type"]: (p.sum, dict(p.attributes))
        for p in otel.points("gen_ai.client.token.usage")
    }
    assert tokens == {
        "input": (12, {**expected, "gen_ai.token.type": "input"}),
        "output": (5, {**expected, "gen_ai.token.type": "output"}),
    }
    (ttfc,) = otel.points("gen_ai.client.operation.time_to_first_chunk")
    assert (ttfc.count, dict(ttfc.attributes)) == (1, expected)


@pytest.mark.parametrize("use_async", SYNC_AND_ASYNC)
@pytest.mark.integration
def test_retries_are_events_on_the_one_call_span(otel, use_async):
    """A retried call is one span, and each retry is a ``retry`` event on it."""
    exporter = otel.exporter
    with (
        instant_retries(),
        FakeMistral(
            Reply(429, RATE_LIMITED, headers={"Retry-After": "1"}), reply(), default=None
        ) as fake,
    ):
        complete(fake, use_async=use_async, retry=RetryPolicy(on_retry=None))
        assert len(fake.requests) == 2
    (span,) = exporter.get_finished_spans()
    assert span.status.status_code is StatusCode.UNSET
    ((name, attributes),) = [(e.name, dict(e.attributes)) for e in span.events]
    assert name == "retry"
    assert attributes["error.type"] == "RATE_LIMIT"
    assert attributes["retry.attempt"] == 1
    assert attributes["retry.wait_s"] == 1.0
    assert "llm_errors.rule" in attributes


@pytest.mark.parametrize("use_async", SYNC_AND_ASYNC)
@pytest.mark.integration
def test_a_failed_call_is_an_error_span(otel, use_async):
    """A 401: status ERROR, ``error.type`` the code, a give-up event, and no message text."""
    exporter = otel.exporter
    with (
        instant_retries(),
        FakeMistral(Reply(401, UNAUTHORIZED), default=None) as fake,
        pytest.raises(AuthError),
    ):
        complete(fake, use_async=use_async, retry=RetryPolicy(on_retry=None))
    (span,) = exporter.get_finished_spans()
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes["error.type"] == "AUTH"
    assert [e.name for e in span.events] == ["retry.give_up"]
    assert span.events[0].attributes["retry.give_up.reason"] == "not_retryable"
    assert "Unauthorized" not in everything(otel)
    (duration,) = otel.points("gen_ai.client.operation.duration")
    assert duration.attributes["error.type"] == "AUTH"
    assert otel.points("gen_ai.client.token.usage") == []


@pytest.mark.integration
def test_never_raise_still_marks_the_span(otel):
    """With ``never_raise`` the stream ends in an ``error`` event and the span is an error."""
    exporter = otel.exporter
    with FakeMistral(Reply(429, RATE_LIMITED), default=None) as fake:
        message = complete(fake, use_async=False, options=StreamOptions(never_raise=True))
    assert message.stopReason == "error"
    (span,) = exporter.get_finished_spans()
    assert (span.status.status_code, span.attributes["error.type"]) == (
        StatusCode.ERROR,
        "RATE_LIMIT",
    )


@pytest.mark.integration
def test_closing_early_is_aborted_and_closing_after_done_is_not(otel):
    """``break`` before the end gives ``ABORTED``; closing after ``done`` is a success."""
    exporter = otel.exporter
    with (
        FakeMistral(reply(), reply(), default=None) as fake,
        MistralAdapter(api_key=KEY, base_url=fake.url) as mistral,
    ):
        with contextlib.closing(mistral.stream(MODEL, CONTEXT)) as events:
            for event in events:
                if event.type == "text_delta":
                    break
        with contextlib.closing(mistral.stream(MODEL, CONTEXT)) as events:
            for event in events:
                if event.type == "done":
                    break
    aborted, finished = exporter.get_finished_spans()
    assert (aborted.status.status_code, aborted.attributes["error.type"]) == (
        StatusCode.ERROR,
        "ABORTED",
    )
    assert finished.status.status_code is StatusCode.UNSET
    assert "error.type" not in finished.attributes


@pytest.mark.integration
def test_async_cancellation_ends_the_span(otel):
    """A cancelled task ends the span as ``ABORTED``; the ``CancelledError`` propagates."""
    exporter = otel.exporter

    async def main(url):
        task = asyncio.current_task()
        async with AsyncMistralAdapter(api_key=KEY, base_url=url) as mistral:
            async for event in mistral.stream(MODEL, CONTEXT):
                if event.type == "text_delta":  # cancelled while the next read waits
                    asyncio.get_running_loop().call_later(0.05, task.cancel)

    stalled = Stream([role_chunk(), text_chunk("a"), Pause(5), finish_chunk()])
    with FakeMistral(stalled, default=None) as fake:
        with pytest.raises(asyncio.CancelledError):
            asyncio.run(main(fake.url))
        fake.wait_open_connections(0)
    (span,) = exporter.get_finished_spans()
    assert span.attributes["error.type"] == "ABORTED"


@pytest.mark.integration
def test_spans_per_call_never_per_delta(otel):
    """A 500-delta stream is one span with no events."""
    exporter = otel.exporter
    stream = Stream([role_chunk(), Repeat(text_chunk("tok "), 500), finish_chunk()])
    with FakeMistral(stream, default=None) as fake:
        complete(fake, use_async=False)
    (span,) = exporter.get_finished_spans()
    assert list(span.events) == []


@pytest.mark.parametrize("use_async", SYNC_AND_ASYNC)
@pytest.mark.integration
def test_no_content_prompt_or_key_by_default(otel, use_async):
    """Neither the key, the system prompt, the prompt nor the reply is in any span or metric."""
    with instant_retries(), FakeMistral(Reply(429, RATE_LIMITED), reply(), default=None) as fake:
        complete(fake, use_async=use_async, retry=RetryPolicy(on_retry=None))
    dumped = everything(otel)
    assert "retry" in dumped
    for sentinel in (KEY, "SYSTEM-SENTINEL", "PROMPT-SENTINEL", "REPLY-SENTINEL"):
        assert sentinel not in dumped


@pytest.mark.integration
def test_content_capture_is_opt_in_and_redacted(otel, monkeypatch):
    """With the conventions' opt-in the messages are recorded, with secrets redacted."""
    exporter = otel.exporter
    monkeypatch.setenv(telemetry.CAPTURE_CONTENT_ENV, "true")
    leaky = Context(
        messages=[UserMessage(content=f"{PROMPT} api_key=sk-proj-abcdefghijklmnop123", timestamp=1)]
    )
    with (
        FakeMistral(reply(), default=None) as fake,
        MistralAdapter(api_key=KEY, base_url=fake.url) as mistral,
    ):
        mistral.complete(MODEL, leaky)
    (span,) = exporter.get_finished_spans()
    sent = json.loads(span.attributes["gen_ai.input.messages"])
    assert sent[0]["role"] == "user"
    assert sent[0]["parts"][0]["type"] == "text"
    assert sent[0]["parts"][0]["content"].startswith("PROMPT-SENTINEL")
    assert json.loads(span.attributes["gen_ai.output.messages"]) == [
        {
            "role": "assistant",
            "parts": [{"type": "text", "content": f"{REPLY} done"}],
            "finish_reason": "stop",
        }
    ]
    dumped = everything(otel)
    assert "sk-proj-abcdefghijklmnop123" not in dumped
    assert KEY not in dumped


def test_captured_content_is_bounded():
    """A long message part is cut at ``CONTENT_PART_LIMIT``; at most ``MESSAGES_LIMIT`` kept."""
    messages = [{"role": "user", "content": "many words " * 1000}] * (telemetry.MESSAGES_LIMIT + 5)
    recorded = json.loads(telemetry.input_messages(json.dumps({"messages": messages}).encode()))
    assert len(recorded) == telemetry.MESSAGES_LIMIT
    assert len(recorded[0]["parts"][0]["content"]) == telemetry.CONTENT_PART_LIMIT + 1


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("text", "text", id="text"),
        pytest.param("json_object", "json", id="json_object"),
    ],
)
def test_output_type(value, expected):
    """``response_format`` becomes ``gen_ai.output.type``."""
    settings = Settings(api_key=KEY, base_url="http://h", timeouts=None, headers=None, retry=None)
    call = settings.prepare(MODEL, CONTEXT, None)
    attributes = telemetry.request_attributes(call, MODEL, StreamOptions(response_format=value))
    assert attributes["gen_ai.output.type"] == expected
    assert (attributes["server.address"], attributes["server.port"]) == ("h", 80)


def test_error_type_mapping():
    """Codes for our errors, ``ABORTED`` before the end, the class name for anything else."""
    settings = Settings(api_key=KEY, base_url="http://h", timeouts=None, headers=None, retry=None)
    state, _ = start(model=settings.prepare(MODEL, CONTEXT, None).model, now=0)
    assert telemetry.error_type(None, state) is None
    assert telemetry.error_type(RateLimitError("Rate limit exceeded"), state) == "RATE_LIMIT"
    assert telemetry.error_type(GeneratorExit(), state) == "ABORTED"
    assert telemetry.error_type(GeneratorExit(), None) == "ABORTED"
    state.ended = True
    assert telemetry.error_type(GeneratorExit(), state) is None
    assert telemetry.error_type(TypeError("bug"), state) == "TypeError"
    assert telemetry.error_type(json.JSONDecodeError("x", "", 0), state) == (
        "json.decoder.JSONDecodeError"
    )
    assert issubclass(RateLimitError, LlmError)


@pytest.mark.integration
def test_configure_uses_the_given_providers(monkeypatch, otel_sdk):
    """``configure`` swaps the providers; ``configure()`` goes back to the global ones."""
    monkeypatch.setattr(telemetry, "_telemetry", telemetry._UNRESOLVED)
    telemetry.configure(tracer_provider=otel_sdk.tracer_provider)
    with FakeMistral(text_reply("hi"), default=None) as fake:
        complete(fake, use_async=False)
    assert len(otel_sdk.exporter.get_finished_spans()) == 1
    telemetry.configure()
    with FakeMistral(text_reply("hi"), default=None) as fake:
        complete(fake, use_async=False)
    assert len(otel_sdk.exporter.get_finished_spans()) == 1


@pytest.mark.integration
def test_without_opentelemetry_nothing_is_imported_or_wrapped(without_extras):
    """With the extras unimportable, calls and retries work and the events are not wrapped."""
    script = without_extras + textwrap.dedent(
        f"""
        import asyncio
        from adapter import Context, AsyncMistralAdapter, MistralAdapter
        from adapter._mistral import telemetry
        from adapter.pi import UserMessage
        from adapter.testing import FakeMistral, Reply, text_reply
        from llm_retry import RetryPolicy, instant_retries

        context = Context(messages=[UserMessage(content="hi", timestamp=1)])
        # Envoy's 503 body (envoyproxy/envoy#9747)
        envoy = ("upstream connect error or disconnect/reset before headers. reset reason: "
                 "connection termination")
        with instant_retries(), FakeMistral(Reply(503, envoy), text_reply("a"),
                                            text_reply("b")) as fake:
            with MistralAdapter(api_key="k", base_url=fake.url,
                                    retry=RetryPolicy(on_retry=None)) as mistral:
                assert mistral.complete("{MODEL}", context).content[0].text == "a"
                events = mistral._attempts(mistral._settings.prepare("{MODEL}", context, None))
                assert telemetry.trace_sync(events, None, "{MODEL}", None) is events
                events.close()

            async def main():
                async with AsyncMistralAdapter(api_key="k", base_url=fake.url) as mistral:
                    return await mistral.complete("{MODEL}", context)

            assert asyncio.run(main()).content[0].text == "b"
        assert telemetry._telemetry is None
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
        assert not loaded, loaded
        print("OK")
        """
    )
    result = subprocess.run(  # noqa: S603 - the script above
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "OK"


def test_captured_input_keeps_parts_types_and_tool_calls():
    """Text parts are kept, other parts by type only, tool calls with redacted arguments."""
    body = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "look"},
                    {"type": "image_url", "image_url": "data:image/png;base64,AAAA"},
                ],
            },
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "abc123xyz", "function": {"name": "get_weather", "arguments": {"c": 1}}},
                    {"id": "def456uvw", "function": {"name": "f", "arguments": "token=abcdefghij"}},
                ],
            },
        ]
    }
    user, assistant = json.loads(telemetry.input_messages(json.dumps(body).encode()))
    assert user["parts"] == [{"type": "text", "content": "look"}, {"type": "image_url"}]
    assert assistant["parts"] == [
        {"type": "tool_call", "id": "abc123xyz", "name": "get_weather", "arguments": '{"c": 1}'},
        {"type": "tool_call", "id": "def456uvw", "name": "f", "arguments": "token=<redacted>"},
    ]


def test_captured_output_has_reasoning_and_tool_calls():
    """Thinking becomes a ``reasoning`` part, a tool call keeps its name, id and arguments."""
    from adapter.pi import TextContent, ThinkingContent, ToolCall

    settings = Settings(api_key=KEY, base_url="http://h", timeouts=None, headers=None, retry=None)
    state, _ = start(model=settings.prepare(MODEL, CONTEXT, None).model, now=0)
    state.message.content = [
        ThinkingContent(thinking="hmm"),
        TextContent(text="Paris"),
        ToolCall(id="abc123xyz", name="get_weather", arguments={"city": "Paris"}),
    ]
    (reply,) = json.loads(telemetry.output_messages(state.message, "tool_calls"))
    assert reply["finish_reason"] == "tool_calls"
    assert reply["parts"] == [
        {"type": "reasoning", "content": "hmm"},
        {"type": "text", "content": "Paris"},
        {
            "type": "tool_call",
            "id": "abc123xyz",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        },
    ]


@pytest.mark.parametrize(
    ("url", "server"),
    [
        pytest.param("https://api.mistral.ai", ("api.mistral.ai", 443), id="https"),
        pytest.param("http://127.0.0.1:8080/v1", ("127.0.0.1", 8080), id="explicit-port"),
    ],
)
def test_server_address_and_port(url, server):
    """``server.address``/``server.port`` from the base URL, the scheme's port by default."""
    settings = Settings(api_key=KEY, base_url=url, timeouts=None, headers=None, retry=None)
    attributes = telemetry.base_attributes(settings.prepare(MODEL, CONTEXT, None), MODEL)
    assert (attributes["server.address"], attributes["server.port"]) == server


@pytest.mark.parametrize("use_async", SYNC_AND_ASYNC)
def test_an_empty_stream_still_ends_its_span(otel, use_async):
    """A stream that yields nothing at all ends the span without an error."""
    exporter = otel.exporter
    settings = Settings(api_key=KEY, base_url="http://h", timeouts=None, headers=None, retry=None)
    call = settings.prepare(MODEL, CONTEXT, None)

    def nothing():
        yield from ()

    async def anothing():
        for event in ():
            yield event

    if use_async:

        async def main():
            return [e async for e in telemetry.trace_async(anothing(), call, MODEL, None)]

        assert asyncio.run(main()) == []
    else:
        assert list(telemetry.trace_sync(nothing(), call, MODEL, None)) == []
    (span,) = exporter.get_finished_spans()
    assert span.status.status_code is StatusCode.UNSET


@pytest.fixture
def no_opentelemetry(opentelemetry_missing, monkeypatch):
    """``opentelemetry.trace`` cannot be found, and the adapter has not looked yet."""
    monkeypatch.setattr(telemetry, "_telemetry", telemetry._UNRESOLVED)


def test_without_opentelemetry_the_events_pass_untouched(no_opentelemetry):
    """``trace_sync``/``trace_async`` return the very generator; ``configure`` turns it off."""
    settings = Settings(api_key=KEY, base_url="http://h", timeouts=None, headers=None, retry=None)
    call = settings.prepare(MODEL, CONTEXT, None)
    events = iter(())
    assert telemetry.trace_sync(events, call, MODEL, None) is events
    assert telemetry.trace_async(events, call, MODEL, None) is events
    telemetry.configure(tracer_provider=TracerProvider())
    assert telemetry._telemetry is None


@pytest.mark.integration
def test_nothing_is_wrapped_until_a_provider_is_configured():
    """With the API's proxy providers the events pass untouched; an SDK provider turns it on."""
    script = textwrap.dedent(
        """
        from opentelemetry import metrics, trace
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.trace import TracerProvider

        from adapter._mistral import telemetry

        idle = telemetry.Telemetry()
        assert not idle.configured()
        assert not telemetry.Telemetry(meter_provider=metrics.NoOpMeterProvider()).configured()
        assert not telemetry.Telemetry(tracer_provider=trace.NoOpTracerProvider()).configured()
        events = iter(())
        assert telemetry.trace_sync(events, None, "m", None) is events
        assert telemetry.trace_async(events, None, "m", None) is events
        assert telemetry.Telemetry(tracer_provider=TracerProvider()).configured()
        metrics.set_meter_provider(MeterProvider())
        assert idle.configured()
        print("OK")
        """
    )
    result = subprocess.run(  # noqa: S603 - the script above
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "OK"


@pytest.mark.integration
def test_a_tracer_provider_alone_turns_it_on():
    """A configured global tracer provider is seen on the next call (subprocess: set once)."""
    script = textwrap.dedent(
        """
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider

        from adapter._mistral import telemetry

        idle = telemetry.Telemetry()
        assert not idle.configured()
        trace.set_tracer_provider(TracerProvider())
        assert idle.configured()
        print("OK")
        """
    )
    result = subprocess.run(  # noqa: S603 - the script above
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "OK"


@pytest.mark.integration
def test_a_stream_that_fails_after_its_first_event(otel):
    """The call span is an error; the ``stream_started`` give-up goes to the caller's span."""
    exporter = otel.exporter
    tracer = telemetry._telemetry._tracer
    cut = Stream([role_chunk(), text_chunk("Hel"), Drop()])
    with (
        FakeMistral(cut, default=None) as fake,
        MistralAdapter(api_key=KEY, base_url=fake.url, retry=RetryPolicy(on_retry=None)) as m,
        tracer.start_as_current_span("caller"),
        pytest.raises(TransportError),
    ):
        m.complete(MODEL, CONTEXT)
    call, caller = exporter.get_finished_spans()
    assert call.attributes["error.type"] == "TRANSPORT"
    assert list(call.events) == []
    assert call.parent.span_id == caller.context.span_id
    (give_up,) = caller.events
    assert give_up.attributes["retry.give_up.reason"] == "stream_started"
