"""``graph``: the legal graph (citations and amendments between articles) read from a corpus."""

from __future__ import annotations

from pathlib import Path

import click

from nomos.cli.main import cli
from nomos.cli.options import corpus_option, dataset_option, emit_json, json_option, load
from nomos.settings import Settings


@cli.group("graph")
def graph_group() -> None:
    """The legal graph: which articles cite, amend, replace, insert into or repeal which."""


@graph_group.command("export")
@dataset_option
@corpus_option
@click.option("--format", "fmt", type=click.Choice(["tsv", "graphml"]), default="tsv", show_default=True,
              help="tsv: source, target, kind, paragraph, cited per line; graphml: for Gephi, Cytoscape, networkx.")
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), required=True, help="File to write.")
@click.option("--in-force", "in_force", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Also write every amended article's text in force (JSON lines: id, status, passages with their "
                   "provenance, the instructions applied and those that could not be), as ingest stores it.")
@json_option
@click.pass_obj
def graph_export(settings: Settings, dataset: str, corpus_file: str, fmt: str, out: Path, in_force: Path | None,
                 as_json: bool) -> None:
    """Write every article's references, read from the corpus files (no node needed: the index stores the same
    edges, computed by the same extractor from the same text). GraphML nodes carry the text in force of the
    articles the corpus amends; --in-force writes it whole."""
    from nomos.stages.graph import export_graph

    r = export_graph(load(settings, dataset, corpus_file), out, fmt, in_force)
    doc = {"out": str(r.path), "format": r.format, "articles": r.articles, "edges": r.edges, "mentions": r.mentions,
           "kinds": r.kinds,
           "references_version": r.version}
    if r.in_force is not None:
        doc["in_force"] = {"statuses": r.in_force, "out": str(r.in_force_path) if r.in_force_path else None}
    if as_json:
        emit_json(doc)
        return
    kinds = ", ".join(f"{k} {n}" for k, n in r.kinds["resolved"].items())
    outside = sum(r.kinds["unresolved"].values())
    click.echo(f"{r.edges} distinct edges ({r.mentions} references) of {r.articles} articles -> {r.path} ({r.format}); in the corpus: {kinds}; "
               f"to articles outside it: {outside}")
    if r.in_force is not None:
        where = f" -> {r.in_force_path}" if r.in_force_path else ""
        click.echo(f"text in force of {sum(r.in_force.values())} amended articles{where}: "
                   + ", ".join(f"{k} {n}" for k, n in r.in_force.items()))
