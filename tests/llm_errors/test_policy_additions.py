"""The later policies of ``docs/errors.md``, each on real strings.

The strings are read from ``tests/llm_errors/corpus`` by id, so each case is a message
seen in public and its label is the one the corpus gives it.
"""

import json
from pathlib import Path

from llm_errors import ErrorCode, classify

CORPUS = Path(__file__).resolve().parent / "corpus"
ENTRIES = {
    record["id"]: record
    for path in CORPUS.glob("*.jsonl")
    for record in map(json.loads, path.read_text(encoding="utf-8").splitlines())
}

CASES = [
    ("9-region", "auth-gemini-006", ErrorCode.AUTH),
    ("9-iam", "auth-bedrock-014", ErrorCode.AUTH),
    ("9-service-disabled", "auth-geminicli-011", ErrorCode.AUTH),
    ("9-missing-key", "auth-openai-007", ErrorCode.AUTH),
    ("9-oauth-reused", "auth-codex-003", ErrorCode.AUTH),
    ("10-backend-cancel", "server-gemini-014", ErrorCode.SERVER),
    ("10-local-grpc-cancel", "aborted-triton-001", ErrorCode.ABORTED),
    ("10-agent-interrupt", "aborted-claudecode-004", ErrorCode.ABORTED),
    ("10-keyboard-interrupt", "aborted-aider-002", ErrorCode.ABORTED),
    ("10-client-went-away", "aborted-vllm-001", ErrorCode.ABORTED),
    ("11-dotnet-timeout", "timeout-dotnet-001", ErrorCode.TIMEOUT),
    ("11-axios-timeout", "timeout-claudecode-001", ErrorCode.TIMEOUT),
    ("2-free-tier-day", "freshb-044", ErrorCode.QUOTA_EXCEEDED),
    ("12-malformed-call", "cf-vertexai-002", ErrorCode.PROVIDER_ERROR),
    ("12-output-over-bare-5xx", "freshb-106", ErrorCode.PROVIDER_ERROR),
    ("12-tool-call-parse-500", "freshb-101", ErrorCode.PROVIDER_ERROR),
    ("12-empty-accessor", "freshb-183", ErrorCode.PROVIDER_ERROR),
    ("12-recitation", "freshb-035", ErrorCode.CONTENT_FILTER),
    ("13-proxy-budget", "q-litellm-001", ErrorCode.QUOTA_EXCEEDED),
    ("13-subscription-clock", "q-anthropic-007", ErrorCode.QUOTA_EXCEEDED),
    ("14-per-minute-quota", "ratelimit-gemini-001", ErrorCode.RATE_LIMIT),
    ("14-request-over-tpm", "fresha-groq-075", ErrorCode.CONTEXT_OVERFLOW),
    ("15-capacity", "ratelimit-gemini-007", ErrorCode.RATE_LIMIT),
    ("16-overflow-under-500", "context-llamacpp-001", ErrorCode.CONTEXT_OVERFLOW),
    ("17-grpc-connect", "transport-googleapicore-001", ErrorCode.TRANSPORT),
    ("17-tls", "transport-aiohttp-004", ErrorCode.TRANSPORT),
    ("17-aiohttp-parser-400", "transport-aiohttp-013", ErrorCode.TRANSPORT),
    ("17-winsock-10054", "transport-urllib3-004", ErrorCode.TRANSPORT),
    ("17-winsock-10060", "timeout-python-006", ErrorCode.TIMEOUT),
    ("18-no-endpoints", "inv-openrouter-004", ErrorCode.INVALID_REQUEST),
    ("19-retired-model", "inv-groq-003", ErrorCode.INVALID_REQUEST),
    ("20-invalid-prompt", "cf-openai-002", ErrorCode.CONTENT_FILTER),
    ("20-content-risk", "cf-deepseek-002", ErrorCode.CONTENT_FILTER),
]


def test_policy_addition(table):
    """The corpus string behind each policy point classifies to the point's code."""

    def check(entry, code):
        record = ENTRIES[entry]
        assert ErrorCode(record["code"]) is code  # the corpus agrees with the policy
        assert classify(record["text"]).code is code

    table.check(((i, (entry, code)) for i, entry, code in CASES), check)
