"""The page request: what a results page asks OpenSearch for besides its ranking (the hits' fields and snippets,
the facet aggregations, the count of matching articles, the page's filter) and how its answer is read back.

A page is asked in the ranking's own request: :class:`PageRequest` is the
:class:`~nomos.retrieval.base.PageAsk` the page floor hands a retriever's ``search_faceted``, which folds it into
the request that ranks (one request answers a BM25 or a kNN page, two a hybrid one) and hands the page back. A
ranking that came with ids only (the rank-then-page path) is decorated here in one request (:func:`decorate`).
``bench/page_cost.py`` times these bodies part by part.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from nomos.opensearch.transport import Transport
from nomos.pages import passages
from nomos.pages.snippets import SNIPPET_FALLBACK_CHARS, snippet_request, snippets_of, standing_part
from nomos.retrieval.amendments import precede_page
from nomos.retrieval.base import FacetedHits, Hit, rank
from nomos.retrieval.fusion import by_position

# Only what a ranking needs comes back: less JSON to build, send and parse per query.
HIT_FIELDS = ("_id", "_score", "sort", "_source", "highlight")
# A results page (hits with their snippets, the facet aggregations, the count of matching articles) in one response.
PAGE_FILTER = ",".join(["hits.total", "aggregations"] + [f"hits.hits.{f}" for f in HIT_FIELDS])
MATCHING = "_matching"  # the filter aggregation that counts what the page's query matched


def page_hit(h: Mapping[str, Any], query: str | None = None, *, snippets: str = passages.DEFAULT) -> Hit:
    """One hit of a search response (with or without ``_source``, scores from ``_score`` or the sort values);
    ``query``: the page's, which snippets cut from its text mark, ``snippets`` the kind its page asked for
    (:func:`~nomos.pages.snippets.snippets_of`)."""
    src = h.get("_source") or {}
    score = h.get("_score")
    if score is None:
        score = h["sort"][0]
    highlights, in_force_highlights = snippets_of(h, query, mode=snippets)
    return Hit(
        doc_id=h.get("_id") or str(h["sort"][1]),
        score=float(score),
        title=src.get("title", ""),
        law=src.get("law", ""),
        source=src.get("source", ""),
        highlights=highlights,
        in_force_highlights=in_force_highlights,
        in_force=standing_part(src) if src else None,  # a page's hit (ids-only rankings read no source)
    )


def matching_aggs(aggs: Mapping[str, Any], post_filter: Mapping[str, Any] | None) -> dict[str, Any]:
    """``aggs`` and, under a ``post_filter``, the ``_matching`` count of what the query matched: the hits' total
    then counts only the filtered hits. Without a filter the exact total is that count already, and the page
    does not pay for a second one."""
    return {**aggs, MATCHING: {"filter": {"match_all": {}}}} if post_filter else dict(aggs)


def faceted_page(resp: Mapping[str, Any], k: int, query: str | None = None, *, snippets: str = passages.DEFAULT
                 ) -> FacetedHits:
    """A results page's response (``PAGE_FILTER``'d; what the query matched is the ``_matching`` count under a
    filter, else the exact total) as :class:`FacetedHits` (``query`` and ``snippets``: the page's, for
    :func:`page_hit`)."""
    aggregations = dict(resp.get("aggregations") or {})
    counted = aggregations.pop(MATCHING, None)
    matching = int(counted["doc_count"]) if counted is not None else int(resp.get("hits", {}).get("total", {}).get("value", 0))
    return FacetedHits(rank([page_hit(h, query, snippets=snippets) for h in resp.get("hits", {}).get("hits", [])], k), aggregations, matching)


@dataclass(frozen=True)
class PageRequest:
    """One results page's parts, handed down to the retriever that ranks it (a
    :class:`~nomos.retrieval.base.PageAsk`): ``aggs`` over every article the query matches (or candidate), the
    page's ``post_filter`` (it restricts only the ranked hits: OpenSearch applies it after aggregating, so a page
    filtered to one legal source still offers the others), and snippets of ``query``; ``fallback``: a hit that
    contains none of the query's words shows its text's start (a dense or fused hit need not contain any; a BM25
    hit does); ``snippets``: how they are made (:data:`nomos.pages.passages.MODES`, the stage's NOMOS_SNIPPETS),
    carried by the page, not kept by a module, so stages with different settings in one process keep their own."""

    transport: Transport
    index: str
    query: str
    aggs: Mapping[str, Any] = field(default_factory=dict)
    post_filter: Mapping[str, Any] | None = None
    fallback: bool = True
    filter_path: str = PAGE_FILTER
    snippets: str = passages.DEFAULT
    precede: int = 0  # the amendment stage's precede depth the page is ordered with (0: the method's own order)

    def __post_init__(self) -> None:
        passages.checked(self.snippets)

    def body(self, ranking: Mapping[str, Any], k: int) -> dict[str, Any]:
        """``ranking`` with the hits' fields and snippets, the aggregations, the exact count of what it matched
        (``_matching``, read back by :func:`faceted_page`) and the page's filter, ``k`` hits."""
        out = {key: value for key, value in ranking.items() if key != "stored_fields"}
        out |= {"size": k, **snippet_request(self.query, SNIPPET_FALLBACK_CHARS if self.fallback else 0,
                                                       mode=self.snippets),
                "track_total_hits": True, "aggs": matching_aggs(self.aggs, self.post_filter)}
        if self.post_filter:
            out["post_filter"] = dict(self.post_filter)
        return out

    def read(self, response: Mapping[str, Any], k: int) -> FacetedHits:
        return faceted_page(response, k, self.query, snippets=self.snippets)

    def decorate(self, hits: list[Hit]) -> list[Hit]:
        return decorate(self.transport, self.index, hits, self.query, snippets=self.snippets)

    def ordered(self, ranked: list[Hit]) -> list[Hit]:
        """``ranked`` (its hits carrying their ``restates``) with each article an amending article restates right
        before it, every hit keeping the method's score (:func:`~nomos.retrieval.amendments.precede_page`)."""
        return precede_page(ranked, self.precede) if self.precede else ranked


def ranking_page_body(page: PageRequest, ranked: Sequence[Hit], k: int) -> dict[str, Any]:
    """The request of a results page over a ranking computed beforehand (bench/page_cost.py times it): the
    ranking's articles scored by their position, with the page's aggregations over all of them and the shown hits'
    snippets."""
    return page.body({"query": by_position(ranked)}, k)


def decorate_body(hits: Sequence[Hit], query: str, *, snippets: str) -> dict[str, Any]:
    """Titles, laws and snippets (made as ``snippets`` says) for a ranked list that carries only ids
    (:func:`decorate`)."""
    return {
        "size": len(hits),
        "query": {"ids": {"values": [h.doc_id for h in hits]}},
        **snippet_request(query, SNIPPET_FALLBACK_CHARS, mode=snippets),
    }


def decorate(transport: Transport, index: str, hits: list[Hit], query: str, *, snippets: str) -> list[Hit]:
    """Titles, laws and highlighted snippets (made as ``snippets`` says) for a ranked list that carries only ids
    and scores, in one search (``transport``: a :class:`~nomos.opensearch.transport.Transport`, or a client, which
    retries nothing)."""
    if not hits:
        return hits
    resp = transport.search(index, decorate_body(hits, query, snippets=snippets), what="titles and snippets of the results")
    by_id = {h["_id"]: h for h in resp["hits"]["hits"]}
    out = []
    for h in hits:
        src = by_id.get(h.doc_id, {})
        s = src.get("_source", {})
        highlights, in_force_highlights = snippets_of(src, query, mode=snippets)
        out.append(replace(h, title=s.get("title", ""), law=s.get("law", ""), source=s.get("source", ""),
                           highlights=highlights, in_force_highlights=in_force_highlights,
                           in_force=standing_part(s) if src else None))
    return out
