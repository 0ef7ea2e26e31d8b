"""The text in force of every corpus article that corpus articles amend, read once over the whole corpus.

Which articles amend which is the legal graph's (the amendment-kind edges of :class:`~nomos.ingest.graph.CorpusReading`,
resolved to corpus articles); what they do to it is the consolidation engine's (:mod:`nomos.legal.consolidation`),
which reads each amending article's instructions once however many articles it amends. Ingest stores the result
beside the original text (``in_force``, ``in_force_text``; the original ``text`` stays what it is), ``graph
export`` writes it, and the benchmark counts it (bench/in_force.py): all three through :func:`corpus_in_force`, so
they agree.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from nomos.ingest.records import Article
from nomos.legal.amendment_reading import Instruction, read_instructions
from nomos.legal.consolidation import AMENDMENT_KINDS, CONSOLIDATION_VERSION, Amending, Consolidation, consolidate

if TYPE_CHECKING:  # the reading imports this module when first asked for the text in force
    from nomos.ingest.graph import CorpusReading


def amended_by(articles: Iterable[Article], reading: CorpusReading) -> dict[str, list[str]]:
    """Corpus article id -> the corpus articles whose amendment-kind edges resolve to it (not itself), in corpus
    order."""
    out: dict[str, list[str]] = defaultdict(list)
    for a in articles:
        for r in reading.references(a):
            if r.target and r.target != a.id and r.kind in AMENDMENT_KINDS and a.id not in out[r.target]:
                out[r.target].append(a.id)
    return dict(out)


def corpus_in_force(articles: Sequence[Article], reading: CorpusReading) -> dict[str, Consolidation]:
    """Article id -> its consolidation, for every corpus article some other corpus article amends. An article whose
    amendment edges only say that new articles go after it («Μετά το άρθρο 42 ΠΚ προστίθεται άρθρο 43») has no
    consolidation: nothing amends its text, and it is stored as one nothing amends."""
    by_id = {a.id: a for a in articles}
    amending = amended_by(articles, reading)
    read: dict[str, list[Instruction]] = {}
    out: dict[str, Consolidation] = {}
    for target in sorted(amending):
        article = by_id[target]
        sources = []
        for source_id in amending[target]:
            source = by_id[source_id]
            if source_id not in read:
                read[source_id] = read_instructions(source.text)
            refs = [r.as_dict() for r in reading.references(source)]
            sources.append(Amending(source_id, source.text, refs, source.source, source.law))
        result = consolidate(target, article.title, article.text, sources, article.source, article.law, read)
        if result.in_force.amendments:
            out[target] = result
    return out


def in_force_fields(result: Consolidation | None) -> dict[str, Any]:
    """The article document's fields for its text in force: ``in_force`` (the stored object, not indexed),
    ``in_force_text`` (the searchable text, analysed like ``text``) and ``in_force_version``; none for an article
    nothing amends."""
    if result is None:
        return {}
    return {"in_force": result.in_force.to_doc(), "in_force_text": result.in_force.text,
            "in_force_version": CONSOLIDATION_VERSION}


def in_force_key(result: Consolidation | None) -> str:
    """What the article's content hash takes from its text in force: "" where there is none (so the hash of an
    article nothing amends is what it always was), else a digest of the stored fields (an amending article's
    changed text, or the engine's new version, re-sends the amended one)."""
    if result is None:
        return ""
    doc = json.dumps(in_force_fields(result), ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(doc.encode("utf-8")).hexdigest()


def export_rows(results: Mapping[str, Consolidation]) -> list[dict[str, Any]]:
    """One JSON object per consolidated article, in id order: its id and its ``in_force`` as stored."""
    return [{"id": article_id, "in_force_version": CONSOLIDATION_VERSION, **results[article_id].in_force.to_doc()}
            for article_id in sorted(results)]
