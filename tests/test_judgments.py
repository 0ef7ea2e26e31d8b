"""Relevance judgments against a real node: grading through the API and the search page's form, re-grading (one
document per query, article and user), several users and the reverse proxy's X-Remote-User, the list and the
/judgments page, every kind of bad input refused with a 4xx naming the field, the export's exact bytes, and
``eval --qrels/--queries`` scoring the exported test set on the mini dataset."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from nomos.cli import cli
from nomos.ingest.beir import load_beir
from nomos.ingest.indexer import alias_targets, prune_versions
from nomos.ingest.loader import replace_judgments
from nomos.ingest.records import DatasetError
from nomos.opensearch import judgments_store as store
from nomos.opensearch.client import make_client
from nomos.portal import create_app
from nomos.stages.judgments import aggregate_grade
from tests.portal_support import indexed_mini

pytestmark = pytest.mark.integration

THEFT = "Ο Νίκος αφαίρεσε ξένο κινητό πράγμα από κατάστημα για να το ιδιοποιηθεί"
HARM = "Ο Γιώργος τραυμάτισε τον γείτονά του και εκείνος ζητά αποζημίωση"


@pytest.fixture(scope="module")
def mini(cluster, tmp_path_factory):
    folder = tmp_path_factory.mktemp("judgments")
    with indexed_mini(cluster, folder, alias_prefix="pytest-judg") as settings:
        yield settings, folder / "mini"


@pytest.fixture(scope="module")
def web(mini):
    """The portal as its reverse proxy reaches it: from a trusted address (NOMOS_TRUSTED_PROXIES), so the proxy's
    X-Remote-User counts (tests/test_portal_identity.py: from anyone else it does not)."""
    settings = mini[0].with_overrides(trusted_proxies=("10.9.0.0/16",), user_header="X-Remote-User",
                                      require_sign_in=False)  # anonymous judgments too (sign-in: test_portal_identity)
    with TestClient(create_app(settings), client=("10.9.0.1", 40000)) as c:
        yield c


@pytest.fixture
def fresh(mini):
    """No judgments yet: the judgments index deleted (it is created again by the first write)."""
    settings = mini[0]
    client = make_client(settings.cluster)
    client.indices.delete(index=store.index_name(settings.index_alias), ignore_unavailable=True)
    return settings, client


def judge(web, headers=None, **body):
    return web.post("/api/judgments", json=body, headers=headers or {})


def stored(client, alias):
    name = store.index_name(alias)
    client.indices.refresh(index=name)
    return [h["_source"] | {"_id": h["_id"]} for h in client.search(index=name, body={"size": 100})["hits"]["hits"]]


# ------------------------------------------------------------------------------------------------ storage
def test_regrading_overwrites_one_document_and_keeps_created(web, fresh):
    settings, client = fresh
    first = judge(web, query=THEFT, article_id="PK::372", grade=1, note="κλοπή ρολογιού", method="bm25")
    assert first.status_code == 201, first.text
    a = first.json()
    assert (a["query"], a["article_id"], a["grade"], a["user"], a["note"], a["method"]) == (
        THEFT, "PK::372", 1, "anonymous", "κλοπή ρολογιού", "bm25")
    assert a["query_id"] == store.query_id(THEFT) and re.fullmatch(r"[0-9a-f]{16}", a["query_id"])
    time.sleep(0.01)
    # the same case typed with other spacing and case is the same query: the same document
    again = judge(web, query="  " + THEFT.upper().replace(" ", "   ") + " ", article_id="PK::372", grade=2)
    assert again.status_code == 200, again.text
    b = again.json()
    assert b["id"] == a["id"] and b["query_id"] == a["query_id"]
    assert b["grade"] == 2 and b["note"] is None and b["method"] is None  # re-grading replaces, note included
    assert b["created"] == a["created"] and b["updated"] > a["updated"]
    docs = stored(client, settings.index_alias)
    assert [(d["_id"], d["grade"]) for d in docs] == [(a["id"], 2)]


def test_the_index_has_a_strict_mapping_and_survives_reindex_pruning(web, fresh):
    settings, client = fresh
    assert judge(web, query=THEFT, article_id="PK::372", grade=2).status_code == 201
    name = store.index_name(settings.index_alias)
    mapping = client.indices.get_mapping(index=name)[name]["mappings"]
    assert mapping["dynamic"] == "strict"
    assert {k: v["type"] for k, v in mapping["properties"].items()} == {
        "query": "text", "query_id": "keyword", "article_id": "keyword", "grade": "byte", "note": "text",
        "user": "keyword", "method": "keyword", "created": "date", "updated": "date"}
    assert mapping["properties"]["query"]["fields"]["keyword"]["type"] == "keyword"
    from opensearchpy.exceptions import RequestError

    with pytest.raises(RequestError, match="strict_dynamic_mapping_exception"):
        client.index(index=name, body={"query": "x", "surprise": 1})
    # re-indexing the articles prunes "<alias>-*" versions: the judgments are not one of them
    prune_versions(client, settings.index_alias, keep=alias_targets(client, settings.index_alias))
    assert client.indices.exists(index=name) and len(stored(client, settings.index_alias)) == 1


# ------------------------------------------------------------------------------------------------ users, list, page
def test_several_users_and_the_reverse_proxy_header(web, fresh):
    settings, client = fresh
    assert judge(web, query=THEFT, article_id="PK::372", grade=2).status_code == 201
    assert judge(web, query=THEFT, article_id="PK::372", grade=1, user="maria").status_code == 201
    # the proxy's X-Remote-User wins over the body's user
    # (a proxy sends a Greek name as UTF-8 bytes)
    r = judge(web, {"X-Remote-User": "Νίκος.Π".encode()}, query=THEFT, article_id="PK::375", grade=0, user="maria")
    assert r.status_code == 201 and r.json()["user"] == "Νίκος.Π"
    # a user grading their own judgment again still overwrites only their own
    assert judge(web, query=THEFT, article_id="PK::372", grade=0, user="maria").status_code == 200
    assert len(stored(client, settings.index_alias)) == 3

    listed = web.get("/api/judgments", params={"query": THEFT.lower() + "  "})
    assert listed.status_code == 200, listed.text
    body = listed.json()
    assert body["query_id"] == store.query_id(THEFT)
    assert [(j["article_id"], j["user"], j["grade"]) for j in body["judgments"]] == [
        ("PK::372", "anonymous", 2), ("PK::372", "maria", 0), ("PK::375", "Νίκος.Π", 0)]
    by_id = web.get("/api/judgments", params={"query_id": body["query_id"], "user": "maria"}).json()
    assert [(j["article_id"], j["user"]) for j in by_id["judgments"]] == [("PK::372", "maria")]
    assert web.get("/api/judgments", params={"query": HARM}).json()["judgments"] == []

    summaries = web.get("/api/judgments/queries").json()
    assert len(summaries) == 1
    s = summaries[0]
    assert (s["query_id"], s["query"], s["articles"], s["users"], s["judgments"]) == (body["query_id"], THEFT, 2, 3, 3)
    assert s["grades"] == {"0": 2, "1": 0, "2": 1}


def test_the_judgments_page_lists_queries_and_links_to_judgments_and_search(web, fresh):
    empty = web.get("/judgments")
    assert empty.status_code == 200 and "Δεν υπάρχουν ακόμη αξιολογήσεις" in empty.text
    judge(web, query=THEFT, article_id="PK::372", grade=2)
    judge(web, query=THEFT, article_id="PK::375", grade=1, user="maria", note="<b>ίσως</b> υπεξαίρεση")
    judge(web, query=HARM, article_id="AK::914", grade=1)
    page = web.get("/judgments")
    assert page.status_code == 200 and '<html lang="el">' in page.text
    html = page.text
    rows = re.findall(r'<tr class="judged" data-query-id="([0-9a-f]{16})">(.*?)</tr>', html, re.S)
    assert [q for q, _ in rows] == [store.query_id(HARM), store.query_id(THEFT)]  # the latest first
    theft = dict(rows)[store.query_id(THEFT)]
    assert THEFT in theft and "0 / 1 / 1" in theft
    assert f'href="/judgments?query_id={store.query_id(THEFT)}"' in theft
    assert 'href="/search?q=Ο+Νίκος+αφαίρεσε' in theft
    detail = web.get("/judgments", params={"query_id": store.query_id(THEFT)})
    assert detail.status_code == 200
    assert "PK::372" in detail.text and "PK::375" in detail.text and "maria" in detail.text
    assert "&lt;b&gt;ίσως&lt;/b&gt; υπεξαίρεση" in detail.text and "<b>ίσως" not in detail.text  # escaped
    assert web.get("/judgments", params={"query_id": "0" * 16}).status_code == 404
    bad = web.get("/judgments", params={"query_id": "../etc"})
    assert bad.status_code == 422 and "query_id" in bad.text


def test_the_search_page_grades_through_a_plain_form(web, fresh):
    settings, client = fresh
    page = web.get("/search", params={"q": THEFT, "k": 20, "method": "bm25"})
    assert page.status_code == 200
    forms = re.findall(r'<form class="judge" method="post" action="/judgments" id="j-([^"]+)">', page.text)
    assert forms and forms[0] == "PK::372" and len(forms) == page.text.count('class="hit"')
    # grading needs no script: the page's only one is the portal's own copy button (static/copy.js)
    assert page.text.count("<script") == 1 and '<script src="/static/copy.js" defer></script>' in page.text
    r = web.post("/judgments", data={"query": THEFT, "article_id": "PK::372", "method": "bm25", "k": "20", "grade": "2",
                                     "note": "", "user": ""}, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert r.headers["location"].startswith("/search?q=") and "method=bm25" in r.headers["location"]
    assert "k=20" in r.headers["location"] and r.headers["location"].endswith("&judged=PK%3A%3A372&grade=2#j-PK%3A%3A372")
    back = web.get(r.headers["location"])
    assert back.status_code == 200 and "Αποθηκεύτηκε: 2" in back.text
    [doc] = stored(client, settings.index_alias)
    assert (doc["query"], doc["article_id"], doc["grade"], doc["user"], doc["method"], doc["note"]) == (
        THEFT, "PK::372", 2, "anonymous", "bm25", None)
    # the form's user field, and the proxy's header over it
    web.post("/judgments", data={"query": THEFT, "article_id": "PK::372", "grade": "1", "user": "eleni"}, follow_redirects=False)
    web.post("/judgments", data={"query": THEFT, "article_id": "PK::372", "grade": "0", "user": "eleni"},
             headers={"X-Remote-User": "proxy.user"}, follow_redirects=False)
    assert sorted((d["user"], d["grade"]) for d in stored(client, settings.index_alias)) == [
        ("anonymous", 2), ("eleni", 1), ("proxy.user", 0)]


# ------------------------------------------------------------------------------------------------ bad input
GOOD = {"query": THEFT, "article_id": "PK::372", "grade": 1}
BAD_BODIES = [
    ({**GOOD, "grade": 3}, "grade"),
    ({**GOOD, "grade": -1}, "grade"),
    ({**GOOD, "grade": "x"}, "grade"),
    ({**GOOD, "grade": True}, "grade"),
    ({**GOOD, "grade": 1.5}, "grade"),
    ({**GOOD, "grade": None}, "grade"),
    ({"query": THEFT, "article_id": "PK::372"}, "grade"),
    ({**GOOD, "article_id": "PK::999"}, "article_id"),
    ({**GOOD, "article_id": ""}, "article_id"),
    ({**GOOD, "article_id": "PK 372"}, "article_id"),
    ({**GOOD, "article_id": "x" * 201}, "article_id"),
    ({**GOOD, "query": ""}, "query"),
    ({**GOOD, "query": "   \n "}, "query"),
    ({**GOOD, "query": "α" * 20_001}, "query"),
    ({**GOOD, "query": "κλοπή\x00"}, "query"),
    ({**GOOD, "query": 5}, "query"),
    ({**GOOD, "note": "σ" * 1001}, "note"),
    ({**GOOD, "user": "bad user"}, "user"),
    ({**GOOD, "user": "x" * 65}, "user"),
    ({**GOOD, "method": "grep"}, "method"),
    ({**GOOD, "admin": True}, "admin"),
]


@pytest.mark.parametrize("body,field", BAD_BODIES, ids=[f"{f}-{i}" for i, (_, f) in enumerate(BAD_BODIES)])
def test_bad_json_is_refused_naming_the_field(web, body, field):
    r = web.post("/api/judgments", json=body)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert isinstance(detail, list) and any(d.startswith(field + ":") for d in detail), detail


def test_bad_requests_are_refused_naming_what_is_wrong(web, fresh):
    settings, client = fresh
    cases = [
        (dict(content=json.dumps(GOOD), headers={"Content-Type": "text/plain"}), 415, "Content-Type"),
        (dict(content=b"query=x&grade=1", headers={"Content-Type": "application/x-www-form-urlencoded"}), 415, "Content-Type"),
        (dict(content=b"{not json", headers={"Content-Type": "application/json"}), 400, "body"),
        (dict(content=b"\xff\xfe", headers={"Content-Type": "application/json"}), 400, "body"),
        (dict(content=b"[1, 2]", headers={"Content-Type": "application/json"}), 422, "body"),
        (dict(content=b"null", headers={"Content-Type": "application/json"}), 422, "body"),
        (dict(content=json.dumps({**GOOD, "note": "x" * 70_000}), headers={"Content-Type": "application/json"}), 413, "body"),
        (dict(json=GOOD, headers={"X-Remote-User": "a b"}), 400, "X-Remote-User"),
        (dict(json=GOOD, headers={"Origin": "https://evil.example"}), 403, "Origin"),
        (dict(json=GOOD, headers={"Sec-Fetch-Site": "cross-site", "Origin": "null"}), 403, "Sec-Fetch-Site"),
        (dict(json=GOOD, headers={"Sec-Fetch-Site": "same-site"}), 403, "Sec-Fetch-Site"),
    ]
    for kwargs, status, named in cases:
        r = web.post("/api/judgments", **kwargs)
        assert r.status_code == status, (kwargs.get("headers"), r.status_code, r.text)
        assert named in json.dumps(r.json()["detail"]), r.text
    for params in ({}, {"query": THEFT, "query_id": "0" * 16}):
        r = web.get("/api/judgments", params=params)
        assert r.status_code == 422 and "query" in r.json()["detail"][0]
    assert web.get("/api/judgments", params={"query_id": "XYZ"}).status_code == 422
    assert web.get("/api/judgments", params={"query": THEFT, "user": "a b"}).status_code == 422
    # the same origin is accepted, as a browser on the portal's own page sends it
    assert web.post("/api/judgments", json=GOOD, headers={"Origin": "http://testserver"}).status_code == 201
    # and as Chromium sends its own form posts under Referrer-Policy: no-referrer
    same = web.post("/api/judgments", json=GOOD, headers={"Sec-Fetch-Site": "same-origin", "Origin": "null"})
    assert same.status_code == 200, same.text
    assert len(stored(client, settings.index_alias)) == 1  # nothing refused was stored


def test_bad_form_posts_are_refused_with_a_greek_page_naming_the_field(web, fresh):
    form = {"query": THEFT, "article_id": "PK::372", "grade": "1"}
    for data, status, named in [
        ({**form, "grade": "3"}, 422, "grade"),
        ({**form, "grade": "x"}, 422, "grade"),
        ({k: v for k, v in form.items() if k != "grade"}, 422, "grade"),
        ({**form, "article_id": "PK::999"}, 422, "article_id"),
        ({**form, "query": " "}, 422, "query"),
        ({**form, "note": "ν" * 1001}, 422, "note"),
        ({**form, "evil": "1"}, 422, "evil"),
    ]:
        r = web.post("/judgments", data=data, follow_redirects=False)
        assert r.status_code == status, (data, r.status_code)
        assert "Μη έγκυρη αξιολόγηση" in r.text and named in r.text and '<html lang="el">' in r.text
    twice = web.post("/judgments", content="query=a&grade=1&grade=2&article_id=PK%3A%3A372",
                     headers={"Content-Type": "application/x-www-form-urlencoded"}, follow_redirects=False)
    assert twice.status_code == 422 and "grade: given more than once" in twice.text
    multipart = web.post("/judgments", files={"query": ("q.txt", b"x")}, follow_redirects=False)
    assert multipart.status_code == 415 and "Content-Type" in multipart.text
    forged = web.post("/judgments", data=form, headers={"Origin": "http://evil.example"}, follow_redirects=False)
    assert forged.status_code == 403 and "Origin" in forged.text
    forged = web.post("/judgments", data=form, headers={"Sec-Fetch-Site": "cross-site", "Origin": "null"}, follow_redirects=False)
    assert forged.status_code == 403 and "Sec-Fetch-Site" in forged.text
    assert store.list_judgments(make_client(fresh[0].cluster), fresh[0].index_alias, query=THEFT) == []


# ------------------------------------------------------------------------------------------------ export and eval
def test_rounded_mean_halves_up():
    assert [aggregate_grade(g) for g in ([0, 1], [1, 2], [0, 2], [0, 0, 1], [2], [0, 0, 1, 1], [1, 1, 2])] == [1, 2, 1, 0, 2, 1, 1]


def test_export_writes_exact_sorted_qrels_and_queries_and_eval_scores_them(web, fresh, mini, tmp_path):
    settings, _ = fresh
    folder = mini[1]
    for body in [
        dict(query=THEFT, article_id="PK::372", grade=2, user="u1"),
        dict(query=THEFT, article_id="PK::372", grade=1, user="u2"),  # mean 1.5 -> 2
        dict(query=THEFT, article_id="PK::375", grade=0, user="u1"),
        dict(query=THEFT, article_id="AK::914", grade=1, user="u1"),
        dict(query=THEFT, article_id="AK::914", grade=0, user="u2"),  # mean 0.5 -> 1
        dict(query=HARM, article_id="AK::914", grade=2, user="u2"),
        dict(query=HARM, article_id="AK::932", grade=1, user="u2"),
        dict(query="κάτι άσχετο", article_id="PK::308", grade=0, user="u1"),  # nothing relevant: not exported
    ]:
        assert judge(web, **body).status_code == 201
    qt, qh, qx = store.query_id(THEFT), store.query_id(HARM), store.query_id("κάτι άσχετο")
    runner = CliRunner()
    args = ["--url", settings.url, "--index", settings.index_alias]
    out = tmp_path / "lib.qrels"

    res = runner.invoke(cli, [*args, "judgments", "export", "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc == {"qrels": str(out), "queries": str(tmp_path / "lib.queries.jsonl"), "n_queries": 2, "n_judgments": 5,
                   "n_stored": 8, "skipped_queries": [qx]}
    theft = sorted([f"{qt} 0 AK::914 1\n", f"{qt} 0 PK::372 2\n", f"{qt} 0 PK::375 0\n"])
    harm = [f"{qh} 0 AK::914 2\n", f"{qh} 0 AK::932 1\n"]
    expected = "".join(theft + harm) if qt < qh else "".join(harm + theft)
    assert out.read_text(encoding="utf-8") == expected
    texts = {qt: THEFT, qh: HARM}
    assert (tmp_path / "lib.queries.jsonl").read_text(encoding="utf-8") == "".join(
        json.dumps({"_id": q, "text": texts[q]}, ensure_ascii=False) + "\n" for q in sorted(texts))
    # readers' cases: the exporting user's alone (issue 47: 0644), whatever the umask
    assert {oct(p.stat().st_mode & 0o777) for p in (out, tmp_path / "lib.queries.jsonl")} == {oct(0o600)}
    first = out.read_bytes()
    assert runner.invoke(cli, [*args, "judgments", "export", "--out", str(out)]).exit_code == 0
    assert out.read_bytes() == first  # deterministic

    # one user's grades alone; a grade floor
    one = tmp_path / "u2.qrels"
    res = runner.invoke(cli, [*args, "judgments", "export", "--out", str(one), "--user", "u2", "--min-grade", "1"])
    assert res.exit_code == 0, res.output
    rows = {qt: [f"{qt} 0 PK::372 1\n"], qh: harm}
    assert one.read_text(encoding="utf-8") == "".join(rows[q][i] for q in sorted(rows) for i in range(len(rows[q])))
    assert "judgments of 2 queries" in res.output
    assert runner.invoke(cli, [*args, "judgments", "export", "--min-grade", "3"]).exit_code == 2

    # eval scores the judged queries against the same index
    runs = tmp_path / "runs"
    res = runner.invoke(cli, [*args, "eval", "--json", "--dataset", str(folder), "--qrels", str(out),
                              "--queries", str(tmp_path / "lib.queries.jsonl"), "--runs-dir", str(runs), "--run-name", "lib"])
    assert res.exit_code == 0, res.output
    ev = json.loads(res.stdout)
    assert (ev["dataset"], ev["queries"]) == ("mini+lib", 2)
    assert ev["folder"] == str(runs / "mini+lib" / "lib")
    assert 0 < ev["metrics"]["ndcg@10"] <= 1 and 0 < ev["metrics"]["recall@100"] <= 1
    manifest = json.loads((runs / "mini+lib" / "lib" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["dataset"]["queries"] == 2 and manifest["dataset"]["judgments"] == 5
    assert "judgments" in manifest["dataset"]["revision"]
    per_query = json.loads((runs / "mini+lib" / "lib" / "metrics.json").read_text(encoding="utf-8"))["per_query"]
    assert set(json.dumps(per_query).split('"')) >= {qt, qh}  # scored per judged query


def test_replacement_qrels_errors_name_file_and_line(mini, tmp_path):
    dataset = load_beir(mini[1])
    own = tmp_path / "own.tsv"
    own.write_text("q1 0 PK::372 2\nq1 0 PK::375 1\n", encoding="utf-8")  # the dataset's own query ids, TREC format
    d = replace_judgments(dataset, own)
    assert [q.id for q in d.queries] == ["q1"] and d.qrels == {"q1": {"PK::372": 2, "PK::375": 1}}
    assert d.fingerprint == dataset.fingerprint and d.name == dataset.name + "+own"
    for text, where, message in [
        ("q1 0 PK::372 2\nq1 0 PK::375 x\n", ":2", "score 'x' is not an integer"),
        ("q1 0 PK::372 2\nq1 PK::375\n", ":2", "expected 3"),
        ("q1 0 PK::372 2\nq1 0 PK::999 1\n", ":2", "unknown article 'PK::999'"),
        ("q1 0 PK::372 2\nq9 0 PK::375 1\n", ":2", "unknown query 'q9'"),
        ("q1 0 PK::372 2\nq1 0 PK::372 1\n", ":2", "duplicate judgment"),
        ("", "", "there are no judgments"),
    ]:
        own.write_text(text, encoding="utf-8")
        with pytest.raises(DatasetError) as err:
            replace_judgments(dataset, own)
        assert str(own) + where in str(err.value) and message in str(err.value), str(err.value)
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"_id": "a", "text": "κλοπή"}\n{"_id": "b", "text": "απάτη"}\n', encoding="utf-8")
    own.write_text("a 0 PK::372 1\nb 0 PK::386 0\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=re.escape(str(queries)) + ".*no relevant judgment: b"):
        replace_judgments(dataset, own, queries)
    queries.write_text('{"_id": "a", "text": "κλοπή"}\n{"_id": "a"\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=re.escape(f"{queries}:2") + ": malformed JSON"):
        replace_judgments(dataset, own, queries)
    with pytest.raises(DatasetError, match="file is missing"):
        replace_judgments(dataset, tmp_path / "nope.qrels")
    res = CliRunner().invoke(cli, ["eval", "--dataset", str(mini[1]), "--queries", str(queries)])
    assert res.exit_code == 2 and "--qrels" in res.output


def test_export_with_no_judgments_writes_empty_files(fresh, tmp_path):
    settings, _ = fresh
    out = tmp_path / "none.qrels"
    res = CliRunner().invoke(cli, ["--url", settings.url, "--index", settings.index_alias, "judgments", "export", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert out.read_text() == "" and Path(str(out).replace(".qrels", ".queries.jsonl")).read_text() == ""
