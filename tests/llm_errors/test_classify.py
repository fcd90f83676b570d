"""The classifier: layers, precedence, policy rules and tricky negatives."""

import asyncio
import email.utils
import time

import pytest

from llm_errors import (
    RULES,
    Classification,
    Classifier,
    ErrorCode,
    Example,
    Explanation,
    Layer,
    ProviderError,
    RateLimitError,
    Rule,
    TransportError,
    classify,
    explain,
)
from llm_errors._classify import MAX_INPUT, VERDICT_CACHE

E = ErrorCode


def _throw(exc: BaseException) -> None:
    raise exc


def _chain(outer: BaseException, inner: BaseException, *, explicit: bool) -> None:
    try:
        _throw(inner)
    except BaseException as exc:
        if explicit:
            raise outer from exc
        raise outer  # noqa: B904 - implicit chaining is the point


def raised(outer: BaseException, inner: BaseException) -> BaseException:
    """``outer`` raised ``from inner``, with real tracebacks."""
    with pytest.raises(type(outer)) as info:
        _chain(outer, inner, explicit=True)
    return info.value


def during(outer: BaseException, inner: BaseException) -> BaseException:
    """``outer`` raised while handling ``inner`` (implicit ``__context__``)."""
    with pytest.raises(type(outer)) as info:
        _chain(outer, inner, explicit=False)
    return info.value


def _hide_context() -> None:
    try:
        _throw(TimeoutError())
    except TimeoutError:
        raise ValueError("clean") from None


# ---------------------------------------------------------------- the seed's cases
@pytest.mark.parametrize(
    "text",
    [
        pytest.param("terminated", id="bare-terminated"),
        pytest.param("TypeError: terminated", id="typeerror-terminated"),
        pytest.param("TypeError: terminated: other side closed", id="terminated-other-side"),
        pytest.param("Premature close", id="premature-close"),
        pytest.param("Anthropic stream ended before message_stop", id="anthropic"),
        pytest.param(
            "OpenAI Responses stream ended before a terminal response event", id="responses"
        ),
        pytest.param("Google stream ended without a terminal event", id="terminal-event"),
        pytest.param("Stream ended without finish_reason", id="finish-reason"),
    ],
)
def test_seed_truncations_are_transport(text):
    """Seed 003: flattened pi-ai truncations are TRANSPORT, hence retryable."""
    result = classify(text)
    assert result.code is E.TRANSPORT
    assert result.retryable
    assert result.layer is Layer.TEXT


# ------------------------------------------------------------ policy rules (issue 2)
@pytest.mark.parametrize(
    ("obj", "code", "rule"),
    [
        pytest.param(
            {"status": 429, "error": {"type": "insufficient_quota", "message": "x"}},
            E.QUOTA_EXCEEDED,
            "quota.insufficient-quota",
            id="429-insufficient-quota",
        ),
        pytest.param(
            {"status": 400, "error": {"message": "Your credit balance is too low to access"}},
            E.QUOTA_EXCEEDED,
            "billing.balance",
            id="400-credit-balance",
        ),
        pytest.param(
            {"status": 429, "message": "Quota exceeded for metric: x, limit: 0, model: m"},
            E.QUOTA_EXCEEDED,
            "quota.limit-zero",
            id="429-limit-zero",
        ),
        pytest.param(
            {
                "status": 429,
                "message": "Number of request tokens has exceeded your daily rate limit",
            },
            E.QUOTA_EXCEEDED,
            "quota.window",
            id="429-daily-window",
        ),
        pytest.param(
            {
                "status": 429,
                "message": "Rate limit reached on tokens per day (TPD). Please "
                "try again in 9m38.016s.",
            },
            E.RATE_LIMIT,
            "ratelimit.retry-hint",
            id="429-daily-but-minutes-reset",
        ),
        pytest.param(
            {"status": 429, "message": "Rate limit reached. Please try again in 7h12m."},
            E.QUOTA_EXCEEDED,
            "policy.long-reset",
            id="429-reset-hours-away",
        ),
        pytest.param(
            {"status": 400, "error": {"code": "context_length_exceeded", "message": "x"}},
            E.CONTEXT_OVERFLOW,
            "context.length-exceeded",
            id="400-context-length",
        ),
        pytest.param(
            {
                "status": 429,
                "error": {
                    "code": "rate_limit_exceeded",
                    "message": "Request too "
                    "large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 61337.",
                },
            },
            E.CONTEXT_OVERFLOW,
            "context.request-too-large",
            id="429-request-too-large",
        ),
        pytest.param(
            {
                "status": 400,
                "error": {
                    "message": "max_tokens: 10000 > 4096, which is the "
                    "maximum allowed number of output tokens for claude-3-5-sonnet"
                },
            },
            E.INVALID_REQUEST,
            "limits.max-output-tokens",
            id="output-only-max-tokens",
        ),
        pytest.param(
            {"status": 413, "message": "Request Entity Too Large"},
            E.CONTEXT_OVERFLOW,
            "context.request-too-large",
            id="byte-size-cap",
        ),
        pytest.param(
            {"status": 529, "error": {"type": "overloaded_error", "message": "Overloaded"}},
            E.RATE_LIMIT,
            "anthropic.overloaded",
            id="529-overloaded",
        ),
        pytest.param(
            {"status": 200, "type": "error", "error": {"type": "overloaded_error"}},
            E.RATE_LIMIT,
            "anthropic.overloaded",
            id="in-band-overloaded-on-200",
        ),
        pytest.param(
            {
                "error": {
                    "code": 503,
                    "message": "The model is overloaded. Please try again later.",
                    "status": "UNAVAILABLE",
                }
            },
            E.SERVER,
            "http.5xx",
            id="503-model-overloaded",
        ),
        pytest.param(
            {
                "status": 503,
                "body": "upstream connect error or disconnect/reset before "
                "headers. reset reason: connection termination",
            },
            E.SERVER,
            "gateway.envoy-reset",
            id="envoy-503",
        ),
        pytest.param(
            {
                "status": 400,
                "error": {"message": "Unrecognized request argument supplied: timeout"},
            },
            E.INVALID_REQUEST,
            "http.4xx",
            id="parameter-named-timeout",
        ),
    ],
)
def test_policy_rules(obj, code, rule):
    """The hard cases of issue 2 route as its policy says."""
    result = classify(obj)
    assert (result.code, result.rule) == (code, rule)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        pytest.param(
            "upstream connect error or disconnect/reset before headers. reset reason: remote "
            "connection failure, transport failure reason: delayed connect error: "
            "Connection refused",
            E.SERVER,
            id="envoy-upstream-refused",
        ),
        pytest.param("error code: 522", E.SERVER, id="cloudflare-522"),
        pytest.param(
            "<title>api.example.com | 522: Connection timed out</title>",
            E.SERVER,
            id="cloudflare-522-page",
        ),
        pytest.param("HTTP/1.1 502 Bad Gateway", E.SERVER, id="nginx-502"),
        pytest.param("<title>504 Gateway Time-out</title>", E.TIMEOUT, id="nginx-504"),
        pytest.param(
            "TimeoutError: The operation was aborted due to timeout",
            E.TIMEOUT,
            id="node-abort-by-timeout",
        ),
        pytest.param("AbortError: This operation was aborted", E.ABORTED, id="node-abort"),
        pytest.param("Error code: 503 - model is overloaded", E.SERVER, id="503-text"),
        pytest.param("Error code: 429 - insufficient_quota", E.QUOTA_EXCEEDED, id="429-quota"),
        pytest.param(
            "litellm.RateLimitError: AzureException RateLimitError - Error code: 429 - {'error': "
            "{'code': '429', 'message': 'Requests to the ChatCompletions_Create Operation under "
            "Azure OpenAI API version 2023-05-15 have exceeded token rate limit of your current "
            "AIServices S0 pricing tier. Please retry after 86400 seconds.'}}",
            E.QUOTA_EXCEEDED,
            id="azure-retry-after-a-day",  # jasonacox/TinyLLM#17
        ),
        pytest.param(
            '{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":'
            '"z-ai/glm-5.3-flash is temporarily rate-limited upstream. Please retry shortly",'
            '"provider_name":"BaseTen"}}}',
            E.RATE_LIMIT,
            id="openrouter-upstream-429",  # open-webui/computer#293
        ),
        pytest.param(
            "Error code: 400 - This model's maximum context length is 8192 tokens",
            E.CONTEXT_OVERFLOW,
            id="400-context-text",
        ),
    ],
)
def test_policy_rules_in_flattened_text(text, code):
    """The same policies hold when only the flattened text is left."""
    assert classify(text).code is code


# --------------------------------------------------------------- tricky negatives
@pytest.mark.parametrize(
    "text",
    [
        pytest.param("request_id=req_500abc processed", id="500-in-request-id"),
        pytest.param("usage: prompt_tokens=503 completion_tokens=429", id="token-counts"),
        pytest.param("INFO GET /v1/models status=200 duration_ms=504", id="ok-with-504-ms"),
        pytest.param("retrying in 500 ms", id="500-ms"),
        pytest.param("model=gpt-4o-2024-05-13 temperature=0.2", id="model-name"),
        pytest.param("job status: terminated by operator", id="terminated-in-prose"),
        pytest.param("llm request timeout=30 configured", id="timeout-setting"),
        pytest.param("set request_timeout to 60 seconds", id="timeout-parameter"),
        pytest.param("ratelimit remaining=99 limit=100", id="rate-limit-header-log"),
        pytest.param("cache hit for key context_window_size", id="context-word"),
        pytest.param("", id="empty"),
    ],
)
def test_tricky_negatives_fall_back(text):
    """Numbers outside a status context and words out of context are no rule's evidence.

    (The words layer reads the words of failures; whether a text is one is never its
    call: a log scanner asks it only about errors, docs/classifier.md.)
    """
    result = Classifier(words=False).classify(text)
    assert result == Classification(code=E.PROVIDER_ERROR, retryable=False)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        pytest.param(
            "An error occurred (ResourceNotFoundException) when calling the InvokeModel "
            "operation: Could not resolve the foundation model",
            E.INVALID_REQUEST,
            id="enotfound-inside-resource-not-found",
        ),
        pytest.param(
            "Error code: 400 - {'error': {'message': \"Invalid value for 'timeout': must be "
            "a number\", 'type': 'invalid_request_error'}}",
            E.INVALID_REQUEST,
            id="timeout-parameter-with-status",
        ),
        pytest.param(
            "<_InactiveRpcError of RPC that terminated with:\n\tstatus = StatusCode.UNAVAILABLE",
            E.SERVER,
            id="grpc-terminated-is-not-undici",
        ),
        pytest.param(
            "llama runner process has terminated: signal: killed",
            E.SERVER,
            id="ollama-runner-terminated",
        ),
        pytest.param(
            "('Connection aborted.', RemoteDisconnected('Remote end closed "
            "connection without response'))",
            E.TRANSPORT,
            id="connection-aborted",
        ),
    ],
)
def test_tricky_positives(text, code):
    """Words that look like another code's evidence are read in context."""
    assert classify(text).code is code


# ------------------------------------------------------------------- the layers
def test_typed_layer_wins_over_everything():
    """Our own LlmError decides, whatever it wraps."""
    exc = raised(
        RateLimitError("slow down", retry_after=3.0, status=429), TimeoutError("timed out")
    )
    result = classify(exc)
    assert (result.code, result.layer, result.retry_after, result.status) == (
        E.RATE_LIMIT,
        Layer.TYPED,
        3.0,
        429,
    )


def test_typed_provider_error_is_weak_evidence():
    """A PROVIDER_ERROR LlmError keeps looking through its chain."""
    exc = raised(ProviderError("stream failed"), ConnectionResetError(104, "reset"))
    assert classify(exc).code is E.TRANSPORT


def test_typed_provider_error_is_the_fallback():
    """With nothing better in the chain, the weak LlmError decides."""
    result = classify(ProviderError("odd", rule="adapter.unknown-chunk"))
    assert (result.code, result.layer, result.rule) == (
        E.PROVIDER_ERROR,
        Layer.TYPED,
        "adapter.unknown-chunk",
    )


def test_outermost_weak_typed_error_is_the_fallback():
    """Of two PROVIDER_ERROR LlmErrors in a chain that decides nothing, the outer one stands."""
    exc = raised(
        ProviderError("odd", rule="adapter.unknown-chunk"),
        ProviderError("odd too", rule="adapter.unknown-event"),
    )
    assert classify(exc).rule == "adapter.unknown-chunk"


def test_typed_provider_error_body_is_evidence():
    """The body a PROVIDER_ERROR LlmError carries is read: its error type can decide."""
    # The Anthropic API's 529 body (corpus row ratelimit-anthropic-004).
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    result = classify(ProviderError("stream failed", body=body))
    assert (result.code, result.rule) == (E.RATE_LIMIT, "anthropic.overloaded")


def test_typed_error_deep_in_the_chain():
    """An LlmError wrapped by a foreign exception still decides."""
    exc = raised(RuntimeError("callback failed"), TransportError("dropped"))
    assert (classify(exc).code, classify(exc).layer) == (E.TRANSPORT, Layer.TYPED)


def test_exception_layer_through_implicit_context():
    """``__context__`` (raise during handling) is followed like ``__cause__``."""
    exc = during(ValueError("could not parse"), ConnectionRefusedError(111, "refused"))
    assert classify(exc).code is E.TRANSPORT


def test_suppressed_context_is_not_followed():
    """``raise ... from None`` hides the context, as in the traceback."""
    with pytest.raises(ValueError, match="clean") as info:
        _hide_context()
    assert classify(info.value).code is E.PROVIDER_ERROR


def test_cycle_in_the_chain_terminates():
    """A cyclic ``__context__`` chain is walked once."""
    a, b = ValueError("a"), ValueError("b")
    a.__context__, b.__context__ = b, a
    assert classify(a).code is E.PROVIDER_ERROR


def test_cancelled_error_is_aborted():
    """A plain cancellation is the caller's, so ABORTED."""
    assert classify(asyncio.CancelledError()).code is E.ABORTED


async def _sleep_past(delay):
    async with asyncio.timeout(delay):
        await asyncio.sleep(10)


def test_asyncio_timeout_is_timeout():
    """``asyncio.timeout`` raises TimeoutError from CancelledError: TIMEOUT."""
    with pytest.raises(TimeoutError) as info:
        asyncio.run(_sleep_past(0.01))
    assert classify(info.value).code is E.TIMEOUT


def test_cancellation_caused_by_timeout_is_timeout():
    """A CancelledError whose chain holds a timeout is TIMEOUT by policy."""
    exc = during(asyncio.CancelledError(), TimeoutError())
    result = classify(exc)
    assert (result.code, result.rule) == (E.TIMEOUT, "policy.abort-by-timeout")


def test_exception_group_picks_the_specific_member():
    """A group's members are classified; a specific type beats noise."""
    group = ExceptionGroup("task group", [ValueError("x"), ConnectionResetError(104, "reset")])
    assert classify(group).code is E.TRANSPORT


def test_nested_exception_groups():
    """Groups inside groups are walked too."""
    inner = ExceptionGroup("inner", [TimeoutError()])
    outer = BaseExceptionGroup("outer", [KeyError("k"), inner])
    assert classify(outer).code is E.TIMEOUT


def test_status_layer_from_attributes():
    """A foreign exception with ``status_code``/``body``/``headers`` is read by duck typing."""

    class StatusError(Exception):
        def __init__(self, message):
            super().__init__(message)
            self.status_code = 429
            self.body = {"error": {"type": "insufficient_quota", "message": "exceeded"}}
            self.headers = {"retry-after": "20"}

    result = classify(StatusError("Error code: 429"))
    assert (result.code, result.layer, result.status, result.retry_after) == (
        E.QUOTA_EXCEEDED,
        Layer.STATUS,
        429,
        20.0,
    )


def test_status_layer_with_http_date_header():
    """A Retry-After HTTP date on a 503 becomes seconds."""
    date = email.utils.formatdate(time.time() + 30, usegmt=True)
    result = classify({"status": 503, "headers": {"Retry-After": date}})
    assert result.code is E.SERVER
    assert 25 <= (result.retry_after or 0) <= 31


def test_long_retry_after_header_is_quota():
    """A 429 asking to wait a day is QUOTA_EXCEEDED (policy.long-reset)."""
    result = classify({"status": 429, "headers": {"retry-after": "86400"}})
    assert (result.code, result.rule, result.retry_after) == (
        E.QUOTA_EXCEEDED,
        "policy.long-reset",
        86400.0,
    )


def test_garbage_retry_after_is_ignored():
    """A malformed header does not break the classification."""
    result = classify({"status": 429, "headers": {"retry-after": "whenever"}})
    assert (result.code, result.retry_after) == (E.RATE_LIMIT, None)


def test_retry_after_from_message_text():
    """A wait stated only in the message is reported."""
    result = classify("Rate limit reached ... Please try again in 17.359s.")
    assert result.retry_after == pytest.approx(17.359)


def test_status_found_in_text_is_reported():
    """A status in a status context is reported even when words decided."""
    result = classify("Error code: 429 - {'error': {'type': 'insufficient_quota'}}")
    assert (result.code, result.status) == (E.QUOTA_EXCEEDED, 429)


# ------------------------------------------------------------------ odd inputs
class _UnprintableError(Exception):
    def __str__(self):
        raise RuntimeError("no")


class _BadMapping(dict):
    def items(self):
        raise RuntimeError("no")


@pytest.mark.parametrize(
    "obj",
    [
        pytest.param(None, id="none"),
        pytest.param(42, id="int"),
        pytest.param(object(), id="object"),
        pytest.param(_UnprintableError(), id="unprintable-exception"),
        pytest.param(_BadMapping(a=1), id="broken-mapping"),
        pytest.param(["terminated"], id="list"),
        pytest.param(b"\xff\xfe", id="bad-bytes"),
        pytest.param("{not json", id="broken-json-text"),
        pytest.param({"error": {"error": {"error": {"error": {}}}}}, id="deep-nesting"),
        # isdigit() holds for these, yet int() refuses them: reading them raises inside.
        pytest.param({"status": "\u00b2"}, id="superscript-digit-status"),
        pytest.param({"status": "4" * 5000}, id="status-beyond-int-digits-limit"),
    ],
)
def test_never_raises(obj):
    """Unknown input gives PROVIDER_ERROR with rule ``fallback``, never an exception."""
    result = classify(obj)
    assert (result.code, result.rule, result.layer) == (
        E.PROVIDER_ERROR,
        "fallback",
        Layer.FALLBACK,
    )
    explanation = explain(obj)
    assert explanation.classification == result
    assert "catch-all" in explanation.why


def test_bytes_are_decoded():
    """Bytes are read as UTF-8 text."""
    assert classify(b"read ECONNRESET").code is E.TRANSPORT


def test_json_text_is_read_as_a_mapping():
    """A string holding a JSON object is classified as the object."""
    result = classify('{"error": {"type": "overloaded_error", "message": "Overloaded"}}')
    assert (result.code, result.layer) == (E.RATE_LIMIT, Layer.STATUS)


def test_log_record_mapping():
    """A structured log record with a status and a message is classified."""
    record = {"level": "error", "logger": "llm", "msg": "call failed", "status_code": 502}
    assert classify(record).code is E.SERVER


def test_node_error_record():
    """A serialised Node error (name/code/message) is classified by its code."""
    record = {"name": "Error", "message": "read ECONNRESET", "code": "ECONNRESET"}
    result = classify(record)
    assert (result.code, result.layer) == (E.TRANSPORT, Layer.STATUS)


# ------------------------------------------------------------ Classifier options
def test_extra_rule_is_tried_first():
    """A new rule wins over the built-in table."""
    rule = Rule(
        "acme.hiccup",
        E.SERVER,
        r"\bacme hiccup\b",
        "Our gateway's wording.",
        (Example("acme hiccup: timed out", "our logs"),),
    )
    classifier = Classifier(extra_rules=[rule])
    assert classifier.classify("acme hiccup: timed out").rule == "acme.hiccup"
    assert classify("acme hiccup: timed out").code is E.TIMEOUT


def test_extra_rule_with_same_id_overrides_in_place():
    """A rule with a built-in id replaces it, keeping its precedence."""
    original = next(rule for rule in RULES if rule.id == "overload.wording")
    override = Rule(original.id, E.SERVER, original.pattern, "We treat overload as SERVER.")
    classifier = Classifier(extra_rules=[override])
    assert classifier.classify("Overloaded").code is E.SERVER
    assert len(classifier.rules) == len(RULES)
    assert classifier.rules.index(override) == RULES.index(original)


def test_override_changes_structured_evidence_too():
    """Structured evidence follows an overridden rule's code."""
    override = Rule("http.429", E.SERVER, r"\bnever-matches-anything\b", "Custom.")
    assert Classifier(extra_rules=[override]).classify({"status": 429}).code is E.SERVER


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        pytest.param(r"unbalanced (", "does not compile", id="syntax"),
        pytest.param(r"\bfoo)|(bar\b", "does not compile", id="escapes-its-group"),
        pytest.param(r"(?P<_r0>zork) failed", "matcher's own", id="the-matchers-group-name"),
        pytest.param(r"(?i)global", "global inline flags", id="global-flag"),
        pytest.param(r"(a)\1", "backreferences", id="backreference"),
        pytest.param(r"a(?R)?b", "recursion", id="recursion-whole"),
        pytest.param(r"x(a)(?1)", "recursion", id="recursion-group"),
        pytest.param(r"x(a)(?-1)", "recursion", id="recursion-relative"),
        pytest.param(r"(?P<n>a)(?&n)", "recursion", id="recursion-named"),
        pytest.param(r"(?P<n>a)(?P>n)", "recursion", id="recursion-python-named"),
    ],
)
def test_bad_rule_fails_at_construction(pattern, message):
    """A rule that cannot be combined fails with a ValueError naming its id."""
    with pytest.raises(ValueError, match=rf"'my\.rule'.*{message}"):
        Classifier(extra_rules=[Rule("my.rule", E.SERVER, pattern, "why")])


def test_duplicate_and_wrongly_typed_extra_rules():
    """Two extra rules with one id, or a non-Rule, are rejected."""
    rule = Rule("dup", E.SERVER, "x", "why")
    with pytest.raises(ValueError, match="'dup'"):
        Classifier(extra_rules=[rule, rule])
    with pytest.raises(TypeError, match=r"extra_rules\[0\]"):
        Classifier(extra_rules=["not a rule"])  # type: ignore[list-item]


def test_retryable_codes_are_configurable():
    """``retryable`` follows the classifier's retryable set."""
    classifier = Classifier(retryable_codes={E.RATE_LIMIT})
    assert classifier("Overloaded").retryable
    assert not classifier("read ECONNRESET").retryable
    assert not classifier(None).retryable


def test_classifier_is_callable():
    """A classifier can be passed where a ``Callable[[object], Classification]`` is wanted."""
    classifier = Classifier()
    assert classifier("fetch failed") == classifier.classify("fetch failed")


# ----------------------------------------------------------------------- explain
def test_explain_text_rule():
    """An explanation carries the rule's rationale, source, example and the match."""
    result = explain("Error: read ECONNRESET")
    assert isinstance(result, Explanation)
    assert result.classification.rule == "node.socket-codes"
    assert "Node" in result.why
    assert result.source
    assert result.example
    assert result.matched == "ECONNRESET"


def test_explain_exception_row():
    """An exception-layer decision explains the type's row."""
    result = explain(ConnectionResetError(104, "Connection reset by peer"))
    assert result.classification.rule == "exception:builtins.ConnectionResetError"
    assert result.example == "builtins.ConnectionResetError"
    assert result.source


def test_explain_fallback_and_policy():
    """Fallback and policy decisions explain themselves too."""
    assert "catch-all" in explain("all good").why
    long_reset = explain({"status": 429, "headers": {"retry-after": "90000"}})
    assert "over an hour" in long_reset.why


def test_explain_own_rule_id():
    """A rule id our own LlmError carries, known to no table, is explained as such."""
    result = explain(ProviderError("odd", rule="adapter.unknown-chunk"))
    assert result.classification.rule == "adapter.unknown-chunk"
    assert (result.why, result.source, result.example) == (
        "Our own LlmError carried this rule id.",
        None,
        None,
    )


def test_repr_names_the_rule_count_and_retryable_codes():
    """A classifier's repr says how many rules it has and which codes it retries."""
    classifier = Classifier(retryable_codes={E.TIMEOUT, E.RATE_LIMIT})
    assert repr(classifier) == (
        f"Classifier(rules={len(RULES)}, retryable_codes="
        "[<ErrorCode.RATE_LIMIT: 'RATE_LIMIT'>, <ErrorCode.TIMEOUT: 'TIMEOUT'>])"
    )


def test_explain_redacts_the_match():
    """The matched text never carries a key."""
    result = explain("Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwxyz123456")
    assert "abcdefghij" not in (result.matched or "")
    assert "abcdefghij" not in repr(result)


def test_repeated_text_verdicts_keep_their_own_wait_and_status():
    """Verdicts shared between log lines differ wherever the rule, status or wait differs."""
    classifier = Classifier()
    texts = [
        "Rate limit reached for requests. Please try again in 2s.",
        "Rate limit reached for requests. Please try again in 20s.",
        "Error code: 429 - Rate limit reached. Please try again in 2s.",
        "Rate limit reached for requests. Please try again in 2h.",
        "Rate limit reached for requests. Please try again in 2s.",
    ]
    seen = [classifier.classify(text) for text in texts]
    assert [(v.code, v.rule, v.status, v.retry_after) for v in seen] == [
        (E.RATE_LIMIT, "ratelimit.retry-hint", None, 2.0),
        (E.RATE_LIMIT, "ratelimit.retry-hint", None, 20.0),
        (E.RATE_LIMIT, "ratelimit.retry-hint", 429, 2.0),
        (E.QUOTA_EXCEEDED, "policy.long-reset", None, 7200.0),
        (E.RATE_LIMIT, "ratelimit.retry-hint", None, 2.0),
    ]
    assert seen[4] == seen[0]
    assert classifier.explain(texts[3]).classification == seen[3]


def test_input_beyond_the_cap_is_not_read():
    """Only the first 256 KiB of a string (or bytes) are classified, as documented."""
    cap = 256 * 1024
    assert cap == MAX_INPUT
    inside = "x " * ((cap - 40) // 2) + "rate limit exceeded"
    beyond = "x " * (cap // 2) + "rate limit exceeded"
    assert classify(inside).code is E.RATE_LIMIT
    assert classify(beyond).rule == "fallback"
    assert classify(beyond.encode()).rule == "fallback"
    assert classify(" " + beyond).rule == "fallback"


def test_verdict_cache_is_bounded():
    """Thousands of distinct waits never grow the shared-verdict caches past their limit."""
    classifier = Classifier()
    for wait in range(VERDICT_CACHE + 100):
        verdict = classifier.classify(f"Rate limit reached. Please try again in {wait}s.")
        assert verdict.retry_after == wait
    sizes = [
        classifier._verdict.cache_info().currsize,
        classifier._text_verdict_for.cache_info().currsize,
    ]
    assert max(sizes) == VERDICT_CACHE
