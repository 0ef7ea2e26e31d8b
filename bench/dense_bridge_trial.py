"""The dense bridge inside the learned ranker, simulated offline: what wiring it into OpenSearch would buy.

``bench/ltr_study.py --dense-bridge`` calls :func:`extend_pools` after the ranker's own pools are read: each query
vector goes through the ridge adapter of :mod:`bench.dense_bridge_study` (fitted on the corpus's own pairs, mixed by
``alpha``) and meets every article's start vector and every anchor text embedded as a passage, by exact cosine over
the vector cache (numpy; nothing here is in the index yet). Two lists join the pool: the adapted query's top
``depth`` start vectors (as a second kNN list would give them) and the top ``anchor_depth`` articles by their best
anchor (as a k-NN query over a nested field of anchor vectors would); the pool's features are read again through
OpenSearch for the new articles; and seven columns join the matrix: the adapted cosine, the best anchor's cosine,
whether the article has anchors, start + λ × the best anchor's excess over it, both lists' ranks, and that score
less the pool's best. ``alpha`` 0 (no adapter) or ``anchors`` False (no anchor vectors) are the ablations.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.dense_bridge_study import fit_adapter, unit
from nomos.ingest.anchors import corpus_anchors
from nomos.ingest.graph import CorpusReading
from nomos.ingest.loader import load_dataset
from nomos.retrieval.base import Hit
from nomos.retrieval.ltr.features import MISSING_RANK, FeatureReader, PoolFeatures
from nomos.retrieval.registry import encoder_for, vector_cache
from nomos.settings import Settings
from nomos.vectors.cache import encode_cached

COLUMNS = ("x_adapted_cos", "x_best_anchor", "x_has_anchor", "x_bridge", "x_adapted_rank", "x_anchor_rank",
           "x_rel_bridge")


@dataclass(frozen=True)
class Trial:
    alpha: float = 0.25  # the adapter's share of the query vector
    lam: float = 0.5  # the best anchor's excess over the start, added
    depth: int = 100  # the adapted kNN list
    anchor_depth: int = 50  # the best-anchor list
    anchors: bool = True
    ridge: float = 10.0


def extend_pools(settings: Settings, dataset: str, texts: Mapping[str, str], vectors: Mapping[str, Any],
                 lists: dict[str, dict[str, list[Hit]]], reader: FeatureReader,
                 trial: Trial = Trial()) -> tuple[dict[str, PoolFeatures], tuple[str, ...]]:
    """The pools with the two lists added and the columns appended; the columns' names."""
    encoder, cache = encoder_for(settings, settings.embedder), vector_cache(settings)
    articles = list(load_dataset(Path(dataset)).articles)
    ids = [a.id for a in articles]
    at = {d: i for i, d in enumerate(ids)}
    starts = unit(encode_cached(encoder, [a.passage for a in articles], "passage", cache)[0])
    table = corpus_anchors(articles, CorpusReading.of(articles))
    owners = [(i, t) for i, a in enumerate(articles) if a.id in table for t in table[a.id].texts]
    anchor_p = unit(encode_cached(encoder, [t for _, t in owners], "passage", cache)[0])
    anchor_q = encode_cached(encoder, [t for _, t in owners], "query", cache)[0]
    titles = [(i, a.title) for i, a in enumerate(articles) if a.title.strip()]
    title_q = encode_cached(encoder, [t for _, t in titles], "query", cache)[0]
    w = fit_adapter(unit(np.concatenate([anchor_q, title_q])), starts[[i for i, _ in owners] + [i for i, _ in titles]],
                    trial.ridge)
    qids = list(texts)
    q = unit(np.stack([np.asarray(vectors[x], dtype=np.float64) for x in qids]))
    qa = unit((1 - trial.alpha) * q + trial.alpha * unit(q @ w)) if trial.alpha else q
    base = qa @ starts.T
    best = np.full_like(base, -1.0)
    if trial.anchors:
        np.maximum.at(best.T, np.asarray([i for i, _ in owners], dtype=np.int64), (qa @ anchor_p.T).T)
    bridge = base + trial.lam * np.maximum(best - base, 0.0)
    added: dict[str, dict[str, list[str]]] = {}
    for r, x in enumerate(qids):
        adapted = np.argsort(-base[r], kind="stable")[: trial.depth]
        by_anchor = np.argsort(-best[r], kind="stable")[: trial.anchor_depth]
        added[x] = {"x_adapted": [ids[j] for j in adapted], "x_anchor": [ids[j] for j in by_anchor if best[r, j] > -1]}
        for name, found in added[x].items():
            lists[x][name] = [Hit(d, 0.0) for d in found]
    pools = reader.read(texts, lists, vectors)  # the new articles' features, read as the ranker reads them
    out: dict[str, PoolFeatures] = {}
    for r, x in enumerate(qids):
        pool = pools[x]
        cols_at = [at[d] for d in pool.ids]
        ranks = {name: {d: i + 1 for i, d in enumerate(found)} for name, found in added[x].items()}
        score = bridge[r, cols_at]
        cols = np.stack([base[r, cols_at], np.maximum(best[r, cols_at], 0.0), (best[r, cols_at] > -1).astype(float),
                         score, [ranks["x_adapted"].get(d, MISSING_RANK) for d in pool.ids],
                         [ranks["x_anchor"].get(d, MISSING_RANK) for d in pool.ids],
                         score - (score.max() if len(score) else 0.0)], axis=1).reshape(len(pool.ids), len(COLUMNS))
        out[x] = PoolFeatures(pool.ids, np.concatenate([pool.matrix, cols.astype(np.float32)], axis=1))
    return out, COLUMNS
