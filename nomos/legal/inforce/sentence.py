"""A sentence's actions (an «εδάφιο» of a paragraph or case): its new wording (``replace-sentence``), a new sentence
(``insert-sentence``) and its removal (``repeal-sentence``).

The n-th sentence is taken only where every period before it is certain (no abbreviation or acronym before a
period could be one); :func:`sentence_span` is also how a phrase inside a named sentence is found (:mod:`.words`).
"""

from __future__ import annotations

from nomos.legal.inforce.case import find_case
from nomos.legal.inforce.edit import Edit, Par, Refused, number_prefix, one_paragraph
from nomos.legal.inforce.instructions import Instruction
from nomos.legal.text.article_parts import paragraph_body, sentences


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
    span = sentence_span(text, a, b, ins.place.sentence)
    new = text[:span[0]] + ins.wording[0].strip() + text[span[1]:]
    e.s.pars[i] = Par(e.s.pars[i].number, new, e.source)
    return text, new


def sentence_span(text: str, a: int, b: int, ordinal: int) -> tuple[int, int]:
    sub = text[:b]
    s = sentences(sub, a)
    if ins_count := len(s.spans):
        index = ordinal - 1 if ordinal > 0 else ins_count + ordinal
        if not 0 <= index < ins_count:
            raise Refused(f"the unit has {ins_count} sentences, not a sentence {ordinal}")
        if not (s.certain(index) if ordinal > 0 else s.all_certain()):
            raise Refused("the unit's sentences cannot be told apart exactly (an abbreviation or acronym "
                           "before a period)")
        return s.spans[index]
    raise Refused("the unit holds no sentence")


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
