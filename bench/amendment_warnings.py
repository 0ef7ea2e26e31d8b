"""The false-warning picture of the legal graph on a corpus: the amendment-kind edges (amends, replaces, inserts,
repeals) that land on one of its articles, which is where a lawyer meets them (the page's "its text may not be the
one in force" and its «Τροποποιήσεις» list), and how many of them point into the source article's own law.

An amending article's bare «Το άρθρο 13 αντικαθίσταται» read as its own law's article 13 (issue 36: «Το π.δ.
54/2018 τροποποιείται ως εξής: 1. Το άρθρο 13 …») is a false warning on one page and a missing one on another; an
amendment edge into the own law is that error's main symptom (a law seldom amends itself, though transitional
articles and corrections may), so the count is the number to watch, and ``--show`` lists them to read.

Self-contained on purpose: it needs only ``load_beir`` and ``CorpusReading``, which every extractor version has, so
the same script measures an older version from a checkout of it (``PYTHONPATH=<checkout> python
bench/amendment_warnings.py``) and the figures before and after a change come from one command.

Usage:
  PYTHONPATH=$PWD .venv/bin/python bench/amendment_warnings.py --dataset ../shared/data/greek-statutes [--show 20]
  git archive 3a6418e nomos | tar -x -C /tmp/v14 && PYTHONPATH=/tmp/v14 .venv/bin/python bench/amendment_warnings.py
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from nomos.ingest.beir import load_beir
from nomos.ingest.graph import CorpusReading
from nomos.ingest.records import Article
from nomos.legal.graph.edges import REFERENCES_VERSION, Reference

AMENDMENT_KINDS = ("amends", "replaces", "inserts", "repeals")
ROOT = Path(__file__).resolve().parent.parent


@dataclass
class WarningPicture:
    """What the amendment edges of a corpus look like where a reader meets them.

    ``landing``: amendment-kind edges whose target is a corpus article other than their source; ``landing_own``: of
    those, the ones whose cited law is the law the source's bare references point into (its own, or the host law of
    a chapter it inserts); ``own_any``: amendment-kind edges read into the own law, on a corpus article or not;
    ``warned``: corpus articles that carry the warning (targets of a landing edge); ``warned_by_own_only``: of those,
    the ones warned only by edges into their amending article's own law."""

    version: str
    articles: int = 0
    edges: int = 0
    amendment_edges: int = 0
    landing: int = 0
    landing_own: int = 0
    own_any: int = 0
    warned: int = 0
    warned_by_own_only: int = 0
    landing_by_kind: dict[str, int] = field(default_factory=dict)
    own_sources: list[tuple[str, int]] = field(default_factory=list)  # source article -> its landing own-law edges


def _law(article_id: str) -> str:
    return article_id.split("::", 1)[0]


def picture(articles: Sequence[Article], reading: CorpusReading | None = None) -> tuple[WarningPicture, list[Reference]]:
    """The picture for ``articles``, and the landing edges into the own law (to read)."""
    reading = reading or CorpusReading.of(articles)
    out = WarningPicture(REFERENCES_VERSION, articles=len(articles))
    warned: dict[str, bool] = {}  # target -> warned by some edge that is not into the source's own law
    own_edges: list[Reference] = []
    kinds: Counter[str] = Counter()
    per_source: Counter[str] = Counter()
    for a in articles:
        own = reading.source(a)
        for r in reading.references(a):
            out.edges += 1
            if r.kind not in AMENDMENT_KINDS:
                continue
            out.amendment_edges += 1
            into_own = _law(r.cited) == own
            out.own_any += into_own
            if not r.target or r.target == r.source:
                continue
            out.landing += 1
            kinds[r.kind] += 1
            warned[r.target] = warned.get(r.target, False) or not into_own
            if into_own:
                out.landing_own += 1
                own_edges.append(r)
                per_source[r.source] += 1
    out.warned = len(warned)
    out.warned_by_own_only = sum(not other for other in warned.values())
    out.landing_by_kind = dict(sorted(kinds.items()))
    out.own_sources = sorted(per_source.items(), key=lambda kv: (-kv[1], kv[0]))
    return out, own_edges


def report(p: WarningPicture) -> Iterable[str]:
    share = p.landing_own / p.landing if p.landing else 0.0
    yield f"extractor v{p.version}: {p.articles} articles, {p.edges} edges, {p.amendment_edges} of an amendment kind"
    yield (f"amendment edges landing on a corpus article: {p.landing} "
           f"({', '.join(f'{k} {n}' for k, n in p.landing_by_kind.items())})")
    yield f"  of which into the source's own law: {p.landing_own} ({share:.1%}), from {len(p.own_sources)} articles"
    yield f"amendment edges read into the own law, on a corpus article or not: {p.own_any}"
    yield f"corpus articles carrying the warning: {p.warned}; warned only by own-law edges: {p.warned_by_own_only}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", type=Path, default=ROOT.parent / "shared" / "data" / "greek-statutes")
    ap.add_argument("--corpus", default="corpus.jsonl", help="corpus file in the dataset folder")
    ap.add_argument("--show", type=int, default=0, metavar="N", help="list up to N landing edges into the own law")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    articles = load_beir(args.dataset, corpus_file=args.corpus).articles
    p, own_edges = picture(articles)
    if args.json:
        print(json.dumps(asdict(p), ensure_ascii=False, indent=1))
    else:
        for line in report(p):
            print(line)
    if args.show:
        texts = {a.id: a.text for a in articles}
        for r in own_edges[:args.show]:
            text = texts[r.source]
            print(f"  {r.source} {r.kind} {r.cited}: …{text[max(0, r.start - 80):r.start]}⟦{text[r.start:r.end]}⟧"
                  f"{text[r.end:r.end + 40]}…".replace("\n", " / "))


if __name__ == "__main__":
    main()
