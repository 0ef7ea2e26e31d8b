"""The blind check of the text in force and of the versions (issue 49): judging sheets for readers who have not
seen the engine's rules, drawn with a fixed seed, and the score of the filled judgments with Wilson intervals.

``draw`` writes into ``bench/data/in-force-judging/<batch>/``:

* ``sheets.jsonl``: one item per line (its sheet's name, the ids, what nomos said), ``judgment`` null for the
  reader to fill;
* ``sheets/NN-<id>.md``: the same item as a page to read: the article as the corpus holds it, every amending
  article the corpus holds for it (whole, with its law), and what nomos made of it;
* ``about.json``: how it was drawn (seed, sizes, engine and extractor versions, the pools' sizes).

Three kinds of item, in this order: ``in-force`` (an amended article's text in force and its status; at least
40, half of them Penal Code articles, ids ``PK::``), ``version`` (one earlier version of each of those same
articles: an intermediate one where the article has one, else the original as nomos shows it; then, since most
articles have one amending law, up to 20 more articles with a version between the original and today's, judged on
it) and ``none`` (20
articles that corpus articles amend but whose text nomos leaves unconsolidated: status none, or no text in force at
all). The README beside them says how to judge; ``score`` reads the filled file.

Usage:
  PYTHONPATH=$PWD .venv/bin/python bench/in_force_blind.py draw [--seed 4900] [--amended 40] [--none 20] [--between 20]
  PYTHONPATH=$PWD .venv/bin/python bench/in_force_blind.py score bench/data/in-force-judging/blind-v5-seed4900/sheets.jsonl
  PYTHONPATH=$PWD .venv/bin/python bench/in_force_blind.py changed --sheets bench/data/in-force-judging/blind-v5-seed4900
      [--rejudged bench/data/in-force-judging/blind-v6-rejudge]   # compared with the last reading of each item
  PYTHONPATH=$PWD .venv/bin/python bench/in_force_blind.py score …/blind-v5-seed4900/sheets.jsonl --rejudged …/blind-v6-rejudge
      [--rejudged …/blind-v7-rejudge]   # each reading in turn replaces the items it read again

``changed`` lists a judged batch's items whose «what nomos made of it» the engine as it is now makes otherwise
(the status, title, laws, or text a sheet shows) and writes just those as a new batch for a second blind reading
(default ``blind-v<engine>-rejudge/`` beside it: the same README, ``sheets.jsonl`` to fill, ``about.json`` with
each item's origin in the old batch and what differs; the old judgments stay out of it). An item left at none
that the engine now consolidates is asked as an in-force item. The old batch's judgments of the items that did
not change carry over as they are.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nomos.eval.graph_judging import wilson
from nomos.ingest.beir import load_beir
from nomos.ingest.graph import CorpusReading
from nomos.ingest.in_force import amended_by, corpus_in_force
from nomos.ingest.records import Article
from nomos.legal.graph.edges import REFERENCES_VERSION
from nomos.legal.inforce.engine import CONSOLIDATION_VERSION, Consolidation, order_key
from nomos.legal.inforce.versions import Version

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "data" / "in-force-judging"
KINDS = ("in-force", "version", "none")


EXCERPT = 6000  # characters of an amending article shown around its citations of the target


def _excerpt(text: str, spans: list[tuple[int, int]]) -> str:
    """The amending article's items (its «1.», «2.» … lines) that cite the target, whole, in order; the whole
    text where it is short; «[…]» where items are left out. The graph's edges say where it cites the target, not
    what nomos read there: a reader sees every instruction that names the article, read or not."""
    if len(text) <= EXCERPT:
        return text
    starts = [0] + [m.start() + 1 for m in re.finditer(r"\n(?=[ \t]*\d{1,3}\.\s)", text)] + [len(text)]
    keep = sorted({k for a, _ in spans for k in range(len(starts) - 1) if starts[k] <= a < starts[k + 1]})
    parts, last = [], -1
    for k in keep:
        if k != last + 1:
            parts.append("[…]")
        parts.append(text[starts[k]:starts[k + 1]].strip()[:EXCERPT])
        last = k
    if last != len(starts) - 2:
        parts.append("[…]")
    return "\n".join(parts)


def _amending(target: str, by_id: Mapping[str, Article], sources: list[str], reading: CorpusReading
              ) -> list[dict[str, str]]:
    """The corpus articles with an amendment edge to ``target``, in the laws' order, each cut to the items that
    cite it (:func:`_excerpt`)."""
    ordered = sorted(sources, key=lambda s: order_key(s, by_id[s].source, by_id[s].law))
    out = []
    for s in ordered:
        spans = [(r.start, r.end) for r in reading.references(by_id[s]) if r.target == target]
        out.append({"id": s, "law": by_id[s].law, "title": by_id[s].title, "text": _excerpt(by_id[s].text, spans)})
    return out


def draw(articles: list[Article], seed: int, n_amended: int, n_none: int, n_between: int = 20
         ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The items, and what ``about.json`` records. Pools in id order before drawing, so a seed gives one draw."""
    reading = CorpusReading.of(articles)
    by_id = {a.id: a for a in articles}
    amending = amended_by(articles, reading)
    results: dict[str, Consolidation] = corpus_in_force(articles, reading)
    amended = sorted(t for t, r in results.items() if r.in_force.applied)
    pk = [t for t in amended if t.startswith("PK::")]
    rest = [t for t in amended if not t.startswith("PK::")]
    rng = random.Random(seed)
    half = n_amended // 2
    chosen = sorted(rng.sample(pk, min(half, len(pk)))) + sorted(rng.sample(rest, min(n_amended - half, len(rest))))
    none_pool = sorted({t for t, r in results.items() if not r.in_force.applied} | (set(amending) - set(results)))
    nones = sorted(rng.sample(none_pool, min(n_none, len(none_pool))))
    items: list[dict[str, Any]] = []

    def base(kind: str, target: str) -> dict[str, Any]:
        a = by_id[target]
        return {"n": len(items), "kind": kind, "target": target, "title": a.title, "law": a.law,
                "original_text": a.text, "amending": _amending(target, by_id, amending.get(target, []), reading)}

    for target in chosen:
        items.append({**base("in-force", target), "nomos": in_force_block(results[target], by_id[target]),
                      "judgment": None})
    # most amended articles have one amending law, so their earlier version is the original: the articles with a
    # version between the original and today's (two laws or more) are drawn apart, judged on that version
    between = sorted(t for t in amended if len(results[t].versions) > 2 and t not in chosen)
    extra = sorted(rng.sample(between, min(n_between, len(between))))
    for target in chosen + extra:
        versions = results[target].versions
        earlier = versions[1:-1] or versions[:1]
        v = earlier[rng.randrange(len(earlier))]
        items.append({**base("version", target), "nomos": version_block(versions, v, by_id[target]), "judgment": None})
    for target in nones:
        items.append({**base("none", target), "nomos": none_block(results.get(target), by_id[target]),
                      "judgment": None})
    about = {"seed": seed, "amended": len(chosen), "penal_code": sum(t.startswith("PK::") for t in chosen),
             "between_versions": len(extra), "none": len(nones),
             "pools": {"amended": len(amended), "penal_code": len(pk), "none": len(none_pool),
                       "with_a_version_between": len(between) + sum(len(results[t].versions) > 2 for t in chosen)},
             "intermediate_versions": sum(1 for i in items if i["kind"] == "version"
                                          and i["nomos"]["version_after"] != "the original text"),
             "consolidation_version": CONSOLIDATION_VERSION, "references_version": REFERENCES_VERSION,
             "corpus": "corpus.jsonl"}
    return items, about


def in_force_block(r: Consolidation, article: Article) -> dict[str, Any]:
    """What nomos made of an amended article, as an ``in-force`` sheet shows it."""
    return {"status": r.in_force.status, "title": r.in_force.title or article.title, "text": r.in_force.text,
            "amendments_applied_in_order": list(dict.fromkeys(a.source for a in r.in_force.applied))}


def version_block(versions: tuple[Version, ...], v: Version, article: Article) -> dict[str, Any]:
    """One earlier version, as a ``version`` sheet shows it."""
    return {"version_after": "the original text" if v.law == "original" else v.law_name,
            "laws_applied_up_to_it": [x.law_name for x in versions[1:versions.index(v) + 1]],
            "title": v.title or article.title, "text": v.text}


def none_block(r: Consolidation | None, article: Article) -> dict[str, Any]:
    """An article left unconsolidated, as a ``none`` sheet shows it."""
    return {"status": r.in_force.status if r is not None else "no text in force",
            "text": r.in_force.text if r is not None else article.text}


def sheet(item: dict[str, Any]) -> str:
    """One item as a page a reader reads top to bottom."""
    ask = {"in-force": "Is this the article's text in force after every amending article below, and is its status "
                       "right?",
           "version": f"Is this the article as it stood after {item['nomos'].get('version_after', '')} (and before "
                      "any later law)?",
           "none": "Would a careful reader apply any of the amending articles below to this article?"}[item["kind"]]
    out = [f"# {item['n']:02d} · {item['kind']} · {item['target']}", "", f"**Question:** {ask}", "",
           f"## The article as the corpus holds it ({item['law']})", "", f"**{item['title']}**", "", "```text",
           item["original_text"], "```", "", "## Amending articles the corpus holds for it (laws' order)", ""]
    for a in item["amending"]:
        out += [f"### {a['id']} — {a['law']}", "", f"**{a['title']}**", "", "```text", a["text"], "```", ""]
    if not item["amending"]:
        out += ["(none)", ""]
    out += ["## What nomos made of it", ""]
    for key, value in item["nomos"].items():
        if key != "text":
            out.append(f"- {key}: {value}")
    out += ["", "```text", item["nomos"]["text"], "```", ""]
    return "\n".join(out)


def _sheet_name(item: dict[str, Any]) -> str:
    return f"{item['n']:02d}-{item['kind']}-{item['target'].replace('::', '-')}.md"


def write(items: list[dict[str, Any]], about: dict[str, Any], folder: Path) -> None:
    (folder / "sheets").mkdir(parents=True, exist_ok=True)
    # the file to fill holds what the answer is about (the sheet, by its number, holds the texts to read)
    slim = [{"n": i["n"], "kind": i["kind"], "target": i["target"], "sheet": _sheet_name(i),
             "amending": [a["id"] for a in i["amending"]],
             "nomos": {k: v for k, v in i["nomos"].items() if k != "text"}, "judgment": None} for i in items]
    (folder / "sheets.jsonl").write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in slim),
                                         encoding="utf-8")
    for i in items:
        (folder / "sheets" / _sheet_name(i)).write_text(sheet(i), encoding="utf-8")
    (folder / "about.json").write_text(json.dumps(about, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def _shown_text(page: str) -> str:
    """The text a sheet shows under «What nomos made of it» (its last ```text block)."""
    tail = page.split("## What nomos made of it", 1)[-1]
    m = re.search(r"```text\n(.*)\n```", tail, re.S)
    return m.group(1) if m else ""


def changed(folder: Path, articles: list[Article], rejudged: Path | None = None
            ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The items of the batch in ``folder`` whose «what nomos made of it» differs under the engine as it is now
    (any field the sheet shows, or the text), redone as items for a second blind reading: the same kind and
    article (a version item: the version after the same law), nomos's block as the engine now makes it. An item
    of kind ``none`` that the engine now consolidates is asked as ``in-force``. Returns the new items (numbered
    anew) and, per item, where it came from (the old number, kind, sheet and what differs). ``rejudged``: a
    second reading of that batch (``changed``'s folder): its items are compared as it showed them, the rest as the
    batch did, so only what changed since the last reading is asked again (its origin still names the batch's
    item, so ``score --rejudged`` takes the readings in turn)."""
    reading = CorpusReading.of(articles)
    by_id = {a.id: a for a in articles}
    amending = amended_by(articles, reading)
    results: dict[str, Consolidation] = corpus_in_force(articles, reading)
    old = [json.loads(x) for x in (folder / "sheets.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    base = {int(i["n"]): (i, folder) for i in old}
    if rejudged is not None:
        about = json.loads((rejudged / "about.json").read_text(encoding="utf-8"))
        again = {int(x["n"]): x for x in (json.loads(line) for line in
                                          (rejudged / "sheets.jsonl").read_text(encoding="utf-8").splitlines()
                                          if line.strip())}
        base.update({int(o["was_n"]): (again[int(o["n"])], rejudged) for o in about["origin"]})
    items: list[dict[str, Any]] = []
    origin: list[dict[str, Any]] = []
    for was_n, (item, where) in sorted(base.items()):
        target, kind = item["target"], item["kind"]
        shown = {**item["nomos"], "text": _shown_text((where / "sheets" / item["sheet"]).read_text(encoding="utf-8"))}
        r = results.get(target)
        if kind == "in-force" or kind == "none" and r is not None and r.in_force.applied:
            now = in_force_block(r, by_id[target]) if r is not None else none_block(None, by_id[target])
            kind = "in-force" if r is not None else kind
        elif kind == "version":
            versions = r.versions if r is not None else ()
            want = shown.get("version_after")
            v = next((x for x in versions if (x.law == "original" and want == "the original text")
                      or x.law_name == want), None)
            now = version_block(versions, v, by_id[target]) if v is not None else \
                {"version_after": want, "laws_applied_up_to_it": [], "title": by_id[target].title,
                 "text": "(nomos no longer has this version)"}
        else:
            now = none_block(r, by_id[target])
        differs = sorted(k for k in set(shown) | set(now) if shown.get(k) != now.get(k))
        if kind == item["kind"] and not differs:
            continue
        a = by_id[target]
        items.append({"n": len(items), "kind": kind, "target": target, "title": a.title, "law": a.law,
                      "original_text": a.text,
                      "amending": _amending(target, by_id, amending.get(target, []), reading),
                      "nomos": now, "judgment": None})
        origin.append({"n": items[-1]["n"], "was_n": was_n, "was_kind": item["kind"],
                       "was_sheet": item["sheet"] if where == folder else f"{where.name}/{item['sheet']}",
                       "differs": differs})
    return items, origin


def score(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The shares the issue's bars read, with Wilson 95% intervals: in-force items right (text and status),
    versions right, and ``none`` items a careful reader would apply (the bar: at most 1 in 10)."""
    out: dict[str, Any] = {"unjudged": sum(1 for i in items if i.get("judgment") is None)}
    for kind, field in (("in-force", "right"), ("version", "right"), ("none", "would_apply")):
        judged = [i["judgment"] for i in items if i["kind"] == kind and i.get("judgment") is not None]
        for j in judged:
            if not isinstance(j, dict) or not isinstance(j.get(field), bool):
                raise SystemExit(f"item of kind {kind}: judgment needs a true/false «{field}»: {j!r}")
        hits = sum(1 for j in judged if j[field])
        low, high = wilson(hits, len(judged)) if judged else (0.0, 0.0)
        out[kind] = {field: hits, "judged": len(judged), "share": round(hits / len(judged), 3) if judged else None,
                     "wilson95": [round(low, 3), round(high, 3)]}
    ok = out["in-force"]["share"] is not None and out["in-force"]["share"] >= 0.95 and \
        out["version"]["share"] is not None and out["version"]["share"] >= 0.95 and \
        out["none"]["share"] is not None and out["none"]["share"] <= 0.1
    out["bars_met"] = ok
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("draw", help="write the judging sheets")
    d.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "greek-statutes")
    d.add_argument("--seed", type=int, default=4900)
    d.add_argument("--amended", type=int, default=40)
    d.add_argument("--none", type=int, default=20)
    d.add_argument("--between", type=int, default=20,
                   help="more version items: articles with a version between the original and today's")
    d.add_argument("--out", type=Path, default=None, help="default: bench/data/in-force-judging/blind-v<engine>-seed<seed>")
    s = sub.add_parser("score", help="score a filled sheets.jsonl")
    s.add_argument("sheets", type=Path)
    s.add_argument("--rejudged", type=Path, action="append", default=[],
                   help="a `changed` folder, judged: its items replace the ones they were drawn from (today's "
                        "engine); several, in the order they were read")
    c = sub.add_parser("changed", help="the items whose nomos output the engine now changes, as new sheets")
    c.add_argument("--sheets", type=Path, required=True, help="a drawn batch's folder (sheets.jsonl, sheets/)")
    c.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "greek-statutes")
    c.add_argument("--out", type=Path, default=None, help="default: beside it, blind-v<engine>-rejudge")
    c.add_argument("--rejudged", type=Path, default=None,
                   help="a second reading of the batch (a `changed` folder): its items compared as it showed them")
    args = ap.parse_args()
    if args.cmd == "changed":
        about_old = json.loads((args.sheets / "about.json").read_text(encoding="utf-8"))
        items, origin = changed(args.sheets, load_beir(args.data, corpus_file=about_old.get("corpus",
                                                                                            "corpus.jsonl")).articles,
                                args.rejudged)
        folder = args.out or args.sheets.parent / f"blind-v{CONSOLIDATION_VERSION}-rejudge"
        last = json.loads((args.rejudged / "about.json").read_text(encoding="utf-8")) if args.rejudged else about_old
        was = last.get("consolidation_version")
        since = (f" (as `{args.rejudged.name}` showed those it read again, `{args.sheets.name}` the others)"
                 if args.rejudged else "")
        again = f" --rejudged bench/data/in-force-judging/{args.rejudged.name}" if args.rejudged else ""
        about = {"rejudge_of": args.sheets.name, "items": len(items),
                 "compared_with": args.rejudged.name if args.rejudged else args.sheets.name,
                 "of": about_old.get("amended", 0) * 2
                 + about_old.get("between_versions", 0) + about_old.get("none", 0),
                 "consolidation_version": CONSOLIDATION_VERSION, "references_version": REFERENCES_VERSION,
                 "was_consolidation_version": was,
                 "corpus": about_old.get("corpus", "corpus.jsonl"), "origin": origin}
        write(items, about, folder)
        readme = args.sheets / "README.md"
        preface = (f"# A second blind reading: {len(items)} items of `{args.sheets.name}`\n\n"
                   f"These {len(items)} items are those of `{args.sheets.name}` ({about['of']} items) whose «what "
                   f"nomos made of it» engine v{CONSOLIDATION_VERSION} makes otherwise than engine "
                   f"v{was} did{since}. Judge them as the README below says (its counts "
                   "and draw are the first batch's; an item once left at «none» that nomos now consolidates is "
                   "asked as an «in-force» item). Written by\n\n```sh\nPYTHONPATH=$PWD .venv/bin/python "
                   f"bench/in_force_blind.py changed --sheets bench/data/in-force-judging/{args.sheets.name}{again}"
                   "\n```\n\n")
        old_readme = readme.read_text(encoding="utf-8") if readme.exists() else ""
        (folder / "README.md").write_text(preface + old_readme, encoding="utf-8")
        print(f"{len(items)} of {about['of']} items changed under engine v{CONSOLIDATION_VERSION} -> {folder}")
        for o in origin:
            print(f"  {o['was_n']:3d} {o['was_kind']:8s} -> {o['n']:2d}: {', '.join(o['differs']) or 'kind'}")
        return

    if args.cmd == "draw":
        items, about = draw(load_beir(args.data).articles, args.seed, args.amended, args.none, args.between)
        folder = args.out or OUT / f"blind-v{CONSOLIDATION_VERSION}-seed{args.seed}"
        write(items, about, folder)
        print(f"{len(items)} items ({about['amended']} amended, {about['penal_code']} of the Penal Code; "
              f"{about['between_versions']} more versions; {about['none']} unconsolidated) -> {folder}")
        return
    lines = args.sheets.read_text(encoding="utf-8").splitlines()
    items = [json.loads(x) for x in lines if x.strip()]
    for folder in args.rejudged:
        items = with_rejudged(items, folder)
    print(json.dumps(score(items), ensure_ascii=False, indent=1))


def with_rejudged(items: list[dict[str, Any]], folder: Path) -> list[dict[str, Any]]:
    """The first batch as today's engine makes it: each item a second reading judged (``changed``'s folder, its
    ``about.json`` naming the item each was drawn from) replaced by that reading, kind and judgment; the rest as
    judged, since the engine shows them unchanged."""
    about = json.loads((folder / "about.json").read_text(encoding="utf-8"))
    again = {int(x["n"]): x for x in (json.loads(line) for line in
                                      (folder / "sheets.jsonl").read_text(encoding="utf-8").splitlines() if line.strip())}
    replaced = {int(o["was_n"]): again[int(o["n"])] for o in about["origin"]}
    # each keeps the first batch's number: a later reading's ``was_n`` names it (``score --rejudged A --rejudged B``)
    return [{**replaced[int(i["n"])], "n": int(i["n"])} if int(i["n"]) in replaced else i for i in items]


if __name__ == "__main__":
    main()
