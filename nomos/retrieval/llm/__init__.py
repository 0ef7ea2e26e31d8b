"""Talking to an OpenAI-compatible chat endpoint, with the guarantees an evaluation needs, split by job:

* :mod:`.errors`: :class:`LLMError` (a :class:`nomos.errors.LLMError`) and its two cases, not configured and
  unavailable.
* :mod:`.config`: :class:`LLMConfig` (endpoint and sampling parameters) and :class:`Reply`.
* :mod:`.client`: :class:`LLMClient`, bounded, retried, cached and accounted async completions.
* :mod:`.cache`: the SQLite :class:`ReplyCache` keyed by :func:`cache_key`, so re-runs pay for nothing.
* :mod:`.costs`: :class:`Cost` per query and purpose with its issue counts, and the run's :func:`cost_table`.
* :mod:`.replies`: the answer without reasoning (:func:`clean_reply`) and the JSON in it (:func:`parse_json_object`).
* :mod:`.ids`: ids as a model typed them matched to those it was shown (:class:`IdMatcher`).
* :mod:`.endpoint`: which endpoint to use (:func:`resolve_llm_settings`) and :func:`make_llm_client`.
* :mod:`.harness`: the checkpointed run every LLM method shares (:func:`run_checkpointed`, :class:`Checkpoint`,
  :func:`run_bounded`).

Every public name is re-exported here, so ``from nomos.retrieval.llm import …`` is the one import callers need.
"""

from nomos.retrieval.llm.cache import REPLIES, ReplyCache, cache_key
from nomos.retrieval.llm.client import LLMClient
from nomos.retrieval.llm.config import LLMConfig, Message, Reply
from nomos.retrieval.llm.costs import (
    ISSUE_KINDS,
    Cost,
    cost_table,
    degradation_warnings,
    issue_report,
    note_issues,
    run_issues,
)
from nomos.retrieval.llm.endpoint import make_llm_client, resolve_llm_settings
from nomos.retrieval.llm.errors import (
    LLMContextExceeded,
    LLMDegraded,
    LLMError,
    LLMNotConfigured,
    LLMUnavailable,
    is_context_error,
    not_configured_message,
)
from nomos.retrieval.llm.harness import Checkpoint, CheckpointedRun, QueryWork, run_bounded, run_checkpointed, text_sha
from nomos.retrieval.llm.ids import IdMatcher
from nomos.retrieval.llm.replies import Cleaned, clean_reply, parse_json_object

__all__ = [
    "ISSUE_KINDS",
    "REPLIES",
    "Cleaned",
    "IdMatcher",
    "clean_reply",
    "degradation_warnings",
    "issue_report",
    "LLMDegraded",
    "LLMContextTooLong",
    "note_issues",
    "run_issues",
    "Checkpoint",
    "CheckpointedRun",
    "Cost",
    "LLMClient",
    "LLMConfig",
    "LLMContextExceeded",
    "LLMError",
    "LLMNotConfigured",
    "LLMUnavailable",
    "Message",
    "QueryWork",
    "Reply",
    "ReplyCache",
    "cache_key",
    "cost_table",
    "is_context_error",
    "make_llm_client",
    "not_configured_message",
    "parse_json_object",
    "resolve_llm_settings",
    "run_bounded",
    "run_checkpointed",
    "text_sha",
]
