"""``--rules`` on classify, explain and report, and ``llm-errors rules check``, through ``main``."""

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from llm_errors import load_rules
from llm_errors._classify import _default
from llm_errors._match.bounds import SMALL_REPEAT
from llm_errors._match.prefilter import derive_triggers
from llm_errors.logs import _blocks, _feed, _parallel
from llm_errors.logs._cli import EXIT_OK, EXIT_USAGE, main
from llm_errors.logs._rules_command import classifier_for

EXAMPLES = Path(__file__).parents[3] / "examples"

# The Claude Code rule (its source is in the file), and the message of its one example.
CLAUDE_RULES = (Path(__file__).parents[1] / "claude_code_rules.toml").read_text(encoding="utf-8")
CLAUDE = tomllib.loads(CLAUDE_RULES)["rules"][0]["examples"][0]["text"]
# The message without its ``Error:``, so that only the rule makes it an error.
QUIET_CLAUDE = CLAUDE.removeprefix("Error: ")
# ThinkInAIXYZ/deepchat#522 (corpus row fresha-deepchat-157): DeepChat's rate-limit notice,
# which no built-in rule knows.
DEEPCHAT = "错误可能原因： 请求速度过快，被服务商限制了访问频率"  # noqa: RUF001 - real text
# examples/rules.toml: no ASCII word in its pattern, but runs of ideographs as triggers.
DEEPCHAT_RULES = (EXAMPLES / "rules.toml").read_text(encoding="utf-8")
# The same wording with spaces allowed between its characters: each ideograph stands
# alone, so the rule has no trigger at all and every filter must step aside.
SPACED_PATTERN = r"请\s*求\s*速\s*度\s*过\s*快"
SPACED_RULES = f"""\
[[rules]]
id = "deepchat.rate-limited-spaced"
code = "RATE_LIMIT"
pattern = '{SPACED_PATTERN}'
why = "DeepChat: requests came too fast and the provider limited their rate."
examples = [
  {{ text = "{DEEPCHAT}", source = "https://github.com/ThinkInAIXYZ/deepchat/issues/522" }},
]
"""


def run(capsys, *argv):
    """Run ``main``; return the status, stdout and stderr."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def found(out):
    """``(line, code, rule)`` of each jsonl finding."""
    return [
        (r["line"], r["code"], r["rule"]) for r in (json.loads(line) for line in out.splitlines())
    ]


@pytest.fixture
def rules_file(tmp_path):
    """Write a rules file; return its path."""

    def write(text, name="mine.toml"):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write


def _log(tmp_path, message, *, copies=1):
    """A log where ``message`` appears on a WARN line with no error marker, among quiet lines."""
    quiet = "2024-05-25 02:20:24,101 INFO app: request served in 1834 ms\n"
    line = f"2024-05-25 02:20:27,101 WARN app: {message}\n"
    path = tmp_path / "app.log"
    path.write_text((quiet * 40 + line) * copies + quiet, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "blocks", [pytest.param(True, id="blocks"), pytest.param(False, id="lines")]
)
@pytest.mark.parametrize("jobs", [pytest.param(1, id="one-job"), pytest.param(3, id="three-jobs")])
@pytest.mark.parametrize(
    "case",
    [
        # ``availableContext`` and ``floor_output_tokens`` are trigger words of the user rule
        # only: the token prefilter and the block filter must know them.
        pytest.param((QUIET_CLAUDE, CLAUDE_RULES, "CONTEXT_OVERFLOW"), id="ascii-triggers"),
        # No ASCII word, but runs of ideographs: the filters must know those (as UTF-8).
        pytest.param((DEEPCHAT, DEEPCHAT_RULES, "RATE_LIMIT"), id="non-ascii-triggers"),
        # No trigger at all: every filter must step aside (slower, never wrong).
        pytest.param((DEEPCHAT, SPACED_RULES, "RATE_LIMIT"), id="no-triggers"),
    ],
)
@pytest.mark.integration
def test_a_line_only_a_user_rule_matches_is_found(
    capsys, tmp_path, rules_file, monkeypatch, *, blocks, jobs, case
):
    """Found by blocks (Hyperscan) and line by line, in one process and in three."""
    message, rules, code = case
    if blocks:
        pytest.importorskip("hyperscan")
        monkeypatch.setattr(_blocks, "BLOCK_SIZE", 512)  # many block boundaries
        assert _feed.block_filter() is not None
    else:
        monkeypatch.setattr(_feed, "block_filter", lambda _classifier=None, **_scan: None)
    monkeypatch.setattr(_parallel, "PARALLEL_MIN", 0)
    monkeypatch.setattr(_parallel, "OVERLAP", 256)
    log = _log(tmp_path, message, copies=5)
    # Without the rules the line is not an error at all.
    status, out, _ = run(capsys, "classify", "--format", "jsonl", log)
    assert (status, out) == (EXIT_OK, "")
    path = rules_file(rules)
    status, out, _ = run(
        capsys, "classify", "--format", "jsonl", "--jobs", jobs, "--rules", path, log
    )
    assert status == EXIT_OK
    rule_id = classifier_for(tuple(_rules_of(path))).rules[0].id
    assert found(out) == [(41 * k, code, rule_id) for k in range(1, 6)]


def _rules_of(path):
    return load_rules(path)


def test_the_filters_know_the_user_rule_s_words(rules_file):
    """A user rule's trigger words join the prefilter's; a rule without any turns it off."""
    default = _default().trigger_tokens
    assert default is not None
    claude = classifier_for(_rules_of(rules_file(CLAUDE_RULES)))
    assert claude.trigger_tokens is not None
    assert (claude.trigger_tokens - default) & {b"availablecontext", b"floor_output_tokens"}
    deepchat = classifier_for(_rules_of(rules_file(DEEPCHAT_RULES, "deepchat.toml")))
    assert deepchat.trigger_tokens is not None
    assert "请求速度过快".encode() in (deepchat.trigger_tokens - default)
    # The no-triggers case really has none (else it would test nothing new).
    assert derive_triggers(SPACED_PATTERN).always
    spaced = classifier_for(_rules_of(rules_file(SPACED_RULES, "spaced.toml")))
    assert spaced.trigger_tokens is None
    assert _feed.block_filter(spaced) is None


def test_a_bad_rules_file_stops_the_run_before_reading(capsys, tmp_path, rules_file):
    """Exit 2 with the file, rule and field named; no input is read, nothing is printed."""
    bad = rules_file(CLAUDE_RULES.replace('"CONTEXT_OVERFLOW"', '"CONTEXT"'))
    log = tmp_path / "no-such.log"
    for command in (
        ["classify", log],
        ["report", "-o", tmp_path / "r.html", log],
        ["explain", "x"],
    ):
        status, out, err = run(capsys, *command, "--rules", bad)
        assert (status, out) == (EXIT_USAGE, "")
        assert err.startswith(
            f"llm-errors: {bad}: rule 'claude-code.available-context': field 'code': "
        )
        assert "no-such.log" not in err
    assert not (tmp_path / "r.html").exists()


def test_explain_shows_the_user_rule(capsys, rules_file):
    """``explain --rules`` names the rule, its why and the file it came from."""
    path = rules_file(CLAUDE_RULES)
    status, out, _ = run(capsys, "explain", "--json", "--rules", path, CLAUDE)
    assert status == EXIT_OK
    record = json.loads(out)
    assert (record["code"], record["rule"], record["source"]) == (
        "CONTEXT_OVERFLOW",
        "claude-code.available-context",
        str(path),
    )
    assert record["why"] == "Claude Code found no room left for the answer."
    _, out, _ = run(capsys, "explain", "--json", CLAUDE)
    assert json.loads(out)["layer"] in {"fallback", "words"}  # no built-in rule decides


def test_report_uses_the_rules(capsys, tmp_path, rules_file):
    """``report --rules`` counts what the user rule decides."""
    log = _log(tmp_path, CLAUDE)
    output = tmp_path / "report.html"
    status, _, err = run(capsys, "report", log, "-o", output, "--rules", rules_file(CLAUDE_RULES))
    assert status == EXIT_OK
    assert "1 error (0 retryable, 0 unmatched)" in err
    assert "claude-code.available-context" in output.read_text(encoding="utf-8")


def test_rules_from_two_files(capsys, tmp_path, rules_file):
    """``--rules`` repeats: both files' rules are in place."""
    log = tmp_path / "two.log"
    log.write_text(f"WARN {CLAUDE}\nWARN {DEEPCHAT}\n", encoding="utf-8")
    one, two = rules_file(CLAUDE_RULES), rules_file(DEEPCHAT_RULES, "deepchat.toml")
    status, out, _ = run(
        capsys, "classify", "--format", "jsonl", "--rules", one, "--rules", two, log
    )
    assert status == EXIT_OK
    assert [code for _, code, _ in found(out)] == ["CONTEXT_OVERFLOW", "RATE_LIMIT"]


def test_rules_check_accepts_valid_files(capsys, rules_file):
    """Exit 0, one line per file, and a note only on a rule with no trigger word at all."""
    one, two = rules_file(CLAUDE_RULES), rules_file(DEEPCHAT_RULES, "deepchat.toml")
    status, out, err = run(capsys, "rules", "check", one, two)
    assert (status, err) == (EXIT_OK, "")
    assert out.splitlines() == [
        f"{one}: 1 rule, 1 example: ok",
        f"{two}: 1 rule, 3 examples: ok",
        "all 2 files together: ok",
    ]
    # (Not with the DeepChat file: each rule would take the other's example.)
    spaced = rules_file(SPACED_RULES, "spaced.toml")
    status, out, err = run(capsys, "rules", "check", spaced)
    assert (status, err) == (EXIT_OK, "")
    assert out == (
        f"{spaced}: 1 rule, 1 example: ok (no trigger word in deepchat.rate-limited-spaced: "
        "with it, every line of a log is matched, which is slower)\n"
    )


def test_rules_check_rejects_an_invalid_file(capsys, rules_file):
    """Exit 2 and the message naming file, rule and field, on stderr."""
    path = rules_file(CLAUDE_RULES.replace("'\\bavailableContext", "'\\bavailable_Context"))
    status, out, err = run(capsys, "rules", "check", path)
    assert (status, out) == (EXIT_USAGE, "")
    assert err.startswith(
        f"llm-errors: {path}: rule 'claude-code.available-context': field 'examples[0]': "
    )


def test_the_shipped_example_rules_are_valid(capsys):
    """``examples/rules.toml`` (docs/cli.md's worked example) passes ``rules check``."""
    status, out, _ = run(capsys, "rules", "check", EXAMPLES / "rules.toml")
    assert status == EXIT_OK
    assert "3 examples: ok" in out
    status, out, _ = run(
        capsys,
        "classify",
        "--format",
        "jsonl",
        "--rules",
        EXAMPLES / "rules.toml",
        EXAMPLES / "gateway.log",
    )
    assert found(out) == [
        (3, "RATE_LIMIT", "deepchat.rate-limited"),
        (6, "RATE_LIMIT", "deepchat.rate-limited"),
    ]


def test_the_docs_show_the_shipped_rules_file():
    """docs/cli.md's worked example quotes examples/rules.toml as it is."""
    page = (EXAMPLES.parent / "docs" / "cli.md").read_text(encoding="utf-8")
    assert f"```toml\n{DEEPCHAT_RULES}```\n" in page


def test_rules_check_names_every_bad_rule_of_every_file(capsys, rules_file):
    """One run names each problem of each file (file, rule, field), and exits 2."""
    rule = CLAUDE_RULES.split("[[rules]]", 1)[1]
    bad = rules_file(
        "[[rules]]"
        + rule.replace('"CONTEXT_OVERFLOW"', '"CONTEXT"')
        + "[[rules]]"
        + rule.replace("claude-code.available-context", "t.unclosed").replace(
            "'\\bavailableContext", "'(\\bavailableContext"
        )
        + "[[rules]]"
        + rule.replace("claude-code.available-context", "bad id!"),
        "bad.toml",
    )
    broken = rules_file("[[rules]\n", "broken.toml")
    good = rules_file(DEEPCHAT_RULES, "deepchat.toml")
    status, out, err = run(capsys, "rules", "check", bad, good, broken)
    assert status == EXIT_USAGE
    assert out == f"{good}: 1 rule, 3 examples: ok\n"
    expected = [
        f"{bad}: rule 'claude-code.available-context': field 'code': is not an error code",
        f"{bad}: rule #3: field 'id': must be letters, digits",
        f"{bad}: rule 't.unclosed': field 'pattern': does not compile: missing )",
        f"{broken}: is not valid TOML: ",
        "4 problems in 2 files of 3",
    ]
    lines = err.splitlines()
    wrong = [
        (line, start)
        for line, start in zip(lines, expected, strict=True)
        if not line.startswith(f"llm-errors: {start}")
    ]
    assert wrong == []


def test_control_characters_from_a_rules_file_are_shown_escaped(capsys, rules_file):
    """Terminal escapes and bidi controls in a why or a file name are printed escaped."""
    why = "Claude Code found no room \x1b[31mleft\x1b[0m \u202efor the answer."
    path = rules_file(
        CLAUDE_RULES.replace(
            "Claude Code found no room left for the answer.", why.replace("\x1b", "\\u001b")
        ),
        "mine\x1b]0;title\x07.toml",
    )
    status, out, err = run(capsys, "explain", "--rules", path, CLAUDE)
    assert status == EXIT_OK
    assert (
        "why          Claude Code found no room \\x1b[31mleft\\x1b[0m \\u202efor the answer.\n"
        in out
    )
    assert "source       " + str(path).replace("\x1b", "\\x1b").replace("\x07", "\\x07") in out
    status, out, err = run(capsys, "rules", "check", path)
    assert status == EXIT_OK
    assert out.startswith(str(path).replace("\x1b", "\\x1b").replace("\x07", "\\x07") + ": 1 rule")
    assert "\x1b" not in out + err
    broken = rules_file("[[rules]\n", "broken\x1b[2J.toml")
    status, out, err = run(capsys, "rules", "check", broken)
    assert status == EXIT_USAGE
    assert "\x1b" not in err
    assert "broken\\x1b[2J.toml: is not valid TOML" in err


def test_rules_check_builtin_checks_the_shipped_table(capsys):
    """``rules check --builtin`` checks builtin.toml as it checks a user's file, beside them."""
    status, out, err = run(capsys, "rules", "check", "--builtin", EXAMPLES / "rules.toml")
    assert (status, err) == (EXIT_OK, "")
    lines = out.splitlines()
    assert lines[0].startswith("builtin.toml: 170 rules, 368 examples: ok")
    assert lines[1].startswith(f"{EXAMPLES / 'rules.toml'}: 1 rule")


def test_rules_check_needs_a_file_or_builtin(capsys):
    """With neither files nor ``--builtin`` there is nothing to check: a usage error."""
    with pytest.raises(SystemExit) as exited:
        main(["rules", "check"])
    assert exited.value.code == EXIT_USAGE
    assert "give rules files to check, or --builtin" in capsys.readouterr().err


def _rule(rule_id, pattern):
    """One rule of the Claude Code file, under ``rule_id`` and with ``pattern`` (TOML text)."""
    rule = CLAUDE_RULES.split("[[rules]]", 1)[1]
    return "[[rules]]" + rule.replace("claude-code.available-context", rule_id).replace(
        "'\\bavailableContext \\d+ is less than FLOOR_OUTPUT_TOKENS\\b'", pattern
    )


@pytest.mark.parametrize(
    ("content", "rule", "detail"),
    [
        pytest.param(
            _rule("t.deep", "'" + "(" * 2000 + "availableContext" + ")" * 2000 + "'"),
            "t.deep",
            "field 'pattern': nests groups 2000 deep, over the limit of 50",
            id="deeply-nested-groups",
        ),
        pytest.param(
            _rule("t.v1", "'(?V1)availableContext'"),
            "t.v1",
            "field 'pattern': does not compile: VERSION0 and VERSION1 flags are mutually",
            id="version-1-flag",
        ),
        pytest.param(
            _rule("t.v1-sets", "'(?V1)[[a-z]--[aeiou]]vailableContext'"),
            "t.v1-sets",
            "field 'pattern': does not compile: VERSION0 and VERSION1 flags are mutually",
            id="version-1-set-operations",
        ),
        pytest.param(
            _rule("t.backtracks", r"'\bavailableContext (a|aa)+$'"),
            "t.backtracks",
            "field 'pattern': repeats the group at position 19, whose alternatives can start",
            id="catastrophic-backtracking",
        ),
        pytest.param(
            "a" + ".b" * 100_000 + " = 1\n",
            None,
            "is not valid TOML for a rules file: a dotted key of 100,001 parts, over the limit",
            id="huge-dotted-key",
        ),
        pytest.param(b"[[rules]]\nid = '\xff'\n", None, "is not UTF-8 (byte 16)", id="not-utf8"),
        pytest.param(bytes(range(256)) * 4, None, "is not UTF-8 (byte 128)", id="binary"),
        pytest.param("", None, "holds no rules (each is a table written [[rules]])", id="empty"),
    ],
)
def test_a_bad_rules_file_is_one_line_and_status_2_never_a_traceback(
    capsys, tmp_path, content, rule, detail
):
    """``rules check`` and ``--rules`` name the file (and rule) and why, in one line."""
    path = tmp_path / "bad.toml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    where = f"llm-errors: {path}: " + ("" if rule is None else f"rule {rule!r}: ")
    status, out, err = run(capsys, "rules", "check", path)
    assert (status, out) == (EXIT_USAGE, "")
    assert err.splitlines() == [err.splitlines()[0], "llm-errors: 1 problem in 1 file of 1"]
    assert err.startswith(where + detail)
    status, out, err = run(capsys, "explain", "--rules", path, "x")
    assert (status, out) == (EXIT_USAGE, "")
    assert len(err.splitlines()) == 1
    assert err.startswith(where + detail)


def test_rules_check_names_three_bad_rules_of_a_file(capsys, rules_file):
    """A nesting, a flag and a backtracking shape: each rule named, in one run."""
    path = rules_file(
        _rule("t.deep", "'" + "(" * 60 + "availableContext" + ")" * 60 + "'")
        + _rule("t.v1", "'(?V1)availableContext'")
        + _rule("t.backtracks", r"'\bavailableContext (\w+\s?)+$'")
    )
    status, _, err = run(capsys, "rules", "check", path)
    assert status == EXIT_USAGE
    assert [line.split(": field")[0] for line in err.splitlines()] == [
        f"llm-errors: {path}: rule 't.deep'",
        f"llm-errors: {path}: rule 't.v1'",
        f"llm-errors: {path}: rule 't.backtracks'",
        "llm-errors: 3 problems in 1 file of 1",
    ]


#: Not a refused shape (the group is repeated at most SMALL_REPEAT times), yet failing on
#: ``foo`` and 200 letters tries about 10**16 ways to split them: certainly over the limit.
SLOW_RULES = _rule("t.slow", rf"'\bfoo(?:\w+\s?){{1,{SMALL_REPEAT}}}\d'").replace(CLAUDE, "foo12")
SLOW_TEXT = "foo" + "a" * 200
#: ``llm-errors`` with the match-time limit at 0.05 s (a process: Python prints warnings).
_QUICK_LIMIT = (
    "import sys; from llm_errors._match import matcher; matcher.MATCH_TIMEOUT = 0.05; "
    "from llm_errors.logs._cli import main; sys.exit(main(sys.argv[1:]))"
)


def _llm_errors(*argv):
    return subprocess.run(  # noqa: S603 -- our own module, fixed arguments
        [sys.executable, "-c", _QUICK_LIMIT, *map(str, argv)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


@pytest.mark.integration
def test_a_text_over_the_match_time_limit_is_unmatched_with_one_warning(tmp_path, rules_file):
    """The lines are unmatched (the fallback); stderr names the limit and the rule, once."""
    path = rules_file(SLOW_RULES)
    done = _llm_errors("explain", "--json", "--rules", path, SLOW_TEXT)
    assert done.returncode == EXIT_OK
    assert (json.loads(done.stdout)["code"], json.loads(done.stdout)["rule"]) == (
        "PROVIDER_ERROR",
        "fallback",
    )
    assert done.stderr.count("MatchTimeoutWarning") == 1
    assert "match-time limit (MATCH_TIMEOUT, 0.05 s)" in done.stderr
    assert "tried: t.slow)" in done.stderr
    log = tmp_path / "slow.log"
    log.write_text(f"ERROR app: {SLOW_TEXT}\n" * 3 + "ERROR app: foo12\n", encoding="utf-8")
    done = _llm_errors("classify", "--format", "jsonl", "--rules", path, log)
    assert done.returncode == EXIT_OK
    assert found(done.stdout) == [
        (1, "PROVIDER_ERROR", "fallback"),
        (2, "PROVIDER_ERROR", "fallback"),
        (3, "PROVIDER_ERROR", "fallback"),
        (4, "CONTEXT_OVERFLOW", "t.slow"),
    ]
    assert done.stderr.count("MatchTimeoutWarning") == 1
