"""The engine's one hook for tools built on it, the ``llm-errors`` command line first.

The public API (:mod:`llm_errors`) classifies one object at a time. A tool that reads
whole logs at speed needs a few more of the engine's facts: the limits it reads input
under, which keys of a record it reads, the scrubbers behind :func:`~llm_errors.redact`,
the default classifier it shares, the checks of rules files, the trigger analysis and
the forward reading of look-behinds (:func:`forwarded`) a block filter is built from, and
the rules' compiled patterns (:func:`compiled_patterns`, :func:`known_patterns`, compiled
with :data:`FLAGS`), which such a tool may keep between runs, and the compiled
per-line core (:data:`NATIVE`) where it was built.
They are gathered here so that such a tool imports no private module of the core:
``llm_errors.logs`` imports the core only through :mod:`llm_errors` and this module
(``tests/test_architecture.py`` holds it to that).

The hook follows the engine: a name here may change in a minor release, with a
CHANGELOG entry, where :mod:`llm_errors`'s names keep their deprecation period.

.. versionadded:: 0.3.0
"""

import pathlib
import typing

from llm_errors._classify import MAX_INPUT
from llm_errors._classify import _default as default_classifier
from llm_errors._evidence import MAX_VALUES
from llm_errors._evidence import gathered as reads_key
from llm_errors._match import forward as _forward
from llm_errors._match import prefilter as _prefilter
from llm_errors._match import syntax as _syntax
from llm_errors._match.forward import forwarded
from llm_errors._match.matcher import (
    FLAGS,
    compiled_patterns,
    known_patterns,
    known_triggers,
    triggers_of,
)
from llm_errors._match.prefilter import Triggers, derive_triggers
from llm_errors._native import NATIVE
from llm_errors._redact import inert, scrub
from llm_errors._rules.status import BODY_TYPES
from llm_errors._rules_file import FileCheck, check_builtin, check_rule_files, load_rule_files
from llm_errors._version import VersionAction

__all__ = [
    "BODY_TYPES",
    "FLAGS",
    "FORWARD_ANALYSIS",
    "MAX_INPUT",
    "MAX_VALUES",
    "NATIVE",
    "TRIGGER_ANALYSIS",
    "FileCheck",
    "Triggers",
    "VersionAction",
    "check_builtin",
    "check_rule_files",
    "compiled_patterns",
    "default_classifier",
    "derive_triggers",
    "forwarded",
    "inert",
    "known_patterns",
    "known_triggers",
    "load_rule_files",
    "reads_key",
    "scrub",
    "triggers_of",
]

#: The source files of the trigger analysis (the derivation and the pattern parser it
#: walks): what a stored table of triggers is keyed on, so that a changed analysis
#: never reads triggers an older one derived.
TRIGGER_ANALYSIS: typing.Final = (
    pathlib.Path(_prefilter.__file__),
    pathlib.Path(_syntax.__file__),
)
#: The source files of the forward reading of look-behinds (:func:`forwarded`): what a
#: stored table of expressions written from it is keyed on.
FORWARD_ANALYSIS: typing.Final = (
    pathlib.Path(_forward.__file__),
    pathlib.Path(_syntax.__file__),
)
