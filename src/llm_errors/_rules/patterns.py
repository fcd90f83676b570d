"""The pattern table: every wording we recognise, as data.

Each :class:`Rule` has an id, the :class:`~llm_errors.ErrorCode` it routes to, a
``regex`` pattern (compiled case-insensitively and multi-line), a one-line
rationale and real-world examples with their public source. ``RULES`` is ordered:
**the order is the precedence**. When several rules match one message, the rule
that comes first wins, and structured evidence (an HTTP status, a provider's
error ``type``/``code``) takes the position of the rule it maps to (see
``status.py``). The bands, in order:

1. quota and billing exhaustion, a request that can never fit, output-limit
   errors, content filters, specific auth failures, provider throttling codes:
   wordings that refine a status and therefore beat it;
2. exception names as they appear in tracebacks and logs (timeouts, then
   cancellations, then transport failures), gateways reporting a failed upstream;
3. HTTP statuses in a status context (``status 503``, ``HTTP/1.1 429``,
   ``Error code: 400``) and generic provider error types;
4. plain wordings (``overloaded``, ``connection reset``, ``timed out``, ``terminated``).

So "status and the provider's ``type``/``code`` decide before words do", except
for the band-1 wordings the policy names (quota, context overflow, ...).
``docs/patterns.md`` is generated from this table.
"""

from __future__ import annotations

from dataclasses import dataclass

from llm_errors._taxonomy import ErrorCode

__all__ = ["RULES", "Example", "Rule"]


@dataclass(frozen=True, slots=True)
class Example:
    """A real-world message a rule must classify, and where it was seen.

    .. versionadded:: 0.1.0
    """

    text: str
    source: str


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the pattern table.

    The pattern is compiled with the ``regex`` module, case-insensitively and with
    ``^``/``$`` matching at line boundaries; use ``(?-i:...)`` for a case-sensitive
    part. Numbered backreferences are not allowed (rules are combined into one
    pattern, which renumbers groups). A pattern that does not compile is rejected
    when a :class:`~llm_errors.Classifier` is built.

    ``before`` / ``after`` (at most one) place an extra rule right before or after
    the built-in rule with that id instead of before all built-in rules; ``origin``
    says where a rule outside the built-in table was defined (a rules file), and is
    what :func:`~llm_errors.explain` shows as its source.

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.2.0 ``before``, ``after`` and ``origin``.
    """

    id: str
    code: ErrorCode
    pattern: str
    why: str
    examples: tuple[Example, ...] = ()
    before: str | None = None
    after: str | None = None
    origin: str | None = None

    def __post_init__(self) -> None:
        rule_id: object = self.id
        code: object = self.code
        pattern: object = self.pattern
        examples: object = self.examples
        if not isinstance(rule_id, str) or not rule_id.strip():
            raise ValueError(f"a rule needs a non-empty string id, got {rule_id!r}")
        if not isinstance(code, ErrorCode):
            raise TypeError(f"rule {rule_id!r}: code must be an ErrorCode, got {code!r}")
        if not isinstance(pattern, str) or not pattern:
            raise ValueError(f"rule {rule_id!r}: pattern must be a non-empty string")
        if not isinstance(examples, tuple) or not all(isinstance(e, Example) for e in examples):
            raise TypeError(f"rule {rule_id!r}: examples must be a tuple of Example")
        if self.before is not None and self.after is not None:
            raise ValueError(f"rule {rule_id!r}: give before or after, not both")


def _ex(text: str, source: str) -> Example:
    return Example(text, source)


# A status number counts only in a status context: after "HTTP/1.1", "status",
# "status_code", "statusCode", "Error code", "code", "Error:", or at the start of a
# line followed by a capitalised word or a JSON body; or as a status line with its
# reason phrase ("503 Service Unavailable"). Never a bare number in an id or a count.
_STATUS_WORDS = (
    r"(?:\bHTTP/\d(?:\.\d)?|\bHTTP(?:[ ]status)?(?:[ ]code)?|\bHTTP[ ]error"
    r"|(?<![a-z])status(?:[ _-]?code)?|\b(?:error|response)[ _-]?code|\bcode|\berror)"
)


def _status(numbers: str, phrases: str = "") -> str:
    """A status-context pattern for ``numbers`` (an alternation such as ``"500|502"``).

    The digits come first and the context is checked *behind* them, so inside the
    combined pattern the alternative fails at the first character almost everywhere.
    """
    pattern = (
        rf"\b(?:{numbers})\b(?![.,]\d)(?<={_STATUS_WORDS}\W{{1,3}}\d{{3}})"
        rf"|\b(?:{numbers})\b(?<=^[ \t]*\d{{3}})(?=[ ]+(?-i:[A-Z{{\[])|[ ]*$)"
    )
    if phrases:
        pattern += rf"|\b(?:{phrases})\b"
    return pattern


# Words after a number that make it a count or a duration, not a status.
_UNITS = (
    r"(?:ms|s|secs?|seconds?|minutes?|hours?|tokens?|requests?|bytes?|chars?|characters?"
    r"|lines?|items?|words?|times?|errors?|of|and|or|to|x)\b"
)
# A connection failure wrapped in a 5xx exception ("503 failed to connect to all addresses")
# is TRANSPORT (docs/errors.md, policy 17): the exception-name spelling steps aside.
_NOT_CONNECTION = (
    r"(?![^\n]{0,80}?\b(?:failed to connect|connection (?:reset|refused|closed|aborted|error"
    r"|timed out)|Socket closed|DNS resolution failed|name resolution|getaddrinfo|handshake"
    r"|unreachable)\b)"
)


def _spelled(numbers: str) -> str:
    """A status in the spellings :func:`_status` misses, checked behind the digits.

    Each ``status.spelled-*`` rule carries the code of the ``http.*`` rule it stands
    before, so a status spelled these ways takes that status's rank in the table.
    """
    contexts = (
        # openai-node's APIError with no body: "429 status code (no body)"
        r"[ ]status code\b",
        # bracketed: "[401] API Key ...", Google's JS SDK "[503 ] The model ..."; not an
        # index ("messages[400]") nor a chain of framework prefixes ("[500] [Gemini]")
        r"(?<=(?<![\w\]])\[\d{3})[ ]?\](?![ \t]*\[)",
        # at the start of a line before a lower-case or quoted message ("401: user not
        # found", "503 server is overloaded."), or aiohttp's "400, message='Bad Request'"
        rf"(?<=^[ \t]*\d{{3}})(?::[ \t]|,[ ]message=|[ ]+(?=(?-i:[a-z])|[\"'`(])(?!{_UNITS}))",
        # a status key inside re-escaped JSON: {\"code\": 503 ...}
        (
            r"(?![.,]\d)(?<=\\{1,3}\"(?:code|status|status_?code|http_?status(?:_?code)?)"
            r"\\{1,3}\"[ ]?:[ ]?(?:\\{1,3}\")?\d{3})"
        ),
        # a float status: "status_code": 503.0
        r"\.0\b(?<=(?:(?<![a-z])status(?:[ _-]?code)?|\bcode)[\"']?[ ]?[:=][ ]?\d{3}\.0)",
        # a gin access line: "[GIN] 2025/07/14 - 19:16:12 | 500 |  1.53s | ..."
        r"(?<=\[GIN\][^|\n]{0,40}\|(?:[^|\n]{0,40}\|)?[ \t]{0,4}\d{3})[ \t]{0,4}\|",
        # Google's front-end error page: "502. That's an error."
        (
            r"\.(?<=(?:^[ \t]*|<b>)\d{3}\.)(?:</b>)?[ ]{0,3}(?:<ins>)?"
            r"That(?:'|\u2019|&#39;)s an error\b"
        ),
        # a verb before the status: "API returned 400:", "(HTTP response code was 504)"
        (
            r"(?<=\b(?:returned|responded with|received|got|(?:code|status) (?:was|of|is))"
            rf"[ ]\d{{3}})(?![ ]+{_UNITS})(?![.,]\d)"
        ),
        # a status spelled in Chinese by relays and apps: "(状态码: 403)"
        r"(?![.,]\d)(?<=状态码\W{0,3}\d{3})",
        # requests' "400 Client Error: Bad Request for url" after a log-line prefix
        r"[ ](?-i:Client|Server) Error:",
        # botocore's "An error occurred (401) when calling the Converse operation"
        r"(?<=\bAn error occurred \(\d{3})\) when calling\b",
        # urllib3's retry exhaustion: "too many 429 error responses"
        r"(?<=\btoo many \d{3})[ ]error responses\b",
        # an exception name before the status: "ServiceUnavailable: 503 ..."; aiohttp's
        # parser errors ("TransferEncodingError: 400, message=...") carry the parser's
        # number, not HTTP's (policy 17)
        r"(?![.,]\d)(?<=(?-i:[a-z](?:Error|Exception|Unavailable))[:(][ ]?\d{3})"
        r"(?<!(?-i:EncodingError|LengthError|HttpMessageError)[:(][ ]?\d{3})" + _NOT_CONNECTION,
    )
    return rf"\b(?:{numbers})\b(?:" + "|".join(contexts) + ")"


_S = "ADR 0015 (pi-ai transport truncations, docs/adr/0015-flattened-transport-errors.md)"

#: The built-in rules in precedence order: where several match, the first wins
#: (docs/patterns.md lists them all).
RULES: tuple[Rule, ...] = (
    # ------------------------------------------------------ band 1: corpus families
    Rule(
        "litellm.connection-error",
        ErrorCode.TRANSPORT,
        r"(?<=(?-i:[A-Z]\w{0,40}Exception) - )"
        r"(?:\bConnection error(?:\.|$)|\[Errno 111\] Connection refused)",
        "litellm names the provider's connection failure after its own wrapper class "
        "(APIError, InternalServerError); the inner words decide (docs/errors.md, policy 17).",
        (
            _ex(
                "litellm.exceptions.APIError: litellm.APIError: APIError: OpenAIException - "
                "Connection error.",
                "BerriAI/litellm#8700",
            ),
            _ex("Litellm_proxyException - Connection error", "BerriAI/litellm#6667"),
        ),
    ),
    Rule(
        "gemini.block-reason",
        ErrorCode.CONTENT_FILTER,
        r"\b(?:finish|block(?:ed)?)[_ ]?reason\W{1,4}(?:(?:is|was)\s+)?(?:(?:Blocked|Finish"
        r")Reason\.)?(?-i:SAFETY|RECITATION|PROHIBITED_CONTENT|BLOCKLIST|SPII|IMAGE_SAFETY|"
        r"IMAGE_PROHIBITED_CONTENT)\b|\bblock[_ ]?reason\W{1,4}(?:BlockedReason\.)?(?-i:OTH"
        r"ER)\b|\b(?-i:BlockedReason\.(?:SAFETY|OTHER|PROHIBITED_CONTENT|BLOCKLIST|SPII)|Bl"
        r"ockedReason(?:Safety|Other|ProhibitedContent|Blocklist|ImageSafety))\b|\b(?-i:Blo"
        r"ckedPromptException)\b|\bblocked due to (?-i:OTHER|IMAGE_SAFETY)\b|\b(?-i:IMAGE_S"
        r"AFETY|IMAGE_PROHIBITED_CONTENT|PROHIBITED_CONTENT)\b|\bfinish[_ ]reason:\s*[34678"
        r"]\.?(?=\s|$)",
        "Gemini's block/finish reasons (SAFETY, RECITATION, PROHIBITED_CONTENT, OTHER for a"
        " blocked prompt; Vertex numeric 3/4/6/7/8) in SDK reprs, enum names and relays: a "
        "filter refusal.",
        (
            _ex(
                "Request was blocked by Gemini: BlockedReason.PROHIBITED_CONTENT",
                "machinewrapped/llm-subtrans#292",
            ),
            _ex(
                "Unsuccessful Finish Reason: RECITATION",
                "ag2ai/ag2#1718",
            ),
            _ex(
                "google.generativeai.types.generation_types.BlockedPromptException: prompt_"
                "feedback { block_reason: OTHER }",
                "google-gemini/deprecated-generative-ai-python#305",
            ),
        ),
    ),
    Rule(
        "gemini.empty-response-accessor",
        ErrorCode.PROVIDER_ERROR,
        r"\bquick accessor (?:only works|requires)\b",
        "The Gemini SDKs' accessor error for a response with no candidate or no part: "
        "empty output (docs/errors.md, policy 12). It only points at where a block would "
        "show; a block reason shown beside it decides first (gemini.block-reason).",
        (
            _ex(
                "Invalid operation: The `response.text` quick accessor requires the "
                "response to contain a valid `Part`, but none were returned. Please check "
                "the `candidate.safety_ratings` to determine if the response was blocked.",
                "google/generative-ai-docs#461",
            ),
            _ex(
                "Invalid operation: The `response.parts` quick accessor requires a single "
                "candidate, but none were returned. Please check the "
                "`response.prompt_feedback` to determine if the prompt was blocked.",
                "google-gemini/deprecated-generative-ai-python#526",
            ),
            _ex(
                "The `response.text` quick accessor only works when the response contains "
                "a valid `Part`, but none was returned. Check the "
                "`candidate.safety_ratings` to see if the response was blocked.",
                "danielmiessler/Fabric#748",
            ),
        ),
    ),
    Rule(
        "gemini.recitation-block",
        ErrorCode.CONTENT_FILTER,
        r"\bblocked due to recitation\b",
        "Gemini's RECITATION block in a relay's lower-case wording: output withheld by a "
        "policy check is a filter, not an output failure (docs/errors.md, policy 12).",
        (
            _ex(
                "candidate was blocked due to recitation",
                "zuisong/gemini-openai-proxy#57",
            ),
        ),
    ),
    Rule(
        "filter.blocked-wording",
        ErrorCode.CONTENT_FILTER,
        r"\b(?:blocked|stopped|flagged|rejected)\b[^\n]{0,40}?\b(?:due to|by|for|as|under)"
        r"\s+(?:the |our |a |its |potentially )?(?:safety|unsafe|prohibited content|potenti"
        r"ally prohibited|content[\s_]+(?:filter\w*|polic\w+|moderation)|moderation|guardra"
        r"ils?|harmful|inappropriate)|\b(?:stopped|blocked):\s+potentially (?:prohibited|un"
        r"safe|harmful)\b|\bcontent[\s_]+filter(?:s|ing)\b[^\n]{0,20}\bpolicy\b|\bblocked b"
        r"y our content filters\b|\b(?:prompt[_ ,.]?feedback|safety_ratings)\b[^\n]{0,40}?"
        r"\bwas blocked\b|\bSafety settings triggered\b|\bis blocked, as it may violate\b|"
        r"\bflagged (?:the |your )?(?:input|prompt|message|content|output|response) as (?:p"
        r"otentially )?(?:harmful|unsafe|inappropriate)\b|\bmatched public code\b|\b(?:resp"
        r"onse|request|prompt|message|output) (?:was |got |has been )filtered\b(?! due to t"
        r"he prompt triggering)|\bResponsible AI (?:Service|practices)\b|\bmoderation_block"
        r"ed\b|\bfor safety reasons\b",
        "Wordings of a block by a safety/moderation system (Gemini, Imagen, Copilot public-"
        "code filter, gateways): the prompt or output was refused.",
        (
            _ex(
                "The response is blocked due to safety reason",
                "google-gemini/deprecated-generative-ai-python#126",
            ),
            _ex(
                "Response stopped due to prohibited content",
                "google-gemini/gemini-cli#26250",
            ),
            _ex(
                "Sorry, the response matched public code so it was blocked. Please rephrase"
                " your prompt.",
                "microsoft/vscode-copilot-release#550",
            ),
        ),
    ),
    Rule(
        "filter.usage-policy",
        ErrorCode.CONTENT_FILTER,
        "\\b(?:violates?|violating|violation of)\\s+(?:our |the |its |\\w+'s )?(?:usage pol"
        "ic(?:y|ies)|usage guidelines|content polic(?:y|ies)|guardrails|policies|acceptable"
        " use)\\b|\\bsafeguards flagged\\b|\\bsafety measures that flag\\b|\\bthe model (?:"
        "refused|declined)\\b|\\bstop_reason\\W{1,4}refusal\\b|\\bas a result of our safety"
        ' system\\b|\\bErrorCode:\\s*contentFilter\\b|\\"contentFilter\\"\\s*:\\s*\\[',
        "Anthropic usage-policy/safeguard refusals, xAI 'violates usage guidelines' (even u"
        "nder 403 permission codes), model refusals and Azure's safety system: content refu"
        "sals.",
        (
            _ex(
                "API Error: Claude Code is unable to respond to this request, which appears"
                " to violate our Usage Policy (https://www.anthropic.com/legal/aup)",
                "anthropics/claude-code#50795",
            ),
            _ex(
                '403 {"code":"permission-denied","error":"Content violates usage guidelines. "}',
                "Wei-Shaw/sub2api#5359",
            ),
            _ex(
                "The model refused to complete the request",
                "earendil-works/pi#7133",
            ),
        ),
    ),
    Rule(
        "filter.policy-violation-variants",
        ErrorCode.CONTENT_FILTER,
        r"\bviolat(?:es?|ing)\s+(?:our |the |\w+ )?(?:\[(?:content|usage) polic(?:y|ies)\]|c"
        r"ontent moderation\b)",
        "A policy violation named with a linked policy ('may violate our [content "
        "policy](…)') or a moderation API ('VIOLATES OPENAI CONTENT MODERATION API'): a "
        "filter refusal.",
        (
            _ex(
                "This content may violate our [content policy](https://openai.com/policies/"
                "usage-policies). If you believe this to be in error, please [submit your "
                "feedback](https://forms.gle/3gyAMj5r5rTEcgbs5) — your input will aid our "
                "research in this area.",
                "chatgpt-prompts/ChatGPT-Midjourney-Prompt-Generator#5",
            ),
            _ex(
                "YOUR INPUT VIOLATES OPENAI CONTENT MODERATION API. PLEASE TRY AGAIN.",
                "lm-sys/FastChat#99",
            ),
        ),
    ),
    Rule(
        "filter.moderation-codes",
        ErrorCode.CONTENT_FILTER,
        r"\bDataInspectionFailed\b|\bdata_inspection_failed\b|\bcontains?\s+inappropriate\s"
        r"+content\b|\bcontaininappropriate content\b|\bsensitive_words_detected\b|\bcontai"
        r"ns sensitive words\b|\bSensitive content detected\b|\bnew_sensitive\b|\bContent E"
        r"xists Risk\b|\brejected because it was considered high\s+risk\b|\bContent Securit"
        r"y Warning\b|\bPUBLIC_ERROR_UNSAFE_GENERATION\b",
        "Chinese providers' and relays' moderation codes (DashScope DataInspectionFailed, D"
        "eepSeek 'Content Exists Risk', new-api sensitive_words_detected, MiniMax new_sensi"
        "tive, Moonshot high risk) beat their 400/500 status.",
        (
            _ex(
                "Internal error: 400 <400> InternalError.Algo.DataInspectionFailed: Input t"
                "ext data may contain inappropriate content.",
                "QwenLM/qwen-code#3145",
            ),
            _ex(
                "BadRequestError: Error code: 400 - {'detail': 'Content Exists Risk'}",
                "deepseek-ai/DeepSeek-V2#30",
            ),
            _ex(
                "09:48:54 WARNING - attempt 2/3 - HTTP 500: sensitive_words_detected",
                "QuantumNous/new-api#5601",
            ),
        ),
    ),
    Rule(
        "zh.moderation",
        ErrorCode.CONTENT_FILTER,
        r"不安全或敏感内容|敏感(?:内容|信息|词)|审核不通过|涉嫌违规",
        "Chinese providers' moderation refusals in their own words (Zhipu 1301 'unsafe or "
        "sensitive content', iFlytek Spark 'review not passed'): a content block, whatever "
        "the status.",
        (
            _ex(
                "[1301][系统检测到输入或生成内容可能包含不安全或敏感内容]"
                "（Trace: 2026090500202657dce70195f34fdd）",
                "zai-org/feedback#516",
            ),
            _ex(
                'Exception in thread "OkHttp Dispatcher" io.github.briqt.spark4j.exception.Spar'
                "kException: 讯飞星火api连接异常：输入内容审核不通过，涉嫌违规，请重新调整输入内容",
                "briqt/xunfei-spark4j#3",
            ),
            _ex(
                "io.github.briqt.spark4j.exception.SparkException: "
                "输出内容涉及敏感信息，审核不通过，后续结果无法展示给用户",
                "briqt/xunfei-spark4j#7",
            ),
        ),
    ),
    Rule(
        "bedrock.guardrail",
        ErrorCode.CONTENT_FILTER,
        r"\bViolated guardrail policy\b|\bguardrail[_ ]intervened\b|\bguardrail blocked\b|"
        r"\bblocked by (?:the |a )?guardrails?\b|\bthe model cannot answer this question\b",
        "A Bedrock/LiteLLM guardrail intervened (its default blocked message included); not"
        " a guardrail configuration error, which stays INVALID_REQUEST.",
        (
            _ex(
                "GuardRail Blocked : The model cannot answer this question",
                "elastic/integrations#11808",
            ),
            _ex(
                "Sorry, the model cannot answer this question.",
                "vercel/ai#2968",
            ),
        ),
    ),
    Rule(
        "plan.usage-limit",
        ErrorCode.QUOTA_EXCEEDED,
        r"(?:\byou(?:'|’|\s+ha)ve|\byou\s+\([^)\n]{1,40}\)\s+have)\s+(?:hit|reached)\s+your"
        r"\s+(?!(?:[\w.-]+\s+){0,2}?(?:rate|concurrency|concurrent|per[- ]minute|RPM|TPM)\b"
        r")(?:[\w.-]+\s+){0,3}?(?:limits?|quota|allowance)\b(?![^\n]{0,30}\b(?:per|this|a|e"
        r"ach) (?:minute|second)\b)(?<!\b(?:try again|retry|resets?)\s+(?:in|after)\s+\d+(?"
        r":\.\d+)?\s*(?:ms|s|secs?|seconds?|m|mins?|minutes?)(?![a-z])[\s\S]{0,400})(?![\s"
        r"\S]{0,400}\b(?:try again|retry|resets?)\s+(?:in|after)\s+\d+(?:\.\d+)?\s*(?:ms|s|"
        r"secs?|seconds?|m|mins?|minutes?)(?![a-z]))|\busage[_ ]limit(?:s)?[_ ](?:has been "
        r"|have been )?reached\b(?<!\b(?:try again|retry|resets?)\s+(?:in|after)\s+\d+(?:\."
        r"\d+)?\s*(?:ms|s|secs?|seconds?|m|mins?|minutes?)(?![a-z])[\s\S]{0,400})(?![\s\S]{"
        r"0,400}\b(?:try again|retry|resets?)\s+(?:in|after)\s+\d+(?:\.\d+)?\s*(?:ms|s|secs"
        r"?|seconds?|m|mins?|minutes?)(?![a-z]))|\bThe usage limit has been\s+reached\b|\be"
        r"xceeded your (?:premium|monthly|included|free|plan)\b(?![^\n]{0,30}\b(?:rate|per "
        r"minute|RPM|TPM)\b)|\b(?:enable|have) (?:additional )?(?:paid )?overages\b|\bovera"
        r"ges enabled\b|\bout of extra usage\b|\bextra usage is required\b|\bregain access "
        r"on\b|\b(?:AI )?credits? (?:exhausted|depleted|used up)\b|\bnot enough credits\b|"
        r"\blimit reached\b(?=[^\n]{0,6}\bresets?\b)(?<!\b(?:try again|retry|resets?)\s+(?:"
        r"in|after)\s+\d+(?:\.\d+)?\s*(?:ms|s|secs?|seconds?|m|mins?|minutes?)(?![a-z])[\s"
        r"\S]{0,400})(?![\s\S]{0,400}\b(?:try again|retry|resets?)\s+(?:in|after)\s+\d+(?:"
        r"\.\d+)?\s*(?:ms|s|secs?|seconds?|m|mins?|minutes?)(?![a-z]))|\bexhausted your (?:"
        r"daily |weekly |monthly )?(?:[\w.-]+ )?quota\b(?<!\b(?:try again|retry|resets?)\s+"
        r"(?:in|after)\s+\d+(?:\.\d+)?\s*(?:ms|s|secs?|seconds?|m|mins?|minutes?)(?![a-z])["
        r"\s\S]{0,400})(?![\s\S]{0,400}\b(?:try again|retry|resets?)\s+(?:in|after)\s+\d+(?"
        r":\.\d+)?\s*(?:ms|s|secs?|seconds?|m|mins?|minutes?)(?![a-z]))",
        "Subscription/plan caps (Claude, Codex, Cursor, Copilot, Gemini CLI, Ollama Cloud) "
        "whose reset is a clock time, a session/weekly window or an upgrade: addition 5, un"
        "less a short wait is stated (policy 2).",
        (
            _ex(
                "You've hit your limit · resets 11pm (America/Anchorage)",
                "anthropics/claude-code#19472",
            ),
            _ex(
                "Claude usage limit reached. Your limit will reset at 12am.",
                "aniketkarne/CCAutoRenew#3",
            ),
            _ex(
                "You have exceeded your premium request allowance. We have automatically sw"
                "itched you to GPT-4.1 which is included with your plan. Enable additional "
                "paid premium requests to continue using premium models.",
                "microsoft/vscode-copilot-release#13014",
            ),
        ),
    ),
    Rule(
        "plan.free-user-limit",
        ErrorCode.QUOTA_EXCEEDED,
        r"\bfree users? (?:can only use|account exceeded)\b",
        "A free plan's entitlement ('Free users can only use GPT 4.1 or Auto as premium "
        "models'): a plan cap (docs/errors.md, policy 13).",
        (
            _ex(
                "Free users can only use GPT 4.1 or Auto as premium models (Request ID: "
                "aff770c8-ef1b-46ac-bc4e-15b4f6c9ab8e)",
                "agentcodee/cursor-free-everyday#22",
            ),
        ),
    ),
    Rule(
        "proxy.budget",
        ErrorCode.QUOTA_EXCEEDED,
        r"\bbudget has been exceeded\b|\bexceeded (?:the |your )?budget\b|\bcrossed budget"
        r"\b|\bbudget_exceeded\b|\bmax[_ ]budget\b|\bExceeded(?:Token|User|Team|Key|Custome"
        r"r|)Budget\b|\bkey limit exceeded\b|\bcredits per (?:hour|day|week|month)\b|\bcred"
        r"its per \d+ (?:hours?|days?)\b",
        "Proxy spend budgets (LiteLLM 'Budget has been exceeded', deployment budgets), Open"
        "Router key spend limits, credit allowances: addition 5, whatever the 400/403/429 s"
        "tatus.",
        (
            _ex(
                "Request Failed\nMessage: Budget has been exceeded! Current cost: 26.075, M"
                "ax budget: 0.25",
                "BerriAI/litellm#22726",
            ),
            _ex(
                "403 Key limit exceeded. Manage it using https://openrouter.ai/keys",
                "RooCodeInc/Roo-Code#515",
            ),
        ),
    ),
    Rule(
        "relay.user-quota",
        ErrorCode.QUOTA_EXCEEDED,
        r"\binsufficient_user_quota\b|\bquota\b[^\n]{0,40}?\bis not enou\w\w\b|\bpre-?consu"
        r"med? ?quota failed\b|\bpreConsumeQuota failed\b",
        "one-api/new-api relays report the user's exhausted prepaid quota (insufficient_use"
        "r_quota, 'user quota is not enough', pre-consume failures): billing, whatever the "
        "403 status.",
        (
            _ex(
                "insufficient_user_quota user quota is not enough (request id: 202404032317"
                "2594066980027391365)",
                "songquanpeng/one-api#1270",
            ),
            _ex(
                "chat pre-consumed quota failed, user quota: 13810, need quota: 15000",
                "QuantumNous/new-api#667",
            ),
            _ex(
                "[ERR] 2024/04/03 - 23:13:25 | 2024040323132569916470074610378 | relay erro"
                "r (channel #3): user quota is not enough (request id: 20240403231325699164"
                "70074610378)",
                "songquanpeng/one-api#1270",
            ),
        ),
    ),
    Rule(
        "billing.balance",
        ErrorCode.QUOTA_EXCEEDED,
        r"\bbalance is (?:insufficient|too low|not enough|exhausted)\b|\bcredit balance too"
        r" low\b|\bin arrears\b|\barrearage\b|\bout of quota\b|\bplease top[ -]?up\b|\bbill"
        r"ing error\b|\bTo increase, visit\b[^\n]{0,60}\bsettings/(?:credits|keys|billing)"
        r"\b",
        "An empty prepaid balance or arrears (SiliconFlow, Claude Code notice, OpenRouter c"
        "redit and key caps sent as 402 'Prompt tokens limit exceeded'): top up, not retry.",
        (
            _ex(
                "  ⎿  Credit balance too low · Add funds: https://platform.claude.com/setti"
                "ngs/billing",
                "anthropics/claude-code#46277",
            ),
            _ex(
                "API error: Error code: 403 - {'code': 30011, 'message': 'The selected mode"
                "l requires paid balance. Your paid balance is insufficient. Please top up "
                "and try again.', 'data': None}",
                "FoundationAgents/OpenManus#438",
            ),
            _ex(
                "402 Prompt tokens limit exceeded: 23229 > 14796. To increase, visit https:"
                "//openrouter.ai/settings/credits and upgrade to a paid account",
                "continuedev/continue#11584",
            ),
        ),
    ),
    Rule(
        "zh.quota-balance",
        ErrorCode.QUOTA_EXCEEDED,
        r"额度不足|余额不足|已欠费|请充值|额度(?:已)?(?:用尽|用完|耗尽)",
        "Chinese providers and relays: quota or balance used up, account in arrears (Zhipu "
        "1113 '欠费', one-api/new-api '额度不足', '额度已用尽'): top up, not retry, "
        "even under 429.",
        (
            _ex(
                'Error code: 429, with error text {"error":{"code":"1113",'
                '"message":"您的账户已欠费，请充值后重试。"}}',
                "langgenius/dify#5850",
            ),
        ),
    ),
    Rule(
        "quota.account-standing",
        ErrorCode.QUOTA_EXCEEDED,
        r"\bmake sure your account is in good standing\b",
        "DashScope's arrears wording ('Access denied, please make sure your account is in "
        "good standing', code Arrearage): an unpaid account, not a key problem "
        "(docs/errors.md, policy 13).",
        (
            _ex(
                "SUM: **ERROR**: Access denied, please make sure your account is in good standing.",
                "infiniflow/ragflow#1552",
            ),
        ),
    ),
    Rule(
        "zhipu.api-daily-cap",
        ErrorCode.QUOTA_EXCEEDED,
        r"\bAPI ?已达今日调用次数限额",
        "Zhipu's daily call cap for an API ('该 API 已达今日调用次数限额': today's calls "
        "are used up): a daily window (docs/errors.md, policy 2); anchored on the ASCII "
        "'API' it carries.",
        (
            _ex(
                "该 API 已达今日调用次数限额,如有更多需求,请联系客服购买",
                "https://docs.bigmodel.cn/cn/api/api-code",
            ),
        ),
    ),
    Rule(
        "quota.daily-window",
        ErrorCode.QUOTA_EXCEEDED,
        r"(?:\bquota_?id\W{1,4}\w{0,40}(?-i:PerDay)|-per-day\b|\bper\s+day\s+per\s+(?:user|"
        r"project)\b|\b(?:tokens|requests) per day\b|\b(?-i:TPD|RPD)\b(?=\s+rate limit)|\bq"
        r"uota reset within\s+\d+\s*h|\bfree quota tier\b|\bdaily\s+[\w.-]+\s+quota\b)(?<!"
        r"\b(?:try again|retry|resets?)\s+(?:in|after)\s+\d+(?:\.\d+)?\s*(?:ms|s|secs?|seco"
        r"nds?|m|mins?|minutes?)(?![a-z])[\s\S]{0,400})(?![\s\S]{0,400}\b(?:try again|retry"
        r"|resets?)\s+(?:in|after)\s+\d+(?:\.\d+)?\s*(?:ms|s|secs?|seconds?|m|mins?|minutes"
        r"?)(?![a-z]))|\bquota_limit_value\b(?:\W{1,6}value)?\W{1,6}0(?![\d.])",
        "Per-day windows in Google quota ids, OpenRouter free-model windows, Moonshot TPD a"
        "nd Bedrock tokens-per-day, and a zero quota_limit_value: policy 2, unless a short "
        "reset is stated.",
        (
            _ex(
                "Quota exceeded for metric: generativelanguage.googleapis.com/generate_cont"
                "ent_free_tier_requests\nquotaId: GenerateRequestsPerDayPerProjectPerModel-"
                "FreeTier",
                "google-gemini/api-examples#98",
            ),
            _ex(
                "Rate limit exceeded: free-models-per-day",
                "brianpetro/obsidian-smart-connections#565",
            ),
            _ex(
                "botocore.errorfactory.ThrottlingException: An error occurred (ThrottlingEx"
                "ception) when calling the Converse operation (reached max retries: 4): Too"
                " many tokens per day, please wait before trying again.",
                "minorun365/agent-book#29",
            ),
        ),
    ),
    Rule(
        "gemini.free-tier-daily",
        ErrorCode.QUOTA_EXCEEDED,
        r"\bquota_?id\W{1,4}\w{0,60}(?-i:PerDay)\w{0,60}-FreeTier\b",
        "Gemini's free-tier daily allocation (quota id …PerDay…-FreeTier) is spent for the "
        "day whatever the short retry hint beside it says (docs/errors.md, policies 2 and "
        "13).",
        (
            _ex(
                "Invalid Gemini API key: [GoogleGenerativeAI Error]: Error fetching from "
                "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash-l"
                "ite:generateContent: [429 Too Many Requests] You exceeded your current "
                "quota, please check your plan and billing details. For more information "
                "on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits."
                " To monitor your current usage, head to: https://ai.dev/rate-limit. \n* "
                "Quota exceeded for metric: generativelanguage.googleapis.com/generate_cont"
                "ent_free_tier_requests, limit: 20, model: gemini-2.5-flash-lite\nPlease "
                'retry in 51.606482386s. [{"@type":"type.googleapis.com/google.rpc.Help'
                '","links":[{"description":"Learn more about Gemini API '
                'quotas","url":"https://ai.google.dev/gemini-api/docs/rate-limits"}]},'
                '{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":'
                '[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_fre'
                'e_tier_requests","quotaId":"GenerateRequestsPerDayPerProjectPerModel-F'
                'reeTier","quotaDimensions":{"location":"global","model":"gemini-'
                '2.5-flash-lite"},"quotaValue":"20"}]},{"@type":"type.googleapis.co'
                'm/google.rpc.RetryInfo","retryDelay":"51s"}]',
                "itcon-pty-au/stremio-ai-search#170",
            ),
        ),
    ),
    Rule(
        "output.malformed",
        ErrorCode.PROVIDER_ERROR,
        r"\b(?-i:MALFORMED_FUNCTION_CALL)\b|\bMalformed function call\b|\bFinish reason:\s*"
        r"[29]\.?(?=\s|$)|\bcalled with invalid arguments\b|\bInvalid arguments for tool\b|"
        r"\bAI_(?:NoObjectGenerated|InvalidToolArguments|NoSuchTool|NoContentGenerated|NoOu"
        r"tputGenerated)Error\b|\bNo (?:object|output|content) generated\b|\bLengthFinishRe"
        r"asonError\b|\bCould not parse response content\b(?! as the request was rejected b"
        r"y the content filter)|\bContent has no parts\b|\bContent field missing from\b|\bU"
        r"nexpectedModelBehavior\b|\bInvalid API response after\b|\bexceeded the \d+ output"
        r" token maximum\b|\bfailed to parse (?:the )?(?:tool|function)[ _]calls?\b|\b(?:mo"
        r"del|LLM|provider) (?:returned|produced|generated) (?:an )?empty (?:response|outpu"
        r"t|content)\b|\bfor (?:result|output) validation\b|\bOutputParserException\b|\bCou"
        r"ld not parse LLM output\b|\bempty response from (?:the )?(?:model|LLM|provider)\b",
        "Failures of the model's output (malformed or invalid tool calls, no object or cont"
        "ent generated, truncated unparseable output): PROVIDER_ERROR by addition 4, even w"
        "hen the text mentions 'timeout' or 'invalid'.",
        (
            _ex(
                "The bash tool was called with invalid arguments: SchemaError(Expected a va"
                'lue greater than 0, got -1\n  at ["timeout"]).\nPlease rewrite the input s'
                "o it satisfies the expected schema.",
                "anomalyco/opencode#26094",
            ),
            _ex(
                "openai.LengthFinishReasonError: Could not parse response content as the le"
                "ngth limit was reached - CompletionUsage(completion_tokens=1, prompt_token"
                "s=127, total_tokens=128)",
                "openai/openai-python#1701",
            ),
            _ex(
                "API Error: Claude's response exceeded the 32000 output token maximum. To c"
                "onfigure this behavior, set the CLAUDE_CODE_MAX_OUTPUT_TOKENS environment "
                "variable.",
                "anthropics/claude-code#18373",
            ),
        ),
    ),
    Rule(
        "output.invalid-model-output",
        ErrorCode.PROVIDER_ERROR,
        r"\berror parsing tool call\b|\bThe model produced invalid content\b",
        "Ollama failing to parse the model's tool call, OpenAI's model_error 'The model "
        "produced invalid content': failures of the model's output, whose own wording "
        "decides over a bare 5xx (docs/errors.md, policy 12).",
        (
            _ex(
                "ollama._types.ResponseError: error parsing tool call: invalid character "
                "']' after object key:value pair (status code: 500)",
                "ollama/ollama#12064",
            ),
            _ex(
                "An error occurred: Error code: 500 - {'error': {'message': 'The model "
                "produced invalid content. Consider modifying your prompt if you are "
                "seeing this error persistently.', 'type': 'model_error', 'param': None, "
                "'code': None}}",
                "microsoft/autogen#3247",
            ),
            _ex(
                "openai.APIError: The model produced invalid content. Consider modifying "
                "your prompt if you are seeing this error persistently",
                "crewAIInc/crewAI#806",
            ),
        ),
    ),
    Rule(
        "auth.region",
        ErrorCode.AUTH,
        r"\bUser location is not supported\b|\bunsupported_country_region_territory\b|\bCou"
        r"ntry, region,? or territory not supported\b|\bnot (?:available|supported) in your"
        r" (?:country|region|location)\b",
        "The caller's region is not served (Gemini FAILED_PRECONDITION 400, OpenAI 403): no"
        " change to the request fixes it, addition 1.",
        (
            _ex(
                "400 User location is not supported for the API use.",
                "rokbenko/ai-playground#1",
            ),
            _ex(
                '{"error":{"code":"unsupported_country_region_territory","message":"Country'
                ', region, or territory not supported","param":null,"type":"request_forbidd'
                'en"}}',
                "jlcodes99/cockpit-tools#611",
            ),
        ),
    ),
    Rule(
        "auth.access-denied",
        ErrorCode.AUTH,
        r"\bis not authorized to (?:perform|invoke|access|use)\b|\bnot authorized to invoke"
        r"\b|\bexplicit deny\b|\bmodel access is denied\b|\bis not allowed to use\b|(?<!Err"
        r"or \d\] )\baccess (?:is )?denied\b|\baccess to\b[^\n]{1,40}?\bis denied\b|\bpermi"
        r"ssion was denied\b|\b(?:does not|doesn't|do not|don't) have (?:the )?(?:required "
        r")?permissions?\b|\bpermission\s+'[^'\n]{1,80}'\s+denied\b|(?-i:\bIAM_PERMISSION_D"
        r"ENIED\b)|\bhas not been used in project\b|(?-i:\bSERVICE_DISABLED\b|\bAPI_KEY_SER"
        r"VICE_BLOCKED\b)|\bdoes not have the [^\n]{1,40}? API enabled\b|\bAPI restrictions"
        r" exclude\b|\b(?:organization|workspace) has been disabled\b|\blocked your account"
        r"\b|\bdeactivated account\b|\baccount (?:has been|was|is) (?:disabled|deactivated|"
        r"banned)\b|\bConsumer\b[^\n]{0,60}\bhas been suspended\b|\bunregistered callers\b",
        "IAM/SCP denials, model access not granted, the API not enabled for the project, a "
        "disabled organization: addition 1, whatever the 400/ValidationException wrapper.",
        (
            _ex(
                "An error occurred (ValidationException) when calling the InvokeModel opera"
                "tion: Your account is not authorized to invoke this API operation.",
                "aws-samples/amazon-bedrock-audio-summarizer#3",
            ),
            _ex(
                "Access to the chat endpoint is denied",
                "Wei-Shaw/sub2api#5359",
            ),
            _ex(
                "This key's API restrictions exclude the Generative Language API. Allow it "
                "in the Google Cloud console, or add this as a Vertex AI provider instead.",
                "langwatch/langwatch#6252",
            ),
        ),
    ),
    Rule(
        "cloudflare.block-page",
        ErrorCode.AUTH,
        r"\bAttention Required! \| Cloudflare\b",
        "Cloudflare's block page ('Attention Required! | Cloudflare', served as a 403): "
        "the edge refuses the caller, and the same request does not pass on retry "
        "(docs/errors.md, policy 9).",
        (
            _ex(
                "{'error': {'message': '<!DOCTYPE html>\\n<!--[if lt IE 7]> <html "
                'class="no-js ie6 oldie" lang="en-US"> <![endif]-->\\n<!--[if IE 7]>   '
                ' <html class="no-js ie7 oldie" lang="en-US"> <![endif]-->\\n<!--[if '
                'IE 8]>    <html class="no-js ie8 oldie" lang="en-US"> '
                '<![endif]-->\\n<!--[if gt IE 8]><!--> <html class="no-js" '
                'lang="en-US"> <!--<![endif]-->\\n<head>\\n<title>Attention Required! | '
                "Cloudflare</title>…",
                "chatanywhere/GPT_API_free#294",
            ),
        ),
    ),
    Rule(
        "auth.missing-credentials",
        ErrorCode.AUTH,
        r"\bapi_key client option must be set\b|\bCould not resolve authentication method\b"
        r"|\bCould not load the default credentials\b|\bdefault credentials were not found"
        r"\b|\bDefaultCredentialsError\b|\bNo API key provided\b|\bMissing credentials\b|(?"
        r":\b|_)(?:API[_ ]?key|credentials?)\b[^\n]{0,40}?\b(?:is|are) (?:missing|not set|e"
        r"mpty)\b|\bmissing (?:API[_ ]?key|access token|bearer token)\b|\bno API[_ ]?key (?"
        r":provided|found|set|configured)\b|\bkey is still missing\b|\b(?:did not|didn\'t) "
        r"provide an? API key\b|\bMissing bearer\b|\b(?:api[_-]?key|authorization|x-api-key"
        r") header is (?:required|missing)\b|\byou must (?:provide|specify|set)\b[\s\S]{0,1"
        r"50}?(?:\b|_)(?:API[_ ]?KEY|credentials)\b|\bMissing token or \w+ in [^\n]{0,40}cr"
        r"edentials\b|\bNo authentication method\b|\bnot authenticated with\b|\brequires? ("
        r"?:\w+ )?authentication\b(?! timeout)",
        "No credentials configured (SDK client-side checks, missing Google ADC, agent CLIs "
        "asking for a login): fix the credentials, never retry.",
        (
            _ex(
                "openai.OpenAIError: The api_key client option must be set either by passin"
                "g api_key to the client or by setting the OPENAI_API_KEY environment varia"
                "ble",
                "kyutai-labs/unmute#110",
            ),
            _ex(
                "Could not resolve authentication method. Expected either api_key or auth_t"
                "oken to be set",
                "langchain-ai/langgraph-studio#9",
            ),
            _ex(
                "google.auth.exceptions.DefaultCredentialsError: Your default credentials w"
                "ere not found. To set up Application Default Credentials, see https://clou"
                "d.google.com/docs/authentication/external/set-up-adc for more information.",
                "BerriAI/litellm#14588",
            ),
        ),
    ),
    Rule(
        "auth.env-var-unset",
        ErrorCode.AUTH,
        r"\bset the\b[^\n]{0,20}?\b(?-i:[A-Z][A-Z0-9_]{0,40}_API_KEY)\b[^\n]{0,5}?\benvironm"
        r"ent variable\b",
        "An SDK or CLI asking for its key's environment variable before sending: missing "
        "credentials (docs/errors.md, policy 9).",
        (
            _ex(
                "Please set the {.code MISTRAL_API_KEY} environment variable",
                "tadascience/mistral.ai:R/authenticate.R",
            ),
        ),
    ),
    Rule(
        "auth.expired-or-invalid",
        ErrorCode.AUTH,
        r"\b(?:OAuth |access |refresh |auth |bearer |session )?token (?:is |has )?(?:expire"
        r"d|revoked)\b|\btoken expired\b|\b(?:OAuth |login |auth )?session (?:has )?expired"
        r"\b|\blogin has expired\b|\brefresh[_ ]token\b[^\n]{0,40}?\b(?:reused|already (?:b"
        r"een )?used|revoked)\b|\btoken could not be refreshed\b|\binvalid[_ ]grant\b|\binv"
        r"alid (?:bearer|access|auth|OAuth|refresh) token\b|\bOAuth error:\s*Invalid\b|\bDe"
        r"vice code expired\b|\binvalid\b[^\n]{0,40}?\bcredentials\b(?! validation)|\bissue"
        r" with your API key\b|\binvalid subscription key\b|\bAPI key\b[^\n]{0,30}?\bnot co"
        r"mpatible\b|\b(?:not able|unable|failed|couldn't|could not) to authenticate\b|\bCo"
        r"uldn't authenticate\b|\bre-?authenticate\b",
        "Expired/revoked OAuth sessions and refresh tokens, invalid credentials or keys as "
        "agent CLIs and SDKs word them: fix the credentials.",
        (
            _ex(
                "Claude session expired. Run 'claude /login' to re-authenticate.",
                "ysa-ai/ysa#4",
            ),
            _ex(
                "Your access token could not be refreshed because your refresh token was re"
                "voked. Please log out and sign in again.",
                "Loongphy/codex-auth#104",
            ),
            _ex(
                "invalid_grant: Invalid refresh token",
                "pingdotgg/t3code#579",
            ),
        ),
    ),
    Rule(
        "zh.auth-failure",
        ErrorCode.AUTH,
        r"认证失败|鉴权失败|身份验证|認証できません|无权限|无效的令牌|未提供令牌"
        r"|令牌(?:已过期|无效|已被禁用|状态不可用|验证失败)",
        "Chinese and Japanese authentication failures and permission denials (Roo Code's "
        "401/403 notices, DeepSeek '认证失败', new-api '无效的令牌'): fix the credentials.",
        (
            _ex(
                "无法向提供商进行身份验证。请检查您的 API 密钥配置。",
                "RooCodeInc/Roo-Code:webview-ui/src/i18n/locales/zh-CN/chat.json",
            ),
            _ex(
                "无权限。您的 API 密钥有效，但提供商拒绝完成此请求。",
                "RooCodeInc/Roo-Code:webview-ui/src/i18n/locales/zh-CN/chat.json",
            ),
            _ex(
                "プロバイダーで認証できませんでした。API キーの設定を確認してください。",
                "RooCodeInc/Roo-Code:webview-ui/src/i18n/locales/ja/chat.json",
            ),
        ),
    ),
    Rule(
        "auth.token-invalid",
        ErrorCode.AUTH,
        r"\binvalid api token\b|\bAuthentication Fails\b|\b(?:access|api) token invalid\b|\b"
        r"Authorization Token(?:已过期|非法)",
        "Providers' own words for a wrong or expired key: Cohere's 'invalid api token', "
        "DeepSeek's 'Authentication Fails', Baidu's 'Access token invalid', Zhipu's "
        "'Authorization Token' expired (已过期) or invalid (非法).",
        (
            _ex(
                "CohereError: invalid api token",
                "cohere-ai/notebooks#6",
            ),
            _ex(
                "Error during 3-minutes trading run: Error: AI failed: Authentication "
                "Fails, Your api key: ****Njk= is invalid",
                "qingshungLI/Super-nof1.ai#9",
            ),
            _ex(
                "错误原因：Access token invalid or no longer valid",
                "immersive-translate/immersive-translate#1800",
            ),
            _ex(
                "Error Code: 1003, Message: Authorization Token已过期，请重新生成/获取。",
                "langgenius/dify#2068",
            ),
        ),
    ),
    Rule(
        "context.prompt-too-long-variants",
        ErrorCode.CONTEXT_OVERFLOW,
        r"\bprompt (?:tokens? )?too (?:long|large)\b|\bprompt (?:length )?exceeds (?:the )?"
        r"(?:model'?s? )?max(?:imum)?\b|\bprompt \([^()\n]{0,40}\) is (?:too long|longer th"
        r"an)\b",
        "Wordings of a prompt above the model's input limit (Z.ai, Ollama, ERNIE, GLM, vLLM"
        ", verl): the same request never fits (policy rule 3).",
        (
            _ex(
                'HTTP 400 {"code":"1261","message":"Prompt too long"}',
                "earendil-works/pi#9805",
            ),
            _ex(
                "400 `prompt too long; exceeded max context length by 100918 tokens`",
                "earendil-works/pi:packages/ai/test/overflow.test.ts",
            ),
            _ex(
                "ValueError: The decoder prompt (length 76557) is longer than the maximum m"
                "odel length of 32000. Make sure that `max_model_len` is no smaller than th"
                "e number of text tokens.",
                "orionw/rank1#6",
            ),
        ),
    ),
    Rule(
        "context.longer-than-context-length",
        ErrorCode.CONTEXT_OVERFLOW,
        r"\bis longer than the (?:model(?:\\?'s)? )?(?:maximum )?(?:context|model) length\b"
        r"|\bmaximum prompt length is \d+|\bmaximum[ \t]*\n\s*context\s+length\b|\bmaximum["
        r" \t]+context[ \t]*\n\s*length\b",
        "vLLM/SGLang/Together/xAI: the input is longer than the model's context length; als"
        "o 'maximum context length' cut across lines by a UI.",
        (
            _ex(
                "400 The input (516368 tokens) is longer than the model's context length (2"
                "62144 tokens).",
                "earendil-works/pi:packages/ai/test/overflow.test.ts",
            ),
            _ex(
                "400 \"This model's maximum prompt length is 131072 but the request contain"
                's 136973 tokens."',
                "cline/cline#3120",
            ),
            _ex(
                "This model's maximum context\nlength is 4097 tokens. However, your...",
                "F0x1d/Sense#3",
            ),
        ),
    ),
    Rule(
        "context.input-length-exceeds",
        ErrorCode.CONTEXT_OVERFLOW,
        r"\binput length\b[^\n]{0,40}?\bexceeds (?:the )?(?:maximum|context length)\b|\bRan"
        r"ge of input length should be\b",
        "'Input length N exceeds the maximum (allowed input) length' (OpenRouter, Ark, SGLa"
        "ng) and DashScope's 'Range of input length should be [1, N]', even under a 500 (po"
        "licy additions 8 and 10).",
        (
            _ex(
                "Provider returned error: Input length 131393 exceeds the maximum allowed i"
                "nput length of 131040 tokens.",
                "earendil-works/pi:packages/ai/test/overflow.test.ts",
            ),
            _ex(
                "Input length 203743 exceeds the maximum length 202752",
                "langgenius/dify#32221",
            ),
            _ex(
                "[tongyi] Server Unavailable Error, Failed to invoke model qwen-max-0428, s"
                "tatus code: 500, message: <400> InternalError.Algo.InvalidParameter: Range"
                " of input length should be [1, 6000]",
                "langgenius/dify#7913",
            ),
        ),
    ),
    Rule(
        "context.local-server-window",
        ErrorCode.CONTEXT_OVERFLOW,
        r"\bexceeds? the available context size\b|\bexceed_context_size_error\b|\bcontext s"
        r"ize has been exceeded\b|\bcontext[_ ]window[_ ]exceed(?:s|ed)?\b|\bmodel_context_"
        r"window_exceeded\b|\btokens to keep from the initial prompt is greater than the co"
        r"ntext length\b|\bload the model with a larger context length\b",
        "llama.cpp, LM Studio and MiniMax wordings for a request above the loaded context w"
        "indow, whatever the status (policy addition 8).",
        (
            _ex(
                '{"error":{"code":500,"message":"Context size has been exceeded.","type":"s'
                'erver_error"}}',
                "ggml-org/llama.cpp#19774",
            ),
            _ex(
                "the request exceeds the available context size, try increasing it",
                "ggml-org/llama.cpp#17284",
            ),
            _ex(
                "invalid params, context window exceeds limit (2013)",
                "MiniMax-AI/MiniMax-M2#119",
            ),
        ),
    ),
    Rule(
        "context.prompt-token-cap",
        ErrorCode.CONTEXT_OVERFLOW,
        r"\bprompt[_ ]tokens?(?: count)?\b(?:(?!\b(?:per|rate|daily|monthly|quota)\b)[^\n])"
        r"{0,40}?\bexceeds?\b(?:(?!\b(?:per|rate|daily|monthly|quota)\b)[^\n]){0,20}?\b(?:t"
        r"he )?(?:limit|max(?:imum)?)\b|\bmodel_max_prompt_tokens_exceeded\b|\bhas exceeded"
        r" max_prompt_tokens\b|\bmust be less than max_seq_len\b|\bToo many input tokens\b|"
        r"\binput_too_large\b|\bexceed(?:s|ed)? (?:the )?model(?:'s)? token limit\b|\b(?:me"
        r"ssage|input|prompt|conversation) exceeds (?:the )?token limit\b|\btotal number of"
        r" tokens\b[^\n]{0,40}\bcannot exceed\b|\bToo many tokens in batch\b|\btoo many tok"
        r"ens: (?:total|size limit)\b",
        "Per-request prompt-token caps (Copilot, SiliconFlow, Bedrock, xAI, Kimi, Cohere, M"
        "istral embeddings): one request larger than the cap never passes (policy rule 3).",
        (
            _ex(
                "Error Failed to get response from the AI model; retried 5 times (total ret"
                "ry wait time: 5.849579995864053 seconds) (Request-ID F019:2195FF:2FEC7CB:3"
                "70DA9B:6985E7DE) Last error: CAPIError: 400 prompt token count of 184399 e"
                "xceeds the limit of 128000",
                "microsoft/vscode#293419",
            ),
            _ex(
                'openai adapter status=400 body={"code":20015,"message":"number of input to'
                'kens (204703) has exceeded max_prompt_tokens (202752) limit.","data":null}',
                "leookun/cursor-byok#129",
            ),
            _ex(
                "ValidationException: 400 Bad Request: Too many input tokens. Max input tok"
                "ens: 8192, request input token count: 9279 ",
                "pkdone/paul-genai-test-tools-ts:src/llm/providers/bedrock/bedrock-titan/be"
                "drock-titan.manifest.ts",
            ),
        ),
    ),
    Rule(
        "tgi.input-validation-tokens",
        ErrorCode.CONTEXT_OVERFLOW,
        r"\binputs\W{0,2} (?:tokens \+ \W?max_new_tokens\W? must be\b|must have less than "
        r"\d+ tokens\b)",
        "Hugging Face TGI/TEI 'Input validation error' for inputs above the window (a 422 w"
        "hose words are an overflow, policy rule 3).",
        (
            _ex(
                'Error: 422 "Input validation error: `inputs` tokens + `max_new_tokens` mus'
                't be <= 65537. Given: 79993 `inputs` tokens and 1024 `max_new_tokens`"',
                "bytedance/UI-TARS-desktop#626",
            ),
            _ex(
                "ValueError: Error raised by inference API: Input validation error: `inputs"
                "` must have less than 1024 tokens. Given: 1062",
                "alejandro-ao/ask-multiple-pdfs#34",
            ),
            _ex(
                "Input validation error: inputs must have less than 512 tokens",
                "opea-project/GenAIExamples#340",
            ),
        ),
    ),
    Rule(
        "context.body-size-cap",
        ErrorCode.CONTEXT_OVERFLOW,
        r"\bat 'body' failed to satisfy constraint\b[^\n]{0,40}\blength less than or equal "
        r"to\b|\bFailed to buffer the request body: length limit exceeded\b|\bString value "
        r"length \(\d+\) exceeds the maximum allowed\b|\bInvalid '[\w\[\].]{0,60}\.content'"
        r": string too long\b",
        "Byte-size caps on the request body (Bedrock InvokeModel body, axum/TGI, Jackson, O"
        "penAI message content): the request can never be accepted as sent (policy rule 3).",
        (
            _ex(
                "ValidationException: An error occurred (ValidationException) when calling "
                "the InvokeModel operation: 1 validation error detected: Value at 'body' fa"
                "iled to satisfy constraint: Member must have length less than or equal to "
                "25000000",
                "langchain-ai/langchain-aws#419",
            ),
            _ex(
                "Failed to buffer the request body: length limit exceeded",
                "huggingface/text-generation-inference#1802",
            ),
            _ex(
                "✕ [API Error: 400 String value length (20054016) exceeds the maximum allow"
                "ed (20000000, from `StreamReadConstraints.getMaxStringLength()`)]",
                "QwenLM/qwen-code#747",
            ),
        ),
    ),
    Rule(
        "context.client-notice",
        ErrorCode.CONTEXT_OVERFLOW,
        r"\b(?:too long|larger than) (?:for )?(?:this |the )?(?:model'?s? )?context window"
        r"\b|\bout of room in the (?:model'?s? )?context window\b|\bconversation (?:is )?to"
        r"o long\b|\bPlease reduce the length of the messages\b",
        "Agent and app notices that the conversation no longer fits the window (Codex, Aide"
        "r, Claude Code compaction) and OpenAI's overflow tail in a truncated body.",
        (
            _ex(
                "■ Codex ran out of room in the model's context window. Start a new thread "
                "or clear earlier history before retrying.",
                "openai/codex#36456",
            ),
            _ex(
                "The chat session is larger than the context window!",
                "Aider-AI/aider#645",
            ),
            _ex(
                "Error: Error during compaction: Error: Conversation too long. Press esc tw"
                "ice to go up a few messages and try again.",
                "anthropics/claude-code#18199",
            ),
        ),
    ),
    Rule(
        "vllm.negative-max-tokens",
        ErrorCode.CONTEXT_OVERFLOW,
        r"\bmax_tokens must be at least 1, got -\d",
        "vLLM derives max_tokens from the window left; a negative value means the prompt al"
        "ready fills the window (vllm#36789).",
        (
            _ex(
                "openai.BadRequestError: Error code: 400 - {'error': {'message': 'max_token"
                "s must be at least 1, got -7584. (parameter=max_tokens, value=-7584)', 'ty"
                "pe': 'BadRequestError', 'param': 'max_tokens', 'code': 400}}",
                "vllm-project/vllm#36789",
            ),
            _ex(
                "max_tokens must be at least 1, got -160",
                "vllm-project/vllm#5700",
            ),
        ),
    ),
    Rule(
        "model.retired",
        ErrorCode.INVALID_REQUEST,
        r"\bmodel\b[^\n]{0,80}?\b(?:has been|was) (?:decommissioned|deprecated|retired|disc"
        r"ontinued)\b|\bmodel\b[^\n]{0,80}?\bis (?:decommissioned|retired|no longer served)"
        r"\b|\bmodel_(?:decommissioned|deprecated|retired)\b",
        "A retired, decommissioned or deprecated model (Groq, OpenAI) is a request naming s"
        "omething no longer served (policy addition 11).",
        (
            _ex(
                "Error: The model `llama3-70b-8192` has been decommissioned and is no longe"
                "r supported. Please refer to https://console.groq.com/docs/deprecations fo"
                "r a recommendation on which model to use instead.",
                "bklieger-groq/stockbot-on-groq#59",
            ),
            _ex(
                "InvalidRequestError: The model `text-davinci-003` has been deprecated, lea"
                "rn more here: https://platform.openai.com/docs/deprecations",
                "Wytamma/write-the#24",
            ),
        ),
    ),
    Rule(
        "gemini.model-not-found-for-api-version",
        ErrorCode.INVALID_REQUEST,
        r"\bis\s+not\s+found\s+for\s+API\s+version\b|\bCall\s+ListModels\b",
        "Gemini's 404 for an unknown or retired model name ('Call ListModels'); the request"
        " names a model this API does not serve (policy addition 11).",
        (
            _ex(
                "404 models/gemini-pro is not found for API version v1beta, or is not suppo"
                "rted for generateContent. Call ListModels to see the list of available mod"
                "els and their supported methods.",
                "langgenius/dify-official-plugins#1456",
            ),
            _ex(
                "AI_APICallError: models/gemini-1.5-pro is not found for API version v1beta"
                ", or is not supported for generateContent. Call ListModels to see the list"
                " of available models and their supported methods.",
                "CopilotKit/CopilotKit#2827",
            ),
        ),
    ),
    Rule(
        "model.unknown-id",
        ErrorCode.INVALID_REQUEST,
        r"\bmodel\W{1,3}\S{1,100}? does not exist\b|\bmodel (?:name|id|identifier) is (?:in"
        r"valid|not valid)\b|\bis not a valid model(?: id| name)?\b|\bAPI deployment for (?"
        r":this|the) resource does not exist\b|\bDeploymentNotFound\b|\bNo endpoints found "
        r"(?:for|that support|matching)\b|(?-i:\bModel Not Exist\b)",
        "An unknown model id or Azure deployment (OpenAI, Bedrock, OpenRouter, Azure): fix "
        "the name; the model exists nowhere for this request.",
        (
            _ex(
                "The model `gpt-4-1106-preview` does not exist or you do not have access to"
                " it.  Learn more: https://help.openai.com/en/articles/7102672-how-can-i-ac"
                "cess-gpt-4.",
                "skorokithakis/sysaidmin#6",
            ),
            _ex(
                'BedrockException - {"message":"The provided model identifier is invalid."}',
                "MattJColes/lgtmaybe#70",
            ),
            _ex(
                '{ "error": { "message": "No endpoints found for deepseek/deepseek-chat-v3.'
                '1:free.", "code": 404 }, "user_id": "user_2pPjrQhn6IzsURGjjb61gZqeF8d" }',
                "chatboxai/chatbox#2743",
            ),
        ),
    ),
    Rule(
        "bedrock.on-demand-unsupported",
        ErrorCode.INVALID_REQUEST,
        r"\bwith on-demand throughput isn(?:'|’)?t supported\b",
        "Bedrock's refusal of a model id that needs an inference profile: the fix is "
        "another model id (docs/errors.md, policy 19).",
        (
            _ex(
                "There was an error processing your request: Custom error: Invocation of "
                "model ID anthropic.claude-3-5-sonnet-20240620-v1:0 with on-demand "
                "throughput isn’t supported. Retry your request with the ID or ARN of an "
                "inference profile that contains this model.",
                "stackblitz-labs/bolt.diy#1102",
            ),
        ),
    ),
    Rule(
        "schema.tool-schema-rejected",
        ErrorCode.INVALID_REQUEST,
        r"\bInvalid schema for (?:function|tool|response_format)\b|\bInvalid JSON payload r"
        r"eceived\b",
        "A tool or response schema the provider rejects (OpenAI strict schemas, Gemini unkn"
        "own JSON Schema keywords): a malformed request.",
        (
            _ex(
                "Invalid schema for function 'ai-sfn': None is not of type 'array'.",
                "yomorun/yomo#860",
            ),
            _ex(
                'Invalid JSON payload received. Unknown name "additionalProperties" at \'to'
                "ols[0].function_declarations[8].parameters.properties[1].value.items': Can"
                "not find field.",
                "nanbingxyz/5ire#42",
            ),
        ),
    ),
    Rule(
        "google.unknown-field",
        ErrorCode.INVALID_REQUEST,
        r"\bInvalid JSON payload recieved\b|\bUnknown name \W{1,4}[\w.$]{1,100}\W{1,4}"
        r"(?:at '[^'\n]{0,200}'\W{0,2})?Cannot find field\b",
        "Google's protobuf-JSON rejection of an unknown field (also with the API's own "
        "spelling 'recieved'): a malformed request.",
        (
            _ex(
                'Invalid JSON payload recieved. Unknown name "thought" at '
                "'contents[0].parts[0]': Cannot find field.",
                "flyun/chatAir#108",
            ),
        ),
    ),
    Rule(
        "openai.unsupported-parameter",
        ErrorCode.INVALID_REQUEST,
        r"\bUnsupported (?:parameter|value): '|\bis not supported with this model\b",
        "OpenAI's 'Unsupported parameter/value' for a field this model does not take (max_t"
        "okens on reasoning models); a parameter bug, not an overflow.",
        (
            _ex(
                "Error: Unsupported parameter: 'max_tokens' is not supported with this mode"
                "l. Use 'max_completion_tokens' instead.",
                "koosoli/ESPHomeDesigner#379",
            ),
        ),
    ),
    Rule(
        "request.conflicting-parameters",
        ErrorCode.INVALID_REQUEST,
        r"\bcannot both be specified\b",
        "Two request parameters the model does not accept together ('`temperature` and "
        "`top_p` cannot both be specified'): a malformed request.",
        (
            _ex(
                "message: 'The model returned the following errors: `temperature` and "
                "`top_p` cannot both be specified for this model. Please use only one.',",
                "aws-samples/sample-connector-for-bedrock#87",
            ),
        ),
    ),
    Rule(
        "tools.call-sequence",
        ErrorCode.INVALID_REQUEST,
        r"\bmust be followed by tool messages\b|\bids were found without `?tool_result`? bl"
        r"ocks\b|\bunexpected `?tool_use_id`? found in `?tool_result\b",
        "Tool-call turns out of order (OpenAI tool_calls without tool messages, Anthropic t"
        "ool_use without tool_result): the message list is malformed.",
        (
            _ex(
                "Error: litellm.BadRequestError: OpenAIException - An assistant message wit"
                "h 'tool_calls' must be followed by tool messages responding to each 'tool_"
                "call_id'. The following tool_call_ids did not have response messages: call"
                "_jJATmoUduQWxi4tRwcQjsodM",
                "aliasrobotics/cai#111",
            ),
            _ex(
                'API Error: 400 \n    {"type":"error","error":{"type":"invalid_request_erro'
                'r","message":"messages.48: \n    `tool_use` ids were found without `tool_r'
                "esult` blocks immediately after: \n    toolu_01NNk3AXm4JJF9nsv9aSX5kL. Eac"
                "h `tool_use` block must have a corresponding…",
                "anthropics/claude-code#5374",
            ),
        ),
    ),
    Rule(
        "request.roles-alternate",
        ErrorCode.INVALID_REQUEST,
        r"\broles must alternate\b|\berror_code\W{1,4}(?-i:BAD_REQUEST)\b",
        "Chat roles out of order ('roles must alternate') and Databricks' error_code "
        "BAD_REQUEST: a malformed request.",
        (
            _ex(
                '{"error_code":"BAD_REQUEST","message":"Bad request: Chat message '
                "input roles must alternate (user -> assistant -> u -> a -> ...) with an "
                "optional system at the start. Tool messages are optional and must follow "
                'a preceding assistant message containing tool calls.\\\\n"}',
                "Aider-AI/aider#1920",
            ),
            _ex(
                "⚠️ Error: There was a problem performing text-generation via the "
                "NAME_OF_THE_AGENT agent:\n\n> API error: Error response: error Api error: "
                'invalid_request_error messages: roles must alternate between "user" and '
                '"assistant", but found multiple "user" roles in a row',
                "etkecc/baibot#13",
            ),
        ),
    ),
    # ------------------------------------------------------------------ band 1: quota
    Rule(
        "quota.insufficient-quota",
        ErrorCode.QUOTA_EXCEEDED,
        r"\binsufficient[_ ]quota\b",
        "OpenAI's insufficient_quota is billing exhaustion dressed as a 429; retrying cannot pass.",
        (
            _ex(
                "Error: insufficient_quota: You exceeded your current quota, please check your "
                "plan and billing details.",
                "zurawiki/gptcommit#84",
            ),
            _ex(
                '{"error": {"message": "You exceeded your current quota, please check your plan '
                'and billing details.", "type": "insufficient_quota", "param": null, '
                '"code": "insufficient_quota"}}',
                "ChatGPTNextWeb/NextChat#3123",
            ),
        ),
    ),
    Rule(
        "quota.token-quota",
        ErrorCode.QUOTA_EXCEEDED,
        r"\bexceeded your current token quota\b|\bcheck your account balance\b",
        "Moonshot's spent token quota ('You exceeded your current token quota … Please "
        "check your account balance'): credit exhausted (docs/errors.md, policy 2).",
        (
            _ex(
                "[ERROR] You exceeded your current token quota for Moonshot. Please check "
                "your account balance at:",
                "pypi-data/pypi-mirror-374:packages/janito/janito-3.6.1-py3-none-any.whl/janito/llm/auth_utils.py",
            ),
        ),
    ),
    Rule(
        "quota.credits",
        ErrorCode.QUOTA_EXCEEDED,
        r"\bcredit balance is too low\b|\binsufficient[_ ](?:credits?|balance|funds)\b"
        r"|\brequires more credits\b|\bout of credits\b",
        "An empty prepaid balance (Anthropic, OpenRouter, DeepSeek) needs a top-up, not a retry.",
        (
            _ex(
                'Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":'
                '"Your credit balance is too low to access the Anthropic API. Please go to Plans '
                '& Billing to upgrade or purchase credits."}}',
                "anthropics/claude-code#4684",
            ),
            _ex(
                "Error: This request requires more credits, or fewer max_tokens. You requested up "
                "to 16384 tokens, but can only afford 3919. To increase, visit "
                "https://openrouter.ai/settings/credits and upgrade to a paid account",
                "Taewan-P/gpt_mobile#284",
            ),
            _ex("402 Insufficient Balance", "continuedev/continue#9942 (DeepSeek)"),
        ),
    ),
    Rule(
        "quota.limit-zero",
        ErrorCode.QUOTA_EXCEEDED,
        r"\blimit:\s*0(?![\d.])",
        "Gemini reports 'limit: 0' when the project has no quota for the model at all.",
        (
            _ex(
                "* Quota exceeded for metric: generativelanguage.googleapis.com/"
                "generate_content_free_tier_requests, limit: 0, model: gemini-2.0-flash\n"
                "Please retry in 7.967587226s.",
                "continuedev/continue#10066",
            ),
        ),
    ),
    Rule(
        "zh.rate-limit",
        ErrorCode.RATE_LIMIT,
        r"(?:请求|访问|调用)(?:过于|太|过)频繁|负载已饱和|并发数?(?:过高|超限|超过限制)|频率过高"
        r"|已达到速率限制|速率超过限制|超过速率限制|触发了?限流|访问量过大"
        r"|请\s{0,2}\d{1,4}\s{0,2}(?:秒|s|分钟)\s{0,2}后(?:再试|重试)",
        "Chinese throttle wordings of relays and providers: requests too frequent, one-api/"
        "new-api 'upstream load saturated, try later' (even under its billing_not_active type, "
        "hence above quota.billing), Zhipu 1302/1305 (concurrency or rate too high), 'retry "
        "in N seconds'.",
        (
            _ex("请求过于频繁，请5s后再试。", "GaiZhenbiao/ChuanhuChatGPT#555"),
            _ex(
                "429 当前分组上游负载已饱和，请稍后再试 "
                "(request id: 20250423020142736330894dLoIRrS6)",
                "QuantumNous/new-api#991",
            ),
            _ex(
                '{\n  "error": {\n    "message": '
                '"当前分组负载已饱和，请稍后再试，或升级账户以提升服务质量。",\n'
                '    "type": "billing_not_active",\n    "param": "",\n'
                '    "code": "billing_not_active"\n  }\n}',
                "songquanpeng/one-api#330",
            ),
            _ex(
                "您当前使用该API的并发数过高，请降低并发，或联系客服增加限额。",
                "anomalyco/opencode#9789",
            ),
            _ex(
                "Stream error after retries: kimi-k2.5 账号队列超时: "
                "所有可用账号暂时不可用，请 78 秒后重试",
                "dwgx/WindsurfAPI#160",
            ),
        ),
    ),
    Rule(
        "quota.billing",
        ErrorCode.QUOTA_EXCEEDED,
        r"\bbilling[_ ]hard[_ ]limit(?:[_ ]reached)?\b|\bbilling[_ ]not[_ ]active\b"
        r"|\baccount is not active\b[^\n]{0,40}\bbilling\b",
        "A hard billing limit or an inactive billing account blocks every request until fixed.",
        (
            _ex(
                '{   "error": {     "code": "billing_hard_limit_reached",     "message": "Billing '
                'hard limit has been reached",     "param": null,     "type": '
                '"invalid_request_error"   } }',
                "dfinke/PowerShellAI#127",
            ),
            _ex(
                "Error in createDallEImage: BadRequestError: 400 Billing hard limit has been "
                "reached",
                "Decryptu/DecryptGPT#1",
            ),
        ),
    ),
    Rule(
        "quota.service-quota",
        ErrorCode.QUOTA_EXCEEDED,
        r"\bServiceQuotaExceededException\b",
        "Bedrock's ServiceQuotaExceededException means the account quota, not a burst, is used up.",
        (
            _ex(
                "ServiceQuotaExceededException: Your request exceeds the service quota for your "
                "account. You can view your quotas at Viewing service quotas.",
                "AWS Bedrock API reference, InvokeModel errors: https://docs.aws.amazon.com/"
                "bedrock/latest/APIReference/API_runtime_InvokeModel.html",
            ),
        ),
    ),
    # ------------------------------------------------- band 1: a request that never fits
    Rule(
        "limits.max-output-tokens",
        ErrorCode.INVALID_REQUEST,
        r"\bmax_(?:completion_)?tokens is too large\b"
        r"|\bmaximum allowed number of output tokens\b"
        r"|\bsupports at most \d+ completion tokens\b"
        r"|\bmaximum tokens you requested exceeds the model limit\b",
        "An output-only max_tokens above the model's limit is a bad parameter, not an overflow.",
        (
            _ex(
                "Error code: 400 - {'error': {'message': 'max_tokens is too large: 5500. This "
                "model supports at most 4096 completion tokens, whereas you provided 5500.', "
                "'type': 'invalid_request_error', 'param': 'max_tokens', 'code': None}}",
                "openai/openai-python#687",
            ),
            _ex(
                '{"type": "error", "error": {"type": "invalid_request_error", "message": '
                '"max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens '
                'for claude-3-5-sonnet-20240620"}}',
                "ChatGPTNextWeb/NextChat#4964",
            ),
            _ex(
                'POST "https://bedrock-runtime.us-west-2.amazonaws.com/v1/messages": 400 Bad '
                'Request {"message":"The maximum tokens you requested exceeds the model limit of '
                '32768"}',
                "charmbracelet/crush#946",
            ),
        ),
    ),
    Rule(
        "limits.output-tokens-range",
        ErrorCode.INVALID_REQUEST,
        r"(?<!\+\s{0,2}\W?)\bmax_(?:output_|new_|completion_)?tokens\W{0,3} (?:range is|mus"
        r"t be less than or equal to|must be <=)|\bInvalid max_(?:completion_)?tokens value"
        r"\b|\bvalid range\s+of\s+max_(?:completion_)?tokens\b|\bmaxOutputTokens value of "
        r"\d+ but the supported range\b",
        "An output max_tokens outside the allowed range (Groq, ERNIE): a bad parameter, not"
        " an overflow (policy rule 3).",
        (
            _ex(
                "AI_APICallError: `max_tokens` must be less than or equal to `16384`",
                "anomalyco/opencode#1000",
            ),
            _ex(
                '{\n    "message": "parameter check failed, max_output_tokens range is [2, '
                '2048]",\n    "success": false,\n    "time": 0.249\n}',
                "songquanpeng/one-api#1154",
            ),
            _ex(
                'API Error: OpenAI compatible request failed with status 400: {"error":{"me'
                'ssage":"Invalid max_tokens value, the valid range  \n     of max_tokens is'
                ' [1, 8192]","type":"invalid_request_error","param":null,"code":"invalid_re'
                'quest_error"}}',
                "HELPMEEADICE/doge-code#5",
            ),
        ),
    ),
    Rule(
        "ollama.insufficient-memory",
        ErrorCode.INVALID_REQUEST,
        r"\bmodel requires more system memory\b",
        "Ollama cannot load this model on this machine: retrying (even on a 500) will not help.",
        (
            _ex(
                '"model requires more system memory (2.7 GiB) than is available (2.3 GiB)"',
                "continuedev/continue#11478",
            ),
        ),
    ),
    Rule(
        "context.length-exceeded",
        ErrorCode.CONTEXT_OVERFLOW,
        r"\bcontext[_ ]length[_ ]exceeded\b|\bmaximum context length\b"
        r"|\bexceeds? (?:the )?(?:model'?s? )?(?:maximum )?context (?:window|length|limit)\b"
        r"|\bContextWindowExceededError\b",
        "The prompt is longer than the model's context window; the same request never fits.",
        (
            _ex(
                "openai.BadRequestError: Error code: 400 - {'error': {'message': \"This model's "
                "maximum context length is 8192 tokens. However, your messages resulted in 8227 "
                "tokens. Please reduce the length of the messages.\", 'type': "
                "'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}",
                "crewAIInc/crewAI-examples#121",
            ),
            _ex(
                "InvalidRequestError: This model's maximum context length is 4097 tokens. "
                "However, you requested 4128 tokens (2128 in the messages, 2000 in the "
                "completion). Please reduce the length of the messages or completion.",
                "XpressAI/xai-gpt-agent-toolkit#4",
            ),
            _ex(
                '{"object":"error","message":"Prompt contains 40960 tokens, too large for model '
                'with 32768 maximum context length","type":"invalid_request_error","param":null,'
                '"code":null}',
                "Mistral wire notes (docs/wire.md §9, context length)",
            ),
        ),
    ),
    Rule(
        "context.prompt-too-long",
        ErrorCode.CONTEXT_OVERFLOW,
        r"\bprompt is too long\b|\binput is too long\b"
        r"|\binput token count\b[^\n]{0,40}\bexceeds the maximum number of tokens\b"
        r"|\bPrompt tokens limit exceeded\b(?![^\n]*\bmonthly limit\b)",
        "Anthropic, Bedrock and Gemini wordings for a prompt above the model's input limit.",
        (
            _ex(
                'Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":'
                '"prompt is too long: 208310 tokens > 200000 maximum"},"request_id":'
                '"req_011CVQe1dLrGNMJyE1ghG1av"}',
                "anthropics/claude-code#12186",
            ),
            _ex(
                "[ERROR] EventStreamError: An error occurred (validationException) when calling "
                "the InvokeModelWithResponseStream operation: Input is too long for requested "
                "model.",
                "aws-samples/bedrock-chat#95",
            ),
            _ex(
                '"message": "The input token count (2845475) exceeds the maximum number of tokens '
                'allowed (1048576).",',
                "google-gemini/gemini-cli#4692",
            ),
        ),
    ),
    Rule(
        "request.malformed-body",
        ErrorCode.INVALID_REQUEST,
        r"(?<!\w)'(?:messages|model|prompt|input|contents)' (?:field )?is required\b|\bleng"
        r"th of messages must be an odd number\b|\bInvalid '[\w\[\].]{0,60}[._]id': string "
        r"too long\b|\bMinimum allowed deadline is\b|\bInvalid (?:type|value) for '",
        "Malformed request bodies: a required field missing, ERNIE's odd-message rule, an o"
        "ver-long tool-call id (not the prompt), a request deadline below the minimum.",
        (
            _ex(
                "2025-09-07 10:21:03 [ERROR]\n 'messages' field is required",
                "fishjar/kiss-translator#310",
            ),
            _ex(
                "Invalid 'messages[10].tool_calls[0].id': string too long.",
                "langmanus/langmanus#119",
            ),
            _ex(
                "Manually set deadline 5s is too short. Minimum allowed deadline is 10s.",
                "livekit/agents#3723",
            ),
        ),
    ),
    Rule(
        "context.size-cap-notice",
        ErrorCode.CONTEXT_OVERFLOW,
        r"\bRequest too large \(max \d+(?:\.\d+)?\s?(?:KB|MB|GB|KiB|MiB|GiB)\)",
        "Claude Code's notice for a request over the API's size cap ('Request too large "
        "(max 20MB)'): one request that can never fit (docs/errors.md, policy 3).",
        (
            _ex(
                "Request too large (max 20MB). Double press esc to go back and try with a "
                "smaller file.",
                "anthropics/claude-code#50327",
            ),
        ),
    ),
    Rule(
        "context.request-too-large",
        ErrorCode.CONTEXT_OVERFLOW,
        r"\bRequest too large for\b[^\n]{0,300}?\bRequested\s+\d+"
        r"|\brequest_too_large\b|\bRequest Entity Too Large\b|\bPayload Too Large\b"
        r"|\brequest payload size exceeds\b|\bstring_above_max_length\b",
        "One request bigger than the per-request token or byte cap can never pass, even on 429.",
        (
            _ex(
                "429 Request too large for gpt-4o in organization org-vyUrKHsIdLcZGKR3zqCqllrS on "
                "tokens per min (TPM): Limit 30000, Requested 61337. The input or output tokens "
                "must be reduced in order to run successfully. Visit "
                "https://platform.openai.com/account/rate-limits to learn more.",
                "continuedev/continue#10602",
            ),
            _ex(
                "litellm.RateLimitError: RateLimitError: OpenAIException - Error code: 429 - "
                "{'error': {'message': 'Request too large for gpt-4o in organization "
                "org-2itOgSdqw0DhUYp0QyLhttLL on tokens per min (TPM): Limit 30000, Requested "
                "36278. The input or output tokens must be reduced in order to run successfully.', "
                "'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}",
                "Aider-AI/aider#1880",
            ),
            _ex(
                "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n"
                "<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx"
                "</center>\r\n</body>\r\n</html>",
                "nginx default error page (ngx_http_special_response.c)",
            ),
        ),
    ),
    Rule(
        "openai.request-too-large-wrapped",
        ErrorCode.CONTEXT_OVERFLOW,
        r"\bRequest too large for\b[^\n]{0,300}\n[\s\S]{0,300}?\bRequested\s+\d+",
        "OpenAI's one-request-over-TPM 429 cut across lines by a terminal; the built-in onl"
        "y reads one line (policy rule 3 and addition 6).",
        (
            _ex(
                "RateLimitError: Error code: 429 - \n{'error': \n{'message': 'Request too l"
                "arge for gpt-4o in organization org-78asdf87asdf9aaa8976 on tokens per min"
                " (TPM): \nLimit 30000, Requested 31538. \nThe input or output tokens must "
                "be reduced in order to run successfully. \nVisit https://platform.openai.c"
                "om/account/rate-limits to learn more.', 'type': 'tokens', 'param': None, '"
                "code': 'rate_limit_exceeded'}}",
                "TheR1D/shell_gpt#653",
            ),
        ),
    ),
    Rule(
        "groq.request-over-tpm",
        ErrorCode.CONTEXT_OVERFLOW,
        r"\bLimit \d+, Used 0, Requested ~?\d+",
        "Groq's per-minute token refusal with nothing used yet ('Limit 7000, Used 0, "
        "Requested ~12903'): the one request is larger than the whole budget, so no wait "
        "lets it pass (docs/errors.md, policy 14).",
        (
            _ex(
                "Error: Error code: 429 - {'error': {'message': 'Rate limit reached for "
                "model `llama3-70b-8192` in organization `org_01hrsvc1b8ey0anvbgha0xckf2` "
                "on tokens per minute (TPM): Limit 7000, Used 0, Requested ~12903. Please "
                "try again in 50.597142857s. Visit https://console.groq.com/docs/rate-limit"
                "s for more information.', 'type': 'tokens', 'code': "
                "'rate_limit_exceeded'}}",
                "danielmiessler/Fabric#364",
            ),
        ),
    ),
    # --------------------------------------------------------- band 1: content filters
    Rule(
        "filter.content-policy",
        ErrorCode.CONTENT_FILTER,
        r"\bcontent[_ ]filter(?:ed|ing)?\b|\bcontent[_ ]policy[_ ]violation\b"
        r"|\bcontent management policy\b|\bResponsibleAIPolicyViolation\b"
        r"|\bContentPolicyViolationError\b|\bflagged as potentially violating\b"
        r"|\brejected as a result of our safety system\b",
        "A moderation or safety system refused the prompt or the output; retrying repeats it.",
        (
            _ex(
                "OpenAI error: Error code: 400 - {'error': {'message': \"The response was filtered "
                "due to the prompt triggering Azure OpenAI's content management policy. Please "
                "modify your prompt and retry. To learn more about our content filtering policies "
                'please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766", '
                "'type': None, 'param': 'prompt', 'code': 'content_filter', 'status': 400}}",
                "stanford-crfm/helm#3327",
            ),
            _ex(
                '{"error":{"message":"The response was filtered due to the prompt triggering '
                "Azure OpenAI\u2019s content management policy. Please modify your prompt and "
                "retry. To learn more about our content filtering policies please read our "
                'documentation: https://go.microsoft.com/fwlink/?linkid=2198766","type":null,'
                '"param":"prompt","code":"content_filter","status":400}}',
                "openai/openai-python#331",
            ),
        ),
    ),
    Rule(
        "filter.safety-block",
        ErrorCode.CONTENT_FILTER,
        r"\bblocked (?:due to|for reason:?) (?-i:SAFETY|PROHIBITED_CONTENT|BLOCKLIST|SPII"
        r"|RECITATION)\b"
        r"|\b(?:finish|block)_?reason\W{1,4}(?-i:SAFETY|PROHIBITED_CONTENT|BLOCKLIST|SPII"
        r"|IMAGE_SAFETY)\b",
        "Gemini blocks a prompt or candidate with reason SAFETY when its filter fires.",
        (
            _ex(
                "[GoogleGenerativeAI Error]: Candidate was blocked due to SAFETY",
                "google/generative-ai-docs#212",
            ),
            _ex(
                "Error: [GoogleGenerativeAI Error]: Text not available. Response was blocked due "
                "to SAFETY",
                "babaohuang/GeminiProChat#70",
            ),
            _ex(
                '{\n  "error": true,\n  "message": "Message is being blocked for reason: '
                'SAFETY"\n}',
                "ChatGPTNextWeb/NextChat#3714",
            ),
            _ex("block_reason: SAFETY", "google-gemini/deprecated-generative-ai-python#126"),
        ),
    ),
    # ----------------------------------------------------- band 1: specific auth failures
    Rule(
        "auth.invalid-key",
        ErrorCode.AUTH,
        r"\binvalid[_ ](?:api[_ ]key|x-api-key)\b|\bIncorrect API key provided\b"
        r"|\bAPI key not valid\b|\bAPI_KEY_INVALID\b|\bNo auth credentials found\b"
        r"|\bauthentication_error\b|\bpermission_error\b",
        "The key is wrong, revoked or lacks permission (even when a gateway answers 400).",
        (
            _ex(
                "openai.AuthenticationError: Error code: 401 - {'error': {'message': 'Incorrect "
                "API key provided: CHANGE_ME. You can find your API key at "
                "https://platform.openai.com/account/api-keys.', 'type': 'invalid_request_error', "
                "'param': None, 'code': 'invalid_api_key'}}",
                "Upsonic/Upsonic#92",
            ),
            _ex(
                '{"type":"error","error":{"type":"authentication_error","message":"invalid '
                'x-api-key"}}',
                "Anthropic API docs, errors: https://docs.anthropic.com/en/api/errors",
            ),
            _ex(
                "[GoogleGenerativeAI Error]: Error fetching from https://generativelanguage."
                "googleapis.com/v1/models/gemini-pro:streamGenerateContent?alt=sse: [400 Bad "
                "Request] API key not valid. Please pass a valid API key. "
                '[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]',
                "Jazee6/cloudflare-ai-web#13",
            ),
            _ex(
                "\u2715 [API Error: API key not valid. Please pass a valid API key. (Status: "
                "INVALID_ARGUMENT)]",
                "google-gemini/gemini-cli#4690",
            ),
        ),
    ),
    Rule(
        "aws.auth",
        ErrorCode.AUTH,
        r"\b(?:UnrecognizedClientException|AccessDeniedException|ExpiredTokenException"
        r"|InvalidSignatureException|NoCredentialsError)\b"
        r"|\bsecurity token included in the request is (?:invalid|expired)\b"
        r"|\bUnable to locate credentials\b",
        "AWS signs every Bedrock call; bad or missing credentials fail until they are fixed.",
        (
            _ex(
                "botocore.exceptions.ClientError: An error occurred (AccessDeniedException) when "
                "calling the InvokeModel operation: You don't have access to the model with the "
                "specified model ID.",
                "AWS Bedrock troubleshooting: https://docs.aws.amazon.com/bedrock/latest/"
                "userguide/troubleshooting-api-error-codes.html",
            ),
            _ex(
                "botocore.exceptions.NoCredentialsError: Unable to locate credentials",
                "botocore botocore/exceptions.py (NoCredentialsError)",
            ),
        ),
    ),
    # ------------------------------------------- band 1: provider throttling and overload
    Rule(
        "anthropic.overloaded-wrapped",
        ErrorCode.RATE_LIMIT,
        r"\bAnthropic(?:Exception|Error)\b[^\n]{0,12}\bOverloaded\b",
        "litellm maps Anthropic's in-stream overloaded_error (529) to InternalServerError; "
        "the overload decides, not the wrapper class (policy rule 4).",
        (
            _ex(
                "Unexpected error: litellm.InternalServerError: AnthropicException - Overlo"
                "aded. Handle with `litellm.InternalServerError`.",
                "Aider-AI/aider#957",
            ),
        ),
    ),
    Rule(
        "anthropic.overloaded",
        ErrorCode.RATE_LIMIT,
        r"\boverloaded_error\b",
        "Anthropic's 529 overloaded_error says 'try later', even in-band on a 200 stream.",
        (
            _ex(
                'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":'
                '"Overloaded"},"request_id":"req_011CZAau32QzxDkriovTaFCB"}',
                "anthropics/claude-code#35792",
            ),
            _ex(
                'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", '
                '"message": "Overloaded"}}',
                "Anthropic API docs, streaming errors: https://docs.anthropic.com/en/docs/"
                "build-with-claude/streaming#error-events",
            ),
        ),
    ),
    Rule(
        "bedrock.throttling",
        ErrorCode.RATE_LIMIT,
        r"\bThrottlingException\b|\bTooManyRequestsException\b"
        r"|\bToo many (?:requests|tokens), please wait before trying again\b",
        "Bedrock throttles with ThrottlingException, whatever status wraps it.",
        (
            _ex(
                "botocore.errorfactory.ThrottlingException: An error occurred "
                "(ThrottlingException) when calling the InvokeModel operation (reached max "
                "retries: 4): Too many requests, please wait before trying again. You have sent "
                "too many requests. Wait before trying again.",
                "i-dot-ai/caddy-chatbot#97",
            ),
            _ex(
                "<class 'botocore.exceptions.EventStreamError'>:An error occurred "
                "(throttlingException) when calling the InvokeModelWithResponseStream operation: "
                "Too many requests, please wait before trying again.",
                "aws-samples/aws-genai-llm-chatbot#220",
            ),
        ),
    ),
    Rule(
        "mistral.capacity",
        ErrorCode.RATE_LIMIT,
        r"\bservice[_ ]tier[_ ]capacity[_ ]exceeded\b|\bbackend_out_of_capacity\b"
        r"|\bNot enough capacity available\b",
        "Mistral's 'Service tier capacity exceeded' is temporary overload: wait and retry.",
        (
            _ex(
                '{"object":"error","message":"Service tier capacity exceeded for this model.",'
                '"type":"invalid_request_error","param":null,"code":null}',
                "continuedev/continue#6185 (via docs/wire.md §9)",
            ),
            _ex(
                'API error occurred: Status 429. Body: {"object":"error","message":"Service tier '
                'capacity exceeded for this model.","type":"service_tier_capacity_exceeded",'
                '"code":"3505","raw_status_code":429}',
                "docs/wire.md §9 (capacity, typed)",
            ),
        ),
    ),
    Rule(
        "dashscope.rate-increase",
        ErrorCode.RATE_LIMIT,
        r"\bRequest rate increased too quickly\b",
        "DashScope's burst throttle ('Request rate increased too quickly … scale requests "
        "more smoothly'), also through Qwen Code and relays: a rate limit.",
        (
            _ex(
                "Upstream error from Alibaba: Request rate increased too quickly. To "
                "ensure system stability, please adjust your client logic to scale "
                "requests more smoothly over time.",
                "paperclipai/paperclip#2885",
            ),
            _ex(
                "✕ [API Error: Request rate increased too quickly. To ensure system "
                "stability, please adjust your client logic to scale\n     requests more "
                "smoothly over time.]",
                "QwenLM/Qwen#2069",
            ),
        ),
    ),
    Rule(
        "baidu.request-limit",
        ErrorCode.RATE_LIMIT,
        r"(?-i:\bRequestLimitError\b)",
        "ERNIE Bot's SDK exception for a request or concurrency limit "
        "(erniebot.errors.RequestLimitError): a rate limit.",
        (
            _ex(
                "raise errors.RequestLimitError(emsg, ecode=ecode)\nerniebot.errors.Request"
                "LimitError: 并发超限",
                "PaddlePaddle/PaddleClas#3044",
            ),
        ),
    ),
    Rule(
        "zhipu.api-frequency",
        ErrorCode.RATE_LIMIT,
        r"\bAPI ?的(?:频率|并发数?)过高|\bAPI ?已触发流量限制",
        "Zhipu's throttles ('使用该 API 的频率过高': calls too frequent; '该 API "
        "已触发流量限制': the flow limit triggered): a rate limit; anchored on the ASCII "
        "'API' they carry.",
        (
            _ex(
                "您当前使用该 API 的频率过高,请降低频率,或联系客服增加限额",
                "https://docs.bigmodel.cn/cn/api/api-code",
            ),
            _ex(
                "该 API 已触发流量限制",
                "https://docs.bigmodel.cn/cn/api/api-code",
            ),
        ),
    ),
    Rule(
        "openai.rate-limit-code",
        ErrorCode.RATE_LIMIT,
        r"\brate_limit_exceeded\b|(?-i:\bRATE_LIMIT_EXCEEDED\b)",
        "OpenAI/Groq code rate_limit_exceeded and Google reason RATE_LIMIT_EXCEEDED: throttling.",
        (
            _ex(
                'RateLimitError: 429 {"error":{"message":"Rate limit reached for model '
                "`llama3-70b-8192` in organization `[nah]` on tokens per minute (TPM): Limit "
                "6000, Used 5914, Requested 1822. Please try again in 17.359s. Visit "
                'https://console.groq.com/docs/rate-limits for more information.","type":'
                '"tokens","code":"rate_limit_exceeded"}}',
                "mindcraft-bots/mindcraft#188",
            ),
        ),
    ),
    # ----------------------------------------- band 1: an explicit wait beats window words
    Rule(
        "google.error-page-5xx",
        ErrorCode.SERVER,
        r"\bserver encountered a temporary error and could not complete your request\b",
        "Google front-end 502/503 page: its 'Please try again in 30 seconds' is boilerplate"
        ", not a throttle, so it ranks just above ratelimit.retry-hint.",
        (
            _ex(
                "502. That’s an error.\n\nThe server encountered a temporary error and coul"
                "d not complete your request.\n\nPlease try again in 30 seconds. That’s all"
                " we know.",
                "kenvandine/gemini-desktop#11",
            ),
            _ex(
                "Error: Server Error\nThe server encountered a temporary error and could no"
                "t complete your request.\nPlease try again in 30 seconds.",
                "jsonsystems/public#69",
            ),
        ),
    ),
    Rule(
        "google.no-capacity-unavailable",
        ErrorCode.SERVER,
        r"\bNo capacity available for model\b[^\n]{0,160}?(?:\n[^\n]{0,40}?)?(?-i:UNAVAILABL"
        r"E)\b",
        "Cloud Code's 503 UNAVAILABLE 'No capacity available for model … on the server': "
        "the status makes capacity wording SERVER, over the retry delay it carries "
        "(docs/errors.md, policy 15).",
        (
            _ex(
                "[CloudCode] Stream error at https://daily-cloudcode-pa.googleapis.com: "
                '503 - {\n  "error": {\n    "code": 503,\n    "message": "No '
                'capacity available for model gemini-3-pro-high on the server",\n    '
                '"status": "UNAVAILABLE",\n    "details": [\n      {\n        '
                '"@type": "type.googleapis.com/google.rpc.ErrorInfo",\n        '
                '"reason": "MODEL_CAPACITY_EXHAUSTED",\n        "domain": '
                '"cloudcode-pa.googleapis.com",\n        "metadata": {\n          '
                '"model": "gemini-3-pro-high"\n        }\n      },\n      {\n        '
                '"@type": "type.googleapis.com/google.rpc.RetryInfo",\n        '
                '"retryDelay": "40s"\n      }\n    ]\n  }…',
                "badrisnarayanan/antigravity-claude-proxy#197",
            ),
        ),
    ),
    Rule(
        "ratelimit.retry-hint",
        ErrorCode.RATE_LIMIT,
        r"\b(?:try again|retry)\s+(?:in|after)\s+\d+(?:\.\d+)?\s*"
        r"(?:ms|s|sec(?:ond)?s?|m|mins?|minutes?|h|hrs?|hours?|d|days?)(?![a-z])"
        r"|\bretry_?delay\W{1,4}\d",
        "The provider says when it will pass; a wait over an hour is upgraded to QUOTA_EXCEEDED.",
        (
            _ex(
                "429 Rate limit reached for model `llama-3.3-70b-versatile` in organization "
                "`org_01kjh7p9n8f1qs6nz2bz77vy6b` service tier `on_demand` on tokens per day "
                "(TPD): Limit 100000, Used 97050, Requested 3619. Please try again in 9m38.016s. "
                "Need more tokens%3F Upgrade to Dev Tier today at "
                "https://console.groq.com/settings/billing",
                "continuedev/continue#10920",
            ),
            _ex(
                "Requests to the Creates a completion for the chat message Operation under Azure "
                "OpenAI API version 2023-03-15-preview have exceeded token rate limit of your "
                "current OpenAI S0 pricing tier. Please retry after 9 seconds. Please go here: "
                "https://aka.ms/oai/quotaincrease if you would like to further increase the "
                "default rate limit.",
                "microsoft/sample-app-aoai-chatGPT#406",
            ),
            _ex(
                "Error code: 429 - {'error': {'message': 'Rate limit reached for gpt-3.5-turbo in "
                "organization org-pR2Z3LP86Rl3jvVG0S9Kv3IT on requests per day (RPD): Limit "
                "10000, Used 10000, Requested 1. Please try again in 8.64s. Visit "
                "https://platform.openai.com/account/rate-limits to learn more.', 'type': "
                "'requests', 'param': None, 'code': 'rate_limit_exceeded'}}",
                "MSU-AI-Agents/fall-2025-course#76",
            ),
        ),
    ),
    Rule(
        "ratelimit.reached-wording",
        ErrorCode.RATE_LIMIT,
        r"\b(?:reached|hit|exhausted|trigger(?:ed)?)[ ]+(?:(?!daily\b|monthly\b|weekly\b|TP"
        r"D\b|RPD\b)[\w'\u2019-]+[ ]+){0,3}?rate[ -]?limits?\b(?![^\n]{0,80}\b(?:per[ -]day"
        r"|daily|weekly|monthly|TPD|RPD|today|tomorrow|for the day)\b)|\b(?:tokens|requests"
        r"|queries) per minute (?:limit )?(?:exceeded|reached)\b|\bwould exceed your (?:org"
        r"anization|account)(?:'|\u2019)?s rate limit\b|\b(?:API )?(?:calls|requests?) (?:a"
        r"re |is )?too frequent\b|\bexceeded your current requests list\b|\bHigh concurrenc"
        r"y usage of this API\b|\btoo[ _]many[ _]concurrent[ _]requests\b|\brejected due to"
        r" rate limiting\b|\blimited to [\d,]+ (?:API )?calls ?/ ?min(?:ute)?\b|\bconcurren"
        r"cy limit (?:exceeded|reached)\b|\bexceeded (?:the |your )?concurrency limit\b|\b("
        r"?-i:QPS|RPM|TPM|qps|rpm|tpm)\b[ \w]{0,20}?\blimit (?:reached|exceeded|hit)\b",
        "Throttle wordings the built-ins miss: 'reached/exhausted ... rate limit' (Windsurf"
        ", Copilot, Together, MiniMax), per-minute limits (Cerebras TPM, Anthropic ITPM: po"
        "licy addition 6), 'calls too frequent', DashScope's requests list, Zhipu 1302 conc"
        "urrency; a daily window named nearby is left to quota.window.",
        (
            _ex(
                "Sorry, you have exhausted this model's rate limit. Please wait a moment be"
                "fore trying again, or switch to a different model. Learn More",
                "microsoft/vscode-copilot-release#7132",
            ),
            _ex(
                '"Tokens per minute limit exceeded - too many tokens processed."',
                "continuedev/continue#9800",
            ),
            _ex(
                "1002, trigger rate limit, please contact the sales representative",
                "MiniMax-AI/MiniMax-01#45",
            ),
        ),
    ),
    Rule(
        "quota.window",
        ErrorCode.QUOTA_EXCEEDED,
        r"\b(?:daily|monthly|weekly)\s+(?:\w+\s+){0,2}(?:limit|quota|budget)\b"
        r"|\b(?:tokens|requests) per (?:day|month)\b|\b(?-i:TPD|RPD)\b(?<=\(\w{3})(?=\))"
        r"|\bper[- ](?:day|month) (?:limit|quota)\b|\bout of budget\b|\bBudgetExceededError\b",
        "A daily or monthly window (with no short reset stated) will not pass within a retry.",
        (
            _ex(
                "Anthropic: Number of request tokens has exceeded your daily rate limit",
                "nraiden/cofounder#40",
            ),
            _ex(
                "Prompt tokens limit exceeded: 230799 > 91442. To increase, visit "
                "https://openrouter.ai/settings/keys and create a key with a higher monthly limit",
                "anomalyco/opencode#12219",
            ),
        ),
    ),
    Rule(
        "ratelimit.per-minute-limit",
        ErrorCode.RATE_LIMIT,
        r"\bper[- ]minute (?:request|token|call)s? limit\b",
        "A per-minute request or token limit in words ('past the per minute request "
        "limit'): a rate limit (docs/errors.md, policy 14).",
        (
            _ex(
                "You are past the per minute request limit, please wait and try again later.",
                "https://www.developersdigest.tech/errors/api/cohere-api/429-too-many-requests",
            ),
        ),
    ),
    Rule(
        "gemini.per-minute-quota",
        ErrorCode.RATE_LIMIT,
        r"\bquota_?Id\W{1,6}[\w-]{0,60}PerMinute(?![\s\S]{0,1500}?(?:PerDay|PerMonth|limit:"
        r" ?0\b|quota_?limit_?value\W{1,6}0\b))(?<!(?:PerDay|PerMonth|limit: ?0\b|quota_?li"
        r"mit_?value\W{1,6}0\b)[\s\S]{0,3000})",
        "Gemini's 'You exceeded your current quota' whose QuotaFailure names only per-minut"
        "e quota ids is a throttle (policy addition 6); a per-day id or a zero limit in the"
        " same body keeps it QUOTA_EXCEEDED (policy rule 2).",
        (
            _ex(
                "Attempt 4 failed with status 429. Retrying with backoff... \nApiError: \n"
                '\n{\n  "error": {\n    "code": 429,\n    "message": "You exceeded your cur'
                "rent quota, please check your plan and billing details. For more informati"
                "on on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limi"
                'ts.",\n    "status": "RESOURCE_EXHAUSTED",\n    "details": [\n      {\n   '
                '     "@type": "type.googleapis.com/google.rpc.QuotaFailure",\n        "vio'
                'lations": [\n          {\n            "quotaMetric": "generativelanguage.g'
                'oogleapis.com/generate_content_free_tier_input_token_count",\n            '
                '"quotaId": "GenerateContentInputTokensPerModelPerMinute-FreeTier",\n…',
                "google-gemini/gemini-cli-action#36",
            ),
        ),
    ),
    Rule(
        "quota.current-quota",
        ErrorCode.QUOTA_EXCEEDED,
        r"\bexceeded your current quota\b|\bcheck your plan and billing details\b",
        "'You exceeded your current quota ... billing details' without a short reset is billing.",
        (
            _ex(
                "429 You exceeded your current quota, please check your plan and billing details. "
                "For more information on this error, read the docs: "
                "https://platform.openai.com/docs/guides/error-codes/api-errors.",
                "HeyPuter/puter#1977",
            ),
        ),
    ),
    # ---------------------------------------------- band 2: gateways and exception names
    Rule(
        "local.runner-crashed",
        ErrorCode.SERVER,
        r"\bllama[ -](?:runner|server) (?:process )?(?:has )?(?:terminated|no longer runnin"
        r"g)\b|\bmodel runner has unexpectedly stopped\b|\bThe model has crashed\b|\b(?:Asy"
        r"ncEngineDeadError|MQEngineDeadError|EngineDeadError)\b|\bBackground loop has erro"
        r"red already\b|\bEngineCore encountered (?:an issue|a fatal error)\b|\bEngine core"
        r" proc \S{1,40} died unexpectedly\b|\bengine dead\)(?<=\(engine dead\))|\b(?:Sched"
        r"uler|TokenizerManager|DetokenizerManager) hit an exception\b|\bRequest failed dur"
        r"ing generation\b|\btext_generation_(?:client|router\w{0,20})\b[^\n]{0,100}\bServe"
        r"r error\b|\btext_generation_launcher\b[^\n]{0,40}\bencountered an error\b",
        "A local model server's runner, engine or scheduler crashed (Ollama, LM Studio, vLL"
        "M, SGLang, TGI): a server-side failure even when the client saw an EOF or 'transpo"
        "rt error' from it (policy rule 8).",
        (
            _ex(
                'msg="llama runner terminated" error="exit status 2"',
                "ollama/ollama#9330",
            ),
            _ex(
                "Error: The model has crashed without additional information. (Exit code: null)",
                "lmstudio-ai/lmstudio-bug-tracker#2255",
            ),
            _ex(
                "(APIServer pid=1) ERROR 05-12 01:48:42 [api_router.py:72] vllm.v1.engine.e"
                "xceptions.EngineDeadError: EngineCore encountered an issue. See stack trac"
                "e (above) for the root cause.",
                "vllm-project/vllm#42362",
            ),
        ),
    ),
    Rule(
        "local.runtime-down",
        ErrorCode.SERVER,
        r"\bpost predict\b[^\n]{0,300}?:\s?EOF\b|\bllm server not responding\b|\bModel is un"
        r"loaded\b|\bError loading model\.\s{0,4}\(Exit code:",
        "A local server reporting that its inference runtime is down: Ollama's call to its "
        "runner ending in EOF or 'llm server not responding', LM Studio's model unloaded "
        "or its load crashing with an exit code; a server crash (docs/errors.md, policy 8).",
        (
            _ex(
                'Error: POST predict: Post "http://127.0.0.1:35943/completion": EOF',
                "ollama/ollama#10953",
            ),
            _ex(
                'ERROR msg="waiting for server to become available" status="llm server '
                'not responding"',
                "ollama/ollama#9287",
            ),
            _ex(
                "[2026-02-07 20:15:37.495] [error] [LMSInternal][LMSAuthenticator][Client=L"
                "M Studio][Endpoint=countTokens] Error in RPC handler: Error: Model is "
                "unloaded.",
                "lmstudio-ai/lmstudio-bug-tracker#1492",
            ),
            _ex(
                "Error loading model.\n\n(Exit code: 18446744072635812000). Unknown error. "
                "Try a different model and/or config.",
                "lmstudio-ai/lmstudio-bug-tracker#1170",
            ),
        ),
    ),
    Rule(
        "gateway.envoy-reset",
        ErrorCode.SERVER,
        r"\bupstream connect error or disconnect/reset before headers\b"
        r"|\bno healthy upstream\b",
        "Envoy/Istio report that *their upstream* failed: a server-side failure, not our socket.",
        (
            _ex(
                "upstream connect error or disconnect/reset before headers. reset reason: "
                "connection termination",
                "envoyproxy/envoy#9747",
            ),
            _ex(
                "upstream connect error or disconnect/reset before headers. reset reason: remote "
                "connection failure, transport failure reason: delayed connect error: Connection "
                "refused",
                "vllm-project/aibrix#1449",
            ),
        ),
    ),
    Rule(
        "gateway.envoy-timeout",
        ErrorCode.TIMEOUT,
        r"\bupstream request timeout\b",
        "Envoy's 504 body: the upstream did not answer within the route timeout.",
        (
            _ex(
                "upstream request timeout",
                "Envoy docs, router filter timeouts (x-envoy-upstream-rq-timeout-ms): "
                "https://www.envoyproxy.io/docs/envoy/latest/configuration/http/http_filters/"
                "router_filter",
            ),
        ),
    ),
    Rule(
        "gateway.cloudflare",
        ErrorCode.SERVER,
        r"\berror code:?\s*52[0-7]\b"
        r"|\b(?:520|521|522|523|524|525|526|527): (?:Web server is (?:returning an unknown error"
        r"|down)|Connection timed out|Origin is unreachable|A timeout occurred"
        r"|SSL handshake failed|Invalid SSL certificate)\b",
        "Cloudflare 52x pages mean the origin behind Cloudflare failed: SERVER, per our policy.",
        (
            _ex(
                "error code: 524",
                "Cloudflare docs, 5xx errors: https://developers.cloudflare.com/support/"
                "troubleshooting/http-status-codes/cloudflare-5xx-errors/",
            ),
            _ex(
                "<title>api.example.com | 522: Connection timed out</title>",
                "Cloudflare docs, error 522: https://developers.cloudflare.com/support/"
                "troubleshooting/http-status-codes/cloudflare-5xx-errors/error-522/",
            ),
        ),
    ),
    Rule(
        "gateway.cloudflare-origin",
        ErrorCode.SERVER,
        r"\binvalid or incomplete response to Cloudflare\b",
        "Cloudflare's error-page wording for an origin that answered badly: a gateway "
        "reporting that its upstream failed (docs/errors.md, policy 5).",
        (
            _ex(
                "The origin web server returned an invalid or incomplete response to Cloudflare.",
                "anomalyco/opencode#35163",
            ),
        ),
    ),
    Rule(
        "windows.socket-timeout",
        ErrorCode.TIMEOUT,
        r"\b(?:WinError|Errno|os error)\s+10060\b|\bconnected party did not properly respon"
        r"d after a period of time\b|\bsemaphore timeout period has expired\b|(?:\bCannot c"
        r"onnect to host\b|\b(?:WinError|Errno)\s+121\b)[^\n]{0,200}?信号灯超时时间已到",
        "Windows WSAETIMEDOUT (10060) and ERROR_SEM_TIMEOUT (121, Chinese '信号灯超时时间已"
        "到') are connect timeouts, even inside a ConnectError wrapper.",
        (
            _ex(
                "httpx.ConnectError: [WinError 10060]",
                "Nixtla/nixtla#137",
            ),
            _ex(
                "[2015-08-13 20:00:08] System.Net.Sockets.SocketException (0x80004005): A c"
                "onnection attempt failed because the connected party did not properly resp"
                "ond after a period of time, or established connection failed because conne"
                "cted host has failed to respond",
                "shadowsocks/shadowsocks-windows#271",
            ),
            _ex(
                "aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host cha"
                "tgpt.com:443 ssl:default [信号灯超时时间已到]",
                "xtekky/gpt4free#2007",
            ),
        ),
    ),
    Rule(
        "client.timeout-elapsed",
        ErrorCode.TIMEOUT,
        r"\btimeout of \d+\s?ms exceeded\b|\bHttpClient\.Timeout\b|\baborted after (?:a )?t"
        r"imeout\b|\bThe request (?:connection )?took longer than\b|\b(?:Receiving|Sending)"
        r" data timeout\b|\bConnecting timed out\b",
        "JS/.NET/Dart client timeouts that surface as a cancellation or abort (axios, HttpC"
        "lient.Timeout, dio): a timeout named as the cause is TIMEOUT (addition 3); ahead o"
        "f abort and socket-code rules (axios adds ECONNABORTED).",
        (
            _ex(
                "Error: 1P event logging: 1 events failed to export (code=ECONNABORTED, tim"
                "eout of 10000ms exceeded)",
                "anthropics/claude-code#46113",
            ),
            _ex(
                "System.Threading.Tasks.TaskCanceledException: The request was canceled due"
                " to the configured HttpClient.Timeout of 100 seconds elapsing.",
                "OkGoDoIt/OpenAI-API-dotnet#102",
            ),
            _ex(
                "status code :null  message :The request connection took longer than 0:00:2"
                "0.000000. It was aborted. \ndata:null",
                "redevrx/chat_gpt_sdk#31",
            ),
        ),
    ),
    Rule(
        "timeout.after-duration",
        ErrorCode.TIMEOUT,
        r"\btimeout after \d+(?:\.\d+)?\s?(?:ms|s|seconds?|milliseconds?)\b"
        r"(?<!\b(?:with|set|use|using|configured|a|new) timeout after [^\n]{1,20})",
        "A client's own timer named with its duration ('timeout after 120002ms'), also "
        "when an abort follows it: a timeout named as the cause (docs/errors.md, policy "
        "11).",
        (
            _ex(
                "[llm-fetch] timeout after 120002ms: https://api.anthropic.com/v1/messages "
                "— This operation was aborted",
                "stakwork/stakgraph#1588",
            ),
        ),
    ),
    Rule(
        "provider.processing-error",
        ErrorCode.SERVER,
        r"\bserver (?:had|experienced) an error (?:while )?processing your request\b|\boccu"
        r"rred while processing your request\.?[ ]{0,3}You can retry\b|\bBedrock is unable "
        r"to process your request\b|\bsystem encountered an unexpected error during process"
        r"ing\b",
        "OpenAI/Azure 500 server_error and Bedrock ServiceUnavailableException/InternalServ"
        "erException wordings: the provider failed on its side; a bare 'error occurred whil"
        "e processing' (Groq uses it for retired models) needs OpenAI's 'You can retry' to "
        "count.",
        (
            _ex(
                "The server had an error while processing your request. Sorry about that! Y"
                "ou can retry your request, or contact us through our help center at help.o"
                "penai.com if the error persists. (Please include the session ID sess_*** i"
                "n your message.)",
                "openai/openai-realtime-console#51",
            ),
            _ex(
                "Codex error: An error occurred while processing your request. You can retr"
                "y your request, or contact us through our help center at help.openai.com i"
                "f the error persists. Please include the request ID <uuid> in your message"
                ".",
                "gethouston/houston#1219",
            ),
            _ex(
                "Error: Can't invoke. Reason: Bedrock is unable to process your request.",
                "darko-mesaros/bedrust#47",
            ),
        ),
    ),
    Rule(
        "google.api-core-server",
        ErrorCode.SERVER,
        r"\bgoogle\.api_core\.exceptions\.(?-i:ServiceUnavailable|InternalServerError|BadGa"
        r"teway|ServerError|Unknown|DataLoss)\b(?![^\n]{0,80}?\b(?:failed to connect|connec"
        r"tion (?:reset|refused|closed|aborted|error|timed out)|Socket closed|DNS resolutio"
        r"n failed|name resolution|getaddrinfo|handshake|unreachable)\b)|(?-i:\b(?:ServiceU"
        r"navailable|BadGateway)): 5\d\d\b(?![^\n]{0,80}?\b(?:failed to connect|connection "
        r"(?:reset|refused|closed|aborted|error|timed out)|Socket closed|DNS resolution fai"
        r"led|name resolution|getaddrinfo|handshake|unreachable)\b)",
        "google-api-core's 5xx exception names (ServiceUnavailable: 503 ...) are the backen"
        "d failing; a wrapped connection failure ('503 failed to connect to all addresses')"
        " is left to the transport rules (policy addition 9).",
        (
            _ex(
                "google.api_core.exceptions.ServiceUnavailable: 503 The service is currentl"
                "y unavailable.",
                "google-gemini/deprecated-generative-ai-python#64",
            ),
        ),
    ),
    Rule(
        "sagemaker.model-server-error",
        ErrorCode.SERVER,
        r"\bReceived server error \(\d{0,3}\) from\b",
        "SageMaker ModelError 'Received server error (N) from <variant>': the model contain"
        "er failed or did not answer (its 'client error (400)' twin stays INVALID_REQUEST).",
        (
            _ex(
                "An error occurred (ModelError) when calling the InvokeEndpoint operation: "
                'Received server error (0) from model with message "Amazon SageMaker could '
                "not get a response from the [ENDPOINT NAME] endpoint. This can occur when "
                "CPU or memory utilization is high. To check your utilization, see Amazon C"
                "loudWatch. To fix this problem, use an instance type with more CPU capacit"
                'y or memory.". See https://eu-central-1.console.aws.amazon.com/cloudwatch/'
                "home?region=eu-central-1#logEventViewer:group=/aws/sagemaker/Endpoints/[EN"
                "DPOINT NAME] in account XXXXXXXXXXXX for more information.",
                "aws/amazon-sagemaker-examples#2815",
            ),
        ),
    ),
    Rule(
        "provider.model-unavailable",
        ErrorCode.SERVER,
        r"\bmodel you(?:'|\u2019)?(?:ve)? selected is temporarily unavailable\b|\bModel \S{"
        r"1,120} is currently loading\b|\bWorker threw exception\b",
        "The serving side cannot run the model right now: Amazon Q's 'model ... temporarily"
        " unavailable' (InternalServerException), Hugging Face's 503 'currently loading' bo"
        "dy, Cloudflare 1101 'Worker threw exception' (the edge worker failed, policy rule "
        "5).",
        (
            _ex(
                "Amazon Q is having trouble responding right now: \n   0: The model you've "
                "selected is temporarily unavailable. Please use '/model' to select a diffe"
                "rent model and try again.\n          Request ID: 3b962cd0-490d-4270-9f37-b"
                "f99251db584",
                "aws/amazon-q-developer-cli#2280",
            ),
            _ex(
                '{"error":"Model meta-llama/Llama-3.2-1B-Instruct is currently loading","es'
                'timated_time":98.86515045166016}',
                "radareorg/r2ai#65",
            ),
            _ex(
                "1101: Worker threw exception",
                "cloudflare/ai:packages/workers-ai-provider/test/workersai-error.test.ts",
            ),
        ),
    ),
    Rule(
        "exc.timeout",
        ErrorCode.TIMEOUT,
        r"\b(?:httpx|httpcore|httpx2|httpcore2)\.(?:ReadTimeout|WriteTimeout|ConnectTimeout"
        r"|PoolTimeout|TimeoutException)\b"
        r"|\brequests\.exceptions\.(?:ReadTimeout|ConnectTimeout|Timeout)\b"
        r"|\burllib3\.exceptions\.(?:ReadTimeoutError|ConnectTimeoutError|TimeoutError)\b"
        r"|\bbotocore\.exceptions\.(?:ReadTimeoutError|ConnectTimeoutError)\b"
        r"|\b(?:aiohttp\.(?:client_exceptions\.)?)?(?:ServerTimeoutError|ConnectionTimeoutError"
        r"|SocketTimeoutError)\b"
        r"|\bAPI(?:Connection)?TimeoutError\b|\blitellm\.(?:exceptions\.)?Timeout\b"
        r"|\bTimeoutError\b|\bsocket\.timeout\b|\bModelTimeoutException\b",
        "Timeout exception names in tracebacks and logs (httpx, requests, aiohttp, SDKs, stdlib).",
        (
            _ex("httpx.ReadTimeout: timed out", "encode/httpx httpx/_exceptions.py (ReadTimeout)"),
            _ex(
                "openai.APITimeoutError: Request timed out.",
                "openai/openai-python src/openai/_exceptions.py (APITimeoutError)",
            ),
            _ex(
                "requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='api.openai.com', "
                "port=443): Read timed out. (read timeout=600)",
                "psf/requests src/requests/adapters.py (ReadTimeout)",
            ),
            _ex(
                "TimeoutError: The operation was aborted due to timeout",
                "Node.js AbortSignal.timeout() docs: https://nodejs.org/api/globals.html"
                "#static-method-abortsignaltimeoutdelay",
            ),
        ),
    ),
    Rule(
        "exc.timeout-bare-names",
        ErrorCode.TIMEOUT,
        r"(?-i:\b(?:Read|Connect|Write|Pool)Timeout(?:Error)?\b)(?!\s*[=:]\s*\d)|(?-i:\b(?:"
        r"System\.)?TimeoutException\b|\bSocketTimeoutException\b|\bHttpTimeoutException\b|"
        r"\bConnectTimeoutException\b)|\bInterruptedIOException: timeout\b|\bOS Error: (?:O"
        r"peration|Connection) timed out\b|\bAPIConnectionError\b[^\n]{0,150}?\btimed out\b",
        "Timeout exception names without their module prefix (httpx/urllib3 ReadTimeout, .N"
        "ET/Java TimeoutException, OkHttp InterruptedIOException: timeout, Dart OS timeout)"
        ", and a connection wrapper whose cause timed out.",
        (
            _ex(
                "Error: API error from ollama (model: devstral-small-2:24b-vibe): LLM backe"
                "nd error [ollama]\n  status: N/A\n  reason: ReadTimeout('')\n  request_id:"
                " N/A\n  endpoint: http://myserver.net:11434/v1/chat/completions\n  model: "
                "devstral-small-2:24b-vibe\n  provider_message: Network error\n  body_excer"
                'pt: \n  payload_summary: {"model":"devstral-small-2:24b-vibe","message_cou'
                'nt":74,"approx_chars":139737,"temperature":0.15,"has_tools":true,"tool_cho'
                'ice":"auto"}',
                "mistralai/mistral-vibe#238",
            ),
            _ex(
                'Exception in thread "main" java.lang.RuntimeException: java.lang.RuntimeEx'
                "ception: java.io.InterruptedIOException: timeout",
                "langchain4j/langchain4j#179",
            ),
            _ex(
                "litellm.APIConnectionError: APIConnectionError: OpenAIException - timed ou"
                "t\nRetrying in 0.2 seconds...",
                "BerriAI/litellm#8174",
            ),
        ),
    ),
    Rule(
        "dotnet.polly-timeout",
        ErrorCode.TIMEOUT,
        r"(?-i:\bTimeoutRejectedException\b)|\bdidn't complete within the allowed timeout\b",
        "Polly's timeout policy (.NET) rejecting a call that ran past its limit; the "
        "TaskCanceledException under it is that timeout (docs/errors.md, policy 11).",
        (
            _ex(
                "Polly.Timeout.TimeoutRejectedException: The operation didn't complete "
                "within the allowed timeout of '00:00:30'.\n ---> "
                "System.Threading.Tasks.TaskCanceledException: The operation was canceled.",
                "microsoft/semantic-kernel#5423",
            ),
        ),
    ),
    Rule(
        "node.timeout-codes",
        ErrorCode.TIMEOUT,
        r"(?-i:\bETIMEDOUT\b|\bESOCKETTIMEDOUT\b|\bUND_ERR_(?:CONNECT|HEADERS|BODY)_TIMEOUT\b)"
        r"|\b(?:Connect|Headers|Body) Timeout Error\b",
        "Node/undici timeout codes: the connect, headers or body wait expired.",
        (
            _ex(
                "Error: connect ETIMEDOUT 104.18.6.192:443",
                "Node.js docs, common system errors (ETIMEDOUT): https://nodejs.org/api/"
                "errors.html#common-system-errors",
            ),
            _ex(
                "TypeError: fetch failed\n  [cause]: HeadersTimeoutError: Headers Timeout Error\n"
                "      code: 'UND_ERR_HEADERS_TIMEOUT'",
                "nodejs/undici lib/core/errors.js (HeadersTimeoutError)",
            ),
            _ex(
                "AI_RetryError: Failed after 3 attempts. Last error: Cannot connect to API: "
                "Connect Timeout Error (attempted addresses: 157.240.1.9:443)",
                "nickscamara/open-deep-research#53 (Vercel AI SDK)",
            ),
        ),
    ),
    Rule(
        "node.abort-by-timer",
        ErrorCode.TIMEOUT,
        r"\bAbortError\b[\s\S]{0,1500}?\bat Timeout\._onTimeout\b",
        "An AbortError fired from a Node timer callback is a timer-driven abort: a timeout "
        "(policy rule 6).",
        (
            _ex(
                "AbortError: The operation was aborted\\n    at abortChildProcess (node:chi"
                "ld_process:725:27)\\n    at EventTarget.onAbortListener (node:child_proces"
                "s:795:7)\\n    at [nodejs.internal.kHybridDispatch] (node:internal/event_t"
                "arget:831:20)\\n    at EventTarget.dispatchEvent (node:internal/event_targ"
                "et:766:26)\\n    at abortSignal (node:internal/abort_controller:370:10)\\n"
                "    at AbortController.abort (node:internal/abort_controller:392:5)\\n    "
                "at Timeout._onTimeout (file:///home/amon1998/.claude/local/node_modules/@a"
                "nthropic-ai/claude-code/cli.js:3345:8200)",
                "anthropics/claude-code#5539",
            ),
        ),
    ),
    Rule(
        "google.server-cancelled",
        ErrorCode.SERVER,
        r"\b499\b(?<=(?:(?<![a-z])status(?:[ _-]?code)?|\bcode)\W{1,4}499)(?![^\n]{0,40}\bc"
        r"lient closed\b)|\boperation was cancelled(?<=(?-i:The operation was cancelled))(?"
        r"<!(?:Operation|Task)Cancell?edException:[ ]{0,3}The operation was cancelled)(?![^"
        r"\n]{0,12}\b(?:because|due to|by)\b)",
        "Google's backend cancelling a call: status/code 499 or its canonical 'The operatio"
        "n was cancelled.' (backendError) is SERVER (policy addition 2); local cancels say "
        "otherwise ('Locally cancelled by application!', .NET OperationCanceledException).",
        (
            _ex(
                "The operation was cancelled.\n[Debug Info]\nRequested Model: antigravity-g"
                "emini-3.1-pro\nEffective Model: gemini-3.1-pro-low\nProject: numeric-brace"
                "-ltr8c\nEndpoint: https://daily-cloudcode-pa.sandbox.googleapis.com/v1inte"
                "rnal:streamGenerateContent?alt=sse\nStatus: 499\nRequest ID: N/A…",
                "NoeFabris/opencode-antigravity-auth#508",
            ),
            _ex(
                "java.util.concurrent.ExecutionException: com.google.api.gax.rpc.CancelledE"
                "xception: io.grpc.StatusRuntimeException: CANCELLED: The operation was can"
                "celled.",
                "GoogleCloudPlatform/java-docs-samples#1307",
            ),
        ),
    ),
    Rule(
        "abort.caller",
        ErrorCode.ABORTED,
        r"\b(?:Request|operation) was aborted\b(?!\s+due to timeout)|\bAbortError\b"
        r"|\bAPIUserAbortError\b|\bCancelledError\b|\buser aborted a request\b"
        r"|(?-i:\bUND_ERR_ABORTED\b)|\bcontext canceled\b",
        "The caller cancelled (AbortController, asyncio cancel): never retry what they stopped.",
        (
            _ex(
                "Error: Request was aborted.",
                "anthropics/claude-code#35792 (anthropic-sdk-typescript APIUserAbortError)",
            ),
            _ex(
                "AbortError: This operation was aborted",
                "Node.js docs, AbortController: https://nodejs.org/api/globals.html"
                "#class-abortcontroller",
            ),
            _ex(
                "asyncio.exceptions.CancelledError",
                "CPython Lib/asyncio/exceptions.py (CancelledError)",
            ),
        ),
    ),
    Rule(
        "abort.by-user",
        ErrorCode.ABORTED,
        r"(?:\b(?:cancell?ed|canceled|aborted|interrupted|stopped)\s+by\s+(?:the\s+|another\s+"
        r")?(?:user|client|caller|application)\b|\b(?:user|you)\s+(?:has\s+|have\s+)?(?:cancel"
        r"l?ed|canceled|aborted|interrupted)\b|\bwe interrupted\b|\buser doesn't want to proce"
        r"ed\b|\buser_cancell?ed\b)",
        "A cancel or interrupt attributed to the user/client (agent UIs, SDKs, servers logg"
        "ing the client's cancel): ABORTED, addition 2.",
        (
            _ex(
                "Request interrupted by user",
                "anthropics/claude-code#52327",
            ),
            _ex(
                "User cancelled the request.",
                "google-gemini/gemini-cli:packages/cli/src/ui/hooks/useGeminiStream.ts",
            ),
            _ex(
                "The user cancelled this tool call.",
                "continuedev/continue:core/tools/constants.ts",
            ),
        ),
    ),
    Rule(
        "zh.user-cancel",
        ErrorCode.ABORTED,
        r"被用户[^\n]{0,8}?(?:中断|取消|中止|停止)|用户(?:已)?(?:取消|中断|中止)",
        "Chinese agent-UI notices that the user stopped or interrupted the task or the "
        "response (Roo Code): a cancellation on our side, ABORTED.",
        (
            _ex("响应被用户中断", "RooCodeInc/Roo-Code:src/i18n/locales/zh-CN/common.json"),
            _ex(
                "任务错误：它已被用户停止并取消。",
                "RooCodeInc/Roo-Code:src/i18n/locales/zh-CN/common.json",
            ),
        ),
    ),
    Rule(
        "abort.notice",
        ErrorCode.ABORTED,
        r"(?:\b(?:request|response|stream|generation|turn|conversation|reply|completion|chat|t"
        r"ool call|tool execution|tool use|tool|compaction|login|subagent|delay|model invocati"
        r"on|execution|command|OAuth flow|run)\s+(?:was\s+|has been\s+|is\s+)?(?:cancell?ed|ca"
        "nceled|aborted)\\b(?=\\s*(?:[.!\\]\\\"')]|$|before\\b|-|\\W+Returning))|\\b(?:request|respon"
        r"se|turn|conversation|reply|task|tool call|tool execution|OAuth flow)\s+(?:was\s+|has"
        " been\\s+)?interrupted\\b(?=\\s*(?:[.!\\]\\\"')]|$|before\\b|-|\\W+tell\\b))"
        "|^\\W{0,8}(?:opera"
        r"tion|stream)\s+(?:cancell?ed|canceled|aborted)\b\W*$|^\W{0,8}(?-i:Cancell?ed|Cancele"
        r"d|Aborted|Interrupted)\b(?=\W*$|\s*·)|\bsignal is aborted without reason\b)",
        "UI/SDK notices that a request, turn or tool call was cancelled, aborted or interru"
        "pted, as a whole message ('operation was cancelled' from a backend is left alone; "
        "a timeout named as the cause is decided by the timeout rules ranked above).",
        (
            _ex(
                "Request cancelled.",
                "google-gemini/gemini-cli#5838",
            ),
            _ex(
                "Conversation interrupted - tell the model what to do differently. Somethin"
                "g went wrong? Hit `/feedback` to report the issue.",
                "openai/codex#14142",
            ),
            _ex(
                "Tool call cancelled. Returning to chat...",
                "aaif-goose/goose#2586",
            ),
        ),
    ),
    Rule(
        "abort.interrupt-names",
        ErrorCode.ABORTED,
        r"(?:(?-i:\bKeyboardInterrupt\b|\bResponseAborted\b|\bMessageAbortedError\b)|\^C again"
        r" to exit\b|\bAborted request\b(?!\s+due to)|\bdisconnected from the client side\b|\b"
        r"Client disconnected\W{1,3}(?:Stopping|cancell?ing)\b|\bdue to client closing the con"
        r"nection\b|\b(?:requested cancell?ing|cancell?ed) generation\b|\bcancel task, id_task"
        r"\b)",
        "Caller-side interruption names and server logs of a client that went away (Keyboar"
        "dInterrupt, ^C, Next.js ResponseAborted, vLLM/SGLang/LM Studio/Ollama/llama.cpp).",
        (
            _ex(
                "^C KeyboardInterrupt",
                "Aider-AI/aider:aider/coders/base_coder.py",
            ),
            _ex(
                "INFO 12-26 20:02:43 engine.py:285] Aborted request chatcmpl-d3e09827e54548"
                "e08ed914c0fad97b6a.",
                "danny-avila/LibreChat#5116",
            ),
            _ex(
                "srv  cancel_tasks: cancel task, id_task = 0",
                "ggml-org/llama.cpp#11414",
            ),
        ),
    ),
    Rule(
        "abort.generator-exit",
        ErrorCode.ABORTED,
        r"(?-i:\bGeneratorExit\b)",
        "Python's GeneratorExit: the consumer closed a streaming generator (a UI rerun, an "
        "interrupt), a cancellation on our side (docs/errors.md, policy 10).",
        (
            _ex(
                "GeneratorExit()  \nTraceback (most recent call last):\n  File "
                '"/usr/local/lib/python3.12/site-packages/langgraph/pregel/__init__.py", '
                "line 2634, in astream\n    yield o\nGeneratorExit",
                "JoshuaC215/agent-service-toolkit#198",
            ),
        ),
    ),
    Rule(
        "exc.transport",
        ErrorCode.TRANSPORT,
        r"\b(?:httpx|httpcore|httpx2|httpcore2)\.(?:ConnectError|ReadError|WriteError|CloseError"
        r"|NetworkError|RemoteProtocolError|ProxyError|TransportError)\b"
        r"|\brequests\.exceptions\.(?:ConnectionError|ChunkedEncodingError|SSLError|ProxyError)\b"
        r"|\burllib3\.exceptions\.(?:ProtocolError|NewConnectionError|SSLError|ProxyError"
        r"|NameResolutionError)\b"
        r"|\b(?:aiohttp\.(?:client_exceptions\.)?)?(?:ServerDisconnectedError"
        r"|ClientConnectorError|ClientConnectionError|ClientOSError|ClientPayloadError"
        r"|ClientConnectionResetError|ClientConnectorSSLError|ClientConnectorCertificateError)\b"
        r"|\b(?:ConnectionResetError|ConnectionRefusedError|ConnectionAbortedError"
        r"|BrokenPipeError|RemoteDisconnected|IncompleteReadError|SSLEOFError"
        r"|SSLCertVerificationError|SSLZeroReturnError)\b|\bsocket\.gaierror\b"
        r"|\bbotocore\.exceptions\.(?:EndpointConnectionError|ConnectionClosedError"
        r"|ProxyConnectionError)\b|\bAPIConnectionError\b",
        "Connection exception names in tracebacks and logs: the socket failed, not the provider.",
        (
            _ex(
                "ConnectionResetError: [Errno 104] Connection reset by peer",
                "CPython docs, ConnectionResetError: https://docs.python.org/3/library/"
                "exceptions.html#ConnectionResetError",
            ),
            _ex(
                "httpx.RemoteProtocolError: peer closed connection without sending complete "
                "message body (incomplete chunked read)",
                "docs/wire.md §8.4 (SDK probe, socket dropped inside body)",
            ),
            _ex(
                "openai.APIConnectionError: Connection error.",
                "openai/openai-python src/openai/_exceptions.py (APIConnectionError)",
            ),
        ),
    ),
    Rule(
        "exc.transport-repr",
        ErrorCode.TRANSPORT,
        r"(?-i:\b(?:ReadError|ConnectError|RemoteProtocolError|WriteError)\()",
        "httpx's transport exceptions in repr form inside another tool's report ('reason: "
        "ReadError('')'): the connection failed.",
        (
            _ex(
                "Error: API error from mistral (model: mistral-vibe-cli-latest): LLM "
                "backend error [mistral]\n  status: N/A\n  reason: ReadError('')\n  "
                "request_id: N/A\n  endpoint: https://api.mistral.ai\n  model: "
                "mistral-vibe-cli-latest\n  provider_message: Network error\n  "
                'body_excerpt: \n  payload_summary: {"model":"mistral-vibe-cli-latest",'
                '"message_count":254,"approx_chars":260378,"temperature":0.2,"has_to'
                'ols":true,"tool_choice":"auto"}',
                "mistralai/mistral-vibe#235",
            ),
        ),
    ),
    Rule(
        "http.truncated-body",
        ErrorCode.TRANSPORT,
        r"\bresponse ended prematurely\b|\bPremature end of chunk coded message body\b|\bPr"
        r"emature end of Content-Length delimited message body\b|\bIncompleteRead\(|\bTrans"
        r"ferEncodingError\b|\bNot enough data (?:for|to) satisfy (?:transfer|content) leng"
        r"th header\b|(?-i:\bContentLengthError\b)|\bChunkedEncodingError\b|\bhyper::Error"
        r"\((?:IncompleteMessage|ChannelClosed)\b",
        "A response body cut before its end (requests, .NET, Apache HttpClient, aiohttp who"
        "se '400' is the parser's, hyper): the connection dropped (policy addition 9).",
        (
            _ex(
                "aiohttp.http_exceptions.TransferEncodingError: 400, message:\nNot enough d"
                "ata to satisfy transfer length header.",
                "xtekky/gpt4free#3292",
            ),
            _ex(
                "System.Net.Http.HttpIOException: The response ended prematurely. (ResponseEnded)",
                "dotnet/runtime#104296",
            ),
            _ex(
                "IO Error: Premature end of chunk coded message body: closing chunk expected",
                "validator/validator#999",
            ),
        ),
    ),
    Rule(
        "windows.socket-errors",
        ErrorCode.TRANSPORT,
        r"\b(?:WinError|Errno|os error)\s+100(?:53|54|61)\b|\bactively refused it\b|\bestab"
        r"lished connection was aborted by the software in your host machine\b|\bexisting c"
        r"onnection was forcibly closed by the remote host\b",
        "Windows socket errors 10053/10054 (aborted, reset) and 10061 (refused): connection"
        " failures; localised texts (Chinese) are caught by the error number.",
        (
            _ex(
                'Error: Post "http://127.0.0.1:11434/api/show": dial tcp 127.0.0.1:11434: c'
                "onnectex: No connection could be made because the target machine actively "
                "refused it.",
                "ollama/ollama#9839",
            ),
            _ex(
                "ConnectError: [WinError 10061] No connection could be made because the tar"
                "get machine actively refused it",
                "ollama/ollama-python#27",
            ),
            _ex(
                "ConnectionResetError: [WinError 10054] 远程主机强迫关闭了一个现有的连接。",
                "urllib3/urllib3#1826",
            ),
        ),
    ),
    Rule(
        "connect.failure-names",
        ErrorCode.TRANSPORT,
        r"\bCould not connect to the endpoint URL\b|(?-i:\bEndpointConnectionError\b)|(?-i:"
        r"\bjava\.net\.(?:ConnectException|UnknownHostException|NoRouteToHostException)\b)|"
        r"\btcp connect error\b|\bNo such host is known\b|\bName does not resolve\b|: no su"
        r"ch host\b|\buse of closed network connection\b|\bserver closed idle connection\b|"
        r"\bNetwork is unreachable\b|\bNo route to host\b|\bHost is unreachable\b|\bfailed "
        r"to lookup address information\b|\bdns error: |\bunexpected end of stream on\b|\bs"
        r"tream was reset: (?-i:(?!CANCEL\b)[A-Z_]{3,30}\b)|\bunexpected EOF or 0 bytes fro"
        r"m the transport stream\b|(?-i:(?:\bKind\(|\bkind: )(?:ConnectionReset|ConnectionR"
        r"efused|ConnectionAborted|BrokenPipe|UnexpectedEof|NotConnected)\b)",
        "Connect, DNS and closed-socket failures named by botocore, Java, reqwest, .NET and"
        " Go: the socket never reached, or lost, the provider.",
        (
            _ex(
                'EndpointConnectionError: Could not connect to the endpoint URL: "https://c'
                'omprehend.us-west-1.amazonaws.com/"',
                "aws-samples/amazon-custom-entity-recognition-textract-comprehend#1",
            ),
            _ex(
                "!MESSAGE Failed to call LLM LlmConfig(providerType=OPEN_AI, model=gemma-4-"
                "26b-a4b-it-qat, url=https://xxxx/v1, planTemperature=0.8, devTemperature=0"
                ".3, thinkingEnabled=true, sendThinkingEnabled=true)\n!STACK 0\njava.util.c"
                "oncurrent.CompletionException: java.net.ConnectException",
                "sterlp/eclipse-peon-ai#88",
            ),
        ),
    ),
    Rule(
        "node.socket-codes",
        ErrorCode.TRANSPORT,
        r"(?-i:\b(?:ECONNRESET|ECONNREFUSED|ECONNABORTED|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH"
        r"|ENETUNREACH|ENETDOWN|ENOTCONN|EPROTO|ERR_STREAM_PREMATURE_CLOSE"
        r"|UND_ERR_(?:SOCKET|CLOSED|DESTROYED|RES_CONTENT_LENGTH_MISMATCH))\b)",
        "Node/undici socket error codes (case-sensitive, so ResourceNotFoundException is not DNS).",
        (
            _ex(
                "Error: read ECONNRESET",
                "Node.js docs, common system errors (ECONNRESET): https://nodejs.org/api/"
                "errors.html#common-system-errors",
            ),
            _ex(
                "Error: getaddrinfo ENOTFOUND api.openai.com",
                "Node.js docs, common system errors (ENOTFOUND): https://nodejs.org/api/"
                "errors.html#common-system-errors",
            ),
            _ex(
                "Error: write EPIPE",
                "Node.js docs, common system errors (EPIPE): https://nodejs.org/api/"
                "errors.html#common-system-errors",
            ),
        ),
    ),
    Rule(
        "http2.goaway-reset",
        ErrorCode.TRANSPORT,
        r"(?-i:\bGOAWAY\b|\bGoAway\()|<ConnectionTerminated\b|\bstream error: stream ID \d+"
        r"; \w+; received from peer\b|\bh2\.exceptions\.ProtocolError\b",
        "HTTP/2 connection shutdowns and stream resets (Go GOAWAY, hyper GoAway, h2 Connect"
        "ionTerminated, RST_STREAM 'INTERNAL_ERROR' is an h2 code, not a 500).",
        (
            _ex(
                "http2: server sent GOAWAY and closed the connection; LastStreamID=1999, Er"
                'rCode=NO_ERROR, debug=""',
                "stellar/go-stellar-sdk#573",
            ),
            _ex(
                "stream error: stream ID 983; INTERNAL_ERROR; received from peer",
                "Exafunction/codeium#146",
            ),
            _ex(
                "<ConnectionTerminated error_code:ErrorCodes.NO_ERROR, last_stream_id:1999,"
                " additional_data:None>",
                "encode/httpcore#45",
            ),
        ),
    ),
    Rule(
        "tls.verification-failed",
        ErrorCode.TRANSPORT,
        r"\bx509: certificate\b|\bunable to get local issuer certificate\b|\bcertificate si"
        r"gned by unknown authority\b|\bcertificate is not trusted\b|\bself[- ]signed certi"
        r"ficate in certificate chain\b|\bunable to verify the first certificate\b|\bPKIX p"
        r"ath building failed\b|\bSSLHandshakeException\b|\bThe SSL connection could not be"
        r" established\b|\bremote error: tls: |(?-i:\bWRONG_VERSION_NUMBER\b|\bUNEXPECTED_E"
        r"OF_WHILE_READING\b|\b(?:SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNA"
        r"BLE_TO_GET_ISSUER_CERT_LOCALLY|UNABLE_TO_VERIFY_LEAF_SIGNATURE)\b)",
        "TLS certificate verification and protocol failures (Go x509, OpenSSL, workerd, Nod"
        "e): the connection failed before the provider saw the request (addition 9).",
        (
            _ex(
                "x509: certificate signed by unknown authority",
                "Zartenc/httpsproxy#4",
            ),
            _ex(
                "{ FetchError: request to https://eu-api.coolkit.cc:8080/api/user/login fai"
                "led, reason: unable to get local issuer certificate",
                "skydiver/ewelink-api#159",
            ),
            _ex(
                "ssl.SSLError: [SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:852)",
                "encode/httpx#646",
            ),
        ),
    ),
    # ------------------------------------------------------- band 3: HTTP status context
    Rule(
        "grpc.connect-failed",
        ErrorCode.TRANSPORT,
        r"\bfailed to connect to all addresses\b|\bFailed to pick subchannel\b|\bUNAVAILABL"
        r"E\W{1,4}(?:Connect Failed|No connection established)\b",
        "gRPC could not connect to any address: a connection failure even under UNAVAILABLE"
        " or 503 (policy addition 9).",
        (
            _ex(
                "ServiceUnavailable: 503 failed to connect to all addresses",
                "googleapis/google-cloud-python#10630",
            ),
            _ex(
                '"error": "14 UNAVAILABLE: failed to connect to all addresses"',
                "bloomrpc/bloomrpc#258",
            ),
            _ex(
                "Error: 14 UNAVAILABLE: No connection established",
                "grpc/grpc-node#1754",
            ),
        ),
    ),
    Rule(
        "status.spelled-429",
        ErrorCode.RATE_LIMIT,
        _spelled("429|529"),
        (
            "HTTP 429 (and Anthropic's 529) spelled as the built-in status contexts do "
            "not read them: '429 status code (no body)', '[429]', a gin access line, re-"
            "escaped JSON, a float status."
        ),
        (_ex("API Request Failed: 429 status code (no body)", "cline/cline#962"),),
    ),
    Rule(
        "http.529",
        ErrorCode.RATE_LIMIT,
        _status("529", r"529 Overloaded"),
        "Anthropic's 529 means overloaded, try later: RATE_LIMIT, not SERVER.",
        (
            _ex(
                "API Error: 529 Overloaded. This is a server-side issue, usually temporary - try "
                "again in a moment.",
                "anthropics/claude-code#61365",
            ),
        ),
    ),
    Rule(
        "http.429",
        ErrorCode.RATE_LIMIT,
        _status("429", r"429 Too Many Requests|429 RESOURCE_EXHAUSTED"),
        "HTTP 429: throttled; wait (Retry-After if given) and retry.",
        (
            _ex(
                'API error occurred: Status 429. Body: {"object": "error", "message": "Rate limit '
                'exceeded", "type": "rate_limited", "param": null, "code": "1300"}',
                "docs/wire.md §8.4 (mistralai 3.7.0 SDKError)",
            ),
            _ex(
                "exceeded retry limit, last status: 429 Too Many Requests, request id: "
                "719350cc-6f62-4fee-85b8-282e20d1b2cd",
                "openai/codex#12781",
            ),
            _ex(
                "API error occurred: Status 429 Content-Type application/json Body \n"
                '{"object":"error","message":"Rate limit exceeded","type":"rate_limited",'
                '"param":null,"code":"1300"}',
                "cline/cline#9085 (mistralai TypeScript SDK, via docs/wire.md §8.2)",
            ),
        ),
    ),
    Rule(
        "status.spelled-timeout",
        ErrorCode.TIMEOUT,
        _spelled("408|504"),
        "HTTP 408/504 spelled as the built-in status contexts do not read them.",
        (_ex("504: DEADLINE_EXCEEDED", "letta-ai/letta#2861"),),
    ),
    Rule(
        "http.408",
        ErrorCode.TIMEOUT,
        _status("408", r"408 Request Time-?out"),
        "HTTP 408: the server gave up waiting for the request.",
        (
            _ex(
                "HTTP/1.1 408 Request Timeout",
                "RFC 9110 section 15.5.9 (408 Request Timeout)",
            ),
        ),
    ),
    Rule(
        "http.504",
        ErrorCode.TIMEOUT,
        _status("504", r"504 Gateway Time-?out|504 Deadline Exceeded"),
        "HTTP 504: a gateway timed out waiting for the provider.",
        (
            _ex(
                "<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n"
                "<center><h1>504 Gateway Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n"
                "</body>\r\n</html>",
                "nginx default error page (ngx_http_special_response.c)",
            ),
        ),
    ),
    Rule(
        "status.spelled-5xx",
        ErrorCode.SERVER,
        _spelled("500|502|503|520|521|522|523|524|525|526|527|530"),
        (
            "HTTP 5xx spelled as the built-in status contexts do not read them: '[503 ]',"
            " a line-start status before a lower-case message (the status outranks the "
            "word, policy 4), Google's '502. That's an error.' page, an exception name "
            "before the status."
        ),
        (_ex("503 server is overloaded.", "cline/cline#440"),),
    ),
    Rule(
        "http.5xx",
        ErrorCode.SERVER,
        _status(
            "500|502|503|520|521|522|523|524|525|526|527|530",
            r"500 Internal Server Error|502 Bad Gateway|503 Service (?:Temporarily )?Unavailable"
            r"|503 UNAVAILABLE|500 INTERNAL",
        ),
        "HTTP 500/502/503 (and Cloudflare 52x): the provider or a gateway failed.",
        (
            _ex(
                "google.genai.errors.ServerError: 503 UNAVAILABLE. {'error': {'code': 503, "
                "'message': 'The model is overloaded. Please try again later.', 'status': "
                "'UNAVAILABLE'}}",
                "google-gemini/gemini-cli#12831",
            ),
            _ex(
                "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>"
                "502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n"
                "</html>",
                "nginx default error page (ngx_http_special_response.c)",
            ),
        ),
    ),
    Rule(
        "auth.status-forms",
        ErrorCode.AUTH,
        r"\b(?:401|403) status code\b|^\W{0,3}(?:401|403):\s",
        "openai-node's '401 status code (no body)' and bare '401: …' status lines: policy 7"
        " status contexts that the built-in status rule does not read.",
        (
            _ex(
                "401 status code (no body)",
                "continuedev/continue#10277",
            ),
            _ex(
                "401: user not found",
                "BeehiveInnovations/pal-mcp-server#209",
            ),
        ),
    ),
    Rule(
        "status.spelled-auth",
        ErrorCode.AUTH,
        _spelled("401|403|407"),
        (
            "HTTP 401/403 spelled as the built-in status contexts do not read them: '401:"
            " user not found', '[401]', botocore's 'An error occurred (401)'."
        ),
        (
            _ex("401: user not found", "BeehiveInnovations/pal-mcp-server#209"),
            _ex("401 status code (no body)", "continuedev/continue#10277"),
            _ex(
                "2025-10-14 00:56:01 | ERROR    | app.py:smart_grok_request_with_fallback:718 |"
                " [SmartRequest] 所有策略都失败：Grok API 请求失败 (状态码: 403)",
                "xLmiler/grok2api_python#83",
            ),
        ),
    ),
    Rule(
        "http.auth",
        ErrorCode.AUTH,
        _status("401|403|407", r"401 Unauthorized|403 Forbidden"),
        "HTTP 401/403: the key is missing, invalid, or not allowed to do this.",
        (
            _ex(
                "AxiosError: Request failed with status code 401",
                "anthropics/claude-code#11302",
            ),
            _ex(
                "403 Forbidden",
                "mistralai/mistral-vibe#502 (via docs/wire.md §9)",
            ),
        ),
    ),
    Rule(
        "http.402",
        ErrorCode.QUOTA_EXCEEDED,
        _status("402", r"402 Payment Required"),
        "HTTP 402 Payment Required: out of credits (OpenRouter, DeepSeek).",
        (
            _ex(
                'OpenAI API 402: {"error":{"message":"This request requires more credits, or '
                'fewer max_tokens. You requested up to 65536 tokens, but can only afford 10114.",'
                '"code":402,"metadata":{"provider_name":null}},"user_id":"user_"}',
                "babikov/doka-site#7",
            ),
        ),
    ),
    Rule(
        "http.413",
        ErrorCode.CONTEXT_OVERFLOW,
        _status("413", r"413 Content Too Large"),
        "HTTP 413: the request is above a byte-size cap and can never pass as is.",
        (
            _ex(
                "HTTP/1.1 413 Content Too Large", "RFC 9110 section 15.5.14 (413 Content Too Large)"
            ),
        ),
    ),
    Rule(
        "status.spelled-4xx",
        ErrorCode.INVALID_REQUEST,
        _spelled("400|404|405|409|410|415|422"),
        (
            "HTTP 4xx spelled as the built-in status contexts do not read them: a line-"
            "start status before a lower-case message, 'API returned 400:', requests' "
            "'400 Client Error', aiohttp's '400, message='."
        ),
        (
            _ex(
                'API returned 400: {"message":"The provided model identifier is invalid."}',
                "Wei-Shaw/sub2api#1714",
            ),
        ),
    ),
    Rule(
        "http.4xx",
        ErrorCode.INVALID_REQUEST,
        _status(
            "400|404|405|409|410|415|422",
            r"400 Bad Request|404 Not Found|422 Unprocessable Entity|400 INVALID_ARGUMENT"
            r"|400 FAILED_PRECONDITION|404 NOT_FOUND",
        ),
        "HTTP 400/404/422: the request is malformed or names something that does not exist.",
        (
            _ex(
                'API error occurred: Status 400. Body: {"object":"error","message":"Tool call id '
                'was 2968-LWy3uasib but must be a-z, A-Z, 0-9, with a length of 9.","type":'
                '"invalid_function_call","param":null,"code":"3280"}',
                "editor-code-assistant/eca#233 (via docs/wire.md §9)",
            ),
            _ex(
                "Error code: 400 - {'error': {'message': 'Unrecognized request argument supplied: "
                "timeout', 'type': 'invalid_request_error', 'param': None, 'code': None}}",
                "OpenAI API docs, error codes (400 invalid request): "
                "https://platform.openai.com/docs/guides/error-codes",
            ),
        ),
    ),
    # ---------------------------------------------------- band 3: generic provider types
    Rule(
        "type.rate-limit",
        ErrorCode.RATE_LIMIT,
        r"\brate_limit_error\b|\brate_limited\b|(?-i:\bRESOURCE_EXHAUSTED\b)"
        r"|\bResourceExhausted\b|\bTooManyRequests\b",
        "Generic throttling types: Anthropic rate_limit_error, Mistral rate_limited, gRPC 8.",
        (
            _ex(
                '{"object":"error","message":"Rate limit exceeded","type":"rate_limited",'
                '"param":null,"code":"1300","raw_status_code":429}',
                "raycast/extensions#31107 (via docs/wire.md §9)",
            ),
            _ex(
                "google.api_core.exceptions.ResourceExhausted: 429 Resource has been exhausted "
                "(e.g. check quota).",
                "google/generative-ai-docs#236",
            ),
        ),
    ),
    Rule(
        "provider.unavailable-error-type",
        ErrorCode.SERVER,
        r"\b(?:service_)?unavailable_error\b|\bserver_is_overloaded\b",
        "OpenAI's in-band Responses error type service_unavailable_error / code server_is_o"
        "verloaded and llama.cpp's unavailable_error are their 503 class: SERVER, although "
        "the message says 'overloaded' (policy rule 4: a 503 overload is SERVER).",
        (
            _ex(
                '{\n  "error": {\n    "code": "server_is_overloaded",\n    "message": "Our '
                'servers are currently overloaded. Please try again later.",\n    "param": '
                'null,\n    "type": "service_unavailable_error"\n  },\n  "sequence_number":'
                ' 2,\n  "type": "error"\n}',
                "Wei-Shaw/sub2api#6631",
            ),
        ),
    ),
    Rule(
        "type.server",
        ErrorCode.SERVER,
        r"\bapi_error\b|\bserver_error\b|\binternal_server_error\b"
        r"|\bStatusCode\.(?:UNAVAILABLE|INTERNAL|UNKNOWN|DATA_LOSS)\b"
        r"|(?-i:\bUNAVAILABLE\b)|\b(?:InternalServerException|ServiceUnavailableException"
        r"|ModelErrorException|ModelNotReadyException|ModelStreamErrorException"
        r"|ServiceUnavailableError|InternalServerError|BadGatewayError)\b",
        "Generic provider-side failure types (Anthropic api_error, gRPC UNAVAILABLE, Bedrock 5xx).",
        (
            _ex(
                '{"type":"error","error":{"type":"api_error","message":"Internal server error"}}',
                "Anthropic API docs, errors (500 api_error): https://docs.anthropic.com/en/api/"
                "errors",
            ),
        ),
    ),
    Rule(
        "type.timeout",
        ErrorCode.TIMEOUT,
        r"(?-i:\bDEADLINE_EXCEEDED\b)|\bStatusCode\.DEADLINE_EXCEEDED\b|\bDeadlineExceeded\b",
        "gRPC DEADLINE_EXCEEDED: the call's deadline passed.",
        (
            _ex(
                "google.api_core.exceptions.DeadlineExceeded: 504 Deadline Exceeded",
                "googleapis/python-api-core google/api_core/exceptions.py (DeadlineExceeded)",
            ),
        ),
    ),
    Rule(
        "type.auth",
        ErrorCode.AUTH,
        r"(?-i:\bUNAUTHENTICATED\b|\bPERMISSION_DENIED\b)|\bPermissionDenied(?:Error)?\b"
        r"|\bAuthenticationError\b",
        "Generic auth types: gRPC UNAUTHENTICATED/PERMISSION_DENIED, SDK AuthenticationError.",
        (
            _ex(
                "google.api_core.exceptions.PermissionDenied: 403 Permission denied on resource "
                "project.",
                "googleapis/python-api-core google/api_core/exceptions.py (PermissionDenied)",
            ),
        ),
    ),
    Rule(
        "type.invalid-request",
        ErrorCode.INVALID_REQUEST,
        r"\binvalid_request_error\b|(?-i:\bINVALID_ARGUMENT\b|\bFAILED_PRECONDITION\b)"
        r"|\bnot_found_error\b|\bValidationException\b|\bResourceNotFoundException\b"
        r"|\binvalid_model\b|\bmodel_not_found\b|\binvalid_function_call\b"
        r"|\binvalid_request_(?:message_order|invalid_args|message_error)\b"
        r"|\bBadRequestError\b|\bUnprocessableEntityError\b|\bNotFoundError\b",
        "Generic malformed-request types (OpenAI/Anthropic invalid_request_error, gRPC 3, AWS).",
        (
            _ex(
                "botocore.errorfactory.ValidationException: An error occurred "
                "(ValidationException) when calling the InvokeModel operation: Malformed input "
                "request: expected maxLength: 42000, actual: 46735, please reformat your input "
                "and try again.",
                "ryanadoty/Amazon-Bedrock-Amazon-RDS-POC#9",
            ),
            _ex(
                "An error occurred (ResourceNotFoundException) when calling the InvokeModel "
                "operation: Could not resolve the foundation model from the provided model "
                "identifier.",
                "AWS Bedrock troubleshooting: https://docs.aws.amazon.com/bedrock/latest/"
                "userguide/troubleshooting-api-error-codes.html",
            ),
        ),
    ),
    Rule(
        "type.cancelled",
        ErrorCode.ABORTED,
        r"(?-i:\bCANCELLED\b)|\bStatusCode\.CANCELLED\b",
        "gRPC CANCELLED: the call was cancelled, usually by the caller.",
        (
            _ex(
                "<_MultiThreadedRendezvous of RPC that terminated with:\n\tstatus = "
                'StatusCode.CANCELLED\n\tdetails = "Locally cancelled by application!"',
                "grpc/grpc src/python/grpcio/grpc/_channel.py (_MultiThreadedRendezvous)",
            ),
        ),
    ),
    # ------------------------------------------------------------- band 4: plain wordings
    Rule(
        "sdk.stream-ended-early",
        ErrorCode.TRANSPORT,
        r"\bended without sending any chunks\b|\bstream closed before (?:response\.\w+|mess"
        r"age_stop\b)|\bDid not receive done or success response in stream\b|\bExpected a c"
        r"ompleted response\b",
        "SDK checks that a stream closed before its terminal event (Anthropic TS, Codex, Ol"
        "lama clients): truncated in transit, like pi.stream-truncated.",
        (
            _ex(
                "request ended without sending any chunks",
                "anthropics/anthropic-sdk-typescript:src/lib/MessageStream.ts",
            ),
            _ex(
                "stream disconnected before completion: stream closed before response.completed",
                "piperhex/codex-switch#24",
            ),
            _ex(
                "Did not receive done or success response in stream.: Error: Did not receiv"
                "e done or success response in stream.",
                "ollama/ollama-vscode#60",
            ),
        ),
    ),
    Rule(
        "pi.stream-truncated",
        ErrorCode.TRANSPORT,
        r"\bstream ended (?:before|without)\b|\bbefore a terminal (?:response )?event\b",
        "A stream that ended before its terminal event was truncated in transit (ADR 0015).",
        (
            _ex("Anthropic stream ended before message_stop", _S),
            _ex("OpenAI Responses stream ended before a terminal response event", _S),
            _ex("Stream ended without finish_reason", _S),
            _ex("provider stream ended without a terminal event", _S),
        ),
    ),
    Rule(
        "stream.disconnected-mid-stream",
        ErrorCode.TRANSPORT,
        r"\bdisconnect(?:ion|ed) during stream(?:ing)?\b",
        "A proxy's log of a stream whose upstream connection dropped part-way: a stream "
        "that ended before its terminal event (docs/errors.md, policy 17).",
        (
            _ex(
                "recovered from upstream disconnection during streaming",
                "syv-ai/qwen38-27b-rtx3090#94",
            ),
        ),
    ),
    Rule(
        "node.premature-close",
        ErrorCode.TRANSPORT,
        r"\bPremature close\b",
        "Node's stream layer reports a body that closed before it ended (ADR 0015).",
        (
            _ex("Premature close", _S),
            _ex(
                "Error [ERR_STREAM_PREMATURE_CLOSE]: Premature close",
                "Node.js docs, ERR_STREAM_PREMATURE_CLOSE: https://nodejs.org/api/errors.html"
                "#err_stream_premature_close",
            ),
        ),
    ),
    Rule(
        "undici.terminated",
        ErrorCode.TRANSPORT,
        r"\bterminated\s*(?:$|\]|:\s*other side closed)"
        r"(?<=(?:^\s*|\b(?:TypeError|Error|error|err|failed|failure|exception)\W{1,4})"
        r"terminated[^\n]*)",
        "undici's bare 'terminated' is a mid-stream socket drop (ADR 0015); not 'RPC terminated'.",
        (
            _ex("terminated", _S),
            _ex(
                "TypeError: terminated\n    at Fetch.onAborted "
                "(node:internal/deps/undici/undici:11736:53)",
                "ericc-ch/copilot-api#148",
            ),
            _ex("[Stream] \u274c Stream error: [TypeError: terminated]", "LondonTipton/ai-chatbot"),
        ),
    ),
    Rule(
        "undici.socket",
        ErrorCode.TRANSPORT,
        r"\bother side closed\b|\bSocketError\b|\bsocket hang up\b|\bfetch\s{1,3}failed\b"
        r"|\bClient network socket disconnected before secure TLS connection was established\b",
        "Node/undici wordings for a connection that failed or closed under the request.",
        (
            _ex(
                "[cause]: SocketError: other side closed\n      at TLSSocket.onHttpSocketEnd",
                "ericc-ch/copilot-api#148",
            ),
            _ex("Error: socket hang up", "Node.js docs, http: https://nodejs.org/api/http.html"),
            _ex(
                "Fetch error: TypeError: fetch failed",
                "Metaculus/metaculus#660",
            ),
        ),
    ),
    Rule(
        "transport.connection",
        ErrorCode.TRANSPORT,
        r"\bconnection (?:was )?(?:reset|refused|aborted|closed|lost|dropped)\b"
        r"|\bConnection reset by peer\b|\bbroken pipe\b|\bpeer closed connection\b"
        r"|\bincomplete chunked read\b|\bServer disconnected\b"
        r"|\bRemote end closed connection\b|\bConnection broken\b"
        r"|\bAll connection attempts failed\b"
        r"|\bResponse payload is not completed\b|\bCannot connect to host\b"
        r"|\bConnection error\.|\bunexpected EOF\b|\bEOF occurred in violation of protocol\b"
        r"|\bFailed to establish a new connection\b|\bCannot connect to API\b"
        r"|\bEOF$(?<=\":\sEOF)",
        "Python/httpx/aiohttp/requests wordings for a dropped, refused or truncated connection.",
        (
            _ex(
                "('Connection aborted.', RemoteDisconnected('Remote end closed connection without "
                "response'))",
                "psf/requests src/requests/adapters.py (ConnectionError)",
            ),
            _ex(
                "Server disconnected without sending a response.",
                "encode/httpcore httpcore/_async/http11.py (RemoteProtocolError)",
            ),
            _ex(
                "aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host "
                "api.openai.com:443 ssl:default [Connection reset by peer]",
                "aio-libs/aiohttp aiohttp/client_exceptions.py (ClientConnectorError)",
            ),
            _ex(
                'Error: Post "http://127.0.0.1:11434/api/chat": EOF',
                "ollama/ollama#6238",
            ),
            _ex(
                "RetryError [AI_RetryError]: Failed after 3 attemps. Last error: Cannot connect "
                "to API: read ECONNRESET",
                "miurla/morphic#12 (Vercel AI SDK)",
            ),
        ),
    ),
    Rule(
        "go.http-eof",
        ErrorCode.TRANSPORT,
        r'(?-i:\b(?:Post|Get|Put|Patch|Delete) "[^"\n]{1,300}"\s{0,2}:\s{0,2}EOF\b)',
        "Go's net/http error for a response cut before it began ('Post \"…\" : EOF'): the "
        "connection was closed (Ollama's CLI, Go clients).",
        (
            _ex(
                'Error: Post "http://127.0.0.1/api/generate" : EOF',
                "ollama/ollama#241",
            ),
        ),
    ),
    Rule(
        "browser.fetch-network-error",
        ErrorCode.TRANSPORT,
        r"\bNetworkError when attempting to fetch resource\b|(?-i:\bLoad failed|\bFailed to"
        r" fetch)[ \t.]*$|\bTypeError: (?:Failed to fetch|Load failed)\b|\bAPI Request Fail"
        r"ed Connection Error\b",
        "Browser fetch network failures (Firefox NetworkError, Safari 'Load failed', Chrome"
        " 'Failed to fetch') and Cline's connection notice: no response arrived.",
        (
            _ex(
                "NetworkError when attempting to fetch resource.",
                "debpalash/VoiceStudio#454",
            ),
            _ex(
                "An error occurred during translation: Fordítási hiba (3 próbálkozás után):"
                " Load failed",
                "TTomas65/Subtitle-Translator-for-LM-Studio#6",
            ),
            _ex(
                "API Request Failed Connection Error",
                "cline/cline#1790",
            ),
        ),
    ),
    Rule(
        "transport.tls-dns",
        ErrorCode.TRANSPORT,
        r"\bCERTIFICATE_VERIFY_FAILED\b|\bcertificate verify failed\b|\bSSL handshake\b"
        r"|\bTLS handshake\b(?! timeout)|\bName or service not known\b"
        r"|\bnodename nor servname provided\b|\bTemporary failure in name resolution\b"
        r"|\bgetaddrinfo failed\b|\bNo address associated with hostname\b"
        r"|\bCould not resolve host\b|\bFailed to resolve\b",
        "TLS and DNS failures happen before the provider sees the request.",
        (
            _ex(
                "httpx.ConnectError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: "
                "unable to get local issuer certificate (_ssl.c:1006)",
                "encode/httpx docs, SSL: https://www.python-httpx.org/advanced/ssl/",
            ),
            _ex(
                "httpx.ConnectError: [Errno -3] Temporary failure in name resolution",
                "encode/httpx httpx/_transports/default.py (ConnectError)",
            ),
        ),
    ),
    Rule(
        "tls.openssl-errors",
        ErrorCode.TRANSPORT,
        r"\bSSL: (?-i:[A-Z][A-Z0-9_]{2,60})\]|\bself[- ]signed certificate detected\b",
        "TLS failures in OpenSSL's bracketed form ('[SSL: SSLV3_ALERT_BAD_RECORD_MAC]') "
        "and Claude Code's self-signed certificate notice: the connection failed "
        "(docs/errors.md, policy 17).",
        (
            _ex(
                "Error: API error from mistral (model: mistral-vibe-cli-latest): [SSL: "
                "SSLV3_ALERT_BAD_RECORD_MAC] ssl/tls alert bad record mac (_ssl.c:2710)",
                "mistralai/mistral-vibe#235",
            ),
            _ex(
                "API Error: Unable to connect to API: Self-signed certificate detected. "
                "Check your proxy or corporate SSL certificates",
                "anthropics/claude-code#74369",
            ),
        ),
    ),
    Rule(
        "dns.failed-host-lookup",
        ErrorCode.TRANSPORT,
        r"\bFailed host lookup\b",
        "Dart's DNS failure ('SocketException: Failed host lookup'): the host could not be "
        "resolved.",
        (
            _ex(
                "SocketException: Failed host lookup: 'api.openai.com' (OS Error: Host "
                "sconosciuto. , errno = 11001)",
                "anasfik/openai#149",
            ),
        ),
    ),
    Rule(
        "net.io-timeout",
        ErrorCode.TIMEOUT,
        "\\bi/o timeout\\b|\\btimeout awaiting response headers\\b|\\bno recent network act"
        "ivity\\b|\\bhandshake did not complete in time\\b|\\bdeadline has elapsed\\b|(?-i:"
        '\\bkind: TimedOut\\b|\\bKind\\(TimedOut\\)|\\bsource: TimedOut\\b|\\"kind\\":\\s?'
        '\\"TimedOut\\")',
        "Go net's 'i/o timeout' on dial/read/write, net/http's header wait, quic-go's idle "
        "and handshake timeouts, Rust tokio 'deadline has elapsed' and io kind TimedOut.",
        (
            _ex(
                'Post "https://api.openai.com/v1/chat/completions": dial tcp 31.13.75.12:44'
                "3: i/o timeout",
                "tmc/langchaingo#550",
            ),
            _ex(
                "write tcp 172.17.0.3:7777->220.72.40.154:47345: i/o timeout",
                "sashabaranov/go-openai#299",
            ),
            _ex(
                "timeout: no recent network activity",
                "klzgrad/naiveproxy#240",
            ),
        ),
    ),
    Rule(
        "curl.timeout",
        ErrorCode.TIMEOUT,
        r"\bTimeout was reached\b|\b(?:lib)?curl error:? 28\b",
        "libcurl's CURLE_OPERATION_TIMEDOUT (error 28, 'Timeout was reached'): a client timeout.",
        (
            _ex(
                "LogHttp: Warning: 0000084D47A5FA00: request failed, libcurl error: 28 "
                "(Timeout was reached)",
                "KellanM/OpenAI-Api-Unreal#19",
            ),
        ),
    ),
    Rule(
        "timeout.deadline-and-stall",
        ErrorCode.TIMEOUT,
        r"\bDeadline expired before operation could complete\b|\bmax stream duration reache"
        r"d\b|\bstall(?:ed)? timeout\b|\bstream(?:ing)? stall(?:ed)? detected\b|\bTimeout o"
        r"n (?:reading|sending|writing) data\b|\bI/O error on [A-Z]+ request for\b[^\n]{0,3"
        r"00}?:\s*timeout\b|\btimeout after \d+(?:\.\d+)?\s?(?:ms|s|secs?|seconds?|m|mins?|"
        r"minutes?)\b",
        "Deadlines and watchdogs: Google's DEADLINE_EXCEEDED text, Envoy's max stream durat"
        "ion, stream-stall watchdogs, aiohttp sock_read, Spring's I/O timeout, 'timeout aft"
        "er Ns'; band 4, so a 5xx status still decides (policy addition 2).",
        (
            _ex(
                "❌ Error calling LLM for projects section: 504 Deadline expired before ope"
                "ration could complete.",
                "interviewstreet/hiring-agent#284",
            ),
            _ex(
                "upstream max stream duration reached",
                "envoyproxy/envoy#19975",
            ),
            _ex(
                "[21:50:34] 🌊 [STREAM] KIRO | claude-opus-4.7 | 184848ms | error: stream s"
                "tall timeout",
                "decolua/9router#1229",
            ),
        ),
    ),
    Rule(
        "timeout.wording",
        ErrorCode.TIMEOUT,
        r"\btimed out\b|\btimeout (?:error|exceeded|expired|occurred)\b"
        r"|\b(?:read|connect|connection|request|response|socket|idle|stream|network"
        r"|handshake) timeout\b(?!\s*[=:]\s*\d)|\bdeadline exceeded\b|\bGateway Time-?out\b"
        r"|\baborted due to timeout\b",
        "Timeout wordings; a parameter merely *named* timeout does not match.",
        (
            _ex("Request timed out.", "openai/openai-python src/openai/_exceptions.py"),
            _ex(
                "The read operation timed out",
                "CPython Lib/ssl.py (read timeout on an SSL socket)",
            ),
        ),
    ),
    Rule(
        "provider.overloaded-503-body",
        ErrorCode.SERVER,
        r"\b(?:model is overloaded\.?\s{1,3}Please try again later|server is overloaded or "
        r"not ready yet)\b(?<!(?:\b429|\b529|RESOURCE_EXHAUSTED)\b[^\n]{0,160})",
        "503 bodies that say overloaded: Gemini's UNAVAILABLE 'The model is overloaded. Ple"
        "ase try again later.', OpenAI's ServiceUnavailableError 'The server is overloaded "
        "or not ready yet.' (policy rule 4: a 503 overload is SERVER); placed after the sta"
        "tuses, so a 429 carrying it stays RATE_LIMIT.",
        (
            _ex(
                "[ Server ] Error: Failed after 3 attempts. Last error: The model is overlo"
                "aded. Please try again later.",
                "network-goods-institute/negation-game#98",
            ),
        ),
    ),
    Rule(
        "overload.busy-wording",
        ErrorCode.RATE_LIMIT,
        r"\bservice is (?:currently |temporarily )?busy\b|\bservers? (?:are|is) running too "
        r"hot\b",
        "Overload notices with no status ('search service is busy … try again in a few "
        "minutes', 'Our Servers Are Running Too Hot!'): overload that says try later "
        "(docs/errors.md, policy 15); a 503 beside them decides first.",
        (
            _ex(
                "Sorry, DeepSeek’s search service is busy. Please disable search or try "
                "again in a few minutes.",
                "deepseek-ai/DeepSeek-R1#204",
            ),
            _ex(
                "Our Servers Are Running Too Hot! Please Check Back After Some Time.",
                "foyer-work/Ooogle-it#23",
            ),
        ),
    ),
    Rule(
        "capacity.exhausted",
        ErrorCode.RATE_LIMIT,
        r"\b(?:exhausted your capacity on this model|(?:model|service|server) is (?:currently "
        r"|temporarily )?at capacity|Capacity temporarily exceeded|out of capacity|experiencin"
        r"g high traffic|Resource exhausted\. Please try again later)\b",
        "Capacity exhaustion that says try again (Gemini Code Assist 'exhausted your capaci"
        "ty' with a reset in seconds, Codex 'at capacity', Workers AI 3040): RATE_LIMIT (po"
        "licy addition 7); a reset over an hour still becomes QUOTA_EXCEEDED (policy.long-r"
        "eset). Ranked below the statuses: under a 503 the status decides (SERVER).",
        (
            _ex(
                "You have exhausted your capacity on this model. Your quota will reset after 53s.",
                "router-for-me/CLIProxyAPI#1702",
            ),
            _ex(
                "✕ [API Error: Resource exhausted. Please try again later. Please refer to"
                "\n  https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 f"
                "or more\n  details.]",
                "google-gemini/gemini-cli#15911",
            ),
            _ex(
                "3040: Capacity temporarily exceeded, please try again.",
                "cloudflare/ai:packages/workers-ai-provider/test/workersai-error.test.ts",
            ),
        ),
    ),
    Rule(
        "overload.wording",
        ErrorCode.RATE_LIMIT,
        r"\boverloaded\b|\bover capacity\b|\bserver is busy\b|\bserver busy\b"
        r"|\bmaximum pending requests exceeded\b|\bhigh demand\b",
        "Overload that says 'try later' is throttling; a 503 status still makes it SERVER.",
        (
            _ex("Overloaded", "Anthropic API docs, errors (529 overloaded_error)"),
            _ex(
                "server busy, please try again.  maximum pending requests exceeded",
                "ollama/ollama server/sched.go (ErrMaxQueue)",
            ),
        ),
    ),
    Rule(
        "ratelimit.wording",
        ErrorCode.RATE_LIMIT,
        r"\brate[- ]?limit(?:ed)?\s+(?:exceeded|reached|hit|error)\b|\brate[- ]limited\b"
        r"|\bRate limit reached for\b|\bexceeded (?:your |the )?(?:[\w-]+ ){0,2}rate limit\b"
        r"|\bwould exceed the rate limit\b"
        r"|\btoo many requests\b|\bthrottled\b|\bquota exceeded\b|\bResource has been exhausted\b",
        "Throttling wordings (OpenAI, Azure, Mistral, Google per-minute quota).",
        (
            _ex(
                '{"message":"Requests rate limit exceeded"}',
                "pydantic/pydantic-ai#1885 (via docs/wire.md §9)",
            ),
            _ex(
                "Number of request tokens has exceeded your per-minute rate limit "
                "(https://docs.anthropic.com/en/api/rate-limits); see the response headers for "
                "current usage.",
                "cline/cline#42 (Anthropic)",
            ),
            _ex(
                "Failed after 3 attempts. Last error: This request would exceed the rate limit "
                "for your organization (a22cf6e6-a940-4fff-8c4c-1580816ac7be) of 1,000,000 input "
                "tokens per minute.",
                "stackblitz/bolt.new#8588 (Anthropic via the Vercel AI SDK)",
            ),
            _ex(
                "[429 Too Many Requests] Quota exceeded for quota metric 'Generate Content API "
                "requests per minute' and limit 'GenerateContent request limit per minute for a "
                "region' of service 'generativelanguage.googleapis.com'",
                "xtekky/gpt4free#1700",
            ),
        ),
    ),
    Rule(
        "gateway.request-failed",
        ErrorCode.SERVER,
        r"\bGateway request failed\b",
        "Vercel AI Gateway's wording when its upstream request failed: a gateway reporting "
        "a failed upstream (docs/errors.md, policy 5).",
        (
            _ex(
                "GatewayResponseError: Invalid error response format: Gateway request failed",
                "vercel/ai#17584",
            ),
        ),
    ),
    Rule(
        "abort.bare-notices",
        ErrorCode.ABORTED,
        r"(?-i:\bReason: Cancell?ed)[ \t]*$|(?-i:\bError: aborted)[ \t]*$(?![\s\S]{0,300}\bc"
        r"onnResetException\b)",
        "A bare cancellation as the whole reason ('Reason: Canceled', 'Error: aborted'): "
        "the text shows no timeout, so it stays ABORTED (docs/errors.md, policies 11 and "
        "22); Node's connection-reset 'aborted' carries connResetException and is left to "
        "the transport rules.",
        (
            _ex(
                "Sorry, your request failed. Please try again. \n\nReason: Canceled",
                "microsoft/vscode-copilot-release#11924",
            ),
            _ex(
                "Error: aborted",
                "openai/openai-node#655",
            ),
        ),
    ),
    Rule(
        "relay.upstream-failed",
        ErrorCode.SERVER,
        r"\bUpstream request failed\b|\bUpstream service (?:is )?temporarily unavailable\b|"
        r"\bGateway routing failed\b",
        "A relay (sub2api, routstr, a local gateway) reporting that its upstream failed is "
        "SERVER (policy rule 5); ranked below the statuses, so a relayed 4xx still decides."
        " Not the bisheng 'Upstream model request failed' notice (PROVIDER_ERROR).",
        (
            _ex(
                'errorMessage={"error": {"message": "Upstream request failed", "type": "ups'
                'tream_error", "code": 502}, "request_id": "32c3867f-e3dc-4750-8d61-dd7cb50'
                'e25a3"}',
                "Routstr/routstr-core#461",
            ),
            _ex(
                "unexpected status 503 Service Unavailable: Gateway routing failed, url: ht"
                "tp://127.0.0.1:18080/v1/responses",
                "dyedd/lens#38",
            ),
        ),
    ),
    Rule(
        "server.wording",
        ErrorCode.SERVER,
        r"\binternal server error\b|\bbad gateway\b|\bservice (?:temporarily )?unavailable\b"
        r"|\bAn internal error has occurred\b|\binternal error\b|\bProvider returned error\b"
        r"|\bllama runner process has terminated\b",
        "Provider-side failure wordings without a status.",
        (
            _ex(
                '{"detail": "Internal Server Error"}',
                "mistralai/client-python#103 (via docs/wire.md §9)",
            ),
            _ex(
                "500 An internal error has occurred. Please retry or report in "
                "https://developers.generativeai.google/guide/troubleshooting",
                "Gemini API troubleshooting: https://ai.google.dev/gemini-api/docs/troubleshooting",
            ),
            _ex("Provider returned error", "cline/cline#813 (OpenRouter)"),
            _ex(
                "Error: llama runner process has terminated: signal: killed",
                "ollama/ollama#6238",
            ),
        ),
    ),
    Rule(
        "auth.wording",
        ErrorCode.AUTH,
        r"\bunauthori[sz]ed\b|\bforbidden\b|\binvalid api key\b|\bauthentication failed\b"
        r"|\bmissing authentication\b|\bapi key (?:is )?(?:missing|expired|revoked)\b",
        "Auth failure wordings without a status (Mistral returns a bare 'Unauthorized').",
        (
            _ex(
                '{"message":"Unauthorized","request_id":"c61f2f15feca71626a990e3740f99245"}',
                "cline/cline#1734 (via docs/wire.md §9)",
            ),
        ),
    ),
    Rule(
        "invalid.request-prefix",
        ErrorCode.INVALID_REQUEST,
        r"\binvalid request: (?-i:[a-z])",
        "Cohere's 400 messages start 'invalid request: ' before the reason: a malformed "
        "request; quota, overflow and auth wordings sit higher in the table.",
        (
            _ex(
                "{\n  \"message\": \"All command-r-plus error: {'message': 'invalid "
                "request: message must be at least 1 token long or tool results must be "
                "specified.'}\"\n}",
                "yym68686/uni-api#6",
            ),
        ),
    ),
    Rule(
        "invalid.wording",
        ErrorCode.INVALID_REQUEST,
        r"\bmodel\s+\S+\s+not found\b|\bmodel (?:not found|does not exist)\b|\bInvalid model\b"
        r"|\bExtra inputs are not permitted\b|\bTool call id was\b|\bUnexpected role\b"
        r"|\bUnrecognized request argument\b|\bNot the same number of function calls\b"
        r"|\bmust have either content or tool_calls\b|\bdoes not support tools\b",
        "Malformed-request wordings (Mistral tool ids and roles, unknown models, extra fields).",
        (
            _ex(
                '{"object":"error","message":"Unexpected role \'user\' after role \'tool\'",'
                '"type":"invalid_request_message_order","param":null,"code":"3230"}',
                "datapizza-labs/datapizza-ai#98 (via docs/wire.md §9)",
            ),
            _ex(
                'model "llama3" not found, try pulling it first',
                "ollama/ollama docs, api.md (pull a model first)",
            ),
            _ex(
                '{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body",'
                '"max_completion_tokens"],"msg":"Extra inputs are not permitted","input":32000}]},'
                '"type":"invalid_request_error","param":null,"code":null}',
                "editor-code-assistant/eca#231 (via docs/wire.md §9)",
            ),
        ),
    ),
)
