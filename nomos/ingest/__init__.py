"""Turn a dataset into validated records, vectors and bulk requests for OpenSearch. Import public names from here
(``from nomos.ingest import load_dataset, build_index``); they load on first use (:mod:`nomos.exports`)."""

from nomos.exports import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".records": ("Article", "Dataset", "DatasetError", "Qrels", "Query"),
    ".loader": ("load_dataset", "replace_judgments"),
    ".beir": ("load_beir", "parse_article", "parse_query", "read_qrels", "read_queries"),
    ".huggingface": ("GREEKBAR_REPO", "GREEKBAR_REVISION", "load_greekbar", "rows_to_dataset", "split_heading"),
    ".topics": ("read_topics",),
    ".bulk": ("BulkError", "BulkFailure", "content_sha", "load_articles"),
    ".indexer": ("IndexInterrupted", "IndexReport", "VectorPlan", "alias_targets", "build_index", "index_meta",
                 "swap_alias"),
    ".vectors": ("VectorReport", "fill_vectors"),
})
