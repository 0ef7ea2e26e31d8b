"""A code's points: «14.6.2. …» lines of an article numbered by points (the anti-doping code, ν. 4791/2021), named
«του άρθρου 14.6.2.» or «η παρ. 22.7.2 του άρθρου 22», «η υποπαρ. 2.1.3.», «η περ. 4.4.2.4.» by the laws that amend
it (ν. 4825/2021 arts 59–66, ν. 4831/2021 art. 153).

A point runs from the line that opens with its number to the next line that opens with a point number that is not
one of its own sub-points (14.6.2 holds 14.6.2.1 …; 14.6.3 or 14.7 ends it); its own text ends at its first
sub-point. Read for word changes (a phrase replaced, deleted or added in it, or in its n-th sentence or its case
«(β)»), and since engine v6 (issue 49) for:

* its whole new wording («Τροποποιείται η παρ. 13.1. … και διαμορφώνεται ως εξής: «13.1. …»»), which must open with
  the point's number: it replaces the point's own text, and its sub-points too where the new wording holds
  sub-point lines of its own. A new wording without them leaves the sub-points standing: ν. 4825/2021 art. 62
  gives 13.1's new wording without 13.1.1–13.1.3 and then replaces 13.1.3 apart, so they stay;
* a sentence added at its end («Στο τέλος της παρ. 22.7.2 … προστίθεται εδάφιο»), where it has no sub-points;
* its repeal («Διαγράφεται η παρ. 13.6.3»): the number kept with «[Καταργείται]», as a paragraph's, where it has no
  sub-points.

The point must be there exactly once; a point the article does not number (ν. 4831/2021 art. 153 names «παρ.
22.7.2», the corpus's article 22 runs 22.1–22.8 without sub-points) is refused with the article's points named, never
guessed by its words. A point inserted, or any other action on a point, is listed as not read, never applied to the
whole article.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from nomos.legal.inforce.edit import REPEALED, Edit, Par, Refused
from nomos.legal.inforce.instructions import Instruction
from nomos.legal.text.article_parts import case_index, cases

WORD_ACTIONS = frozenset({"replace-words", "delete-words", "insert-words"})
# what a point's place reads as (its depth is a paragraph's): the point's own actions
POINT_ACTIONS = frozenset({"replace-paragraph", "insert-sentence", "repeal-paragraph"})
_POINT_LINE = re.compile(r"(?m)^[ \t\xa0]*(\d{1,3}(?:\.\d{1,3})+)\.?(?=[ \t\xa0])")


def refuse_unless_words(ins: Instruction) -> None:
    if ins.place.point and ins.action not in WORD_ACTIONS | POINT_ACTIONS:
        raise Refused(f"point {ins.place.point} of the article is read for word changes, its new wording, a "
                      f"sentence at its end and its repeal only, not for «{ins.action}»")
    if ins.place.point and ins.action == "insert-sentence" and (ins.place.cases or ins.where not in ("", "end")):
        raise Refused(f"a sentence is added to point {ins.place.point} only at its end")


def point_action(ins: Instruction) -> Callable[[Edit, Instruction], tuple[str, str]] | None:
    """The point's own action for an instruction that names a point and acts on it whole (None: the unit's)."""
    if not ins.place.point or ins.place.cases or ins.place.depth != 1 and ins.action != "insert-sentence":
        return None
    return {"replace-paragraph": replace_point, "insert-sentence": point_sentence,
            "repeal-paragraph": repeal_point}.get(ins.action)


def _find(e: Edit, point: str) -> tuple[int, int, int, int]:
    """(paragraph index, where the point's line opens (its number), where its own text ends, where it ends with
    its sub-points) of ``point``, found once in the article."""
    found = []
    for i, p in enumerate(e.s.pars):
        lines = list(_POINT_LINE.finditer(p.text))
        for k, m in enumerate(lines):
            if m.group(1) == point:
                own = lines[k + 1].start() if k + 1 < len(lines) else len(p.text)
                end = next((x.start() for x in lines[k + 1:] if not x.group(1).startswith(point + ".")), len(p.text))
                found.append((i, m.start(1), len(p.text[:own].rstrip()), len(p.text[:end].rstrip())))
    if not found:
        raise Refused(_missing(e, point))
    if len(found) > 1:
        raise Refused(f"point {point} is numbered twice in the article")
    return found[0]


def _missing(e: Edit, point: str) -> str:
    """Why a point is not found, with the points the article numbers at that level (under the same parent)."""
    parent = point.rsplit(".", 1)[0]
    level = [m.group(1) for p in e.s.pars for m in _POINT_LINE.finditer(p.text)
             if m.group(1).rsplit(".", 1)[0] == parent]
    reason = f"point {point} is not in the article"
    if level:
        shown = f"{level[0]}–{level[-1]}" if len(level) > 2 else ", ".join(level)
        reason = f"point {point} is not in the article (it numbers {shown} there, and no point {point})"
    elif "." in parent:
        reason = f"point {point} is not in the article (it numbers no point under {parent})"
    return reason


def replace_point(e: Edit, ins: Instruction) -> tuple[str, str]:
    point = ins.place.point
    if len(ins.wording) != 1:
        raise Refused(f"several quotations for point {point}")
    wording = ins.wording[0].strip()
    m = _POINT_LINE.match(wording)
    if m is None or m.group(1) != point:
        raise Refused(f"the new wording does not open with point {point}'s number")
    numbers = [x.group(1) for x in _POINT_LINE.finditer(wording)][1:]
    foreign = [n for n in numbers if not n.startswith(point + ".")]
    if foreign:
        raise Refused(f"the new wording of point {point} holds point {foreign[0]}, not one of its own")
    i, a, own, end = _find(e, point)
    text = e.s.pars[i].text
    stop = end if numbers else own
    new = text[:a] + wording + text[stop:]
    e.s.pars[i] = Par(e.s.pars[i].number, new, e.source)
    return text[a:stop], wording


def point_sentence(e: Edit, ins: Instruction) -> tuple[str, str]:
    point = ins.place.point
    if len(ins.wording) != 1:
        raise Refused(f"several quotations for one sentence of point {point}")
    i, a, own, end = _find(e, point)
    if own != end:
        raise Refused(f"point {point} has sub-points: where its end is, before or after them, is not stated")
    text = e.s.pars[i].text
    added = ins.wording[0].strip()
    new = text[:own] + " " + added + text[own:]
    e.s.pars[i] = Par(e.s.pars[i].number, new, e.source)
    return text[a:own], new[a:own + 1 + len(added)]


def repeal_point(e: Edit, ins: Instruction) -> tuple[str, str]:
    point = ins.place.point
    i, a, own, end = _find(e, point)
    if own != end:
        raise Refused(f"point {point} has sub-points: whether they go with it is not stated")
    text = e.s.pars[i].text
    new = text[:a] + f"{point}. {REPEALED}" + text[own:]
    e.s.pars[i] = Par(e.s.pars[i].number, new, e.source)
    return text[a:own], f"{point}. {REPEALED}"


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
        raise Refused(_missing(e, point))
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
