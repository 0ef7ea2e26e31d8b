"""Edges an amendment names after its article: «… και η παρ. 4 διαμορφώνεται», «του ως άνω άρθρου», «μετά το
εσωτερικό άρθρο 45α», and the paragraphs the items of a list of changes name with no article. Each is added to the
references :func:`~nomos.legal.graph.references.extract_references` read, as an edge to the article they belong to.
"""

from __future__ import annotations

import dataclasses

from nomos.legal.graph.clauses import ItemParagraph, amendment_kind
from nomos.legal.graph.edges import Reference
from nomos.legal.graph.vocabulary import (
    ABOVE_ARTICLE,
    AMENDMENT_KINDS,
    FOLLOW_UP,
    FOLLOW_UP_REACH,
    OUTER_OF_INNER,
    PAR_BEFORE,
    VERB_THEN_PARAGRAPH,
    VERBS,
)
from nomos.legal.text.citations import Citation


def paragraph_before(folded: str, start: int) -> tuple[str, int] | None:
    """A paragraph written before the article word («η παρ. 1 του άρθρου 372»): (paragraph, where it starts)."""
    window_start = max(0, start - 80)
    m = PAR_BEFORE.search(folded[window_start:start])
    return (m.group("par"), window_start + m.start()) if m else None


def _last_before(out: list[Reference], text: str, at: int) -> Reference | None:
    """The reference that ends last before ``at`` in the same paragraph of text, close by, or None."""
    before = [r for r in out if r.end <= at and at - r.end <= FOLLOW_UP_REACH and "\n" not in text[r.end:at]]
    return max(before, key=lambda r: (r.end, r.start)) if before else None


def _anchor_of(out: list[Reference], text: str, at: int, par: str | None) -> Reference | None:
    """The article a paragraph named with no article of its own belongs to, where no reference before it amends
    that paragraph: the last reference before it that is amended (v15: a reference merely cited between does not
    take it: «Στο άρθρο 21 του π.δ. 15/2022 … γ) η παρ. 7 τροποποιείται … σε περίπτωση παράβασης της παρ. 1 του
    άρθρου 8, … δ) η παρ. 8 τροποποιείται» is article 21's), else the last reference before it to the same paragraph
    («Η προθεσμία ισχύος της παρ. 1 του άρθρου 54 … παρατείνεται, και η παρ. 1 διαμορφώνεται ως εξής»); same
    paragraph of text, close by."""
    before = [r for r in out if r.end <= at and at - r.end <= FOLLOW_UP_REACH and "\n" not in text[r.end:at]]
    amended = [r for r in before if r.kind in AMENDMENT_KINDS]
    if amended:
        return max(amended, key=lambda r: (r.end, r.start))
    same = [r for r in before if par and r.paragraph == par]
    return max(same, key=lambda r: (r.end, r.start)) if same else None


def _kind_between(out: list[Reference], text: str, masked: str, start: int, end: int, prev_end: int) -> str:
    """The kind of an edge added at ``start:end`` after the references were grouped, read as a group's is, with
    ``prev_end`` the end of the reference before it and the next reference's start as its reach."""
    next_start = min((r.start for r in out if r.start >= end), default=len(masked))
    return amendment_kind(text, masked, start, end, prev_end, next_start, None)


def with_follow_ups(out: list[Reference], text: str, masked: str, inner: list[Citation]) -> list[Reference]:
    """«Το πρώτο εδάφιο της παρ. 4 του άρθρου 2 του ν. 4081/2012 … τροποποιείται … και η παρ. 4 διαμορφώνεται ως
    εξής»: a paragraph named with no article, as the subject of an amendment verb, is that paragraph of the article
    last amended before it, in the same paragraph of text, at that paragraph; with none, it is no edge (in «Στο
    άρθρο 14 … α) η παρ. 1 τροποποιείται … την παραπομπή στα άρθρα 20-23 του ν. 4735/2020, β) η παρ. 2 …» the
    paragraphs are article 14's, not the last-named law's).

    A paragraph that differs from the amended one is still that article's when no other reference stands
    between («Οι παρ. 1 και 3 του άρθρου 47 … τροποποιούνται …, η παρ. 2 τροποποιείται»), and so is one after the
    verb («Στο άρθρο 31 …, τροποποιείται η παρ. 3 …, προστίθεται παρ. 4»); «του ως άνω άρθρου» is the article cited
    last before it; an article inside a ratified code's article («μετά το εσωτερικό άρθρο 45α του παρόντος») is an
    edge to that outer article, named before it in its paragraph."""
    added = []
    for m in FOLLOW_UP.finditer(masked):
        verb = VERBS.match(masked, m.end())
        whole = m.group("article") is not None  # «… και το άρθρο διαμορφώνεται ως εξής»: the article itself
        par = (m.group("par") or "").upper() or None
        amended = [r for r in out if r.end <= m.start() and r.kind in AMENDMENT_KINDS
                   and (whole or r.paragraph == par)
                   and m.start() - r.end <= FOLLOW_UP_REACH and "\n" not in text[r.end:m.start()]]
        last = max(amended, key=lambda r: r.end) if amended else None
        if last is None and not whole:
            last = _anchor_of(out, text, m.start(), par)
        if verb and last and (amended or not whole):
            span = "article" if whole else "span"
            added.append(dataclasses.replace(last, kind=verb.lastgroup or "amends", paragraph=par,
                                             start=m.start(span), end=m.end(span)))
    for m in VERB_THEN_PARAGRAPH.finditer(masked):
        last = _last_before(out, text, m.start())
        if last and last.kind in AMENDMENT_KINDS and not any(r.start <= m.start("span") < r.end for r in out):
            kind = next(k for k in AMENDMENT_KINDS if m.group(k))
            added.append(dataclasses.replace(last, kind=kind,
                                             paragraph=m.group("par").upper(), start=m.start("span"),
                                             end=m.end("span")))
    for m in ABOVE_ARTICLE.finditer(masked):
        last = _last_before(out, text, m.start())
        if last:
            before = paragraph_before(masked, m.start("at"))
            start = before[1] if before else m.start("at")
            added.append(dataclasses.replace(last, kind=_kind_between(out, text, masked, start, m.end(), last.end),
                                             paragraph=before[0] if before else None, start=start, end=m.end()))
    for c in inner:
        outer = [r for r in out if r.end <= c.start and "\n" not in text[r.end:c.start]
                 and OUTER_OF_INNER.search(masked, max(0, r.start - 60), r.start)]
        if outer:
            last = max(outer, key=lambda r: r.end)
            added.append(dataclasses.replace(last, kind=_kind_between(out, text, masked, c.start, c.end, last.end),
                                             paragraph=None, start=c.start, end=c.end))
    return sorted(out + added, key=lambda r: (r.start, r.end)) if added else out


def with_items(out: list[Reference], items: list[ItemParagraph]) -> list[Reference]:
    """«Στο άρθρο έκτο του ν. 4057/2012 (Α’ 54) επέρχονται οι ακόλουθες τροποποιήσεις:\nα) …\nβ) Η παρ. 7, περί …,
    αντικαθίσταται ως εξής: «…»»: a paragraph an item names with no article is that paragraph of the article the list's
    opening amends (one article, named there), typed by the item's verb, however much new wording stands between (v18);
    not where a reference is already read at its span."""
    added = []
    for item in items:
        anchors = [r for r in out if item.opening[0] <= r.start < item.opening[1] and r.kind in AMENDMENT_KINDS]
        if len({r.cited for r in anchors}) != 1 or any(r.start < item.span[1] and item.span[0] < r.end for r in out):
            continue
        added.append(dataclasses.replace(anchors[-1], kind=item.kind, paragraph=item.par, start=item.span[0],
                                         end=item.span[1]))
    return sorted(out + added, key=lambda r: (r.start, r.end)) if added else out
