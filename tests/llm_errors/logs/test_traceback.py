"""Tracebacks read back from log text: real ``traceback`` output, chains, groups, prefixes."""

import asyncio
import traceback

import pytest

from llm_errors.logs._traceback import (
    CHAIN_LIMIT,
    Link,
    ParsedTraceback,
    TracebackParser,
    match_header,
)


class ReadTimeout(Exception):  # noqa: N818 -- named after httpx's class
    """Stands for ``httpx.ReadTimeout``: the module is set so the traceback prints that name."""


ReadTimeout.__module__ = "httpx"


def parse(text: str) -> tuple[ParsedTraceback, list[str]]:
    """Feed ``text`` to a parser from its header on; return the result and the lines left over."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if match_header(line))
    prefix, group = match_header(lines[start])
    parser = TracebackParser(prefix, group)
    rest = lines[start + 1 :]
    for i, line in enumerate(rest):
        if not parser.feed(line):
            return parser.result(), rest[i:]
    return parser.result(), []


def printed(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc))


def raised(factory):
    try:
        factory()
    except BaseException as exc:
        return exc
    raise AssertionError("factory did not raise")


def test_simple_traceback_final_line():
    """A plain traceback yields its final exception line, with a dotted class name."""

    def fail():
        raise ReadTimeout("The read operation timed out")

    result, rest = parse(printed(raised(fail)))
    assert [line.text for line in result.exceptions] == [
        "httpx.ReadTimeout: The read operation timed out"
    ]
    assert result.final.name == "httpx.ReadTimeout"
    assert rest == []


def test_direct_cause_chain_is_kept_oldest_first():
    """`raise ... from err` chains are read as CAUSE links, the final exception last."""

    def fail():
        try:
            raise ConnectionResetError(104, "Connection reset by peer")
        except OSError as err:
            raise ReadTimeout("peer dropped") from err

    result, _ = parse(printed(raised(fail)))
    assert [(line.name, line.link) for line in result.exceptions] == [
        ("ConnectionResetError", Link.FIRST),
        ("httpx.ReadTimeout", Link.CAUSE),
    ]
    exc = result.to_exception()
    assert type(exc).__module__ == "httpx"
    assert type(exc).__qualname__ == "ReadTimeout"
    assert isinstance(exc.__cause__, ConnectionResetError)
    assert exc.__cause__.errno == 104
    assert exc.__cause__.strerror == "Connection reset by peer"


def test_implicit_context_chain():
    """A "During handling" separator becomes ``__context__``, not ``__cause__``."""

    def fail():
        try:
            raise TimeoutError("read timed out")  # noqa: TRY301 -- a real chain needs a raise
        except TimeoutError:
            raise KeyError("choices")  # noqa: B904 -- the implicit context is the point

    result, _ = parse(printed(raised(fail)))
    assert [line.link for line in result.exceptions] == [Link.FIRST, Link.CONTEXT]
    exc = result.to_exception()
    assert isinstance(exc, KeyError)
    assert isinstance(exc.__context__, TimeoutError)
    assert exc.__cause__ is None


def test_exception_without_message_and_builtin_class():
    """A bare ``TimeoutError`` line rebuilds the builtin class itself."""

    def fail():
        raise TimeoutError

    result, _ = parse(printed(raised(fail)))
    assert result.final.text == "TimeoutError"
    assert type(result.to_exception()) is TimeoutError


def test_builtin_that_needs_special_arguments_falls_back_to_a_stand_in():
    """``UnicodeDecodeError`` cannot be built from a message; a same-named stand-in is used."""
    text = "Traceback (most recent call last):\n  File 'x'\nUnicodeDecodeError: 'utf-8' codec"
    result, _ = parse(text)
    exc = result.to_exception()
    assert type(exc).__name__ == "UnicodeDecodeError"
    assert str(exc) == "'utf-8' codec"


def test_traceback_ends_at_the_next_log_line():
    """The first line that is neither a frame nor a chain separator ends the traceback."""
    text = (
        "Traceback (most recent call last):\n"
        '  File "app.py", line 3, in run\n'
        "    call()\n"
        "httpx.ConnectError: [Errno 111] Connection refused\n"
        "2025-03-14 09:12:31,005 INFO router: ok\n"
    )
    result, rest = parse(text)
    assert result.final.text == "httpx.ConnectError: [Errno 111] Connection refused"
    assert rest == ["2025-03-14 09:12:31,005 INFO router: ok"]


def test_blank_line_then_log_line_ends_the_traceback():
    """A blank line after the exception is only a chain if a separator follows."""
    text = "Traceback (most recent call last):\n  File 'a'\nValueError: x\n\nINFO next\n"
    result, rest = parse(text)
    assert result.final.text == "ValueError: x"
    assert rest == ["INFO next"]


def test_indented_lines_after_the_exception_extend_its_message():
    """Multi-line messages (pydantic's indented details) stay with their exception."""
    text = (
        "Traceback (most recent call last):\n"
        "  File 'a'\n"
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for Chunk\n"
        "  choices\n"
        "    Field required [type=missing]\n"
    )
    result, _ = parse(text)
    assert result.final.message == (
        "1 validation error for Chunk choices Field required [type=missing]"
    )


def test_cut_off_traceback_has_no_exception():
    """A header followed by unrelated text gives an empty result, not a guess."""
    result, rest = parse("Traceback (most recent call last):\n2025 INFO unrelated\n")
    assert result.exceptions == ()
    assert result.final is None
    assert result.to_exception() is None
    assert rest == ["2025 INFO unrelated"]


def test_cause_printed_without_traceback():
    """A cause that was never raised prints as a bare exception line; it stays in the chain."""

    def fail():
        try:
            raise ConnectionResetError("reset")
        except OSError as err:
            middle = RuntimeError("wrapped")
            middle.__cause__ = err
            raise ReadTimeout("outer") from middle

    result, _ = parse(printed(raised(fail)))
    assert [line.text for line in result.exceptions] == [
        "ConnectionResetError: reset",
        "RuntimeError: wrapped",
        "httpx.ReadTimeout: outer",
    ]
    assert isinstance(result.to_exception().__cause__.__cause__, ConnectionResetError)


def test_exception_group_members():
    """An exception group yields the group line first, then every member line."""

    async def boom():
        raise ReadTimeout("timed out")

    async def main():
        async with asyncio.TaskGroup() as group:
            group.create_task(boom())
            group.create_task(boom())

    result, rest = parse(printed(raised(lambda: asyncio.run(main()))))
    assert result.group
    assert result.final.name == "ExceptionGroup"
    assert [line.name for line in result.exceptions[1:]] == ["httpx.ReadTimeout"] * 2
    exc = result.to_exception()
    assert isinstance(exc, BaseExceptionGroup)
    assert [type(member).__qualname__ for member in exc.exceptions] == ["ReadTimeout"] * 2
    assert rest == []


def test_nested_exception_group_is_flattened():
    """Members of nested groups all become members of the one rebuilt group."""

    def fail():
        raise ExceptionGroup("outer", [ExceptionGroup("inner", [ValueError(1)]), TypeError(2)])

    exc = raised(fail)
    result, _ = parse(printed(exc) + "INFO after\n")
    assert [line.text for line in result.exceptions] == [
        "ExceptionGroup: outer (2 sub-exceptions)",
        "ExceptionGroup: inner (1 sub-exception)",
        "ValueError: 1",
        "TypeError: 2",
    ]


@pytest.mark.parametrize(
    "prefix",
    [
        pytest.param("2025-03-14T09:12:31.004Z stderr F ", id="containerd"),
        pytest.param("api-1  | ", id="compose"),
    ],
)
def test_prefixed_lines_keep_their_shape(prefix):
    """Every line carries the same-shaped prefix (digits may differ): it is stripped."""
    body = [
        "Traceback (most recent call last):",
        '  File "app.py", line 3, in run',
        "httpx.ReadTimeout: timed out",
    ]
    lines = [prefix + line for line in body]
    lines[2] = lines[2].replace("31.004", "31.977")
    result, rest = parse("\n".join([*lines, "other-9 | INFO ok"]))
    assert result.final.text == "httpx.ReadTimeout: timed out"
    assert rest == ["other-9 | INFO ok"]


def test_header_on_a_log_line_then_unprefixed_frames():
    """A header appended to a log record is followed by plain frames; they still belong."""
    text = (
        "2025-03-14 ERROR app: failed Traceback (most recent call last):\n"
        '  File "a.py", line 1\n'
        "ValueError: bad\n"
    )
    result, _ = parse(text)
    assert result.final.text == "ValueError: bad"


def test_chain_length_is_bounded():
    """Only the last CHAIN_LIMIT exceptions of a very long chain are kept."""
    parser = TracebackParser()
    parser.feed("ValueError: 0")
    for i in range(1, CHAIN_LIMIT + 10):
        parser.feed("")
        parser.feed("During handling of the above exception, another exception occurred:")
        parser.feed("")
        parser.feed("Traceback (most recent call last):")
        parser.feed(f"ValueError: {i}")
    result = parser.result()
    assert len(result.exceptions) == CHAIN_LIMIT
    assert result.final.text == f"ValueError: {CHAIN_LIMIT + 9}"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        pytest.param("Traceback (most recent call last):", ("", False), id="plain"),
        pytest.param(
            "  + Exception Group Traceback (most recent call last):", ("", True), id="group"
        ),
        pytest.param(
            "pod-1 | Traceback (most recent call last):", ("pod-1 | ", False), id="prefix"
        ),
        pytest.param("no traceback here", None, id="none"),
    ],
)
def test_match_header(line, expected):
    """Headers are found after any prefix; other lines are not headers."""
    assert match_header(line) == expected
