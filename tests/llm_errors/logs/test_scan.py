"""Finding errors in lines and records: markers, tracebacks, JSON fields, problems."""

import json
import traceback

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from llm_errors import Classification, Classifier, ErrorCode, Layer, classify
from llm_errors._redact import inert, redact, scrub
from llm_errors.engine import MAX_VALUES, NATIVE
from llm_errors.logs import _prefix, _scan
from llm_errors.logs._prefix import pure_canonical
from llm_errors.logs._scan import (
    EXCERPT_LIMIT,
    MISSING,
    Finding,
    InputMode,
    Problem,
    ProblemKind,
    Scanner,
    excerpt,
    excerpt_json,
    has_marker,
    lookup,
    subjects,
)


def scan(text, **options):
    """Run a scanner over ``text``; return its findings and problems in order."""
    scanner = Scanner(classify, **options)
    events = []
    for number, line in enumerate(text.splitlines(), 1):
        events += scanner.feed(number, line)
    events += scanner.finish()
    return events


def findings(text, **options):
    return [event for event in scan(text, **options) if isinstance(event, Finding)]


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("2025-03-14 09:13:18,290 ERROR jobs: job 8812 failed", id="level"),
        pytest.param("ts=2025-03-14T09:13:18Z level=error msg=boom", id="logfmt"),
        pytest.param('{"level": "error"} as text', id="quoted-level"),
        pytest.param("Severity: Critical - disk full", id="severity-titlecase"),
        pytest.param("LEVELNAME=FATAL", id="levelname-upper"),
        pytest.param("worker crashed: KeyError: 'choices'", id="error-class"),
        pytest.param("java.lang.IllegalStateException: closed", id="exception-class"),
        pytest.param("error: could not write cache", id="error-colon"),
        pytest.param("panic: runtime error: index out of range", id="go-panic"),
        pytest.param("Unhandled rejection in worker 3", id="unhandled"),
        pytest.param("[CRIT] disk full", id="crit"),
    ],
)
def test_has_marker_positive(line):
    """Lines that say they report an error carry a marker."""
    assert has_marker(line)


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("2025-03-14 09:12:04 INFO served in 1834 ms", id="info"),
        pytest.param("INFO 0 errors, 12 warnings", id="errors-count"),
        pytest.param("INFO retry policy: on error wait 2s", id="lowercase-error"),
        pytest.param("DEBUG terrorist-free zone", id="substring"),
        pytest.param("ts=1 level=info msg=done loglevel=errand", id="level-not-error"),
    ],
)
def test_has_marker_negative(line):
    """Ordinary lines that merely mention errors in passing carry no marker."""
    assert not has_marker(line)


def test_info_lines_are_not_errors():
    """Lines without a marker that no rule routes produce nothing."""
    text = "INFO starting\nINFO listening on 0.0.0.0:8080\nDEBUG cache warm\n"
    assert scan(text) == []


def test_marked_line_without_a_rule_is_an_unmatched_error():
    """An ERROR line that no rule routes is an unmatched PROVIDER_ERROR finding."""
    [found] = findings("INFO ok\n2025-03-14 ERROR jobs: job 8812 failed: KeyError: 'choices'\n")
    assert (found.line, found.end_line, found.kind) == (2, 2, "line")
    assert found.classification.code is ErrorCode.PROVIDER_ERROR
    assert found.classification.layer is Layer.FALLBACK
    assert not found.matched
    assert found.message == "2025-03-14 ERROR jobs: job 8812 failed: KeyError: 'choices'"


def test_routed_line_without_a_marker_is_an_error():
    """A line a rule routes counts even without a level word (httpx logs 429s at INFO)."""
    line = 'INFO httpx: HTTP Request: POST https://api.x/v1 "HTTP/1.1 429 Too Many Requests"'
    [found] = findings(line)
    assert found.matched
    assert found.classification.code is ErrorCode.RATE_LIMIT


TRACEBACK_LOG = """\
2025-03-14 09:12:26,001 INFO router: request started
2025-03-14 09:12:27,730 ERROR router: completion failed for request req_Pp02NnA4
Traceback (most recent call last):
  File "/srv/venv/lib/python3.12/site-packages/httpx/_transports/default.py", line 72, in map
    yield
httpx.ConnectError: [Errno 111] Connection refused

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/srv/router/chat.py", line 118, in complete
    response = await client.chat.completions.create(**payload)
openai.APIConnectionError: Connection error.
2025-03-14 09:12:31,005 INFO router: upstream check ok
"""


def test_traceback_is_one_error_joined_with_its_log_line():
    """The logger line, the traceback and its chained cause are one finding."""
    [found] = findings(TRACEBACK_LOG)
    assert (found.line, found.end_line, found.kind) == (2, 13, "traceback")
    assert found.message == "openai.APIConnectionError: Connection error."
    assert found.classification.code is ErrorCode.TRANSPORT
    assert found.classification.layer is Layer.EXCEPTION


def test_traceback_without_log_line_and_at_end_of_input():
    """A bare traceback that ends the input is closed by ``finish``."""
    text = "Traceback (most recent call last):\n  File 'a.py'\nhttpx.ReadTimeout: timed out"
    [found] = findings(text)
    assert (found.line, found.end_line) == (1, 3)
    assert found.classification.code is ErrorCode.TIMEOUT


def test_unrouted_traceback_is_unmatched():
    """A traceback whose chain no rule routes is an unmatched error named by its last line."""
    text = "Traceback (most recent call last):\n  File 'a.py'\nKeyError: 'choices'\nINFO next\n"
    [found] = findings(text)
    assert not found.matched
    assert found.message == "KeyError: 'choices'"
    assert (found.line, found.end_line) == (1, 3)


def test_cut_off_traceback_is_still_reported():
    """A header with no exception line is an unmatched error, not silently dropped."""
    [found] = findings("Traceback (most recent call last):\n2025 INFO next\n")
    assert not found.matched
    assert "cut off" in found.message


def test_log_line_decides_when_the_traceback_says_nothing():
    """If the chain is unroutable but the logger line is, the logger line's verdict is used."""
    text = (
        "ERROR chat: upstream returned 503: upstream connect error or disconnect/reset before "
        "headers. reset reason: connection failure\n"
        "Traceback (most recent call last):\n"
        "  File 'a.py'\n"
        "RuntimeError: giving up\n"
    )
    [found] = findings(text)
    assert found.classification.code is ErrorCode.SERVER
    assert (found.line, found.end_line) == (1, 4)


def test_status_a_traceback_states_beats_its_types_default():
    """A logged ``InternalServerError`` saying ``Error code: 529`` has status 529, not 500.

    The exception is anthropic's own, built as its client builds one for a 529 (the
    message is ``_make_status_error_from_response``'s ``Error code: {status} - {body}``;
    the body is the overloaded error of https://docs.anthropic.com/en/api/errors), and
    its traceback is printed by ``traceback``. Rebuilt from the log it has no response,
    so only the message can say the status: the traceback, its last line alone and the
    live exception must agree.
    """
    anthropic = pytest.importorskip("anthropic")
    httpx2 = pytest.importorskip("httpx2")  # the HTTP client anthropic 2 is built on
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    request = httpx2.Request("POST", "https://api.anthropic.com/v1/messages")
    response = httpx2.Response(529, request=request, json=body)
    live = anthropic.InternalServerError(f"Error code: 529 - {body}", response=response, body=body)

    def call():
        raise live

    try:
        call()
    except anthropic.InternalServerError as exc:
        printed = "".join(traceback.format_exception(exc))
    last = printed.splitlines()[-1]
    assert last.startswith("anthropic.InternalServerError: Error code: 529 - {")
    [found] = findings(printed)
    assert found.kind == "traceback"
    verdict, alone = found.classification, classify(last)
    assert (verdict.status, verdict.code, verdict.rule) == (529, alone.code, alone.rule)
    assert verdict.code is ErrorCode.RATE_LIMIT
    assert alone.status == classify(live).status == 529


def test_two_error_lines_in_a_row_stay_two_findings():
    """Holding a line back for a possible traceback never merges two plain lines."""
    text = "ERROR a: first failure\nERROR b: second failure\n"
    assert [f.line for f in findings(text)] == [1, 2]


def test_prefixed_traceback_in_container_logs():
    """Tracebacks whose lines all carry a container prefix are grouped through it."""
    text = (
        "api-1  | 2025-03-14 09:12:27 ERROR router: call failed\n"
        "api-1  | Traceback (most recent call last):\n"
        'api-1  |   File "a.py", line 3, in run\n'
        "api-1  | httpx.ReadTimeout: The read operation timed out\n"
        "web-1  | GET /health 200\n"
    )
    [found] = findings(text)
    assert (found.line, found.end_line) == (1, 4)
    assert found.classification.code is ErrorCode.TIMEOUT


@pytest.mark.parametrize(
    ("record", "field", "code"),
    [
        pytest.param(
            {"level": "error", "error": {"message": "Request timed out."}},
            "error.message",
            ErrorCode.TIMEOUT,
            id="dotted",
        ),
        pytest.param(
            {"log.level": "error", "err": {"errors": [{"msg": "read ECONNRESET"}]}},
            "err.errors.0.msg",
            ErrorCode.TRANSPORT,
            id="list-index",
        ),
        pytest.param(
            {"event": {"error.message": "socket hang up"}},
            "event.error.message",
            ErrorCode.TRANSPORT,
            id="key-with-dots",
        ),
    ],
)
def test_jsonl_field_path(record, field, code):
    """``--field`` follows a dotted path, through lists and keys that contain dots."""
    [found] = findings(json.dumps(record), field=field)
    assert found.kind == "record"
    assert found.classification.code is code


def test_jsonl_field_missing_is_counted_not_an_error():
    """Records without the field are counted separately and produce no finding."""
    scanner = Scanner(classify, field="error.message")
    assert not scanner.feed(1, json.dumps({"level": "info", "msg": "served"}))
    assert not scanner.feed(2, json.dumps({"error": None}))
    assert (scanner.records, scanner.missing_field) == (2, 2)


def test_jsonl_field_holding_an_error_object_goes_to_the_classifier_as_a_mapping():
    """A field that holds a provider error body is classified as a body, not as text."""
    record = {"level": "error", "response": {"error": {"type": "insufficient_quota"}}}
    [found] = findings(json.dumps(record), field="response")
    assert found.classification.code is ErrorCode.QUOTA_EXCEEDED


def test_jsonl_whole_record_without_field():
    """Without ``--field`` the whole record is classified as a mapping."""
    record = {"status": 429, "error": {"type": "insufficient_quota", "message": "quota"}}
    [found] = findings(json.dumps(record))
    assert found.classification.code is ErrorCode.QUOTA_EXCEEDED
    assert found.message == "quota"


def test_jsonl_error_level_without_rule_is_unmatched():
    """A record at error level that no rule routes is an unmatched error."""
    record = {"level": 50, "msg": "job 12 failed", "pid": 3}
    [found] = findings(json.dumps(record))
    assert not found.matched
    assert found.message == "job 12 failed"


def test_jsonl_info_record_is_not_an_error():
    """Records without an error level, error field or rule produce nothing."""
    assert findings(json.dumps({"level": "info", "msg": "served in 12 ms"})) == []


def test_jsonl_embedded_traceback():
    """A traceback inside a string field is grouped and classified by its chain."""
    record = {
        "level": "error",
        "msg": "completion failed",
        "exc_info": "Traceback (most recent call last):\n  File 'a.py', line 1\n"
        "httpx.ReadTimeout: The read operation timed out",
    }
    [found] = findings(json.dumps(record))
    assert found.classification.code is ErrorCode.TIMEOUT
    assert found.message == "httpx.ReadTimeout: The read operation timed out"


def test_bad_json_line_is_reported_and_scanned_as_text():
    """A line that starts like JSON but is not: a problem with its line, then text scanning."""
    events = scan('INFO ok\n{"level": "error", "msg": "socket hang up", \n')
    problem, found = events
    assert problem == Problem(ProblemKind.BAD_JSON, 2, problem.detail)
    assert "not valid JSON" in problem.detail
    assert found.classification.code is ErrorCode.TRANSPORT
    assert found.line == 2


def test_jsonl_mode_rejects_non_objects():
    """In jsonl mode every non-blank line must be a JSON object."""
    events = scan('[1, 2]\nplain text\n\n{"level": "info"}\n', mode=InputMode.JSONL)
    kinds = [(type(e).__name__, getattr(e, "line", None)) for e in events]
    assert kinds == [("Problem", 1), ("Problem", 2)]
    assert "a JSON list, not an object" in events[0].detail


def test_text_mode_never_parses_json():
    """In text mode a JSON-looking line is just text."""
    scanner = Scanner(classify, mode=InputMode.TEXT)
    assert not scanner.feed(1, '{"level": "error", "msg": "x"}')
    assert scanner.records == 0
    [found] = scanner.finish()
    assert found.kind == "line"


def test_excerpt_is_redacted_and_bounded():
    """Secrets never reach an excerpt, even past the cut; excerpts are one bounded line."""
    key = "sk-proj-" + "A1b2C3d4" * 4
    text = f"ERROR auth failed for key {key}\n  with\ttabs " + "and more " * 100
    short = excerpt(text)
    assert key not in short
    assert len(short) == EXCERPT_LIMIT
    assert short.endswith("…")
    assert "\n" not in short
    assert "\t" not in short


def test_excerpt_redacts_a_secret_straddling_the_cut():
    """A base64 payload that starts before the cut is redacted whole, not truncated raw."""
    text = "ERROR image rejected: " + "QUJD" * 200
    assert "QUJDQUJD" not in excerpt(text)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        pytest.param(["a", "b"], 1, id="nested"),
        pytest.param(["log.level"], "error", id="dotted-key"),
        pytest.param(["log", "level"], "error", id="dotted-key-split"),
        pytest.param(["items", "1", "x"], 2, id="list"),
        pytest.param(["items", "9"], MISSING, id="list-out-of-range"),
        pytest.param(["a", "b", "c"], MISSING, id="through-scalar"),
        pytest.param(["nope"], MISSING, id="absent"),
    ],
)
def test_lookup(path, expected):
    """Dotted lookups find nested keys, dotted keys and list items, or say MISSING."""
    record = {"a": {"b": 1}, "log.level": "error", "items": [{"x": 1}, {"x": 2}]}
    assert lookup(record, path) == expected


def test_subjects():
    """Explain's candidates: a rebuilt chain, a parsed body, or the plain text."""
    pasted = (
        "ERROR x: failed\nTraceback (most recent call last):\n  File 'a'\nhttpx.ReadTimeout: slow"
    )
    chain, *rest = subjects(pasted)
    assert type(chain).__qualname__ == "ReadTimeout"
    assert rest == ["httpx.ReadTimeout: slow", pasted]
    assert subjects('{"error": {"type": "x"}}') == [
        {"error": {"type": "x"}},
        '{"error": {"type": "x"}}',
    ]
    assert subjects("{not json") == ["{not json"]
    assert subjects("terminated") == ["terminated"]


# The verdict cache and the excerpt cache. The message is real (router-for-me/CLIProxyAPI#1702);
# the log prefixes around it are what a logging library writes.
_CAPACITY = "You have exhausted your capacity on this model. Your quota will reset after 53s."
_STAMPS = (
    "2026-07-22T10:00:00.000Z ERROR app.worker [req=9f86d081884c7d65] call failed: ",
    "2026-07-23T11:59:07.318Z ERROR app.worker [req=0c1d2e3f40516273] call failed: ",
)


class CountingClassify:
    """``classify``, counting the texts it is asked about."""

    def __init__(self):
        self.texts = []

    def __call__(self, obj):
        """Classify ``obj``, remembering it."""
        self.texts.append(obj)
        return classify(obj)


def _line_verdicts(scanner, lines):
    out = []
    for number, line in enumerate(lines, 1):
        out += scanner.feed(number, line)
    out += scanner.finish()
    return [found.classification for found in out]


def test_verdict_cache_hits_on_lines_that_differ_only_in_their_prefix():
    """A repeated message behind another timestamp and id is one lookup, with a fresh verdict."""
    counting = CountingClassify()
    lines = [stamp + _CAPACITY for stamp in _STAMPS]
    verdicts = _line_verdicts(Scanner(counting), lines)
    assert len(counting.texts) == 1
    assert verdicts == [classify(line) for line in lines]
    assert verdicts[0].retry_after == 53.0


def test_verdict_cache_reads_the_message_digits():
    """The same message with another wait is another key: its retry-after is its own."""
    counting = CountingClassify()
    other = _CAPACITY.replace("53s", "54s")
    lines = [_STAMPS[0] + _CAPACITY, _STAMPS[1] + other]
    verdicts = _line_verdicts(Scanner(counting), lines)
    assert len(counting.texts) == 2
    assert [verdict.retry_after for verdict in verdicts] == [53.0, 54.0]
    assert verdicts == [classify(line) for line in lines]


def test_verdict_cache_is_bounded(monkeypatch):
    """Past the limit the least recently used verdict is dropped and classified again."""
    monkeypatch.setattr(_scan, "VERDICT_CACHE_LIMIT", 2)
    counting = CountingClassify()
    messages = [_CAPACITY.replace("53s", f"{wait}s") for wait in (1, 2, 3)]
    lines = [_STAMPS[0] + message for message in [*messages, messages[0], messages[2]]]
    verdicts = _line_verdicts(Scanner(counting), lines)
    assert len(counting.texts) == 4  # 1, 2, 3, then 1 again (evicted); 3 is still kept
    assert verdicts == [classify(line) for line in lines]


def test_record_verdict_cache_drops_the_least_recently_used(monkeypatch):
    """A record seen again is kept over one seen once before it (not the oldest dropped)."""
    monkeypatch.setattr(_scan, "VERDICT_CACHE_LIMIT", 2)
    counting = CountingClassify()
    records = [
        json.dumps({"level": "error", "msg": _CAPACITY.replace("53s", f"{wait}s")})
        for wait in (1, 2, 3)
    ]
    lines = [records[0], records[1], records[0], records[2], records[0]]
    verdicts = _line_verdicts(Scanner(counting), lines)
    assert len(counting.texts) == 3  # 1, 2, 3: the third drops 2, used less recently than 1
    assert verdicts == [classify(json.loads(line)) for line in lines]


def _reference_excerpt(text):
    """The excerpt as defined: redact a window of the whole line, flatten, cut."""
    flat = " ".join(redact(text[:4096]).split())
    return flat if len(flat) <= EXCERPT_LIMIT else flat[: EXCERPT_LIMIT - 1] + "…"


@pytest.mark.parametrize(
    "line",
    [
        pytest.param(_STAMPS[0] + _CAPACITY, id="plain"),
        pytest.param(_STAMPS[0] + "sk-proj-" + "A1b2C3d4" * 4 + " rejected", id="key-first"),
        pytest.param(_STAMPS[0] + "data:image/png;base64," + "QUJD" * 40, id="data-url"),
        pytest.param(_STAMPS[0] + "QUJD" * 40, id="base64-first"),
        pytest.param(_STAMPS[0] + "Bearer abcdefgh12345678 refused", id="bearer"),
        pytest.param(
            "2026-07-22T10:00:00Z ERROR app [token=abcdef0123456789] " + _CAPACITY,
            id="secret-in-prefix",
        ),
        pytest.param(
            "2026-07-22T10:00:00Z ERROR api.key " + "x" * 5000 + " password=hunter22",
            id="key-word-in-logger",
        ),
        pytest.param("2026-07-22T10:00:00Z ERROR " + "word " * 900, id="long"),
        pytest.param(_CAPACITY, id="no-prefix"),
        pytest.param("api_key=sk-proj-" + "A1b2C3d4" * 4, id="no-prefix-key"),
        pytest.param("data:,xyz", id="no-prefix-short"),  # too short to redact
    ],
)
def test_excerpt_after_a_prefix_is_the_whole_line_redacted(line):
    """Redacting the message alone (cached) gives the excerpt of redacting the whole line."""
    assert excerpt(line) == _reference_excerpt(line)
    assert excerpt(line) == excerpt(line)  # and again, from the cache


needs_native = pytest.mark.skipif(NATIVE is None, reason="the native module was not built")


def _native_excerpt_json(text):
    """The compiled path of ``excerpt_json`` alone: ``None`` where the caches cannot answer."""
    return NATIVE.excerpt_json(
        text, _scan._INERT_FORMS, _scan._SCRUBBED, _scan._REDACT_WINDOW, EXCERPT_LIMIT
    )


def _sized(total):
    """A line whose excerpt has ``total`` characters before any cut (a prefix, then words)."""
    size = total - len(_STAMPS[0])
    return _STAMPS[0] + ("ab " * total)[: size - 1] + "c"


def _long_prefix(ids, pad):
    """A line whose prefix alone is cut: its ``ids`` bracketed ids end past the limit."""
    return "2026-07-22T10:00:00Z ERROR app" + pad + " " + "[abcdef12] " * ids + "x"


#: Lines whose excerpt is encoded in one compiled step once their parts are cached: at
#: the cut and one character either side of it (in the message, at the space before it,
#: in the prefix), with what JSON escapes, in the prefix too.
_ENCODED = (
    _STAMPS[0] + _CAPACITY,
    _sized(EXCERPT_LIMIT - 1),
    _sized(EXCERPT_LIMIT),
    _sized(EXCERPT_LIMIT + 1),
    _long_prefix(18, "xyzwvutsrq"),
    _long_prefix(19, ""),
    _long_prefix(19, "x"),
    _long_prefix(19, "xyzwvutsrq"),
    _long_prefix(20, ""),
    _STAMPS[0] + "quote \\" + '"' + " tab\tend~ \b\f\r \u00e9 caf\u00e9 \x7f \x1f del",
    "2026-07-22T10:00:00Z  ERROR\tapp  [req=9f86d081] caf\u00e9 \U0001f600 \U00010000 \ud800 x",
    "2026-07-22T10:00:00Z ERROR caf\u00e9.worker " + "\U0001f600" * (EXCERPT_LIMIT + 5),
    "2026-07-22T10:00:00Z ERROR app \x85\u2028[req=9f86d081] " + "\u4e2d" * EXCERPT_LIMIT,
    _STAMPS[0] + "words past the redaction window " * 200,
)


@pytest.mark.parametrize("line", [*_ENCODED, "no prefix: " + _CAPACITY, _STAMPS[0]])
def test_excerpt_json_is_the_excerpt_in_json(line):
    """A finding's JSON line holds exactly ``json.dumps(excerpt(text))``, cached or not."""
    expected = json.dumps(excerpt(line))
    assert excerpt_json(line) == expected
    assert excerpt_json(line) == expected  # and again, from the caches


@needs_native
@pytest.mark.parametrize("line", _ENCODED)
def test_the_native_excerpt_json_answers_from_the_caches(line):
    """Once :func:`excerpt` has seen a line's parts, the compiled step encodes it alone."""
    excerpt(line)
    assert _native_excerpt_json(line) == json.dumps(excerpt(line))


@needs_native
@pytest.mark.parametrize(
    "line",
    [
        pytest.param("no prefix: " + _CAPACITY, id="no-prefix"),
        pytest.param("2026-07-22T10:00:00Z ERROR app [token=abcdef0123] x", id="secret-in-prefix"),
        pytest.param("2026-07-22T10:00:00Z ERROR app.worker a message never seen", id="unseen"),
    ],
)
def test_the_native_excerpt_json_leaves_to_python_what_the_caches_cannot_answer(line):
    excerpt(line.replace("never seen", "seen once"))
    assert _native_excerpt_json(line) is None
    assert excerpt_json(line) == json.dumps(excerpt(line))


@needs_native
def test_the_native_excerpt_json_refuses_a_bad_call():
    with pytest.raises(TypeError):
        NATIVE.excerpt_json(b"x", {}, {}, 4096, EXCERPT_LIMIT)
    with pytest.raises(TypeError):
        NATIVE.excerpt_json("x", [], {}, 4096, EXCERPT_LIMIT)
    with pytest.raises(ValueError, match="limit must be at least 1"):
        NATIVE.excerpt_json("x", {}, {}, 4096, 0)


_JSON_TEXT = st.text(
    st.sampled_from(
        list('ab~ \t\n\r\b\f"\\\x00\x1f\x7f\x85\u00e9\u2028\u3000\u4e2d\ud800\U00010000\U0001f600')
    ),
    max_size=EXCERPT_LIMIT + 20,
)


@needs_native
@settings(max_examples=1500, deadline=None)
@given(
    st.sampled_from([*_STAMPS, "2026-07-22T10:00:00Z  ERROR\tcaf\u00e9.x  [req=9f86d081] "]),
    st.text(st.sampled_from(list(" \t\x85\u3000")), max_size=3),
    _JSON_TEXT,
)
def test_the_native_excerpt_json_encodes_every_line_as_json_does(head, blanks, message):
    line = head + blanks + message
    expected = json.dumps(excerpt(line))
    assert _native_excerpt_json(line) in (None, expected)
    if _scan.message_start(line) and message[:1].strip():
        assert _native_excerpt_json(line) == expected  # its parts are cached now


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        pytest.param("2026-07-22T10:00:00Z ERROR app.worker [req=9f86d081] ", True, id="plain"),
        pytest.param("2026-07-22T10:00:00Z ERROR app [token=abcdef0123] ", False, id="key-word"),
        pytest.param("2026-07-22T10:00:00Z ERROR DATA:x ", False, id="data-upper"),
        pytest.param("2026-07-22T10:00:00Z ERROR auth.Bearer ", False, id="bearer"),
        pytest.param("2026-07-22T10:00:00Z ERROR BASIC.x ", False, id="basic"),
        pytest.param("2026-07-22T10:00:00Z ERROR app.Password ", False, id="password"),
        pytest.param("2026-07-22T10:00:00Z ERROR AKIA.x ", False, id="key-prefix"),
        pytest.param("2026-07-22T10:00:00Z ERROR akia.x ", True, id="key-prefix-is-case-sensitive"),
        pytest.param("2026-07-22T10:00:00Z ERROR [" + "a" * 64 + "] ", False, id="long-run"),
        pytest.param("2026-07-22T10:00:00Z ERROR \u017fecret ", False, id="non-ascii-folds"),
        pytest.param("2026-07-22T10:00:00Z ERROR caf\u00e9 Bearer ", False, id="non-ascii-bearer"),
        pytest.param("2026-07-22T10:00:00Z ERROR caf\u00e9.worker ", True, id="non-ascii-plain"),
    ],
)
def test_inert_prefix(head, expected):
    """A prefix is inert only without any scrubber's anchor (each checked as redact checks it)."""
    assert inert(head) is expected
    rest = "x" * 20
    assert (scrub(head + rest) == head + scrub(rest)) or not expected


_ANCHOR_PARTS = ("app", "token", "auth", "sk-", "AIza", "AKIA", "gsk_", "hf_", "xai-", "data")
_ANCHOR_PARTS += ("bearer", "basic", "Password", "secret", "key", "cafe", "bea", "ba", "d", "a")
_HEADS = st.tuples(
    st.sampled_from(["2026-07-22T10:00:00Z ", "[2026-07-22 10:00:00,429] ", ""]),
    st.sampled_from(["ERROR ", ""]),
    st.lists(st.sampled_from(_ANCHOR_PARTS), max_size=3).map("".join),
    st.sampled_from([".", "-", "_", ".x "]),
    st.lists(st.sampled_from(_ANCHOR_PARTS), max_size=2).map("".join),
    st.sampled_from([" ", "[", " ["]),
    st.lists(st.sampled_from(_ANCHOR_PARTS), max_size=2).map("".join),
    st.sampled_from(["=", ":", ""]),
    st.text("0123456789abcdefABCDEF-", max_size=40),
    st.sampled_from(["] ", "]", " ", "x "]),
).map("".join)


@settings(max_examples=1500)
@given(st.one_of(_HEADS, st.text()))
@example("2026-07-22T10:00:00Z ERROR app [key=abcdef0123456789] ")
@example("2026-07-22T10:00:00Z ERROR app [req=bea0123456789abc]rer ")
@example("AIza0123456789abcdef01 x")
def test_a_prefix_and_its_canonical_form_are_inert_alike(head):
    """What lets the excerpt cache ``inert`` under the canonical form (``_scan._inert_head``)."""
    assert inert(pure_canonical(head)) is inert(head)
    assert inert(_prefix.canonical(head)) is inert(head)
    assert _scan._inert_head(head) is inert(head)


#: Parts of JSON records: what a finding reads (levels, messages, errors, statuses,
#: identifiers, waits, a traceback) and what it does not (times, ids), each in values
#: that change a verdict and values that do not.
_RECORD_PARTS = {
    "time": st.integers(min_value=1, max_value=3),
    "request_id": st.sampled_from(["a1", "b2"]),
    "level": st.sampled_from(["info", "error", 30, 50]),
    "msg": st.sampled_from(["done", "upstream: connection reset by peer", "call failed", ""]),
    "error": st.sampled_from(["", "Rate limit reached for requests", {"type": "overloaded_error"}]),
    "status": st.sampled_from([200, 429, "503"]),
    "code": st.sampled_from(["insufficient_quota", "ok", 1300]),
    "retry_after": st.sampled_from([1, "20"]),
    "exc_text": st.sampled_from(["", "Traceback (most recent call last):\nKeyError: 'x'"]),
    "res": st.fixed_dictionaries({"statusCode": st.sampled_from([200, 503])}),
    "errors": st.lists(st.integers(min_value=0, max_value=2), max_size=2),
    "trace": st.sampled_from(
        ["", "Traceback (most recent call last):\nopenai.APITimeoutError: Request timed out."]
    ),
}


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        # Few parts per record, so that records often differ in one part only.
        st.lists(
            st.sampled_from(sorted(set(_RECORD_PARTS) - {"time", "msg"})), unique=True, max_size=2
        ).flatmap(
            lambda keys: st.fixed_dictionaries({key: _RECORD_PARTS[key] for key in ("msg", *keys)})
        ),
        min_size=2,
        max_size=16,
    )
)
@example([{"time": 1, "msg": "", "level": "error"}, {"time": 2, "msg": "", "level": "error"}])
def test_a_record_s_cached_verdict_is_its_own(records):
    """One scanner (its record cache warm) finds in each record what a fresh one finds."""
    scanner = Scanner(classify)
    for number, record in enumerate(records, start=1):
        line = json.dumps(record)
        expected = Scanner(classify).feed(number, line)
        assert scanner.feed(number, line) == expected, line


@pytest.mark.parametrize(
    ("record", "cached"),
    [
        pytest.param({"level": "error", "msg": "reset", "a": list(range(100))}, True, id="small"),
        pytest.param({"msg": "reset", "a": list(range(MAX_VALUES))}, False, id="values-in-a-list"),
        pytest.param(
            {"msg": "reset", **{f"k{i}": i for i in range(MAX_VALUES)}}, False, id="unread-keys"
        ),
        pytest.param({"msg": "Traceback (most recent call last):\n x"}, False, id="traceback"),
    ],
)
def test_a_record_near_the_classifiers_bound_is_not_cached(record, cached):
    """Its values count towards the bound whether read or not: such a record is classified."""
    assert (_scan._record_key(record) is not None) is cached


@settings(max_examples=1000)
@given(
    st.lists(
        st.sampled_from(["ERR", "rror", "rro", "ER", "R", "Err", "evel", "CRIT", "x", " ", "é"]),
        max_size=6,
    ).map("".join)
    | st.text()
)
def test_the_hint_shortcut_is_the_hint_search(text):
    """``_hinted`` answers as the search of every marker hint does (its shortcuts are hints)."""
    assert {"ERR", "rror"} <= set(_scan.MARKER_HINTS)
    assert _scan._hinted(text) is (_scan._MARKER_HINT.search(text) is not None)


# ---------------------------------------------------------------- the words layer
# Quoted in issue 22 as a recoverable failure no rule knew (the seed-003 family).
_SEED_LIKE = "stream closed before a finish_reason was received"


class _Counting:
    """A classifier's ``by_words`` that counts what it was asked about."""

    def __init__(self) -> None:
        self.classifier = Classifier()
        self.asked: list[object] = []

    def __call__(self, obj: object) -> Classification:
        self.asked.append(obj)
        return self.classifier.by_words(obj)


def _words_scan(lines: list[str], mode: InputMode = InputMode.AUTO) -> tuple[list, _Counting]:
    words = _Counting()
    scanner = Scanner(words.classifier.by_rules, mode=mode, words=words)
    found = []
    for number, line in enumerate(lines, 1):
        found += scanner.feed(number, line)
    return [*found, *scanner.finish()], words


def test_the_words_name_an_error_and_never_make_one():
    """A marked line no rule decides gets the words' code; the same words unmarked are no error."""
    found, words = _words_scan([f"2026-07-22 10:00:00 ERROR worker: {_SEED_LIKE}", _SEED_LIKE])
    [error] = found
    assert (error.line, error.classification.layer) == (1, Layer.WORDS)
    assert error.classification.code is ErrorCode.TRANSPORT
    assert not error.matched  # no rule decided: it is still listed as unmatched
    assert len(words.asked) == 1  # only the error was read by the words layer


def test_the_words_layer_is_not_asked_about_what_a_rule_decided():
    """A rule's verdict stands; the words are never read for it."""
    found, words = _words_scan(["ERROR worker: Connection reset by peer"])
    [error] = found
    assert error.classification.layer is Layer.TEXT
    assert words.asked == []


def test_with_the_full_classify_the_words_still_make_no_error():
    """``Scanner(classify)``: a words verdict on an unmarked line does not make it an error."""
    assert classify(_SEED_LIKE).layer is Layer.WORDS
    assert scan(_SEED_LIKE) == []
    [error] = scan(f"ERROR {_SEED_LIKE}")
    assert error.classification.layer is Layer.WORDS


def test_a_flagged_record_gets_the_words_code_an_unflagged_one_is_no_error():
    """JSON lines: the level says error, the words say which; without the level, nothing."""
    flagged = json.dumps({"level": "error", "msg": _SEED_LIKE})
    plain = json.dumps({"level": "info", "msg": _SEED_LIKE})
    found, words = _words_scan([plain, flagged], mode=InputMode.JSONL)
    [error] = found
    assert (error.line, error.classification.layer) == (2, Layer.WORDS)
    assert len(words.asked) == 1


def test_a_traceback_no_rule_decides_is_read_by_its_words():
    """The rebuilt chain's type and message are read when no rule decides it."""
    lines = [
        "Traceback (most recent call last):",
        '  File "app.py", line 3, in <module>',
        "    call()",
        f"RuntimeError: {_SEED_LIKE}",
    ]
    found, _ = _words_scan(lines)
    [error] = found
    assert (error.kind, error.classification.layer) == ("traceback", Layer.WORDS)
