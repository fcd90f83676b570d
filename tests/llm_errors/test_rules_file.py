"""Rules files loaded and checked: patterns compile, examples are decided by their rule."""

import dataclasses
import json
from pathlib import Path

import pytest

from llm_errors import (
    RULES,
    Classifier,
    ErrorCode,
    Example,
    Rule,
    RulesFileError,
    _rules_file,
    load_rules,
)
from llm_errors import rules_from_toml as from_toml
from llm_errors._match import matcher
from llm_errors._match.bounds import SMALL_REPEAT
from llm_errors._match.matcher import SEARCH_CHUNK, MatchTimeoutWarning, TextMatcher
from llm_errors._rules import reader
from llm_errors._rules_file import (
    check_builtin,
    check_rule_files,
    check_rules,
    load_rule_files,
)

CORPUS = Path(__file__).resolve().parent / "corpus"


def corpus(row_id: str) -> str:
    """The text of one row of the sourced corpus (its source is in the row)."""
    for path in sorted(CORPUS.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["id"] == row_id:
                return str(row["text"])
    raise KeyError(row_id)


# Vertex AI refusing a safety setting inside a 400 (langgenius/dify#8733): the built-in
# http.4xx rule decides it today, with no rule of its own to explain it.
VERTEX = corpus("cf-vertexai-005")
VERTEX_RULE = """\
[[rules]]
id = "vertex.harm-block-threshold"
code = "INVALID_REQUEST"
pattern = '\\brestricted HarmBlockThreshold setting\\b'
why = "Vertex AI: this account may not use that safety threshold; nothing was filtered."
{placement}
examples = [{example}]
"""
# anthropics/claude-code#5346
CLAUDE = corpus("ctx-claudecode-001")
CLAUDE_RULE = f"""\
[[rules]]
id = "claude-code.available-context"
code = "CONTEXT_OVERFLOW"
pattern = '{{pattern}}'
why = "Claude Code found no room left for the answer."
examples = [{json.dumps(CLAUDE)}]
"""
CLAUDE_PATTERN = r"\bavailableContext \d+ is less than FLOOR_OUTPUT_TOKENS\b"


def vertex(placement: str = "") -> str:
    return VERTEX_RULE.format(placement=placement, example=json.dumps(VERTEX))


def test_a_checked_rule_classifies_what_no_built_in_rule_knew():
    """The loaded rules work in a Classifier: the unmatched message now has its code."""
    assert Classifier().by_rules(CLAUDE).rule == "fallback"
    rules = from_toml(CLAUDE_RULE.format(pattern=CLAUDE_PATTERN), name="mine.toml")
    verdict = Classifier(extra_rules=rules).classify(CLAUDE)
    assert (verdict.code, verdict.rule) == (ErrorCode.CONTEXT_OVERFLOW, rules[0].id)


def test_explain_names_the_rules_file():
    """A user rule that decides is explained with its why and the file it came from."""
    rules = from_toml(CLAUDE_RULE.format(pattern=CLAUDE_PATTERN), name="mine.toml")
    explanation = Classifier(extra_rules=rules).explain(CLAUDE)
    assert explanation.why == "Claude Code found no room left for the answer."
    assert (explanation.source, explanation.example) == ("mine.toml", CLAUDE)


@pytest.mark.parametrize(
    ("pattern", "detail"),
    [
        pytest.param(r"\bavailableContext (\d+ is less", "missing ) at position 31", id="unclosed"),
        pytest.param(r"[z-a]availableContext", "bad character range", id="bad-range"),
        pytest.param(r"(?i)availableContext", "global inline flags", id="global-flag"),
        pytest.param(r"(available)Context \1", "backreferences", id="backreference"),
        pytest.param(r"(?:availableContext)?", "matches an empty text", id="matches-empty"),
    ],
)
def test_a_bad_pattern_names_file_rule_field_and_position(pattern, detail):
    """The regex error and its position are given; the pattern itself is not quoted."""
    with pytest.raises(RulesFileError) as caught:
        from_toml(CLAUDE_RULE.format(pattern=pattern), name="mine.toml")
    error = caught.value
    assert (error.file, error.rule, error.field) == (
        "mine.toml",
        "'claude-code.available-context'",
        "pattern",
    )
    assert detail in str(error)
    assert pattern not in str(error)


def test_an_example_the_pattern_misses_is_rejected():
    """An example its rule does not match names the example and what classified it."""
    text = CLAUDE_RULE.format(pattern=r"\bavailableContext \d+ is more than\b")
    with pytest.raises(RulesFileError) as caught:
        from_toml(text, name="mine.toml")
    assert caught.value.field == "examples[0]"
    assert "classified PROVIDER_ERROR by rule 'fallback', not CONTEXT_OVERFLOW" in str(caught.value)
    assert CLAUDE not in str(caught.value)


@pytest.mark.parametrize(
    ("placement", "wins"),
    [
        pytest.param("", True, id="first-by-default"),
        pytest.param('before = "http.4xx"', True, id="before-http-4xx"),
        pytest.param('after = "http.4xx"', False, id="after-http-4xx"),
    ],
)
def test_placement_decides_against_a_built_in_rule(placement, wins):
    """A rule placed after the rule that decides its example is caught when loading."""
    assert Classifier().classify(VERTEX).rule == "http.4xx"
    if wins:
        (rule,) = from_toml(vertex(placement), name="vertex.toml")
        verdict = Classifier(extra_rules=[rule]).classify(VERTEX)
        assert (verdict.code, verdict.rule) == (ErrorCode.INVALID_REQUEST, rule.id)
        return
    with pytest.raises(RulesFileError) as caught:
        from_toml(vertex(placement), name="vertex.toml")
    assert caught.value.field == "examples[0]"
    assert "classified INVALID_REQUEST by rule 'http.4xx'" in str(caught.value)


def test_before_and_after_put_the_rule_next_to_its_anchor():
    """``before`` goes right before the built-in rule, ``after`` right after; others first."""
    anchor = RULES[10].id
    example = (Example("x", "test"),)
    first = Rule("t.first", ErrorCode.SERVER, "aaa", "w", example)
    before = Rule("t.before", ErrorCode.SERVER, "bbb", "w", example, before=anchor)
    after = Rule("t.after", ErrorCode.SERVER, "ccc", "w", example, after=anchor)
    ids = [rule.id for rule in Classifier(extra_rules=[after, before, first]).rules]
    at = ids.index(anchor)
    assert ids[0] == "t.first"
    assert ids[at - 1 : at + 2] == ["t.before", anchor, "t.after"]
    assert len(ids) == len(RULES) + 3


@pytest.mark.parametrize(
    ("rule", "detail"),
    [
        pytest.param(
            Rule("t.x", ErrorCode.SERVER, "aaa", "w", before="no.such"),
            "no built-in rule 'no.such'",
            id="unknown-anchor",
        ),
        pytest.param(
            Rule("http.4xx", ErrorCode.SERVER, "aaa", "w", after="http.429"),
            "cannot also be placed",
            id="override-placed",
        ),
    ],
)
def test_classifier_rejects_bad_placement(rule, detail):
    """Placing by an unknown id, or placing a replacement, is a ValueError."""
    with pytest.raises(ValueError, match=detail):
        Classifier(extra_rules=[rule])


def test_a_rule_cannot_have_both_before_and_after():
    """Both placements at once is a ValueError when the rule is made."""
    with pytest.raises(ValueError, match="not both"):
        Rule("t.x", ErrorCode.SERVER, "aaa", "w", before="http.4xx", after="http.429")


def test_load_rules_reads_a_file(tmp_path):
    """A file on disk loads as its text does, named by its path."""
    path = tmp_path / "mine.toml"
    path.write_text(vertex(), encoding="utf-8")
    (rule,) = load_rules(path)
    assert (rule.id, rule.origin) == ("vertex.harm-block-threshold", str(path))


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        pytest.param(None, "cannot be read", id="missing"),
        pytest.param(b"\xff\xfe[[rules]]", "is not UTF-8 (byte 0)", id="not-utf8"),
        pytest.param(bytes(range(160)), "is not UTF-8 (byte 128)", id="binary"),
        pytest.param(b"", "holds no rules", id="empty"),
        pytest.param(b"#" * 300, "over the limit of 200 bytes", id="too-big"),
    ],
)
def test_load_rules_file_errors(tmp_path, monkeypatch, content, detail):
    """An unreadable, non-UTF-8 or oversized file is an error naming it."""
    monkeypatch.setattr("llm_errors._rules_file.RULES_FILE_LIMIT", 200)
    path = tmp_path / "mine.toml"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(RulesFileError) as caught:
        load_rules(path)
    assert (caught.value.file, caught.value.rule, caught.value.field) == (str(path), None, None)
    assert detail in str(caught.value)


def test_files_are_checked_together(tmp_path):
    """Two files may not share an id, nor may one file's rule take another's example."""
    one, two = tmp_path / "one.toml", tmp_path / "two.toml"
    one.write_text(vertex(), encoding="utf-8")
    two.write_text(vertex(), encoding="utf-8")
    with pytest.raises(RulesFileError) as caught:
        load_rule_files([one, two])
    assert (caught.value.file, caught.value.field) == (str(two), "id")
    assert f"also the id of a rule in {one}" in str(caught.value)
    # A broad rule of the second file, tried first, now decides the first file's example.
    broad = (
        vertex()
        .replace('"vertex.harm-block-threshold"', '"broad.400"')
        .replace(
            "code = \"INVALID_REQUEST\"\npattern = '\\brestricted HarmBlockThreshold setting\\b'",
            "code = \"SERVER\"\npattern = 'Bad Request'",
        )
    )
    two.write_text(broad, encoding="utf-8")
    assert len(load_rules(two)) == 1
    with pytest.raises(RulesFileError) as caught:
        load_rule_files([two, one])
    assert (caught.value.file, caught.value.rule, caught.value.field) == (
        str(one),
        "'vertex.harm-block-threshold'",
        "examples[0]",
    )


def test_limits_have_defaults():
    """The bounds are named with sensible defaults."""
    assert reader.RULES_FILE_LIMIT == 1 << 20
    assert (reader.RULES_LIMIT, reader.EXAMPLES_LIMIT) == (1000, 50)


def _claude(rule_id: str, **fields: str) -> str:
    """The Claude Code rule under ``rule_id``, with ``fields`` (TOML values) replaced."""
    values = {
        "code": '"CONTEXT_OVERFLOW"',
        "pattern": f"'{CLAUDE_PATTERN}'",
        "why": '"Claude Code found no room left for the answer."',
        "examples": f"[{json.dumps(CLAUDE)}]",
    } | fields
    lines = [f"{key} = {value}" for key, value in values.items()]
    return "\n".join(["[[rules]]", f"id = {json.dumps(rule_id)}", *lines]) + "\n\n"


def test_every_bad_rule_of_a_file_is_named(tmp_path):
    """Each bad rule is left out with its problem; the good ones pass; the first is raised."""
    path = tmp_path / "mine.toml"
    path.write_text(
        "stray = 1\n\n"
        + _claude("t.good")
        + _claude("t.code", code='"CONTEXT"')
        + _claude("bad id!")
        + _claude("t.unclosed", pattern=r"'\bavailableContext (\d+'")
        + _claude("t.good")
        + _claude("t.misses", pattern=r"'\bavailableContext \d+ is more than\b'")
        + _claude(
            "t.second-example",
            code='"INVALID_REQUEST"',
            pattern=r"'\brestricted HarmBlockThreshold setting\b'",
            examples=f'[{json.dumps(VERTEX)}, "no such text"]',
        ),
        encoding="utf-8",
    )
    ((check,), together) = check_rule_files([path])
    assert together == ()
    assert [rule.id for rule in check.rules] == ["t.good"]
    assert [(p.file, p.rule, p.field) for p in check.problems] == [
        (str(path), None, "stray"),
        (str(path), "'t.code'", "code"),
        (str(path), "#3", "id"),
        (str(path), "'t.good'", "id"),
        (str(path), "'t.unclosed'", "pattern"),
        (str(path), "'t.misses'", "examples[0]"),
        (str(path), "'t.second-example'", "examples[1]"),
    ]
    assert "is the id of an earlier rule" in str(check.problems[3])
    with pytest.raises(RulesFileError) as caught:
        load_rules(path)
    assert caught.value is not check.problems[0]
    assert str(caught.value) == str(check.problems[0])


def test_every_bad_file_is_named_and_the_good_rules_checked_together(tmp_path):
    """A file that cannot be read or parsed is one problem; the others are still checked."""
    one, two, broken, missing = (tmp_path / f"{n}.toml" for n in ("one", "two", "bad", "none"))
    one.write_text(vertex(), encoding="utf-8")
    two.write_text(vertex() + _claude("t.unclosed", pattern="'(x'"), encoding="utf-8")
    broken.write_text("[[rules]\n", encoding="utf-8")
    checks, together = check_rule_files([one, broken, two, missing])
    assert [(c.path, len(c.rules), [p.field for p in c.problems]) for c in checks] == [
        (str(one), 1, []),
        (str(broken), 0, [None]),
        (str(two), 1, ["pattern"]),
        (str(missing), 0, [None]),
    ]
    assert "is not valid TOML" in str(checks[1].problems[0])
    assert "cannot be read" in str(checks[3].problems[0])
    # Together: the second file's copy of the first's rule, named once.
    assert [(p.file, p.rule, p.field) for p in together] == [
        (str(two), "'vertex.harm-block-threshold'", "id")
    ]


def test_check_builtin_names_a_broken_builtin_example(monkeypatch):
    """A built-in example its pattern misses, or that classifies otherwise, is named."""
    broken = dataclasses.replace(
        RULES[0], examples=(*RULES[0].examples, Example("nothing to see here", "planted"))
    )
    monkeypatch.setattr(_rules_file, "RULES", (broken, *RULES[1:]))
    check = check_builtin()
    assert check.path == "builtin.toml"
    assert len(check.rules) == len(RULES) - 1
    (problem,) = check.problems
    assert (problem.file, problem.rule) == ("builtin.toml", repr(RULES[0].id))
    assert problem.field == f"examples[{len(RULES[0].examples)}]"
    assert "the pattern misses it" in str(problem)


def test_the_builtin_table_passes_its_check():
    """Every built-in rule compiles and its examples hold its wording and classify to its code."""
    check = check_builtin()
    assert check.problems == ()
    assert check.rules == RULES


def test_three_bad_patterns_of_a_file_are_all_named(tmp_path):
    """One check names each bad pattern (a backtracking shape, a flag, a nesting), and why."""
    path = tmp_path / "mine.toml"
    path.write_text(
        _claude("t.backtracks", pattern=r"'\bavailableContext (a|aa)+$'")
        + _claude("t.version", pattern="'(?V1)availableContext'")
        + _claude("t.deep", pattern="'" + "(" * 2000 + "availableContext" + ")" * 2000 + "'")
        + _claude("t.good"),
        encoding="utf-8",
    )
    ((check,), _) = check_rule_files([path])
    assert [rule.id for rule in check.rules] == ["t.good"]
    assert [(p.rule, p.field, str(p).split(": ", 3)[3]) for p in check.problems] == [
        (
            "'t.backtracks'",
            "pattern",
            (
                "repeats the group at position 19, whose alternatives can start with the same "
                "character (the shape of '(a|aa)+'), so failing to match can take exponential "
                "time: make the alternatives start with different characters, make the repeat "
                "possessive ('(...)++') or the group atomic ('(?>...)')"
            ),
        ),
        (
            "'t.version'",
            "pattern",
            "does not compile: VERSION0 and VERSION1 flags are mutually incompatible",
        ),
        ("'t.deep'", "pattern", "nests groups 2000 deep, over the limit of 50"),
    ]


def test_an_example_over_the_match_time_limit_is_named(monkeypatch):
    """An example its own pattern takes too long on is refused as such, not as missed."""
    monkeypatch.setattr(matcher, "MATCH_TIMEOUT", 0.05)
    # Not a refused shape (the group is repeated at most SMALL_REPEAT times), yet failing on
    # 200 letters tries about 10**16 ways to split them: certainly over the limit.
    pattern = rf"\bfoo(?:\w+\s?){{1,{SMALL_REPEAT}}}\d"
    rule = Rule("u.slow", ErrorCode.SERVER, pattern, "w", (Example("foo" + "a" * 200, "t"),))
    with pytest.warns(MatchTimeoutWarning), pytest.raises(RulesFileError) as caught:
        check_rules([rule])
    assert caught.value.field == "examples[0]"
    assert str(caught.value).endswith(
        "is classified PROVIDER_ERROR by rule 'fallback', not SERVER by this rule (the "
        "pattern takes over the match-time limit, MATCH_TIMEOUT 0.05 s, on it: it "
        "backtracks too much)"
    )


def test_many_rules_without_anchors_compile_patterns_linear_in_their_number(monkeypatch):
    """Checking rules searched for (no known start) compiles at most SEARCH_CHUNK per rule.

    Each example is decided by its own rule, found after the search of the rules before
    it; those rules are compiled a chunk at a time, not as one pattern per example.
    """
    compiled: list[int] = []
    compile_rules = TextMatcher._compile

    def counting(self, candidates):
        compiled.append(len(candidates))
        return compile_rules(self, candidates)

    monkeypatch.setattr(TextMatcher, "_compile", counting)
    count = 128  # rules: four chunks
    rules = [
        Rule(
            f"u.{i}",
            ErrorCode.SERVER,
            rf"[a-z]+ shared word=x{i}y",
            "w",
            (Example(f"a shared word=x{i}y", "t"),),
        )
        for i in range(count)
    ]
    classifier = check_rules(rules)
    assert [classifier.classify(f"a shared word=x{i}y").rule for i in range(count)] == [
        rule.id for rule in rules
    ]
    assert sum(compiled) <= SEARCH_CHUNK * count  # one pattern per prefix: count**2 / 2
