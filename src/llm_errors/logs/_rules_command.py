"""Users' rules on the command line: ``--rules FILE`` and ``llm-errors rules check FILE...``.

A rules file (TOML, see ``docs/cli.md``, "Your own rules") is loaded and checked
in full before any input is read: a pattern that does not compile, an unknown
code, an example its rule does not decide all stop the run with exit status 2 and
a message naming the file, the rule and the field. ``rules check`` runs just that
check, for users' CI, and names every problem of every file in one run.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from typing import Final

from llm_errors import RULES, Classifier, Rule, RulesFileError
from llm_errors.engine import (
    check_builtin,
    check_rule_files,
    default_classifier,
    derive_triggers,
    load_rule_files,
)
from llm_errors.logs._report import printable
from llm_errors.logs._stored import stored_patterns, stored_triggers

__all__ = [
    "CLASSIFIERS_KEPT",
    "EXIT_INVALID",
    "add_rules_command",
    "add_rules_option",
    "classifier_for",
    "load_args_rules",
    "summary",
]

#: Exit status of an invalid rules file: a usage error, as for a bad option.
EXIT_INVALID: Final = 2
#: Classifiers kept per process, one per distinct set of user rules.
CLASSIFIERS_KEPT: Final = 8


def add_rules_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--rules FILE`` (repeatable) to a command's parser."""
    parser.add_argument(
        "--rules",
        action="append",
        default=[],
        metavar="FILE",
        help="a TOML file of your own rules, tried as it places them (repeatable; "
        "checked before anything is read: see 'llm-errors rules check')",
    )


@functools.lru_cache(maxsize=CLASSIFIERS_KEPT)
def classifier_for(rules: tuple[Rule, ...]) -> Classifier:
    """The classifier with ``rules`` in place (the default one for none), built once per process.

    The rules' trigger words and compiled patterns come from the cache directory when
    stored there (:func:`~llm_errors.logs._stored.stored_triggers`,
    :func:`~llm_errors.logs._stored.stored_patterns`).
    """
    stored_triggers([rule.pattern for rule in (*rules, *RULES)])
    stored_patterns()
    return default_classifier() if not rules else Classifier(extra_rules=rules)


def load_args_rules(args: argparse.Namespace) -> str | None:
    """Load the ``--rules`` files into ``args.user_rules``; the error message if one is wrong."""
    try:
        args.user_rules = load_rule_files(getattr(args, "rules", None) or ())
    except RulesFileError as exc:
        return str(exc)
    return None


def add_rules_command(add_parser: Callable[..., argparse.ArgumentParser]) -> None:
    """Register ``rules`` (with ``rules check``) through a subparsers' ``add_parser``."""
    rules = add_parser(
        "rules",
        help="work with your own rules files",
        description="Work with rules files (TOML) that --rules reads.",
    )
    actions = rules.add_subparsers(title="actions", required=True, metavar="ACTION")
    check = actions.add_parser(
        "check",
        help="check rules files as --rules would, without reading any log",
        description="Check each rules file alone, then all of them together, as --rules "
        "would: keys and types, ids, codes, placement, that each pattern compiles, and "
        "that each example is decided by its own rule with its code.",
        epilog=f"exit status: 0 all files are valid; {EXIT_INVALID} a file is not (each "
        "problem of each file is named, with the file, the rule and the field)",
    )
    check.add_argument("files", nargs="*", metavar="FILE", help="rules files (TOML)")
    check.add_argument(
        "--builtin",
        action="store_true",
        help="check the built-in rules too (builtin.toml, in the same format)",
    )
    check.set_defaults(command=_check_command, usage=check)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def summary(path: str, rules: tuple[Rule, ...]) -> str:
    """The one-line verdict on a valid file, with a note on rules that slow a scan."""
    examples = sum(len(rule.examples) for rule in rules)
    line = f"{path}: {_count(len(rules), 'rule')}, {_count(examples, 'example')}: ok"
    # A rule without trigger tokens (ASCII words or runs of caseless non-ASCII characters)
    # is always tried, or only found by substring: either way the classifier has no
    # exact token set (``trigger_tokens`` is None) and the scan's filters step aside.
    slow = [rule.id for rule in rules if not derive_triggers(rule.pattern).tokens]
    if slow:
        line += (
            f" (no trigger word in {', '.join(slow)}: with it, every line of a log "
            "is matched, which is slower)"
        )
    return line


def _check_command(args: argparse.Namespace) -> int:
    """Check every file and report every problem (stderr), or each file's verdict (stdout)."""
    paths: list[str] = args.files
    if not paths and not args.builtin:
        args.usage.error("give rules files to check, or --builtin")
    checks, together = check_rule_files(paths)
    if args.builtin:
        checks = (check_builtin(), *checks)
    problems = [*(problem for check in checks for problem in check.problems), *together]
    for check in checks:
        if not check.problems:
            print(printable(summary(check.path, check.rules)))  # noqa: T201
    for problem in problems:
        print(f"llm-errors: {printable(str(problem))}", file=sys.stderr)  # noqa: T201
    if problems:
        files = len({problem.file for problem in problems})
        verdict = f"{_count(len(problems), 'problem')} in {_count(files, 'file')} of {len(checks)}"
        print(f"llm-errors: {verdict}", file=sys.stderr)  # noqa: T201
        return EXIT_INVALID
    if len(paths) > 1:
        print(f"all {len(paths)} files together: ok")  # noqa: T201
    return 0
