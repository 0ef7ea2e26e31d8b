"""The "rrf head" pool ranking (nomos/retrieval/head_fusion.py): pure functions over ranked lists."""

from __future__ import annotations

from nomos.retrieval.base import Hit
from nomos.retrieval.head_fusion import head_fuse, head_fuse_one, rrf_scores


def hits(*ids: str) -> list[Hit]:
    return [Hit(d, float(len(ids) - i)) for i, d in enumerate(ids)]


KNN = hits("a", "b", "c", "d", "e", "f")
BM25 = hits("x", "e", "d", "y")  # x, y are outside kNN's pool


def test_rrf_scores_sum_reciprocal_ranks():
    s = rrf_scores({"knn": KNN, "bm25": BM25}, rank_constant=60)
    assert s["e"] == 1 / 65 + 1 / 62 and s["a"] == 1 / 61 and s["x"] == 1 / 61


def test_head_is_rrf_within_the_pool_and_the_tail_is_the_pool_order():
    out = head_fuse_one(KNN, BM25, k=6, head=2)
    assert [h.doc_id for h in out] == ["e", "d", "a", "b", "c", "f"]  # e, d: both clauses; then kNN's order
    assert [h.details["part"] for h in out] == ["head", "head", "tail", "tail", "tail", "tail"]
    assert out[0].details == {"knn_rank": 5, "bm25_rank": 2, "rrf": 1 / 65 + 1 / 62, "part": "head"}
    assert [h.score for h in out] == sorted((h.score for h in out), reverse=True)  # scores keep the order


def test_nothing_outside_the_pool_enters_so_recall_is_the_pools():
    for head in (0, 1, 3, 6, 100):
        out = head_fuse_one(KNN, BM25, k=6, head=head)
        assert sorted(h.doc_id for h in out) == sorted(h.doc_id for h in KNN)
    assert [h.doc_id for h in head_fuse_one(KNN, BM25, k=6, head=0)] == [h.doc_id for h in KNN]


def test_cut_to_k_and_ties_by_doc_id():
    tie = head_fuse_one(hits("b", "a"), hits("a", "b"), k=1, head=1)  # equal RRF: the smaller id first
    assert [h.doc_id for h in tie] == ["a"]
    assert len(head_fuse_one(KNN, BM25, k=3, head=5)) == 3


def test_every_query_of_the_pool_even_without_the_other_clause():
    out = head_fuse({"q1": KNN, "q2": hits("z", "w")}, {"q1": BM25}, k=10)
    assert sorted(out) == ["q1", "q2"] and [h.doc_id for h in out["q2"]] == ["z", "w"]


def test_the_pool_ranking_is_validated_and_named_in_the_run_folder():
    import pytest

    from nomos.retrieval.fusion import FusionRetriever
    from nomos.retrieval.fusion_config import FusionConfig
    from nomos.retrieval.registry import MethodOptions
    from nomos.stages.evaluation import default_run_name

    assert FusionConfig().pool_ranking == "rrf-head" and FusionConfig().head == 5  # hybrid's default order
    with pytest.raises(ValueError, match="pool ranking"):
        FusionRetriever(None, "i", None, None, FusionConfig(where="pool", pool_ranking="best"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="0 or more"):
        FusionRetriever(None, "i", None, None, FusionConfig(where="pool", head=-1))  # type: ignore[arg-type]
    assert default_run_name("hybrid", MethodOptions()) == "hybrid"
    assert default_run_name("hybrid", MethodOptions(fusion=FusionConfig(pool_ranking="minmax"))) == "hybrid-minmax"
    assert default_run_name("hybrid", MethodOptions(fusion=FusionConfig(head=10))) == "hybrid-head10"
    assert default_run_name("hybrid", MethodOptions(fusion=FusionConfig(where="server"))) == "hybrid-server"
