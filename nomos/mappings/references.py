"""The legal graph's edges read from statute text: which articles an article cites, and which it amends.

Built on the query-side resolver (:mod:`nomos.mappings.citations`: ``fold``, ``find_citations``, ``IdResolver``)
so a citation typed into the search box and one written inside a statute are read by the same rules. What this
module adds is what only statute text has:

* the citing law as the default source: a bare «άρθρο 5», «του παρόντος», «του νόμου αυτού» is the citing
  article's own law, while «άρθρο 5 του Κανονισμού (ΕΕ) 2016/679» or «της Οδηγίας …» (a source the resolver does
  not know) is no edge at all, rather than a wrong one into the own law;
* a paragraph written before the article («η παρ. 1 του άρθρου 372 ΠΚ»), and «του προηγούμενου/επόμενου άρθρου»;
* amendment verbs typing the edge: «τροποποιείται» / «διαμορφώνεται ως εξής» → amends, «αντικαθίσταται» →
  replaces, «προστίθεται» / «παρεμβάλλεται» → inserts, «καταργείται» / «απαλείφεται» → repeals;
* text quoted in «…» is the new wording an amendment puts into another law: its references are that law's, read
  in its own context, so they produce no edges of the amending article (measured: reading them as the citing
  law's references was the largest source of wrong edges);
* in an amending article a bare «το άρθρο 15» after «Στο άρθρο 15 του ν. 4786/2021» is that law's article 15.

Every :class:`Reference` carries its span in the text (the portal links it) and ``cited`` as read, even when the
target is not in the corpus (``target`` is then "").
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from nomos.mappings.citations import Citation, IdResolver, find_citations, fold

# Bump whenever the rules below change what is extracted: indexing stores it beside the edges and makes it part of
# each article's content hash, so a re-index recomputes every article's edges then (and only then).
REFERENCES_VERSION = "1"

KINDS = ("cites", "amends", "replaces", "inserts", "repeals")
AMENDMENT_KINDS = frozenset(KINDS[1:])

_SELF = "\x00self"  # find_citations' default source: marks a citation that named no source of its own

# Amendment verbs (folded), present tense as the amending clause writes them; the past («τροποποιήθηκε») only
# describes the cited article and is no amendment.
_VERBS = re.compile(
    r"\b(?P<amends>τροποποιειται|τροποποιουνται|διαμορφωνεται|διαμορφωνονται|συμπληρωνεται|συμπληρωνονται|"
    r"αναριθμειται|αναριθμουνται)\b"
    r"|\b(?P<replaces>αντικαθισταται|αντικαθιστανται)\b"
    r"|\b(?P<inserts>προστιθεται|προστιθενται|παρεμβαλλεται|παρεμβαλλονται)\b"
    r"|\b(?P<repeals>καταργειται|καταργουνται|απαλειφεται|απαλειφονται)\b"
)
# What follows an article list and names a source the resolver does not know: no edge rather than a wrong one
_FOREIGN = re.compile(
    r"\s*(?:\([^)]{0,40}\)\s*)?,?\s*(?:του|τησ|των)\s+(?!παροντοσ|παρουσασ|ιδιου|ιδιασ|αυτου|αυτησ|νομου\s+αυτου|"
    r"παρον\b)(?P<word>[^\s,.;:]+)"
)
_OWN_AFTER = re.compile(r"\s*(?:\([^)]{0,40}\)\s*)?,?\s*(?:του|τησ)\s+(?:παροντοσ|παρουσασ|ιδιου|ιδιασ|νομου\s+αυτου)")
# «η παρ. 1 του άρθρου», «της παρ. 2 περ. β΄ του άρθρου», «των παρ. 1 και 2 του άρθρου»: a paragraph before
_PAR_BEFORE = re.compile(
    r"(?:παρ\.?|παραγρ\w*|§)\s*(?P<par>\d+)[α-ω]?(?:\s*(?:,|και|εωσ)\s*\d+[α-ω]?)*"
    r"(?:\s*(?:εδ\.?|εδαφι\w*|περ\.?|περιπτ\w*|στοιχ\w*)\s*[\dα-ω]{1,3}[΄'’]?)*\s*(?:του|στο)\s*$"
)
_NEIGHBOUR = re.compile(r"\b(?:του|το|στο)\s+(?P<which>προηγουμεν|επομεν)(?:ου|ο)\s+αρθρ(?:ου|ο)\b")
_BOUNDARY = re.compile(r"[.;:]\s|«|»|\n")
_WINDOW_AFTER = 160
_WINDOW_BEFORE = 60


@dataclass(frozen=True)
class Reference:
    """One edge of the legal graph: ``source`` cites (or amends, replaces, inserts into, repeals) ``target``.

    ``target`` is the corpus id, "" when the cited article is not in the corpus; ``cited`` is the id as read
    («PK::372»); ``paragraph`` the target paragraph where stated; ``start``/``end`` the span in the source text."""

    source: str
    target: str
    cited: str
    kind: str
    paragraph: str | None
    start: int
    end: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """The outermost «…» spans (nested quotes inside them belong to them; an unclosed quote runs to the end)."""
    spans: list[tuple[int, int]] = []
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch == "«":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "»" and depth:
            depth -= 1
            if depth == 0:
                spans.append((start, i + 1))
    if depth:
        spans.append((start, len(text)))
    return spans


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


def _is_foreign(folded: str, end: int) -> bool:
    """Whether an article list without a source is followed by one the resolver does not know («άρθρο 5 του
    Κανονισμού (ΕΕ) 2016/679», «της υπ' αριθμ. … απόφασης», «του ν.δ. 1234/1970»)."""
    if _OWN_AFTER.match(folded, end):
        return False
    return bool(_FOREIGN.match(folded, end))


def _paragraph_before(folded: str, start: int) -> tuple[str, int] | None:
    """A paragraph written before the article word («η παρ. 1 του άρθρου 372»): (paragraph, where it starts)."""
    window_start = max(0, start - 80)
    head = folded[window_start:start]
    m = _PAR_BEFORE.search(head)
    if not m:
        return None
    return m.group("par"), window_start + m.start()


def _verb(folded: str, a: int, b: int) -> str | None:
    m = _VERBS.search(folded, a, b)
    return m.lastgroup if m else None


def _amendment_kind(folded: str, start: int, end: int, prev_end: int, next_start: int) -> str:
    """The kind of edge a reference is: an amendment verb in its own clause after it («Το άρθρο 5 … αντικαθίσταται
    ως εξής»), else right before it («Καταργείται το άρθρο 5»), else a plain citation. A clause ends at a full
    stop, colon, semicolon, a quote or the next reference."""
    stop = min(next_start, end + _WINDOW_AFTER, len(folded))
    b = _BOUNDARY.search(folded, end, stop)
    kind = _verb(folded, end, b.start() if b else stop)
    if kind:
        return kind
    begin = max(prev_end, start - _WINDOW_BEFORE, 0)
    ends = [m.end() for m in _BOUNDARY.finditer(folded, begin, start)]
    return _verb(folded, ends[-1] if ends else begin, start) or "cites"


def _number_offset(article: str, delta: int) -> str | None:
    return str(int(article) + delta) if article.isdigit() and int(article) + delta > 0 else None


def extract_references(article_id: str, text: str, resolver: IdResolver, own_source: str) -> list[Reference]:
    """Every reference of the article ``article_id`` (whose law is ``own_source``), in reading order.

    One :class:`Reference` per cited article (a list or range gives one each); references inside quoted new
    wording are left out, as are references to the article itself and to sources the resolver cannot name."""
    folded = fold(text)
    quotes = quoted_spans(text)
    own_number = article_id.split("::", 1)[1] if "::" in article_id else ""
    raw: list[tuple[Citation, int]] = []  # (citation with its source resolved, span start including a paragraph)
    explicit: dict[str, str] = {}  # article number -> the external source it was last cited with
    for c in find_citations(text, default_source=_SELF):
        if _inside(c.start, quotes):
            continue
        source = c.source
        if source == _SELF:
            if _is_foreign(folded, c.end):
                continue
            source = explicit.get(c.article, own_source)
        elif source != own_source:
            explicit[c.article] = source
        paragraph, start = c.paragraph, c.start
        before = _paragraph_before(folded, c.start)
        if before and not paragraph:
            paragraph, start = before
        elif before:
            start = before[1]
        raw.append((Citation(source, c.article, paragraph, start, c.end), c.start))
    for m in _NEIGHBOUR.finditer(folded):
        if _inside(m.start(), quotes) or not own_number:
            continue
        number = _number_offset(own_number, -1 if m.group("which") == "προηγουμεν" else 1)
        if number:
            raw.append((Citation(own_source, number, "", m.start(), m.end()), m.start()))
    raw.sort(key=lambda item: (item[0].start, item[0].end))
    out: list[Reference] = []
    for i, (c, _) in enumerate(raw):
        prev_end = raw[i - 1][0].end if i else 0
        next_start = raw[i + 1][0].start if i + 1 < len(raw) else len(folded)
        kind = _amendment_kind(folded, c.start, c.end, prev_end, next_start)
        target = resolver.resolve(c.id) or ""
        if target == article_id or c.id == article_id:
            continue
        out.append(Reference(article_id, target, c.id, kind, c.paragraph or None, c.start, c.end))
    return out


def edge_fields(references: list[Reference]) -> dict[str, Any]:
    """The article document's graph fields: ``cites`` (every resolved target, any kind), ``amends`` (resolved
    targets of amendment-typed edges), ``references`` (the edges themselves) and ``references_version``."""
    cites = list(dict.fromkeys(r.target for r in references if r.target))
    amends = list(dict.fromkeys(r.target for r in references if r.target and r.kind in AMENDMENT_KINDS))
    return {
        "cites": cites,
        "amends": amends,
        "references": [r.as_dict() for r in references],
        "references_version": REFERENCES_VERSION,
    }
