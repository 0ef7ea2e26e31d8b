"""Direct hits: a query that names an article outright gets that article first, whatever the method.

Lawyers search by name as often as by facts: a citation («άρθρο 372 ΠΚ», «ΠΚ 386Α», «άρθρο 21 ν. 4624/2019»), an
id copied from elsewhere («PK::386A» with a Latin A, «pk::372»), or an article's title («Κλοπή»). No ranking
function puts those first reliably (amending articles quote the cited article's words; a one-word title matches
hundreds of texts), so the search stage asks here first and pins what it finds above the method's ranking.

Only exact names count: a citation must be the whole query (:func:`~nomos.legal.text.citations.parse_citation`), a
title must equal the query once both are folded (case, accents, final sigma, surrounding punctuation), and an id
must match one article only. A case description that merely mentions an article is a case, ranked by the method.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from nomos.legal.text.areas import short_name
from nomos.legal.text.areas import table as source_table
from nomos.legal.text.citations import Citation, find_citations, parse_citation
from nomos.legal.text.folding import article_variants, fold, joined_suffixes
from nomos.opensearch.transport import Transport
from nomos.retrieval.base import Hit
from nomos.retrieval.cited import FIELDS, DirectHit, cited_and_missing, fields_of, found_ids, pin

# Longer queries are cases, not titles, and cost no title lookup: 323 of the stand-in's 326 code titles have at most
# 10 words (the longest 14)
MAX_TITLE_WORDS = 10
TITLE_CANDIDATES = 50  # articles whose title contains the query as a phrase, of which the exact ones are kept
_ID = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*::\s*(\d+\s*[A-Za-zΑ-Ωα-ωά-ώ]?)\s*$")
_EDGE = " \t\n.,;:!?«»\"'()[]"
TITLE_AGG = "_named_title"  # the aggregation a results page carries to find exact titles in the same request


def id_candidates(typed: str) -> list[str]:
    """The ids a typed id may mean: the source as typed, in capitals, or a code's prefix in any case («kpold» →
    ``KPolD``); the article number's suffix as a Greek capital, a Latin look-alike or lower case
    (:func:`~nomos.legal.text.citations.article_variants`)."""
    m = _ID.match(typed)
    if not m:
        return []
    source, numbers = m.group(1), article_variants(m.group(2))
    codes = {s.casefold(): s for s in source_table().sources}
    sources = dict.fromkeys([source, source.upper(), codes.get(source.casefold(), source)])
    return [f"{s}::{n}" for s in sources for n in numbers]


def citation_label(citation: Citation) -> str:
    """«άρθρο 999 ΠΚ», «άρθρο 5 ν. 4412/2016»: how a page names a citation it found no article for."""
    return f"άρθρο {citation.article} {short_name(citation.source)}"


def by_id(transport: Transport, index: str, typed: str) -> list[DirectHit]:
    """The one article a typed id names (none when it matches none, or several)."""
    found = found_ids(transport, index, id_candidates(typed))
    return [DirectHit(doc_id, "id", **fields_of(src)) for doc_id, src in found.items()] if len(found) == 1 else []


def title_aggregation(query: str) -> dict[str, Any] | None:
    """An aggregation that finds the articles whose title contains the query as a phrase, over the whole index
    (``global``: whatever the page's own query and filters), so a results page learns the exact titles in its own
    request; None for a query too long to be a title."""
    phrase = query.strip(_EDGE)
    if not phrase or len(fold(phrase).split()) > MAX_TITLE_WORDS:
        return None
    return {TITLE_AGG: {"global": {}, "aggs": {"t": {
        "filter": {"match_phrase": {"title.folded": {"query": phrase}}},
        "aggs": {"hits": {"top_hits": {"size": TITLE_CANDIDATES, "_source": list(FIELDS)}}}}}}}


def titles_in(aggregations: Mapping[str, Any], query: str) -> list[DirectHit]:
    """The exact-title articles in a page's :func:`title_aggregation` (empty when the page carried none)."""
    hits = aggregations.get(TITLE_AGG, {}).get("t", {}).get("hits", {}).get("hits", {}).get("hits", [])
    return _exact_titles(hits, query)


def by_title(transport: Transport, index: str, query: str) -> list[DirectHit]:
    """Articles whose title is the query (folded): a code's first, then by id. Several laws may share a title
    («Ορισμοί»); all are returned. One request (a results page carries it as :func:`title_aggregation` instead)."""
    aggs = title_aggregation(query)
    if aggs is None:
        return []
    resp = transport.search(index, {"size": 0, "aggs": aggs}, what="title lookup")
    return titles_in(resp.get("aggregations") or {}, query)


def _exact_titles(hits: Sequence[Mapping[str, Any]], query: str) -> list[DirectHit]:
    wanted = fold(query).strip(_EDGE)
    codes = {s for s, entry in source_table().sources.items() if entry.get("short")}
    exact = [h for h in hits if fold((h.get("_source") or {}).get("title", "")).strip(_EDGE) == wanted]
    exact = sorted(exact, key=lambda h: ((h["_source"].get("source") not in codes), h["_id"]))
    return [DirectHit(h["_id"], "title", **fields_of(h["_source"])) for h in exact]


@dataclass(frozen=True)
class NameReading:
    """What a query may name, read once from its text with no request: the first step of a search. A citation
    that is the whole query, or a typed id, is looked up by id; else a query short enough to be a title is looked
    up by title (a results page carries :meth:`page_aggregation` in its own request); else a case is read for the
    articles it cites in passing."""

    query: str
    citations: tuple[Citation, ...]  # the whole query as citations (parse_citation); empty: not a citation
    typed_id: bool  # the query looks like an id (``PK::372``)

    @classmethod
    def of(cls, query: str) -> NameReading:
        """The query read as people type citations («άρθρο 386 Α ΠΚ» is «άρθρο 386Α ΠΚ»)."""
        query = joined_suffixes(query)
        return cls(query, tuple(parse_citation(query)), "::" in query)

    @property
    def by_name(self) -> bool:
        """Looked up by id (a citation or a typed id), never by title."""
        return bool(self.citations) or self.typed_id

    def page_aggregation(self) -> dict[str, Any]:
        """The aggregation a results page carries to find exact titles in its own request (empty: none needed)."""
        return {} if self.by_name else title_aggregation(self.query) or {}


@dataclass(frozen=True)
class Named:
    """The articles a query names outright (``named``, pinned first) and those a case cites in passing
    (``cited``, put on the page where the method did not rank them): the lookup's one result, handed on."""

    named: tuple[DirectHit, ...] = ()
    cited: tuple[DirectHit, ...] = ()
    missing: tuple[str, ...] = ()  # citations the index holds no article of («άρθρο 999 ΠΚ»): the page says so

    def kept(self, source: str | None = None, area: str | None = None) -> Named:
        """Only those of one legal source and area (a filtered page shows no article outside its filter)."""
        def keep(d: DirectHit) -> bool:
            return (not source or d.source == source) and (not area or d.area == area)

        return Named(tuple(filter(keep, self.named)), tuple(filter(keep, self.cited)), self.missing)

    def place(self, hits: Sequence[Hit], k: int) -> tuple[list[Hit], list[str]]:
        """``hits`` with the named articles pinned first and the cited ones added (:func:`pin`, :func:`with_cited`);
        and the ids added that way."""
        return with_cited(pin(hits, list(self.named), k), list(self.cited), k)


def look_up(transport: Transport, index: str, reading: NameReading,
            page_aggregations: Mapping[str, Any] | None = None) -> Named:
    """The one lookup step: what the query names outright (cited articles or a typed id's: one mget; a title's: the
    page's aggregations where it carried :meth:`NameReading.page_aggregation`, else one request), else, for a case,
    the articles it cites in passing (one mget, only when it cites)."""
    missing: list[Citation] = []
    if reading.citations:
        named, missing = cited_and_missing(transport, index, reading.citations)
    elif reading.typed_id:
        named = by_id(transport, index, reading.query)
    elif page_aggregations is not None and TITLE_AGG in page_aggregations:
        named = titles_in(page_aggregations, reading.query)
    else:
        named = by_title(transport, index, reading.query)
    if named or missing:
        return Named(tuple(named), missing=tuple(citation_label(c) for c in missing))
    in_passing = find_citations(reading.query)
    if not in_passing:
        return Named()
    cited, missing = cited_and_missing(transport, index, in_passing)
    return Named(cited=tuple(cited), missing=tuple(citation_label(c) for c in missing))


def find_direct(transport: Transport, index: str, query: str) -> list[DirectHit]:
    """What the query names outright (:func:`look_up`'s ``named``): cited articles, else the article of a typed id,
    else articles of that title."""
    return list(look_up(transport, index, NameReading.of(query)).named)


def with_cited(hits: list[Hit], cited: list[DirectHit], k: int) -> tuple[list[Hit], list[str]]:
    """``hits`` with the articles a case cites right after the method's best hit (a lawyer who cites an article
    wants to see it, not find it at the foot of the page; one the method ranked first stays first), each marked
    ``details["direct"] = "cited"`` and scored between its neighbours; and the ids the method had not ranked."""
    if not cited or not hits:
        return hits[:k], []
    own = {h.doc_id: h for h in hits}
    best = hits[0]
    if best.doc_id in {d.doc_id for d in cited}:
        best = replace(best, details={**best.details, "direct": "cited"})
    others = [d for d in cited if d.doc_id != best.doc_id]
    moved = {d.doc_id for d in others}
    tail = [h for h in hits[1:] if h.doc_id not in moved]
    high, low = best.score, (tail[0].score if tail else best.score - 1.0)
    step = (high - low) / (len(others) + 1)
    placed = []
    for i, d in enumerate(others, 1):
        base = own.get(d.doc_id) or Hit(d.doc_id, 0.0, title=d.title, law=d.law, source=d.source)
        placed.append(replace(base, score=high - i * step, details={**base.details, "direct": "cited"}))
    page = ([best] + placed + tail)[:k]
    shown = {h.doc_id for h in page}
    return page, [d.doc_id for d in cited if d.doc_id not in own and d.doc_id in shown]


