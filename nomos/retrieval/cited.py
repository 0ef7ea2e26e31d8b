"""The articles a query cites, looked up and pinned first: the part of the named-article lookup a ranker uses
itself (ReAct's planner names articles on purpose: :func:`with_named`). The results page's whole lookup (typed
ids, exact titles, citations in passing) is :mod:`nomos.pages.named`, which builds on these.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from nomos.legal.text.citations import Citation, find_citations
from nomos.legal.text.folding import article_variants
from nomos.opensearch.transport import Transport
from nomos.retrieval.base import Hit

FIELDS = ("title", "law", "source", "area")


@dataclass(frozen=True)
class DirectHit:
    """An article the query names: ``kind`` is ``citation``, ``id`` or ``title``."""

    doc_id: str
    kind: str
    title: str = ""
    law: str = ""
    source: str = ""
    area: str = ""


def found_ids(transport: Transport, index: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """id -> ``_source`` (title, law, source) of those of ``ids`` the index holds."""
    if not ids:
        return {}
    docs = transport.mget(index, list(dict.fromkeys(ids)), source=list(FIELDS), what="direct hits")
    return {d["_id"]: d.get("_source") or {} for d in docs if d.get("found")}


def by_citation(transport: Transport, index: str, citations: Sequence[Citation]) -> list[DirectHit]:
    """The cited articles the index holds, in the order cited."""
    return cited_and_missing(transport, index, citations)[0]


def cited_and_missing(transport: Transport, index: str, citations: Sequence[Citation]
                      ) -> tuple[list[DirectHit], list[Citation]]:
    """The cited articles the index holds, in the order cited (one mget), and the citations it holds no article of."""
    wanted = {c.id: [f"{c.source}::{n}" for n in article_variants(c.article)] for c in citations}
    found = found_ids(transport, index, [v for variants in wanted.values() for v in variants])
    ids = [next((v for v in variants if v in found), None) for variants in wanted.values()]
    first = {c.id: c for c in reversed(citations)}
    missing = [first[cid] for cid, doc_id in zip(wanted, ids, strict=True) if doc_id is None]
    return [DirectHit(doc_id, "citation", **fields_of(found[doc_id])) for doc_id in dict.fromkeys(ids) if doc_id], missing


def pin(hits: Sequence[Hit], direct: Sequence[DirectHit], k: int) -> list[Hit]:
    """``direct`` first (scored just above the method's best, in their order, ``details["direct"]`` saying why),
    then the method's ranking without them, cut to ``k``."""
    if not direct:
        return list(hits[:k])
    top = max((h.score for h in hits), default=0.0)
    pinned = {d.doc_id for d in direct}
    own = {h.doc_id: h for h in hits}
    head = []
    for i, d in enumerate(direct):
        base = own.get(d.doc_id) or Hit(d.doc_id, 0.0, title=d.title, law=d.law, source=d.source)
        head.append(replace(base, score=top + len(direct) - i, details={**base.details, "direct": d.kind}))
    return (head + [h for h in hits if h.doc_id not in pinned])[:k]


def with_named(transport: Transport, index: str, query: str, hits: Sequence[Hit], k: int) -> list[Hit]:
    """``hits`` with the articles ``query`` cites anywhere in it («άρθρο 914 ΑΚ αδικοπραξία») pinned first
    (:func:`pin`; one mget, only when it cites something the index holds). For queries written by a program that
    names articles on purpose (ReAct's planner), where a citation in passing is a request, not a case's detail."""
    citations = find_citations(query)
    cited = by_citation(transport, index, citations) if citations else []
    return pin(hits, cited, k) if cited else list(hits[:k])


def fields_of(src: Mapping[str, Any]) -> dict[str, str]:
    return {f: str(src.get(f, "")) for f in FIELDS}
