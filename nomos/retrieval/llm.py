"""An LLM client for any OpenAI-compatible chat endpoint, with the guarantees an evaluation needs.

* Bounded: at most ``concurrency`` requests in flight (one semaphore per event loop), so a full evaluation runs
  at the endpoint's throughput without flooding it.
* Patient: 429, 5xx, timeouts and dropped connections are retried with exponential backoff by tenacity
  (``Retry-After`` is honoured); what still fails after the last retry, and every refusal that retrying cannot fix (401, 404, 400…),
  raises :class:`LLMUnavailable` with the endpoint and the server's reason, which stops the run.
* Reproducible: every reply is stored in a SQLite cache keyed by (model, messages, parameters). A re-run, or a
  ``--resume`` after a crash, replays the stored replies and pays for nothing; the stored tokens and latency are
  replayed too, so the cost table of a re-run equals the first run's.
* Accounted: every call reports input and output tokens and latency; :class:`Cost` sums them per query and per
  purpose (planner, observer, reformulation) for the cost table.

It also holds the two helpers every LLM method shares: a per-query :class:`Checkpoint` (JSON lines, appended as
queries finish) and :func:`run_bounded`, which runs per-query coroutines concurrently and stops them all at the
first fatal error.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt

from nomos.errors import LLMError as BaseLLMError
from nomos.sqlite_cache import SQLiteCache, Table

log = logging.getLogger(__name__)

Message = dict[str, str]
T = TypeVar("T")


class LLMError(BaseLLMError):
    """Base class of the LLM errors that stop a run (the CLI prints their message, no stack trace)."""


class LLMNotConfigured(LLMError):
    """An LLM method was asked for but no endpoint or model is configured."""


class LLMUnavailable(LLMError):
    """The endpoint is dead, refuses the request, or kept failing after every retry."""


def not_configured_message(method: str) -> str:
    return (
        f"method {method!r} needs an OpenAI-compatible chat endpoint: set NOMOS_LLM_BASE_URL (or --llm-base-url) "
        "and NOMOS_LLM_MODEL (or --llm-model); the key comes from NOMOS_LLM_API_KEY or OPENAI_API_KEY "
        "(optional for local servers); or start the local server: python cli.py llm start"
    )


@dataclass(frozen=True)
class LLMConfig:
    """Endpoint and sampling parameters; everything but the key goes into manifests."""

    base_url: str
    model: str
    api_key: str | None = None
    temperature: float = 0.2
    reasoning_effort: str | None = None
    max_tokens: int | None = None
    concurrency: int = 16
    timeout: float = 120.0
    retries: int = 5
    backoff: float = 0.5  # first wait; doubles per retry
    backoff_cap: float = 30.0
    cache_path: Path | None = None
    seed: int | None = None  # OpenAI `seed`; part of the cache key, so repetitions with other seeds are fresh calls

    def params(self) -> dict[str, Any]:
        """The sampling parameters sent with every request (and hashed into the cache key)."""
        p: dict[str, Any] = {"temperature": self.temperature}
        if self.reasoning_effort:
            p["reasoning_effort"] = self.reasoning_effort
        if self.max_tokens:
            p["max_tokens"] = self.max_tokens
        if self.seed is not None:
            p["seed"] = self.seed
        return p

    def describe(self) -> dict[str, Any]:
        return {"base_url": self.base_url, "model": self.model, **self.params(), "concurrency": self.concurrency,
                "timeout": self.timeout, "retries": self.retries, "cache": str(self.cache_path) if self.cache_path else None}


@dataclass(frozen=True)
class Reply:
    """One completion: its text ("" when the model said nothing) and what it cost when it was first made."""

    text: str
    input_tokens: int
    output_tokens: int
    seconds: float
    cached: bool = False
    attempts: int = 1
    finish_reason: str | None = None


# --------------------------------------------------------------------------------------------------- cache
def cache_key(model: str, messages: Sequence[Message], params: Mapping[str, Any]) -> str:
    """sha256 over the model, the parameters and each message's role and content (length-prefixed, so no two
    different requests share a key); hashing the strings directly avoids JSON-encoding ~200 kB observer prompts
    on the event loop."""
    h = hashlib.sha256()
    h.update(json.dumps({"model": model, "params": dict(params)}, sort_keys=True).encode())
    for m in messages:
        for key in sorted(m):
            value = str(m[key]).encode("utf-8")
            h.update(f"\0{key}:{len(value)}:".encode())
            h.update(value)
    return h.hexdigest()


REPLIES = Table("replies", "key TEXT PRIMARY KEY, reply TEXT NOT NULL", key=("key",), value=("reply",))
"""The table of every reply cache written so far (a JSON reply per :func:`cache_key`); unchanged, so old caches
still replay."""


class ReplyCache:
    """SQLite store of replies by :func:`cache_key` (:mod:`nomos.sqlite_cache`); safe to share between threads and
    runs. Commits do not wait for fsync (WAL + NORMAL: a crash may lose the last replies, never corrupt the file), so
    storing a reply costs microseconds instead of blocking the event loop for milliseconds."""

    def __init__(self, path: Path) -> None:
        self._store = SQLiteCache(path, REPLIES, timeout=30, synchronous="NORMAL")
        self.path = self._store.path

    def get(self, key: str) -> Reply | None:
        row = self._store.get((key,))
        if row is None:
            return None
        data = json.loads(row[0])
        return Reply(**{**data, "cached": True})

    def put(self, key: str, reply: Reply) -> None:
        data = asdict(reply)
        data.pop("cached")
        self._store.put_many([(key, json.dumps(data, ensure_ascii=False))])

    def __len__(self) -> int:
        return self._store.count()


# --------------------------------------------------------------------------------------------------- accounting
@dataclass
class Cost:
    """Calls, tokens and LLM latency of one query (or a whole run), in total and per purpose."""

    calls: int = 0
    cached_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    llm_seconds: float = 0.0
    by_purpose: dict[str, dict[str, float]] = field(default_factory=dict)

    def add(self, reply: Reply, purpose: str) -> None:
        self.calls += 1
        self.cached_calls += int(reply.cached)
        self.input_tokens += reply.input_tokens
        self.output_tokens += reply.output_tokens
        self.llm_seconds += reply.seconds
        p = self.by_purpose.setdefault(purpose, {"calls": 0, "input_tokens": 0, "output_tokens": 0, "llm_seconds": 0.0})
        p["calls"] += 1
        p["input_tokens"] += reply.input_tokens
        p["output_tokens"] += reply.output_tokens
        p["llm_seconds"] += reply.seconds

    def to_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "cached_calls": self.cached_calls, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "llm_seconds": round(self.llm_seconds, 4), "by_purpose": self.by_purpose}


def cost_table(per_query: Mapping[str, Mapping[str, Any]], wall_seconds: float) -> dict[str, Any]:
    """The run's cost table: totals, means per query, and the per-query rows (from ``Cost.to_dict`` + seconds)."""
    keys = ("calls", "cached_calls", "input_tokens", "output_tokens", "llm_seconds", "seconds")
    total = {k: sum(float(r.get(k, 0)) for r in per_query.values()) for k in keys}
    n = max(len(per_query), 1)
    purposes: dict[str, dict[str, float]] = {}
    for r in per_query.values():
        for name, p in r.get("by_purpose", {}).items():
            acc = purposes.setdefault(name, {})
            for k, v in p.items():
                acc[k] = acc.get(k, 0) + v
    return {
        "queries": len(per_query),
        "wall_seconds": round(wall_seconds, 3),
        "total": {k: round(v, 3) for k, v in total.items()},
        "mean_per_query": {k: round(v / n, 3) for k, v in total.items()},
        "by_purpose": purposes,
        "per_query": {q: dict(r) for q, r in sorted(per_query.items())},
    }


# --------------------------------------------------------------------------------------------------- client
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
        """One completion; from the cache when this exact request was made before."""
        params = self.config.params()
        key = cache_key(self.config.model, messages, params)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return hit
        self._bind()
        assert self._sem is not None
        async with self._sem:
            reply = await self._call(list(messages), params, purpose)
        if self.cache is not None:
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
            retry=retry_if_exception_type(transient),
            stop=stop_after_attempt(attempts),
            wait=self._wait_before_retry,
            before_sleep=before_sleep,
            reraise=True,
        )
        try:
            resp, seconds = await retrying(once)
        except transient as exc:
            raise LLMUnavailable(
                f"LLM endpoint {self.config.base_url} (model {self.config.model}) failed {attempts} times "
                f"on a {purpose} call; last error: {_describe(exc)}"
            ) from None
        except openai.APIStatusError as exc:
            raise LLMUnavailable(
                f"LLM endpoint {self.config.base_url} refused a {purpose} call for model {self.config.model}: {_describe(exc)}"
            ) from None
        self.paid_calls += 1
        choice = resp.choices[0] if resp.choices else None
        text = (choice.message.content if choice and choice.message else None) or ""
        usage = resp.usage
        return Reply(
            text=text,
            input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            seconds=round(seconds, 4),
            attempts=tries,
            finish_reason=getattr(choice, "finish_reason", None),
        )

    def _wait_before_retry(self, state: RetryCallState) -> float:
        """tenacity's wait: the backoff of the attempt that just failed, stretched to its ``Retry-After``."""
        exc = state.outcome.exception() if state.outcome else None
        return self._wait(state.attempt_number, exc if isinstance(exc, Exception) else Exception())

    def _wait(self, attempt: int, exc: Exception) -> float:
        wait = min(self.config.backoff * 2 ** (attempt - 1), self.config.backoff_cap)
        response = getattr(exc, "response", None)
        retry_after = response.headers.get("retry-after") if response is not None else None
        try:
            if retry_after is not None:
                wait = max(wait, min(float(retry_after), self.config.backoff_cap))
        except ValueError:
            pass
        return wait


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return f"HTTP {status}: {message}" if status else f"{type(exc).__name__}: {message}"


def resolve_llm_settings(settings: Any) -> Any:
    """``settings`` with the LLM endpoint filled in from the local server (``cli.py llm start``, nomos/localllm)
    when NOMOS_LLM_BASE_URL is unset and a server answers ``GET /v1/models`` on 127.0.0.1:NOMOS_LLM_PORT; the
    model is the server's own unless NOMOS_LLM_MODEL names one. Otherwise ``settings`` unchanged (so the
    not-configured error still names the settings)."""
    port = getattr(settings, "llm_port", None)
    if settings.llm_base_url or not port:
        return settings
    from nomos.localllm.server import probe

    found = probe("127.0.0.1", int(port), timeout=2.0)
    if found is None:
        return settings
    base_url, model = found
    model = settings.llm_model or model
    log.warning("NOMOS_LLM_BASE_URL is unset: using the local LLM server at %s (model %s)", base_url, model)
    return settings.with_overrides(llm_base_url=base_url, llm_model=model)


def make_llm_client(settings: Any, method: str) -> LLMClient:
    """The client for ``settings`` (a :class:`settings.Settings`); fails at once, naming the settings, if unset.
    Callers resolve a running local server first (:func:`resolve_llm_settings`, done by ``make_retriever``)."""
    if not settings.llm_base_url or not settings.llm_model:
        raise LLMNotConfigured(not_configured_message(method))
    return LLMClient(LLMConfig(
        base_url=settings.llm_base_url.rstrip("/"),
        model=settings.llm_model,
        api_key=settings.llm_api_key,
        temperature=settings.llm_temperature,
        reasoning_effort=settings.llm_reasoning_effort,
        max_tokens=settings.llm_max_tokens,
        concurrency=settings.llm_concurrency,
        timeout=settings.llm_timeout,
        retries=settings.llm_retries,
        cache_path=settings.llm_cache,
        seed=getattr(settings, "llm_seed", None),
    ))


# --------------------------------------------------------------------------------------------------- runs
class Checkpoint:
    """Finished queries of a run, one JSON line each, appended and synced as they finish.

    Without ``resume`` an old checkpoint is discarded (a fresh run; the reply cache still makes it free). A line
    cut short by a crash is ignored, so that query simply runs again.
    """

    def __init__(self, path: Path | None, resume: bool = False) -> None:
        self.path = Path(path) if path else None
        self.done: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if resume and self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    rec = json.loads(line)
                    self.done[rec["query_id"]] = rec
                except (json.JSONDecodeError, KeyError, TypeError):
                    continue
            # rewrite without torn lines, so appends start on a clean line
            self.path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.done.values()), encoding="utf-8")
        else:
            self.path.write_text("", encoding="utf-8")

    def add(self, record: dict[str, Any]) -> None:
        self.done[record["query_id"]] = record
        if self.path is None:
            return
        line = json.dumps(record, ensure_ascii=False) + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())


async def run_bounded(items: Sequence[T], work: Callable[[T], Awaitable[Any]], concurrency: int) -> None:
    """Run ``work(item)`` for every item, at most ``concurrency`` at once; the first error cancels the rest
    and is raised (so a dead endpoint stops the run instead of failing every remaining query slowly)."""
    sem = asyncio.Semaphore(max(1, concurrency))

    async def one(item: T) -> None:
        async with sem:
            await work(item)

    tasks = [asyncio.ensure_future(one(i)) for i in items]
    if not tasks:
        return
    done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    for t in pending:
        t.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
    for t in done:
        if not t.cancelled() and t.exception() is not None:
            raise t.exception()  # type: ignore[misc]
