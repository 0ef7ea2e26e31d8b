"""Reply hygiene, lenient exact parsing and endpoint families (issue 23), each shape a real server sends answered by
the scripted server through the real ``openai`` client, each with its exact outcome: what the parser read, what was
counted, whether the call was retried and whether the reply was cached. No OpenSearch needed."""

from __future__ import annotations

import json
import time

import pytest

from nomos.retrieval.llm import (
    Cost,
    IdMatcher,
    LLMConfig,
    LLMContextExceeded,
    LLMUnavailable,
    Reply,
    ReplyCache,
    clean_reply,
    cost_table,
    degradation_warnings,
    run_issues,
)
from nomos.retrieval.prompts import render
from nomos.retrieval.react_parts import parse_observer, parse_planner
from nomos.retrieval.reformulate import parse_sparse
from nomos.retrieval.rerank import read_ranking
from nomos.settings import Settings
from tests.llm_server import ScriptedLLM, Shape, chat, client, shaped

BATCH = ["PK::372", "PK::386Α", "PK::374", "AK::914", "N_4624_2019::21"]
KEEP = '{"keep": [{"id": "PK::372", "reason": "κλοπή"}]}'




# --------------------------------------------------------------------------------------------------- hygiene
@pytest.mark.parametrize(("raw", "text", "reasoning"), [
    (shaped("think", KEEP), KEEP, 'Η υπόθεση αφορά κλοπή· {"keep": []} δεν είναι η απάντηση.'),
    (shaped("think_closed_only", KEEP), KEEP, "Σκέφτομαι τα άρθρα..."),
    (shaped("think_unclosed", KEEP), "", "Σκέφτομαι ακόμη για το άρθρο PK::372 και"),
    (shaped("harmony", KEEP), KEEP, "Need the theft articles; maybe PK::999."),
    ("<|channel|>analysis<|message|>still thinking", "", "still thinking"),  # harmony cut before the final channel
    (shaped("fence", KEEP), KEEP, ""),
    ("  κλοπή, απάτη  ", "κλοπή, απάτη", ""),
])
def test_clean_reply_separates_answer_and_reasoning(raw, text, reasoning):
    assert clean_reply(raw) == type(clean_reply(""))(text, reasoning)


def test_a_reasoning_field_is_kept_before_the_thinking_text():
    assert clean_reply("<think>β</think>γ", "α").reasoning == "α\n\nβ"


@pytest.mark.parametrize("shape", ["think", "think_closed_only", "harmony", "fence"])
def test_shapes_through_the_client_parse_as_plain_json(server, tmp_path, shape):
    server.script("observer", lambda info: shaped(shape, KEEP))
    messages = render("observer", query="υπόθεση", candidates=[{"id": "PK::372", "title": "Κλοπή", "text": "κείμενο"}],
                      batch=1, batches=1, round=1)
    reply = chat(client(server, tmp_path), messages, "observer")
    assert reply.text == KEEP and reply.finish_reason == "stop" and reply.regenerated is None
    assert bool(reply.reasoning) == (shape != "fence")
    assert parse_observer(reply.text, BATCH) == ({"PK::372": "κλοπή"}, [])
    again = chat(client(server, tmp_path), messages, "observer")
    assert again.cached and again.reasoning == reply.reasoning and server.count() == 1  # a good reply is cached


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_fields_are_kept_never_parsed(server, field):
    server.script("planner", lambda info: Shape('{"query": "κλοπή"}', **{field: '{"query": "ΛΑΘΟΣ"}'}))
    reply = chat(client(server))
    assert (reply.text, reasoning := reply.reasoning) == ('{"query": "κλοπή"}', '{"query": "ΛΑΘΟΣ"}')
    assert parse_planner(reply.text)[0] == "κλοπή" and reasoning
    cost = Cost()
    cost.add(reply, "planner")
    assert cost.issues == {"reasoning_stripped": 1}


# --------------------------------------------------------------------------------------------------- bad replies
@pytest.mark.parametrize(("first", "problem"), [
    (Shape(""), "empty"),
    (Shape(None), "empty"),
    (Shape(shaped("think_unclosed", "")), "empty"),  # only thinking: no answer
    (Shape('{"query": "κλο', finish_reason="length"), "length"),
    (Shape("", finish_reason="content_filter"), "content_filter"),
])
def test_a_bad_reply_is_asked_once_more_with_twice_the_room_and_only_the_good_one_cached(server, tmp_path, first, problem):
    answers = [first, Shape('{"query": "κλοπή"}')]
    server.script("planner", lambda info: answers.pop(0))
    reply = chat(client(server, tmp_path, max_tokens=300))
    assert reply.text == '{"query": "κλοπή"}' and reply.regenerated == problem and reply.problem is None
    assert [r["params"]["max_tokens"] for r in server.requests] == [300, 600] and reply.attempts == 2
    assert len(ReplyCache(tmp_path / "llm.sqlite")) == 1
    again = chat(client(server, tmp_path, max_tokens=300))
    assert again.cached and server.count() == 2
    # the cost sums both calls; the prompt's own size is one call's (ReAct's characters-a-token ratio reads it)
    sizes = [r["prompt_tokens"] for r in server.requests]
    assert reply.input_tokens == sum(sizes) and reply.prompt_size == sizes[-1] and again.prompt_size == sizes[-1]


@pytest.mark.parametrize(("shape", "problem", "kind"), [
    (Shape(""), "empty", "empty_replies"),
    (Shape("κλοπή απάτη υπεξαί", finish_reason="length"), "length", "truncations"),
    (Shape("Δεν μπορώ να απαντήσω.", finish_reason="content_filter"), "content_filter", "content_filtered"),
])
def test_a_reply_still_bad_is_returned_counted_and_never_cached(server, tmp_path, shape, problem, kind):
    server.script("planner", lambda info: shape)
    reply = chat(client(server, tmp_path))  # no max_tokens set: the retry asks for retry_max_tokens
    assert reply.problem == problem and reply.regenerated == problem
    assert [r["params"].get("max_tokens") for r in server.requests] == [None, 8192]
    assert len(ReplyCache(tmp_path / "llm.sqlite")) == 0
    chat(client(server, tmp_path))
    assert server.count() == 4  # not cached: asked again (and retried again)
    cost = Cost()
    cost.add(reply, "planner")
    assert cost.issues == {kind: 1, "regenerated": 1}


# --------------------------------------------------------------------------------------------------- errors
def test_quota_429_is_not_retried_and_names_the_quota(server):
    server.inject("quota", "quota")
    c = client(server)
    with pytest.raises(LLMUnavailable, match=r"quota is used up \(insufficient_quota; not retried"):
        chat(c)
    assert server.count() == 1 and c.retried == 0


def test_context_length_400_is_not_retried_and_names_the_budget(server):
    server.inject("context")
    with pytest.raises(LLMContextExceeded, match=r"does not fit the model's context: HTTP 400: .*maximum context length "
                                                 r"is 4096 tokens.*; lower NOMOS_REACT_OBSERVER_BUDGET"):
        chat(client(server))
    assert server.count() == 1
    server.inject("400")  # another 400: a plain refusal, not a context error
    with pytest.raises(LLMUnavailable) as refused:
        chat(client(server))
    assert not isinstance(refused.value, LLMContextExceeded)


def test_retry_after_is_honoured_beyond_the_backoff_cap(server):
    server.inject("retry-after:1.2")
    c = client(server, backoff_cap=0.05)
    started = time.perf_counter()
    reply = chat(c)
    assert time.perf_counter() - started >= 1.2 and reply.attempts == 2 and c.retried == 1


def test_retry_after_is_capped_by_retry_after_max(server):
    server.inject("retry-after:3600")
    c = client(server, retry_after_max=0.1)
    started = time.perf_counter()
    assert chat(c).attempts == 2
    assert time.perf_counter() - started < 60  # waited retry_after_max, not the hour asked for


def test_cache_key_names_the_endpoint(tmp_path):
    with ScriptedLLM() as one, ScriptedLLM() as two:
        chat(client(one, tmp_path))
        assert not chat(client(two, tmp_path)).cached and two.count() == 1  # another server: a fresh call
        assert chat(client(one, tmp_path)).cached and one.count() == 1


# --------------------------------------------------------------------------------------------------- families
@pytest.mark.parametrize(("kw", "sent"), [
    ({}, {"temperature": 0.2, "top_p": 1.0}),
    ({"max_tokens": 100}, {"temperature": 0.2, "top_p": 1.0, "max_tokens": 100}),
    ({"model": "gpt-oss-120b"}, {"temperature": 0.2, "top_p": 1.0, "reasoning_effort": "low"}),
    ({"model": "openai/gpt-oss-20b", "reasoning_effort": "none"}, {"temperature": 0.2, "top_p": 1.0}),
    ({"model": "qwen3:8b", "reasoning_effort": "high"}, {"temperature": 0.2, "top_p": 1.0, "reasoning_effort": "high"}),
    ({"temperature": None, "top_p": None}, {}),
    ({"model": "o3-mini", "max_tokens": 100}, {"max_completion_tokens": 100}),
    ({"model": "gpt-5", "max_tokens": 100, "reasoning_effort": "low"}, {"reasoning_effort": "low", "max_completion_tokens": 100}),
    ({"model": "gpt-4o", "max_tokens": 100, "token_param": "max_completion_tokens"},
     {"temperature": 0.2, "top_p": 1.0, "max_completion_tokens": 100}),
])
def test_parameters_by_endpoint_family(kw, sent):
    assert LLMConfig(**{"base_url": "http://h/v1", "model": "m", **kw}).params() == sent


def test_family_parameters_reach_the_server(server):
    chat(client(server, model="o4-mini", max_tokens=64))
    assert server.requests[0]["params"] == {"model": "o4-mini", "max_completion_tokens": 64}


def test_settings_for_endpoint_families():
    s = Settings.from_env({"NOMOS_LLM_TEMPERATURE": "none", "NOMOS_LLM_TOP_P": "None", "NOMOS_LLM_TOKEN_PARAM": "max_completion_tokens",
                           "NOMOS_LLM_RETRY_AFTER_MAX": "300"}, env_file=None)
    assert (s.llm_temperature, s.llm_top_p, s.llm_token_param, s.llm_retry_after_max) == (None, None, "max_completion_tokens", 300)
    d = Settings.from_env({}, env_file=None)
    assert (d.llm_temperature, d.llm_top_p, d.llm_timeout, d.llm_retry_after_max, d.llm_issue_threshold) == (0.2, 1.0, 600.0, 120.0, 0.05)
    with pytest.raises(Exception, match="NOMOS_LLM_TOKEN_PARAM"):
        Settings.from_env({"NOMOS_LLM_TOKEN_PARAM": "max_toks"}, env_file=None)


# --------------------------------------------------------------------------------------------------- ids
@pytest.mark.parametrize(("typed", "doc_id", "status"), [
    ("PK::372", "PK::372", "ok"),
    ("pk::372", "PK::372", "ok"),
    ("PK::386A", "PK::386Α", "ok"),  # Latin A, the corpus's Greek Α
    ("ΡΚ::386α", "PK::386Α", "ok"),  # Greek Ρ and Κ in the source, a small alpha
    ("[PK::374]", "PK::374", "ok"),
    ("PK ::  374", "PK::374", "ok"),
    ("ＰＫ::３７２", "PK::372", "ok"),  # full-width (NFKC)
    ("n_4624_2019::21", "N_4624_2019::21", "ok"),
    ("PK::999", None, "unknown"),
])
def test_ids_match_only_uniquely(typed, doc_id, status):
    m = IdMatcher(BATCH).match(typed)
    assert (m.doc_id, m.status) == (doc_id, status)


def test_two_ids_under_one_key_are_ambiguous_unless_typed_exactly():
    matcher = IdMatcher(["PK::304A", "PK::304Α"])  # the stand-in corpus has both spellings
    assert matcher.match("pk::304a").status == "ambiguous"
    assert matcher.match("PK::304A").doc_id == "PK::304A" and matcher.match("PK::304Α").doc_id == "PK::304Α"


def test_citations_resolve_against_the_known_ids():
    assert [m.doc_id for m in IdMatcher(BATCH).citations("άρθρο 372 ΠΚ και άρθρο 21 ν. 4624/2019")] == ["PK::372", "N_4624_2019::21"]


# --------------------------------------------------------------------------------------------------- parsers
@pytest.mark.parametrize(("reply", "expected"), [
    ('{"thought": "σκέψη", "query": "κλοπή ρολογιού"}', ("κλοπή ρολογιού", "σκέψη", None)),
    ("QUERY: κλοπή ξένου κινητού πράγματος", ("κλοπή ξένου κινητού πράγματος", None, None)),
    ("THOUGHT: ψάχνω την κλοπή\nQUERY:\nκλοπή ξένου\nκινητού πράγματος\n\nΤέλος.", ("κλοπή ξένου κινητού πράγματος", "ψάχνω την κλοπή", None)),
    ("**Query:** απάτη περιουσιακή ζημία", ("απάτη περιουσιακή ζημία", None, None)),
    ("κλοπή, αφαίρεση, ξένο κινητό πράγμα", ("κλοπή, αφαίρεση, ξένο κινητό πράγμα", None, None)),
    ("- κλοπή\n- απάτη", ("κλοπή απάτη", None, None)),
    (shaped("think", '{"query": "κλοπή"}'), ("κλοπή", None, None)),
    (shaped("harmony", "QUERY: υπεξαίρεση"), ("υπεξαίρεση", None, None)),
    (shaped("think_unclosed", ""), (None, None, {"kind": "planner_empty"})),
    # the paper notebook's planner format
    ("REASON:\nΤο ζήτημα είναι η κλοπή.\n\nQUERY:\nκλοπή, αφαίρεση ξένου κινητού, ιδιοποίηση",
     ("κλοπή, αφαίρεση ξένου κινητού, ιδιοποίηση", "Το ζήτημα είναι η κλοπή.", None)),
    ("**QUERY:**\n\nαπάτη, περιουσιακή βλάβη", ("απάτη, περιουσιακή βλάβη", None, None)),
])
def test_planner_formats(reply, expected):
    assert parse_planner(reply) == expected


@pytest.mark.parametrize(("reply", "kept", "issues"), [
    ('{"keep": [{"id": "PK::386A", "reason": "απάτη"}, "pk::372"]}', {"PK::386Α": "απάτη", "PK::372": ""}, []),
    ("PK::386A | απάτη\npk::372 | κλοπή", {"PK::386Α": "απάτη", "PK::372": "κλοπή"}, []),
    ("RELEVANT: NONE", {}, []),
    ("RELEVANT:\nPK::374 | κλοπή κατά συρροή\nΤα υπόλοιπα δεν σχετίζονται.", {"PK::374": "κλοπή κατά συρροή"}, []),
    ('["PK::372", "AK::914"]', {"PK::372": "", "AK::914": ""}, []),
    ("- PK::372\n- άρθρο 914 ΑΚ\n- PK::999", {"PK::372": "", "AK::914": ""}, [{"kind": "unknown_ids", "ids": ["PK::999"]}]),
    ("PK::372, PK::374", {"PK::372": "", "PK::374": ""}, []),
    (shaped("think", "PK::372 | κλοπή"), {"PK::372": "κλοπή"}, []),
    (shaped("harmony", '{"keep": []}'), {}, []),  # PK::999 in the analysis is never read
    ("RELEVANT:\nPK::372 | κλοπή\nNOT_RELEVANT:\nPK::374 | άσχετο", {"PK::372": "κλοπή"}, []),  # the notebook stops there
    ("Δεν ξέρω.", {}, [{"kind": "observer_format", "reply": "Δεν ξέρω."}]),
    ('{"keep": "PK::372"}', {}, [{"kind": "observer_format", "reply": '{"keep": "PK::372"}'}]),
    ("", {}, [{"kind": "observer_empty"}]),
])
def test_observer_formats(reply, kept, issues):
    assert parse_observer(reply, BATCH) == (kept, issues)


def test_observer_reports_ambiguous_ids():
    assert parse_observer("pk::304a | κλοπή", ["PK::304A", "PK::304Α"]) == ({}, [{"kind": "ambiguous_ids", "ids": ["pk::304a"]}])


@pytest.mark.parametrize(("reply", "order", "kinds"), [
    ('{"ranking": ["PK::374", "pk::372"]}', ["PK::374", "PK::372", "PK::386Α"], []),
    ("PK::386A > PK::374", ["PK::386Α", "PK::374", "PK::372"], []),
    ("1. PK::374\n2. PK::999", ["PK::374", "PK::372", "PK::386Α"], ["unknown_ids"]),
    (shaped("think", '["PK::386Α"]'), ["PK::386Α", "PK::372", "PK::374"], []),
    ("Δεν μπορώ.", ["PK::372", "PK::386Α", "PK::374"], ["rerank_format"]),
])
def test_rerank_formats(reply, order, kinds):
    ranking, issues = read_ranking(reply, ["PK::372", "PK::386Α", "PK::374"])
    assert ranking == order and [i["kind"] for i in issues] == kinds


def test_sparse_reformulation_never_searches_thoughts():
    q, terms, issue = parse_sparse(shaped("think", "κλοπή, απάτη"))
    assert (q, terms) == ("κλοπή απάτη", ["κλοπή", "απάτη"])
    assert parse_sparse(shaped("think_unclosed", ""))[2] == {"kind": "empty"}
    assert parse_sparse('{"keywords": ["κλοπή", "απάτη"]}')[1] == ["κλοπή", "απάτη"]
    # the paper notebook's sections: what follows KEYWORDS/QUERY is the rewrite, the REASON before it is dropped
    assert parse_sparse("REASON:\nκλοπή ρολογιού\n\nKEYWORDS: κλοπή, απάτη")[1] == ["κλοπή", "απάτη"]
    assert parse_sparse("QUERY: κλοπή, υπεξαίρεση")[1] == ["κλοπή", "υπεξαίρεση"]


# --------------------------------------------------------------------------------------------------- counts
def test_issue_counts_sum_into_the_cost_table_with_a_warning_above_the_threshold():
    a, b = Cost(), Cost()
    for _ in range(10):
        a.add(Reply("x", 1, 1, 0.1), "observer")
    b.add(Reply("", 1, 1, 0.1, cached=False, finish_reason="length", regenerated="length"), "planner")
    b.note("fallbacks")
    b.add(Reply("y", 1, 1, 0.0, cached=True), "planner")
    table = cost_table({"q1": a.to_dict(), "q2": b.to_dict()}, 1.0)
    issues = table["issues"]
    assert issues["calls"] == 12
    assert {k: v for k, v in issues["counts"].items() if v} == {"truncations": 1, "empty_replies": 1, "fallbacks": 1,
                                                               "regenerated": 1, "cache_hits": 1}
    assert issues["rates"]["fallbacks"] == round(1 / 12, 4)
    assert degradation_warnings(issues, 0.05) == ["truncations: 1 of 12 LLM calls (8.3%)", "empty_replies: 1 of 12 LLM calls (8.3%)",
                                                  "fallbacks: 1 of 12 LLM calls (8.3%)"]
    assert degradation_warnings(issues, 0.10) == []
    both = run_issues({**table, "rerank": table})
    assert both["calls"] == 24 and both["counts"]["truncations"] == 2
    with pytest.raises(ValueError, match="unknown LLM issue kind 'typo'"):
        Cost().note("typo")
    assert json.loads(json.dumps(table))["per_query"]["q2"]["issue_counts"]["fallbacks"] == 1


def test_listwise_reranker_reads_thinking_replies_and_counts_their_issues(server):
    from nomos.retrieval.rerank import LLMListwiseReranker

    window = ["PK::372", "PK::386Α", "PK::374"]
    texts = {d: (f"Άρθρο {d}", "κείμενο") for d in window}
    answers = {"ρολόι": shaped("think", "PK::386A > pk::372\nPK::999"), "άλλη": "Δεν μπορώ να κατατάξω.",
               "κομμένη": Shape("PK::374 > PK::3", finish_reason="length")}  # cut inside an id, also after the retry
    server.script("rerank", lambda info: next(a for word, a in answers.items() if word in info["user"]))
    queries = {"q1": "Ο Νίκος πήρε ένα ρολόι.", "q2": "Μια άλλη υπόθεση.", "q3": "Μια κομμένη απάντηση."}
    judged = LLMListwiseReranker(client(server, max_tokens=50), concurrency=1).order(queries, dict.fromkeys(queries, window), texts)
    assert [d for d, _ in judged.orders["q1"]] == ["PK::386Α", "PK::372", "PK::374"]
    assert [d for d, _ in judged.orders["q2"]] == window  # nothing readable: the first stage's order
    assert [d for d, _ in judged.orders["q3"]] == window  # cut: not read at all, the first stage's order
    assert [r["params"]["max_tokens"] for r in server.requests] == [50, 50, 50, 100]  # q3 asked once more, twice the room
    counts = judged.costs["issues"]["counts"]
    assert (judged.costs["issues"]["calls"], counts["unknown_ids"], counts["reasoning_stripped"], counts["format_errors"],
            counts["fallbacks"], counts["truncations"], counts["regenerated"]) == (3, 1, 1, 1, 2, 1, 1)
