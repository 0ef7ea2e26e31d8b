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
  article scored by its position (``nomos.pages.request.ranking_page_body``);
* ``KNN_SCORE`` (the k-NN plugin's ``knn`` language, ``score`` context): exact kNN (``knn --exact``). The plugin's
  engine compiles any script whose source is ``knn_score``, stored or inline, so it is stored like the others.

An id carries a hash of its script (``nomos-copy-vector-1a2b3c4d``): a changed script is a new id, so a portal of
the previous version keeps finding the one it knows, and storing is idempotent. Who stores them: ``server start``
(as the node's admin), so a node that was indexed by an earlier version gets them on its next start, and ``index``
where its user may (an open cluster, Amazon OpenSearch Service); on a secured node the indexer's role may only
read them (issue 47: it could store any Painless and overwrite the script the portal runs), so ``index`` checks
they are there and says what to run when one is not. The portal's role may neither store nor delete a script.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Mapping

from opensearchpy import OpenSearch
from opensearchpy.exceptions import AuthorizationException, NotFoundError

from nomos.errors import AccessDenied

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
    """``PUT _scripts/<id>?context=…`` for each of :data:`SCRIPTS` the cluster lacks or holds with another text
    (idempotent); the ids. A secured node's indexer may read the scripts but not store one (only the admin does,
    at ``server start``): where one is missing and the PUT is refused, an AccessDenied says what to run. Other
    errors are opensearch-py's (the caller names who was refused)."""
    for script in SCRIPTS:
        held = _stored_as_ours(client, script)
        if held:
            continue
        try:
            client.put_script(id=script.id, body=script.body(), context=script.context)
        except AuthorizationException as exc:
            if held is None:  # may neither read nor store scripts: opensearch-py's refusal, named by the caller
                raise
            raise AccessDenied(f"the cluster lacks the project's script {script.id} and this user may not store it "
                               "(403)", status=403, reason=str(exc.error),
                               hint="run `python cli.py server start` (it stores them as the node's admin), or "
                                    "store them as a user who may cluster:admin/script/put") from None
    return [s.id for s in SCRIPTS]


def _stored_as_ours(client: OpenSearch, script: StoredScript) -> bool | None:
    """Whether the cluster holds ``script`` under its id with its language and text (a script another account
    put under that id is not ours); None when this user may not read scripts."""
    try:
        found = client.get_script(id=script.id)
    except NotFoundError:
        return False
    except AuthorizationException:
        return None
    stored = found.get("script") or {}
    return bool(found.get("found")) and stored.get("lang") == script.lang and stored.get("source") == script.source
