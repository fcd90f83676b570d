"""Parsing settings from mappings and environment variables (pure)."""

import pytest

from llm_errors import ErrorCode
from llm_retry._config import CONFIG_FIELDS, parse_environ, parse_mapping

SECRET = "sk-proj-SENTINELsecretKEY0123456789"


@pytest.mark.parametrize(
    ("key", "raw", "parsed"),
    [
        pytest.param("max_attempts", " 5 ", 5, id="int-str"),
        pytest.param("max_attempts", 5, 5, id="int"),
        pytest.param("deadline", "12.5", 12.5, id="float-str"),
        pytest.param("deadline", "inf", float("inf"), id="inf-str"),
        pytest.param("jitter", "Yes", True, id="bool-yes"),
        pytest.param("jitter", "0", False, id="bool-zero"),
        pytest.param("jitter", False, False, id="bool"),
        pytest.param(
            "retry_on", "server, timeout", frozenset({ErrorCode.SERVER, ErrorCode.TIMEOUT}), id="s"
        ),
        pytest.param("retry_on", ["RATE_LIMIT"], frozenset({ErrorCode.RATE_LIMIT}), id="list"),
        pytest.param("retry_on", [ErrorCode.AUTH], frozenset({ErrorCode.AUTH}), id="codes"),
        pytest.param("retry_on", "", frozenset(), id="empty"),
    ],
)
def test_values_are_parsed(key, raw, parsed):
    """Strings are converted to the field's type; typed values pass through."""
    assert parse_mapping({key: raw}) == {key: parsed}


@pytest.mark.parametrize(
    ("key", "raw", "match"),
    [
        pytest.param("max_attempts", "four", "max_attempts must be an integer", id="int"),
        pytest.param("deadline", "soon", "deadline must be a number", id="float"),
        pytest.param("jitter", "maybe", "jitter must be one of", id="bool"),
        pytest.param("retry_on", "SERVER,TEAPOT", "unknown error code 'TEAPOT'", id="code"),
    ],
)
def test_bad_values_are_named(key, raw, match):
    """A value that does not parse is an error naming the setting and the value."""
    with pytest.raises(ValueError, match=match):
        parse_mapping({key: raw})


def test_unknown_keys_are_rejected_with_the_known_ones():
    """A typo lists what would have been accepted."""
    with pytest.raises(ValueError, match=r"'max_attempt'.*max_attempts"):
        parse_mapping({"max_attempt": 3})


def test_callables_cannot_come_from_configuration():
    """Only plain settings are configurable; hooks and budgets are set in code."""
    assert "classifier" not in CONFIG_FIELDS
    with pytest.raises(ValueError, match="unknown retry setting 'budget'"):
        parse_mapping({"budget": 10})


def test_bad_values_are_redacted_and_bounded():
    """A secret pasted into the wrong variable does not end up in the error message."""
    with pytest.raises(ValueError, match="max_attempts") as info:
        parse_mapping({"max_attempts": f"api_key={SECRET}" + "x" * 100})
    assert SECRET not in str(info.value)
    assert len(str(info.value)) < 120


def test_environ_names_variables_in_errors():
    """Errors from the environment name the variable, not the field."""
    with pytest.raises(ValueError, match="APP_DEADLINE must be a number"):
        parse_environ({"APP_DEADLINE": "never"}, prefix="APP_")
    with pytest.raises(ValueError, match=r"'APP_ATTEMPTS'.*APP_MAX_ATTEMPTS"):
        parse_environ({"APP_ATTEMPTS": "3"}, prefix="APP_")


def test_environ_skips_empty_and_unprefixed_variables():
    """Empty variables count as unset and other variables are not read."""
    environ = {"APP_MAX_ATTEMPTS": "3", "APP_DEADLINE": "  ", "PATH": "/bin"}
    assert parse_environ(environ, prefix="APP_") == {"max_attempts": 3}
