"""One reader for the built-in table and users' files: named fragments and alternatives."""

import tomllib
from importlib.resources import files
from pathlib import Path

import pytest
import regex

from llm_errors import RULES, Classifier, ErrorCode, RulesFileError
from llm_errors._rules import reader
from llm_errors._rules.builtin import BUILTIN, FILE
from llm_errors._rules.reader import read_table
from llm_errors._rules.user import parse_rules, read_rules

# The Claude Code rule of the users' tests (its source is in the file).
CLAUDE_RULES = (Path(__file__).parents[1] / "claude_code_rules.toml").read_text(encoding="utf-8")
(CLAUDE,) = (e["text"] for e in tomllib.loads(CLAUDE_RULES)["rules"][0]["examples"])
PATTERN = r"pattern = '\bavailableContext \d+ is less than FLOOR_OUTPUT_TOKENS\b'"
assert PATTERN in CLAUDE_RULES


def _with(pattern_line, patterns=""):
    """The Claude Code rules file with its pattern line replaced and ``[patterns]`` added."""
    text = CLAUDE_RULES.replace(PATTERN, pattern_line)
    return f"[patterns]\n{patterns}\n{text}" if patterns else text


def test_the_builtin_table_is_read_by_the_users_reader():
    """builtin.toml, read as a file with no base, is the table the classifier uses."""
    text = files("llm_errors._rules").joinpath(FILE).read_text(encoding="utf-8")
    table, problems = read_table(text, name=FILE, base=None)
    assert problems == ()
    assert table.rules == RULES
    assert len(RULES) == len(BUILTIN.ids)
    assert all(rule.origin is None for rule in RULES)


def test_builtin_fragments_are_written_out_and_used():
    """Every named fragment is used by a rule or another fragment, and is written out."""
    assert BUILTIN.patterns
    text = files("llm_errors._rules").joinpath(FILE).read_text(encoding="utf-8")
    for name, expanded in BUILTIN.patterns.items():
        assert "%{" not in expanded
        assert text.count(f"%{{{name}}}") >= 1, name
        regex.compile(expanded, regex.IGNORECASE | regex.MULTILINE | regex.V0)


def test_a_user_file_uses_its_own_and_the_builtin_fragments():
    """``%{name}`` is the file's fragment or a built-in one, written out in place."""
    (rule,) = parse_rules(
        _with(
            r"pattern = '\b%{ctx} \d+ is less than %{floor}\b'",
            "ctx = 'availableContext'\nfloor = 'FLOOR_%{kind}_TOKENS'\nkind = 'OUTPUT'",
        ),
        name="f",
    )
    assert rule.pattern == r"\bavailableContext \d+ is less than FLOOR_OUTPUT_TOKENS\b"
    (rule,) = parse_rules(_with(r"pattern = 'availableContext%{status_context}'"), name="f")
    assert rule.pattern == "availableContext" + BUILTIN.patterns["status_context"]


def test_an_array_pattern_is_its_alternatives():
    """A pattern (or fragment) given as an array is its strings joined with ``|``."""
    floor = r"floor = ['\bFLOOR_OUTPUT_TOKENS\b']"
    text = _with(r"pattern = ['\bnever seen\b', '%{floor}']", floor)
    (rule,) = parse_rules(text, name="f")
    assert rule.pattern == r"\bnever seen\b|\bFLOOR_OUTPUT_TOKENS\b"
    assert Classifier(extra_rules=[rule]).classify(CLAUDE).rule == rule.id


def test_a_literal_percent_brace_stays_a_pattern():
    r"""``%\{`` and a quantifier after ``%`` are regex text, not references."""
    (rule,) = parse_rules(_with(r"pattern = 'FLOOR_OUTPUT_TOKENS(?: %\{x\}| %{1,2})?'"), name="f")
    assert rule.pattern == r"FLOOR_OUTPUT_TOKENS(?: %\{x\}| %{1,2})?"


@pytest.mark.parametrize(
    ("pattern_line", "patterns", "field", "detail"),
    [
        pytest.param(
            "pattern = '%{nowhere}'", "", "pattern", "there is no pattern nowhere", id="unknown"
        ),
        pytest.param(
            "pattern = '%{a}'",
            "a = 'x%{b}'\nb = 'y%{a}'",
            "patterns.a",
            "pattern a uses itself (a -> b -> a)",
            id="cycle",
        ),
        pytest.param(
            "pattern = 'FLOOR'",
            "status_context = 'x'",
            "patterns.status_context",
            "is the name of a built-in pattern",
            id="builtin-name",
        ),
        pytest.param(
            "pattern = 'FLOOR'", "a = 3", "patterns.a", "got an integer", id="not-a-pattern"
        ),
        pytest.param(
            "pattern = 'FLOOR'", "a = ['x', '']", "patterns.a", "got an array", id="empty-part"
        ),
        pytest.param("pattern = []", "", "pattern", "got an array", id="empty-array"),
        pytest.param(
            "pattern = '%{d}'",
            "a = 'xxxxxxxx'\n"
            + "".join(f"{n} = '%{{{p}}}%{{{p}}}'\n" for p, n in zip("abc", "bcd", strict=True)),
            "pattern",
            "over the limit of 16 characters once its patterns are written out",
            id="over-the-limit-written-out",
        ),
    ],
)
def test_fragment_errors_name_the_field(monkeypatch, pattern_line, patterns, field, detail):
    """Each fragment problem is an error naming the file, the rule or fragment, and why."""
    monkeypatch.setattr(reader, "PATTERN_LIMIT", 16)
    _, problems = read_rules(_with(pattern_line, patterns), name="f")
    assert problems, "no error"
    found = [p for p in problems if p.field == field]
    assert found, [str(p) for p in problems]
    assert detail in str(found[0])
    assert str(found[0]).startswith("f: ")


def test_every_bad_fragment_is_named_in_one_read():
    """A file with several bad fragments and rules names each of them."""
    text = _with("pattern = '%{gone}'", "Bad = 'x'\nloop = '%{loop}'\nok = 'fine'")
    table, problems = read_rules(text, name="f")
    assert table == ()
    fields = sorted(str(p.field) for p in problems)
    assert fields == ["pattern", "patterns", "patterns.loop"]


def test_fragments_cannot_blow_up():
    """Doubling fragments forty deep fail at the limit, without writing out 2**40 characters."""
    chain = "".join(f"f{i + 1} = '%{{f{i}}}%{{f{i}}}'\n" for i in range(40))
    _, problems = read_rules(_with("pattern = '%{f40}'", "f0 = 'ab'\n" + chain), name="f")
    assert any(
        p.field == "pattern" and "over the limit of 4096 characters once" in str(p)
        for p in problems
    )


def test_the_builtin_table_takes_no_placement():
    """A rule of the built-in table has no ``before``, ``after`` or ``override``."""
    text = CLAUDE_RULES.replace('why = "', 'before = "http.4xx"\nwhy = "')
    _, problems = read_table(text, name=FILE, base=None)
    assert [p.field for p in problems] == ["before"]
    assert "unknown key" in str(problems[0])


def test_too_many_fragments_is_an_error(monkeypatch):
    """Over ``PATTERNS_LIMIT`` fragments, the file's ``[patterns]`` is refused by name."""
    monkeypatch.setattr(reader, "PATTERNS_LIMIT", 2)
    _, problems = read_rules(_with(PATTERN, "a = 'x'\nb = 'y'\nc = 'z'"), name="f")
    assert [(p.field, "over the limit of 2" in str(p)) for p in problems] == [("patterns", True)]


def test_a_deeply_nested_file_is_an_error_not_a_crash():
    """TOML arrays nested thousands deep give a rules error, not a RecursionError."""
    text = "x = " + "[" * 100_000 + "]" * 100_000 + "\n"
    with pytest.raises(RulesFileError) as caught:
        parse_rules(text, name="deep.toml")
    assert caught.value.file == "deep.toml"
    assert "is not valid TOML" in str(caught.value)


def test_the_builtin_codes_are_error_codes():
    """Every built-in rule's code is read into an ErrorCode."""
    assert {type(rule.code) for rule in RULES} == {ErrorCode}


@pytest.mark.parametrize(
    "key",
    [
        pytest.param("a.b.c.d = 1", id="key"),
        pytest.param("[a.b.c.d]", id="table-header"),
        pytest.param("[[a . b . c . d]]", id="array-header-with-spaces"),
        pytest.param('"a"."b".\'c\'.d = 1', id="quoted-parts"),
        pytest.param('x = { "y" = 1, a.b.c.d = 2 }', id="in-an-inline-table"),
    ],
)
def test_a_dotted_key_over_the_limit_is_refused_before_parsing(monkeypatch, key):
    """Python's TOML parser is quadratic in a key's parts: over the limit, it is never run."""
    monkeypatch.setattr(reader, "KEY_PARTS_LIMIT", 3)
    monkeypatch.setattr(reader.tomllib, "loads", None)  # a call would raise TypeError
    _, problems = read_rules(CLAUDE_RULES + key + "\n", name="f")
    assert [str(p) for p in problems] == [
        (
            "f: is not valid TOML for a rules file: a dotted key of 4 parts, over the limit "
            "of 3 (the keys of a rules file have one or two)"
        )
    ]


def test_dots_in_strings_comments_and_values_are_no_key_parts(monkeypatch):
    """Dotted text inside strings (of every kind), comments, numbers and times passes."""
    monkeypatch.setattr(reader, "KEY_PARTS_LIMIT", 2)
    dots = "a.b.c.d.e"
    rule = CLAUDE_RULES.split("examples = [", 1)[0]
    text = (
        f"# {dots}\n[patterns]\n"
        f'basic = \'{dots}\'\nescaped = "{dots} \\" {dots}"\n'
        f'multi = """\n{dots}\n"{dots}"\n"""\n'
        f"literal = '''{dots}\n{dots}'''\n"
        f'closing = """{dots}"""""\n'
        f"\n{rule}"
        "[[rules.examples]]\n"
        f'text = "{CLAUDE}"\nsource = "https://example.com/{dots}"  # {dots}\n'
    )
    document = tomllib.loads(text)
    assert document["patterns"]["closing"] == dots + '""'
    assert document["patterns"]["escaped"] == f'{dots} " {dots}'
    (rule_read,), problems = read_rules(text, name="f")
    assert problems == ()
    assert rule_read.examples[0].source == f"https://example.com/{dots}"
    values = CLAUDE_RULES.replace('why = "', 'xs = [1.5, 1979-05-27T07:32:00.999]\nwhy = "')
    assert [p.field for p in read_rules(values, name="f")[1]] == ["xs"]  # an unknown key
