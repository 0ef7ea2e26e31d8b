"""ranx metrics against hand-worked numbers, the paper's MAP normalisation, and run-file round trips."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from nomos.eval.metrics import evaluate
from nomos.eval.runs import (
    RunFormatError,
    atomic_write_text,
    format_trec,
    read_json_run,
    read_trec,
    sort_ranking,
    write_json_run,
    write_trec,
)


def test_hand_worked_metrics():
    # relevant d1 (rank 1) and d3 (rank 3) of 2 relevant
    qrels = {"q1": {"d1": 1, "d3": 1}, "q2": {"z": 1}}
    run = {"q1": [("d1", 3.0), ("d2", 2.0), ("d3", 1.0)]}
    ev = evaluate(run, qrels)
    q1 = ev.per_query["q1"]
    assert q1["recall@10"] == 1.0
    assert q1["map@100"] == pytest.approx((1 / 1 + 2 / 3) / 2)
    ideal = 1 + 1 / math.log2(3)
    assert q1["ndcg@10"] == pytest.approx((1 + 1 / math.log2(4)) / ideal)
    assert ev.per_query["q2"] == {m: 0.0 for m in ev.metrics}  # a query missing from the run scores zero
    assert ev.mean["recall@10"] == pytest.approx(0.5)


def test_map_divides_by_min_relevant_and_k():
    # 150 relevant, the top 100 all relevant: the paper's AP@100 is 1.0 (ranx alone would say 100/150)
    qrels = {"q": {f"d{i:03d}": 1 for i in range(150)}}
    run = {"q": [(f"d{i:03d}", 1000.0 - i) for i in range(100)]}
    assert evaluate(run, qrels, ["map@100"]).mean["map@100"] == pytest.approx(1.0)
    # with fewer than k relevant the two normalisations agree
    qrels = {"q": {"a": 1, "b": 1, "c": 1}}
    run = {"q": [("a", 3.0), ("x", 2.0), ("b", 1.0)]}
    assert evaluate(run, qrels, ["map@100"]).mean["map@100"] == pytest.approx((1 + 2 / 3) / 3)


def test_ties_are_broken_by_doc_id_not_by_ranx():
    ranking = sort_ranking([("b", 1.0), ("a", 1.0), ("c", 2.0), ("a", 0.5)])
    assert ranking == [("c", 2.0), ("a", 1.0), ("b", 1.0)]
    # with equal scores the evaluation must follow our order: "a" is rank 2, "b" rank 3
    ev = evaluate({"q": ranking}, {"q": {"a": 1}}, ["ndcg@10"])
    assert ev.mean["ndcg@10"] == pytest.approx(1 / math.log2(3))


def test_trec_and_json_round_trip(tmp_path: Path):
    run = {"q2": [("AK::914", 2.5), ("PK::1", 1.0)], "q1": [("PK::372", 7.25)]}
    write_trec(tmp_path / "run.trec", run, "bm25")
    text = (tmp_path / "run.trec").read_text()
    assert text.splitlines()[0] == "q1 Q0 PK::372 1 7.250000 bm25"
    assert read_trec(tmp_path / "run.trec") == {"q1": [("PK::372", 7.25)], "q2": [("AK::914", 2.5), ("PK::1", 1.0)]}
    write_json_run(tmp_path / "run.json", run)
    assert read_json_run(tmp_path / "run.json") == read_trec(tmp_path / "run.trec")
    with pytest.raises(ValueError):
        format_trec(run, "two words")


def test_our_run_files_read_into_ranx_unchanged(tmp_path: Path):
    """runs.py keeps its own TREC/JSON IO (its docstring says why); the files still load into ranx's Run as they are."""
    from ranx import Run

    run = {"q2": [("AK::914", 2.5), ("PK::1", 2.5), ("PK::7", 1.0)], "q1": [("PK::372", 7.25)]}
    write_trec(tmp_path / "run.trec", run, "bm25")
    write_json_run(tmp_path / "run.json", run)
    want = {q: dict(pairs) for q, pairs in run.items()}
    assert Run.from_file(str(tmp_path / "run.trec"), kind="trec").to_dict() == want
    assert Run.from_file(str(tmp_path / "run.json"), kind="json").to_dict() == want


def test_bad_trec_line_is_located(tmp_path: Path):
    (tmp_path / "bad.trec").write_text("q1 Q0 d1 1 1.0 tag\nq1 Q0 d2 2 x tag\n")
    with pytest.raises(RunFormatError, match=r"bad.trec:2: score 'x'"):
        read_trec(tmp_path / "bad.trec")


def test_atomic_write_never_leaves_half_files(tmp_path: Path):
    target = tmp_path / "metrics.json"
    atomic_write_text(target, "old")

    with pytest.raises(TypeError):
        atomic_write_text(target, 123)  # type: ignore[arg-type]  # fails while writing
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["metrics.json"]


def test_run_files_and_retrievers_order_ties_by_one_rule():
    """A run read back from a file and a retriever's ranking order ties the same way (one score_order for both), so
    re-evaluating a saved run never reshuffles tied documents."""
    from nomos.retrieval.base import Hit, rank

    pairs = [("PK::372", 2.0), ("AK::914", 2.0), ("PK::386Α", 3.5), ("PK::10", 2.0), ("PK::2", 0.5)]
    from_run = [doc for doc, _ in sort_ranking(pairs)]
    from_retriever = [h.doc_id for h in rank([Hit(doc_id=d, score=s) for d, s in pairs], k=10)]
    assert from_run == from_retriever == ["PK::386Α", "AK::914", "PK::10", "PK::372", "PK::2"]
