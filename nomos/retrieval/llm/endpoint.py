"""Which endpoint a command talks to: the settings' own, else a running local server (``cli.py llm start``), and
the :class:`LLMClient` built from them."""

from __future__ import annotations

import logging
from pathlib import Path

from nomos.retrieval.llm.client import LLMClient
from nomos.retrieval.llm.config import LLMConfig
from nomos.retrieval.llm.errors import LLMNotConfigured, not_configured_message
from nomos.retrieval.llm.settings import LLMSettings

log = logging.getLogger(__name__)


def resolve_llm_settings(settings: LLMSettings) -> LLMSettings:
    """The LLM part with its endpoint filled in from the local server (``cli.py llm start``, nomos/localllm)
    when NOMOS_LLM_BASE_URL is unset and a server answers ``GET /v1/models`` on 127.0.0.1:NOMOS_LLM_PORT; the
    model is the server's own unless NOMOS_LLM_MODEL names one. Otherwise ``settings`` unchanged (so the
    not-configured error still names the settings)."""
    port = settings.llm_port
    if settings.llm_base_url or not port:
        return settings
    from nomos.localllm.server import probe

    found = probe("127.0.0.1", int(port), timeout=2.0)
    if found is None:
        return settings
    base_url, model = found
    model = settings.llm_model or model
    log.warning("NOMOS_LLM_BASE_URL is unset: using the local LLM server at %s (model %s)", base_url, model)
    return settings.model_copy(update={"llm_base_url": base_url, "llm_model": model})


def make_llm_client(settings: LLMSettings, method: str, cache_path: Path) -> LLMClient:
    """The client for the LLM part, its replies cached in ``cache_path`` (``settings.llm_cache`` of the whole);
    fails at once, naming the settings, if unset.
    Callers resolve a running local server first (:func:`resolve_llm_settings`, done by ``make_retriever``)."""
    if not settings.llm_base_url or not settings.llm_model:
        raise LLMNotConfigured(not_configured_message(method))
    return LLMClient(LLMConfig(
        base_url=settings.llm_base_url.rstrip("/"),
        model=settings.llm_model,
        api_key=settings.llm_api_key,
        temperature=settings.llm_temperature,
        top_p=settings.llm_top_p,
        reasoning_effort=settings.llm_reasoning_effort,
        max_tokens=settings.llm_max_tokens,
        token_param=settings.llm_token_param,
        concurrency=settings.llm_concurrency,
        timeout=settings.llm_timeout,
        retries=settings.llm_retries,
        retry_after_max=settings.llm_retry_after_max,
        retry_max_tokens=settings.llm_retry_max_tokens,
        cache_path=cache_path,
        seed=settings.llm_seed,
    ))
