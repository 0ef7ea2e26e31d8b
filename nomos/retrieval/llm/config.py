"""What a client is configured with (:class:`LLMConfig`) and what one completion returns (:class:`Reply`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

Message = dict[str, str]


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
        """The manifest's view of the endpoint: everything but the key."""
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
