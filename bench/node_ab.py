"""Two OpenSearch nodes on this machine, side by side, request by request: the CPU each spends on a results page's
requests (a node setting that cannot change at run time, such as the JVM's garbage collector, A/B'd without the
machine's other load falling on one side only).

Both nodes must hold the same index (``cli.py index`` on each). The request bodies are built once per query against
node A (bench/page_cost.py's: the BM25 page as the portal sends it, and the hybrid page's three requests: BM25's and
kNN's top 100 and the page over the fused ranking), then sent to A and B alternately (who goes first alternates
too), and each node's process CPU (``/proc/<pid>/stat``) is read around every request. Every response's hits and
snippets are compared between the nodes.

    .venv/bin/python bench/node_ab.py --a http://127.0.0.1:9290 --b http://127.0.0.1:9291 [--index nomos-dense-reg]
        [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from page_cost import HYBRID_VARIANTS, node_cpu, page_body  # noqa: E402

from nomos.opensearch.client import make_client  # noqa: E402
from nomos.opensearch.transport import Transport  # noqa: E402
from nomos.pages.request import PAGE_FILTER  # noqa: E402
from nomos.retrieval.bm25 import BM25Retriever  # noqa: E402
from nomos.retrieval.registry import MethodOptions, make_retriever  # noqa: E402
from nomos.settings import Settings  # noqa: E402

KINDS = ("bm25_page", "hybrid_bm25_list", "hybrid_knn_list", "hybrid_page")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", required=True, help="node A's URL")
    ap.add_argument("--b", required=True, help="node B's URL")
    ap.add_argument("--index", default="nomos-dense-reg")
    ap.add_argument("--dataset", default=str(ROOT.parent / "shared" / "data" / "greek-statutes"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    settings = {s: Settings.from_env().with_overrides(opensearch_url=url, index_alias=args.index)
                for s, url in (("A", args.a), ("B", args.b))}
    clients = {s: make_client(settings[s].cluster) for s in settings}
    cpu = {s: node_cpu(clients[s]) for s in clients}
    if not all(cpu.values()):
        raise SystemExit("both nodes must run on this machine (their CPU is read from /proc)")
    queries = [json.loads(line)["text"] for line in Path(args.dataset, "queries.jsonl").read_text(encoding="utf-8").splitlines()
               if line.strip()]
    bm25 = BM25Retriever(Transport(clients["A"]), args.index)
    fusion = make_retriever(settings["A"], "hybrid", clients["A"], MethodOptions())
    bodies = [{"bm25_page": page_body(bm25, q, args.k),
               "hybrid_bm25_list": HYBRID_VARIANTS["bm25_list"][1](fusion, q, args.k),
               "hybrid_knn_list": HYBRID_VARIANTS["knn_list"][1](fusion, q, args.k),
               "hybrid_page": HYBRID_VARIANTS["page"][1](fusion, q, args.k)} for q in queries]

    def send(s: str, body: dict[str, Any]) -> dict[str, Any]:
        return clients[s].search(index=args.index, body=body, params={"filter_path": PAGE_FILTER + ",took"})

    differ = 0
    for _ in range(3):  # warm-up: JIT, caches; and the answers compared
        for b in bodies:
            for kind in KINDS:
                got = {s: send(s, b[kind]) for s in ("A", "B")}
                differ += got["A"].get("hits") != got["B"].get("hits")
    used = {(k, s): 0.0 for k in KINDS for s in ("A", "B")}
    took = {(k, s): [] for k in KINDS for s in ("A", "B")}
    n = 0
    load_before = os.getloadavg()
    for r in range(args.rounds):
        for i, b in enumerate(bodies):
            for kind in KINDS:
                for s in (("A", "B") if (r + i) % 2 == 0 else ("B", "A")):
                    c0 = cpu[s]()
                    resp = send(s, b[kind])
                    used[(kind, s)] += cpu[s]() - c0
                    took[(kind, s)].append(float(resp["took"]))
            n += 1
    print(f"A = {args.a}, B = {args.b}, index {args.index}; {len(queries)} queries x {args.rounds} rounds; "
          f"load average before {load_before}, after {os.getloadavg()}; responses differing A/B in the warm-up: {differ}\n")
    print("| request | A CPU ms | B CPU ms | B / A | A took ms | B took ms |\n| --- | --- | --- | --- | --- | --- |")
    for kind in (*KINDS, "hybrid (3 requests)"):
        parts = KINDS[1:] if kind.startswith("hybrid (") else (kind,)
        a = sum(used[(p, "A")] for p in parts) / n
        bb = sum(used[(p, "B")] for p in parts) / n
        ta = sum(statistics.mean(took[(p, "A")]) for p in parts)
        tb = sum(statistics.mean(took[(p, "B")]) for p in parts)
        print(f"| {kind} | {a:.2f} | {bb:.2f} | {bb / a:.3f} | {ta:.2f} | {tb:.2f} |")


if __name__ == "__main__":
    main()
