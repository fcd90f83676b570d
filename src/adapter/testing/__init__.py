"""A fake Mistral server, so you can test your code against real HTTP without the real API.

:class:`FakeMistral` is a real HTTP/1.1 server on 127.0.0.1 (a free port, threads,
keep-alive) that answers ``POST …/chat/completions`` from a queue of scripted
scenarios and records every request. Point any client at :attr:`FakeMistral.url` (the
``server_url`` of the official SDK, the ``base_url`` of our adapter) or at
:attr:`FakeMistral.chat_url`.

Scenarios (one per request, first in first out; ``default`` when the queue is empty):

- :class:`Stream`: a ``text/event-stream`` of chunks built with :func:`role_chunk`,
  :func:`text_chunk`, :func:`thinking_chunk`, :func:`reference_chunk`,
  :func:`tool_call_chunk`, :func:`finish_chunk`, :func:`usage_only_chunk`,
  :func:`content_chunk` (any content types) or :func:`completion_chunk` (anything);
  raw bytes for what is not a chunk (:func:`sse_event`, :func:`sse_comment`, malformed
  JSON, half an event); and the markers :class:`Pause` (a stall), :class:`Drop` (an
  abrupt close mid-body) and :class:`Repeat`. Options: ``done`` (the ``[DONE]``
  sentinel), ``batch`` (bursts), ``delay`` (a slow trickle), ``chunked=False`` (a body
  that ends when the connection closes).
- :class:`Reply`: any status with any body (:func:`error_object`,
  :func:`example_error_body` for every shape Mistral has been seen to send,
  :func:`gateway_html`, text, nothing) and any headers (``Retry-After``,
  :func:`rate_limit_headers`). Also the 200 ``application/json`` answer to a stream
  request.
- :class:`CloseBeforeHeaders`: read the request and hang up.
- :class:`CutStream`: a :class:`Script`'s stream dropped at a byte offset; the next
  request, a client's continuation with ``prefix: true``, is checked against what
  was delivered and answered with the rest of the script (or a 400 naming the
  mismatch).

Example: a rate limit, then success::

    from adapter.testing import FakeMistral, Reply, error_object, text_reply

    with FakeMistral(
        Reply(429, error_object("Rate limit exceeded", error_type="rate_limited",
                                code="1300"), headers={"Retry-After": "1"}),
        text_reply("Hello", " world"),
    ) as fake:
        run_my_code(server_url=fake.url)
        assert len(fake.requests) == 2
        fake.wait_open_connections(0)  # my code released its connections

For benchmarks, ``python -m adapter.testing serve --scenario big-stream --chunks N``
(or :class:`FakeMistralProcess`) serves a large stream from a separate process.
See ``docs/testing.md``.

.. versionadded:: 0.1.0
"""

from adapter.testing._chunks import (
    DEFAULT_CHUNK_ID,
    DEFAULT_MODEL,
    ChunkMeta,
    completion_chunk,
    content_chunk,
    error_object,
    example_error_body,
    finish_chunk,
    gateway_html,
    rate_limit_headers,
    reference_chunk,
    reference_part,
    role_chunk,
    sse_comment,
    sse_event,
    text_chunk,
    text_part,
    thinking_chunk,
    thinking_part,
    tool_call,
    tool_call_chunk,
    usage_info,
    usage_only_chunk,
)
from adapter.testing._process import FakeMistralProcess
from adapter.testing._resume import CutStream, Script
from adapter.testing._scenarios import (
    CloseBeforeHeaders,
    Drop,
    Pause,
    Repeat,
    Reply,
    Scenario,
    Stream,
    StreamItem,
    big_stream,
    text_reply,
)
from adapter.testing._server import DEFAULT_SCENARIO, FakeMistral, RecordedRequest

__all__ = [
    "DEFAULT_CHUNK_ID",
    "DEFAULT_MODEL",
    "DEFAULT_SCENARIO",
    "ChunkMeta",
    "CloseBeforeHeaders",
    "CutStream",
    "Drop",
    "FakeMistral",
    "FakeMistralProcess",
    "Pause",
    "RecordedRequest",
    "Repeat",
    "Reply",
    "Scenario",
    "Script",
    "Stream",
    "StreamItem",
    "big_stream",
    "completion_chunk",
    "content_chunk",
    "error_object",
    "example_error_body",
    "finish_chunk",
    "gateway_html",
    "rate_limit_headers",
    "reference_chunk",
    "reference_part",
    "role_chunk",
    "sse_comment",
    "sse_event",
    "text_chunk",
    "text_part",
    "text_reply",
    "thinking_chunk",
    "thinking_part",
    "tool_call",
    "tool_call_chunk",
    "usage_info",
    "usage_only_chunk",
]
