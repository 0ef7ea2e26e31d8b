"""The project's scripts on the open node (issue 39): every node nomos starts runs stored scripts only, so the
whole suite's dense, fused and Rocchio tests prove that nothing of nomos sends a script inline; here, that the node
refuses one, holds the project's three once it has started, ranks a page by position through the stored script,
and that a script the cluster lacks is an error that says how to store them. The secured node's side is
tests/test_secure_scripts.py."""

from __future__ import annotations

import pytest
from opensearchpy.exceptions import RequestError

from nomos.errors import SearchError
from nomos.opensearch.client import make_client
from nomos.opensearch.stored_scripts import MISSING_SCRIPT_HINT, SCRIPTS, StoredScript
from nomos.opensearch.transport import make_transport
from nomos.pages.request import PageRequest, faceted_page, ranking_page_body
from nomos.retrieval.base import Hit

pytestmark = pytest.mark.integration


def test_the_open_node_refuses_inline_scripts_and_holds_the_projects_own(shared_bm25_index) -> None:
    client = make_client(shared_bm25_index.cluster)
    for script in SCRIPTS:  # stored by `server start` (and by `index`)
        stored = client.get_script(id=script.id)
        assert stored["found"] and stored["script"]["source"] == script.source, script.id
    inline = {"lang": "painless", "source": "1"}
    with pytest.raises(RequestError, match=r"cannot execute \[inline\] scripts"):
        client.search(index=shared_bm25_index.index_alias,
                      body={"query": {"match_all": {}}, "script_fields": {"one": {"script": inline}}})


def test_a_page_over_a_ranking_keeps_its_order_through_the_stored_script(shared_bm25_index) -> None:
    ranked = [Hit("AK::914", 3.0), Hit("PK::372", 2.0), Hit("PK::386", 1.0)]  # not BM25's order of anything
    transport = make_transport(shared_bm25_index.cluster)
    body = ranking_page_body(PageRequest(transport, shared_bm25_index.index_alias, "κλοπή"), ranked, 3)
    assert "source" not in body["query"]["script_score"]["script"]
    resp = transport.search(shared_bm25_index.index_alias, body)
    assert [h.doc_id for h in faceted_page(resp, 3).hits] == ["AK::914", "PK::372", "PK::386"]


def test_a_script_the_cluster_lacks_says_how_to_store_them(shared_bm25_index) -> None:
    missing = StoredScript("not-stored", "painless", "params.never_stored", "score")
    body = {"query": {"script_score": {"query": {"match_all": {}}, "script": missing.ref({})}}}
    with pytest.raises(SearchError, match=missing.id) as err:
        make_transport(shared_bm25_index.cluster).search(shared_bm25_index.index_alias, body, what="a page")
    assert err.value.hint == MISSING_SCRIPT_HINT
