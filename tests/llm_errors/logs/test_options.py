"""The command line's option types and parser: bad words named, left-over words placed."""

import argparse
import os

import pytest

from llm_errors.logs._options import JOBS_LIMIT, CommandParser, job_count, whole_number


def test_jobs_zero_is_one_per_core_up_to_the_limit():
    """``--jobs 0`` asks for a process per core, never more than the limit."""
    assert job_count("0") == min(os.cpu_count() or 1, JOBS_LIMIT)
    assert job_count(str(JOBS_LIMIT)) == JOBS_LIMIT
    with pytest.raises(argparse.ArgumentTypeError, match=f"from 0 to {JOBS_LIMIT}"):
        job_count(str(JOBS_LIMIT + 1))


def test_whole_number_reads_what_int_reads():
    """Spaces and digit separators are fine; fractions and words are not."""
    at_least_one = whole_number(1)
    assert (at_least_one(" 7 "), at_least_one("1_000")) == (7, 1000)
    for bad in ("2.5", "", "1e3"):
        with pytest.raises(argparse.ArgumentTypeError, match=f"^{bad!r} is not a whole number"):
            at_least_one(bad)


def _parser():
    parser = CommandParser(prog="tool")
    parser.add_argument("--format")
    return parser


def test_left_over_words_without_a_rest_are_a_usage_error(capsys):
    """A command without ``FILE ...`` names its left-over words under its own usage."""
    parser = _parser()
    args, extras = parser.parse_known_args(["a", "--format", "x", "b"])
    with pytest.raises(SystemExit) as stopped:
        parser.take_extras(args, extras)
    assert stopped.value.code == 2  # argparse's usage status
    assert capsys.readouterr().err.splitlines()[-1] == "tool: error: unrecognized arguments: a b"


def test_unknown_option_names_the_closest_and_every_option():
    """The hint compares names without their dashes (``--bogus`` is not ``--jobs``)."""
    parser = _parser()
    assert parser.unknown("--formt=x") == (
        "unrecognized option '--formt': did you mean --format? (tool takes -h, --help, --format)"
    )
    assert (
        parser.unknown("--bogus")
        == "unrecognized option '--bogus' (tool takes -h, --help, --format)"
    )
