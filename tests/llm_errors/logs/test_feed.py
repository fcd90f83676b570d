"""Feeding by blocks: the same events as line by line, and the cheap test for word lines."""

import gzip
import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_errors import Classifier, Layer, classify
from llm_errors._classify import MAX_INPUT
from llm_errors.logs._context import LineContext
from llm_errors.logs._feed import Feeder, block_filter
from llm_errors.logs._input import InputError
from llm_errors.logs._scan import Finding, InputMode, Scanner
from llm_errors.logs._timeline import RecentLines

CORPUS = Path(__file__).parents[1] / "corpus"

#: Lines that hold a trigger word of some rule and none of the words it needs with it.
WORD_LINES = (
    "2026-07-22T10:00:00.000Z INFO  cache [req=1f] connection pool size=10 idle=4 ms=3",
    "2026-07-22T10:00:00.000Z INFO  app.api [req=2e] user session refreshed ms=12",
    "2026-07-22T10:00:00.000Z DEBUG llm.client [req=3d] tokens counted prompt_tokens=12 ms=1",
)


def _corpus_texts() -> list[str]:
    texts: list[str] = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        texts.extend(json.loads(line)["text"] for line in lines)
    return texts


def test_may_match_is_exact_when_it_says_no():
    """A line ``may_match`` turns down is decided by no rule, over the whole corpus."""
    classifier = Classifier()
    wrong = []
    declined = 0
    for text in [*_corpus_texts(), *WORD_LINES]:
        for line in (text, " ".join(text.split()), f"INFO worker said: {' '.join(text.split())}"):
            if classifier.may_match(line.encode()):
                continue
            declined += 1
            if classifier.by_rules(line).layer is not Layer.FALLBACK:
                wrong.append(line[:120])
    assert wrong == []
    assert declined >= len(WORD_LINES)


@pytest.mark.parametrize("line", WORD_LINES)
def test_may_match_turns_down_lines_of_lone_trigger_words(line):
    """The words a rule needs beside its trigger are missing: no rule is a candidate."""
    assert not Classifier().may_match(line.encode())
    assert Classifier().by_rules(line).layer is Layer.FALLBACK


@pytest.mark.parametrize(
    "line",
    [
        pytest.param(b"INFO upstream: connection reset by peer", id="a-rule-matches"),
        pytest.param(b" connection pool size=10", id="json-lead"),
        pytest.param(b"{connection pool size=10", id="brace"),
        pytest.param("INFO connection pool size=10 请求".encode(), id="not-ascii"),
        pytest.param(b"connection pool " * (MAX_INPUT // 16 + 1), id="over-the-cap"),
    ],
)
def test_may_match_says_yes_where_it_cannot_tell(line):
    assert Classifier().may_match(line)


#: Lines that continue an error line (``_group``), from the real outputs of test_group.py:
#: Node's frames and ``[cause]`` block (nodejs/node#46049), Java's ``Caused by:``
#: (langchain4j/langchain4j-examples#20), Cloudflare's 502 page (openai/codex#35328) and
#: the SDK error whose message opens it (n3d1117/chatgpt-telegram-bot#637), closing
#: braces, a frame of trigger words only, and a line of a page that no rule reads.
CONTINUATIONS = (
    "TypeError: fetch failed",
    "    at node:internal/deps/undici/undici:13737:13",
    "  [cause]: ConnectTimeoutError: Connect Timeout Error",
    "    code: 'UND_ERR_CONNECT_TIMEOUT'",
    "  }",
    "}",
    "Caused by: java.io.InterruptedIOException: timeout",
    "\tat okhttp3.internal.connection.RealCall.timeoutExit(RealCall.kt:398)",
    "unexpected status 502 Bad Gateway: <html>",
    "openai.InternalServerError: <html>",
    "<head><title>502 Bad Gateway</title></head>",
    "<body>",
    "<hr><center>cloudflare</center>",
    "</html>, url: https://chatgpt.com/backend-api/codex/responses",
    "    connection pool size=10",
)

#: Real error messages (the corpus's first of two files, flattened) and a traceback's parts.
_ERRORS = tuple(
    " ".join(json.loads(path.read_text(encoding="utf-8").splitlines()[0])["text"].split())
    for path in (CORPUS / "server_ratelimit.jsonl", CORPUS / "transport_timeout.jsonl")
)
#: JSON records as structlog, pino (with pino-http's ``res``) and python-json-logger write
#: them: ordinary ones the filter passes over, and ones with each sign of an error
#: (a level, an error key, a status or an error body's identifier, an escape) or of
#: not being JSON (cut short, Python's repr, a trailing comma, two objects).
#: A record whose value holds a rule's trigger word, but not the words it needs beside it.
WORDS_RECORD = '{"level":"warn","msg":"connection pool size=10"}'
RECORDS = (
    '{"event": "request completed", "level": "info", "logger": "app.api"}',
    (
        '{"level":30,"time":1784714400000,"pid":4242,"res":{"statusCode":200},"responseTime":512,'
        '"msg":"request completed"}'
    ),
    json.dumps({"level": 50, "err": {"type": "Error", "message": _ERRORS[0]}, "msg": _ERRORS[0]}),
    '{"asctime": "2026-07-22 10:00:00,000", "levelname": "INFO", "message": "worker idle"}',
    json.dumps({"levelname": "ERROR", "name": "llm.client", "message": f"failed: {_ERRORS[1]}"}),
    '{"level":"info","msg":"done","status":451}',
    '{"level":"info","msg":"done","http_status":" 418"}',
    '{"level":"info","msg":"done","Status":["421"]}',
    '{"level":"info","msg":"done","reason":"DATA_LOSS"}',
    '{"level":"info","msg":"done","code":1300}',
    '{"level":"info","msg":"done","exc_info":"x"}',
    '{"level":60,"msg":"done"}',
    '{"lvl":"crit","msg":"done"}',
    '{"level":"info","msg":"line one\\nline two"}',
    WORDS_RECORD,
    '{"level":"info","msg":"upstream: connection reset by peer"}',
    '{"level":"info","msg":"cut short"',
    "{'level': 'info', 'msg': 'a repr'}",
    '{"level":"info","count":1,}',
    '{"level":"info"} {"level":"info"}',
    "{}",
)
_POOL = (
    *WORD_LINES,
    *RECORDS,
    "Traceback (most recent call last):",
    '  File "/app/client.py", line 12, in call',
    "    raise error",
    *(f"2026-07-22T10:00:00.000Z ERROR llm.client [req=5b] call failed: {e}" for e in _ERRORS),
    *(f"RuntimeError: {e}" for e in _ERRORS),
    json.dumps({"level": "error", "message": _ERRORS[0]}),
    "2026-07-22T10:00:00.000Z INFO  app.api [req=4c] request completed ms=7",
    "",
    *CONTINUATIONS,
)


def _events(
    lines: list[str], *, blocks: bool, mode: InputMode = InputMode.AUTO
) -> list[tuple[object, ...]]:
    data = "".join(line + "\n" for line in lines).encode()
    return _events_of(data, blocks=blocks, mode=mode)


def _events_of(
    data: bytes, *, blocks: bool, mode: InputMode = InputMode.AUTO
) -> list[tuple[object, ...]]:
    scanner = Scanner(classify, mode=mode)
    events: list[tuple[object, ...]] = []

    def emit(found: object) -> None:
        events.extend((type(e).__name__, repr(e)) for e in found)  # type: ignore[attr-defined]

    feeder = Feeder(scanner, emit, number=1)
    if blocks:
        found = block_filter(mode=mode)
        assert found is not None
        feeder.block(data, found)
    else:
        for raw in data.split(b"\n")[:-1]:
            feeder.number += 1
            feeder.line(raw, 0)
    emit(scanner.finish())
    events.append(("lines", feeder.number, "records", scanner.records))
    return events


@pytest.mark.parametrize("mode", [InputMode.AUTO, InputMode.TEXT])
def test_a_block_that_ends_in_a_line_of_trigger_words(mode):
    """The filter may report the empty line after the block's last newline: it is no line.

    (``bench/classify.py``'s log made ``--jobs`` fail on it: an index past the block.)
    """
    line = (
        "2026-07-22T10:05:43.142Z ERROR llm.client [req=671a6c5e11746624] call failed: terminated"
    )
    assert _events([line], blocks=True, mode=mode) == _events([line], blocks=False, mode=mode)


@pytest.mark.parametrize("mode", [InputMode.AUTO, InputMode.JSONL, InputMode.TEXT])
@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.sampled_from(_POOL), max_size=30))
def test_blocks_give_the_events_of_line_by_line(mode, lines):
    """Word lines and records, in and around tracebacks, are passed over or fed as lines are.

    A record passed over is counted as read.
    """
    pytest.importorskip("hyperscan")
    assert _events(lines, blocks=True, mode=mode) == _events(lines, blocks=False, mode=mode)


@pytest.mark.parametrize("mode", [InputMode.AUTO, InputMode.TEXT])
@pytest.mark.parametrize(
    "bad",
    [
        pytest.param(b"INFO caf\xe9 served", id="latin-1-in-text"),
        pytest.param(b'{"msg": "upstream timed out \xff"}', id="in-a-record"),
        pytest.param("INFO café".encode()[:-1], id="cut-short"),
        pytest.param(b"\x80 INFO served", id="stray-continuation-first"),
    ],
)
def test_bytes_that_are_not_utf8_are_reported_as_line_by_line(mode, bad):
    """A block with a line that is not UTF-8 gives the line path's events: the line's problem."""
    pytest.importorskip("hyperscan")
    good = ["INFO start", "ERROR upstream said rate limit exceeded", "INFO caf\u00e9 served"]
    good.append('{"msg": "served"}')  # (in auto input, the block is read as one with records)
    data = b"".join(line.encode() + b"\n" for line in good) + bad + b"\nINFO end\n"
    by_blocks = _events_of(data, blocks=True, mode=mode)
    assert by_blocks == _events_of(data, blocks=False, mode=mode)
    assert any("UNDECODABLE" in event[1] for event in by_blocks if event[0] == "Problem")


def test_records_without_a_sign_of_an_error_are_passed_over(monkeypatch):
    """The ordinary records of the pool are not parsed (all are counted); every other one is."""
    pytest.importorskip("hyperscan")
    parsed: list[str] = []
    parse = Scanner._parse_json

    def spy(self: Scanner, number: int, text: str) -> object:
        parsed.append(text)
        return parse(self, number, text)

    monkeypatch.setattr(Scanner, "_parse_json", spy)
    events = _events(["INFO start", *RECORDS], blocks=True)
    ordinary = [RECORDS[0], RECORDS[1], RECORDS[3], WORDS_RECORD, "{}"]
    assert sorted(set(RECORDS) - set(parsed)) == sorted(ordinary)
    assert events[-1] == ("lines", len(RECORDS) + 2, "records", len(RECORDS) - 4)


#: Lines a report dates findings by, or must not: timestamps of every recognised form,
#: unbelievable ones (month 13, the year 1999), none, a CR line end, a line of words
#: only that a rule matches (fed without the scanner's other checks), and lines that
#: are not ASCII (one with a time in digits that only ``str`` patterns take as such).
_STAMPS = (
    "2026-07-22T10:00:01.000Z INFO  app.api [req=4c] request completed ms=7",
    "[2026-07-22 10:00:02,123] INFO worker: idle",
    "time=2026-07-22T10:00:03+02:00 level=info msg=idle",
    "2026-13-22T10:00:04Z INFO a month that is not",
    "1999-07-22T10:00:05Z INFO before the believable span",
    "worker idle, no time here",
    "2026-07-22T10:00:06Z INFO carriage return\r",
    "2026-07-22T10:00:07Z INFO upstream: connection reset by peer",  # words only, a rule's
    "2026-07-22T10:00:08Z INFO café ouvert",
    "2026-\u0660\u0667-22T10:00:09Z INFO Arabic-Indic digits, which str patterns read as digits",
)


def _dated(lines: list[str], *, blocks: bool, limit: int, end: int | None) -> list[object]:
    """What a report's scan records: each finding dated, and the context's memory."""
    context = LineContext(end=end, limit=limit)
    scanner = Scanner(classify)
    out: list[object] = []

    def emit(found: object) -> None:
        out.extend(
            repr(context.date(event)) if isinstance(event, Finding) else repr(event)
            for event in found  # type: ignore[attr-defined]
        )

    feeder = Feeder(scanner, emit, number=1, watcher=context)
    data = "".join(line + "\n" for line in lines).encode()
    if blocks:
        found = block_filter()
        assert found is not None
        feeder.read(io.BytesIO(data), found, lambda: None)
    else:
        feeder.read(io.BytesIO(data), None, lambda: None)
    emit(scanner.finish())
    return [*out, feeder.number, context.memory(), context.recent.stamped]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from((*_POOL, *_STAMPS)), max_size=40),
    st.integers(min_value=1, max_value=6),
    st.one_of(st.none(), st.integers(min_value=1, max_value=40)),
)
def test_blocks_date_findings_as_line_by_line(lines, limit, end):
    """A report's dates and names are the same whether lines are passed over or fed.

    A small memory (``limit``) makes the passed-over lines drop the old ones; ``end``
    is a ``--jobs`` range's end, where the context keeps what the next range needs.
    """
    pytest.importorskip("hyperscan")
    ascii_lines = [line for line in lines if line.isascii()]
    for sample in (lines, ascii_lines):
        assert _dated(sample, blocks=True, limit=limit, end=end) == _dated(
            sample, blocks=False, limit=limit, end=end
        )


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([x for x in (*_STAMPS, *WORD_LINES, "") if x.isascii()]), max_size=40),
    st.booleans(),
)
def test_recent_lines_take_a_range_as_each_of_its_lines(lines, newline_at_end):
    """``feed_lines`` remembers what ``feed`` of each (ASCII) line would, numbers and all."""
    data = "\n".join(lines).encode() + (b"\n" if newline_at_end and lines else b"")
    one, bulk = RecentLines(limit=5), RecentLines(limit=5)
    one.feed(1, "before")
    bulk.feed(1, "before")
    for number, line in enumerate(data.split(b"\n")[: len(lines)], start=2):
        one.feed(number, line.decode().rstrip("\r\n"))
    bulk.feed_lines(2, b"x\n" + data, 2, 2 + len(data))
    for probe in range(1, len(lines) + 3):
        assert bulk.at(probe) == one.at(probe)
    assert (bulk.times(), bulk.stamped) == (one.times(), one.stamped)


@pytest.mark.parametrize("size", [100, 300_000])
def test_a_failed_read_names_the_same_line_by_blocks_as_by_lines(size):
    """A truncated gzip stream: both paths stop at the line after the last whole one read."""
    data = gzip.compress(b"".join(b"line %d\n" % n for n in range(size)))[:-30]
    stopped = []
    for found in (None, block_filter()):
        feeder = Feeder(Scanner(classify), lambda _events: None)
        with pytest.raises(InputError) as caught:
            feeder.read(gzip.GzipFile(fileobj=io.BytesIO(data)), found, lambda: None)
        assert caught.value.line == feeder.number + 1
        stopped.append(caught.value.line)
    assert stopped[0] == stopped[1]
    assert stopped[0] > 1
