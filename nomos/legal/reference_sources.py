"""The law an article cited without one belongs to («το άρθρο 5», «του άρθρου 7 του παρόντος», «της παρ. 2 του
ίδιου άρθρου»): the citing article's own law, a law named around it, or none at all, since a bare article in a
sentence that names another law could be either's and no edge is better than a wrong one.

:func:`source_of_bare` reads one such citation with what it needs: the article's text (:class:`ArticleText`) and
what stands around the citation in it (:class:`Surroundings`: the citations after it, the list it stands in, what
was cited before it). The words are those of ``nomos.legal.reference_vocabulary``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nomos.legal.citations import Citation, source_at, sources_in
from nomos.legal.reference_clauses import ListSpan, clause_start, verb_between
from nomos.legal.reference_vocabulary import (
    BOUNDARY,
    EXCEPT_GAP,
    FOREIGN,
    FOREIGN_ACT_AFTER,
    FOREIGN_LIST,
    INNER,
    INTO,
    JOINING_WORD,
    NAME_THEN_PARENTHESES,
    NAMED_BEFORE,
    OWN_AFTER,
    PARENTHESES,
    SAME_AS_BEFORE,
    SELF,
    SENTENCE_END,
    THIS_LAW_AFTER,
    VERBS,
    WINDOW_BEFORE,
)


@dataclass(frozen=True)
class ArticleText:
    """One article's text in the forms the rules read, and its law: ``text`` as written, ``folded`` (lowercase, no
    accents, final sigma as sigma) and ``masked`` (folded, quoted new wording blanked), all of the same length;
    ``own_source`` is the law its bare references point into."""

    text: str
    folded: str
    masked: str
    own_source: str


@dataclass(frozen=True)
class Surroundings:
    """What stands around one citation without a source, in reading order: the citations ``later`` than it, the
    list ``within`` which it stands that names a source (``in_list``: whether it stands in any list), the external
    source each article number was last cited with and where that citation ended (``explicit``), and the last
    external source cited before it (``last_external``)."""

    later: Sequence[Citation]
    within: ListSpan | None
    in_list: bool
    explicit: Mapping[str, tuple[str, int]]
    last_external: str | None


def source_of_bare(article: ArticleText, c: Citation, around: Surroundings) -> str | None:
    """The source of an article cited without one, or None for no edge. In order: an article inside an article
    (none: the outer one is read on its own); «του παρόντος» (the own law); «του νόμου αυτού» (the law its sentence
    named, else the own); «του ίδιου / του εν λόγω νόμου» (the law named last); a source the resolver cannot name
    (the law in parentheses after it, else none); «στον ν. 4276/2014» after it; the next reference's source when
    they are joined («της παρ. 3 του άρθρου 977 και η παρ. 2 του άρθρου 977Α του ΚΠολΔ»); the source of the list it
    stands in; the source it was cited with before in its paragraph (an amending article's «το άρθρο 15
    διαμορφώνεται»); the law its clause amends («Στον ΠΚ προστίθεται άρθρο 398»); else the citing article's own
    law, unless its sentence names another (none)."""
    text, folded, masked, own_source = article.text, article.folded, article.masked, article.own_source
    if INNER.match(folded, c.end):
        return None
    if OWN_AFTER.match(folded, c.end):
        return own_source
    if THIS_LAW_AFTER.match(folded, c.end):
        named = [n for n in sources_in(masked, clause_start(text, max(0, c.start - 300), c.start), c.start)
                 if n[0] != own_source]
        return named[-1][0] if named else own_source
    same = SAME_AS_BEFORE.match(folded, c.end) or NAMED_BEFORE.match(folded, c.end)
    if same:
        if FOREIGN_ACT_AFTER.match(folded, same.end()):  # «του ίδιου Κανονισμού», «της εν λόγω Οδηγίας»: no law of ours
            return None
        named = [n for n in sources_in(masked, 0, c.start) if n[0] != own_source]
        return named[-1][0] if named else (around.last_external or own_source)
    kept = [n for n in sources_in(masked, max(0, c.start - 80), c.start) if EXCEPT_GAP.fullmatch(folded, n[2], c.start)]
    if kept:
        return kept[-1][0]
    if _is_foreign(folded, c.end):
        # «του Κώδικα Δήμων και Κοινοτήτων (ν. 3463/2006, Α΄ 114)»: a source named in words, then by its law
        return _named_law_after(folded, c.end)
    into = INTO.match(folded, c.end)
    named = source_at(folded, into.end()) if into else None
    if named:
        return named[0]
    ahead = next((f for f in around.later if f.source != SELF and f.start >= c.end), None)
    reach = 200 if around.in_list else 60  # a list item names its law once, at its end
    if ahead and ahead.start - c.end <= reach and "\n" not in text[c.end:ahead.start] \
            and re.search(r"\b(?:και|,)", folded[c.end:ahead.start]) \
            and not BOUNDARY.search(text, c.end, ahead.start) and not VERBS.search(masked, c.end, ahead.start) \
            and not verb_between(masked, c.end, ahead.start) and _only_references_between(masked, c.end, ahead.start):
        return ahead.source
    if around.within and around.within.source:
        return None if around.within.source == FOREIGN_LIST else around.within.source
    carried = around.explicit.get(c.article)  # within its paragraph only: the next one may cite the own law's article 15
    if carried and "\n" not in text[carried[1]:c.start]:
        return carried[0]
    clause = _source_of_clause(text, masked, c.start)
    if clause:
        return clause
    # the own law only where the sentence names no other: in «… της παρ. 4 του άρθρου 18, … και της παρ. 7 του άρθρου
    # 23, περί μεταβατικών διατάξεων του ν. 4602/2019» a bare article may be either law's, and no edge is better
    # than a wrong one (measured: such edges were right about three times in four, the rest about 49 in 50)
    begin = clause_start(text, max(0, c.start - 400), c.start)
    stop = SENTENCE_END.search(text, c.end)
    others = [n for n in sources_in(masked, begin, stop.start() if stop else len(text)) if n[0] != own_source]
    if not others:
        return own_source
    # the own law still where syntax decides it: every other law comes after the reference, and a verb of the
    # sentence's own stands between them («… μετά από εισήγηση της Επιτροπής του άρθρου 13, να χορηγείται …
    # κατά παρέκκλιση του άρθρου 21 του ν. 4354/2015»), so the other law closes a clause of its own rather than a
    # list the reference stands in («της παρ. 7 του άρθρου 23, περί μεταβατικών διατάξεων του ν. 4602/2019»)
    if others[0][1] >= c.end and verb_between(masked, c.end, others[0][1]):
        return own_source
    return None


def _is_foreign(folded: str, end: int) -> bool:
    """Whether an article list without a source is followed by one the resolver does not know («άρθρο 5 του
    Κανονισμού (ΕΕ) 2016/679», «της υπ' αριθμ. … απόφασης», «του ν.δ. 1234/1970»)."""
    return bool(FOREIGN.match(folded, end))


def _named_law_after(folded: str, end: int) -> str | None:
    """The law in the parentheses after a source named in words («άρθρο 62 του Κώδικα Οργανισμού Δικαστηρίων (ν.
    1756/1988, Α΄ 35)»), or None (no parentheses, or they name no law: «του Κανονισμού (ΕΕ) 2016/679»)."""
    m = NAME_THEN_PARENTHESES.match(folded, end)
    named = source_at(folded, m.end()) if m else None
    return named[0] if named else None


def _source_of_clause(text: str, masked: str, start: int) -> str | None:
    """For an article with no source of its own: the law or code its clause names before it with an amendment verb
    between («Στον ΠΚ προστίθεται άρθρο 398» is PK's article 398)."""
    begin = clause_start(text, max(0, start - WINDOW_BEFORE), start)
    named = sources_in(masked, begin, start)
    if named and VERBS.search(masked, named[-1][2], start):
        return named[-1][0]
    return None


def _only_references_between(masked: str, a: int, b: int) -> bool:
    """Whether ``masked[a:b]`` joins two references and nothing else: «του άρθρου 5 και της παρ. 2 του», «του
    άρθρου 23, περί μεταβατικών διατάξεων, του»; not «του άρθρου 80 και την εισφορά της περ. ε’ … του», where a noun
    of its own starts a new item whose law the later one names."""
    gap = PARENTHESES.sub(" ", masked[a:b])
    gap = re.sub(r",?\s*περι\s[^,]*", " ", gap)
    return all(JOINING_WORD.match(w) for w in re.findall(r"[α-ω]{4,}", gap))
