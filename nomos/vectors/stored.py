"""Reading the vectors an index holds. Articles' ``_source`` leaves the ``vec_*`` fields out (the mapping's
``_source.excludes``), so vectors are read from the k-NN field itself, through ``doc[field].value`` in a script
field (the stored script ``COPY_VECTOR``, sent by id: the cluster runs no inline script): the float32 values the
graph was built from. ``transport``: a
:class:`~nomos.opensearch.transport.Transport`, or a client (then nothing is retried)."""

from __future__ import annotations

from typing import Sequence

from nomos.opensearch.stored_scripts import COPY_VECTOR
from nomos.opensearch.transport import Transport


def stored_vectors(transport: Transport, index: str, fields: Sequence[str], ids: Sequence[str]) -> dict[str, dict[str, list[float]]]:
    """``{article id: {field: vector}}`` for the ``ids`` found in ``index``; a field a document lacks is absent
    from its entry (the script checks ``size()`` instead of failing on a missing value)."""
    if not ids or not fields:
        return {}
    script_fields = {f: {"script": COPY_VECTOR.ref({"f": f})} for f in fields}
    body = {"size": len(ids), "_source": False, "query": {"ids": {"values": list(ids)}}, "script_fields": script_fields}
    resp = transport.search(index, body, what="stored vectors")
    out: dict[str, dict[str, list[float]]] = {}
    for h in resp["hits"]["hits"]:
        got = {f: v for f, v in (h.get("fields") or {}).items() if v}
        out[str(h["_id"])] = {f: [float(x) for x in vec] for f, vec in got.items()}
    return out
