"""The legal graph's extractor measured on hand-checked samples: precision on edges drawn at random from its output
and checked by reading the text, recall on references found by reading random articles (issue 25).

The samples are committed (tests/fixtures/graph/precision.json, recall.json; how each was drawn is in its
``about``); the articles' text is read from corpus.jsonl. What precision and recall mean here, and the functions
that score them, are nomos/eval/graph_quality.py's: this script prints them per batch (``--show``: the misses), and
tests/test_graph_quality.py asserts them: the whole sample's floor, the held-out batch's recorded score, recall
>= 0.90 on >= 50 references. ``--draw SEED`` draws a fresh batch to judge (the edges the current extractor gives,
less those the sample already holds), the way v6-heldout-2028 was drawn.

Usage:
  .venv/bin/python bench/graph_quality.py [--data ../shared/data/greek-statutes] [--show]
  .venv/bin/python bench/graph_quality.py --draw 2028 --size 160 --batch v6-heldout-2028 > batch.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from nomos.eval.graph_quality import draw_batch, load_sample, precision, precision_by_batch, recall, recall_by_batch
from nomos.stages.graph import quality_corpus

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "graph"
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "greek-statutes"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="BEIR folder with corpus.jsonl")
    ap.add_argument("--show", action="store_true", help="list the wrong and missed edges")
    ap.add_argument("--draw", type=int, metavar="SEED", help="print a fresh batch to judge (JSON) and stop")
    ap.add_argument("--size", type=int, default=160, help="edges in the drawn batch")
    ap.add_argument("--batch", default="heldout", help="the drawn batch's name")
    args = ap.parse_args()
    corpus = quality_corpus(args.data)
    if args.draw is not None:
        batch = draw_batch(corpus, load_sample(FIXTURES / "precision.json")["edges"], args.draw, args.size, args.batch)
        print(json.dumps(batch, ensure_ascii=False, indent=1))
        return
    rows = []
    for name, fn, key in (("precision", precision, "edges"), ("recall", recall, "references")):
        path = f"{name}.json"
        if not (FIXTURES / path).is_file():
            continue
        s = fn(corpus, load_sample(FIXTURES / path)[key])
        rows.append((name, s))
        print(f"{name:9s} {s.ratio:.3f}  ({s.right}/{s.total}; right id whatever the kind: {s.right_id}/{s.total}"
              + (f"; withdrawn since sampled: {s.withdrawn}" if name == "precision" else "") + ")")
        if name == "precision":
            for batch, b in precision_by_batch(corpus, load_sample(FIXTURES / path)[key]).items():
                print(f"  {batch:17s} {b.ratio:.3f}  ({b.right}/{b.total}, wrong {b.total - b.right}; right id whatever"
                      f" the kind: {b.right_id}/{b.total}; withdrawn since sampled: {b.withdrawn})")
        else:
            for batch, b in recall_by_batch(corpus, load_sample(FIXTURES / path)[key]).items():
                print(f"  {batch:17s} {b.ratio:.3f}  ({b.right}/{b.total}; right id whatever the kind: {b.right_id}/{b.total};"
                      f" distinct references {b.spans_right}/{b.spans})")
        if args.show:
            for m in s.misses:
                print("   ", m)


if __name__ == "__main__":
    main()
