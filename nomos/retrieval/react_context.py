"""Context that fits: how many tokens a prompt really is on this endpoint, and how much a prompt may be.

Why: ReAct's observer batches and the later planner's prompt are sized by an estimate (characters / a ratio),
and a fixed ratio is wrong by 2x on small tokenizers (SmolLM2 reads Greek at ~1.2 characters a token, not 2.5),
so a 4096-token server rejected the first batch. Here the ratio is measured instead:

* :class:`ServerTokenizer`: the endpoint's own ``POST /tokenize`` (llama.cpp and vLLM serve one beside ``/v1``)
  counts a query's case text before its first prompt; a server without one is asked once per run.
* :class:`TokenRatio`: each reply's ``usage.prompt_tokens`` against the characters of its prompt lowers the ratio
  (never raises it), so a query's later prompts are sized by what its earlier ones really cost. The ratio lives
  in the query's own state, so batching depends only on that query's replies, not on which query finished first.

:func:`observer_budget` is the default budget: the local server's context less the reply's room when the
endpoint is the local server (``cli.py llm start``), else ``None`` (ReActConfig's default).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from nomos.retrieval.llm.settings import LLMSettings

if TYPE_CHECKING:
    from nomos.retrieval.settings import SearchSettings

log = logging.getLogger(__name__)

DEFAULT_CHARS_PER_TOKEN = 2.5
MARGIN = 0.9  # a measured ratio is used 10% lower: a batch's text is not exactly the text that was measured


def prompt_chars(messages: Sequence[dict[str, Any]]) -> int:
    """The characters of a chat prompt (its messages' contents)."""
    return sum(len(str(m.get("content", ""))) for m in messages)


def estimate_prompt(messages: Sequence[dict[str, Any]], chars_per_token: float) -> int:
    """Estimated tokens of a chat prompt at ``chars_per_token``."""
    return math.ceil(prompt_chars(messages) / chars_per_token)


@dataclass
class TokenRatio:
    """Characters per token for one query's prompts: a default, lowered by every real count seen."""

    chars_per_token: float = DEFAULT_CHARS_PER_TOKEN
    source: str = "default"

    def observe(self, chars: int, tokens: int, source: str) -> None:
        """A prompt of ``chars`` characters was ``tokens`` tokens: keep the lower (safer) ratio, with a margin."""
        if tokens <= 0 or chars <= 0:
            return
        measured = MARGIN * chars / tokens
        if measured < self.chars_per_token:
            self.chars_per_token, self.source = round(measured, 4), source


class ServerTokenizer:
    """Counts tokens with the endpoint's ``POST /tokenize`` (llama.cpp: ``{"content"}`` → ``{"tokens"}``; vLLM:
    ``{"model", "prompt"}`` → ``{"count"}``), at the server's root beside ``/v1``. A server that has none (OpenAI,
    Ollama) answers 404 or refuses, and is not asked again."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, timeout: float = 10.0) -> None:
        root = base_url.rstrip("/")
        self.url = (root[: -len("/v1")] if root.endswith("/v1") else root) + "/tokenize"
        self.model = model
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.timeout = timeout
        self.supported: bool | None = None  # None: not asked yet

    def count(self, text: str) -> int | None:
        """Tokens of ``text`` by the server's tokenizer, or None where the server has no ``/tokenize``."""
        if self.supported is False or not text:
            return None
        for body in ({"content": text, "add_special": False}, {"model": self.model, "prompt": text, "add_special_tokens": False}):
            try:
                resp = httpx.post(self.url, json=body, headers=self.headers, timeout=self.timeout)
            except httpx.HTTPError as exc:
                log.info("no token count from %s: %s", self.url, exc)
                break
            if resp.status_code != 200:
                continue
            try:
                data = resp.json()
            except ValueError:
                continue
            n = data.get("count") if isinstance(data, dict) else None
            if not isinstance(n, int) and isinstance(data, dict) and isinstance(data.get("tokens"), list):
                n = len(data["tokens"])
            if isinstance(n, int) and n > 0:
                self.supported = True
                return n
        if self.supported is None:
            self.supported = False
            log.info("%s has no /tokenize: prompt sizes are calibrated from usage.prompt_tokens only", self.url)
        return None


def is_local_endpoint(settings: LLMSettings) -> bool:
    """True when the LLM endpoint is the local server (``cli.py llm start`` on 127.0.0.1:NOMOS_LLM_PORT)."""
    url = (settings.llm_base_url or "").rstrip("/")
    port = settings.llm_port
    return bool(url and port) and url in (f"http://127.0.0.1:{port}/v1", f"http://localhost:{port}/v1")


def reply_room(settings: LLMSettings) -> int:
    """Tokens kept free for a reply: NOMOS_LLM_REPLY_ROOM, or NOMOS_LLM_MAX_TOKENS where that is larger."""
    return max(int(settings.llm_reply_room), int(settings.llm_max_tokens or 0))


def observer_budget(settings: SearchSettings) -> int | None:
    """NOMOS_REACT_OBSERVER_BUDGET when set; else the local server's context less the reply's room when the
    endpoint is the local server; else None (ReActConfig's default, sized for large hosted contexts)."""
    if settings.retrieval.react_observer_budget:
        return int(settings.retrieval.react_observer_budget)
    if is_local_endpoint(settings.llm):
        return max(256, int(settings.llm.llm_ctx) - reply_room(settings.llm))
    return None


def does_not_fit_message(what: str, budget: int, local_ctx: int | None) -> str:
    """Why a run stopped: ``what`` ("the observer prompt for PK::372 alone", "the planner prompt of round 2")
    overflows the model's context even at its smallest; which settings to change."""
    local = (f", or raise NOMOS_LLM_CTX (now {local_ctx}) and restart the local server (cli.py llm stop; llm start)"
             if local_ctx else "")
    return (f"{what} does not fit the model's context: lower NOMOS_REACT_OBSERVER_BUDGET (now {budget} estimated "
            f"tokens){local}")
