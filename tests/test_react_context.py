"""Prompt sets and context that fits (issue 23): the two prompt sets and how a run chooses one; the token ratio
measured from a server's /tokenize and from usage.prompt_tokens; the observer budget derived from the local
server's context; a batch the server refuses as too long split in two; one article that alone does not fit
stopping the run with the setting to change; the later planner's prompt trimmed under the budget; Ollama's
context and budget in docker-compose.yml. Loops run against a real node and the scripted OpenAI-protocol server
(tests/llm_server.py), which here also answers like a server with a small context."""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from nomos.errors import ConfigError
from nomos.retrieval.llm import LLMClient, LLMConfig, LLMContextExceeded, LLMUnavailable, is_context_error
from nomos.retrieval.prompts import NAMES, PROMPT_SETS, prompt_kind, prompts_info, render
from nomos.retrieval.react import KeptStats, ReActConfig, ReActRetriever
from nomos.retrieval.react_context import (
    ServerTokenizer,
    TokenRatio,
    does_not_fit_message,
    estimate_prompt,
    is_local_endpoint,
    observer_budget,
    prompt_chars,
)
from nomos.settings import Settings
from nomos.stages.evaluation import evaluate_method
from nomos.stages.indexing import index_dataset
from tests.llm_server import ScriptedLLM, from_beir

ROOT = Path(__file__).resolve().parents[1]
CASE = "Ο Νίκος αφαίρεσε από ένα κατάστημα ξένο κινητό πράγμα.\n\nΠοια πράξη τέλεσε;"


def _all(prompt_set: str) -> dict[str, list[dict[str, str]]]:
    cands = [{"id": "PK::372", "title": "Κλοπή", "text": "Όποιος αφαιρεί ξένο κινητό πράγμα"}]
    return {
        "sparse": render("sparse", prompt_set, query=CASE),
        "dense": render("dense", prompt_set, query=CASE),
        "planner_first": render("planner_first", prompt_set, query=CASE, rounds=10),
        "planner_next": render("planner_next", prompt_set, query=CASE, previous=["κλοπή"], kept=cands, kept_total=1, round=2, rounds=10),
        "observer": render("observer", prompt_set, query=CASE, candidates=cands, batch=1, batches=1, round=1),
        "rerank": render("rerank", prompt_set, query=CASE, candidates=cands),
    }


# --------------------------------------------------------------------------------------------------- prompt sets
@pytest.mark.parametrize("prompt_set", PROMPT_SETS)
def test_each_set_renders_every_prompt_with_the_same_role_lines(prompt_set):
    kinds = {"sparse": "sparse", "dense": "dense", "planner_first": "planner", "planner_next": "planner",
             "observer": "observer", "rerank": "rerank"}
    rendered = _all(prompt_set)
    assert set(rendered) == set(NAMES)
    for name, messages in rendered.items():
        assert prompt_kind(messages) == kinds[name] and [m["role"] for m in messages] == ["system", "user"]
        assert CASE in messages[1]["content"]  # the case goes in whole
    assert "[PK::372] Κλοπή" in rendered["observer"][1]["content"] and '{"keep"' in rendered["observer"][1]["content"]
    assert '"query"' in rendered["planner_first"][1]["content"] and '"ranking"' in rendered["rerank"][1]["content"]
    info = prompts_info(prompt_set)
    assert info["set"] == prompt_set and len(info["hash"]) == 64 and set(info["files"]) == {f"{n}.j2" for n in NAMES}


def test_the_sets_differ_and_say_what_they_promise():
    neutral, paper = _all("neutral"), _all("paper")
    assert prompts_info("neutral")["hash"] != prompts_info("paper")["hash"]
    assert prompts_info() == prompts_info("neutral")  # the default set
    # neutral: every area named where the model is told what it is; the observer keeps what may apply, not just
    # "penalties", and keeps when in doubt
    for name in ("sparse", "dense", "planner_first", "planner_next"):
        system = neutral[name][0]["content"]
        assert all(area in system for area in ("αστικό", "εμπορικό", "δικονομικό", "δημόσιο", "ποινικό")), name
    observer = neutral["observer"][1]["content"]
    assert "Όταν αμφιβάλλεις, κράτησέ το" in observer and "ποινές" not in observer
    assert "συναφή εγκλήματα" not in neutral["planner_next"][1]["content"]
    # paper: a worked example in every prompt, an inclusive observer, a planner told not to invent ids
    for name, messages in paper.items():
        assert "Παράδειγμα" in messages[1]["content"], name
    assert "με γενναιοδωρία" in paper["observer"][0]["content"]
    for name in ("planner_first", "planner_next"):
        assert "μην τα μαντεύεις" in paper[name][0]["content"]


def test_unknown_set_is_a_config_error_naming_the_setting():
    with pytest.raises(ConfigError, match="NOMOS_PROMPTS / --prompts.*neutral, paper"):
        render("sparse", "strict", query=CASE)
    with pytest.raises(ConfigError, match="NOMOS_PROMPTS"):
        prompts_info("strict")
    assert Settings.from_env({"NOMOS_PROMPTS": "paper"}).prompts == "paper" and Settings().prompts == "neutral"
    with pytest.raises(ValueError, match="NOMOS_PROMPTS='strict': must be one of neutral, paper"):
        Settings.from_env({"NOMOS_PROMPTS": "strict"})


def test_cli_offers_prompts_on_eval_and_search(tmp_path):
    from nomos.cli import cli

    for verb in ("eval", "search"):
        out = CliRunner().invoke(cli, [verb, "--help"])
        assert out.exit_code == 0 and "--prompts [neutral|paper]" in out.output, verb
    bad = CliRunner().invoke(cli, ["search", "κλοπή", "--method", "react", "--prompts", "strict"],
                             env={"NOMOS_CACHE_DIR": str(tmp_path)})
    assert bad.exit_code == 2 and "'strict' is not one of 'neutral', 'paper'" in bad.output


def test_planner_history_shows_the_latest_queries_with_their_round_numbers():
    msgs = render("planner_next", "neutral", query=CASE, previous=["γ", "δ"], previous_total=4, kept=[], kept_total=0,
                  round=5, rounds=10)
    user = msgs[1]["content"]
    assert "(τα τελευταία 2 από 4)" in user and "- Γύρος 3: γ" in user and "- Γύρος 4: δ" in user
    assert "Γύρος 1:" not in user


# --------------------------------------------------------------------------------------------------- token ratio
def test_token_ratio_only_goes_down_with_a_margin():
    r = TokenRatio()
    assert (r.chars_per_token, r.source) == (2.5, "default")
    r.observe(1000, 250, "usage")  # 4 chars a token: looser than the default, ignored
    assert (r.chars_per_token, r.source) == (2.5, "default")
    r.observe(1200, 1000, "tokenize")  # 1.2 chars a token, used 10% lower
    assert (r.chars_per_token, r.source) == (1.08, "tokenize")
    r.observe(0, 10, "usage")
    r.observe(100, 0, "usage")  # a cached or usage-less reply says nothing
    assert r.chars_per_token == 1.08
    msgs = [{"role": "system", "content": "α" * 10}, {"role": "user", "content": "β" * 15}]
    assert prompt_chars(msgs) == 25 and estimate_prompt(msgs, 2.5) == 10 and estimate_prompt(msgs, 1.08) == 24


@pytest.mark.parametrize("shape", ["llama.cpp", "vllm", None])
def test_server_tokenizer_reads_llama_cpp_and_vllm_and_gives_up_on_others(shape):
    with ScriptedLLM(tokenize=shape, chars_per_token=1.25) as server:
        tok = ServerTokenizer(server.base_url, "m")
        assert tok.url == server.base_url[: -len("/v1")] + "/tokenize"
        first = tok.count("α" * 100)
        second = tok.count("β" * 50)
        if shape is None:  # 404 at /tokenize: asked once (both request shapes), never again
            assert first is None and second is None and tok.supported is False
        else:
            assert first == 80 and second == 40 and tok.supported is True
            assert server.count("tokenize") == 2


def test_server_tokenizer_on_a_dead_port_is_unsupported():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    tok = ServerTokenizer(f"http://127.0.0.1:{port}/v1", "m", timeout=2)
    assert tok.count("κείμενο") is None and tok.supported is False


# --------------------------------------------------------------------------------------------------- budget
def test_observer_budget_defaults_to_the_local_servers_context():
    local = Settings(llm_base_url="http://127.0.0.1:8090/v1", llm_model="m", llm_port=8090, llm_ctx=4096)
    assert is_local_endpoint(local.llm) and observer_budget(local) == 4096 - 512
    assert observer_budget(local.model_copy(update={"llm_max_tokens": 1024})) == 4096 - 1024  # the larger room
    assert observer_budget(local.model_copy(update={"llm_reply_room": 96})) == 4000
    assert observer_budget(local.model_copy(update={"react_observer_budget": 3000})) == 3000  # set wins
    remote = Settings(llm_base_url="http://gpu-box:8000/v1", llm_model="m", llm_port=8090)
    assert not is_local_endpoint(remote.llm) and observer_budget(remote) is None
    other_port = Settings(llm_base_url="http://127.0.0.1:8000/v1", llm_model="m", llm_port=8090)
    assert not is_local_endpoint(other_port.llm)


def test_react_config_takes_the_derived_budget_and_planner_limits():
    from nomos.retrieval.registry import react_config

    settings = Settings(llm_base_url="http://127.0.0.1:8090/v1", llm_model="m", llm_port=8090, llm_ctx=4096,
                        react_planner_kept=5, react_planner_history=3, react_planner_article_chars=200, prompts="paper")
    c = react_config(settings)
    assert (c.observer_budget, c.local_ctx, c.planner_kept, c.planner_history, c.planner_article_chars, c.prompts) == (
        3584, 4096, 5, 3, 200, "paper")
    remote = react_config(settings.model_copy(update={"llm_base_url": "http://gpu-box:8000/v1"}))
    assert remote.observer_budget == ReActConfig().observer_budget and remote.local_ctx is None


def test_does_not_fit_message_names_the_settings():
    msg = does_not_fit_message("the observer prompt for PK::372 alone", 3584, 4096)
    assert msg.startswith("the observer prompt for PK::372 alone does not fit the model's context")
    assert "NOMOS_REACT_OBSERVER_BUDGET (now 3584" in msg and "NOMOS_LLM_CTX (now 4096)" in msg
    assert "NOMOS_LLM_CTX" not in does_not_fit_message("the planner prompt of round 2", 84000, None)


@pytest.mark.parametrize(("status", "texts", "expected"), [
    (400, ("context_length_exceeded", "This model's maximum context length is 8192 tokens."), True),  # OpenAI
    (400, (None, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens"), True),  # vLLM
    (400, ("exceed_context_size_error", "the request exceeds the available context size, try increasing it"), True),  # llama.cpp
    (400, ("invalid_request_error", "Unsupported parameter: 'temperature'"), False),
    (500, ("the request exceeds the available context size",), False),
])
def test_context_errors_are_recognised(status, texts, expected):
    assert is_context_error(status, *texts) is expected


def test_client_raises_context_exceeded_and_caches_nothing(tmp_path):
    with ScriptedLLM(context=50) as server:
        client = LLMClient(LLMConfig(base_url=server.base_url, model="m", retries=2, cache_path=tmp_path / "c.sqlite"))
        long = [{"role": "system", "content": "Ρόλος: παρατηρητής."}, {"role": "user", "content": "α" * 400}]

        async def ask():
            try:
                return await client.chat(long, "observer")
            finally:
                await client.aclose()

        with pytest.raises(LLMContextExceeded, match="observer prompt does not fit the model's context: HTTP 400"):
            asyncio.run(ask())
        assert server.count() == 1 and client.retried == 0  # a refusal: not retried
        with pytest.raises(LLMContextExceeded):
            asyncio.run(ask())
        assert server.count() == 2  # not cached: asked again
        server.inject("400")  # an ordinary 400 stays an ordinary refusal
        with pytest.raises(LLMUnavailable) as err:
            asyncio.run(ask())
        assert not isinstance(err.value, LLMContextExceeded)


def test_planner_prompt_is_trimmed_under_the_budget():
    llm = LLMClient(LLMConfig(base_url="http://127.0.0.1:9/v1", model="m"))
    config = ReActConfig(observer_budget=100_000, planner_kept=27, planner_history=4, planner_article_chars=1500)
    r = ReActRetriever(bm25=None, llm=llm, config=config)  # type: ignore[arg-type]  # nothing is searched here
    kept = {f"AK::{i}": KeptStats([1], i) for i in range(1, 31)}
    r._articles.update({d: (f"Τίτλος {d}", "κείμενο άρθρου " * 200) for d in kept})  # texts as if fetched
    previous = [f"ερώτημα {i}" for i in range(1, 8)]
    full = r._planner_messages(CASE, 8, previous, kept, 2.5)
    user = full[1]["content"]
    assert user.count("[AK::") == 27 and "(27 από 30)" in user  # planner_kept
    assert "- Γύρος 4:" in user and "- Γύρος 7: ερώτημα 7" in user and "- Γύρος 3:" not in user  # planner_history
    small = replace(config, observer_budget=2_000)
    r.config = small
    trimmed = r._planner_messages(CASE, 8, previous, kept, 2.5)
    assert estimate_prompt(trimmed, 2.5) <= 2_000 < estimate_prompt(full, 2.5)
    assert 0 < trimmed[1]["content"].count("[AK::") < 27 and "- Γύρος 7: ερώτημα 7" in trimmed[1]["content"]
    r.config = replace(config, observer_budget=400)  # not even one article fits: none shown, then the oldest queries go
    bare = r._planner_messages(CASE, 8, previous, kept, 2.5)
    assert "[AK::" not in bare[1]["content"] and "- Γύρος 7: ερώτημα 7" in bare[1]["content"]


# --------------------------------------------------------------------------------------------------- compose
def test_compose_ollama_reads_its_context_and_the_budget_fits_it():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    for name in ("ollama", "ollama-pull"):
        tag = compose["services"][name]["image"].split(":")[1]
        assert tuple(int(x) for x in tag.split(".")) >= (0, 5, 13), name  # OLLAMA_CONTEXT_LENGTH is read since 0.5.13
    env = dict(e.split("=", 1) for e in compose["services"]["ollama"]["environment"])
    context = int(env["OLLAMA_CONTEXT_LENGTH"])
    nomos_env = compose["x-nomos-ollama"]
    settings = Settings.from_env({k: str(v) for k, v in nomos_env.items()})
    budget = observer_budget(settings)
    assert budget is not None and budget + settings.llm_reply_room < context  # the prompt and its reply fit
    assert settings.llm_model == compose["services"]["ollama-pull"]["entrypoint"][-1]  # the model that is pulled
    assert re.search(rf"NOMOS_REACT_OBSERVER_BUDGET={budget}\b", (ROOT / "docker-compose.yml").read_text())


# --------------------------------------------------------------------------------------------------- loops
def _settings(os_settings, server: ScriptedLLM, **kw):
    """Each server its own reply cache (the cache key has no endpoint before issue 23's part A), so every run asks."""
    cache = os_settings.cache_dir / f"llm-{server.base_url.rsplit(':', 1)[1].split('/')[0]}"
    values = {"llm_base_url": server.base_url, "llm_model": "scripted", "react_rounds": 2, "llm_retries": 1,
              "llm_concurrency": 2, "cache_dir": cache, **kw}
    return os_settings.with_overrides(**values)


def _traces(out) -> list[dict]:
    return [json.loads(x) for x in out.paths["traces"].read_text().splitlines()]


@pytest.mark.integration
def test_a_batch_over_the_context_is_split_and_nothing_is_lost(os_settings, mini, mini_folder):
    index_dataset(os_settings, mini)
    with from_beir(mini_folder, noise=False) as plain:
        reference = evaluate_method(_settings(os_settings, plain), mini, method="react", run_name="plain")
    # a server that refuses, as over its context, every observer prompt of more than 2 articles
    with from_beir(mini_folder, noise=False) as small:
        small.fault_for = lambda info: "context" if info["kind"] == "observer" and len(info["candidates"]) > 2 else None
        out = evaluate_method(_settings(os_settings, small), mini, method="react", run_name="split")
        refused = [r for r in small.requests if r["fault"] == "context"]
        assert refused and all(r["kind"] == "observer" for r in refused)
    for t in _traces(out):
        for rnd in t["rounds"]:
            splits = [i for i in rnd["issues"] if i["kind"] == "context_split"]
            assert sum(rnd["batches"]) == len(rnd["candidates"])  # every candidate was read, in smaller batches
            if len(rnd["batches"]) > 1:
                assert splits and all(s["into"][0] + s["into"][1] == s["size"] for s in splits)
    assert any(i["kind"] == "context_split" for t in _traces(out) for r in t["rounds"] for i in r["issues"])
    assert out.evaluation.mean["recall@100"] == reference.evaluation.mean["recall@100"] == 1.0
    def ranking(o) -> list[list[str]]:  # the run file without its run-name column
        return [line.split()[:5] for line in o.paths["trec"].read_text().splitlines()]

    assert ranking(out) == ranking(reference)  # the same ranking, read in smaller batches


@pytest.mark.integration
def test_one_article_over_the_context_stops_naming_the_budget(os_settings, mini, mini_folder):
    index_dataset(os_settings, mini)
    with from_beir(mini_folder) as tiny:
        tiny.fault_for = lambda info: "context" if info["kind"] == "observer" else None
        with pytest.raises(LLMContextExceeded, match=r"the observer prompt for \S+ alone does not fit the model's "
                                                     r"context: lower NOMOS_REACT_OBSERVER_BUDGET \(now 50000 estimated"):
            evaluate_method(_settings(os_settings, tiny, react_observer_budget=50_000, react_rounds=1), mini,
                            method="react", run_name="tiny")
    with from_beir(mini_folder, context=100) as small:  # the planner's first prompt is over the context
        with pytest.raises(LLMContextExceeded, match=r"the planner prompt of round 1 does not fit.*NOMOS_REACT_OBSERVER_BUDGET"):
            evaluate_method(_settings(os_settings, small, react_rounds=1), mini, method="react", run_name="small")


@pytest.mark.integration
@pytest.mark.parametrize("tokenize", ["llama.cpp", None])
def test_measured_ratio_keeps_batches_under_a_small_tokenizers_context(os_settings, mini, mini_folder, tokenize):
    """A server whose tokenizer reads 1 character a token (the 2.5 default would size batches 2.5x too big): with
    the case counted by /tokenize, or the planner's usage.prompt_tokens, every observer prompt fits the first time."""
    index_dataset(os_settings, mini)
    with from_beir(mini_folder, context=1500, chars_per_token=1.0, tokenize=tokenize) as server:
        out = evaluate_method(_settings(os_settings, server, react_observer_budget=1400), mini, method="react",
                              run_name=f"ratio-{tokenize}")
        assert [r for r in server.requests if r["fault"] == "context"] == []
        observer = [r for r in server.requests if r["kind"] == "observer"]
        assert observer and max(r["prompt_tokens"] for r in observer) <= 1400
        assert server.count("tokenize") == (2 if tokenize else 0)  # the two cases counted once each
    for t in _traces(out):
        assert all(not any(i["kind"] == "context_split" for i in r["issues"]) for r in t["rounds"])
        assert all(sum(r["batches"]) == len(r["candidates"]) for r in t["rounds"])
    assert out.evaluation.mean["recall@100"] == 1.0


@pytest.mark.integration
def test_paper_prompts_run_end_to_end_and_the_manifest_records_the_set(os_settings, mini, mini_folder):
    index_dataset(os_settings, mini)
    with from_beir(mini_folder) as server:
        out = evaluate_method(_settings(os_settings, server, prompts="paper"), mini, method="react", run_name="paper")
    manifest = json.loads(out.paths["manifest"].read_text())
    assert manifest["prompts_set"] == "paper" == manifest["method"]["prompts"]["set"]
    assert manifest["prompts_hash"] == prompts_info("paper")["hash"] != prompts_info("neutral")["hash"]
    assert out.evaluation.mean["recall@100"] == 1.0
