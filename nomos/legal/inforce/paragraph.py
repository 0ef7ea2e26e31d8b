"""A paragraph's actions: its new wording (``replace-paragraph``), a new paragraph (``insert-paragraph``) and its
repeal (``repeal-paragraph``).

Paragraphs are found by their number at a line's start; a new one goes after the last one numbered below it and must
not exist yet, and a repealed one keeps its number with «[Καταργείται]», so later references by number still land.
"""

from __future__ import annotations

from nomos.legal.inforce.edit import REPEALED, Edit, Par, Refused, norm, number_prefix
from nomos.legal.inforce.instructions import Instruction
from nomos.legal.text.article_parts import paragraph_key, paragraphs
from nomos.legal.text.folding import fold


def _split_wording(words: tuple[str, ...], numbers: tuple[str, ...]) -> list[str]:
    """The new wording of each paragraph named: one quotation each («4. …». «9. …»), or one quotation holding
    them all («1. … 2. …»); each opening with its number (added where the quotation leaves it out and one
    paragraph is named)."""
    if len(words) == len(numbers):
        out = list(words)
    elif len(words) == 1:
        parts = paragraphs(words[0])
        parts = [p for p in parts if p.number or p.text]
        if [fold(p.number) for p in parts] != [fold(n) for n in numbers]:
            raise Refused(f"the new wording does not hold paragraphs {', '.join(numbers)} one by one")
        out = [p.text for p in parts]
    else:
        raise Refused(f"{len(words)} quotations for {len(numbers)} paragraphs")
    result = []
    for n, w in zip(numbers, out, strict=True):
        prefix = number_prefix(w)
        if prefix is None:
            if len(numbers) > 1:
                raise Refused("the new wording of several paragraphs does not number them")
            w = f"{n}. {w.strip()}"
        elif fold(prefix) != fold(n):
            raise Refused(f"the new wording is numbered {prefix}, not {n}")
        result.append(w.strip())
    return result


def replace_paragraph(e: Edit, ins: Instruction) -> tuple[str, str]:
    numbers = ins.place.paragraphs
    if ins.wording and len(ins.wording) == 1 and not numbers:
        raise Refused("the paragraph replaced is not named")
    new = _split_wording(ins.wording, numbers)
    for n in numbers:
        # «προστίθεται παρ. 9 και οι παρ. 4 και 9 διαμορφώνονται ως εξής»: 9 is new
        if fold(n) in {fold(x) for x in ins.inserted} and not any(fold(p.number) == fold(n) for p in e.s.pars):
            _insert_at(e, n, "")
    at = [e.s.find(n) for n in numbers]
    before = "\n".join(e.s.pars[i].text for i in at)
    for i, w in zip(at, new, strict=True):
        e.s.pars[i] = Par(e.s.pars[i].number, w, e.source_of(e.s.pars[i], w))
    return before, "\n".join(e.s.pars[i].text for i in at)


def insert_paragraph(e: Edit, ins: Instruction) -> tuple[str, str]:
    numbers = ins.place.paragraphs
    if not numbers:
        raise Refused("the paragraph inserted is not numbered")
    if not any(p.number for p in e.s.pars):
        raise Refused("the article's paragraphs are not numbered")
    new = _split_wording(ins.wording, numbers)
    added = []
    for n, w in zip(numbers, new, strict=True):
        same = [p for p in e.s.pars if fold(p.number) == fold(n)]
        if same:
            if norm(same[0].text) == norm(w):
                added.append(w)
                continue
            raise Refused(f"paragraph {n} already exists")
        if ins.where == "after" and ins.anchor and ins.anchor.paragraphs:
            anchor = e.s.find(ins.anchor.paragraphs[-1])
            before_n = [i for i, p in enumerate(e.s.pars) if paragraph_key(p.number) < paragraph_key(n)]
            if before_n and anchor != before_n[-1]:
                raise Refused(f"paragraph {n} would not follow paragraph {ins.anchor.paragraphs[-1]}")
        _insert_at(e, n, w)
        added.append(w)
    return "", "\n".join(added)


def _insert_at(e: Edit, number: str, text: str) -> None:
    """A new paragraph after the last one numbered below it."""
    key = paragraph_key(number)
    before_n = [i for i, p in enumerate(e.s.pars) if paragraph_key(p.number) < key]
    at = before_n[-1] + 1 if before_n else 0
    e.s.pars.insert(at, Par(number, text, e.source))


def repeal_paragraph(e: Edit, ins: Instruction) -> tuple[str, str]:
    at = [e.s.find(n) for n in ins.place.paragraphs]
    if not at:
        raise Refused("the paragraph repealed is not named")
    before = "\n".join(e.s.pars[i].text for i in at)
    for i in at:
        p = e.s.pars[i]
        e.s.pars[i] = Par(p.number, f"{p.number}. {REPEALED}", e.source)
    return before, "\n".join(e.s.pars[i].text for i in at)
