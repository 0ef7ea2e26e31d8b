"""Anchor text: what the corpus's own articles say about an article when they cite it.

A lay query rarely shares words with the statute it needs («μου πήραν το πορτοφόλι» against PK::372's «κινητό
πράγμα … με σκοπό να το ιδιοποιηθεί παράνομα»), but the articles that cite PK::372 say in other words what it is
about («όποιος τελεί κλοπή … σε βάρος …», «οι πράξεις των άρθρων 372 και 375 …», the citing article's title). Web
search learned long ago that the words around a link describe its target better than the target describes itself;
the legal graph (:mod:`nomos.legal.graph.references`) gives those links here. For every article this module gathers:

* each citing sentence (the clause around the reference, at most :data:`CLAUSE_WORDS` words each side), with the
  citation itself and any quoted new wording («…») taken out, since the quote is the amended text itself (the text
  in force already carries it) and the citation's numbers say nothing of the topic;
* the citing article's title.

Left out on purpose: repeals («καταργούνται τα άρθρα …» says nothing of what was repealed), references read in long
runs (a span that names more than :data:`MAX_RUN` articles, «τα άρθρα 16 έως 29», describes none of them), and an
article citing itself. Anchors are deduplicated per target and capped at :data:`MAX_ANCHORS` (the citing articles in
id order), so a heavily cited article's field stays bounded.

Built once over the whole corpus at ingest (:func:`corpus_anchors`), from the same :class:`CorpusReading` as the
edges, so anchors change exactly when the graph or the corpus does; their digest is part of each article's content
hash (:func:`anchors_key`), which re-sends an article whose citing sentences changed.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from nomos.ingest.graph import CorpusReading
from nomos.ingest.records import Article
from nomos.legal.text.article_parts import quote_spans, sentences

CLAUSE_WORDS = 30  # words kept on each side of the citation inside its sentence
MAX_RUN = 3  # a span that resolves to more articles than this is a run («τα άρθρα 16 έως 29»): no anchor
MAX_ANCHORS = 40  # anchors kept per article (distinct texts, citing articles in id order)
SKIPPED_KINDS = frozenset({"repeals"})

_NUMBERISH = re.compile(r"(?<!\w)[\d./\-–]+(?!\w)")
_SPACES = re.compile(r"\s+")
MIN_CLAUSE_WORDS = 3  # a clause of fewer words («του», «της ΠΚ») says nothing of its target
# how citations are written («της παρ. 1 του άρθρου 372 ΠΚ», «του ν. 4624/2019»): no topic in them
_CITATION_WORDS = re.compile(
    r"(?<!\w)(?:παρ\.|παράγραφ\w*|άρθρ\w*|εδ\.|εδάφι\w*|υποπερ\.|περ\.|ν\.|π\.δ\.|ν\.δ\.|ΠΚ|ΚΠΔ|ΑΚ|ΚΠολΔ)(?!\w)")


@dataclass(frozen=True)
class Anchors:
    """An article's anchor texts (each: a citing clause, the citing article's title) and how many distinct
    articles cite it (its in-degree over the edges anchors are read from)."""

    texts: tuple[str, ...] = ()
    citing: int = 0

    def fields(self) -> dict[str, object]:
        """The document fields (``mappings/articles.json``): the texts as one analysed field, the counts as numbers
        the learned ranker reads (:mod:`nomos.retrieval.ltr`)."""
        return {"anchors": "\n".join(self.texts), "anchor_count": len(self.texts), "cited_by_count": self.citing}


NO_ANCHORS = Anchors()


def anchors_key(anchors: Anchors) -> str:
    """A digest of what the anchors index ("" for none: an article nobody cites keeps the hash it always had)."""
    if not anchors.texts and not anchors.citing:
        return ""
    h = hashlib.sha256(f"{anchors.citing}\x00".encode())
    for t in anchors.texts:
        h.update(t.encode("utf-8") + b"\x00")
    return h.hexdigest()[:16]


def _blanked(text: str, start: int, end: int, cut: Iterable[tuple[int, int]]) -> str:
    """``text[start:end]`` with every quoted span and every span of ``cut`` blanked (same length)."""
    chars = list(text[start:end])
    for a, b in [*quote_spans(text), *cut]:
        lo, hi = max(a, start), min(b, end)
        if lo < hi:
            chars[lo - start:hi - start] = " " * (hi - lo)
    return "".join(chars)


def _clean(words: Sequence[str]) -> str:
    text = _CITATION_WORDS.sub(" ", _NUMBERISH.sub(" ", " ".join(words)))
    return _SPACES.sub(" ", text).strip(" ,.;:·-–()")


def citing_clause(text: str, start: int, end: int, spans: Sequence[tuple[int, int]] | None = None,
                  cut: Iterable[tuple[int, int]] = ()) -> str:
    """The words around a reference at ``text[start:end]``: its sentence, cut to :data:`CLAUSE_WORDS` words on each
    side, without the citation (and the spans of ``cut``: the sentence's other citations), quoted wording, bare
    numbers and the words citations are written with. ``spans``: the text's sentence spans, when the caller has them
    (one article's references share them)."""
    spans = spans if spans is not None else sentences(text).spans
    s0, s1 = next(((a, b) for a, b in spans if a <= start < b), (0, len(text)))
    cut = [(start, end), *cut]
    before = _blanked(text, s0, start, cut).split()[-CLAUSE_WORDS:]
    after = _blanked(text, end, max(end, s1), cut).split()[:CLAUSE_WORDS]
    return _clean(before + after)


def _sentence_of(spans: Sequence[tuple[int, int]], pos: int) -> tuple[int, int]:
    return next(((a, b) for a, b in spans if a <= pos < b), (0, 0))


def corpus_anchors(articles: Sequence[Article], reading: CorpusReading) -> dict[str, Anchors]:
    """Every cited article's anchors, read over the whole corpus (articles nobody cites are absent)."""
    found: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))  # target -> citing id -> texts
    for a in articles:
        every = reading.references(a)
        refs = [r for r in every if r.target and r.target != a.id and r.kind not in SKIPPED_KINDS]
        if not refs:
            continue
        runs = Counter((r.start, r.end) for r in every if r.target)
        spans = sentences(a.text).spans
        in_sentence: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
        for r in every:
            in_sentence[_sentence_of(spans, r.start)].append((r.start, r.end))
        title = _clean(a.title.split())
        done: set[tuple[str, tuple[int, int]]] = set()  # (target, sentence): one clause per target and sentence
        for r in refs:
            sentence = _sentence_of(spans, r.start)
            if runs[(r.start, r.end)] > MAX_RUN or (r.target, sentence) in done:
                continue
            done.add((r.target, sentence))
            clause = citing_clause(a.text, r.start, r.end, spans, in_sentence[sentence])
            texts = found[r.target][a.id]
            if len(clause.split()) >= MIN_CLAUSE_WORDS:
                texts.add(clause)
            if title:
                texts.add(title)
    out: dict[str, Anchors] = {}
    for target, by_source in found.items():
        kept: list[str] = []
        for source in sorted(by_source):
            for t in sorted(by_source[source]):
                if t not in kept:
                    kept.append(t)
        out[target] = Anchors(tuple(kept[:MAX_ANCHORS]), len(by_source))
    return out


def anchor_counts(table: Mapping[str, Anchors], articles: Sequence[Article]) -> dict[str, int]:
    """What ``index`` prints: articles with anchors, anchor texts in all, and the articles of the corpus."""
    ids = {a.id for a in articles}
    with_anchors = [t for t in table if t in ids]
    return {"articles": len(ids), "with_anchors": len(with_anchors),
            "anchor_texts": sum(len(table[t].texts) for t in with_anchors)}
