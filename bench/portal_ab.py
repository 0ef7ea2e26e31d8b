"""Two portals side by side, request by request: the CPU each spends per results page, and whether they serve the
same page.

Starts ``cli.py serve`` (one uvicorn worker, no access log) from this checkout and from ``--base`` (another
checkout: a ``git archive`` of an older commit, say) on two free ports against the same cluster and index, warms
both, then sends the stand-in's dev queries' results pages one at a time, alternating A and B for every query, and
reads each portal's CPU time (``/proc/<pid>/stat``, user + system) and the OpenSearch node's around every request.
Sequential and interleaved, so a busy moment of a shared machine falls on both sides alike; what it measures is CPU
per page, not latency under load (that is bench/portal_load.py's). Every page's HTML is compared between the two
sides (``--same`` fails the run on a difference): a cut that is meant to change nothing the reader sees must serve
byte-identical pages (but for the page's own timing line).

    .venv/bin/python bench/portal_ab.py --base /tmp/base [--dataset ../shared/data/greek-statutes]
        [--method bm25,hybrid] [--rounds 10] [--same]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
CLK = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_ms(pid: int) -> float:
    """User + system CPU of one process so far, in ms (its threads included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / CLK


def node_pid(url: str) -> int | None:
    """The OpenSearch node's pid when it runs on this machine, else None."""
    try:
        info = json.load(urllib.request.urlopen(f"{url}/_nodes/_local/process", timeout=10))
        pid = int(next(iter(info["nodes"].values()))["process"]["id"])
        cpu_ms(pid)
        return pid
    except (OSError, KeyError, StopIteration, ValueError):
        return None


def start(checkout: Path, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "NOMOS_SEARCH_RATE": "1000000/second",
           "NOMOS_PAGE_RATE": "1000000/second", "NOMOS_JUDGMENT_RATE": "1000000/second"}
    env.pop("PYTHONPATH", None)
    return subprocess.Popen([sys.executable, "cli.py", "serve", "--portal-port", str(port), "--workers", "1",
                             "--log-level", "warning"], cwd=checkout, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def wait_up(base: str, seconds: float = 120.0) -> None:
    end = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(base + "/", timeout=5).read()
            return
        except OSError:
            if time.monotonic() > end:
                raise SystemExit(f"the portal at {base} did not come up in {seconds:.0f} s") from None
            time.sleep(0.5)


TOOK = re.compile("· [0-9]+ ms".encode())  # the page's own timing line: the only part that may differ


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.read()


def comparable(page: bytes) -> bytes:
    """A page without its timing (``· 12 ms`` in the summary line)."""
    return TOOK.sub(b"", page)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="the other checkout (side A); this one is side B")
    ap.add_argument("--dataset", default=str(ROOT.parent / "shared" / "data" / "greek-statutes"))
    ap.add_argument("--method", default="bm25,hybrid")
    ap.add_argument("--rounds", type=int, default=10, help="passes over the queries")
    ap.add_argument("--same", action="store_true", help="exit 1 when any page's HTML differs between the sides")
    args = ap.parse_args()
    methods = [m.strip() for m in args.method.split(",") if m.strip()]
    queries = [json.loads(line)["text"] for line in Path(args.dataset, "queries.jsonl").read_text(encoding="utf-8").splitlines()
               if line.strip()]
    sides = {"A": Path(args.base).resolve(), "B": ROOT}
    ports = {s: free_port() for s in sides}
    procs = {s: start(sides[s], ports[s]) for s in sides}
    os_url = os.environ.get("OPENSEARCH_URL") or f"http://127.0.0.1:{os.environ.get('NOMOS_HTTP_PORT', '9200')}"
    node = node_pid(os_url)
    print(f"A = {sides['A']}, B = {sides['B']}; load average before: {os.getloadavg()}", flush=True)
    try:
        for s in sides:
            wait_up(f"http://127.0.0.1:{ports[s]}")
        paths = {m: [f"/search?q={quote(q)}&method={m}" for q in queries] for m in methods}
        differ: dict[str, int] = {m: 0 for m in methods}
        for m in methods:  # warm-up: connections, caches, the encoder; and the pages compared once
            for _ in range(2):
                for p in paths[m]:
                    pages = {s: get(f"http://127.0.0.1:{ports[s]}{p}") for s in sides}
                    differ[m] += comparable(pages["A"]) != comparable(pages["B"])
        portal_cpu = {(m, s): [] for m in methods for s in sides}
        node_cpu = {(m, s): [] for m in methods for s in sides}
        wall = {(m, s): [] for m in methods for s in sides}
        for r in range(args.rounds):
            for m in methods:
                for i, p in enumerate(paths[m]):
                    order = ("A", "B") if (r + i) % 2 == 0 else ("B", "A")  # who goes first alternates too
                    for s in order:
                        c0, n0, t0 = cpu_ms(procs[s].pid), cpu_ms(node) if node else 0.0, time.perf_counter()
                        get(f"http://127.0.0.1:{ports[s]}{p}")
                        wall[(m, s)].append(1000 * (time.perf_counter() - t0))
                        portal_cpu[(m, s)].append(cpu_ms(procs[s].pid) - c0)
                        node_cpu[(m, s)].append((cpu_ms(node) - n0) if node else float("nan"))
        print(f"load average after: {os.getloadavg()}; {len(queries)} queries x {args.rounds} rounds per side\n")
        print("| method | side | portal CPU ms/page | OpenSearch CPU ms/page | client median ms | pages differing A/B |\n"
              "| --- | --- | --- | --- | --- | --- |")
        for m in methods:
            for s in sides:
                print(f"| {m} | {s} | {statistics.mean(portal_cpu[(m, s)]):.2f} | {statistics.mean(node_cpu[(m, s)]):.2f} | "
                      f"{statistics.median(wall[(m, s)]):.2f} | {differ[m]} of {2 * len(queries)} |")
        if args.same and any(differ.values()):
            raise SystemExit(1)
    finally:
        for proc in procs.values():
            proc.terminate()
        for proc in procs.values():
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
