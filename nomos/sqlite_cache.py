"""One SQLite table used as a cache: the storage under the vector cache (``nomos/vectors/cache.py``) and the LLM reply
cache (``nomos/retrieval/llm.py``).

Both caches need the same guarantees, so they live here once:

* The table is described by its column definitions *verbatim* (:class:`Table`), so a file written by any earlier
  version of the project opens as it is: ``CREATE TABLE IF NOT EXISTS`` leaves an existing table alone, and a new file
  gets exactly the schema the older code wrote, so older code reads it too. Opening checks that the existing table
  has the columns asked for, so a file of another layout fails loudly instead of reading as empty.
* WAL journal: readers (another evaluation, the portal) never wait for a writer, and a writer that dies mid-batch
  leaves the last committed batch intact.
* One transaction per :meth:`SQLiteCache.put_many`: a batch is either all in the file or not at all, and every batch
  is committed as soon as it is written (a crash loses at most the batch in flight).
* One connection per cache object, shared between threads under a lock (the LLM client stores replies from the event
  loop's thread and from worker threads).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nomos.errors import DataError

IN_CHUNK = 500  # keys per ``IN (...)`` lookup: far below SQLite's bound on host parameters


class CacheLayoutError(DataError):
    """An existing cache file whose table lacks the columns this code reads."""


@dataclass(frozen=True)
class Table:
    """A cache table: its name, its column definitions as SQL (kept verbatim, so the on-disk schema never drifts),
    and which columns form the key (in primary-key order) and which hold the cached value."""

    name: str
    columns_sql: str
    key: tuple[str, ...]
    value: tuple[str, ...]

    @property
    def create_sql(self) -> str:
        return f"CREATE TABLE IF NOT EXISTS {self.name} ({self.columns_sql})"

    @property
    def columns(self) -> tuple[str, ...]:
        return (*self.key, *self.value)


class SQLiteCache:
    """A key → value table in one SQLite file (see the module docstring for the guarantees).

    ``synchronous="NORMAL"`` lets a commit return without waiting for fsync (in WAL mode a crash may lose the last
    commits, never corrupt the file); the default (SQLite's FULL) syncs every commit.
    """

    def __init__(self, path: Path, table: Table, timeout: float = 60.0, synchronous: str | None = None) -> None:
        self.path = Path(path)
        self.table = table
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=timeout, check_same_thread=False)
        with self._lock:
            self._open_with_retries(timeout, synchronous)
            have = {row[1] for row in self._db.execute(f"PRAGMA table_info({table.name})")}
        missing = [c for c in table.columns if c not in have]
        if missing:
            self._db.close()
            raise CacheLayoutError(f"{self.path}: table {table.name} has no column(s) {', '.join(missing)} (have {sorted(have)})")

    def _open_with_retries(self, timeout: float, synchronous: str | None) -> None:
        """Switch the file to WAL and create the table, retrying while another connection holds the lock.

        Why the retries: SQLite does not call its busy handler for ``PRAGMA journal_mode=WAL`` on a file that another
        connection is setting up at the same moment, so ``timeout`` alone does not cover two searches (threads or
        processes) opening a brand-new cache together; the first one fails with "database is locked" at once.
        """
        deadline = time.monotonic() + timeout
        pause = 0.01
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                if synchronous:
                    self._db.execute(f"PRAGMA synchronous={synchronous}")
                self._db.execute(self.table.create_sql)
                self._db.commit()
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() + pause > deadline:
                    raise
                self._db.rollback()
                time.sleep(pause)
                pause = min(pause * 2, 0.5)

    def get(self, key: Sequence[Any]) -> tuple[Any, ...] | None:
        """The value columns stored under the full ``key``, or None."""
        where = " AND ".join(f"{c}=?" for c in self.table.key)
        sql = f"SELECT {', '.join(self.table.value)} FROM {self.table.name} WHERE {where}"
        with self._lock:
            row = self._db.execute(sql, list(key)).fetchone()
        return tuple(row) if row is not None else None

    def get_many(self, prefix: Sequence[Any], last: Sequence[Any]) -> dict[Any, tuple[Any, ...]]:
        """For the key columns fixed to ``prefix`` and the last key column in ``last``: last key → value columns
        (keys not stored are absent). Looked up in chunks, each one indexed query on the primary key."""
        fixed, varying = self.table.key[: len(prefix)], self.table.key[len(prefix)]
        conditions = [f"{c}=?" for c in fixed]
        found: dict[Any, tuple[Any, ...]] = {}
        unique = list(dict.fromkeys(last))
        for start in range(0, len(unique), IN_CHUNK):
            chunk = unique[start : start + IN_CHUNK]
            where = " AND ".join([*conditions, f"{varying} IN ({','.join('?' * len(chunk))})"])
            sql = f"SELECT {varying}, {', '.join(self.table.value)} FROM {self.table.name} WHERE {where}"
            with self._lock:
                rows = self._db.execute(sql, [*prefix, *chunk]).fetchall()
            for row in rows:
                found[row[0]] = tuple(row[1:])
        return found

    def put_many(self, rows: Iterable[Sequence[Any]]) -> None:
        """Store ``rows`` (key columns then value columns), replacing same keys, in one committed transaction."""
        cols = self.table.columns
        sql = f"INSERT OR REPLACE INTO {self.table.name} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
        rows = [tuple(r) for r in rows]
        with self._lock, self._db:
            self._db.executemany(sql, rows)

    def count(self, prefix: Sequence[Any] = ()) -> int:
        """Rows whose leading key columns equal ``prefix`` (all rows for an empty prefix)."""
        where = " AND ".join(f"{c}=?" for c in self.table.key[: len(prefix)])
        sql = f"SELECT COUNT(*) FROM {self.table.name}" + (f" WHERE {where}" if where else "")
        with self._lock:
            return int(self._db.execute(sql, list(prefix)).fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
