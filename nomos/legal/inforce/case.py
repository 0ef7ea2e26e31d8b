"""A case's actions (a lettered item «γ)» of a paragraph): its new wording (``replace-case``), a new case
(``insert-case``) and its repeal (``repeal-case``); and a new subcase written with its case's letter before its own
(``insert-subcase``: «μετά την υποπερ. στδ) προστίθεται υποπερ. στε)», ν. 4795/2021 art. 45 on N_4765_2021::12).

A case is found in its paragraph's sequence of letters; a new one must follow the paragraph's last case, and a
repealed one keeps its mark with «[Καταργείται]». :func:`find_case` is also how a sentence or a phrase inside a case
is found (:mod:`.sentence`, :mod:`.words`).
"""

from __future__ import annotations

import re

from nomos.legal.inforce.edit import REPEALED, Edit, Par, Refused, one_paragraph
from nomos.legal.inforce.instructions import Instruction
from nomos.legal.text.article_parts import CASE_LETTERS, Case, case_index, cases, paragraph_body
from nomos.legal.text.folding import fold


def _cases_of(e: Edit, i: int) -> list[Case]:
    text = e.s.pars[i].text
    return cases(text, paragraph_body(text))


def find_case(e: Edit, i: int, letter: str) -> Case:
    found = [c for c in _cases_of(e, i) if case_index(c.letter) == case_index(letter)]
    if not found:
        raise Refused(f"case {letter} is not in paragraph {e.s.pars[i].number or '(the article)'}")
    return found[0]


def replace_case(e: Edit, ins: Instruction) -> tuple[str, str]:
    if len(ins.place.cases) != 1 or len(ins.wording) != 1:
        raise Refused("several cases replaced by one wording")
    i = one_paragraph(e, ins)
    letter = ins.place.cases[0]
    c = find_case(e, i, letter)
    # «τροποποιείται ως εξής: «: α) …»»: a colon the drafter left before the case's mark (ν. 4795/2021 art. 45
    # item 6) is none of the wording
    wording = re.sub(r"^:\s+(?=\(?[α-ωά-ώ]{1,3}[΄'’]?[).])", "", ins.wording[0].strip())
    mark = re.match(r"\s*\(?([α-ωά-ώ]{1,3})[΄'’]?[).]", wording)
    if not mark or case_index(mark.group(1)) != case_index(letter):
        raise Refused(f"the new wording does not open with case {letter}'s mark")
    text = e.s.pars[i].text
    body, tail = _case_text(text, c)
    new = text[:c.start] + wording + tail + text[c.start + len(body) + len(tail):]
    before = text
    e.s.pars[i] = Par(e.s.pars[i].number, new, e.source)
    return before, new


def _case_text(text: str, c: Case) -> tuple[str, str]:
    """A case's words and the separator after them (whitespace, kept when the case is replaced)."""
    span = text[c.start:c.end]
    stripped = span.rstrip()
    return stripped, span[len(stripped):]


def repeal_case(e: Edit, ins: Instruction) -> tuple[str, str]:
    if not ins.place.cases:
        raise Refused("the case repealed is not named")
    i = one_paragraph(e, ins)
    text = e.s.pars[i].text
    if len(ins.place.cases) == 1:
        found = [find_case(e, i, ins.place.cases[0])]
    else:
        found = _exact_cases(e, i, ins.place.cases)
    new = text
    for c in sorted(found, key=lambda c: c.start, reverse=True):
        body, tail = _case_text(new, c)
        mark = re.match(r"\s*(\(?[α-ωά-ώ]{1,3}[΄'’]?[).])", body)
        new = new[:c.start] + f"{mark.group(1) if mark else c.letter + ')'} {REPEALED}" + tail + \
            new[c.start + len(body) + len(tail):]
    e.s.pars[i] = Par(e.s.pars[i].number, new, e.source)
    return text, new


_LOST_MARK = re.compile(r"\n[ \t\xa0]*\(?[α-ωά-ώ]{1,3}[΄'’]?\)")  # a case's mark the case list did not take


def _exact_cases(e: Edit, i: int, letters: tuple[str, ...]) -> list[Case]:
    """The cases of several repealed together: all, where the paragraph holds each; otherwise (a column-garbled text:
    ν. 4727/2020 art. 231 on N_4070_2012::4's cases α΄–ιη΄) only those whose place is exact, a case followed in the
    text by the one after it in the alphabet (or the paragraph's last, with no other case's mark at a line's start
    inside it: an unclosed quotation hides the cases after it), so that no case left in force is inside what is
    repealed. The rest go to ``e.left`` with the reason, so the status is «partial»; none exact: refused."""
    have = _cases_of(e, i)
    by_index = {case_index(c.letter): c for c in have}
    wanted = [(letter, case_index(letter)) for letter in letters]
    missing = [letter for letter, k in wanted if k not in by_index]
    if not missing:
        return [by_index[k] for _, k in wanted]
    order = [case_index(c.letter) for c in have]
    exact: list[str] = []
    loose: list[str] = []
    for letter, k in wanted:
        if k not in by_index:
            continue
        at = order.index(k)
        c = by_index[k]
        last_alone = at == len(order) - 1 and not _LOST_MARK.search(e.s.pars[i].text, c.start + 1, c.end)
        (exact if last_alone or at < len(order) - 1 and order[at + 1] == (k or 0) + 1 else loose).append(letter)
    number = e.s.pars[i].number or "(the article)"
    gone, unsure, done = ", ".join(missing), ", ".join(loose), ", ".join(exact)
    if not exact:
        raise Refused(f"cases not in paragraph {number}: {gone}; cases whose end cannot be told (a case missing "
                      f"after each): {unsure}" if loose else f"cases not in paragraph {number}: {gone}")
    reason = (f"cases not in paragraph {number}: {gone}; cases whose end cannot be told (a case missing after each): "
              f"{unsure}; only cases repealed: {done}" if loose else
              f"cases not in paragraph {number}: {gone}; only cases repealed: {done}")
    e.left.append(reason)
    return [by_index[case_index(letter)] for letter in exact]


def insert_case(e: Edit, ins: Instruction) -> tuple[str, str]:
    if len(ins.place.cases) != 1 or len(ins.wording) != 1:
        raise Refused("several cases inserted by one wording")
    letter = ins.place.cases[0]
    index = case_index(letter)
    if index is None:
        raise Refused(f"case {letter} is not a case letter")
    i = one_paragraph(e, ins)
    text = e.s.pars[i].text
    found = _cases_of(e, i)
    if any(case_index(c.letter) == index for c in found):
        raise Refused(f"case {letter} already exists")
    wording = ins.wording[0].strip()
    mark = re.match(r"\s*\(?([α-ωά-ώ]{1,3})[΄'’]?[).]", wording)
    if not mark or case_index(mark.group(1)) != index:
        raise Refused(f"the new wording does not open with case {letter}'s mark")
    if index == 0 or not found or case_index(found[-1].letter) != index - 1:
        prev = CASE_LETTERS[index - 1] if index else "-"
        raise Refused(f"case {letter} would not follow case {prev}, the paragraph's last")
    last = found[-1]
    on_lines = text[:last.start].rstrip(" \t").endswith("\n")
    sep = "\n" if on_lines else " "
    new = text.rstrip() + sep + wording
    e.s.pars[i] = Par(e.s.pars[i].number, new, e.source)
    return text, new


def insert_subcase(e: Edit, ins: Instruction) -> tuple[str, str]:
    """A new subcase whose mark is its case's letter and its own («στε)» in case «στ.», after «στα)» … «στδ)», one a
    line): it must follow the case's last subcase, written the same way, and its wording open with its mark.
    Subcases marked otherwise («αα)» under «α)» reads the same; «i)», «1)» do not) are refused."""
    if len(ins.place.subcases) != 1 or len(ins.wording) != 1:
        raise Refused("several subcases inserted by one wording")
    label = fold(ins.place.subcases[0]).strip("΄'’`() ")
    i = one_paragraph(e, ins)
    text = e.s.pars[i].text
    parents = [(c, fold(c.letter).strip("΄'’`() ")) for c in _cases_of(e, i)]
    parents = [(c, p) for c, p in parents if label.startswith(p) and case_index(label[len(p):]) is not None]
    if len(parents) != 1:
        raise Refused(f"subcase {label} is not under one case of paragraph {e.s.pars[i].number or '(the article)'}")
    case, parent = parents[0]
    index = case_index(label[len(parent):]) or 0
    sub = re.compile(rf"(?m)^[ \t\xa0]*\(?{re.escape(parent)}(?P<l>[α-ω]{{1,2}})[΄'’]?\)(?=\s)")
    marks = list(sub.finditer(fold(text), case.start, case.end))
    seen = [case_index(m.group("l")) for m in marks]
    if seen != list(range(len(seen))):
        raise Refused(f"the subcases of case {parent} are not read in order")
    if index != len(seen) or not seen:
        prev = parent + CASE_LETTERS[index - 1] if index else "-"
        raise Refused(f"subcase {label} would not follow subcase {prev}, the case's last")
    wording = ins.wording[0].strip()
    mark = re.match(r"\s*\(?([α-ωά-ώ]{2,4})[΄'’]?\)", wording)
    if not mark or fold(mark.group(1)) != label:
        raise Refused(f"the new wording does not open with subcase {label}'s mark")
    end = case.start + len(text[case.start:case.end].rstrip())
    new = text[:end] + "\n" + wording + text[end:]
    e.s.pars[i] = Par(e.s.pars[i].number, new, e.source)
    return text, new
