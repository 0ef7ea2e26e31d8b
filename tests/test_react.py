"""ReAct-BM25: the final-ranking rule and the observer batching against hand-worked examples, reply parsing and
fallbacks, and whole loops against a real node and the scripted OpenAI-protocol server (normal runs, malformed
replies, injected faults, cache hits, resume, dead and missing endpoints)."""

from __future__ import annotations

import json
import socket
import time
from dataclasses import replace

import pytest
from click.testing import CliRunner

from nomos.retrieval.llm import Cost, LLMNotConfigured, LLMUnavailable, Reply
from nomos.retrieval.prompts import prompts_info
from nomos.retrieval.react import (
    Candidate,
    KeptStats,
    ReActConfig,
    batch_candidates,
    candidate_block,
    estimate_tokens,
    fallback_query,
    final_ranking,
    normalize_query,
    observer_overhead,
    parse_observer,
    parse_planner,
)
from nomos.retrieval.react_trace import Observation, Plan, QueryTrace, Round, RoundCost, Search
from nomos.retrieval.registry import make_retriever

# --------------------------------------------------------------------------------------------------- units
from nomos.stages.evaluation import evaluate_method

# --------------------------------------------------------------------------------------------------- units
from nomos.stages.indexing import index_dataset
from tests.beir_files import QUERIES
from tests.llm_server import ScriptedLLM, from_beir, shaped


# --------------------------------------------------------------------------------------------------- units
def test_final_ranking_hand_worked():
    kept = {
        "A": KeptStats([2], 1),        # 1 round
        "B": KeptStats([1, 3], 40),    # 2 rounds, first 1
        "C": KeptStats([2, 3], 5),     # 2 rounds, first 2
        "D": KeptStats([1, 2], 7),     # 2 rounds, first 1, better rank than B
        "E": KeptStats([1], 3),        # 1 round, first 1
        "F": KeptStats([1], 3),        # ties E on everything: id decides
        "G": KeptStats([1, 2, 3], 90),  # 3 rounds beats everything
    }
    ranked = final_ranking(kept, k=100)
    assert [h.doc_id for h in ranked] == ["G", "D", "B", "C", "E", "F", "A"]
    assert [h.score for h in ranked] == [7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0]
    assert ranked[1].details == {"rounds_kept": 2, "first_round": 1, "best_rank": 7}
    assert [h.doc_id for h in final_ranking(kept, k=3)] == ["G", "D", "B"]
    assert final_ranking({}, 100) == []


def test_kept_stats_track_rounds_and_best_rank():
    s = KeptStats()
    s.add(3, 12)
    s.add(5, 4)
    s.add(5, 9)
    assert s.rounds == [3, 5] and s.best_rank == 4


def test_observer_batching_hand_worked():
    # with 1 character per token a block costs 16 + len(text): "\n=== [X] t ===\n" is 15 characters, then "\n"
    assert estimate_tokens(candidate_block(Candidate("A", "t", "x" * 30, 1)), 1) == 46
    cands = [Candidate("A", "t", "a" * 30, 1), Candidate("B", "t", "b" * 30, 2), Candidate("C", "t", "c" * 10, 3),
             Candidate("D", "t", "d" * 100, 4), Candidate("E", "t", "e" * 64, 5)]
    # budget 100 - overhead 20 = room 80: A (46) | B (46) + C (26) = 72 | D (116) cut to 80 alone | E (80) alone
    batches, cut = batch_candidates(cands, budget=100, overhead=20, chars_per_token=1)
    assert [[c.id for c in b] for b in batches] == [["A"], ["B", "C"], ["D"], ["E"]]
    assert cut == ["D"] and len(batches[2][0].text) == 64 and batches[3][0].text == "e" * 64
    assert [c.rank for b in batches for c in b] == [1, 2, 3, 4, 5]  # rank order is kept
    one, _ = batch_candidates(cands[:3], budget=1000, overhead=20, chars_per_token=1)
    assert [[c.id for c in b] for b in one] == [["A", "B", "C"]]
    with pytest.raises(ValueError, match="no room"):
        batch_candidates(cands, budget=20, overhead=20)


def test_paper_budget_splits_a_round_of_long_articles():
    # 100 articles of 2,200 characters (the stand-in's mean): a block is ~2,225 characters = 890-891 tokens at
    # 2.5 characters a token, so the 83,000 tokens left by a 1,000-token prompt hold 93 of them
    cands = [Candidate(f"X::{i}", "τίτλος", "λ" * 2200, i) for i in range(1, 101)]
    batches, cut = batch_candidates(cands, budget=84_000, overhead=1_000, chars_per_token=2.5)
    assert [len(b) for b in batches] == [93, 7] and not cut


def test_parse_planner():
    assert parse_planner('{"thought": "σκέψη", "query": "κλοπή  κινητού\\nπράγματος"}') == ("κλοπή κινητού πράγματος", "σκέψη", None)
    assert parse_planner('Ορίστε:\n```json\n{"query": "απάτη"}\n```')[0] == "απάτη"
    assert parse_planner('{"ερώτημα": "υπεξαίρεση"}')[0] == "υπεξαίρεση"
    assert parse_planner("   ")[2] == {"kind": "planner_empty"}
    assert parse_planner("κλοπή, απάτη") == ("κλοπή, απάτη", None, None)  # a plain keyword reply (the notebook's)
    assert parse_planner('{"query": ""}')[2]["kind"] == "planner_format"
    assert parse_planner('{"thought": "σκέψη"}')[2]["kind"] == "planner_format"
    assert parse_planner('{"query": ["κλοπή", "απάτη"]}')[0] == "κλοπή απάτη"
    assert parse_planner(" ".join(["λέξη"] * 121))[2]["kind"] == "planner_format"  # prose, not a query


def test_parse_observer():
    kept, issues = parse_observer('{"keep": [{"id": "PK::372", "reason": "κλοπή"}, "[PK::375]", {"id": "XX::9"}, {"id": 3}]}',
                                  ["PK::372", "PK::375", "PK::386"])
    assert kept == {"PK::372": "κλοπή", "PK::375": ""} and issues == [{"kind": "unknown_ids", "ids": ["XX::9"]}]
    assert parse_observer('{"keep": []}', ["A"]) == ({}, [])
    assert parse_observer("", ["A"]) == ({}, [{"kind": "observer_empty"}])
    assert parse_observer("κράτα το Α", ["A"])[1][0]["kind"] == "observer_format"
    assert parse_observer('{"keep": "A"}', ["A"])[1][0]["kind"] == "observer_format"


def test_repeats_and_fallbacks():
    assert normalize_query("Κλοπή, ΚΙΝΗΤΟΥ πράγματος!") == normalize_query("κλοπη κινητού  πράγματος")
    case = "Ο Νίκος πήρε ένα ρολόι. Τι έκανε;"
    assert fallback_query(case, [], []) == case
    assert fallback_query(case, ["κλοπή"], ["Κλοπή", "Υπεξαίρεση", "Κλοπή"]) == case
    assert fallback_query(case, [case], ["Κλοπή", "Υπεξαίρεση", "Κλοπή"]) == "Κλοπή Υπεξαίρεση"
    assert fallback_query(case, [case, "κλοπή υπεξαίρεση"], ["Κλοπή", "Υπεξαίρεση"]) == f"{case} Κλοπή Υπεξαίρεση"
    assert fallback_query(case, [case], []) == case  # nothing new to say: the case again (logged as a repeat)


def test_snapshot_rounds():
    assert ReActConfig(rounds=10).snapshot_rounds() == [1, 2, 3, 5, 10]
    assert ReActConfig(rounds=4).snapshot_rounds() == [1, 2, 3, 4]
    assert ReActConfig(rounds=1).snapshot_rounds() == [1]



def test_round_trace_serialises_to_the_trace_format():
    # traces.jsonl, the checkpoint and the portal read these keys in this order; to_dict must not change them
    observation = Observation([2, 1], ["B"], ["A", "C"], {"A": "κλοπή", "C": ""}, [{"kind": "unknown_ids", "ids": ["X"], "batch": 2}])
    planned = Round(1, Plan("κλοπή", thought="σκέψη"), Search(["A", "B", "C"], 1.5, 0.25), observation,
                    RoundCost(2, 900, 80, 0.123456, 0.1))
    d = planned.to_dict()
    assert list(d) == ["round", "issues", "query_source", "thought", "query", "search_ms", "fetch_ms", "truncated_for_budget",
                       "candidates", "kept", "reasons", "batches", "calls", "input_tokens", "output_tokens", "seconds",
                       "llm_wait_seconds", "overhead_ms"]
    assert d["query_source"] == "planner" and d["thought"] == "σκέψη" and d["truncated_for_budget"] == ["B"]
    assert d["issues"] == [{"kind": "unknown_ids", "ids": ["X"], "batch": 2}] and d["batches"] == [2, 1]
    assert (d["seconds"], d["llm_wait_seconds"], d["overhead_ms"]) == (0.1235, 0.1, 23.5)  # from the rounded seconds
    fallback = Round(2, Plan("υπόθεση", issue={"kind": "planner_empty"}), Search(["A"], 1.0, 0.5),
                     Observation([1], [], ["A"], {"A": "ναι"}, []), RoundCost(2, 10, 5, 0.2, 0.15))
    d = fallback.to_dict()
    assert "thought" not in d and "truncated_for_budget" not in d and d["query_source"] == "fallback"
    assert d["issues"] == [{"kind": "planner_empty"}] and fallback.plan.fallback_used
    assert Round(1, Plan("q", thought=None), Search([], 0, 0), Observation([], [], [], {}, []),
                 RoundCost(1, 1, 1, 0, 0)).to_dict()["thought"] is None  # a planner query without a thought says so
    cost = Cost()
    cost.add(Reply("x", 10, 2, 0.5), "planner")
    trace = QueryTrace("q1", [planned, fallback], ["A", "C"], cost, 1.23456).to_dict()
    assert list(trace) == ["query_id", "rounds", "final", "calls", "cached_calls", "input_tokens", "output_tokens",
                           "llm_seconds", "by_purpose", "issue_counts", "seconds"]
    assert trace["rounds"][1]["round"] == 2 and trace["seconds"] == 1.2346 and trace["calls"] == 1


def test_round_cost_is_what_the_round_added():
    before = Cost(calls=2, input_tokens=100, output_tokens=10)
    after = Cost(calls=5, input_tokens=400, output_tokens=70)
    assert RoundCost.between(before, after, 1.0, 0.5) == RoundCost(3, 300, 60, 1.0, 0.5)

# --------------------------------------------------------------------------------------------------- loops


@pytest.fixture
def llm(mini_folder):
    with from_beir(mini_folder) as server:
        yield server


@pytest.fixture
def react_settings(os_settings, mini, llm):
    index_dataset(os_settings, mini)
    return os_settings.with_overrides(llm_base_url=llm.base_url, llm_model="scripted", react_rounds=3, llm_retries=2, llm_concurrency=2)


@pytest.mark.integration
def test_react_loop_end_to_end(react_settings, mini, llm):
    out = evaluate_method(react_settings, mini, method="react")
    assert out.evaluation.mean["recall@100"] == 1.0
    assert list(out.extra["rounds"]) == ["1", "2", "3"]
    folder = out.paths["manifest"].parent
    for name in ("traces.jsonl", "rounds.json", "rounds.tsv", "cost.json", "checkpoint.jsonl", "run.trec"):
        assert (folder / name).is_file(), name
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["prompts_hash"] == prompts_info()["hash"] == manifest["method"]["prompts"]["hash"]
    assert manifest["method"]["llm"]["model"] == "scripted" and manifest["method"]["rounds"] == 3
    traces = {t["query_id"]: t for t in map(json.loads, (folder / "traces.jsonl").read_text().splitlines())}
    t = traces["q1"]
    assert [r["round"] for r in t["rounds"]] == [1, 2, 3]
    r1 = t["rounds"][0]
    assert r1["query"] and r1["query_source"] == "planner" and "PK::372" in r1["candidates"]
    assert "PK::372" in r1["kept"] and r1["reasons"]["PK::372"] and r1["calls"] == 2 and r1["input_tokens"] > 0
    assert r1["batches"] == [len(r1["candidates"])] and r1["search_ms"] >= 0 and r1["fetch_ms"] >= 0
    assert t["calls"] == 6 and llm.count("planner") == 6 and llm.count("observer") == 6
    assert llm.max_in_flight <= 2
    # the final ranking follows the rule over what the trace says was kept
    kept: dict[str, KeptStats] = {}
    for r in t["rounds"]:
        for d in r["kept"]:
            kept.setdefault(d, KeptStats()).add(r["round"], r["candidates"].index(d) + 1)
    assert t["final"] == [h.doc_id for h in final_ranking(kept)]
    cost = json.loads((folder / "cost.json").read_text())
    assert cost["total"]["calls"] == 12 and cost["by_purpose"]["observer"]["calls"] == 6 and cost["paid_calls_this_run"] == 12
    assert cost["mean_per_query"]["input_tokens"] > cost["mean_per_query"]["output_tokens"] > 0
    rounds_tsv = (folder / "rounds.tsv").read_text().splitlines()
    assert rounds_tsv[0].startswith("round\trecall@10") and len(rounds_tsv) == 4


@pytest.mark.integration
def test_bad_replies_are_logged_and_the_loop_goes_on(react_settings, mini, llm):
    round1: dict[str, str] = {}

    def planner(info):
        r = info["round"]
        if r == 1:
            round1[info["case"]] = "κλοπή ξένου κινητού πράγματος"
            return json.dumps({"query": round1[info["case"]]})
        if r == 2:
            return '{"thought": "θα έψαχνα για κλοπή"}'  # no query in any form
        if r == 3:
            return json.dumps({"query": "Κλοπή, ξένου ΚΙΝΗΤΟΥ πράγματος"})  # a repeat of round 1
        return ""

    calls = {"n": 0}

    def observer(info):
        calls["n"] += 1
        if calls["n"] == 1:
            return '```json\n{"keep": [oops'
        return json.dumps({"keep": [{"id": "ΧΧ::1", "reason": "επινοημένο"}] + [{"id": d, "reason": "ναι"} for d in info["candidates"][:1]]})

    llm.script("planner", planner)
    llm.script("observer", observer)
    settings = react_settings.with_overrides(react_rounds=4, llm_concurrency=1)
    out = evaluate_method(settings, mini, method="react")
    traces = [json.loads(x) for x in out.paths["traces"].read_text().splitlines()]
    issues = [i["kind"] for t in traces for r in t["rounds"] for i in r["issues"]]
    assert {"observer_format", "unknown_ids", "planner_format", "planner_repeat", "planner_empty"} <= set(issues)
    for t in traces:
        sources = [r["query_source"] for r in t["rounds"]]
        assert sources == ["planner", "fallback", "fallback", "fallback"]
        queries = [normalize_query(r["query"]) for r in t["rounds"]]
        assert len(set(queries[:3])) == 3  # fallbacks avoid asking the same again while they can
        assert all("ΧΧ::1" not in r["kept"] for r in t["rounds"])
    assert out.evaluation.mean["recall@100"] > 0
    # every kind counted into cost.json: per query one planner format error (round 2), three fallbacks (rounds
    # 2-4), one empty planner reply asked again and still empty (round 4); one observer format error in the run
    # and an invented id in every other observer reply
    cost = json.loads(out.paths["cost"].read_text())
    n, observer_calls = len(traces), cost["by_purpose"]["observer"]["calls"]
    counts = cost["issues"]["counts"]
    assert (counts["format_errors"], counts["fallbacks"], counts["empty_replies"], counts["regenerated"]) == (n + 1, 3 * n, n, n)
    assert counts["unknown_ids"] == observer_calls - 1 and counts["truncations"] == counts["ambiguous_ids"] == 0
    assert cost["issues"]["calls"] == cost["total"]["calls"] == 4 * n + observer_calls  # the retry is inside its call


@pytest.mark.integration
def test_small_observer_budget_splits_rounds_into_batches(react_settings, mini, llm):
    from nomos.opensearch.client import make_client

    retriever = make_retriever(react_settings, "react", make_client(react_settings.cluster))
    budget = max(observer_overhead(q.text) for q in mini.queries) + 150  # room for about two short articles
    retriever.config = replace(retriever.config, observer_budget=budget, rounds=1)
    result = retriever.search_many({q.id: q.text for q in mini.queries}, 100)
    r1 = result.traces["q1"]["rounds"][0]
    assert len(r1["batches"]) > 1 and sum(r1["batches"]) == len(r1["candidates"])
    assert llm.count("observer") == sum(len(t["rounds"][0]["batches"]) for t in result.traces.values())
    assert "PK::372" in [h.doc_id for h in result.hits["q1"]]


@pytest.mark.integration
def test_transient_faults_do_not_change_the_run(react_settings, mini, llm):
    settings = react_settings.with_overrides(llm_timeout=0.5, llm_retries=3)
    llm.inject("429", "500", "timeout:1.5", "drop")
    out = evaluate_method(settings, mini, method="react", run_name="faulty")
    cost = json.loads(out.paths["cost"].read_text())
    assert cost["retries_this_run"] == 4 and out.evaluation.mean["recall@100"] == 1.0


@pytest.mark.integration
def test_cache_and_resume_repeat_no_paid_call(react_settings, mini, llm):
    q2 = next(q["text"] for q in QUERIES if q["_id"] == "q2")
    llm.fault_for = lambda info: "500" if info["case"] == q2 and info["round"] == 2 else None
    settings = react_settings.with_overrides(llm_concurrency=1, llm_retries=1)
    with pytest.raises(LLMUnavailable, match="failed 2 times"):
        evaluate_method(settings, mini, method="react")
    checkpoint = settings.runs_dir / mini.name / "react" / "checkpoint.jsonl"
    assert [json.loads(x)["query_id"] for x in checkpoint.read_text().splitlines()] == ["q1"]
    llm.fault_for = None
    before = llm.count()
    ticks: list[int] = []
    resumed = evaluate_method(settings, mini, method="react", resume=True, on_progress=ticks.append)
    assert ticks == [1, 1]  # q1 from the checkpoint, q2 when its loop finished
    cost = json.loads(resumed.paths["cost"].read_text())
    # q1 came from the checkpoint; q2's round-1 calls from the cache; only q2's rounds 2 and 3 were paid
    assert cost["resumed_queries"] == 1 and cost["paid_calls_this_run"] == 4 and llm.count() - before == 4
    trec = resumed.paths["trec"].read_text()
    before = llm.count()
    again = evaluate_method(settings, mini, method="react")  # a fresh run: every reply from the cache
    cost = json.loads(again.paths["cost"].read_text())
    assert llm.count() == before and cost["paid_calls_this_run"] == 0 and cost["mean_per_query"]["cached_calls"] == 6
    assert again.paths["trec"].read_text() == trec and cost["total"]["input_tokens"] > 0


@pytest.mark.integration
def test_dead_endpoint_stops_the_run_with_a_clear_message(os_settings, mini):
    index_dataset(os_settings, mini)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = os_settings.with_overrides(llm_base_url=f"http://127.0.0.1:{port}/v1", llm_model="m", llm_retries=1)
    with pytest.raises(LLMUnavailable, match=rf"LLM endpoint http://127.0.0.1:{port}/v1 \(model m\) failed 2 times"):
        evaluate_method(settings, mini, method="react")


@pytest.mark.parametrize("method", ["react", "reform-bm25", "reform-knn", "reform-hybrid"])
def test_no_endpoint_fails_at_once_naming_the_settings(mini, tmp_path, method):
    from nomos.settings import Settings

    settings = Settings(opensearch_url="http://127.0.0.1:9", runs_dir=tmp_path / "runs", cache_dir=tmp_path / "cache")
    started = time.perf_counter()
    with pytest.raises(LLMNotConfigured, match="NOMOS_LLM_BASE_URL.*NOMOS_LLM_MODEL.*OPENAI_API_KEY"):
        evaluate_method(settings, mini, method=method)
    assert time.perf_counter() - started < 1  # before OpenSearch is ever asked


def test_cli_without_endpoint_prints_the_settings(mini_folder, tmp_path):
    from nomos.cli import cli

    env = {"NOMOS_LLM_BASE_URL": "", "NOMOS_LLM_MODEL": "", "OPENSEARCH_URL": "http://127.0.0.1:9", "NOMOS_CACHE_DIR": str(tmp_path)}
    result = CliRunner().invoke(cli, ["eval", "--method", "react", "--dataset", str(mini_folder)], env=env)
    assert result.exit_code == 1 and "NOMOS_LLM_BASE_URL" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(cli, ["search", "κλοπή", "--method", "reform-bm25"], env=env)
    assert result.exit_code == 1 and "--llm-model" in result.output


def test_scripted_server_sees_parameters(llm):
    assert isinstance(llm, ScriptedLLM) and llm.base_url.startswith("http://127.0.0.1:")


@pytest.mark.integration
def test_planner_query_that_cites_an_article_also_retrieves_it(react_settings):
    """«άρθρο 914 ΑΚ» in a planner query about theft: BM25 alone ranks the theft articles, the search the observer
    reads has AK::914 first (cited.with_named, the citation reader the page's lookup builds on); a query citing nothing is
    BM25's list as it is."""
    import asyncio

    from nomos.opensearch.client import make_client

    retriever = make_retriever(react_settings, "react", make_client(react_settings.cluster))
    query = "άρθρο 914 ΑΚ αφαίρεση ξένου κινητού πράγματος"
    alone = [h.doc_id for h in retriever.bm25.search(query, retriever.config.depth)]
    search, candidates = asyncio.run(retriever._search(query))
    assert search.candidates[0] == "AK::914" and candidates[0].id == "AK::914" and candidates[0].title == "Έννοια αδικοπραξίας"
    assert search.candidates[1:] == [d for d in alone if d != "AK::914"] and "PK::372" in search.candidates
    plain = "αφαίρεση ξένου κινητού πράγματος"
    assert asyncio.run(retriever._search(plain))[0].candidates == [h.doc_id for h in retriever.bm25.search(plain, retriever.config.depth)]


@pytest.mark.integration
def test_degradation_is_summarised_and_strict_fails_the_run(react_settings, mini_folder, llm, tmp_path):
    from nomos.cli import cli

    # the notebook's observer format, with an invented id in every reply: unknown ids in 100% of observer calls
    llm.script("observer", lambda info: "\n".join(["ΧΧ::1 | επινοημένο"] + [f"{d} | ναι" for d in info["candidates"][:1]]))
    env = {"OPENSEARCH_URL": react_settings.url, "NOMOS_INDEX": react_settings.index_alias,
           "NOMOS_RUNS_DIR": str(tmp_path / "runs"), "NOMOS_CACHE_DIR": str(tmp_path / "cache"),
           "NOMOS_LLM_BASE_URL": llm.base_url, "NOMOS_LLM_MODEL": "scripted", "NOMOS_REACT_ROUNDS": "2"}
    args = ["eval", "--method", "react", "--dataset", str(mini_folder)]
    lenient = CliRunner().invoke(cli, args + ["--run-name", "lenient"], env=env)
    assert lenient.exit_code == 0, lenient.output
    folder = tmp_path / "runs" / "mini" / "lenient"
    issues = json.loads((folder / "cost.json").read_text())["llm_issues"]
    observer_calls = json.loads((folder / "cost.json").read_text())["by_purpose"]["observer"]["calls"]
    assert issues["counts"]["unknown_ids"] == observer_calls and issues["counts"]["format_errors"] == 0
    assert issues["warnings"] == [f"unknown_ids: {observer_calls} of {issues['calls']} LLM calls "
                                  f"({100 * observer_calls / issues['calls']:.1f}%)"]
    assert json.loads((folder / "manifest.json").read_text())["cost"]["llm_issues"] == issues
    assert f"LLM issues in {issues['calls']} calls: unknown ids {observer_calls}" in lenient.output
    assert "warning: unknown_ids" in lenient.output
    strict = CliRunner().invoke(cli, args + ["--run-name", "strict", "--strict"], env=env)
    assert strict.exit_code == 1 and "Traceback" not in strict.output
    assert "--strict: LLM degradation above 5% of calls in run 'strict': unknown_ids:" in strict.output
    assert (tmp_path / "runs" / "mini" / "strict" / "run.trec").is_file()  # the run's files are kept


@pytest.mark.integration
def test_thinking_models_in_the_notebook_formats_run_as_cleanly_as_json(react_settings, mini, llm):
    # planner: R1-style thinking then the notebook's REASON/QUERY; observer: raw gpt-oss harmony, then the notebook's
    # '<id> | reason' lines with ids in lower case (and Latin look-alikes), never JSON
    def planner(info):
        words = " ".join(info["case"].split()[:40]) + f" γύρος {info['round']}"  # never a repeat
        return shaped("think", f"REASON:\nΣκέψη γύρου {info['round']}.\n\nQUERY:\n{words}")

    def observer(info):
        gold = set(llm.gold.get(info["case"].strip(), ()))
        lines = [f"{d.lower().replace('Α', 'A')} | ορίζει το έγκλημα" for d in info["candidates"] if d in gold]
        return shaped("harmony", "RELEVANT:\n" + "\n".join(lines) if lines else "RELEVANT: NONE")

    llm.script("planner", planner)
    llm.script("observer", observer)
    out = evaluate_method(react_settings, mini, method="react")
    assert out.evaluation.mean["recall@100"] == 1.0
    traces = [json.loads(x) for x in out.paths["traces"].read_text().splitlines()]
    for t in traces:
        assert [r["query_source"] for r in t["rounds"]] == ["planner"] * 3 and all(not r["issues"] for r in t["rounds"])
        assert [r["thought"] for r in t["rounds"]] == ["Σκέψη γύρου 1.", "Σκέψη γύρου 2.", "Σκέψη γύρου 3."]
        assert all(r["planner_reasoning"].startswith("Η υπόθεση αφορά κλοπή") for r in t["rounds"])
        assert all(reason == "Need the theft articles; maybe PK::999." for r in t["rounds"] for reason in r["observer_reasoning"])
        assert all(r["kept"] and set(r["kept"]) <= set(r["candidates"]) for r in t["rounds"])  # corpus spelling
    counts = json.loads(out.paths["cost"].read_text())["llm_issues"]["counts"]
    assert counts["reasoning_stripped"] == sum(t["calls"] for t in traces)
    assert sum(counts[k] for k in ("format_errors", "unknown_ids", "ambiguous_ids", "fallbacks", "empty_replies")) == 0
