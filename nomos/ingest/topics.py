"""Topics files for batch search (``search --topics``): BEIR/Pyserini-style JSON lines (``_id``, ``text``) or TSV
(``id<TAB>text``, the MS MARCO / Pyserini layout). Errors name the file and line."""

from __future__ import annotations

from pathlib import Path

from nomos.ingest.beir import read_queries
from nomos.ingest.records import DatasetError


def read_topics(path: Path) -> dict[str, str]:
    """query id -> text, in file order. ``.jsonl``/``.json`` files (or a first line starting with ``{``) are JSON
    lines; anything else is TSV."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(str(path), "file is missing")
    raw = path.read_bytes()
    if path.suffix in (".jsonl", ".json") or raw.lstrip().startswith(b"{"):
        return {q.id: q.case_text for _, q in read_queries(path)}
    topics: dict[str, str] = {}
    first_seen: dict[str, int] = {}
    try:
        text_of_file = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_no = raw[:exc.start].count(b"\n") + 1
        raise DatasetError(f"{path}:{line_no}", "not valid UTF-8") from None
    for lineno, line in enumerate(text_of_file.splitlines(), start=1):
        if not line.strip():
            continue
        qid, sep, text = line.partition("\t")
        qid, text = qid.strip(), text.strip()
        if not sep or not qid or not text:
            raise DatasetError(f"{path}:{lineno}", "expected 'query id<TAB>query text'")
        if qid in first_seen:
            raise DatasetError(f"{path}:{lineno}", f"duplicate query id {qid!r} (first seen at {path}:{first_seen[qid]})")
        first_seen[qid] = lineno
        topics[qid] = text
    if not topics:
        raise DatasetError(str(path), "there are no queries")
    return topics
