"""The instructions an amending article gives, read from its text: what it does (replace, insert, repeal, replace
words …), to which part of which article (a :class:`~nomos.legal.inforce.places.Place`), with which new wording.

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

This module finds the verbs and what each acts on (steps 2 and 3); the text as it reads it and its items are
:mod:`.items`' (step 1), and what one verb gives, with the descriptions it absorbs (step 4), :mod:`.instructions`'.
"""

from __future__ import annotations

import re
from dataclasses import replace

from nomos.legal.inforce.instructions import Context, Instruction, Verb, absorb, make_instructions
from nomos.legal.inforce.items import Segment, cut_items, deepest, holding, mask, quote_closed, quoted_words, quotes
from nomos.legal.inforce.places import ACCUSATIVE, DATIVE, NOMINATIVE, Phrase, Place, phrases
from nomos.legal.text.article_parts import paragraphs

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


_AFTER_WORDS = re.compile(r"(?<![\w])(?P<where>μετα|πριν)\s+(?:απο\s+)?(?:(?:τη|την|τισ|τον|το|τα|τουσ)\s+)?"
                          r"(?:λεξ|φρασ|αριθμ|ημερομηνι|παραπομπ|προτασ|χρονολογι)\w*\s*(?=«)")
_AFTER_PLACE = re.compile(r"(?<![\w])(?P<where>μετα|πριν)\s+(?:απο\s+)?(?=(?:τη|την|τισ|τον|το|τα|τουσ)\s)")


_CLAUSE_BREAK = re.compile(r"[:;]|\.\s+(?=[α-ωά-ώ]?[Α-ΩΆ-Ώ])")


def _verbs(masked: str) -> list[Verb]:
    out = []
    for m in VERB.finditer(masked):
        if _DESCRIBED.search(masked, max(0, m.start() - 40), m.start()):
            continue
        out.append(Verb(m.lastgroup or "modify", m.start(), m.end()))
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
        joint = gap.match(masked, pos)
        assert joint is not None  # the gap may be empty
        nxt = joint.end()
        q = next((s for s in quotes if s[0] == nxt), None)
        if q is None or not unit.match(text, nxt):
            break
        out.append(q)
        pos = q[1]
    return out, pos


_JOIN = re.compile(r"\s*(?:,|και|,\s*και)\s*")
_BEFORE_VERB = re.compile(r"[\s,]*(?:\([^()]{0,80}\)\s*)?$")


def _object_after(masked: str, verb: Verb, found: list[Phrase], next_verb: int) -> list[Phrase]:
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
        elif not re.fullmatch(r"\s*,?\s*(?:(?:επισησ|ακομη)\s+|μεταξυ\s+κομματων\s*,\s*)?", gap):
            break
        out.append(p)
        pos = p.end
    return out


def _subject_before(left: int, verb: Verb, found: list[Phrase]) -> Phrase | None:
    """The last nominative place between ``left`` and the verb (its subject), if any."""
    cands = [p for p in found if left <= p.start and p.end <= verb.start and p.det in NOMINATIVE and p.det
             and p.head not in ("end", "start")]
    return cands[-1] if cands else None


def _list_objects(masked: str, verb: Verb, segments: list[Segment], found: list[Phrase]) -> list[Phrase]:
    """«καταργούνται οι ακόλουθες διατάξεις του ν. 4070/2012: α) τα άρθρα 1 έως 3, β) οι περ. …»: the places that
    open each item of the list a colon opens after the verb (and those joined to them by «και» or commas)."""
    colon = re.compile(r"\s*:|[^:«»]{0,160}?(?:διαταξ\w+|αρθρ\w+|κατωθι|ακολουθ\w+|εξησ)[^:«»]{0,120}:").match(masked, verb.end)
    if colon is None:
        return []
    at = colon.end()
    holder = holding(segments, verb.start)[-1]
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
    spans = quotes(text)
    segments = cut_items(masked)
    found = phrases(masked)
    verbs = _verbs(masked)
    contexts = [p for p in found if _is_context(text, masked, p) or _is_position(masked, p)]
    out: list[Instruction] = []
    last_subject: dict[int, Phrase] = {}  # segment start -> the place the last verb there acted on
    for vi, verb in enumerate(verbs):
        chain = holding(segments, verb.start)
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
            wording, wording_end = _payload(text, masked, follows.end(), spans)
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
            context = Context(context.place.within(earlier.place), context.start, context.alternatives) if context \
                else Context(earlier.place, len(masked))
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
        for ctx in ([Context(p, context.start) for p in context.alternatives] if context and context.alternatives
                    else [context]):
            made = make_instructions(text, masked, verb, subject, after, ctx, position, wording, spans, unquoted,
                         start_words, end_words, found, bool(listed), continued=continued,
                         continuation_problem=continuation_problem)
            out.extend(replace(ins, verb=verb.kind, everywhere=everywhere) for ins in made)
    return absorb(out, segments)


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
    if m is None or not quote_closed(text, last):
        return None, ""
    numbered = [p.number for p in paragraphs(quoted_words(text, last)) if p.number]
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


def _skip_object(masked: str, verb: Verb, after: list[Phrase]) -> int:
    """Where «ως εξής» may start after a verb: after its object and a comma («προστίθεται παρ. 9, ως εξής:»), and
    an aside of when («αντικαθίσταται, από τη δημοσίευση του ν. 4765/2021 …, ως εξής»: ν. 4795/2021 art. 45 item 7),
    or after «και διαμορφώνεται» («αντικαθίσταται και διαμορφώνεται ως εξής»)."""
    pos = after[-1].end if after else verb.end
    m = re.compile(r"\s*,?\s*(?:\([^()]{0,80}\)\s*)?(?:απο\s+[^«»,:]{1,120},\s*(?=ωσ\s))?").match(masked, pos)
    return m.end() if m else pos


def _looks_like_wording(masked: str, at: int) -> bool:
    """«… διαμορφώνεται ως εξής:\\n3. α. Με την αίτηση …» with no opening mark: text follows «ως εξής:», and it
    is not the amending article's own items (an opening «Ο ν. … τροποποιείται ως εξής: 1. Το άρθρο 13
    αντικαθίσταται …» is followed by instructions, with verbs of their own)."""
    rest = masked[at:at + 600]
    return bool(rest.strip()) and not VERB.search(rest)


_LISTED = re.compile(r"\s*(?:\([^()]{0,80}\)\s*)?(?:,|και|,\s*και)\s*")
_EVERYWHERE = re.compile(r"(?<![\w])οπου\s+(?:αναφερεται|αναφερονται|αναγραφεται|αναγραφονται|εμφανιζεται|υπαρχει)")


def _context_at(masked: str, contexts: list[Phrase], chain: list[Segment], pos: int,
                segments: list[Segment]) -> Context | None:
    """The context of ``pos``: the «στο/στην …» places before it in the segments holding it (an outer segment's
    only up to where the inner one starts), each within the one before."""
    place: Place | None = None
    start = pos
    mine: list[tuple[Phrase, Place]] = []
    for k, seg in enumerate(chain):
        stop = chain[k + 1].start if k + 1 < len(chain) else pos
        for c in contexts:
            if seg.start <= c.start < stop and c.end <= pos and deepest(segments, c.start) == seg:
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
    return Context(place, group[0][0].start if alternatives else start, alternatives)


def _position(masked: str, found: list[Phrase], left: int, verb: Verb) -> tuple[str, Place | None, int, int] | None:
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
