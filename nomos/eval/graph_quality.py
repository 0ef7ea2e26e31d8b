"""The legal graph's extractor scored on hand-checked samples: precision on edges drawn at random from its output
and checked by reading the text, recall on references found by reading random articles (issue 25).

The samples are files (tests/fixtures/graph/precision.json, recall.json; how each was drawn is in its ``about``);
the texts and each article's references come in a :class:`Corpus`, which ``nomos.stages.graph.quality_corpus``
builds from a corpus folder as ingest reads it. tests/test_graph_quality.py asserts what these measure and
bench/graph_quality.py prints it, per batch. Files and numbers only, like the rest of ``nomos.eval``.

* precision: each sampled edge is (article, span, cited id as extracted then) with the reader's verdict: the id it
  really cites (null: not a reference) and the kinds a careful reader accepts. The current extractor's edge over
  that span with that cited id (or with the verdict's id, once corrected) is correct when its id is the verdict's
  and its kind is accepted. An edge the extractor no longer gives is counted as withdrawn (not in the ratio); the
  sample says nothing of edges added since it was drawn, so re-draw it when the rules change much.
* recall: a hand-found reference is found when an edge with its id overlaps its span; found with the right kind
  when that edge's kind is one accepted.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nomos.legal.graph.edges import Reference


@dataclass
class Score:
    """One measure: how many judged, how many right, and the misses (for --show)."""

    total: int = 0
    right: int = 0
    right_id: int = 0
    withdrawn: int = 0
    misses: list[str] = field(default_factory=list)
    spans: int = 0  # recall: distinct references (a range or list of n articles is one span and n entries)
    spans_right: int = 0  # recall: spans whose every entry was found

    @property
    def ratio(self) -> float:
        return self.right / self.total if self.total else 0.0


class Corpus:
    """The corpus's texts by article id, and each article's references, read once by ``read`` (article id ->
    references) when first asked for."""

    def __init__(self, texts: Mapping[str, str], read: Callable[[str], list[Reference]]) -> None:
        self.texts = dict(texts)
        self._read = read
        self._refs: dict[str, list[Reference]] = {}

    def text(self, article_id: str) -> str:
        return self.texts[article_id]

    def references(self, article_id: str) -> list[Reference]:
        if article_id not in self._refs:
            self._refs[article_id] = self._read(article_id)
        return self._refs[article_id]


def locate(text: str, span: str, occurrence: int = 0) -> tuple[int, int]:
    """Where ``span`` is in ``text`` (no-break spaces read as spaces: the corpus has both)."""
    plain, at = text.replace("\xa0", " "), -1
    for _ in range(occurrence + 1):
        at = plain.find(span.replace("\xa0", " "), at + 1)
        if at < 0:
            raise ValueError(f"span {span!r} not found in the text")
    return at, at + len(span)


def _over(r: Reference, start: int, end: int) -> bool:
    return r.start < end and r.end > start


def precision(corpus: Corpus, sample: list[dict[str, Any]]) -> Score:
    score = Score()
    for item in sample:
        start, end = item["start"], item["end"]
        # the edge as sampled, or as corrected since (the extractor now reads the id the reader found)
        edge = next((r for r in corpus.references(item["article_id"])
                     if (item["truth"] in (r.cited, r.target) or r.cited == item["cited"]) and _over(r, start, end)), None)
        if edge is None:
            score.withdrawn += 1
            continue
        score.total += 1
        right_id = item["truth"] in (edge.cited, edge.target)  # the id as cited, or the corpus article it names
        score.right_id += right_id
        right_paragraph = "paragraph" not in item or edge.paragraph == item["paragraph"]
        if right_id and edge.kind in item["kinds"] and right_paragraph:
            score.right += 1
        else:
            score.misses.append(f"{item['article_id']} {item['span']!r}: {edge.cited} {edge.kind} "
                                f"p. {edge.paragraph} (truth {item['truth']} {item['kinds']}"
                                + (f" p. {item['paragraph']}" if "paragraph" in item else "") + ")")
    return score


def _batches(sample: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The sample's entries by batch, in the order the batches were drawn."""
    batches: dict[str, list[dict[str, Any]]] = {}
    for item in sample:
        batches.setdefault(item.get("batch", "unnamed"), []).append(item)
    return batches


def precision_by_batch(corpus: Corpus, sample: list[dict[str, Any]]) -> dict[str, Score]:
    """Precision on each batch of the sample alone (in the order the batches were drawn): the overall ratio mixes
    batches that shaped the rules with held-out ones, so it overstates precision on unseen text."""
    return {name: precision(corpus, items) for name, items in _batches(sample).items()}


def draw_batch(corpus: Corpus, sample: list[dict[str, Any]], seed: int, size: int, batch: str) -> list[dict[str, Any]]:
    """A fresh batch to judge: ``random.Random(seed).sample`` over every edge the extractor gives on the corpus
    (articles in id order), less the edges that overlap a sampled one with the same cited id. The entries carry
    what was extracted (``cited``, ``kind_then``, ``paragraph_then``) and no verdict: the reader adds ``truth``,
    ``kinds`` and ``paragraph`` before the rules change, or the batch is not held out."""
    def sampled(r: Reference) -> bool:
        return any(o["article_id"] == r.source and o["cited"] == r.cited and _over(r, o["start"], o["end"])
                   for o in sample)
    pool = [r for aid in sorted(corpus.texts) for r in corpus.references(aid) if not sampled(r)]
    return [{"n": f"{batch}-{i}", "article_id": r.source, "start": r.start, "end": r.end,
             "span": corpus.text(r.source)[r.start:r.end], "cited": r.cited, "kind_then": r.kind,
             "paragraph_then": r.paragraph, "held_out": True, "batch": batch}
            for i, r in enumerate(random.Random(seed).sample(pool, size))]


def recall(corpus: Corpus, sample: list[dict[str, Any]]) -> Score:
    """Recall per entry (one per cited article, as the edges are counted) and per distinct reference: a range
    «άρθρα 127 έως και 157» is 31 entries but one thing a reader found, and it would weigh 31 times in the first."""
    score = Score()
    spans: set[tuple[str, str, int]] = set()
    missed_spans: set[tuple[str, str, int]] = set()
    for item in sample:
        key = (item["article_id"], item["span"], item.get("occurrence", 0))
        spans.add(key)
        start, end = locate(corpus.text(item["article_id"]), item["span"], item.get("occurrence", 0))
        score.total += 1
        edges = [r for r in corpus.references(item["article_id"]) if item["cited"] in (r.cited, r.target) and _over(r, start, end)]
        score.right_id += bool(edges)
        if any(r.kind in item["kinds"] for r in edges):
            score.right += 1
        else:
            missed_spans.add(key)
            got = ", ".join(f"{r.cited} {r.kind}" for r in corpus.references(item["article_id"]) if _over(r, start, end))
            score.misses.append(f"{item['article_id']} {item['span']!r}: want {item['cited']} {item['kinds']}, "
                                f"got {got or 'nothing'}")
    score.spans, score.spans_right = len(spans), len(spans - missed_spans)
    return score


def recall_by_batch(corpus: Corpus, sample: list[dict[str, Any]]) -> dict[str, Score]:
    """Recall on each batch of hand-found references alone: the first ones were read before the amendment rules
    were written from them; the later batches were read after a version was frozen (held out)."""
    return {name: recall(corpus, items) for name, items in _batches(sample).items()}


def load_sample(path: Path) -> dict[str, Any]:
    """A sample file (``precision.json``: ``edges``; ``recall.json``: ``references``; each with its ``about``)."""
    return json.loads(Path(path).read_text(encoding="utf-8"))
