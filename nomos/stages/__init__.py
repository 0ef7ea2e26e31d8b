"""The stages the command line and the portal run, composed from the packages: index a dataset, search, evaluate,
tune BM25, compare and report, export judgments. ``cli.py`` parses options and calls these; the portal's pages and
API search through the same :class:`~nomos.stages.searching.SearchStage` as ``cli.py search``, so a query is answered
the same way wherever it comes from.

The public names are re-exported here (``from nomos.stages import SearchStage, evaluate_method``), as ranx does.
They are imported on first use (:mod:`nomos.exports`): ``cli.py search`` need not load the evaluation stage's dependencies.
"""

from nomos.exports import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".evaluation": ("EvalOutcome", "IndexMismatch", "default_run_name", "evaluate_method", "evaluate_repeated"),
    ".indexing": ("index_dataset",),
    ".judgments": ("ExportOutcome", "export_judgments"),
    ".reporting": ("comparison_inputs", "read_traces", "store_results", "stored_run", "write_report"),
    ".searching": ("MethodUnavailable", "SearchPage", "SearchRequest", "SearchStage", "cluster_errors", "default_method",
                   "search", "search_page"),
    ".tuning": ("tune_bm25",),
})
