"""How the learned ranker's requests are sent (issue 46's cost): fewer and cheaper, the features unchanged."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import numpy as np
import pytest

from nomos.retrieval.ltr.features import FEATURES, NAMED_SCORES, FeatureReader, pool_of
from nomos.retrieval.ltr.model import train
from tests.beir_files import ARTICLES

SHORT = "ξένο κινητό πράγμα ρολόι"


def _long(n: int) -> str:
    """A case file's length (over BM25's long_query_words): its terms are analysed by the node."""
    return " ".join(a["text"] for a in ARTICLES[n:] + ARTICLES[:n]) * 6


@pytest.mark.integration
@pytest.mark.slow
def test_the_pools_search_in_index_order_reads_the_same_features_as_one_by_score(shared_dense_index) -> None:
    from nomos.opensearch.transport import make_transport
    from nomos.retrieval.bm25 import BM25Retriever
    from nomos.retrieval.registry import MethodOptions, make_retriever

    settings = shared_dense_index
    transport = make_transport(settings.cluster)
    bm25 = BM25Retriever(transport, settings.index_alias)
    knn = make_retriever(settings, "knn", transport, MethodOptions(amendments="off"))  # the ranker's own kNN
    reader = FeatureReader(bm25, knn.field)
    for text in (SHORT, _long(2)):
        lists = {"bm25": bm25.search(text, 100), "knn": knn.search(text, 100), "anchors": [], "lemmas": []}
        ids = pool_of(lists)
        vector = knn.query_vectors([text])[0]
        body = reader.body(text, ids, vector)
        assert body["sort"] == ["_doc"] and ids
        by_score = {k: v for k, v in body.items() if k not in ("sort", "track_total_hits")}  # the query phase scores
        new = transport.search(settings.index_alias, body, params=NAMED_SCORES)
        old = transport.search(settings.index_alias, by_score, params=NAMED_SCORES)
        assert {h["fields"]["article_id"][0] for h in new["hits"]["hits"]} == set(ids)
        assert all("cosine" in h["matched_queries"] for h in new["hits"]["hits"])  # every clause scored
        features = reader.read({"q": text}, {"q": lists}, {"q": vector})["q"]
        assert features.ids == ids
        assert np.array_equal(features.matrix, reader._matrix(text, ids, lists, old))  # to the bit
        assert np.array_equal(features.matrix, reader._matrix(text, ids, lists, new))


@pytest.mark.integration
def test_the_ranker_shares_the_first_stages_bm25_and_asks_the_node_once_per_long_query(shared_bm25_index,
                                                                                        tmp_path: Path) -> None:
    from nomos.retrieval.registry import MethodOptions, make_retriever

    rng = np.random.default_rng(5)
    matrices = [rng.random((6, len(FEATURES))).astype(np.float32) for _ in range(8)]
    train(matrices, [np.asarray([1.0, 0, 0, 0, 0, 0])] * 8, rounds=3).save(tmp_path / "m")
    ranker = make_retriever(shared_bm25_index, "bm25", options=MethodOptions(rerank=f"ltr:{tmp_path / 'm'}"))
    assert ranker.bm25 is ranker.first  # the same retriever: one analysis, one resolved search type
    ranker.search(_long(0), 10)  # the first search reads the mapping and the shard count
    transport = ranker.transport
    sent: list[str] = []
    call = transport.call

    def counted(request, what):  # the real request, counted by what it is
        sent.append(what)
        return call(request, what)

    transport.call = counted
    hits = ranker.search(_long(3), 10)  # a long text not seen yet
    assert hits and sent.count("analysing a long query") == 1, sent
    assert not any("shard count" in w or "mapping" in w for w in sent), sent
    assert len(sent) == 4, sent  # the analysis, the first stage, the side lists, the pool's features


@pytest.mark.integration
def test_a_client_keeps_a_connection_for_each_of_two_concurrent_searches(shared_bm25_index, caplog) -> None:
    from nomos.opensearch.client import make_client

    client = make_client(shared_bm25_index.cluster)
    caplog.set_level(logging.DEBUG, logger="urllib3.connectionpool")

    def search() -> None:
        client.search(index=shared_bm25_index.index_alias, body={"query": {"match": {"content": SHORT}}})

    for _ in range(4):  # a ranked query's side thread beside its first stage, four times
        side = threading.Thread(target=search)
        side.start()
        search()
        side.join()
    opened = [r for r in caplog.records if "Starting new HTTP connection" in r.getMessage()]
    assert not [r for r in caplog.records if "pool is full" in r.getMessage()]
    assert len(opened) <= 2
