"""``python -m adapter demo``: the adapter against a fake Mistral server, in one minute.

Starts :class:`adapter.testing.FakeMistral` in this process and streams, through
:class:`~adapter.MistralAdapter` with a retry policy:

1. a reply with thinking, text and a tool call, printed event by event as it arrives;
2. a 429 with ``Retry-After``, retried after the wait the server asked for (the retry
   is printed by the policy's ``on_retry`` hook as it happens);
3. a connection dropped mid-stream: a ``TransportError`` carrying the partial message,
   not retried (the first event had reached the caller), with its classification.

``--live`` streams one reply from the real API instead (``MISTRAL_API_KEY`` must be
set). The console script ``llm-adapter`` is the same command; ``--version`` prints
``llm-adapter`` and the installed version either way, and ``--help`` names the command
the way it was run (``llm-adapter`` or ``python -m adapter``).

A usage error (an unknown option or model, a number out of range, a base URL that is
not one, no key or a key HTTP cannot carry for ``--live``) is one line on stderr that
names the value and what is allowed, with exit status 2.

.. versionadded:: 0.1.0
.. versionchanged:: 0.2.0
   ``--version``; the console script's help names it ``llm-adapter``; usage errors
   are one line, also for an unknown ``--model``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, NoReturn, TextIO

from adapter._mistral.catalog import UnknownModelError, get_model, list_models
from adapter._mistral.client import (
    API_KEY_ENV,
    DEFAULT_BASE_URL,
    MissingApiKeyError,
    check_base_url,
)
from adapter._mistral.errors import partial_of
from adapter._mistral.sync_client import MistralAdapter
from adapter.pi._content import TextContent
from adapter.pi._context import Context, StreamOptions, Tool
from adapter.pi._events import AssistantMessageEvent
from adapter.pi._messages import AssistantMessage, UserMessage
from adapter.testing import (
    Drop,
    FakeMistral,
    Reply,
    Scenario,
    Stream,
    error_object,
    finish_chunk,
    rate_limit_headers,
    role_chunk,
    text_chunk,
    thinking_chunk,
    tool_call,
    tool_call_chunk,
    usage_info,
)
from llm_errors import LlmError, classify, redact
from llm_errors._version import VersionAction
from llm_retry import RetryEvent, RetryPolicy

__all__ = ["main"]

WEATHER = Tool(
    name="get_weather",
    description="The current weather in a city.",
    parameters={
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["city"],
    },
)
PROMPT = "What is the weather in Paris right now? Think briefly, then use the tool."


@dataclass(frozen=True, slots=True)
class _Style:
    """ANSI colours on a terminal, plain text elsewhere (and with ``NO_COLOR``)."""

    enabled: bool

    def _wrap(self, code: str, text: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.enabled else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def green(self, text: str) -> str:
        return self._wrap("32", text)

    def yellow(self, text: str) -> str:
        return self._wrap("33", text)

    def red(self, text: str) -> str:
        return self._wrap("31", text)

    def cyan(self, text: str) -> str:
        return self._wrap("36", text)


class _Printer:
    """Prints events as they arrive: one line per block, deltas appended live."""

    def __init__(self, out: TextIO, style: _Style) -> None:
        self.out = out
        self.style = style
        self.open = False  # a block's line is being written, deltas still to come

    def line(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()
        self.open = False

    def begin(self, name: str) -> None:
        self.out.write(self.label(">", name))
        self.open = True

    def end_line(self) -> None:
        """End a block line cut short (an error in the middle of a block)."""
        if self.open:
            self.line()

    def label(self, mark: str, name: str, colour: str = "cyan") -> str:
        paint = getattr(self.style, colour)
        return f"   {paint(mark)} {paint(f'{name:<10}')}"

    def event(self, event: AssistantMessageEvent) -> None:
        """Print one event (deltas without a newline, so text appears as it streams)."""
        out, style = self.out, self.style
        match event.type:
            case "start":
                self.line(f"{self.label('>', 'start')}{style.dim(event.partial.model)}")
            case "thinking_start":
                self.begin("thinking")
            case "text_start":
                self.begin("text")
            case "toolcall_start":
                self.begin("tool call")
            case "thinking_delta":
                out.write(style.dim(event.delta))
            case "text_delta":
                out.write(event.delta)
            case "toolcall_delta":
                pass  # the arguments are shown whole when the call is complete
            case "thinking_end" | "text_end":
                self.line()
            case "toolcall_end":
                call = event.toolCall
                arguments = json.dumps(call.arguments, ensure_ascii=False)
                self.line(f"{style.bold(call.name)}({arguments})  {style.dim('id ' + call.id)}")
            case "done":
                self.line(f"{self.label('>', 'done', 'green')}{_summary(event.message)}")
            case "error":
                message = event.error
                self.end_line()
                self.line(
                    f"{self.label('x', 'error', 'red')}stopReason {message.stopReason}: "
                    f"{message.errorMessage}"
                )
            case _:  # pragma: no cover - Mistral streams no image blocks
                self.line(f"   > {event.type}")
        out.flush()

    def retry(self, event: RetryEvent) -> None:
        """The retry policy's ``on_retry`` hook: say what failed and how long we wait."""
        c = event.classification
        status = f"HTTP {c.status}, " if c.status is not None else ""
        reason = f"Retry-After: {c.retry_after:g} s" if c.retry_after is not None else "backoff"
        self.line(
            f"{self.label('!', 'retry', 'yellow')}attempt {event.attempt} failed with "
            f"{c.code.value} ({status}rule {c.rule}); retrying in {event.sleep:.2f} s ({reason})"
        )


def _summary(message: AssistantMessage) -> str:
    usage = message.usage
    cached = f", {usage.cacheRead} cached" if usage.cacheRead else ""
    ttft = f", first token after {message.ttft:.0f} ms" if message.ttft is not None else ""
    return (
        f"stopReason {message.stopReason}, {len(message.content)} block(s), "
        f"{usage.input + usage.cacheRead} in / {usage.output} out tokens{cached}, "
        f"${usage.cost.total:.6f}{ttft}"
    )


def _stream(adapter: MistralAdapter, model: str, printer: _Printer) -> LlmError | None:
    """Stream one reply to the printer; return the error it ended with, if any."""
    context = Context(messages=[UserMessage(content=PROMPT, timestamp=0)], tools=[WEATHER])
    try:
        for event in adapter.stream(model, context, StreamOptions(reasoning="high")):
            printer.event(event)
    except LlmError as error:
        printer.end_line()
        printer.line(f"{printer.label('x', 'error', 'red')}{type(error).__name__}: {error}")
        return error
    return None


def _scenarios(delay: float, retry_after: float) -> list[Scenario]:
    after = f"{retry_after:g}"
    reply = Stream(
        [
            role_chunk(),
            thinking_chunk("The user wants the current weather in Paris. "),
            thinking_chunk("I cannot know it myself, "),
            thinking_chunk("so I will call get_weather."),
            text_chunk("Let me ", typed=True),
            text_chunk("check the weather ", typed=True),
            text_chunk("in Paris for you.", typed=True),
            tool_call_chunk(
                tool_call("get_weather", {"city": "Paris", "unit": "celsius"}), finish_reason=None
            ),
            finish_chunk("tool_calls", usage=usage_info(182, 41, cached_tokens=128)),
        ],
        delay=delay,
    )
    rate_limited = Reply(
        429,
        error_object("Rate limit exceeded", error_type="rate_limited", code="1300"),
        headers={"Retry-After": after, **rate_limit_headers()},
    )
    after_retry = Stream(
        [
            role_chunk(),
            text_chunk("The rate limit has passed: "),
            text_chunk("this reply came on the second attempt."),
            finish_chunk("stop", usage=usage_info(20, 12)),
        ],
        delay=delay,
    )
    dropped = Stream(
        [
            role_chunk(),
            text_chunk("This answer will be cut "),
            text_chunk("off in the midd"),
            Drop(),
        ],
        delay=delay,
    )
    return [reply, rate_limited, after_retry, dropped]


def _demo(args: argparse.Namespace, printer: _Printer) -> int:
    style = printer.style
    with FakeMistral(*_scenarios(args.delay, args.retry_after), default=None) as fake:
        printer.line(style.bold("llm-resilience: the Mistral adapter against a fake server"))
        printer.line(
            style.dim(f"adapter.testing.FakeMistral is serving {fake.url} in this process.")
        )
        policy = RetryPolicy(max_attempts=3, jitter=False, on_retry=printer.retry)
        with MistralAdapter(api_key="demo", base_url=fake.url, retry=policy) as adapter:
            printer.line()
            printer.line(style.bold("1. A reply with thinking, text and a tool call"))
            first = _stream(adapter, args.model, printer)

            printer.line()
            printer.line(style.bold(f"2. HTTP 429 with Retry-After: {args.retry_after:g}, retried"))
            before = len(fake.requests)
            second = _stream(adapter, args.model, printer)
            printer.line(style.dim(f"   {len(fake.requests) - before} requests for this reply"))

            printer.line()
            printer.line(style.bold("3. The connection drops in the middle of the stream"))
            before = len(fake.requests)
            third = _stream(adapter, args.model, printer)
            if third is not None:
                _explain(third, len(fake.requests) - before, printer)
    ok = first is None and second is None and third is not None
    return 0 if ok else 1


def _explain(error: LlmError, requests: int, printer: _Printer) -> None:
    """Print the classification and the partial message of the mid-stream failure."""
    style = printer.style
    verdict = classify(error)
    printer.line(
        f"     {style.bold('classified')} code {verdict.code.value}, rule {verdict.rule}, "
        f"layer {verdict.layer.value}, retryable {'yes' if verdict.retryable else 'no'}"
    )
    partial = partial_of(error)
    if partial is not None:
        chars = sum(len(block.text) for block in partial.content if isinstance(block, TextContent))
        printer.line(
            f"     {style.bold('partial')}    stopReason {partial.stopReason}, "
            f"{len(partial.content)} block(s), {chars} characters of text kept"
        )
    printer.line(
        style.dim(
            f"     {requests} request: not retried, because events had already reached the "
            "caller and a retry would repeat them"
        )
    )


def _live(args: argparse.Namespace, printer: _Printer) -> int:
    policy = RetryPolicy(max_attempts=3, on_retry=printer.retry)
    try:  # the key comes from the environment, stripped and checked by the adapter
        adapter = MistralAdapter(base_url=args.base_url, retry=policy)
    except MissingApiKeyError:
        return _usage_error(
            args.prog,
            f"--live needs an API key: set {API_KEY_ENV} (https://console.mistral.ai/api-keys)",
        )
    except ValueError as exc:  # a key HTTP cannot carry; the message never shows it
        return _usage_error(args.prog, f"--live: {exc}")
    style = printer.style
    printer.line(style.bold(f"llm-resilience: the Mistral adapter, live ({args.base_url})"))
    with adapter:
        error = _stream(adapter, args.model, printer)
    if error is not None:
        verdict = classify(error)
        printer.line(
            f"     {style.bold('classified')} code {verdict.code.value}, rule {verdict.rule}, "
            f"retryable {'yes' if verdict.retryable else 'no'}"
        )
        return 1
    return 0


#: The exit status of a usage error.
EXIT_USAGE: Final = 2
#: The longest ``--delay`` and ``--retry-after``: a demo, not a benchmark.
MAX_SECONDS: Final = 60.0


def _usage_error(prog: str, message: str) -> int:
    sys.stderr.write(f"{prog}: error: {message}\n")
    return EXIT_USAGE


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line on stderr (exit status 2), not the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= MAX_SECONDS:  # also NaN
        raise argparse.ArgumentTypeError(f"expected 0 to {MAX_SECONDS:g} seconds, got {text!r}")
    return value


def _model(text: str) -> str:
    """A catalog id or alias, checked here so that a typo is a usage error."""
    try:
        get_model(text)
    except UnknownModelError as exc:
        if exc.suggestions:
            allowed = f"did you mean {', '.join(exc.suggestions)}?"
        else:
            allowed = f"the catalog has {', '.join(model.id for model in list_models())}"
        shown = redact(text[:100])
        raise argparse.ArgumentTypeError(f"unknown Mistral model {shown!r}; {allowed}") from None
    return text


def _base_url(text: str) -> str:
    try:
        return check_base_url(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


#: The console script's name (``[project.scripts]`` in pyproject.toml).
COMMAND = "llm-adapter"


def main(argv: Sequence[str] | None = None, *, prog: str = COMMAND) -> int:
    """Run the command line; returns the exit status.

    ``prog`` is the name ``--help`` and usage errors show: the console script's by
    default, ``python -m adapter`` when run as a module. A usage error is one line on
    stderr and returns 2; ``--help`` and ``--version`` return 0.

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.2.0
       ``prog``, and ``--version``; usage errors return 2 instead of raising
       ``SystemExit``.
    """
    parser = _Parser(prog=prog, description="The Mistral streaming adapter of llm-resilience.")
    parser.add_argument("--version", action=VersionAction, command=COMMAND)
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser(
        "demo",
        help="stream from a fake Mistral server in this process (or --live from the real API)",
        description=__doc__.splitlines()[0] if __doc__ else None,
    )
    demo.add_argument(
        "--live", action="store_true", help=f"stream from the real API ({API_KEY_ENV} must be set)"
    )
    demo.add_argument(
        "--model",
        type=_model,
        default="mistral-small-latest",
        help="catalog model id (default: %(default)s)",
    )
    demo.add_argument(
        "--base-url",
        type=_base_url,
        default=DEFAULT_BASE_URL,
        help="API base URL for --live (default: %(default)s)",
    )
    demo.add_argument(
        "--delay",
        type=_seconds,
        default=0.05,
        help="fake server: pause before each chunk, to watch it stream (default: %(default)s)",
    )
    demo.add_argument(
        "--retry-after",
        type=_seconds,
        default=1.0,
        help="fake server: the Retry-After of the 429, in seconds (default: %(default)s)",
    )
    demo.add_argument("--no-color", action="store_true", help="never use colours")
    demo.set_defaults(prog=demo.prog)
    commands.metavar = "{" + ",".join(commands.choices) + "}"  # named when it is missing
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # a usage error, --help or --version: already printed
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    out = sys.stdout
    colour = out.isatty() and not args.no_color and not os.environ.get("NO_COLOR")
    printer = _Printer(out, _Style(enabled=colour))
    return _live(args, printer) if args.live else _demo(args, printer)


if __name__ == "__main__":
    sys.exit(main(prog="python -m adapter"))
