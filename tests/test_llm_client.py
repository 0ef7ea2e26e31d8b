"""The LLM client through the real ``openai`` package against the scripted server: replies, accounting,
retries on 429 / 500 / timeouts / dropped connections, fatal refusals, the reply cache, the concurrency bound,
checkpoints, settings and prompts. No OpenSearch needed."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path

import pytest

from nomos.retrieval.llm import (
    Checkpoint,
    Cost,
    LLMClient,
    LLMConfig,
    LLMNotConfigured,
    LLMUnavailable,
    Reply,
    ReplyCache,
    cache_key,
    cost_table,
    make_llm_client,
    run_bounded,
    run_checkpointed,
    text_sha,
)
from nomos.retrieval.prompts import NAMES, prompt_kind, prompts_info, render
from nomos.settings import Settings
from tests.llm_server import PLANNER, chat, client


def test_reply_usage_and_parameters(server):
    c = client(server, reasoning_effort="low", max_tokens=512)
    r = chat(c)
    assert json.loads(r.text)["query"].startswith("Ο Νίκος")
    assert r.input_tokens > 50 and r.output_tokens > 5 and r.seconds > 0 and not r.cached and r.attempts == 1
    params = server.requests[0]["params"]
    assert params["temperature"] == 0.2 and params["reasoning_effort"] == "low" and params["max_tokens"] == 512
    assert params["model"] == "scripted"


def test_unset_parameters_are_not_sent(server):
    chat(client(server))
    assert server.requests[0]["params"] == {"model": "scripted", "temperature": 0.2, "top_p": 1.0}


@pytest.mark.parametrize("fault", ["429", "500", "drop", "timeout:1.5"])
def test_transient_faults_are_retried(server, fault):
    server.inject(fault, fault)
    c = client(server, timeout=0.5)
    r = chat(c)
    assert r.attempts == 3 and c.retried == 2 and c.paid_calls == 1
    assert [q["fault"] for q in server.requests] == [fault, fault, None]


def test_retries_exhausted_stop_with_a_clear_message(server):
    server.inject(*["500"] * 10)
    with pytest.raises(LLMUnavailable, match=r"failed 4 times on a planner call; last error: HTTP 500"):
        chat(client(server))
    assert server.count() == 4


@pytest.mark.parametrize("status", ["400", "401", "404"])
def test_refusals_are_not_retried(server, status):
    server.inject(status, status)
    with pytest.raises(LLMUnavailable, match=rf"refused a planner call for model scripted: HTTP {status}"):
        chat(client(server))
    assert server.count() == 1


def test_dead_endpoint_fails_fast():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    c = LLMClient(LLMConfig(base_url=f"http://127.0.0.1:{port}/v1", model="m", retries=2, backoff=0.01))
    started = time.perf_counter()
    with pytest.raises(LLMUnavailable, match=rf"127.0.0.1:{port}/v1 .*failed 3 times.*APIConnectionError"):
        chat(c)
    assert time.perf_counter() - started < 10


def test_cache_replays_without_calling(server, tmp_path):
    first = chat(client(server, tmp_path))
    again_client = client(server, tmp_path)
    again = chat(again_client)
    assert server.count() == 1 and again.cached and again_client.paid_calls == 0
    assert (again.text, again.input_tokens, again.output_tokens, again.seconds) == (first.text, first.input_tokens, first.output_tokens, first.seconds)
    chat(client(server, tmp_path, temperature=0.7))  # other parameters: another key
    assert server.count() == 2
    assert len(ReplyCache(tmp_path / "llm.sqlite")) == 2


def test_cache_key_covers_model_messages_and_parameters():
    base = cache_key("m", PLANNER, {"temperature": 0.2})
    assert base == cache_key("m", PLANNER, {"temperature": 0.2})
    assert base != cache_key("m2", PLANNER, {"temperature": 0.2})
    assert base != cache_key("m", PLANNER[:1], {"temperature": 0.2})
    assert base != cache_key("m", PLANNER, {"temperature": 0.2, "reasoning_effort": "low"})


def test_requests_in_flight_are_bounded(server):
    server.delay = 0.1
    c = client(server, concurrency=3)

    async def go() -> list[Reply]:
        msgs = [render("planner_first", query=f"υπόθεση {i}", rounds=10) for i in range(9)]
        try:
            return await asyncio.gather(*(c.chat(m, "planner") for m in msgs))
        finally:
            await c.aclose()

    started = time.perf_counter()
    replies = asyncio.run(go())
    assert len(replies) == 9 and server.max_in_flight == 3
    assert time.perf_counter() - started >= 0.3  # three waves of three


def test_empty_content_is_an_empty_reply(server):
    server.script("planner", lambda info: "")
    assert chat(client(server)).text == ""


def test_cost_accounting_and_table():
    cost = Cost()
    cost.add(Reply("a", 100, 10, 0.5), "planner")
    cost.add(Reply("b", 300, 20, 1.5, cached=True), "observer")
    d = cost.to_dict()
    assert d["calls"] == 2 and d["cached_calls"] == 1 and d["input_tokens"] == 400 and d["output_tokens"] == 30
    assert d["by_purpose"]["observer"] == {"calls": 1, "input_tokens": 300, "output_tokens": 20, "llm_seconds": 1.5}
    table = cost_table({"q1": {**d, "seconds": 3.0}, "q2": {**d, "seconds": 1.0}}, wall_seconds=3.5)
    assert table["total"]["calls"] == 4 and table["mean_per_query"]["input_tokens"] == 400
    assert table["mean_per_query"]["seconds"] == 2.0 and table["by_purpose"]["planner"]["calls"] == 2


def test_checkpoint_resumes_and_ignores_a_torn_line(tmp_path):
    path = tmp_path / "checkpoint.jsonl"
    ck = Checkpoint(path)
    ck.add({"query_id": "q1", "x": 1})
    ck.add({"query_id": "q2", "x": 2})
    with path.open("a") as fh:
        fh.write('{"query_id": "q3", "x"')  # a crash mid-line
    resumed = Checkpoint(path, resume=True)
    assert set(resumed.done) == {"q1", "q2"}
    resumed.add({"query_id": "q3", "x": 3})
    assert set(Checkpoint(path, resume=True).done) == {"q1", "q2", "q3"}
    assert Checkpoint(path).done == {} and path.read_text() == ""  # a fresh run starts over


def test_run_bounded_stops_everything_at_the_first_error():
    started: list[int] = []

    async def work(i: int) -> None:
        started.append(i)
        await asyncio.sleep(0.05)
        if i == 1:
            raise LLMUnavailable("dead")
        await asyncio.sleep(5)

    t = time.perf_counter()
    with pytest.raises(LLMUnavailable):
        asyncio.run(run_bounded(list(range(10)), work, 2))
    assert time.perf_counter() - t < 2 and len(started) <= 3



def _run_checkpointed(queries, work, path, *, signature="s1", resume=False, ticks=None, concurrency=2):
    idle = LLMClient(LLMConfig("http://127.0.0.1:9/v1", "m"))  # never called: the harness only closes it
    return asyncio.run(run_checkpointed(queries, work, signature=signature, llm=idle, checkpoint=path, resume=resume,
                                        concurrency=concurrency, on_progress=ticks.append if ticks is not None else None))


def test_checkpointed_run_records_resumes_and_redoes_what_changed(tmp_path):
    path = tmp_path / "checkpoint.jsonl"
    done: list[str] = []

    async def work(qid: str, text: str) -> dict:
        done.append(qid)
        return {"answer": text.upper(), "cost": {"calls": 1, "input_tokens": len(text)}}

    queries = {"q1": "ένα", "q2": "δύο"}
    run = _run_checkpointed(queries, work, path)
    assert run.resumed == 0 and list(run.records) == ["q1", "q2"] and sorted(done) == ["q1", "q2"]
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    # the line format every LLM method's checkpoint has: the harness's keys around the method's record
    assert sorted(lines, key=lambda r: r["query_id"])[0] == {
        "query_id": "q1", "text_sha": text_sha("ένα"), "answer": "ΈΝΑ", "cost": {"calls": 1, "input_tokens": 3},
        "signature": "s1"}
    assert all(list(r) == ["query_id", "text_sha", "answer", "cost", "signature"] for r in lines)
    idle = LLMClient(LLMConfig("http://127.0.0.1:9/v1", "m"))
    costs = run.costs(idle, 1.0)
    assert costs["total"]["calls"] == 2 and costs["resumed_queries"] == 0 and costs["paid_calls_this_run"] == 0

    done.clear()
    ticks: list[int] = []
    again = _run_checkpointed({"q1": "ένα", "q2": "δύο", "q3": "τρία"}, work, path, resume=True, ticks=ticks)
    assert done == ["q3"] and again.resumed == 2 and ticks == [1, 1, 1] and list(again.records) == ["q1", "q2", "q3"]
    done.clear()
    changed = _run_checkpointed({"q1": "ένα", "q2": "άλλο", "q3": "τρία"}, work, path, resume=True)
    assert done == ["q2"] and changed.records["q2"]["answer"] == "ΆΛΛΟ"  # a changed text is redone
    done.clear()
    _run_checkpointed({"q1": "ένα"}, work, path, signature="s2", resume=True)
    assert done == ["q1"]  # another signature: redone
    done.clear()
    _run_checkpointed({"q1": "ένα"}, work, path, signature="s2")
    assert done == ["q1"]  # no resume: a fresh run


def test_checkpointed_run_keeps_finished_queries_when_one_fails(tmp_path):
    path = tmp_path / "checkpoint.jsonl"

    async def work(qid: str, text: str) -> dict:
        if qid == "q2":
            raise LLMUnavailable("dead")
        return {"cost": {}}

    with pytest.raises(LLMUnavailable, match="dead"):
        _run_checkpointed({"q1": "a", "q2": "b"}, work, path, concurrency=1)
    assert [json.loads(x)["query_id"] for x in path.read_text().splitlines()] == ["q1"]

def test_settings_from_environment():
    s = Settings.from_env({"NOMOS_LLM_BASE_URL": "http://h:8000/v1", "NOMOS_LLM_MODEL": "gpt-oss-120b", "OPENAI_API_KEY": "k1",
                           "NOMOS_LLM_REASONING_EFFORT": "low", "NOMOS_LLM_CONCURRENCY": "8", "NOMOS_REACT_ROUNDS": "5",
                           "NOMOS_LLM_MAX_TOKENS": "2048", "NOMOS_CACHE_DIR": "/tmp/c"})
    assert (s.llm_base_url, s.llm_model, s.llm_api_key, s.llm_reasoning_effort) == ("http://h:8000/v1", "gpt-oss-120b", "k1", "low")
    assert (s.llm_concurrency, s.react_rounds, s.llm_max_tokens, s.llm_temperature) == (8, 5, 2048, 0.2)
    assert s.llm_cache == Path("/tmp/c/llm.sqlite")
    assert Settings.from_env({"OPENAI_API_KEY": "k1", "NOMOS_LLM_API_KEY": "k2"}).llm_api_key == "k2"
    with pytest.raises(ValueError, match="NOMOS_LLM_CONCURRENCY"):
        Settings.from_env({"NOMOS_LLM_CONCURRENCY": "many"})


def test_unconfigured_client_names_the_settings():
    with pytest.raises(LLMNotConfigured, match="NOMOS_LLM_BASE_URL.*NOMOS_LLM_MODEL"):
        make_llm_client(Settings().llm, "react", Settings().llm_cache)


def test_prompts_render_greek_and_hash_every_template():
    info = prompts_info()
    assert len(info["hash"]) == 64 and set(info["files"]) == {f"{n}.j2" for n in NAMES}
    assert prompts_info() == info
    kinds = {
        "sparse": render("sparse", query="Υπόθεση"),
        "dense": render("dense", query="Υπόθεση"),
        "planner": render("planner_next", query="Υπόθεση", previous=["κλοπή"], kept=[], kept_total=0, round=2, rounds=10),
        "observer": render("observer", query="Υπόθεση", candidates=[{"id": "PK::372", "title": "Κλοπή", "text": "Όποιος"}],
                           batch=1, batches=1, round=1),
    }
    for kind, messages in kinds.items():
        assert prompt_kind(messages) == kind and [m["role"] for m in messages] == ["system", "user"]
        assert "Υπόθεση" in messages[1]["content"]
    assert "[PK::372] Κλοπή" in kinds["observer"][1]["content"]
    from jinja2 import UndefinedError

    with pytest.raises(UndefinedError):
        render("observer", query="x")
