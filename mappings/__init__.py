"""Index settings, analyzers and mappings kept as JSON files, and the small code that fills them in.

The JSON is the source of truth (users can read and diff it); code only sets the knobs a command line exposes:
BM25 k1/b, shard and replica counts, and the ``_meta`` block that records provenance.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
ARTICLES = HERE / "articles.json"
SIMILARITY = "nomos_bm25"

# The analysis chains and the search field each one serves (the stemming ablation is one flag):
# - stemmed: Snowball's Greek stemmer, the stemmer of the paper's pipeline (the default);
# - ntais:   Lucene's GreekStemmer (Ntais 2006), OpenSearch's built-in "greek" stemmer, for comparison;
# - folded:  lowercase + accent and final-sigma folding + stop words, no stemming (the ablation).
FIELDS = {"stemmed": "content", "ntais": "content.ntais", "folded": "content.folded"}
ANALYZERS = {"stemmed": "greek_stemmed", "ntais": "greek_ntais", "folded": "greek_folded"}


class MappingError(ValueError):
    """A mapping file that cannot be read or used, naming the file."""


def load_json(path: Path) -> dict[str, Any]:
    """Read a mapping file, failing with the file name and position on malformed JSON."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise MappingError(f"{path}:{exc.lineno}:{exc.colno}: malformed JSON ({exc.msg})") from None
    except OSError as exc:
        raise MappingError(f"{path}: {exc.strerror}") from None


def articles_index_body(
    k1: float, b: float, shards: int = 1, replicas: int = 0, path: Path = ARTICLES
) -> dict[str, Any]:
    """The create-index body for articles with BM25 and layout knobs applied."""
    body = copy.deepcopy(load_json(path))
    try:
        index = body["settings"]["index"]
        index["similarity"][SIMILARITY].update({"k1": float(k1), "b": float(b)})
    except (KeyError, TypeError):
        raise MappingError(f"{path}: expected settings.index.similarity.{SIMILARITY}") from None
    index["number_of_shards"] = int(shards)
    index["number_of_replicas"] = int(replicas)
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
