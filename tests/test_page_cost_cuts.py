"""Issue 38's cuts keep the pages exact: a results page ranked by score alone (one hit deeper) is the page the
(score, article id) sort gives, ties across the page's edge included, and a finished index is one segment.

Ties are made, not hoped for: articles with the same text score the same for any query, so the page's edge falls
inside a run of ties at k = 2 and 4 among five identical «Καταργείται» articles (as in the stand-in, where
repealed articles share that one word).
"""

from __future__ import annotations

import pytest

from nomos.ingest.loader import load_dataset
from nomos.opensearch.transport import Transport
from nomos.pages.facets import facet_aggs
from nomos.pages.request import PageRequest, faceted_page
from nomos.retrieval.base import exact_page, score_ordered, tied_at_cut
from nomos.retrieval.bm25 import BM25Retriever
from nomos.stages.indexing import index_dataset
from tests.beir_files import ARTICLES, write_beir

REPEALED = [{"_id": f"N_1_2000::{n}", "title": "", "text": "Καταργείται.", "source": "N_1_2000", "law": "ν. 1/2000"}
            for n in (5, 3, 9, 1, 7)]


def test_score_ordered_drops_the_sort_and_asks_one_hit_more():
    body = {"size": 10, "query": {"match_all": {}}, "sort": [{"_score": "desc"}, {"article_id": "asc"}],
            "track_scores": True, "aggs": {"a": {}}}
    out = score_ordered(body, 10)
    assert out == {"size": 11, "query": {"match_all": {}}, "aggs": {"a": {}}}
    assert body["sort"] and body["size"] == 10  # the caller's body is left as it was (the fallback sends it)


@pytest.mark.parametrize(("scores", "k", "tied"), [
    ([3.0, 2.0, 1.0], 2, False),
    ([3.0, 2.0, 2.0], 2, True),
    ([3.0, 2.0], 2, False),  # nothing after the page: nothing to tie with
    ([2.0, 2.0, 1.0], 2, False),  # ties inside the page are ordered by id afterwards
])
def test_tied_at_cut(scores, k, tied):
    resp = {"hits": {"hits": [{"_id": str(i), "_score": s} for i, s in enumerate(scores)]}}
    assert tied_at_cut(resp, k) is tied


@pytest.mark.integration
def test_pages_by_score_alone_equal_the_sorted_pages_ties_included(os_settings, tmp_path):
    dataset = load_dataset(str(write_beir(tmp_path / "ties", articles=ARTICLES + REPEALED)))
    settings = os_settings.with_overrides(index_alias="pytest-page-ties")
    index_dataset(settings, dataset)
    transport = Transport(settings_client(settings))
    bm25 = BM25Retriever(transport, settings.index_alias)
    sent: list[dict] = []

    def send(body):
        sent.append(body)
        return transport.search(settings.index_alias, body)

    for query, k, requests in (("καταργείται", 2, 2), ("καταργείται", 4, 2), ("καταργείται", 5, 1),
                               ("κλοπή κινητό πράγμα", 2, 1), ("κλοπή κινητό πράγμα καταργείται", 3, 2)):
        body = bm25.faceted_body(query, k, PageRequest(transport, settings.index_alias, query, facet_aggs(15), fallback=False))
        sorted_page = faceted_page(transport.search(settings.index_alias, body), k)
        sent.clear()
        page = faceted_page(exact_page(send, body, k), k)
        assert [(h.doc_id, h.score, h.highlights) for h in page.hits] == \
               [(h.doc_id, h.score, h.highlights) for h in sorted_page.hits], (query, k)
        assert (page.aggregations, page.matching) == (sorted_page.aggregations, sorted_page.matching)
        assert len(sent) == requests, (query, k, "requests")
    # the tie rule itself: the repealed articles in id order, the page's edge inside them
    page_ask = PageRequest(transport, settings.index_alias, "καταργείται", facet_aggs(15), fallback=False)
    body = bm25.faceted_body("καταργείται", 2, page_ask)
    assert [h.doc_id for h in faceted_page(exact_page(send, body, 2), 2).hits] == ["N_1_2000::1", "N_1_2000::3"]


@pytest.mark.integration
def test_a_finished_index_is_one_segment_and_a_rerun_merges_nothing(os_settings, tmp_path):
    from nomos.ingest.indexer import merge_segments

    dataset = load_dataset(str(write_beir(tmp_path / "seg", articles=ARTICLES + REPEALED)))
    settings = os_settings.with_overrides(index_alias="pytest-one-segment")
    report = index_dataset(settings, dataset)
    client = settings_client(settings)
    shards = client.indices.segments(index=report.index)["indices"][report.index]["shards"]
    assert [len(copy["segments"]) for copies in shards.values() for copy in copies] == [1]
    assert merge_segments(client, report.index) is False


def settings_client(settings):
    from nomos.opensearch.client import make_client

    return make_client(settings.cluster)


def test_the_clients_json_is_the_stock_serializers_json():
    """FastJSON (orjson) writes what opensearch-py's own serializer writes, for everything nomos sends: NumPy
    vectors and scalars, dates, UUIDs, Greek text; a value neither can write is the same SerializationError."""
    import datetime
    import decimal
    import json
    import uuid

    import numpy as np
    from opensearchpy.exceptions import SerializationError
    from opensearchpy.serializer import JSONSerializer

    from nomos.opensearch.client import FastJSON

    body = {"knn": {"vec": {"vector": np.array([0.25, -1.5, 3.0], dtype=np.float32), "k": np.int64(100)}},
            "when": datetime.datetime(2026, 12, 6, 12, 0, tzinfo=datetime.timezone.utc), "id": uuid.UUID(int=7),
            "price": decimal.Decimal("1.5"), "q": "Όποιος αφαιρεί ξένο κινητό πράγμα", "flag": np.bool_(True)}
    fast, stock = FastJSON(), JSONSerializer()
    assert json.loads(fast.dumps(body)) == json.loads(stock.dumps(body))
    assert fast.loads('{"hits": {"hits": [{"_id": "PK::372", "_score": 5.36}]}}') == \
        {"hits": {"hits": [{"_id": "PK::372", "_score": 5.36}]}}
    assert fast.dumps("already a body") == "already a body"
    for bad in ({"x": object()},):
        with pytest.raises(SerializationError):
            fast.dumps(bad)
        with pytest.raises(SerializationError):
            stock.dumps(bad)
    with pytest.raises(SerializationError):
        fast.loads("{not json")


def test_kept_peek_never_looks_up_and_goes_stale_with_its_value():
    from nomos.stages.search_types import Kept

    kept: Kept[int] = Kept(ttl=0.05)
    assert kept.peek() is None  # nothing looked up yet: peek does not look it up
    calls = []
    assert kept.get(lambda: calls.append(1) or 7) == 7
    assert kept.peek() == 7 and calls == [1]
    import time

    time.sleep(0.06)
    assert kept.peek() is None  # stale: the caller must look it up (in a worker thread)
    assert kept.get(lambda: calls.append(1) or 8) == 8 and calls == [1, 1]


@pytest.mark.integration
def test_a_page_renders_its_methods_from_the_searchers_fresh_lookups(shared_bm25_index):
    """The method list a page shows comes from the lookups its search already made (no second worker thread);
    before any lookup, or once they are stale, there is nothing known and the page looks them up."""
    from nomos.opensearch.client import make_client
    from nomos.portal.service import Portal

    portal = Portal(shared_bm25_index, make_client(shared_bm25_index.cluster))
    assert portal.known_methods() is None
    looked_up = portal.methods()
    assert portal.known_methods() == looked_up
    assert looked_up["bm25"] is True and looked_up["hybrid"] is False  # the shared index has no vectors
