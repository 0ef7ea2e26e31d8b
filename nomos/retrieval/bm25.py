"""BM25 in OpenSearch over the Greek-analysed ``content`` field (title + text, as the paper scored them, and an
amended article's text in force beside its text: the mapping copies ``in_force_text`` into ``content``).

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

from nomos.errors import ConfigError, SearchError
from nomos.legal.text.lemmas import lemma_text, lemma_tokens
from nomos.mappings import ANALYZERS, FIELDS, LEMMA_FIELD
from nomos.opensearch.transport import Transport, require_transport
from nomos.retrieval.base import (
    TIE_SORT,
    FacetedHits,
    Hit,
    PageAsk,
    Progress,
    SearchResult,
    check_k,
    exact_page,
    rank,
    ranked_hit,
    tick,
)
from nomos.retrieval.case_reading import DEFAULT_QUESTION_BOOST, bm25_note, question_clause_boost, read_case

__all__ = ["BM25Retriever", "SearchError", "chunks", "compact_terms"]

# Only what a ranking needs comes back (a results page's fields and snippets: nomos.pages.request).
HIT_FIELDS = ("_id", "_score", "sort")
MSEARCH_FILTER = ",".join(["responses.error", "responses.status"] + [f"responses.hits.hits.{f}" for f in HIT_FIELDS])
ANALYZE_CHUNK_CHARS = 20_000
ANALYSED_KEPT = 64  # long texts whose tokens a retriever keeps (cleared when full: a bound, not an LRU)  # stays well under index.analyze.max_token_count (10,000 tokens) per request


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
    """BM25 with the stemmed chain (``analysis="stemmed"``) or the unstemmed folded one (``"folded"``).

    ``transport``: every request goes through it (retries, typed errors): a nomos Transport, built by
    :func:`~nomos.opensearch.transport.make_transport` with the settings' retries (never a bare client)."""

    transport: Transport
    index: str
    analysis: str = "stemmed"
    max_clauses: int = 1024
    long_query_words: int = 256
    batch_size: int = 32
    # Filter clauses (e.g. ``{"term": {"source": "PK"}}``) that restrict which articles rank, without scoring.
    filters: tuple[dict[str, Any], ...] = ()
    # "auto": dfs_query_then_fetch when the index has 2+ shards (scores then use index-wide term statistics and do
    # not depend on how documents fall into shards), else query_then_fetch (the same thing on one shard, cheaper).
    search_type: str = "auto"
    # a case file's question (nomos.retrieval.case_reading) as a second clause, boosted by this much per 100 words
    # of the whole text (question_clause_boost), so that its terms are not drowned by the facts'; 0: the text alone
    question_boost: float = DEFAULT_QUESTION_BOOST
    # the bridge fields (nomos.ingest.bridge) as clauses of their own beside the text, each with this boost: what
    # citing articles say about an article (``anchors``) and its law's title and headings (``context``); 0 leaves
    # the field out. The stemmed chain only (the fields are analysed with it); chosen by bench/bridge_study.py
    anchor_boost: float = 0.0
    context_boost: float = 0.0
    # the ``lemmas`` field (nomos.legal.text.lemmas: dictionary forms, the query lemmatized the same way) as a clause
    # beside the stems, with this boost; 0 leaves it out (``analysis="lemma"`` searches the lemmas alone)
    lemma_boost: float = 0.0
    name: str = field(init=False, default="bm25")
    _resolved_search_type: str | None = field(init=False, default=None)
    # the last texts analysed (text -> tokens, this chain): a long query is analysed once, not once per field it is
    # matched against (the learned ranker reads six fields with the same tokens)
    _analysed: dict[str, list[str]] = field(init=False, default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.analysis not in FIELDS:
            raise ConfigError(f"analysis {self.analysis!r} is not an analysis chain",
                              hint=f"choose one of {', '.join(sorted(FIELDS))}")
        require_transport(self.transport, "BM25Retriever")

    @property
    def score_kind(self) -> str:
        return "bm25"

    @property
    def client(self) -> OpenSearch:
        """The OpenSearch client under the transport (for callers that read articles with it)."""
        return self.transport.client

    @property
    def retries(self) -> int:
        """Requests the transport sent again after a transient failure (a restarting node), all its users counted."""
        return self.transport.retries

    @property
    def field(self) -> str:
        return FIELDS[self.analysis]

    def analyze(self, text: str, field: str | None = None) -> list[str]:
        """Tokens of ``text`` under the index's analyzer for this field (the same chain used at index time); the
        lemma field's are made here, in Python, as ingest made them (no request)."""
        if (field or self.field) == LEMMA_FIELD:
            return list(lemma_tokens(text))
        if text in self._analysed:
            return list(self._analysed[text])
        tokens: list[str] = []
        for piece in chunks(text):
            resp = self.transport.analyze(self.index, {"analyzer": ANALYZERS[self.analysis], "text": piece},
                                          what="analysing a long query")
            tokens.extend(t["token"] for t in resp.get("tokens", []))
        if len(self._analysed) >= ANALYSED_KEPT:
            self._analysed.clear()
        self._analysed[text] = tokens
        return list(tokens)

    def query_clause(self, text: str, note: dict[str, Any] | None = None) -> dict[str, Any]:
        """The whole text's clause (:meth:`text_clause`) and, for a case file with a question, the question's
        own clause boosted by ``question_boost`` beside it (BM25 sums the two), and the bridge fields' clauses
        where their boosts are set (:meth:`bridge_clauses`)."""
        clause = self.text_clause(text, note)
        bridge = self.bridge_clauses(text)
        if self.question_boost > 0 and (reading := read_case(text)).has_question:
            boost = question_clause_boost(self.question_boost, text)
            if note is not None:
                note["bm25_reading"] = bm25_note(reading, boost)
            question = {"bool": {"should": [self.text_clause(reading.question)], "boost": boost}}
            return {"bool": {"should": [clause, question, *bridge]}}
        return {"bool": {"should": [clause, *bridge]}} if bridge else clause

    def bridge_clauses(self, text: str) -> list[dict[str, Any]]:
        """The ``anchors`` and ``context`` clauses, each boosted, for the boosts that are set (none for the
        unstemmed chains: the bridge fields have only the stemmed analysis)."""
        lemmas = [{"bool": {"should": [self.text_clause(text, field=LEMMA_FIELD)], "boost": self.lemma_boost}}
                  ] if self.lemma_boost > 0 and self.field != LEMMA_FIELD else []
        if self.analysis != "stemmed":
            return lemmas
        return lemmas + [{"bool": {"should": [self.text_clause(text, field=name)], "boost": boost}}
                         for name, boost in (("anchors", self.anchor_boost), ("context", self.context_boost)) if boost > 0]

    def reading(self, text: str) -> dict[str, Any]:
        """How this retriever reads ``text`` (``search --explain``): its question clause and boost, and whether a
        long text was compacted into terms."""
        note: dict[str, Any] = {}
        self.query_clause(text, note)
        return {"bm25": {**note.pop("bm25_reading", {"question_clause": "none"}), **note}}

    def text_clause(self, text: str, note: dict[str, Any] | None = None, *, field: str | None = None) -> dict[str, Any]:
        """A ``match`` for ordinary queries; a compact boosted ``term`` disjunction for long ones. ``field``: another
        field analysed with this chain (the bridge fields); by default the content field."""
        field = field or self.field
        if len(text.split()) <= self.long_query_words:
            if field == LEMMA_FIELD:  # the query's lemmas, made as ingest made the field's
                lemmas = lemma_text(text)
                return {"match": {field: {"query": lemmas}}} if lemmas else {"match_none": {}}
            return {"match": {field: {"query": text}}}
        terms, dropped = compact_terms(self.analyze(text, field), self.max_clauses)
        if note is not None:
            note.update({"compact": True, "distinct_terms": len(terms) + dropped, "dropped_terms": dropped})
        if not terms:
            return {"match_none": {}}
        return {"bool": {"should": [{"term": {field: {"value": t, "boost": c}}} for t, c in terms]}}

    def filtered(self, query: dict[str, Any]) -> dict[str, Any]:
        """``query`` inside this retriever's filter clauses (one legal source…), which restrict without scoring."""
        return {"bool": {"must": [query], "filter": list(self.filters)}} if self.filters else query

    def clause_request(self, clause: dict[str, Any], k: int) -> list[dict[str, Any]]:
        """The two ``_msearch`` lines of one clause alone, filtered, ids and scores only (the learned ranker's
        anchors list: one field's clause, not :meth:`query_clause`'s whole reading)."""
        return [{"index": self.index}, {"size": k, "query": self.filtered(clause), "stored_fields": "_none_",
                                        "track_scores": True, "sort": [{"_score": "desc"}, {"article_id": "asc"}]}]

    def body(self, text: str, k: int, note: dict[str, Any] | None = None) -> dict[str, Any]:
        """The search body of one query: ids and scores only (both in the sort values: skipping stored fields
        avoids decompressing every hit's _source and makes the query phase several times faster). A results page
        adds its fields and snippets (:meth:`search_faceted`)."""
        return {"size": k, "query": self.filtered(self.query_clause(text, note)), "sort": TIE_SORT, "track_scores": True,
                "stored_fields": "_none_"}

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many({"q": query}, k).hits["q"]

    def search_many(self, queries: Mapping[str, str], k: int, *, checkpoint: Path | None = None, resume: bool = False,
                    on_progress: Progress | None = None) -> SearchResult:
        """All queries through ``_msearch`` in batches; results in the order given. ``query_notes`` says which
        long queries were compacted and how many terms that dropped. No LLM: ``checkpoint`` is ignored."""
        check_k(k)
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
            responses = self.msearch(lines, labels=[qid for qid, _ in batch])
            for (qid, _), r in zip(batch, responses, strict=True):
                out[qid] = self.hits_of(r, qid, k)
                tick(on_progress)
        return SearchResult(out, query_notes=notes)

    def request(self, text: str, k: int) -> list[dict[str, Any]]:
        """The two ``_msearch`` lines (header, body) of one query, ids and scores only: for callers that send
        BM25 beside other searches in one round trip (hybrid's results page)."""
        return [{"index": self.index, "search_type": self.effective_search_type()}, self.body(text, k)]

    @staticmethod
    def hits_of(response: Mapping[str, Any], qid: str, k: int) -> list[Hit]:
        """The ranked hits of one ``_msearch`` item (the transport has already raised for a refused one)."""
        return rank([ranked_hit(h) for h in response.get("hits", {}).get("hits", [])], k)

    def msearch(self, lines: Sequence[Mapping[str, Any]], labels: Sequence[str] = ()) -> list[dict[str, Any]]:
        """One ``_msearch`` through the transport (an item refused raises naming its label); its responses."""
        return self.transport.msearch(lines, labels=labels, filter_path=MSEARCH_FILTER, what="BM25 search")

    def faceted_body(self, query: str, k: int, page: PageAsk) -> dict[str, Any]:
        """The body :meth:`search_faceted` sends (bench/page_cost.py times it part by part)."""
        return page.body(self.body(query, k), k)

    def search_faceted(self, query: str, k: int, page: PageAsk) -> FacetedHits:
        """The top ``k`` with what ``page`` asks for (fields, snippets, aggregations, a filter), in one request.

        The aggregations (and ``matching``) cover every article the query matches; the page's ``post_filter``
        restricts only the ranked hits (OpenSearch applies it after aggregating). Neither the filter nor the
        aggregations score: the ranking is the one :meth:`search` gives with the same clause in ``filters``. One
        request instead of a ranking plus a facet query: the match runs once and the node parses, plans and
        answers one HTTP request per page."""
        check_k(k)
        body = self.faceted_body(query, k, page)
        search_type = self.effective_search_type()

        def send(b: dict[str, Any]) -> dict[str, Any]:
            return self.transport.search(self.index, b, what="the BM25 results page", search_type=search_type,
                                         params={"filter_path": page.filter_path})

        return page.read(exact_page(send, body, k), k)

    def effective_search_type(self) -> str:
        """The search type sent with every query; "auto" looks up the index's shard count once."""
        if self._resolved_search_type is None:
            if self.search_type != "auto":
                self._resolved_search_type = self.search_type
            else:
                got = self.transport.get_settings(self.index, "index.number_of_shards", what="the index's shard count")
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
            "question_boost": self.question_boost,
            "anchor_boost": self.anchor_boost,
            "context_boost": self.context_boost,
            "lemma_boost": self.lemma_boost,
        }
