"""Blind judging batches for the legal graph's extractor (issue 36), drawn with fixed seeds from its output on
corpus.jsonl, and their score once readers have judged them.

Writes, under bench/data/graph-judging/ (ids, short excerpts and edges; never whole articles):

* warnings.jsonl: edges drawn at random from the amendment-kind edges (amends, replaces, inserts, repeals) that land
  on a corpus article other than their source: what a lawyer meets as the page's warning and «Τροποποιήσεις»;
* random.jsonl: edges drawn at random from every edge that lands on a corpus article (a new seed; the edges of the
  hand-checked fixtures, tests/fixtures/graph/precision.json, and of warnings.jsonl are left out of the pool);
* recall.jsonl: passages (a line, or a sentence of a long line) drawn at random from corpus articles, among those
  where a plain pattern finds an article word and a number outside quoted new wording (the extractor plays no part
  in the draw), with some drawn from two strata: passages that qualify an article by a part or chapter
  («του άρθρου 43 του Κεφαλαίου Δ΄»), and passages with a bare article in an article whose opening sentence, title
  or item opening names the act it amends. Each passage carries the references the extractor found in it, for the
  scorer (readers list theirs first: README.md);
* about.json: seeds, sizes, pools, the extractor version and the corpus the draw read.

Readers judge from the text (bench/data/graph-judging/README.md); ``--score JUDGMENTS`` prints precision per batch
and recall per stratum (nomos/eval/graph_judging.py). ``--show ID`` prints an article's title and text, so a reader
can read past the excerpt.

Usage:
  PYTHONPATH=$PWD .venv/bin/python bench/graph_batches.py --dataset ../shared/data/greek-statutes
  PYTHONPATH=$PWD .venv/bin/python bench/graph_batches.py --score bench/data/graph-judging/judgments.jsonl
  PYTHONPATH=$PWD .venv/bin/python bench/graph_batches.py --show N_4772_2021::31
  PYTHONPATH=$PWD .venv/bin/python bench/graph_batches.py --changed bench/data/graph-judging/changed-v16.jsonl
  PYTHONPATH=$PWD .venv/bin/python bench/graph_batches.py --recall-only --seed 3611 --out-name recall-v16.jsonl
  PYTHONPATH=$PWD .venv/bin/python bench/graph_batches.py --score J --recall-file recall-v16.jsonl
  PYTHONPATH=$PWD .venv/bin/python bench/graph_batches.py --score J --reextract  (old passages, current lists)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nomos.eval.graph_judging import JudgmentError, load_judgments, read_jsonl, score_edges, score_passages, wilson
from nomos.ingest.beir import load_beir
from nomos.legal.graph.edges import REFERENCES_VERSION, Reference
from nomos.stages.graph_batches import (
    Corpus,
    dump_warnings,
    read_corpus,
    write_batches,
    write_fresh_recall,
    write_new_warnings,
)

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "data" / "graph-judging"
FIXTURE = ROOT / "tests" / "fixtures" / "graph" / "precision.json"


def _edge_key(source: str, start: int, end: int) -> tuple[str, int, int]:
    return source, start, end


def changed_edges(corpus: Corpus, out: Path) -> list[dict[str, Any]]:
    """The items of the judged precision batches (warnings, random) whose edge the current extractor no longer gives
    as drawn: none at the item's span with its cited article, target and kind. Each with what is given there now."""
    now: dict[tuple[str, int, int], list[Reference]] = {}
    for r in corpus.edges:
        now.setdefault(_edge_key(r.source, r.start, r.end), []).append(r)
    changed = []
    for name in ("warnings", "random"):
        for x in read_jsonl(out / f"{name}.jsonl"):
            there = now.get(_edge_key(x["source"], x["start"], x["end"]), [])
            if any((r.cited, r.target, r.kind) == (x["cited"], x["target"], x["kind"]) for r in there):
                continue
            changed.append({"id": x["id"], "batch": name, "source": x["source"], "start": x["start"], "end": x["end"],
                            "was": {"cited": x["cited"], "target": x["target"], "kind": x["kind"]},
                            "now": [{"cited": r.cited, "target": r.target, "kind": r.kind} for r in there]})
    return changed


def reextracted(corpus: Corpus, items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The recall passages with the current extractor's edges in place of those stored when they were drawn, to
    score another version on the same passages (for information: the readers judged the stored lists)."""
    by_source: dict[str, list[Reference]] = {}
    for r in corpus.edges:
        by_source.setdefault(r.source, []).append(r)
    return [{**x, "extracted": [{"span": " ".join(corpus.articles[x["source"]].text[r.start:r.end].split()),
                                 "cited": r.cited, "target": r.target, "kind": r.kind}
                                for r in by_source.get(x["source"], []) if x["start"] <= r.start < x["end"]]}
            for x in items]


def score(out: Path, judgments_path: Path, recall_file: str = "recall.jsonl", corpus: Corpus | None = None) -> None:
    judgments = load_judgments(judgments_path)
    for name in ("warnings", "random"):
        s = score_edges(name, read_jsonl(out / f"{name}.jsonl"), judgments)
        lo, hi = wilson(s.right, s.judged)
        print(f"{name:9s} precision {s.precision:.3f} ({s.right}/{s.judged}; Wilson 95% {lo:.3f}–{hi:.3f}; target "
              f"right {s.target_right}/{s.judged}, kind right {s.kind_right}/{s.judged}; unjudged {s.unjudged})")
        for kind, n in sorted(s.by_kind.items()):
            print(f"  {kind:9s} {s.right_by_kind[kind]}/{n}")
        for w in s.wrong:
            print(f"    {w}")
    passages_items = read_jsonl(out / recall_file)
    if corpus is not None:
        passages_items = reextracted(corpus, passages_items)
        print(f"recall lists re-extracted with extractor v{REFERENCES_VERSION}")
    recall = score_passages(passages_items, judgments)
    for stratum, r in recall.items():
        lo, hi = wilson(r.found, r.listed)
        print(f"recall {stratum:9s} {r.recall:.3f} ({r.found}/{r.listed} references in {r.passages} passages; Wilson 95% "
              f"{lo:.3f}–{hi:.3f}; with the kind {r.found_kind}/{r.listed}; extracted but not listed {r.extra}; "
              f"unjudged {r.unjudged})")
    for m in recall["all"].misses:
        print(f"    {m}")
    for m in recall["all"].outside:
        print(f"    not scored: {m}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", type=Path, default=ROOT.parent / "shared" / "data" / "greek-statutes")
    ap.add_argument("--corpus", default="corpus.jsonl")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--score", type=Path, metavar="JUDGMENTS", help="score the batches in --out against a judgments file")
    ap.add_argument("--recall-file", default="recall.jsonl", help="with --score: the recall batch to score")
    ap.add_argument("--reextract", action="store_true",
                    help="with --score: score the recall passages with the current extractor's lists")
    ap.add_argument("--show", metavar="ID", help="print an article's title and text")
    ap.add_argument("--recall-only", action="store_true",
                    help="draw a fresh recall batch only (--seed, --out-name), leaving recall.jsonl's passages out")
    ap.add_argument("--seed", type=int, default=3611)
    ap.add_argument("--out-name", default="recall-v16.jsonl")
    ap.add_argument("--exclude", nargs="+", default=["recall.jsonl"],
                    help="with --recall-only: the batches (in --out) whose passages the fresh one leaves out")
    ap.add_argument("--whole-references", action="store_true",
                    help="with --recall-only: run a passage on to the end of a citation its end cuts (v17 on)")
    ap.add_argument("--prefix", help="with --recall-only or --new-warnings: the items' id prefix (f, n by default)")
    ap.add_argument("--dump-warnings", metavar="FILE", type=Path,
                    help="write the warning edges (amendment edges landing on a corpus article) to FILE")
    ap.add_argument("--new-warnings", metavar="OLD", type=Path,
                    help="draw a batch (--seed, --out-name, --size, --prefix) of the warnings not in OLD "
                         "(a --dump-warnings file of another version)")
    ap.add_argument("--size", type=int, default=60, help="with --new-warnings: the batch's size")
    ap.add_argument("--changed", metavar="FILE",
                    help="write the precision batches' items whose edge the current extractor changes to FILE")
    args = ap.parse_args()
    if args.score:
        score(args.out, args.score, args.recall_file,
              read_corpus(args.dataset, args.corpus) if args.reextract else None)
        return
    if args.show:  # the articles only: a reader asks this dozens of times, and the graph is not needed for it
        article = next((a for a in load_beir(args.dataset, corpus_file=args.corpus).articles if a.id == args.show), None)
        if article is None:
            raise SystemExit(f"error: --show {args.show}: no such article in {args.dataset / args.corpus}")
        print(f"{article.id} | {article.title}\n{article.text}")
        return
    corpus = read_corpus(args.dataset, args.corpus)
    if args.dump_warnings:
        print(f"{dump_warnings(corpus, args.dump_warnings)} warning edges written to {args.dump_warnings}")
        return
    if args.new_warnings:
        print(json.dumps(write_new_warnings(corpus, args.out, args.new_warnings, args.seed, args.out_name, args.corpus,
                                            args.size, args.prefix or "n"),
                         ensure_ascii=False, indent=1))
        return
    if args.changed:
        changed = changed_edges(corpus, args.out)
        Path(args.changed).write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in changed),
                                      encoding="utf-8")
        print(f"{len(changed)} changed items written to {args.changed}")
        return
    if args.recall_only:
        print(json.dumps(write_fresh_recall(corpus, args.out, args.seed, args.out_name, args.corpus, args.exclude,
                                            args.whole_references, args.prefix or "f"), ensure_ascii=False, indent=1))
        return
    about = write_batches(corpus, args.out, args.corpus, FIXTURE)
    print(json.dumps(about, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    try:
        main()
    except JudgmentError as exc:  # a judgments file a reader wrote: its file and line, not a traceback
        raise SystemExit(f"error: {exc}") from None
    except BrokenPipeError:  # `--show ID | head -c 8000`: the reader has what it asked for
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
