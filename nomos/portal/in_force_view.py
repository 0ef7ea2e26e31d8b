"""An amended article's text in force as its page shows it: the passages consolidation stored (nomos.legal.inforce.result),
each escaped with its share of the query's marks and, where its wording is the original's, of the reference links;
the amending articles named as the page cites them; and which of the two texts the page shows.

The page shows the text in force by default: a lawyer who opens an amended article wants the law as it reads now,
and the original is one click away (``?text=original``). It shows the original instead where consolidation applied
nothing (status ``none``): the "text in force" would then be the original under another name. Nothing here reads
OpenSearch: the article and its graph are what :meth:`nomos.portal.service.Portal.article_and_graph` read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from markupsafe import Markup

from nomos.legal.inforce.result import InForce
from nomos.legal.inforce.versions import ORIGINAL, law_name, law_of
from nomos.pages.articles import Article, citation, cut_text
from nomos.pages.graph import ArticleGraph, GraphRef
from nomos.portal.in_force_reasons import Reason, greek_reason
from nomos.portal.links import marked_spans, marked_text

TextMode = Literal["in-force", "original"]
TEXT_MODES: tuple[str, ...] = ("in-force", "original")


@dataclass(frozen=True)
class Amending:
    """An amending article as the page names it: its id, how a lawyer cites it, its title ("" if unknown)."""

    id: str
    citation: str
    title: str = ""


@dataclass(frozen=True)
class PassageView:
    """One paragraph of the text in force: its markup, whether it differs from the original paragraph at its
    place (the page frames it and says so in words) and the amending article that gave it its wording (None: the
    original's)."""

    html: Markup
    changed: bool
    source: Amending | None


@dataclass(frozen=True)
class UnappliedView:
    """An instruction consolidation could not apply exactly, listed on the page as it was read: never guessed.
    ``reason`` in Greek where the page knows the engine's wording; ``superseded_by``: the later amending article
    whose whole new wording of the same place makes this one moot (None: the text in force lacks it)."""

    source: Amending
    instruction: str
    reason: Reason
    superseded_by: Amending | None = None


@dataclass(frozen=True)
class InForceView:
    """What the page says about the text in force. ``shown``: the page shows it (else the original, with this as
    its note); ``can_show``: there is a consolidated text to switch to (status full or partial)."""

    status: str
    shown: bool
    can_show: bool
    passages: tuple[PassageView, ...]
    amendments: tuple[Amending, ...]
    unapplied: tuple[UnappliedView, ...]  # those the text in force lacks: what makes it partial
    superseded: tuple[UnappliedView, ...]  # those a later whole wording made moot
    title: str  # the title in force where an amendment changed it and the page shows the text in force, else ""
    applied: int
    changed: int
    length: int  # characters of the whole text in force
    cut: bool  # the page shows its start only (as a long original is cut); ``full=1`` shows the rest
    # the version picker's choices: (law, label), the original first, then each law that changed the article
    versions: tuple[tuple[str, str], ...] = ()

    @property
    def partial(self) -> bool:
        return self.status != "full"


def amending(article_id: str, graph: ArticleGraph) -> Amending:
    """The amending article ``article_id`` as the page names it: from the graph's «Τροποποιήσεις» where it is
    there (its law's name gives its citation), else cited from its id alone («άρθρο 86 ν. 4855/2021»)."""
    known: dict[str, GraphRef] = {r.id: r for r in (*graph.amended_by, *graph.cited_by)}
    ref = known.get(article_id)
    if ref is not None:
        return Amending(ref.id, ref.citation, ref.title)
    return Amending(article_id, citation(article_id, article_id.split("::", 1)[0], ""))


def in_force_view(article: Article, graph: ArticleGraph, mode: str | None = None,
                  max_chars: int | None = None) -> InForceView | None:
    """The page's reading of ``article.in_force`` (None: the article has none; the page is as before). ``mode``:
    ``original`` asks for the original text, anything else the default. ``max_chars``: the text in force is cut
    to its start as a long original is (:func:`~nomos.pages.articles.cut_text`), so a page stays bounded."""
    in_force = article.in_force
    if in_force is None:
        return None
    can_show = in_force.status != "none" and bool(in_force.passages)
    shown = can_show and mode != "original"
    whole = in_force.text
    cut = max_chars is not None and len(whole) > max_chars
    visible = len(cut_text(whole, max_chars or 0)) if cut else len(whole)
    passages = _passages(in_force, article, graph, visible) if shown else ()
    listed = dict.fromkeys(in_force.amendments)
    unapplied = [UnappliedView(amending(u.source, graph), u.instruction, greek_reason(u.reason),
                               amending(u.superseded_by, graph) if u.superseded_by else None)
                 for u in in_force.unapplied]
    return InForceView(
        status=in_force.status, shown=shown, can_show=can_show, passages=passages,
        amendments=tuple(amending(a, graph) for a in listed),
        unapplied=tuple(u for u in unapplied if u.superseded_by is None),
        superseded=tuple(u for u in unapplied if u.superseded_by is not None),
        title=in_force.title if shown and in_force.title != article.title else "",
        applied=len(in_force.applied), changed=sum(p.changed for p in in_force.passages), length=len(whole), cut=cut,
        versions=((ORIGINAL, "Αρχικό κείμενο"),) + tuple(
            (law, f"Μετά τον {law_name(law)}") for law in dict.fromkeys(law_of(a.source) for a in in_force.applied)))


def _passages(in_force: InForce, article: Article, graph: ArticleGraph, visible: int) -> tuple[PassageView, ...]:
    """The passages up to ``visible`` characters of the joined text, with the query's marks (read off the
    highlighted text in force, offsets into :attr:`InForce.text`) and, for a passage still in the original's
    wording, the reference links of that wording (found in the original text, in order)."""
    marks = marked_spans(article.in_force_marked, in_force.text) if article.in_force_marked else []
    links = [(lk.start, lk.end, lk.target) for lk in graph.links if lk.target]
    out: list[PassageView] = []
    start = 0
    seen = 0  # where the next original passage is looked for in the original text
    anchor = True
    for p in in_force.passages:
        if start >= visible:
            break
        text = p.text[: visible - start]
        end = start + len(text)
        mine = [(max(a, start) - start, min(b, end) - start) for a, b in marks if a < end and b > start]
        targets: list[tuple[int, int, str]] = []
        if not p.source and not p.changed and text:
            at = article.text.find(text, seen)
            if at >= 0:
                seen = at + len(text)
                targets = [(a - at, b - at, t) for a, b, t in links if at <= a and b <= at + len(text)]
        out.append(PassageView(marked_text(text, targets, mine, anchor), p.changed,
                               amending(p.source, graph) if p.source else None))
        anchor = anchor and not mine
        start = end + 1  # the line break between passages
    return tuple(out)
