"""Benchmark: the project's OpenSearch BM25 against the paper's pipeline, on the same data, in one run.

The paper's pipeline (:mod:`nomos.eval.paper_bm25`: rank_bm25 ``BM25Okapi`` k1 = 1.5, b = 0.75 over accent-stripped,
upper-cased, stop-listed, Snowball-stemmed tokens of title + text) and the project's BM25 (OpenSearch, the
``greek_stemmed`` chain, same k1/b) index the same corpus and answer the same queries. Printed, as a markdown
table: index time, query-phase time per query and the paper's five metrics, side by side, with ratios (speed-up
for times, ours/paper for metrics); the ``ntais`` and ``folded`` chains are extra columns for transparency, not a
choice among them. Machine facts and the exact command line come with the table, so the numbers can be quoted.

This is a benchmark, not a test: it needs a running node and takes about a minute; run it by hand::

    .venv/bin/python bench/bm25_vs_paper.py --dataset ../shared/data/greek-statutes

It rebuilds the indices behind ``--index`` (``bench-articles`` by default) from scratch so that the index time is a
full build, never a resumed one, and refuses the project's default alias for that reason.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere: the project's packages live at the root
    sys.path.insert(0, str(ROOT))

from opensearchpy import OpenSearch  # noqa: E402
from opensearchpy.exceptions import ConnectionError as OSConnectionError  # noqa: E402

from nomos.eval.metrics import METRICS, evaluate  # noqa: E402
from nomos.eval.paper_bm25 import PaperBM25, PaperTokenizer, overlap, ratio  # noqa: E402
from nomos.eval.runs import Run  # noqa: E402
from nomos.ingest.loader import load_dataset  # noqa: E402
from nomos.ingest.records import Dataset, Qrels  # noqa: E402
from nomos.opensearch.client import ClusterUnavailable, cluster_version, make_client  # noqa: E402
from nomos.retrieval.registry import MethodOptions, make_retriever  # noqa: E402
from nomos.settings import DEFAULT_ALIAS, Settings  # noqa: E402
from nomos.stages.indexing import index_dataset  # noqa: E402

K = 100
ANALYSES = ("stemmed", "ntais", "folded")
POLL_S = 20.0
DASH = "—"


@dataclass
class Column:
    """One system's numbers: index build, query phase over all queries (per repeat), the run it produced."""

    name: str
    index_s: float | None
    phase_s: list[float]  # seconds for the whole query set, one entry per timed repeat
    queries: int
    run: Run
    metrics: dict[str, float] = field(default_factory=dict)
    sequential_s: list[float] = field(default_factory=list)  # one request per query (OpenSearch only)
    stable: bool = True  # every repeat returned the same run

    def ms_per_query(self, how: Callable[[list[float]], float], phase: list[float] | None = None) -> float | None:
        times = self.phase_s if phase is None else phase
        return how(times) / self.queries * 1000 if times else None

    def ms_per_single_query(self, how: Callable[[list[float]], float]) -> float | None:
        """One request per query; the Python pipeline only ever answers one query at a time."""
        return self.ms_per_query(how, self.sequential_s or self.phase_s)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dataset", default="../shared/data/greek-statutes", help="BEIR folder (default: %(default)s)")
    p.add_argument("--repeats", type=int, default=5, help="timed passes over all queries (default: %(default)s)")
    p.add_argument("--index", default="bench-articles", help="alias to (re)build for the benchmark (default: %(default)s)")
    p.add_argument("--out", type=Path, help="also write every number as JSON here")
    p.add_argument(
        "--wait-node", type=float, default=0.0, metavar="SECONDS",
        help=f"if no node answers, poll every {POLL_S:.0f} s for up to this long (default: %(default)s)",
    )
    args = p.parse_args(argv)
    if args.repeats < 1:
        p.error("--repeats must be at least 1")
    return args


def _loadavg() -> float | None:
    """The 1-minute load average: on a 2-core machine, anything else running shows up in every time measured."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def command_line() -> str:
    """The command as typed from the repository root (interpreter path relative when it lives under the cwd)."""
    exe = sys.executable
    rel = os.path.relpath(exe)
    return shlex.join([exe if rel.startswith("..") else rel, *sys.argv])


def load(path: str) -> Dataset:
    folder = Path(path)
    if not (folder / "corpus.jsonl").is_file():
        sys.exit(
            f"bm25_vs_paper: no dataset at {folder} (expected a BEIR folder with corpus.jsonl, queries.jsonl, "
            "qrels/test.tsv); pass --dataset PATH, e.g. --dataset ../shared/data/greek-statutes"
        )
    return load_dataset(str(folder))


# ---------------------------------------------------------------------------------------------- paper pipeline


def bench_paper(dataset: Dataset, repeats: int, name: str, tokenizer: PaperTokenizer) -> Column:
    """Build the rank_bm25 index (timed), then ``repeats`` timed passes of every query through it."""
    started = time.perf_counter()
    paper = PaperBM25.from_articles(dataset.articles, tokenizer=tokenizer)
    index_s = time.perf_counter() - started
    queries = [(q.id, q.text) for q in dataset.queries]
    phase: list[float] = []
    runs: list[Run] = []
    for _ in range(repeats):
        started = time.perf_counter()
        run = {qid: paper.search(text, K) for qid, text in queries}
        phase.append(time.perf_counter() - started)
        runs.append(run)
    return Column(name, index_s, phase, len(queries), runs[-1], stable=all(r == runs[0] for r in runs))


# ---------------------------------------------------------------------------------------------- OpenSearch


def wait_for_node(client: OpenSearch, settings: Settings, wait_s: float) -> str:
    """The node's version; polls every ``POLL_S`` seconds for up to ``wait_s`` when nothing answers yet."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return cluster_version(client, settings.cluster)
        except ClusterUnavailable as exc:
            if time.monotonic() >= deadline:
                sys.exit(f"bm25_vs_paper: {exc}")
            print(f"# no node at {settings.url} yet; retrying in {POLL_S:.0f} s", file=sys.stderr, flush=True)
            time.sleep(POLL_S)


def drop_bench_indices(client: OpenSearch, alias: str) -> list[str]:
    """Delete the versioned indices behind ``alias`` (``{alias}-<10 hex>``) so the timed build starts empty."""
    pattern = re.compile(rf"^{re.escape(alias)}-[0-9a-f]{{10}}$")
    existing = client.indices.get(index=f"{alias}-*", expand_wildcards="open,closed", ignore_unavailable=True)
    doomed = sorted(n for n in existing if pattern.match(n))
    for name in doomed:
        client.indices.delete(index=name)
    return doomed


def node_facts(client: OpenSearch) -> dict[str, Any]:
    """Heap and processors of the node(s) serving the benchmark: the numbers depend on both."""
    facts: dict[str, Any] = {}
    try:
        stats = client.nodes.stats(metric="jvm")
        info = client.nodes.info(metric="os")
        heaps = [n["jvm"]["mem"]["heap_max_in_bytes"] for n in stats["nodes"].values()]
        cpus = [n["os"].get("allocated_processors") or n["os"].get("available_processors") for n in info["nodes"].values()]
        facts = {"nodes": len(heaps), "node_heap_max_mib": [round(h / 2**20) for h in heaps], "node_processors": cpus}
    except Exception as exc:  # facts are a courtesy: never fail a benchmark over them
        facts = {"node_facts_error": f"{type(exc).__name__}: {exc}"}
    return facts


def bench_opensearch(
    settings: Settings, client: OpenSearch, dataset: Dataset, repeats: int
) -> tuple[list[Column], dict[str, Any]]:
    """Full index build (timed), then per analysis chain: one warm-up pass and ``repeats`` timed passes."""
    dropped = drop_bench_indices(client, settings.index_alias)
    started = time.perf_counter()
    report = index_dataset(settings, dataset, client=client)
    index_s = time.perf_counter() - started
    queries = {q.id: q.text for q in dataset.queries}
    columns: list[Column] = []
    for analysis in ANALYSES:
        retriever = make_retriever(settings, "bm25", client, MethodOptions(analysis=analysis))
        retriever.search_many(queries, K)  # warm-up: caches, JIT, connection pool; not timed
        phase: list[float] = []
        runs: list[Run] = []
        for _ in range(repeats):
            started = time.perf_counter()
            hits = retriever.search_many(queries, K).hits
            phase.append(time.perf_counter() - started)
            runs.append({qid: [(h.doc_id, h.score) for h in hs] for qid, hs in hits.items()})
        sequential: list[float] = []
        for _ in range(repeats):
            started = time.perf_counter()
            for text in queries.values():
                retriever.search(text, K)
            sequential.append(time.perf_counter() - started)
        name = "OpenSearch BM25" if analysis == "stemmed" else f"OpenSearch {analysis}"
        columns.append(
            Column(
                name,
                index_s if analysis == "stemmed" else None,
                phase,
                len(queries),
                runs[-1],
                sequential_s=sequential,
                stable=all(r == runs[0] for r in runs),
            )
        )
    info = {
        "index": report.index,
        "documents": report.documents,
        "created": report.created,
        "dropped_before": dropped,
        "index_report_seconds": report.seconds,
    }
    return columns, info


# ---------------------------------------------------------------------------------------------- report


def found(run: Run, qrels: Qrels, k: int) -> int:
    """How many (query, relevant article) pairs the run retrieves in its top ``k``: the counts behind Recall@k."""
    return sum(1 for q, docs in qrels.items() for d, g in docs.items() if g > 0 and d in {x for x, _ in run.get(q, [])[:k]})


def render(paper: Column, ours: Column, extras: Sequence[Column], repeats: int, qrels: Qrels) -> str:
    """The markdown table: paper | ours | ratio | extra columns."""

    def fmt(v: float | None, digits: int) -> str:
        return DASH if v is None else f"{v:.{digits}f}"

    med, best = statistics.median, min
    head = [" ", paper.name, ours.name, "ratio", *(c.name for c in extras)]
    rows: list[list[str]] = []
    rows.append(
        ["index time (s)", fmt(paper.index_s, 2), fmt(ours.index_s, 2), ratio(paper.index_s, ours.index_s, True)]
        + [fmt(c.index_s, 2) if c.index_s is not None else "same index" for c in extras]
    )
    for label, how in ((f"query phase, median of {repeats} (ms/query)", med), (f"query phase, best of {repeats} (ms/query)", best)):
        p, o = paper.ms_per_query(how), ours.ms_per_query(how)
        rows.append([label, fmt(p, 2), fmt(o, 2), ratio(p, o, True)] + [fmt(c.ms_per_query(how), 2) for c in extras])
    p, o = paper.ms_per_single_query(med), ours.ms_per_single_query(med)
    rows.append(
        ["one request per query, median (ms/query)", fmt(p, 2), fmt(o, 2), ratio(p, o, True)]
        + [fmt(c.ms_per_single_query(med), 2) for c in extras]
    )
    for m in METRICS:
        label = m.replace("recall", "Recall").replace("ndcg", "nDCG").replace("map", "MAP")
        pv, ov = paper.metrics[m], ours.metrics[m]
        rows.append([label, fmt(pv, 4), fmt(ov, 4), ratio(ov, pv, False)] + [fmt(c.metrics[m], 4) for c in extras])
    judged = sum(1 for docs in qrels.values() for g in docs.values() if g > 0)
    p, o = found(paper.run, qrels, K), found(ours.run, qrels, K)
    rows.append(
        [f"gold articles in top {K} (of {judged})", str(p), str(o), ratio(float(o), float(p), False)]
        + [str(found(c.run, qrels, K)) for c in extras]
    )
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.index == DEFAULT_ALIAS:
        sys.exit(f"bm25_vs_paper: --index {DEFAULT_ALIAS} is the project's live alias; the benchmark rebuilds its "
                 "indices from scratch, so give it its own alias (default bench-articles)")
    dataset = load(args.dataset)
    command = command_line()
    load_before = _loadavg()
    print(f"# dataset {dataset.name}: {len(dataset.articles)} articles, {len(dataset.queries)} queries, "
          f"fingerprint {dataset.fingerprint[:12]}", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="bench-bm25-") as tmp:
        settings = Settings.from_env().with_overrides(index_alias=args.index, runs_dir=Path(tmp))
        client = make_client(settings.cluster)
        version = wait_for_node(client, settings, args.wait_node)
        # OpenSearch first, right after the node answered; the slow Python pipeline needs no node.
        print(f"# OpenSearch {version}: full build of {settings.index_alias} …", file=sys.stderr, flush=True)
        try:
            os_columns, index_info = bench_opensearch(settings, client, dataset, args.repeats)
        except OSConnectionError:
            sys.exit(f"bm25_vs_paper: the node at {settings.url} stopped answering during the benchmark; "
                     "nothing was recorded, run it again once the node is back")
        facts = node_facts(client)

    print("# paper pipeline: building rank_bm25 index …", file=sys.stderr, flush=True)
    paper = bench_paper(dataset, args.repeats, "paper pipeline", PaperTokenizer())
    print("# paper pipeline without its stop list (transparency) …", file=sys.stderr, flush=True)
    nostop = bench_paper(dataset, args.repeats, "paper, no stop list", PaperTokenizer(stopwords=()))

    for col in (paper, nostop, *os_columns):
        col.metrics = evaluate(col.run, dataset.qrels, METRICS).mean
    ours, extras = os_columns[0], [*os_columns[1:], nostop]

    machine = {
        "date_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "cpu_cores": os.cpu_count(),
        "load_average_1m_before_after": [load_before, _loadavg()],
        "platform": platform.platform(),
        "python": platform.python_version(),
        "opensearch_version": version,
        "opensearch_url": settings.url,
        **facts,
        "dataset": dataset.name,
        "dataset_fingerprint": dataset.fingerprint[:12],
        "articles": len(dataset.articles),
        "queries": len(dataset.queries),
        "judgments": sum(len(v) for v in dataset.qrels.values()),
    }
    agreement = {f"overlap@{k}": overlap(paper.run, ours.run, k) for k in (10, 100)}

    print(render(paper, ours, extras, args.repeats, dataset.qrels))
    print()
    print(f"- command: `{command}`")
    print("- machine: " + ", ".join(f"{k} {v}" for k, v in machine.items()))
    print(f"- OpenSearch: full build of `{index_info['index']}` ({index_info['documents']} documents) behind alias "
          f"`{settings.index_alias}`; every query pass batched through `_msearch` (k = {K}); one untimed warm-up "
          f"pass per chain before the {args.repeats} timed ones; \"one request per query\" sends each query alone")
    print(f"- paper pipeline: rank_bm25 BM25Okapi k1 = 1.5, b = 0.75, {len(PaperTokenizer().stopwords)} stop words; "
          "index time = tokenising + stemming every article + building BM25Okapi; query phase = tokenising the query "
          "+ scoring every article + top-100")
    print(f"- agreement paper vs OpenSearch BM25 (mean share of common ids): top-10 {agreement['overlap@10']:.2f}, "
          f"top-100 {agreement['overlap@100']:.2f}")
    print("- same run on every repeat: " + ", ".join(f"{c.name} {'yes' if c.stable else 'NO'}" for c in (paper, nostop, *os_columns)))

    if args.out:
        cols = {
            c.name: {
                "index_s": c.index_s,
                "query_phase_s": c.phase_s,
                "sequential_s": c.sequential_s,
                "ms_per_query_median": c.ms_per_query(statistics.median),
                "ms_per_query_best": c.ms_per_query(min),
                "metrics": c.metrics,
                "gold_found_at_100": found(c.run, dataset.qrels, K),
                "stable": c.stable,
            }
            for c in (paper, nostop, *os_columns)
        }
        payload = {"command": command, "machine": machine, "index": index_info, "agreement": agreement, "columns": cols}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
