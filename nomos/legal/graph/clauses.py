"""The clause around a reference, as the legal graph's extractor reads it: where the clause starts, which verb types
the reference (amends, replaces, inserts, repeals, else cites), which references join into one group that takes
one kind, and the lists a colon opens («καταργούνται οι ακόλουθες διατάξεις του ν. 4070/2012:»), which carry their
verb and their law to every item below them.

Text comes in two forms of the same length: ``text`` as written (case and line breaks tell where a clause ends) and
``masked``, folded with quoted new wording blanked (``nomos.legal.graph.references``). The words are those of
``nomos.legal.graph.vocabulary``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from nomos.legal.graph.vocabulary import (
    AMENDMENT_KINDS,
    BOUNDARY,
    BY_PROVISION,
    CAPITAL_LOCATIVE,
    CHANGE_OF_ACT,
    CHANGE_OF_ACT_END,
    CITED_BY_WORDS,
    DESCRIBED,
    DESCRIBED_AFTER,
    DESCRIPTIVE,
    FINITE,
    FOREIGN_ACT,
    FOREIGN_AMENDED,
    FOREIGN_LIST,
    GENITIVE_BEFORE,
    IN_PROVISION,
    ITEM_AFTER,
    ITEM_LINE,
    ITEM_OPENING,
    ITEM_PARAGRAPH,
    ITEM_START,
    LIST_AFTER,
    LIST_OPENER,
    LIST_OPENING,
    NOMINATIVE,
    NOUN_BEFORE,
    NUMBERED,
    OPENS_ITEMS,
    OPENS_LIST,
    PARENTHESES,
    PROVISIONS_OF,
    SUBJECT_BEFORE,
    SUBJECT_REACH,
    SUBORDINATE,
    TIME_OPENING,
    TRANSPOSITION_NOTE,
    VERBS,
    VERBS_AFTER,
    WINDOW_AFTER,
    WINDOW_BEFORE,
    WORDS_OBJECT,
)
from nomos.legal.text.citations import Citation, sources_in


def clause_start(text: str, begin: int, start: int) -> int:
    """Where the clause that holds ``start`` begins: after the last clause boundary in ``text[begin:start]``, else
    at ``begin``."""
    ends = [m.end() for m in BOUNDARY.finditer(text, begin, start)]
    return ends[-1] if ends else begin


def verb_kind(masked: str, a: int, b: int) -> str | None:
    """The kind the first amendment verb in ``masked[a:b]`` gives, or None where there is none."""
    m = VERBS.search(masked, a, b)
    return m.lastgroup if m else None


def verb_between(masked: str, a: int, b: int) -> bool:
    """Whether a finite verb stands in ``masked[a:b]`` outside what only describes the reference before it («,
    όπως ισχύει,», «, που προστέθηκε με …»)."""
    for m in FINITE.finditer(masked, a, b):
        segment = max(masked.rfind(",", a, m.start()), masked.rfind("(", a, m.start()), a)
        if not DESCRIPTIVE.match(masked, segment, m.start()):
            return True
    return False


def amendment_kind(text: str, masked: str, start: int, end: int, prev_end: int, next_start: int,
                   list_kind: str | None, list_start: int = 0) -> str:
    """The kind of edge a group of references is («Η παρ. 1 του άρθρου 5 και η παρ. 2 του άρθρου 6
    αντικαθίστανται»: one group, one kind): an amendment verb in its own clause after it («Το άρθρο 5 …
    αντικαθίσταται ως εξής»), else a title's noun right before it («Τροποποίηση της παρ. 1 του άρθρου 7»), else a
    verb close before it («Καταργείται το άρθρο 5»), else the verb over the list it stands in, else cited.

    v15: a provision that opens a list of changes takes the kind of the items' verbs; a verb after the reference
    types it only where the reference is its subject or object (:func:`another_subject`, :func:`in_time_phrase`);
    a list's verb types only the items that have no main verb of their own."""
    stop = min(next_start, end + WINDOW_AFTER, len(masked))
    if OPENS_LIST.match(masked, end) or OPENS_ITEMS.match(masked, end):
        listed = _kind_of_items(text, masked, start, end)
        if listed:
            return listed
        stop = min(end + LIST_AFTER, len(masked))
    elif DESCRIBED.match(masked, end):
        # «Η παρ. 4 του άρθρου 18 του ν. 2882/2001, όπως αντικαταστάθηκε με την περ. ε΄ του άρθρου 31 του ν. 3130/2003,
        # αντικαθίσταται»: the verb comes after what describes the reference, whatever other references that names
        stop = min(end + DESCRIBED_AFTER, len(masked))
    b = BOUNDARY.search(text, end, stop)
    blanked = PARENTHESES.sub(lambda m: " " * len(m.group(0)), masked[:stop])
    kind = kind_after(blanked, end, b.start() if b else stop)
    if kind and not another_subject(text, blanked, start, end, b.start() if b else stop) \
            and not in_time_phrase(text, masked, start):
        return kind
    noun = NOUN_BEFORE.search(masked, max(0, start - 120), start)
    if noun:
        return noun.lastgroup or "cites"
    begin = max(start - WINDOW_BEFORE, prev_end, 0)
    kind = verb_kind(masked, clause_start(text, begin, start), start) or subject_of(text, masked, start, end)
    if kind or not list_kind:
        return kind or "cites"
    # the list's verb types an item that is no clause of its own («4. Όπου … γίνεται παραπομπή … στο άρθρο 44 του ν.
    # 4314/2014 νοείται εφεξής η παρ. 3 του άρθρου 27 του παρόντος» has its own verb; v15)
    items = list(ITEM_START.finditer(masked, max(list_start, start - SUBJECT_REACH), start))
    item = items[-1].end() if items else max(list_start, start - SUBJECT_REACH)
    return "cites" if main_verb_between(masked, item, start) else list_kind


def main_verb_between(masked: str, a: int, b: int) -> bool:
    """Whether a finite verb of a main clause stands in ``masked[a:b]``: not one in a relative or subordinate clause
    («… Ν.Π.Ι.Δ. που προσλαμβάνουν προσωπικό μέσω Α.Σ.Ε.Π., καθώς και το άρθρο 3 του ν. 2643/1998» is still an item
    of the list; v15)."""
    for m in FINITE.finditer(masked, a, b):
        segment = max(masked.rfind(",", a, m.start()), masked.rfind("(", a, m.start()), a)
        if not SUBORDINATE.search(masked, segment, m.start()):
            return True
    return False


def _kind_of_items(text: str, masked: str, start: int, end: int) -> str | None:
    """«1. Στο άρθρο 95 του ν. 4070/2012 (Α’ 82), α) η περ. α’ της παρ. 3 τροποποιείται …, β) προστίθεται παρ. 6
    …»: a provision named where a clause opens, then items on lines of their own, is what the items change; the
    verbs over the items (to the next numbered paragraph) type it, several kinds giving "amends" (v15)."""
    begin = clause_start(text, max(0, start - 200), start)
    capital = [m.start() for m in CAPITAL_LOCATIVE.finditer(text, begin, start)]
    if not any(IN_PROVISION.match(masked[at:start]) for at in [begin, *capital[-1:]]):
        return None
    nxt = NUMBERED.search(masked, end)
    limit = min(nxt.start() if nxt else len(masked), end + LIST_AFTER)
    return kind_after(PARENTHESES.sub(lambda m: " " * len(m.group(0)), masked[:limit]), end, limit)


def in_time_phrase(text: str, masked: str, start: int) -> bool:
    """Whether a reference in the genitive stands in the phrase that opens its clause with when or by what («Από
    την ημερομηνία έκδοσης της Πράξης … του άρθρου 51 του ν. 4622/2019 … καταργούνται:»): the verb after it does
    something else then, and the reference is cited (v15). A subject after such a phrase («Από 1.1.2022 το άρθρο 5
    καταργείται») is not in the genitive."""
    begin = clause_start(text, max(0, start - 300), start)
    return bool(TIME_OPENING.match(text, begin)) and bool(GENITIVE_BEFORE.search(masked, max(0, start - 6), start))


def another_subject(text: str, masked: str, start: int, end: int, stop: int) -> bool:
    """Whether the verb after a reference (in ``masked[end:stop]``, parentheses blanked) has a subject of its own that
    is not the reference (v15): a noun in the nominative right after it («Από την έναρξη ισχύος των άρθρων 145 έως
    και 150 η Μεταφραστική Υπηρεσία … καταργείται»), at the head of a clause after a comma that closes the phrase it
    stands in («… των οριζομένων στο άρθρο 13 ποσοστών ανά ειδική κατηγορία, οι πίνακες … διαμορφώνονται») or after
    «και» and words of a new clause («… την αδειοδοτούσα αρχή του άρθρου 225 και σε περίπτωση ουσιωδών μεταβολών η
    έγκριση τροποποιείται»). The verb then does to that subject what it says, and the reference is cited. Not where
    the clause opens in the provision («Στην παρ. 1 του άρθρου 86, ο Υπηρεσιακός Γραμματέας … αντικαθίσταται»:
    what is replaced is in it), nor for a subject joined to it («Η παρ. 1 … και η υπό στοιχεία … απόφαση …
    καταργούνται»)."""
    verb = VERBS_AFTER.search(masked, end, stop)
    if not verb:
        return False
    noun = NOMINATIVE.search(masked, end, verb.start())
    if not noun:
        return False
    begin = clause_start(text, max(0, start - 200), start)
    capital = [m.start() for m in CAPITAL_LOCATIVE.finditer(text, begin, start)]  # «… του ΚΠολΔ Στην παρ. 2 …»
    if any(IN_PROVISION.match(masked[at:start]) for at in [begin, *capital[-1:]]):
        return False
    before = masked[end:noun.start()]
    if not before.strip():
        return True
    if re.search(r"(?:\bκαι|,)\s*$", before):
        if re.search(r"\bκαι\s*$", before) or DESCRIBED.match(masked, end):
            return False  # «… και η υπό στοιχεία … απόφαση»: subjects joined; «, η οποία …»: what describes it
        first = before.split(",", 1)[0]
        return bool(first.strip()) and not re.fullmatch(r"\s*(?:και\s+)?(?:τ\w{1,3}\s+)?(?:αρθρ|παρ|περ)\S*.*", first)
    return bool(re.match(r"\s*και\s+(?!(?:η|ο|οι|το|τα|του|τησ|των)\s)[α-ω]", before)) and "," not in before


def subject_of(text: str, masked: str, start: int, end: int) -> str | None:
    """The kind of a verb that opens a clause whose subjects are listed, this reference among them: «καταργούνται τα
    άρθρα 7 έως 15 … του ν. 3852/2010 (Α’ 87), περί …, καθώς και τα άρθρα 19 έως και 74 του ν. 3463/2006».
    Only a reference written as a subject («τα άρθρα», «η παρ.»), with no verb of its own after it and none between."""
    if not SUBJECT_BEFORE.search(masked, max(0, start - 12), start):
        return None
    verbs = list(VERBS.finditer(masked, clause_start(text, max(0, start - SUBJECT_REACH), start), start))
    if not verbs or verb_between(masked, verbs[-1].end(), start):
        return None
    comma = re.search(r",|$", masked[end:end + 200])
    assert comma is not None  # «$» always matches
    after = comma.start()
    return None if verb_between(masked, end, end + after) else verbs[-1].lastgroup


def kind_after(masked: str, a: int, b: int) -> str | None:
    """The kind the verbs after a reference give it: one verb's kind; "amends" where the clause makes several kinds
    of change («η περ. β’ … αντικαθίσταται, προστίθεται παρ. 5 και … διαμορφώνεται», «α) στην παρ. 3 προστίθεται …,
    β) τροποποιείται η παρ. 6») or deletes words rather than the provision («απαλείφονται οι λέξεις «…»»)."""
    kinds, formula = set(), False
    for m in VERBS_AFTER.finditer(masked, a, b):
        if BY_PROVISION.match(masked, m.end()):
            continue  # «όπως η περίπτωση αυτή τροποποιείται με την παρ. 1 του άρθρου 8 του παρόντος»: describes it
        if m.group(0).startswith("διαμορφων"):
            formula = True  # «… και το άρθρο 5 διαμορφώνεται ως εξής» closes a change of any kind: the others type it
            continue
        kind = m.lastgroup or "cites"
        kinds.add("amends" if kind == "repeals" and WORDS_OBJECT.match(masked, m.end()) else kind)
    if len(kinds) > 1:
        return "amends"
    return kinds.pop() if kinds else ("amends" if formula else None)


def opens_with_title_tail(text: str, start: int) -> bool:
    head = text[:start].strip()
    first = (head or text.strip())[:1]
    return len(head) <= 40 and first.islower()


def later_kinds(text: str, masked: str, groups: list[list[Citation]], lists: list[ListSpan]) -> Iterator[tuple[str, set[str]]]:
    """(kind, ids) of the groups after the first that are amendments, in reading order."""
    for g in range(1, len(groups)):
        group = groups[g]
        start, end = group[0].start, max(c.end for c in group)
        next_start = groups[g + 1][0].start if g + 1 < len(groups) else len(masked)
        kind = amendment_kind(text, masked, start, end, max(c.end for c in groups[g - 1]), next_start, None)
        if kind in AMENDMENT_KINDS:
            yield kind, {c.id for c in group}


def groups_of(text: str, masked: str, raw: list[Citation]) -> list[list[Citation]]:
    """References joined by «και» or a comma with nothing but articles and paragraphs between («των παρ. 4 του
    άρθρου 87 και των παρ. 3 του άρθρου 89»; a list «άρθρα 1 έως 60» is one span already): one group each."""
    groups: list[list[Citation]] = []
    for c in raw:
        if groups:
            last = groups[-1][-1]
            gap = masked[last.end:c.start]
            if c.start <= last.start or (len(gap) <= 60 and re.search(r"\b(?:και)\b|,", gap)
                                         and not BOUNDARY.search(text, last.end, c.start)
                                         and not VERBS.search(gap) and not CITED_BY_WORDS.search(gap)):
                groups[-1].append(c)
                continue
        groups.append([c])
    return groups


@dataclass(frozen=True)
class ListSpan:
    """A list a colon opens: where it applies, the kind its verb gives (None: no verb), the source it names ("":
    none; FOREIGN_LIST: a source the resolver cannot name, so an article without its own is no edge)."""

    start: int
    end: int
    kind: str | None
    source: str


def lists_of(text: str, folded: str, masked: str) -> list[ListSpan]:
    """The lists of an article: «καταργούνται οι ακόλουθες διατάξεις του ν. 4070/2012:» makes every item below it
    a repeal of that law; «Στο π.δ. 40/2020 επέρχονται οι ακόλουθες τροποποιήσεις:» items amendments of that
    decree. An opening sentence that names the act it amends, then items rather than new wording («Το π.δ. 54/2018
    τροποποιείται ως εξής: 1. Το άρθρο 13 αντικαθίσταται …»), and a clause that opens an item, then lettered items
    («1. Στο άρθρο 95 του ν. 4070/2012 (Α’ 82), α) … β) … και το άρθρο 95 διαμορφώνεται»), give the items their
    law and no verb: each item's own verb types it (v15). A list runs to the next numbered paragraph when its own
    line is numbered, else over the item lines below it; lines inside quoted new wording are the item's (v15)."""
    out: list[ListSpan] = []
    for m in LIST_OPENER.finditer(masked):
        as_follows = bool(re.search(r"ωσ\s+(?:εξησ|ακολουθωσ)\s*$", masked[max(0, m.start() - 16):m.start()]))
        if as_follows and not ITEM_AFTER.match(folded, m.end()):
            continue  # «ως εξής:» opens new wording (quoted or not), not a list
        begin = clause_start(text, max(0, m.start() - 300), m.start())
        line = text.rfind("\n", 0, begin) + 1
        kind = verb_kind(masked, begin, m.start())
        verb = VERBS.search(masked, begin, m.start())
        if verb and NOMINATIVE.search(masked, begin, verb.start()):
            kind = None  # «Η ημερήσια διάταξη … διαμορφώνεται … με θέματα, όπως:»: the verb's subject is no item (v15)
        comma = m.group(0) == ","
        if comma and (kind or not ITEM_OPENING.match(text, begin) or verb_between(masked, begin, m.start())):
            continue  # a comma opens items only after a clause «Στο άρθρο 95 του ν. 4070/2012 (Α’ 82),» with no verb
        # without a verb, the law a list belongs to is one its opening names after a capital «Στο/Στην» («Στο άρθρο
        # 20 του ν. 4014/2011 (Α΄ 209):») or as «διατάξεις του»; a law named as a yardstick in a clause that merely
        # ends in a colon («σύμφωνα με τα οριζόμενα στο άρθρο 84 του ν. 4727/2020: …») is not the items' law
        named = sources_in(masked, begin, m.start())
        if named and kind and verb and named[-1][1] < verb.start() and TIME_OPENING.match(text, begin):
            # «Από την ημερομηνία έκδοσης της Πράξης … του άρθρου 51 του ν. 4622/2019 … καταργούνται:»: a law named
            # before the verb, in what sets its time or terms, is not the items' law (v15)
            named = []
        if named and (comma or not kind) and not (
                LIST_OPENING.search(text, begin, named[-1][1])
                or (not comma and PROVISIONS_OF.search(masked, max(begin, named[-1][1] - 20), named[-1][1]))
                or (not comma and not kind and _changes_act(masked, named[-1], m.start()))):
            named = []
        foreign = FOREIGN_AMENDED if as_follows else FOREIGN_ACT
        note = TRANSPOSITION_NOTE.match(masked, begin) if begin == 0 else None  # v19: «(άρθρο 44 της Οδηγίας …)»
        source = named[-1][0] if named else (
            FOREIGN_LIST if foreign.search(masked, note.end() if note else begin, m.start()) else "")
        if comma and not named:
            continue
        if comma or as_follows:
            if not source:
                continue
            kind = None  # the opening names the items' law; each item's own verb types its references
        if not kind and not source:
            continue
        end = len(text)
        if NUMBERED.match(masked, max(0, line - 1)):  # from the newline before the line («^» is the text's start only)
            nxt = NUMBERED.search(masked, m.end())
            end = nxt.start() if nxt else end
        else:  # a list of its own runs over the item lines below it, to the first line that is no item
            at = masked.find("\n", m.end())
            while at != -1 and ITEM_LINE.match(folded, at + 1):
                at = masked.find("\n", at + 1)
            end = len(text) if at == -1 else at
        out.append(ListSpan(m.end(), end, kind, source))
    return out


def _changes_act(masked: str, named: tuple[str, int, int], colon: int) -> bool:
    """Whether a list's opening names its act after a noun of change and then only announces the items («Αντικείμενο
    του παρόντος Μέρους αποτελεί η τροποποίηση του ν. 4963/2022 (Α’ 149), και συγκεκριμένα:»): the items' bare
    articles are that act's (v19), as under «Το π.δ. 54/2018 τροποποιείται ως εξής:»."""
    return bool(CHANGE_OF_ACT.search(masked, max(0, named[1] - 30), named[1])
                and CHANGE_OF_ACT_END.fullmatch(masked, named[2], colon))


_LIST_ITEM = re.compile(ITEM_START.pattern.replace("[,;]", "[,;:]"))  # the first item follows the opening's colon


@dataclass(frozen=True)
class ItemParagraph:
    """A paragraph an item of a list of changes names with no article of its own (``span``, ``par``), the kind its
    item's verb gives, and where the list's opening clause starts and ends (``opening``: what names the article)."""

    span: tuple[int, int]
    par: str
    kind: str
    opening: tuple[int, int]


def item_paragraphs(text: str, masked: str, lists: list[ListSpan]) -> list[ItemParagraph]:
    """«Στο άρθρο 5 του ν. 393/1976 (Α’ 199), …, επέρχονται οι εξής τροποποιήσεις: α) … γ) στο τρίτο εδάφιο της παρ.
    1, γα) η φράση «…» αντικαθίσταται …»: the paragraphs the items of a list of changes name with no article, each with
    the kind of its item's amendment verbs (its sub-items «γα)», «γβ)» included, up to the next item): their one kind,
    or ``amends`` where they differ (v22: «β) στην παρ. 2: βα) … αντικαθίσταται …, ββ) … προστίθεται …» changes the
    paragraph in several ways; v18 took the first verb's, and blind readers judged five such warnings' kinds wrong); an
    item with no such verb gives none (v18)."""
    out: list[ItemParagraph] = []
    for x in lists:
        if not x.source:
            continue
        opening = (clause_start(text, max(0, x.start - 300), x.start - 1), x.start)
        items = list(_LIST_ITEM.finditer(masked, x.start - 1, x.end))
        for i, item in enumerate(items):
            m = ITEM_PARAGRAPH.match(masked, item.end())
            if not m:
                continue
            label = re.sub(r"[^α-ω\d]", "", masked[item.start():item.end()])
            nxt = next((n.start() for n in items[i + 1:]
                        if not re.sub(r"[^α-ω\d]", "", masked[n.start():n.end()]).startswith(label)), x.end)
            kinds = {v.lastgroup for v in VERBS.finditer(masked, m.end(), nxt) if v.lastgroup}
            if kinds:  # several different changes under one item («βα) … αντικαθίσταται, ββ) … προστίθεται»): amends
                kind = kinds.pop() if len(kinds) == 1 else "amends"
                out.append(ItemParagraph((m.start("span"), m.end("span")), m.group("par").upper(), kind, opening))
    return out
