"""The cut-stream scenario and its continuation check, with plain httpx over real sockets."""

import json

import httpx
import pytest

from adapter.testing import CutStream, FakeMistral, Script

pytestmark = pytest.mark.integration

SCRIPT = Script(thinking="Hmm, six sevens.", text="It is 42.", piece=4)
REQUEST = {"model": "magistral-medium-latest", "messages": [{"role": "user", "content": "6*7?"}]}


def post(fake: FakeMistral, body: dict[str, object]) -> httpx.Response:
    with httpx.Client(timeout=10) as client:
        request = client.build_request("POST", fake.chat_url, json=body)
        response = client.send(request, stream=True)
        try:
            response.read()
        except httpx.RemoteProtocolError:
            pass  # the cut
        finally:
            response.close()
        return response


def continuation(prefix: object) -> dict[str, object]:
    message = {"role": "assistant", "content": prefix, "prefix": True}
    return {**REQUEST, "messages": [*REQUEST["messages"], message]}  # type: ignore[list-item]


def test_what_a_cut_delivers_is_the_whole_events_before_it():
    body = CutStream(SCRIPT, at=0).body
    events = body.split(b"\n\n")[:-1]
    at = sum(len(event) + 2 for event in events[:3]) + 5  # three events and a bit
    cut = CutStream(SCRIPT, at=at)
    assert cut.delivered_thinking == "Hmm, six"  # role chunk, then two pieces of four
    assert cut.delivered_text == ""
    assert cut.continues
    last = CutStream(SCRIPT, at=len(body) - 1)
    assert last.finished
    assert not last.continues


def test_the_fake_answers_the_right_continuation_with_the_rest():
    cut = CutStream(SCRIPT, at=len(CutStream(SCRIPT, at=0).body) - 200)
    with FakeMistral(cut) as fake:
        post(fake, REQUEST)
        prefix = [
            {"type": "thinking", "thinking": [{"type": "text", "text": cut.delivered_thinking}]},
            {"type": "text", "text": cut.delivered_text},
        ]
        response = post(fake, continuation(prefix))
        assert fake.pending == 0
    assert response.status_code == 200
    data = [
        json.loads(line[len(b"data: ") :])
        for line in response.content.splitlines()
        if line.startswith(b"data: {")
    ]
    text = "".join(
        c["choices"][0]["delta"]["content"]
        for c in data
        if isinstance(c["choices"][0]["delta"].get("content"), str)
    )
    parts = [
        p["text"]
        for c in data
        if isinstance(c["choices"][0]["delta"].get("content"), list)
        for p in c["choices"][0]["delta"]["content"]
        if p["type"] == "text"
    ]
    assert text + "".join(parts) == cut.delivered_text + SCRIPT.text[len(cut.delivered_text) :]


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (continuation("It is"), "the prefix's thinking is not what was delivered"),
        ({**REQUEST, "temperature": 0.5}, "changed a request field other than messages"),
        (REQUEST, "the last message is not an assistant message with prefix: true"),
    ],
)
def test_the_fake_refuses_a_wrong_continuation_naming_why(body, why):
    cut = CutStream(SCRIPT, at=len(CutStream(SCRIPT, at=0).body) - 200)
    assert cut.delivered_text
    with FakeMistral(cut) as fake:
        post(fake, REQUEST)
        response = post(fake, body)
    assert response.status_code == 400
    assert why in response.json()["message"]


def test_no_continuation_is_queued_for_a_cut_that_will_not_be_resumed():
    script = Script(text="Looking.", tool_calls=[("lookup", '{"q": "weather in Paris"}')], piece=3)
    body = CutStream(script, at=0).body
    cut = CutStream(script, at=body.index(b"lookup") + 300)
    assert cut.in_tool_call
    with FakeMistral(cut) as fake:
        post(fake, REQUEST)
        assert fake.pending == 0


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"script": "text", "at": 0}, TypeError, "script must be a Script"),
        ({"script": SCRIPT, "at": -1}, ValueError, "at"),
        ({"script": SCRIPT, "at": 10**6}, ValueError, "below the body's"),
        ({"script": SCRIPT, "at": 0, "reset": 1}, TypeError, "reset"),
    ],
)
def test_bad_cuts_fail_where_they_are_written(kwargs, error, match):
    with pytest.raises(error, match=match):
        CutStream(**kwargs)


def test_bad_scripts_fail_where_they_are_written():
    with pytest.raises(ValueError, match="piece"):
        Script(text="x", piece=0)
