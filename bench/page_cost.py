"""Where a results page's time goes inside OpenSearch: the portal's own page requests, sent as they are and with one
part removed or changed at a time, side by side over the stand-in's real queries (sequential, one connection).

BM25 (``--method bm25``): each variant is the page's body (ranking, snippets, facets, count) from
:class:`BM25Retriever` and the portal's facet aggregations, changed in one way. Hybrid (``--method hybrid``, an
index with the embedder's vectors): the page's two requests apart, BM25's and kNN's top 100 (sent together in
one ``_msearch`` by the portal) and the page over the fused ranking, with kNN's search and the page changed one
way at a time. The script prints OpenSearch's mean ``took``, the client's median, and the ratio to the first
variant. Sequential timings show what each part costs; whether that moves p95 under load is
bench/portal_load.py's question.

``--load``: each variant under the portal bench's load instead, sent straight to the node by wrk (8 connections,
the 24 queries' bodies in rotation, ``--duration`` seconds, the variants one after another, ``--rounds`` times):
the node's CPU per request, its p50 / p95 and requests/s. Sequential requests pay a thread hand-off and wake-up
per request that a loaded node shares out, so these are the figures to set against the portal's CPU per page
(issue 38's floors: docs/benchmarks.md "Where a results page's time goes").

    .venv/bin/python bench/page_cost.py --dataset ../shared/data/greek-statutes [--index nomos-articles]
        [--method bm25|hybrid] [--rounds 5] [--variants full,no_highlight,...] [--load [--connections 8]]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from portal_load import LUA_DONE, cpu_ms, run_wrk  # noqa: E402

from nomos.opensearch.client import make_client  # noqa: E402
from nomos.opensearch.transport import Transport  # noqa: E402
from nomos.pages.facets import facet_aggs  # noqa: E402
from nomos.pages.request import PAGE_FILTER, PageRequest, decorate_body, ranking_page_body  # noqa: E402
from nomos.pages.snippets import SNIPPET_FALLBACK_CHARS, STANDING_SOURCE, snippet_request  # noqa: E402
from nomos.retrieval.base import TIE_SORT, score_ordered  # noqa: E402
from nomos.retrieval.bm25 import BM25Retriever  # noqa: E402
from nomos.retrieval.registry import MethodOptions, make_retriever  # noqa: E402
from nomos.settings import Settings  # noqa: E402


def _text_hl(b: dict[str, Any]) -> dict[str, Any]:
    return b["highlight"]["fields"]["text"]


def _edit(change: Callable[[dict[str, Any], str], Any]) -> Callable[[dict[str, Any], str], None]:
    """A variant that changes the page body in place (what ``change`` returns is dropped)."""
    def edit(b: dict[str, Any], q: str) -> None:
        change(b, q)
    return edit


# name -> (what it changes, the change: edits the full page body of query q in place, or returns a new body)
VARIANTS: dict[str, tuple[str, Callable[[dict[str, Any], str], dict[str, Any] | None]]] = {
    "full": ("the page as the portal sends it (score order, one hit more: retrieval.base.exact_page)", _edit(lambda b, q: None)),
    "tie_sort": ("sorted by (score, article id), as every page was before issue 38",
                 lambda b, q: {**b, "size": b["size"] - 1, "sort": TIE_SORT, "track_scores": True}),
    "law_subagg": ("with the law name under every source bucket (the page before Portal.laws)",
                   _edit(lambda b, q: b["aggs"].update(facet_aggs(15)))),
    "no_highlight": ("no snippets", _edit(lambda b, q: b.pop("highlight"))),
    "no_highlight_text": ("no snippets, each hit's text and text in force in the response instead (what snippets made by "
                          "the portal would read)", _edit(lambda b, q: (b.pop("highlight"), b.update(
                              _source=[*b["_source"], "text", "in_force_text"])))),
    "no_aggs": ("no facets, no exact count", _edit(lambda b, q: (b.pop("aggs"), b.update(track_total_hits=False)))),
    "hl_1fragment": ("one snippet instead of two", _edit(lambda b, q: _text_hl(b).update(number_of_fragments=1))),
    "hl_word": ("boundary_scanner word (single-word snippets)", _edit(lambda b, q: _text_hl(b).update(boundary_scanner="word"))),
    "hl_10words": ("snippets marked for the case's first 10 words only",
                   _edit(lambda b, q: _text_hl(b)["highlight_query"]["match"]["text"].update(query=" ".join(q.split()[:10])))),
    "hl_distinct": ("snippets' query with each word once (the same terms)",
                    _edit(lambda b, q: _text_hl(b)["highlight_query"]["match"]["text"].update(query=" ".join(dict.fromkeys(q.split()))))),
    "hl_whole": ("each text highlighted whole (number_of_fragments 0): OpenSearch's marks without its passages",
                 _edit(lambda b, q: [f.update(number_of_fragments=0) for f in b["highlight"]["fields"].values()])),
    "hl_lead": ("issue 51: each text highlighted whole as NOMOS_SNIPPETS=lead asks (a BM25 page shows no text without "
                "a mark: the same request as hl_whole)", lambda b, q: {**b, **snippet_request(q, 0, mode="lead")}),
    "hl_sentence": ("passages of whole sentences (fragment_size 0: no bounded sentence scanner)",
                    _edit(lambda b, q: [f.update(fragment_size=0) for f in b["highlight"]["fields"].values()])),
    "hl_plain": ("issue 51: the plain highlighter (the text analysed again), fragmenter simple: no sentence scanner",
                 _edit(lambda b, q: [f.update(type="plain", fragmenter="simple") for f in b["highlight"]["fields"].values()])),
    "hl_fvh": ("issue 51: the fast vector highlighter, boundary_scanner chars (needs term vectors with offsets: an index "
               "made with bench/snippet_index.py)", _edit(lambda b, q: [f.update(type="fvh", boundary_scanner="chars")
                                                                       for f in b["highlight"]["fields"].values()])),
    "no_in_force_hl": ("snippets of the text only, not of the text in force",
                       _edit(lambda b, q: b["highlight"]["fields"].pop("in_force_text", None))),
    "docvalue_fields": ("law, source and title from doc values (title.raw) instead of the filtered _source",
                        _edit(lambda b, q: (b.update({"_source": False, "docvalue_fields": ["law", "source", "title.raw"]})))),
    "total_approx": ("OpenSearch's default count (exact up to 10,000) instead of track_total_hits: true",
                     _edit(lambda b, q: b.pop("track_total_hits", None))),
    "no_standing": ("without the standing's _source paths (in_force.status, .amendments, .applied.action, "
                    ".applied.source, inserted_into: issue 50's marks on each hit)",
                    _edit(lambda b, q: b.update(_source=[p for p in b["_source"] if p not in STANDING_SOURCE]))),
    "source_only": ("ranking + title/law/source from _source, nothing else",
                    lambda b, q: {"size": b["size"], "query": b["query"], "_source": b["_source"]}),
    "bare": ("ranking only (ids)", lambda b, q: {"size": b["size"], "query": b["query"], "stored_fields": "_none_"}),
}


DEPTH = 100  # hybrid's pool and lists (FusionConfig.depth)


def _knn_list(fusion: Any, q: str, **change: Any) -> dict[str, Any]:
    knn = dataclasses.replace(fusion.knn, **change)
    return knn.body(fusion.knn.query_vectors([q])[0], DEPTH)


def _page(fusion: Any, q: str, k: int) -> dict[str, Any]:
    bm25, knn, _ = fusion._both_lists(q, DEPTH)
    ranked = fusion._pool({"q": q}, {"q": bm25}, {"q": knn}, DEPTH)["q"]
    return ranking_page_body(PageRequest(fusion.transport, fusion.index, q, facet_aggs(15, law_names=False)), ranked, k)


def _decorate(fusion: Any, q: str, k: int) -> dict[str, Any]:
    bm25, knn, _ = fusion._both_lists(q, DEPTH)
    return decorate_body(fusion._pool({"q": q}, {"q": bm25}, {"q": knn}, DEPTH)["q"][:k], q, snippets="sentences")


def _whole(body: dict[str, Any]) -> dict[str, Any]:
    for f in body["highlight"]["fields"].values():
        f["number_of_fragments"] = 0
    return body


# name -> (what it is, the request body of query q with the page size k)
HYBRID_VARIANTS: dict[str, tuple[str, Callable[[Any, str, int], dict[str, Any]]]] = {
    "page": ("the page over the fused ranking (script_score by position, facets, snippets)", _page),
    "page_no_highlight": ("the same without snippets", lambda f, q, k: {kk: v for kk, v in _page(f, q, k).items() if kk != "highlight"}),
    "page_no_standing": ("the page without the standing's _source paths (issue 50's marks)",
                         lambda f, q, k: {**(b := _page(f, q, k)), "_source": [p for p in b["_source"] if p not in STANDING_SOURCE]}),
    "decorate": ("the learned ranker's page (hybrid's default): titles, laws, standing and snippets of the top k by "
                 "ids (retrieval.decorate; here the fused top k)", lambda f, q, k: _decorate(f, q, k)),
    "decorate_no_standing": ("the same without the standing's _source paths",
                             lambda f, q, k: {**(b := _decorate(f, q, k)),
                                              "_source": [p for p in b["_source"] if p not in STANDING_SOURCE]}),
    "page_whole": ("issue 51: the same, each text highlighted whole (NOMOS_SNIPPETS=whole)", lambda f, q, k: _whole(_page(f, q, k))),
    "page_lead": ("issue 51: the same as NOMOS_SNIPPETS=lead asks (each text whole; a text with no mark's first "
                  "600 characters)", lambda f, q, k: {**_page(f, q, k),
                                                      **snippet_request(q, SNIPPET_FALLBACK_CHARS, mode="lead")}),
    "bm25_list": ("BM25's top 100, ids only", lambda f, q, k: f.bm25.request(q, DEPTH)[1]),
    "knn_list": ("kNN's top 100 (HNSW, ef_search 256)", lambda f, q, k: _knn_list(f, q)),
    "knn_list_ef100": ("kNN's top 100 with ef_search 100", lambda f, q, k: _knn_list(f, q, ef_search=100)),
    "knn_list_exact": ("kNN's top 100, exact (knn_score over every article)", lambda f, q, k: _knn_list(f, q, exact=True)),
}


def page_body(bm25: BM25Retriever, query: str, k: int) -> dict[str, Any]:
    """The BM25 page's request body as the portal sends it (nomos.pages.results with the portal's law names; by score
    alone, one hit deeper, the sorted request only on a tie at the page's edge)."""
    page = PageRequest(bm25.transport, bm25.index, query, facet_aggs(15, law_names=False), fallback=False)
    return score_ordered(bm25.faceted_body(query, k, page), k)


def local_node_pid(client: Any) -> int | None:
    """The node's pid when it is a process on this machine (its /proc readable), else None."""
    try:
        pid = int(next(iter(client.nodes.info(metric="process")["nodes"].values()))["process"]["id"])
        Path(f"/proc/{pid}/stat").read_text()
    except (OSError, KeyError, StopIteration, ValueError):
        return None
    return pid


def node_cpu(client: Any) -> Callable[[], float] | None:
    """The local node's CPU time in ms so far (from /proc), or None when the node is not a process here."""
    pid = local_node_pid(client)
    return None if pid is None else (lambda: cpu_ms(pid))


def variant_body(name: str, bm25: BM25Retriever, query: str, k: int) -> dict[str, Any]:
    body = page_body(bm25, query, k)
    replaced = VARIANTS[name][1](body, query)
    return body if replaced is None else replaced


# the POST request of --load; wrk's report is portal_load's, which run_wrk reads
WRK_LUA = r"""
local bodies = {%(bodies)s}
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("POST", "%(path)s", {["Content-Type"] = "application/json"}, bodies[(counter %% #bodies) + 1])
end
"""


def lua_string(text: str) -> str:
    """``text`` as a Lua long string whose brackets it cannot close."""
    level = 1
    while f"]{'=' * level}]" in text:
        level += 1
    return f"[{'=' * level}[{text}]{'=' * level}]"


def load_variants(url: str, index: str, names: list[str], bodies: dict[str, list[dict[str, Any]]],
                  node: int, connections: int, duration: int, rounds: int) -> dict[str, list[dict[str, float]]]:
    """Each variant's bodies in rotation under wrk (``connections``, ``duration`` s; portal_load's ``run_wrk``), the
    variants one after another, ``rounds`` times: per run the node's (pid ``node``) CPU per request, p50 / p95 and
    requests/s."""
    if not shutil.which("wrk"):
        raise SystemExit("--load needs wrk: apt-get install -y wrk")
    path = f"/{index}/_search?filter_path={PAGE_FILTER}"
    runs: dict[str, list[dict[str, float]]] = {n: [] for n in names}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(rounds):
            for n in names:
                script = Path(tmp) / f"{n}.lua"
                script.write_text((WRK_LUA + LUA_DONE) % {"path": path, "bodies": ", ".join(
                    lua_string(json.dumps(b, ensure_ascii=False)) for b in bodies[n])}, encoding="utf-8")
                r = run_wrk(url, script, connections, duration, 1, {"opensearch": node})
                if r["errors"]:
                    raise SystemExit(f"variant {n}: {r['errors']} of {r['requests']} requests failed under load (wrk sends "
                                     "no credentials: --load wants the open local node)")
                runs[n].append({"cpu_ms": r["cpu_ms_per_request"]["opensearch"], "p50_ms": r["p50_ms"],
                                "p95_ms": r["p95_ms"], "rps": r["rps"]})
    return runs


def print_load(index: str, method: str, names: list[str], table: dict[str, Any], runs: dict[str, list[dict[str, float]]],
               connections: int, duration: int, queries: int) -> None:
    base = statistics.mean(r["cpu_ms"] for r in runs[names[0]])
    print(f"index {index}, {method}, {queries} queries' bodies in rotation, {connections} connections, {duration} s a run, "
          f"{len(runs[names[0]])} runs per variant\n")
    print(f"| variant | what it is | node CPU ms per request (each run) | p50 ms | p95 ms | requests/s | CPU / {names[0]} |\n"
          "| --- | --- | --- | --- | --- | --- | --- |")
    for n in names:
        rs = runs[n]
        cpu = statistics.mean(r["cpu_ms"] for r in rs)
        each = ", ".join(f"{r['cpu_ms']:.2f}" for r in rs)
        print(f"| {n} | {table[n][0]} | {cpu:.2f} ({each}) | {statistics.median(r['p50_ms'] for r in rs):.1f} | "
              f"{statistics.median(r['p95_ms'] for r in rs):.1f} | {statistics.median(r['rps'] for r in rs):.0f} | {cpu / base:.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default=str(ROOT.parent / "shared" / "data" / "greek-statutes"))
    ap.add_argument("--index", default=None, help="index or alias (default: NOMOS_INDEX / the settings' alias)")
    ap.add_argument("--method", choices=("bm25", "hybrid"), default="bm25")
    ap.add_argument("--rounds", type=int, default=5, help="passes over the queries per variant")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--variants", default=None, help="comma-separated (default: all of the method's)")
    ap.add_argument("--load", action="store_true", help="each variant under wrk's load instead of one request at a time")
    ap.add_argument("--connections", type=int, default=8, help="--load: wrk's connections (the portal bench's 8)")
    ap.add_argument("--duration", type=int, default=15, help="--load: seconds per variant and run")
    args = ap.parse_args()
    table = VARIANTS if args.method == "bm25" else HYBRID_VARIANTS
    names = [v.strip() for v in (args.variants or ",".join(table)).split(",") if v.strip()]
    bad = [n for n in names if n not in table]
    if bad:
        raise SystemExit(f"--variants: unknown {bad}; choose from {', '.join(table)}")
    settings = Settings.from_env()
    index = args.index or settings.index_alias
    client = make_client(settings.cluster)
    if not client.indices.exists(index=index):
        raise SystemExit(f"--index {index}: no such index or alias on {settings.url} (index the stand-in first: cli.py index)")
    if args.method == "bm25":
        bm25 = BM25Retriever(Transport(client), index)

        def body_of(n: str, q: str) -> dict[str, Any]:
            return variant_body(n, bm25, q, args.k)
    else:
        # the fusion itself (its lists and page), not the learned ranker the method now has by default
        fusion = make_retriever(settings.model_copy(update={"index_alias": index}), "hybrid", client,
                                MethodOptions(rerank="none"))

        def body_of(n: str, q: str) -> dict[str, Any]:
            return HYBRID_VARIANTS[n][1](fusion, q, args.k)
    queries = [json.loads(line)["text"] for line in Path(args.dataset, "queries.jsonl").read_text(encoding="utf-8").splitlines()
               if line.strip()]
    for q in queries:  # warm every variant's caches and JIT paths
        for n in names:
            client.search(index=index, body=body_of(n, q))
    if args.load:
        node = local_node_pid(client)
        if node is None:
            raise SystemExit("--load measures the node's CPU from /proc: run it beside the project's local node")
        bodies = {n: [body_of(n, q) for q in queries] for n in names}
        runs = load_variants(settings.url, index, names, bodies, node, args.connections, args.duration, args.rounds)
        print_load(index, args.method, names, table, runs, args.connections, args.duration, len(queries))
        return
    took: dict[str, list[float]] = {n: [] for n in names}
    wall: dict[str, list[float]] = {n: [] for n in names}
    cpu_of = node_cpu(client)
    cpu: dict[str, float] = {n: 0.0 for n in names}
    for _ in range(args.rounds):
        for q in queries:
            for n in names:  # interleaved, so a slow moment of the machine hits every variant alike
                body = body_of(n, q)
                c0 = cpu_of() if cpu_of else 0.0
                t = time.perf_counter()
                resp = client.search(index=index, body=body, params={"filter_path": PAGE_FILTER + ",took"})
                wall[n].append(1000 * (time.perf_counter() - t))
                cpu[n] += (cpu_of() - c0) if cpu_of else 0.0
                took[n].append(float(resp["took"]))
    base = statistics.mean(took[names[0]])
    print(f"index {index}, {args.method}, {len(queries)} queries x {args.rounds} rounds, k={args.k}\n")
    print(f"| variant | what it is | took mean ms | client median ms | node CPU ms per request | took / {names[0]} |\n"
          "| --- | --- | --- | --- | --- | --- |")
    for n in names:
        mean = statistics.mean(took[n])
        per = f"{cpu[n] / len(took[n]):.2f}" if cpu_of else "n/a (node not local)"
        print(f"| {n} | {table[n][0]} | {mean:.2f} | {statistics.median(wall[n]):.2f} | {per} | {mean / base:.2f} |")


if __name__ == "__main__":
    main()
