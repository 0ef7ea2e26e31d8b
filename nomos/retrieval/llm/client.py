"""Async chat completions for any OpenAI-compatible endpoint, with the guarantees an evaluation needs.

* Bounded: at most ``concurrency`` requests in flight (one semaphore per event loop), so a full evaluation runs
  at the endpoint's throughput without flooding it.
* Patient: 429, 5xx, timeouts and dropped connections are retried with exponential backoff by tenacity
  (``Retry-After`` is honoured up to ``retry_after_max``); what still fails after the last retry, and every
  refusal that retrying cannot fix (401, 404, 400…, and a 429 ``insufficient_quota``: an empty account does not
  refill by waiting), raises :class:`LLMUnavailable` with the endpoint and the server's reason, which stops the run.
* Clean: the answer is separated from the model's reasoning (:func:`clean_reply`); an empty, cut (``length``) or
  filtered (``content_filter``) answer is asked once more with twice the room, and is never cached, so the
  caller's fallback applies this run only.
* Reproducible: replies go through the :class:`ReplyCache` when the config names one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from nomos.retrieval.llm.cache import ReplyCache, cache_key
from nomos.retrieval.llm.config import LLMConfig, Message, Reply
from nomos.retrieval.llm.errors import LLMContextExceeded, LLMUnavailable, is_context_error
from nomos.retrieval.llm.replies import clean_reply

log = logging.getLogger(__name__)

class LLMClient:
    """Async chat completions through the ``openai`` package, bounded, retried, cached and accounted."""

    def __init__(self, config: LLMConfig) -> None:
        self.config = config
        self.cache = ReplyCache(config.cache_path) if config.cache_path else None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: Any = None
        self._sem: asyncio.Semaphore | None = None
        self.paid_calls = 0
        self.retried = 0

    def _bind(self) -> None:
        """One openai client and semaphore per event loop (each ``asyncio.run`` gets fresh connections)."""
        loop = asyncio.get_running_loop()
        if loop is self._loop:
            return
        from openai import AsyncOpenAI

        self._client = AsyncOpenAI(base_url=self.config.base_url, api_key=self.config.api_key or "not-needed",
                                   max_retries=0, timeout=self.config.timeout)
        self._sem = asyncio.Semaphore(max(1, self.config.concurrency))
        self._loop = loop

    async def aclose(self) -> None:
        """Close the connections of this event loop's client (call before the loop ends)."""
        if self._client is not None and self._loop is asyncio.get_running_loop():
            await self._client.close()
        self._client, self._loop, self._sem = None, None, None

    async def chat(self, messages: Sequence[Message], purpose: str = "chat") -> Reply:
        """One completion; from the cache when this exact request was made before. An empty, cut or filtered
        answer is asked once more with more room (:meth:`LLMConfig.roomier`); an answer still unusable is returned
        (``Reply.problem`` says why, the caller falls back) and not cached."""
        params = self.config.params()
        key = cache_key(self.config.model, messages, params, self.config.base_url)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return hit
        self._bind()
        assert self._sem is not None
        async with self._sem:
            reply = await self._call(list(messages), params, purpose)
            if reply.problem is not None:
                first = reply
                log.warning("LLM %s call: %s reply (finish_reason %s); asking once more with max tokens %d",
                            purpose, first.problem, first.finish_reason, self.config.roomier())
                again = await self._call(list(messages), self.config.params(self.config.roomier()), purpose)
                reply = replace(again, regenerated=first.problem, attempts=first.attempts + again.attempts,
                                input_tokens=first.input_tokens + again.input_tokens,
                                prompt_tokens=again.prompt_size,
                                output_tokens=first.output_tokens + again.output_tokens,
                                seconds=round(first.seconds + again.seconds, 4))
        if self.cache is not None and reply.problem is None:
            self.cache.put(key, reply)
        return reply

    async def _call(self, messages: list[Message], params: dict[str, Any], purpose: str) -> Reply:
        """One paid completion, retried by tenacity on 429, 5xx, timeouts and dropped connections.

        The SDK's own ``max_retries`` stays 0: its backoff is fixed (0.5 s doubling to 8 s, with jitter) whatever
        ``backoff`` and ``backoff_cap`` say, and it reports neither attempts nor retries, which the cost tables show
        (``Reply.attempts``, ``retried``).
        """
        import openai

        transient = (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError, openai.APIConnectionError)
        attempts = self.config.retries + 1
        tries = 0

        async def once() -> tuple[Any, float]:
            nonlocal tries
            tries += 1
            started = time.perf_counter()
            resp = await self._client.chat.completions.create(model=self.config.model, messages=messages, **params)
            return resp, time.perf_counter() - started

        def before_sleep(state: RetryCallState) -> None:
            self.retried += 1
            exc = state.outcome.exception() if state.outcome else None
            log.warning("LLM %s call: %s; retry %d/%d in %.1fs", purpose, _describe(exc) if exc else "?",
                        state.attempt_number, attempts - 1, state.upcoming_sleep)

        retrying = AsyncRetrying(
            retry=retry_if_exception(lambda e: isinstance(e, transient) and not _is_quota(e)),
            stop=stop_after_attempt(attempts),
            wait=self._wait_before_retry,
            before_sleep=before_sleep,
            reraise=True,
        )
        resp: Any
        seconds: float
        try:
            resp, seconds = await retrying(once)
        except openai.RateLimitError as exc:
            if _is_quota(exc):
                raise LLMUnavailable(
                    f"LLM endpoint {self.config.base_url} refused a {purpose} call for model {self.config.model}: the "
                    f"account's quota is used up (insufficient_quota; not retried: add credit or use another key/endpoint); "
                    f"{_describe(exc)}"
                ) from None
            raise LLMUnavailable(
                f"LLM endpoint {self.config.base_url} (model {self.config.model}) failed {attempts} times "
                f"on a {purpose} call; last error: {_describe(exc)}"
            ) from None
        except transient as exc:
            raise LLMUnavailable(
                f"LLM endpoint {self.config.base_url} (model {self.config.model}) failed {attempts} times "
                f"on a {purpose} call; last error: {_describe(exc)}"
            ) from None
        except openai.APIStatusError as exc:
            if is_context_error(exc.status_code, getattr(exc, "code", None), getattr(exc, "type", None), exc.message, exc.body):
                raise LLMContextExceeded(
                    f"LLM endpoint {self.config.base_url} (model {self.config.model}): the {purpose} prompt does not "
                    f"fit the model's context: {_describe(exc)}; lower NOMOS_REACT_OBSERVER_BUDGET (the "
                    "observer's prompt) or serve the model with a longer context"
                ) from None
            raise LLMUnavailable(
                f"LLM endpoint {self.config.base_url} refused a {purpose} call for model {self.config.model}: {_describe(exc)}"
            ) from None
        self.paid_calls += 1
        return _reply(resp, seconds, tries)

    def _wait_before_retry(self, state: RetryCallState) -> float:
        """tenacity's wait: the backoff of the attempt that just failed, stretched to its ``Retry-After``."""
        exc = state.outcome.exception() if state.outcome else None
        return self._wait(state.attempt_number, exc if isinstance(exc, Exception) else Exception())

    def _wait(self, attempt: int, exc: Exception) -> float:
        """The exponential backoff (capped at ``backoff_cap``), or the server's ``Retry-After`` when longer, up to
        ``retry_after_max`` (a rate-limited hosted endpoint often asks for a minute; 30 s was too short)."""
        wait: float = min(self.config.backoff * 2 ** (attempt - 1), self.config.backoff_cap)
        response = getattr(exc, "response", None)
        retry_after = response.headers.get("retry-after") if response is not None else None
        try:
            if retry_after is not None:
                wait = max(wait, min(float(retry_after), self.config.retry_after_max))
        except ValueError:
            pass
        return wait


def _reply(resp: Any, seconds: float, attempts: int) -> Reply:
    """The :class:`Reply` of an SDK response: its answer ("" when there is none) with the reasoning separated
    (:func:`clean_reply`; a server's ``reasoning_content``/``reasoning`` field is kept, never parsed), tokens,
    latency and attempts."""
    choice = resp.choices[0] if resp.choices else None
    message = choice.message if choice else None
    content = (message.content if message else None) or ""
    field = None
    if message is not None:
        extra = getattr(message, "model_extra", None) or {}
        field = extra.get("reasoning_content") or extra.get("reasoning") or getattr(message, "reasoning_content", None)
    cleaned = clean_reply(content, field if isinstance(field, str) else None)
    usage = resp.usage
    return Reply(
        text=cleaned.text,
        reasoning=cleaned.reasoning,
        input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        seconds=round(seconds, 4),
        attempts=attempts,
        finish_reason=getattr(choice, "finish_reason", None),
    )


def _is_quota(exc: BaseException) -> bool:
    """A 429 that says the account has no quota left (OpenAI: code/type ``insufficient_quota``): waiting won't help."""
    body = getattr(exc, "body", None)
    error = body.get("error", body) if isinstance(body, dict) else None
    fields = [getattr(exc, "code", None), getattr(exc, "type", None)]
    if isinstance(error, dict):
        fields += [error.get("code"), error.get("type")]
    return getattr(exc, "status_code", None) == 429 and "insufficient_quota" in fields


def _describe(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None)
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return f"HTTP {status}: {message}" if status else f"{type(exc).__name__}: {message}"
