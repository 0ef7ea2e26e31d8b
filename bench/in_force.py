"""The text in force over a corpus: how many amended corpus articles the engine consolidates fully, partly or not at
all, the instructions applied per action and those it could not apply per reason, and how long it takes (the
references the graph reads at ingest are timed apart from the consolidation itself).

With ``--sample N`` it also writes the judging sample: N applied instructions drawn with ``random.Random(seed)``
from every instruction applied (in a fixed order first: target, then amending article, then the engine's order),
each with the amending article, its words, the target article, the passage before and after, and ``"judgment":
null`` for blind readers to fill (bench/data/in-force-judging/README.md); tests/test_in_force_sample.py pins the
engine's output on every item.

Usage:
  .venv/bin/python bench/in_force.py [--data ../shared/data/greek-statutes] [--corpus corpus.jsonl] [--json]
  .venv/bin/python bench/in_force.py --sample 64 --seed SEED --out tests/fixtures/in_force/sample.jsonl
  .venv/bin/python bench/in_force.py --dump /tmp/v6.jsonl   # then: bench/in_force.py --compare /tmp/v5.jsonl /tmp/v6.jsonl

``--dump`` writes every consolidation (id, status, title, text, applied, unapplied) one per line, so two engines'
texts in force compare byte for byte (``--compare OLD NEW`` lists the articles whose status or text differ).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

from nomos.ingest.beir import load_beir
from nomos.ingest.graph import CorpusReading
from nomos.ingest.in_force import amended_by, corpus_in_force
from nomos.legal.graph.edges import REFERENCES_VERSION
from nomos.legal.inforce.engine import CONSOLIDATION_VERSION, Consolidation

ROOT = Path(__file__).resolve().parent.parent


def reason_class(reason: str) -> str:
    """A reason with its particulars left out (numbers, letters and quoted phrases), so reasons count by kind."""
    out = re.sub(r"«[^»]*»", "«…»", reason)
    out = re.sub(r"\b(paragraph|case|article|sentence) (?:\d+[Α-Ωα-ω]?|[α-ω]{1,3}|\(the article\))(?![\w])", r"\1 N", out)
    out = re.sub(r"\b\d+\b", "N", out)
    return out.split(":")[0] if "not of a later law" in out else out


def summary(results: dict[str, Consolidation], amended_ids: Any) -> dict[str, Any]:
    """The figures; ``amended_ids``: the articles the graph's edges amend. Articles consolidated without such an
    edge are counted apart (``without_edge``): those the act a ratification quotes amends (ν. 4824/2021 art. 2's
    act on N_4797_2021::14), and a ratifying article later laws amend through the ratification (engine v6)."""
    ids = set(amended_ids)
    amended = len(ids)
    statuses = Counter(r.in_force.status for r in results.values())
    applied = Counter(a.action for r in results.values() for a in r.in_force.applied)
    open_ = Counter(reason_class(u.reason) for r in results.values() for u in r.in_force.unapplied if not u.superseded_by)
    moot = Counter(reason_class(u.reason) for r in results.values() for u in r.in_force.unapplied if u.superseded_by)
    changed = sum(1 for r in results.values() if any(p.changed for p in r.in_force.passages))
    return {"amended_articles": amended, "consolidated": len(results),
            "placing_only": len(ids - set(results)), "without_edge": len(set(results) - ids),
            "statuses": {k: statuses.get(k, 0) for k in ("full", "partial", "none")},
            "articles_changed": changed, "applied": sum(applied.values()), "applied_by_action": dict(applied.most_common()),
            "unapplied": sum(open_.values()), "unapplied_by_reason": dict(open_.most_common()),
            "superseded": sum(moot.values()), "superseded_by_reason": dict(moot.most_common())}


def sample(results: dict[str, Consolidation], n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` applied instructions drawn with ``random.Random(seed)`` from every one, in a fixed order first."""
    pool = [(target, step) for target in sorted(results) for step in results[target].steps]
    drawn = random.Random(seed).sample(range(len(pool)), min(n, len(pool)))
    out = []
    for k, i in enumerate(sorted(drawn)):
        target, step = pool[i]
        out.append({"n": k, "target": target, "amending": step.applied.source, "action": step.applied.action,
                    "paragraph": step.applied.paragraph, "instruction": step.applied.instruction,
                    "before": step.before, "after": step.after,
                    "amendments": list(results[target].in_force.amendments),
                    "consolidation_version": CONSOLIDATION_VERSION, "references_version": REFERENCES_VERSION,
                    "judgment": None})
    return out


def dump_row(target: str, r: Consolidation) -> dict[str, Any]:
    """One consolidation as ``--dump`` writes it."""
    f = r.in_force
    return {"id": target, "status": f.status, "title": f.title, "text": f.text,
            "applied": [[a.source, a.action, a.paragraph] for a in f.applied],
            "unapplied": [[u.source, u.reason, u.superseded_by] for u in f.unapplied]}


def compare(old: Path, new: Path) -> None:
    """The articles whose status or text differ between two dumps, and those only one of them consolidates."""
    def load(p: Path) -> dict[str, dict[str, Any]]:
        return {r["id"]: r for r in map(json.loads, p.read_text(encoding="utf-8").splitlines()) if r}
    a, b = load(old), load(new)
    same = sum(1 for k in a.keys() & b.keys() if a[k]["text"] == b[k]["text"] and a[k]["status"] == b[k]["status"]
               and a[k]["title"] == b[k]["title"])
    print(f"{len(a)} -> {len(b)} consolidated; {same} identical in status, title and text")
    for k in sorted(a.keys() | b.keys()):
        x, y = a.get(k), b.get(k)
        if x is None or y is None:
            print(f"  {k}: {'only in NEW' if x is None else 'only in OLD'}")
            continue
        what = [w for w in ("status", "title", "text") if x[w] != y[w]]
        if what:
            print(f"  {k}: {x['status']} -> {y['status']}; differs in {', '.join(what)}; applied "
                  f"{len(x['applied'])} -> {len(y['applied'])}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "greek-statutes")
    ap.add_argument("--corpus", default="corpus.jsonl")
    ap.add_argument("--json", action="store_true", help="the figures as one JSON object")
    ap.add_argument("--sample", type=int, default=0, help="write this many applied instructions for judging")
    ap.add_argument("--seed", type=int, default=3630)
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "in_force" / "sample.jsonl")
    ap.add_argument("--dump", type=Path, help="write every consolidation, one JSON object a line")
    ap.add_argument("--compare", type=Path, nargs=2, metavar=("OLD", "NEW"), help="compare two dumps and exit")
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare)
        return
    t0 = time.perf_counter()
    articles = load_beir(args.data, corpus_file=args.corpus).articles
    loaded = time.perf_counter() - t0
    t0 = time.perf_counter()
    reading = CorpusReading.of(articles)
    amended = amended_by(articles, reading)  # every article's references, read once (ingest's cost anyway)
    read = time.perf_counter() - t0
    t0 = time.perf_counter()
    results = corpus_in_force(articles, reading)
    consolidated = time.perf_counter() - t0
    doc = {"corpus": args.corpus, "articles": len(articles), "consolidation_version": CONSOLIDATION_VERSION,
           "references_version": REFERENCES_VERSION, "load_s": round(loaded, 1), "references_s": round(read, 1),
           "consolidation_s": round(consolidated, 2), **summary(results, amended),
           "python": f"{platform.python_implementation()} {platform.python_version()}"}
    if args.dump:
        args.dump.write_text("".join(json.dumps(dump_row(t, results[t]), ensure_ascii=False) + "\n"
                                     for t in sorted(results)), encoding="utf-8")
    if args.sample:
        rows = sample(results, args.sample, args.seed)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        doc["sample"] = {"written": len(rows), "out": str(args.out), "seed": args.seed,
                         "by_action": dict(Counter(r["action"] for r in rows).most_common())}
    if args.json:
        print(json.dumps(doc, ensure_ascii=False, indent=1))
        return
    print(f"engine v{CONSOLIDATION_VERSION} (references v{REFERENCES_VERSION}) on {args.corpus}: {len(articles)} "
          f"articles; loaded {loaded:.1f} s, references {read:.1f} s, consolidation {consolidated:.2f} s")
    s = doc["statuses"]
    print(f"amended corpus articles: {doc['amended_articles']}, of which {doc['placing_only']} only have new articles "
          f"put after them (their text is not amended), {doc['without_edge']} more amended with no graph edge "
          f"(by an act a ratification quotes, or through it); consolidated {doc['consolidated']}: full {s['full']}, partial "
          f"{s['partial']}, none {s['none']} (text changed in {doc['articles_changed']})")
    print(f"instructions applied: {doc['applied']}: " + ", ".join(f"{k} {v}" for k, v in doc["applied_by_action"].items()))
    print(f"not applied: {doc['unapplied']} (and {doc['superseded']} superseded by a later whole wording)")
    for reason, count in doc["unapplied_by_reason"].items():
        print(f"  {count:4d}  {reason}")
    if args.sample:
        print(f"sample: {doc['sample']['written']} applied instructions -> {args.out} (seed {args.seed})")


if __name__ == "__main__":
    main()
