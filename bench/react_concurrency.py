"""How the ReAct-BM25 evaluation scales with concurrency, and what our own loop costs per round.

A scripted OpenAI-protocol server (tests/llm_server.py, in its own process) answers every call after a fixed
delay, like an endpoint of fixed latency and ample throughput. Each concurrency level runs the full evaluation
with an empty reply cache, so every call is really made. Reported: wall time, speed-up over concurrency 1, and
from the traces our own per-round overhead (BM25 search, mget of the 100 candidates' full texts, prompt
rendering, batching, parsing, bookkeeping: the round's time minus the time spent awaiting the LLM).

The numbers measure the machinery only: the server is an oracle that knows the gold articles, not an LLM.

    python bench/react_concurrency.py --port 9200 --dataset ../shared/data/greek-statutes --delay 0.5 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomos.ingest.loader import load_dataset  # noqa: E402
from nomos.settings import Settings  # noqa: E402
from nomos.stages.evaluation import evaluate_method  # noqa: E402


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def start_server(dataset: Path, delay: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "tests.llm_server", "--dataset", str(dataset), "--delay", str(delay)],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", type=Path, default=ROOT.parent / "shared" / "data" / "greek-statutes")
    ap.add_argument("--port", type=int, default=9200, help="OpenSearch port; the alias must hold --dataset.")
    ap.add_argument("--delay", type=float, default=0.5, help="Seconds the scripted server takes per call.")
    ap.add_argument("--concurrency", default="1,2,4,8,16")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", type=Path, default=None, help="Write the results as JSON here.")
    args = ap.parse_args()

    data = load_dataset(str(args.dataset))
    proc, url = start_server(args.dataset, args.delay)
    rows = []
    try:
        for c in (int(x) for x in args.concurrency.split(",")):
            with tempfile.TemporaryDirectory() as tmp:
                settings = Settings.from_env().with_overrides(http_port=args.port, llm_base_url=url, llm_model="scripted",
                                   llm_concurrency=c, react_rounds=args.rounds, runs_dir=Path(tmp) / "runs",
                                   cache_dir=Path(tmp) / "cache")
                started = time.perf_counter()
                out = evaluate_method(settings, data, method="react", run_name=f"bench-c{c}")
                wall = time.perf_counter() - started
                traces = [json.loads(x) for x in out.paths["traces"].read_text().splitlines()]
                cost = json.loads(out.paths["cost"].read_text())
            rounds = [r for t in traces for r in t["rounds"]]
            rows.append({
                "concurrency": c, "query_phase_s": round(out.seconds, 2), "wall_s": round(wall, 2),
                "calls": cost["total"]["calls"], "paid_calls": cost["paid_calls_this_run"],
                "recall@100": round(out.evaluation.mean["recall@100"], 4),
                "overhead_ms_p50": round(pct([r["overhead_ms"] for r in rounds], 0.5), 1),
                "overhead_ms_p90": round(pct([r["overhead_ms"] for r in rounds], 0.9), 1),
                "search_ms_p50": round(pct([r["search_ms"] for r in rounds], 0.5), 1),
                "fetch_ms_p50": round(pct([r["fetch_ms"] for r in rounds], 0.5), 1),
                "overhead_ms_mean": round(statistics.fmean(r["overhead_ms"] for r in rounds), 1),
            })
            print(json.dumps(rows[-1]), flush=True)
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    base = rows[0]["query_phase_s"] * rows[0]["concurrency"]
    print(f"\n24-query react evaluation, {args.rounds} rounds, scripted server answering after {args.delay}s per call\n")
    print("| concurrency | query phase (s) | speed-up | ideal | LLM calls | overhead/round p50 (ms) | p90 | search p50 | fetch p50 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['concurrency']} | {r['query_phase_s']:.1f} | {base / r['query_phase_s']:.1f}× | {r['concurrency'] / rows[0]['concurrency'] * 1:.0f}× | "
              f"{r['calls']:.0f} | {r['overhead_ms_p50']} | {r['overhead_ms_p90']} | {r['search_ms_p50']} | {r['fetch_ms_p50']} |")
    if args.out:
        args.out.write_text(json.dumps({"delay": args.delay, "rounds": args.rounds, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
