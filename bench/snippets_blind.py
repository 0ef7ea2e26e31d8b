"""Issue 51's blind check of the snippets: result pages shown with today's snippets and the new ones side by side,
as sets X and Y in an order drawn at random per page, for readers who do not know which is which; and the score of
their judgments with Wilson intervals.

``draw`` searches each page's query through the search stage twice on the live index (the same ranking: only the
snippets differ, ``NOMOS_SNIPPETS`` ``sentences`` and the new kind) and writes ``bench/data/snippet-judging/
blind-seed<seed>/``:

* ``README.md``: what to judge and how (for the readers);
* ``sheets/NN.md``: one page each: the query, then for each of the top ``--k`` hits its title, X's snippets and
  Y's, marked words in **bold**;
* ``judgments.jsonl``: one line per page for the reader to fill (``judgment``: ``X`` more useful, ``=`` as useful,
  ``Y`` more useful; ``x_marked`` / ``y_marked``: how many of the page's hits have a snippet in that set that marks
  words of the query);
* ``key.json``: which set is which on each page, and the machine's own count of the hits whose snippets hold a
  mark (the readers are told not to open it);
* ``about.json``: how it was drawn (seed, method, index, the new kind, the queries' sets).

Pages: short everyday cases (``bench/data/everyday``), case files (``bench/data/case-files``) and citations (the
``CITATIONS`` below), drawn with the seed. ``score FILE`` reads a filled ``judgments.jsonl`` and the ``key.json``
beside it: the share of pages where the new set is judged no worse (the issue's bar: at least 90%) and each set's
share of hits whose snippet marks the query's words (the bar: the new one marks them as often), with Wilson intervals.

    NOMOS_HTTP_PORT=<node> .venv/bin/python bench/snippets_blind.py draw --seed 5100 [--new whole] [--k 5]
    .venv/bin/python bench/snippets_blind.py score bench/data/snippet-judging/blind-seed5100/judgments.jsonl
"""

from __future__ import annotations

import argparse
import html
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomos.eval.graph_judging import wilson  # noqa: E402
from nomos.pages import passages  # noqa: E402

OUT = ROOT / "bench" / "data" / "snippet-judging"
# citations as people type them, of articles the stand-in holds (the Penal Code and laws of its corpus)
CITATIONS = ("άρθρο 372 ΠΚ", "ν. 4624/2019 άρθρο 5", "άρθρο 386 ΠΚ", "375 Π.Κ.", "ν. 4808/2021 άρθρο 67",
             "άρθρο 299 ΠΚ", "άρθρο 1 ν. 3979/2011", "ν. 4842/2021 άρθρο 10", "άρθρο 308 ΠΚ παρ. 1",
             "ν. 4807/2021 άρθρο 5", "αρθ. 187 ΠΚ", "ν. 4855/2021 άρθρο 1")
JUDGMENTS = ("X", "=", "Y")
README = """# Blind judging of search-result snippets (issue 51), seed {seed}

Each file in `sheets/` is one results page: a query and its top {k} results. Under every result there are two sets
of snippets, **X** and **Y**: the short passages of the article's text a results page shows under its title, with
the query's words in **bold**. The results and their order are the same in X and Y; only the snippets differ.
Which way of making snippets is X and which is Y was drawn at random for each page.

**Do not open `key.json`**: it says which set is which. Judge from the sheets alone.

For each page, fill its line in `judgments.jsonl`:

- `judgment`: taking the page's {k} results together, are X's snippets more useful than Y's for deciding which
  results to open? `"X"` (X more useful), `"="` (as useful), `"Y"` (Y more useful). Useful means: the snippet shows
  the part of the article that bears on the query, in words you can read and judge, without having to open it.
- `x_marked`, `y_marked`: how many of the page's results (0–{k}) have, in that set, a snippet with at least one of
  the query's own words in bold (a word of the query in any of its forms: «κλοπή», «κλοπές»; a number of the query,
  an article's number).
- `note` (optional): anything that decided it.

Then give the file back; `bench/snippets_blind.py score judgments.jsonl` reads it with the key.
"""


def _plain(fragment: str) -> str:
    """A snippet (html with <mark>) for a markdown table: marks in bold, entities decoded, one line, no pipes."""
    text = re.sub(r"</?mark>", "**", fragment)
    text = html.unescape(text).replace("****", "")
    return re.sub(r"\s+", " ", text).replace("|", "\\|").strip()


def _queries(seed: int, everyday: int, cases: int) -> list[tuple[str, str, str]]:
    """(set, id, text) of the pages: ``everyday`` everyday cases and ``cases`` case files drawn with ``seed``, and
    every citation, in a drawn order."""
    rng = random.Random(seed)
    pages: list[tuple[str, str, str]] = []
    for name, n in (("everyday", everyday), ("case-files", cases)):
        rows = [json.loads(line) for line in (ROOT / "bench" / "data" / name / "queries.jsonl").read_text(
            encoding="utf-8").splitlines() if line.strip()]
        pages += [(name, r["_id"], r["text"]) for r in rng.sample(rows, n)]
    pages += [("citations", f"cit{i + 1:02d}", c) for i, c in enumerate(CITATIONS)]
    rng.shuffle(pages)
    return pages


def draw(args: argparse.Namespace) -> None:
    from nomos.settings import Settings
    from nomos.stages.searching import SearchRequest, SearchStage

    settings = Settings.from_env()
    stages = {m: SearchStage(settings.with_overrides(snippets=m)) for m in ("sentences", args.new)}  # one per side
    stage = stages["sentences"]
    method = args.method or stage.default_method()
    out = OUT / f"blind-seed{args.seed}"
    (out / "sheets").mkdir(parents=True, exist_ok=True)
    pages = _queries(args.seed, args.everyday, args.cases)
    rng = random.Random(f"snippets-{args.seed}")
    key: dict[str, Any] = {}
    lines = []
    for n, (kind, qid, text) in enumerate(pages, 1):
        sets = {}
        for mode in ("sentences", args.new):
            page = stages[mode].search(SearchRequest(text, method, args.k, facets=False))
            sets[mode] = page.hits
        old, new = sets["sentences"], sets[args.new]
        if [h.doc_id for h in old] != [h.doc_id for h in new]:
            raise SystemExit(f"page {qid}: the two searches ranked differently; only the snippets may differ")
        x_is_new = rng.random() < 0.5
        x, y = (new, old) if x_is_new else (old, new)
        name = f"{n:02d}"
        rows = [f"# Page {name}", "", f"**Query** ({kind}): {text}", "", "| # | result | X | Y |", "| --- | --- | --- | --- |"]
        for i, (hx, hy) in enumerate(zip(x, y, strict=True), 1):
            title = _plain(html.escape(f"{hx.title} — {hx.law} ({hx.doc_id})"))
            rows.append(f"| {i} | {title} | {' … '.join(_plain(f) for f in hx.highlights) or '(none)'} | "
                        f"{' … '.join(_plain(f) for f in hy.highlights) or '(none)'} |")
        (out / "sheets" / f"{name}.md").write_text("\n".join(rows) + "\n", encoding="utf-8")
        marked = {s: sum(any("<mark>" in f for f in h.highlights) for h in hits) for s, hits in sets.items()}
        key[name] = {"X": "new" if x_is_new else "old", "Y": "old" if x_is_new else "new", "query_id": qid, "set": kind,
                     "hits": len(old), "machine_marked": {"old": marked["sentences"], "new": marked[args.new]}}
        lines.append(json.dumps({"page": name, "judgment": None, "x_marked": None, "y_marked": None, "note": ""},
                                ensure_ascii=False))
    (out / "judgments.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "key.json").write_text(json.dumps(key, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (out / "README.md").write_text(README.format(seed=args.seed, k=args.k), encoding="utf-8")
    about = {"seed": args.seed, "k": args.k, "method": method, "index": settings.index_alias, "old": "sentences",
             "new": args.new, "pages": len(pages), "sets": {s: sum(1 for p in pages if p[0] == s) for s in
                                                            ("everyday", "case-files", "citations")}}
    (out / "about.json").write_text(json.dumps(about, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    hits = sum(v["hits"] for v in key.values())
    print(f"{len(pages)} pages ({about['sets']}) into {out}; machine-counted hits with a marked snippet: old "
          f"{sum(v['machine_marked']['old'] for v in key.values())}/{hits}, new "
          f"{sum(v['machine_marked']['new'] for v in key.values())}/{hits}")


def _share(right: int, total: int) -> str:
    lo, hi = wilson(right, total)
    return f"{right}/{total} = {right / total if total else 0:.1%} (95% Wilson {lo:.1%}–{hi:.1%})"


def score(args: argparse.Namespace) -> None:
    path = Path(args.file)
    key = json.loads(Path(args.key or path.with_name("key.json")).read_text(encoding="utf-8"))
    no_worse = judged = 0
    marked = {"old": 0, "new": 0}
    shown = {"old": 0, "new": 0}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            k = key[row["page"]]
        except (ValueError, KeyError) as exc:
            raise SystemExit(f"{path}:{n}: not a judgment line of this batch ({exc})") from None
        j = row.get("judgment")
        if j is not None:
            if j not in JUDGMENTS:
                raise SystemExit(f"{path}:{n}: judgment {j!r} is none of {', '.join(JUDGMENTS)}")
            judged += 1
            no_worse += j == "=" or k[j] == "new"
        for letter in ("x", "y"):
            count = row.get(f"{letter}_marked")
            if count is None:
                continue
            if not isinstance(count, int) or not 0 <= count <= k["hits"]:
                raise SystemExit(f"{path}:{n}: {letter}_marked {count!r} is not a count of 0–{k['hits']} hits")
            marked[k[letter.upper()]] += count
            shown[k[letter.upper()]] += k["hits"]
    print(f"pages judged: {judged} of {len(key)}")
    print(f"new snippets judged no worse: {_share(no_worse, judged)}; bar 90%: "
          f"{'met' if judged and no_worse / judged >= 0.9 else 'not met'}")
    for s in ("old", "new"):
        print(f"{s}: hits whose snippet marks the query's words: {_share(marked[s], shown[s])}")
    if shown["old"] and shown["new"]:
        ok = marked["new"] / shown["new"] >= marked["old"] / shown["old"]
        print(f"new marks the query's words as often as old: {'yes' if ok else 'no'}")
    machine = {s: sum(v["machine_marked"][s] for v in key.values()) for s in ("old", "new")}
    hits = sum(v["hits"] for v in key.values())
    print(f"(machine count, every page: old {_share(machine['old'], hits)}, new {_share(machine['new'], hits)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    d = sub.add_parser("draw", help="draw the sheets")
    d.add_argument("--seed", type=int, default=5100)
    d.add_argument("--new", choices=[m for m in passages.MODES if m != "sentences"], default="whole")
    d.add_argument("--k", type=int, default=5, help="hits shown per page")
    d.add_argument("--everyday", type=int, default=16, help="everyday cases drawn")
    d.add_argument("--cases", type=int, default=14, help="case files drawn")
    d.add_argument("--method", default=None, help="search method (default: the index's best, as the portal)")
    s = sub.add_parser("score", help="score a filled judgments.jsonl")
    s.add_argument("file")
    s.add_argument("--key", default=None, help="the batch's key.json (default: beside FILE)")
    args = ap.parse_args()
    draw(args) if args.command == "draw" else score(args)


if __name__ == "__main__":
    main()
