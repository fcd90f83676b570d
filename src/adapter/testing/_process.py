"""The fake server in its own process: a command line, and a handle to start it from code.

A benchmark client must not share the GIL with the server it measures, so
``python -m adapter.testing serve`` runs one preset scenario for every request until
it is interrupted, printing its URL first; :class:`FakeMistralProcess` starts that
command and stops it again. A usage error (an unknown option, a count, port or delay
out of range, an address it cannot listen on) is one line on stderr with exit status 2.

.. versionadded:: 0.1.0
.. versionchanged:: 0.2.0
   Usage errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import selectors
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from types import FrameType, TracebackType
from typing import Final, Literal, NoReturn, Self, TypeAlias

from adapter.testing._scenarios import Scenario, Stream, big_stream, text_reply
from adapter.testing._server import DEFAULT_SCENARIO, FakeMistral

__all__ = ["FakeMistralProcess", "Preset", "main"]

#: The scenarios the command line can serve.
Preset: TypeAlias = Literal["text", "big-stream"]

_EXIT_USAGE: Final = 2
_STOP_SIGNALS: Final = (signal.SIGTERM, signal.SIGINT)
_PORTS: Final = range(65536)


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line on stderr (exit status 2), not the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(_EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _count(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}, got {text!r}")
        return value

    return parse


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value not in _PORTS:
        raise argparse.ArgumentTypeError(f"expected a port from 0 to 65535, got {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value >= 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds >= 0, got {text!r}")
    return value


def _text(text: str) -> str:
    try:
        text.encode()
    except UnicodeEncodeError:  # bytes the locale could not decode (surrogate escapes)
        raise argparse.ArgumentTypeError("expected text that is valid UTF-8") from None
    return text


def _preset(name: Preset, *, chunks: int, batch: int, text: str, delay: float) -> Scenario:
    scenario: Scenario
    if name == "big-stream":
        scenario = big_stream(chunks, text=text, batch=batch)
    else:
        scenario = DEFAULT_SCENARIO if chunks <= 0 else text_reply(*[text] * chunks)
    if delay and isinstance(scenario, Stream):
        scenario = dataclasses.replace(scenario, delay=delay)
    return scenario


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m adapter.testing serve …``: serve a preset until SIGINT or SIGTERM.

    Returns the exit status: 0 when stopped, 2 for a usage error (printed as one line on
    stderr). The signal handlers it installs are restored before it returns.
    """
    parser = _Parser(
        prog="python -m adapter.testing",
        description="A fake Mistral chat-completions server, for tests and benchmarks.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser(
        "serve", help="serve one scenario to every request; print the URL, then run until stopped"
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_port, default=0, help="0 picks a free port (default)")
    serve.add_argument(
        "--scenario",
        choices=["text", "big-stream"],
        default="text",
        help="text: a short streamed answer (--chunks pieces of --text, if given); "
        "big-stream: --chunks text chunks written --batch events per write",
    )
    serve.add_argument(
        "--chunks", type=_count(0), default=0, help="text chunks (big-stream: 100000)"
    )
    serve.add_argument("--batch", type=_count(1), default=256, help="events per write (big-stream)")
    serve.add_argument("--text", type=_text, default="tok ", help="the text of each chunk")
    serve.add_argument(
        "--delay", type=_seconds, default=0.0, help="seconds between writes: a trickle (default 0)"
    )
    commands.metavar = "{" + ",".join(commands.choices) + "}"  # named when it is missing
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # a usage error or --help: already printed
        return exc.code if isinstance(exc.code, int) else _EXIT_USAGE

    chunks = args.chunks or (100_000 if args.scenario == "big-stream" else 0)
    scenario = _preset(
        args.scenario, chunks=chunks, batch=args.batch, text=args.text, delay=args.delay
    )
    fake = FakeMistral(default=scenario, host=args.host, port=args.port)
    try:
        fake.start()
    except OSError as exc:  # the port is taken or privileged, the host is not ours
        reason = exc.strerror or str(exc)
        sys.stderr.write(
            f"{serve.prog}: error: cannot listen on {args.host}:{args.port}: {reason}\n"
        )
        return _EXIT_USAGE
    stop = threading.Event()

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    previous = {number: signal.signal(number, on_signal) for number in _STOP_SIGNALS}
    try:
        print(fake.url, flush=True)  # noqa: T201  -- the one line a parent process reads
        stop.wait()
    finally:
        fake.close()
        for number, handler in previous.items():
            if handler is not None:  # None: not set from Python, nothing to put back
                signal.signal(number, handler)
    return 0


class FakeMistralProcess:
    """A fake server running a preset in a child process (``python -m adapter.testing``).

    For benchmarks: the client under test then has the interpreter to itself. Every
    request gets the same preset scenario; there is no queue and no recording.

    Args:
        scenario: ``"big-stream"`` (``chunks`` text chunks of ``text``, ``batch`` events
            per write) or ``"text"`` (a short streamed answer).
        chunks: Text chunks per response.
        batch: Events per write (``big-stream``).
        text: The text of each chunk.
        delay: Seconds between writes, for a paced stream (``0``: as fast as possible).
        startup_timeout: Seconds to wait for the child to print its URL.

    .. versionadded:: 0.1.0
    """

    def __init__(
        self,
        scenario: Preset = "big-stream",
        *,
        chunks: int = 100_000,
        batch: int = 256,
        text: str = "tok ",
        delay: float = 0.0,
        startup_timeout: float = 30.0,
    ) -> None:
        self._command = [
            sys.executable,
            "-m",
            "adapter.testing",
            "serve",
            "--scenario",
            scenario,
            "--chunks",
            str(chunks),
            "--batch",
            str(batch),
            "--text",
            text,
            "--delay",
            repr(delay),
        ]
        self._startup_timeout = startup_timeout
        self._process: subprocess.Popen[str] | None = None
        self._url: str | None = None

    @property
    def url(self) -> str:
        """The child server's base URL."""
        if self._url is None:
            raise RuntimeError("FakeMistralProcess: not running (use it as a context manager)")
        return self._url

    @property
    def chat_url(self) -> str:
        """The full chat-completions URL, ``{url}/v1/chat/completions``."""
        return f"{self.url}/v1/chat/completions"

    def start(self) -> Self:
        """Start the child and wait until it prints its URL."""
        if self._process is not None:
            raise RuntimeError("FakeMistralProcess: already running")
        self._process = process = subprocess.Popen(  # noqa: S603  -- our own module, no shell
            self._command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True
        )
        assert process.stdout is not None  # noqa: S101  -- stdout=PIPE
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            line = process.stdout.readline() if selector.select(self._startup_timeout) else ""
        if not line.startswith("http://"):
            self.close()
            raise RuntimeError(
                f"FakeMistralProcess: the server did not start within {self._startup_timeout} s "
                f"(exit code {process.returncode}; its stderr shows why)"
            )
        self._url = line.strip()
        return self

    def close(self) -> None:
        """Stop the child (SIGTERM, then SIGKILL after 10 s) and reap it."""
        process, self._process, self._url = self._process, None, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
