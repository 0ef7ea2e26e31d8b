"""One self-contained HTML report of a comparison: the table with significance marks, Recall@k curves, ReAct
rounds, cost against quality, breakdowns and a per-query drill-down. Charts are matplotlib PNGs embedded as data
URIs, so the file can be mailed or attached to an issue and opens anywhere without a server."""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from nomos.eval.compare import LOSS, WIN, Comparison, RunData, fmt_p

TEMPLATES = Path(__file__).parent / "templates"
MAX_K = 100


def recall_curve(run: Mapping[str, Sequence[tuple[str, float]]], qrels: Mapping[str, Mapping[str, int]],
                 queries: Sequence[str], max_k: int = MAX_K) -> list[float]:
    """Mean Recall@k for k = 1…max_k over ``queries`` (a query's missing ranking counts as empty)."""
    total = np.zeros(max_k)
    for q in queries:
        gold = {d for d, g in qrels.get(q, {}).items() if g > 0}
        if not gold:
            continue
        hits = np.zeros(max_k)
        for i, (d, _) in enumerate(run.get(q, [])[:max_k]):
            if d in gold:
                hits[i] = 1
        total += np.cumsum(hits) / len(gold)
    return [float(v) for v in total / max(len(queries), 1)]


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def recall_chart(curves: Mapping[str, list[float]]) -> str:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 4))
    ks = np.arange(1, MAX_K + 1)
    for name, ys in curves.items():
        ax.plot(ks, ys, label=name, linewidth=1.8)
    ax.set_xscale("log")
    ax.set_xticks([1, 2, 5, 10, 20, 50, 100], labels=["1", "2", "5", "10", "20", "50", "100"])
    ax.set_xlabel("k (log scale)")
    ax.set_ylabel("Recall@k")
    ax.set_ylim(0, _top(v for ys in curves.values() for v in ys))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _png(fig)


def _top(values: Any) -> float:
    """A y-axis top that leaves low scores readable (the stand-in's BM25 never reaches 0.2)."""
    return min(1.03, max(0.1, 1.15 * max(values, default=0.0)))


def rounds_chart(rounds: Mapping[str, Mapping[str, Any]]) -> str:
    """ReAct Recall@100 and nDCG@10 after each snapshot round, per run with rounds."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.4))
    for name, rr in rounds.items():
        xs = sorted(int(r) for r in rr)
        for ax, metric in zip(axes, ("recall@100", "ndcg@10"), strict=True):
            ax.plot(xs, [rr[str(x)]["metrics"][metric] for x in xs], marker="o", label=name)
    for ax, metric in zip(axes, ("Recall@100", "nDCG@10"), strict=True):
        ax.set_xlabel("round")
        ax.set_ylabel(metric)
        ax.grid(alpha=0.3)
        ax.set_ylim(0, 1.03)
    axes[0].legend(fontsize=8)
    return _png(fig)


def cost_points(r: RunData) -> dict[str, float]:
    """LLM calls, tokens and seconds per query (0 calls and tokens for methods without an LLM)."""
    queries = max(int(r.manifest.get("queries") or len(r.per_query) or 1), 1)
    if r.cost:
        m = r.cost.get("mean_per_query", {})
        return {"calls": float(m.get("calls", 0)), "tokens": float(m.get("input_tokens", 0)) + float(m.get("output_tokens", 0)),
                "seconds": float(m.get("seconds", 0))}
    return {"calls": 0.0, "tokens": 0.0, "seconds": float(r.manifest.get("query_phase_seconds", 0.0)) / queries}


def llm_issues(r: RunData) -> dict[str, Any] | None:
    """The run's LLM issue counts (cost.json's ``llm_issues``: per kind, the count, its share of calls and whether
    it went above the threshold); None for runs without an LLM or written before the counts existed."""
    issues = (r.cost or {}).get("llm_issues")
    if not issues or not issues.get("calls"):
        return None
    over = {w.split(":", 1)[0] for w in issues.get("warnings", [])}
    return {"calls": issues["calls"], "threshold": issues.get("threshold"),
            "kinds": {k: {"count": v, "rate": issues.get("rates", {}).get(k, 0.0), "over": k in over}
                      for k, v in issues["counts"].items()}}


def cost_chart(c: Comparison) -> str:
    plt = _plt()
    fig, axes = plt.subplots(1, 3, figsize=(10.5, 3.6), sharey=True)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    keys = ("calls", "tokens", "seconds")
    pts = {r.name: cost_points(r) for r in c.runs}
    for i, r in enumerate(c.runs):
        color = colors[i % len(colors)]
        for ax, key in zip(axes, keys, strict=True):
            x = pts[r.name][key]
            ax.scatter([x], [c.means[r.name]["ndcg@10"]], marker="o", s=40, color=color)
            ax.scatter([x], [c.means[r.name]["recall@100"]], marker="^", s=50, color=color, label=r.name if key == "calls" else None)
    from matplotlib.ticker import MaxNLocator

    for ax, key, label in zip(axes, keys, ("LLM calls / query", "tokens / query", "seconds / query"), strict=True):
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
        top = max(p[key] for p in pts.values())
        if top <= 0:  # no run spent any: one tick at 0 and a word, not a row of 0.0000s written over each other
            ax.set_xlim(-1, 1)
            ax.set_xticks([0])
            ax.text(0.5, 0.04, "0 for every run", transform=ax.transAxes, ha="center", fontsize=8, color="#555")
            continue
        ax.set_xlim(-0.05 * top, 1.15 * top)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
        ax.ticklabel_format(axis="x", style="plain", useOffset=False)
    axes[0].set_ylabel("● nDCG@10   ▲ Recall@100")
    axes[0].set_ylim(0, _top(v for name in c.means for v in (c.means[name]["ndcg@10"], c.means[name]["recall@100"])))
    fig.legend(loc="center left", fontsize=8, bbox_to_anchor=(1.0, 0.5), title="run (colour)")
    return _png(fig)


def drilldown(c: Comparison, qrels: Mapping[str, Mapping[str, int]], texts: Mapping[str, str],
              titles: Mapping[str, str]) -> list[dict[str, Any]]:
    """Per query: its text, gold articles and where each run ranked them (None: not in its top 100)."""
    rows = []
    for q in c.queries:
        gold = sorted(d for d, g in qrels.get(q, {}).items() if g > 0)
        ranks = {r.name: {d: i + 1 for i, (d, _) in enumerate(r.run.get(q, []))} for r in c.runs}
        rows.append({
            "id": q, "text": texts.get(q, ""),
            "gold": [{"id": d, "title": titles.get(d, ""), "ranks": {r.name: ranks[r.name].get(d) for r in c.runs}} for d in gold],
            "ndcg10": {r.name: r.per_query[q]["ndcg@10"] for r in c.runs},
        })
    return rows


def render_report(
    c: Comparison,
    qrels: Mapping[str, Mapping[str, int]],
    dataset: Mapping[str, Any],
    query_texts: Mapping[str, str] | None = None,
    titles: Mapping[str, str] | None = None,
    command: str = "",
) -> str:
    """The report's HTML (Jinja2, autoescaped): every chart inline, no external resource."""
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["p"] = fmt_p
    curves = {r.name: recall_curve(r.run, qrels, c.queries) for r in c.runs}
    rounds = {r.name: r.rounds for r in c.runs if r.rounds}
    charts = {"recall": recall_chart(curves), "cost": cost_chart(c), "rounds": rounds_chart(rounds) if rounds else None}
    return env.get_template("report.html.j2").render(
        c=c, WIN=WIN, LOSS=LOSS, charts=charts, dataset=dataset, rounds=rounds,
        costs={r.name: cost_points(r) for r in c.runs}, curves=curves,
        issues={r.name: i for r in c.runs if (i := llm_issues(r))},
        queries=drilldown(c, qrels, query_texts or {}, titles or {}),
        scripted=[r.name for r in c.runs if r.scripted], command=command,
        generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    )
