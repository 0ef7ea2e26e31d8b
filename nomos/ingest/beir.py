"""Load a BEIR folder (``corpus.jsonl``, ``queries.jsonl``, ``qrels/test.tsv``) into validated records.

Every problem is reported as a :class:`~ingest.records.DatasetError` naming the file and line, because a lawyer
preparing their own corpus needs to know exactly which article to fix.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterator

from nomos.ingest.records import Article, Dataset, DatasetError, Qrels, Query
from nomos.ingest.validate import check_id, check_references, check_text, check_unique, json_type
from nomos.json_input import parse_json
from nomos.legal.text.areas import areas, resolve_area

CORPUS = "corpus.jsonl"
QUERIES = "queries.jsonl"
QRELS = Path("qrels") / "test.tsv"
DEFAULT_MAX_ARTICLE_BYTES = 1_000_000  # as Settings.max_article_bytes (NOMOS_MAX_ARTICLE_BYTES)
BOM = "\ufeff"


def _json_lines(path: Path) -> Iterator[tuple[str, dict]]:
    """Yield (``file:line``, object) for each non-blank line, decoding each line strictly as UTF-8. Whatever the
    JSON parser refuses (malformed, nested thousands deep, a number of thousands of digits) is a DatasetError
    naming the line (:func:`~nomos.json_input.parse_json`), never the parser's traceback.

    A byte order mark at the very start of the file (what some Windows editors write) is dropped; one at the start
    of a later line means files were joined, and is refused with that said."""
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            where = f"{path}:{lineno}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DatasetError(where, f"not valid UTF-8 (byte {exc.start}: {raw[exc.start:exc.start + 4]!r})") from None
            if line.startswith(BOM):
                if lineno > 1:
                    raise DatasetError(where, "a byte order mark (BOM, U+FEFF) starts this line: the file looks like "
                                              "files joined together; remove it")
                line = line[1:]
            if not line.strip():
                continue
            obj = parse_json(line.rstrip("\r\n"), where, DatasetError)
            if not isinstance(obj, dict):
                raise DatasetError(where, f"expected a JSON object, got {type(obj).__name__}")
            yield where, obj


def _text_field(obj: dict, name: str, where: str, *, required: bool, body: bool = False) -> str:
    value = obj.get(name)
    if value is None:
        if required:
            raise DatasetError(where, f"field {name!r} is missing")
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise DatasetError(where, f"field {name!r} must be a string, got {json_type(value)}")
    return check_text(str(value), where, name, body=body)


def _id_field(obj: dict, where: str) -> str:
    if obj.get("_id") is None:
        raise DatasetError(where, "field '_id' is missing")
    return check_id(obj["_id"], where)


def parse_article(obj: dict, where: str, max_bytes: int | None = DEFAULT_MAX_ARTICLE_BYTES) -> Article:
    """One corpus record; an article needs an id (:func:`~nomos.ingest.validate.check_id`) and non-empty text (a
    title alone cannot be judged) of at most ``max_bytes`` bytes (one huge article would slow every page that
    shows or highlights it; None: no limit). An ``area`` field, when present, must name a legal area of the
    table (key or Greek label) and wins over the table."""
    doc_id = _id_field(obj, where)
    text = _text_field(obj, "text", where, required=True, body=True)
    if not text.strip():
        raise DatasetError(where, f"article {doc_id!r} has no text")
    if max_bytes is not None and (size := len(text.encode("utf-8"))) > max_bytes:
        raise DatasetError(where, f"article {doc_id!r} has {size:,} bytes of text, more than the {max_bytes:,} "
                                  "allowed (NOMOS_MAX_ARTICLE_BYTES): split it into its paragraphs or raise the limit")
    source = _text_field(obj, "source", where, required=False) or (doc_id.split("::", 1)[0] if "::" in doc_id else "")
    given = _text_field(obj, "area", where, required=False)
    area = resolve_area(given) if given.strip() else ""
    if area is None:
        raise DatasetError(where, f"field 'area' of {doc_id!r} is {given!r}, not a legal area of nomos/legal/text/areas.json "
                                  f"(one of {', '.join(areas())})")
    return Article(
        id=doc_id,
        title=_text_field(obj, "title", where, required=False).strip(),
        text=text,
        source=source,
        law=_text_field(obj, "law", where, required=False),
        area=area,  # empty: the table decides (Article fills it)
    )


def parse_query(obj: dict, where: str) -> Query:
    """One query record; extra string fields (facts, question, area…) are kept as metadata."""
    qid = _id_field(obj, where)
    text = _text_field(obj, "text", where, required=True, body=True)
    if not text.strip():
        raise DatasetError(where, f"query {qid!r} has no text")
    meta = {k: str(v) for k, v in obj.items() if k not in {"_id", "text"} and isinstance(v, (str, int, float))}
    return Query(id=qid, text=text, area=meta.get("area", ""), meta=meta)


def read_queries(path: Path) -> list[tuple[str, Query]]:
    """A BEIR ``queries.jsonl`` as (``file:line``, query) pairs; fails on the first bad or duplicate line."""
    located = [(where, parse_query(obj, where)) for where, obj in _json_lines(path)]
    if not located:
        raise DatasetError(str(path), "there are no queries")
    check_unique(((w, q.id) for w, q in located), "query")
    return located


def read_qrels(path: Path) -> tuple[Qrels, dict[tuple[str, str], str]]:
    """Read a BEIR qrels TSV (optional header ``query-id corpus-id score``); returns qrels and each pair's line."""
    qrels: Qrels = {}
    where_of: dict[tuple[str, str], str] = {}
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            where = f"{path}:{lineno}"
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError:
                raise DatasetError(where, "not valid UTF-8") from None
            if not line.strip():
                continue
            cols = line.split("\t") if "\t" in line else line.split()
            if lineno == 1 and cols[:2] == ["query-id", "corpus-id"]:
                continue
            if len(cols) == 4:  # TREC qrels: qid iter docid rel
                cols = [cols[0], cols[2], cols[3]]
            if len(cols) != 3:
                raise DatasetError(where, f"expected 3 tab-separated columns (query-id, corpus-id, score), got {len(cols)}")
            qid, doc_id, score_s = (c.strip() for c in cols)
            try:
                score = int(score_s)
            except ValueError:
                shown = score_s if len(score_s) <= 40 else f"{score_s[:40]}… ({len(score_s):,} characters)"
                raise DatasetError(where, f"score {shown!r} is not an integer") from None
            if (qid, doc_id) in where_of:
                raise DatasetError(where, f"duplicate judgment ({qid}, {doc_id}) (first at {where_of[(qid, doc_id)]})")
            qrels.setdefault(qid, {})[doc_id] = score
            where_of[(qid, doc_id)] = where
    return qrels, where_of


def fingerprint(paths: list[Path]) -> str:
    """SHA-256 over the files' names and bytes: what a manifest records about the data behind a result."""
    return _fingerprint(paths)


def _fingerprint(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(p.name.encode())
        with p.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()


def load_beir(folder: Path, corpus_file: str = CORPUS, max_article_bytes: int | None = DEFAULT_MAX_ARTICLE_BYTES) -> Dataset:
    """Load and validate a BEIR folder; raises :class:`DatasetError` naming the first bad file and line.

    Only the corpus is required: a firm indexing its own statutes has no queries or judgments yet (``index`` needs
    none; ``eval`` asks for them). Queries without judgments load too (``search --topics`` needs no qrels);
    judgments without queries do not (they would name unknown queries). Everything is checked before anything is
    sent to OpenSearch, so a bad line never leaves an empty index behind."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DatasetError(str(folder), "not a folder (expected corpus.jsonl, and queries.jsonl, qrels/test.tsv for eval)")
    corpus, queries_path, qrels_path = folder / corpus_file, folder / QUERIES, folder / QRELS
    if not corpus.is_file():
        raise DatasetError(str(corpus), "file is missing")
    if qrels_path.is_file() and not queries_path.is_file():
        raise DatasetError(str(queries_path), f"file is missing (the judgments in {qrels_path} need their queries)")
    located_articles = [(where, parse_article(obj, where, max_article_bytes)) for where, obj in _json_lines(corpus)]
    if not located_articles:
        raise DatasetError(str(corpus), "the corpus is empty")
    check_unique(((w, a.id) for w, a in located_articles), "article")
    articles = tuple(a for _, a in located_articles)
    queries: tuple[Query, ...] = ()
    qrels: Qrels = {}
    if queries_path.is_file():
        queries = tuple(q for _, q in read_queries(queries_path))
    if qrels_path.is_file():
        qrels, qrels_where = read_qrels(qrels_path)
        check_references(articles, queries, qrels, qrels_where, str(queries_path))
    present = [p for p in (corpus, queries_path, qrels_path) if p.is_file()]
    return Dataset(
        name=folder.resolve().name,
        revision="local",
        fingerprint=_fingerprint(present),
        articles=articles,
        queries=queries,
        qrels=qrels,
        corpus_fingerprint=_fingerprint([corpus]),
    )
