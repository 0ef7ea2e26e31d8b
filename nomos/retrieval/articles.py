"""Reading articles for people (the portal): one article with its law's neighbours, similar articles, the legal
sources and legal areas a query's matches fall into, and how to cite an article.

Every function reads only the index (alias) it is given, through a :class:`~nomos.opensearch.transport.Transport`
built by ``make_transport`` with the settings' retries (the functions are typed for a transport; a client would
lose the retries without saying so). User text reaches OpenSearch only inside ``match`` clauses (through
:meth:`BM25Retriever.query_clause` or a ``highlight_query``); ids go into ``ids`` and ``term`` clauses as values,
never into query syntax.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from nomos.errors import IndexNotFound
from nomos.legal.inforce.result import InForce
from nomos.legal.text.areas import short_name
from nomos.opensearch.transport import Transport
from nomos.retrieval.base import Hit
from nomos.retrieval.bm25 import BM25Retriever
from nomos.retrieval.marks import own_marks
from nomos.retrieval.pages import (
    HIGHLIGHT_MAX_CHARS,
    HIGHLIGHT_TAGS,
    IN_FORCE_TEXT,
    AreaFacet,
    Facet,
    Facets,
    facet_aggs,
    page_filter,
    read_facets,
)

# The page pieces that used to live here, importable as before (nomos.retrieval.pages is their home).
_facet_aggs = facet_aggs
_facets = read_facets
__all__ = ["AreaFacet", "Article", "ArticleRef", "Facet", "Facets", "article_page", "citation", "faceted_search",
           "get_article", "ids_facets", "ids_facets_and_matching", "law_articles", "law_names", "matching_ids", "page_filter", "similar_articles",
           "sources_of"]

MAX_LAW_ARTICLES = 2000  # neighbours: every article of one law is listed (the largest stand-in law has 492)
MAX_SOURCES = 10_000  # law_names: every legal source of an index (the benchmark has 23, the stand-in 67)


@dataclass(frozen=True)
class ArticleRef:
    """An article as a link: id, number within its law, title."""

    id: str
    number: str
    title: str
    law: str = ""
    score: float | None = None


@dataclass(frozen=True)
class Article:
    id: str
    title: str
    text: str
    law: str
    source: str
    number: str
    area: str = ""  # key of nomos/legal/text/areas.json ("" in an index built before areas existed)
    highlighted_text: str | None = None  # the full text with the query's terms in <mark> (html-escaped)
    previous: ArticleRef | None = None
    next: ArticleRef | None = None
    neighbours: tuple[ArticleRef, ...] = ()  # a window of the same law around this article, in order
    law_size: int = 0
    similar: tuple[ArticleRef, ...] = field(default_factory=tuple)
    length: int = 0  # characters of the whole text (``text`` may hold only its start: see ``cut``)
    cut: bool = False  # the page shows the first ``max_chars`` characters; the rest is a link away
    # the text in force of an amended article, as ingest consolidated it (nomos.legal.inforce.result; None: no amending
    # article, or an index built before consolidation), whole; the page cuts it as it cuts ``text``
    in_force: InForce | None = None
    in_force_marked: str | None = None  # its text (InForce.text) with the query's terms in <mark> (html-escaped)
    inserted_into: str = ""  # the host law of an article a later law inserted whole (ingest's ``inserted_into``)

    @property
    def inserted_whole(self) -> str:
        """The page's line for an article a later law inserted whole («Προστέθηκε στον ν. 3978/2011 ως άρθρο 7Γ με
        τον ν. 4782/2021»); "" for any other."""
        return inserted_whole(self.inserted_into, self.source, self.id.partition("::")[2] or self.number)


def inserted_whole(into: str, law: str, number: str) -> str:
    """«Προστέθηκε στον ν. 3978/2011 ως άρθρο 7Γ με τον ν. 4782/2021»: an article the law ``law`` (a source id)
    inserted whole into the law ``into`` as article ``number``; "" where ``into`` is empty. The one wording, for
    the results list (nomos.retrieval.standing) and the article page."""
    if not into:
        return ""
    by = short_name(law, "")
    return f"Προστέθηκε στον {short_name(into, '')} ως άρθρο {number}" + (f" με τον {by}" if by else "")


_MARK_OPEN, _MARK_CLOSE = "<mark>", "</mark>"
_PARTIAL_TAG = re.compile(r"(<[^>]*|&[^;\s]*)$")


def cut_text(text: str, max_chars: int) -> str:
    """The first ``max_chars`` characters of ``text`` (plain, or the highlighter's html-escaped text with <mark>
    tags), ended at the last white space before the limit so no word, escape (``&amp;``) or tag is split, with
    a <mark> left open closed."""
    if len(text) <= max_chars:
        return text
    head = text[:max_chars]
    space = max(head.rfind(" "), head.rfind("\n"))
    if space > max_chars // 2:
        head = head[:space]
    else:  # one very long word: cut it, but not inside a tag or an escape
        head = _PARTIAL_TAG.sub("", head)
    if head.count(_MARK_OPEN) > head.count(_MARK_CLOSE):
        head += _MARK_CLOSE
    return head


def cut_marked(marked: str, plain_chars: int) -> str:
    """The highlighter's html-escaped ``marked`` text cut where its plain reading is ``plain_chars`` long (the length
    of the plain text :func:`cut_text` kept), a <mark> left open closed: both cuts then read as the same words, so
    the page can lay links and marks over the one text (``portal.links.linked_text`` checks that they do)."""
    out: list[str] = []
    at = 0
    opened = False
    for part in re.split(r"(</?mark>)", marked):
        if part in (_MARK_OPEN, _MARK_CLOSE):
            opened = part == _MARK_OPEN
            out.append(part)
            continue
        plain = html.unescape(part)
        if at + len(plain) >= plain_chars:
            out.append(html.escape(plain[: plain_chars - at]))
            break
        out.append(part)
        at += len(plain)
    if opened:
        out.append(_MARK_CLOSE)
    return "".join(out)


def citation(article_id: str, source: str, law: str) -> str:
    """How a lawyer cites an article: «άρθρο 372 ΠΚ», «άρθρο 5 ν. 4624/2019», «άρθρο 3 π.δ. 131/2003».

    The article number is the part of the id after ``::`` (the benchmark's ``SOURCE::ARTICLE``); the law's short
    name comes from :func:`nomos.legal.text.areas.short_name` (the codes' abbreviations, else the law's number read
    from the source id or the law's title). The one place a citation is built: result lists, the API and the
    article page all call it."""
    number = article_id.split("::", 1)[1] if "::" in article_id else article_id
    short = short_name(source, law)
    return f"άρθρο {number} {short}".strip() if short and short != number else f"άρθρο {number}"


def natural_key(number: str) -> tuple[Any, ...]:
    """Order article numbers as a reader does: 2 < 10 < 10A < 11."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.findall(r"\d+|\D+", number) if p.strip())


def get_article(transport: Transport, index: str, article_id: str, query: str | None = None) -> dict[str, Any] | None:
    """The stored article (with its full text, and its text in force where it has one, highlighted for ``query``
    when given), or None. ``in_force`` is the stored value as it is (:meth:`InForce.from_doc` reads it)."""
    body: dict[str, Any] = {
        "size": 1,
        "query": {"ids": {"values": [article_id]}},
        "_source": ["article_id", "title", "text", "law", "source", "number", "area", "in_force", "inserted_into"],
    }
    if query:
        body["highlight"] = {
            **HIGHLIGHT_TAGS,
            "fields": {f: {"number_of_fragments": 0, "max_analyzer_offset": HIGHLIGHT_MAX_CHARS,
                           "highlight_query": {"match": {f: {"query": query}}}} for f in ("text", IN_FORCE_TEXT)},
        }
    try:
        hits = transport.search(index, body, what=f"the article {article_id!r}")["hits"]["hits"]
    except IndexNotFound:
        return None
    if not hits:
        return None
    src = dict(hits[0]["_source"])
    src["id"] = hits[0]["_id"]
    hl = hits[0].get("highlight", {}).get("text")
    src["highlighted_text"] = own_marks(hl[0], query) if hl and query else None
    hl_in_force = hits[0].get("highlight", {}).get(IN_FORCE_TEXT)
    src["in_force_marked"] = own_marks(hl_in_force[0], query) if hl_in_force and query else None
    return src


def law_articles(transport: Transport, index: str, source: str) -> list[ArticleRef]:
    """Every article of one legal source, in reading order."""
    body = {"size": MAX_LAW_ARTICLES, "query": {"term": {"source": source}}, "_source": ["number", "title"]}
    resp = transport.search(index, body, what=f"the articles of {source!r}")
    refs = [ArticleRef(h["_id"], h["_source"].get("number", ""), h["_source"].get("title", "")) for h in resp["hits"]["hits"]]
    return sorted(refs, key=lambda r: (natural_key(r.number), r.id))


def similar_articles(transport: Transport, index: str, article_id: str, k: int = 8) -> list[ArticleRef]:
    """Articles that share the most distinctive terms with this one (``more_like_this`` on the stored article;
    no user text involved)."""
    resp = transport.search(
        index,
        {
            "size": k,
            "query": {
                "more_like_this": {
                    "fields": ["title", "text"],
                    "like": [{"_index": index, "_id": article_id}],
                    "min_term_freq": 1,
                    "min_doc_freq": 1,
                    "max_query_terms": 40,
                    "minimum_should_match": "10%",
                }
            },
            "_source": ["number", "title", "law"],
        },
        what=f"articles similar to {article_id!r}",
    )
    return [
        ArticleRef(h["_id"], h["_source"].get("number", ""), h["_source"].get("title", ""), h["_source"].get("law", ""), h["_score"])
        for h in resp["hits"]["hits"]
    ]


def article_page(transport: Transport, index: str, article_id: str, query: str | None = None, window: int = 3,
                 similar: int = 8, max_chars: int | None = None) -> Article | None:
    """Everything an article page shows, or None when the id is unknown. ``max_chars``: a longer text is cut to its
    start (:func:`cut_text`; ``cut`` says so and ``length`` how long it is), so one huge article's page stays as
    cheap to send and render as any other."""
    transport = transport  # one transport for the page's three requests
    src = get_article(transport, index, article_id, query)
    if src is None:
        return None
    source = src.get("source") or ""
    law = law_articles(transport, index, source) if source else []
    pos = next((i for i, r in enumerate(law) if r.id == article_id), None)
    prev = nxt = None
    neighbours: tuple[ArticleRef, ...] = ()
    if pos is not None:
        prev = law[pos - 1] if pos > 0 else None
        nxt = law[pos + 1] if pos + 1 < len(law) else None
        neighbours = tuple(law[max(0, pos - window) : pos + window + 1])
    text, marked = src.get("text", ""), src.get("highlighted_text")
    cut = max_chars is not None and len(text) > max_chars
    if cut:
        text = cut_text(text, max_chars or 0)
        marked = cut_marked(marked, len(text)) if marked else marked
    return Article(
        id=src["id"],
        title=src.get("title", ""),
        text=text,
        length=len(src.get("text", "")),
        cut=cut,
        law=src.get("law", ""),
        source=source,
        number=src.get("number", ""),
        area=src.get("area", ""),
        highlighted_text=marked,
        in_force=InForce.from_doc(src["in_force"]) if src.get("in_force") else None,
        in_force_marked=src.get("in_force_marked"),
        inserted_into=src.get("inserted_into") or "",
        previous=prev,
        next=nxt,
        neighbours=neighbours,
        law_size=len(law),
        similar=tuple(similar_articles(transport, index, article_id, similar)),
    )


def law_names(transport: Transport, index: str) -> dict[str, str]:
    """Every legal source of the index with its law's name (source code -> name), in one aggregation.

    A source names one law, so a results page need not ask for the name beside every facet bucket: the portal
    keeps this map for a minute and its pages leave the ``law`` sub-aggregation out (8% of a BM25 page's time
    in OpenSearch, bench/page_cost.py)."""
    body = {"size": 0, "aggs": {"sources": {
        "terms": {"field": "source", "size": MAX_SOURCES}, "aggs": {"law": {"terms": {"field": "law", "size": 1}}}}}}
    resp = transport.search(index, body, what="the law names")
    return {f.source: f.law for f in read_facets(resp.get("aggregations") or {}).sources}


def faceted_search(bm25: BM25Retriever, query: str, k: int, source: str | None = None,
                   size: int = 15, area: str | None = None,
                   laws: Mapping[str, str] | None = None) -> tuple[list[Hit], Facets, int]:
    """A BM25 results page in one request: the top ``k`` (of ``source`` and ``area`` only, when given, as a
    ``post_filter``), the legal sources and areas of every article the query matches with their counts (each
    facet unfiltered by its own choice, so a person can switch), and how many articles match. With ``laws``
    (:func:`law_names`) the sources' names come from it instead of a sub-aggregation."""
    aggs = facet_aggs(size, source, area, law_names=laws is None)
    page = bm25.search_faceted(query, k, aggs, post_filter=page_filter(source, area))
    return page.hits, read_facets(page.aggregations, laws), page.matching


def ids_facets(transport: Transport, index: str, ids: Sequence[str], size: int = 15, source: str | None = None,
               area: str | None = None, laws: Mapping[str, str] | None = None) -> Facets:
    """Legal sources and areas of a ranked list (LLM methods and re-ranked pages), with counts; ``laws`` as in
    :func:`faceted_search`."""
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
