"""A sentence's actions (an «εδάφιο» of a paragraph or case): its new wording (``replace-sentence``), a new sentence
(``insert-sentence``) and its removal (``repeal-sentence``).

The n-th sentence is taken only where every period before it is certain (no abbreviation or acronym before a
period could be one); :func:`sentence_span` is also how a phrase inside a named sentence is found (:mod:`.words`).
"""

from __future__ import annotations

import re

from nomos.legal.inforce.case import find_case
from nomos.legal.inforce.edit import Edit, Par, Refused, number_prefix, one_paragraph
from nomos.legal.inforce.instructions import Instruction
from nomos.legal.text.article_parts import paragraph_body, sentences
from nomos.legal.text.folding import fold


def _sentence_unit(e: Edit, ins: Instruction) -> tuple[int, int, int]:
    """(paragraph index, where the unit's text starts and ends in it) for a sentence instruction: the case's
    text when a case is named, else the paragraph's body."""
    i = one_paragraph(e, ins)
    text = e.s.pars[i].text
    if ins.place.cases:
        if len(ins.place.cases) != 1:
            raise Refused("a sentence of several cases")
        c = find_case(e, i, ins.place.cases[0])
        return i, c.start, c.end
    return i, paragraph_body(text), len(text)


def replace_sentence(e: Edit, ins: Instruction) -> tuple[str, str]:
    if ins.place.sentence is None or len(ins.wording) != 1:
        raise Refused("which sentence is replaced is not stated")
    if number_prefix(ins.wording[0]) is not None:
        raise Refused("the new wording of a sentence opens with a paragraph number: it is not one sentence")
    i, a, b = _sentence_unit(e, ins)
    text = e.s.pars[i].text
    span = sentence_span(text, a, b, ins.place.sentence, ins.wording[0])
    new = text[:span[0]] + ins.wording[0].strip() + text[span[1]:]
    e.s.pars[i] = Par(e.s.pars[i].number, new, e.source)
    return text, new


def sentence_span(text: str, a: int, b: int, ordinal: int, wording: str = "") -> tuple[int, int]:
    """The span of the ``ordinal``-th sentence (from the end where negative) of ``text[a:b]``. Where a period
    after an abbreviation or acronym leaves its end uncertain (its start being certain), the sentence's new
    ``wording`` may tell it: the one candidate end whose last words are the new wording's (a new wording that
    changes a few words of the sentence keeps its end: ν. 4872/2021 art. 64 on ν. 4820/2021 art. 205)."""
    sub = text[:b]
    s = sentences(sub, a)
    if ins_count := len(s.spans):
        index = ordinal - 1 if ordinal > 0 else ins_count + ordinal
        if not 0 <= index < ins_count:
            raise Refused(f"the unit has {ins_count} sentences, not a sentence {ordinal}")
        if not (s.certain(index) if ordinal > 0 else s.all_certain()):
            told = _told_by_wording(text, s.spans, index, s.ambiguous_after, wording) if ordinal > 0 else None
            if told is None:
                raise Refused("the unit's sentences cannot be told apart exactly (an abbreviation or acronym "
                              "before a period)")
            return told
        return s.spans[index]
    raise Refused("the unit holds no sentence")


def _last_words(text: str, n: int = 4) -> list[str]:
    return [fold(w) for w in re.findall(r"\w+", text)[-n:]]


def _told_by_wording(text: str, spans: tuple[tuple[int, int], ...], index: int, ambiguous_after: int | None,
                     wording: str) -> tuple[int, int] | None:
    """The sentence's span, its start certain and its end the one candidate whose last words are ``wording``'s."""
    if not wording or ambiguous_after is None or index >= ambiguous_after:
        return None
    tail = _last_words(wording)
    if len(tail) < 4:
        return None
    ends = [spans[j][1] for j in range(index, len(spans)) if _last_words(text[spans[index][0]:spans[j][1]]) == tail]
    return (spans[index][0], ends[0]) if len(ends) == 1 else None


def repeal_sentence(e: Edit, ins: Instruction) -> tuple[str, str]:
    if ins.place.sentence is None:
        raise Refused("which sentence is repealed is not stated")
    i, a, b = _sentence_unit(e, ins)
    text = e.s.pars[i].text
    start, end = sentence_span(text, a, b, ins.place.sentence)
    while end < len(text) and text[end] in " \t\xa0":
        end += 1
    new = (text[:start] + text[end:]).rstrip() if end >= len(text.rstrip()) else text[:start] + text[end:]
    e.s.pars[i] = Par(e.s.pars[i].number, new, e.source)
    return text, new


def insert_sentence(e: Edit, ins: Instruction) -> tuple[str, str]:
    if len(ins.wording) != 1:
        raise Refused("several quotations for one sentence")
    i, a, b = _sentence_unit(e, ins)
    text = e.s.pars[i].text
    wording = ins.wording[0].strip()
    ordinal = ins.place.sentence
    s = sentences(text[:b], a)
    count = len(s.spans)
    if ins.where in ("after", "before"):
        # «μετά το δεύτερο εδάφιο», «πριν από το τελευταίο εδάφιο»: the sentence named; after words, or a
        # place that names no sentence, is not where a sentence goes exactly
        if ins.anchor is None or ins.anchor.sentence is None:
            raise Refused("where the new sentence goes is not stated as a sentence of the unit")
        span = sentence_span(text, a, b, ins.anchor.sentence)
        at = span[1] if ins.where == "after" else span[0]
    elif ins.where == "start":
        at = a
    elif ordinal is not None and ordinal > 0 and ordinal != count + 1:
        if ordinal > count + 1 or ordinal < 1:
            raise Refused(f"a new sentence {ordinal} in a unit of {count} sentences")
        at = sentence_span(text, a, b, ordinal - 1)[1]
    else:
        at = len(text[:b].rstrip())
    if at >= len(text[:b].rstrip()):
        new = text[:b].rstrip() + " " + wording + text[b:]
    elif ins.where == "before" or ins.where == "start":
        new = text[:at] + wording + " " + text[at:].lstrip(" ")
    else:
        new = text[:at] + " " + wording + text[at:]
    e.s.pars[i] = Par(e.s.pars[i].number, new, e.source)
    return text, new
