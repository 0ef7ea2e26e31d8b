"""nomos: Greek statutory retrieval on OpenSearch (BM25, dense, hybrid and LLM methods, evaluated with ranx).

The package holds the layers the design card names, each a subpackage: ``opensearch`` (the node and the client),
``mappings`` (index bodies), ``ingest`` (dataset → records → bulk requests), ``vectors`` (encoders and their
cache), ``retrieval`` (query → ranked list), ``eval`` (run files and metrics; never talks to OpenSearch),
``stages`` (the CLI's verbs composed from those), ``portal`` and ``cli``.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("nomos")
except PackageNotFoundError:  # run from a checkout that was never installed
    __version__ = "0.2.0"
