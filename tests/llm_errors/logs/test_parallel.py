"""``--jobs``: a file split across processes gives exactly the one-process output."""

import contextlib
import io
from pathlib import Path

import pytest

from llm_errors.logs import _parallel
from llm_errors.logs._cli import main

SAMPLE_LOG = Path(__file__).parents[3] / "examples" / "sample.log"
SAMPLE_JSONL = Path(__file__).parents[3] / "examples" / "sample.jsonl"


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
