"""Multi-line errors that are not Python tracebacks: one error each, on their whole text.

The shapes are real output copied from public issues, in ``multi_line.txt`` (each
block names its source there); a shape cut short there is cut at its last whole line.
"""

import itertools
import traceback
from pathlib import Path

import pytest

from llm_errors import ErrorCode, classify
from llm_errors.logs._context import LineContext
from llm_errors.logs._group import GROUP_BYTES, GROUP_LINES, Group
from llm_errors.logs._scan import Finding, InputMode, Scanner

SHAPES_FILE = Path(__file__).with_name("multi_line.txt")


def read_shapes(path: Path = SHAPES_FILE) -> dict[str, str]:
    """The real outputs of ``multi_line.txt`` by id (each block names its source there)."""
    blocks = path.read_text(encoding="utf-8").split("\n== ")[1:]
    return {
        head.split()[0]: body.rstrip("\n") for head, _, body in (b.partition("\n") for b in blocks)
    }


SHAPES = read_shapes()
NODE_CAUSE, NEXT_CAUSE = SHAPES["node-cause"], SHAPES["next-cause"]
CLOUDFLARE_502, BUN_FRAMES = SHAPES["cloudflare-502"], SHAPES["bun-frames"]
JAVA_CAUSE = SHAPES["java-caused-by"]
INFO = "2026-02-25T15:04:00.000Z [INFO] request served"


def scan(text, **options):
    scanner = Scanner(classify, **options)
    events = []
    for number, line in enumerate(text.splitlines(), 1):
        events += scanner.feed(number, line)
    events += scanner.finish()
    return [event for event in events if isinstance(event, Finding)]


def per_line(text):
    """Errors the scan found before grouping: each line read on its own."""
    return sum(len(scan(line)) for line in text.splitlines())


@pytest.mark.parametrize(
    ("text", "lines", "code", "was"),
    [
        pytest.param(NODE_CAUSE, (1, 11), ErrorCode.TIMEOUT, 3, id="node-cause"),
        pytest.param(NEXT_CAUSE, (1, 10), ErrorCode.TRANSPORT, 3, id="next-cause"),
        pytest.param(JAVA_CAUSE, (2, 15), ErrorCode.TIMEOUT, 2, id="java-caused-by"),
        pytest.param(CLOUDFLARE_502, (1, 7), ErrorCode.SERVER, 3, id="cloudflare-502"),
        pytest.param(SHAPES["nginx-504"], (1, 7), ErrorCode.TIMEOUT, 3, id="nginx-504"),
        pytest.param(BUN_FRAMES, (1, 4), ErrorCode.TRANSPORT, 1, id="bun-frames"),
    ],
)
def test_a_multi_line_error_is_one_finding(text, lines, code, was):
    """Counted once (it was ``was`` errors line by line), from its first line to its last."""
    assert per_line(text) == was
    [found] = scan(f"{text}\n{INFO}")
    assert (found.line, found.end_line, found.kind) == (*lines, "line")
    assert found.classification.code is code


def test_the_best_evidence_of_the_whole_text_wins():
    """``fetch failed`` alone is a transport failure; its cause says it timed out connecting."""
    assert classify("TypeError: fetch failed").code is ErrorCode.TRANSPORT
    [found] = scan(NODE_CAUSE)
    assert found.classification == classify(found.text)
    assert found.classification.code is ErrorCode.TIMEOUT
    # Frames and closing braces say where, not what: they are not in the text.
    assert found.text == (
        "TypeError: fetch failed\n"
        "  [cause]: ConnectTimeoutError: Connect Timeout Error\n"
        "    code: 'UND_ERR_CONNECT_TIMEOUT'"
    )


def test_the_error_lines_verdict_stands_when_no_rule_reads_the_whole():
    """An unmatched error line with frames stays an unmatched error (not dropped)."""
    # https://github.com/anthropics/claude-code/issues/52414: Bun's stack of a ZodError.
    text = (
        "Error: Error normalizing tool input: ZodError: [\n"
        "    at <anonymous> (/$bunfs/root/src/entrypoints/cli.js:5020:1010)\n"
        "    at map (native:1:11)"
    )
    [found] = scan(text)
    assert (found.line, found.end_line, found.matched) == (1, 3, False)  # no rule decided


def test_a_group_is_dated_and_named_at_its_first_line():
    """The report dates a grouped error by its first line's time, not a later line's."""
    context, scanner, dated = LineContext(), Scanner(classify), []
    for number, line in enumerate([*BUN_FRAMES.splitlines(), INFO], 1):
        context.seen(number, line)
        dated += [context.date(found) for found in scanner.feed(number, line)]
    [found] = dated
    assert found.finding.line == 1
    assert found.when == 1772031838.658  # 2026-02-25T15:03:58.658Z


def test_a_traceback_whose_message_is_a_gateway_page_is_one_error():
    """The openai SDK's error for Cloudflare's 502 page: its traceback takes the whole page.

    The exception is the SDK's own, built as its client builds one for an HTML body
    (the message is the page: n3d1117/chatgpt-telegram-bot#637, the corpus's
    server-cloudflare-007); the page is Cloudflare's, from openai/codex#35328.
    """
    openai = pytest.importorskip("openai")
    httpx = pytest.importorskip("httpx")
    page = CLOUDFLARE_502.split(": ", 1)[1].rsplit(", url:", 1)[0]
    request = httpx.Request("POST", "https://api.openai.com/v1/chat/completions")
    response = httpx.Response(502, request=request, text=page)
    error = openai.InternalServerError(page, response=response, body=None)

    def call():
        raise error

    try:
        call()
    except openai.InternalServerError as exc:
        printed = "".join(traceback.format_exception(exc)).splitlines()
    # The page follows the exception's name, as the issue shows it.
    assert printed[-7:] == [f"openai.InternalServerError: {page}"][0].splitlines()
    [found] = scan("\n".join([*printed, INFO]))
    assert (found.line, found.end_line, found.kind) == (1, len(printed), "traceback")
    assert found.classification.code is ErrorCode.SERVER


def test_json_lines_are_never_grouped():
    """With ``--input jsonl`` every line is a record of its own."""
    assert len(scan(NEXT_CAUSE, mode=InputMode.JSONL)) == per_line(NEXT_CAUSE)


def test_a_group_is_cut_at_its_line_bound():
    """Past ``GROUP_LINES`` lines the group ends; the rest are read as new lines."""
    frame = "\tat okhttp3.internal.connection.RealCall.timeoutExit(RealCall.kt:398)"
    head, cause = JAVA_CAUSE.splitlines()[1], "Caused by: java.io.InterruptedIOException: timeout"
    text = "\n".join([head, *[frame] * (GROUP_LINES - 1), cause, frame])
    first, second = scan(text)
    assert (first.line, first.end_line) == (1, GROUP_LINES)
    assert (second.line, second.end_line) == (GROUP_LINES + 1, GROUP_LINES + 2)


def test_a_group_is_cut_at_its_byte_bound():
    """Past ``GROUP_BYTES`` the group ends before the line that would pass it."""
    group = Group.open(1, "TypeError: fetch failed")
    detail = "  " + "é" * 1000  # 2,002 bytes, 1,002 characters: bytes are what is counted
    number = 1
    while group.takes(detail):
        number += 1
        group.add(number, detail)
    assert group.bytes <= GROUP_BYTES < group.bytes + 2002
    assert number == 1 + (GROUP_BYTES - len("TypeError: fetch failed")) // 2002


@pytest.mark.parametrize(
    ("after", "takes"),
    [
        pytest.param("    at foo (bar.js:1:2)", True, id="deeper"),
        pytest.param("Caused by: java.io.IOException", True, id="java-cause"),
        pytest.param("  [cause]: Error: read ECONNRESET", True, id="node-cause"),
        pytest.param("}", True, id="closer"),
        pytest.param("<!DOCTYPE html>", True, id="html"),
        pytest.param("", False, id="blank"),
        pytest.param("2026-02-25T15:04:00.000Z [INFO] next", False, id="next-record"),
        pytest.param("  Traceback (most recent call last):", True, id="indented-header"),
    ],
)
def test_what_continues_an_error_line(after, takes):
    """Deeper lines, causes, closers and a page continue it; a blank or a new record do not."""
    assert Group.open(1, "TypeError: fetch failed").takes(after) is takes


_LINE_PIECES = [
    " ",
    "\t",
    "\x0b",
    "\x1c",
    "\u00a0",
    "\u3000",
    "\x85",
    "[cause]",
    "cause",
    "Caused by",
    "CAUSE",
    ":",
    "}",
    ")",
    "]",
    ",",
    "<",
    "html",
    "!doctype html",
    "/",
    "p>",
    "at",
    "x",
    "2026",
    "é",
    "\r",
]


@pytest.mark.parametrize(
    "error_line", ["TypeError: fetch failed", "  nested: x", "ERROR <html><body>"]
)
def test_a_lines_first_byte_rules_out_only_lines_a_group_never_takes(error_line):
    """``may_take(first byte)`` is ``False`` only where ``takes`` is: every line of 0-3 pieces."""
    group = Group.open(1, error_line)
    wrong = []
    for count in range(4):
        for pieces in itertools.product(_LINE_PIECES, repeat=count):
            text = "".join(pieces)
            first = (text.encode() + b"\n")[0]  # an empty line: the byte that ends it
            if group.takes(text.rstrip("\r")) and not group.may_take(first):
                wrong.append(text)
    assert wrong == []


def test_a_traceback_header_is_never_a_continuation():
    """A traceback opens (and the held error line joins it), as before."""
    text = "ERROR x: call failed\n  Traceback (most recent call last):\n  httpx.ReadTimeout: t"
    [found] = scan(text)
    assert (found.line, found.end_line, found.kind) == (1, 3, "traceback")


def test_a_page_cut_short_ends_at_the_next_log_line():
    """An HTML page without its end takes only lines that look like a page's."""
    # The corpus's server-cloudflare-002-2 (anthropics/claude-code#16737): a 524 page, cut.
    text = (
        "API Error: 524 <!DOCTYPE html>\n"
        '    <!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]-->\n'
        "    <head>\n"
        "\n"
        "    <title>newcli.com | 524: A timeout occurred</title>\n"
        f"{INFO}\n"
        "2026-02-25T15:04:01.000Z [ERROR] HTTP/1.1 429 Too Many Requests"
    )
    first, second = scan(text)
    assert (first.line, first.end_line) == (1, 5)
    assert (second.line, second.end_line) == (7, 7)
