"""The law an article cited without one belongs to («το άρθρο 5», «του άρθρου 7 του παρόντος», «της παρ. 2 του
ίδιου άρθρου»): the citing article's own law, a law named around it, or none at all, since a bare article in a
sentence that names another law could be either's and no edge is better than a wrong one.

:func:`source_of_bare` reads one such citation with what it needs: the article's text (:class:`ArticleText`) and
what stands around the citation in it (:class:`Surroundings`: the citations after it, the list it stands in, what
was cited before it). The words are those of ``nomos.legal.graph.vocabulary``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nomos.legal.graph.clauses import ListSpan, clause_start, main_verb_between, verb_between
from nomos.legal.graph.openings import law_before_parenthesis, only_references_between, source_of_clause
from nomos.legal.graph.vocabulary import (
    AMENDMENT_KINDS,
    ARTICLE_OF_ACT,
    BOUNDARY,
    CAPITAL_LOCATIVE,
    DESCRIBED_DECISION,
    DESCRIBED_RUN,
    EXCEPT_GAP,
    FOREIGN,
    FOREIGN_ACT,
    FOREIGN_ACT_AFTER,
    FOREIGN_BARE,
    FOREIGN_LIST,
    FOREIGN_NAMED,
    HERS_AFTER,
    INNER,
    INTO,
    ITS_AFTER,
    NAME_THEN_PARENTHESES,
    NAMED_BEFORE,
    OF_BEFORE,
    OWN_AFTER,
    OWN_LATER,
    PART_ABOUT,
    PARTS_END,
    QUOTED_TITLE,
    SAME_AS_BEFORE,
    SELF,
    SENTENCE_END,
    THIS_LAW_AFTER,
    VERBS,
    YARDSTICK_BEFORE,
)
from nomos.legal.text.citations import STRUCTURE, Citation, source_at, sources_in


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
    external source cited before it (``last_external``); ``list_kind``: the kind of the verb of a list it stands in
    (in a list of repeals, a verb of a relative clause between it and another law does not make it the own law's:
    «β. τα άρθρα 1, 2 και 4 κατά το μέρος που αφορούν …, καθώς και το άρθρο 3 του ν. 2643/1998»; v15)."""

    later: Sequence[Citation]
    within: ListSpan | None
    in_list: bool
    explicit: Mapping[str, tuple[str, int]]
    last_external: str | None
    list_kind: str | None = None  # the verb of a list the citation stands in («καταργούνται:» → repeals)
    # the article numbers written with it in one run («τα άρθρα 11, 14, 33»), itself included; v19
    run: Sequence[str] = ()


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
    if folded[c.end - 1:c.end].isdigit() and GLUED_NUMERAL.match(text, c.end):
        return None  # «Μετά το άρθρο 66ΙΓΔ του ν. 4939/2022»: a number with letters the reader did not take (v21)
    if any(a < c.start and c.end <= b for _, a, b in sources_in(masked, max(0, c.start - 80), min(len(masked), c.end + 80))):
        return None  # «Κώδικα περί του κατά το άρθρο 100 του Συντάγματος Ανωτάτου …»: a word of a code's name (v21)
    # «Τα άρθρα 8 έως και 43 των Μερών Β΄ και Γ΄», «του άρθρου 43 του Κεφαλαίου Δ΄ του Μέρους Γ΄»: the parts named
    # after the article are read past, and what follows them says whose they are (no law: the citing law's)
    part = STRUCTURE.match(folded, c.end)
    end = part.end() if part else c.end
    if part and not source_at(folded, end) and not PARTS_END.match(folded, end):
        return None
    titled = QUOTED_TITLE.match(text, end)
    titled_law = source_at(folded, titled.end()) if titled else None
    if titled_law:
        return titled_law[0]
    if OWN_AFTER.match(folded, end):
        return own_source
    if HERS_AFTER.match(folded, end):
        return None
    if ITS_AFTER.match(folded, end):
        return _act_just_named(masked, c.start, own_source)
    held = law_before_parenthesis(masked, c.start, end)
    if held:
        return held
    if DESCRIBED_DECISION.match(folded, end):
        return None  # «το άρθρο 18 περί γενικών ρυθμίσεων … της υπό στοιχεία Α3/οικ./50984/… απόφασης»: the decision's
    if THIS_LAW_AFTER.match(folded, end):
        named = [n for n in sources_in(masked, clause_start(text, max(0, c.start - 300), c.start), c.start)
                 if n[0] != own_source]
        return named[-1][0] if named else own_source
    same = SAME_AS_BEFORE.match(folded, end) or NAMED_BEFORE.match(folded, end)
    if same:
        if FOREIGN_ACT_AFTER.match(folded, same.end()):  # «του ίδιου Κανονισμού», «της εν λόγω Οδηγίας»: no law of ours
            return None
        named = [n for n in sources_in(masked, 0, c.start) if n[0] != own_source]
        return named[-1][0] if named else (around.last_external or own_source)
    kept = [n for n in sources_in(masked, max(0, c.start - 80), c.start) if EXCEPT_GAP.fullmatch(folded, n[2], c.start)]
    if kept:
        return kept[-1][0]
    if is_foreign(folded, end):
        # «του Κώδικα Δήμων και Κοινοτήτων (ν. 3463/2006, Α΄ 114)»: a source named in words, then by its law
        return _named_law_after(folded, end)
    into = INTO.match(folded, end)
    into_law = source_at(folded, into.end()) if into else None
    if into_law:
        return into_law[0]
    ahead = next((f for f in around.later if f.start >= c.end and (f.source != SELF or _into_after(folded, f.end))),
                 None)
    reach = 200 if around.in_list else 60  # a list item names its law once, at its end
    if ahead and ahead.start - end <= reach and "\n" not in text[end:ahead.start] \
            and re.search(r"\b(?:και|,)", folded[end:ahead.start]) \
            and not BOUNDARY.search(text, end, ahead.start) and not VERBS.search(masked, end, ahead.start) \
            and not verb_between(masked, end, ahead.start) and only_references_between(masked, end, ahead.start):
        # «Τροποποίηση του άρθρου 14 και προσθήκη άρθρου 14α στον Κώδικα ΦΠΑ»: the next one's law, named after it
        # with «στον» (v17)
        return ahead.source if ahead.source != SELF else _into_after(folded, ahead.end)
    if around.within and around.within.source:
        return None if around.within.source == FOREIGN_LIST else around.within.source
    item_law = _law_closing_item(article, c, end, around)
    if item_law:
        return item_law
    carried = _carried(article, c, around)  # within its paragraph only: the next one may cite the own law's article 15
    if carried:
        return None if carried == FOREIGN_LIST else carried
    run = DESCRIBED_RUN.match(masked, end)  # «στην παρ. 2 του άρθρου 94, περί …, στο άρθρο 809, περί …, του ΚΠολΔ» (v20)
    law = source_at(masked, run.end() - 4) if run else None
    if law:
        return law[0]
    clause = source_of_clause(text, masked, c.start, end)
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
    # v20: qualified by a part of no named law, where every other act of the sentence is the subject a part of the
    # citing law is described by («Η ισχύς του Μέρους Α’, περί των παρεμβάσεων στον Κώδικα Πολιτικής Δικονομίας (π.δ.
    # 503/1985, Α’ 182), … και των άρθρων 104, 105, 106, 108 και 109 του Μέρους Ε’ αρχίζει …»)
    if part and all(PART_ABOUT.search(masked, max(0, at - 260), at) for _, at, _ in others):
        return own_source
    # the own law still where syntax decides it: every other law comes after the reference, and a verb of the
    # sentence's own stands between them («… μετά από εισήγηση της Επιτροπής του άρθρου 13, να χορηγείται …
    # κατά παρέκκλιση του άρθρου 21 του ν. 4354/2015»), so the other law closes a clause of its own rather than a
    # list the reference stands in («της παρ. 7 του άρθρου 23, περί μεταβατικών διατάξεων του ν. 4602/2019»)
    if others[0][1] >= c.end and verb_between(masked, c.end, others[0][1]) \
            and not (around.list_kind in AMENDMENT_KINDS and not main_verb_between(masked, c.end, others[0][1])):
        return own_source
    # and where every other law comes before it, named as a whole (no article of it cited), with the sentence's main
    # verb, no amendment verb, between: «Η διαχείριση των ΑΕΚΚ … έργων … κατηγορίας Α’ του ν. 4014/2011 (Α’ 209)
    # αποσκοπεί, σύμφωνα με τα προβλεπόμενα στο άρθρο 4, …» (the law qualifies the subject; v17)
    last = others[-1]
    before = last[2] <= c.start and around.list_kind is None and main_verb_between(masked, last[2], c.start) \
        and not VERBS.search(masked, last[2], c.start)
    if before and not any(ARTICLE_OF_ACT.search(folded, max(0, at - 80), at) for _, at, _ in others):
        return own_source
    # v18, in a whole sentence (its start read) that amends nothing: the first other law after the reference is bound
    # to an article of its own that the sentence cites as a yardstick, with no list joining the two («των περ. β) και
    # γ) του άρθρου 33 υπό τις προϋποθέσεις του άρθρου 142 του ν. 3655/2008»); or every other law before it is named
    # as a whole or with such an article («Το δικαίωμα … που προβλέπεται στο άρθρο 45Α του ν. 2121/1993 δεν μπορεί
    # να ασκηθεί … πέραν των ορίων που καθορίζονται στα άρθρα 64 έως 66»)
    sentence = (begin > c.start - 400 or begin == 0) and not VERBS.search(masked, begin, stop.start() if stop else len(text)) \
        and not CAPITAL_LOCATIVE.match(text, begin + len(text[begin:]) - len(text[begin:].lstrip()))
    if sentence and others[0][1] >= c.end and around.list_kind is None \
            and _yardstick_after(masked, end, others[0], around.later):
        return own_source
    if sentence and before and all(_whole_or_yardstick(folded, masked, at) for _, at, _ in _first_names(masked, others)):
        return own_source
    # v21: the subject of a clause starts right after it, every other law after that, in a sentence that amends
    # nothing («Σε περίπτωση που επέλθει νωρίτερα από το χρονικό διάστημα του άρθρου 14 η έναρξη λειτουργίας του
    # Φορέα … του ν. 4738/2020 (Α’ 207), η συνεισφορά …», k-001 of recall-v20): the other laws qualify that subject
    if sentence and others[0][1] >= c.end and around.list_kind is None and SUBJECT_AFTER.match(folded, end) \
            and re.match(r"\s+(?:η|ο|οι)\s", text[end:end + 6]) and not re.search(r"\b(?:και|ή|η)\s*$", folded[max(0, c.start - 40):c.start]):
        return own_source
    return None


# capitals glued to an article's number that the citation reader did not take as its suffix, then «του»/«ως»
# («66ΙΓΔ του ν. 4939/2022», «32ΣΤΑ ως εξής»; not «287ΚΠΔ:», a code's abbreviation; v21)
GLUED_NUMERAL = re.compile(r"[Α-Ω]{2,4}\s+(?:του|της|ως)\s")
# a nominative article and a noun that is no part of a citation («του άρθρου 14 η έναρξη λειτουργίας»; v21)
SUBJECT_AFTER = re.compile(r"\s+(?:η|ο|οι)\s+(?!παρ|περ|αρθρ|εδαφ|υποπ|στοιχ|οποι|ιδι|αυτ|εν\b|ανωτερω|παρον)[α-ω]{4,}")


def _carried(article: ArticleText, c: Citation, around: Surroundings) -> str | None:
    """The external source the article was cited with before in its paragraph («Στο άρθρο 15 του ν. 4786/2021 … το
    άρθρο 15 διαμορφώνεται»), or None. A run of articles written together is one law's: where the source carries to
    some numbers of the run and not to others, and the sentence goes on to name the citing law before any other
    («… τα άρθρα 8Α, 8Β, 11 … του ν. 3468/2006 … καταργούνται. Όπου αναφέρονται τα ως άνω άρθρα, νοούνται εφεξής τα
    άρθρα 11, 14, 33, και εν γένει τα Κεφάλαια Δ΄ και Ε΄, του Μέρους Β΄ του παρόντος»), the 11 is not ν. 3468/2006's
    for having been cited with it before (v19); with no such words it still carries («εφαρμόζονται τα άρθρα 92, 93,
    94, 96 … του ν. 4549/2018», 96 cited with that law before)."""
    text = article.text
    carried = around.explicit.get(c.article)
    if not carried or "\n" in text[carried[1]:c.start]:
        return None
    others = [around.explicit.get(n) for n in around.run if n != c.article]
    if all(o and o[0] == carried[0] and "\n" not in text[o[1]:c.start] for o in others):
        return carried[0]
    stop = SENTENCE_END.search(text, c.end)
    own = OWN_LATER.search(article.folded, c.end, stop.start() if stop else len(text))
    if own and not sources_in(article.masked, c.end, own.start()):
        return None
    return carried[0]


def _act_just_named(masked: str, start: int, own_source: str) -> str | None:
    """The act «αυτού» after an article points to: the last one named before it, close by (200 characters) and with
    no act of no law of ours («Κανονισμού», «Οδηγίας») named between, «του παρόντος» the citing law; None otherwise
    (v19)."""
    begin = max(0, start - 200)
    named = sources_in(masked, begin, start)
    own = [m.end() for m in OWN_LATER.finditer(masked, begin, start)]  # «Από την έναρξη ισχύος του παρόντος, … του
    if own and (not named or own[-1] > named[-1][2]) and not FOREIGN_ACT.search(masked, own[-1], start):  # άρθρου 123 αυτού»
        return own_source
    if not named or named[-1][0] == own_source or FOREIGN_ACT.search(masked, named[-1][2], start):
        return None
    if len(named) > 1 and re.fullmatch(r"[\s(,]*", masked[named[-2][2]:named[-1][1]]) \
            and not named[-2][0].startswith(("N_", "PD_", "ND_", "AN_")):
        return named[-2][0]  # «του Αστικού Κώδικα (π.δ. 456/1984, Α’ 164) … τα άρθρα 683, 693 και 695 αυτού»: the code's
    return named[-1][0]


def _whole_or_yardstick(folded: str, masked: str, at: int) -> bool:
    """Whether the law named at ``at`` is named as a whole (no article, paragraph or provision of it before it; v17),
    or with an article of its own cited as a yardstick or a place rather than as a subject («Το δικαίωμα … που
    προβλέπεται στο άρθρο 45Α του ν. 2121/1993», «σύμφωνα με το άρθρο 72 του παρόντος και τα άρθρα 244 έως 266 του
    Κώδικα …»; not «Η παρ. 2 του άρθρου 5 του ν. 4014/2011 εφαρμόζεται»; v18): either way a bare article after the
    sentence's main verb is not that law's."""
    provision = ARTICLE_OF_ACT.search(folded, max(0, at - 80), at)
    return not provision or bool(YARDSTICK_BEFORE.search(masked, max(0, provision.start() - 40), provision.start()))


def _first_names(masked: str, named: Sequence[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """The sources named, less a law in parentheses right after the code it enacts («του Κώδικα Διοικητικής
    Δικονομίας (ν. 2717/1999, Α’ 97)»: one mention)."""
    return [n for i, n in enumerate(named)
            if not (i and named[i - 1][0] == n[0] and re.fullmatch(r"[\s(,]*", masked[named[i - 1][2]:n[1]]))]


def _yardstick_after(masked: str, end: int, other: tuple[str, int, int], later: Sequence[Citation]) -> bool:
    """Whether the other law named after a bare article (``other``: source, start, end) is bound to an article of its
    own cited as a yardstick close after it, with no list between them: a word of the sentence's own, no «και», comma
    or verb («του άρθρου 33 υπό τις προϋποθέσεις του άρθρου 142 του ν. 3655/2008»; not «του άρθρου 33 και του άρθρου
    142 του ν. 3655/2008», where both may be that law's; v18)."""
    bound = next((f for f in later if f.source == other[0] and f.start < other[1] <= f.end), None)
    if bound is None or bound.start - end > 60 or bound.start < end:
        return False
    gap = masked[end:bound.start]
    return not re.search(r"(?<!\w)(?:και|η|ή|καθωσ|ειτε)(?!\w)|[,;\n]", gap) and not VERBS.search(gap) \
        and not verb_between(masked, end, bound.start) and not only_references_between(masked, end, bound.start) \
        and bool(YARDSTICK_BEFORE.search(masked, max(0, bound.start - 40), bound.start))


def said_own(folded: str, end: int) -> bool:
    """Whether the words after an article cited at ``folded[…:end]`` name the citing law («του παρόντος», «του
    νόμου αυτού», past the parts named between: «του Κεφαλαίου Α΄ του παρόντος»)."""
    part = STRUCTURE.match(folded, end)
    at = part.end() if part else end
    return bool(OWN_AFTER.match(folded, at) or THIS_LAW_AFTER.match(folded, at))


def names_foreign_act(folded: str, end: int) -> bool:
    """Whether the words after an article name an act the resolver does not know by its abbreviation or kind («του
    β.δ. 631/1972», «της Οδηγίας …», «της υπ’ αριθμ. … απόφασης»), not merely a noun in the genitive."""
    m = FOREIGN.match(folded, end)
    return m is not None and not source_at(folded, m.start("word")) and bool(FOREIGN_NAMED.match(folded, m.start("word")))


def is_foreign(folded: str, end: int) -> bool:
    """Whether an article list without a source is followed by one the resolver does not know («άρθρο 5 του
    Κανονισμού (ΕΕ) 2016/679», «της υπ' αριθμ. … απόφασης», «του β.δ. 631/1972»); not where the list runs on to
    a law we know («Το άρθρο 112 και το άρθρο 113 του ν. 4389/2016»: the later reference's law is read then; v15)."""
    m = FOREIGN.match(folded, end)
    if m and not source_at(folded, m.start("word")):
        of = OF_BEFORE.search(folded, max(0, m.start("word") - 8), m.start("word"))
        part = STRUCTURE.match(folded, of.start()) if of else None
        if not part:
            return True
        # «του άρθρου 4 του Κεφαλαίου Α’ και του άρθρου 5 του Κεφαλαίου Β’ του π.δ. 41/2018»: past the parts
        return not source_at(folded, part.end()) and is_foreign(folded, part.end())
    return bool(FOREIGN_BARE.match(folded, end))


def _into_after(folded: str, end: int) -> str | None:
    """The law named with «στον/στο» right after an article («άρθρου 14α στον Κώδικα ΦΠΑ»), or None."""
    into = INTO.match(folded, end)
    named = source_at(folded, into.end()) if into else None
    return named[0] if named else None


def _named_law_after(folded: str, end: int) -> str | None:
    """The law in the parentheses after a source named in words («άρθρο 62 του Κώδικα Οργανισμού Δικαστηρίων (ν.
    1756/1988, Α΄ 35)»), or None (no parentheses, or they name no law: «του Κανονισμού (ΕΕ) 2016/679»)."""
    m = NAME_THEN_PARENTHESES.match(folded, end)
    named = source_at(folded, m.end()) if m else None
    return named[0] if named else None


# v21: an item of a list of changes that names one law, at its end («β) το πρώτο εδάφιο της παρ. 2 του άρθρου 5 περί
# …, η παρ. 2 του άρθρου 8, και οι περ. ι) … του άρθρου 43, περί … του Κεφαλαίου Β’ του ν. 4186/2013 (Α’ 193) και»)
_ITEM_START = re.compile(r"(?:^|\n)\s*(?:[α-ω]{1,2}[΄'’]?\)|\d{1,2}[.)])\s")
_ITEM_END = re.compile(r"\s*(?:\([^()]{0,40}\)\s*)?(?:,?\s*και\s*|[,;.:]\s*)?$")


def _law_closing_item(article: ArticleText, c: Citation, end: int, around: Surroundings) -> str | None:
    """The law that closes the list item a bare article stands in, where the item is one of a list of changes
    («Από την έναρξη ισχύος του παρόντος καταργούνται:», k-002 of recall-v20), names no other act, the law stands at
    the item's end, and only references and their «περί» descriptions stand between (no verb: «το άρθρο 5, όπως
    τροποποιήθηκε με το άρθρο 3 του ν. X» names the amending law). Else None."""
    if around.list_kind not in AMENDMENT_KINDS:
        return None
    text, masked = article.text, article.masked
    line_start = text.rfind("\n", 0, c.start) + 1
    line_end = text.find("\n", c.start)
    line_end = len(text) if line_end < 0 else line_end
    if not _ITEM_START.match(text, max(0, line_start - 1)):
        return None
    named = sources_in(masked, line_start, line_end)
    if len({n[0] for n in named}) != 1 or named[0][1] < end:
        return None
    law, at, law_end = named[-1]
    if not _ITEM_END.match(masked[law_end:line_end]) or verb_between(masked, end, at) \
            or VERBS.search(masked, end, at) or not only_references_between(masked, end, at):
        return None
    return law
