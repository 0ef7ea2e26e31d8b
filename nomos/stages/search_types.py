"""What the search path takes and gives: a :class:`SearchRequest`, a :class:`SearchPage`, the error of a method that
cannot run here, and :class:`Kept`, the searcher's memory of what changes rarely. Plain values, so the portal's
templates and API models read them without knowing how a search ran (:mod:`nomos.stages.searching`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, TypeVar, cast

from nomos.errors import ConfigError
from nomos.pages.facets import AreaFacet, Facet
from nomos.pages.standing import IN_FORCE, Standing
from nomos.query_text import read_query
from nomos.retrieval.base import Hit
from nomos.retrieval.cited import DirectHit
from nomos.retrieval.knn import VectorReadiness
from nomos.retrieval.registry import MethodOptions

T = TypeVar("T")

KEEP_S = 60.0  # what changes rarely (law names, the LLM endpoint, whether the index holds vectors, BM25's retriever)


class MethodUnavailable(ConfigError):
    """The method exists but cannot run here: ``needs`` says why ("offer": this searcher does not offer it, e.g.
    the portal's list; "llm": no LLM endpoint is configured or running; "vectors": the embedder's vectors are
    still being computed, ``readiness`` says how far)."""

    def __init__(self, message: str, *, method: str, needs: str, hint: str | None = None,
                 readiness: VectorReadiness | None = None) -> None:
        self.method = method
        self.needs = needs
        self.readiness = readiness
        super().__init__(message, hint=hint)


def duration_text(seconds: float) -> str:
    """«45 s», «40 min», «2 h 12 min»: a duration as the command line writes it (ETAs, progress lines)."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"


def time_left(seconds: float | None) -> str:
    """«about 40 min left» for a readiness note; "" when nobody knows."""
    if seconds is None:
        return ""
    return "under a minute left" if seconds < 30 else f"about {duration_text(max(seconds, 60))} left"


def readiness_note(readiness: VectorReadiness) -> str:
    """«17% ready, about 40 min left»: what the command line says while an embedder's vectors are computed."""
    left = time_left(readiness.eta_s)
    return f"{readiness.percent}% ready" + (f", {left}" if left else "")


@dataclass
class Kept(Generic[T]):
    """A value looked up at most once per ``ttl`` seconds. A lookup that raises keeps nothing (asked again next
    time). Worker threads may race to refresh it; both look up the same thing, and the last one is kept."""

    ttl: float = KEEP_S
    _at: float | None = None
    _value: T | None = None

    def get(self, load: Callable[[], T]) -> T:
        now = time.monotonic()
        if self._at is None or now - self._at > self.ttl:
            self._value, self._at = load(), now
        return cast(T, self._value)

    def peek(self) -> T | None:
        """The value while it is fresh, else None; never looks it up (a caller on an event loop, which must not
        wait on the cluster, asks this first)."""
        if self._at is None or time.monotonic() - self._at > self.ttl:
            return None
        return self._value


@dataclass(frozen=True)
class SearchRequest:
    """One query. ``method`` None: the best the index serves (:meth:`SearchStage.default_method`). ``source`` and
    ``area`` filter the hits (not the facets). ``facets`` False: the hits only (the command line)."""

    query: str
    method: str | None = None
    k: int = 10
    source: str | None = None
    area: str | None = None
    options: MethodOptions = MethodOptions()
    facets: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "query", read_query(self.query))  # NFC, LF, bounded: every path reads it alike
        if self.k < 1:
            raise ConfigError(f"k: the number of articles must be at least 1, got {self.k}")


@dataclass
class SearchPage:
    """What one search shows. ``facets``: the legal sources of the matches (with law names and counts), ``areas``
    the legal areas. ``total``: articles matching (BM25), candidates ranked (kNN, hybrid: the pool) or hits ranked
    (the other methods)."""

    query: str
    method: str
    k: int
    source: str | None
    hits: list[Hit]
    facets: list[Facet]
    total: int
    took_ms: float
    trace: list[dict[str, Any]] | None = None  # ReAct: the rounds, each a dict (query, thought, candidates, kept)
    area: str | None = None
    areas: list[AreaFacet] = field(default_factory=list)
    reranked: str | None = None  # the judge that re-ordered the top (--rerank / NOMOS_RERANK)
    defaulted: bool = False  # no method was asked for: ``method`` is the index's best
    # the articles the query names outright (a citation, an id, an exact title), first in ``hits``
    named: list[DirectHit] = field(default_factory=list)
    # articles a case cites in passing, put among ``hits`` where the method had not ranked them
    cited: list[str] = field(default_factory=list)
    # citations in the query the index holds no article of («άρθρο 999 ΠΚ»): said on top of the results
    missing: list[str] = field(default_factory=list)
    # defaulted to BM25 while the embedder's vectors are being computed: how far they are (percent), else None
    hybrid_ready: int | None = None
    hybrid_eta_s: float | None = None  # and the seconds left at the indexer's rate (None: unknown)
    score_kind: str = "bm25"  # what the hits' scores are (nomos.retrieval.base.SCORE_KINDS): "rank" is a position
    # article id -> where it stands in law (repealed, amended…: nomos.pages.standing); repealed hits are listed
    # after those in force (save an article the query names)
    standing: dict[str, Standing] = field(default_factory=dict)
    # a long case a dense method read in part: (windows embedded, windows the text makes, its question embedded
    # apart too); None: read whole (nomos.retrieval.case_reading.DEFAULT_MAX_WINDOWS; the page says so, BM25 reads
    # every word)
    dense_read: tuple[int, int, bool] | None = None

    def standing_of(self, article_id: str) -> Standing:
        """Where the hit ``article_id`` stands (in force as written where nothing was read of it)."""
        return self.standing.get(article_id, IN_FORCE)

    @property
    def repealed(self) -> int:
        """How many hits are repealed articles (listed after those in force)."""
        return sum(1 for h in self.hits if self.standing_of(h.doc_id).repealed)
