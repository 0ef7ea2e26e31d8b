"""What the verbs print as text (the ``--json`` documents are nomos/render.py's): kept apart from the verbs so a
verb reads as parse, call one stage, print."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import click

from nomos.render import terminal_snippet
from nomos.safe_text import escape_controls


def _emphasis(text: str) -> str:
    """How a highlighted term looks in the terminal."""
    return click.style(text, bold=True, fg="yellow")


def print_index_report(report: Any) -> None:  # stages.indexing's report
    click.echo(f"{report.alias} -> {report.index}: {report.documents} documents "
               f"({'created' if report.created else 'resumed'}, {report.seconds:.1f}s)")
    b = getattr(report, "bridge", None)
    if b:
        click.echo(f"bridge: {b['with_anchors']} articles with anchor text ({b['anchor_texts']} citing clauses and "
                   f"titles), {b['with_headings']} under a part, chapter or section heading")
    for v in report.vectors:
        done = (f"{v.stats.encoded} encoded, {v.stats.from_cache} from cache, {v.stats.cut} cut to the model's window"
                if v.stats else "already complete")
        click.echo(f"{v.field} ({v.encoder['spec']}, dim {v.encoder['dim']}): {v.filled} articles filled; {done}")
    if report.previous:
        click.echo(f"alias moved from {', '.join(report.previous)}")
    if report.deleted:
        click.echo(f"deleted old versions: {', '.join(report.deleted)}")


# why an article stands where it does without a score of the method's (``details["direct"]``, nomos.pages.named)
PLACED = {"citation": "named: a citation", "id": "named: its id", "title": "named: its title", "cited": "cited by the case"}
_WHY = ("bm25_rank", "knn_rank", "fused_rank", "anchors_rank", "lemmas_rank", "part", "direct", "amended_by")


def print_hits(hits: Sequence[Any], *, explain: bool = False, score_kind: str = "bm25",
               standing: Mapping[str, Any] | None = None) -> None:
    """Ranked hits: id, score, title, law, then each highlighted snippet on its own line; with ``explain``, why each
    ranked (each clause's rank, the part of a fused list it came from, a named article). A fused list whose scores
    are an order only (``score_kind`` "rank" or "learned", :data:`~nomos.retrieval.base.ORDER_ONLY`) shows none: 100.000, 99.000… read as relevance scores; stderr says what
    the scores are. ``standing``: article id -> its :class:`~nomos.pages.standing.Standing` (a line under
    each amended or repealed article)."""
    from nomos.retrieval.base import ORDER_ONLY, SCORE_KINDS

    if not hits:
        click.echo("no articles matched (the query may hold only stop words or punctuation)")
        return
    click.echo(f"scores: {SCORE_KINDS.get(score_kind, score_kind)}" + (" (not shown)" if score_kind in ORDER_ONLY else "")
               + ("; an article the query names or cites is placed, shown without a score"
                  if any((h.details or {}).get("direct") for h in hits) else "") + _amended_first(hits), err=True)
    for i, h in enumerate(hits, start=1):
        placed = (h.details or {}).get("direct")  # named or cited by the query: placed, its score is not the method's
        score = f"  [{PLACED.get(placed, placed)}]" if placed else "" if score_kind in ORDER_ONLY else f"  {h.score:.3f}"
        title, law = escape_controls(h.title), escape_controls(h.law)  # the corpus's text, never raw to a terminal
        click.echo(f"{i:>3}. {click.style(escape_controls(h.doc_id), bold=True)}{score}  {title}  [{law}]")
        said = standing[h.doc_id].describe() if standing and h.doc_id in standing else ""
        if said:
            click.echo(f"       {click.style(said, fg='red' if standing[h.doc_id].repealed else None)}")  # type: ignore[index]
        if explain:
            why = ", ".join(f"{k.replace('_', ' ')} {h.details[k]}" for k in _WHY if h.details.get(k) is not None)
            click.echo(f"       why: {why or 'its own score'}")
        for snippet in h.highlights:
            click.echo(f"       … {terminal_snippet(snippet, emphasize=_emphasis)} …")


def _amended_first(hits: Sequence[Any]) -> str:
    """The legend's word on precede's order (issue 49), where it moved a hit: on a page ordered by the page floor
    each hit keeps the method's score, so the scores need not descend; the amendment stage's own ranking (eval's,
    knn's page) scores by the new positions (it keeps the method's score as ``first_score``)."""
    moved = [h.details for h in hits if (h.details or {}).get("amended_by")]
    if not moved:
        return ""
    kept = not any("first_score" in d for d in moved)
    return ("; amended first: an article an amending article restates is placed right before it"
            + (", keeping its own score (the scores need not descend)" if kept else ""))


def print_reading(reading: dict[str, Any]) -> None:
    """How a query was read (``search --explain``): one line for the case, one per clause that reads it."""
    click.echo(f"\nhow the query was read ({reading.get('method')}): {reading.get('words')} words, question found by "
               f"{reading.get('question_found')}" + (f": «{reading['question']}»" if reading.get("question") else ""))
    bm25, knn = reading.get("bm25"), reading.get("knn")
    if bm25 is not None:
        boost = bm25.get("question_boost")
        click.echo("  bm25: the whole text" + (f", and the question as a clause of its own (boost {boost:g})" if boost else "")
                   + (f"; compacted to {bm25['distinct_terms']} distinct terms" if bm25.get("compact") else ""))
    if knn is not None:
        weight = knn.get("question_weight")
        read = (f"{knn['windows']} of the text's {knn['windows_of']} windows of the model, spread over it (a long case)"
                if knn.get("windows_of") else f"the whole text in {knn['windows']} window(s) of the model")
        click.echo(f"  knn: {read}, averaged"
                   + (f", mixed with the question embedded on its own (weight {weight:g})" if weight else ""))


def print_evaluation(outcome: Any, diagnosis: str | None, total_s: float | None = None) -> None:  # an EvalOutcome
    """One run's metrics table, then (when the method has them) ReAct rounds, LLM cost and the fusion diagnosis,
    then the times: the query phase (what the manifest records, and what the progress line counted) and, given
    ``total_s``, the rest of the run (loading, scoring, writing), named as such."""
    from nomos.eval.results import format_table

    ev = outcome.evaluation
    extra = outcome.extra or {}
    click.echo(format_table({outcome.run_name: ev.mean}, ev.metrics))
    if extra.get("rounds"):
        click.echo("\nafter round (the final ranking's snapshots; pool = every candidate seen so far):")
        rows = {f"round {r}": {**row["metrics"], "pool_recall": row.get("pool_recall", 0.0)} for r, row in extra["rounds"].items()}
        metrics = tuple(next(iter(extra["rounds"].values()))["metrics"])
        click.echo(format_table(rows, (*metrics, "pool_recall")))
    if extra.get("cost"):
        c = extra["cost"]
        m = c["mean_per_query"]
        click.echo(f"\nLLM cost per query: {m['calls']:.1f} calls, {m['input_tokens']:.0f} input + {m['output_tokens']:.0f} output tokens, "
                   f"{m['llm_seconds']:.2f}s LLM time, {m['seconds']:.2f}s wall; run wall {c['wall_seconds']:.1f}s, "
                   f"{c.get('paid_calls_this_run', 0)} paid calls this run, {m['cached_calls'] * c['queries']:.0f} from cache, "
                   f"{c.get('resumed_queries', 0)} queries resumed")
    issues = (extra.get("cost") or {}).get("llm_issues")
    if issues:
        click.echo(llm_issue_line(issues))
    if diagnosis:
        click.echo("\n" + diagnosis)
    n = len(ev.queries)
    line = f"{n} queries searched in {outcome.seconds:.2f} s ({1000 * outcome.seconds / n:.1f} ms a query: the query phase)"
    if total_s is not None:
        from nomos.stages.search_types import duration_text

        line += f"; the whole run took {duration_text(total_s)} (loading, searching, scoring, writing)"
    click.echo(line)
    click.echo(f"results: {outcome.paths['manifest'].parent}")


def llm_issue_line(issues: Mapping[str, Any]) -> str:
    """The end-of-run line of LLM issue counts ("none" when clean), then a warning line per kind above the
    threshold."""
    counts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in issues["counts"].items() if v) or "none"
    lines = [f"LLM issues in {issues['calls']} calls: {counts}"]
    lines += [click.style(f"warning: {w} (above {100 * issues['threshold']:g}%; eval --strict fails)", fg="yellow")
              for w in issues.get("warnings", [])]
    return "\n".join(lines)


def print_repeated(summary: Mapping[str, Any], outcomes: Sequence[Any]) -> None:
    """Each repetition's means, then mean/std/min/max per metric."""
    from nomos.eval.results import format_table

    click.echo(format_table({o.run_name: o.evaluation.mean for o in outcomes}, outcomes[0].evaluation.metrics))
    click.echo("")
    rows = {stat: {m: summary["metrics"][m][stat] for m in summary["metrics"]} for stat in ("mean", "std", "min", "max")}
    click.echo(format_table(rows, tuple(summary["metrics"])))
    click.echo(f"{summary['repeat']} repetitions (seeds {summary['seeds']}); std is the sample standard deviation (ddof=1)")
    click.echo(f"summary: {summary['path']}")


def print_tune(out: Mapping[str, Any], metric: str, folds: int, seed: int) -> None:
    """The cross-validated BM25 choice per fold, beside the oracle and the defaults."""
    click.echo(f"{metric}, {out['queries']} queries, {folds}-fold cross-validation (seed {seed}), {len(out['grid'])} settings")
    click.echo(f"{'fold':<6}{'k1':>6}{'b':>7}{'train':>10}{'held-out':>10}")
    for f in out["cross_validated"]["folds"]:
        click.echo(f"{f['fold']:<6}{f['k1']:>6}{f['b']:>7}{f['train']:>10.4f}{f['test']:>10.4f}")
    cv, o, d = out["cross_validated"], out["oracle"], out["default"]
    click.echo(f"cross-validated {metric}: {cv['score']:.4f} (fold std {cv['fold_std']:.4f})")
    click.echo(f"oracle (best on all queries): k1={o['k1']} b={o['b']} {metric} {o['score']:.4f}")
    if d:
        click.echo(f"default: k1={d['k1']} b={d['b']} {metric} {d['score']:.4f}")
    click.echo("note: " + out["note"])
    click.echo(f"written: {out['path']}")


def print_llm_status(st: Any) -> None:  # localllm's status
    if not st.running:
        click.echo(f"local LLM server: not running (port {st.base_url.rsplit(':', 1)[1].split('/')[0]})")
        return
    state = "answering" if st.healthy else "not answering yet (loading?)"
    click.echo(f"local LLM server: pid {st.pid}, {state}\n  endpoint {st.base_url}\n  model    {st.model or '?'}\n"
               f"  gguf     {st.gguf}\n  log      {st.log_file}")
