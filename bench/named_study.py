"""Find by name through the search path (nomos.stages.searching, as `cli.py search` and the portal call it):
Precision@1 of generated citation forms of stand-in articles, and of every code title used as a query.

Citation forms (nomos.legal.text.citation_forms, the generator the resolver's tests use): for a seeded sample of
articles of the Penal Code and of the laws and decrees, the ways a lawyer writes them («άρθρο 372 ΠΚ», «άρθρ. 372 Π.Κ.», «ΠΚ 372», «372 ΠΚ», Latin look-alike suffixes, «του άρθρου 372 του
Ποινικού Κώδικα», «άρθρο 21 ν. 4624/2019», «ν. 4624/2019 άρθρο 21», «Ν.4624/2019 αρ. 21», «αρ. 21 του Ν.4624/2019»).
Titles: every non-empty title of the codes (relevant: the code's articles with that title).

Usage: .venv/bin/python bench/named_study.py --dataset ../shared/data/greek-statutes [--method bm25] [--sample 120]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nomos.ingest.loader import load_dataset
from nomos.legal.text.citation_forms import citation_forms
from nomos.legal.text.folding import fold
from nomos.settings import Settings
from nomos.stages.searching import SearchRequest, SearchStage

EDGE = " \t\n.,;:!?«»\"'()[]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--method", default="bm25")
    ap.add_argument("--sample", type=int, default=120)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    data = load_dataset(args.dataset)
    searcher = SearchStage(Settings.from_env())
    ids = sorted(a.id for a in data.articles if a.id.startswith(("PK::", "N_", "PD_")))
    chosen = random.Random(args.seed).sample(ids, args.sample)
    cases = [(form, {doc_id}) for doc_id in chosen for form in citation_forms(doc_id)]
    titles: dict[str, set[str]] = {}
    for a in data.articles:
        if a.source == "PK" and fold(a.title).strip(EDGE):
            titles.setdefault(fold(a.title).strip(EDGE), set()).add(a.id)
    shown = {fold(a.title).strip(EDGE): a.title.strip(EDGE) for a in data.articles if a.source == "PK"}
    out = {}
    for name, items in (("citations", cases), ("titles", [(shown[t], rel) for t, rel in sorted(titles.items())])):
        started = time.perf_counter()
        wrong = []
        for query, relevant in items:
            page = searcher.search(SearchRequest(query, args.method, 10, facets=False))
            if not page.hits or page.hits[0].doc_id not in relevant:
                wrong.append((query, page.hits[0].doc_id if page.hits else None))
        seconds = time.perf_counter() - started
        out[name] = {"queries": len(items), "p@1": 1 - len(wrong) / len(items), "wrong": wrong[:20],
                     "ms_per_query": 1000 * seconds / len(items)}
        print(f"{name:<10} {len(items):>4} queries  P@1 {out[name]['p@1']:.4f}  ({len(wrong)} wrong, "
              f"{out[name]['ms_per_query']:.1f} ms/query, method {args.method})")
        for query, got in wrong[:10]:
            print(f"    {query!r} -> {got}")
    if args.json:
        args.json.write_text(json.dumps(out, ensure_ascii=False, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
