"""The fusion diagnosis (why a fused run scores below its better clause), the weights setting and the CLI's
summary line: pure functions, no cluster."""

from __future__ import annotations

import pytest

from nomos.eval.fusion_diagnosis import diagnose, fusion_summary
from nomos.settings import DEFAULT_FUSION_WEIGHTS, Settings, parse_weights

QRELS = {"q1": {"a": 1, "b": 1, "c": 1}, "q2": {"z": 1}, "q3": {"x": 0}}
BM25 = {"q1": [("a", 9.0), ("n1", 8.0), ("n2", 7.0)], "q2": [("n3", 3.0)]}
KNN = {"q1": [("b", 0.9), ("a", 0.8), ("c", 0.7)], "q2": [("z", 0.5)]}
# a fused top 3 where BM25's wrong candidates pushed kNN's "c" out, and q2's "z" was lost entirely
FUSED = {"q1": [("a", 1.0), ("b", 0.9), ("n1", 0.8)], "q2": [("n3", 1.0)]}


def test_diagnose_accounts_for_every_relevant_article() -> None:
    d = diagnose(BM25, KNN, FUSED, QRELS, k=3)
    assert set(d["per_query"]) == {"q1", "q2"}  # q3 has no relevant article
    assert d["per_query"]["q1"] == {"relevant": 3, "bm25_only": 0, "knn_only": 2, "both": 1, "fused": 2,
                                    "lost_from_knn": 1, "lost_from_bm25": 0}
    assert d["per_query"]["q2"]["lost_from_knn"] == 1 and d["per_query"]["q2"]["fused"] == 0
    assert d["total"]["lost_from_knn"] == 2 and d["total"]["relevant"] == 4


def test_diagnose_cuts_each_list_at_k() -> None:
    # at k=1 kNN's top is "b" only: "a" counts as BM25's alone
    d = diagnose(BM25, KNN, FUSED, QRELS, k=1)["per_query"]["q1"]
    assert (d["bm25_only"], d["knn_only"], d["both"], d["fused"]) == (1, 1, 0, 1)


def test_summary_warns_only_when_fusion_falls_short() -> None:
    d = {**diagnose(BM25, KNN, FUSED, QRELS, k=3)["total"], "k": 3, "bm25_recall@3": 0.17, "knn_recall@3": 1.0}
    short = fusion_summary(d, 0.33)
    assert "falls short of knn alone" in short and "losing 2 of kNN's" in short
    assert "falls short" not in fusion_summary(d, 1.0)


@pytest.mark.parametrize("raw", ["0.5", "a,b", "-0.1,1", "0,0", "1,2,3"])
def test_bad_weights_name_the_variable(raw: str) -> None:
    with pytest.raises(ValueError, match="NOMOS_FUSION_WEIGHTS"):
        Settings.from_env({"NOMOS_FUSION_WEIGHTS": raw})


def test_weights_from_env_and_default() -> None:
    assert Settings.from_env({}).fusion_weights == DEFAULT_FUSION_WEIGHTS == (0.1, 0.9)
    assert Settings.from_env({"NOMOS_FUSION_WEIGHTS": "0.3, 0.7"}).fusion_weights == (0.3, 0.7)
    assert parse_weights("1,1") == (1.0, 1.0)


def test_unset_weights_take_the_settings_everywhere() -> None:
    """CLI (no --weights), portal and benchmarks leave FusionConfig.weights unset; make_retriever fills in the
    settings' weights, so NOMOS_FUSION_WEIGHTS reaches the pipeline body every entry point sends."""

    from nomos.retrieval.fusion import FusionConfig
    from nomos.retrieval.registry import _fusion

    settings = Settings.from_env({}).with_overrides(fusion_weights=(0.3, 0.7))
    assert _fusion(settings, FusionConfig()).weights == (0.3, 0.7)
    assert _fusion(settings, FusionConfig(weights=(0.5, 0.5))).weights == (0.5, 0.5)  # an explicit choice wins
    body = _fusion(settings, FusionConfig()).pipeline()[1]
    assert "0.3" in str(body) and "0.7" in str(body)
    assert FusionConfig().bm25_knn_weights == DEFAULT_FUSION_WEIGHTS
