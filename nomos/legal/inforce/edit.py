"""What the consolidation engine's actions work on: an article's paragraphs as they now read, and one amending
article's instructions at work on them.

Every unit module (:mod:`.article`, :mod:`.paragraph`, :mod:`.case`, :mod:`.sentence`, :mod:`.words`) changes a
:class:`State` through an :class:`Edit` and raises :class:`Refused` with the reason when an instruction cannot be
applied exactly; the engine (:mod:`.engine`) puts the state back then. They share this module so that none of them
reaches into another's rules, and the engine's table of actions is the one place that names them all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from nomos.legal.inforce.instructions import Instruction
from nomos.legal.inforce.result import Applied
from nomos.legal.text.folding import fold

REPEALED = "[Καταργείται]"


@dataclass
class Par:
    number: str
    text: str
    source: str = ""


def norm(text: str) -> str:
    return " ".join(text.replace("\xa0", " ").split())


@dataclass(frozen=True)
class Step:
    """One instruction applied, with the unit it changed before and after (the paragraphs it touched; the whole
    article for a whole-article instruction): what a reader checks it by."""

    applied: Applied
    target: str
    before: str
    after: str


class Refused(Exception):
    """An instruction that cannot be applied exactly: the reason."""


@dataclass
class State:
    article_id: str
    title: str
    pars: list[Par]
    original: list[Par]
    repealed: bool = False
    steps: list[Step] = field(default_factory=list)
    # the end of a cut title the corpus wrote as the text's first line (:mod:`.title_tail`), until a new title:
    # a whole new wording's heading is read against the title with it («… μέλη» + «Διδακτικού … Προσωπικού»)
    title_tail: str = ""

    def text(self) -> str:
        return "\n".join(p.text for p in self.pars)

    def find(self, number: str) -> int:
        hits = [i for i, p in enumerate(self.pars) if fold(p.number) == fold(number)]
        if not hits:
            raise Refused(f"paragraph {number} is not in the article")
        if len(hits) > 1:
            raise Refused(f"paragraph {number} is numbered twice in the article")
        return hits[0]

    def unit(self, numbers: tuple[str, ...]) -> list[int]:
        """The paragraphs an instruction's unit lies in: those named, or the article's only one."""
        if numbers:
            return [self.find(n) for n in numbers]
        if len(self.pars) == 1:
            return [0]
        raise Refused("the instruction names no paragraph and the article has several")


def number_prefix(wording: str) -> str | None:
    m = re.match(r"\s*(\d{1,3}[Α-Ωα-ω]?)\s*\.(?!\d)", wording)
    return m.group(1) if m else None


class Edit:
    """One amending article's instructions at work on an article's :class:`State`: the state they change, and the
    amending article a passage they give new wording is attributed to."""

    def __init__(self, state: State, source: str) -> None:
        self.s = state
        self.source = source
        # the part of an instruction applied in part that was not (:func:`~.case.repeal_case`): the engine lists it
        # as unapplied beside what was, so the status says «partial» with the reason
        self.left: list[str] = []

    def source_of(self, old: Par | None, text: str) -> str:
        """A passage whose words did not change keeps the provenance it had."""
        if old is not None and norm(old.text) == norm(text):
            return old.source
        return self.source


def one_paragraph(e: Edit, ins: Instruction) -> int:
    at = e.s.unit(ins.place.paragraphs)
    if len(at) != 1:
        raise Refused("the instruction names several paragraphs for one unit")
    return at[0]
