"""Index administration the stages need beyond searching: BM25 similarity changes on a clone of the live index."""

from __future__ import annotations

from opensearchpy import OpenSearch


def set_bm25(client: OpenSearch, index: str, k1: float, b: float) -> None:
    """BM25's k1 and b are read at search time (Lucene stores only term frequencies and length norms), so a new
    setting needs no reindexing: close the index, update its similarity, open it, wait until it is searchable."""
    from nomos.mappings import SIMILARITY

    client.indices.close(index=index)
    try:
        client.indices.put_settings(index=index, body={"index": {"similarity": {SIMILARITY: {"type": "BM25", "k1": k1, "b": b}}}})
    finally:
        client.indices.open(index=index)
        client.cluster.health(index=index, wait_for_status="yellow")
