"""The instructions an amending article gives, read from its text: what it does (replace, insert, repeal, replace
words …), to which part of which article (a :class:`~nomos.legal.amendment_places.Place`), with which new wording.

The text is read on its folded form with quotations blanked (quoted new wording holds verbs and article numbers of
its own, which are the amended law's words, not instructions). The reading:

1. the article is cut into its items («1.», «2.» … at a line's start) and their sub-items («α)», «β)» …, «αα)»);
2. a place with «στο/στην …» at the start of a clause («Στο άρθρο 465 ΠΚ:», «Στην παρ. 4 του άρθρου 82 ΠΚ»,
   «στο τέλος της παρ. 1») is the context of what follows it in its item and sub-items: «η παρ. 3» there is that
   article's paragraph 3;
3. each amendment verb (αντικαθίσταται, διαμορφώνεται, τροποποιείται, προστίθεται, καταργείται, απαλείφεται,
   διαγράφεται …) takes the place in the nominative before it in its clause («Η παρ. 2 … αντικαθίσταται»; «… και
   διαμορφώνεται» shares the subject of the verb before it) or the one right after it («καταργείται η παρ. 3»,
   «προστίθεται παρ. 7»), the quoted new wording after «ως εξής:», or the quoted words of a word replacement («η
   λέξη «X» αντικαθίσταται από τη λέξη «Y»», «μετά τη λέξη «X» προστίθενται οι λέξεις «Y»»);
4. a change stated without its wording («τροποποιείται ως προς την ποινή», «προστίθεται τρίτο εδάφιο») followed in
   the same item by the new wording of a unit that holds it («και το άρθρο 372 διαμορφώνεται ως εξής: «…»») is
   that new wording's description: it is part of that instruction, not one of its own (the legislator states the
   enacted text in the quotation; the words before it summarise it).

Which corpus article a place's article number is, is the legal graph's business: :func:`bind` looks up the
extractor's reference whose span covers the number. What is read but cannot be applied exactly carries a
``problem`` (an unclosed or unquoted wording, a renumbering), so the engine lists it instead of applying it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from nomos.legal.amendment_places import (
    ACCUSATIVE,
    DATIVE,
    NOMINATIVE,
    Phrase,
    Place,
    phrases,
)
from nomos.legal.article_parts import case_index, paragraphs, quote_spans
from nomos.legal.citations import fold

VERB = re.compile(
    r"(?<![\w])(?:(?P<replace>αντικαθιστα(?:ται|νται))"
    r"|(?P<form>διαμορφωνε(?:ται)|διαμορφωνονται|αναδιατυπωνε(?:ται)|αναδιατυπωνονται)"
    r"|(?P<modify>τροποποιε(?:ιται)|τροποποιουνται|συμπληρωνε(?:ται)|συμπληρωνονται|διορθωνε(?:ται)|διορθωνονται)"
    r"|(?P<insert>προστιθε(?:ται|νται)|παρεμβαλλε(?:ται)|παρεμβαλλονται)"
    r"|(?P<repeal>καταργει(?:ται)|καταργουνται|απαλειφε(?:ται)|απαλειφονται|διαγραφε(?:ται)|διαγραφονται)"
    r"|(?P<renumber>αναριθμει(?:ται)|αναριθμουνται))(?![\w])"
)
_DESCRIBED = re.compile(r"(?<![\w])οπωσ\s+(?:\w+\s+)?$")  # «όπως τροποποιείται με …»: a description, no instruction
AS_FOLLOWS = re.compile(r"(?:ωσ\s+εξησ|ωσ\s+ακολουθωσ|ωσ\s+κατωτερω|ωσ\s+ακολουθουν|εξησ(?=\s*:))\s*[:·.]?\s*")
_WITH = re.compile(r"\s*,?\s*(?:απο|με)\s+(?:(?:τη|την|τισ|τον|το|τα|τουσ|τo)\s+)?"
                   r"(?:(?:λεξ|φρασ|αριθμ|ημερομηνι|παραπομπ|προτασ|χρονολογι)\w*\s*)?(?=«)")
_AFTER_WORDS = re.compile(r"(?<![\w])(?P<where>μετα|πριν)\s+(?:απο\s+)?(?:(?:τη|την|τισ|τον|το|τα|τουσ)\s+)?"
                          r"(?:λεξ|φρασ|αριθμ|ημερομηνι|παραπομπ|προτασ|χρονολογι)\w*\s*(?=«)")
_AFTER_PLACE = re.compile(r"(?<![\w])(?P<where>μετα|πριν)\s+(?:απο\s+)?(?=(?:τη|την|τισ|τον|το|τα|τουσ)\s)")
# an item «N.» opens a line, or follows the closing mark of the item before it on the same line («… 2024.» 5. α) …»);
# «1.α)» (no space before its first sub-item) is an item too
_ITEM = re.compile(r"(?m)(?:^[ \t\xa0]*|(?<=»)[.;]?[ \t\xa0]+)(?P<n>\d{1,3})[ \t\xa0]*\.(?=[ \t\xa0]|\n|[α-ω]{1,2}\))")
_SUBITEM = re.compile(r"(?:(?<=^)|(?<=\n)|(?<=[:;,.])|(?<=[:;,.][ \t])|(?<=\sκαι\s))[ \t\xa0]*"
                      r"(?P<l>[α-ω]{1,3})[΄'’]?\)(?=\s)")
_SUBITEM_DOT = re.compile(r"(?m)^[ \t\xa0]*(?P<l>[α-ω]{1,3})\.(?=[ \t\xa0])")  # «α. …» at a line's start
_NOT_ITEM = re.compile(r"(?:περ|παρ|εδ|στοιχ|υποπερ|περιπτωσ\w*)\.?\s*$")  # «της περ. β)»: a reference, no item
_CLAUSE_BREAK = re.compile(r"[:;]|\.\s+(?=[α-ωά-ώ]?[Α-ΩΆ-Ώ])")
UNIT_NOT_READ = ("the unit the new wording replaces is not read (a sub-paragraph, a definition or a point numbered "
                 "like 2.1.3): only the unit it stands in is named, and the wording does not open as that unit's")
_LIST_OPENER = re.compile(r"(?:οι|τα)\s+(?:ακολουθ\w+|εξησ|κατωθι|παρακατω)\s+(?:διαταξ\w+|αρθρ\w+)[^:«»]{0,120}:\s*$")


@dataclass(frozen=True)
class Instruction:
    """One instruction read from an amending article.

    ``action``: replace-article, replace-paragraph, replace-case, replace-sentence, replace-title,
    insert-paragraph, insert-sentence, insert-case, repeal (the whole article), repeal-paragraph, repeal-case,
    repeal-sentence, replace-words, delete-words, insert-words, «describe» (a change stated without its
    wording), or «insert-articles» (new articles put after this one: no instruction for its text). ``place`` is
    the part acted on, with its context; ``wording`` the quoted new text (one item per quotation); ``old``/``new``
    the quoted phrases of a word instruction; ``where`` for an insertion: "end", "start", "after" or "before" (of
    ``anchor``), "" where the numbering places it. ``start``/``end``: the instruction's words in the amending text
    (with the descriptions it absorbed). ``problem``: why it cannot be applied exactly, though read ("" when it can
    be tried)."""

    action: str
    place: Place
    start: int
    end: int
    wording: tuple[str, ...] = ()
    old: tuple[str, ...] = ()
    new: str = ""
    where: str = ""
    anchor: Place | None = None
    problem: str = ""
    anchor_words: str = ""
    described: tuple[tuple[int, int], ...] = field(default=())
    verb: str = ""
    inserted: tuple[str, ...] = ()  # the paragraphs the instruction itself adds («προστίθεται παρ. 9»), its own or absorbed
    everywhere: bool = False  # «όπου αναφέρεται η φράση …»: every occurrence

    def words(self, text: str) -> str:
        """The instruction's words as the amending article writes them."""
        return " ".join(text[self.start:self.end].split())


@dataclass(frozen=True)
class _Segment:
    start: int
    end: int
    depth: int


_LATIN = str.maketrans("abehikmnoptxyv", "αβεηικμνορτχυν")
_LOOKALIKE_WORD = re.compile(r"(?<![\w])(?:(?=\w*[a-z])(?=\w*[α-ω])\w+|h|o|to|ta|oi)(?![\w])")


def _greek_lookalikes(folded: str) -> str:
    """Latin letters typed for Greek ones («To άρθρο», «H παρ. 4», «v. 4772/2021» folded): Greek again, in
    words that mix both alphabets and in the few Greek words made of lookalikes only (same length)."""
    return _LOOKALIKE_WORD.sub(lambda m: m.group(0).translate(_LATIN), folded)


def mask(text: str) -> str:
    """The folded text with every quotation's inside blanked (same length; «» kept), Latin lookalikes in Greek
    words read as Greek."""
    chars = list(_greek_lookalikes(fold(text)))
    for a, b in quote_spans(text):
        for k in range(a + 1, b - 1 if text[b - 1:b] == "»" else b):
            if chars[k] != "\n":
                chars[k] = " "
    return "".join(chars)


def _segments(masked: str) -> list[_Segment]:
    """The article's items and sub-items (depth 1, 2, 3), each with its span; the whole text is depth 0."""
    out = [_Segment(0, len(masked), 0)]
    items: list[int] = []
    expected = 1
    for m in _ITEM.finditer(masked):
        if int(m.group("n")) == expected:
            items.append(m.start("n"))
            expected += 1
    bounds = items + [len(masked)]
    spans = [(bounds[i], bounds[i + 1]) for i in range(len(items))] or [(0, len(masked))]
    for a, b in spans:
        if items:
            out.append(_Segment(a, b, 1))
        subs: list[tuple[int, str]] = []
        expected_sub = 0
        marks = sorted([*_SUBITEM.finditer(masked, a, b), *_SUBITEM_DOT.finditer(masked, a, b)],
                       key=lambda m: m.start("l"))
        for m in marks:
            letter = m.group("l")
            if _NOT_ITEM.search(masked, max(0, m.start("l") - 10), m.start("l")):
                continue
            index = case_index(letter)
            if index is not None and index == expected_sub:
                subs.append((m.start("l"), letter))
                expected_sub += 1
        sub_bounds = [s for s, _ in subs] + [b]
        for i, (s, letter) in enumerate(subs):
            out.append(_Segment(s, sub_bounds[i + 1], 2))
            inner: list[int] = []
            first = fold(letter)
            expected_inner = 0
            for m in _SUBITEM.finditer(masked, s + len(letter) + 1, sub_bounds[i + 1]):
                two = m.group("l")
                if _NOT_ITEM.search(masked, max(0, m.start("l") - 10), m.start("l")):
                    continue
                if len(two) >= 2 and two.startswith(first) and case_index(two[len(first):]) == expected_inner:
                    inner.append(m.start("l"))
                    expected_inner += 1
            inner_bounds = inner + [sub_bounds[i + 1]]
            out.extend(_Segment(inner[k], inner_bounds[k + 1], 3) for k in range(len(inner)))
    return out


def _chain(segments: list[_Segment], pos: int) -> list[_Segment]:
    """The segments holding ``pos``, outermost first."""
    return sorted((s for s in segments if s.start <= pos < max(s.end, s.start + 1)), key=lambda s: s.depth)


@dataclass(frozen=True)
class _Verb:
    kind: str
    start: int
    end: int


def _verbs(masked: str) -> list[_Verb]:
    out = []
    for m in VERB.finditer(masked):
        if _DESCRIBED.search(masked, max(0, m.start() - 40), m.start()):
            continue
        out.append(_Verb(m.lastgroup or "modify", m.start(), m.end()))
    return out


def _is_context(text: str, masked: str, p: Phrase) -> bool:
    """A «στο/στην …» phrase (or «στο τέλος της …») that opens a clause: at the text's or a line's start, after a
    comma, colon, «και», a sub-item's mark or a bracket, or written with a capital (a sentence's start after the
    tail of a title)."""
    if p.det not in DATIVE:
        return False
    if text[p.start:p.start + 1].isupper() or not masked[:p.start].strip():
        return True
    return re.search(r"(?:[,:;]\s*|\bκαι\s+|\n\s*|\)\s*|^\s*)$", masked[max(0, p.start - 8):p.start]) is not None


def _is_position(masked: str, p: Phrase) -> bool:
    """«Μετά το δεύτερο εδάφιο της περ. ιδ’ της παρ. 2 του άρθρου 113 … προστίθενται»: a place an insertion is
    put after (or before) names the article too."""
    if p.det not in ACCUSATIVE | {"το", "τα"} or not p.place.articles:
        return False
    return any(m.end() == p.start for m in _AFTER_PLACE.finditer(masked, max(0, p.start - 16), p.start + 8))


def _payload(text: str, masked: str, at: int, quotes: list[tuple[int, int]]) -> tuple[list[tuple[int, int]], int]:
    """The quotations of new wording that start at ``at`` (after «ως εξής:»): the first, and each next one that
    opens a numbered unit after only punctuation («4. …». «9. …»); their spans, and where the last ends."""
    pos = at
    while pos < len(masked) and masked[pos] in " \t\n\xa0":
        pos += 1
    first = next((q for q in quotes if q[0] == pos), None)
    if first is None:
        return [], at
    out = [first]
    pos = first[1]
    gap = re.compile(r"[\s.,;·]*(?:και\s+)?")
    unit = re.compile(r"«\s*(?:\d{1,3}[Α-Ωα-ω]?\s*\.|\(?[α-ω]{1,3}[΄'’]?\))")
    while True:
        nxt = gap.match(masked, pos).end()
        q = next((s for s in quotes if s[0] == nxt), None)
        if q is None or not unit.match(text, nxt):
            break
        out.append(q)
        pos = q[1]
    return out, pos


def _inner(text: str, span: tuple[int, int]) -> str:
    """A quotation's words: inside its marks, closed or not."""
    a, b = span
    inner = text[a + 1:b - 1] if text[b - 1:b] == "»" else text[a + 1:b]
    return inner.strip()


def _closed(text: str, span: tuple[int, int]) -> bool:
    return text[span[1] - 1:span[1]] == "»"


_JOIN = re.compile(r"\s*(?:,|και|,\s*και)\s*")
_BEFORE_VERB = re.compile(r"[\s,]*(?:\([^()]{0,80}\)\s*)?$")


def _object_after(masked: str, verb: _Verb, found: list[Phrase], next_verb: int) -> list[Phrase]:
    """The places right after a verb («καταργείται η παρ. 3», «προστίθενται παρ. 2 και 3», «απαλείφονται οι λέξεις
    «…» και οι λέξεις «…»»): nominative or bare heads; more of the same kind joined by «και» or commas, unless
    the next verb follows such a place (it is that verb's subject: «αντικαθίσταται η παρ. 5 και το άρθρο 81
    διαμορφώνεται»)."""
    out: list[Phrase] = []
    pos = verb.end
    for p in found:
        if p.start < pos:
            continue
        if p.start >= next_verb or p.det not in NOMINATIVE or p.head in ("end", "start"):
            break
        gap = masked[pos:p.start]
        if out:
            if not _JOIN.fullmatch(gap) or p.head != out[0].head:
                break
            if p.end <= next_verb and _BEFORE_VERB.match(masked[p.end:next_verb]):
                break
        elif not re.fullmatch(r"\s*,?\s*(?:(?:επισησ|ακομη)\s+)?", gap):
            break
        out.append(p)
        pos = p.end
    return out


def _subject_before(left: int, verb: _Verb, found: list[Phrase]) -> Phrase | None:
    """The last nominative place between ``left`` and the verb (its subject), if any."""
    cands = [p for p in found if left <= p.start and p.end <= verb.start and p.det in NOMINATIVE and p.det
             and p.head not in ("end", "start")]
    return cands[-1] if cands else None


def _list_objects(masked: str, verb: _Verb, segments: list[_Segment], found: list[Phrase]) -> list[Phrase]:
    """«καταργούνται οι ακόλουθες διατάξεις του ν. 4070/2012: α) τα άρθρα 1 έως 3, β) οι περ. …»: the places that
    open each item of the list a colon opens after the verb (and those joined to them by «και» or commas)."""
    colon = re.compile(r"\s*:|[^:«»]{0,160}?(?:διαταξ\w+|αρθρ\w+|κατωθι|ακολουθ\w+|εξησ)[^:«»]{0,120}:").match(masked, verb.end)
    if colon is None:
        return []
    at = colon.end()
    holder = _chain(segments, verb.start)[-1]
    items = [s for s in segments if s.depth == holder.depth + 1 and s.start >= at and s.start < max(holder.end, at + 1)]
    if holder.depth == 0:
        items = [s for s in segments if s.depth == 1 and s.start >= at] or \
            [s for s in segments if s.depth == 2 and s.start >= at]
    out: list[Phrase] = []
    for s in items:
        mark = re.match(r"\s*(?:\d{1,3}\s*\.|[α-ω]{1,3}[΄'’]?\)|[α-ω]{1,3}\.)\s*", masked[s.start:s.end])
        pos = s.start + (mark.end() if mark else 0)
        for p in found:
            if p.start < pos or p.start >= s.end:
                continue
            gap = masked[pos:p.start]
            if not (not gap.strip() or (out and out[-1].start >= s.start and _JOIN.fullmatch(gap))):
                break
            if p.det not in NOMINATIVE or not p.det:
                break
            out.append(p)
            pos = p.end
    return out


def read_instructions(text: str) -> list[Instruction]:
    """Every instruction ``text`` gives, in reading order, each with its place merged with its context."""
    masked = mask(text)
    quotes = quote_spans(text)
    segments = _segments(masked)
    found = phrases(masked)
    verbs = _verbs(masked)
    contexts = [p for p in found if _is_context(text, masked, p) or _is_position(masked, p)]
    out: list[Instruction] = []
    last_subject: dict[int, Phrase] = {}  # segment start -> the place the last verb there acted on
    for vi, verb in enumerate(verbs):
        chain = _chain(segments, verb.start)
        seg = chain[-1]
        prev_end = max([v.end for v in verbs[:vi] if v.end <= verb.start] + [seg.start])
        left = max(seg.start, prev_end)
        breaks = [m.end() for m in _CLAUSE_BREAK.finditer(masked, left, verb.start)]
        subject_left = breaks[-1] if breaks else left  # «Στο άρθρο 465 ΠΚ: α) …»: the subject comes after a colon
        next_verb = verbs[vi + 1].start if vi + 1 < len(verbs) else len(masked)
        context = _context_at(masked, contexts, chain, verb.start, segments)
        after = _object_after(masked, verb, found, next_verb)
        subject = _subject_before(subject_left, verb, found)
        follows = AS_FOLLOWS.match(masked, _skip_object(masked, verb, after))
        wording: list[tuple[int, int]] = []
        wording_end = verb.end
        unquoted = False
        continued: tuple[int, int] | None = None
        continuation_problem = ""
        if follows:
            wording, wording_end = _payload(text, masked, follows.end(), quotes)
            if not wording:
                unquoted = _looks_like_wording(masked, follows.end())
            elif not any(s.depth == 1 for s in chain):
                continued, continuation_problem = _continuation(text, masked, wording[-1])
                if continued is not None:
                    wording_end = continued[1]
        if subject is None and not after and verb.kind in ("form", "replace", "modify") and wording \
                and re.search(r"(?:\bκαι|,)\s*$", masked[prev_end:verb.start]) and seg.start in last_subject:
            subject = last_subject[seg.start]  # «… τροποποιείται ως προς … και διαμορφώνεται ως εξής: «…»»
        elif subject is not None and subject.place.level == 6 and subject.head in ("article", "paragraph") \
                and seg.start in last_subject and last_subject[seg.start].place.articles:
            # «Το άρθρο 96 … τροποποιείται … και το άρθρο διαμορφώνεται ως εξής», «Το πρώτο εδάφιο της παρ. 2 …
            # αντικαθίσταται και η παράγραφος διαμορφώνεται»: the article (paragraph) of the unit just named
            named = last_subject[seg.start].place
            held = Place(named.articles, named.article_span,
                         named.paragraphs if subject.head == "paragraph" else ())
            if subject.head == "paragraph" and not named.paragraphs:
                held = Place()
            subject = replace(subject, place=held)
        listed = _list_objects(masked, verb, segments, found) if verb.kind == "repeal" and not after and not wording \
            else []
        if listed:
            after = listed
        earlier = last_subject.get(seg.start)
        if earlier is not None and not listed:
            # «Η παρ. 4 του άρθρου 12 … τροποποιείται … και η παρ. 4 διαμορφώνεται»: what the clause named before
            # fills what this place and its context leave out
            context = _Context(context.place.within(earlier.place), context.start, context.alternatives) if context \
                else _Context(earlier.place, len(masked))
        acted = after[0] if after else subject
        if acted is not None:
            last_subject[seg.start] = replace(acted, place=acted.place.within(context.place) if context else acted.place)
        position = _position(masked, found, left, verb)
        starts = [x for x in (subject.start if subject else None, after[0].start if after and not listed else None,
                              position[2] if position else None,
                              context.start if context and seg.start <= context.start < verb.start else None)
                  if x is not None]
        start_words = min(starts + [verb.start])
        end_words = max(wording_end, after[-1].end if after and not listed else verb.end)
        everywhere = _EVERYWHERE.search(masked, subject_left, verb.start) is not None
        for ctx in ([_Context(p, context.start) for p in context.alternatives] if context and context.alternatives
                    else [context]):
            made = _make(text, masked, verb, subject, after, ctx, position, wording, quotes, unquoted,
                         start_words, end_words, found, bool(listed), continued=continued,
                         continuation_problem=continuation_problem)
            out.extend(replace(ins, verb=verb.kind, everywhere=everywhere) for ins in made)
    return _absorb(out, segments)


_NUMBERED_LINE = re.compile(r"[\s.,;·]*\n[ \t\xa0]*(\d{1,3})[ \t\xa0]*\.(?=\s)")
CONTINUED_OUTSIDE = ("the quoted new wording closes after its paragraph {0} and paragraphs numbered from {1} follow "
                     "outside the quotation: where the new wording ends cannot be told")


def _continuation(text: str, masked: str, last: tuple[int, int]) -> tuple[tuple[int, int] | None, str]:
    """The paragraphs of a new wording written after its closing mark: «… «Άρθρο 293 … 1. Όποιος … ποινή.».» and
    then «2. …», «3. …», «4. …» on lines of their own (the quotation closes after paragraph 1, the article goes
    on). Read only where nothing else can claim those lines: the instruction stands in no numbered item of the
    amending article (whose next item would be numbered so too: the caller checks), the lines run from N+1 (N: the
    quotation's last paragraph) to the amending article's end, each numbered after the one before, and no
    amendment verb stands in them (they would be instructions). Then the span of those lines, to be read as the
    end of the new wording. Where a line numbered N+1 follows the quotation but the rest does not hold, the
    wording's end cannot be told: the problem says so (the quotation alone would be a guess: an article cut after
    paragraph N)."""
    m = _NUMBERED_LINE.match(text, last[1])
    if m is None or not _closed(text, last):
        return None, ""
    numbered = [p.number for p in paragraphs(_inner(text, last)) if p.number]
    if not numbered or not numbered[-1].isdigit() or int(m.group(1)) != int(numbered[-1]) + 1:
        return None, ""
    problem = CONTINUED_OUTSIDE.format(numbered[-1], m.group(1))
    start = m.start(1)
    rest = text[start:]
    parts = paragraphs(rest)
    expected = int(m.group(1))
    for p in parts:
        if p.number != str(expected):
            return None, problem
        expected += 1
    if VERB.search(masked, start) or rest.count("«") != rest.count("»"):
        return None, problem
    return (start, len(text.rstrip())), ""


def _skip_object(masked: str, verb: _Verb, after: list[Phrase]) -> int:
    """Where «ως εξής» may start after a verb: after its object and a comma («προστίθεται παρ. 9, ως εξής:»), or
    after «και διαμορφώνεται» («αντικαθίσταται και διαμορφώνεται ως εξής»)."""
    pos = after[-1].end if after else verb.end
    m = re.compile(r"\s*,?\s*(?:\([^()]{0,80}\)\s*)?").match(masked, pos)
    return m.end() if m else pos


def _looks_like_wording(masked: str, at: int) -> bool:
    """«… διαμορφώνεται ως εξής:\\n3. α. Με την αίτηση …» with no opening mark: text follows «ως εξής:», and it
    is not the amending article's own items (an opening «Ο ν. … τροποποιείται ως εξής: 1. Το άρθρο 13
    αντικαθίσταται …» is followed by instructions, with verbs of their own)."""
    rest = masked[at:at + 600]
    return bool(rest.strip()) and not VERB.search(rest)


@dataclass(frozen=True)
class _Context:
    place: Place
    start: int
    alternatives: tuple[Place, ...] = ()  # several places listed together: the instruction is each one's


def _deepest(segments: list[_Segment], pos: int) -> _Segment:
    return max((s for s in segments if s.start <= pos < max(s.end, s.start + 1)), key=lambda s: s.depth)


_LISTED = re.compile(r"\s*(?:\([^()]{0,80}\)\s*)?(?:,|και|,\s*και)\s*")
_EVERYWHERE = re.compile(r"(?<![\w])οπου\s+(?:αναφερεται|αναφερονται|αναγραφεται|αναγραφονται|εμφανιζεται|υπαρχει)")


def _context_at(masked: str, contexts: list[Phrase], chain: list[_Segment], pos: int,
                segments: list[_Segment]) -> _Context | None:
    """The context of ``pos``: the «στο/στην …» places before it in the segments holding it (an outer segment's
    only up to where the inner one starts), each within the one before."""
    place: Place | None = None
    start = pos
    mine: list[tuple[Phrase, Place]] = []
    for k, seg in enumerate(chain):
        stop = chain[k + 1].start if k + 1 < len(chain) else pos
        for c in contexts:
            if seg.start <= c.start < stop and c.end <= pos and _deepest(segments, c.start) == seg:
                p = replace(c.place, end=False, start_of=False)
                place = p if place is None else p.within(place)
                start = c.start
                mine.append((c, place))
    if place is None:
        return None
    # «Στις παρ. 4 και 7 του άρθρου 12, στην παρ. 3 του άρθρου 17 και στην παρ. 1 του άρθρου 55 …, όπου αναφέρεται
    # η φράση …»: places listed together are each the instruction's context
    group = [mine[-1]]
    for (c, p), (nxt, _) in zip(reversed(mine[:-1]), reversed(mine[1:]), strict=True):
        if not _LISTED.fullmatch(masked[c.end:nxt.start]) or c.det not in DATIVE:
            break
        group.insert(0, (c, p))
    alternatives = tuple(p for _, p in group) if len(group) > 1 else ()
    return _Context(place, group[0][0].start if alternatives else start, alternatives)


def _position(masked: str, found: list[Phrase], left: int, verb: _Verb) -> tuple[str, Place | None, int, int] | None:
    """Where an insertion goes, read before the verb in its clause: «στο τέλος της παρ. 1» (end), «στην αρχή»
    (start), «μετά την παρ. 3» / «μετά το πρώτο εδάφιο» (after), «πριν από …» (before), «μετά τη λέξη «X»»
    (after those words): (where, the anchor place, None for words; the phrase's start; the quote's start, -1)."""
    words = None
    for m in _AFTER_WORDS.finditer(masked, left, verb.start):
        words = m
    if words:
        return ("after" if words.group("where") == "μετα" else "before", None, words.start(), words.end())
    for p in reversed([p for p in found if left <= p.start < verb.start]):
        if p.head == "end" and p.det in DATIVE:
            return ("end", replace(p.place, end=False), p.start, -1)
        if p.head == "start" and p.det in DATIVE:
            return ("start", replace(p.place, start_of=False), p.start, -1)
    for m in _AFTER_PLACE.finditer(masked, left, verb.start):
        anchor = next((p for p in found if p.start == m.end() and p.det in ACCUSATIVE | {"το", "τα"}), None)
        if anchor:
            return ("after" if m.group("where") == "μετα" else "before", anchor.place, m.start(), -1)
    return None


def _make(text: str, masked: str, verb: _Verb, subject: Phrase | None, after: list[Phrase],
          context: _Context | None, position: tuple[str, Place | None, int, int] | None,
          wording: list[tuple[int, int]], quotes: list[tuple[int, int]], unquoted: bool, start: int, end: int,
          found: list[Phrase], listed: bool = False, continued: tuple[int, int] | None = None,
          continuation_problem: str = "") -> list[Instruction]:
    """The instructions one verb gives (several for «απαλείφονται οι λέξεις «…» και οι λέξεις «…»» or a list of
    repealed provisions). ``continued``: the new wording's paragraphs written after its closing mark (read by
    :func:`_continuation`), its end; ``continuation_problem``: why such paragraphs cannot be told apart."""
    ctx = context.place if context else Place()
    words = tuple(_inner(text, q) for q in wording)
    if continued is not None and words:
        words = (*words[:-1], words[-1] + "\n" + text[continued[0]:continued[1]].strip())
    problem = continuation_problem
    if wording and not all(_closed(text, q) for q in wording):
        problem = "the quoted new wording is not closed in the amending article (its end is not in this text)"
    if unquoted:
        problem = "the new wording after «ως εξής» is not quoted: where it ends cannot be told"
    kind = verb.kind
    if kind == "renumber":
        acted = after[0].place if after else (subject.place if subject else Place())
        return [Instruction("renumber", acted.within(ctx), start, end, problem="a renumbering is not read")]
    word_heads = [p for p in ([subject] if subject else []) + after if p.head == "phrase"]
    if kind == "replace" and word_heads and not wording:
        return [_replace_words(text, masked, verb, word_heads, after, ctx, position, quotes, found, start, end)]
    if kind == "repeal" and word_heads and not wording:
        olds = tuple(_inner(text, p.place.phrase) for p in word_heads if p.place.phrase)
        return [Instruction("delete-words", _scope(word_heads[0], ctx, found), start, end, old=olds)]
    anchor = position[1] if position is not None else None
    if kind == "insert" and position is not None and position[0] in ("after", "before") and anchor is not None \
            and anchor.articles and anchor.depth == 0 and not (after and after[0].head in ("paragraph", "case",
                                                                                         "sentence", "phrase")):
        # «Μετά από το άρθρο 205 του ν. 4442/2016 προστίθεται Κεφάλαιο …»: new articles go after this one, whose own
        # text does not change; the graph's edge names the place of the insertion. Read, so that the engine knows
        # the amending article's edge is no instruction for this article's text (it drops it: PLACING_ONLY)
        return [Instruction("insert-articles", Place(anchor.articles, anchor.article_span), start, end)]
    if kind == "insert" and not wording and (after and after[0].head == "phrase"
                                             or position is not None and position[1] is None):
        return [_insert_words(text, masked, verb, after, ctx, position, quotes, found, start, end)]
    targets = after or ([subject] if subject else [])
    heading = re.match(r"\s*(?:Άρθρο|ΑΡΘΡΟ|Αρθρο)\s+(\d{1,4}[Α-Ωα-ω]{0,2})(?![\w])", words[0]) if words else None
    # the paragraphs an insertion itself adds («προστίθεται παρ. 9»): only those may be created; a paragraph named
    # as the context («Στην παρ. 4 … προστίθεται εδάφιο») must already be there
    new_paragraphs = tuple(p for t in targets for p in t.place.paragraphs) \
        if kind == "insert" and targets and all(t.head == "paragraph" for t in targets) else ()
    if unquoted:
        place = (targets[0].place.within(ctx) if targets else ctx)
        return [Instruction(_unit_action("replace" if kind != "insert" else "insert", place), place, start, end,
                            problem=problem)]
    if not targets:
        if not wording:
            return [Instruction("describe", ctx, start, end, problem="the change's object is not read")]
        place = ctx
        if kind in ("replace", "form", "modify") and not heading and not _opens_as(place, words[0]):
            # «Τροποποιείται η υποπαρ. 2.1.3 … και διαμορφώνεται ως εξής: «2.1.3. …»», «Στο άρθρο 1 τροποποιούνται
            # οι υποπερ.: β), θ) … της περ. Α»: the unit the wording replaces is named in words this reader does not
            # read (a sub-paragraph, a definition, a point numbered 2.1.3); what is left is only where it stands
            # (the article, or a paragraph of it), whose whole wording the quotation is not
            return [Instruction(_unit_action("replace", place), place, start, end, wording=words,
                                problem=UNIT_NOT_READ)]
    elif len(targets) == 1 or listed:
        place = targets[0].place.within(ctx)
    else:
        place = _merge([t.place for t in targets]).within(ctx)
    if targets and targets[0].head == "sentence" and place.depth < 4:
        # «Στην παρ. 4 … προστίθεται εδάφιο», «το εδάφιο … αντικαθίσταται» where no sentence was named before: the
        # unit is a sentence (which one, not stated), never the paragraph it stands in
        place = replace(place, sentence_new=True)
    if kind in ("replace", "form", "modify", "insert") and heading and len(words) == 1:
        whole = Place(place.articles, place.article_span)
        action = "replace-title" if targets and targets[0].head == "title" else "replace-article"
        return [Instruction(action, whole, start, end, wording=words, problem=problem)]
    if kind in ("replace", "form", "modify"):
        if not wording:
            return [Instruction("describe", place, start, end, problem="a change stated without its new wording")]
        action = "replace-title" if targets and targets[0].head == "title" else _unit_action("replace", place)
        return [Instruction(action, place, start, end, wording=words, problem=problem)]
    if kind == "insert":
        if not wording:
            return [Instruction("describe", place, start, end, problem="an insertion stated without its wording",
                                inserted=new_paragraphs)]
        where, anchor = "", None
        if position:
            where, anchor = position[0], position[1]
            if where in ("end", "start") and anchor is not None:
                place = _merge_into(place, anchor.within(ctx))
                anchor = None
        action = _unit_action("insert", place)
        if action == "insert-paragraph" and not new_paragraphs and not problem:
            # «Στην παρ. 4 … προστίθεται [a unit not read] ως εξής: «…»»: the paragraph is where it goes, not what
            problem = "what is inserted (a paragraph, a case or a sentence) is not read"
        return [Instruction(action, place, start, end, wording=words, where=where,
                            anchor=anchor.within(place) if anchor else None, problem=problem,
                            inserted=new_paragraphs)]
    if kind == "repeal":
        if wording:
            return [Instruction(_unit_action("repeal", place), place, start, end,
                                problem="a repeal followed by new wording is not read")]
        if listed:
            return [Instruction(_unit_action("repeal", t.place.within(ctx)), t.place.within(ctx), t.start, t.end)
                    for t in targets]
        return [Instruction(_unit_action("repeal", place), place, start, end)]
    return []


_MARK = re.compile(r"\s*(?:(?P<num>\d{1,3}[Α-Ωα-ω]?)\s*\.(?!\d)|\(?(?P<letter>[α-ωΑ-Ω]{1,4})\s?[΄'’`)]\)?)")


def _opens_as(place: Place, wording: str) -> bool:
    """Whether new wording whose object was not read is the wording of its context's unit, by its opening mark:
    a paragraph's number («Στην παρ. 4 … η παρ. 4 διαμορφώνεται»: «4. …»), a case's or subcase's letter («Στην
    περ. β) … η περ β) διαμορφώνεται»: «β) …»), and for a sentence no mark at all («Στο πρώτο εδάφιο … το εν λόγω
    εδάφιο διαμορφώνεται»). An article's wording opens with its heading (checked apart); anything else (a
    point «2.1.3.», a definition «β) Αθλητής» where the context is a whole article) is not the context's."""
    m = _MARK.match(wording)
    depth = place.depth
    if depth == 4:
        return m is None
    if m is None or depth == 0:
        return False
    if depth == 1:
        return len(place.paragraphs) == 1 and m.group("num") is not None \
            and fold(m.group("num")) == fold(place.paragraphs[0])
    units = place.cases if depth == 2 else place.subcases
    return len(units) == 1 and m.group("letter") is not None and case_index(m.group("letter")) == case_index(units[0])


def _replace_words(text: str, masked: str, verb: _Verb, heads: list[Phrase], after: list[Phrase], ctx: Place,
                   position: tuple[str, Place | None, int, int] | None, quotes: list[tuple[int, int]],
                   found: list[Phrase], start: int, end: int) -> Instruction:
    """«η λέξη «X» αντικαθίσταται από τη λέξη «Y»», «αντικαθίστανται οι λέξεις «X» από τις λέξεις «Y»», with
    «μετά τις λέξεις «Z»» before it (the X right after Z)."""
    at = after[-1].end if after and after[-1].head == "phrase" else verb.end
    w = _WITH.match(masked, at)
    q = next((s for s in quotes if w and s[0] == w.end()), None)
    scope = _scope(heads[0], ctx, found)
    olds = tuple(_inner(text, p.place.phrase) for p in heads if p.place.phrase)
    if q is None:
        return Instruction("replace-words", scope, start, end, old=olds,
                           problem="the words put in their place are not quoted after «από/με»")
    anchor = ""
    where = ""
    if position and position[1] is None and position[3] >= 0:
        anchor_q = next((s for s in quotes if s[0] == position[3]), None)
        if anchor_q:
            anchor, where = _inner(text, anchor_q), position[0]
    return Instruction("replace-words", scope, start, max(end, q[1]), old=olds, new=_inner(text, q), where=where,
                       anchor_words=anchor)


def _insert_words(text: str, masked: str, verb: _Verb, after: list[Phrase], ctx: Place,
                  position: tuple[str, Place | None, int, int] | None, quotes: list[tuple[int, int]],
                  found: list[Phrase], start: int, end: int) -> Instruction:
    """«μετά τη λέξη «X» προστίθενται οι λέξεις «Y»», «στο τέλος του πρώτου εδαφίου προστίθενται οι λέξεις «Y»»."""
    if after and after[0].head == "phrase" and after[0].place.phrase:
        new_q: tuple[int, int] | None = after[0].place.phrase
    else:
        new_q = next((s for s in quotes if s[0] >= verb.end and re.fullmatch(r"\s*", masked[verb.end:s[0]])), None)
    if new_q is None:
        return Instruction("insert-words", ctx, start, end, problem="the words added are not quoted")
    new = _inner(text, new_q)
    end = max(end, new_q[1])
    if position and position[1] is None and position[3] >= 0:
        anchor_q = next((s for s in quotes if s[0] == position[3]), None)
        scope = ctx
        own = [p for p in found if p.head == "phrase" and anchor_q and p.place.phrase == anchor_q]
        if own:
            scope = _scope(own[0], ctx, found)
        return Instruction("insert-words", scope, start, end, new=new, where=position[0],
                           anchor_words=_inner(text, anchor_q) if anchor_q else "")
    if position and position[0] in ("end", "start") and position[1] is not None:
        return Instruction("insert-words", position[1].within(ctx), start, end, new=new, where=position[0])
    return Instruction("insert-words", ctx, start, end, new=new,
                       problem="where the words are added is not stated in a form that is read")


def _merge(places: Sequence[Place]) -> Place:
    """Several places of one kind named together («οι παρ. 3, 4 και 5 και η παρ. 7»): one place naming them all."""
    first = places[0]
    return replace(first, paragraphs=tuple(dict.fromkeys(p for pl in places for p in pl.paragraphs)),
                   cases=tuple(dict.fromkeys(c for pl in places for c in pl.cases)))


def _merge_into(target: Place, where: Place) -> Place:
    """An insertion «στο τέλος της παρ. 1» of «εδάφιο»: the new sentence is paragraph 1's."""
    return replace(where, sentence=target.sentence, sentence_new=target.sentence_new, cases=target.cases or where.cases,
                   paragraphs=target.paragraphs or where.paragraphs) if target.depth >= where.depth else target


def _scope(p: Phrase, ctx: Place, found: list[Phrase]) -> Place:
    """The unit a word instruction acts in: the phrase's own chain («η φράση «X» της παρ. 2»), within the
    context, without the phrase itself."""
    own = replace(p.place, phrase=None)
    return own.within(ctx) if own.level < 6 else ctx


def _unit_action(verb: str, place: Place) -> str:
    depth = place.depth
    unit = {0: "article", 1: "paragraph", 2: "case", 3: "subcase", 4: "sentence", 5: "words"}[depth]
    if verb == "repeal" and unit == "article":
        return "repeal"
    return f"{verb}-{unit}"


def _absorb(instructions: list[Instruction], segments: list[_Segment]) -> list[Instruction]:
    """Descriptions and partial changes followed, in the same item, by the new wording of a unit that holds them
    become part of that instruction (its words start at theirs; ``described`` lists their spans)."""
    items = [s for s in segments if s.depth == 1] or [segments[0]]
    out = list(instructions)
    absorbed: set[int] = set()
    for j, later in enumerate(out):
        if not later.action.startswith("replace-") or later.action == "replace-words" or not later.wording:
            continue
        item = next((s for s in items if s.start <= later.start < s.end), items[0])
        for i in range(j):
            earlier = out[i]
            if i in absorbed or not item.start <= earlier.start < item.end:
                continue
            unit = _unit_of(earlier)
            if later.place.covers(unit) or earlier.action == "describe" and unit.articles in ((), later.place.articles):
                absorbed.add(i)
                # «προστίθεται παρ. 9 και οι παρ. 4 και 9 διαμορφώνονται»: 9 is new (the insertion's own object,
                # never its context: «Στην παρ. 4 προστίθεται εδάφιο και η παρ. 4 διαμορφώνεται» creates nothing)
                inserted = earlier.inserted if earlier.verb == "insert" else ()
                out[j] = replace(out[j], start=min(out[j].start, earlier.start),
                                 described=out[j].described + ((earlier.start, earlier.end),),
                                 inserted=out[j].inserted + inserted)
    return [ins for i, ins in enumerate(out) if i not in absorbed]


def _unit_of(ins: Instruction) -> Place:
    """The unit an instruction changes (an insertion: the unit it goes into)."""
    if ins.action.startswith("insert-") and ins.action != "insert-words":
        p = ins.place
        if ins.action == "insert-paragraph":
            return Place(p.articles, p.article_span)
        if ins.action == "insert-case":
            return replace(p, cases=())
        if ins.action == "insert-sentence":
            return replace(p, sentence=None, sentence_new=False)
    return ins.place


def bind(place: Place, references: Iterable[Mapping[str, Any]], target: str) -> bool:
    """Whether ``place`` names the corpus article ``target``: one of the amending article's references (the legal
    graph's edges, as the extractor read them) covers where the place names its article and resolves to
    ``target``, and ``target``'s number is among those the place names."""
    if not place.articles or place.article_span is None:
        return False
    number = fold(target.split("::", 1)[-1])
    if number not in place.articles:
        return False
    a, b = place.article_span
    for r in references:
        if r.get("target") != target:
            continue
        if int(r.get("start", -1)) < b and a < int(r.get("end", -1)):
            return True
    return False
