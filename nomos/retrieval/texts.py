"""Article texts for the LLM stages (ReAct's observer and planner, the LLM re-ranker): one ``mget`` for a list of
ids, and clipping to a bounded number of characters, so prompt size (tokens, cost) is bounded per candidate."""

from __future__ import annotations

from collections.abc import Sequence

from nomos.opensearch.transport import Transport


def fetch_texts(transport: Transport, index: str, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
    """(title, text) of each article by one ``mget``; ids that no longer exist are left out. ``transport``: a
    :class:`~nomos.opensearch.transport.Transport`, or a client (then nothing is retried)."""
    if not ids:
        return {}
    docs = transport.mget(index, list(dict.fromkeys(ids)), source=["title", "text"], what="article texts")
    return {d["_id"]: ((d.get("_source") or {}).get("title", ""), (d.get("_source") or {}).get("text", ""))
            for d in docs if d.get("found")}


def clip(text: str, chars: int, collapse_spaces: bool = False) -> str:
    """At most ``chars`` characters, cut at a word boundary and marked with " …". ``collapse_spaces`` first joins
    runs of whitespace (line breaks) into one space: the re-ranker's compact candidate lines; ReAct's prompts keep
    the text's own lines (and, with them, the cache keys of replies already paid for)."""
    if collapse_spaces:
        text = " ".join(text.split())
    if len(text) <= chars:
        return text
    return text[:chars].rsplit(" ", 1)[0] + " …"
