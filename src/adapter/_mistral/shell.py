"""What the blocking and the asyncio adapters share: everything but the awaits.

:class:`~adapter.MistralAdapter` (``sync_client``) and
:class:`~adapter.AsyncMistralAdapter` (``async_client``) differ only where one blocks
and the other awaits: sending, reading, closing, waiting on a budget. Their settings,
their HTTP client, their repr, the retry policy around one attempt and the choice of
resuming a call are here, once.

.. versionadded:: 0.3.0
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar

import httpx

from adapter._mistral.client import DEFAULT_BASE_URL, Limits, Settings, StreamCall, Timeouts
from llm_retry import RetryPolicy

__all__ = ["Shell"]

ClientT = TypeVar("ClientT", httpx.Client, httpx.AsyncClient)


class Shell(Generic[ClientT]):
    """An adapter's state and construction; the subclass supplies the I/O of one attempt."""

    __slots__ = ("_attempts", "_client", "_owns_client", "_settings")

    #: The ``httpx`` client class the adapter sends with, and the other adapter's name
    #: (for the error when a client of the other kind is passed).
    _client_type: ClassVar[type[httpx.Client | httpx.AsyncClient]]
    _other: ClassVar[str]

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str = DEFAULT_BASE_URL,
        timeouts: Timeouts | None = None,
        client: ClientT | None = None,
        headers: Mapping[str, str] | None = None,
        retry: RetryPolicy | None = None,
        limits: Limits | None = None,
        resume: bool = False,
        max_resumes: int = 1,
    ) -> None:
        self._settings = settings = Settings(
            api_key=api_key,
            base_url=base_url,
            timeouts=timeouts,
            headers=headers,
            retry=retry,
            limits=limits,
            resume=resume,
            max_resumes=max_resumes,
        )
        kind = self._client_type
        given: object = client
        if given is not None and not isinstance(given, kind):
            hint = ""
            if isinstance(given, httpx.Client | httpx.AsyncClient):
                hint = f" (an httpx.{type(given).__name__} goes with adapter.{self._other})"
            raise TypeError(
                f"client must be an httpx.{kind.__name__}, not {type(given).__name__}{hint}"
            )
        self._owns_client = client is None
        self._client: ClientT = client if client is not None else self._new_client(settings.timeout)
        self._attempts = self._attempt if retry is None else retry.wrap(self._attempt)

    def __repr__(self) -> str:
        return self._settings.describe(type(self))

    def _new_client(self, timeout: httpx.Timeout) -> ClientT:
        """The client the adapter creates (and closes) when none is passed."""
        raise NotImplementedError

    def _attempt(self, call: StreamCall) -> Any:
        """One request of ``call``: a generator (sync) or async generator of events."""
        raise NotImplementedError

    def _events(self, call: StreamCall) -> Any:
        """The call's events: its attempts, and continuations when it may resume."""
        return self._resuming(call) if call.max_resumes else self._attempts(call)

    def _resuming(self, call: StreamCall) -> Any:
        """The attempts, then a continuation for every cut that may be resumed."""
        raise NotImplementedError
