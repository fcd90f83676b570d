"""Rules files read into rules: every structural error names the file, the rule and the field."""

import tomllib
from pathlib import Path

import pytest

from llm_errors import ErrorCode, Example, RulesFileError
from llm_errors._rules import reader
from llm_errors._rules.user import parse_rules

# The Claude Code rule (its source is in the file), its example's message and source.
CLAUDE_RULES = (Path(__file__).parents[1] / "claude_code_rules.toml").read_text(encoding="utf-8")
(CLAUDE_EXAMPLE,) = tomllib.loads(CLAUDE_RULES)["rules"][0]["examples"]
CLAUDE, CLAUDE_SOURCE = CLAUDE_EXAMPLE["text"], CLAUDE_EXAMPLE["source"]
# The rule with a second example, a plain string (which takes the file as its source).
VALID = CLAUDE_RULES.replace("\n]\n", f'\n  "{CLAUDE}",\n]\n')
RULE_ID = "'claude-code.available-context'"


def test_a_valid_file_gives_its_rules():
    """Every field lands on the rule; a plain-string example takes the file as its source."""
    (rule,) = parse_rules(VALID, name="mine.toml")
    assert rule.id == "claude-code.available-context"
    assert rule.code is ErrorCode.CONTEXT_OVERFLOW
    assert rule.examples == (Example(CLAUDE, CLAUDE_SOURCE), Example(CLAUDE, "mine.toml"))
    assert (rule.before, rule.after, rule.origin) == (None, None, "mine.toml")


def test_placement_and_override_are_read():
    """``before``/``after`` name a built-in rule; ``override = true`` replaces one."""
    placed = VALID.replace('why = "', 'before = "http.4xx"\nwhy = "')
    assert parse_rules(placed, name="f")[0].before == "http.4xx"
    placed = VALID.replace('why = "', 'after = "http.4xx"\nwhy = "')
    assert parse_rules(placed, name="f")[0].after == "http.4xx"
    replaced = VALID.replace('"claude-code.available-context"', '"http.4xx"').replace(
        'why = "', 'override = true\nwhy = "'
    )
    assert parse_rules(replaced, name="f")[0].id == "http.4xx"


def _mutated(old: str, new: str) -> str:
    assert old in VALID
    return VALID.replace(old, new)


@pytest.mark.parametrize(
    ("text", "rule", "field", "detail"),
    [
        pytest.param(
            _mutated('code = "CONTEXT_OVERFLOW"', 'code = "CONTEXT"'),
            RULE_ID,
            "code",
            "is not an error code",
            id="unknown-code",
        ),
        pytest.param(
            _mutated('code = "CONTEXT_OVERFLOW"', 'code = "context_overflow"'),
            RULE_ID,
            "code",
            "is not an error code",
            id="code-in-lower-case",
        ),
        pytest.param(
            _mutated("why =", "reason = 1\nwhy ="),
            RULE_ID,
            "reason",
            "unknown key",
            id="unknown-key",
        ),
        pytest.param(
            _mutated('why = "Claude Code found no room left for the answer."\n', ""),
            RULE_ID,
            "why",
            "is missing",
            id="missing-why",
        ),
        pytest.param(
            _mutated('id = "claude-code.available-context"\n', ""),
            "#1",
            "id",
            "is missing",
            id="missing-id",
        ),
        pytest.param(
            _mutated('id = "claude-code.available-context"', 'id = "has space"'),
            "#1",
            "id",
            "must be letters",
            id="bad-id",
        ),
        pytest.param(
            _mutated("pattern = '", "pattern = 3\n#'"),
            RULE_ID,
            "pattern",
            "must be a non-empty string or array of them, got an integer",
            id="pattern-not-a-string",
        ),
        pytest.param(
            _mutated('"claude-code.available-context"', '"http.4xx"'),
            "'http.4xx'",
            "id",
            "set override = true",
            id="builtin-id-without-override",
        ),
        pytest.param(
            _mutated('why = "', 'override = true\nwhy = "'),
            RULE_ID,
            "override",
            "no built-in rule with this id",
            id="override-of-nothing",
        ),
        pytest.param(
            _mutated('why = "', 'override = "yes"\nwhy = "'),
            RULE_ID,
            "override",
            "must be true or false",
            id="override-not-a-boolean",
        ),
        pytest.param(
            _mutated('why = "', 'before = "http.999"\nwhy = "'),
            RULE_ID,
            "before",
            "names no built-in rule",
            id="unknown-before",
        ),
        pytest.param(
            _mutated('why = "', 'before = "http.4xx"\nafter = "http.429"\nwhy = "'),
            RULE_ID,
            "after",
            "not both",
            id="before-and-after",
        ),
        pytest.param(
            _mutated('"claude-code.available-context"', '"http.4xx"').replace(
                'why = "', 'override = true\nafter = "http.429"\nwhy = "'
            ),
            "'http.4xx'",
            "after",
            "keeps its place",
            id="override-placed",
        ),
        pytest.param(
            _mutated("examples = [", "examples = []\nold = ["),
            RULE_ID,
            "old",
            "unknown key",
            id="unknown-key-before-examples",
        ),
        pytest.param(
            VALID.split("examples", maxsplit=1)[0] + "examples = []\n",
            RULE_ID,
            "examples",
            "must be a non-empty array",
            id="no-examples",
        ),
        pytest.param(
            _mutated(f'  "{CLAUDE}",', "  3,"),
            RULE_ID,
            "examples[1]",
            "must be a string or a table",
            id="example-not-text",
        ),
        pytest.param(
            _mutated(f'source = "{CLAUDE_SOURCE}"', 'where = "x"'),
            RULE_ID,
            "examples[0]",
            "unknown key 'where'",
            id="example-unknown-key",
        ),
        pytest.param(
            _mutated(f'text = "{CLAUDE}", ', ""),
            RULE_ID,
            "examples[0].text",
            "must be a non-empty string",
            id="example-without-text",
        ),
        pytest.param(
            _mutated(f'  "{CLAUDE}",', f'  "{"x" * (reader.TEXT_LIMIT + 1)}",'),
            RULE_ID,
            "examples[1].text",
            f"is over the limit of {reader.TEXT_LIMIT} characters",
            id="example-over-the-text-limit",
        ),
        pytest.param(
            VALID + VALID, RULE_ID, "id", "is the id of an earlier rule", id="duplicate-id"
        ),
    ],
)
def test_each_error_names_the_file_the_rule_and_the_field(text, rule, field, detail):
    """The message says which file, which rule and which field, and what is wrong."""
    with pytest.raises(RulesFileError) as caught:
        parse_rules(text, name="mine.toml")
    error = caught.value
    assert (error.file, error.rule, error.field) == ("mine.toml", rule, field)
    assert str(error).startswith(f"mine.toml: rule {rule}: field {field!r}: ")
    assert detail in str(error)


@pytest.mark.parametrize(
    ("text", "field", "detail"),
    [
        pytest.param("[[rules]\n", None, "is not valid TOML", id="not-toml"),
        pytest.param(
            'version = 1\n[[rules]]\nid = "x"\n', "version", "unknown top-level", id="top"
        ),
        pytest.param("rules = 3\n", "rules", "array of tables", id="rules-not-tables"),
        pytest.param("", None, "holds no rules", id="empty"),
        pytest.param("# nothing yet\n", None, "holds no rules", id="only-a-comment"),
        pytest.param("[patterns]\nx = 'y'\n", None, "holds no rules", id="only-fragments"),
        pytest.param("rules = []\n", None, "holds no rules", id="empty-array"),
        pytest.param(
            "a" + ".b" * 100_000 + " = 1\n",
            None,
            f"a dotted key of 100,001 parts, over the limit of {reader.KEY_PARTS_LIMIT}",
            id="huge-dotted-key",
        ),
    ],
)
def test_file_level_errors_name_the_file(text, field, detail):
    """Errors about the file as a whole name it (and the key, where there is one)."""
    with pytest.raises(RulesFileError) as caught:
        parse_rules(text, name="mine.toml")
    assert (caught.value.file, caught.value.rule, caught.value.field) == ("mine.toml", None, field)
    assert detail in str(caught.value)


def test_a_bad_value_is_never_quoted():
    """A wrong value is described by its kind, not copied into the message."""
    secret = "sk-proj-abcdefghijklmnopqrstuvwx"
    with pytest.raises(RulesFileError) as caught:
        parse_rules(_mutated('code = "CONTEXT_OVERFLOW"', f'code = "{secret}"'), name="f")
    assert secret not in str(caught.value)
    with pytest.raises(RulesFileError) as caught:
        parse_rules(
            _mutated('id = "claude-code.available-context"', f'id = "{secret} x"'), name="f"
        )
    assert secret not in str(caught.value)


@pytest.mark.parametrize(
    ("limit", "text", "field"),
    [
        pytest.param("RULES_LIMIT", VALID.replace("claude", "a") + VALID, "rules", id="rules"),
        pytest.param("EXAMPLES_LIMIT", VALID, "examples", id="examples"),
        pytest.param("PATTERN_LIMIT", VALID, "pattern", id="pattern"),
        pytest.param("TEXT_LIMIT", VALID, "why", id="text"),
        pytest.param("RULES_FILE_LIMIT", VALID, None, id="file"),
    ],
)
def test_limits_are_named_and_enforced(monkeypatch, limit, text, field):
    """Each bound has a name; going over it is an error naming the limit's figure."""
    small = {"RULES_LIMIT": 1, "EXAMPLES_LIMIT": 1, "PATTERN_LIMIT": 10, "TEXT_LIMIT": 10}
    monkeypatch.setattr(reader, limit, small.get(limit, 100))
    with pytest.raises(RulesFileError) as caught:
        parse_rules(text, name="f")
    assert caught.value.field == field
    assert f"limit of {small.get(limit, 100)}" in str(caught.value)
