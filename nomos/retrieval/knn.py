"""Dense retrieval inside OpenSearch: HNSW k-NN on a per-encoder ``knn_vector`` field, or exact scoring.

``exact=True`` scores every article with the k-NN plugin's ``knn_score`` script (stored and sent by id,
``stored_scripts.KNN_SCORE``), so the recall that HNSW gives up can be measured against the same vectors on the
same cluster. :meth:`KnnRetriever.search_faceted` answers a results page (ranking, facets over the candidates,
highlighted snippets, a source filter) in one request.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np
from opensearchpy import OpenSearch

from nomos.errors import SearchError, VectorsMissing
from nomos.eta import STALE_S, noted_seconds_left
from nomos.mappings import WINDOW_VECTOR, vector_field_name, windows_field_name
from nomos.opensearch.stored_scripts import KNN_SCORE
from nomos.opensearch.transport import Transport, require_transport
from nomos.retrieval.base import (
    TIE_SORT,
    FacetedHits,
    Hit,
    PageAsk,
    Progress,
    SearchResult,
    check_k,
    exact_page,
    rank,
    tick,
)
from nomos.retrieval.case_reading import (
    DEFAULT_MAX_WINDOWS,
    DEFAULT_QUESTION_WEIGHT,
    QueryPieces,
    combine,
    fits_encoder,
    query_pieces,
    reading_note,
)
from nomos.vectors.cache import VectorCache, encode_cached
from nomos.vectors.encoders import Encoder, slug

__all__ = ["FACET_DEPTH", "KnnRetriever", "index_has_vectors", "vectors_missing"]

# The k of a dense results page's knn clause: the candidates its facets count and its filter picks from, as
# deep as hybrid's pool (the lucene engine matches max(k, ef_search) candidates: search_faceted).
FACET_DEPTH = 100
# How long a retriever trusts what it read of the index's windows (KnnRetriever.by_windows)
WINDOWS_RECHECK_S = 60.0
# What OpenSearch answers a k-NN query (or the exact script) on a field that is not a knn_vector: the index was
# built without this encoder's vectors.
_NOT_A_VECTOR_FIELD = ("is not knn_vector type", "field type must be knn_vector")


def vectors_missing(embedder: str, index: str) -> VectorsMissing:
    """The error for a dense method on an index without ``embedder``'s vectors, with the command that adds them."""
    return VectorsMissing(f"the index {index!r} holds no vectors of the embedder {embedder!r}",
                          hint=f"re-index with `python cli.py index --embedder {embedder}`")


READ_KEPT = 64


@dataclass
class KnnRetriever:
    """k-NN over ``encoder``'s vectors; ``transport`` as in :class:`~nomos.retrieval.bm25.BM25Retriever`."""

    transport: Transport
    index: str
    encoder: Encoder
    ef_search: int = 256
    exact: bool = False
    cache: VectorCache | None = None
    batch_size: int = 32
    # the question's share of the query vector (nomos.retrieval.case_reading: the question embedded on its own
    # beside the whole text's windows); 0: the windows alone
    question_weight: float = DEFAULT_QUESTION_WEIGHT
    # score articles by their best window (nomos.vectors.windows); None: wherever the index lists this encoder's
    # windows complete (read again every minute), else by the single vector of each article's start
    windows: bool | None = None
    # the most windows of one query embedded (case_reading.DEFAULT_MAX_WINDOWS: a long case is read in windows
    # spread over it, and its question); 0: every window
    max_windows: int = DEFAULT_MAX_WINDOWS
    name: str = field(init=False, default="knn")
    _looked: tuple[float, bool] | None = field(init=False, default=None, repr=False)  # (when, windows complete)
    # texts already read into pieces (reading a case file counts its tokens many times: ~28 ms of CPU a query,
    # paid again by every second look at the same query, the learned ranker's and the page's)
    _read: dict[str, QueryPieces] = field(init=False, default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        require_transport(self.transport, "KnnRetriever")

    @property
    def score_kind(self) -> str:
        return "similarity"

    @property
    def client(self) -> OpenSearch:
        return self.transport.client

    @property
    def field(self) -> str:
        return vector_field_name(slug(self.encoder.spec))

    @property
    def windows_field(self) -> str:
        return windows_field_name(slug(self.encoder.spec))

    def by_windows(self) -> bool:
        """Whether articles are scored by their best window: as set, else as the index's ``_meta`` says, read again
        after ``WINDOWS_RECHECK_S`` (a portal's retrievers live long, and the windows stage ends while they serve)."""
        if self.windows is not None:
            return self.windows
        now = time.monotonic()
        if self._looked is None or now - self._looked[0] > WINDOWS_RECHECK_S:
            self._looked = (now, index_has_windows(self.transport, self.index, self.encoder.spec))
        return self._looked[1]

    @contextmanager
    def vectors_needed(self) -> Iterator[None]:
        """Requests inside raise :class:`VectorsMissing` (with the re-index command) where OpenSearch refuses them
        because the index has no vectors of this encoder; every other error passes unchanged."""
        try:
            yield
        except SearchError as exc:
            if any(marker in exc.reason for marker in _NOT_A_VECTOR_FIELD):
                raise vectors_missing(self.encoder.spec, self.index) from exc
            raise

    def pieces(self, text: str) -> QueryPieces:
        """How one query is read for embedding: its windows (nothing cut off the end) and its question; the last
        :data:`READ_KEPT` texts' readings are kept (cleared when full: a bound, not an LRU)."""
        if (kept := self._read.get(text)) is not None:
            return kept
        if len(self._read) >= READ_KEPT:
            self._read.clear()
        piece = self._read[text] = query_pieces(text, fits_encoder(self.encoder), self.question_weight, self.max_windows)
        return piece

    def query_vectors(self, texts: list[str]) -> np.ndarray:
        """One vector per query, through the cache (the same pieces are embedded once across runs): the mean of
        the text's windows mixed with its question's vector (:func:`~nomos.retrieval.case_reading.combine`)."""
        return self.vectors_of([self.pieces(t) for t in texts])

    def vectors_of(self, pieces: list[QueryPieces]) -> np.ndarray:
        """One vector per query read into ``pieces`` (:meth:`query_vectors` without reading the texts again)."""
        if not pieces:
            return np.zeros((0, self.encoder.dim), dtype=np.float32)
        flat = [p for piece in pieces for p in piece.texts()]
        vectors, _ = encode_cached(self.encoder, flat, "query", self.cache)
        out, start = [], 0
        for piece in pieces:
            n = len(piece.texts())
            out.append(combine(piece, vectors[start : start + n], self.question_weight))
            start += n
        return np.stack(out)

    def reading(self, text: str) -> dict[str, Any]:
        """How this retriever reads ``text`` (``search --explain``): its windows and the question's weight."""
        return {"knn": reading_note(self.pieces(text), self.question_weight)}

    def reading_notes(self, pieces: Mapping[str, QueryPieces]) -> dict[str, dict[str, Any]]:
        """How each query that was not read as one window was read (``eval`` details)."""
        notes = {}
        for qid, piece in pieces.items():
            if len(piece.windows) > 1 or piece.question is not None:
                notes[qid] = {"knn_reading": reading_note(piece, self.question_weight)}
        return notes

    def clause(self, vector: np.ndarray, k: int) -> dict[str, Any]:
        """The query clause for one vector (also used inside ``hybrid``): the single vector of each article's start,
        or, once the index holds every article's windows, a ``nested`` query scoring each article by its best
        window (the lucene engine's k-NN over nested documents keeps ``k`` articles, not ``k`` windows)."""
        if not self.by_windows():
            return self._vector_clause(self.field, vector, k)
        inner = self._vector_clause(f"{self.windows_field}.{WINDOW_VECTOR}", vector, k)
        return {"nested": {"path": self.windows_field, "score_mode": "max", "query": inner}}

    def _vector_clause(self, name: str, vector: np.ndarray, k: int) -> dict[str, Any]:
        values = np.asarray(vector, dtype=np.float64).tolist()  # one call, not 384 float() of numpy scalars
        if self.exact:
            return {
                "script_score": {
                    "query": {"match_all": {}},
                    "script": KNN_SCORE.ref({"field": name, "query_value": values, "space_type": "cosinesimil"}),
                }
            }
        return {"knn": {name: {"vector": values, "k": k, "method_parameters": {"ef_search": max(self.ef_search, k)}}}}

    def body(self, vector: np.ndarray, k: int) -> dict[str, Any]:
        return {
            "size": k,
            "query": self.clause(vector, k),
            "sort": [{"_score": "desc"}, {"article_id": "asc"}],
            "track_scores": True,
            "stored_fields": "_none_",
        }

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many({"q": query}, k).hits["q"]

    def search_faceted(self, query: str, k: int, page: PageAsk, *, depth: int = FACET_DEPTH) -> FacetedHits:
        """A dense results page in one request: the top ``k`` with what ``page`` asks for (titles and snippets, and
        its aggregations over kNN's candidates).

        The query is one ``knn`` clause with ``k`` = ``max(depth, k)``. What it matches, and so what the facet
        counts (and ``matching``) describe, is kNN's candidate set, not "every article about this" (a dense query
        scores every article, so there is no matching set to count): on the lucene engine the HNSW search keeps
        ``max(k, ef_search)`` nearest articles (256 at the default ef_search, per shard) and all of them match.
        The page's ``post_filter`` (a legal source) picks the page among the same candidates; the facets stay unfiltered.
        The top ``k`` is the ranking :meth:`search` gives: the same vector, and the same HNSW search, which
        explores ``max(k, ef_search)`` either way. With ``exact=True`` every article is a candidate (the script
        scores them all), so the facets count the whole index. Snippets highlight the query's words with the
        ``match`` BM25 uses (a ``highlight_query``: the ranking stays dense); a hit that contains none of them
        shows its text's start."""
        check_k(k)
        vector = self.query_vectors([query])[0]
        body = page.body({"query": self.clause(vector, max(depth, k)), "sort": TIE_SORT, "track_scores": True}, k)

        def send(b: dict[str, Any]) -> dict[str, Any]:
            return self.transport.search(self.index, b, what="the k-NN results page", params={"filter_path": page.filter_path})

        with self.vectors_needed():
            return page.read(exact_page(send, body, k), k)

    def search_many(self, queries: Mapping[str, str], k: int, *, checkpoint: Path | None = None, resume: bool = False,
                    on_progress: Progress | None = None) -> SearchResult:
        """Query vectors (through the cache), then ``_msearch`` in batches. No LLM: ``checkpoint`` is ignored."""
        check_k(k)
        items = list(queries.items())
        pieces = {qid: self.pieces(t) for qid, t in items}  # read once: the vectors and the notes
        vectors = self.vectors_of(list(pieces.values()))
        out: dict[str, list[Hit]] = {}
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            lines: list[dict[str, Any]] = []
            for i in range(start, start + len(batch)):
                lines.extend(self.request(vectors[i], k))
            with self.vectors_needed():
                responses = self.transport.msearch(lines, labels=[qid for qid, _ in batch], what="k-NN search")
            for (qid, _), r in zip(batch, responses, strict=True):
                out[qid] = self.hits_of(r, qid, k)
                tick(on_progress)
        return SearchResult(out, query_notes=self.reading_notes(pieces))

    def request(self, vector: np.ndarray, k: int) -> list[dict[str, Any]]:
        """The two ``_msearch`` lines (header, body) of one query vector, as :meth:`search_many` sends them."""
        return [{"index": self.index}, self.body(vector, k)]

    @staticmethod
    def hits_of(response: Mapping[str, Any], qid: str, k: int) -> list[Hit]:
        """The ranked hits of one ``_msearch`` item (the transport has already raised for a refused one)."""
        return rank([Hit(str(h["sort"][1]), float(h["sort"][0])) for h in response["hits"]["hits"]], k)

    def describe(self) -> dict[str, Any]:
        windows = self.windows if self.windows is not None else bool(self._looked and self._looked[1])
        return {"method": self.name, "index": self.index, "field": self.windows_field if windows else self.field,
                "article_windows": windows, "encoder": self.encoder.describe(),
                "ef_search": self.ef_search, "exact": self.exact,
                "query_reading": {"windows": "whole text, every window" if not self.max_windows else
                                  f"whole text, at most {self.max_windows} windows spread over it",
                                  "question_weight": self.question_weight}}


def index_has_vectors(transport: Transport, index: str, embedder: str) -> bool:
    """Whether every article of ``index`` (an alias or name) has ``embedder``'s vector: decides which methods it
    serves. The index's ``_meta.vectors`` names a field only once the indexer has checked it complete; the mapping
    alone says nothing, since the field is added before the (long) filling starts on the live index."""
    name = vector_field_name(slug(embedder))
    mapping = transport.get_mapping(index, what="the index's mapping")
    return any(name in (m.get("mappings", {}).get("_meta", {}).get("vectors") or {}) for m in mapping.values())


def index_has_windows(transport: Transport, index: str, embedder: str) -> bool:
    """Whether every article of ``index`` has ``embedder``'s windows: the indexer lists the nested field in
    ``_meta.windows`` once it has checked them all (until then dense search reads each article's single vector)."""
    name = windows_field_name(slug(embedder))
    mapping = transport.get_mapping(index, what="the index's mapping")
    return any(name in (m.get("mappings", {}).get("_meta", {}).get("windows") or {}) for m in mapping.values())


@dataclass(frozen=True)
class VectorReadiness:
    """How far ``embedder``'s vectors are: ``started`` once the index has the field (the indexer is filling it),
    ``done`` of ``total`` articles have theirs, ``complete`` once the indexer has checked them all (then hybrid is
    the default method)."""

    embedder: str
    started: bool
    done: int
    total: int
    complete: bool
    eta_s: float | None = None  # seconds left at the indexer's last noted rate (None: no recent note)

    @property
    def percent(self) -> int:
        return 100 if self.complete else int(100 * self.done / self.total) if self.total else 0

    @property
    def in_progress(self) -> bool:
        return self.started and not self.complete


PROGRESS_STALE_S = STALE_S  # a rate noted longer ago than this says nothing about now (the indexer stopped)


def eta_seconds(progress: dict[str, Any] | None, left: int, now: float) -> float | None:
    """Seconds until ``left`` more articles have vectors by the indexer's last note in ``_meta.progress``
    (:class:`~nomos.ingest.indexer.RateNote`): the one estimate, :func:`nomos.eta.noted_seconds_left`, that the
    log line says too; None without a recent note."""
    return noted_seconds_left(progress, left, now)


def vector_readiness(transport: Transport, index: str, embedder: str) -> VectorReadiness:
    """Two counts and the mapping: what the command line and the portal show while vectors are being computed
    ("hybrid: N% ready")."""
    name = vector_field_name(slug(embedder))
    mappings = [m.get("mappings", {}) for m in transport.get_mapping(index, what="the index's mapping").values()]
    complete = any(name in (m.get("_meta", {}).get("vectors") or {}) for m in mappings)
    started = complete or any(name in m.get("properties", {}) for m in mappings)
    total = transport.count(index, what="the articles")
    done = total if complete else transport.count(index, {"query": {"exists": {"field": name}}}, what="the vectors") if started else 0
    noted = next((p[name] for m in mappings if name in (p := m.get("_meta", {}).get("progress") or {})), None)
    eta = None if complete else eta_seconds(noted, total - done, time.time())
    return VectorReadiness(embedder, started, done, total, complete, eta)
