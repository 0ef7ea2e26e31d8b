"""Read and write run files and score them with ranx; compare, test significance, report, cross-validate. Nothing
here talks to OpenSearch (an import-linter contract keeps it so). Import public names from here
(``from nomos.eval import evaluate, compare``); they load on first use (:mod:`nomos.exports`)."""

from nomos.exports import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".metrics": ("METRICS", "Evaluation", "evaluate"),
    ".runs": ("RunFormatError", "atomic_write_json", "atomic_write_text", "read_json_run", "read_trec", "write_json_run",
              "write_trec"),
    ".results": ("write_results",),
    ".manifest": ("build_manifest",),
    ".compare": ("Comparison", "RunNotFound", "compare", "format_comparison", "load_run"),
    ".significance": ("holm", "randomization_test"),
    ".report": ("render_report",),
    ".tuning": ("TuneResult", "cross_validate", "folds"),
    ".fusion_diagnosis": ("diagnose", "fusion_summary"),
})
