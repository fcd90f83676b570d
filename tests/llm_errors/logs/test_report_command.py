"""``llm-errors report`` end to end through ``main``: inputs, statuses, the honest header."""

import gzip
import io
import sys
from pathlib import Path

import pytest

from llm_errors.logs import _cli
from llm_errors.logs._cli import main
from llm_errors.logs._report_command import EXIT_OK, EXIT_UNREADABLE, EXIT_UNWRITABLE

SAMPLE_LOG = Path(__file__).parents[3] / "examples" / "sample.log"
SAMPLE_JSONL = Path(__file__).parents[3] / "examples" / "sample.jsonl"


def test_statuses_are_classify_s():
    """The statuses the two commands share have the same values."""
    assert (EXIT_OK, EXIT_UNREADABLE) == (_cli.EXIT_OK, _cli.EXIT_UNREADABLE)
    assert EXIT_UNWRITABLE not in {
        _cli.EXIT_OK,
        _cli.EXIT_FAIL_ON,
        _cli.EXIT_USAGE,
        _cli.EXIT_UNREADABLE,
    }


def test_writes_the_page_and_a_summary(capsys, tmp_path):
    """The page is written whole and stderr says where, with classify's summary line."""
    output = tmp_path / "report.html"
    assert main(["report", str(SAMPLE_LOG), "-o", str(output)]) == EXIT_OK
    _, err = capsys.readouterr()
    # The two waits are the sample's "Please try again in 2.06s." and "... in 2s.".
    waits = "2 asked to wait (median 2.03 s, max 2.06 s)"
    assert err == (
        f"llm-errors: wrote {output}: 1 file, 110 lines: 34 errors (18 retryable, 7 unmatched); "
        f"{waits}\n"
    )
    page = output.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert page.endswith("</html>\n")
    assert "Every line was read: no input problems." in page
    assert f"Of these errors, {waits}, by Retry-After or a stated wait." in page
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no partial file left


def test_the_page_names_the_reset_instants_stated(capsys, tmp_path):
    """A quota error that says when it resets is on the page and in the summary line."""
    log = tmp_path / "app.log"
    log.write_text(
        "ERROR Claude AI usage limit reached|1762952400\n"  # anthropics/claude-code#11429
        "ERROR usage limit reached, resets at 2026-05-15T15:00:00Z (2056)\n",  # MiniMax-M2.7#36
        encoding="utf-8",
    )
    output = tmp_path / "report.html"
    assert main(["report", str(log), "-o", str(output)]) == EXIT_OK
    _, err = capsys.readouterr()
    resets = "2 stated when their limit resets (2025-11-12T13:00:00Z to 2026-05-15T15:00:00Z)"
    assert resets in err
    assert f"Of these errors, {resets}." in output.read_text(encoding="utf-8")


def test_gzip_and_stdin(capsys, tmp_path, monkeypatch):
    """A gzip file and stdin are read as classify reads them."""
    packed = tmp_path / "sample.log.gz"
    packed.write_bytes(gzip.compress(SAMPLE_LOG.read_bytes()))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SAMPLE_JSONL.read_bytes())))
    assert main(["report", str(packed), "-", "-o", "-"]) == EXIT_OK
    page, err = capsys.readouterr()
    assert "2 files, 129 lines (19 JSON records): 46 errors" in err
    assert "&lt;stdin&gt;" in page
    assert f"{SAMPLE_LOG.stat().st_size / 1024:.1f} KiB" in page  # decompressed bytes


def test_problems_and_unreadable_files_are_named(capsys, tmp_path):
    """Unreadable files and bad lines are listed with where and why; the status says so."""
    log = tmp_path / "app.log"
    log.write_bytes(
        b"2025-03-14 09:12:01,004 ERROR x: HTTP/1.1 429 Too Many Requests\n"
        b'{"msg": not json\n'
        b"bin\x00ary\n"
        b"caf\xe9 ERROR\n"
    )
    output = tmp_path / "report.html"
    missing = tmp_path / "missing.log"
    status = main(["report", str(log), str(missing), "-o", str(output)])
    assert status == EXIT_UNREADABLE
    _, err = capsys.readouterr()
    assert "input problems:" in err
    page = output.read_text(encoding="utf-8")
    assert '<section id="problems">' in page
    assert f"{missing}: No such file or directory" in page
    assert f"{log}:2: not valid JSON" in page
    assert f"{log}:3: binary data (NUL bytes); skipped" in page
    assert f"{log}:4: not UTF-8 at byte 3" in page
    assert "unreadable: No such file or directory" in page


def test_missing_field_is_counted(capsys, tmp_path):
    """Records without --field's path are said to be read but not errors."""
    output = tmp_path / "report.html"
    status = main(["report", "--field", "err.message", str(SAMPLE_JSONL), "-o", str(output)])
    assert status == EXIT_OK
    page = output.read_text(encoding="utf-8")
    assert "had no field &#x27;err.message&#x27;: counted as read, not as errors." in page


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        pytest.param("{tmp}", "is a directory", id="directory"),
        pytest.param("{tmp}/nowhere/report.html", "no directory", id="no-directory"),
    ],
)
def test_unwritable_output_fails_before_scanning(capsys, tmp_path, target, reason):
    """An output that cannot be written is refused up front, with its own status."""
    output = target.format(tmp=tmp_path)
    assert main(["report", str(SAMPLE_LOG), "-o", output]) == EXIT_UNWRITABLE
    _, err = capsys.readouterr()
    assert err.startswith(f"llm-errors: cannot write {output}: {reason}")
    assert "wrote" not in err


def test_write_failure_leaves_nothing_behind(capsys, tmp_path, monkeypatch):
    """If writing fails after the scan, no partial file is left and the status says so."""
    output = tmp_path / "report.html"

    def fail(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "replace", fail)
    assert main(["report", str(SAMPLE_LOG), "-o", str(output)]) == EXIT_UNWRITABLE
    _, err = capsys.readouterr()
    assert err == f"llm-errors: cannot write {output}: No space left on device\n"
    assert list(tmp_path.iterdir()) == []


def test_usage_errors(capsys):
    """--output is required, and --field cannot go with --input text (as for classify)."""
    assert main(["report", str(SAMPLE_LOG)]) == 2
    assert main(["report", "--input", "text", "--field", "err", "-o", "-", "x.log"]) == 2
    _, err = capsys.readouterr()
    assert "--field applies to JSON records" in err


def test_truncated_gzip_counts_what_was_read(capsys, tmp_path):
    """Reading that fails mid-way is named in the page; what came before still counts."""
    packed = gzip.compress(SAMPLE_LOG.read_bytes())
    broken = tmp_path / "cut.log.gz"
    broken.write_bytes(packed[: len(packed) // 2])
    output = tmp_path / "report.html"
    assert main(["report", str(broken), "-o", str(output)]) == EXIT_UNREADABLE
    page = output.read_text(encoding="utf-8")
    assert "unreadable: reading failed" in page
    assert "errors</span>" in page


@pytest.mark.parametrize("offset", ["+24:00", "+2400", "+99", "-24:00"])
def test_an_impossible_offset_leaves_the_error_undated(capsys, tmp_path, offset):
    """A time with an offset no zone has is no time: counted undated, never a crash."""
    log = tmp_path / "app.log"
    # httpx's line from examples/sample.log, and openai-python's APITimeoutError message.
    url = "https://api.openai.com/v1/chat/completions"
    httpx = f'httpx: HTTP Request: POST {url} "HTTP/1.1 429 Too Many Requests"'
    record = '"level": "error", "msg": "Request timed out."'
    log.write_text(
        f"2025-03-14T09:12:01{offset} INFO {httpx}\n"
        f'{{"time": "2025-03-14T09:12:02{offset}", {record}}}\n'
        f"2025-03-14 09:12:03,004 INFO {httpx}\n",
        encoding="utf-8",
    )
    output = tmp_path / "report.html"
    assert main(["report", str(log), "-o", str(output)]) == EXIT_OK
    page = output.read_text(encoding="utf-8")
    assert "1 of 3 errors carry a timestamp (2 without are not drawn)" in page
