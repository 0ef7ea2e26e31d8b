"""The whole article's actions: its new wording (``replace-article``), its title (``replace-title``) and its repeal
(``repeal``).

A whole-article wording is checked against the article it lands on: its heading's number must be the article's, and
its title must share a word with the article's title (else the extractor's target may be another law's article of
the same number).
"""

from __future__ import annotations

import re

from nomos.legal.inforce.edit import REPEALED, Edit, Par, Refused
from nomos.legal.inforce.instructions import Instruction
from nomos.legal.text.article_parts import Heading, paragraphs, read_heading
from nomos.legal.text.folding import fold


def replace_article(e: Edit, ins: Instruction) -> tuple[str, str]:
    wording = ins.wording[0]
    text_now = e.s.text() if len(e.s.pars) == 1 else ""
    heading = read_heading(wording, f"{e.s.title} {e.s.title_tail}".strip(), text_now)
    if isinstance(heading, str) and e.s.title_tail:
        heading = read_heading(wording, e.s.title, text_now)  # a new title that is not the whole cut one
    if isinstance(heading, str):
        raise Refused(heading)
    number = e.s.article_id.split("::", 1)[-1]
    if isinstance(heading, Heading):
        if fold(heading.number) != fold(number):
            raise Refused(f"the new wording is of article {heading.number}, not of article {number}")
        _check_title(e, heading.title)
        body = wording[heading.body_start:]
    else:
        body = wording
    new = [p for p in paragraphs(body) if p.text]
    if not new:
        raise Refused("the new wording holds no text")
    before = e.s.text()
    old = {fold(p.number): p for p in e.s.pars}
    e.s.pars = [Par(p.number, p.text, e.source_of(old.get(fold(p.number)), p.text)) for p in new]
    if isinstance(heading, Heading) and heading.title:
        e.s.title = heading.title
    e.s.repealed = False
    return before, e.s.text()


def _check_title(e: Edit, title: str) -> None:
    """A heading whose title shares no word with the article's current title is taken for another article
    (the extractor's target may be another law's article of the same number)."""
    if not title or not e.s.title:
        return
    words = {w[:5] for w in re.findall(r"\w{4,}", fold(title))}
    now = {w[:5] for w in re.findall(r"\w{4,}", fold(e.s.title))}
    if words and now and not words & now:
        raise Refused(f"the new wording's title «{title}» shares no word with the article's title "
                       f"«{e.s.title}»: it may be another law's article")


def replace_title(e: Edit, ins: Instruction) -> tuple[str, str]:
    """«Ο τίτλος του άρθρου 53 … διαμορφώνεται ως εξής: «Άρθρο 53 Αυτοδίκαιη …»»: the quotation is the heading
    alone, its number checked."""
    wording = ins.wording[0].strip()
    m = re.match(r"(?:Άρθρο|ΑΡΘΡΟ|Αρθρο)\s+(\d{1,4}[Α-Ωα-ω]{0,2})(?![\w])\s*[.:-]?\s*", wording)
    if m:
        number = e.s.article_id.split("::", 1)[-1]
        if fold(m.group(1)) != fold(number):
            raise Refused(f"the new title is of article {m.group(1)}, not of article {number}")
        wording = wording[m.end():]
    title = wording.strip()
    if "\n" in title or not title:
        raise Refused("the new title is not one line")
    before = e.s.title
    e.s.title = title
    return before, title


def repeal_article(e: Edit, ins: Instruction) -> tuple[str, str]:
    if ins.place.paragraphs or ins.place.cases:
        raise Refused("a repeal of part of the article read as the whole")
    before = e.s.text()
    e.s.pars = [Par("", REPEALED, e.source)]
    e.s.repealed = True
    return before, REPEALED
