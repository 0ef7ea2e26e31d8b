"""The graph export stage: the legal graph's edges written as TSV (one edge a line, for scripts and spreadsheets)
or GraphML (what Gephi, Cytoscape, yEd and networkx read).

It reads the corpus files, not the index: the edges the index stores are what the extractor computes from the
same text (``references_version`` says which extractor), so the files give the same graph without a node, on a
machine that never indexed, and the export of a corpus is reproducible byte for byte.

TSV columns: ``source``, ``target`` (always filled: the corpus id, else the id as read), ``in_corpus`` (``true``
when the corpus holds the target), ``kind`` (cites, amends, replaces, inserts, repeals), ``paragraph`` (empty when
not stated), ``cited`` (the id as read) and ``count`` (how many times the source's text makes that reference: one
row per distinct edge, so graph tools see no duplicate rows).
GraphML: a directed multigraph (an article may cite and amend the same target) written by networkx; one node per
corpus article (``title``, ``source``, ``in_corpus`` true; where corpus articles amend it, ``in_force_status``
full/partial/none and ``in_force_text``, its text in force) and one per cited article outside the corpus (named by
its cited id, ``in_corpus`` false); one edge per distinct (source, target, kind, paragraph), carrying ``kind``,
``paragraph``, ``cited`` and ``count``.

The text in force (:mod:`nomos.ingest.in_force`, what ingest stores as ``in_force``) goes whole, with its
passages' provenance and the instructions applied and not, to the JSON-lines file ``--in-force`` names: one object
per amended article, ``id`` then the stored fields, in id order.

The graph's measured quality reads the corpus files the same way: :func:`quality_corpus` gives the scoring of
``nomos.eval.graph_quality`` (bench/graph_quality.py, tests/test_graph_quality.py) a corpus's texts and edges.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from nomos.errors import ConfigError
from nomos.eval.graph_quality import Corpus
from nomos.eval.runs import atomic_write_text
from nomos.ingest.beir import load_beir
from nomos.ingest.graph import CorpusReading, corpus_references, count_kinds
from nomos.ingest.in_force import corpus_in_force, export_rows
from nomos.ingest.records import Dataset
from nomos.legal.graph.edges import REFERENCES_VERSION, Reference
from nomos.legal.inforce.engine import Consolidation
from nomos.legal.inforce.result import STATUSES

FORMATS = ("tsv", "graphml")
TSV_COLUMNS = ("source", "target", "in_corpus", "kind", "paragraph", "cited", "count")


@dataclass(frozen=True)
class GraphExport:
    """What ``graph export`` wrote: the file, its format, how many articles, distinct edges and references read
    (an edge a text makes twice counts once in ``edges``, twice in ``mentions``), edges per kind."""

    path: Path
    format: str
    articles: int
    edges: int
    kinds: dict[str, dict[str, int]]
    version: str = REFERENCES_VERSION
    mentions: int = 0
    in_force: dict[str, int] | None = None  # amended articles per status (full, partial, none)
    in_force_path: Path | None = None


@dataclass(frozen=True)
class Edge:
    """One distinct edge of the export: ``target`` the corpus id, else the id as read (``in_corpus`` says which)."""

    source: str
    target: str
    in_corpus: bool
    kind: str
    paragraph: str
    cited: str
    count: int


def distinct_edges(references: list[Reference]) -> list[Edge]:
    """The references as distinct edges, in the order first read, each with how many times its text makes it."""
    counts: Counter[tuple[str, str, bool, str, str, str]] = Counter()
    for r in references:
        counts[(r.source, r.target or r.cited, bool(r.target), r.kind, r.paragraph or "", r.cited)] += 1
    return [Edge(*key, count=n) for key, n in counts.items()]  # a Counter keeps the order keys were first seen


def _cell(value: str | None) -> str:
    # ids and paragraphs never hold tabs or newlines; a stray one would split a row, so it is flattened
    return (value or "").replace("\t", " ").replace("\n", " ")


def tsv_text(edges: list[Edge]) -> str:
    """The edges as TSV with a header row, in corpus order, then reading order."""
    lines = ["\t".join(TSV_COLUMNS)]
    lines += ["\t".join(_cell(v) for v in (e.source, e.target, "true" if e.in_corpus else "false", e.kind, e.paragraph,
                                           e.cited, str(e.count))) for e in edges]
    return "\n".join(lines) + "\n"


def graphml_text(dataset: Dataset, edges: list[Edge], in_force: Mapping[str, Consolidation] | None = None) -> str:
    """The graph as GraphML (networkx's writer: a well-kept one, so graph tools read what it writes)."""
    import networkx as nx

    graph = nx.MultiDiGraph(name=dataset.name, references_version=REFERENCES_VERSION)
    for a in dataset.articles:
        extra = {}
        if in_force and a.id in in_force:
            extra = {"in_force_status": in_force[a.id].in_force.status, "in_force_text": in_force[a.id].in_force.text}
        graph.add_node(a.id, title=a.title, source=a.source, in_corpus=True, **extra)
    for e in edges:
        if e.target not in graph:
            graph.add_node(e.target, title="", source=e.target.split("::", 1)[0], in_corpus=False)
        graph.add_edge(e.source, e.target, kind=e.kind, paragraph=e.paragraph, cited=e.cited, count=e.count)
    out = io.BytesIO()
    nx.write_graphml(graph, out, encoding="utf-8", prettyprint=True)
    return out.getvalue().decode("utf-8")


def export_graph(dataset: Dataset, out: Path, fmt: str = "tsv", in_force_out: Path | None = None) -> GraphExport:
    """Extract every article's references and write them to ``out`` in ``fmt`` (atomically: a killed export
    leaves the previous file, never half of one); with ``in_force_out``, every amended article's text in force
    as JSON lines there. The text in force is computed for GraphML and ``in_force_out`` only (TSV alone does not
    need it)."""
    if fmt not in FORMATS:
        raise ConfigError(f"--format {fmt!r} is not one of {', '.join(FORMATS)}")
    reading = CorpusReading.of(dataset.articles)
    references = list(corpus_references(dataset.articles, reading))
    edges = distinct_edges(references)
    results = corpus_in_force(dataset.articles, reading) if fmt == "graphml" or in_force_out else None
    text = tsv_text(edges) if fmt == "tsv" else graphml_text(dataset, edges, results)
    atomic_write_text(out, text)
    statuses = None
    if results is not None:
        statuses = {k: sum(1 for r in results.values() if r.in_force.status == k) for k in STATUSES}
    if in_force_out is not None and results is not None:
        rows = export_rows(results)
        atomic_write_text(in_force_out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return GraphExport(out, fmt, len(dataset.articles), len(edges), count_kinds(references), mentions=len(references),
                       in_force=statuses, in_force_path=in_force_out)


def quality_corpus(data: Path, corpus_file: str = "corpus.jsonl") -> Corpus:
    """A BEIR folder's corpus as the graph's quality measures read it (:mod:`nomos.eval.graph_quality`): its texts,
    and each article's references as ingest reads them (one :class:`~nomos.ingest.graph.CorpusReading` of the whole
    corpus), read when first asked for."""
    articles = load_beir(data, corpus_file=corpus_file).articles
    by_id = {a.id: a for a in articles}
    reading = CorpusReading.of(articles)
    return Corpus({i: a.text for i, a in by_id.items()}, lambda article_id: reading.references(by_id[article_id]))
