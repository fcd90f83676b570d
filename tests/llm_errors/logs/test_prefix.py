"""The canonical form of a log line's prefix, and where its message starts."""

import pytest

from llm_errors import RULES, classify
from llm_errors.logs._prefix import canonical, message_start

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
def test_canonical_zeroes_only_the_stamp_and_ids(line, expected):
    """Digits and hex letters of the stamp and ids become 0; everything else stays, length too."""
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
def test_message_start(line, message):
    """The message starts after the whole prefix; without one it is the whole line."""
    assert line[message_start(line) :] == message


def test_canonical_lines_get_the_verdict_of_the_line():
    """Every rule example behind every prefix: the canonical line is routed like the line.

    This is the check behind classifying the canonical form (docs/classifier.md,
    "Verdict cache"); keeping a status-like fraction of a second is what it needs.
    Each example is also tried with a message id appended (folded in the canonical line).
    """
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
