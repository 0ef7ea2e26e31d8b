"""The graph export stage: the legal graph's edges written as TSV (one edge a line, for scripts and spreadsheets)
or GraphML (what Gephi, Cytoscape, yEd and networkx read).

It reads the corpus files, not the index: the edges the index stores are what the extractor computes from the
same text (``references_version`` says which extractor), so the files give the same graph without a node, on a
machine that never indexed, and the export of a corpus is reproducible byte for byte.

TSV columns: ``source``, ``target`` (the corpus id, empty when the cited article is not in the corpus), ``kind``
(cites, amends, replaces, inserts, repeals), ``paragraph`` (empty when not stated), ``cited`` (the id as read).
GraphML: a directed multigraph (an article may cite and amend the same target) written by networkx; one node per
corpus article (``title``, ``source``, ``in_corpus`` true) and one per cited article outside the corpus (named by
its cited id, ``in_corpus`` false); each edge carries ``kind``, ``paragraph`` and ``cited``.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from nomos.errors import ConfigError
from nomos.eval.runs import atomic_write_text
from nomos.ingest.graph import corpus_references, count_kinds
from nomos.ingest.records import Dataset
from nomos.mappings.references import REFERENCES_VERSION, Reference

FORMATS = ("tsv", "graphml")
TSV_COLUMNS = ("source", "target", "kind", "paragraph", "cited")


@dataclass(frozen=True)
class GraphExport:
    """What ``graph export`` wrote: the file, its format, how many articles and edges, edges per kind."""

    path: Path
    format: str
    articles: int
    edges: int
    kinds: dict[str, dict[str, int]]
    version: str = REFERENCES_VERSION


def _cell(value: str | None) -> str:
    # ids and paragraphs never hold tabs or newlines; a stray one would split a row, so it is flattened
    return (value or "").replace("\t", " ").replace("\n", " ")


def tsv_text(references: list[Reference]) -> str:
    """The edges as TSV with a header row, in corpus order, then reading order."""
    lines = ["\t".join(TSV_COLUMNS)]
    lines += ["\t".join(_cell(v) for v in (r.source, r.target, r.kind, r.paragraph, r.cited)) for r in references]
    return "\n".join(lines) + "\n"


def graphml_text(dataset: Dataset, references: list[Reference]) -> str:
    """The graph as GraphML (networkx's writer: a well-kept one, so graph tools read what it writes)."""
    import networkx as nx

    graph = nx.MultiDiGraph(name=dataset.name, references_version=REFERENCES_VERSION)
    for a in dataset.articles:
        graph.add_node(a.id, title=a.title, source=a.source, in_corpus=True)
    for r in references:
        target = r.target or r.cited
        if target not in graph:
            graph.add_node(target, title="", source=target.split("::", 1)[0], in_corpus=False)
        graph.add_edge(r.source, target, kind=r.kind, paragraph=r.paragraph or "", cited=r.cited)
    out = io.BytesIO()
    nx.write_graphml(graph, out, encoding="utf-8", prettyprint=True)
    return out.getvalue().decode("utf-8")


def export_graph(dataset: Dataset, out: Path, fmt: str = "tsv") -> GraphExport:
    """Extract every article's references and write them to ``out`` in ``fmt`` (atomically: a killed export
    leaves the previous file, never half of one)."""
    if fmt not in FORMATS:
        raise ConfigError(f"--format {fmt!r} is not one of {', '.join(FORMATS)}")
    references = list(corpus_references(dataset.articles))
    text = tsv_text(references) if fmt == "tsv" else graphml_text(dataset, references)
    atomic_write_text(out, text)
    return GraphExport(out, fmt, len(dataset.articles), len(references), count_kinds(references))
