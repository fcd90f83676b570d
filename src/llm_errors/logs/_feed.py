"""Feed an input's lines to a :class:`~llm_errors.logs.Scanner`: line by line, or by blocks.

The block path (:mod:`llm_errors.logs._blocks`) feeds only the lines its filter
reports, and a run of other lines is one :meth:`~llm_errors.logs.Scanner.gap`;
while a traceback is open, every line is fed, and so is every line that continues
a held error line (its frames, its cause, its HTML page). Both paths give the same events, and a
:class:`Watcher` (the report's dating) is shown the same lines: each line fed, and a
run passed over as its first line and then one range of the block.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from llm_errors import Classifier
from llm_errors.engine import BODY_TYPES, default_classifier, triggers_of
from llm_errors.logs import _blocks
from llm_errors.logs._blocks import (
    CutLine,
    LineFilter,
    Records,
    iter_blocks,
    line_filter,
    line_start,
)
from llm_errors.logs._input import InputError, Readable, decode_line, iter_lines
from llm_errors.logs._scan import Finding, InputMode, Problem, Scanner

__all__ = ["BlockFilter", "Feeder", "Watcher", "block_filter"]

_PROGRESS_EVERY: Final = 4096  # lines between progress callbacks on the line-by-line path
_BRACE: Final = ord("{")
# A block is decoded whole to check it is UTF-8 when it holds more than one line with
# a non-ASCII byte per this many bytes (measured: decoding a line costs about 1 µs,
# a 1 MiB block 3 ms).
_LINE_DECODE_SHARE: Final = 512

Events = Callable[[Sequence[Finding | Problem]], None]
# The error bodies' identifiers (``"type": "insufficient_quota"``): a record holding one is parsed.
_IDENTIFIERS: Final = frozenset(BODY_TYPES)


class Watcher(Protocol):
    """Shown every line of an input in order, before the scanner is fed it."""

    def seen(self, number: int, text: str) -> None:
        """Line ``number``, decoded."""

    def skipped(self, number: int, block: bytes, start: int, stop: int) -> bool:
        """The lines of ``block[start:stop]`` from ``number`` on, passed over undecoded.

        ``block`` is ASCII and the range whole lines (the last may lack its newline).
        ``False``: not taken; each line is then shown to :meth:`seen` instead.
        """


@dataclass(frozen=True, slots=True)
class BlockFilter:
    """A classifier's block filter: the lines worth a look, and which word lines a rule may match.

    ``lines`` is shared by every classifier with the same trigger words;
    ``may_match`` is the classifier's own :meth:`~llm_errors.Classifier.may_match`.
    """

    lines: LineFilter
    may_match: Callable[[bytes], bool]


def block_filter(
    classifier: Classifier | None = None,
    *,
    mode: InputMode = InputMode.AUTO,
    field: str | None = None,
) -> BlockFilter | None:
    """The block filter for ``classifier`` (default: the default one), if Hyperscan is there.

    ``mode`` and ``field`` are the scan's: without a field, JSON records with no sign
    of an error are passed over (:class:`~llm_errors.logs._blocks.Records`); ``jsonl``
    input with a field is read line by line (``None``). ``None`` also when some rule
    of the classifier has no trigger tokens (a user rule with only non-ASCII words,
    say): then every line must be looked at.
    """
    if mode is InputMode.JSONL and field:
        return None
    records = Records.KEEP
    if not field and mode is not InputMode.TEXT:
        records = Records.ONLY if mode is InputMode.JSONL else Records.SIGNS
    classifier = classifier or default_classifier()
    if classifier.trigger_tokens is None:
        return None
    rules = [(rule.pattern, _tokens(rule.pattern)) for rule in classifier.rules]
    lines = line_filter(rules, records, _IDENTIFIERS)
    return None if lines is None else BlockFilter(lines, classifier.may_match)


@functools.lru_cache(maxsize=4096)
def _tokens(pattern: str) -> frozenset[bytes]:
    """The trigger tokens of ``pattern``, UTF-8 encoded (as ``Classifier.trigger_tokens``)."""
    return frozenset(token.encode() for token in triggers_of(pattern).tokens)


def _utf8(block: bytes, foreign: set[int]) -> bool:
    """Whether ``block`` is UTF-8, knowing where its lines with non-ASCII bytes end.

    Those lines are decoded one by one (most blocks hold few), or the whole block
    when they are many (one decode of the block then costs less).
    """
    if not foreign:
        return True
    try:
        if len(foreign) > len(block) // _LINE_DECODE_SHARE:
            block.decode()
        else:
            for end in foreign:
                block[line_start(block, end) : end].decode()
    except UnicodeDecodeError:
        return False
    return True


def _lines_of(block: bytes) -> list[bytes]:
    lines = block.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return lines


class Feeder:
    """Feeds lines to ``scanner``, numbering them from ``number + 1``; events go to ``emit``.

    ``clean`` (optional) is told each line number after which the scanner's state is
    the initial one; the parallel scan uses it to find where two workers agree.
    ``watcher`` (optional) is shown every line (see :class:`Watcher`); the report
    dates findings with it.
    """

    def __init__(
        self,
        scanner: Scanner,
        emit: Events,
        *,
        number: int = 0,
        clean: Callable[[int, int], None] | None = None,
        watcher: Watcher | None = None,
    ) -> None:
        self.scanner = scanner
        self.number = number
        self.bytes = 0
        self._emit = emit
        self._clean = clean
        self._watcher = watcher
        self._ascii = True  # whether the block being fed is ASCII (when watched)

    def read(
        self, stream: Readable, found: BlockFilter | None, progress: Callable[[], None]
    ) -> None:
        """Read ``stream`` to its end (by blocks when ``found`` is given)."""
        if found is None:
            for raw, cut in iter_lines(stream):
                self.number += 1
                self.bytes += len(raw) + cut
                self.line(raw, cut)
                if not self.number % _PROGRESS_EVERY:
                    progress()
            return
        try:
            self._read_blocks(stream, found, progress)
        except InputError as exc:
            # ``iter_blocks`` leaves the numbering to its reader: every line before is fed.
            raise InputError(exc.detail, self.number + 1) from exc.__cause__

    def _read_blocks(
        self, stream: Readable, found: BlockFilter, progress: Callable[[], None]
    ) -> None:
        for block in iter_blocks(stream, size=_blocks.BLOCK_SIZE):
            if isinstance(block, CutLine):
                self.number += 1
                self.bytes += len(block.chunk) + block.cut
                self.line(block.chunk, block.cut)
            elif self.number == 0:  # a BOM is read by the line path
                self._by_lines(block)
            else:
                self.block(block, found)
            if not isinstance(block, CutLine):
                self.bytes += len(block)
            progress()

    def line(self, raw: bytes, cut: int) -> None:
        """Feed the line numbered :attr:`number`."""
        text, problems = decode_line(self.number, raw, cut)
        if problems:
            self._emit(problems)
        if text is not None:
            if self._watcher is not None:
                self._watcher.seen(self.number, text)
            if events := self.scanner.feed(self.number, text):
                self._emit(events)
        self._fed()

    def block(self, block: bytes, found: BlockFilter) -> None:
        """Feed the lines ``found`` reports, and one gap for each run of other lines.

        A line of trigger words that no rule may match (``found.may_match``) is one
        of the other lines: the next gap passes over it (or feeds it, while a
        traceback is open, as every line then is).
        """
        ends, words_only, foreign, in_records, only_records = found.lines.scan(block)
        if not _utf8(block, foreign):  # bad bytes: read line by line, which reports them
            self._by_lines(block)
            return
        self._ascii = self._watcher is None or block.isascii()
        pos = 0
        scanner = self.scanner
        may_match = found.may_match
        for end in ends:
            if end < pos:
                continue  # a line already fed while following a traceback
            newline = block.rfind(b"\n", pos, end)
            start = pos if newline < 0 else newline + 1
            words = end in words_only
            if words:
                # A record of trigger words only is tested without its ``{`` (``may_match``
                # then reads it as text): its text is its values', whose words are some
                # of the line's. If a rule may match, it is parsed, not fed as words.
                # (``startswith``: the filter may report the empty line after the block's
                # last newline, ``start == len(block)``.)
                record = block.startswith(b"{", start)
                if not may_match(block[start + record : end]):
                    continue
                words = not record
            if start > pos:
                self._skip(block, pos, start, in_records, only_records)
            self.number += 1
            if words and not scanner.in_traceback:
                self.words(block[start:end])
            else:
                self.line(block[start:end], 0)
            pos = end + 1
        if pos < len(block):
            self._skip(block, pos, len(block), in_records, only_records)

    def words(self, raw: bytes) -> None:
        """Feed line :attr:`number`, which holds trigger words only (``LineFilter.ends``).

        The block is valid UTF-8 and such a line holds no NUL or ESC and is not the
        first line, so it decodes as :func:`~llm_errors.logs._input.decode_line` would.
        """
        text = raw.decode("utf-8").rstrip("\r\n")
        if self._watcher is not None:
            self._watcher.seen(self.number, text)
        if events := self.scanner.feed_words(self.number, text):
            self._emit(events)
        self._fed()

    def _show(self, number: int, block: bytes, start: int, stop: int) -> None:
        """Show the watcher lines passed over: as one range if ASCII and taken, else one by one.

        (Such a line holds no NUL or ESC and is not the input's first, so it decodes
        as :func:`~llm_errors.logs._input.decode_line` would.)
        """
        assert self._watcher is not None  # noqa: S101 -- only called with one
        ascii_range = self._ascii or block[start:stop].isascii()
        if ascii_range and self._watcher.skipped(number, block, start, stop):
            return
        for offset, raw in enumerate(_lines_of(block[start:stop])):
            self._watcher.seen(number + offset, raw.decode("utf-8").rstrip("\r\n"))

    def _by_lines(self, block: bytes) -> None:
        for raw in _lines_of(block):
            self.number += 1
            self.line(raw, 0)

    def _fed(self) -> None:
        """Line :attr:`number` was fed: tell ``clean`` if the scanner is in its initial state."""
        if self._clean is not None and self.scanner.clean:
            self._clean(self.number, self.number)

    def _skip(
        self, block: bytes, pos: int, stop: int, in_records: bool, only_records: bool
    ) -> None:
        """Pass the lines from ``pos`` to ``stop`` (some may be records; or all are).

        They are fed one by one while a traceback is open or while they continue the
        held error line (``Scanner.continues``): only then can the scanner tell what
        they are.
        """
        scanner = self.scanner
        while pos < stop and (scanner.in_traceback or scanner.holding):
            following = not scanner.in_traceback  # (else every line is fed)
            if following and not scanner.may_continue(block[pos]):
                break  # its first byte says: most lines after an error line end here
            newline = block.find(b"\n", pos, stop)
            end = stop if newline < 0 else newline
            raw = block[pos:end]
            if following and not scanner.continues(raw.decode("utf-8").rstrip("\r\n")):
                break
            self.number += 1
            self.line(raw, 0)
            pos = end + 1
        if pos >= stop:
            return
        lines = block.count(b"\n", pos, stop) + (block[stop - 1 : stop] != b"\n")
        # JSON records the filter passed over (``Records.SIGNS``): counted, not parsed.
        if only_records:
            records = lines
        elif in_records:
            records = block.count(b"\n{", pos, stop) + (block[pos] == _BRACE)
        else:
            records = 0
        self.number += 1  # the first skipped line releases a held finding
        second = 0  # where the second skipped line starts (0: none), when watched
        if self._watcher is not None:  # shown that line, as the line path would
            second = block.find(b"\n", pos, stop) + 1
            text = block[pos : (second or stop + 1) - 1].decode("utf-8").rstrip("\r\n")
            self._watcher.seen(self.number, text)
        if events := scanner.gap(records):
            self._emit(events)
        first = self.number
        self.number += lines - 1
        if 0 < second < stop:
            self._show(first + 1, block, second, stop)
        if self._clean is not None:
            # The record count changes along a run with records: clean at its end only.
            self._clean(self.number if records else first, self.number)
