"""What the CLI shows, without the CLI: highlight fragments for a terminal, and the ``--json`` documents.

OpenSearch returns highlight fragments as HTML with ``<mark>`` around the matched terms. A terminal wants the
marked terms emphasised (bold, colour) and the entities decoded; a JSON consumer wants plain text. Both are pure
functions of the fragment here, so they are tested without click or a terminal; ``cli.py`` only supplies the
emphasis (``click.style``) and prints.
"""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from nomos.retrieval.base import Hit
from nomos.safe_text import escape_controls

_MARK = re.compile(r"(<mark>.*?</mark>)", re.DOTALL)


def snippet_segments(fragment: str) -> list[tuple[str, bool]]:
    """A highlight fragment as (text, marked) pieces in order, entities decoded; empty pieces dropped."""
    out = []
    for part in _MARK.split(fragment):
        if part.startswith("<mark>") and part.endswith("</mark>"):
            out.append((html_lib.unescape(part[6:-7]), True))
        elif part:
            out.append((html_lib.unescape(part), False))
    return out


def terminal_snippet(fragment: str, emphasize: Callable[[str], str] = lambda text: text) -> str:
    """The fragment on one line: marked terms through ``emphasize`` (the CLI's bold yellow), runs of whitespace
    (the article's line breaks) collapsed to one space, and any other control or bidi character of the article
    shown as its escape (an article's escape sequence set the terminal's title: ``nomos.safe_text``)."""
    pieces = ((escape_controls(text, keep=" \n\t\r\x0b\x0c"), marked) for text, marked in snippet_segments(fragment))
    joined = "".join(emphasize(text) if marked else text for text, marked in pieces)
    return " ".join(joined.split())


def plain_snippet(fragment: str) -> str:
    """The fragment as plain text on one line (what ``search --json`` reports)."""
    return terminal_snippet(fragment)


IN_FORCE_RECORD: dict[str, Any] = {"status": "in-force", "by": []}


def hit_record(rank: int, hit: Hit, standing: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One hit of ``search --json``: rank, id, title, law, source, score, where it stands in law (``standing``:
    its status and the amending articles, :meth:`nomos.pages.standing.Standing.as_dict`), plain snippets and
    the raw fragments."""
    return {
        "rank": rank,
        "id": hit.doc_id,
        "title": hit.title,
        "law": hit.law,
        "source": hit.source,
        "score": hit.score,
        # named or cited by the query (citation, id, title, cited): placed there, its score is not the method's
        "placed": (hit.details or {}).get("direct"),
        "standing": dict(standing) if standing is not None else IN_FORCE_RECORD,
        "snippets": [plain_snippet(h) for h in hit.highlights],
        "highlights": list(hit.highlights),  # OpenSearch's HTML, <mark> around the matched terms
    }


def search_document(query: str, method: str, k: int, index: str, hits: Sequence[Hit],
                    score_kind: str = "bm25", standing: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The whole ``search --json`` answer: what was asked, what the scores are and the ranked hits (``standing``:
    article id -> where it stands, as :func:`hit_record` takes it; a repealed article is listed after those in
    force, and ``repealed`` counts them)."""
    records = [hit_record(i, h, (standing or {}).get(h.doc_id)) for i, h in enumerate(hits, start=1)]
    return {"query": query, "method": method, "k": k, "index": index, "score_kind": score_kind,
            "repealed": sum(1 for r in records if r["standing"]["status"] == "repealed"), "hits": records}


def jsonable(value: Any) -> Any:  # any JSON-shaped value
    """Paths as strings and tuples as lists, recursively, so ``json.dumps`` takes the stages' results as they are."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def evaluation_document(outcome: Any, method: str, dataset: str, k: int, fusion_summary: str | None = None,
                        result_indices: Mapping[str, int] | None = None) -> dict[str, Any]:
    """The ``eval --json`` answer for one run: the mean metrics, the run's name and files, timing, and, when the
    method has them, LLM cost, ReAct rounds and the fusion diagnosis (``fusion_summary`` its one-paragraph reading).
    Per-query numbers stay in the run folder (metrics.json, details.json)."""
    ev = outcome.evaluation
    extra = outcome.extra or {}
    doc: dict[str, Any] = {
        "run": outcome.run_name,
        "method": method,
        "dataset": dataset,
        "k": k,
        "metrics": ev.mean,
        "queries": len(ev.queries),
        "seconds": outcome.seconds,
        "folder": outcome.paths["manifest"].parent,
        "paths": outcome.paths,
        "cost": extra.get("cost"),
        "rounds": extra.get("rounds"),
        "fusion_diagnosis": extra.get("fusion_diagnosis"),
        "fusion_summary": fusion_summary,
    }
    if result_indices is not None:
        doc["result_indices"] = result_indices
    return jsonable(doc)


def repeated_document(summary: Mapping[str, Any], outcomes: Iterable[Any]) -> dict[str, Any]:
    """The ``eval --repeat N --json`` answer: each repetition's run and means, and the mean/std/min/max summary."""
    runs = [{"run": o.run_name, "metrics": o.evaluation.mean, "folder": o.paths["manifest"].parent} for o in outcomes]
    return jsonable({"summary": summary, "runs": runs})
