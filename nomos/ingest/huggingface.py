"""Load GreekBarRetrieval from the Hugging Face Hub (``AUEB-NLP/greek-bar-bench`` at a pinned revision).

The ``datasets`` library caches what it downloads, so only the first run needs the network. Machines without
access get a message that says how to point the CLI at a local BEIR folder instead, at once: left to itself the Hub
client retries each file of each subset (about 24 s and a dozen warnings) before giving up, so one quick TCP
check of the endpoint comes first, and an unreachable or offline Hub is read from the local cache only.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import socket
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping
from urllib.parse import urlsplit

from nomos.ingest.beir import parse_article, parse_query
from nomos.ingest.records import Dataset, DatasetError, Qrels
from nomos.ingest.validate import check_references, check_unique
from nomos.legal.text.areas import resolve_area

log = logging.getLogger(__name__)

GREEKBAR_REPO = "AUEB-NLP/greek-bar-bench"
GREEKBAR_REVISION = "v2.0"
OFFLINE_HINT = (
    "could not load {repo}@{rev} from the Hugging Face Hub ({err}). If this machine is offline, pass a local "
    "BEIR folder instead, e.g. `--dataset ../shared/data/greek-statutes` (corpus.jsonl, queries.jsonl, "
    "qrels/test.tsv), or fill the Hugging Face cache on a connected machine first."
)
NO_NETWORK = (
    "no network: pass --dataset PATH (a local BEIR folder with corpus.jsonl, queries.jsonl, qrels/test.tsv, e.g. "
    "`--dataset ../shared/data/greek-statutes`); {why}, and {repo}@{rev} is not in the local Hugging Face cache"
)
CONNECT_TIMEOUT_S = 3.0  # one TCP handshake: a reachable Hub answers in well under a second
_TRUE = {"1", "ON", "YES", "TRUE"}


def hub_endpoint() -> str:
    """The Hub the client would use (``HF_ENDPOINT``, else huggingface.co)."""
    return os.environ.get("HF_ENDPOINT", "").strip().rstrip("/") or "https://huggingface.co"


def offline_reason(endpoint: str | None = None, timeout: float = CONNECT_TIMEOUT_S) -> str | None:
    """Why the Hub cannot be asked (offline mode set, or its host refuses or ignores a TCP connection), or None
    when it can. Behind an HTTP proxy the direct connection says nothing, so the client is left to try."""
    if any(os.environ.get(v, "").upper() in _TRUE for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")):
        return "HF_HUB_OFFLINE is set"
    if any(os.environ.get(v) for v in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")):
        return None
    url = urlsplit(endpoint or hub_endpoint())
    host, port = url.hostname or "huggingface.co", url.port or (80 if url.scheme == "http" else 443)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as exc:
        return f"{url.scheme}://{host}:{port} is unreachable ({exc.strerror or type(exc).__name__})"


@contextlib.contextmanager
def _offline_mode() -> Iterator[None]:
    """The Hub clients in offline mode for a moment (cache only, no request, no retry). They read the flag at
    import into module constants, so those are set too, and restored after."""
    import datasets.config
    import huggingface_hub.constants

    saved = (datasets.config.HF_HUB_OFFLINE, huggingface_hub.constants.HF_HUB_OFFLINE)
    datasets.config.HF_HUB_OFFLINE = huggingface_hub.constants.HF_HUB_OFFLINE = True
    try:
        yield
    finally:
        datasets.config.HF_HUB_OFFLINE, huggingface_hub.constants.HF_HUB_OFFLINE = saved


SPLIT = "test"  # the benchmark's one split, named as its quickstart loads it
AREAS_SUBSET = "greekbarbench"  # the answering task's records: each query's legal area, joined by id
_ARTICLE_LINE = re.compile(r"^\s*(?:άρθρο|αρθρο|άρθρ\.|αρθρ\.)\s*\d+\s*[α-ωa-z]?(?![\w])\s*[-–—:.]?\s*", re.I)
MAX_HEADING_CHARS = 150


def _split(repo: str, subset: str, revision: str, cache_dir: str | None) -> list[dict[str, Any]]:
    """All rows of a subset's ``test`` split (asked for by name, as the benchmark's quickstart does)."""
    import datasets  # heavy import, only when the Hub is really used

    return [dict(row) for row in datasets.load_dataset(repo, subset, split=SPLIT, revision=revision, cache_dir=cache_dir)]


def split_heading(text: str) -> tuple[str, str]:
    """(heading, the rest) of an article's text when it begins with a heading line («Άρθρο 914 – Ευθύνη από
    αδικοπραξία», or «Άρθρο 914» then «Ευθύνη από αδικοπραξία»), else ("", text). The benchmark's corpus rows carry
    only ``id`` and ``text``; a heading gives the pages and the title-aware ranking a title. A first line counts as a
    heading only when more text follows and it reads like one: short, not ending like a sentence."""
    lines = text.strip().split("\n")
    first = lines[0].strip()
    prefix = _ARTICLE_LINE.match(first)
    taken = 1
    if prefix:
        first = first[prefix.end():].strip()
        if not first and len(lines) > 1:  # «Άρθρο 914» alone on its line: the heading may be the next one
            first, taken = lines[1].strip(), 2
    rest = "\n".join(lines[taken:]).strip()
    if (not first or not rest or len(first) > MAX_HEADING_CHARS or first.endswith((".", ",", ";", ":", "·"))
            or first[0].isdigit() or first[0].islower()):
        return "", text
    return first, rest


def _with_heading(row: dict[str, Any]) -> dict[str, Any]:
    """A corpus row without a title gets its text's heading as one (and loses it from its text, so BM25 over title
    and text scores the same words once); a row with a title is left alone."""
    if str(row.get("title") or "").strip() or not isinstance(row.get("text"), str):
        return row
    heading, rest = split_heading(row["text"])
    return {**row, "title": heading, "text": rest} if heading else row


def query_areas(rows: Iterable[dict[str, Any]]) -> dict[str, str]:
    """query id -> legal area from the ``greekbarbench`` records (an area key of ``areas.json`` where the value
    names one, else the value as given)."""
    out: dict[str, str] = {}
    for row in rows:
        qid, area = _pick(row, "id", "_id", "query-id"), _pick(row, "area")
        if qid is not None and area is not None and str(area).strip():
            out[str(qid)] = resolve_area(str(area)) or str(area).strip()
    return out


def _pick(row: dict[str, Any], *names: str) -> Any:
    for n in names:
        if n in row and row[n] is not None:
            return row[n]
    return None


def rows_to_dataset(
    corpus: Iterable[dict[str, Any]],
    queries: Iterable[dict[str, Any]],
    qrels_rows: Iterable[dict[str, Any]],
    repo: str,
    revision: str,
    areas: Mapping[str, str] | None = None,
) -> Dataset:
    """Validate Hub rows exactly like a BEIR folder; locations read ``hf:repo@rev/subset[row]``. Corpus rows
    without a title get their text's heading (:func:`split_heading`); queries without an area get theirs from
    ``areas`` (:func:`query_areas`)."""
    base = f"hf:{repo}@{revision}"
    h, corpus_h = hashlib.sha256(), hashlib.sha256()
    located_articles = []
    for i, row in enumerate(corpus):
        row = {**row, "_id": _pick(row, "_id", "id", "doc_id", "corpus-id")}
        line = json.dumps(row, ensure_ascii=False, sort_keys=True, default=str).encode()
        h.update(line)
        corpus_h.update(line)
        located_articles.append((f"{base}/corpus[{i}]", parse_article(_with_heading(row), f"{base}/corpus[{i}]")))
    if not located_articles:
        raise DatasetError(f"{base}/corpus", "the corpus is empty")
    check_unique(((w, a.id) for w, a in located_articles), "article")
    located_queries = []
    for i, row in enumerate(queries):
        row = {**row, "_id": _pick(row, "_id", "id", "query_id", "query-id")}
        h.update(json.dumps(row, ensure_ascii=False, sort_keys=True, default=str).encode())
        if areas and not str(row.get("area") or "").strip() and str(row["_id"]) in areas:
            row["area"] = areas[str(row["_id"])]
        located_queries.append((f"{base}/queries[{i}]", parse_query(row, f"{base}/queries[{i}]")))
    check_unique(((w, q.id) for w, q in located_queries), "query")
    qrels: Qrels = {}
    where_of: dict[tuple[str, str], str] = {}
    for i, row in enumerate(qrels_rows):
        where = f"{base}/qrels[{i}]"
        qid = _pick(row, "query-id", "query_id", "qid")
        doc_id = _pick(row, "corpus-id", "corpus_id", "doc_id", "docid")
        score = _pick(row, "score", "relevance", "label")
        if qid is None or doc_id is None:
            raise DatasetError(where, f"expected fields 'query-id' and 'corpus-id', got {sorted(row)}")
        h.update(f"{qid}\t{doc_id}\t{score}".encode())
        qrels.setdefault(str(qid), {})[str(doc_id)] = int(score if score is not None else 1)
        where_of[(str(qid), str(doc_id))] = where
    articles = tuple(a for _, a in located_articles)
    queries_t = tuple(q for _, q in located_queries)
    check_references(articles, queries_t, qrels, where_of, f"{base}/queries")
    return Dataset(
        name="greekbar",
        revision=f"{repo}@{revision}",
        fingerprint=h.hexdigest(),
        articles=articles,
        queries=queries_t,
        qrels=qrels,
        corpus_fingerprint=corpus_h.hexdigest(),
    )


def load_greekbar(repo: str = GREEKBAR_REPO, revision: str = GREEKBAR_REVISION, cache_dir: str | None = None) -> Dataset:
    """Download (or read from cache) the three subsets and validate them. Without a reachable Hub the cache is
    the only source; a cache without them fails at once with "no network: pass --dataset PATH"."""
    why = None if Path(repo).is_dir() else offline_reason()  # a local copy of the repository needs no network
    try:
        with _offline_mode() if why else contextlib.nullcontext():
            corpus = _split(repo, "corpus", revision, cache_dir)
            queries = _split(repo, "queries", revision, cache_dir)
            qrels = _split(repo, "qrels", revision, cache_dir)
            areas = _areas(repo, revision, cache_dir)
    except DatasetError:
        raise
    except Exception as exc:  # the Hub client raises many types (ConnectionError, HfHubHTTPError, OSError…)
        if why:
            raise DatasetError(f"hf:{repo}@{revision}", NO_NETWORK.format(why=why, repo=repo, rev=revision)) from None
        err = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        raise DatasetError(f"hf:{repo}@{revision}", OFFLINE_HINT.format(repo=repo, rev=revision, err=err)) from None
    return rows_to_dataset(corpus, queries, qrels, repo, revision, areas=areas)


def _areas(repo: str, revision: str, cache_dir: str | None) -> dict[str, str]:
    """The queries' legal areas from the ``greekbarbench`` subset; without it (an older revision, a cache that lacks
    it) the queries keep no area and the report's area breakdown falls back to their ids."""
    try:
        return query_areas(_split(repo, AREAS_SUBSET, revision, cache_dir))
    except Exception as exc:  # the Hub client raises many types; areas are optional
        log.warning("no legal areas for the queries: %s%s could not be read (%s)", repo, f"/{AREAS_SUBSET}",
                    type(exc).__name__)
        return {}
