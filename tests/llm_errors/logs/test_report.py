"""Rendering: JSON Lines records, the summary line, the table, the progress bar."""

import dataclasses
import json
import re

import pytest

from llm_errors import Classification, ErrorCode, Explanation, Layer
from llm_errors.logs import _report
from llm_errors.logs._report import (
    explanation_record,
    finding_line,
    finding_record,
    render_explanation,
    render_progress,
    render_table,
    summary_line,
)
from llm_errors.logs._scan import Finding, Problem, ProblemKind
from llm_errors.logs._tally import Tally


def make_finding(code, *, retryable, layer=Layer.TEXT, rule="rule.x", message="boom", **kw):
    verdict = Classification(code=code, retryable=retryable, rule=rule, layer=layer, **kw)
    return Finding(3, 9, "traceback", verdict, message)


def test_finding_record_has_every_documented_key():
    """A jsonl record names file, lines, code, rule, layer, retryability and the excerpt."""
    found = make_finding(
        ErrorCode.RATE_LIMIT, retryable=True, retry_after=2.5, status=429, resets_at=1_788_220_800.0
    )
    record = finding_record("app.log", found)
    assert record == {
        "file": "app.log",
        "line": 3,
        "end_line": 9,
        "kind": "traceback",
        "code": "RATE_LIMIT",
        "rule": "rule.x",
        "layer": "text",
        "retryable": True,
        "retry_after": 2.5,
        "resets_at": "2026-09-01T00:00:00Z",
        "status": 429,
        "matched": True,
        "message": "boom",
    }
    assert json.loads(json.dumps(record)) == record


def filled_tally():
    tally = Tally(fail_on=frozenset({ErrorCode.QUOTA_EXCEEDED}))
    tally.files, tally.lines = 2, 1234
    for _ in range(3):
        tally.add(make_finding(ErrorCode.RATE_LIMIT, retryable=True, rule="openai.rate_limit"))
    tally.add(make_finding(ErrorCode.QUOTA_EXCEEDED, retryable=False, rule="openai.quota"))
    for n in (17, 18):
        unmatched = make_finding(
            ErrorCode.PROVIDER_ERROR,
            retryable=False,
            layer=Layer.FALLBACK,
            rule="fallback",
            message=f"ERROR jobs: job {n} failed: KeyError: 'choices'",
        )
        tally.add(unmatched)
    tally.add_problem("gone.log", Problem(ProblemKind.UNREADABLE, None, "No such file"))
    return tally


def test_summary_line():
    """The summary counts inputs, errors, retryable and unmatched ones, problems, --fail-on."""
    assert summary_line(filled_tally()) == (
        "2 files, 1,234 lines: 6 errors (3 retryable, 2 unmatched); "
        "input problems: 1 unreadable file; --fail-on QUOTA_EXCEEDED: seen: QUOTA_EXCEEDED (1)"
    )


def test_summary_line_missing_field():
    """Records without --field's path are in the summary line, as in the table."""
    tally = Tally(files=1, lines=3, records=3, missing_field=2)
    assert summary_line(tally, field="error.message") == (
        "1 file, 3 lines (3 JSON records): 0 errors (0 retryable, 0 unmatched); "
        "2 JSON records had no field 'error.message'"
    )


#: Tally fields that are breakdowns: the table shows them row by row, and the jsonl
#: output carries them in its records (code, rule, message), not in its summary line.
BREAKDOWNS = {"by_code", "retryable_by_code", "by_rule", "unmatched_messages", "unreadable"}


def every_count_tally():
    """A tally whose every count is set, each to a number no other count has."""
    tally = Tally(fail_on=frozenset({ErrorCode.AUTH, ErrorCode.SERVER}))
    counts = [f.name for f in dataclasses.fields(Tally) if f.type in {"int", int}]
    for offset, name in enumerate(counts):
        setattr(tally, name, 1_000_003 + 1_000 * offset)
    tally.by_code[ErrorCode.SERVER] = tally.by_rule["server.x", ErrorCode.SERVER] = 77_701
    for offset, kind in enumerate(ProblemKind):
        tally.problems[kind] = 88_801 + offset
    tally.waits.add(12, 99_901)  # 99,904 errors asked to wait: median 12 s, max 56 s
    tally.waits.add(56, 3)
    tally.resets.add(1_788_220_800.0, 7)  # 7 errors stated a reset: 2026-09-01T00:00:00Z ...
    tally.resets.add(1_788_224_400.0, 2)  # ... to 2026-09-01T01:00:00Z
    return tally, counts


def numbers(text):
    return re.findall(r"\d[\d,]*", text)


def test_summary_line_and_table_headline_carry_the_same_counts():
    """Every count the table gives is in the jsonl summary line and the other way round."""
    tally, counts = every_count_tally()
    assert set(counts) == {
        "files",
        "lines",
        "records",
        "missing_field",
        "errors",
        "unmatched",
        "retryable",
    }
    fields = {f.name for f in dataclasses.fields(Tally)}
    # A new field: decide whether the summary gives it.
    assert fields == {*counts, *BREAKDOWNS, "problems", "fail_on", "waits", "resets"}
    line = summary_line(tally, field="msg")
    table = render_table(tally, field="msg")
    expected = [f"{getattr(tally, name):,}" for name in counts]
    expected += [f"{n:,}" for n in tally.problems.values()]
    expected.append("77,701")  # the --fail-on code seen, with its count
    expected += ["99,904", "12", "56"]  # the errors that asked to wait, their median and max
    resets = "9 stated when their limit resets (2026-09-01T00:00:00Z to 2026-09-01T01:00:00Z)"
    assert resets in line
    assert resets in table
    expected += numbers(resets)  # the errors that stated a reset, its first and last instants
    for number in expected:
        assert number in numbers(line), number
        assert number in numbers(table), number
    assert sorted(numbers(line)) == sorted(expected)
    assert "had no field 'msg'" in line
    assert "--fail-on AUTH, SERVER: seen: SERVER (77,701)" in line


def test_render_table_sections():
    """The table has per-code and per-rule counts, shares, unmatched messages, problems."""
    table = render_table(filled_tally(), top=5)
    lines = table.splitlines()
    assert lines[0] == (
        "Scanned 2 files, 1,234 lines: 6 errors (3 retryable, 2 unmatched); "
        "input problems: 1 unreadable file."
    )
    rows = [line.split() for line in lines]
    assert rows.index(["RATE_LIMIT", "3", "50%", "yes"]) < rows.index(["total", "6", "100%"])
    assert ["QUOTA_EXCEEDED", "1", "17%", "no"] in rows
    assert ["PROVIDER_ERROR", "2", "33%", "no"] in rows
    assert "  retryable share: 50%" in lines
    assert ["openai.rate_limit", "RATE_LIMIT", "3"] in rows
    assert "       2  ERROR jobs: job <n> failed: KeyError: 'choices'" in lines
    assert "      gone.log: No such file" in lines
    assert lines[-1] == "--fail-on QUOTA_EXCEEDED: seen: QUOTA_EXCEEDED (1)"


def test_render_table_without_errors():
    """An input without errors says so plainly."""
    tally = Tally()
    tally.files, tally.lines = 1, 10
    assert render_table(tally) == (
        "Scanned 1 file, 10 lines: 0 errors (0 retryable, 0 unmatched).\n\nNo errors found.\n"
    )


def test_render_table_missing_field_and_mixed_retryability():
    """Records without --field are counted; a code retried only sometimes shows the split."""
    tally = Tally()
    tally.missing_field = 4
    tally.add(make_finding(ErrorCode.SERVER, retryable=True))
    tally.add(make_finding(ErrorCode.SERVER, retryable=False))
    table = render_table(tally, field="error.message")
    assert "4 JSON records had no field 'error.message'." in table
    assert ["SERVER", "2", "100%", "1", "of", "2"] in [line.split() for line in table.splitlines()]


def test_render_progress():
    """The bar shows the label, the filled share, sizes and the rate."""
    line = render_progress("app.log", 512 << 20, 1024 << 20, 2.0)
    assert line.startswith("app.log ")
    assert "[############............]  50%" in line
    assert line.endswith("512/1,024 MiB  256.0 MiB/s  ETA 0:02")


def test_render_progress_without_a_size():
    """On stdin or gzip: lines and bytes read and the speed with one decimal, no percentage."""
    line = render_progress("<stdin>", 3 << 19, None, 2.0, lines=12_345)
    assert line.split() == ["<stdin>", "12,345", "lines", "2", "MiB", "0.8", "MiB/s"]
    assert "%" not in line


def test_render_progress_long_label_keeps_its_end():
    """A long path is shortened from the left, where it is least telling."""
    line = render_progress("/var/log/" + "x" * 50 + "/app.log", 0, 100, 0.0)
    assert line.startswith("…")
    assert "/app.log " in line
    assert line.endswith("- MiB/s")


def test_explanation_record_and_rendering():
    """Explain's record redacts the matched text; the human form shows - for none."""
    verdict = Classification(
        code=ErrorCode.AUTH, retryable=False, status=401, rule="auth.key", layer=Layer.TEXT
    )
    key = "sk-ant-" + "k3y" * 10
    explanation = Explanation(verdict, "a bad key", "docs", None, f"invalid key {key}")
    record = explanation_record(explanation)
    assert key not in record["matched"]
    assert record["status"] == 401
    assert record["example"] is None
    lines = render_explanation(record).splitlines()
    assert lines[0].split() == ["code", "AUTH"]
    assert lines[1].split() == ["retryable", "no"]
    assert ["example", "-"] in [line.split() for line in lines]


@pytest.mark.parametrize(
    "found",
    [
        pytest.param(
            make_finding(ErrorCode.RATE_LIMIT, retryable=True, retry_after=2.5, status=429),
            id="rate-limit",
        ),
        pytest.param(
            make_finding(
                ErrorCode.PROVIDER_ERROR,
                retryable=False,
                layer=Layer.FALLBACK,
                rule="fallback",
                message='ERROR «quoted» "text"\twith \\ and ✓',
            ),
            id="unmatched-non-ascii",
        ),
        pytest.param(
            make_finding(ErrorCode.QUOTA_EXCEEDED, retryable=False, retry_after=7200.0),
            id="long-wait",
        ),
    ],
)
def test_finding_line_is_the_record_as_json_dumps_writes_it(found):
    """The assembled JSON Lines text is byte for byte ``json.dumps(finding_record(...))``."""
    for source in ("app.log", 'd\\ir/"odd" ✓.log'):
        assert finding_line(source, found) == json.dumps(finding_record(source, found))


def test_the_verdicts_json_is_kept_by_identity_and_bounded(monkeypatch):
    """Kept per verdict object, at most ``_JSON_CACHE`` of them; each text its verdict's."""
    monkeypatch.setattr(_report, "_VERDICT_TEXTS", {})
    monkeypatch.setattr(_report, "_JSON_CACHE", 2)
    findings = [make_finding(ErrorCode.SERVER, retryable=True, retry_after=s) for s in (1, 2, 3)]
    for found in [*findings, *findings]:
        assert finding_line("a.log", found) == json.dumps(finding_record("a.log", found))
        assert len(_report._VERDICT_TEXTS) <= 2
