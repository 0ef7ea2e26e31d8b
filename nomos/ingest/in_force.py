"""The text in force of every corpus article that corpus articles amend, read once over the whole corpus.

Which articles amend which is the legal graph's (the amendment-kind edges of :class:`~nomos.ingest.graph.CorpusReading`,
resolved to corpus articles); what they do to it is the consolidation engine's (:mod:`nomos.legal.inforce.engine`),
which reads each amending article's instructions once however many articles it amends. Ingest stores the result
beside the original text (``in_force``, ``in_force_text``; the original ``text`` stays what it is), ``graph
export`` writes it, and the benchmark counts it (bench/in_force.py): all three through :func:`corpus_in_force`, so
they agree.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections import ChainMap, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from nomos.ingest.graph import CorpusReading
from nomos.ingest.ratified import quoted_act, ratification, ratified_acts
from nomos.ingest.records import Article
from nomos.legal.inforce.acts import read_through, through_ratification
from nomos.legal.inforce.engine import (
    AMENDMENT_KINDS,
    CONSOLIDATION_VERSION,
    Amending,
    Consolidation,
    consolidate,
    law_key,
    order_key,
)
from nomos.legal.inforce.instructions import Instruction
from nomos.legal.inforce.reading import read_instructions
from nomos.legal.inforce.versions import effective_rule, is_commencement


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
    acts = ratified_acts(articles, reading)  # an act quoted whole in its ratification: its own instructions
    read: dict[str, list[Instruction]] = {}
    act_read: dict[str, list[Instruction]] = {}
    out: dict[str, Consolidation] = {}
    commencement = commencements(articles)
    for target in sorted(set(amending) | set(acts)):
        article = by_id[target]
        sources = list(acts.get(target, ()))
        for act in sources:
            if act.id not in act_read:
                act_read[act.id] = read_instructions(act.text)
        ratifying = {act.id for act in sources}
        for source_id in amending.get(target, ()):
            if source_id in ratifying:
                continue  # the ratifying article: its act is read above, its own words quote it
            source = by_id[source_id]
            if source_id not in read:
                read[source_id] = read_instructions(source.text)
            refs = [r.as_dict() for r in reading.references(source)]
            sources.append(Amending(source_id, source.text, refs, source.source, source.law))
        instructions = ChainMap(act_read, read) if ratifying else read
        result = consolidate(target, article.title, article.text, sources, article.source, article.law, instructions)
        if result.in_force.amendments:
            out[target] = with_effective(result, by_id, commencement)
    for target, result in through_ratifications(articles, by_id).items():
        if target not in out:  # an article the graph's edges amend keeps the engine's result
            out[target] = with_effective(result, by_id, commencement)
    return out


def through_ratifications(articles: Sequence[Article], by_id: Mapping[str, Article]) -> dict[str, Consolidation]:
    """Ratifying article id -> its consolidation after the later articles that amend the act it quotes through
    the ratification («… της από 13.8.2021 Πράξης Νομοθετικού Περιεχομένου, η οποία κυρώθηκε με το άρθρο 2 του ν.
    4824/2021, αντικαθίσταται ως εξής: …»: :mod:`nomos.legal.inforce.acts`). The graph resolves such a citation to
    no amendment of the ratifying article (it cites its law's article 2), so they are found here by their words."""
    found = [(a, read_through(a.text)) for a in articles if "κυρώθηκε" in a.text]
    through = sorted(((a, ins) for a, ins in found if ins), key=lambda x: order_key(x[0].id, x[0].source, x[0].law))
    out: dict[str, Consolidation] = {}
    for target in sorted({i.ratifying for _, ins in through for i in ins}):
        article = by_id.get(target)
        if article is None or quoted_act(article) is None:
            continue
        later = [(a.id, ins) for a, ins in through if law_key(a.id, a.source, a.law) > law_key(target)]
        made = through_ratification(target, article.title, article.text, later)
        if made is not None:
            out[target] = made
    return out


def commencements(articles: Iterable[Article]) -> dict[str, str]:
    """Law (corpus source) -> the text of its commencement article («Έναρξη ισχύος»), where the corpus holds one."""
    out: dict[str, str] = {}
    for a in articles:
        if is_commencement(a.title) and a.source not in out:
            out[a.source] = a.text
    return out


def with_effective(result: Consolidation, by_id: Mapping[str, Article], commencement: Mapping[str, str]) -> Consolidation:
    """``result`` with each version's ``effective``: what its law says of when its amending articles take effect
    (:func:`~nomos.legal.inforce.versions.effective_rule`), one rule where they share it."""
    versions = []
    for v in result.versions:
        rules = [ratification(by_id[a]) or effective_rule(a, by_id[a].text, commencement.get(by_id[a].source, ""))
                 for a in v.amending if a in by_id]
        versions.append(replace(v, effective="; ".join(dict.fromkeys(r for r in rules if r))))
    return replace(result, versions=tuple(versions))


@dataclass(frozen=True)
class CorpusInForce:
    """The text in force of a corpus's amended articles, as ingest stores it: computed over the whole corpus (with
    its :class:`~nomos.ingest.graph.CorpusReading`, whose edges say which articles amend which) the first time one
    is asked for, then kept. Ingest owns it rather than the reading, which the text in force itself reads through."""

    articles: tuple[Article, ...]
    reading: CorpusReading

    @classmethod
    def of(cls, articles: Sequence[Article], reading: CorpusReading | None = None) -> CorpusInForce:
        return cls(tuple(articles), reading or CorpusReading.of(articles))

    def digest(self, article: Article) -> str:
        """What the article's content hash takes from this table: its text in force's digest
        (:func:`in_force_key`) and the articles it restates ("" for an article with neither)."""
        restates = self.restates(article)
        return in_force_key(self.get(article)) + ("|restates:" + ",".join(restates) if restates else "")

    def restates(self, article: Article) -> list[str]:
        """The corpus articles ``article`` restates (:func:`restated`), in id order; [] for most."""
        return self._restates.get(article.id, []) if self._same(article) else []

    @functools.cached_property
    def _restates(self) -> Mapping[str, list[str]]:
        by_id = {a.id: a for a in self.articles}
        return restated(self._table, {i: a.text for i, a in by_id.items()})

    def get(self, article: Article) -> Consolidation | None:
        """The text in force of ``article`` when corpus articles amend it, else None."""
        result = self._table.get(article.id)
        # an article passed in with other words than the corpus's has no text in force of the corpus's
        return result if result is not None and self._same(article) else None

    @functools.cached_property
    def _table(self) -> Mapping[str, Consolidation]:
        return corpus_in_force(self.articles, self.reading)

    @functools.cached_property
    def _by_id(self) -> Mapping[str, list[Article]]:
        index: dict[str, list[Article]] = {}
        for a in self.articles:
            index.setdefault(a.id, []).append(a)
        return index

    def _same(self, article: Article) -> bool:
        return any(a is article or (a.id == article.id and a.text == article.text)
                   for a in self._by_id.get(article.id, ()))


RESTATES_SHARE = 0.5  # an amending article whose applied new wording of one article is this much of its text


def restated(results: Mapping[str, Consolidation], texts: Mapping[str, str]) -> dict[str, list[str]]:
    """Amending article id -> the articles it restates: those whose new wording (a whole article or paragraphs,
    applied) makes at least :data:`RESTATES_SHARE` of the amending article's text («Κλοπή - Τροποποίηση της παρ. 1
    του άρθρου 372 ΠΚ … και το άρθρο 372 διαμορφώνεται ως εξής: «…»»). Search's ``precede`` mode puts the
    restated article before it (:mod:`nomos.retrieval.amendments`); ingest stores it as ``restates``."""
    out: dict[str, list[str]] = defaultdict(list)
    for target in sorted(results):
        worded: dict[str, int] = defaultdict(int)
        for a in results[target].in_force.applied:
            if a.action in ("replace-article", "replace-paragraph", "insert-paragraph"):
                worded[a.source] += len(a.instruction)
        for source, length in worded.items():
            if texts.get(source) and length >= RESTATES_SHARE * len(texts[source]):
                out[source].append(target)
    return dict(out)


def in_force_fields(result: Consolidation | None) -> dict[str, Any]:
    """The article document's fields for its text in force: ``in_force`` (the stored object, not indexed),
    ``in_force_text`` (the searchable text, analysed like ``text``), ``in_force_version`` and
    ``in_force_versions`` (every version, the original first: :mod:`nomos.legal.inforce.versions`; stored, not
    indexed); none for an article nothing amends."""
    if result is None:
        return {}
    return {"in_force": result.in_force.to_doc(), "in_force_text": result.in_force.text,
            "in_force_version": CONSOLIDATION_VERSION,
            "in_force_versions": [v.to_doc() for v in result.versions]}


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
