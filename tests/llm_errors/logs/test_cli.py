"""The ``llm-errors`` command line, end to end through ``main`` (and once as a process)."""

import contextlib
import fcntl
import gzip
import importlib
import io
import json
import os
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from importlib import metadata
from pathlib import Path

import pytest

from llm_errors.logs import _cli
from llm_errors.logs._cli import (
    EXIT_BROKEN_PIPE,
    EXIT_FAIL_ON,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    main,
)
from llm_errors.logs._run import PROBLEMS_SHOWN

SAMPLE_LOG = Path(__file__).parents[3] / "examples" / "sample.log"
SAMPLE_JSONL = Path(__file__).parents[3] / "examples" / "sample.jsonl"

TRACEBACK_LOG = """\
2025-03-14 09:12:26,001 INFO router: request started
2025-03-14 09:12:27,730 ERROR router: completion failed
Traceback (most recent call last):
  File "/srv/router/chat.py", line 118, in complete
    response = client.chat.completions.create(**payload)
httpx.ReadTimeout: The read operation timed out
2025-03-14 09:12:31,005 INFO router: upstream check ok
2025-03-14 09:12:33,418 ERROR jobs: job 8812 failed: KeyError: 'choices'
"""


def run(capsys, *argv):
    """Run ``main``; return the status, the parsed stdout records (jsonl) and stderr."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def records(out):
    return [json.loads(line) for line in out.splitlines()]


@pytest.fixture
def traceback_log(tmp_path):
    path = tmp_path / "app.log"
    path.write_text(TRACEBACK_LOG)
    return str(path)


def test_classify_plain_text_jsonl(capsys, traceback_log):
    """Each error becomes one JSON object with its place, verdict and a message excerpt."""
    status, out, err = run(capsys, "classify", "--format", "jsonl", traceback_log)
    assert status == EXIT_OK
    timeout, unmatched = records(out)
    assert timeout == {
        "file": traceback_log,
        "line": 2,
        "end_line": 6,
        "kind": "traceback",
        "code": "TIMEOUT",
        "rule": timeout["rule"],
        "layer": "exception",
        "retryable": True,
        "retry_after": None,
        "resets_at": None,
        "status": None,
        "matched": True,
        "message": "httpx.ReadTimeout: The read operation timed out",
    }
    assert unmatched["line"] == 8
    assert (unmatched["code"], unmatched["rule"], unmatched["matched"]) == (
        "PROVIDER_ERROR",
        "fallback",
        False,
    )
    assert err == "llm-errors: 1 file, 8 lines: 2 errors (1 retryable, 1 unmatched)\n"


def test_default_format_is_jsonl_when_stdout_is_not_a_terminal(capsys, traceback_log):
    """Captured stdout is not a terminal, so the default is jsonl."""
    status, out, _ = run(capsys, "classify", traceback_log)
    assert status == EXIT_OK
    assert [r["code"] for r in records(out)] == ["TIMEOUT", "PROVIDER_ERROR"]


def test_jsonl_input_with_dotted_field(capsys, tmp_path):
    """``--field`` picks the message out of each record by a dotted path."""
    path = tmp_path / "app.jsonl"
    lines = [
        {"ts": 1, "level": "info", "msg": "served"},
        {"ts": 2, "level": "error", "error": {"message": "Request timed out."}},
        {"ts": 3, "level": "error", "error": {"message": "job 4 failed"}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    status, out, err = run(capsys, "classify", "--field", "error.message", str(path))
    assert status == EXIT_OK
    found = records(out)
    assert [(r["line"], r["code"], r["kind"]) for r in found] == [
        (2, "TIMEOUT", "record"),
        (3, "PROVIDER_ERROR", "record"),
    ]
    assert "3 JSON records" in err


def test_table_reports_missing_field(capsys, tmp_path):
    """Records without the field are counted in the table, not silently passed over."""
    path = tmp_path / "app.jsonl"
    path.write_text('{"msg": "a"}\n{"error": {"message": "socket hang up"}}\n')
    status, out, _ = run(
        capsys, "classify", "--format", "table", "--field", "error.message", str(path)
    )
    assert status == EXIT_OK
    assert "1 JSON record had no field 'error.message'." in out
    assert "TRANSPORT" in out


@pytest.mark.parametrize(
    ("options", "status"),
    [
        pytest.param(["--fail-on", "TIMEOUT"], EXIT_FAIL_ON, id="seen"),
        pytest.param(["--fail-on", "auth,timeout"], EXIT_FAIL_ON, id="comma-lowercase"),
        pytest.param(["--fail-on", "AUTH", "--fail-on", "timeout"], EXIT_FAIL_ON, id="repeated"),
        pytest.param(["--fail-on", "AUTH", "--fail-on", "QUOTA_EXCEEDED"], EXIT_OK, id="not-seen"),
        pytest.param(["--fail-on", " AUTH , QUOTA_EXCEEDED "], EXIT_OK, id="spaces-in-list"),
        pytest.param(["--fail-on", "PROVIDER_ERROR"], EXIT_FAIL_ON, id="unmatched-counts"),
    ],
)
def test_fail_on_sets_the_exit_status(capsys, traceback_log, options, status):
    """``--fail-on`` exits 1 exactly when an error with one of its codes was seen."""
    assert run(capsys, "classify", traceback_log, *options)[0] == status


@pytest.mark.parametrize(
    "codes",
    [pytest.param("TIMEOUT", id="one"), pytest.param("AUTH,TIMEOUT", id="comma-separated")],
)
def test_fail_on_takes_one_value_and_leaves_the_files(capsys, traceback_log, codes):
    """The FILEs after ``--fail-on CODE`` are read as files, not taken as codes."""
    status, out, err = run(
        capsys, "classify", "--format", "jsonl", "--fail-on", codes, traceback_log
    )
    assert status == EXIT_FAIL_ON
    assert [r["code"] for r in records(out)] == ["TIMEOUT", "PROVIDER_ERROR"]
    assert err == (
        "llm-errors: 1 file, 8 lines: 2 errors (1 retryable, 1 unmatched); "
        f"--fail-on {', '.join(sorted(codes.split(',')))}: seen: TIMEOUT (1)\n"
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        pytest.param("TIMEOUTS", "'TIMEOUTS' is not an error code (choose from", id="misspelt"),
        pytest.param("AUTH,TIMOUT", "'TIMOUT' is not an error code", id="misspelt-in-list"),
        pytest.param(",", "',' names no error code", id="empty-list"),
    ],
)
def test_fail_on_unknown_code_is_a_usage_error(capsys, traceback_log, value, message):
    """A misspelt code is a usage error naming it, and nothing is scanned."""
    status, out, err = run(capsys, "classify", "--fail-on", value, traceback_log)
    assert status == EXIT_USAGE
    assert out == ""
    assert message in err


def test_old_space_separated_fail_on_is_a_usage_error(capsys, traceback_log):
    """``--fail-on AUTH TIMEOUT FILE`` (the old form) names the code taken for a FILE."""
    status, out, err = run(capsys, "classify", "--fail-on", "AUTH", "timeout", traceback_log)
    assert status == EXIT_USAGE
    assert out == ""
    assert "'timeout' is a missing FILE named like an error code" in err


def test_a_file_named_like_a_code_is_read_when_it_exists(capsys, tmp_path, monkeypatch):
    """Only a *missing* FILE spelt like a code is taken for the old form."""
    monkeypatch.chdir(tmp_path)
    Path("AUTH").write_text(TRACEBACK_LOG)
    status, out, _ = run(capsys, "classify", "--format", "jsonl", "--fail-on", "AUTH", "AUTH")
    assert status == EXIT_OK
    assert len(records(out)) == 2


# Each bad command line: the command whose usage is shown, and what its error line must
# name (the option, the value given, the values allowed).
USAGE_ERRORS = {
    "input-enum": (["classify", "--input", "yaml"], ["--input", "'yaml'", "auto, text, jsonl"]),
    "format-enum": (["classify", "--format", "xml"], ["--format", "'xml'", "table", "jsonl"]),
    "progress-enum": (
        ["classify", "--progress", "sometimes"],
        ["--progress", "'sometimes'", "auto", "always", "never"],
    ),
    "top-negative": (["classify", "--top", "-5"], ["--top", "'-5'", "1 or more"]),
    "top-zero": (["classify", "--top", "0"], ["--top", "'0'", "1 or more"]),
    "top-word": (["classify", "--top", "ten"], ["--top", "'ten'", "1 or more"]),
    "jobs-negative": (["classify", "--jobs", "-1"], ["--jobs", "'-1'", "from 0 to 61"]),
    "jobs-over": (["classify", "--jobs", "62"], ["--jobs", "'62'", "from 0 to 61"]),
    "jobs-word": (["classify", "--jobs", "two"], ["--jobs", "'two'", "from 0 to 61"]),
    "fail-on-code": (["classify", "--fail-on", "FOO"], ["--fail-on", "'FOO'", "RATE_LIMIT"]),
    "field-empty": (["classify", "--field", ""], ["--field", "''", "dotted path"]),
    "classify-unknown": (
        ["classify", "--formt", "jsonl"],
        ["'--formt'", "did you mean --format?", "--format, --input"],
    ),
    "report-input-enum": (
        ["report", "-o", "r.html", "--input", "yaml"],
        ["--input", "'yaml'", "auto, text, jsonl"],
    ),
    "report-top": (["report", "-o", "r.html", "--top", "-5"], ["--top", "'-5'", "1 or more"]),
    "report-jobs": (["report", "-o", "r.html", "--jobs", "99"], ["--jobs", "'99'", "0 to 61"]),
    "report-output-empty": (["report", "-o", ""], ["-o/--output", "''", "a path, or -"]),
    "report-unknown": (
        ["report", "-o", "r.html", "--titel", "x"],
        ["'--titel'", "did you mean --title?", "--output"],
    ),
    "suggest-top": (["suggest", "-o", "-", "--top", "0"], ["--top", "'0'", "1 or more"]),
    "suggest-input-enum": (["suggest", "-o", "-", "--input", "xml"], ["--input", "'xml'", "jsonl"]),
    "suggest-unknown": (
        ["suggest", "-o", "-", "--jobs", "2"],
        ["'--jobs'", "--output, --input, --field, --top, --rules"],
    ),
    "explain-unknown": (["explain", "--jsn", "x"], ["'--jsn'", "did you mean --json?"]),
    "rules-check-unknown": (["rules", "check", "--strict", "x.toml"], ["'--strict'", "--help"]),
}


def test_every_usage_error_names_option_value_and_choices_under_its_command(
    capsys, tmp_path, monkeypatch
):
    """Exit 2, the command's own usage, one error line naming what was wrong; no traceback."""
    monkeypatch.chdir(tmp_path)  # where r.html would be written
    log = tmp_path / "app.log"
    log.write_text(TRACEBACK_LOG)
    wrong = {}
    for name, (argv, named) in USAGE_ERRORS.items():
        status, out, err = run(capsys, *argv, str(log))
        command = " ".join(argv[: 2 if argv[0] == "rules" else 1])
        last = err.splitlines()[-1] if err else ""
        missing = [part for part in named if part not in last]
        if (
            status != EXIT_USAGE
            or out
            or not err.startswith(f"usage: llm-errors {command} ")
            or not last.startswith(f"llm-errors {command}: error: ")
            or missing
            or "Traceback" in err
        ):
            wrong[name] = (status, err, missing)
    assert wrong == {}
    assert list(tmp_path.iterdir()) == [log]  # nothing was written


def test_files_after_options_are_files(capsys, traceback_log, monkeypatch):
    """``FILE``s may come before, between and after options, and after ``--``."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(TRACEBACK_LOG.encode())))
    status, out, err = run(
        capsys, "classify", traceback_log, "--format", "jsonl", traceback_log, "--", "-"
    )
    assert status == EXIT_OK
    assert [r["file"] for r in records(out)] == [traceback_log] * 4 + ["<stdin>"] * 2
    assert err.startswith("llm-errors: 3 files, 24 lines:")
    status, out, _ = run(capsys, "explain", "quota", "--json", "exceeded")
    assert status == EXIT_OK
    assert json.loads(out)["matched"] == "quota exceeded"


def test_field_with_text_input_is_a_usage_error(capsys, traceback_log):
    """``--field`` can never apply to plain text, so asking for both is a usage error."""
    status, out, err = run(capsys, "classify", "--input", "text", "--field", "msg", traceback_log)
    assert status == EXIT_USAGE
    assert out == ""
    assert "--field applies to JSON records" in err


def test_table_output(capsys, traceback_log):
    """The table counts per code and rule, gives the retryable share and unmatched messages."""
    status, out, err = run(
        capsys, "classify", "--format", "table", traceback_log, "--fail-on", "AUTH"
    )
    assert status == EXIT_OK
    assert err == ""
    rows = [line.split() for line in out.splitlines()]
    assert out.startswith("Scanned 1 file, 8 lines: 2 errors (1 retryable, 1 unmatched).")
    assert ["TIMEOUT", "1", "50%", "yes"] in rows
    assert ["PROVIDER_ERROR", "1", "50%", "no"] in rows
    assert ["retryable", "share:", "50%"] in rows
    assert ["fallback", "PROVIDER_ERROR", "1"] in rows
    assert "ERROR jobs: job <n> failed: KeyError: 'choices'" in out
    assert out.rstrip().endswith("--fail-on AUTH: seen: none")


def test_problems_are_reported_and_the_run_goes_on(capsys, tmp_path):
    """Unreadable files, bad JSON and binary lines: named on stderr, counted, scan continues."""
    missing = tmp_path / "missing.log"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"level": "error", "msg": "socket hang up"}\n{"level": "error", "msg\n')
    binary = tmp_path / "binary.log"
    binary.write_bytes(b"\x00\x01\x02\x89PNG\n" + b"caf\xe9 ERROR: terminated\n")
    status, out, err = run(
        capsys, "classify", str(missing), str(bad), str(binary), "--format", "jsonl"
    )
    assert status == EXIT_UNREADABLE
    assert [(Path(r["file"]).name, r["line"]) for r in records(out)] == [
        ("bad.jsonl", 1),
        ("bad.jsonl", 2),
        ("binary.log", 2),
    ]
    lines = err.splitlines()
    assert f"llm-errors: {missing}: unreadable file: No such file or directory" in lines
    assert any(
        line.startswith(f"llm-errors: {bad}:2: bad JSON line: not valid JSON") for line in lines
    )
    assert f"llm-errors: {binary}:1: binary line: binary data (NUL bytes); skipped" in lines
    assert any(line.startswith(f"llm-errors: {binary}:2: undecodable line:") for line in lines)
    assert lines[-1] == (
        "llm-errors: 2 files, 4 lines (1 JSON record): 3 errors (2 retryable, 1 unmatched); "
        "input problems: 1 bad JSON line, 1 binary line, 1 undecodable line, 1 unreadable file"
    )


def test_fail_on_wins_over_unreadable(capsys, tmp_path, traceback_log):
    """When a --fail-on code was seen the status is 1 even if another input was unreadable."""
    missing = str(tmp_path / "missing.log")
    status, *_ = run(capsys, "classify", missing, traceback_log, "--fail-on", "TIMEOUT")
    assert status == EXIT_FAIL_ON


def test_many_problems_of_one_kind_are_capped_on_stderr_but_all_counted(capsys, tmp_path):
    """After a few messages of one kind per file the rest are only counted."""
    path = tmp_path / "dump.bin"
    path.write_bytes(b"\x00junk\n" * (PROBLEMS_SHOWN + 7))
    status, _, err = run(capsys, "classify", str(path))
    assert status == EXIT_OK
    lines = err.splitlines()
    assert sum("binary data (NUL bytes)" in line for line in lines) == PROBLEMS_SHOWN
    assert (
        f"llm-errors: {path}: more binary lines follow, not shown (counted in the summary)" in lines
    )
    assert lines[-1].endswith(f"input problems: {PROBLEMS_SHOWN + 7} binary lines")


def test_stdin_dash_and_default(capsys, monkeypatch):
    """``-`` and no FILE both read stdin, shown as ``<stdin>``."""
    for argv in (["classify", "-"], ["classify"]):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(TRACEBACK_LOG.encode())))
        status, out, _ = run(capsys, *argv)
        assert status == EXIT_OK
        found = records(out)
        assert [(r["file"], r["line"], r["code"]) for r in found] == [
            ("<stdin>", 2, "TIMEOUT"),
            ("<stdin>", 8, "PROVIDER_ERROR"),
        ]


def test_gzip_input(capsys, tmp_path):
    """Gzip-compressed logs are read transparently."""
    path = tmp_path / "app.log.gz"
    path.write_bytes(gzip.compress(TRACEBACK_LOG.encode()))
    status, out, _ = run(capsys, "classify", str(path))
    assert status == EXIT_OK
    assert [r["line"] for r in records(out)] == [2, 8]


def test_progress_bar_when_forced(capsys, traceback_log):
    """``--progress always`` draws the bar on stderr and clears it at the end."""
    status, _, err = run(capsys, "classify", "--progress", "always", traceback_log)
    assert status == EXIT_OK
    assert "100%" in err
    assert "\r\x1b[K" in err


def test_no_command_is_a_usage_error(capsys):
    """Without a command there is nothing to do: usage error, status 2."""
    status, out, err = run(capsys)
    assert status == EXIT_USAGE
    assert out == ""
    assert "required: COMMAND" in err


def test_version(capsys):
    """``--version`` prints the installed distribution's version and exits 0."""
    status, out, err = run(capsys, "--version")
    assert status == EXIT_OK
    assert out == f"llm-errors {metadata.version('llm-resilience')}\n"
    assert err == ""


def test_help_documents_exit_status(capsys):
    """``--help`` lists the exit statuses."""
    status, out, _ = run(capsys, "classify", "--help")
    assert status == EXIT_OK
    assert "exit status:" in out
    assert "3    an input could not be opened or read to its end" in out
    assert "--fail-on CODE[,CODE...]" in out
    assert "space-" not in out


def test_sample_log_demo(capsys):
    """The bundled sample's errors land where the issue's policy says, and tracebacks group."""
    status, out, err = run(capsys, "classify", "--format", "jsonl", str(SAMPLE_LOG))
    assert status == EXIT_OK
    assert "input problems" not in err
    by_line = {r["line"]: r for r in records(out)}
    expected = {
        8: "RATE_LIMIT",  # httpx logs the 429 response at INFO
        12: "RATE_LIMIT",  # OpenAI TPM throttle, "try again in 2.06s"
        13: "QUOTA_EXCEEDED",  # openai.RateLimitError whose body says insufficient_quota
        26: "RATE_LIMIT",  # anthropic 529 overloaded_error
        28: "RATE_LIMIT",  # Mistral service tier capacity exceeded (429 body)
        29: "TRANSPORT",  # httpx.ConnectError -> openai.APIConnectionError chain
        51: "CONTEXT_OVERFLOW",
        52: "TRANSPORT",  # peer closed connection mid-stream
        71: "TRANSPORT",  # undici "terminated"
        72: "TRANSPORT",  # Anthropic stream ended before message_stop
        73: "TRANSPORT",  # fetch failed / ECONNRESET
        74: "SERVER",  # Cloudflare 522
        75: "SERVER",  # Envoy upstream connect error
        76: "SERVER",  # nginx 502 page
        78: "RATE_LIMIT",  # Bedrock ThrottlingException
        79: "CONTEXT_OVERFLOW",  # Bedrock "Input is too long for requested model"
        80: "AUTH",
        81: "QUOTA_EXCEEDED",  # credit balance too low
        82: "CONTENT_FILTER",
        85: "INVALID_REQUEST",  # Ollama model not found (404)
        86: "TIMEOUT",  # builtin TimeoutError traceback
        101: "RATE_LIMIT",  # Groq requests-per-minute 429
        102: "QUOTA_EXCEEDED",  # DeepSeek 402 Insufficient Balance
        103: "ABORTED",  # asyncio CancelledError traceback
    }
    assert {line: by_line[line]["code"] for line in expected} == expected
    assert by_line[29]["end_line"] == 49
    unmatched = {r["message"].split(": ", 1)[-1] for r in by_line.values() if not r["matched"]}
    assert all(
        any(word in message for word in ("KeyError", "redis", "invalid JSON"))
        for message in unmatched
    ), unmatched


def test_sample_jsonl_demo(capsys):
    """The bundled JSON Lines sample classifies without problems."""
    status, out, err = run(capsys, "classify", str(SAMPLE_JSONL))
    assert status == EXIT_OK
    assert "input problems" not in err
    assert len(records(out)) >= 5


@pytest.mark.integration
def test_module_runs_as_a_process():
    """``python -m llm_errors`` works as a real process: output, summary and status."""
    done = subprocess.run(  # noqa: S603 -- our own module, fixed arguments
        [sys.executable, "-m", "llm_errors", "classify", str(SAMPLE_LOG), "--fail-on", "AUTH"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == EXIT_FAIL_ON
    assert all(json.loads(line)["file"] == str(SAMPLE_LOG) for line in done.stdout.splitlines())
    assert done.stderr.startswith("llm-errors: 1 file, ")


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        pytest.param(
            ["--version"],
            (EXIT_OK, f"llm-errors {metadata.version('llm-resilience')}\n", ""),
            id="version",
        ),
        pytest.param(
            ["classify", "--format", "csv"], (EXIT_USAGE, "", "invalid choice"), id="usage"
        ),
    ],
)
def test_module_exits_with_main_s_status(capsys, monkeypatch, argv, expected):
    """``python -m llm_errors`` reads the process arguments and exits with ``main``'s status."""
    status, out, err = expected
    monkeypatch.setattr(sys, "argv", ["llm-errors", *argv])
    monkeypatch.delitem(sys.modules, "llm_errors.__main__", raising=False)
    with pytest.raises(SystemExit) as exited:  # what ``-m`` runs: the module's code, once
        importlib.import_module("llm_errors.__main__")
    assert exited.value.code == status
    captured = capsys.readouterr()
    assert captured.out == out
    assert err in captured.err


@pytest.mark.integration
def test_closed_stdout_ends_quietly(tmp_path):
    """When the reader goes away (``| head``) the run stops with 141 and no traceback."""
    path = tmp_path / "big.log"
    path.write_text("ERROR jobs: job 1 failed: KeyError: 'choices'\n" * 50_000)
    with subprocess.Popen(  # noqa: S603 -- our own module, fixed arguments
        [sys.executable, "-m", "llm_errors", "classify", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdout.readline()
        process.stdout.close()
        stderr = process.stderr.read()
        assert process.wait(timeout=60) == EXIT_BROKEN_PIPE
    assert b"Traceback" not in stderr


def test_pipe_closed_by_its_reader_ends_with_141(capsys, tmp_path):
    """Output into a pipe nobody reads any more stops the run with 141; stdout is then quiet."""
    path = tmp_path / "big.log"
    path.write_text("ERROR jobs: job 1 failed: KeyError: 'choices'\n" * 5_000)
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader went away (``| head`` exited)
    with (
        os.fdopen(write_end, "w", encoding="utf-8") as closed_pipe,
        pytest.MonkeyPatch.context() as patch,
    ):
        patch.setattr(sys, "stdout", closed_pipe)
        assert main(["classify", str(path)]) == EXIT_BROKEN_PIPE
        closed_pipe.write("more\n" * 10_000)
        closed_pipe.flush()  # points at /dev/null now: the final flush cannot fail again
    assert "Traceback" not in capsys.readouterr().err


#: How long the interrupting thread waits for ``main`` to open the FIFO and read a line.
_READ_LIMIT = 60.0


def _unread(fd):
    """Bytes written into the pipe ``fd`` and not read yet."""
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


def test_interrupt_ends_with_130(capsys, tmp_path):
    """Ctrl-C while the run waits for more input stops it with 130 and a one-line note."""
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("SIGINT does not raise KeyboardInterrupt in this process")
    fifo = tmp_path / "live.log"
    os.mkfifo(fifo)
    main_thread = threading.get_ident()
    writer: list[int] = []
    returned = threading.Event()
    closed: list[bool] = []

    def interrupt_while_reading():
        # The write end opens once main() holds the read end; once main() has read the
        # first line it is scanning, and then waits for more: interrupt it there.
        deadline = time.monotonic() + _READ_LIMIT
        while not writer and time.monotonic() < deadline:
            with contextlib.suppress(OSError):  # ENXIO: no reader yet
                writer.append(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            time.sleep(0.01)
        if not writer:
            return  # main() never read the FIFO: nothing to interrupt (the test fails)
        os.write(writer[0], b"2025-03-14 09:12:26,001 INFO router: request started\n")
        while _unread(writer[0]) and time.monotonic() < deadline:
            time.sleep(0.01)
        signal.pthread_kill(main_thread, signal.SIGINT)
        if not returned.wait(_READ_LIMIT):
            # The interrupt was lost: end the input, so main() returns and the test fails
            # on its status instead of waiting for ever.
            os.close(writer[0])
            closed.append(True)

    interrupter = threading.Thread(target=interrupt_while_reading, daemon=True)
    interrupter.start()
    try:
        status = main(["classify", str(fifo)])
    finally:
        returned.set()
        interrupter.join(2 * _READ_LIMIT + 5)
        if writer and not closed:
            os.close(writer[0])
    assert writer, "main() never opened the FIFO"
    assert status == EXIT_INTERRUPTED, "the interrupt did not stop main()"
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "\nllm-errors: interrupted\n"


def explained(out):
    """Parse the ``key  value`` lines of ``explain``."""
    return dict(line.split(None, 1) for line in out.splitlines())


def test_explain_prints_code_rule_rationale_and_source(capsys):
    """``explain`` shows the verdict and the deciding rule's rationale and source."""
    status, out, _ = run(capsys, "explain", "Service tier capacity exceeded for this model.")
    assert status == EXIT_OK
    fields = explained(out)
    assert list(fields) == [
        "code",
        "retryable",
        "rule",
        "layer",
        "retry_after",
        "resets_at",
        "status",
        "matched",
        "why",
        "source",
        "example",
        "words",
    ]
    assert (fields["code"], fields["retryable"], fields["layer"]) == ("RATE_LIMIT", "yes", "text")
    assert fields["words"] == "-"  # a rule decided
    assert fields["rule"] == "mistral.capacity"
    assert fields["matched"] == "Service tier capacity exceeded"
    assert fields["retry_after"] == "-"
    assert fields["why"]
    assert fields["source"]


def test_explain_joins_words_and_json_output(capsys):
    """Unquoted words are joined; ``--json`` prints one object with the same keys."""
    status, out, _ = run(capsys, "explain", "--json", "Service", "tier", "capacity", "exceeded")
    assert status == EXIT_OK
    record = json.loads(out)
    assert record["code"] == "RATE_LIMIT"
    assert record["retryable"] is True
    assert record["rule"] == "mistral.capacity"
    assert set(record) == {
        "code",
        "retryable",
        "rule",
        "layer",
        "retry_after",
        "resets_at",
        "status",
        "matched",
        "why",
        "source",
        "example",
        "words",
    }


def test_explain_lists_the_words_that_decided(capsys):
    """A verdict of the words layer names its layer and lists its words with their weights."""
    status, out, _ = run(capsys, "explain", "stream closed before a finish_reason was received")
    assert status == EXIT_OK
    fields = explained(out)
    assert (fields["code"], fields["layer"], fields["rule"]) == (
        "TRANSPORT",
        "words",
        "words.TRANSPORT",
    )
    listed = dict(pair.rsplit(" ", 1) for pair in fields["words"].split(", "))
    assert "closed" in listed
    assert all(float(weight) > 0 for weight in listed.values())
    message = "stream closed before a finish_reason was received"
    status, out, _ = run(capsys, "explain", "--json", message)
    record = json.loads(out)
    assert [word for word, _ in record["words"]] == list(listed)


def test_explain_json_body(capsys):
    """A message that is a JSON object is explained as a provider error body."""
    body = json.dumps({"error": {"type": "insufficient_quota", "message": "over quota"}})
    status, out, _ = run(capsys, "explain", "--json", body)
    assert status == EXIT_OK
    record = json.loads(out)
    assert (record["code"], record["layer"]) == ("QUOTA_EXCEEDED", "status")


def test_explain_traceback_from_stdin(capsys, monkeypatch):
    """``explain -`` reads a pasted traceback and explains its rebuilt exception chain."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(TRACEBACK_LOG))
    status, out, _ = run(capsys, "explain", "-")
    assert status == EXIT_OK
    fields = explained(out)
    assert (fields["code"], fields["layer"]) == ("TIMEOUT", "exception")
    assert fields["matched"] == "httpx.ReadTimeout"


def test_explain_unmatched(capsys):
    """A message no rule matches is explained as the fallback, still with status 0."""
    status, out, _ = run(capsys, "explain", "--json", "all good here")
    assert status == EXIT_OK
    record = json.loads(out)
    assert (record["code"], record["rule"], record["matched"]) == (
        "PROVIDER_ERROR",
        "fallback",
        None,
    )


def _nested(depth):
    return '{"level":"error","a":' * depth + '"rate limit exceeded"' + "}" * depth


@pytest.mark.parametrize(
    "depth",
    [
        pytest.param(990, id="parses-but-too-deep-to-walk"),
        pytest.param(5_000, id="too-deep-to-parse"),
    ],
)
def test_deeply_nested_record_is_a_bad_line_and_the_run_goes_on(capsys, tmp_path, depth):
    """A record nested thousands deep is a bad JSON line with its number; the run goes on."""
    first = tmp_path / "deep.jsonl"
    first.write_text(
        '{"level":"info","msg":"ok"}\n' + _nested(depth) + "\n"
        '{"level":"error","msg":"Error code: 503 - upstream connect error"}\n'
    )
    second = tmp_path / "next.log"
    second.write_text("ERROR openai.APIConnectionError: Connection error.\n")
    status, out, err = run(capsys, "classify", "--format", "jsonl", str(first), str(second))
    assert status == EXIT_OK
    assert "RecursionError" not in err
    found = [(r["file"], r["line"]) for r in records(out)]
    if f"{first}:2: bad JSON line: JSON nested too deeply to read" in err:
        assert "1 bad JSON line" in err
        assert found == [(str(first), 2), (str(first), 3), (str(second), 1)]
    else:
        # Newer Pythons read and walk such depths within their limits: a normal record.
        assert sys.version_info >= (3, 12)
        assert found == [(str(first), 2), (str(first), 3), (str(second), 1)]


def test_explain_deeply_nested_stdin(capsys, monkeypatch):
    """``explain -`` of a record nested 5,000 deep explains it as text instead of crashing."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(_nested(5_000)))
    status, out, _ = run(capsys, "explain", "--json", "-")
    assert status == EXIT_OK
    # Python 3.11 cannot parse it, so the text is explained (a rate limit); 3.13 parses
    # it, and the evidence walk stops long before the message at the bottom.
    expected = {"RATE_LIMIT"} if sys.version_info < (3, 13) else {"RATE_LIMIT", "PROVIDER_ERROR"}
    assert json.loads(out)["code"] in expected


def test_progress_on_stdin_has_lines_and_no_percentage(capsys, monkeypatch):
    """On stdin the bar shows lines and bytes read and the speed, without a percentage."""
    monkeypatch.setattr(
        sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(TRACEBACK_LOG.encode())))
    )
    status, _, err = run(capsys, "classify", "--format", "jsonl", "--progress", "always", "-")
    assert status == EXIT_OK
    bar = err.split("\r")[1]
    assert "8 lines" in bar
    assert "MiB/s" in bar
    assert "%" not in bar


def test_progress_auto_waits_a_second(capsys, traceback_log, monkeypatch):
    """``--progress auto`` on a terminal draws nothing for a run shorter than a second."""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    status, _, err = run(
        capsys, "classify", "--format", "jsonl", "--progress", "auto", traceback_log
    )
    assert status == EXIT_OK
    assert "MiB" not in err


def test_terminal_controls_from_the_log_are_shown_escaped(capsys, tmp_path):
    """An OSC title sequence or a bidi override in a log or a file name reaches no terminal.

    The table's unmatched messages and the problem lines on stderr show them as escapes.
    """
    log = tmp_path / "app.log"
    log.write_text("2025-03-14 09:12:33 ERROR jobs: failed \x1b]0;owned\x07 at \u202e1202-30-41\n")
    named = tmp_path / "gone\u202e.log"
    status, out, err = run(capsys, "classify", "--format", "table", str(log), str(named))
    assert status == EXIT_UNREADABLE
    assert "\\x1b]" in out  # the unmatched message, numbers and dates folded
    assert ";owned\\x07 at \\u202e" in out
    assert "gone\\u202e.log" in err
    for shown in (out, err):
        assert not set(shown) & {"\x1b", "\x07", "\u202e"}


def test_keys_without_a_known_prefix_reach_neither_output_nor_report(capsys, tmp_path):
    """A key its context names (``?key=``, ``"key":``, an encoded bearer) is redacted."""
    secret = "abcdefghijklmnop123"
    log = tmp_path / "keys.log"
    log.write_text(
        "2026-01-01 ERROR app: 400 Bad Request for url https://generativelanguage.googleapis"
        f".com/v1beta/models/gemini:generateContent?key={secret}\n"
        f'2026-01-01 ERROR app: 401 Unauthorized {{"key": "{secret}", "model": "x"}}\n'
        f"2026-01-01 ERROR app: 401 Invalid API key: '{secret}'\n"
        f"2026-01-01 ERROR app: 502 Bad Gateway https://x/y?authorization=Bearer%20{secret}&z=1\n",
        encoding="utf-8",
    )
    status, out, _ = run(capsys, "classify", "--format", "jsonl", str(log))
    assert status == EXIT_OK
    assert len(out.splitlines()) == 4
    assert secret not in out
    report = tmp_path / "report.html"
    assert main(["report", str(log), "-o", str(report)]) == EXIT_OK
    page = report.read_text(encoding="utf-8")
    assert "<redacted>" in page or "&lt;redacted&gt;" in page
    assert secret not in page


@pytest.mark.parametrize("fmt", ["table", "jsonl"])
def test_counts_are_batched_within_a_bound(capsys, tmp_path, monkeypatch, fmt):
    """Verdicts are counted in batches of bounded size; the output is the same for any size."""
    log = tmp_path / "waits.log"
    log.write_text(
        "".join(
            f"2026-07-22T10:00:{n:02d}Z ERROR app [req=9f86d081] call failed: 429 Too Many "
            f"Requests. Please try again in {n}s.\n"
            for n in range(1, 13)
        ),
        encoding="utf-8",
    )
    expected = run(capsys, "classify", "--format", fmt, str(log))
    monkeypatch.setattr(_cli, "_COUNT_BATCH", 2)
    monkeypatch.setattr(_cli, "_WRITE_BATCH", 3)
    pending = []
    real = _cli._ClassifyRun.flush

    def flush(self):
        pending.append(len(self._counts))
        real(self)

    monkeypatch.setattr(_cli._ClassifyRun, "flush", flush)
    assert run(capsys, "classify", "--format", fmt, str(log)) == expected
    assert "12 errors" in expected[1] + expected[2]
    assert len(pending) > 3
    assert max(pending) <= 2
