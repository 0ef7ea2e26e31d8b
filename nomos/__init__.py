"""nomos: Greek statutory retrieval on OpenSearch (BM25, dense, hybrid and LLM methods, evaluated with ranx).

The front door (:mod:`nomos.api`), re-exported here as ranx exports its own::

    import nomos

    searcher = nomos.Searcher.from_env()          # or nomos.Searcher(url=..., index=...)
    hits = searcher.search("κλοπή ρολογιού", k=10)  # typed nomos.Hit objects
    run = searcher.batch_search({"q1": "..."}, k=100, method="bm25")
    nomos.evaluate(run, qrels).mean

Every error a caller can cause or meet is a :class:`NomosError` (ConfigError, DataError, ClusterUnavailable…).

The package holds the layers the design card names, each a subpackage: ``opensearch`` (the node and the client),
``mappings`` (index bodies), ``legal`` (the reading of Greek legal text: citations, areas, references),
``ingest`` (dataset → records → bulk requests), ``vectors`` (encoders and their cache), ``retrieval`` (query →
ranked list), ``eval`` (run files and metrics; never talks to OpenSearch), ``stages`` (the CLI's verbs composed
from those), ``portal`` and ``cli``. Names are imported on first use, so ``import nomos`` stays cheap.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from nomos.exports import lazy_exports

try:
    __version__ = version("nomos")
except PackageNotFoundError:  # run from a checkout that was never installed
    __version__ = "0.2.0"

__getattr__, __dir__, _exported = lazy_exports(__name__, {
    ".api": ("Searcher", "evaluate", "index_dataset", "load_dataset"),
    ".errors": ("AccessDenied", "ClusterError", "ClusterUnavailable", "ConfigError", "DataError", "IndexNotFound", "LLMError",
                "NomosError", "NotFound", "QueryTooLong", "SearchCancelled", "SearchError", "VectorsMissing"),
    ".eval.metrics": ("Evaluation",),
    ".ingest.records": ("Dataset",),
    ".retrieval.base": ("Hit",),
    ".retrieval.registry": ("MethodOptions",),
    ".settings": ("Settings",),
    ".stages.search_types": ("SearchPage",),
})
__all__ = ["__version__", *_exported]
