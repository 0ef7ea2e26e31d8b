"""Titles, laws and highlighted snippets for ranked lists that carry only ids and scores (dense and fused methods)."""

from __future__ import annotations

from dataclasses import replace

from opensearchpy import OpenSearch

from nomos.retrieval.base import Hit
from nomos.retrieval.bm25 import snippet_highlight


def decorate(client: OpenSearch, index: str, hits: list[Hit], query: str) -> list[Hit]:
    """Titles, laws and highlighted snippets for a ranked list that carries only ids and scores."""
    if not hits:
        return hits
    resp = client.search(
        index=index,
        body={
            "size": len(hits),
            "query": {"ids": {"values": [h.doc_id for h in hits]}},
            "_source": ["title", "law", "source"],
            "highlight": snippet_highlight(query, no_match_size=180),
        },
    )
    by_id = {h["_id"]: h for h in resp["hits"]["hits"]}
    out = []
    for h in hits:
        src = by_id.get(h.doc_id, {})
        s = src.get("_source", {})
        out.append(replace(h, title=s.get("title", ""), law=s.get("law", ""), source=s.get("source", ""),
                           highlights=tuple(src.get("highlight", {}).get("text", ()))))
    return out
