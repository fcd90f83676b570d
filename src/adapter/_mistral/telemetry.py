"""One OpenTelemetry span per Mistral call, in the GenAI semantic conventions, and its metrics.

The shells pass the events of a call through :func:`trace_sync` / :func:`trace_async`.
When ``opentelemetry-api`` is not installed (checked once, with
``importlib.util.find_spec``) they return the events unchanged: nothing is imported and
nothing is added. Nor is anything added while neither a tracer nor a meter provider is
configured (the API's proxies, which would drop everything). Otherwise the call gets
one span, ``chat {model}`` of kind ``CLIENT``, started when the stream is first read and
ended when it ends (done, error, close or cancellation). It encloses every retry
attempt and is the current span while the retries run, so the ``retry`` events of
``llm_retry.instrumentation`` land on it. Spans are per call, never per delta: the sync
wrapper delegates with ``yield from``.

Names follow the OpenTelemetry semantic conventions for generative AI
(https://github.com/open-telemetry/semantic-conventions/blob/v1.41.0/docs/gen-ai/gen-ai-spans.md
and ``gen-ai-metrics.md`` next to it): ``gen_ai.provider.name`` (which replaced
``gen_ai.system``) is ``mistral_ai``. No message content, prompt or key goes into an
attribute unless ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``, the
conventions' opt-in; then the messages are recorded redacted (``llm_errors.redact``)
and bounded. The mapping from a call to attributes is pure (:func:`request_attributes`,
:func:`response_attributes`, :func:`error_type`); only :class:`Telemetry` touches
OpenTelemetry.

.. versionadded:: 0.2.0
"""

from __future__ import annotations

import importlib.util
import json
import os
import time
from collections.abc import AsyncGenerator, Generator, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final, TypeAlias
from urllib.parse import urlsplit

from adapter._mistral.client import ABORTS, ModelRef, StreamCall
from adapter._mistral.stream import StreamState
from adapter.pi._content import TextContent, ThinkingContent, ToolCall
from adapter.pi._context import StreamOptions
from adapter.pi._events import AssistantMessageEvent
from adapter.pi._messages import AssistantMessage
from llm_errors import ErrorCode, LlmError, redact
from llm_errors._version import distribution_version

if TYPE_CHECKING:
    from opentelemetry.context import Context as OtelContext
    from opentelemetry.metrics import Histogram, MeterProvider
    from opentelemetry.trace import Span, TracerProvider
    from opentelemetry.util.types import AttributeValue

__all__ = [
    "CAPTURE_CONTENT_ENV",
    "CONTENT_PART_LIMIT",
    "MESSAGES_LIMIT",
    "PROVIDER_NAME",
    "Telemetry",
    "base_attributes",
    "configure",
    "error_type",
    "input_messages",
    "output_messages",
    "request_attributes",
    "requested_model",
    "response_attributes",
    "trace_async",
    "trace_sync",
]

Attributes: TypeAlias = dict[str, "AttributeValue"]
Events: TypeAlias = Generator[AssistantMessageEvent, None, None]
AsyncEvents: TypeAlias = AsyncGenerator[AssistantMessageEvent, None]

#: ``gen_ai.provider.name`` for Mistral AI, a well-known value of the conventions.
PROVIDER_NAME: Final = "mistral_ai"
#: The conventions' opt-in for recording message content (``true`` turns it on).
CAPTURE_CONTENT_ENV: Final = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
#: With content capture on: the longest text kept per message part, in characters.
CONTENT_PART_LIMIT: Final = 4096
#: With content capture on: the most input messages recorded (the latest ones).
MESSAGES_LIMIT: Final = 64

#: Histogram buckets the conventions advise, in seconds and in tokens.
_SECONDS_BUCKETS: Final = (
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
)  # fmt: skip
_TOKEN_BUCKETS: Final = (
    1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
)  # fmt: skip

# --- the pure mapping -------------------------------------------------------------------


@lru_cache(maxsize=64)
def _server(url: str) -> tuple[str, int]:
    """``server.address`` and ``server.port`` of a request URL (few distinct URLs per process)."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return parts.hostname or "", port


def requested_model(model: ModelRef) -> str:
    """The model id the caller asked for (an alias such as ``-latest`` stays as it was)."""
    return model if isinstance(model, str) else model.id


def base_attributes(call: StreamCall, model: str) -> Attributes:
    """What the span and every metric carry: the operation, provider, model and server."""
    address, port = _server(call.url)
    return {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": PROVIDER_NAME,
        "gen_ai.request.model": model,
        "server.address": address,
        "server.port": port,
    }


def request_attributes(call: StreamCall, model: str, options: StreamOptions | None) -> Attributes:
    """The span's attributes known before sending: the base ones and the parameters set.

    .. versionadded:: 0.2.0
    """
    attributes = base_attributes(call, model)
    if options is None:
        return attributes
    for name, value in (
        ("gen_ai.request.temperature", options.temperature),
        ("gen_ai.request.top_p", options.top_p),
        ("gen_ai.request.max_tokens", options.max_tokens),
        ("gen_ai.request.seed", options.random_seed),
    ):
        if value is not None:
            attributes[name] = value
    stop = options.stop
    if stop is not None:
        attributes["gen_ai.request.stop_sequences"] = (
            [stop] if isinstance(stop, str) else list(stop)
        )
    fmt = options.response_format
    if fmt is not None:
        attributes["gen_ai.output.type"] = "text" if fmt == "text" else "json"
    return attributes


def response_attributes(state: StreamState | None) -> Attributes:
    """The span's attributes from the last attempt's stream: id, model, reasons, usage.

    ``gen_ai.usage.input_tokens`` counts every prompt token, cached ones included, as
    the conventions ask (pi's ``usage.input`` leaves the cached ones out).

    .. versionadded:: 0.2.0
    """
    if state is None:
        return {}
    message = state.message
    attributes: Attributes = {}
    if message.responseId:
        attributes["gen_ai.response.id"] = message.responseId
    if state.response_model:
        attributes["gen_ai.response.model"] = state.response_model
    if state.finish_reason is not None:
        attributes["gen_ai.response.finish_reasons"] = [state.finish_reason]
    usage = message.usage
    if usage.totalTokens or usage.input or usage.output:
        attributes["gen_ai.usage.input_tokens"] = usage.input + usage.cacheRead + usage.cacheWrite
        attributes["gen_ai.usage.output_tokens"] = usage.output
        if usage.cacheRead:
            attributes["gen_ai.usage.cache_read.input_tokens"] = usage.cacheRead
    if message.ttft is not None:
        attributes["gen_ai.response.time_to_first_chunk"] = message.ttft / 1000
    return attributes


#: pi stop reasons of a message that did not end well.
_FAILED = frozenset({"error", "aborted"})


def error_type(error: BaseException | None, state: StreamState | None) -> str | None:
    """``error.type``: the ``ErrorCode``, ``ABORTED`` for a stream closed early, else the class.

    A stream closed after its ``done`` event is a success (``None``).

    .. versionadded:: 0.2.0
    """
    if error is None:
        return None
    if isinstance(error, LlmError):
        return error.code.value
    if isinstance(error, ABORTS):
        if state is not None and state.ended and state.message.stopReason not in _FAILED:
            return None
        return ErrorCode.ABORTED.value
    cls = type(error)
    return (
        cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    )


def _text(value: str) -> str:
    text = redact(value)
    return text if len(text) <= CONTENT_PART_LIMIT else f"{text[:CONTENT_PART_LIMIT]}…"


def _input_parts(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    parts: list[dict[str, Any]] = []
    if isinstance(content, str):
        if content:
            parts.append({"type": "text", "content": _text(content)})
    elif isinstance(content, list):
        for part in content:
            kind = part.get("type") if isinstance(part, dict) else None
            text = part.get("text") if isinstance(part, dict) else None
            if kind == "text" and isinstance(text, str):
                parts.append({"type": "text", "content": _text(text)})
            else:
                parts.append({"type": str(kind)})  # an image or document: its type only
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments)
        parts.append(
            {
                "type": "tool_call",
                "id": call.get("id"),
                "name": function.get("name"),
                "arguments": _text(arguments),
            }
        )
    return parts


def input_messages(body: bytes) -> str:
    """``gen_ai.input.messages`` (content capture only): the sent messages, redacted, bounded.

    .. versionadded:: 0.2.0
    """
    messages = json.loads(body).get("messages", [])[-MESSAGES_LIMIT:]
    return json.dumps(
        [{"role": m.get("role"), "parts": _input_parts(m)} for m in messages],
        ensure_ascii=False,
    )


def output_messages(message: AssistantMessage, finish_reason: str | None) -> str:
    """``gen_ai.output.messages`` (content capture only): the reply, redacted, bounded.

    .. versionadded:: 0.2.0
    """
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            parts.append({"type": "text", "content": _text(block.text)})
        elif isinstance(block, ThinkingContent):
            parts.append({"type": "reasoning", "content": _text(block.thinking)})
        elif isinstance(block, ToolCall):
            parts.append(
                {
                    "type": "tool_call",
                    "id": block.id,
                    "name": block.name,
                    "arguments": _text(json.dumps(block.arguments)),
                }
            )
    reply = {"role": "assistant", "parts": parts, "finish_reason": finish_reason or ""}
    return json.dumps([reply], ensure_ascii=False)


def _capture_content() -> bool:
    return os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() == "true"


# --- OpenTelemetry ----------------------------------------------------------------------


class Telemetry:
    """The tracer and the GenAI client instruments, built once from the providers.

    Args:
        tracer_provider: The tracer provider; the global one by default (the API's
            proxy, so an SDK configured later is used too).
        meter_provider: The meter provider; the global one by default.
    """

    __slots__ = (
        "_client",
        "_context",
        "_duration",
        "_global_meter_provider",
        "_global_tracer_provider",
        "_meter_provider",
        "_noop_tracer_providers",
        "_span_in",
        "_status_error",
        "_tokens",
        "_tracer",
        "_tracer_provider",
        "_ttfc",
    )

    def __init__(
        self,
        *,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
    ) -> None:
        from opentelemetry import context, metrics, trace  # noqa: PLC0415 - optional

        version = distribution_version()
        self._tracer = trace.get_tracer("adapter", version, tracer_provider=tracer_provider)
        meter = metrics.get_meter("adapter", version, meter_provider=meter_provider)
        self._tracer_provider = tracer_provider
        self._meter_provider = meter_provider
        self._global_tracer_provider = trace.get_tracer_provider
        self._global_meter_provider = metrics.get_meter_provider
        self._noop_tracer_providers = (trace.ProxyTracerProvider, trace.NoOpTracerProvider)
        self._context = context
        self._span_in = trace.set_span_in_context
        self._client = trace.SpanKind.CLIENT
        self._status_error = trace.Status(trace.StatusCode.ERROR)
        self._duration: Histogram = meter.create_histogram(
            "gen_ai.client.operation.duration",
            unit="s",
            description="GenAI operation duration.",
            explicit_bucket_boundaries_advisory=_SECONDS_BUCKETS,
        )
        self._tokens: Histogram = meter.create_histogram(
            "gen_ai.client.token.usage",
            unit="{token}",
            description="Number of input and output tokens used.",
            explicit_bucket_boundaries_advisory=_TOKEN_BUCKETS,
        )
        self._ttfc: Histogram = meter.create_histogram(
            "gen_ai.client.operation.time_to_first_chunk",
            unit="s",
            description="Time to receive the first chunk of a streamed response.",
            explicit_bucket_boundaries_advisory=_SECONDS_BUCKETS,
        )

    def configured(self) -> bool:
        """Whether an SDK (or any real provider) receives spans or metrics.

        When neither provider is configured the call is not wrapped at all: with the API's
        proxy providers everything would be a no-op, and the async wrapper still costs
        an ``async for`` step per delta (x1.02 to x1.07 per delta in ``bench/stream.py
        --otel``). Asked per call, so an SDK configured later is seen. The API's proxy and
        no-op meter providers are recognised by their module, ``opentelemetry.metrics``
        (the proxy's class is private); checked on every version the ``otel`` extra allows
        by ``tests/adapter/mistral/test_telemetry.py``.
        """
        tracer_provider = self._tracer_provider or self._global_tracer_provider()
        if not isinstance(tracer_provider, self._noop_tracer_providers):
            return True
        meter_provider = self._meter_provider or self._global_meter_provider()
        return not type(meter_provider).__module__.startswith("opentelemetry.metrics")

    def start(self, call: StreamCall, model: str, options: StreamOptions | None) -> CallSpan:
        """Start the call's span (not yet current)."""
        attributes = request_attributes(call, model, options)
        capture = _capture_content()
        if capture:
            attributes["gen_ai.input.messages"] = input_messages(call.body)
        span = self._tracer.start_span(f"chat {model}", kind=self._client, attributes=attributes)
        return CallSpan(self, span, call, model, capture=capture)

    def record(
        self,
        span: Span,
        call: StreamCall,
        *,
        model: str,
        error: BaseException | None,
        seconds: float,
        capture: bool,
    ) -> None:
        """End ``span`` with the outcome of ``call`` and record the metrics."""
        state = call.state
        response = response_attributes(state)
        if capture and state is not None:
            response["gen_ai.output.messages"] = output_messages(state.message, state.finish_reason)
        if call.resumes:
            response["adapter.resumes"] = call.resumes  # usage above covers every request
        failure = error_type(error, state)
        labels = base_attributes(call, model)
        answered_by = response.get("gen_ai.response.model")
        if answered_by is not None:
            labels["gen_ai.response.model"] = answered_by
        if failure is not None:
            response["error.type"] = labels["error.type"] = failure
            span.set_status(self._status_error)
        span.set_attributes(response)
        span.end()
        self._duration.record(seconds, labels)
        if "gen_ai.usage.input_tokens" in response:
            for kind, key in (
                ("input", "gen_ai.usage.input_tokens"),
                ("output", "gen_ai.usage.output_tokens"),
            ):
                value = response[key]
                assert isinstance(value, int)  # noqa: S101 - set as int above
                self._tokens.record(value, {**labels, "gen_ai.token.type": kind})
        ttfc = response.get("gen_ai.response.time_to_first_chunk")
        if isinstance(ttfc, float):
            self._ttfc.record(ttfc, labels)


class CallSpan:
    """One call's span and clock; current only while the first read (and its retries) runs."""

    __slots__ = ("_call", "_capture", "_model", "_span", "_started", "_telemetry")

    def __init__(
        self, telemetry: Telemetry, span: Span, call: StreamCall, model: str, *, capture: bool
    ) -> None:
        self._telemetry = telemetry
        self._span = span
        self._call = call
        self._model = model
        self._capture = capture
        self._started = time.perf_counter()

    def enter(self) -> object:
        """Make the span current; returns the token for :meth:`leave`."""
        context: OtelContext = self._telemetry._span_in(self._span)  # noqa: SLF001 - one family
        return self._telemetry._context.attach(context)  # noqa: SLF001

    def leave(self, token: object) -> None:
        """Restore the context :meth:`enter` replaced."""
        self._telemetry._context.detach(token)  # noqa: SLF001

    def end(self, error: BaseException | None) -> None:
        """End the span and record the metrics."""
        seconds = time.perf_counter() - self._started
        self._telemetry.record(
            self._span,
            self._call,
            model=self._model,
            error=error,
            seconds=seconds,
            capture=self._capture,
        )


# --- the switch and the wrappers --------------------------------------------------------

_UNRESOLVED: Final = object()
_telemetry: Telemetry | object | None = _UNRESOLVED


def _available() -> bool:
    try:
        return importlib.util.find_spec("opentelemetry.trace") is not None
    except ImportError:  # the namespace package is missing (or an import hook refuses it)
        return False


def configure(
    *, tracer_provider: TracerProvider | None = None, meter_provider: MeterProvider | None = None
) -> None:
    """Use these providers instead of the global ones (tests and benchmarks; ``None``: global).

    .. versionadded:: 0.2.0
    """
    global _telemetry  # noqa: PLW0603 - the one switch of the process
    _telemetry = (
        Telemetry(tracer_provider=tracer_provider, meter_provider=meter_provider)
        if _available()
        else None
    )


def _active() -> Telemetry | None:
    global _telemetry  # noqa: PLW0603 - the one switch of the process
    found = _telemetry
    if found is _UNRESOLVED:
        found = _telemetry = Telemetry() if _available() else None
    return found  # type: ignore[return-value]


def trace_sync(
    events: Events, call: StreamCall, model: ModelRef, options: StreamOptions | None
) -> Events:
    """``events`` inside the call's span; ``events`` itself without OpenTelemetry or SDK.

    .. versionadded:: 0.2.0
    """
    telemetry = _active()
    if telemetry is None or not telemetry.configured():
        return events
    return _traced(telemetry, events, call, requested_model(model), options)


def _traced(
    telemetry: Telemetry,
    events: Events,
    call: StreamCall,
    model: str,
    options: StreamOptions | None,
) -> Events:
    span = telemetry.start(call, model, options)
    error: BaseException | None = None
    try:
        token = span.enter()
        try:
            first = next(events)
        except StopIteration:
            return
        finally:
            span.leave(token)
        yield first
        yield from events
    except BaseException as exc:
        error = exc
        raise
    finally:
        try:
            events.close()
        finally:
            span.end(error)


def trace_async(
    events: AsyncEvents, call: StreamCall, model: ModelRef, options: StreamOptions | None
) -> AsyncEvents:
    """``events`` inside the call's span; ``events`` itself without OpenTelemetry or SDK.

    .. versionadded:: 0.2.0
    """
    telemetry = _active()
    if telemetry is None or not telemetry.configured():
        return events
    return _atraced(telemetry, events, call, requested_model(model), options)


async def _atraced(
    telemetry: Telemetry,
    events: AsyncEvents,
    call: StreamCall,
    model: str,
    options: StreamOptions | None,
) -> AsyncEvents:
    span = telemetry.start(call, model, options)
    error: BaseException | None = None
    try:
        token = span.enter()
        try:
            first = await anext(events)
        except StopAsyncIteration:
            return
        finally:
            span.leave(token)
        yield first
        async for event in events:
            yield event
    except BaseException as exc:
        error = exc
        raise
    finally:
        try:
            await events.aclose()
        finally:
            span.end(error)
