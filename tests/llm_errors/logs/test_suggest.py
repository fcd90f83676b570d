"""``llm-errors suggest``: skeleton rules that, once given a code, pass ``rules check``."""

import functools
import gzip
import io
import json
import sys
import tomllib
from pathlib import Path

import pytest
import regex

from llm_errors import Classifier, RulesFileError, rules_from_toml
from llm_errors._match.matcher import FLAGS
from llm_errors.logs._cli import EXIT_OK, EXIT_UNREADABLE, main
from llm_errors.logs._input import LINE_LIMIT
from llm_errors.logs._run import PROBLEMS_SHOWN
from llm_errors.logs._scan import excerpt
from llm_errors.logs._suggest import (
    CODE_PLACEHOLDER,
    EXAMPLES_KEPT,
    EXIT_UNWRITABLE,
    pattern_of,
)
from llm_errors.logs._tally import normalise

CORPUS = Path(__file__).parents[1] / "corpus"
EXAMPLES = Path(__file__).parents[3] / "examples"


def _corpus():
    rows = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return rows


ROWS = _corpus()
#: Suggestions are for what no rule decides (the words layer may have named its code).
RULES_ONLY = Classifier(words=False)


@functools.cache
def unmatched():
    """The corpus rows no built-in rule decides (each row names its public source).

    Judged in the form the test logs write, one line behind a log prefix: joined lines, or
    a JSON text read as text rather than as a record, may let a rule match.
    """
    return [
        row
        for row in ROWS
        if RULES_ONLY.classify("ERROR app: " + " ".join(row["text"].split())).rule == "fallback"
    ]


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def _template_miss(text):
    """Which forms of ``text`` its folded template's pattern misses, and the pattern."""
    pattern = pattern_of(normalise(excerpt(text)))
    compiled = regex.compile(pattern, FLAGS)
    forms = {"excerpt": excerpt(text), "raw": text}
    missed = [form for form, value in forms.items() if compiled.search(value) is None]
    return f"{' and '.join(missed)} not matched by {pattern!r}" if missed else ""


# One test over every corpus row rather than one per row (2,095 items): the per-item cost
# of pytest was most of this check's time; the message lists every row that fails.
def test_the_pattern_of_a_template_matches_its_messages():
    """Every corpus message: its folded template's pattern matches it raw and as excerpt."""
    bad = [
        f"{row['id']} ({miss}): {row['text'][:80]!r}"
        for row in ROWS
        if (miss := _template_miss(row["text"]))
    ]
    assert bad == [], f"{len(bad)} of {len(ROWS)} rows:\n" + "\n".join(bad)


def _log(tmp_path, rows):
    """A log with each row's message on an ERROR line (twice), among quiet lines."""
    lines = []
    for number, row in enumerate(rows):
        message = " ".join(row["text"].split())  # one line per message
        for second in (10, 40):
            lines += [
                f"2025-03-14 09:{number % 60:02d}:{second:02d},001 INFO app: request served",
                f"2025-03-14 09:{number % 60:02d}:{second + 1:02d},001 ERROR app: {message}",
            ]
    path = tmp_path / "app.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_suggestions_pass_rules_check_once_given_a_code(capsys, tmp_path):
    """Fill in each rule's code: the file passes the check, and the log has no unmatched errors."""
    assert len(unmatched()) >= 30
    log = _log(tmp_path, unmatched())
    output = tmp_path / "rules.toml"
    status, _, err = run(capsys, "suggest", log, "--output", output, "--top", 1000)
    assert status == EXIT_OK
    text = output.read_text(encoding="utf-8")
    suggested = tomllib.loads(text)["rules"]
    assert len(suggested) >= 30
    assert f"wrote {len(suggested)} suggested rules" in err
    # As written, the placeholder code is refused, naming the first rule's code field.
    with pytest.raises(RulesFileError) as caught:
        rules_from_toml(text, name="rules.toml")
    assert (caught.value.rule, caught.value.field) == ("'unmatched.1'", "code")
    filled = text.replace(f'code = "{CODE_PLACEHOLDER}"', 'code = "SERVER"')
    rules = rules_from_toml(filled, name="rules.toml")
    assert len(rules) == len(suggested)
    for rule in rules:
        assert 1 <= len(rule.examples) <= EXAMPLES_KEPT
        assert all(example.source.startswith(f"{log}:") for example in rule.examples)
    path = tmp_path / "filled.toml"
    path.write_text(filled, encoding="utf-8")
    _, out, _ = run(capsys, "classify", "--format", "jsonl", log)
    fell_back = {r["line"] for r in map(json.loads, out.splitlines()) if not r["matched"]}
    status, out, err = run(capsys, "classify", "--format", "jsonl", "--rules", path, log)
    assert status == EXIT_OK
    assert "0 unmatched" in err
    # Each line unmatched before is now decided by a suggested rule (a row may read as
    # one line differently: a built-in rule may decide it in the log, with its own code).
    decided = {r["line"]: r for r in map(json.loads, out.splitlines())}
    assert len(fell_back) >= 60
    for line in fell_back:
        assert decided[line]["code"] == "SERVER"
        assert decided[line]["rule"].startswith("unmatched.")


def test_the_most_frequent_come_first_with_their_lines(capsys, tmp_path):
    """``--top`` keeps the most frequent templates; examples carry file:line, at most three."""
    log = tmp_path / "app.log"
    # anthropics/claude-code#5346 and anthropics/claude-agent-sdk-typescript#138
    rare = "Error: Claude Code process exited with code 1"
    frequent = "Error: availableContext {n} is less than FLOOR_OUTPUT_TOKENS 3000"
    lines = [rare] + [frequent.format(n=800 + k) for k in range(5)]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, out, _ = run(capsys, "suggest", log, "-o", "-", "--top", 1)
    assert status == EXIT_OK
    (rule,) = tomllib.loads(out)["rules"]
    assert rule["code"] == CODE_PLACEHOLDER
    assert "# seen 5 times" in out
    assert [example["source"] for example in rule["examples"]] == [
        f"{log}:2",
        f"{log}:3",
        f"{log}:4",
    ]
    assert rule["examples"][0]["text"] == frequent.format(n=800)
    assert rule["pattern"] == (
        r"Error:\s+availableContext\s+\d+(?:\.\d+)?\s+is\s+less\s+than\s+FLOOR_OUTPUT_TOKENS"
        r"\s+\d+(?:\.\d+)?"
    )


def test_examples_are_redacted(capsys, tmp_path):
    """A key in an unmatched message never reaches the file; the pattern still matches it."""
    key = "sk-proj-abcdefghijklmnopqrstuvwx"
    # dataelement/bisheng#2426 (corpus row q-bisheng-001), logged with a key.
    message = f"ERROR app: Upstream model request failed (api_key={key})"
    log = tmp_path / "app.log"
    log.write_text(message + "\n", encoding="utf-8")
    status, out, _ = run(capsys, "suggest", log, "-o", "-")
    assert status == EXIT_OK
    assert key not in out
    (rule,) = tomllib.loads(out)["rules"]
    assert regex.compile(rule["pattern"], FLAGS).search(message) is not None
    assert "<redacted>" in rule["examples"][0]["text"]


def test_reads_gzip_and_stdin(capsys, tmp_path, monkeypatch):
    """The inputs classify reads: gzip files, and stdin for '-' or no file."""
    lines = (EXAMPLES / "gateway.log").read_bytes()
    packed = tmp_path / "gateway.log.gz"
    packed.write_bytes(gzip.compress(lines))
    status, out, _ = run(capsys, "suggest", packed, "-o", "-")
    assert status == EXIT_OK
    assert tomllib.loads(out)["rules"][0]["examples"][0]["source"] == f"{packed}:3"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(lines)))
    status, out, _ = run(capsys, "suggest", "-o", "-")
    assert status == EXIT_OK
    assert tomllib.loads(out)["rules"][0]["examples"][1]["source"] == "<stdin>:6"


def test_what_the_rules_already_match_is_not_suggested(capsys):
    """With ``--rules``, a message a user rule decides is no longer unmatched."""
    gateway = EXAMPLES / "gateway.log"
    status, out, _ = run(capsys, "suggest", gateway, "-o", "-", "--rules", EXAMPLES / "rules.toml")
    assert status == EXIT_OK
    assert tomllib.loads(out) == {}


@pytest.mark.parametrize("before", [None, "# my rules\n"], ids=["new", "existing"])
def test_an_unreadable_input_writes_nothing(capsys, tmp_path, before):
    """A missing input is named, exit status 3, and the output is neither created nor changed."""
    output = tmp_path / "rules.toml"
    if before is not None:
        output.write_text(before, encoding="utf-8")
    missing = tmp_path / "missing.log"
    status, out, err = run(capsys, "suggest", missing, EXAMPLES / "gateway.log", "-o", output)
    assert (status, out) == (EXIT_UNREADABLE, "")
    summary = "1 file, 6 lines: 2 errors (0 retryable, 2 unmatched)"
    assert err.splitlines() == [
        f"llm-errors: {missing}: unreadable file: No such file or directory",
        f"llm-errors: wrote nothing to {output}: {summary}; input problems: 1 unreadable file",
    ]
    if before is None:
        assert list(tmp_path.iterdir()) == []
    else:
        assert output.read_text(encoding="utf-8") == before
        assert list(tmp_path.iterdir()) == [output]
    status, out, _ = run(capsys, "suggest", missing, "-o", "-")
    assert (status, out) == (EXIT_UNREADABLE, "")


def test_an_output_that_cannot_be_written_is_refused_before_reading(capsys, tmp_path):
    """A directory, or a path in no directory: exit status 4, nothing read or written."""
    for output in (tmp_path, tmp_path / "nowhere" / "rules.toml"):
        status, _, err = run(capsys, "suggest", tmp_path / "missing.log", "-o", output)
        assert status == EXIT_UNWRITABLE
        assert err.startswith(f"llm-errors: cannot write {output}: ")
        assert "missing.log" not in err
    assert list(tmp_path.iterdir()) == []


def test_input_problems_are_reported_as_classify_reports_them(capsys, tmp_path):
    """Bad JSON, binary, undecodable and over-long lines: classify's lines and summary counts."""
    log = tmp_path / "app.log"
    message = b"ERROR app: Upstream model request failed"  # dataelement/bisheng#2426
    log.write_bytes(
        b'{"msg": not json\n'
        + b"bin\x00ary\n" * (PROBLEMS_SHOWN + 2)
        + b"caf\xe9 "
        + message
        + b"\n"
        + message
        + b" "
        + b"x" * LINE_LIMIT
        + b"\n"
        + message
        + b"\n"
    )
    _, _, classified = run(capsys, "classify", "--format", "jsonl", log)
    status, out, err = run(capsys, "suggest", log, "-o", "-")
    assert status == EXIT_OK
    suggested = len(tomllib.loads(out)["rules"])
    *problems, last = err.splitlines()
    *same, summary = classified.splitlines()
    assert problems == same
    assert len(problems) == 1 + PROBLEMS_SHOWN + 1 + 2
    assert last == summary.replace(
        "llm-errors:", f"llm-errors: wrote {suggested} suggested rules to stdout:"
    )
    assert summary.endswith(
        f"input problems: 1 bad JSON line, {PROBLEMS_SHOWN + 2} binary lines, "
        "1 over-long line, 1 undecodable line"
    )
