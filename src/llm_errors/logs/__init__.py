"""Classify your own logs: read them, group tracebacks, tally the verdicts, report.

The ``llm-errors`` command is :func:`main`; the pieces it is built from are public so
that a pipeline can scan logs without going through the command line:
:func:`open_source` and :func:`iter_lines` read plain text, JSON Lines and gzip in
constant memory, :class:`TracebackParser` folds a Python traceback into one finding
with its chain, :class:`Scanner` turns lines into :class:`Finding` records and
:class:`Tally` counts them.
"""

from llm_errors.logs._cli import main
from llm_errors.logs._input import LINE_LIMIT, InputError, Source, iter_lines, open_source
from llm_errors.logs._scan import EXCERPT_LIMIT, Finding, InputMode, Problem, ProblemKind, Scanner
from llm_errors.logs._tally import Tally
from llm_errors.logs._traceback import ParsedTraceback, TracebackParser

__all__ = [
    "EXCERPT_LIMIT",
    "LINE_LIMIT",
    "Finding",
    "InputError",
    "InputMode",
    "ParsedTraceback",
    "Problem",
    "ProblemKind",
    "Scanner",
    "Source",
    "Tally",
    "TracebackParser",
    "iter_lines",
    "main",
    "open_source",
]
