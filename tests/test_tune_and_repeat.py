"""BM25 tuning (fold logic by hand, and a real sweep on a clone that leaves the live index alone) and repeated
runs of an LLM method (against the scripted server, whose replies here depend on the request's seed, so the
spread is known in advance)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from nomos.eval.tuning import best, cross_validate, folds
from nomos.ingest.beir import load_beir
from nomos.opensearch.transport import Transport
from nomos.stages.evaluation import evaluate_repeated

# --------------------------------------------------------------------------------------------------- CV by hand
from nomos.stages.indexing import index_dataset

# --------------------------------------------------------------------------------------------------- CV by hand
from nomos.stages.tuning import tune_bm25
from tests.beir_files import write_beir
from tests.llm_server import from_beir


# --------------------------------------------------------------------------------------------------- CV by hand
def test_folds_are_a_seeded_partition():
    qs = [f"q{i:02d}" for i in range(10)]
    f = folds(qs, 4, seed=1)
    assert sorted(q for fold in f for q in fold) == qs and sorted(len(x) for x in f) == [2, 2, 3, 3]
    assert f == folds(list(reversed(qs)), 4, seed=1)  # input order does not matter
    assert f != folds(qs, 4, seed=2)
    with pytest.raises(ValueError):
        folds(qs, 11, seed=1)


def test_cross_validation_hand_worked():
    # setting X is best on a and b, Y on c and d: whichever fold holds out a query, training prefers the other
    scores = {(1.0, 0.5): {"a": 1.0, "b": 1.0, "c": 0.0, "d": 0.0}, (2.0, 0.5): {"a": 0.0, "b": 0.0, "c": 0.9, "d": 0.9}}
    res = cross_validate(scores, "m", k=4, seed=0, default=(1.0, 0.5))
    # leave-one-out: holding out "a", train = b (1.0 for X), c, d (0.9 each for Y) -> X mean 1/3, Y mean 0.6 -> Y, scores 0 on a
    assert {f["test_queries"][0]: (f["k1"], f["test"]) for f in res.folds} == {"a": (2.0, 0.0), "b": (2.0, 0.0), "c": (1.0, 0.0), "d": (1.0, 0.0)}
    assert res.cv_score == 0.0 and res.oracle == (1.0, 0.5) and res.oracle_score == pytest.approx(0.5)  # CV: 0; oracle: 0.5
    assert res.default_score == 0.5
    assert best(list(scores), {p: {"a": 1.0} for p in scores}, ["a"])[0] == (1.0, 0.5)  # tie: smaller k1
    assert json.dumps(res.to_dict())


@pytest.mark.integration
def test_tune_sweeps_a_clone_and_leaves_the_index_alone(os_settings, client, tmp_path):
    data = load_beir(write_beir(tmp_path / "mini"))
    index_dataset(os_settings, data)
    live = next(iter(client.indices.get_alias(index=os_settings.index_alias)))
    before = client.indices.get_settings(index=live)[live]["settings"]["index"]
    out = tune_bm25(os_settings, data, metric="ndcg@10", k1s=(0.6, 2.1), bs=(0.3, 1.0), folds=2, seed=3)
    assert len(out["grid"]) == 4 and len(out["cross_validated"]["folds"]) == 2
    assert out["oracle"]["score"] >= out["cross_validated"]["score"]
    per = out["per_query"]
    assert set(per) == {"0.6/0.3", "0.6/1.0", "2.1/0.3", "2.1/1.0"} and all(set(v) == {"q1", "q2"} for v in per.values())
    assert out["provenance"]["code"]["commit"] and json.loads(open(out["path"]).read())["metric"] == "ndcg@10"
    after = client.indices.get_settings(index=live)[live]["settings"]["index"]
    assert after["similarity"] == before["similarity"] and "blocks" not in after  # untouched, writable
    assert set(client.indices.get(index=f"{os_settings.index_alias}*")) == {live}  # the copy is gone
    # the setting really changes the scores: check with the similarity applied the way the sweep applies it
    from nomos.opensearch.admin import set_bm25 as _set_bm25
    from nomos.retrieval.bm25 import BM25Retriever

    clone = f"{os_settings.index_alias}-probe"
    client.indices.put_settings(index=live, body={"index.blocks.write": True})
    client.indices.clone(index=live, target=clone, params={"wait_for_active_shards": "1"})
    client.indices.put_settings(index=live, body={"index.blocks.write": None})
    r = BM25Retriever(Transport(client), clone)
    q = data.queries[0].text
    _set_bm25(client, clone, 0.6, 0.3)
    low = r.search(q, 3)[0].score
    _set_bm25(client, clone, 2.1, 1.0)
    high = r.search(q, 3)[0].score
    assert low != pytest.approx(high)


# --------------------------------------------------------------------------------------------------- repeat
@pytest.mark.integration
def test_repeat_reports_mean_and_spread(os_settings, tmp_path):
    folder = write_beir(tmp_path / "mini")
    data = load_beir(folder)
    with from_beir(folder, noise=False) as llm:
        # the observer keeps the gold articles only when the request's seed is even: recall@100 is 1, 0, 1 for
        # seeds 0, 1, 2 (mean 2/3, sample std sqrt(1/3)) — a stand-in for an LLM whose answers vary between runs
        llm.script("observer", lambda info: None if info["params"].get("seed", 0) % 2 == 0 else '{"keep": []}')
        settings = os_settings.with_overrides(llm_base_url=llm.base_url, llm_model="scripted", react_rounds=2, llm_concurrency=2)
        index_dataset(settings, data)
        summary, outcomes = evaluate_repeated(settings, data, method="react", repeat=3, seed=0)
        seeds = sorted({r["params"].get("seed") for r in llm.requests})
    assert seeds == [0, 1, 2] and [o.run_name for o in outcomes] == ["react-seed0", "react-seed1", "react-seed2"]
    r100 = summary["metrics"]["recall@100"]
    assert r100["values"] == [1.0, 0.0, 1.0] and r100["mean"] == pytest.approx(2 / 3)
    assert r100["std"] == pytest.approx((1 / 3) ** 0.5) and (r100["min"], r100["max"]) == (0.0, 1.0)
    written = json.loads(open(summary["path"]).read())
    assert written["stochastic"] and written["provenance"]["llm"]["model"] == "scripted" and written["seeds"] == [0, 1, 2]
    assert json.loads((outcomes[1].paths["manifest"]).read_text())["method"]["llm"]["seed"] == 1


@pytest.mark.integration
def test_cli_repeat_and_tune(os_settings, tmp_path):
    from nomos.cli import cli

    folder = write_beir(tmp_path / "mini")
    index_dataset(os_settings, load_beir(folder))
    base = ["--port", str(os_settings.http_port), "--index", os_settings.index_alias]
    res = CliRunner().invoke(cli, [*base, "eval", "--method", "bm25", "--dataset", str(folder), "--runs-dir", str(os_settings.runs_dir),
                                   "--repeat", "2"])
    assert res.exit_code == 0, res.output
    assert "std" in res.output and "bm25-seed0" in res.output and "bm25-seed1" in res.output
    res = CliRunner().invoke(cli, [*base, "tune", "--dataset", str(folder), "--k1", "0.9,1.5", "--b", "0.5,0.75", "--folds", "2",
                                   "--runs-dir", str(os_settings.runs_dir)])
    assert res.exit_code == 0, res.output
    assert "cross-validated recall@100" in res.output and "oracle (best on all queries): k1=" in res.output


@pytest.mark.integration
def test_tune_never_blocks_writes_on_the_live_index_and_scores_as_it(os_settings, client, tmp_path):
    """Issue 50: tune set index.blocks.write on the live index for a _clone; during an encode that would refuse
    the indexer's writes. It now copies the text (scroll and bulk), sending the live index nothing that blocks or
    changes it, and the copy scores as the live index does at the live setting."""
    from nomos.eval.metrics import evaluate
    from nomos.retrieval.bm25 import BM25Retriever
    from tests.portal_support import requests_sent

    data = load_beir(write_beir(tmp_path / "mini"))
    index_dataset(os_settings, data)
    live = next(iter(client.indices.get_alias(index=os_settings.index_alias)))
    with requests_sent(client) as sent:
        out = tune_bm25(os_settings, data, metric="ndcg@10", k1s=(1.5,), bs=(0.75,), folds=2, seed=3, client=client)
    writes = [(m, url) for m, url in sent if m != "GET" and f"/{live}/" in url + "/" and "_search" not in url
              and "_msearch" not in url]
    assert not writes, writes  # no _settings, no _clone, no close/open on the live index
    assert not any("_clone" in url or "blocks" in url for _, url in sent)
    hits = BM25Retriever(Transport(client), os_settings.index_alias).search_many({q.id: q.case_text for q in data.queries}, 100).hits
    live_scores = evaluate({q: [(h.doc_id, h.score) for h in hs] for q, hs in hits.items()}, data.qrels, ("ndcg@10",))
    assert out["per_query"]["1.5/0.75"] == {q: v["ndcg@10"] for q, v in live_scores.per_query.items()}
