"""Load test of the portal's search pages (BM25 and hybrid, side by side) on loopback, with wrk (Debian's package).

It makes sure the stand-in is indexed behind the alias on the dev node (indexing only when the alias is missing or
holds other data; with ``--method hybrid`` also the embedder's vectors, which come from the vector cache when it
holds them and are encoded otherwise, about 45 minutes on a CPU), starts ``cli.py serve`` with N uvicorn workers
and no access log, warms up, then for each method runs wrk for a bounded time at 8 and at 32 connections over the
stand-in's real queries (a Lua script rotates the URLs) and prints p50 / p95 / p99 latency and throughput per
method. The portal is stopped at the end (by its own pid).

    .venv/bin/python bench/portal_load.py --dataset ../shared/data/greek-statutes [--duration 20] [--workers 2]
        [--method bm25,hybrid] [--connections 8,32] [--heavy]

``--method home`` loads the portal's front page, which searches nothing: what every page costs the portal before
its search (the framework, the middleware, the rate limits, a template), beside the results pages' figures.

``--heavy`` (issue 26): the stand-in plus one article of the largest size ingest allows (NOMOS_MAX_ARTICLE_BYTES)
behind ``<alias>-heavy``; each wrk run is made twice, alone and while one more client fetches that article's page
with the query highlighted and ``?full=1`` (the costliest page a reader can ask for) in a loop, and the wrk
clients' p50 / p95 are printed side by side with how many heavy pages were served. The portal's per-client rate
limits are lifted for the run (it measures capacity, not the limits).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomos.ingest.beir import QRELS, QUERIES  # noqa: E402
from nomos.ingest.indexer import index_meta  # noqa: E402
from nomos.ingest.loader import load_dataset  # noqa: E402
from nomos.opensearch.client import cluster_version, make_client  # noqa: E402
from nomos.opensearch.node import NodeConfig, running_pid  # noqa: E402
from nomos.opensearch.transport import Transport  # noqa: E402
from nomos.retrieval.knn import index_has_vectors  # noqa: E402
from nomos.retrieval.registry import method_spec  # noqa: E402
from nomos.settings import Settings  # noqa: E402
from nomos.stages.indexing import index_dataset  # noqa: E402

# wrk's report, one RESULT line of JSON that run_wrk reads (bench/page_cost.py --load's POST script ends with it too)
LUA_DONE = r"""
done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format('RESULT {"requests": %%d, "seconds": %%.3f, "errors": %%d, "p50_ms": %%.2f, "p95_ms": %%.2f, "p99_ms": %%.2f, "max_ms": %%.2f, "mean_ms": %%.2f}\n',
    summary.requests, summary.duration / 1e6, errors, latency:percentile(50) / 1000, latency:percentile(95) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000, latency.mean / 1000))
end
"""
LUA = r"""
local paths = {%(paths)s}
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter %% #paths) + 1])
end
""" + LUA_DONE


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


METHODS = ("bm25", "hybrid")
# pages that search nothing, beside the methods' results pages: the portal's own floor per page (framework,
# middleware, rate limits, the page's template) that every results page pays before its search (issue 38)
FLOORS = {"home": "/"}


def ensure_indexed(settings: Settings, dataset: str, vectors: bool = False) -> None:
    """The dataset behind the alias (and, with ``vectors``, the embedder's vector field), indexed only if missing."""
    client = make_client(settings.cluster)
    cluster_version(client, settings.cluster)
    data = load_dataset(dataset)
    try:
        same = index_meta(client, settings.index_alias).get("dataset", {}).get("fingerprint") == data.fingerprint
    except Exception:  # no alias yet
        same = False
    missing_vectors = vectors and not (same and index_has_vectors(Transport(client), settings.index_alias, settings.embedder))
    if not same or missing_vectors:
        what = f" with {settings.embedder} vectors (from the vector cache where it has them)" if vectors else ""
        print(f"indexing {dataset} behind {settings.index_alias}{what} …", flush=True)
        index_dataset(settings, data, client=client, embedders=(settings.embedder,) if vectors else ())
    return None


HEAVY_ID = "BENCH::1"


def heavy_dataset(dataset: str, folder: Path, max_bytes: int) -> str:
    """``dataset`` plus one article of ``max_bytes`` bytes of Greek text (the largest ingest allows), in ``folder``."""
    src = Path(dataset)
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    shutil.copy(src / QUERIES, folder / QUERIES)
    shutil.copy(src / QRELS, folder / QRELS)
    words = [w for line in (src / "corpus.jsonl").open(encoding="utf-8") for w in json.loads(line)["text"].split()[:50]][:20_000]
    text, size, i = [], 0, 0
    while True:
        w = words[i % len(words)]
        if size + len(w.encode()) + 1 > max_bytes:
            break
        text.append(w)
        size += len(w.encode()) + 1
        i += 1
    big = {"_id": HEAVY_ID, "title": "Άρθρο του μέγιστου επιτρεπτού μεγέθους", "text": " ".join(text), "source": "BENCH",
           "law": "Δοκιμή φόρτου"}
    with (folder / "corpus.jsonl").open("w", encoding="utf-8") as out:
        out.write((src / "corpus.jsonl").read_text(encoding="utf-8"))
        out.write(json.dumps(big, ensure_ascii=False) + "\n")
    return str(folder)


class HeavyClient(threading.Thread):
    """One client fetching ``url`` again and again until stopped: how many pages, and their mean time."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.stop, self.times, self.bytes, self.failed = url, threading.Event(), [], 0, 0

    def run(self) -> None:
        while not self.stop.is_set():
            t = time.perf_counter()
            try:
                with urllib.request.urlopen(self.url, timeout=60) as r:
                    self.bytes = len(r.read())
            except OSError:
                self.failed += 1
            self.times.append(time.perf_counter() - t)


def wait_up(base: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "/api/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise SystemExit("the portal did not come up")


def cpu_ms(pid: int | None) -> float:
    """CPU time (user + system) used so far by a process and its live descendants (uvicorn's workers), in ms;
    0 when it is unknown or gone."""
    if pid is None:
        return 0.0
    try:
        f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0.0
    return (int(f[11]) + int(f[12])) * 1000 / os.sysconf("SC_CLK_TCK") + sum(cpu_ms(int(c)) for c in children)


def node_pid(settings: Settings) -> int | None:
    """The local node's JVM (to account its CPU per page); None for a remote cluster."""
    if not settings.uses_local_node:
        return None
    return running_pid(NodeConfig(root=settings.node_root, name=settings.node_name, http_port=settings.http_port,
                                  transport_port=settings.transport_port))


def parse_methods(raw: str) -> list[str]:
    """``--method``: a comma-separated subset of METHODS and FLOORS, in the order given."""
    methods = [m.strip() for m in raw.split(",") if m.strip()]
    bad = [m for m in methods if m not in METHODS and m not in FLOORS]
    if bad or not methods:
        raise SystemExit(f"--method: choose from {', '.join((*METHODS, *FLOORS))} (comma-separated), got {raw!r}")
    return methods


def run_wrk(base: str, script: Path, connections: int, duration: int, threads: int, pids: dict[str, int | None]) -> dict:
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--timeout", "5s", "-s", str(script), base]
    def children_ms() -> float:  # CPU of reaped children so far: wrk's own once it has exited
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return 1000 * (usage.ru_utime + usage.ru_stime)

    before = {name: cpu_ms(pid) for name, pid in pids.items()}
    children_before = children_ms()
    wrk = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    out, _ = wrk.communicate(timeout=duration + 60)
    if wrk.returncode:
        raise SystemExit(f"wrk failed (exit {wrk.returncode})")
    line = next(ln for ln in out.splitlines() if ln.startswith("RESULT "))
    r = json.loads(line[len("RESULT "):])
    r["rps"] = r["requests"] / r["seconds"]
    # CPU per request by process: where the 2 cores go (the budget that bounds throughput)
    r["cpu_ms_per_request"] = {name: round((cpu_ms(pid) - before[name]) / max(r["requests"], 1), 2) for name, pid in pids.items()}
    r["cpu_ms_per_request"]["wrk"] = round((children_ms() - children_before) / max(r["requests"], 1), 2)
    r["connections"] = connections
    r["command"] = " ".join(cmd[:-3] + ["<rotating stand-in queries>", base])
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default=str(ROOT.parent / "shared" / "data" / "greek-statutes"))
    ap.add_argument("--duration", type=int, default=20, help="seconds per wrk run")
    ap.add_argument("--workers", type=int, default=2, help="uvicorn workers")
    ap.add_argument("--threads", type=int, default=1, help="wrk threads (one keeps 32 connections busy and leaves the cores to the portal)")
    ap.add_argument("--connections", default="8,32")
    ap.add_argument("--method", default=",".join(METHODS),
                    help="pages to load, comma-separated: bm25, hybrid (default both; hybrid needs the embedder's vectors), "
                         "home (the search form, no search: the portal's own floor per page)")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "portal_load.json"))
    ap.add_argument("--heavy", action="store_true",
                    help="each run alone and beside one client loading the largest allowed article's full page")
    args = ap.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk not found: apt-get install -y wrk")

    methods = parse_methods(args.method)
    settings = Settings.from_env()
    dataset = args.dataset
    heavy_tmp = tempfile.TemporaryDirectory() if args.heavy else None
    if heavy_tmp is not None:
        settings = settings.with_overrides(index_alias=settings.index_alias + "-heavy")
        dataset = heavy_dataset(args.dataset, Path(heavy_tmp.name), settings.max_article_bytes)
    ensure_indexed(settings, dataset, vectors=any(m in METHODS and method_spec(m).needs_vectors for m in methods))
    queries = [json.loads(line)["text"] for line in Path(args.dataset, "queries.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    paths = {m: [FLOORS[m]] if m in FLOORS else [f"/search?q={quote(q)}&method={m}" + (f"&k={args.k}" if args.k != 10 else "")
                                               for q in queries] for m in methods}

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "NOMOS_INDEX": settings.index_alias,
           "NOMOS_SEARCH_RATE": "1000000/second", "NOMOS_JUDGMENT_RATE": "1000000/second"}
    portal = subprocess.Popen(
        [sys.executable, "cli.py", "serve", "--portal-port", str(port), "--workers", str(args.workers), "--log-level", "warning"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    results = []
    print(f"load average before: {os.getloadavg()}", flush=True)
    try:
        wait_up(base)
        pids = {"portal": portal.pid, "opensearch": node_pid(settings)}  # portal.pid: uvicorn, with its workers
        for method in methods:
            for p in paths[method] * 3:  # warm up every worker's connections, caches and (hybrid) encoder
                urllib.request.urlopen(base + p, timeout=60).read()
        with tempfile.TemporaryDirectory() as tmp:
            for c in (int(x) for x in args.connections.split(",")):
                for method in methods:  # side by side at each connection count
                    script = Path(tmp) / f"rotate-{method}.lua"
                    script.write_text(LUA % {"paths": ", ".join(json.dumps(p) for p in paths[method])}, encoding="utf-8")
                    for heavy in ((False, True) if args.heavy else (False,)):
                        hog = HeavyClient(f"{base}/articles/{quote(HEAVY_ID)}?q={quote(queries[0][:200])}&full=1") if heavy else None
                        if hog:
                            hog.start()
                        try:
                            r = {"method": method, "heavy": heavy, **run_wrk(base, script, c, args.duration, args.threads, pids)}
                        finally:
                            if hog:
                                hog.stop.set()
                                hog.join(timeout=70)
                        if hog:
                            r["heavy_pages"] = len(hog.times)
                            r["heavy_failed"] = hog.failed
                            r["heavy_page_bytes"] = hog.bytes
                            r["heavy_mean_ms"] = round(1000 * sum(hog.times) / max(len(hog.times), 1), 1)
                        results.append(r)
                        cpu = ", ".join(f"{k} {v:.1f}" for k, v in r["cpu_ms_per_request"].items())
                        beside = (f"; beside {r['heavy_pages']} full pages of the largest article ({r['heavy_page_bytes']:,} bytes, "
                                  f"{r['heavy_mean_ms']:.0f} ms each)") if heavy else ""
                        print(f"{method:>6} {c:>3} connections: p50 {r['p50_ms']:.1f} ms  p95 {r['p95_ms']:.1f} ms  p99 {r['p99_ms']:.1f} ms  "
                              f"{r['rps']:.0f} req/s  ({r['requests']} requests, {r['errors']} errors){beside}; CPU ms/request: {cpu}",
                              flush=True)
    finally:
        os.killpg(portal.pid, signal.SIGTERM)
        portal.wait(timeout=30)
        if heavy_tmp is not None:
            heavy_tmp.cleanup()
    info = {"load_average_after": os.getloadavg(), "queries": len(queries), "methods": methods, "workers": args.workers,
            "duration_s": args.duration, "k": args.k,
            "cpus": os.cpu_count(), "index": settings.index_alias, "results": results}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(info, indent=2), encoding="utf-8")
    print("| method | connections | beside the largest article | p50 ms | p95 ms | p99 ms | req/s | errors | "
          "CPU ms/request (portal / OpenSearch / wrk) |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        c = r["cpu_ms_per_request"]
        beside = f"{r['heavy_pages']} pages, {r['heavy_mean_ms']:.0f} ms each" if r.get("heavy") else "no"
        print(f"| {r['method']} | {r['connections']} | {beside} | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} | {r['p99_ms']:.1f} | "
              f"{r['rps']:.0f} | {r['errors']} | {c['portal']:.1f} / {c['opensearch']:.1f} / {c['wrk']:.1f} |")


if __name__ == "__main__":
    main()
