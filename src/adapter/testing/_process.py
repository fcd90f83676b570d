"""The fake server in its own process: a command line, and a handle to start it from code.

A benchmark client must not share the GIL with the server it measures, so
``python -m adapter.testing serve`` runs one preset scenario for every request until
it is interrupted, printing its URL first; :class:`FakeMistralProcess` starts that
command and stops it again.

.. versionadded:: 0.1.0
"""

from __future__ import annotations

import argparse
import dataclasses
import selectors
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from types import FrameType, TracebackType
from typing import Literal, Self, TypeAlias

from adapter.testing._scenarios import Scenario, Stream, big_stream, text_reply
from adapter.testing._server import DEFAULT_SCENARIO, FakeMistral

__all__ = ["FakeMistralProcess", "Preset", "main"]

#: The scenarios the command line can serve.
Preset: TypeAlias = Literal["text", "big-stream"]


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
    """``python -m adapter.testing serve …``: serve a preset until SIGINT or SIGTERM."""
    parser = argparse.ArgumentParser(
        prog="python -m adapter.testing",
        description="A fake Mistral chat-completions server, for tests and benchmarks.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser(
        "serve", help="serve one scenario to every request; print the URL, then run until stopped"
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    serve.add_argument(
        "--scenario",
        choices=["text", "big-stream"],
        default="text",
        help="text: a short streamed answer (--chunks pieces of --text, if given); "
        "big-stream: --chunks text chunks written --batch events per write",
    )
    serve.add_argument("--chunks", type=int, default=0, help="text chunks (big-stream: 100000)")
    serve.add_argument("--batch", type=int, default=256, help="events per write (big-stream)")
    serve.add_argument("--text", default="tok ", help="the text of each chunk")
    serve.add_argument(
        "--delay", type=float, default=0.0, help="seconds between writes: a trickle (default 0)"
    )
    args = parser.parse_args(argv)

    chunks = args.chunks or (100_000 if args.scenario == "big-stream" else 0)
    scenario = _preset(
        args.scenario, chunks=chunks, batch=args.batch, text=args.text, delay=args.delay
    )
    stop = threading.Event()

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    with FakeMistral(default=scenario, host=args.host, port=args.port) as fake:
        print(fake.url, flush=True)  # noqa: T201  -- the one line a parent process reads
        stop.wait()
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
