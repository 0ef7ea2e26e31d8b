"""Titles, laws and highlighted snippets for ranked lists that carry only ids and scores (dense and fused methods)."""

from __future__ import annotations

from dataclasses import replace

from nomos.opensearch.transport import Transport
from nomos.retrieval.base import Hit
from nomos.retrieval.pages import IN_FORCE_TEXT, decorate_body, standing_part


def decorate(transport: Transport, index: str, hits: list[Hit], query: str) -> list[Hit]:
    """Titles, laws and highlighted snippets for a ranked list that carries only ids and scores, in one search
    (``transport``: a :class:`~nomos.opensearch.transport.Transport`, or a client, which retries nothing)."""
    if not hits:
        return hits
    resp = transport.search(index, decorate_body(hits, query), what="titles and snippets of the results")
    by_id = {h["_id"]: h for h in resp["hits"]["hits"]}
    out = []
    for h in hits:
        src = by_id.get(h.doc_id, {})
        s = src.get("_source", {})
        out.append(replace(h, title=s.get("title", ""), law=s.get("law", ""), source=s.get("source", ""),
                           highlights=tuple(src.get("highlight", {}).get("text", ())),
                           in_force_highlights=tuple(src.get("highlight", {}).get(IN_FORCE_TEXT, ())),
                           in_force=standing_part(s) if src else None))
    return out
