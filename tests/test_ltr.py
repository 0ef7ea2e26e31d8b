"""The learned ranker (nomos.retrieval.ltr): its model file and card, its pool, and the ranking on a real node."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from nomos.errors import ConfigError
from nomos.retrieval.base import Hit
from nomos.retrieval.ltr.features import FEATURES, MISSING_RANK, pool_of
from nomos.retrieval.ltr.model import load, train
from nomos.retrieval.ltr.pools import order


def _synthetic(seed: int = 3, queries: int = 40, rows: int = 12) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Pools whose relevant rows have a high ``field_anchors``: a model must learn to put them first."""
    rng = np.random.default_rng(seed)
    column = FEATURES.index("field_anchors")
    matrices, labels = [], []
    for _ in range(queries):
        x = rng.random((rows, len(FEATURES))).astype(np.float32)
        y = np.zeros(rows)
        y[:2] = 1.0
        x[:2, column] += 2.0
        matrices.append(x)
        labels.append(y)
    return matrices, labels


def test_a_trained_model_ranks_by_what_it_learned_and_loads_back_the_same(tmp_path: Path) -> None:
    matrices, labels = _synthetic()
    model = train(matrices, labels, rounds=30, card={"trained_on": {"synthetic": 40}})
    held_x, held_y = _synthetic(seed=9, queries=5)
    for x, y in zip(held_x, held_y, strict=True):
        top = np.argsort(-model.score(x))[:2]
        assert set(top) == set(np.flatnonzero(y))
    model.save(tmp_path / "m")
    again = load(tmp_path / "m")
    assert np.allclose(again.score(held_x[0]), model.score(held_x[0]))
    card = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    assert card["features"] == list(FEATURES) and card["trained_on"] == {"synthetic": 40}
    assert load(tmp_path / "m.txt").card == card  # named by its file too


def test_a_missing_model_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"no model file at .*nothing\.txt") as err:
        load(tmp_path / "nothing")
    assert "--rerank none" in (err.value.hint or "")


def test_a_model_of_other_features_is_refused_naming_them(tmp_path: Path) -> None:
    matrices, labels = _synthetic(queries=10)
    train(matrices, labels, rounds=5).save(tmp_path / "m")
    card = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    card["features"] = ["bm42_score" if f == "in_lists" else f for f in card["features"]]
    (tmp_path / "m.json").write_text(json.dumps(card), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"m\.json was trained on .*missing in_lists; unknown bm42_score"):
        load(tmp_path / "m")
    (tmp_path / "m.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"m\.json:1: not JSON"):
        load(tmp_path / "m")


def test_the_pool_is_every_list_by_best_rank_then_id_and_ties_sort_by_id() -> None:
    lists = {"bm25": [Hit("b", 3.0), Hit("a", 2.0)], "knn": [Hit("c", 0.9), Hit("b", 0.8)], "anchors": [Hit("d", 1.0)]}
    assert pool_of(lists) == ["b", "c", "d", "a"]  # b, c, d first in some list (by id), then a (second)
    assert order(["x", "a", "m"], np.array([1.0, 1.0, 2.0])) == [("m", 2.0), ("a", 1.0), ("x", 1.0)]


@pytest.mark.integration
def test_ltr_over_bm25_on_a_real_node_ranks_the_pool_by_the_model(shared_bm25_index, tmp_path: Path) -> None:
    from nomos.retrieval.registry import MethodOptions, make_retriever

    matrices, labels = _synthetic(queries=20)
    train(matrices, labels, rounds=10).save(tmp_path / "m")
    settings = shared_bm25_index
    plain = MethodOptions(amendments="off")  # the ranker alone, whatever amendment stage a setting asks for
    first = make_retriever(settings, "bm25", options=plain).search_many({"q1": "ξένο κινητό πράγμα ρολόι"}, 100).hits["q1"]
    ranker = make_retriever(settings, "bm25", options=MethodOptions(rerank=f"ltr:{tmp_path / 'm'}", amendments="off"))
    assert ranker.score_kind == "learned" and ranker.describe()["ranker"]["features"] == list(FEATURES)
    result = ranker.search_many({"q1": "ξένο κινητό πράγμα ρολόι"}, 5)
    hits = result.hits["q1"]
    assert {h.doc_id for h in hits} <= {h.doc_id for h in first} and hits  # BM25's pool, nothing invented
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(h.details.get("bm25_rank", MISSING_RANK) <= len(first) for h in hits)
    assert ranker.search_many({"q1": "ξένο κινητό πράγμα ρολόι"}, 5).hits == result.hits  # deterministic
    with pytest.raises(ConfigError, match="no model file"):
        make_retriever(settings, "bm25", options=MethodOptions(rerank=f"ltr:{tmp_path / 'absent'}"))


def test_a_learned_run_is_named_after_its_ranker() -> None:
    from nomos.retrieval.registry import MethodOptions
    from nomos.stages.evaluation import default_run_name

    assert default_run_name("hybrid", MethodOptions(rerank="ltr")) == "hybrid"  # hybrid's default second stage
    assert default_run_name("knn", MethodOptions(rerank="ltr")) == "knn-rerank-ltr"
    assert default_run_name("bm25", MethodOptions(rerank="ltr:/tmp/models/mine")) == "bm25-rerank-ltr_mine"


@pytest.mark.integration
def test_an_index_built_before_the_features_is_refused_naming_what_it_lacks(os_settings, client) -> None:
    from nomos.opensearch.transport import make_transport
    from nomos.retrieval.ltr.features import check_index

    name = f"{os_settings.index_alias}-old"
    client.indices.create(index=name, body={"mappings": {"properties": {"title": {"type": "text"},
                                                                          "anchors": {"type": "text"}}}})
    try:
        with pytest.raises(ConfigError, match=r"has no context, lemmas, anchor_count, cited_by_count, text_words"):
            check_index(make_transport(os_settings.cluster, client), name)
    finally:
        client.indices.delete(index=name)


def test_a_model_says_which_queries_it_learned_from(tmp_path: Path) -> None:
    """An evaluation over a ranker's own training queries is in-sample: the card lists them (digests) and eval
    warns; the shipped model learned from every judged dev query (bench/dev_sets.py: 74 + 83 + 74)."""
    from nomos.retrieval.ltr.model import DEFAULT_MODEL, query_key

    matrices, labels = _synthetic(queries=10)
    model = train(matrices, labels, rounds=5)
    model.card["trained_queries"] = [query_key("κλοπή  ρολογιού\n")]
    assert model.learned_from(["κλοπή ρολογιού", "απάτη"]) == 1 and model.learned_from(["απάτη"]) == 0
    assert len(load(DEFAULT_MODEL).card["trained_queries"]) == 231


@pytest.mark.integration
def test_eval_over_the_rankers_own_training_queries_says_it_is_in_sample(shared_bm25_index, mini_folder, tmp_path,
                                                                          caplog) -> None:
    import logging

    from nomos.ingest.beir import load_beir
    from nomos.retrieval.ltr.model import query_key
    from nomos.retrieval.registry import MethodOptions
    from nomos.stages.evaluation import evaluate_method

    data = load_beir(mini_folder)
    matrices, labels = _synthetic(queries=20)
    model = train(matrices, labels, rounds=10)
    model.card["trained_queries"] = [query_key(data.queries[0].case_text)]  # one of the mini set's queries
    model.save(tmp_path / "m")
    settings = shared_bm25_index.with_overrides(runs_dir=tmp_path / "runs")
    with caplog.at_level(logging.WARNING, logger="nomos.stages.evaluation"):
        outcome = evaluate_method(settings, data, method="bm25", options=MethodOptions(rerank=f"ltr:{tmp_path / 'm'}"))
    manifest = json.loads(outcome.paths["manifest"].read_text(encoding="utf-8"))
    assert manifest["ranker_trained_on"] == {"queries": 1, "of": len(data.queries)}
    assert f"1 of these {len(data.queries)} queries were among the learned ranker's training queries" in caplog.text
    plain = evaluate_method(settings, data, method="bm25")  # no learned ranker: nothing to say
    assert "ranker_trained_on" not in json.loads(plain.paths["manifest"].read_text(encoding="utf-8"))
