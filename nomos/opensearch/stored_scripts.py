"""The project's own scripts, stored in the cluster and sent by id, never inline.

Every node nomos starts runs with ``script.allowed_types: stored`` (``node_config.node_settings``): an inline
script in a search is refused, whoever sends it, so a reader of the portal's user (``nomos_portal``) cannot run
Painless of their own choosing. The security plugin has no permission for "inline scripts" (a search with a
script is ``indices:data/read/search`` like any other), so the switch is the cluster's, and the scripts nomos needs
are stored beforehand (``PUT _scripts/<id>``):

* ``COPY_VECTOR`` (painless, ``field`` context): a document's k-NN vector copied into a list, the only way to read
  a vector back (``_source`` leaves them out; the doc value is the reader's reused buffer); the Rocchio PRF and the
  indexer's windows and second-encoder passes (``nomos.vectors.stored``);
* ``RANK_BY_POSITION`` (painless, ``score`` context): a results page over a ranking computed beforehand, each
  article scored by its position (``nomos.retrieval.pages.ranking_page_body``);
* ``KNN_SCORE`` (the k-NN plugin's ``knn`` language, ``score`` context): exact kNN (``knn --exact``). The plugin's
  engine compiles any script whose source is ``knn_score``, stored or inline, so it is stored like the others.

An id carries a hash of its script (``nomos-copy-vector-1a2b3c4d``): a changed script is a new id, so a portal of
the previous version keeps finding the one it knows, and storing is idempotent. Who stores them: ``index`` (the
indexer's role may ``cluster:admin/script/put``, as it stores the search pipelines) and ``server start`` (as the
node's admin), so a node that was indexed by an earlier version gets them on its next start. The portal's role may
not store or delete a script.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Mapping

from opensearchpy import OpenSearch

# The k-NN plugin's doc value is the vector reader's own buffer, reused from one document to the next: returned as
# it is, every hit's field serialises as the last document's vector (all 3 of a 3-document index read [0.6, 0.8]).
# So the script copies it into a list (which the response flattens into the field's values).
_COPY = ("if (doc[params.f].size() == 0) { return null; } def v = doc[params.f].value; List out = new ArrayList(); "
         "for (int i = 0; i < v.length; ++i) { out.add(v[i]); } return out;")


@dataclass(frozen=True)
class StoredScript:
    """One script nomos stores: ``name`` (what it is for), language, source and the context it is compiled for
    when stored (so a script that does not compile is refused at ``PUT``, not at the first search)."""

    name: str
    lang: str
    source: str
    context: str

    @property
    def id(self) -> str:
        """``nomos-<name>-<8 hex of sha256(lang, source)>``: a new script, a new id."""
        digest = hashlib.sha256(f"{self.lang}\n{self.source}".encode()).hexdigest()[:8]
        return f"nomos-{self.name}-{digest}"

    def body(self) -> dict[str, Any]:
        """What ``PUT _scripts/<id>`` takes."""
        return {"script": {"lang": self.lang, "source": self.source}}

    def ref(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The ``script`` object of a request that runs this script with ``params``."""
        return {"id": self.id, "params": dict(params)}


COPY_VECTOR = StoredScript("copy-vector", "painless", _COPY, "field")
RANK_BY_POSITION = StoredScript("rank-by-position", "painless", "params.p[doc['article_id'].value]", "score")
KNN_SCORE = StoredScript("knn-score", "knn", "knn_score", "score")
SCRIPTS = (COPY_VECTOR, RANK_BY_POSITION, KNN_SCORE)

MISSING_SCRIPT_HINT = ("the project's scripts are stored by `python cli.py index` and `python cli.py server start`; "
                       "run either against this cluster (docs/security.md, \"Scripts\")")


def store_scripts(client: OpenSearch) -> list[str]:
    """``PUT _scripts/<id>?context=…`` for each of :data:`SCRIPTS` (idempotent: same id, same script); the ids.
    Errors are opensearch-py's (the caller names who was refused)."""
    for script in SCRIPTS:
        client.put_script(id=script.id, body=script.body(), context=script.context)
    return [s.id for s in SCRIPTS]
