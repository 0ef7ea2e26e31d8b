"""The LLM's settings: the OpenAI-compatible endpoint the LLM methods (reform-*, react, the LLM re-ranker) call,
how they sample and retry, and the local server (``cli.py llm start``, :mod:`nomos.localllm`) used when no endpoint
is set. Read from ``NOMOS_LLM_*`` (the key also from ``OPENAI_API_KEY``: :mod:`nomos.settings_base`)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator

from nomos.settings_base import SettingsPart, env, one_of

TOKEN_PARAMS = ("auto", "max_tokens", "max_completion_tokens")  # which request field carries llm_max_tokens


class LLMSettings(SettingsPart):
    """Any OpenAI-compatible chat endpoint; unset base URL/model = LLM methods refuse (or use the local server)."""

    llm_base_url: str | None = None
    llm_api_key: str | None = Field(default=None, validation_alias=env("NOMOS_LLM_API_KEY", "OPENAI_API_KEY"))
    llm_model: str | None = None
    llm_temperature: float | None = 0.2  # the paper's; "none" sends none (OpenAI's reasoning models reject it)
    llm_top_p: float | None = 1.0  # the paper's; Ollama and llama.cpp otherwise sample below 1; "none" sends none
    # unset: "low" for gpt-oss (the paper ran gpt-oss-120b with low), nothing for other models; "none": never sent
    llm_reasoning_effort: str | None = None
    llm_max_tokens: int | None = None  # sent only when set
    # which field carries max_tokens: "auto" = max_completion_tokens for OpenAI's o1/o3/o4/gpt-5 families (which
    # reject max_tokens), max_tokens otherwise; or name the field
    llm_token_param: str = "auto"
    # an empty, cut (finish_reason length) or filtered reply is asked once more with twice llm_max_tokens, or with
    # this many tokens when llm_max_tokens is unset (a thinking model may spend the server's default on thinking)
    llm_retry_max_tokens: int = 8192
    llm_concurrency: int = 16  # LLM requests (and queries) in flight
    llm_timeout: float = 600.0  # the paper notebook's; a reasoning model's long observer call takes minutes
    llm_retries: int = 5
    # a 429/503's Retry-After is honoured up to this many seconds (hosted endpoints ask for a minute or more)
    llm_retry_after_max: float = 120.0
    # a warning when any kind of LLM degradation (format errors, unknown ids, truncations, fallbacks…) exceeds this
    # share of a run's calls; eval --strict then fails the run
    llm_issue_threshold: float = 0.05
    llm_seed: int | None = None  # sent as the OpenAI `seed` when set (eval --repeat varies it per repetition)
    # The local LLM server (`cli.py llm start`, nomos/localllm): a GGUF served by xllamacpp on 127.0.0.1:llm_port.
    # LLM methods use it when llm_base_url is unset and it answers. No GGUF set = the bundled SmolLM2-135M
    # (requirements-llm.txt; English only, for plumbing and tests, useless for Greek legal rewriting).
    llm_gguf: Path | None = None
    llm_port: int = 8090
    llm_threads: int = 1  # 1 is fastest on a small shared CPU (OpenMP threads spin against other load)
    llm_ctx: int = 4096
    # tokens kept free for the reply in a local server's context when the observer budget is derived from llm_ctx
    # (llm_max_tokens when that is set and larger)
    llm_reply_room: int = 512

    @field_validator("llm_temperature", "llm_top_p", mode="before")
    @classmethod
    def _optional_sampling(cls, v: object) -> object:
        """"none" or blank -> not sent (an endpoint family that rejects the parameter)."""
        if isinstance(v, str) and v.strip().lower() in ("", "none"):
            return None
        return v

    @field_validator("llm_token_param")
    @classmethod
    def _one_of(cls, v: str) -> str:
        return one_of(v, TOKEN_PARAMS)
