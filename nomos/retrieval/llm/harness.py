"""The checkpointed run every LLM method shares: each query's work runs at most ``concurrency`` at once, every
finished query is appended to a :class:`Checkpoint` at once, ``--resume`` skips the queries already there, and the
first fatal error (a dead endpoint) stops the run after the finished queries were saved.

A checkpoint line is ``{"query_id", "text_sha", …what the method's work returned…, "signature"}``; a resumed
record counts only when both the method's signature (everything that changes a query's outcome) and the hash of
the query's text still match, so a changed prompt, model or case is redone rather than replayed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from nomos.retrieval.base import Progress, tick
from nomos.retrieval.llm.client import LLMClient
from nomos.retrieval.llm.costs import cost_table

T = TypeVar("T")
Record = dict[str, Any]
QueryWork = Callable[[str, str], Awaitable[Record]]
"""``work(query_id, text)``: one query's LLM work, returning its checkpoint record (without the keys the harness
adds: query_id, text_sha, signature)."""


def text_sha(text: str) -> str:
    """The short hash of a query's text that a checkpointed record is matched against on resume."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class Checkpoint:
    """Finished queries of a run, one JSON line each, appended and synced as they finish.

    Without ``resume`` an old checkpoint is discarded (a fresh run; the reply cache still makes it free). A line
    cut short by a crash is ignored, so that query simply runs again.
    """

    def __init__(self, path: Path | None, resume: bool = False) -> None:
        self.path = Path(path) if path else None
        self.done: dict[str, Record] = {}
        self._lock = threading.Lock()
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if resume and self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    rec = json.loads(line)
                    self.done[rec["query_id"]] = rec
                except (json.JSONDecodeError, KeyError, TypeError):
                    continue
            # rewrite without torn lines, so appends start on a clean line
            self.path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.done.values()), encoding="utf-8")
        else:
            self.path.write_text("", encoding="utf-8")

    def add(self, record: Record) -> None:
        self.done[record["query_id"]] = record
        if self.path is None:
            return
        line = json.dumps(record, ensure_ascii=False) + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())

    def keep_matching(self, queries: Mapping[str, str], signature: str) -> None:
        """Forget the records made under another signature or for another text (they are redone)."""
        for qid in list(self.done):
            rec = self.done[qid]
            if rec.get("signature") != signature or rec.get("text_sha") != text_sha(queries.get(qid, "")):
                del self.done[qid]


async def run_bounded(items: Sequence[T], work: Callable[[T], Awaitable[Any]], concurrency: int) -> None:
    """Run ``work(item)`` for every item, at most ``concurrency`` at once; the first error cancels the rest
    and is raised (so a dead endpoint stops the run instead of failing every remaining query slowly)."""
    sem = asyncio.Semaphore(max(1, concurrency))

    async def one(item: T) -> None:
        async with sem:
            await work(item)

    tasks = [asyncio.ensure_future(one(i)) for i in items]
    if not tasks:
        return
    done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    for t in pending:
        t.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
    # read every finished task's error (not only the first), so asyncio does not log the others later as "Task
    # exception was never retrieved" into whatever runs next (the CLI's error output)
    errors = [t.exception() for t in done if not t.cancelled()]
    first = next((e for e in errors if e is not None), None)
    if first is not None:
        raise first


@dataclass(frozen=True)
class CheckpointedRun:
    """What a checkpointed run leaves: every query's record (in the queries' order) and how many were resumed."""

    records: dict[str, Record]
    resumed: int

    def costs(self, llm: LLMClient, wall_seconds: float) -> dict[str, Any]:
        """The run's cost table (:func:`cost_table` over each record's ``cost``) with what this run paid and
        retried and how many queries came from the checkpoint."""
        costs = cost_table({q: r["cost"] for q, r in self.records.items()}, wall_seconds)
        costs["resumed_queries"] = self.resumed
        costs["paid_calls_this_run"] = llm.paid_calls
        costs["retries_this_run"] = llm.retried
        return costs


async def run_checkpointed(queries: Mapping[str, str], work: QueryWork, *, signature: str, llm: LLMClient,
                           checkpoint: Path | None = None, resume: bool = False, concurrency: int = 16,
                           on_progress: Progress | None = None) -> CheckpointedRun:
    """Run ``work`` for every query not already finished in ``checkpoint`` (with ``resume``), at most
    ``concurrency`` at once, appending each record as it finishes; ``on_progress`` ticks once per query, resumed
    ones first. ``llm``'s connections are closed before the event loop ends, whether the run finished or not."""
    ckpt = Checkpoint(checkpoint, resume)
    ckpt.keep_matching(queries, signature)
    todo = [(q, t) for q, t in queries.items() if q not in ckpt.done]
    for _ in range(len(queries) - len(todo)):
        tick(on_progress)  # resumed from the checkpoint: finished already

    async def one(item: tuple[str, str]) -> None:
        qid, text = item
        ckpt.add({"query_id": qid, "text_sha": text_sha(text), **await work(qid, text), "signature": signature})
        tick(on_progress)

    try:
        await run_bounded(todo, one, concurrency)
    finally:
        await llm.aclose()
    return CheckpointedRun({q: ckpt.done[q] for q in queries}, len(queries) - len(todo))
