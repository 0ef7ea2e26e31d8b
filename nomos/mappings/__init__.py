"""Index settings, analyzers and mappings kept as JSON files, and the small code that fills them in.

The JSON is the source of truth (users can read and diff it); code only sets the knobs a command line exposes:
BM25 k1/b, shard and replica counts, and the ``_meta`` block that records provenance. One thing is filled in from
a file beside the JSON: a stop filter may name a word list with ``"stopwords_file"`` (relative to the mapping
file), which is read here and sent inline as ``"stopwords"``, so nothing has to be copied onto the OpenSearch
nodes' config directories and the list travels with the package (and with the index body's hash).
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

from nomos.errors import ConfigError

HERE = Path(__file__).parent
ARTICLES = HERE / "articles.json"
SIMILARITY = "nomos_bm25"

# The analysis chains and the search field each one serves (the stemming ablation is one flag):
# - stemmed: Snowball's Greek stemmer, the stemmer of the paper's pipeline (the default);
# - ntais:   Lucene's GreekStemmer (Ntais 2006), OpenSearch's built-in "greek" stemmer, for comparison;
# - folded:  lowercase + accent and final-sigma folding + stop words, no stemming (the ablation).
# All three drop the words of stopwords/el.txt after folding; the two stemmed chains also drop the empty tokens a
# stemmer can leave (Snowball strips ίδιο/ίδια to nothing), which would otherwise match every article holding one.
# - lemma:   dictionary forms (nomos.legal.text.lemmas, simplemma), written at ingest into ``lemmas`` and read by a
#            whitespace tokenizer (its lowercase and stop filters are a no-op on lemmas, which come folded and without
#            stop words, and keep the chain's contract for text sent as is); the query is lemmatized in Python the
#            same way (issue 46).
FIELDS = {"stemmed": "content", "ntais": "content.ntais", "folded": "content.folded", "lemma": "lemmas"}
ANALYZERS = {"stemmed": "greek_stemmed", "ntais": "greek_ntais", "folded": "greek_folded", "lemma": "greek_lemma"}
LEMMA_FIELD = FIELDS["lemma"]


class MappingError(ConfigError):
    """A mapping file that cannot be read or used, naming the file."""


def load_json(path: Path) -> dict[str, Any]:
    """Read a mapping file, failing with the file name and position on malformed JSON."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise MappingError(f"{path}:{exc.lineno}:{exc.colno}: malformed JSON ({exc.msg})") from None
    except OSError as exc:
        raise MappingError(f"{path}: {exc.strerror}") from None


STOPWORDS_FILE = "stopwords_file"


def read_stopwords(path: Path) -> list[str]:
    """The words of a stop-list file: whitespace-separated, ``#`` starts a comment line; file order, no repeats."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise MappingError(f"{path}: {exc.strerror}") from None
    words = [w for line in lines if not line.lstrip().startswith("#") for w in line.split()]
    if not words:
        raise MappingError(f"{path}: no stop words in the file")
    return list(dict.fromkeys(words))


def inline_stopwords(body: dict[str, Any], path: Path) -> dict[str, Any]:
    """Replace each filter's ``stopwords_file`` (relative to the mapping file ``path``) with the inline
    ``stopwords`` list it names.

    Inline rather than OpenSearch's ``stopwords_path``: a path would have to exist in every node's config
    directory, while an inline list needs nothing on the nodes and is part of the body that names the index."""
    filters = body.get("settings", {}).get("index", {}).get("analysis", {}).get("filter", {})
    for name, spec in filters.items():
        if isinstance(spec, dict) and STOPWORDS_FILE in spec:
            if "stopwords" in spec:
                raise MappingError(f"{path}: filter {name!r} gives both stopwords and {STOPWORDS_FILE}")
            spec["stopwords"] = read_stopwords(Path(path).parent / spec.pop(STOPWORDS_FILE))
    return body


def articles_index_body(
    k1: float, b: float, shards: int = 1, replicas: int = 0, path: Path = ARTICLES
) -> dict[str, Any]:
    """The create-index body for articles with BM25 and layout knobs applied and stop lists inlined."""
    body = inline_stopwords(copy.deepcopy(load_json(path)), path)
    try:
        index = body["settings"]["index"]
        index["similarity"][SIMILARITY].update({"k1": float(k1), "b": float(b)})
    except (KeyError, TypeError):
        raise MappingError(f"{path}: expected settings.index.similarity.{SIMILARITY}") from None
    index["number_of_shards"] = int(shards)
    index["number_of_replicas"] = int(replicas)
    # Vectors stay out of _source: every results page reads title/law/source and the snippets' text from _source, and
    # each vector doubled what it parsed (384 floats are ~4.4 KB of JSON; the stand-in's articles average 4.4 KB,
    # median 2.8 KB). The k-NN field holds the vectors; nomos.vectors.stored reads them back. Partial updates
    # rebuild a document from _source, so whoever updates one re-sends its vectors.
    body["mappings"]["_source"] = {"excludes": [VECTOR_PREFIX + "*", WINDOWS_PREFIX + "*", ANCHOR_VECTORS_PREFIX + "*"]}
    return body


def analyzer_chain(body: dict[str, Any], analyzer: str) -> dict[str, Any]:
    """A readable description of one analyzer (tokenizer and filters with their settings), for manifests."""
    analysis = body["settings"]["index"]["analysis"]
    spec = analysis["analyzer"][analyzer]
    filters = analysis.get("filter", {})
    return {
        "analyzer": analyzer,
        "tokenizer": spec.get("tokenizer"),
        "filters": [{"name": f, **filters.get(f, {"type": f})} for f in spec.get("filter", [])],
    }


def body_hash(body: dict[str, Any], *extra: str) -> str:
    """A stable short hash of an index body plus extra strings (dataset fingerprint…): names index versions."""
    h = hashlib.sha256(json.dumps(body, sort_keys=True).encode())
    for e in extra:
        h.update(e.encode())
    return h.hexdigest()[:10]


KNN_VECTOR = HERE / "knn_vector.json"
VECTOR_PREFIX = "vec_"


def vector_field_name(encoder_slug: str) -> str:
    """One ``knn_vector`` field per encoder, so several encoders live side by side in one index."""
    return VECTOR_PREFIX + encoder_slug


WINDOWS_PREFIX = "win_"
WINDOW_VECTOR = "vector"  # the knn_vector inside each nested window


def windows_field_name(encoder_slug: str) -> str:
    """The nested field of an encoder's article windows (nomos.vectors.windows), beside its single vector."""
    return WINDOWS_PREFIX + encoder_slug


ANCHOR_VECTORS_PREFIX = "anc_"


def anchor_vectors_field_name(encoder_slug: str) -> str:
    """The nested field of an encoder's anchor vectors: each anchor text of the article (nomos.ingest.anchors)
    embedded as a passage, one nested document each, in the same shape as the windows (:func:`windows_mapping`)."""
    return ANCHOR_VECTORS_PREFIX + encoder_slug


def windows_mapping(dim: int, m: int = 16, ef_construction: int = 128) -> dict[str, Any]:
    """A ``nested`` field whose documents each hold one window's ``knn_vector``: a k-NN query inside a ``nested``
    query with ``score_mode: max`` scores an article by its best window."""
    return {"type": "nested", "properties": {WINDOW_VECTOR: knn_vector_mapping(dim, m=m, ef_construction=ef_construction)}}


def knn_vector_mapping(dim: int, m: int = 16, ef_construction: int = 128, space_type: str = "cosinesimil") -> dict[str, Any]:
    """A ``knn_vector`` field from ``mappings/knn_vector.json``. The engine stays ``lucene``: the k-NN plugin
    built for Maven has no native faiss/nmslib libraries, and a faiss field takes the whole node down."""
    field = copy.deepcopy(load_json(KNN_VECTOR))
    field["dimension"] = int(dim)
    field["method"]["space_type"] = space_type
    field["method"]["parameters"] = {"m": int(m), "ef_construction": int(ef_construction)}
    if field["method"].get("engine") != "lucene":
        raise MappingError(f"{KNN_VECTOR}: method.engine must be 'lucene' (no native k-NN engines in this build)")
    return field


PIPELINES = HERE / "pipelines"
NORMALIZATIONS = ("min_max", "l2", "z_score")
COMBINATIONS = ("arithmetic_mean", "geometric_mean", "harmonic_mean")


def normalization_pipeline(normalization: str, combination: str, weights: tuple[float, float]) -> dict[str, Any]:
    """The hybrid search pipeline of ``pipelines/normalization.json`` with its technique and weights set."""
    if normalization not in NORMALIZATIONS:
        raise MappingError(f"normalization must be one of {', '.join(NORMALIZATIONS)}, got {normalization!r}")
    if combination not in COMBINATIONS:
        raise MappingError(f"combination must be one of {', '.join(COMBINATIONS)}, got {combination!r}")
    body = load_json(PIPELINES / "normalization.json")
    proc = body["phase_results_processors"][0]["normalization-processor"]
    proc["normalization"]["technique"] = normalization
    proc["combination"] = {"technique": combination, "parameters": {"weights": [float(w) for w in weights]}}
    return body


def rrf_pipeline(rank_constant: int = 60) -> dict[str, Any]:
    """The reciprocal-rank-fusion pipeline of ``pipelines/rrf.json`` with its rank constant set."""
    body = load_json(PIPELINES / "rrf.json")
    body["phase_results_processors"][0]["score-ranker-processor"]["combination"]["rank_constant"] = int(rank_constant)
    return body


def pipeline_name(kind: str, body: dict[str, Any]) -> str:
    """Pipelines are named by content, so putting one is idempotent and two settings never collide."""
    return f"nomos-{kind}-{body_hash(body)[:8]}"
