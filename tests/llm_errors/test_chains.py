"""Explicit causes explain, implicit contexts do not outrank (policy explicit-cause)."""

import json
from pathlib import Path

import httpx
import pytest

from llm_errors import ErrorCode, classify
from llm_errors.logs import main
from llm_retry import RetryPolicy, instant_retries

REQUEST = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
CORPUS = Path(__file__).resolve().parent / "corpus" / "aborted_auth.jsonl"


def _refuse() -> None:
    raise httpx.ConnectError("[Errno 111] Connection refused", request=REQUEST)


def _unauthorized() -> None:
    response = httpx.Response(401, request=REQUEST, json={"error": {"message": "Unauthorized"}})
    raise httpx.HTTPStatusError(
        "Client error '401 Unauthorized'", request=REQUEST, response=response
    )


def _auth_after_connect_failure() -> None:
    """The fall-back-to-another-provider pattern: a 401 raised while handling a refusal."""
    try:
        _refuse()
    except httpx.ConnectError:
        _unauthorized()


def _wrapper_after_connect_failure() -> None:
    try:
        _refuse()
    except httpx.ConnectError:
        raise RuntimeError("every provider failed")  # noqa: B904 - the context is the point


def _time_out() -> None:
    raise httpx.ReadTimeout("timed out", request=REQUEST)


def _wrapper_of_timeout() -> None:
    try:
        _time_out()
    except httpx.ReadTimeout as err:
        raise RuntimeError("the call failed") from err


def test_final_error_outranks_its_implicit_context():
    """A 401 raised inside ``except ConnectError`` is AUTH, not TRANSPORT."""
    with pytest.raises(httpx.HTTPStatusError) as caught:
        _auth_after_connect_failure()
    result = classify(caught.value)
    assert result.code is ErrorCode.AUTH
    assert result.status == 401


def test_retry_does_not_retry_the_401():
    """The retry decorator makes one attempt for it, not max_attempts."""
    calls = []

    def call():
        calls.append(1)
        _auth_after_connect_failure()

    with instant_retries(), pytest.raises(httpx.HTTPStatusError):
        RetryPolicy(max_attempts=3, on_retry=None).wrap(call)()
    assert len(calls) == 1


def test_context_decides_when_the_final_error_says_nothing():
    """A bare wrapper raised while handling a refusal still reads the refusal."""
    with pytest.raises(RuntimeError) as caught:
        _wrapper_after_connect_failure()
    assert classify(caught.value).code is ErrorCode.TRANSPORT


def test_explicit_cause_still_refines():
    """``raise … from err`` keeps its cause's evidence (a wrapper of a timeout is TIMEOUT)."""
    with pytest.raises(RuntimeError) as caught:
        _wrapper_of_timeout()
    assert classify(caught.value).code is ErrorCode.TIMEOUT


def _final_line() -> str:
    """Openai's real 401 as logged (corpus entry auth-openai-005, popjane/free_chatgpt_api#3)."""
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["id"] == "auth-openai-005":
            return record["text"]
    raise AssertionError("auth-openai-005 is not in the corpus")


def test_logged_chain_is_classified_by_its_final_exception(tmp_path, capsys):
    """In a logged traceback the last exception decides, so ``--fail-on AUTH`` fails."""
    log = tmp_path / "app.log"
    log.write_text(
        "Traceback (most recent call last):\n"
        '  File "app.py", line 10, in call\n'
        "    return primary.chat(messages)\n"
        "httpx.ConnectError: [Errno 111] Connection refused\n"
        "\n"
        "During handling of the above exception, another exception occurred:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "app.py", line 12, in call\n'
        "    return fallback.chat(messages)\n" + _final_line() + "\n",
        encoding="utf-8",
    )
    assert main(["classify", str(log), "--format", "jsonl", "--fail-on", "AUTH"]) == 1
    out = capsys.readouterr().out
    assert '"AUTH"' in out
    assert '"TRANSPORT"' not in out
