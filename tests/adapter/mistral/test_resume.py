"""Resuming a cut stream, sync and async, over real HTTP against ``FakeMistral``."""

import asyncio
import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapter import (
    AsyncMistralAdapter,
    Context,
    MistralAdapter,
    ResumeRefusal,
    StreamOptions,
    Timeouts,
    partial_of,
    resume_refusal,
)
from adapter._mistral.resume import Seam
from adapter.pi import UserMessage
from adapter.testing import (
    CutStream,
    Drop,
    FakeMistral,
    Pause,
    Reply,
    Script,
    Stream,
    error_object,
    finish_chunk,
    role_chunk,
    text_chunk,
    thinking_chunk,
    usage_info,
    usage_only_chunk,
)
from llm_errors import ErrorCode, LlmError
from llm_retry import RetryBudget, RetryPolicy, instant_retries

pytestmark = pytest.mark.integration

KEY = "test-key-for-the-fake"
MODEL = "magistral-medium-latest"
CONTEXT = Context(messages=[UserMessage(content="What is six times seven?", timestamp=1)])
FLAVOURS = [pytest.param("sync", id="sync"), pytest.param("async", id="async")]
SCRIPT = Script(
    thinking="Six sevens: 7, 14, 21, 28, 35, 42.",
    text="Six times seven is 42, the answer to everything.",
    piece=5,
)


class Outcome:
    """The events of one call and its error, if any."""

    def __init__(self, events: list[Any], error: LlmError | None) -> None:
        self.events = events
        self.error = error

    @property
    def message(self) -> Any:
        """The final message: the error's partial, or the terminal event's."""
        if self.error is not None:
            return partial_of(self.error)
        return self.events[-1].message if self.events[-1].type == "done" else self.events[-1].error

    def text(self, kind: str = "text") -> str:
        """The message's text (or thinking), its blocks joined."""
        key = "text" if kind == "text" else "thinking"
        return "".join(getattr(b, key) for b in self.message.content if b.type == kind)


def run(
    flavour: str, url: str, *, options: StreamOptions | None = None, **settings: Any
) -> Outcome:
    """Stream one reply with a fresh adapter; resume on unless ``settings`` say otherwise."""
    settings.setdefault("api_key", KEY)
    settings.setdefault("resume", True)
    if flavour == "sync":
        events: list[Any] = []
        with MistralAdapter(base_url=url, **settings) as adapter:
            try:
                for event in adapter.stream(MODEL, CONTEXT, options):
                    events.append(event)  # noqa: PERF402 - keeps what came before an error
            except LlmError as exc:
                return Outcome(events, exc)
        return Outcome(events, None)

    async def main() -> Outcome:
        events: list[Any] = []
        async with AsyncMistralAdapter(base_url=url, **settings) as adapter:
            try:
                async for event in adapter.stream(MODEL, CONTEXT, options):
                    events.append(event)  # noqa: PERF401 - keeps what came before an error
            except LlmError as exc:
                return Outcome(events, exc)
        return Outcome(events, None)

    return asyncio.run(main())


def check_one_message(outcome: Outcome) -> None:
    """One ``start``, one terminal event, blocks opened once each, in order, never reopened."""
    types = [event.type for event in outcome.events]
    assert types.count("start") == 1
    assert types[0] == "start"
    assert types.count("done") + types.count("error") <= 1
    opened: list[int] = []
    for event in outcome.events:
        if event.type.endswith("_start") and event.type != "start":
            assert event.contentIndex == len(opened)
            opened.append(event.contentIndex)
        elif event.type.endswith(("_delta", "_end")):
            assert event.contentIndex == opened[-1]  # only the open block grows


def body_len(script: Script) -> int:
    return len(CutStream(script, at=0).body)


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("repeat", [True, False], ids=["repeats", "fresh"])
def test_a_cut_anywhere_in_thinking_or_text_ends_equal_to_the_reference(flavour, repeat):
    offsets = [*range(0, body_len(SCRIPT), 41), body_len(SCRIPT) - 1]  # the last: in [DONE]
    for at in offsets:
        cut = CutStream(SCRIPT, at=at, repeat_prefix=repeat)
        with FakeMistral(cut) as fake:
            outcome = run(flavour, fake.url)
            assert outcome.text("thinking") == SCRIPT.thinking, at
            assert outcome.text() == SCRIPT.text, at
            check_one_message(outcome)
            assert len(fake.requests) == (2 if cut.continues else 1)
            if cut.continues:
                assert outcome.error is None, (at, outcome.error)
                assert outcome.message.stopReason == "stop"
                assert outcome.message.providerPayload == {"resumes": 1}
            else:  # the finish chunk arrived, [DONE] was cut: whole, but not resumed
                assert resume_refusal(outcome.error) is ResumeRefusal.FINISHED


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_continuation_carries_the_delivered_content_as_a_prefix(flavour):
    at = body_len(SCRIPT) * 3 // 4  # inside the text, after the thinking
    cut = CutStream(SCRIPT, at=at)
    assert cut.delivered_text
    with FakeMistral(cut) as fake:
        outcome = run(flavour, fake.url)
        first, second = (request.json() for request in fake.requests)
    assert outcome.error is None
    assert second["messages"][:-1] == first["messages"]
    assert second["messages"][-1] == {
        "role": "assistant",
        "content": [
            {
                "type": "thinking",
                "thinking": [{"type": "text", "text": SCRIPT.thinking}],
                "closed": True,
            },
            {"type": "text", "text": cut.delivered_text},
        ],
        "prefix": True,
    }
    assert {k: v for k, v in second.items() if k != "messages"} == {
        k: v for k, v in first.items() if k != "messages"
    }


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_cut_inside_thinking_asks_the_model_to_think_on(flavour):
    cut = CutStream(SCRIPT, at=body_len(Script(thinking=SCRIPT.thinking, piece=5)) // 2)
    assert cut.delivered_thinking
    assert not cut.delivered_text
    with FakeMistral(cut) as fake:
        outcome = run(flavour, fake.url)
        prefix = fake.requests[1].json()["messages"][-1]
    assert outcome.text("thinking") == SCRIPT.thinking
    assert prefix["content"] == [
        {
            "type": "thinking",
            "thinking": [{"type": "text", "text": cut.delivered_thinking}],
            "closed": False,
        }
    ]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_text_only_prefix_is_a_string_and_usage_is_summed(flavour):
    first = Stream(
        [role_chunk(), usage_only_chunk(usage_info(5, 1)), text_chunk("Hello"), Drop()], done=False
    )
    second = Stream(
        [
            role_chunk(),
            text_chunk("Hel"),
            text_chunk("lo wor"),
            text_chunk("ld"),
            finish_chunk(usage=usage_info(7, 3)),
        ]
    )
    with FakeMistral(first, second) as fake:
        outcome = run(flavour, fake.url)
        prefix = fake.requests[1].json()["messages"][-1]
    assert prefix == {"role": "assistant", "content": "Hello", "prefix": True}
    assert outcome.text() == "Hello world"
    assert [e.delta for e in outcome.events if e.type == "text_delta"] == ["Hello", " wor", "ld"]
    usage = outcome.message.usage
    assert (usage.input, usage.output, usage.totalTokens) == (12, 4, 16)


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_cut_inside_a_tool_call_is_not_resumed(flavour):
    script = Script(text="Let me look.", tool_calls=[("get_weather", '{"city": "Paris"}')], piece=4)
    body = CutStream(script, at=0).body
    at = body.index(b'"tool_calls"') + 400  # well inside the second fragment
    cut = CutStream(script, at=min(at, len(body) - 200))
    assert cut.in_tool_call
    assert not cut.continues
    with FakeMistral(cut) as fake:
        outcome = run(flavour, fake.url)
        assert len(fake.requests) == 1
    assert outcome.error is not None
    assert outcome.error.code is ErrorCode.TRANSPORT
    assert resume_refusal(outcome.error) is ResumeRefusal.TOOL_CALL
    assert "not resumed: tool_call" in outcome.error.__notes__
    assert outcome.text() == "Let me look."


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_stalled_stream_is_resumed_after_its_read_timeout(flavour):
    """A ``TIMEOUT`` cut (no data for ``timeouts.read``) is continued like a dropped one."""
    stalled = Stream([role_chunk(), text_chunk("Hello"), Pause(10), finish_chunk()])
    rest = Stream([role_chunk(), text_chunk("Hello, world"), finish_chunk()])
    with FakeMistral(stalled, rest) as fake:
        outcome = run(flavour, fake.url, timeouts=Timeouts(read=0.5))
        assert len(fake.requests) == 2
    assert outcome.error is None
    assert outcome.text() == "Hello, world"
    check_one_message(outcome)


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_structured_output_is_not_resumed(flavour):
    cut = CutStream(Script(text='{"answer": 42, "unit": "none"}', piece=4), at=150)
    with FakeMistral(cut) as fake:
        outcome = run(flavour, fake.url, options=StreamOptions(response_format="json_object"))
        assert len(fake.requests) == 1
    assert resume_refusal(outcome.error) is ResumeRefusal.STRUCTURED_OUTPUT


def cut_text(text: str) -> Stream:
    return Stream([role_chunk(), text_chunk(text), Drop()], done=False)


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize(("max_resumes", "error"), [(1, ResumeRefusal.LIMIT), (2, None)])
def test_max_resumes_bounds_the_continuations(flavour, max_resumes, error):
    rest = Stream([role_chunk(), text_chunk("Hello world!"), finish_chunk()])
    with FakeMistral(cut_text("Hello"), cut_text("Hello world"), rest) as fake:
        outcome = run(flavour, fake.url, max_resumes=max_resumes)
        assert len(fake.requests) == max_resumes + 1
    if error is None:
        assert outcome.error is None
        assert outcome.text() == "Hello world!"
        assert outcome.message.providerPayload == {"resumes": 2}
    else:
        assert resume_refusal(outcome.error) is error
        assert outcome.text() == "Hello world"  # the continuation's text is kept


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_refused_continuation_raises_its_error_with_the_partial(flavour):
    refusal = Reply(400, error_object("Assistant message with prefix True must be last message"))
    with FakeMistral(cut_text("Hello"), refusal) as fake:
        outcome = run(flavour, fake.url)
        assert len(fake.requests) == 2
    assert outcome.error.code is ErrorCode.INVALID_REQUEST
    assert resume_refusal(outcome.error) is ResumeRefusal.REFUSED
    assert outcome.text() == "Hello"
    assert outcome.message.stopReason == "error"


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_continuation_that_fails_before_output_is_retried_by_the_policy(flavour):
    busy = Reply(429, error_object("Rate limit exceeded"), headers={"Retry-After": "1"})
    rest = Stream([role_chunk(), text_chunk("Hello world"), finish_chunk()])
    with instant_retries(), FakeMistral(cut_text("Hello"), busy, rest) as fake:
        outcome = run(flavour, fake.url, retry=RetryPolicy(max_attempts=3))
        assert len(fake.requests) == 3
    assert outcome.error is None
    assert outcome.text() == "Hello world"


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_server_error_after_output_is_not_a_cut(flavour):
    broken = Stream([role_chunk(), text_chunk("Hello"), finish_chunk("error")])
    with FakeMistral(broken) as fake:
        outcome = run(flavour, fake.url)
        assert len(fake.requests) == 1
    assert outcome.error.code is ErrorCode.SERVER
    assert resume_refusal(outcome.error) is ResumeRefusal.NOT_A_CUT


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize(
    ("adapter_resume", "option", "resumed"),
    [(False, None, False), (False, True, True), (True, False, False), (True, None, True)],
)
def test_resume_is_opt_in_per_adapter_and_per_call(flavour, adapter_resume, option, resumed):
    rest = Stream([role_chunk(), text_chunk("Hello world"), finish_chunk()])
    with FakeMistral(cut_text("Hello"), rest) as fake:
        outcome = run(
            flavour, fake.url, resume=adapter_resume, options=StreamOptions(resume=option)
        )
        assert len(fake.requests) == (2 if resumed else 1)
    if resumed:
        assert outcome.text() == "Hello world"
    else:
        assert outcome.error.code is ErrorCode.TRANSPORT
        assert resume_refusal(outcome.error) is None  # resume off: the error as before
        assert not getattr(outcome.error, "__notes__", [])


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_policys_deadline_bounds_a_resume(flavour):
    readings = itertools.chain([0.0], itertools.repeat(1000.0))
    policy = RetryPolicy(deadline=60.0, clock=lambda: next(readings))
    with FakeMistral(cut_text("Hello")) as fake:
        outcome = run(flavour, fake.url, retry=policy)
        assert len(fake.requests) == 1
    assert resume_refusal(outcome.error) is ResumeRefusal.DEADLINE


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_each_resume_spends_a_token_of_the_policys_budget(flavour):
    budget = RetryBudget(capacity=1, refill=0)
    policy = RetryPolicy(budget=budget)
    rest = Stream([role_chunk(), text_chunk("Hello world"), finish_chunk()])
    with FakeMistral(cut_text("Hello"), rest, cut_text("Hello")) as fake:
        assert run(flavour, fake.url, retry=policy).error is None
        assert budget.tokens == 0
        outcome = run(flavour, fake.url, retry=policy)
        assert len(fake.requests) == 3
    assert resume_refusal(outcome.error) is ResumeRefusal.BUDGET


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_never_raise_ends_with_the_spliced_done_or_the_refused_error(flavour):
    rest = Stream([role_chunk(), text_chunk("Hello world"), finish_chunk()])
    with FakeMistral(
        cut_text("Hello"), rest, cut_text("Hello"), Reply(400, error_object("no"))
    ) as fake:
        done = run(flavour, fake.url, options=StreamOptions(never_raise=True))
        failed = run(flavour, fake.url, options=StreamOptions(never_raise=True))
    assert done.events[-1].type == "done"
    assert done.text() == "Hello world"
    assert failed.events[-1].type == "error"
    assert failed.text() == "Hello"
    check_one_message(done)
    check_one_message(failed)


@pytest.mark.parametrize(
    ("settings", "error", "match"),
    [
        ({"resume": 1}, TypeError, "resume must be a bool"),
        ({"max_resumes": 0}, ValueError, "max_resumes must be 1 to 10"),
        ({"max_resumes": 11}, ValueError, "max_resumes must be 1 to 10"),
        ({"max_resumes": True}, TypeError, "max_resumes must be an int"),
    ],
)
def test_bad_resume_settings_fail_at_construction(settings, error, match):
    with pytest.raises(error, match=match):
        MistralAdapter(api_key=KEY, **settings)


# --- the seam, pure ------------------------------------------------------------------


def chunked(segments: list[tuple[str, str]], cuts: list[int]) -> list[bytes]:
    """``segments`` as wire chunks, each segment's text split at ``cuts`` positions."""
    out = [json.dumps(role_chunk()).encode()]
    for kind, text in segments:
        points = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
        for start, end in itertools.pairwise(points):
            piece = text[start:end]
            chunk = thinking_chunk(piece) if kind == "thinking" else text_chunk(piece, typed=True)
            out.append(json.dumps(chunk).encode())
    return out


def content_of(payloads: list[bytes]) -> list[tuple[str, str]]:
    """The ``(kind, text)`` pieces the payloads add, merged per kind run."""
    merged: list[tuple[str, str]] = []
    for data in payloads:
        chunk = json.loads(data)
        content = chunk["choices"][0]["delta"].get("content") if chunk["choices"] else None
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for part in parts:
            kind = part["type"]
            text = part["text"] if kind == "text" else "".join(p["text"] for p in part["thinking"])
            if not text:
                continue
            if merged and merged[-1][0] == kind:
                merged[-1] = (kind, merged[-1][1] + text)
            else:
                merged.append((kind, text))
    return merged


segment = st.tuples(st.sampled_from(["text", "thinking"]), st.text(min_size=1, max_size=12))


@settings(max_examples=300, deadline=None)
@given(
    delivered=st.lists(segment, max_size=3),
    rest=st.lists(segment, max_size=3),
    cuts=st.lists(st.integers(0, 20), max_size=4),
    repeats=st.booleans(),
)
def test_the_seam_lets_through_exactly_what_follows_the_delivered_content(
    delivered, rest, cuts, repeats
):
    seam = Seam(delivered)
    whole = (delivered if repeats else []) + rest
    out = [data for payload in chunked(whole, cuts) for data in seam.feed(payload)]
    out += seam.finish()
    said, sent = flat(delivered), flat(rest)
    if not repeats and said and sent[: len(said)] == said:
        # A fresh reply that starts with everything delivered reads as a repeat: the
        # one ambiguity, which a server honouring prefix: true (it repeats) never meets.
        assert flat(content_of(out)) == sent[len(said) :]
    else:
        assert flat(content_of(out)) == sent


def flat(segments: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Segments as ``(kind, character)`` pairs."""
    return [(kind, char) for kind, text in segments for char in text]


def test_the_seam_releases_a_reply_that_differs_at_once():
    seam = Seam([("text", "Hello")])
    first = json.dumps(text_chunk("Hel")).encode()
    assert seam.feed(first) == []
    other = json.dumps(text_chunk("p!")).encode()
    assert seam.feed(other) == [first, other]
    assert seam.settled
    assert not seam.repeated
    assert seam.feed(b"[DONE]") == [b"[DONE]"]


def test_the_seam_cuts_the_repeat_out_of_the_chunk_where_it_ends():
    seam = Seam([("text", "Hello")])
    out = seam.feed(json.dumps(text_chunk("Hello, world", usage=usage_info(1, 2))).encode())
    assert [json.loads(data)["choices"][0]["delta"]["content"] for data in out] == [", world"]
    assert json.loads(out[0])["usage"]["completion_tokens"] == 2
    assert seam.repeated
