"""A code's points: «14.6.2. …» lines of an article numbered by points (the anti-doping code, ν. 4791/2021), named
«του άρθρου 14.6.2.» by the laws that amend it (ν. 4825/2021 art. 66, ν. 4831/2021 art. 153).

A point runs from the line that opens with its number to the next line that opens with a point number that is not
one of its own sub-points (14.6.2 holds 14.6.2.1 …; 14.6.3 or 14.7 ends it). It is read only for word changes (a
phrase replaced, deleted or added in it, or in its n-th sentence or its case «(β)»): a point's whole new wording,
or a point inserted, is listed as not read (:func:`refuse_unless_words`), never applied to the whole article.
"""

from __future__ import annotations

import re

from nomos.legal.inforce.edit import Edit, Refused
from nomos.legal.inforce.instructions import Instruction
from nomos.legal.text.article_parts import case_index, cases

WORD_ACTIONS = frozenset({"replace-words", "delete-words", "insert-words"})
_POINT_LINE = re.compile(r"(?m)^[ \t\xa0]*(\d{1,3}(?:\.\d{1,3})+)\.?(?=[ \t\xa0])")


def refuse_unless_words(ins: Instruction) -> None:
    if ins.place.point and ins.action not in WORD_ACTIONS:
        raise Refused(f"point {ins.place.point} of the article is read for word changes only, not for "
                      f"«{ins.action}»")


def point_span(text: str, point: str) -> tuple[int, int] | None:
    """Where ``point`` runs in ``text`` (its number's line start to the next point's not its own), or None."""
    lines = list(_POINT_LINE.finditer(text))
    at = [k for k, m in enumerate(lines) if m.group(1) == point]
    if len(at) != 1:
        return None
    k = at[0]
    end = next((m.start() for m in lines[k + 1:] if not m.group(1).startswith(point + ".")), len(text))
    return lines[k].end(1) + (1 if text[lines[k].end(1):lines[k].end(1) + 1] == "." else 0), len(text[:end].rstrip())


def point_units(e: Edit, ins: Instruction) -> list[tuple[int, int, int]]:
    """(paragraph index, start, end) of the point, or of its case named («Στην περ. (β) του άρθρου 14.6.2.»), the
    point found once in the article."""
    point = ins.place.point
    found = [(i, span) for i, p in enumerate(e.s.pars) if (span := point_span(p.text, point)) is not None]
    if not found:
        raise Refused(f"point {point} is not in the article")
    if len(found) > 1:
        raise Refused(f"point {point} is numbered twice in the article")
    i, (a, b) = found[0]
    if not ins.place.cases:
        return [(i, a, b)]
    if len(ins.place.cases) != 1:
        raise Refused(f"several cases of point {point}")
    text = e.s.pars[i].text
    hit = [c for c in cases(text[:b], a) if case_index(c.letter) == case_index(ins.place.cases[0])]
    if len(hit) != 1:
        raise Refused(f"case {ins.place.cases[0]} is not in point {point}")
    return [(i, hit[0].start, hit[0].end)]
