"""The canonical form of a log line's prefix, and where its message starts.

Each test runs on the pure functions (the definition) and on the compiled reader of
``src/native`` where it was built; a generated-lines test holds the two equal.
"""

import importlib
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llm_errors import RULES, classify
from llm_errors.logs import _prefix
from llm_errors.logs._prefix import PREFIX_WINDOW, pure_canonical, pure_message_start

try:
    NATIVE = importlib.import_module("_llm_errors_native")
except ImportError:  # built without a C compiler: the pure functions alone
    NATIVE = None
needs_native = pytest.mark.skipif(NATIVE is None, reason="the native module was not built")


@pytest.fixture(params=["pure", pytest.param("native", marks=needs_native)])
def reader(request):
    """``(canonical, message_start)`` of one implementation."""
    if request.param == "pure":
        return pure_canonical, pure_message_start
    return NATIVE.canonical, NATIVE.message_start


#: Prefixes as logging libraries write them (ISO 8601 with and without a zone, Python's
#: ``asctime`` with a comma, bracketed stamps, keyed and bare hex ids, UUIDs).
PREFIXES = (
    "2026-07-22T10:00:00.000Z ERROR app.worker [req=9f86d081884c7d65] ",
    "2026-07-22 10:00:00,429 ERROR ",
    "2026-07-22 10:00:00,123 ERROR  ",
    "2026-07-22T10:00:00.000Z INFO  cache [req=cf1822ff] ",
    (
        "[2026-07-22T14:29:50.503+05:00] WARNING openai._base_client "
        "[trace=5030a429-0000-4290-8000-000000000503] "
    ),
    "2026-07-22 14:29:50 CRITICAL litellm.router [10053abc] [deadbeef] ",
    "2026-07-22T14:29:50.123456Z ERROR httpx [0123456789abcdef0123] ",
)

#: Ids as many logs end an error message with (``_prefix._HEX_RUN``).
ID_TAILS = (
    " (request id: req_9f86d081884c7d65a1b2c3d4)",
    " trace=5030a429-0000-4290-8000-000000000503",
)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        pytest.param(
            "2026-07-22T10:00:00.000Z ERROR app.worker [req=9f86d081884c7d65] call failed: x",
            "0000-00-00T00:00:00.000Z ERROR app.worker [req=0000000000000000] call failed: x",
            id="iso-level-logger-id",
        ),
        pytest.param(
            "[2026-07-22T14:29:50.123+05:00] INFO a.b [00c0ffee-0000-4290-8000-000000000503] "
            "[abcdef0123] msg 42",
            "[0000-00-00T00:00:00.000+00:00] INFO a.b [00000000-0000-0000-0000-000000000000] "
            "[0000000000] msg 42",
            id="bracketed-stamp-two-ids",
        ),
        pytest.param(
            "2026-07-22 10:00:00,429 ERROR x",
            "0000-00-00 00:00:00,429 ERROR x",
            id="status-like-fraction-kept",
        ),
        pytest.param(
            "2026-07-22T10:00:00.429Z ERROR x",
            "0000-00-00T00:00:00.000Z ERROR x",
            id="fraction-glued-to-zone",
        ),
        pytest.param("ERROR 2026-07-22 x", "ERROR 2026-07-22 x", id="no-leading-stamp"),
        pytest.param(
            "2026-07-22T10:00:00Z ERROR app [status=429] x",
            "0000-00-00T00:00:00Z ERROR app [status=429] x",
            id="short-bracket-is-no-id",
        ),
        pytest.param(
            "2026-07-22T10:00:00Z ERROR a.b 503 (request id: req_9f86d081884c7d65a1b2c3d4)",
            "0000-00-00T00:00:00Z ERROR a.b 503 (request id: req_000000000000000000000000)",
            id="message-request-id",
        ),
        pytest.param(
            "call failed: trace_id=9f86d081884c7d6a; retry",
            "call failed: trace_id=0000000000000000; retry",
            id="message-id-of-the-shortest-length",
        ),
        pytest.param(
            "failed 123e4567-e89b-12d3-a456-426614174000, retry in 30s",
            "failed 00000000-0000-0000-0000-000000000000, retry in 30s",
            id="message-uuid-without-prefix",
        ),
        pytest.param(
            "reset at 1734567890123456789 x deadbeefdeadbeefcafe y 9f86d081884c7d65z "
            "0123456789abcdef0123-",
            "reset at 1734567890123456789 x deadbeefdeadbeefcafe y 9f86d081884c7d65z "
            "0123456789abcdef0123-",
            id="digits-alone-letters-alone-glued-runs-kept",
        ),
    ],
)
def test_canonical_zeroes_only_the_stamp_and_ids(reader, line, expected):
    """Digits and hex letters of the stamp and ids become 0; everything else stays, length too."""
    canonical, _ = reader
    assert canonical(line) == expected
    assert len(canonical(line)) == len(line)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        pytest.param(PREFIXES[0] + "call failed: x", "call failed: x", id="full-prefix"),
        pytest.param(PREFIXES[4] + "msg", "msg", id="bracketed"),
        pytest.param("no prefix here", "no prefix here", id="none"),
        pytest.param("2026-07-22T10:00:00Z   ", "2026-07-22T10:00:00Z   ", id="prefix-only"),
    ],
)
def test_message_start(reader, line, message):
    """The message starts after the whole prefix; without one it is the whole line."""
    _, message_start = reader
    assert line[message_start(line) :] == message


def test_canonical_lines_get_the_verdict_of_the_line(reader):
    """Every rule example behind every prefix: the canonical line is routed like the line.

    This is the check behind classifying the canonical form (docs/classifier.md,
    "Verdict cache"); keeping a status-like fraction of a second is what it needs.
    Each example is also tried with a message id appended (folded in the canonical line).
    """
    canonical, _ = reader
    differing = []
    for rule in RULES:
        for example in rule.examples:
            flat = " ".join(example.text.split())
            for message in (example.text, flat, *(flat + tail for tail in ID_TAILS)):
                for prefix in PREFIXES:
                    line = prefix + message
                    if classify(canonical(line)) != classify(line):
                        differing.append(line)
    assert differing == []


# Lines built from the parts a prefix is read from, each valid half the time and a near
# miss otherwise, and messages with ids and near-ids: where the two implementations could
# part.
_HEX = "0123456789abcdefABCDEF"


def _part(valid, misses):
    """One of ``valid`` half the time, else one of ``misses``."""
    return st.one_of(st.sampled_from(valid), st.sampled_from(misses))


_BLANKS = _part([" ", "  ", "\t", " \t"], ["", "\u3000"])
_STAMPS = st.tuples(
    _part(["", "["], ["[["]),
    _part(["2026-07-22"], ["2026-7-22", "20260722", "2026-07-2x"]),
    _part(["T", " "], ["t", "_"]),
    _part(["10:00:00", "23:59:60"], ["10:0:00", "1a:00:00"]),
    st.one_of(
        st.sampled_from(["", ",429", ".503", ".404", ",4290", ".123", ".123456789"]),
        st.tuples(st.sampled_from(".,:"), st.text("0123456789", max_size=11)).map("".join),
        st.just(".1234567890"),
    ),
    _part(["", "Z", "+05:00", "-0500"], ["z", "+05:3", "+05", "+05:300", "-05:0x"]),
    _part(["", "]"], ["]]"]),
).map("".join)
_LEVELS = _part(
    ["", "ERROR", "ERR", "WARN", "WARNING", "CRIT", "CRITICAL"], ["WARNINGS", "Error", "INFO:"]
)
_LOGGERS = _part(
    ["", "app.api", "a", "app", "app-x.b_c", "_x.y"], ["app.", ".app", "app..b", "9app.b", "a.b."]
)
_IDS = st.lists(
    st.tuples(
        _part(["["], ["", "[["]),
        _part(["", "req=", "trace:", "x_y="], ["9=", "a-b=", "req"]),
        st.one_of(
            st.sampled_from(["abcdef12", "deadbeef-0000", "0123456789abcdef01", "--------"]),
            st.sampled_from(["abcdef1", "1234567", "-------", "abcdefg1"]),
            st.text(_HEX + "-g", max_size=40),
        ),
        _part(["]"], ["", "]]"]),
        _BLANKS,
    ).map("".join),
    max_size=3,
)
_RUNS = st.one_of(
    st.text(_HEX + "-", min_size=12, max_size=40),
    st.uuids().map(str),
    st.uuids().map(lambda u: str(u).upper() + "0"),
)
_MESSAGES = st.tuples(
    _part(["", "x", "call failed: "], ["\u3000", "\x0c", "\n", "\x85"]),
    st.lists(
        st.one_of(_RUNS, st.text(_HEX + "-_gzGZ :=()é中\u2028\x85\u3000", max_size=12)),
        max_size=8,
    ).map("".join),
).map("".join)
_LINES = st.one_of(
    st.tuples(
        _STAMPS,
        _BLANKS,
        _part([0], [1, 200, PREFIX_WINDOW - 30, PREFIX_WINDOW - 8]).map(" ".__mul__),
        _LEVELS,
        _BLANKS,
        _LOGGERS,
        _BLANKS,
        _IDS.map("".join),
        _MESSAGES,
    ).map("".join),
    st.text(),
)


@needs_native
@settings(max_examples=3000, suppress_health_check=[HealthCheck.too_slow])
@given(_LINES)
def test_the_native_reader_reads_every_line_as_the_pure_one(line):
    assert NATIVE.canonical(line) == pure_canonical(line)
    assert NATIVE.message_start(line) == pure_message_start(line)


@needs_native
def test_the_native_reader_is_used_where_it_was_built():
    assert _prefix.NATIVE
    assert _prefix.canonical is NATIVE.canonical
    assert _prefix.message_start is NATIVE.message_start


@needs_native
def test_the_native_reader_refuses_what_is_not_a_str():
    with pytest.raises(TypeError, match="must be a str, not bytes"):
        NATIVE.canonical(b"2026-07-22T10:00:00Z x")


def _product_lines():
    """Every combination of a few parts at each edge the reader decides on (32,000 lines)."""
    stamps = [
        "2026-07-22T10:00:00 ",
        "[2026-07-22 10:00:00,429] ",
        "2026-07-22T10:00:00.503Z ",
        "2026-07-22T10:00:00.404+05:00\t",
        "2026-07-22T10:00:00.123456789-0500 ",
        "2026-07-22T10:00:00.1234567890Z ",
        "2026-07-22T10:00:00+05:3 ",
        "[2026-07-22T10:00:00 ",
    ]
    heads = ["", "ERROR ", "WARNING app.api ", "cache  ", "app. ", "a.b.c\t"]
    ids = [
        "",
        "[req=abcdef12] ",
        "[abcdef1] ",
        "[deadbeef-0000]\t[0123456789]  ",
        "[x_y:0123456789abcdef] [--------] ",
        "[req=abcdef12]",
        "[9=abcdef12] ",
    ]
    messages = [
        "call failed",
        "\u3000call failed",
        "\x0ccall",
        "id 0123456789abcdef0 end",
        "id 0123456789abcde end",
        "id g0123456789abcdef0",
        "id 0123456789abcdef0g",
        "uuid 5030a429-0000-4290-8000-000000000503.",
        "uuid 5030a429-0000-4290-8000-00000000050",
        "-----0123456789abcdef",
    ]
    pads = ["", " " * 200, " " * (PREFIX_WINDOW - 40)]
    for stamp, pad, head, id_, message in itertools.product(stamps, pads, heads, ids, messages):
        yield stamp + pad + head + id_ + message


@needs_native
def test_the_native_reader_reads_every_combination_as_the_pure_one():
    differing = [
        line
        for line in _product_lines()
        if (NATIVE.canonical(line), NATIVE.message_start(line))
        != (pure_canonical(line), pure_message_start(line))
    ]
    assert differing == []
