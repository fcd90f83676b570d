"""The classifier: route any failure to an :class:`~llm_errors.ErrorCode`.

Evidence is read in layers, most reliable first, and the most specific evidence
wins:

1. **typed**: our own :class:`~llm_errors.LlmError` anywhere in the chain carries its
   code (one whose code is ``PROVIDER_ERROR`` is weak: the chain is searched on and
   it is the fallback);
2. **exception**: exception types in the ``__cause__``/``__context__`` chain and in
   exception groups, by class identity or qualified name (``_rules/exceptions.py``); a
   specific type beats a generic wrapper, and a cancellation caused by a timeout is
   a timeout;
3. **status** and 4. **text**: HTTP statuses, provider error ``type``/``code`` values
   and headers (``_rules/status.py``), and the flattened message text matched against the
   pattern table (``_rules/builtin.toml``). These two share one precedence order, the
   table's: a structured signal ranks where the rule it maps to ranks, so a status
   beats plain wordings while quota, context-overflow and content-filter wordings
   beat a status.

5. **words**: when no rule of those layers decides, the words of the texts the input
   holds (``_words``): weights fitted on the corpus, deciding only above a threshold
   chosen for precision. A rule always outranks them, users' rules included.

Afterwards a rate limit whose stated wait is over an hour is a quota
(``policy.long-reset``). ``classify`` never raises; unknown input is
``PROVIDER_ERROR`` with rule ``fallback``.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from llm_errors._classification import Classification, Layer
from llm_errors._evidence import (
    Evidence,
    explicit_links,
    gather_mapping,
    gather_object,
    walk_exceptions,
)
from llm_errors._match.matcher import TextMatch, TextMatcher
from llm_errors._redact import redact
from llm_errors._retry_after import (
    parse_retry_after,
    reset_time_from_text,
    retry_after_from_text,
    retry_after_in_text,
)
from llm_errors._rules.builtin import RULES
from llm_errors._rules.exceptions import ExceptionRule, lookup_errno, lookup_exception
from llm_errors._rules.rule import Rule
from llm_errors._rules.status import BODY_TYPES, normalize_identifier, status_from_text, status_rule
from llm_errors._taxonomy import DEFAULT_RETRYABLE_CODES, ErrorCode, LlmError
from llm_errors._words.features import TEXT_LIMIT as WORDS_TEXT_LIMIT
from llm_errors._words.model import FILE as WORDS_FILE
from llm_errors._words.model import WordsModel, WordsVerdict, shipped

__all__ = ["POLICIES", "Classifier", "Explanation", "classify", "explain"]

#: A stated wait longer than this turns a rate limit into a quota problem.
LONG_RESET_SECONDS: Final = 3600.0
#: Characters of a string (or bytes) read; the rest is ignored, so any input is bounded.
MAX_INPUT: Final = 262_144
_MATCHED_LIMIT: Final = 200
_WAIT_HINT_CODES: Final = frozenset({ErrorCode.RATE_LIMIT, ErrorCode.QUOTA_EXCEEDED})
_JSON_LEAD: Final = frozenset("{ \t\r\n")
_JSON_LEAD_BYTES: Final = frozenset(lead.encode() for lead in _JSON_LEAD)
#: Distinct verdict records kept for sharing (least recently used ones are dropped).
VERDICT_CACHE: Final = 4096


def _json_object(text: str) -> Mapping[object, object] | None:
    """``text`` parsed as a JSON object, or ``None``."""
    if text[-1:] != "}":
        return None
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, Mapping) else None


@dataclass(frozen=True, slots=True)
class _Policy:
    why: str
    source: str


#: Decisions that are not a table row: their rule id -> rationale and source.
POLICIES: Final[Mapping[str, _Policy]] = {
    "policy.long-reset": _Policy(
        "A rate limit whose stated wait is over an hour (Retry-After or 'try again in 7h') "
        "will not pass within a retry budget: QUOTA_EXCEEDED.",
        "docs/errors.md, policy rules (a reset more than an hour away is QUOTA_EXCEEDED)",
    ),
    "policy.abort-by-timeout": _Policy(
        "A cancellation caused by a timeout (asyncio.timeout, AbortSignal.timeout) is a "
        "TIMEOUT, not a caller abort.",
        "docs/errors.md, policy rules (an abort caused by a timeout is TIMEOUT)",
    ),
    "typed": _Policy(
        "Our own LlmError already carries its code.",
        "llm_errors._taxonomy.LlmError",
    ),
    "words": _Policy(
        "No rule decided; the words of the text point to this code with a share above the "
        "threshold chosen for precision (the words listed weighed most).",
        f"src/llm_errors/_words/{WORDS_FILE}, fitted on tests/llm_errors/corpus by "
        "tools/fit_words.py",
    ),
    "fallback": _Policy(
        "No rule matched; PROVIDER_ERROR is the non-retryable catch-all for genuinely "
        "unclassified failures.",
        "docs/errors.md, the taxonomy (PROVIDER_ERROR is never retryable by default)",
    ),
}


@dataclass(frozen=True, slots=True)
class Explanation:
    """A classification together with why it was made.

    Attributes:
        classification: The verdict.
        why: The deciding rule's one-line rationale.
        source: Where the rule's wording comes from (SDK file, docs, issue thread).
        example: A real-world example of the rule (or the exception type's name).
        matched: The evidence that decided: the matched text (redacted), the
            exception type, or the status / error type value.
        words: For a verdict of the words layer, the words that weighed most for
            its code, with their weights, strongest first.

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.3.0 ``words``.
    """

    classification: Classification
    why: str
    source: str | None
    example: str | None
    matched: str | None
    words: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True, slots=True)
class _Decision:
    code: ErrorCode
    rule: str
    layer: Layer
    status: int | None = None
    retry_after: float | None = None
    matched: str | None = None
    resets_at: float | None = None


def _long_reset(code: ErrorCode, rule_id: str, retry_after: float | None) -> tuple[ErrorCode, str]:
    """``policy.long-reset``: a rate limit whose stated wait is over an hour is a quota."""
    if (
        code is ErrorCode.RATE_LIMIT
        and retry_after is not None
        and retry_after > LONG_RESET_SECONDS
    ):
        return ErrorCode.QUOTA_EXCEEDED, "policy.long-reset"
    return code, rule_id


def _typed(node: LlmError) -> _Decision:
    """The decision our own error carries."""
    return _Decision(
        node.code,
        node.rule or "typed",
        Layer.TYPED,
        status=node.status,
        retry_after=node.retry_after,
        matched=type(node).__name__,
        resets_at=node.resets_at,
    )


def _merge_rules(extra_rules: Iterable[Rule]) -> tuple[Rule, ...]:
    """The table with ``extra_rules`` in place: overrides in place, placed ones by their anchor."""
    extra = tuple(extra_rules)
    for position, rule in enumerate(extra):
        if not isinstance(rule, Rule):
            raise TypeError(f"extra_rules[{position}] must be a Rule, got {type(rule).__name__}")
    seen: set[str] = set()
    for rule in extra:
        if rule.id in seen:
            raise ValueError(f"extra_rules has two rules with id {rule.id!r}")
        seen.add(rule.id)
    builtin_ids = {rule.id for rule in RULES}
    overrides: dict[str, Rule] = {}
    first: list[Rule] = []
    placed: dict[tuple[str, bool], list[Rule]] = {}  # (anchor id, after?) -> rules
    for rule in extra:
        anchor = rule.before if rule.before is not None else rule.after
        if anchor is not None and anchor not in builtin_ids:
            raise ValueError(f"rule {rule.id!r}: no built-in rule {anchor!r} to place it by")
        if rule.id in builtin_ids:
            if anchor is not None:
                raise ValueError(
                    f"rule {rule.id!r} replaces the built-in rule in place: "
                    "it cannot also be placed with before/after"
                )
            overrides[rule.id] = rule
        elif anchor is None:
            first.append(rule)
        else:
            placed.setdefault((anchor, rule.after is not None), []).append(rule)
    merged = list(first)
    for rule in RULES:
        merged.extend(placed.get((rule.id, False), ()))
        merged.append(overrides.get(rule.id, rule))
        merged.extend(placed.get((rule.id, True), ()))
    return tuple(merged)


class Classifier:
    """A configured classifier; ``classify(obj)`` routes ``obj`` to an error code.

    Args:
        extra_rules: Rules to add or override. A rule whose id equals a built-in id
            replaces it in place (and keeps its precedence); a rule with
            ``before``/``after`` goes right before/after that built-in rule; other
            new rules are tried before all built-in ones. Rules placed at the same
            spot keep the order given.
        retryable_codes: The codes reported as ``retryable``.
        words: Whether :meth:`classify` reads the words of a text no rule decided
            (the words layer); ``False`` leaves such a text to the fallback.

    Raises:
        ValueError: A rule's pattern does not compile (the message names the rule id),
            two extra rules share an id, ``before``/``after`` names no built-in rule,
            or a rule that replaces a built-in one is also placed.
        TypeError: An extra rule is not a :class:`Rule`.

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.2.0 ``before``/``after`` placement of extra rules.
    .. versionchanged:: 0.3.0 the words layer, and ``words`` to leave it out.
    """

    def __init__(
        self,
        *,
        extra_rules: Iterable[Rule] = (),
        retryable_codes: Iterable[ErrorCode] = DEFAULT_RETRYABLE_CODES,
        words: bool = True,
    ) -> None:
        self.rules: tuple[Rule, ...] = _merge_rules(extra_rules)
        self.retryable_codes: frozenset[ErrorCode] = frozenset(
            ErrorCode(code) for code in retryable_codes
        )
        self._matcher = TextMatcher(self.rules)
        # The weights are read on the first text the rules leave (shared by the process).
        self._words = words
        self._match = self._matcher.match
        self._rank = {rule.id: position for position, rule in enumerate(self.rules)}
        self._by_id = {rule.id: rule for rule in self.rules}
        # Verdicts repeat a lot in logs: the frozen records are shared, not rebuilt.
        self._verdict = functools.lru_cache(maxsize=VERDICT_CACHE)(self._new_verdict)
        self._text_verdict_for = functools.lru_cache(maxsize=VERDICT_CACHE)(self._new_text_verdict)
        self._waits = frozenset(
            i for i, rule in enumerate(self.rules) if rule.code in _WAIT_HINT_CODES
        )
        self._fallback = Classification(
            code=ErrorCode.PROVIDER_ERROR,
            retryable=ErrorCode.PROVIDER_ERROR in self.retryable_codes,
        )

    @property
    def trigger_tokens(self) -> frozenset[bytes] | None:
        """The words a text must contain to match any rule, or ``None`` if there is no such set.

        For scanning many lines at once: a text without any of these (as whole
        ``[a-z0-9_]`` tokens, lower-cased; the non-ASCII ones, UTF-8 encoded, as
        substrings) gets the fallback verdict from the text layer.
        """
        return self._matcher.tokens if self._matcher.exact else None

    def may_match(self, line: bytes) -> bool:
        """Whether a rule may classify the log line ``line`` (UTF-8 bytes, no line end).

        ``False`` is exact: :meth:`classify` of the decoded line is then the fallback
        verdict. For scanning many lines: most lines holding a trigger word hold none
        of the other words any rule needs with it, and this tells so from the bytes,
        before decoding. Lines :meth:`classify` does not read as plain text (a JSON
        lead, over the input cap) answer ``True``.

        .. versionadded:: 0.3.0
        """
        if line[:1] in _JSON_LEAD_BYTES or len(line) > MAX_INPUT:
            return True
        return self._matcher.may_match(line)

    def __repr__(self) -> str:
        codes = sorted(self.retryable_codes)
        return f"Classifier(rules={len(self.rules)}, retryable_codes={codes})"

    # ------------------------------------------------------------------ public API
    def classify(self, obj: object) -> Classification:
        """Route ``obj`` (exception, message, error body or log record); never raises.

        The rules decide (:meth:`by_rules`); where none does, the words layer
        (:meth:`by_words`), unless the classifier was built with ``words=False``.
        """
        verdict = self.by_rules(obj)
        if verdict is self._fallback and self._words:
            return self.by_words(obj)
        return verdict

    def by_rules(self, obj: object) -> Classification:
        """:meth:`classify` by the rules alone: the fallback where no rule decides.

        What a log scanner asks of a line no error marker flags: only a rule makes
        it an error.

        .. versionadded:: 0.3.0
        """
        try:
            if type(obj) is str and obj[:1] not in _JSON_LEAD and len(obj) <= MAX_INPUT:
                # The hot path of log scanning: most lines match no trigger at all.
                found = self._match(obj)
                return self._fallback if found is None else self._text_verdict(obj, found)
            decision = self._decide(obj)
        except Exception:  # noqa: BLE001 - classification must never raise
            return self._fallback
        if decision is None:
            return self._fallback
        return self._classification(decision)

    def by_words(self, obj: object) -> Classification:
        """The words layer's verdict on the texts ``obj`` holds: the fallback below its threshold.

        For an input the rules left to the fallback (:meth:`classify` asks it then);
        also the fallback when the classifier was built with ``words=False``.

        .. versionadded:: 0.3.0
        """
        found = self._by_words(obj)
        return self._fallback if found is None else self._classification(found[0])

    def __call__(self, obj: object) -> Classification:
        """Same as :meth:`classify`, so a classifier is a ``Callable[[object], Classification]``."""
        return self.classify(obj)

    def explain(self, obj: object) -> Explanation:
        """The classification with the deciding rule's rationale, source and example."""
        try:
            decision = self._decide(obj)
        except Exception:  # noqa: BLE001 - explaining must never raise either
            decision = None
        if decision is None:
            found = self._by_words(obj)
            if found is not None:
                by_words, verdict = found
                policy = POLICIES["words"]
                return Explanation(
                    self._classification(by_words),
                    policy.why,
                    policy.source,
                    None,
                    None,
                    verdict.words,
                )
            policy = POLICIES["fallback"]
            return Explanation(self._fallback, policy.why, policy.source, None, None)
        why, source, example = self._describe(decision.rule)
        matched = redact(decision.matched)[:_MATCHED_LIMIT] if decision.matched else None
        return Explanation(self._classification(decision), why, source, example, matched)

    # ------------------------------------------------------------------ internals
    def _by_words(self, obj: object) -> tuple[_Decision, WordsVerdict] | None:
        if not self._words:
            return None
        try:
            text = _words_text(obj)
            verdict = _shipped_words().decide(text)
        except Exception:  # noqa: BLE001 - classification must never raise
            return None
        if verdict is None:
            return None
        decision = _Decision(verdict.code, f"words.{verdict.code}", Layer.WORDS)
        finished = self._finish(
            decision, text=text, headers=(), hints=(), resets=(), status=status_from_text(text)
        )
        return finished, verdict

    def _classification(self, decision: _Decision) -> Classification:
        return self._verdict(
            decision.code,
            decision.rule,
            decision.layer,
            decision.status,
            decision.retry_after,
            resets_at=decision.resets_at,
        )

    def _new_verdict(
        self,
        code: ErrorCode,
        rule: str,
        layer: Layer,
        status: int | None,
        retry_after: float | None,
        *,
        resets_at: float | None = None,
    ) -> Classification:
        return Classification(
            code=code,
            retryable=code in self.retryable_codes,
            retry_after=retry_after,
            status=status,
            rule=rule,
            layer=layer,
            resets_at=resets_at,
        )

    def _text_verdict(self, text: str, found: TextMatch) -> Classification:
        # A text verdict depends on (rule, stated status, stated wait, stated reset) only.
        return self._text_verdict_for(
            found.index,
            found.status,
            self._stated_wait(text, found),
            self._stated_reset(text, found),
        )

    def _new_text_verdict(
        self,
        index: int,
        status: int | None,
        retry_after: float | None,
        resets_at: float | None = None,
    ) -> Classification:
        rule = self.rules[index]
        code, rule_id = _long_reset(rule.code, rule.id, retry_after)
        return self._verdict(code, rule_id, Layer.TEXT, status, retry_after, resets_at=resets_at)

    def _stated_wait(self, text: str, found: TextMatch) -> float | None:
        """The wait ``text`` asks for: a header written in it, or for a rate limit or quota a hint.

        A ``Retry-After`` written as a header is the server's word whatever the code
        (a 503 may carry one); a "try again in 20s" counts only where the rule says
        the provider throttles.
        """
        header = retry_after_in_text(text)
        if header is not None or found.index not in self._waits:
            return header
        return retry_after_from_text(text)

    def _stated_reset(self, text: str, found: TextMatch) -> float | None:
        """The reset instant ``text`` states, where its rule says the provider throttles."""
        return reset_time_from_text(text) if found.index in self._waits else None

    def _describe(self, rule_id: str) -> tuple[str, str | None, str | None]:
        rule = self._by_id.get(rule_id)
        if rule is not None:
            first = rule.examples[0] if rule.examples else None
            source = rule.origin or (first.source if first else None)
            return rule.why, source, first.text if first else None
        policy = POLICIES.get(rule_id)
        if policy is not None:
            return policy.why, policy.source, None
        row = _exception_row(rule_id)
        if row is not None:
            return row.why, row.source, row.name
        return "Our own LlmError carried this rule id.", None, None

    def _decide(self, obj: object) -> _Decision | None:
        if isinstance(obj, BaseException):
            return self._from_exception(obj)
        if isinstance(obj, bytes | bytearray):
            obj = bytes(obj[:MAX_INPUT]).decode("utf-8", errors="replace")
        if isinstance(obj, str):
            return self._from_string(obj)
        evidence = Evidence()
        if isinstance(obj, Mapping):
            gather_mapping(obj, evidence)
        else:
            gather_object(obj, evidence)
        return self._resolve(evidence)

    def _from_string(self, text: str) -> _Decision | None:
        text = text[:MAX_INPUT]
        if text[:1] in _JSON_LEAD:  # cheap test first: most messages are not JSON
            stripped = text.strip()
            parsed = _json_object(stripped) if stripped[:1] == "{" else None
            if parsed is not None:
                evidence = Evidence()
                gather_mapping(parsed, evidence)
                return self._resolve(evidence)
        found = self._matcher.match(text)
        return None if found is None else self._from_text_match(text, found)

    def _from_text_match(self, text: str, found: TextMatch) -> _Decision:
        # The text-only case of ``_finish``, kept lean: it runs for every new text verdict.
        rule = self.rules[found.index]
        retry_after = self._stated_wait(text, found)
        code, rule_id = _long_reset(rule.code, rule.id, retry_after)
        return _Decision(
            code,
            rule_id,
            Layer.TEXT,
            found.status,
            retry_after,
            found.matched,
            self._stated_reset(text, found),
        )

    def _from_exception(self, exc: BaseException) -> _Decision | None:
        # The final exception and its explicit causes first; implicit contexts (an earlier,
        # different failure) only when those decide nothing (docs/errors.md, policy explicit-cause).
        # A cancellation is the exception: what it was raised while handling (a timeout, as
        # ``asyncio.timeout`` does) can explain it (policy abort-by-timeout).
        explicit = walk_exceptions(exc, linked=explicit_links)
        decision = self._from_nodes(explicit)
        if decision is None or decision.code is ErrorCode.ABORTED:
            everything = walk_exceptions(exc)
            if len(everything) > len(explicit):
                decision = self._from_nodes(everything) or decision
        return decision

    def _from_nodes(self, nodes: list[BaseException]) -> _Decision | None:
        evidence = Evidence()
        weak_typed: LlmError | None = None
        rows: list[ExceptionRule] = []
        for node in nodes:
            if isinstance(node, LlmError):
                if node.code is not ErrorCode.PROVIDER_ERROR:
                    return _typed(node)
                if weak_typed is None:
                    weak_typed = node
                evidence.add_status(node.status)
                if node.body:
                    evidence.add_text(node.body)
            row = lookup_exception(node) or lookup_errno(node)
            had_status = gather_object(node, evidence)
            message = _message(node)
            if row is None:
                pass
            elif row.kind != "status":
                rows.append(row)
            elif not had_status and row.status is not None:
                # The type's status is a default: the status its message states (a logged
                # ``InternalServerError: Error code: 529 - ...``, rebuilt from a traceback
                # without its response) is the one that happened.
                stated = status_from_text(message) if message else None
                evidence.add_status(stated or row.status)
            if message is not None:
                evidence.add_text(message)
        decision = self._from_rows(rows, evidence)
        if decision is None:
            decision = self._resolve(evidence)
        if decision is None and weak_typed is not None:
            return _typed(weak_typed)
        return decision

    def _from_rows(self, rows: list[ExceptionRule], evidence: Evidence) -> _Decision | None:
        if not rows:
            return None
        specific = [row for row in rows if row.kind == "specific"]
        chosen = (specific or rows)[0]
        if chosen.code is None:  # pragma: no cover - only status rows lack a code
            return None
        code, rule = chosen.code, chosen.id
        if code is ErrorCode.ABORTED and self._timeout_in(rows, evidence):
            code, rule = ErrorCode.TIMEOUT, "policy.abort-by-timeout"
        return self._finish(
            _Decision(code, rule, Layer.EXCEPTION, matched=chosen.name),
            text=None,
            headers=evidence.headers,
            hints=evidence.retry_hints,
            resets=evidence.reset_times,
            status=evidence.statuses[0] if evidence.statuses else None,
        )

    def _timeout_in(self, rows: list[ExceptionRule], evidence: Evidence) -> bool:
        if any(row.code is ErrorCode.TIMEOUT for row in rows):
            return True
        found = self._matcher.match(evidence.text())
        return found is not None and self.rules[found.index].code is ErrorCode.TIMEOUT

    def _resolve(self, evidence: Evidence) -> _Decision | None:
        best: _Decision | None = None
        best_rank = math.inf
        error_status = next((s for s in evidence.statuses if status_rule(s) is not None), None)
        if error_status is not None:
            rule_id = status_rule(error_status)
            rank = self._rank.get(rule_id, math.inf) if rule_id else math.inf
            if rule_id is not None and rank < best_rank:
                best_rank = rank
                best = _Decision(
                    self._by_id[rule_id].code,
                    rule_id,
                    Layer.STATUS,
                    matched=f"status {error_status}",
                )
        for raw in evidence.identifiers:
            ident = normalize_identifier(raw)
            rule_id = BODY_TYPES.get(ident) if ident else None
            if rule_id is None:
                evidence.add_text(raw)
                continue
            rank = self._rank.get(rule_id, math.inf)
            if rank < best_rank:
                best_rank = rank
                best = _Decision(self._by_id[rule_id].code, rule_id, Layer.STATUS, matched=raw)
        text = evidence.text()
        found = self._matcher.match(text)
        if found is not None and found.index < best_rank:
            rule = self.rules[found.index]
            best = _Decision(rule.code, rule.id, Layer.TEXT, matched=found.matched)
        if best is None:
            return None
        return self._finish(
            best,
            text=text,
            headers=evidence.headers,
            hints=evidence.retry_hints,
            resets=evidence.reset_times,
            status=error_status if error_status is not None else status_from_text(text),
        )

    def _finish(
        self,
        decision: _Decision,
        *,
        text: str | None,
        headers: Iterable[Mapping[str, str]],
        hints: Iterable[float],
        resets: Iterable[float],
        status: int | None,
    ) -> _Decision:
        retry_after: float | None = None
        for header in headers:
            retry_after = parse_retry_after(header)
            if retry_after is not None:
                break
        if retry_after is None:
            retry_after = next(iter(hints), None)
        if retry_after is None and text:
            retry_after = retry_after_in_text(text)
        if retry_after is None and text and decision.code in _WAIT_HINT_CODES:
            retry_after = retry_after_from_text(text)
        code, rule = _long_reset(decision.code, decision.rule, retry_after)
        resets_at: float | None = None
        if code in _WAIT_HINT_CODES:
            resets_at = next(iter(resets), None)
            if resets_at is None and text:
                resets_at = reset_time_from_text(text)
        return _Decision(
            code, rule, decision.layer, status, retry_after, decision.matched, resets_at
        )


@functools.cache
def _shipped_words() -> WordsModel:
    """The shipped weights, read once per process."""
    return shipped()


def _words_text(obj: object) -> str:
    """The texts ``obj`` holds, as the words layer reads them (bounded).

    A message, or a JSON body's messages and identifiers; an exception's type names
    (``urllib3.exceptions.InvalidChunkLength`` says what happened; a built-in one such
    as ``ValueError`` says nothing the exception rules do not) and messages along its
    explicit chain (policy explicit-cause); a mapping's or an object's messages and
    identifiers.
    """
    if isinstance(obj, bytes | bytearray):
        obj = bytes(obj[:WORDS_TEXT_LIMIT]).decode("utf-8", errors="replace")
    if isinstance(obj, str):
        stripped = obj[:MAX_INPUT].strip()
        parsed = _json_object(stripped) if stripped[:1] == "{" else None
        if parsed is None:
            return obj[:WORDS_TEXT_LIMIT]
        obj = parsed
    evidence = Evidence()
    if isinstance(obj, BaseException):
        for node in walk_exceptions(obj, linked=explicit_links):
            kind = type(node)
            if kind.__module__ != "builtins":
                evidence.add_text(f"{kind.__module__}.{kind.__qualname__}")
            gather_object(node, evidence)
            message = _message(node)
            if message is not None:
                evidence.add_text(message)
    elif isinstance(obj, Mapping):
        gather_mapping(obj, evidence)
    else:
        gather_object(obj, evidence)
    for identifier in evidence.identifiers:
        evidence.add_text(identifier)
    return evidence.text()[:WORDS_TEXT_LIMIT]


def _message(exc: BaseException) -> str | None:
    """``str(exc)``, or ``None`` when its ``__str__`` raises (no evidence then)."""
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - a __str__ that raises is no evidence
        return None


@functools.cache
def _exception_rows() -> Mapping[str, ExceptionRule]:
    from llm_errors._rules.exceptions import ERRNO_RULES, EXCEPTION_RULES  # noqa: PLC0415

    return {row.id: row for row in (*EXCEPTION_RULES, *ERRNO_RULES.values())}


def _exception_row(rule_id: str) -> ExceptionRule | None:
    return _exception_rows().get(rule_id)


@functools.cache
def _default() -> Classifier:
    """The classifier of the built-in rules that :func:`classify` uses, built once per process."""
    return Classifier()


def classify(obj: object) -> Classification:
    """Route ``obj`` with the default :class:`Classifier`; never raises.

    ``obj`` may be any exception (including exception groups), a flattened message
    or log line, bytes, or a mapping (a parsed JSON error body or log record).

    .. versionadded:: 0.1.0
    """
    return _default().classify(obj)


def explain(obj: object) -> Explanation:
    """:func:`classify` plus the deciding rule's rationale, source and example.

    .. versionadded:: 0.1.0
    """
    return _default().explain(obj)
