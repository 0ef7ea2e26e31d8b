"""The stages the command line and the portal run, composed from the packages: index a dataset, search, evaluate,
tune BM25, compare and report, export judgments. ``cli.py`` parses options and calls these; the portal's pages and
API search through the same :class:`~nomos.stages.searching.Searcher` as ``cli.py search``, so a query is answered
the same way wherever it comes from.

The public names are re-exported here (``from nomos.stages import Searcher, evaluate_method``), as ranx does.
They are imported on first use: ``cli.py search`` need not load the evaluation stage's dependencies.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, tuple[str, ...]] = {
    "evaluation": ("EvalOutcome", "IndexMismatch", "default_run_name", "evaluate_method", "evaluate_repeated"),
    "indexing": ("index_dataset",),
    "judgments": ("ExportOutcome", "export_judgments"),
    "reporting": ("comparison_inputs", "read_traces", "store_results", "stored_run", "write_report"),
    "searching": ("MethodUnavailable", "SearchPage", "SearchRequest", "Searcher", "cluster_errors", "default_method",
                  "search", "search_page"),
    "tuning": ("tune_bm25",),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = [
    "EvalOutcome",
    "ExportOutcome",
    "IndexMismatch",
    "MethodUnavailable",
    "SearchPage",
    "SearchRequest",
    "Searcher",
    "cluster_errors",
    "comparison_inputs",
    "default_method",
    "default_run_name",
    "evaluate_method",
    "evaluate_repeated",
    "export_judgments",
    "index_dataset",
    "read_traces",
    "search",
    "search_page",
    "store_results",
    "stored_run",
    "tune_bm25",
    "write_report",
]

if TYPE_CHECKING:
    from nomos.stages.evaluation import EvalOutcome, IndexMismatch, default_run_name, evaluate_method, evaluate_repeated
    from nomos.stages.indexing import index_dataset
    from nomos.stages.judgments import ExportOutcome, export_judgments
    from nomos.stages.reporting import comparison_inputs, read_traces, store_results, stored_run, write_report
    from nomos.stages.searching import (
        MethodUnavailable,
        Searcher,
        SearchPage,
        SearchRequest,
        cluster_errors,
        default_method,
        search,
        search_page,
    )
    from nomos.stages.tuning import tune_bm25


def __getattr__(name: str) -> Any:  # noqa: ANN401 - whichever stage object was asked for
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'nomos.stages' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"nomos.stages.{module}"), name)
    globals()[name] = value  # asked once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
