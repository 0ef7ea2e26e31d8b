"""What one amendment verb gives: the :class:`Instruction` (its action, place, new wording, problem), made from what
:mod:`.reading` found around the verb; the descriptions a later new wording absorbs (:func:`absorb`); and which
corpus article a place names (:func:`bind`, through the legal graph's edges).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from nomos.legal.inforce.items import Segment, quote_closed, quoted_words
from nomos.legal.inforce.places import Phrase, Place
from nomos.legal.text.article_parts import case_index
from nomos.legal.text.folding import fold

_WITH = re.compile(r"\s*,?\s*(?:απο|με)\s+(?:(?:τη|την|τισ|τον|το|τα|τουσ|τo)\s+)?"
                   r"(?:(?:λεξ|φρασ|αριθμ|ημερομηνι|παραπομπ|προτασ|χρονολογι)\w*\s*)?(?=«)")


UNIT_NOT_READ = ("the unit the new wording replaces is not read (a sub-paragraph, a definition or a point numbered "
                 "like 2.1.3): only the unit it stands in is named, and the wording does not open as that unit's")


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
    commas: bool = False  # «προστίθενται, μεταξύ κομμάτων, οι λέξεις «…»»: the words go in between commas

    def words(self, text: str) -> str:
        """The instruction's words as the amending article writes them."""
        return " ".join(text[self.start:self.end].split())


@dataclass(frozen=True)
class Verb:
    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class Context:
    place: Place
    start: int
    alternatives: tuple[Place, ...] = ()  # several places listed together: the instruction is each one's


def make_instructions(text: str, masked: str, verb: Verb, subject: Phrase | None, after: list[Phrase],
          context: Context | None, position: tuple[str, Place | None, int, int] | None,
          wording: list[tuple[int, int]], quotes: list[tuple[int, int]], unquoted: bool, start: int, end: int,
          found: list[Phrase], listed: bool = False, continued: tuple[int, int] | None = None,
          continuation_problem: str = "") -> list[Instruction]:
    """The instructions one verb gives (several for «απαλείφονται οι λέξεις «…» και οι λέξεις «…»» or a list of
    repealed provisions). ``continued``: the new wording's paragraphs written after its closing mark (read by
    :func:`_continuation`), its end; ``continuation_problem``: why such paragraphs cannot be told apart."""
    ctx = context.place if context else Place()
    words = tuple(quoted_words(text, q) for q in wording)
    if continued is not None and words:
        words = (*words[:-1], words[-1] + "\n" + text[continued[0]:continued[1]].strip())
    problem = continuation_problem
    if wording and not all(quote_closed(text, q) for q in wording):
        problem = "the quoted new wording is not closed in the amending article (its end is not in this text)"
    if unquoted:
        problem = "the new wording after «ως εξής» is not quoted: where it ends cannot be told"
    kind = verb.kind
    if kind == "renumber":
        acted = after[0].place if after else (subject.place if subject else Place())
        return [Instruction("renumber", acted.within(ctx), start, end, problem="a renumbering is not read")]
    if kind == "repeal" and not wording:
        comma = _comma_deleted(text, masked, verb, position, quotes, ctx, start, end)
        if comma is not None:
            return [comma]
    word_heads = [p for p in ([subject] if subject else []) + after if p.head == "phrase"]
    if kind == "replace" and word_heads and not wording:
        return [_replace_words(text, masked, verb, word_heads, after, ctx, position, quotes, found, start, end)]
    if kind == "repeal" and word_heads and not wording:
        olds = tuple(quoted_words(text, p.place.phrase) for p in word_heads if p.place.phrase)
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


def _replace_words(text: str, masked: str, verb: Verb, heads: list[Phrase], after: list[Phrase], ctx: Place,
                   position: tuple[str, Place | None, int, int] | None, quotes: list[tuple[int, int]],
                   found: list[Phrase], start: int, end: int) -> Instruction:
    """«η λέξη «X» αντικαθίσταται από τη λέξη «Y»», «αντικαθίστανται οι λέξεις «X» από τις λέξεις «Y»», with
    «μετά τις λέξεις «Z»» before it (the X right after Z)."""
    at = after[-1].end if after and after[-1].head == "phrase" else verb.end
    w = _WITH.match(masked, at)
    q = next((s for s in quotes if w and s[0] == w.end()), None)
    scope = _scope(heads[0], ctx, found)
    olds = tuple(quoted_words(text, p.place.phrase) for p in heads if p.place.phrase)
    if q is None:
        return Instruction("replace-words", scope, start, end, old=olds,
                           problem="the words put in their place are not quoted after «από/με»")
    anchor = ""
    where = ""
    if position and position[1] is None and position[3] >= 0:
        anchor_q = next((s for s in quotes if s[0] == position[3]), None)
        if anchor_q:
            anchor, where = quoted_words(text, anchor_q), position[0]
    return Instruction("replace-words", scope, start, max(end, q[1]), old=olds, new=quoted_words(text, q), where=where,
                       anchor_words=anchor)


def _comma_deleted(text: str, masked: str, verb: Verb, position: tuple[str, Place | None, int, int] | None,
                   quotes: list[tuple[int, int]], ctx: Place, start: int, end: int) -> Instruction | None:
    """«μετά τη λέξη «βαθμών» διαγράφεται το κόμμα «,»» (ν. 4825/2021 art. 66 items 11 and 12): the comma right
    after the words named goes («βαθμών,» becomes «βαθμών»), read as a replacement of those words and their comma.
    None where the verb's object is not that comma."""
    if not position or position[0] != "after" or position[1] is not None or position[3] < 0:
        return None
    comma = re.compile(r"\s*(?:το\s+)?κομμα\s+(?=«)").match(masked, verb.end)
    q = next((s for s in quotes if comma and s[0] == comma.end()), None)
    anchor_q = next((s for s in quotes if s[0] == position[3]), None)
    if q is None or anchor_q is None or quoted_words(text, q) != ",":
        return None
    anchor = quoted_words(text, anchor_q)
    return Instruction("replace-words", ctx, start, max(end, q[1]), old=(anchor + ",",), new=anchor)


def _comma_anchor(text: str, masked: str, verb: Verb, quotes: list[tuple[int, int]]) -> str:
    """The words named before «… διαγράφεται το κόμμα «,» και προστίθεται η λέξη «και»»: the word added goes
    after them, where the comma was ("" where the insertion is not so written)."""
    m = re.search(r"μετα\s+(?:απο\s+)?τ[ηι][νς]?\s+λεξ\w*\s+(?P<q>«[^«»]*»)\s*διαγραφεται\s+(?:το\s+)?κομμα\s+«[^«»]*»"
                  r"\s*,?\s*και\s+$", masked[max(0, verb.start - 160):verb.start])
    if m is None:
        return ""
    at = max(0, verb.start - 160) + m.start("q")
    q = next((s for s in quotes if s[0] == at), None)
    return quoted_words(text, q) if q else ""


def _insert_words(text: str, masked: str, verb: Verb, after: list[Phrase], ctx: Place,
                  position: tuple[str, Place | None, int, int] | None, quotes: list[tuple[int, int]],
                  found: list[Phrase], start: int, end: int) -> Instruction:
    """«μετά τη λέξη «X» προστίθενται οι λέξεις «Y»», «στο τέλος του πρώτου εδαφίου προστίθενται οι λέξεις «Y»»."""
    commas = False
    if after and after[0].head == "phrase" and after[0].place.phrase:
        new_q: tuple[int, int] | None = after[0].place.phrase
        commas = re.search(r"μεταξυ\s+κομματων", masked[verb.end:after[0].start]) is not None
    else:
        new_q = next((s for s in quotes if s[0] >= verb.end and re.fullmatch(r"\s*", masked[verb.end:s[0]])), None)
    if new_q is None:
        return Instruction("insert-words", ctx, start, end, problem="the words added are not quoted")
    new = quoted_words(text, new_q)
    if re.search(r"τιθεται\s+κομμα\s+«\s*»[\s,]*(?:και\s+)?$", masked[max(start, verb.start - 80):verb.start]):
        # «μετά τις λέξεις «Ο WADA» τίθεται κόμμα «,» και προστίθενται οι λέξεις «X»»: the comma goes before X
        # (ν. 4825/2021 art. 66 items 5 and 7: engine v5 added X without it, the v5 blind check's item 33)
        new = ", " + new
    end = max(end, new_q[1])
    if position and position[1] is None and position[3] >= 0:
        anchor_q = next((s for s in quotes if s[0] == position[3]), None)
        scope = ctx
        own = [p for p in found if p.head == "phrase" and anchor_q and p.place.phrase == anchor_q]
        if own:
            scope = _scope(own[0], ctx, found)
        return Instruction("insert-words", scope, start, end, new=new, where=position[0],
                           anchor_words=quoted_words(text, anchor_q) if anchor_q else "", commas=commas)
    if position and position[0] in ("end", "start") and position[1] is not None:
        return Instruction("insert-words", position[1].within(ctx), start, end, new=new, where=position[0])
    after_comma = _comma_anchor(text, masked, verb, quotes) if position is None else ""
    if after_comma:
        # «μετά τη λέξη «βαθμών» διαγράφεται το κόμμα «,» και προστίθεται η λέξη «και»»: after those words
        return Instruction("insert-words", ctx, start, end, new=new, where="after", anchor_words=after_comma)
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


def absorb(instructions: list[Instruction], segments: list[Segment]) -> list[Instruction]:
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
