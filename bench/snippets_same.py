"""Issue 51: the portal's results pages with today's snippets and with new ones are byte-identical but for the
snippets. Two portals in this process (FastAPI's TestClient), NOMOS_SNIPPETS ``sentences`` and the new kind, serve
every query's page, and the two pages are compared with their snippet paragraphs
(``<p class="snippet">…</p>``) and their timing line (``· 12 ms``) taken out; the script prints how many pages were
compared, how many differ elsewhere (it exits 1 on any), and how many differ in their snippets.

    NOMOS_HTTP_PORT=<node> .venv/bin/python bench/snippets_same.py [--new whole] [--method bm25,hybrid]
        [--sets dev,everyday,case-files] [--k 10]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomos.pages import passages  # noqa: E402

SNIPPET = re.compile(r'<p class="snippet">.*?</p>', re.S)
TOOK = re.compile(r"· [0-9]+ ms")
SETS = {"dev": ROOT.parent / "shared" / "data" / "greek-statutes" / "queries.jsonl",
        "everyday": ROOT / "bench" / "data" / "everyday" / "queries.jsonl",
        "case-files": ROOT / "bench" / "data" / "case-files" / "queries.jsonl"}


def main() -> None:
    from fastapi.testclient import TestClient

    from nomos.portal import create_app
    from nomos.settings import Settings

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--new", choices=[m for m in passages.MODES if m != "sentences"], default="whole")
    ap.add_argument("--method", default="bm25,hybrid")
    ap.add_argument("--sets", default="dev,everyday,case-files")
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    settings = Settings.from_env().with_overrides(search_rate="1000000/second")
    queries = [json.loads(line)["text"] for s in args.sets.split(",") for line in
               SETS[s].read_text(encoding="utf-8").splitlines() if line.strip()]
    compared = other = snippets_differ = 0
    modes = ("sentences", args.new)
    with TestClient(create_app(settings.with_overrides(snippets=modes[0])), base_url="http://localhost") as old_web, \
            TestClient(create_app(settings.with_overrides(snippets=modes[1])), base_url="http://localhost") as new_web:
        for method in args.method.split(","):
            for q in queries:
                pages = {}
                for mode, web in zip(modes, (old_web, new_web), strict=True):
                    r = web.post("/search", data={"q": q, "method": method, "k": str(args.k)}, follow_redirects=True)
                    if r.status_code != 200:
                        raise SystemExit(f"{method} page of {q[:60]!r}: HTTP {r.status_code}")
                    pages[mode] = TOOK.sub("", r.text)
                compared += 1
                old, new = pages["sentences"], pages[args.new]
                if SNIPPET.sub("", old) != SNIPPET.sub("", new):
                    other += 1
                    print(f"differs beyond its snippets: {method} {q[:60]!r}", file=sys.stderr)
                snippets_differ += old != new
    print(f"{compared} pages ({args.method}; {args.sets}): {other} differ beyond their snippets, {snippets_differ} in "
          f"their snippets (sentences against {args.new})")
    if other:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
