"""Block reading: the same lines and cuts as line-by-line reading, and the line filter."""

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_errors import Classifier, ErrorCode, Rule, classify
from llm_errors.logs import _blocks
from llm_errors.logs._blocks import CutLine, iter_blocks, line_filter
from llm_errors.logs._feed import BlockFilter, Feeder, block_filter
from llm_errors.logs._input import iter_lines
from llm_errors.logs._scan import Finding, InputMode, Problem, Scanner


def _by_lines(data: bytes, limit: int) -> list[tuple[bytes, int]]:
    return [(raw.removesuffix(b"\n"), cut) for raw, cut in iter_lines(io.BytesIO(data), limit)]


def _by_blocks(data: bytes, limit: int, size: int) -> list[tuple[bytes, int]]:
    out: list[tuple[bytes, int]] = []
    for block in iter_blocks(io.BufferedReader(io.BytesIO(data)), limit, size):
        if isinstance(block, CutLine):
            out.append((block.chunk.removesuffix(b"\n"), block.cut))
            continue
        lines = block.split(b"\n")
        if lines[-1] == b"":
            lines.pop()
        out.extend((line, 0) for line in lines)
    return out


@settings(max_examples=300, deadline=None)
@given(
    data=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"x")), max_size=12)
    .map(b"\n".join)
    .flatmap(lambda text: st.sampled_from([text, text + b"\n", text.replace(b"x", b"\r\n")])),
    limit=st.integers(min_value=4, max_value=32),
    size=st.integers(min_value=1, max_value=32),
)
def test_blocks_give_the_lines_and_cuts_of_line_reading(data, limit, size):
    """Any bytes, any line limit and block size: the same lines and the same cuts."""
    size = min(size, limit)
    assert _by_blocks(data, limit, size) == _by_lines(data, limit)


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        pytest.param(b"INFO request completed in 12 ms", False, id="plain"),
        pytest.param(b"INFO upstream said Rate Limit exceeded", True, id="trigger-any-case"),
        pytest.param(b"INFO ratelimited_counter=3", False, id="trigger-inside-a-word"),
        pytest.param(b"INFO connection pool size=10 idle=4", False, id="trigger-no-rule-can-match"),
        pytest.param(b"INFO heartbeat queue_depth=503", False, id="number-no-status-rule-matches"),
        pytest.param(b"INFO upstream said status 503", True, id="status-in-its-context"),
        pytest.param("INFO café: connection reset".encode(), True, id="trigger-in-non-ascii-line"),
        pytest.param(b"INFO pool\x1cconnection reset", True, id="trigger-by-a-control-character"),
        pytest.param(b"WARN something ERR happened", True, id="marker"),
        pytest.param(b'  {"level": "info"}', True, id="json-after-space"),
        pytest.param(b'{"level": "info", "msg": "served"}', False, id="ordinary-record"),
        pytest.param(b'{"retry": 1, "limit": 2, "msg": "served"}', False, id="words-as-keys"),
        pytest.param(b'{"msg": "upstream timed out"}', True, id="trigger-word-in-a-value"),
        pytest.param(b'{"level": "ERROR", "msg": "served"}', True, id="error-record"),
        pytest.param(b'{"level": "info", "msg": "served"', True, id="record-cut-short"),
        pytest.param(b"level=info msg=served", True, id="level-key-in-text"),
        pytest.param(b"INFO \x1b[31mred\x1b[0m", True, id="ansi"),
        pytest.param(b"INFO caf\xc3\xa9", False, id="non-ascii-inside"),
        pytest.param("INFO 请求过于频繁".encode(), True, id="non-ascii-trigger"),
        pytest.param("INFO 请求已完成".encode(), False, id="non-ascii-no-trigger"),
        pytest.param(b"\xc2\xa0{}", True, id="non-ascii-first"),
        pytest.param(b"INFO \xe2\x84\xaaelvin", True, id="kelvin-sign"),
        pytest.param(b"Traceback (most recent call last):", True, id="traceback"),
    ],
)
def test_line_filter_keeps_what_may_matter(line, kept):
    """The filter reports trigger words, markers, JSON, ESC and folded characters."""
    pytest.importorskip("hyperscan")
    found = block_filter()
    assert found is not None
    block = b"INFO a\n" + line + b"\nINFO b\n"
    end = block.index(b"\n", 7)
    assert (end in found.lines.ends(block)[0]) is kept
    assert line_filter([]) is not None


def test_beside_a_user_rule_the_built_in_rules_still_find_their_lines():
    """With rules of a user's, the built-in rules' expressions are a database of their own."""
    pytest.importorskip("hyperscan")
    mine = Rule("mine.relay", ErrorCode.SERVER, r"\brelay hiccup\b", "a relay's wording")
    found = block_filter(Classifier(extra_rules=[mine]), mode=InputMode.TEXT)
    assert found is not None
    block = b"INFO a\nINFO upstream relay hiccup\nINFO b\nINFO model said Overloaded\nINFO c\n"
    assert classify("INFO model said Overloaded").rule == "overload.wording"
    ends, words = found.lines.ends(block)
    assert [block.index(b"\nINFO b"), block.index(b"\nINFO c")] == ends == sorted(words)


@pytest.mark.parametrize("line", ["INFO zork\u00a0", "INFO \u00e9 zork\u00a0"])
def test_on_an_untrusted_line_a_trigger_word_on_either_side_counts(line):
    r"""``\s`` matches a no-break space in ``regex``, not in Hyperscan: the rule's word must do."""
    pytest.importorskip("hyperscan")
    mine = Rule("mine.zork", ErrorCode.SERVER, r"\bzork\s", "a test's wording")
    classifier = Classifier(extra_rules=[mine])
    assert classifier.classify(line).rule == "mine.zork"
    found = block_filter(classifier, mode=InputMode.TEXT)
    assert found is not None
    block = b"INFO a\n" + line.encode() + b"\nINFO b\n"
    assert found.lines.ends(block)[0] == [block.index(b"\nINFO b")]


def test_untrusted_lines_are_reported_by_their_own_words():
    """Of several lines with non-ASCII text in one block, exactly those with a rule's word."""
    pytest.importorskip("hyperscan")
    found = block_filter(mode=InputMode.TEXT)
    assert found is not None
    lines = [
        "INFO caf\u00e9 ok",
        "INFO caf\u00e9 connection",
        "INFO plain",
        "INFO \u00e9 upstream timeout",
        "INFO \u00e9\u00e9",
        "INFO r\u00e9sum\u00e9 ECONNRESET",
    ]
    block = "\n".join(lines).encode()  # the last line without its newline
    ends = [block.index(line.encode()) + len(line.encode()) for line in lines]
    assert found.lines.ends(block) == ([ends[1], ends[3], ends[5]], {ends[1], ends[3], ends[5]})


def test_a_block_with_records_is_read_by_words():
    """Rules' expressions in a block of text lines; in one with a JSON record, words (as before)."""
    pytest.importorskip("hyperscan")
    found = block_filter()
    assert found is not None
    text = b"INFO a\nINFO connection pool size=10\nINFO b\n"
    end = text.index(b"\nINFO b")
    assert end not in found.lines.ends(text)[0]  # a trigger word, but no rule can match
    record = b'{"msg": "served"}\n'
    assert end + len(record) in found.lines.ends(record + text)[1]  # a line of words


@pytest.mark.parametrize(
    "line",
    [
        pytest.param(b'{"status": 418, "msg": "served"}', id="error-status"),
        pytest.param(b'{"msg": "served", "statusCode": "418"}', id="error-status-string"),
        pytest.param(b'{"level": 50, "msg": "served"}', id="pino-error-level"),
        pytest.param(b'{"level": "fatal", "msg": "served"}', id="error-level-name"),
        pytest.param(b'{"msg": "served", "exc_info": 1}', id="error-key"),
        pytest.param(b'{"msg": "a \\"b\\""}', id="escape"),
        pytest.param(b'{"msg": "served"}{"msg": "x"}', id="two-objects"),
        pytest.param(b'{"msg": "served",}', id="trailing-comma"),
        pytest.param(b"{'msg': 'served'}", id="unquoted-key"),
    ],
)
def test_a_record_with_a_sign_of_an_error_is_kept(line):
    """A record with no marker hint or trigger word is read for a sign of an error alone."""
    pytest.importorskip("hyperscan")
    found = block_filter()
    assert found is not None
    plain = b'{"msg": "served"}\n'
    block = plain + line + b"\n" + plain
    end = len(plain) + len(line)
    assert found.lines.ends(block)[0] == [end]


def test_a_sign_of_an_error_outside_a_record_marks_no_text_line():
    """Signs count in a record only: in a text line a backslash or ``"code": 418`` says nothing."""
    pytest.importorskip("hyperscan")
    found = block_filter()
    assert found is not None
    block = b'{"msg": "served"}\nINFO served C:\\temp "code": 418, x,}\n{"msg": "served"}\n'
    assert found.lines.ends(block)[0] == []


@pytest.mark.parametrize("records", list(_blocks.Records))
def test_many_trigger_words_are_split_over_expressions(records):
    """Words past one expression's limit (hundreds of user rules) are all still found."""
    pytest.importorskip("hyperscan")
    words = [b"w%03dtriggerword" % i + b"x" * 30 for i in range(400)]
    assert sum(map(len, words)) > 16_000  # over what Hyperscan takes in one expression
    # (``\p{L}`` has no Hyperscan expression: each rule's trigger word stands in for it)
    rules = [(rf"\b{word.decode()}\b\p{{L}}?", frozenset({word})) for word in words]
    found = line_filter(rules, records)
    assert found is not None
    for word in (words[0], words[199], words[-1]):
        for line in (b"INFO a " + word.upper() + b" b", b'{"msg": "a ' + word + b' b"}'):
            block = b"INFO a\n" + line + b"\nINFO b\n"
            assert block.index(b"\n", 7) in found.ends(block)[0], (records, line)


#: Real multi-line errors (test_group.py), in blocks after a ``== ID SOURCE`` line.
MULTI_LINE = Path(__file__).with_name("multi_line.txt")


def _findings(data: bytes, found: BlockFilter | None) -> list[Finding | Problem]:
    scanner = Scanner(classify)
    events: list[Finding | Problem] = []
    feeder = Feeder(scanner, events.extend)
    feeder.read(io.BufferedReader(io.BytesIO(data)), found, lambda: None)
    return [*events, *scanner.finish()]


@pytest.mark.parametrize("size", [64, 200, 1000])
def test_block_ends_inside_multi_line_errors_change_nothing(monkeypatch, size):
    """Frames, causes and pages cut by a block's end are grouped as line by line groups them."""
    pytest.importorskip("hyperscan")
    found = block_filter()
    assert found is not None
    text = MULTI_LINE.read_text(encoding="utf-8")
    data = "\n".join(line for line in text.splitlines() if not line.startswith("#")).encode()
    expected = _findings(data, None)
    monkeypatch.setattr(_blocks, "BLOCK_SIZE", size)
    assert _findings(data, found) == expected
    assert len([e for e in expected if isinstance(e, Finding)]) == 6  # one per shape
