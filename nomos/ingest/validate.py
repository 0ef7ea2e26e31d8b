"""Cross-file checks a loader runs once every file has parsed: the benchmark's hygiene rules."""

from __future__ import annotations

import re
import unicodedata
from typing import Iterable

from nomos.ingest.records import Article, DatasetError, Qrels, Query


def check_unique(ids: Iterable[tuple[str, str]], what: str) -> None:
    """Fail on the first id seen twice; ``ids`` yields (location, id) pairs."""
    first_seen: dict[str, str] = {}
    for where, item_id in ids:
        if item_id in first_seen:
            raise DatasetError(where, f"duplicate {what} id {item_id!r} (first seen at {first_seen[item_id]})")
        first_seen[item_id] = where


def check_references(
    articles: Iterable[Article],
    queries: Iterable[Query],
    qrels: Qrels,
    qrels_where: dict[tuple[str, str], str],
    queries_where: str,
) -> None:
    """Every judgment names a known article and query, and every query has at least one judgment."""
    article_ids = {a.id for a in articles}
    query_list = list(queries)
    query_ids = {q.id for q in query_list}
    for qid, docs in qrels.items():
        for doc_id in docs:
            where = qrels_where.get((qid, doc_id), "qrels")
            if qid not in query_ids:
                raise DatasetError(where, f"judgment names unknown query {qid!r}")
            if doc_id not in article_ids:
                raise DatasetError(where, f"judgment for query {qid!r} names unknown article {doc_id!r}")
    unjudged = [q.id for q in query_list if not any(g > 0 for g in qrels.get(q.id, {}).values())]
    if unjudged:
        shown = ", ".join(unjudged[:10]) + (" …" if len(unjudged) > 10 else "")
        raise DatasetError(queries_where, f"{len(unjudged)} queries have no relevant judgment: {shown}")


# ------------------------------------------------------------------------------------------------ one record
# What an id may hold: ASCII letters and digits, ``: _ . -`` and the Greek letters (with their accents) the
# statutes' own ids use (``ΑΚ::914``, ``N_3979_2011::1``, ``PK::386Α``). Everything else breaks something later:
# ``/`` the article pages' URLs, white space the TREC run files and qrels, NUL and bidi controls (RTL marks) the
# files and what a person sees, and OpenSearch refuses an ``_id`` over 512 bytes only once the index exists.
ID_PATTERN = re.compile(r"[0-9A-Za-z:_.\-\u0370-\u03ff\u1f00-\u1fff]+")
MAX_ID_BYTES = 256
# Characters no title, law or query is written with: C0 controls but tab and line breaks, DEL, C1 controls, bidi
# embeddings/overrides/isolates and marks, zero-width no-break space (a BOM that came along when files were joined).
# The corpus's article texts keep their C0 controls (PDF extraction left thousands of \x01 in them, harmless to the
# analyzers); NUL and bidi controls are refused there too.
_NOT_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_NOT_BODY = re.compile(r"[\x00\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def _shown(ch: str) -> str:
    return f"U+{ord(ch):04X}"


def check_id(value: object, where: str, field: str = "_id") -> str:
    """An article or query id as the rest of the system can use it, or a :class:`DatasetError` naming the field:
    a string (an integer is read as its digits; ``true``, a list, an object are refused), at most
    :data:`MAX_ID_BYTES` bytes of UTF-8, only :data:`ID_PATTERN`'s characters."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise DatasetError(where, f"field {field!r} must be a string, got {json_type(value)}")
    text = str(value).strip()
    if not text:
        raise DatasetError(where, f"field {field!r} is empty")
    check_unicode(text, where, field)
    size = len(text.encode("utf-8"))
    if size > MAX_ID_BYTES:
        raise DatasetError(where, f"field {field!r} is {size} bytes long; an id has at most {MAX_ID_BYTES} bytes")
    if not ID_PATTERN.fullmatch(text):
        bad = next(c for c in text if not ID_PATTERN.fullmatch(c))
        what = "white space" if bad.isspace() else repr(bad) if bad.isprintable() else _shown(bad)
        raise DatasetError(where, f"field {field!r} ({text[:60]!r}) contains {what}; an id holds only letters "
                                  "(Latin or Greek), digits and : _ . -")
    if not any(c.isalnum() for c in text):  # «.», «..», «-»: the link /articles/.. opened the home page
        raise DatasetError(where, f"field {field!r} ({text!r}) has no letter or digit; an id names something")
    return text


def check_unicode(value: str, where: str, field: str) -> None:
    """A lone surrogate (``"\\ud800"`` in JSON) is valid JSON but no text: nothing can encode it as UTF-8."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise DatasetError(where, f"field {field!r} holds a lone surrogate ({_shown(value[exc.start])}, a JSON "
                                  "\\u escape of half a character): not valid Unicode text") from None


def check_text(value: str, where: str, field: str, *, body: bool = False) -> str:
    """A title, law, source or (``body``) article text: valid Unicode without the characters no such text holds
    (:data:`_NOT_TEXT`; for a body only NUL, bidi controls and BOMs)."""
    check_unicode(value, where, field)
    found = (_NOT_BODY if body else _NOT_TEXT).search(value)
    if found:
        raise DatasetError(where, f"field {field!r} contains the control character {_shown(found.group())} at "
                                  f"character {found.start() + 1}")
    return unicodedata.normalize("NFC", value)  # as queries are read (nomos.query_text): NFD text indexes alike


def json_type(value: object) -> str:
    """The JSON name of a parsed value's type (what the person wrote in the file)."""
    return {bool: "a boolean", int: "a number", float: "a number", list: "a list", dict: "an object",
            type(None): "null"}.get(type(value), type(value).__name__)
