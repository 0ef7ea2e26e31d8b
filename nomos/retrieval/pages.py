"""The pieces of a results page, in one place: what a page asks OpenSearch for besides its ranking (the hits'
fields and highlighted snippets, the facet aggregations, the count of matching articles, the page's filter) and
how its response is read back.

Every page sends its ranking query with these parts folded in, so one request answers a BM25 or a kNN page and
two a hybrid one (the ranking's ``_msearch``, then :func:`ranking_page_body`). The ranking queries themselves
stay with their retrievers (:mod:`nomos.retrieval.bm25`, :mod:`~nomos.retrieval.knn`,
:mod:`~nomos.retrieval.fusion`); ``bench/page_cost.py`` times these bodies part by part.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from nomos.legal.text.areas import label as area_label
from nomos.opensearch.stored_scripts import RANK_BY_POSITION
from nomos.retrieval.base import Hit, rank

# Only what a ranking needs comes back: less JSON to build, send and parse per query.
HIT_FIELDS = ("_id", "_score", "sort", "_source", "highlight")
# A results page (hits with their snippets, the facet aggregations, the count of matching articles) in one response.
PAGE_FILTER = ",".join(["hits.total", "aggregations"] + [f"hits.hits.{f}" for f in HIT_FIELDS])
HIGHLIGHT_TAGS = {"pre_tags": ["<mark>"], "post_tags": ["</mark>"], "encoder": "html"}
SNIPPET_FALLBACK_CHARS = 180  # a dense hit need not contain any query word: then its text's start is the snippet
# where a result stands in law: the part of the stored text in force a result line reads (nomos.retrieval.standing;
# ``in_force`` is stored, not indexed: source filtering reads it all the same), in the page's own request
STANDING_SOURCE = ["in_force.status", "in_force.amendments", "in_force.applied.action", "in_force.applied.source",
                   "inserted_into"]
INSERTED_INTO = "inserted_into"  # the host law of an article a later law inserted whole (read with the standing)
PAGE_SOURCE = ["title", "law", "source", *STANDING_SOURCE]  # what a result line shows besides its snippet
MATCHING = "_matching"  # the filter aggregation that counts what the page's query matched
IN_FORCE_TEXT = "in_force_text"  # an amended article's text in force (nomos.legal.inforce.result), copied into ``content``


# How many characters of a text the highlighter may analyse again (OpenSearch 2.2+'s ``max_analyzer_offset``): past
# it a text is shown unmarked rather than re-analysed for every page. The articles' ``text`` stores its offsets in
# the postings (``index_options: offsets``), so the unified highlighter re-analyses nothing there and marks the whole
# text; the bound holds for any field or older index without them. The index's own bound,
# ``index.highlight.max_analyzed_offset``, stays at OpenSearch's 1,000,000 characters, which no article under
# NOMOS_MAX_ARTICLE_BYTES (1 MB) exceeds, so it never turns into an error. What made a 5 MB article's page cost
# 1.9 s and 18.6 MB (issue 26) was its size: the ingest limit and the cut article pages bound that.
HIGHLIGHT_MAX_CHARS = 100_000


# --------------------------------------------------------------------------------------------------- snippets
def snippet_highlight(query: str, no_match_size: int = 0) -> dict[str, Any]:
    """The result lists' snippets: two ~180-character fragments of ``text`` with the case's words in <mark>
    (html-escaped); ``no_match_size`` > 0 shows the text's start where no word matched. An amended article's text
    in force is highlighted the same way (``Hit.in_force_highlights``; the search stage shows them where they mark
    as much of the query), so an article found by the wording an amendment gave it shows that wording."""
    text: dict[str, Any] = {"fragment_size": 180, "number_of_fragments": 2, "max_analyzer_offset": HIGHLIGHT_MAX_CHARS,
                            "highlight_query": {"match": {"text": {"query": query[:5000]}}}}
    in_force = {**text, "highlight_query": {"match": {IN_FORCE_TEXT: {"query": query[:5000]}}}}
    if no_match_size:
        text["no_match_size"] = no_match_size
    return {**HIGHLIGHT_TAGS, "fields": {"text": text, IN_FORCE_TEXT: in_force}}


def standing_part(src: Mapping[str, Any]) -> dict[str, Any]:
    """What a hit keeps of its ``_source`` for its standing: the stored ``in_force`` value, and beside it the host
    law of an article inserted whole (``inserted_into``; nomos.retrieval.standing reads both)."""
    part = dict(src.get("in_force") or {})
    if src.get(INSERTED_INTO):
        part[INSERTED_INTO] = src[INSERTED_INTO]
    return part


def page_hit(h: Mapping[str, Any]) -> Hit:
    """One hit of a search response (with or without ``_source``, scores from ``_score`` or the sort values)."""
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
        highlights=tuple((h.get("highlight") or {}).get("text") or ()),
        in_force_highlights=tuple((h.get("highlight") or {}).get(IN_FORCE_TEXT) or ()),
        in_force=standing_part(src) if src else None,  # a page's hit (ids-only rankings read no source)
    )


# --------------------------------------------------------------------------------------------------- pages
@dataclass(frozen=True)
class FacetedHits:
    """A results page as a retriever's ``search_faceted`` returns it: the ranked page, the aggregations over every
    matching article (or candidate), and how many articles the query matches (before the page's ``post_filter``)."""

    hits: list[Hit]
    aggregations: dict[str, Any]
    matching: int


def with_facets(body: Mapping[str, Any], aggs: Mapping[str, Any],
                post_filter: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A BM25 ranking body as a page: ``aggs`` and the ``_matching`` count over every article the query matches,
    the exact total, and ``post_filter`` restricting only the ranked hits (OpenSearch applies it after
    aggregating, so a page filtered to one legal source still offers the others)."""
    out = dict(body)
    out["track_total_hits"] = True
    out["aggs"] = matching_aggs(aggs, post_filter)
    if post_filter:
        out["post_filter"] = dict(post_filter)
    return out


def matching_aggs(aggs: Mapping[str, Any], post_filter: Mapping[str, Any] | None) -> dict[str, Any]:
    """``aggs`` and, under a ``post_filter``, the ``_matching`` count of what the query matched: the hits' total
    then counts only the filtered hits. Without a filter the exact total is that count already, and the page
    does not pay for a second one."""
    return {**aggs, MATCHING: {"filter": {"match_all": {}}}} if post_filter else dict(aggs)


def page_parts(query: str, k: int, aggs: Mapping[str, Any], post_filter: Mapping[str, Any] | None) -> dict[str, Any]:
    """What a results page adds to a ranking query that carries no fields of its own (kNN's and the fused
    pages): the hits' fields and snippets (the query's words with BM25's ``match``, the text's start where none
    occurs), the aggregations, the count of candidates (``_matching``, read back by :func:`faceted_page`) and
    the page's filter."""
    body: dict[str, Any] = {
        "size": k,
        "_source": PAGE_SOURCE,
        "highlight": snippet_highlight(query, no_match_size=SNIPPET_FALLBACK_CHARS),
        "aggs": matching_aggs(aggs, post_filter),
        "track_total_hits": True,
    }
    if post_filter:
        body["post_filter"] = dict(post_filter)
    return body


def ranked_page_body(query_clause: Mapping[str, Any], query: str, k: int, aggs: Mapping[str, Any],
                     post_filter: Mapping[str, Any] | None) -> dict[str, Any]:
    """A page whose ranking is one query clause (kNN's, or the server-side hybrid): the clause with
    :func:`page_parts`, ranked by (score desc, article id)."""
    return {**page_parts(query, k, aggs, post_filter), "query": dict(query_clause), "sort": TIE_SORT, "track_scores": True}


def ranking_page_body(ranked: Sequence[Hit], query: str, k: int, aggs: Mapping[str, Any],
                      post_filter: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The request of a results page over a ranking computed beforehand (bench/page_cost.py times it): the
    ranking's articles scored by their position, so ``post_filter`` and ``size`` keep its order, with the page's
    aggregations over all of them and the shown hits' snippets."""
    positions = {h.doc_id: len(ranked) - i for i, h in enumerate(ranked)}
    by_position = {
        "script_score": {
            "query": {"ids": {"values": list(positions)}},
            "script": RANK_BY_POSITION.ref({"p": positions}),
        }
    }
    return {**page_parts(query, k, aggs, post_filter), "query": by_position}


def faceted_page(resp: Mapping[str, Any], k: int) -> FacetedHits:
    """A results page's response (``PAGE_FILTER``'d; what the query matched is the ``_matching`` count under a
    filter, else the exact total) as :class:`FacetedHits`."""
    aggregations = dict(resp.get("aggregations") or {})
    counted = aggregations.pop(MATCHING, None)
    matching = int(counted["doc_count"]) if counted is not None else int(resp.get("hits", {}).get("total", {}).get("value", 0))
    return FacetedHits(rank([page_hit(h) for h in resp.get("hits", {}).get("hits", [])], k), aggregations, matching)


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
    page's last (:func:`tied_at_cut`). Inside the page, :func:`faceted_page` orders ties by id as the sort would;
    the aggregations and the count do not depend on the order."""
    resp = send(score_ordered(body, k))
    return send(dict(body)) if tied_at_cut(resp, k) else resp


def decorate_body(hits: Sequence[Hit], query: str) -> dict[str, Any]:
    """Titles, laws and snippets for a ranked list that carries only ids (:func:`nomos.retrieval.decorate`)."""
    return {
        "size": len(hits),
        "query": {"ids": {"values": [h.doc_id for h in hits]}},
        "_source": PAGE_SOURCE,
        "highlight": snippet_highlight(query, no_match_size=SNIPPET_FALLBACK_CHARS),
    }


# --------------------------------------------------------------------------------------------------- facets
@dataclass(frozen=True)
class Facet:
    source: str
    law: str
    count: int


@dataclass(frozen=True)
class AreaFacet:
    area: str  # the key (what the ``area`` filter takes)
    label: str  # the Greek label
    count: int


@dataclass(frozen=True)
class Facets:
    """A results page's two facets: legal sources (code or law) and legal areas, each with counts."""

    sources: list[Facet] = field(default_factory=list)
    areas: list[AreaFacet] = field(default_factory=list)


def facet_aggs(size: int, source: str | None = None, area: str | None = None, *, law_names: bool = True) -> dict[str, Any]:
    """Aggregations for both facets. A chosen ``area`` narrows the source facet and a chosen ``source`` the area
    facet (each facet counts what the *other* filter leaves, never its own, so a person can still switch).
    ``law_names=False`` leaves out the per-source ``law`` sub-aggregation, for a caller that knows the names."""
    by_source: dict[str, Any] = {"terms": {"field": "source", "size": size}}
    if law_names:
        by_source["aggs"] = {"law": {"terms": {"field": "law", "size": 1}}}
    by_area = {"terms": {"field": "area", "size": size}}

    def under(filter_: dict[str, Any] | None, agg: dict[str, Any]) -> dict[str, Any]:
        return {"filter": filter_, "aggs": {"inner": agg}} if filter_ else agg

    return {"sources": under({"term": {"area": area}} if area else None, by_source),
            "areas": under({"term": {"source": source}} if source else None, by_area)}


def read_facets(aggs: Mapping[str, Any], laws: Mapping[str, str] | None = None) -> Facets:
    """The two facets out of the aggregations :func:`facet_aggs` asked for (either shape: plain, or each one
    under the other facet's filter). A source's law name comes from ``laws`` when given, else from the ``law``
    sub-aggregation; a source missing from both is named by its code."""

    def buckets(name: str) -> list[dict[str, Any]]:
        agg = aggs.get(name, {})
        found: list[dict[str, Any]] = agg.get("inner", agg).get("buckets", [])
        return found

    sources = []
    for b in buckets("sources"):
        sub = b.get("law", {}).get("buckets", [])
        law = (laws or {}).get(b["key"]) or (sub[0]["key"] if sub else b["key"])
        sources.append(Facet(b["key"], law, int(b["doc_count"])))
    areas = [AreaFacet(b["key"], area_label(b["key"]), int(b["doc_count"])) for b in buckets("areas") if b["key"]]
    return Facets(sources, areas)


def page_filter(source: str | None = None, area: str | None = None) -> dict[str, Any] | None:
    """The filter a results page applies to its hits (source and/or area), or None."""
    terms = [{"term": {f: v}} for f, v in (("source", source), ("area", area)) if v]
    if not terms:
        return None
    return terms[0] if len(terms) == 1 else {"bool": {"filter": terms}}
