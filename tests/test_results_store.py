"""Results in OpenSearch for Dashboards: ``eval --to-opensearch`` fills the result indices on a real node (counts,
provenance, idempotent re-runs), the saved-objects file parses and names only fields the mappings have, and
``dashboards import`` sends the request the import API expects.

A real OpenSearch Dashboards cannot run here (it is not downloadable from the registries this project uses), so
the import is checked against a small local HTTP server that validates the multipart request and answers like
Dashboards does; the saved objects are checked statically against ``mappings/results/``."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from click.testing import CliRunner

from nomos.ingest.beir import load_beir
from nomos.opensearch.dashboards_import import SAVED_OBJECTS, DashboardsError, import_saved_objects, saved_objects
from nomos.opensearch.results_store import KINDS, index_name, mapping
from nomos.stages.evaluation import evaluate_method

# --------------------------------------------------------------------------------------------------- saved objects
from nomos.stages.indexing import index_dataset

# --------------------------------------------------------------------------------------------------- saved objects
from nomos.stages.reporting import store_results
from tests.beir_files import write_beir


# --------------------------------------------------------------------------------------------------- saved objects
def _fields(props, prefix=""):
    out = set()
    for name, spec in props.items():
        out.add(prefix + name)
        out |= _fields(spec.get("properties", {}), prefix + name + ".")
    return out


def test_saved_objects_parse_and_refer_only_to_existing_fields():
    objs = [json.loads(line) for line in SAVED_OBJECTS.read_text(encoding="utf-8").splitlines() if line.strip()]
    patterns = {o["id"]: o["attributes"]["title"] for o in objs if o["type"] == "index-pattern"}
    by_title = {index_name("nomos-results", k): k for k in KINDS}
    assert set(patterns.values()) == set(by_title)  # one pattern per result index, and no other
    ids = {o["id"] for o in objs}
    vis = [o for o in objs if o["type"] == "visualization"]
    assert len(vis) >= 3
    seen_kinds = set()
    for v in vis:
        state = json.loads(v["attributes"]["visState"])
        (ref,) = v["references"]
        assert ref["type"] == "index-pattern" and ref["id"] in patterns
        kind = by_title[patterns[ref["id"]]]
        seen_kinds.add(kind)
        fields = _fields(mapping(kind)["mappings"]["properties"])
        used = [a["params"]["field"] for a in state["aggs"] if "field" in a.get("params", {})]
        assert used, v["id"]
        for f in used:
            assert f in fields, f"{v['id']} uses {f!r}, not in mappings/results/{kind}.json"
        source = json.loads(v["attributes"]["kibanaSavedObjectMeta"]["searchSourceJSON"])
        assert source["indexRefName"] == ref["name"]
    assert {"per_query", "react_rounds"} <= seen_kinds  # metric per method, per area, ReAct rounds
    dash = [o for o in objs if o["type"] == "dashboard"]
    assert len(dash) == 1
    panels = json.loads(dash[0]["attributes"]["panelsJSON"])
    refs = {r["name"]: r["id"] for r in dash[0]["references"]}
    assert all(refs[p["panelRefName"]] in ids for p in panels) and len(panels) == len(vis)


def test_saved_objects_follow_the_prefix():
    text = saved_objects("myproj-results")
    assert "nomos-results-" not in text and '"myproj-results-per-query"' in text


# --------------------------------------------------------------------------------------------------- import API
class _FakeDashboards(BaseHTTPRequestHandler):
    seen: list = []

    def log_message(self, *a):  # quiet
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        ctype = self.headers.get("Content-Type", "")
        ok = (self.path == "/api/saved_objects/_import?overwrite=true" and self.headers.get("osd-xsrf") == "true"
              and ctype.startswith("multipart/form-data; boundary="))
        boundary = ctype.split("boundary=", 1)[-1].encode()
        parts = [p for p in body.split(b"--" + boundary) if p.strip() not in (b"", b"--")]
        ok = ok and len(parts) == 1 and b'name="file"; filename="nomos-results.ndjson"' in parts[0]
        ndjson = parts[0].split(b"\r\n\r\n", 1)[1].rstrip(b"\r\n") if parts else b""
        lines = [json.loads(x) for x in ndjson.decode().splitlines() if x.strip()] if ok else []
        type(self).seen.append({"ok": ok, "objects": len(lines)})
        answer = {"success": True, "successCount": len(lines)} if ok else {"statusCode": 400, "error": "Bad Request"}
        data = json.dumps(answer).encode()
        self.send_response(200 if ok else 400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def fake_dashboards():
    _FakeDashboards.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeDashboards)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_import_posts_the_multipart_file(fake_dashboards):
    n = len([x for x in SAVED_OBJECTS.read_text().splitlines() if x.strip()])
    answer = import_saved_objects(fake_dashboards)
    assert answer == {"success": True, "successCount": n} and _FakeDashboards.seen == [{"ok": True, "objects": n}]
    from nomos.cli import cli

    res = CliRunner().invoke(cli, ["dashboards", "import", "--dashboards-url", fake_dashboards])
    assert res.exit_code == 0 and f"imported {n} saved objects" in res.output


def test_import_errors_are_clear():
    with pytest.raises(DashboardsError, match="no OpenSearch Dashboards answers"):
        import_saved_objects("http://127.0.0.1:9", timeout=2)


# --------------------------------------------------------------------------------------------------- real node
@pytest.mark.integration
def test_eval_to_opensearch_fills_the_indices(os_settings, client, tmp_path):
    data = load_beir(write_beir(tmp_path / "mini"))
    settings = os_settings.with_overrides(results_prefix=f"{os_settings.index_alias}-results")
    index_dataset(settings, data)
    out = evaluate_method(settings, data, method="bm25")
    folder = out.paths["manifest"].parent
    counts = store_results(settings, folder, data)
    assert counts == {"per_query": 2, "runs": 1, "react_rounds": 0, "traces": 0}
    pq = index_name(settings.results_prefix, "per_query")
    hits = client.search(index=pq, body={"query": {"match_all": {}}, "sort": [{"query_id": "asc"}]})["hits"]["hits"]
    docs = [h["_source"] for h in hits]
    assert [h["_id"] for h in hits] == ["mini/bm25/q1", "mini/bm25/q2"]
    assert [d["area"] for d in docs] == ["criminal", "civil"] and docs[1]["gold_sources"] == ["AK"]
    assert docs[0]["recall_100"] == out.evaluation.per_query["q1"]["recall@100"]
    assert docs[0]["run"] == "bm25" and docs[0]["dataset"] == "mini" and docs[0]["commit"] is not None
    run_doc = client.get(index=index_name(settings.results_prefix, "runs"), id="mini/bm25")["_source"]
    assert run_doc["ndcg_10"] == pytest.approx(out.evaluation.mean["ndcg@10"]) and run_doc["bm25_k1"] == 1.5
    # a second write (here through `dashboards push`, for existing folders) replaces, never duplicates
    from nomos.cli import cli

    res = CliRunner().invoke(cli, ["--port", str(settings.http_port), "dashboards", "push", "bm25", "--dataset", str(tmp_path / "mini"),
                                   "--runs-dir", str(settings.runs_dir), "--results-prefix", settings.results_prefix])
    assert res.exit_code == 0 and "per-query 2" in res.output, res.output
    assert client.count(index=pq)["count"] == 2
    # a rewrite with fewer queries drops the ones it lacks
    metrics = json.loads((folder / "metrics.json").read_text())
    metrics["per_query"].pop("q2")
    (folder / "metrics.json").write_text(json.dumps(metrics))
    store_results(settings, folder, data)
    assert client.count(index=pq)["count"] == 1
    client.indices.delete(index=f"{settings.results_prefix}-*")


@pytest.mark.integration
def test_react_run_fills_rounds_and_traces(os_settings, client, tmp_path):
    from tests.llm_server import from_beir

    folder = write_beir(tmp_path / "mini")
    data = load_beir(folder)
    with from_beir(folder) as llm:
        settings = os_settings.with_overrides(results_prefix=f"{os_settings.index_alias}-results", llm_base_url=llm.base_url,
                           llm_model="scripted", react_rounds=3, llm_concurrency=2)
        index_dataset(settings, data)
        from nomos.cli import cli

        res = CliRunner().invoke(cli, ["--port", str(settings.http_port), "--index", settings.index_alias, "eval", "--method", "react",
                                       "--dataset", str(folder), "--runs-dir", str(settings.runs_dir), "--llm-base-url", llm.base_url,
                                       "--llm-model", "scripted", "--rounds", "3", "--to-opensearch", "--results-prefix",
                                       settings.results_prefix], env={"NOMOS_CACHE_DIR": str(settings.cache_dir)})
    assert res.exit_code == 0, res.output
    assert "result indices" in res.output
    rounds = client.search(index=index_name(settings.results_prefix, "react_rounds"), body={"sort": [{"round": "asc"}]})["hits"]["hits"]
    assert [h["_source"]["round"] for h in rounds] == [1, 2, 3] and rounds[0]["_source"]["scripted_llm"] is True
    assert client.count(index=index_name(settings.results_prefix, "traces"))["count"] == 2 * 3  # queries x rounds
    trace = client.get(index=index_name(settings.results_prefix, "traces"), id="mini/react/q1/round-01")["_source"]
    assert trace["candidates"] > 0 and trace["kept_gold"] == 1 and trace["calls"] >= 2
    client.indices.delete(index=f"{settings.results_prefix}-*")


def test_docker_compose_imports_the_saved_objects():
    import yaml

    from tests.conftest import ROOT

    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    svc = compose["services"]["dashboards-import"]
    src, dst = svc["volumes"][0].split(":")[:2]
    assert (ROOT / src).resolve() == SAVED_OBJECTS
    cmd = " ".join(svc["command"])
    assert "/api/saved_objects/_import?overwrite=true" in cmd and "osd-xsrf: true" in cmd and f"file=@{dst}" in cmd
    assert svc["depends_on"]["dashboards"]["condition"] == "service_healthy" and "healthcheck" in compose["services"]["dashboards"]
