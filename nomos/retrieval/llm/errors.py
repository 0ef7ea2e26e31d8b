"""The LLM errors that stop a run, all :class:`nomos.errors.LLMError` (so the CLI and the portal print their
message, never a stack trace)."""

from __future__ import annotations

from nomos.errors import LLMError as BaseLLMError


class LLMError(BaseLLMError):
    """Base class of the LLM errors that stop a run (the CLI prints their message, no stack trace)."""


class LLMNotConfigured(LLMError):
    """An LLM method was asked for but no endpoint or model is configured."""


class LLMUnavailable(LLMError):
    """The endpoint is dead, refuses the request, or kept failing after every retry."""


def not_configured_message(method: str) -> str:
    """What to set (or start) so that ``method`` has an endpoint: every setting and option by name."""
    return (
        f"method {method!r} needs an OpenAI-compatible chat endpoint: set NOMOS_LLM_BASE_URL (or --llm-base-url) "
        "and NOMOS_LLM_MODEL (or --llm-model); the key comes from NOMOS_LLM_API_KEY or OPENAI_API_KEY "
        "(optional for local servers); or start the local server: python cli.py llm start"
    )


class LLMContextTooLong(LLMUnavailable):
    """The endpoint refused a prompt longer than the model's context (HTTP 400 "maximum context length" and the like):
    a caller that can split its prompt (the observer's batches) catches this one; anyone else stops, told which
    settings bound the prompt."""


class LLMDegraded(LLMError):
    """``eval --strict``: some kind of LLM degradation (format errors, unknown ids, truncations, fallbacks…) went
    above the threshold share of the run's calls; the run's files are written, its numbers are not to be trusted."""
