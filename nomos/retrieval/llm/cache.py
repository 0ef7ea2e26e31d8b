"""The reply cache: every reply stored in SQLite under a hash of (endpoint, model, messages, parameters), so a
re-run or a ``--resume`` after a crash replays the stored replies, with their tokens and latency, and pays for
nothing. The endpoint is in the key so that fixing a misconfigured server gets fresh calls, not its bad replies;
and unusable replies (empty, cut, filtered) are never stored (:class:`~nomos.retrieval.llm.client.LLMClient`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from nomos.retrieval.llm.config import Message, Reply
from nomos.sqlite_cache import SQLiteCache, Table


def cache_key(model: str, messages: Sequence[Message], params: Mapping[str, Any], base_url: str = "") -> str:
    """sha256 over the endpoint, the model, the parameters and each message's role and content (length-prefixed, so no two
    different requests share a key); hashing the strings directly avoids JSON-encoding ~200 kB observer prompts
    on the event loop."""
    h = hashlib.sha256()
    h.update(json.dumps({"base_url": base_url, "model": model, "params": dict(params)}, sort_keys=True).encode())
    for m in messages:
        for key in sorted(m):
            value = str(m[key]).encode("utf-8")
            h.update(f"\0{key}:{len(value)}:".encode())
            h.update(value)
    return h.hexdigest()


REPLIES = Table("replies", "key TEXT PRIMARY KEY, reply TEXT NOT NULL", key=("key",), value=("reply",))
"""The table of every reply cache written so far (a JSON reply per :func:`cache_key`); unchanged, so old caches
still replay."""


class ReplyCache:
    """SQLite store of replies by :func:`cache_key` (:mod:`nomos.sqlite_cache`); safe to share between threads and
    runs. Commits do not wait for fsync (WAL + NORMAL: a crash may lose the last replies, never corrupt the file), so
    storing a reply costs microseconds instead of blocking the event loop for milliseconds."""

    def __init__(self, path: Path) -> None:
        self._store = SQLiteCache(path, REPLIES, timeout=30, synchronous="NORMAL")
        self.path = self._store.path

    def get(self, key: str) -> Reply | None:
        row = self._store.get((key,))
        if row is None:
            return None
        data = json.loads(row[0])
        return Reply(**{**data, "cached": True})

    def put(self, key: str, reply: Reply) -> None:
        data = asdict(reply)
        data.pop("cached")
        self._store.put_many([(key, json.dumps(data, ensure_ascii=False))])

    def __len__(self) -> int:
        return self._store.count()
