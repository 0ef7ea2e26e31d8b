"""The retriever interface every method implements, and the typed results it returns.

``search_many`` returns one :class:`SearchResult`: the ranked hits per query and, beside them, whatever evidence
the method gathered on the way (clause ranks, expansions, LLM traces and costs, per-round snapshots). Evidence
travels in the result, never on the retriever, so one retriever can serve several threads and a consumer never
has to ask a retriever what it happens to remember about its last call.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

from nomos.errors import ConfigError
from nomos.ordering import score_order

# (doc id, score) pairs, best first: the shape of a run file's per-query list (nomos.eval.runs.Run values)
Ranking = list[tuple[str, float]]
# Called once per finished query with the number of queries that just finished (always 1): ``tqdm.update`` fits.
Progress = Callable[[int], None]


@dataclass(frozen=True)
class Hit:
    """One ranked article. ``details`` carries per-method evidence (clause scores, highlights…)."""

    doc_id: str
    score: float
    title: str = ""
    law: str = ""
    source: str = ""
    highlights: tuple[str, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)
    # an amended article's snippet fragments of its text in force (the search stage shows them instead of
    # ``highlights`` where they mark as much of the query: nomos.pages.marks.with_own_marks)
    in_force_highlights: tuple[str, ...] = ()
    # what a results page read of the article's stored text in force (``in_force``'s status and actions, for
    # nomos.pages.standing): {} where nothing amends it; None where the page did not read it
    in_force: Mapping[str, Any] | None = None


def by_score(pairs: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    """(id, score) pairs in :func:`score_order` (documents, expansion terms, a judge's verdicts)."""
    return sorted(pairs, key=lambda p: score_order(p[0], p[1]))


def rank(hits: Sequence[Hit], k: int) -> list[Hit]:
    """Deduplicate by id (keep the best), sort by :func:`score_order` and cut to ``k``: deterministic."""
    best: dict[str, Hit] = {}
    for h in hits:
        if h.doc_id not in best or h.score > best[h.doc_id].score:
            best[h.doc_id] = h
    return sorted(best.values(), key=lambda h: score_order(h.doc_id, h.score))[:k]


def check_k(k: int) -> None:
    """A ranking's depth must be at least 1 (OpenSearch would answer a negative size with a 400)."""
    if k < 1:
        # named as the parameter (k): the Python API, the portal and the command line (-k) all pass it
        raise ConfigError(f"k must be at least 1, got {k}", hint="how many articles to return per query")


def tick(on_progress: Progress | None) -> None:
    """Report one finished query to ``on_progress`` (if any)."""
    if on_progress is not None:
        on_progress(1)


@dataclass(frozen=True)
class SearchResult:
    """The ranked hits of a ``search_many`` call and the evidence the method gathered for them.

    Every evidence field is empty where a method has none of that kind, so consumers read fields and never ask
    which method produced the result.
    """

    # query id -> top-k hits, ranked by (score desc, doc id)
    hits: dict[str, list[Hit]]
    # query id -> doc id -> each clause's rank and score (``bm25_rank``, ``knn_score``…): why a fused doc ranked
    clause_evidence: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    # clause name ("bm25", "knn") -> query id -> that clause's own ranking (to the fusion depth): what each
    # clause alone would have given, for the fusion diagnosis
    clause_rankings: dict[str, dict[str, list[Hit]]] = field(default_factory=dict)
    # query id -> how the query was sent, where it was not sent as written (BM25's long-query compaction)
    query_notes: dict[str, dict[str, Any]] = field(default_factory=dict)
    # query id -> pseudo-relevance-feedback expansion terms and their weights, best first
    expansions: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    # query id -> the LLM's trace for that query (ReAct rounds, a reformulation's rewrites, the issues met)
    traces: dict[str, dict[str, Any]] = field(default_factory=dict)
    # the LLM cost table of the call (calls, tokens, seconds; resumed queries, paid calls, retries)
    costs: dict[str, Any] = field(default_factory=dict)
    # round -> query id -> the final ranking as it stood after that round (ReAct's curve in one run)
    snapshots: dict[int, dict[str, Ranking]] = field(default_factory=dict)
    # round -> query id -> every candidate seen up to that round (the ceiling a better observer could reach)
    pools: dict[int, dict[str, Ranking]] = field(default_factory=dict)

    def merge(self, *inner: SearchResult) -> SearchResult:
        """This result's hits with the evidence of the results of retrievers it wrapped added: for each field,
        the keys this result has win, the inner results fill in the rest (earlier ones first)."""
        updates: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "hits":
                continue
            combined: dict[Any, Any] = {}
            for r in reversed(inner):
                combined.update(getattr(r, f.name))
            combined.update(getattr(self, f.name))
            updates[f.name] = combined
        return replace(self, **updates)

    def evidence(self) -> dict[str, Any]:
        """The evidence fields that are not empty, by name (what a results folder records)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "hits" and getattr(self, f.name)}


# What a hit's score is, by ``Retriever.score_kind``: shown beside the scores (the CLI, the portal) and recorded in
# a run's manifest, so nobody takes a position for a relevance score.
SCORE_KINDS: dict[str, str] = {
    "bm25": "BM25 score",
    "similarity": "cosine similarity, as OpenSearch scores it: (1 + cos) / 2",
    "fused": "fused score: the clauses' min-max normalised scores, weighted",
    "rrf": "reciprocal rank fusion score: the sum of 1 / (60 + rank) over the clauses",
    "rank": "rank-derived (k + 1 - rank): the list's order, not a relevance score",
    "learned": "the learned ranker's score (LambdaMART): an order, not a probability",
}
# The kinds whose numbers are an order only (a position, a ranker's raw output, negative as often as not): shown
# to no reader, who would take 100.000 or -1.234 for a relevance; kept in JSON and run files.
ORDER_ONLY = frozenset({"rank", "learned"})


class Retriever(Protocol):
    """What the CLI, the evaluator and the portal call, whatever the method behind it. ``score_kind``: what its
    hits' scores are (a key of :data:`SCORE_KINDS`)."""

    name: str

    @property
    def score_kind(self) -> str: ...

    def search(self, query: str, k: int) -> list[Hit]:
        """Top-``k`` articles for one query, ranked by (score desc, doc id)."""
        ...

    def search_many(
        self,
        queries: Mapping[str, str],
        k: int,
        *,
        checkpoint: Path | None = None,
        resume: bool = False,
        on_progress: Progress | None = None,
    ) -> SearchResult:
        """Top-``k`` for many queries (batched where the method allows); ``hits`` keys are the query ids.

        ``checkpoint``: where LLM methods append each finished query (a JSON line), so a run that stops can go on
        with ``resume=True`` instead of paying again; methods without an LLM are cheap to rerun and ignore both.
        ``on_progress`` is called once per finished query.
        """
        ...

    def describe(self) -> dict[str, Any]:
        """Parameters that a results manifest must record to reproduce this ranking."""
        ...


# --------------------------------------------------------------------------------------------------- results pages
@dataclass(frozen=True)
class FacetedHits:
    """A results page as a retriever's ``search_faceted`` returns it: the ranked page, the aggregations over every
    matching article (or candidate), and how many articles the query matches (before the page's ``post_filter``)."""

    hits: list[Hit]
    aggregations: dict[str, Any]
    matching: int


class PageAsk(Protocol):
    """What a results page asks a ranking's own request to carry, decided on the page floor above retrieval
    (:class:`nomos.pages.request.PageRequest`) and handed down: the hits' fields and snippets, the aggregations, the
    page's filter, and how the answer is read. A retriever folds it into the request that ranks (one request for
    BM25 and kNN, two for hybrid) and hands the page back; it never builds or reads the page's parts itself."""

    @property
    def aggs(self) -> Mapping[str, Any]: ...

    @property
    def post_filter(self) -> Mapping[str, Any] | None: ...

    @property
    def filter_path(self) -> str: ...

    def body(self, ranking: Mapping[str, Any], k: int) -> dict[str, Any]:
        """``ranking`` (a body that ranks: its query, sort, search pipeline) with the page's parts, ``k`` hits."""
        ...

    def read(self, response: Mapping[str, Any], k: int) -> FacetedHits:
        """The answer to :meth:`body`'s request as a page."""
        ...

    def decorate(self, hits: list[Hit]) -> list[Hit]:
        """Titles and snippets for hits that came with ids and scores only (one request)."""
        ...

    @property
    def precede(self) -> int:
        """The amendment stage's ``precede`` depth the page is ordered with (0: the method's order): a retriever
        that ``orders_pages`` then reads its hits' ``restates`` with its ranking and hands :meth:`ordered` the
        ranking before the page's request."""
        ...

    def ordered(self, ranked: list[Hit]) -> list[Hit]:
        """``ranked`` (hits carrying their ``restates``) in the page's order: the amended article first (issue 49)."""
        ...


class FacetedRetriever(Retriever, Protocol):
    """A retriever that serves a results page in its ranking's own requests (``MethodSpec.faceted``; the registry's
    :func:`~nomos.retrieval.registry.make_faceted` builds one). The page ranks exactly as :meth:`search` does."""

    def search_faceted(self, query: str, k: int, page: PageAsk) -> FacetedHits:
        """The top ``k`` with what ``page`` asks for: aggregations over every matching article (or candidate), the
        page's filter restricting only the ranked hits."""
        ...


TIE_SORT = [{"_score": "desc"}, {"article_id": "asc"}]  # the one tie rule (nomos.ordering) as OpenSearch's sort


def score_ordered(body: Mapping[str, Any], k: int) -> dict[str, Any]:
    """``body`` ranked by score alone, one hit deeper than the page: no (score, article id) sort.

    Sorting on a field beside the score makes every competitive hit read the article id's doc values and swaps
    Lucene's top-score collector for the field-sort one; on the stand-in's case files that was a fifth of a BM25
    page's CPU in OpenSearch (docs/benchmarks.md "A results page in half the CPU"). The extra hit is how
    :func:`exact_page` knows the page is the one the tie rule gives."""
    out = {key: value for key, value in body.items() if key not in ("sort", "track_scores")}
    out["size"] = k + 1
    return out


def tied_at_cut(resp: Mapping[str, Any], k: int) -> bool:
    """Whether the hit after the page scores what the page's last hit scores: then which of the tied articles
    fall inside the page depends on the tie rule, and only the sorted request can say."""
    hits = resp.get("hits", {}).get("hits", [])
    return len(hits) > k and float(hits[k]["_score"]) == float(hits[k - 1]["_score"])


def exact_page(send: Callable[[dict[str, Any]], Mapping[str, Any]], body: Mapping[str, Any], k: int) -> Mapping[str, Any]:
    """A results page ranked exactly as ``body``'s (score desc, article id asc) sort ranks it, usually without
    that sort: the page by score alone and one hit more, and the sorted request only when that hit ties the
    page's last (:func:`tied_at_cut`). Inside the page, the page's reader orders ties by id as the sort would;
    the aggregations and the count do not depend on the order."""
    resp = send(score_ordered(body, k))
    return send(dict(body)) if tied_at_cut(resp, k) else resp


def ranked_hit(h: Mapping[str, Any]) -> Hit:
    """One hit of a ranking's response, id and score only (from ``_id`` and ``_score``, or the sort values)."""
    score = h.get("_score")
    if score is None:
        score = h["sort"][0]
    return Hit(doc_id=h.get("_id") or str(h["sort"][1]), score=float(score))
