"""The draw of the legal graph extractor's blind judging batches (issue 36): fixed seeds over its output on a
corpus, so the same corpus and extractor give the same batches byte for byte.

bench/graph_batches.py is the command that writes them under bench/data/graph-judging/ and scores them once judged;
the tests redraw them from the stand-in corpus and check they are what was judged. What the batches hold, and why:
that command's docstring and bench/data/graph-judging/README.md.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nomos.eval.graph_judging import read_jsonl
from nomos.ingest.beir import load_beir
from nomos.ingest.graph import CorpusReading
from nomos.ingest.records import Article
from nomos.legal.graph.edges import REFERENCES_VERSION, Reference
from nomos.legal.text.article_parts import quote_spans as quoted_spans
from nomos.legal.text.citations import find_citations
from nomos.legal.text.folding import fold
from nomos.legal.text.ids import IdResolver
from nomos.pages.articles import citation

AMENDMENT_KINDS = ("amends", "replaces", "inserts", "repeals")
SEEDS = {"warnings": 3601, "random": 3602, "recall": 3603}
SIZES = {"warnings": 170, "random": 170, "recall": 60}
STRATUM_SIZE = 12  # passages drawn from each of the two strata (24 of the 60), the rest from all passages
BEFORE, AFTER, TITLE_CHARS, PASSAGE_CHARS = 110, 90, 80, 360


# what a reader would call an article reference, found without the extractor: an article word and a number («άρθρο
# 5», «άρθρων 8 έως», «αρ. 12»), or a number in words («άρθρου τριακοστού»)
ARTICLE_WORD = re.compile(r"(?<!\w)(?:αρθρ\w*\.?|αρ\.)\s*(?:\d|(?:πρωτ|δευτερ|τριτ|τεταρτ|πεμπτ|εκτ|εβδομ|ογδο|ενατ|"
                          r"δεκατ|ενδεκατ|δωδεκατ|εικοστ|τριακοστ|τεσσαρακοστ|πεντηκοστ)\w*)")
# an article qualified by a part of its law («του άρθρου 43 του Κεφαλαίου Δ΄ του Μέρους Γ΄», «των Μερών Β΄ και Γ΄»)
PART_QUALIFIED = re.compile(r"αρθρ\w*\s+\d+[α-ω]?[^.;:\n]{0,60}?\s(?:του|τησ|των)\s+(?:κεφαλαι\w*|μερ(?:ουσ|ων)|"
                            r"τμηματ\w*|τιτλ(?:ου|ων)|βιβλι(?:ου|ων))\s+(?:\S{1,4}[΄'’]|[α-ω]{1,4}\b|[ivx]+\b|\w+ου\b)")
# an opening sentence that names an act and announces items («Το π.δ. 54/2018 τροποποιείται ως εξής:\n1. …»), a
# title that names an act after a noun of change, a clause that opens lettered items («Στο άρθρο 95 του ν. …,»)
OPENING_ITEMS = re.compile(r"(?:τροποποιειται|τροποποιουνται|συμπληρωνεται|επερχονται[^:]{0,40})\s*(?:ωσ\s+(?:εξησ|"
                           r"ακολουθωσ))?\s*:\s*(?:\d{1,2}[.)]|\(?[α-ω]{1,2}[΄'’]?\))\s")
ACT = r"(?:ν\.\s?\d|π\.\s?δ\.|ν\.\s?δ\.|κωδικ|κ\.\s?π|π\.\s?κ|α\.\s?κ)"
TITLE_CHANGE = re.compile(r"(?:τροποποιησ|αντικαταστασ|προσθηκ|καταργησ|συμπληρωσ|διορθωσ)\w*[^.]{0,200}?" + ACT)
ITEM_OPENER = re.compile(r"(?:^|\n)\s*(?:\d+\.\s*)?στ(?:ο|ην)\s+[^\n]{0,120}?" + ACT + r"[^\n]{0,60},\s*\n")
# a bare article: an article word and a number with no act named right after it
BARE = re.compile(r"(?<!\w)αρθρ\w*\s+\d+[α-ω]?(?![\w/])(?!\s*(?:,\s*)?(?:\([^)]{0,30}\)\s*)?(?:του|τησ)?\s*" + ACT
                  + r")(?!\s+(?:του|τησ)\s+(?:παροντοσ|ιδιου|ανωτερω|κανονισμ|οδηγι))")


# where a long line's sentences end: a full stop or semicolon after a word, not after an abbreviation («υποπαρ. Δ.9»,
# «παρ. 3», «ν. 4336/2015», «π.δ.»), before a capital or an opening quote
SENTENCE_END = re.compile(r"(?:(?<=[α-ωά-ώ]{3})|(?<=[»)]))(?<!παρ)(?<!περ)(?<!στοιχ)(?<!αρθρ)(?<!σελ)(?<!κεφ)"
                          r"[.;]\s+(?=[Α-ΩΆ-Ώ«])")


@dataclass(frozen=True)
class Corpus:
    """The corpus as the draw reads it: articles by id, their edges (in corpus order), and each article's law."""

    articles: dict[str, Article]
    edges: list[Reference]


def read_corpus(dataset: Path, corpus_file: str = "corpus.jsonl") -> Corpus:
    articles = load_beir(dataset, corpus_file=corpus_file).articles
    reading = CorpusReading.of(articles)
    return Corpus({a.id: a for a in articles}, [r for a in articles for r in reading.references(a)])


def _cut(s: str, limit: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= limit else s[:limit - 1].rsplit(" ", 1)[0] + "…"


def excerpt(text: str, start: int, end: int) -> str:
    """The sentence around a reference, the reference marked ⟦…⟧, line breaks as « / », cut at words."""
    a, b = max(0, start - BEFORE), min(len(text), end + AFTER)
    if a:
        a = text.find(" ", a, start) + 1 or a
    if b < len(text):
        b = text.rfind(" ", end, b) if text.rfind(" ", end, b) > end else b
    body = f"{text[a:start]}⟦{text[start:end]}⟧{text[end:b]}"
    return ("…" if a else "") + " / ".join(" ".join(line.split()) for line in body.split("\n")) + \
        ("…" if b < len(text) else "")


def edge_item(n: str, corpus: Corpus, r: Reference) -> dict[str, Any]:
    source, target = corpus.articles[r.source], corpus.articles[r.target]
    law = r.cited.split("::", 1)[0]
    # the article as the text names it; a chapter one law inserts into another is filed in the corpus under the
    # inserting law (N_4796_2021::120 holds ν. 4442/2016's article 120), which «held_as» says
    item = {"id": n, "source": r.source, "source_title": _cut(source.title, TITLE_CHARS),
            "excerpt": excerpt(source.text, r.start, r.end), "target": r.target,
            "target_citation": citation(r.cited, law, target.law if law == target.source else ""),
            "target_title": _cut(target.title, TITLE_CHARS), "kind": r.kind, "paragraph": r.paragraph,
            "cited": r.cited, "start": r.start, "end": r.end}
    if IdResolver.key(r.cited) != IdResolver.key(r.target):
        item["held_as"] = r.target
    return item


def _in_fixture(r: Reference, sampled: Sequence[dict[str, Any]]) -> bool:
    return any(o["article_id"] == r.source and o["cited"] == r.cited and r.start < o["end"] and r.end > o["start"]
               for o in sampled)


def draw_edges(corpus: Corpus, sampled: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                                                           dict[str, int]]:
    """The warnings batch and the random batch, and their pools' sizes. Pools in corpus order (then reading order);
    ``random.Random(seed).sample`` over each."""
    landing = [r for r in corpus.edges if r.target and r.target != r.source and r.target in corpus.articles]
    fresh = [r for r in landing if not _in_fixture(r, sampled)]
    warn_pool = [r for r in fresh if r.kind in AMENDMENT_KINDS]
    warnings = random.Random(SEEDS["warnings"]).sample(warn_pool, SIZES["warnings"])
    taken = {(r.source, r.start, r.end, r.cited) for r in warnings}
    rand_pool = [r for r in fresh if (r.source, r.start, r.end, r.cited) not in taken]
    rand = random.Random(SEEDS["random"]).sample(rand_pool, SIZES["random"])
    pools = {"landing": len(landing), "landing_amendment": sum(r.kind in AMENDMENT_KINDS for r in landing),
             "warnings_pool": len(warn_pool), "random_pool": len(rand_pool)}
    return ([edge_item(f"w-{i + 1:03d}", corpus, r) for i, r in enumerate(warnings)],
            [edge_item(f"e-{i + 1:03d}", corpus, r) for i, r in enumerate(rand)], pools)


def warning_edges(corpus: Corpus) -> list[Reference]:
    """The amendment edges that land on another article of the corpus: each is a warning on that article's page."""
    return [r for r in corpus.edges
            if r.target and r.target != r.source and r.target in corpus.articles and r.kind in AMENDMENT_KINDS]


def _warning_key(x: dict[str, Any]) -> tuple[Any, ...]:
    return (x["source"], x["start"], x["end"], x["cited"], x["target"], x["kind"])


def dump_warnings(corpus: Corpus, path: Path) -> int:
    """Write the warning edges (source, span, cited, target, kind) as JSON lines, to draw later what another
    version of the extractor warns of that this one did not (``--new-warnings``)."""
    rows = [{"source": r.source, "start": r.start, "end": r.end, "cited": r.cited, "target": r.target,
             "kind": r.kind} for r in warning_edges(corpus)]
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in rows), encoding="utf-8")
    return len(rows)


def write_new_warnings(corpus: Corpus, out: Path, old: Path, seed: int, name: str, corpus_name: str,
                       size: int, prefix: str = "n") -> dict[str, Any]:
    """A blind batch of the warnings this extractor gives and the one that wrote ``old`` (``--dump-warnings``) did
    not: a new warning, or one whose target or kind changed. The judged warnings batch was drawn from v15, so the
    edges later versions add are judged apart. All of them when there are no more than ``size``."""
    before = {_warning_key(json.loads(line)) for line in old.read_text(encoding="utf-8").splitlines() if line.strip()}
    pool = [r for r in warning_edges(corpus)
            if _warning_key({"source": r.source, "start": r.start, "end": r.end, "cited": r.cited,
                             "target": r.target, "kind": r.kind}) not in before]
    drawn = pool if len(pool) <= size else random.Random(seed).sample(pool, size)
    items = [edge_item(f"{prefix}-{i + 1:03d}", corpus, r) for i, r in enumerate(drawn)]
    (out / name).write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items), encoding="utf-8")
    about = {"references_version": REFERENCES_VERSION, "corpus": corpus_name, "seed": seed, "size": len(items),
             "pool": len(pool), "before": old.name, "before_edges": len(before), "now_edges": len(warning_edges(corpus)),
             "drawn_by": "PYTHONPATH=$PWD python bench/graph_batches.py"
                         + (f" --corpus {corpus_name}" if corpus_name != "corpus.jsonl" else "")
                         + f" --new-warnings {old.name} --seed {seed} --out-name {name} --size {size}"
                         + (f" --prefix {prefix}" if prefix != "n" else "")}
    (out / f"about-{Path(name).stem}.json").write_text(json.dumps(about, ensure_ascii=False, indent=1) + "\n",
                                                       encoding="utf-8")
    return about


def passages(text: str) -> Iterable[tuple[int, int]]:
    """(start, end) of each passage: a line, or a sentence of a line longer than PASSAGE_CHARS."""
    at = 0
    for line in text.split("\n"):
        start, end = at, at + len(line)
        at = end + 1
        pieces = [start]
        if end - start > PASSAGE_CHARS:
            pieces += [start + m.end() for m in SENTENCE_END.finditer(line)]
        for a, b in zip(pieces, [*pieces[1:], end], strict=True):
            while a < b and text[a].isspace():
                a += 1
            if b > a:
                yield a, b


def _outside(quotes: Sequence[tuple[int, int]], pos: int) -> bool:
    return not any(a <= pos < b for a, b in quotes)


def _scoped(article: Article, folded: str) -> bool:
    """Whether the article names the act it amends in its opening sentence, its title or a clause opening items."""
    head = fold(article.title + " " + article.text[:300])
    return bool(OPENING_ITEMS.search(folded[:400]) or TITLE_CHANGE.search(head) or ITEM_OPENER.search(folded))


def draw_passages(corpus: Corpus, seed: int = SEEDS["recall"], exclude: frozenset[tuple[str, int]] = frozenset(),
                  prefix: str = "r", whole_references: bool = False) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Passages with an article reference outside quoted new wording: STRATUM_SIZE from each stratum
    («qualified», «scoped»), the rest from all passages (less those taken), each with the edges the extractor read
    in it. ``exclude`` holds (article id, passage start) of passages already judged, left out of every pool, so a
    fresh batch (another ``seed``, ids ``prefix``-NNN) meets none of them. ``whole_references`` (v17's batch on):
    a passage the cut or a line break ends inside a citation, read without the extractor (:func:`find_citations`,
    any source), runs on to that citation's end, so readers never judge half a reference (recall-v16's f-004,
    f-045)."""
    pools: dict[str, list[tuple[str, int, int]]] = {"qualified": [], "scoped": [], "all": []}
    for aid in sorted(corpus.articles):
        article = corpus.articles[aid]
        text, folded = article.text, fold(article.text)
        quotes = quoted_spans(text)
        scoped = _scoped(article, folded)
        for a, b in passages(text):
            words = [m for m in ARTICLE_WORD.finditer(folded, a, b) if _outside(quotes, m.start())]
            if not words or (aid, a) in exclude:
                continue
            pools["all"].append((aid, a, b))
            if any(_outside(quotes, m.start()) for m in PART_QUALIFIED.finditer(folded, a, b)):
                pools["qualified"].append((aid, a, b))
            elif scoped and any(_outside(quotes, m.start()) for m in BARE.finditer(folded, a, b)):
                pools["scoped"].append((aid, a, b))
    rng = random.Random(seed)
    drawn: list[tuple[str, tuple[str, int, int]]] = []
    for stratum in ("qualified", "scoped"):
        pool = pools[stratum]
        drawn += [(stratum, p) for p in rng.sample(pool, min(STRATUM_SIZE, len(pool)))]
    taken = {p for _, p in drawn}
    rest = [p for p in pools["all"] if p not in taken]
    drawn += [("random", p) for p in rng.sample(rest, SIZES["recall"] - len(drawn))]
    by_source: dict[str, list[Reference]] = {}
    for r in corpus.edges:
        by_source.setdefault(r.source, []).append(r)
    items = []
    for i, (stratum, (aid, a, b)) in enumerate(drawn):
        article = corpus.articles[aid]
        if b - a > PASSAGE_CHARS:  # a long sentence: its first PASSAGE_CHARS, cut at a word
            cut = article.text.rfind(" ", a, a + PASSAGE_CHARS)
            b = cut if cut > a else a + PASSAGE_CHARS
        found = [r for r in by_source.get(aid, []) if a <= r.start < b]
        b = max([b, *(r.end for r in found)])  # a citation the cut or a line break splits («… του άρθρου 52 του\nν. …»)
        if whole_references:
            b = max([b, *(c.end for c in find_citations(article.text, default_source="·") if a <= c.start < b < c.end)])
        items.append({"id": f"{prefix}-{i + 1:03d}", "stratum": stratum, "source": aid,
                      "source_title": _cut(article.title, TITLE_CHARS),
                      "passage": " / ".join(" ".join(line.split()) for line in article.text[a:b].split("\n")),
                      "start": a, "end": b,
                      "extracted": [{"span": " ".join(article.text[r.start:r.end].split()), "cited": r.cited,
                                     "target": r.target, "kind": r.kind} for r in found]})
    return items, {f"{k}_pool": len(v) for k, v in pools.items()}


def write_batches(corpus: Corpus, out: Path, corpus_name: str, fixture: Path) -> dict[str, Any]:
    """The three batches and about.json, drawn into ``out``; ``fixture``: the hand-checked edges (precision.json)
    the random batch leaves out."""
    sampled = json.loads(fixture.read_text(encoding="utf-8"))["edges"]
    warnings, rand, pools = draw_edges(corpus, sampled)
    recall, passage_pools = draw_passages(corpus)
    out.mkdir(parents=True, exist_ok=True)
    for name, items in (("warnings", warnings), ("random", rand), ("recall", recall)):
        (out / f"{name}.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items),
                                           encoding="utf-8")
    about = {"references_version": REFERENCES_VERSION, "corpus": corpus_name, "seeds": SEEDS, "sizes": SIZES,
             "stratum_size": STRATUM_SIZE, "pools": {**pools, **passage_pools},
             "strata": dict(sorted({s: sum(x["stratum"] == s for x in recall) for s in ("qualified", "scoped", "random")}
                                   .items())),
             "drawn_by": "PYTHONPATH=$PWD python bench/graph_batches.py --dataset <greek-statutes>"}
    (out / "about.json").write_text(json.dumps(about, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return about


def write_fresh_recall(corpus: Corpus, out: Path, seed: int, name: str, corpus_name: str,
                       excluded: Sequence[str] = ("recall.jsonl",), whole_references: bool = False,
                       prefix: str = "f") -> dict[str, Any]:
    """A fresh recall batch (issue 36, after v16): the same strata and sizes as recall.jsonl, another seed, none of
    the passages of the ``excluded`` batches, each with the current extractor's list; its own about file beside it."""
    exclude = frozenset((x["source"], x["start"]) for f in excluded for x in read_jsonl(out / f))
    items, pools = draw_passages(corpus, seed=seed, exclude=exclude, prefix=prefix, whole_references=whole_references)
    (out / name).write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items), encoding="utf-8")
    about = {"references_version": REFERENCES_VERSION, "corpus": corpus_name, "seed": seed, "size": len(items),
             "stratum_size": STRATUM_SIZE, "excluded": len(exclude), "pools": pools,
             "strata": {s: sum(x["stratum"] == s for x in items) for s in ("qualified", "random", "scoped")},
             "drawn_by": "PYTHONPATH=$PWD python bench/graph_batches.py"
                         + (f" --corpus {corpus_name}" if corpus_name != "corpus.jsonl" else "")
                         + f" --recall-only --seed {seed} --out-name {name}"
                         + (f" --exclude {' '.join(excluded)}" if tuple(excluded) != ("recall.jsonl",) else "")
                         + (" --whole-references" if whole_references else "")
                         + (f" --prefix {prefix}" if prefix != "f" else "")}
    if tuple(excluded) != ("recall.jsonl",) or whole_references:
        about["excluded_batches"] = list(excluded)
        about["whole_references"] = whole_references
    (out / f"about-{Path(name).stem}.json").write_text(json.dumps(about, ensure_ascii=False, indent=1) + "\n",
                                                       encoding="utf-8")
    return about
