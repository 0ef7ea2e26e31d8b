"""The one SQLite cache module under the vector cache and the LLM reply cache: files written by the code before it
(the same table, columns and keys, created here with the old statements verbatim) read as hits through it, files it
writes have the old schema, a batch is all-or-nothing, and readers are not blocked by a writer. No OpenSearch."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from pathlib import Path

import numpy as np
import pytest

from nomos.retrieval.llm import LLMClient, LLMConfig, Reply, ReplyCache, cache_key
from nomos.sqlite_cache import CacheLayoutError, SQLiteCache, Table
from nomos.vectors.cache import VECTORS, VectorCache, encode_cached, encoder_key, text_hash
from tests.test_encoders_and_cache import CountingEncoder

# The statements of the code before nomos/sqlite_cache.py, verbatim.
OLD_VECTORS_DDL = "CREATE TABLE IF NOT EXISTS vectors (encoder TEXT, text_sha TEXT, dim INTEGER, vec BLOB, PRIMARY KEY (encoder, text_sha))"
OLD_VECTORS_INSERT = "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)"
OLD_REPLIES_DDL = "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, reply TEXT NOT NULL)"
OLD_REPLIES_INSERT = "INSERT OR REPLACE INTO replies (key, reply) VALUES (?, ?)"


def old_vector_file(path: Path, encoder: str, vectors: dict[str, np.ndarray]) -> None:
    """What the old VectorCache wrote: WAL, its table, one transaction per batch."""
    db = sqlite3.connect(path, timeout=60)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(OLD_VECTORS_DDL)
    with db:
        db.executemany(OLD_VECTORS_INSERT, [(encoder, sha, int(v.shape[0]), np.asarray(v, dtype=np.float32).tobytes())
                                            for sha, v in vectors.items()])
    db.close()


def schema(path: Path) -> list[tuple[str, str]]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT name, sql FROM sqlite_master WHERE type='table' ORDER BY name").fetchall()
    finally:
        db.close()


class NoEmbedding(CountingEncoder):
    """An encoder that must never be asked: everything it would compute is in the cache."""

    def embed(self, inputs, kind):
        raise AssertionError(f"re-encoded {len(inputs)} texts that the old cache holds")


def test_a_vector_cache_written_by_the_old_code_reads_as_hits(tmp_path: Path) -> None:
    texts = ["Άρθρο 1. Όποιος αφαιρεί ξένο κινητό πράγμα", "Άρθρο 2. Σύσταση ανώνυμης εταιρείας", "τρίτο"]
    reference = CountingEncoder()
    expected, _ = encode_cached(reference, texts, "passage", None)
    key = encoder_key(reference, "passage")
    hashes = [text_hash(reference.prepare(t, "passage").text) for t in texts]
    path = tmp_path / "embeddings.sqlite"
    old_vector_file(path, key, dict(zip(hashes, expected, strict=True)))

    cache = VectorCache(path)
    assert cache.count(key) == 3 and cache.count("another-encoder") == 0
    vectors, stats = encode_cached(NoEmbedding(), texts, "passage", cache)
    assert (stats.from_cache, stats.encoded) == (3, 0)
    np.testing.assert_array_equal(vectors, expected)
    assert vectors.dtype == np.float32

    # what the new module adds to that file is read back by the old statements
    fresh = {"f" * 64: np.arange(4, dtype=np.float32)}
    cache.put_many(key, fresh)
    cache.close()
    db = sqlite3.connect(path)
    dim, blob = db.execute("SELECT dim, vec FROM vectors WHERE encoder=? AND text_sha=?", [key, "f" * 64]).fetchone()
    db.close()
    np.testing.assert_array_equal(np.frombuffer(blob, dtype=np.float32, count=dim), fresh["f" * 64])


def test_new_cache_files_have_the_old_schema(tmp_path: Path) -> None:
    old_vec, old_rep = tmp_path / "old-vec.sqlite", tmp_path / "old-rep.sqlite"
    old_vector_file(old_vec, "e", {})
    db = sqlite3.connect(old_rep)
    db.execute(OLD_REPLIES_DDL)
    db.close()
    VectorCache(tmp_path / "new-vec.sqlite").close()
    len(ReplyCache(tmp_path / "new-rep.sqlite"))
    assert schema(tmp_path / "new-vec.sqlite") == schema(old_vec)
    assert schema(tmp_path / "new-rep.sqlite") == schema(old_rep)
    db = sqlite3.connect(tmp_path / "new-vec.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_a_reply_cache_written_by_the_old_code_replays_without_calling(tmp_path: Path) -> None:
    path = tmp_path / "llm.sqlite"
    messages = [{"role": "user", "content": "Τι ορίζει το άρθρο 372 ΠΚ;"}]
    config = LLMConfig(base_url="http://127.0.0.1:9/v1", model="m", cache_path=path, retries=0)  # nothing listens
    key = cache_key(config.model, messages, config.params(), config.base_url)  # the endpoint is part of the key
    stored = {"text": "κλοπή", "input_tokens": 12, "output_tokens": 3, "seconds": 0.25, "attempts": 2, "finish_reason": "stop"}
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(OLD_REPLIES_DDL)
    db.execute(OLD_REPLIES_INSERT, (key, json.dumps(stored, ensure_ascii=False)))
    db.commit()
    db.close()

    client = LLMClient(config)
    reply = asyncio.run(client.chat(messages, "planner"))
    assert reply == Reply(**stored, cached=True) and client.paid_calls == 0
    assert len(ReplyCache(path)) == 1


def test_a_batch_is_all_or_nothing(tmp_path: Path) -> None:
    cache = SQLiteCache(tmp_path / "c.sqlite", VECTORS)
    cache.put_many([("e", "a", 1, b"\0\0\0\0")])

    def rows():
        yield ("e", "b", 1, b"\0\0\0\0")
        raise RuntimeError("encoder died mid-batch")

    with pytest.raises(RuntimeError, match="mid-batch"):
        cache.put_many(rows())
    assert cache.count(("e",)) == 1 and cache.get(("e", "b")) is None
    assert cache.get_many(("e",), ["a", "b", "a"]) == {"a": (1, b"\0\0\0\0")}


def test_readers_are_not_blocked_by_a_writer_in_a_transaction(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    cache = VectorCache(path)
    cache.put_many("e", {"a": np.ones(2, dtype=np.float32)})
    writer = sqlite3.connect(path, timeout=1)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute(OLD_VECTORS_INSERT, ("e", "b", 2, np.zeros(2, dtype=np.float32).tobytes()))
    seen: dict[str, object] = {}
    reader = threading.Thread(target=lambda: seen.update(VectorCache(path).get_many("e", ["a", "b"])))
    reader.start()
    reader.join(timeout=5)
    assert not reader.is_alive() and set(seen) == {"a"}  # committed rows only, at once
    writer.commit()
    writer.close()
    assert set(cache.get_many("e", ["a", "b"])) == {"a", "b"}


def test_a_file_of_another_layout_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE vectors (encoder TEXT, sha TEXT, vec BLOB)")
    db.close()
    with pytest.raises(CacheLayoutError, match="text_sha"):
        VectorCache(path)
    other = Table("kv", "k TEXT PRIMARY KEY, v TEXT", key=("k",), value=("v",))
    assert SQLiteCache(tmp_path / "kv.sqlite", other).count() == 0


def test_caches_opened_together_on_a_new_file_all_open(tmp_path: Path) -> None:
    """Three searches that start at once create the same new reply cache: SQLite does not wait on its busy handler
    for the switch to WAL, so without retries one of them failed with "database is locked" (CI, test_portal_llm)."""
    errors: list[BaseException] = []
    for trial in range(20):
        path = tmp_path / f"r{trial}.sqlite"
        start = threading.Barrier(6)

        def open_one(path: Path = path, start: threading.Barrier = start) -> None:
            start.wait()
            try:
                len(ReplyCache(path))
            except BaseException as exc:  # collected and reported below
                errors.append(exc)

        threads = [threading.Thread(target=open_one) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert errors == []


def test_a_cache_waits_for_a_writer_setting_up_the_file(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    holder = sqlite3.connect(path, timeout=1)
    holder.execute("BEGIN EXCLUSIVE")
    opened: list[int] = []
    t = threading.Thread(target=lambda: opened.append(SQLiteCache(path, VECTORS, timeout=10).count()))
    t.start()
    t.join(timeout=0.5)
    assert t.is_alive() and not opened  # waiting, not failed
    holder.commit()
    holder.close()
    t.join(timeout=10)
    assert opened == [0]
