"""``search``: one query ranked and decorated (the shared search path), or a topics file to a TREC run."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import click

from nomos.cli.main import cli
from nomos.cli.options import (
    analysis_options,
    emit_json,
    json_option,
    k_option,
    llm_options,
    llm_settings,
    method_option,
    method_options,
    method_options_from,
)
from nomos.cli.output import print_hits, print_reading
from nomos.safe_text import escape_controls
from nomos.settings import Settings

log = logging.getLogger("nomos.search")


@cli.command("search")
@click.argument("words", nargs=-1)
@k_option(10)
@method_option
@analysis_options
@method_options
@llm_options
@click.option("--topics", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Batch search: a topics file (JSON lines with _id and text, or TSV id<TAB>text) instead of QUERY; "
                   "needs --output.")
@click.option("--output", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="With --topics: the TREC run file to write (qid Q0 docid rank score tag), as eval's run.trec.")
@click.option("--run-tag", default=None, help="With --topics: the run's tag column (default: the method, as eval names runs).")
@click.option("--explain", is_flag=True, help="Also say how the query was read (the question found, BM25's question "
              "clause, kNN's windows) and why each article ranked (each clause's rank).")
@click.option("--after", "after_law", default=None, metavar="LAW",
              help="Also give each amended hit's wording as it stood after this law («ν. 4855/2021», 4855/2021, "
                   "N_4855_2021): the version of that date, and the laws that changed it since. The ranking reads "
                   "the original wording and today's, as always.")
@click.option("--before", "before_law", default=None, metavar="LAW",
              help="The same, on the eve of this law (facts that happened before ν. 4855/2021: --before 4855/2021).")
@json_option
@click.pass_obj
def search_cmd(settings: Settings, words: tuple[str, ...], k: int, method: str | None, topics: Path | None, output: Path | None,
               run_tag: str | None, as_json: bool, explain: bool, after_law: str | None, before_law: str | None,
               **kw: Any) -> None:
    """Top-k articles for a case description (WORDS: the query): id, title, score and highlighted snippets. With --topics, every
    query of a file to a TREC run (Pyserini style; no judgments needed, score it with eval-style tools or compare).
    Unquoted words are one query, as typed (`search μου έκλεψαν το πορτοφόλι`)."""
    query = " ".join(words) if words else None
    settings = llm_settings(settings, kw)
    options = method_options_from(kw)
    if (query is None) == (topics is None):
        raise click.UsageError("give a QUERY or --topics FILE (one of them)")
    if topics is not None and output is None:
        raise click.UsageError("--topics needs --output FILE (the TREC run to write)")
    if topics is None and (output is not None or run_tag is not None):
        raise click.UsageError("--output and --run-tag go with --topics")
    if after_law is not None and before_law is not None:
        raise click.UsageError("give --after or --before, not both")
    if topics is not None and (after_law or before_law):
        raise click.UsageError("--after and --before go with a QUERY, not --topics")
    if topics is not None:
        if method is None:
            from nomos.stages.searching import default_method

            method = default_method(settings)
            log.info("method %s: the best this index serves", method)
        assert output is not None  # --topics without --output is refused above
        _batch(settings, topics, output, method, k, options, run_tag)
        return
    page = run_query(settings, query, method, k, options)  # type: ignore[arg-type]
    if page.hybrid_ready is not None:
        from nomos.stages.search_types import time_left

        left = time_left(page.hybrid_eta_s)
        click.echo(f"hybrid: {page.hybrid_ready}% ready{', ' + left if left else ''} (vectors are being computed); "
                   f"{page.method} until then", err=True)
    elif page.defaulted:
        log.info("method %s: the best this index serves", page.method)
    for label in page.missing:
        click.echo(f"the index holds no {label.replace('άρθρο', 'article', 1)}: the results below are the method's", err=True)
    reading = explain_query(settings, query, page.method, options) if explain else None  # type: ignore[arg-type]
    law = after_law or before_law
    then = _wording_then(settings, page.hits, law, before_law is not None) if law else None
    if as_json:
        from nomos.render import search_document

        document = search_document(query, page.method, k, settings.index_alias, page.hits,  # type: ignore[arg-type]
                                   page.score_kind, {d: s.as_dict() for d, s in page.standing.items()})
        if then is not None:
            document = {**document, "as_of": {"law": law, "before": before_law is not None, "hits": then}}
        emit_json({**document, "reading": reading} if reading is not None else document)
        return
    print_hits(page.hits, explain=explain, score_kind=page.score_kind, standing=page.standing)
    if page.repealed:
        click.echo(f"{page.repealed} repealed article{'s' if page.repealed > 1 else ''} listed after those in force",
                   err=True)
    if then is not None:
        _print_then(page.hits, then, f"{'before' if before_law else 'after'} {law}")
    if reading is not None:
        print_reading(reading)


def _wording_then(settings: Settings, hits: Any, law: str, before: bool) -> dict[str, dict[str, Any]]:
    """Each amended hit's wording after (before) ``law`` (nomos.stages.versions.wording_as_of), as JSON."""
    from nomos.stages.versions import wording_as_of

    found = wording_as_of(settings, [h.doc_id for h in hits], law, before)
    return {i: {"version": a.law, "label": a.label, "today": a.today, "changed_since_by": list(a.later),
                "text": a.text} for i, a in found.items()}


def _print_then(hits: Any, then: dict[str, dict[str, Any]], when: str) -> None:
    click.echo(f"\nthe amended hits' wording {when} (the others read the same at every date the corpus knows):")
    for n, h in enumerate(hits, start=1):
        a = then.get(h.doc_id)
        if a is None:
            continue
        if a["today"]:
            click.echo(f"{n:>3}. {h.doc_id}: {a['label']}, today's text in force")
            continue
        text = " ".join(a["text"].split())
        click.echo(f"{n:>3}. {h.doc_id}: {a['label']} (changed since by {', '.join(a['changed_since_by'])}): "
                   f"{escape_controls(text[:400])}{'…' if len(text) > 400 else ''}")


def explain_query(settings: Settings, query: str, method: str, options: Any) -> dict[str, Any]:
    """How ``method`` read ``query`` (the search stage's own retriever, so the answer is the ranking's)."""
    from nomos.stages.searching import SearchStage

    return SearchStage(settings).reading(query, method, options)


def run_query(settings: Settings, query: str, method: str | None, k: int, options: Any) -> Any:
    """The one call into the search stage, the path the portal's pages take (``method`` None: the index's best)."""
    from nomos.stages.searching import SearchRequest, search_page

    return search_page(settings, SearchRequest(query, method, k, options=options, facets=False))


def _batch(settings: Settings, topics: Path, output: Path, method: str, k: int, options: Any, tag: str | None) -> None:
    from nomos.cli.progress import progress
    from nomos.errors import ConfigError
    from nomos.ingest.topics import read_topics
    from nomos.stages.evaluation import search_topics

    if tag is not None and (not tag or any(c.isspace() for c in tag)):
        raise ConfigError(f"--run-tag must be one word, got {tag!r}")
    queries = read_topics(topics)
    with progress(len(queries), f"search {method}", "queries", settings.progress_seconds) as bar:
        path, lines = search_topics(settings, queries, output, method=method, k=k, options=options, tag=tag,
                                    on_progress=bar.update)
    click.echo(f"{len(queries)} queries, {lines} lines -> {path}")
