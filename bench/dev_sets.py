"""The three dev sets every quality choice is cross-validated on, together (bench/bridge_study.py, bench/ltr_study.py):

* ``extended``: the stand-in's 74 extended queries (``queries-extended.jsonl``, ``qrels/extended.tsv``);
* ``case files``: 83 questions on 30 bar-exam case files (``bench/data/case-files``), grouped by case file;
* ``everyday``: short everyday-language cases (``bench/data/everyday``), one group each.

Each query keeps its set's group (``set:case``), so grouped folds never split a case file's questions.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nomos.eval.grouped_cv import CVResult, mean
from nomos.ingest.beir import read_qrels, read_queries
from nomos.retrieval.case_reading import DEFAULT_QUESTION_WEIGHT, combine, fits_encoder, query_pieces
from nomos.vectors.adapter import unit
from nomos.vectors.cache import VectorCache, encode_cached
from nomos.vectors.encoders import Encoder

DATA = Path(__file__).resolve().parent / "data"
SHOWN = ("recall@10", "recall@100", "ndcg@10")


@dataclass(frozen=True)
class DevSets:
    texts: dict[str, str]  # query id -> the text every method reads
    groups: dict[str, str]  # query id -> "set:case"
    qrels: dict[str, dict[str, int]]
    members: dict[str, list[str]]  # set name -> its judged query ids


def load_one(queries: Path, qrels: Path) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, int]]]:
    """(query id -> text as every method reads it, query id -> case group, judged queries' qrels) of one set."""
    located = read_queries(queries)
    judged, _ = read_qrels(qrels)
    texts = {q.id: q.case_text for _, q in located}
    groups = {q.id: str(q.meta.get("case") or q.id) for _, q in located}
    return texts, groups, {q: judged[q] for q in texts if q in judged}


def dev_sets(dataset: Path, data: Path = DATA) -> DevSets:
    """The dev sets that exist (the everyday set is skipped, with a line on stderr, where it is absent)."""
    files = {"extended": (dataset / "queries-extended.jsonl", dataset / "qrels" / "extended.tsv"),
             "case files": (data / "case-files" / "queries.jsonl", data / "case-files" / "qrels" / "test.tsv"),
             "everyday": (data / "everyday" / "queries.jsonl", data / "everyday" / "qrels" / "test.tsv")}
    sets = {name: load_one(*paths) for name, paths in files.items() if paths[0].exists() and paths[1].exists()}
    texts = {q: t for s in sets.values() for q, t in s[0].items()}
    groups = {q: f"{name}:{g}" for name, s in sets.items() for q, g in s[1].items()}
    qrels = {q: j for s in sets.values() for q, j in s[2].items()}
    return DevSets(texts, groups, qrels, {name: sorted(s[2]) for name, s in sets.items()})


def cv_report(title: str, per_query: dict, before: str, cv: CVResult, sets: DevSets, folds: int, repeats: int,
              seed: int) -> dict:
    """Print a grouped-CV study's tables (held out per set against ``before``, the choices, every configuration's
    means: the oracle) and return them for a JSON report."""
    print(f"# {title}: {', '.join(f'{n} ({len(q)})' for n, q in sets.members.items())}; "
          f"{folds}-fold CV grouped by case file, {repeats} repeats, seed {seed}\n")
    print(f"command: {' '.join(sys.argv)}\n")
    print("| set | " + " | ".join(f"{m} before" for m in SHOWN) + " | " + " | ".join(f"{m} held out" for m in SHOWN) + " |")
    print("| --- |" + " --- |" * (2 * len(SHOWN)))
    report: dict = {"sets": {n: len(q) for n, q in sets.members.items()}, "choices": dict(cv.chosen), "before": {},
                    "held_out": {}, "oracle": {}, "command": " ".join(sys.argv)}
    for name, ids in sets.members.items():
        b = [mean(per_query[before], ids, m) for m in SHOWN]
        h = [cv.mean(ids, m) for m in SHOWN]
        report["before"][name], report["held_out"][name] = dict(zip(SHOWN, b, strict=True)), dict(zip(SHOWN, h, strict=True))
        print(f"| {name} | " + " | ".join(f"{v:.4f}" for v in b) + " | " + " | ".join(f"{v:.4f}" for v in h) + " |")
    print(f"\nchoices over {cv.folds} folds: {dict(cv.chosen.most_common())}\n")
    print("| configuration (oracle) | " + " | ".join(f"{s} R@100 / nDCG@10" for s in sets.members) + " |")
    print("| --- |" + " --- |" * len(sets.members))
    for name, pq in per_query.items():
        cells = [f"{mean(pq, ids, 'recall@100'):.4f} / {mean(pq, ids, 'ndcg@10'):.4f}" for ids in sets.members.values()]
        report["oracle"][name] = cells
        print(f"| {name} | " + " | ".join(cells) + " |")
    return report


def query_vectors(encoder: Encoder, cache: VectorCache, texts: Sequence[str]) -> np.ndarray:
    """Each text's query vector as KnnRetriever reads it (its windows and its question, through the cache), length 1:
    the studies that score by exact cosine offline read the queries as the system does."""
    fits = fits_encoder(encoder)
    pieces = [query_pieces(t, fits, DEFAULT_QUESTION_WEIGHT) for t in texts]
    vecs, _ = encode_cached(encoder, [p for piece in pieces for p in piece.texts()], "query", cache)
    out, at = [], 0
    for piece in pieces:
        n = len(piece.texts())
        out.append(combine(piece, vecs[at : at + n], DEFAULT_QUESTION_WEIGHT))
        at += n
    return unit(np.stack(out))


def with_gold_sample(ids: Sequence[str], sets: DevSets, size: int, seed: int) -> set[str]:
    """Every gold article of the dev sets and a seeded random sample of the others, ``size`` in all: the sub-corpus
    the offline dense studies re-encode (bench/heading_vectors_study.py, bench/heading_blend_study.py)."""
    import random

    gold = {d for judged in sets.qrels.values() for d, g in judged.items() if g > 0}
    others = sorted(d for d in ids if d not in gold)
    return gold | set(random.Random(seed).sample(others, max(0, size - len(gold))))
