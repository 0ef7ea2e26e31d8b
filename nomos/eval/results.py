"""Write one evaluated run as a results folder: TREC, JSON, per-query metrics, mean metrics and a manifest."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from nomos.eval.metrics import Evaluation
from nomos.eval.runs import Run, atomic_write_json, atomic_write_text, write_json_run, write_trec


def format_table(rows: Mapping[str, Mapping[str, float]], metrics: tuple[str, ...]) -> str:
    """A plain-text table: one row per run name, one column per metric, 4 decimals."""
    name_w = max([len("run"), *(len(n) for n in rows)])
    header = "run".ljust(name_w) + "".join(f"  {m:>10}" for m in metrics)
    lines = [header, "-" * len(header)]
    for name, vals in rows.items():
        lines.append(name.ljust(name_w) + "".join(f"  {vals[m]:>10.4f}" for m in metrics))
    return "\n".join(lines)


def per_query_tsv(evaluation: Evaluation) -> str:
    cols = evaluation.metrics
    lines = ["query\t" + "\t".join(cols)]
    for q in evaluation.queries:
        lines.append(q + "\t" + "\t".join(f"{evaluation.per_query[q][m]:.6f}" for m in cols))
    return "\n".join(lines) + "\n"


def write_results(
    folder: Path,
    run: Run,
    evaluation: Evaluation,
    manifest: Mapping[str, Any],
    tag: str,
    details: Mapping[str, Any] | None = None,
) -> dict[str, Path]:
    """Write every file of a run; each write is atomic. Returns the paths written."""
    folder = Path(folder)
    paths = {
        "trec": folder / "run.trec",
        "json": folder / "run.json",
        "per_query": folder / "per_query.tsv",
        "metrics": folder / "metrics.json",
        "manifest": folder / "manifest.json",
    }
    write_trec(paths["trec"], run, tag)
    write_json_run(paths["json"], run)
    atomic_write_text(paths["per_query"], per_query_tsv(evaluation))
    atomic_write_json(paths["metrics"], {"mean": evaluation.mean, "per_query": evaluation.per_query})
    if details:
        paths["details"] = folder / "details.json"
        atomic_write_json(paths["details"], details)
    atomic_write_json(paths["manifest"], manifest)
    return paths
