"""Provider and model names, taken only where a message names them.

The messages are lines of examples/sample.log and examples/sample.jsonl.
"""

import pytest

from llm_errors.logs._providers import NAME_LIMIT, names, record_names


@pytest.mark.parametrize(
    ("text", "provider", "model"),
    [
        pytest.param(
            "router.chat: completion failed for request req_Zt81Qw2e "
            "(provider openai, model gpt-4o)",
            "openai",
            "gpt-4o",
            id="provider-and-model-words",
        ),
        pytest.param(
            "router.chat: openai/gpt-4o throttled: Rate limit reached for gpt-4o in organization",
            "openai",
            "gpt-4o",
            id="provider-slash-model",
        ),
        pytest.param(
            'httpx: HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 529 "',
            "anthropic",
            None,
            id="host",
        ),
        pytest.param(
            "router.chat: azure call failed: Error code: 400 - {'error': {'message': \"The "
            "response was filtered due to the prompt triggering Azure OpenAI's content",
            "azure",
            None,
            id="first-named-wins",
        ),
        pytest.param(
            'router.chat: ollama call failed: model "llama3.2:70b" not found, try pulling it first',
            "ollama",
            "llama3.2:70b",
            id="quoted-model",
        ),
        pytest.param(
            "router.chat: gemini call failed: 429 RESOURCE_EXHAUSTED.",
            "google",
            None,
            id="gemini-is-google",
        ),
        pytest.param(
            "Rate limit reached for model `llama-3.3-70b-versatile` in organization `org_01hx`",
            None,
            "llama-3.3-70b-versatile",
            id="model-only",
        ),
        pytest.param(
            "router.chat: request req_Cc3dEe4F served by mistral/mistral-large-latest in 2981 ms",
            "mistral",
            "mistral-large-latest",
            id="mistral-family",
        ),
        pytest.param(
            "router.jobs: job 8812 failed: KeyError: 'choices'", None, None, id="names-nothing"
        ),
        pytest.param(
            "router.agent: pi-ai turn failed: Anthropic stream ended before message_stop",
            "anthropic",
            None,
            id="any-case",
        ),
        pytest.param(
            "router.chat: incoherent reply from model TinyLlama/TinyLlama-1.1B-Chat-v1.0",
            None,
            "tinyllama/tinyllama-1.1b-chat-v1.0",
            id="inside-words-not-names",
        ),
        pytest.param(
            "This model's maximum context length is 128000 tokens.", None, None, id="model-word"
        ),
        pytest.param(
            "router.chat: requests came in together with retries", None, None, id="english-word"
        ),
    ],
)
def test_names(text, provider, model):
    """The first provider and model a message names, and nothing it does not name."""
    assert names(text) == (provider, model)


def test_names_take_each_from_the_first_text_naming_it():
    """The log line before a traceback names the model; the exception line the provider."""
    line = "router.chat: completion failed for request req_Pp02NnA4 (model gpt-4o-mini)"
    assert names(line, "openai.APIConnectionError: Connection error.") == ("openai", "gpt-4o-mini")
    assert names(None, "", "openai.APIConnectionError") == ("openai", None)


def test_secret_looking_and_long_names_dropped():
    """A model name that looks like a key, or is too long, is not shown."""
    assert names("model: sk-proj-abcdefghijklmnopqrstuvwx failed") == (None, None)
    assert names(f"model={'a1' * NAME_LIMIT}") == (None, None)


def test_record_fields_win_over_text():
    """A record's own provider and model fields are believed first."""
    record = {"provider": "Together", "model": "meta-llama/Llama-3-70b", "msg": "openai failed"}
    assert record_names(record, "openai failed: model gpt-4o") == (
        "together",
        "meta-llama/llama-3-70b",
    )
    assert record_names({"model": 7, "provider": ""}, "openrouter request failed") == (
        "openrouter",
        None,
    )
