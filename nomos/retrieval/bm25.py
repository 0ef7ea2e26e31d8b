"""BM25 in OpenSearch over the Greek-analysed ``content`` field (title + text, as the paper scored them).

Queries are case descriptions that can run to thousands of words. A ``match`` query turns every token into one
boolean clause, and clusters cap clauses (``indices.query.bool.max_clause_count``, 1024 by default), so long
queries are first analysed with the index's own analyzer and sent as one ``term`` clause per distinct stem with
``boost`` = its count. BM25 sums over query tokens, so this scores exactly like the repeated tokens would.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from opensearchpy import OpenSearch
from opensearchpy.exceptions import TransportError

from nomos.errors import SearchError
from nomos.mappings import ANALYZERS, FIELDS
from nomos.opensearch.client import RETRY_STATUSES, retrying
from nomos.retrieval.base import Hit, Progress, SearchResult, rank, tick

# Only what a ranking needs comes back: less JSON to build, send and parse per query.
HIT_FIELDS = ("_id", "_score", "sort", "_source", "highlight")
MSEARCH_FILTER = ",".join(["responses.error", "responses.status"] + [f"responses.hits.hits.{f}" for f in HIT_FIELDS])
# A results page (hits with their snippets, the facet aggregations, the count of matching articles) in one response.
PAGE_FILTER = ",".join(["hits.total", "aggregations"] + [f"hits.hits.{f}" for f in HIT_FIELDS])
ANALYZE_CHUNK_CHARS = 20_000  # stays well under index.analyze.max_token_count (10,000 tokens) per request


HIGHLIGHT_TAGS = {"pre_tags": ["<mark>"], "post_tags": ["</mark>"], "encoder": "html"}


def snippet_highlight(query: str, no_match_size: int = 0) -> dict[str, Any]:
    """The result lists' snippets: two ~180-character fragments of ``text`` with the case's words in <mark>
    (html-escaped); ``no_match_size`` > 0 shows the text's start where no word matched."""
    field = {"fragment_size": 180, "number_of_fragments": 2, "highlight_query": {"match": {"text": {"query": query[:5000]}}}}
    if no_match_size:
        field["no_match_size"] = no_match_size
    return {**HIGHLIGHT_TAGS, "fields": {"text": field}}


@dataclass(frozen=True)
class FacetedHits:
    """What :meth:`BM25Retriever.search_faceted` returns: the ranked page, the aggregations over every matching
    article, and how many articles the query matches (before the page's ``post_filter``)."""

    hits: list[Hit]
    aggregations: dict[str, Any]
    matching: int


def compact_terms(tokens: Sequence[str], max_clauses: int) -> tuple[list[tuple[str, int]], int]:
    """Distinct tokens with their counts, most frequent first (ties: first occurrence), cut to ``max_clauses``.

    Returns the kept (term, count) pairs and how many distinct terms were dropped to fit the clause limit.
    """
    counts = Counter(tokens)
    first = {t: i for i, t in reversed(list(enumerate(tokens)))}
    ordered = sorted(counts.items(), key=lambda tc: (-tc[1], first[tc[0]]))
    return ordered[:max_clauses], max(0, len(ordered) - max_clauses)


def chunks(text: str, size: int = ANALYZE_CHUNK_CHARS) -> Iterator[str]:
    """Split text at whitespace into pieces of at most about ``size`` characters."""
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = text.rfind(" ", start, end)
            end = cut if cut > start else end
        yield text[start:end]
        start = end


@dataclass
class BM25Retriever:
    """BM25 with the stemmed chain (``analysis="stemmed"``) or the unstemmed folded one (``"folded"``)."""

    client: OpenSearch
    index: str
    analysis: str = "stemmed"
    max_clauses: int = 1024
    long_query_words: int = 256
    batch_size: int = 32
    highlight: bool = False
    # Filter clauses (e.g. ``{"term": {"source": "PK"}}``) that restrict which articles rank, without scoring.
    filters: tuple[dict[str, Any], ...] = ()
    # "auto": dfs_query_then_fetch when the index has 2+ shards (scores then use index-wide term statistics and do
    # not depend on how documents fall into shards), else query_then_fetch (the same thing on one shard, cheaper).
    search_type: str = "auto"
    retry_seconds: float = 120.0  # a node restarting mid-evaluation is waited for, not fatal
    name: str = field(init=False, default="bm25")
    retries: int = field(init=False, default=0)
    _resolved_search_type: str | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        if self.analysis not in FIELDS:
            raise ValueError(f"analysis must be one of {sorted(FIELDS)}, got {self.analysis!r}")

    @property
    def field(self) -> str:
        return FIELDS[self.analysis]

    def analyze(self, text: str) -> list[str]:
        """Tokens of ``text`` under the index's analyzer for this field (the same chain used at index time)."""
        tokens: list[str] = []
        for piece in chunks(text):
            resp = self._retry(lambda piece=piece: self.client.indices.analyze(
                index=self.index, body={"analyzer": ANALYZERS[self.analysis], "text": piece}))
            tokens.extend(t["token"] for t in resp.get("tokens", []))
        return tokens

    def query_clause(self, text: str, note: dict[str, Any] | None = None) -> dict[str, Any]:
        """A ``match`` for ordinary queries; a compact boosted ``term`` disjunction for long ones."""
        if len(text.split()) <= self.long_query_words:
            return {"match": {self.field: {"query": text}}}
        terms, dropped = compact_terms(self.analyze(text), self.max_clauses)
        if note is not None:
            note.update({"compact": True, "distinct_terms": len(terms) + dropped, "dropped_terms": dropped})
        if not terms:
            return {"match_none": {}}
        return {"bool": {"should": [{"term": {self.field: {"value": t, "boost": c}}} for t, c in terms]}}

    def body(self, text: str, k: int, note: dict[str, Any] | None = None, *, ids_only: bool = False) -> dict[str, Any]:
        """The search body of one query; ``ids_only`` leaves out the fields and snippets ``highlight`` asks for
        (a caller that decorates only the page it shows, later)."""
        fields = self.highlight and not ids_only
        query = self.query_clause(text, note)
        if self.filters:
            query = {"bool": {"must": [query], "filter": list(self.filters)}}
        body: dict[str, Any] = {
            "size": k,
            "query": query,
            "sort": [{"_score": "desc"}, {"article_id": "asc"}],
            "track_scores": True,
        }
        if fields:
            body["_source"] = ["title", "law", "source"]
        else:
            # Evaluation needs only ids and scores, both in the sort values: skipping stored fields avoids
            # decompressing every hit's _source and makes the query phase several times faster.
            body["stored_fields"] = "_none_"
        if fields:
            body["highlight"] = snippet_highlight(text)
        return body

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many({"q": query}, k).hits["q"]

    def search_many(self, queries: Mapping[str, str], k: int, *, checkpoint: Path | None = None, resume: bool = False,
                    on_progress: Progress | None = None) -> SearchResult:
        """All queries through ``_msearch`` in batches; results in the order given. ``query_notes`` says which
        long queries were compacted and how many terms that dropped. No LLM: ``checkpoint`` is ignored."""
        out: dict[str, list[Hit]] = {}
        notes: dict[str, dict[str, Any]] = {}
        items = list(queries.items())
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            lines: list[dict[str, Any]] = []
            for qid, text in batch:
                note: dict[str, Any] = {}
                lines.extend([{"index": self.index, "search_type": self.effective_search_type()}, self.body(text, k, note)])
                if note:
                    notes[qid] = note
            resp = self.msearch(lines)
            for (qid, _), r in zip(batch, resp["responses"], strict=True):
                out[qid] = self.hits_of(r, qid, k)
                tick(on_progress)
        return SearchResult(out, query_notes=notes)

    def request(self, text: str, k: int) -> list[dict[str, Any]]:
        """The two ``_msearch`` lines (header, body) of one query, ids and scores only: for callers that send
        BM25 beside other searches in one round trip (hybrid's results page)."""
        return [{"index": self.index, "search_type": self.effective_search_type()}, self.body(text, k, ids_only=True)]

    @staticmethod
    def hits_of(response: Mapping[str, Any], qid: str, k: int) -> list[Hit]:
        """The ranked hits of one ``_msearch`` item; an item OpenSearch refused raises, naming the query."""
        if "error" in response:
            err = response["error"]
            reason = err.get("root_cause", [{}])[0].get("reason") or err.get("reason") if isinstance(err, dict) else err
            raise SearchError(f"query {qid!r}: OpenSearch refused it: {reason}")
        return rank([_hit(h) for h in response.get("hits", {}).get("hits", [])], k)

    def msearch(self, lines: list[dict[str, Any]]) -> dict[str, Any]:
        """One ``_msearch`` with this retriever's retries (connection errors, 429/502/503/504)."""
        return self._retry(lambda: self._msearch(lines))

    def faceted_body(self, query: str, k: int, aggs: Mapping[str, Any],
                     post_filter: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The body :meth:`search_faceted` sends (bench/page_cost.py times it part by part)."""
        body = self.body(query, k)
        body["track_total_hits"] = True
        body["aggs"] = {**aggs, "_matching": {"filter": {"match_all": {}}}}
        if post_filter:
            body["post_filter"] = dict(post_filter)
        return body

    def search_faceted(self, query: str, k: int, aggs: Mapping[str, Any],
                       post_filter: Mapping[str, Any] | None = None) -> FacetedHits:
        """The top ``k`` and ``aggs`` in one request, as a results page needs them.

        The aggregations (and ``matching``) cover every article the query matches; ``post_filter`` restricts only the
        ranked hits (OpenSearch applies it after aggregating), so a page filtered to one legal source still offers
        the others. Neither the filter nor the aggregations score: the ranking is the one :meth:`search` gives with
        the same clause in ``filters``. One request instead of a ranking plus a facet query: the match runs once
        and the node parses, plans and answers one HTTP request per page."""
        body = self.faceted_body(query, k, aggs, post_filter)
        resp = self._retry(lambda: self.client.search(
            index=self.index, body=body, search_type=self.effective_search_type(), params={"filter_path": PAGE_FILTER}))
        aggregations = dict(resp.get("aggregations") or {})
        matching = int(aggregations.pop("_matching", {}).get("doc_count", 0))
        hits = rank([_hit(h) for h in resp.get("hits", {}).get("hits", [])], k)
        return FacetedHits(hits, aggregations, matching)

    def _msearch(self, lines: list[dict[str, Any]]) -> dict[str, Any]:
        """One ``_msearch``; an item that failed for a transient reason (shards still recovering after a restart:
        503, or 429/502/504) fails the whole batch so that ``_retry`` sends it again."""
        resp = self.client.msearch(body=lines, params={"filter_path": MSEARCH_FILTER})
        for r in resp["responses"]:
            if "error" in r and r.get("status") in RETRY_STATUSES:
                raise TransportError(r["status"], "msearch item failed", r["error"])
        return resp

    def _retry(self, call: Any) -> Any:
        def count(_attempt: int, _exc: Exception) -> None:
            self.retries += 1

        return retrying(call, seconds=self.retry_seconds, on_retry=count)

    def effective_search_type(self) -> str:
        """The search type sent with every query; "auto" looks up the index's shard count once."""
        if self._resolved_search_type is None:
            if self.search_type != "auto":
                self._resolved_search_type = self.search_type
            else:
                got = self._retry(lambda: self.client.indices.get_settings(index=self.index, name="index.number_of_shards"))
                shards = max(int(v["settings"]["index"]["number_of_shards"]) for v in got.values())
                self._resolved_search_type = "dfs_query_then_fetch" if shards > 1 else "query_then_fetch"
        return self._resolved_search_type

    def describe(self) -> dict[str, Any]:
        return {
            "method": self.name,
            "search_type": self.effective_search_type(),
            "index": self.index,
            "field": self.field,
            "analyzer": ANALYZERS[self.analysis],
            "max_clauses": self.max_clauses,
            "long_query_words": self.long_query_words,
        }


def _hit(h: dict[str, Any]) -> Hit:
    src = h.get("_source") or {}
    score = h.get("_score")
    if score is None:
        score = h["sort"][0]
    return Hit(
        doc_id=h.get("_id") or str(h["sort"][1]),
        score=float(score),
        title=src.get("title", ""),
        law=src.get("law", ""),
        source=src.get("source", ""),
        highlights=tuple(h.get("highlight", {}).get("text", ())),
    )
