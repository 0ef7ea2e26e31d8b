"""An article's place in the legal graph, for people (the portal's article page and ``/api/articles/{id}/graph``):
the references in its text (spans to link), the articles it cites, the articles that cite it, and the articles
that amend it, with the amended paragraph.

The graph lives on the article documents (nomos/legal/graph/references.py fills them at ingest): ``references``
(the extractor's list, stored not indexed: spans, kinds, paragraphs), ``cites`` and ``amends`` (keyword fields of
resolved target ids). "Cited by X" and "amended by X" are each one ``term`` query on those fields; nothing here
re-reads or re-parses texts. Ids reach OpenSearch only as ``ids``/``term`` values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from nomos.opensearch.transport import Transport
from nomos.pages.articles import ArticleRef, citation, law_articles, natural_key

AMENDMENT_KINDS = ("amends", "replaces", "inserts", "repeals")
MAX_CITED_BY = 200  # the stand-in's most cited article is cited by far fewer; the page lists them all up to this
_REF_SOURCE = ["number", "title", "law", "source"]


@dataclass(frozen=True)
class Link:
    """One reference in the article's text: the span [start, end) and where it points ("" : not in the corpus)."""

    start: int
    end: int
    target: str
    cited: str
    kind: str
    paragraph: str | None = None


@dataclass(frozen=True)
class GraphRef:
    """A linked article: the :class:`ArticleRef` fields, its citation, and for an amendment its kind and the
    paragraph of the amended article it touches (None where the text does not say)."""

    id: str
    number: str
    title: str
    law: str
    source: str
    citation: str
    kind: str = "cites"
    paragraph: str | None = None


@dataclass(frozen=True)
class ArticleGraph:
    """Everything the page shows about an article's edges. ``amended_by`` non-empty is the page's warning: the
    text shown may not be the text in force."""

    id: str
    links: tuple[Link, ...] = ()
    cites: tuple[GraphRef, ...] = ()
    cited_by: tuple[GraphRef, ...] = ()
    amended_by: tuple[GraphRef, ...] = ()
    amends: tuple[GraphRef, ...] = ()

    @property
    def warn(self) -> bool:
        return bool(self.amended_by)


def _ref(doc_id: str, src: dict[str, Any], kind: str = "cites", paragraph: str | None = None) -> GraphRef:
    return GraphRef(doc_id, src.get("number", ""), src.get("title", ""), src.get("law", ""), src.get("source", ""),
                    citation(doc_id, src.get("source", ""), src.get("law", "")), kind, paragraph)


def _ordered(refs: list[GraphRef]) -> tuple[GraphRef, ...]:
    """Reading order: by legal source, then article number as a reader counts (2 < 10 < 10A)."""
    return tuple(sorted(refs, key=lambda r: (r.source, natural_key(r.number), r.id)))


def links_of(references: list[dict[str, Any]], text: str = "") -> tuple[Link, ...]:
    """The stored references as text links, by position. Several references may share one span (a list «άρθρο 46
    παρ. 1 και 47» read as one citation): each then links its own article number inside it (the first from the
    span's start, so «άρθρο 46 παρ. 1» is one link), found in ``text``. Spans that still overlap keep the first: a
    link inside a link is not HTML."""
    groups: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for r in references:
        groups.setdefault((int(r.get("start", 0)), int(r.get("end", 0))), []).append(r)
    spans: list[tuple[int, int, dict[str, Any]]] = []
    for (start, end), refs in groups.items():
        if len(refs) == 1 or not text:
            spans.extend((start, end, r) for r in refs)
            continue
        at = start
        for i, r in enumerate(refs):
            number = (r.get("cited") or "").rpartition("::")[2]
            m = re.compile(rf"(?<![\w]){re.escape(number)}(?![\w])").search(text, at, end) if number else None
            if m is None:
                continue
            spans.append((start if i == 0 else m.start(), m.end(), r))
            at = m.end()
    out: list[Link] = []
    for start, end, r in sorted(spans, key=lambda x: (x[0], -x[1])):
        if end <= start or (out and start < out[-1].end):
            continue
        out.append(Link(start, end, r.get("target") or "", r.get("cited") or "", r.get("kind") or "cites",
                        r.get("paragraph")))
    return tuple(out)


def article_graph(transport: Transport, index: str, article_id: str, text: str | None = None
                  ) -> ArticleGraph | None:
    """The article's edges in at most three requests: its stored references (one ``mget``), the cited articles'
    titles (a second), and who cites it (one ``term`` query on ``cites``; the contract makes ``amends`` a subset
    of ``cites``, so the amending articles are the citing ones whose ``amends`` holds this id). None when the id
    is unknown. ``text``: the article's text when the caller has it already (its page), so it is not fetched
    again (up to NOMOS_MAX_ARTICLE_BYTES); links are placed in it."""
    fields = ["references", "cites", "amends"] + (["text"] if text is None else [])
    docs = transport.mget(index, [article_id], source=fields, what=f"the references of {article_id!r}")
    if not docs or not docs[0].get("found"):
        return None
    src = docs[0].get("_source") or {}
    refs: list[dict[str, Any]] = list(src.get("references") or [])
    amends = set(_as_list(src.get("amends")))
    cited = sorted(set(_as_list(src.get("cites"))) - {article_id})
    heads = {d["_id"]: d.get("_source") or {} for d in (transport.mget(index, cited, source=_REF_SOURCE, what="the cited articles")
                                                        if cited else []) if d.get("found")}
    paragraph = {r.get("target"): r.get("paragraph") for r in refs if r.get("target") and r.get("paragraph")}
    kind: dict[str, str] = {r.get("target") or "": r["kind"] for r in refs if r.get("kind") in AMENDMENT_KINDS}
    cites = [_ref(d, heads[d], "cites", paragraph.get(d)) for d in cited if d in heads]
    out_amends = [_ref(d, heads[d], kind.get(d, "amends"), paragraph.get(d)) for d in sorted(amends) if d in heads]
    body = {"size": MAX_CITED_BY, "_source": [*_REF_SOURCE, "references", "amends"],
            "query": {"bool": {"filter": [{"term": {"cites": article_id}}],
                               "must_not": [{"ids": {"values": [article_id]}}]}}}
    hits = transport.search(index, body, what=f"the articles citing {article_id!r}")["hits"]["hits"]
    cited_by: list[GraphRef] = []
    amended_by: list[GraphRef] = []
    for h in hits:
        s = h.get("_source") or {}
        cited_by.append(_ref(h["_id"], s))
        if article_id in _as_list(s.get("amends")):
            mine = [r for r in s.get("references") or [] if r.get("target") == article_id and r.get("kind") in AMENDMENT_KINDS]
            paras = sorted({str(r["paragraph"]) for r in mine if r.get("paragraph")}, key=natural_key)
            amended_by.append(_ref(h["_id"], s, mine[0]["kind"] if mine else "amends", ", ".join(paras) or None))
    return ArticleGraph(article_id, links_of(refs, src.get("text") or "" if text is None else text), _ordered(cites), _ordered(cited_by), _ordered(amended_by),
                        _ordered(out_amends))


def _as_list(v: Any) -> list[str]:  # a keyword field: absent, one value or a list
    return [] if v is None else [v] if isinstance(v, str) else list(v)


def law_contents(transport: Transport, index: str, source: str) -> tuple[str, list[ArticleRef]]:
    """A law's table of contents: its name and every article in article-number order (empty: no such source)."""
    arts = law_articles(transport, index, source)
    if not arts:
        return "", []
    first = transport.mget(index, [arts[0].id], source=["law"], what=f"the name of {source!r}")
    name = ((first[0].get("_source") or {}).get("law", "") if first and first[0].get("found") else "")
    return name, arts
