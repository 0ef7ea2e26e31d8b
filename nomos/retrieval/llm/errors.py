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


class LLMContextExceeded(LLMUnavailable):
    """The endpoint refused a prompt longer than the model's context (an HTTP 400): a caller that can send less
    (ReAct's observer splits its batch) catches it; anywhere else it stops the run like any refusal."""


# how servers word a prompt over the context: OpenAI's error code, vLLM's and OpenAI's message ("maximum context
# length is … tokens"), llama.cpp's message and error type, and the wordings of Ollama, TGI and other servers
CONTEXT_MARKERS = ("context_length_exceeded", "maximum context length", "exceeds the available context size",
                   "exceed_context_size_error", "context length", "context window", "context size",
                   "exceeds the model's context", "too many tokens", "prompt is too long", "reduce the length")


def is_context_error(status: int | None, *texts: object) -> bool:
    """True for a 400 whose code, type or message says the prompt does not fit the model's context."""
    if status != 400:
        return False
    blob = " ".join(str(t) for t in texts if t is not None).lower()
    return any(m in blob for m in CONTEXT_MARKERS)


def not_configured_message(method: str) -> str:
    """What to set (or start) so that ``method`` has an endpoint: every setting and option by name."""
    return (
        f"method {method!r} needs an OpenAI-compatible chat endpoint: set NOMOS_LLM_BASE_URL (or --llm-base-url) "
        "and NOMOS_LLM_MODEL (or --llm-model); the key comes from NOMOS_LLM_API_KEY or OPENAI_API_KEY "
        "(optional for local servers); or start the local server: python cli.py llm start"
    )


class LLMDegraded(LLMError):
    """``eval --strict``: some kind of LLM degradation (format errors, unknown ids, truncations, fallbacks…) went
    above the threshold share of the run's calls; the run's files are written, its numbers are not to be trusted."""
