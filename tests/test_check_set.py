"""bench/data/fresh-everyday is a check set, never a dev set: well formed, judged on articles the stand-in holds, not
loaded by bench/dev_sets.py and learned by no shipped model (its queries are not among the default model's training
queries, so the judged queries' log cannot hold them)."""

from __future__ import annotations

import json
from pathlib import Path

from nomos.ingest.beir import read_qrels, read_queries
from nomos.retrieval.ltr.model import DEFAULT_MODEL, load, query_key

CHECK = Path(__file__).resolve().parent.parent / "bench" / "data" / "fresh-everyday"


def test_the_check_set_is_well_formed_and_judged_on_the_stand_ins_articles(shared_data: Path) -> None:
    queries = {q.id: q for _, q in read_queries(CHECK / "queries.jsonl")}
    judged, _ = read_qrels(CHECK / "qrels" / "test.tsv")
    assert len(queries) == 30 and set(judged) == set(queries)  # every case has a gold article
    gold = {d for j in judged.values() for d, v in j.items() if v > 0}
    ids = {json.loads(line)["_id"] for line in (shared_data / "corpus.jsonl").open(encoding="utf-8")}
    assert gold <= ids, sorted(gold - ids)
    notes = {json.loads(line)["_id"]: json.loads(line)["gold"] for line in (CHECK / "gold-notes.jsonl").open(encoding="utf-8")}
    assert {q: {g["article"] for g in n} for q, n in notes.items()} == {q: set(j) for q, j in judged.items()}


def test_no_dev_set_and_no_shipped_model_has_seen_it() -> None:
    source = (CHECK.parent.parent / "dev_sets.py").read_text(encoding="utf-8")
    assert "fresh-everyday" not in source  # dev_sets loads extended, case files and everyday only
    trained = set(load(DEFAULT_MODEL).card["trained_queries"])
    texts = [q.case_text for _, q in read_queries(CHECK / "queries.jsonl")]
    assert not any(query_key(t) in trained for t in texts)
