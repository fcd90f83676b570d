"""``--jobs``: a file split across processes gives exactly the one-process output."""

import contextlib
import io
from datetime import UTC, datetime
from pathlib import Path

import pytest

from llm_errors.logs import _context, _parallel, _report_command
from llm_errors.logs._cli import main

pytestmark = pytest.mark.integration

SAMPLE_LOG = Path(__file__).parents[3] / "examples" / "sample.log"
SAMPLE_JSONL = Path(__file__).parents[3] / "examples" / "sample.jsonl"
#: Real multi-line errors (test_group.py), in blocks after a ``== ID SOURCE`` line.
MULTI_LINE = Path(__file__).with_name("multi_line.txt")


def _run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["classify", "--progress", "never", *argv])
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def big_log(tmp_path):
    """The two sample files, interleaved and repeated: tracebacks and JSON all over."""
    text = SAMPLE_LOG.read_text() + SAMPLE_JSONL.read_text()
    path = tmp_path / "mixed.log"
    path.write_text(text * 20)
    return path


@pytest.fixture
def merges(monkeypatch):
    """Every file is split; returns a list that records whether each merge succeeded."""
    monkeypatch.setattr(_parallel, "PARALLEL_MIN", 0)
    seen = []
    merge = _parallel.merge

    def spy(parts, tasks):
        merged = merge(parts, tasks)
        seen.append(merged is not None)
        return merged

    monkeypatch.setattr(_parallel, "merge", spy)
    return seen


@pytest.mark.parametrize(
    "fmt", [pytest.param("jsonl", id="jsonl"), pytest.param("table", id="table")]
)
def test_split_scan_equals_one_process(big_log, merges, monkeypatch, fmt):
    """Four processes meet in their overlaps and merge to the one-process output."""
    monkeypatch.setattr(_parallel, "OVERLAP", 8192)
    one = _run("--format", fmt, str(big_log))
    four = _run("--format", fmt, "--jobs", "4", str(big_log))
    assert merges == [True]
    assert four == one


@pytest.mark.parametrize("fmt", ["jsonl", "table"])
def test_a_finding_released_on_the_meeting_line_is_kept_once(tmp_path, merges, fmt):
    """Every other line an error: each one is released by the ordinary line after it.

    After that line both processes are clean, so it can be the line where they meet,
    and the finding it released is tagged with it: the merge must keep it exactly once.
    """
    errors = [
        "2026-07-22T10:00:00Z ERROR app Error code: 429 - rate_limit_exceeded",
        "2026-07-22T10:00:01Z ERROR app httpx.ConnectError: [Errno 111] Connection refused",
        "2026-07-22T10:00:02Z ERROR app something nobody has a rule for",
    ]
    ordinary = "2026-07-22T10:00:03Z INFO app request served"
    path = tmp_path / "errors.log"
    path.write_text("".join(f"{errors[i % 3]}\n{ordinary}\n" for i in range(3000)))
    one = _run("--format", fmt, str(path))
    for jobs in ("2", "3", "7"):
        assert _run("--format", fmt, "--jobs", jobs, str(path)) == one
    assert merges == [True, True, True]
    assert "3,000 errors" in one[1] + one[2]


def test_no_meeting_point_scans_again_with_one_process(big_log, merges, monkeypatch):
    """An overlap too short to meet in falls back to one process, with the same output."""
    monkeypatch.setattr(_parallel, "OVERLAP", 1)
    path = big_log.with_name("tracebacks.log")
    path.write_text(SAMPLE_LOG.read_text() * 4)
    one = _run("--format", "jsonl", str(path))
    many = _run("--format", "jsonl", "--jobs", "8", str(path))
    assert False in merges
    assert many == one


def test_jobs_zero_means_every_core(big_log):
    """``--jobs 0`` is accepted (one process per core); a negative count is a usage error."""
    assert _run("--format", "jsonl", "--jobs", "0", str(big_log))[0] == 0
    assert _run("--jobs", "-1", str(big_log))[0] == 2
    assert _run("--jobs", "two", str(big_log))[0] == 2


@pytest.fixture
def report(tmp_path, monkeypatch):
    """Run ``report``; the page is rendered with a fixed time taken and time written."""
    render = _report_command.render_html
    written = datetime(2025, 3, 14, 12, 0, tzinfo=UTC)

    def fixed(digest, **options):
        return render(digest, **{**options, "elapsed": 0.0, "generated": written})

    monkeypatch.setattr(_report_command, "render_html", fixed)

    def run(*argv):
        output = tmp_path / "report.html"
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            status = main(["report", "--progress", "never", "-o", str(output), *argv])
        return status, err.getvalue(), output.read_text(encoding="utf-8")

    return run


@pytest.fixture
def look_backs(monkeypatch):
    """Counts the findings a range could not date and the ranges before it did."""
    dated = []

    class Counting(_context.Earlier):
        def date(self, found):
            answer = super().date(found)
            if found.look_back is not None:
                dated.append(answer.when is not None)
            return answer

    monkeypatch.setattr(_parallel, "Earlier", Counting)
    return dated


@pytest.mark.parametrize("jobs", [pytest.param("2", id="2"), pytest.param("4", id="4")])
def test_report_jobs_equals_one_process(big_log, merges, monkeypatch, report, jobs):
    """``report --jobs N`` writes the page ``--jobs 1`` writes, with the same summary."""
    monkeypatch.setattr(_parallel, "OVERLAP", 8192)
    one = report(str(big_log))
    many = report("--jobs", jobs, str(big_log))
    assert merges == [True]
    assert many == one
    assert one[0] == 0
    assert "errors</span>" in one[2]


def test_report_jobs_dates_from_the_ranges_before(tmp_path, merges, look_backs, report):
    """Errors with no timestamp in their own range take the last one before it, as in one."""
    path = tmp_path / "untimed.log"
    # Errors without a timestamp, as examples/sample.log has them, and a timestamped line
    # now and then: each range must take the last one before it, not one further on.
    lines = ["2025-03-14 09:12:01,004 ERROR x: HTTP/1.1 429 Too Many Requests"]
    for n in range(3000):
        if n % 700 == 699:
            lines.append(f"2025-03-14 09:{13 + n // 700}:00,000 INFO router: request started")
        lines += ["openrouter request failed: socket hang up", ""]
    path.write_text("\n".join(lines) + "\n")
    one = report(str(path))
    many = report("--jobs", "4", str(path))
    assert merges == [True]
    assert look_backs
    assert all(look_backs)
    assert many == one
    assert "3,001 of 3,001 errors carry a timestamp" in one[2]


@pytest.mark.integration
@pytest.mark.parametrize(
    "fmt", [pytest.param("jsonl", id="jsonl"), pytest.param("table", id="table")]
)
def test_multi_line_errors_split_across_processes_equal_one_process(
    tmp_path, merges, monkeypatch, report, fmt
):
    """Frames, causes and HTML pages cut between processes group as one process groups them.

    A short overlap puts many cuts inside groups; the report's page and summary agree too.
    """
    monkeypatch.setattr(_parallel, "OVERLAP", 4096)
    shapes = [block.partition("\n")[2] for block in MULTI_LINE.read_text().split("\n== ")[1:]]
    path = tmp_path / "multi.log"
    info = "2026-02-25T15:04:00.000Z [INFO] request served\n"
    path.write_text("".join(f"{shape.rstrip()}\n{info}" for shape in shapes * 150))
    one = _run("--format", fmt, str(path))
    for jobs in ("2", "3"):
        assert _run("--format", fmt, "--jobs", jobs, str(path)) == one
    assert f"{len(shapes) * 150:,} errors" in one[1] + one[2]  # one per shape, each once
    assert report("--jobs", "3", str(path)) == report(str(path))
    assert merges == [True, True, True]
