"""Reading inputs: bounded lines, decoding problems, gzip, unreadable files."""

import gzip
import io

import pytest

from llm_errors.logs._input import InputError, decode_line, iter_lines, open_source
from llm_errors.logs._scan import ProblemKind


def test_iter_lines_keeps_endings_and_counts_nothing_cut():
    """Ordinary lines come back whole, the last one even without a newline."""
    stream = io.BytesIO(b"one\r\ntwo\nthree")
    assert list(iter_lines(stream)) == [(b"one\r\n", 0), (b"two\n", 0), (b"three", 0)]


def test_iter_lines_cuts_an_over_long_line_and_resumes_after_it():
    """A line over the limit is cut; its rest is skipped and counted, the next line is intact."""
    stream = io.BytesIO(b"x" * 25 + b"\r\nnext\n")
    assert list(iter_lines(stream, limit=10)) == [(b"x" * 10, 15), (b"next\n", 0)]


def test_iter_lines_line_exactly_at_the_limit_is_not_cut():
    """A line whose content is exactly the limit, followed by its newline, lost nothing."""
    stream = io.BytesIO(b"x" * 10 + b"\nnext\n")
    assert list(iter_lines(stream, limit=10)) == [(b"x" * 10, 0), (b"next\n", 0)]


def test_iter_lines_read_failure_names_the_line():
    """A stream that fails mid-way raises InputError with the line it was reading."""
    data = gzip.compress(b"a\nb\n" * 1000)[:-30]  # truncated gzip stream
    with pytest.raises(InputError) as caught:
        list(iter_lines(gzip.GzipFile(fileobj=io.BytesIO(data))))
    assert caught.value.line is not None
    assert "reading failed" in caught.value.detail


@pytest.mark.parametrize(
    ("raw", "text", "kinds"),
    [
        pytest.param(b"plain\n", "plain", [], id="plain"),
        pytest.param(b"crlf\r\n", "crlf", [], id="crlf"),
        pytest.param("caf\u00e9\n".encode(), "caf\u00e9", [], id="utf8"),
        pytest.param(b"caf\xe9\n", "caf\ufffd", [ProblemKind.UNDECODABLE], id="latin1"),
        pytest.param(b"\x89PNG\x00\x00\n", None, [ProblemKind.BINARY], id="nul"),
        pytest.param(b"\x1b[31mERROR\x1b[0m boom\n", "ERROR boom", [], id="ansi"),
    ],
)
def test_decode_line(raw, text, kinds):
    """Decoding strips endings and colours; oddities are reported, never dropped silently."""
    decoded, problems = decode_line(7, raw)
    assert decoded == text
    assert [p.kind for p in problems] == kinds
    assert all(p.line == 7 for p in problems)


def test_decode_line_strips_bom_on_the_first_line_only():
    """A UTF-8 byte-order mark is not part of the first line's text."""
    assert decode_line(1, b"\xef\xbb\xbfhello\n")[0] == "hello"
    assert decode_line(2, b"\xef\xbb\xbfhello\n")[0] == "\ufeffhello"


def test_decode_line_cut_in_the_middle_of_a_character():
    """A cut that splits a UTF-8 character reports the long line, not bad encoding."""
    raw = "ab\u00e9".encode()[:-1]
    decoded, problems = decode_line(3, raw, cut=100)
    assert decoded == "ab"
    assert [p.kind for p in problems] == [ProblemKind.LONG_LINE]
    assert "skipped 100 bytes" in problems[0].detail


def test_open_source_decompresses_gzip(tmp_path):
    """A gzip file is read as its decompressed lines, its size is the file's."""
    path = tmp_path / "app.log.gz"
    path.write_bytes(gzip.compress(b"first\nsecond\n"))
    with open_source(str(path), io.BytesIO()) as source:
        assert [line for line, _ in iter_lines(source.stream)] == [b"first\n", b"second\n"]
        assert source.size == path.stat().st_size
        assert source.position() == source.size
        assert source.name == str(path)


def test_open_source_stdin():
    """``-`` reads the given stdin stream, shown as ``<stdin>``, with no size."""
    stdin = io.BytesIO(b"line\n")
    with open_source("-", stdin) as source:
        assert source.name == "<stdin>"
        assert source.size is None
        assert list(iter_lines(source.stream)) == [(b"line\n", 0)]
    assert not stdin.closed


@pytest.mark.parametrize(
    ("make", "detail"),
    [
        pytest.param(lambda p: p / "missing.log", "No such file or directory", id="missing"),
        pytest.param(lambda p: p, "Is a directory", id="directory"),
    ],
)
def test_open_source_unreadable(tmp_path, make, detail):
    """A file that cannot be opened raises InputError with the OS's reason."""
    with pytest.raises(InputError, match=detail), open_source(str(make(tmp_path)), io.BytesIO()):
        pass


def test_open_source_stdin_unavailable():
    """Asking for stdin where there is none is an input error, not a crash."""
    with pytest.raises(InputError, match="no standard input"), open_source("-"):
        pass
