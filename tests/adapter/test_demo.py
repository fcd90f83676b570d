"""``python -m adapter demo``: in process, as a subprocess, and ``--live`` against the fake."""

import io
import runpy
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import adapter
import llm_retry
from adapter.__main__ import main
from adapter.testing import FakeMistral, Reply, error_object, text_reply
from llm_retry import instant_retries

ESC = "\033["


@pytest.mark.integration
def test_demo_streams_retries_and_classifies(capsys):
    """The demo prints the three scenarios live and exits 0 when each behaves as designed."""
    with instant_retries() as recorder:
        status = main(["demo", "--delay", "0"])
    out = capsys.readouterr().out
    assert status == 0
    assert recorder.sleeps == [1.0]  # the 429's Retry-After, planned (and skipped here)
    assert "1. A reply with thinking, text and a tool call" in out
    assert (
        "> thinking  The user wants the current weather in Paris. I cannot know it myself, "
        "so I will call get_weather.\n"
    ) in out
    assert "> text      Let me check the weather in Paris for you.\n" in out
    assert '> tool call get_weather({"city": "Paris", "unit": "celsius"})  id call00000' in out
    assert "> done      stopReason toolUse, 3 block(s), 182 in / 41 out tokens, 128 cached" in out
    assert (
        "! retry     attempt 1 failed with RATE_LIMIT (HTTP 429, rule http.429); "
        "retrying in 1.00 s (Retry-After: 1 s)"
    ) in out
    assert "2 requests for this reply" in out
    assert "> text      This answer will be cut off in the midd\n" in out
    assert "x error     TransportError: Mistral stream failed after 3 chunks" in out
    assert "classified code TRANSPORT, rule exception:httpx.RemoteProtocolError" in out
    assert "retryable yes" in out
    assert "partial    stopReason error, 1 block(s), 39 characters of text kept" in out
    assert "1 request: not retried" in out
    assert ESC not in out  # not a terminal: plain text


@pytest.mark.integration
def test_demo_as_a_subprocess():
    """``python -m adapter demo`` runs on its own (a short Retry-After keeps it quick)."""
    result = subprocess.run(
        [sys.executable, "-m", "adapter", "demo", "--delay", "0", "--retry-after", "0.2"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "retrying in 0.20 s (Retry-After: 0.2 s)" in result.stdout
    assert "classified code TRANSPORT" in result.stdout
    assert result.stderr == ""


class _Terminal(io.StringIO):
    """A stdout that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("no_color_env", "flag", "coloured"),
    [
        pytest.param(None, [], True, id="tty"),
        pytest.param("1", [], False, id="NO_COLOR"),
        pytest.param(None, ["--no-color"], False, id="flag"),
    ],
)
@pytest.mark.integration
def test_colour_only_on_a_terminal(monkeypatch, no_color_env, flag, coloured):
    """ANSI colours on a terminal, unless ``NO_COLOR`` or ``--no-color`` says otherwise."""
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    if no_color_env is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color_env)
    with instant_retries():
        assert main(["demo", "--delay", "0", *flag]) == 0
    assert (ESC in terminal.getvalue()) is coloured


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        pytest.param(None, "--live needs an API key: set MISTRAL_API_KEY", id="unset"),
        pytest.param(" \n", "--live needs an API key: set MISTRAL_API_KEY", id="blank"),
        pytest.param("abc def\n", "--live: MISTRAL_API_KEY contains whitespace", id="space-inside"),
        pytest.param("clé-0123\n", "--live: MISTRAL_API_KEY contains non-ASCII", id="non-ascii"),
    ],
)
def test_live_without_a_usable_key_is_a_one_line_usage_error(monkeypatch, capsys, key, problem):
    """``--live`` without a key, or with one HTTP cannot carry, says so in one line: exit 2."""
    if key is None:
        monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    else:
        monkeypatch.setenv("MISTRAL_API_KEY", key)
    assert main(["demo", "--live"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"llm-adapter demo: error: {problem}")
    assert captured.err.count("\n") == 1
    assert "abc" not in captured.err
    assert captured.out == ""


@pytest.mark.integration
def test_live_streams_from_the_given_server(monkeypatch, capsys):
    """``--live`` streams one reply with the key from the environment (here from the fake)."""
    monkeypatch.setenv("MISTRAL_API_KEY", "live-key")
    with FakeMistral(text_reply("Sunny, ", "21 degrees."), default=None) as fake:
        status = main(["demo", "--live", "--base-url", fake.url])
        (request,) = fake.requests
    out = capsys.readouterr().out
    assert status == 0
    assert request.headers["authorization"] == "Bearer live-key"
    assert request.json()["model"] == "mistral-small-latest"
    assert request.json()["tools"][0]["function"]["name"] == "get_weather"
    assert "> text      Sunny, 21 degrees.\n" in out
    assert "> done      stopReason stop" in out


@pytest.mark.integration
def test_live_failure_is_classified(monkeypatch, capsys):
    """A failing live call prints the error and its classification and exits 1."""
    monkeypatch.setenv("MISTRAL_API_KEY", "bad-key")
    with FakeMistral(Reply(401, error_object("Unauthorized")), default=None) as fake:
        status = main(["demo", "--live", "--base-url", fake.url])
    out = capsys.readouterr().out
    assert status == 1
    assert "x error     AuthError: Mistral HTTP 401 Unauthorized" in out
    assert "classified code AUTH" in out
    assert "retryable no" in out
    assert "bad-key" not in out


#: Bad command lines, and what the one line on stderr must name: the bad value, what is allowed.
USAGE_ERRORS: list[tuple[list[str], list[str]]] = [
    ([], ["llm-adapter: error: ", "required: {demo}"]),
    (["deploy"], ["'deploy'", "demo"]),
    (["demo", "--bogus"], ["unrecognized arguments: --bogus", "--help"]),
    (
        ["demo", "--model", "mistral-smal-latest"],
        ["--model", "'mistral-smal-latest'", "mistral-small-latest"],
    ),
    (["demo", "--model", "gpt-4o"], ["'gpt-4o'", "the catalog has mistral-large-2512, "]),
    (["demo", "--delay", "-1"], ["--delay", "0 to 60 seconds", "'-1'"]),
    (["demo", "--delay", "nan"], ["--delay", "0 to 60 seconds", "'nan'"]),
    (["demo", "--retry-after", "soon"], ["--retry-after", "0 to 60 seconds", "'soon'"]),
    (["demo", "--retry-after"], ["--retry-after", "expected one argument"]),
    (
        ["demo", "--base-url", "ftp://example.com"],
        ["--base-url", "http:// or https://", "'ftp://example.com'"],
    ),
    (["demo", "--base-url", "https://[::1"], ["--base-url", "'https://[::1'", "not a valid URL"]),
    (["demo", "--base-url", "http://127.0.0.1:99999"], ["--base-url", "99999", "1 to 65535"]),
]


def test_every_usage_error_is_one_line_and_exit_2(capsys):
    """A bad command line is one line on stderr naming the value and what is allowed: exit 2.

    No usage block, no traceback, nothing on stdout, and nothing is started.
    """
    failures = []
    for argv, names in USAGE_ERRORS:
        try:
            status: object = main(argv)
        except BaseException as exc:  # a raised error (SystemExit too) is what this finds
            status = f"raised {type(exc).__name__}"
        out, err = capsys.readouterr()
        missing = [name for name in names if name not in err]
        if status != 2 or err.count("\n") != 1 or missing or out:
            failures.append(f"{argv}: status {status}, stderr {err!r}, missing {missing}")
    assert failures == []


def test_a_usage_error_names_the_command_as_it_was_run(capsys):
    """Run as ``python -m adapter``, the line names that, as ``--help`` does."""
    assert main(["demo", "--delay", "61"], prog="python -m adapter") == 2
    assert capsys.readouterr().err == (
        "python -m adapter demo: error: argument --delay: expected 0 to 60 seconds, got '61' "
        "(see python -m adapter demo --help)\n"
    )


def test_python_dash_m_adapter_exits_with_the_status_of_main(monkeypatch, capsys):
    """``python -m adapter`` runs ``main`` under that name and exits with its status."""
    monkeypatch.setattr(sys, "argv", ["adapter", "demo", "--delay", "61"])
    with pytest.raises(SystemExit) as info:  # the file ``-m`` runs, run as ``-m`` runs it
        runpy.run_path(str(Path(adapter.__file__).with_name("__main__.py")), run_name="__main__")
    assert info.value.code == 2
    assert capsys.readouterr().err == (
        "python -m adapter demo: error: argument --delay: expected 0 to 60 seconds, got '61' "
        "(see python -m adapter demo --help)\n"
    )


# --- the conventions: --version, the name in --help, __version__ --------------------------

#: The console script, installed next to this interpreter (``[project.scripts]``).
CONSOLE_SCRIPT = Path(sys.executable).parent / "llm-adapter"


def _run(*argv):
    return subprocess.run(  # noqa: S603 - our own command
        list(argv), capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.integration
def test_console_script_prints_its_version():
    """``llm-adapter --version`` prints the name and the installed distribution's version."""
    result = _run(str(CONSOLE_SCRIPT), "--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"llm-adapter {metadata.version('llm-resilience')}\n"


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        pytest.param((str(CONSOLE_SCRIPT),), "llm-adapter", id="console-script"),
        pytest.param((sys.executable, "-m", "adapter"), "python -m adapter", id="module"),
    ],
)
@pytest.mark.integration
def test_help_names_the_command_as_it_was_run(argv, name):
    """``--help`` names the console script ``llm-adapter``, and the module ``python -m adapter``."""
    result = _run(*argv, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: {name} [-h] [--version] {{demo}}")


@pytest.mark.parametrize(
    "package", [pytest.param(adapter, id="adapter"), pytest.param(llm_retry, id="llm_retry")]
)
def test_version_comes_from_the_installed_metadata(package):
    """``__version__`` is the version pip installed, read from the distribution's metadata."""
    assert package.__version__ == metadata.version("llm-resilience")
