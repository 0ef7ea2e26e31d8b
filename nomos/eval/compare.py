"""Runs side by side: mean metrics, paired randomization tests against a baseline with Holm's correction,
per-query wins/ties/losses, and breakdowns by legal area and by the source (code or law) of the gold articles.

Everything here reads results folders (``runs/<dataset>/<run>/``); nothing talks to OpenSearch, so a comparison
can be redone anywhere the files are.
"""

from __future__ import annotations

import glob
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nomos.errors import NotFound
from nomos.eval.metrics import METRICS
from nomos.eval.runs import Run, read_json_run
from nomos.eval.significance import DEFAULT_PERMUTATIONS, DEFAULT_SEED, holm, randomization_test

WIN, LOSS = "▲", "▼"
_PREFIX = re.compile(r"^([^\d_:-]+)")


@dataclass
class RunData:
    """One results folder, loaded: per-query metrics, the ranking, the manifest, and LLM extras when present."""

    name: str
    folder: Path
    manifest: dict[str, Any]
    per_query: dict[str, dict[str, float]]
    run: Run
    rounds: dict[str, Any] | None = None
    cost: dict[str, Any] | None = None

    @property
    def method(self) -> str:
        return str(self.manifest.get("method", {}).get("method", self.name))

    @property
    def scripted(self) -> bool:
        """True when the LLM was the test suite's scripted oracle server (numbers measure machinery, not a model)."""
        model = str(self.manifest.get("method", {}).get("llm", {}).get("model", ""))
        return "scripted" in model


class RunNotFound(NotFound, FileNotFoundError):
    """A run named on the command line that is neither a results folder nor a name under the runs folder."""


def resolve_run(spec: str | Path, runs_dir: Path, dataset: str | None = None) -> Path:
    """A results folder from a path, ``<dataset>/<run>`` or a bare run name under ``runs_dir`` (with ``dataset``:
    under its folder, else under the folders of its other query sets, ``<dataset>+<qrels file>``)."""
    p = Path(spec)
    if (p / "metrics.json").is_file():
        return p
    candidates = [runs_dir / spec] if (runs_dir / spec / "metrics.json").is_file() else []
    if not candidates:
        pattern = f"{glob.escape(dataset)}/{spec}" if dataset else f"*/{spec}"
        candidates = sorted(f.parent for f in runs_dir.glob(f"{pattern}/metrics.json"))
    if not candidates and dataset:  # a run of the same corpus with other queries (eval --qrels: <dataset>+<file>)
        candidates = sorted(f.parent for f in runs_dir.glob(f"{glob.escape(dataset)}+*/{spec}/metrics.json"))
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise RunNotFound(f"run {spec!r}: no results folder (metrics.json) at that path or under {runs_dir}")
    raise RunNotFound(f"run {spec!r} is ambiguous under {runs_dir}: {', '.join(map(str, candidates))}; give <dataset>/<run>")


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def load_run(folder: Path, name: str | None = None) -> RunData:
    """Read a results folder written by ``eval``."""
    folder = Path(folder)
    metrics = _json(folder / "metrics.json")
    if metrics is None:
        raise RunNotFound(f"{folder}: no metrics.json (not a results folder)")
    run = read_json_run(folder / "run.json") if (folder / "run.json").is_file() else {}
    return RunData(name or folder.name, folder, _json(folder / "manifest.json") or {}, metrics["per_query"], run,
                   _json(folder / "rounds.json"), _json(folder / "cost.json"))


def query_area(query_id: str, area: str = "") -> str:
    """The legal area: the query's own metadata when it has one, else the letters its id starts with."""
    if area:
        return area
    m = _PREFIX.match(query_id)
    return m.group(1) if m else "?"


def gold_sources(qrels: Mapping[str, Mapping[str, int]], article_source: Mapping[str, str] | None = None) -> dict[str, list[str]]:
    """Per query, the distinct sources of its gold articles: the corpus's ``source`` field where known, else the
    ``SOURCE::ARTICLE`` id's prefix."""
    out: dict[str, list[str]] = {}
    for q, docs in qrels.items():
        srcs = {(article_source or {}).get(d) or d.split("::")[0] for d, g in docs.items() if g > 0}
        out[q] = sorted(srcs)
    return out


@dataclass
class Test:
    """One comparison of a run with the baseline on one metric."""

    run: str
    metric: str
    diff: float  # mean(run) - mean(baseline)
    p: float
    p_holm: float = 1.0
    wins: int = 0
    ties: int = 0
    losses: int = 0

    def mark(self, alpha: float) -> str:
        if self.p_holm > alpha or self.diff == 0:
            return ""
        return WIN if self.diff > 0 else LOSS


@dataclass
class Comparison:
    """What ``compare`` prints and ``report`` renders."""

    runs: list[RunData]
    baseline: str
    metrics: tuple[str, ...]
    queries: tuple[str, ...]
    means: dict[str, dict[str, float]]
    tests: list[Test]
    alpha: float
    n_permutations: int
    seed: int
    family: str
    by_area: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)  # area -> run -> metric -> mean
    area_counts: dict[str, int] = field(default_factory=dict)
    by_source: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    source_counts: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def test(self, run: str, metric: str) -> Test | None:
        return next((t for t in self.tests if t.run == run and t.metric == metric), None)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready record of the comparison with its settings and each run's provenance."""
        return {
            "baseline": self.baseline, "metrics": list(self.metrics), "queries": len(self.queries),
            "test": {"kind": "two-sided paired randomization (sign flip)", "permutations": self.n_permutations,
                     "seed": self.seed, "correction": "holm", "family": self.family, "alpha": self.alpha},
            "means": self.means,
            "tests": [{**t.__dict__, "mark": t.mark(self.alpha)} for t in self.tests],
            "by_area": self.by_area, "area_counts": self.area_counts,
            "by_source": self.by_source, "source_counts": self.source_counts,
            "runs": {r.name: {"folder": str(r.folder), "method": r.method, "scripted_llm": r.scripted,
                              "dataset": r.manifest.get("dataset"), "code": r.manifest.get("code"),
                              "created_at": r.manifest.get("created_at")} for r in self.runs},
            "notes": self.notes,
        }


def _group_means(runs: Sequence[RunData], groups: Mapping[str, Sequence[str]], metrics: Sequence[str]) -> dict[str, dict[str, dict[str, float]]]:
    out: dict[str, dict[str, dict[str, float]]] = {}
    for g in sorted(groups):
        qs = groups[g]
        out[g] = {r.name: {m: sum(r.per_query[q][m] for q in qs) / len(qs) for m in metrics} for r in runs}
    return out


def compare(
    runs: Sequence[RunData],
    baseline: str | None = None,
    metrics: Sequence[str] = METRICS,
    areas: Mapping[str, str] | None = None,
    sources: Mapping[str, Sequence[str]] | None = None,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
    family: str = "all",
) -> Comparison:
    """Compare ``runs`` with ``baseline`` (default: the first run) on the queries they all scored.

    ``family`` says which p-values Holm corrects together: ``all`` (every run × metric compared: the strict
    reading) or ``metric`` (the runs compared on one metric).
    """
    if len(runs) < 1:
        raise ValueError("compare needs at least one run")
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise ValueError(f"two runs share a name: {names}; rename one folder or pass paths")
    baseline = baseline or names[0]
    if baseline not in names:
        raise ValueError(f"baseline {baseline!r} is not among the runs ({', '.join(names)})")
    if family not in ("all", "metric"):
        raise ValueError("family must be 'all' or 'metric'")
    shared = set.intersection(*(set(r.per_query) for r in runs))
    notes = []
    for r in runs:
        if set(r.per_query) != shared:
            notes.append(f"{r.name}: {len(set(r.per_query) - shared)} queries not scored by every run were left out")
    queries = tuple(sorted(shared))
    if not queries:
        raise ValueError("the runs share no scored query")
    base = next(r for r in runs if r.name == baseline)
    means = {r.name: {m: sum(r.per_query[q][m] for q in queries) / len(queries) for m in metrics} for r in runs}
    tests: list[Test] = []
    for r in runs:
        if r.name == baseline:
            continue
        for m in metrics:
            a = [base.per_query[q][m] for q in queries]
            b = [r.per_query[q][m] for q in queries]
            w = sum(1 for x, y in zip(a, b, strict=True) if y > x + 1e-12)
            lo = sum(1 for x, y in zip(a, b, strict=True) if y < x - 1e-12)
            tests.append(Test(r.name, m, means[r.name][m] - means[baseline][m], randomization_test(a, b, n_permutations, seed),
                              wins=w, ties=len(queries) - w - lo, losses=lo))
    groups = [tests] if family == "all" else [[t for t in tests if t.metric == m] for m in metrics]
    for g in groups:
        for t, adj in zip(g, holm([t.p for t in g]), strict=True):
            t.p_holm = adj
    by_area: dict[str, list[str]] = {}
    for q in queries:
        by_area.setdefault(query_area(q, (areas or {}).get(q, "")), []).append(q)
    by_source: dict[str, list[str]] = {}
    for q in queries:
        for s in (sources or {}).get(q, ()):
            by_source.setdefault(s, []).append(q)
    return Comparison(
        list(runs), baseline, tuple(metrics), queries, means, tests, alpha, n_permutations, seed, family,
        _group_means(runs, by_area, metrics), {a: len(v) for a, v in sorted(by_area.items())},
        _group_means(runs, by_source, metrics), {s: len(v) for s, v in sorted(by_source.items())}, notes,
    )


def fmt_p(p: float) -> str:
    """p-values: 4 decimals, or scientific below 0.0001 (a sampled test's floor is 1/(permutations + 1), never 0)."""
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) if rows else len(header[i]) for i in range(len(header))]
    line = "  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths, strict=True)))
    out = [line, "-" * len(line)]
    for r in rows:
        out.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))))
    return "\n".join(out)


def format_comparison(c: Comparison) -> str:
    """The plain-text tables ``cli.py compare`` prints."""
    parts = []
    rows = []
    for r in c.runs:
        cells = [r.name + (" (baseline)" if r.name == c.baseline else "") + (" [scripted LLM]" if r.scripted else "")]
        for m in c.metrics:
            t = c.test(r.name, m)
            cells.append(f"{c.means[r.name][m]:.4f}{(t.mark(c.alpha) if t else '') or ' '}")
        rows.append(cells)
    parts.append(_table(["run", *c.metrics], rows))
    parts.append(
        f"{WIN}/{LOSS}: significantly better/worse than {c.baseline} (two-sided paired randomization test, "
        f"{c.n_permutations:,} permutations, seed {c.seed}; Holm-adjusted p ≤ {c.alpha} over "
        f"{'all ' + str(len(c.tests)) + ' comparisons' if c.family == 'all' else 'the runs per metric'}); {len(c.queries)} queries"
    )
    if c.tests:
        rows = [[t.run, t.metric, f"{t.diff:+.4f}", fmt_p(t.p), fmt_p(t.p_holm), f"{t.wins}/{t.ties}/{t.losses}", t.mark(c.alpha)]
                for t in c.tests]
        parts.append("\n" + _table(["run", "metric", "diff", "p", "p (Holm)", "win/tie/loss", ""], rows))
    for title, groups, counts in (("legal area", c.by_area, c.area_counts), ("source of the gold articles", c.by_source, c.source_counts)):
        if not groups:
            continue
        rows = [[f"{g} ({counts[g]} q)", r.name, *(f"{groups[g][r.name][m]:.4f}" for m in c.metrics)] for g in groups for r in c.runs]
        parts.append(f"\nby {title}:\n" + _table([title, "run", *c.metrics], rows))
    parts.extend(f"note: {n}" for n in c.notes)
    return "\n".join(parts)
