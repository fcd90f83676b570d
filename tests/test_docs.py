"""Every code block in docs/ and README.md runs, so no example can rot.

- The ```python blocks of a page run in order, in one namespace, in a fresh interpreter
  (`-W error`) whose working directory sees the repository's files; top-level `await`,
  `async with` and `async for` run on one event loop per page. A traceback names the
  page and the line in it.
- A `$` line of a ```console or ```sh block that runs `llm-errors` or `python -m` runs
  too, and must exit 0, or with the status shown by a following `$ echo $?` and its
  output line. A line is left out when it reads a pipe or names a file the repository
  does not ship (`app.log.gz`); files it writes land in a temporary directory.
- The lines a page shows after such a command are its output (stdout and stderr, as a
  terminal shows them, without colour), and must be what it prints, line for line. A
  line of `...` stands for any number of lines, and `...` inside a line for any text:
  that is how a page marks what legitimately varies (a port, a timing).
- Two HTML comments, right before a block, are the only escape hatches:
  `<!-- test: setup ... -->` holds Python run (invisibly) before the next block, for the
  names a page takes for granted (`exc`, a transcript `line`, a FakeMistral); and
  `<!-- test: skip: REASON -->` leaves the next block out, for a block that truly cannot
  run offline. A skip must give its reason, and a marker must precede a block.

docs/observability.md keeps its own runner (tests/test_observability_docs.py): each of its
blocks sets OpenTelemetry's global providers, which a process sets only once.
"""

import ast
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.policy

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
OWN_RUNNER = {"docs/observability.md"}
# Each page by its path in the repository: docs/ and the README.
PAGES = [*sorted(p.relative_to(ROOT).as_posix() for p in DOCS.rglob("*.md")), "README.md"]
FENCE = re.compile(r"^(?P<ticks>`{3,})(?P<lang>[\w-]*)\s*$")
MARKER = re.compile(r"<!--\s*test:\s*(?P<kind>\w+)(?P<body>.*?)-->", re.DOTALL)
# A recipe: tests/llm_retry/recipes runs docs/retry.md's against their real SDKs,
# tests/llm_errors/recipes docs/classifier.md's on their real engines.
RECIPE = re.compile(r"<!--\s*recipe:\s*[\w-]+\s*-->\s*$")
FILE_OPERAND = re.compile(r"\.(?:log|jsonl|json|gz|txt|toml|sse)$")
SHELL_SYNTAX = {"|", ">", ">>", "<", "&&", "||", ";", "&"}
OUTPUT_OPTIONS = {"--output", "-o"}
SCRIPTS = {"llm-errors", "llm-adapter"}  # pyproject.toml's [project.scripts]
RUN_TIMEOUT_S = 120


@dataclass(frozen=True, slots=True)
class Block:
    """One fenced block: where it starts, its language and text, and its test marker."""

    page: str
    line: int  # the first line of its content, 1-based
    lang: str
    text: str
    marker: str | None = None  # "setup" or "skip"
    marker_body: str = ""  # what follows the marker's word, up to `-->`
    marker_line: int = 0  # the line of the marker's word, 1-based


def blocks_of(page: str, text: str | None = None) -> list[Block]:
    """The page's fenced blocks, each with the test marker written right before it."""
    if text is None:
        text = (ROOT / page).read_text(encoding="utf-8")
    lines = text.splitlines()
    found: list[Block] = []
    prose_start = 0  # the first line after the previous block, 0-based
    number = 0
    while number < len(lines):
        opening = FENCE.match(lines[number])
        if opening is None:
            number += 1
            continue
        kind, body, marker_line = _marker_before(page, lines, prose_start, number)
        ticks = opening["ticks"]
        end = number + 1
        while end < len(lines) and not re.fullmatch(f"{ticks}`*\\s*", lines[end]):
            end += 1
        text = "\n".join(lines[number + 1 : end]) + "\n"
        found.append(Block(page, number + 2, opening["lang"], text, kind, body, marker_line))
        number = prose_start = end + 1
    if MARKER.search("\n".join(lines[prose_start:])):
        pytest.fail(f"{page}: a test marker after the last block precedes no block")
    return found


def _marker_before(
    page: str, lines: list[str], start: int, fence: int
) -> tuple[str | None, str, int]:
    """The marker right before the fence at `fence` (0-based); a stray marker fails."""
    prose = "\n".join(lines[start:fence])
    if RECIPE.search(prose):
        return "skip", ": a recipe, run by tests/*/recipes for real", fence
    markers = list(MARKER.finditer(prose))
    if not markers:
        return None, "", 0
    last = markers[-1]
    line = start + prose.count("\n", 0, last.start()) + 1
    if len(markers) > 1 or prose[last.end() :].strip():
        pytest.fail(f"{page}: the test marker at line {line} precedes no block")
    kind, body = last["kind"], last["body"]
    if kind not in {"setup", "skip"}:
        pytest.fail(f"{page}: unknown test marker {kind!r} at line {line}")
    if kind == "skip" and not body.strip():
        pytest.fail(f"{page}: the skip at line {line} must give its reason")
    return kind, body, line


def page_program(page: str) -> list[tuple[int, str]]:
    """The page's Python to run: (first line, source) for each setup and python block."""
    program: list[tuple[int, str]] = []
    for block in blocks_of(page):
        if block.lang != "python" or block.marker == "skip":
            continue
        if block.marker == "setup":
            program.append((block.marker_line, block.marker_body))
        program.append((block.line, block.text))
    return program


def run_program(page: str) -> None:
    """Run a page's program in this interpreter (the subprocess side of the test)."""
    import asyncio

    namespace: dict[str, object] = {"__name__": "__docs__"}
    loop = asyncio.new_event_loop()
    try:
        for line, source in page_program(page):
            padded = "\n" * (line - 1) + source  # tracebacks show the page's own line numbers
            code = compile(padded, page, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            result = eval(code, namespace)  # noqa: S307 - our own documentation
            if result is not None:  # a block with top-level await compiles to a coroutine
                loop.run_until_complete(result)
    finally:
        loop.close()


@pytest.fixture
def workdir(tmp_path):
    """A working directory that sees the repository's files and keeps what a block writes."""
    for entry in ROOT.iterdir():
        if not entry.name.startswith("."):
            (tmp_path / entry.name).symlink_to(entry)
    return tmp_path


def _python_pages() -> list[str]:
    return [page for page in PAGES if page not in OWN_RUNNER and page_program(page)]


def test_every_page_is_covered():
    """Each page with Python runs here or in its own runner; a stray marker fails the suite."""
    assert {"docs/tutorial.md", "docs/index.md", "README.md"} <= set(_python_pages())
    assert set(PAGES) >= OWN_RUNNER
    for page in PAGES:
        blocks_of(page)


@pytest.mark.integration
@pytest.mark.parametrize("page", _python_pages())
@pytest.mark.integration
def test_python_blocks_run(page, workdir):
    """The page's Python blocks run, in order, in one namespace, and their assertions hold."""
    result = subprocess.run(  # noqa: S603 - our own documentation
        [sys.executable, "-W", "error", __file__, page],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    assert result.returncode == 0, result.stderr


@dataclass(frozen=True, slots=True)
class Command:
    """A `$` line of a console block, and the output and exit status the page shows for it."""

    page: str
    line: int
    argv: tuple[str, ...]
    status: int
    output: tuple[str, ...] = ()  # the lines shown up to the next `$` line; none: not checked


def commands_of(page: str, text: str | None = None) -> list[Command]:
    """The `llm-errors` and `python -m` command lines of a page's console and sh blocks."""
    found: list[Command] = []
    for block in blocks_of(page, text):
        if block.lang not in {"console", "sh"} or block.marker == "skip":
            continue
        lines = block.text.splitlines()
        for offset, shell in enumerate(lines):
            if not shell.startswith("$ "):
                continue
            argv = tuple(shlex.split(shell[2:], comments=True))
            if not argv or argv[0] == "echo" or not _runs_here(argv):
                continue
            end = offset + 1
            while end < len(lines) and not lines[end].startswith("$ "):
                end += 1
            shown = lines[end : end + 2]
            status = 0
            if len(shown) == 2 and shown[0] == "$ echo $?" and shown[1].isdigit():
                status = int(shown[1])
            output = tuple(lines[offset + 1 : end])
            found.append(Command(page, block.line + offset, argv, status, output))
    return found


def output_pattern(shown: tuple[str, ...]) -> re.Pattern[str]:
    """What the shown lines match: `...` alone is any lines, `...` in a line any text."""
    parts = []
    for line in shown:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            text = re.escape(line.rstrip()).replace(re.escape("..."), r"[^\n]*?")
            parts.append(f"{text}\n")
    return re.compile("".join(parts))


def printed(output: str) -> str:
    """What a command printed, as lines without trailing blanks, each ending in a newline."""
    return "".join(f"{line.rstrip()}\n" for line in output.splitlines())


def _runs_here(argv: tuple[str, ...]) -> bool:
    """Ours (a console script, `python -m`), no shell syntax, and every file it reads shipped."""
    if argv[0] not in SCRIPTS and argv[:2] != ("python", "-m"):
        return False
    if SHELL_SYNTAX & set(argv):
        return False
    reads = [
        token
        for before, token in zip(("", *argv), argv, strict=False)
        if FILE_OPERAND.search(token) and not token.startswith("-") and before not in OUTPUT_OPTIONS
    ]
    return all((ROOT / token).is_file() for token in reads)


COMMANDS = [command for page in PAGES for command in commands_of(page)]


def test_commands_are_found():
    """The sample-log command of docs/cli.md is among the commands that run."""
    assert any(
        command.page == "docs/cli.md" and "examples/sample.log" in command.argv
        for command in COMMANDS
    )


@pytest.mark.integration
@pytest.mark.parametrize(
    "command",
    [pytest.param(c, id=f"{c.page}:{c.line}") for c in COMMANDS],
)
@pytest.mark.integration
def test_command_runs(command, workdir):
    """It exits with the status the page shows (0 unless `echo $?` says), printing what it shows."""
    bin_dir = Path(sys.executable).parent
    if command.argv[0] == "python":
        argv = [sys.executable, *command.argv[1:]]
    else:
        argv = [str(bin_dir / command.argv[0]), *command.argv[1:]]
    result = subprocess.run(  # noqa: S603 - our own documentation
        argv,
        cwd=workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # interleaved as a terminal shows them
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
        env={**os.environ, "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"},
    )
    assert result.returncode == command.status, result.stdout
    if command.output:
        assert output_pattern(command.output).fullmatch(printed(result.stdout)), result.stdout


QUICK_START = (
    "pip install . && python -m adapter demo",
    "pip install '.[test]' && python -m pytest",
)


def test_readme_quick_start_is_what_ci_runs():
    """The README's Quick start is its two lines, and CI runs the second verbatim."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    (block,) = [b for b in blocks_of("README.md", section) if b.lang == "sh"]
    assert tuple(block.text.splitlines()) == QUICK_START
    assert f"if ! ({QUICK_START[1]}); then exit 1; fi" in (ROOT / ".ci" / "run").read_text()


MARKED = """\
Prose.

<!-- test: setup
x = 1
-->
```python
assert x == 1
```

<!-- test: skip: needs the network -->
```python
import nowhere
```

```console
$ llm-errors classify examples/sample.log --fail-on TRANSPORT
$ echo $?
1
$ llm-errors classify app.log.gz
$ kubectl logs deploy/router | llm-errors classify
$ python bench/classify.py
```
"""


def test_markers_attach_to_the_next_block():
    """A setup runs before its block, on its own lines; a skipped block is left out."""
    setup, skipped, console = blocks_of("x.md", MARKED)
    assert (setup.marker, setup.marker_line, setup.line) == ("setup", 3, 7)
    assert (setup.marker_body, setup.text) == ("\nx = 1\n", "assert x == 1\n")
    assert (skipped.marker, skipped.marker_body) == ("skip", ": needs the network ")
    assert (console.lang, console.marker) == ("console", None)


def test_commands_and_their_status():
    """`echo $?` sets the expected status; pipes, unshipped files and scripts do not run."""
    (command,) = commands_of("x.md", MARKED)
    assert command.argv[:3] == ("llm-errors", "classify", "examples/sample.log")
    assert (command.line, command.status, command.output) == (16, 1, ())


def test_commands_and_their_output():
    """The lines after a command, up to the next `$` line, are the output it must print."""
    text = "```console\n$ llm-errors --version\nllm-errors 0.2.0\n$ llm-adapter --version\n```\n"
    version, adapter = commands_of("x.md", text)
    assert (version.output, adapter.output) == (("llm-errors 0.2.0",), ())


@pytest.mark.parametrize(
    ("shown", "output", "matches"),
    [
        pytest.param(("llm-errors 0.2.0",), "llm-errors 0.2.0\n", True, id="same"),
        pytest.param(("llm-errors 0.1.0",), "llm-errors 0.2.0\n", False, id="stale"),
        pytest.param(("a",), "a\nb\n", False, id="unshown-line"),
        pytest.param(("a", "...", "d"), "a\nb\nc\nd\n", True, id="lines-left-out"),
        pytest.param(("a", "...", "d"), "a\nd\n", True, id="no-line-left-out"),
        pytest.param(("a", "..."), "a\nb\n", True, id="tail-left-out"),
        pytest.param(("first token after ... ms",), "first token after 4 ms\n", True, id="varies"),
        pytest.param(("after ... ms",), "after 4 ms\nand more\n", False, id="varies-in-line"),
        pytest.param(("a.b (x)",), "aXb (x)\n", False, id="literal"),
    ],
)
def test_shown_output(shown, output, matches):
    """Shown output matches line for line; `...` leaves out lines, or text within a line."""
    assert bool(output_pattern(shown).fullmatch(printed(output))) is matches


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("<!-- test: skip -->\n```python\npass\n```\n", id="skip-without-reason"),
        pytest.param("<!-- test: skip: why -->\n\nProse.\n```python\n```\n", id="not-next"),
        pytest.param("```python\npass\n```\n<!-- test: skip: why -->\n", id="after-the-last"),
        pytest.param("<!-- test: run -->\n```python\npass\n```\n", id="unknown-marker"),
    ],
)
def test_bad_markers_fail(text):
    """A marker without its block, a skip without its reason, an unknown marker: all fail."""
    with pytest.raises(pytest.fail.Exception):
        blocks_of("x.md", text)


if __name__ == "__main__":
    run_program(sys.argv[1])
