"""What a client is configured with (:class:`LLMConfig`) and what one completion returns (:class:`Reply`).

Endpoint families differ in what they accept, so :meth:`LLMConfig.params` sends only what the model takes:

* OpenAI's reasoning models (``o1``/``o3``/``o4``/``gpt-5`` families, by name) reject ``temperature`` and
  ``top_p`` and want ``max_completion_tokens``; ``token_param`` names the field outright for other servers.
* ``temperature`` / ``top_p`` ``None`` are not sent at all. ``top_p`` defaults to 1.0, the paper's: Ollama and
  llama.cpp otherwise sample with their own defaults below 1.
* ``reasoning_effort`` unset is ``"low"`` for gpt-oss (the paper ran gpt-oss-120b with low) and not sent for
  other models; ``"none"`` never sends it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Message = dict[str, str]

OPENAI_REASONING = re.compile(r"^(?:[\w.-]+/)?(?:o1|o3|o4|gpt-5)(?:$|[-.:])", re.I)
"""Model names of OpenAI's reasoning families (``o3-mini``, ``gpt-5``, ``openai/o4-mini``…)."""
GPT_OSS = re.compile(r"gpt-oss", re.I)
PAPER_GPT_OSS_EFFORT = "low"
BAD_FINISH = ("length", "content_filter")


@dataclass(frozen=True)
class LLMConfig:
    """Endpoint and sampling parameters; everything but the key goes into manifests."""

    base_url: str
    model: str
    api_key: str | None = None
    temperature: float | None = 0.2
    top_p: float | None = 1.0
    reasoning_effort: str | None = None
    max_tokens: int | None = None
    token_param: str = "auto"  # "auto" (by model name), "max_tokens" or "max_completion_tokens"
    concurrency: int = 16
    timeout: float = 600.0  # the paper notebook's
    retries: int = 5
    backoff: float = 0.5  # first wait; doubles per retry
    backoff_cap: float = 30.0
    retry_after_max: float = 120.0  # the longest Retry-After honoured
    retry_max_tokens: int = 8192  # room for the one retry of an empty/cut reply when max_tokens is unset
    cache_path: Path | None = None
    seed: int | None = None  # OpenAI `seed`; part of the cache key, so repetitions with other seeds are fresh calls

    @property
    def openai_reasoning(self) -> bool:
        return bool(OPENAI_REASONING.search(self.model))

    def token_field(self) -> str:
        if self.token_param != "auto":
            return self.token_param
        return "max_completion_tokens" if self.openai_reasoning else "max_tokens"

    def effort(self) -> str | None:
        """The reasoning effort sent: the set one, else the paper's "low" for gpt-oss; "none" sends nothing."""
        if self.reasoning_effort:
            return None if self.reasoning_effort.strip().lower() == "none" else self.reasoning_effort
        return PAPER_GPT_OSS_EFFORT if GPT_OSS.search(self.model) else None

    def params(self, max_tokens: int | None = None) -> dict[str, Any]:
        """The sampling parameters sent with every request (and hashed into the cache key); ``max_tokens``
        overrides the configured limit (the one retry of a cut reply)."""
        p: dict[str, Any] = {}
        if not self.openai_reasoning:
            if self.temperature is not None:
                p["temperature"] = self.temperature
            if self.top_p is not None:
                p["top_p"] = self.top_p
        effort = self.effort()
        if effort:
            p["reasoning_effort"] = effort
        limit = max_tokens or self.max_tokens
        if limit:
            p[self.token_field()] = limit
        if self.seed is not None:
            p["seed"] = self.seed
        return p

    def roomier(self) -> int:
        """The token limit of the one retry of an empty, cut or filtered reply: twice the set limit, else
        ``retry_max_tokens``."""
        return 2 * self.max_tokens if self.max_tokens else self.retry_max_tokens

    def describe(self) -> dict[str, Any]:
        """The manifest's view of the endpoint: everything but the key."""
        return {"base_url": self.base_url, "model": self.model, **self.params(), "concurrency": self.concurrency,
                "timeout": self.timeout, "retries": self.retries, "cache": str(self.cache_path) if self.cache_path else None}


@dataclass(frozen=True)
class Reply:
    """One completion: its answer ("" when the model said nothing usable), the reasoning removed from it, and what
    it cost when it was first made. ``regenerated`` names what was wrong with a first answer that was asked again
    (``empty``, ``length``, ``content_filter``); its tokens and seconds are included."""

    text: str
    input_tokens: int
    output_tokens: int
    seconds: float
    cached: bool = False
    attempts: int = 1
    finish_reason: str | None = None
    reasoning: str = ""
    regenerated: str | None = None
    # the prompt's own size in tokens, as the last call counted it: ``input_tokens`` sums both calls of a reply asked
    # again (what it cost), which read as the prompt's size halves the characters-a-token ratio ReAct sizes batches by
    prompt_tokens: int = 0

    @property
    def prompt_size(self) -> int:
        """The prompt's tokens (``prompt_tokens``; a reply cached before the field: ``input_tokens``)."""
        return self.prompt_tokens or self.input_tokens

    @property
    def problem(self) -> str | None:
        """What makes this reply unusable as it stands: "empty", "length" (cut) or "content_filter"; None if fine."""
        if self.finish_reason in BAD_FINISH:
            return self.finish_reason
        return "empty" if not self.text.strip() else None
