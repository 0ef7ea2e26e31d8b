"""The law a clause opens with or names before a bare article: «Στον ΠΚ προστίθεται άρθρο 398», «Στο Παράρτημα ΙΙ
του ν. 4442/2016 … τροποποιείται», «του ν. 2523/1997 (άρθρα 17 έως 21)», and the described runs whose wording a
sentence changes. :func:`~nomos.legal.graph.sources.source_of_bare` asks these after the citation's own words.
"""

from __future__ import annotations

import re

from nomos.legal.graph.clauses import clause_start
from nomos.legal.graph.vocabulary import (
    BOUNDARY,
    DESCRIBED_RUN,
    ITEM_OPENING,
    JOINING_WORD,
    OPENING_REACH,
    OPENS_INTO,
    OPENS_INTO_PART,
    PARENTHESES,
    SENTENCE_END,
    VERBS,
    WINDOW_BEFORE,
)
from nomos.legal.text.citations import source_at, sources_in

# v21: the place of an insertion, written between the opening's law and its verb, commas around it («Στον ν.
# 4797/2021 (Α’ 66) μετά το άρθρο 6Α, προστίθεται άρθρο 6Β», k-014 of recall-v20): read past, as the gazette issue is
INSERTION_PLACE = re.compile(r"\s*(?:\([^()]{0,30}\)\s*)?,?\s*(?:μετα\s+(?:απο\s+)?(?:το|την|τη|τον)\s+"
                             r"(?:αρθρ|παρ|περ|εδαφ)[^,;:«]{0,60}|περι\s[^,;:«]{0,120}),")
# v21: a clause that opens with the place of an insertion in a law («Μετά από το άρθρο 31 του ν. 2121/1993 (Α’ 25)
# περί …, προστίθεται άρθρο 31Α», m-016 of recall-v21): the law is the opening's, as «Στον ν. …» is
OPENS_AFTER = re.compile(r"\s*(?:\d{1,3}\.\s+)?μετα\s+(?:απο\s+)?(?:το|την)\s+(?:αρθρο|παρ\.?)\s+[^\s,]{1,6}"
                         r"(?:\s+(?:του|τησ)\s+(?:αρθρου\s+[^\s,]{1,6}\s+)?)?\s*(?:του|τησ)\s+")


def source_of_clause(text: str, masked: str, start: int, end: int | None = None) -> str | None:
    """For an article with no source of its own: the law or code its clause names before it with an amendment verb
    between («Στον ΠΚ προστίθεται άρθρο 398» is PK's article 398); or the one a clause opens with «Στον/Στο …» and
    no other, the amendment verb coming before the clause's next comma («Στον ν. 4791/2021 (Α΄ 51) μετά το άρθρο 22
    προστίθεται άρθρο 22Α»: both are ν. 4791/2021's; v17)."""
    begin = clause_start(text, max(0, start - WINDOW_BEFORE), start)
    named = sources_in(masked, begin, start)
    if named and VERBS.search(masked, named[-1][2], start):
        return named[-1][0]
    # the opening's act ends close before the article; a code named in words may start far before it («Στον Κώδικα
    # περί του κατά το άρθρο 100 του Συντάγματος Ανωτάτου Ειδικού Δικαστηρίου (ν. 345/1976, Α΄ 141), μετά από το
    # άρθρο 5, προστίθεται άρθρο 5Α», m-013 of recall-v21; v21)
    wide = clause_start(text, max(0, start - OPENING_REACH), start)
    opening = OPENS_INTO.match(masked, wide) or OPENS_AFTER.match(masked, wide)
    named = sources_in(masked, wide, start)
    if named and start - named[-1][2] > 2 * WINDOW_BEFORE:
        named = []
    if len(named) == 2 and re.fullmatch(r"\s*\(\s*", masked[named[0][2]:named[1][1]]):
        named = named[:1]  # «Στον Κώδικα Πολιτικής Δικονομίας (π.δ. 503/1985, Α’ 182), μετά από …»: one act (v21)
    if opening and len(named) == 1 and named[0][1] == opening.end():
        place = INSERTION_PLACE.match(masked, named[0][2])  # «Στον ν. 4797/2021 (Α’ 66) μετά το άρθρο 6Α, προστίθεται» (v21)
        stop = masked.find(",", place.end() if place else named[0][2] + 12, len(masked))  # past «(Α΄ 51),»
        reach = min(stop if stop > 0 else len(masked), (end or start) + WINDOW_BEFORE)
        verb = VERBS.search(masked, named[0][2], reach)
        if verb and not BOUNDARY.search(text, named[0][2], verb.start()):
            return named[0][0]
    return _source_of_part_opening(text, masked, start, end or start)


def _source_of_part_opening(text: str, masked: str, start: int, end: int) -> str | None:
    """For an article with no source of its own: the act whose part its sentence opens into, the sentence naming
    no other act and amending that one («Στο Παράρτημα ΙΙ του ν. 4442/2016 (Α’ 230), περί …, τροποποιείται η περ. 6
    περί της έναρξης ισχύος των άρθρων 206 έως 277»: ν. 4442/2016's articles; v18), as an opening into the act itself
    or into one of its articles governs its clause."""
    begin = clause_start(text, max(0, start - OPENING_REACH), start)
    opening = OPENS_INTO_PART.match(masked, begin)
    law = source_at(masked, opening.end()) if opening else None
    if not law or law[2] > start:
        return None
    if any(n[0] != law[0] for n in sources_in(masked, begin, start)):
        return None
    stop = BOUNDARY.search(text, end)
    verb = VERBS.search(masked, law[2], stop.start() if stop else len(masked))
    return law[0] if verb else None


# v21: «του ν. 2523/1997 (άρθρα 17 έως 21)»: articles alone in parentheses right after a law (its gazette issue
# between allowed) are that law's, however the sentence goes on
_OPENS_PARENTHESIS = re.compile(r"(?:\s*\([^()]{0,30}\))?\s*\(\s*$")
_CLOSES_PARENTHESIS = re.compile(r"\s*\)")


def law_before_parenthesis(masked: str, start: int, end: int) -> str | None:
    """The law named right before the parenthesis a bare article stands alone in («… παραπομπή στις ρυθμίσεις του ν.
    2523/1997 (άρθρα 17 έως 21), εννοούνται …», k-010 of recall-v20), or None. Only a law by number and year (a code
    named in words may be the citing law itself, «του Κώδικα (άρθρα 66 έως 69)»), and only where the parenthesis
    holds the article and nothing else."""
    if not _CLOSES_PARENTHESIS.match(masked, end):
        return None
    laws = [n for n in sources_in(masked, max(0, start - 80), start) if "/" in masked[n[1]:n[2]]]
    if not laws or not _OPENS_PARENTHESIS.fullmatch(masked, laws[-1][2], start):
        return None
    return laws[-1][0]


def only_references_between(masked: str, a: int, b: int) -> bool:
    """Whether ``masked[a:b]`` joins two references and nothing else: «του άρθρου 5 και της παρ. 2 του», «του
    άρθρου 23, περί μεταβατικών διατάξεων, του»; not «του άρθρου 80 και την εισφορά της περ. ε’ … του», where a noun
    of its own starts a new item whose law the later one names."""
    gap = PARENTHESES.sub(" ", masked[a:b])
    gap = re.sub(r",?\s*περι\s[^,]*", " ", gap)
    return all(JOINING_WORD.match(w) for w in re.findall(r"[α-ω]{4,}", gap))


_RUN_ITEM_BEFORE = re.compile(r"(?<!\w)στ(?:ο|ην|η|ισ)\s+$")
_REFERENCE_REPLACED = re.compile(r"\bνοειται\s+(?:εφεξησ\s+)?αναφορα\b")


def changed_in_run(text: str, masked: str, start: int, end: int) -> bool:
    """Whether an article of a described run that opens its sentence with «Στ…» is changed by the sentence's verb
    after the run's law («4. Στην παρ. 2 του άρθρου 94, περί …, στο άρθρο 809, περί …, του Κώδικα Πολιτικής
    Δικονομίας όπου γίνεται αναφορά στο ειρηνοδικείο νοείται αναφορά στο μονομελές πρωτοδικείο»; «… καταργείται η
    αναφορά στο ειρηνοδικείο»): a change in the wording of each, so amends (v20)."""
    if not _RUN_ITEM_BEFORE.search(masked, max(0, start - 8), start):  # not one a description names («εκείνες των
        return False  # άρθρων 792 και 797»)
    run = DESCRIBED_RUN.match(masked, end)
    law = source_at(masked, run.end() - 4) if run else None
    if not law:
        return False
    begin = clause_start(text, max(0, start - 4000), start)
    if not ITEM_OPENING.match(text, begin):
        return False
    stop = SENTENCE_END.search(text, law[2])
    rest = slice(law[2], stop.start() if stop else len(text))
    return bool(VERBS.search(masked, rest.start, rest.stop) or _REFERENCE_REPLACED.search(masked, rest.start, rest.stop))
