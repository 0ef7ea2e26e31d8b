"""Where a results page's CPU goes, per request kind: every request one portal page sends (captured from the real
:class:`~nomos.stages.searching.SearchStage`), re-sent with OpenSearch's profile API, and the page's own Python time.

For each dev query and method the script runs ``SearchStage.search`` once to learn the requests the page sends (the
transport's calls are recorded, not changed), then re-sends every ``_search`` and ``_msearch`` item with
``"profile": true`` and sums the shard profile's parts over the queries: the query phase (by query type: the
top-level ``BooleanQuery``, ``TermQuery``… with their ``create_weight``/``build_scorer``/``next_doc``/``score``
split), the collectors (top docs, sort), the aggregations, and the fetch phase (``_source``, highlight). Then it
times the page in Python: ``time.process_time`` around ``SearchStage.search`` (this process's CPU: building bodies,
parsing JSON, reading names, marks), with cProfile's top functions by own time.

    .venv/bin/python bench/page_profile.py --dataset ../shared/data/greek-statutes [--index nomos-dense-reg]
        [--method bm25,hybrid] [--rounds 5] [--top 15]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomos.opensearch.transport import Transport  # noqa: E402
from nomos.settings import Settings  # noqa: E402
from nomos.stages.searching import SearchRequest, SearchStage  # noqa: E402


class Recorder:
    """Wraps a Transport's search and msearch to record (kind, index, body) per call; everything else passes."""

    def __init__(self, transport: Transport) -> None:
        self.calls: list[tuple[str, str, dict[str, Any]]] = []
        self._search, self._msearch, self._mget = transport.search, transport.msearch, transport.mget
        transport.search = self.search  # type: ignore[method-assign]
        transport.msearch = self.msearch  # type: ignore[method-assign]
        transport.mget = self.mget  # type: ignore[method-assign]

    def search(self, index: str, body: Any, **kw: Any) -> Any:
        self.calls.append(("search", index, dict(body)))
        return self._search(index, body, **kw)

    def msearch(self, lines: Any, **kw: Any) -> Any:
        for header, body in zip(lines[::2], lines[1::2], strict=True):
            self.calls.append(("msearch", header.get("index", ""), dict(body)))
        return self._msearch(lines, **kw)

    def mget(self, index: str, ids: Any, **kw: Any) -> Any:
        self.calls.append(("mget", index, {"ids": list(ids)}))
        return self._mget(index, ids, **kw)


def _ms(ns: float) -> float:
    return ns / 1e6


def profile_parts(resp: dict[str, Any]) -> dict[str, float]:
    """One profiled response's parts in ms: query (by type), rewrite, collectors, aggregations, fetch."""
    parts: dict[str, float] = defaultdict(float)
    for shard in resp.get("profile", {}).get("shards", []):
        for search in shard.get("searches", []):
            for q in search.get("query", []):  # the top-level query's own time includes its children's
                parts["query (all)"] += _ms(q["time_in_nanos"])
                for child in q.get("children", []) or []:
                    parts[f"  query: {child['type']}"] += _ms(child["time_in_nanos"])
            parts["rewrite"] += _ms(search.get("rewrite_time", 0))
            for c in search.get("collector", []):
                parts["collectors"] += _ms(c["time_in_nanos"])
        for agg in shard.get("aggregations", []):
            parts[f"agg: {agg['description']}"] += _ms(agg["time_in_nanos"])
        fetch = shard.get("fetch")
        if fetch:
            parts["fetch (all)"] += _ms(fetch["time_in_nanos"])
            for child in fetch.get("children", []) or []:
                parts[f"  fetch: {child['type']}"] += _ms(child["time_in_nanos"])
    return parts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default=str(ROOT.parent / "shared" / "data" / "greek-statutes"))
    ap.add_argument("--index", default=None)
    ap.add_argument("--method", default="bm25,hybrid")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    settings = Settings.from_env()
    if args.index:
        settings = settings.model_copy(update={"index_alias": args.index})
    queries = [json.loads(line)["text"] for line in Path(args.dataset, "queries.jsonl").read_text(encoding="utf-8").splitlines()
               if line.strip()]
    searcher = SearchStage(settings)
    client = searcher.client
    for method in [m.strip() for m in args.method.split(",") if m.strip()]:
        requests_by_query: list[list[tuple[str, str, dict[str, Any]]]] = []
        searcher.search(SearchRequest(queries[0], method, 10))  # builds the method's retrievers (and transports)
        for q in queries:
            rec_transports = _transports(searcher)
            recorders = [Recorder(t) for t in rec_transports]
            searcher.search(SearchRequest(q, method, 10))
            for t in rec_transports:  # restore
                for name in ("search", "msearch", "mget"):
                    t.__dict__.pop(name, None)
            requests_by_query.append([c for r in recorders for c in r.calls])
        kinds = [(i, c[0]) for i, c in enumerate(requests_by_query[0])]
        print(f"\n## {method}: {len(queries)} queries; requests per page: "
              f"{statistics.mean(len(r) for r in requests_by_query):.1f} ({', '.join(k for _, k in kinds)} for the first)")
        # OpenSearch: each request re-sent with the profile on, parts summed, mean per page
        totals: dict[str, float] = defaultdict(float)
        took: dict[str, float] = defaultdict(float)
        for calls in requests_by_query:
            for n, (kind, index, body) in enumerate(calls):
                label = f"request {n + 1} ({kind}{', ' + _what(body) if kind != 'mget' else ''})"
                if kind == "mget":
                    started = time.perf_counter()
                    client.mget(index=index, body={"ids": body["ids"]}, params={"_source_includes": "title"})
                    took[label] += 1000 * (time.perf_counter() - started)
                    continue
                resp = client.search(index=index, body={**body, "profile": True})
                took[label] += resp.get("took", 0)
                for part, ms in profile_parts(resp).items():
                    totals[f"{label} {part}"] += ms
        n_q = len(requests_by_query)
        print("\n| OpenSearch, mean per page | ms |\n| --- | --- |")
        for label, ms in took.items():
            print(f"| {label}: took | {ms / n_q:.2f} |")
        for part, ms in sorted(totals.items()):
            if ms / n_q >= 0.05:
                print(f"| {part} | {ms / n_q:.2f} |")
        # Python: the page's own CPU in this process
        for q in queries:
            searcher.search(SearchRequest(q, method, 10))  # warm
        cpu: list[float] = []
        prof = cProfile.Profile()
        for _ in range(args.rounds):
            for q in queries:
                c0 = time.process_time()
                prof.enable()
                searcher.search(SearchRequest(q, method, 10))
                prof.disable()
                cpu.append(1000 * (time.process_time() - c0))
        print(f"\nPython CPU per page (SearchStage.search, this process; profiler on): mean {statistics.mean(cpu):.2f} ms, "
              f"median {statistics.median(cpu):.2f} ms over {len(cpu)} pages")
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(args.top)
        print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[-4000:])


def _what(body: dict[str, Any]) -> str:
    parts = []
    if "knn" in json.dumps(body.get("query", {}))[:2000]:
        parts.append("knn")
    if body.get("highlight"):
        parts.append("highlight")
    if body.get("aggs") or body.get("aggregations"):
        parts.append("aggs")
    if body.get("stored_fields") == "_none_":
        parts.append("ids only")
    return "+".join(parts) or "plain"


def _transports(searcher: SearchStage) -> list[Transport]:
    """Every Transport the searcher's retrievers and page helpers send through (built on first use)."""
    seen: dict[int, Transport] = {id(searcher.transport): searcher.transport}
    for kept in searcher._shared.values():  # a bench looks inside
        r = kept._value
        _collect(r, seen)
    for r in getattr(searcher._local, "retrievers", {}).values():
        _collect(r, seen)
    return list(seen.values())


def _collect(obj: Any, seen: dict[int, Transport], depth: int = 0) -> None:
    if obj is None or depth > 3:
        return
    if isinstance(obj, Transport):
        seen[id(obj)] = obj
        return
    for value in getattr(obj, "__dict__", {}).values():
        if isinstance(value, Transport) or hasattr(value, "__dict__"):
            _collect(value, seen, depth + 1)


if __name__ == "__main__":
    main()
