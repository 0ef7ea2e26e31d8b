"""A results page's facets (legal sources and legal areas, with counts), its filter, and the facets and filter of
a ranking that came with ids only (the rank-then-page path: one request for both).

Ids reach OpenSearch only as ``ids``/``term`` values, never in query syntax.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from nomos.legal.text.areas import label as area_label
from nomos.opensearch.transport import Transport

MAX_SOURCES = 10_000  # law_names: every legal source of an index (the benchmark has 23, the stand-in 67)


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


def law_names(transport: Transport, index: str) -> dict[str, str]:
    """Every legal source of the index with its law's name (source code -> name), in one aggregation.

    A source names one law, so a results page need not ask for the name beside every facet bucket: the portal
    keeps this map for a minute and its pages leave the ``law`` sub-aggregation out (8% of a BM25 page's time
    in OpenSearch, bench/page_cost.py)."""
    body = {"size": 0, "aggs": {"sources": {
        "terms": {"field": "source", "size": MAX_SOURCES}, "aggs": {"law": {"terms": {"field": "law", "size": 1}}}}}}
    resp = transport.search(index, body, what="the law names")
    return {f.source: f.law for f in read_facets(resp.get("aggregations") or {}).sources}


def ids_facets(transport: Transport, index: str, ids: Sequence[str], size: int = 15, source: str | None = None,
               area: str | None = None, laws: Mapping[str, str] | None = None) -> Facets:
    """Legal sources and areas of a ranked list (LLM methods and re-ranked pages), with counts; ``laws`` as in
    a results page."""
    return ids_facets_and_matching(transport, index, ids, size, source, area, laws)[0]


def ids_facets_and_matching(transport: Transport, index: str, ids: Sequence[str], size: int = 15,
                            source: str | None = None, area: str | None = None,
                            laws: Mapping[str, str] | None = None) -> tuple[Facets, set[str]]:
    """:func:`ids_facets` and :func:`matching_ids` in one request: the aggregations over every id, the filter as a
    ``post_filter`` (it narrows the hits, not the facets) over the hits, ids from doc values (no stored fields)."""
    if not ids:
        return Facets(), set()
    filt = page_filter(source, area)
    body: dict[str, Any] = {"size": len(ids) if filt else 0, "query": {"ids": {"values": list(ids)}},
                            "aggs": facet_aggs(size, source, area, law_names=laws is None)}
    if filt:
        body |= {"post_filter": filt, "stored_fields": "_none_", "docvalue_fields": ["article_id"]}
    resp = transport.search(index, body, what="the facets of the results")
    kept = {str(h["fields"]["article_id"][0]) for h in resp["hits"]["hits"]} if filt else set(ids)
    return read_facets(resp["aggregations"], laws), kept


def sources_of(transport: Transport, index: str, ids: Sequence[str]) -> dict[str, str]:
    """id -> legal source, for filtering a ranked list of a method that cannot filter inside OpenSearch."""
    if not ids:
        return {}
    docs = transport.mget(index, list(ids), source=["source"], what="the results' legal sources")
    return {d["_id"]: (d.get("_source") or {}).get("source", "") for d in docs if d.get("found")}


def matching_ids(transport: Transport, index: str, ids: Sequence[str], source: str | None = None,
                 area: str | None = None) -> set[str]:
    """Which of ``ids`` are of ``source`` and ``area`` (those given): filtering a ranked list of a method that
    cannot filter inside OpenSearch."""
    filt = page_filter(source, area)
    if not ids or filt is None:
        return set(ids)
    body = {"size": len(ids), "_source": False, "query": {"bool": {"filter": [{"ids": {"values": list(ids)}}, filt]}}}
    resp = transport.search(index, body, what="the results' filter")
    return {h["_id"] for h in resp["hits"]["hits"]}
