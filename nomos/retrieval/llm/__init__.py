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
The names load on first use (:mod:`nomos.exports`): :mod:`.settings` (the LLM part of the settings) sits in this
package, so ``import nomos.settings`` (every command's start-up) must not pull in the client, its cache or the
legal citations :mod:`.ids` reads.
"""

from typing import TYPE_CHECKING

from nomos.exports import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".cache": ("REPLIES", "ReplyCache", "cache_key"),
    ".client": ("LLMClient",),
    ".config": ("LLMConfig", "Message", "Reply"),
    ".costs": ("ISSUE_KINDS", "Cost", "cost_table", "degradation_warnings", "issue_report", "note_issues",
               "run_issues"),
    ".endpoint": ("make_llm_client", "resolve_llm_settings"),
    ".errors": ("LLMContextExceeded", "LLMDegraded", "LLMError", "LLMNotConfigured", "LLMUnavailable",
                "is_context_error", "not_configured_message"),
    ".harness": ("Checkpoint", "CheckpointedRun", "QueryWork", "run_bounded", "run_checkpointed", "text_sha"),
    ".ids": ("IdMatcher",),
    ".replies": ("Cleaned", "clean_reply", "parse_json_object"),
})

if TYPE_CHECKING:  # the real types for mypy (the names above are typed Any otherwise)
    from nomos.retrieval.llm.cache import REPLIES as REPLIES
    from nomos.retrieval.llm.cache import ReplyCache as ReplyCache
    from nomos.retrieval.llm.cache import cache_key as cache_key
    from nomos.retrieval.llm.client import LLMClient as LLMClient
    from nomos.retrieval.llm.config import LLMConfig as LLMConfig
    from nomos.retrieval.llm.config import Message as Message
    from nomos.retrieval.llm.config import Reply as Reply
    from nomos.retrieval.llm.costs import ISSUE_KINDS as ISSUE_KINDS
    from nomos.retrieval.llm.costs import Cost as Cost
    from nomos.retrieval.llm.costs import cost_table as cost_table
    from nomos.retrieval.llm.costs import degradation_warnings as degradation_warnings
    from nomos.retrieval.llm.costs import issue_report as issue_report
    from nomos.retrieval.llm.costs import note_issues as note_issues
    from nomos.retrieval.llm.costs import run_issues as run_issues
    from nomos.retrieval.llm.endpoint import make_llm_client as make_llm_client
    from nomos.retrieval.llm.endpoint import resolve_llm_settings as resolve_llm_settings
    from nomos.retrieval.llm.errors import LLMContextExceeded as LLMContextExceeded
    from nomos.retrieval.llm.errors import LLMDegraded as LLMDegraded
    from nomos.retrieval.llm.errors import LLMError as LLMError
    from nomos.retrieval.llm.errors import LLMNotConfigured as LLMNotConfigured
    from nomos.retrieval.llm.errors import LLMUnavailable as LLMUnavailable
    from nomos.retrieval.llm.errors import is_context_error as is_context_error
    from nomos.retrieval.llm.errors import not_configured_message as not_configured_message
    from nomos.retrieval.llm.harness import Checkpoint as Checkpoint
    from nomos.retrieval.llm.harness import CheckpointedRun as CheckpointedRun
    from nomos.retrieval.llm.harness import QueryWork as QueryWork
    from nomos.retrieval.llm.harness import run_bounded as run_bounded
    from nomos.retrieval.llm.harness import run_checkpointed as run_checkpointed
    from nomos.retrieval.llm.harness import text_sha as text_sha
    from nomos.retrieval.llm.ids import IdMatcher as IdMatcher
    from nomos.retrieval.llm.replies import Cleaned as Cleaned
    from nomos.retrieval.llm.replies import clean_reply as clean_reply
    from nomos.retrieval.llm.replies import parse_json_object as parse_json_object
