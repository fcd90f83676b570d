"""The pattern table: every wording we recognise, as data.

Each :class:`Rule` has an id, the :class:`~llm_errors.ErrorCode` it routes to, a
``regex`` pattern (compiled case-insensitively and multi-line), a one-line
rationale and real-world examples with their public source. ``RULES`` is ordered:
**the order is the precedence**. When several rules match one message, the rule
that comes first wins, and structured evidence (an HTTP status, a provider's
error ``type``/``code``) takes the position of the rule it maps to (see
``_status.py``). The bands, in order:

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

    .. versionadded:: 0.1.0
    """

    id: str
    code: ErrorCode
    pattern: str
    why: str
    examples: tuple[Example, ...] = ()

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


_S = "ADR 0015 (pi-ai transport truncations, docs/adr/0015-flattened-transport-errors.md)"

RULES: tuple[Rule, ...] = (
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
    # ------------------------------------------------------- band 3: HTTP status context
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
                "<_InactiveRpcError of RPC that terminated with:\n\tstatus = "
                'StatusCode.UNAVAILABLE\n\tdetails = "failed to connect to all addresses"',
                "grpc/grpc src/python/grpcio/grpc/_channel.py (_InactiveRpcError)",
            ),
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
        r"\bother side closed\b|\bSocketError\b|\bsocket hang up\b|\bfetch failed\b"
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
