"""The judgments export stage: the readers' grades (``nomos/opensearch/judgments_store.py``) as a test set that
``eval --qrels FILE --queries FILE`` scores, so a library measures the methods on its own cases.

Two files, both sorted, so the same judgments always give the same bytes:

* TREC qrels, one line per judged (query, article): ``query_id 0 article_id grade``, sorted by query id, then
  article id;
* BEIR queries (``{"_id": query_id, "text": …}`` per line), sorted by query id: the case as it was first judged.

Several users on the same (query, article): the export writes the **rounded mean** of their grades, halves
rounded up (0+1 → 1, 1+2 → 2, 0+2 → 1, 0+0+1 → 0). Why not the maximum: one lenient reader would make an article
"highly relevant" over everyone else's objection, and nobody could ever grade it down again. Why halves up: a tie
between "not relevant" and "relevant" is an article one lawyer thought mattered; a statute search is judged by
what it misses, so a disputed article counts. ``user`` exports one reader's grades alone (no aggregation).

``min_grade`` drops aggregated judgments below it. A query is exported only if at least one of its articles is
relevant (grade 1 or more) after that: a query with nothing to find has no recall or nDCG (ranx and ``eval``
refuse it); such queries are counted in the outcome, not written.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from nomos.eval.runs import atomic_write_text
from nomos.opensearch import judgments_store as store
from nomos.opensearch.client import cluster_version, make_client
from nomos.stages.settings import StageSettings


@dataclass(frozen=True)
class ExportOutcome:
    qrels: Path
    queries: Path
    n_queries: int
    n_judgments: int  # qrels lines
    n_stored: int  # stored judgments read (every user's)
    skipped_queries: tuple[str, ...] = field(default_factory=tuple)  # judged, but nothing relevant: not written


def aggregate_grade(grades: Iterable[int]) -> int:
    """The rounded mean, halves up, in integer arithmetic (no float rounding): floor(mean + 1/2)."""
    gs = list(grades)
    if not gs:
        raise ValueError("no grades to aggregate")
    return (2 * sum(gs) + len(gs)) // (2 * len(gs))


def aggregate(judgments: Iterable[store.Judgment]) -> tuple[dict[str, dict[str, int]], dict[str, str]]:
    """Per query id, per article id, the aggregated grade; and per query id its text (that of the earliest
    judgment, ties by judgment id, so the choice does not depend on the order OpenSearch returns them)."""
    grades: dict[tuple[str, str], list[int]] = defaultdict(list)
    first: dict[str, tuple[str, str, str]] = {}
    for j in judgments:
        grades[(j.query_id, j.article_id)].append(j.grade)
        key = (j.created, j.id, j.query)
        if j.query_id not in first or key < first[j.query_id]:
            first[j.query_id] = key
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for (qid, doc), gs in grades.items():
        qrels[qid][doc] = aggregate_grade(gs)
    return dict(qrels), {qid: k[2] for qid, k in first.items()}


def qrels_text(qrels: dict[str, dict[str, int]]) -> str:
    """TREC qrels lines, sorted by query id then article id."""
    lines = []
    for qid in sorted(qrels):
        for doc in sorted(qrels[qid]):
            if any(c.isspace() for c in doc):
                raise ValueError(f"article id {doc!r} contains white space: it cannot be written to a qrels line")
            lines.append(f"{qid} 0 {doc} {qrels[qid][doc]}\n")
    return "".join(lines)


def queries_text(texts: dict[str, str], qids: Iterable[str]) -> str:
    return "".join(json.dumps({"_id": q, "text": texts[q]}, ensure_ascii=False) + "\n" for q in sorted(qids))


def default_queries_path(qrels: Path) -> Path:
    """``judgments.qrels`` → ``judgments.queries.jsonl`` beside it."""
    return qrels.with_name(qrels.stem + ".queries.jsonl")


EXPORT_MODE = 0o600  # issue 47: the export was written 0644, readable by every local account


def export_judgments(settings: StageSettings, out: Path, queries_out: Path | None = None, min_grade: int = 0,
                     user: str | None = None) -> ExportOutcome:
    """Read every judgment of the articles alias (or of one ``user``), aggregate, write qrels and queries."""
    if not 0 <= min_grade <= 2:
        raise ValueError(f"min_grade must be 0, 1 or 2, got {min_grade}")
    client = make_client(settings.cluster)
    cluster_version(client, settings.cluster)  # a clear message when no cluster answers
    stored = list(store.all_judgments(client, settings.index_alias, user=user))
    qrels, texts = aggregate(stored)
    kept = {q: {d: g for d, g in docs.items() if g >= min_grade} for q, docs in qrels.items()}
    relevant = {q: docs for q, docs in kept.items() if any(g > 0 for g in docs.values())}
    skipped = tuple(sorted(set(qrels) - set(relevant)))
    queries_out = queries_out or default_queries_path(out)
    # readers' cases (the queries) and who judged what: the exporting user's alone, like the node's own files
    atomic_write_text(out, qrels_text(relevant), mode=EXPORT_MODE)
    atomic_write_text(queries_out, queries_text(texts, relevant), mode=EXPORT_MODE)
    return ExportOutcome(out, queries_out, len(relevant), sum(len(d) for d in relevant.values()), len(stored), skipped)
