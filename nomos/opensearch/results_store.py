"""Evaluation results in OpenSearch, for Dashboards: per-query metrics, run summaries, ReAct rounds and traces,
each in an index of its own (mappings in ``mappings/results/``).

Documents are built from plain data (:class:`StoredRun`, which ``stages/reporting.py`` loads from a results folder
that ``eval`` wrote), never from a live evaluation, so a folder can be pushed again later. This module never
imports ``nomos.eval``: the node layer and the evaluation layer stay apart. Every document carries the run's
provenance; ``_id`` is deterministic
(``dataset/run/query/round``) so re-running ``eval --to-opensearch`` replaces documents instead of adding
copies, and documents of an earlier write of the same run that the new one lacks (fewer queries, fewer rounds)
are deleted afterwards.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from opensearchpy import OpenSearch, helpers

from nomos.mappings import load_json

MAPPINGS = Path(__file__).resolve().parent.parent / "mappings" / "results"
KINDS = {"per_query": "per-query", "runs": "runs", "react_rounds": "react-rounds", "traces": "traces"}
DEFAULT_PREFIX = "nomos-results"


def index_name(prefix: str, kind: str) -> str:
    """``<prefix>-per-query``, ``<prefix>-runs``, ``<prefix>-react-rounds``, ``<prefix>-traces``."""
    return f"{prefix}-{KINDS[kind]}"


def mapping(kind: str) -> dict[str, Any]:
    return load_json(MAPPINGS / f"{kind}.json")


def flat_metrics(metrics: Mapping[str, float]) -> dict[str, float]:
    """``recall@100`` → ``recall_100``: field names without ``@`` read better in Dashboards."""
    return {m.replace("@", "_"): float(v) for m, v in metrics.items()}


@dataclass(frozen=True)
class StoredRun:
    """One results folder as plain data: what the result indices hold about a run."""

    name: str
    dataset: str  # the manifest's dataset name, else the folder the run lies in
    method: str
    scripted_llm: bool  # the LLM was the test suite's scripted server: the numbers measure machinery, not a model
    manifest: Mapping[str, Any]
    per_query: Mapping[str, Mapping[str, float]]  # query id -> metric -> value
    ranking: Mapping[str, Sequence[tuple[str, float]]]  # query id -> [(doc id, score)] in rank order
    rounds: Mapping[str, Any] | None = None
    cost: Mapping[str, Any] | None = None


def _provenance(r: StoredRun, write_id: str, written_at: str) -> dict[str, Any]:
    ds = r.manifest.get("dataset", {})
    code = r.manifest.get("code") or {}
    return {
        "run": r.name, "method": r.method, "dataset": r.dataset,
        "dataset_revision": ds.get("revision"), "dataset_fingerprint": ds.get("fingerprint"),
        "commit": code.get("commit"), "dirty": code.get("dirty"), "created_at": r.manifest.get("created_at"),
        "written_at": written_at, "write_id": write_id, "scripted_llm": r.scripted_llm,
    }


def documents(
    r: StoredRun,
    qrels: Mapping[str, Mapping[str, int]],
    areas: Mapping[str, str] | None = None,
    article_source: Mapping[str, str] | None = None,
    traces: Sequence[Mapping[str, Any]] = (),
    write_id: str | None = None,
) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """Per index kind, ``(_id, document)`` pairs for one run; ``areas`` gives each query's legal area (``"?"`` when
    absent), ``article_source`` each gold article's source (else its id prefix)."""
    write_id = write_id or uuid.uuid4().hex
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    prov = _provenance(r, write_id, now)
    key = f"{prov['dataset']}/{r.name}"
    out: dict[str, list[tuple[str, dict[str, Any]]]] = {k: [] for k in KINDS}
    for q in sorted(r.per_query):
        gold = {d for d, g in qrels.get(q, {}).items() if g > 0}
        ranks = [i for i, (d, _) in enumerate(r.ranking.get(q, []), start=1) if d in gold]
        out["per_query"].append((f"{key}/{q}", {
            **prov, **flat_metrics(r.per_query[q]), "query_id": q, "area": (areas or {}).get(q) or "?",
            "gold_sources": sorted({(article_source or {}).get(d) or d.split("::")[0] for d in gold}),
            "n_gold": len(gold), "first_gold_rank": min(ranks) if ranks else None,
            "gold_found_100": sum(1 for x in ranks if x <= 100),
        }))
    m = r.manifest
    n = max(len(r.per_query), 1)
    means = {k: sum(v[k] for v in r.per_query.values()) / n for k in next(iter(r.per_query.values()), {})}
    cost = (r.cost or {}).get("mean_per_query", {})
    index = m.get("index", {})
    out["runs"].append((key, {
        **prov, **flat_metrics(means), "queries": len(r.per_query), "opensearch_version": m.get("opensearch_version"),
        "index_version": index.get("version"), "bm25_k1": (index.get("bm25") or {}).get("k1"),
        "bm25_b": (index.get("bm25") or {}).get("b"), "analyzer": (index.get("analyzer_chain") or {}).get("analyzer"),
        "llm_model": (m.get("method", {}).get("llm") or {}).get("model"),
        "llm_calls_per_query": float(cost.get("calls", 0.0)),
        "tokens_per_query": float(cost.get("input_tokens", 0.0)) + float(cost.get("output_tokens", 0.0)),
        "seconds_per_query": float(cost["seconds"]) if "seconds" in cost else float(m.get("query_phase_seconds", 0.0)) / n,
        "query_phase_seconds": m.get("query_phase_seconds"), "manifest": m,
    }))
    for rnd, row in (r.rounds or {}).items():
        out["react_rounds"].append((f"{key}/round-{int(rnd):02d}", {
            **prov, **flat_metrics(row["metrics"]), "round": int(rnd), "pool_recall": row.get("pool_recall"),
            "mean_kept": row.get("mean_kept"), "mean_pool": row.get("mean_pool"),
        }))
    for t in traces:
        q = str(t.get("query_id"))
        gold = {d for d, g in qrels.get(q, {}).items() if g > 0}
        for step in t.get("rounds", []):
            kept = list(step.get("kept", []))
            out["traces"].append((f"{key}/{q}/round-{int(step['round']):02d}", {
                **prov, "query_id": q, "round": int(step["round"]), "query": step.get("query"),
                "query_source": step.get("query_source"), "candidates": len(step.get("candidates", [])),
                "kept": kept, "n_kept": len(kept), "kept_gold": sum(1 for d in kept if d in gold),
                "issues": sorted({i.get("kind", "?") for i in step.get("issues", [])}),
                **{f: step.get(f) for f in ("calls", "input_tokens", "output_tokens", "seconds", "search_ms", "fetch_ms")},
            }))
    return out


def ensure_indices(client: OpenSearch, prefix: str) -> None:
    """Create the result indices that do not exist yet, from ``mappings/results/*.json``."""
    for kind in KINDS:
        name = index_name(prefix, kind)
        if not client.indices.exists(index=name):
            client.indices.create(index=name, body=mapping(kind), params={"ignore": 400})


def store(client: OpenSearch, prefix: str, docs: Mapping[str, Iterable[tuple[str, dict[str, Any]]]]) -> dict[str, int]:
    """Index the documents (replacing same ids), drop what an earlier write of the same runs left over, refresh.
    Returns the count written per index kind."""
    ensure_indices(client, prefix)
    counts: dict[str, int] = {}
    docs = {k: list(v) for k, v in docs.items()}
    runs = {(d["dataset"], d["run"], d["write_id"]) for pairs in docs.values() for _, d in pairs}
    for kind in KINDS:
        pairs = docs.get(kind, [])
        name = index_name(prefix, kind)
        actions = ({"_op_type": "index", "_index": name, "_id": i, "_source": d} for i, d in pairs)
        ok, errors = helpers.bulk(client, actions, raise_on_error=False, refresh=False)
        if errors:
            raise RuntimeError(f"{name}: {len(errors)} documents refused, first: {errors[0]}")
        counts[kind] = ok
        client.indices.refresh(index=name)  # the delete below must see the new versions, not the replaced ones
        for key in runs:  # every index: a rerun may have fewer queries, rounds or none
            # delete by ids found with scroll: _delete_by_query lives in the reindex module, which the local
            # node (assembled from Maven artefacts) does not carry
            query = {"query": {"bool": {"filter": [{"term": {"dataset": key[0]}}, {"term": {"run": key[1]}}],
                                        "must_not": [{"term": {"write_id": key[2]}}]}}, "_source": False}
            stale = [h["_id"] for h in helpers.scan(client, query=query, index=name)]
            if stale:
                helpers.bulk(client, ({"_op_type": "delete", "_index": name, "_id": i} for i in stale), raise_on_error=False)
        client.indices.refresh(index=name)
    return counts
