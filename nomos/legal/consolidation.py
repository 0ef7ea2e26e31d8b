"""The consolidation engine: an article's text in force, from its original text and the articles that amend it.

The amending articles are applied in the order of their laws (year, then law number, then article number); each
one's instructions (read by :mod:`nomos.legal.amendment_reading`) that name this article, in the order written.
An instruction is applied only when it can be applied exactly:

* whole-article new wording («το άρθρο 372 διαμορφώνεται ως εξής: «Άρθρο 372 Κλοπή 1. …»»): the quoted article,
  its heading's number checked against the article's, its heading's title taken as the title in force;
* a paragraph's, case's or sentence's new wording: the unit must be found (paragraph «4.» at a line's start, case
  «γ)» in its sequence, the n-th sentence where every period before it is certain);
* insertions: a paragraph «7.» goes after the last one numbered below it, and must not exist yet; only a
  paragraph the instruction itself adds is created («προστίθεται παρ. 7»), never one named as where a sentence or
  case goes («Στην παρ. 4 … προστίθεται εδάφιο»: paragraph 4 must be there); a case after the case before it in
  the sequence; a sentence at the end of its paragraph, or after (before) the sentence named;
* repeals: a paragraph or case keeps its number with «[Καταργείται]» (later references by number still land); a
  sentence is removed; a whole article reads «[Καταργείται]»;
* words: the phrase replaced, deleted, or after/before which words are added must occur exactly once in the unit
  named (whitespace and the apostrophes ΄ ’ ' read alike); twice is ambiguous, none is not found.

Anything else goes to ``unapplied`` with its reason, and the result is ``partial`` — unless a later instruction
gives the whole wording of the unit it would have changed (a later whole-article or paragraph replacement): then
the text in force does not depend on it, and it is listed as superseded. An article named only as the place where
new articles go («Μετά το άρθρο 205 … προστίθεται άρθρο 205Α») gets no instruction for its text: that is neither
applied nor unapplied, and an amending article that does nothing else to it is not among its amendments. Every passage carries the amending
article that gave it its wording ("" : the original's) and whether it differs from the original paragraph at its
place. A code's article may end with the code's own structural lines (a chapter or section heading in capitals,
a note «Άρθρα 382 - 384 (Καταργούνται)»: :func:`~nomos.legal.article_parts.structural_tail`): they are outside the
article, so no instruction matches them, and they follow whatever wording it has, unchanged and the original's.
This module reads text only (floor 3): the corpus-wide run at ingest is :mod:`nomos.ingest.in_force`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nomos.legal.amendment_reading import Instruction, bind, read_instructions
from nomos.legal.article_parts import (
    CASE_LETTERS,
    Heading,
    case_index,
    cases,
    paragraph_body,
    paragraph_key,
    paragraphs,
    read_heading,
    sentences,
    structural_tail,
)
from nomos.legal.citations import fold
from nomos.legal.in_force import Applied, InForce, Passage, Unapplied

# Bump whenever the rules change what the engine produces (reading or applying): ingest stores the text in force
# and the article's content hash includes it, so a re-index recomputes it then.
CONSOLIDATION_VERSION = "4"
REPEALED = "[Καταργείται]"
AMENDMENT_KINDS = frozenset({"amends", "replaces", "inserts", "repeals"})
# instructions that name an article only as the place where new articles go («Μετά το άρθρο 205 … προστίθεται
# άρθρο 205Α»): no instruction for its text, so neither applied nor unapplied; an amending article that gives the
# article nothing else is left out of its amendments
PLACING_ONLY = frozenset({"insert-articles"})


@dataclass(frozen=True)
class Amending:
    """An amending article as the engine needs it: its id, its law (``source``, ``law``: what orders it), its
    text, and its references (the legal graph's edges, dicts or :class:`~nomos.legal.references.Reference`, with
    ``target``, ``kind``, ``start``, ``end``)."""

    id: str
    text: str
    references: Sequence[Mapping[str, Any]]
    source: str = ""
    law: str = ""


@dataclass(frozen=True)
class Step:
    """One instruction applied, with the unit it changed before and after (the paragraphs it touched; the whole
    article for a whole-article instruction): what a reader checks it by."""

    applied: Applied
    target: str
    before: str
    after: str


@dataclass(frozen=True)
class Consolidation:
    """The engine's result: the text in force, and each applied instruction's before and after."""

    in_force: InForce
    steps: tuple[Step, ...] = ()


def law_key(article_id: str, source: str = "", law: str = "") -> tuple[int, int]:
    """(year, number) of the law an article belongs to: from an id like ``N_4855_2021::86``, else from its law's
    name («Ποινικός Κώδικας (ν. 4619/2019)»); (0, 0) when neither says."""
    prefix = (source or article_id.split("::", 1)[0])
    m = re.fullmatch(r"[A-Z]+_(\d+)_(\d{4})", prefix)
    if m:
        return int(m.group(2)), int(m.group(1))
    m = re.search(r"(\d{1,5})\s*/\s*(\d{4})", law or "")
    if m:
        return int(m.group(2)), int(m.group(1))
    return 0, 0


def order_key(article_id: str, source: str = "", law: str = "") -> tuple[int, int, int, str, str]:
    """The amending laws' order: year, law number, then article number as a reader counts (2 < 10 < 10Α)."""
    year, number = law_key(article_id, source, law)
    article = article_id.split("::", 1)[-1]
    m = re.match(r"(\d+)(.*)", article)
    return year, number, int(m.group(1)) if m else 0, fold(m.group(2)) if m else fold(article), article_id


@dataclass
class _Par:
    number: str
    text: str
    source: str = ""


def _norm(text: str) -> str:
    return " ".join(text.replace("\xa0", " ").split())


_APOSTROPHES = "΄'’`´‘"


def _pattern(phrase: str) -> re.Pattern[str]:
    """A phrase as a pattern: whitespace runs match any whitespace, the apostrophes match each other, and the
    phrase stands between word boundaries where it starts or ends with a letter or digit."""
    parts: list[str] = []
    for k, ch in enumerate(phrase.strip()):
        if k == 0 and ch.isalpha() and ch.lower() != ch.upper():
            # a phrase may open a sentence where it occurs («με απόφαση …» in «… 4. Με απόφαση …»)
            parts.append(f"[{re.escape(ch.lower())}{re.escape(ch.upper())}]")
        elif ch.isspace():
            if not parts or parts[-1] != r"\s+":
                parts.append(r"\s+")
        elif ch in _APOSTROPHES:
            parts.append(f"[{_APOSTROPHES}]")
        else:
            parts.append(re.escape(ch))
    body = "".join(parts)
    head = r"(?<![\w])" if phrase.strip()[:1].isalnum() else ""
    tail = r"(?![\w])" if phrase.strip()[-1:].isalnum() else ""
    return re.compile(head + body + tail)


class _Refused(Exception):
    """An instruction that cannot be applied exactly: the reason."""


@dataclass
class _State:
    article_id: str
    title: str
    pars: list[_Par]
    original: list[_Par]
    repealed: bool = False
    steps: list[Step] = field(default_factory=list)

    def text(self) -> str:
        return "\n".join(p.text for p in self.pars)

    def find(self, number: str) -> int:
        hits = [i for i, p in enumerate(self.pars) if fold(p.number) == fold(number)]
        if not hits:
            raise _Refused(f"paragraph {number} is not in the article")
        if len(hits) > 1:
            raise _Refused(f"paragraph {number} is numbered twice in the article")
        return hits[0]

    def unit(self, numbers: tuple[str, ...]) -> list[int]:
        """The paragraphs an instruction's unit lies in: those named, or the article's only one."""
        if numbers:
            return [self.find(n) for n in numbers]
        if len(self.pars) == 1:
            return [0]
        raise _Refused("the instruction names no paragraph and the article has several")


def _number_prefix(wording: str) -> str | None:
    m = re.match(r"\s*(\d{1,3}[Α-Ωα-ω]?)\s*\.(?!\d)", wording)
    return m.group(1) if m else None


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
            raise _Refused(f"the new wording does not hold paragraphs {', '.join(numbers)} one by one")
        out = [p.text for p in parts]
    else:
        raise _Refused(f"{len(words)} quotations for {len(numbers)} paragraphs")
    result = []
    for n, w in zip(numbers, out, strict=True):
        prefix = _number_prefix(w)
        if prefix is None:
            if len(numbers) > 1:
                raise _Refused("the new wording of several paragraphs does not number them")
            w = f"{n}. {w.strip()}"
        elif fold(prefix) != fold(n):
            raise _Refused(f"the new wording is numbered {prefix}, not {n}")
        result.append(w.strip())
    return result


def _cased(found: str, phrase: str, new: str) -> str:
    """The new words with a capital where the phrase they replace opened a sentence («Με απόφαση της συγκλήτου»
    for «με απόφαση της συγκλήτου»: «Με απόφαση του πρυτανικού συμβουλίου»)."""
    if found[:1].isupper() and phrase.strip()[:1].islower() and new[:1].islower():
        return new[:1].upper() + new[1:]
    return new


def _paragraph_label(ins: Instruction) -> str:
    return ", ".join(ins.place.paragraphs)


class _Engine:
    """Applies one article's instructions to a :class:`_State`."""

    def __init__(self, state: _State, source: str) -> None:
        self.s = state
        self.source = source

    # -- whole article ------------------------------------------------------------------------------------------
    def replace_article(self, ins: Instruction) -> tuple[str, str]:
        wording = ins.wording[0]
        heading = read_heading(wording, self.s.title, self.s.text() if len(self.s.pars) == 1 else "")
        if isinstance(heading, str):
            raise _Refused(heading)
        number = self.s.article_id.split("::", 1)[-1]
        if isinstance(heading, Heading):
            if fold(heading.number) != fold(number):
                raise _Refused(f"the new wording is of article {heading.number}, not of article {number}")
            self._check_title(heading.title)
            body = wording[heading.body_start:]
        else:
            body = wording
        new = [p for p in paragraphs(body) if p.text]
        if not new:
            raise _Refused("the new wording holds no text")
        before = self.s.text()
        old = {fold(p.number): p for p in self.s.pars}
        self.s.pars = [_Par(p.number, p.text, self._source_of(old.get(fold(p.number)), p.text)) for p in new]
        if isinstance(heading, Heading) and heading.title:
            self.s.title = heading.title
        self.s.repealed = False
        return before, self.s.text()

    def _check_title(self, title: str) -> None:
        """A heading whose title shares no word with the article's current title is taken for another article
        (the extractor's target may be another law's article of the same number)."""
        if not title or not self.s.title:
            return
        words = {w[:5] for w in re.findall(r"\w{4,}", fold(title))}
        now = {w[:5] for w in re.findall(r"\w{4,}", fold(self.s.title))}
        if words and now and not words & now:
            raise _Refused(f"the new wording's title «{title}» shares no word with the article's title "
                           f"«{self.s.title}»: it may be another law's article")

    def _source_of(self, old: _Par | None, text: str) -> str:
        """A passage whose words did not change keeps the provenance it had."""
        if old is not None and _norm(old.text) == _norm(text):
            return old.source
        return self.source

    def replace_title(self, ins: Instruction) -> tuple[str, str]:
        """«Ο τίτλος του άρθρου 53 … διαμορφώνεται ως εξής: «Άρθρο 53 Αυτοδίκαιη …»»: the quotation is the heading
        alone, its number checked."""
        wording = ins.wording[0].strip()
        m = re.match(r"(?:Άρθρο|ΑΡΘΡΟ|Αρθρο)\s+(\d{1,4}[Α-Ωα-ω]{0,2})(?![\w])\s*[.:-]?\s*", wording)
        if m:
            number = self.s.article_id.split("::", 1)[-1]
            if fold(m.group(1)) != fold(number):
                raise _Refused(f"the new title is of article {m.group(1)}, not of article {number}")
            wording = wording[m.end():]
        title = wording.strip()
        if "\n" in title or not title:
            raise _Refused("the new title is not one line")
        before = self.s.title
        self.s.title = title
        return before, title

    def repeal_article(self, ins: Instruction) -> tuple[str, str]:
        if ins.place.paragraphs or ins.place.cases:
            raise _Refused("a repeal of part of the article read as the whole")
        before = self.s.text()
        self.s.pars = [_Par("", REPEALED, self.source)]
        self.s.repealed = True
        return before, REPEALED

    # -- paragraphs ---------------------------------------------------------------------------------------------
    def replace_paragraph(self, ins: Instruction) -> tuple[str, str]:
        numbers = ins.place.paragraphs
        if ins.wording and len(ins.wording) == 1 and not numbers:
            raise _Refused("the paragraph replaced is not named")
        new = _split_wording(ins.wording, numbers)
        for n in numbers:
            # «προστίθεται παρ. 9 και οι παρ. 4 και 9 διαμορφώνονται ως εξής»: 9 is new
            if fold(n) in {fold(x) for x in ins.inserted} and not any(fold(p.number) == fold(n) for p in self.s.pars):
                self._insert_at(n, "")
        at = [self.s.find(n) for n in numbers]
        before = "\n".join(self.s.pars[i].text for i in at)
        for i, w in zip(at, new, strict=True):
            self.s.pars[i] = _Par(self.s.pars[i].number, w, self._source_of(self.s.pars[i], w))
        return before, "\n".join(self.s.pars[i].text for i in at)

    def insert_paragraph(self, ins: Instruction) -> tuple[str, str]:
        numbers = ins.place.paragraphs
        if not numbers:
            raise _Refused("the paragraph inserted is not numbered")
        if not any(p.number for p in self.s.pars):
            raise _Refused("the article's paragraphs are not numbered")
        new = _split_wording(ins.wording, numbers)
        added = []
        for n, w in zip(numbers, new, strict=True):
            same = [p for p in self.s.pars if fold(p.number) == fold(n)]
            if same:
                if _norm(same[0].text) == _norm(w):
                    added.append(w)
                    continue
                raise _Refused(f"paragraph {n} already exists")
            if ins.where == "after" and ins.anchor and ins.anchor.paragraphs:
                anchor = self.s.find(ins.anchor.paragraphs[-1])
                before_n = [i for i, p in enumerate(self.s.pars) if paragraph_key(p.number) < paragraph_key(n)]
                if before_n and anchor != before_n[-1]:
                    raise _Refused(f"paragraph {n} would not follow paragraph {ins.anchor.paragraphs[-1]}")
            self._insert_at(n, w)
            added.append(w)
        return "", "\n".join(added)

    def _insert_at(self, number: str, text: str) -> None:
        """A new paragraph after the last one numbered below it."""
        key = paragraph_key(number)
        before_n = [i for i, p in enumerate(self.s.pars) if paragraph_key(p.number) < key]
        at = before_n[-1] + 1 if before_n else 0
        self.s.pars.insert(at, _Par(number, text, self.source))

    def repeal_paragraph(self, ins: Instruction) -> tuple[str, str]:
        at = [self.s.find(n) for n in ins.place.paragraphs]
        if not at:
            raise _Refused("the paragraph repealed is not named")
        before = "\n".join(self.s.pars[i].text for i in at)
        for i in at:
            p = self.s.pars[i]
            self.s.pars[i] = _Par(p.number, f"{p.number}. {REPEALED}", self.source)
        return before, "\n".join(self.s.pars[i].text for i in at)

    # -- cases --------------------------------------------------------------------------------------------------
    def _cases_of(self, i: int) -> list:
        text = self.s.pars[i].text
        return cases(text, paragraph_body(text))

    def _one_paragraph(self, ins: Instruction) -> int:
        at = self.s.unit(ins.place.paragraphs)
        if len(at) != 1:
            raise _Refused("the instruction names several paragraphs for one unit")
        return at[0]

    def _case(self, i: int, letter: str) -> Any:  # noqa: ANN401 - an article_parts.Case
        found = [c for c in self._cases_of(i) if case_index(c.letter) == case_index(letter)]
        if not found:
            raise _Refused(f"case {letter} is not in paragraph {self.s.pars[i].number or '(the article)'}")
        return found[0]

    def replace_case(self, ins: Instruction) -> tuple[str, str]:
        if len(ins.place.cases) != 1 or len(ins.wording) != 1:
            raise _Refused("several cases replaced by one wording")
        i = self._one_paragraph(ins)
        letter = ins.place.cases[0]
        c = self._case(i, letter)
        wording = ins.wording[0].strip()
        mark = re.match(r"\s*\(?([α-ωά-ώ]{1,3})[΄'’]?[).]", wording)
        if not mark or case_index(mark.group(1)) != case_index(letter):
            raise _Refused(f"the new wording does not open with case {letter}'s mark")
        text = self.s.pars[i].text
        body, tail = self._case_text(text, c)
        new = text[:c.start] + wording + tail + text[c.start + len(body) + len(tail):]
        before = text
        self.s.pars[i] = _Par(self.s.pars[i].number, new, self.source)
        return before, new

    @staticmethod
    def _case_text(text: str, c: Any) -> tuple[str, str]:  # noqa: ANN401
        """A case's words and the separator after them (whitespace, kept when the case is replaced)."""
        span = text[c.start:c.end]
        stripped = span.rstrip()
        return stripped, span[len(stripped):]

    def repeal_case(self, ins: Instruction) -> tuple[str, str]:
        if not ins.place.cases:
            raise _Refused("the case repealed is not named")
        i = self._one_paragraph(ins)
        text = self.s.pars[i].text
        found = [self._case(i, letter) for letter in ins.place.cases]
        new = text
        for c in sorted(found, key=lambda c: c.start, reverse=True):
            body, tail = self._case_text(new, c)
            mark = re.match(r"\s*(\(?[α-ωά-ώ]{1,3}[΄'’]?[).])", body)
            new = new[:c.start] + f"{mark.group(1) if mark else c.letter + ')'} {REPEALED}" + tail + \
                new[c.start + len(body) + len(tail):]
        self.s.pars[i] = _Par(self.s.pars[i].number, new, self.source)
        return text, new

    def insert_case(self, ins: Instruction) -> tuple[str, str]:
        if len(ins.place.cases) != 1 or len(ins.wording) != 1:
            raise _Refused("several cases inserted by one wording")
        letter = ins.place.cases[0]
        index = case_index(letter)
        if index is None:
            raise _Refused(f"case {letter} is not a case letter")
        i = self._one_paragraph(ins)
        text = self.s.pars[i].text
        found = self._cases_of(i)
        if any(case_index(c.letter) == index for c in found):
            raise _Refused(f"case {letter} already exists")
        wording = ins.wording[0].strip()
        mark = re.match(r"\s*\(?([α-ωά-ώ]{1,3})[΄'’]?[).]", wording)
        if not mark or case_index(mark.group(1)) != index:
            raise _Refused(f"the new wording does not open with case {letter}'s mark")
        if index == 0 or not found or case_index(found[-1].letter) != index - 1:
            prev = CASE_LETTERS[index - 1] if index else "-"
            raise _Refused(f"case {letter} would not follow case {prev}, the paragraph's last")
        last = found[-1]
        on_lines = text[:last.start].rstrip(" \t").endswith("\n")
        sep = "\n" if on_lines else " "
        new = text.rstrip() + sep + wording
        self.s.pars[i] = _Par(self.s.pars[i].number, new, self.source)
        return text, new

    # -- sentences ----------------------------------------------------------------------------------------------
    def _sentence_unit(self, ins: Instruction) -> tuple[int, int, int]:
        """(paragraph index, where the unit's text starts and ends in it) for a sentence instruction: the case's
        text when a case is named, else the paragraph's body."""
        i = self._one_paragraph(ins)
        text = self.s.pars[i].text
        if ins.place.cases:
            if len(ins.place.cases) != 1:
                raise _Refused("a sentence of several cases")
            c = self._case(i, ins.place.cases[0])
            return i, c.start, c.end
        return i, paragraph_body(text), len(text)

    def replace_sentence(self, ins: Instruction) -> tuple[str, str]:
        if ins.place.sentence is None or len(ins.wording) != 1:
            raise _Refused("which sentence is replaced is not stated")
        if _number_prefix(ins.wording[0]) is not None:
            raise _Refused("the new wording of a sentence opens with a paragraph number: it is not one sentence")
        i, a, b = self._sentence_unit(ins)
        text = self.s.pars[i].text
        span = self._sentence_span(text, a, b, ins.place.sentence)
        new = text[:span[0]] + ins.wording[0].strip() + text[span[1]:]
        self.s.pars[i] = _Par(self.s.pars[i].number, new, self.source)
        return text, new

    def _sentence_span(self, text: str, a: int, b: int, ordinal: int) -> tuple[int, int]:
        sub = text[:b]
        s = sentences(sub, a)
        if ins_count := len(s.spans):
            index = ordinal - 1 if ordinal > 0 else ins_count + ordinal
            if not 0 <= index < ins_count:
                raise _Refused(f"the unit has {ins_count} sentences, not a sentence {ordinal}")
            if not (s.certain(index) if ordinal > 0 else s.all_certain()):
                raise _Refused("the unit's sentences cannot be told apart exactly (an abbreviation or acronym "
                               "before a period)")
            return s.spans[index]
        raise _Refused("the unit holds no sentence")

    def repeal_sentence(self, ins: Instruction) -> tuple[str, str]:
        if ins.place.sentence is None:
            raise _Refused("which sentence is repealed is not stated")
        i, a, b = self._sentence_unit(ins)
        text = self.s.pars[i].text
        start, end = self._sentence_span(text, a, b, ins.place.sentence)
        while end < len(text) and text[end] in " \t\xa0":
            end += 1
        new = (text[:start] + text[end:]).rstrip() if end >= len(text.rstrip()) else text[:start] + text[end:]
        self.s.pars[i] = _Par(self.s.pars[i].number, new, self.source)
        return text, new

    def insert_sentence(self, ins: Instruction) -> tuple[str, str]:
        if len(ins.wording) != 1:
            raise _Refused("several quotations for one sentence")
        i, a, b = self._sentence_unit(ins)
        text = self.s.pars[i].text
        wording = ins.wording[0].strip()
        ordinal = ins.place.sentence
        s = sentences(text[:b], a)
        count = len(s.spans)
        if ins.where in ("after", "before"):
            # «μετά το δεύτερο εδάφιο», «πριν από το τελευταίο εδάφιο»: the sentence named; after words, or a
            # place that names no sentence, is not where a sentence goes exactly
            if ins.anchor is None or ins.anchor.sentence is None:
                raise _Refused("where the new sentence goes is not stated as a sentence of the unit")
            span = self._sentence_span(text, a, b, ins.anchor.sentence)
            at = span[1] if ins.where == "after" else span[0]
        elif ins.where == "start":
            at = a
        elif ordinal is not None and ordinal > 0 and ordinal != count + 1:
            if ordinal > count + 1 or ordinal < 1:
                raise _Refused(f"a new sentence {ordinal} in a unit of {count} sentences")
            at = self._sentence_span(text, a, b, ordinal - 1)[1]
        else:
            at = len(text[:b].rstrip())
        if at >= len(text[:b].rstrip()):
            new = text[:b].rstrip() + " " + wording + text[b:]
        elif ins.where == "before" or ins.where == "start":
            new = text[:at] + wording + " " + text[at:].lstrip(" ")
        else:
            new = text[:at] + " " + wording + text[at:]
        self.s.pars[i] = _Par(self.s.pars[i].number, new, self.source)
        return text, new

    # -- words --------------------------------------------------------------------------------------------------
    def _word_units(self, ins: Instruction) -> list[tuple[int, int, int]]:
        """(paragraph index, start, end) of each unit a word instruction acts in."""
        place = ins.place
        if place.paragraphs:
            at = [self.s.find(n) for n in place.paragraphs]
        elif place.cases or place.sentence is not None:
            at = self.s.unit(())
        else:
            at = list(range(len(self.s.pars)))
        units = []
        for i in at:
            text = self.s.pars[i].text
            if place.cases and len(place.cases) >= 1:
                for letter in place.cases:
                    c = self._case(i, letter)
                    a, b = c.start, c.end
                    if place.sentence is not None:
                        a, b = self._sentence_span(text, a, b, place.sentence)
                    units.append((i, a, b))
            elif place.sentence is not None:
                units.append((i, *self._sentence_span(text, paragraph_body(text), len(text), place.sentence)))
            else:
                units.append((i, 0, len(text)))
        return units

    def _one_match(self, ins: Instruction, phrase: str, units: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
        """The one occurrence of ``phrase`` in each unit where the instruction names several units; in the one
        unit (or the whole article) otherwise: (paragraph index, start, end)."""
        pattern = _pattern(phrase)
        per_unit = []
        for i, a, b in units:
            text = self.s.pars[i].text
            per_unit.append([(i, m.start(), m.end()) for m in pattern.finditer(text, a, b)])
        named = bool(ins.place.paragraphs) or bool(ins.place.cases)
        if ins.everywhere:
            # «όπου αναφέρεται η φράση «X»»: every occurrence in the units named
            hits = [h for u in per_unit for h in u]
            if not hits:
                raise _Refused(f"«{phrase}» is not found in the unit named")
            return hits
        if named and len(units) > 1:
            for hits, (i, _, _) in zip(per_unit, units, strict=True):
                if len(hits) != 1:
                    raise _Refused(f"«{phrase}» occurs {len(hits)} times in paragraph {self.s.pars[i].number}")
            return [h[0] for h in per_unit]
        hits = [h for u in per_unit for h in u]
        if len(hits) != 1:
            where = f"paragraph {self.s.pars[units[0][0]].number}" if named or len(units) == 1 and self.s.pars[units[0][0]].number \
                else "the article"
            if not hits:
                raise _Refused(f"«{phrase}» is not found in {where}")
            raise _Refused(f"«{phrase}» occurs {len(hits)} times in {where}: which one is meant is not stated")
        return hits

    def _anchored(self, ins: Instruction, phrase: str, units: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
        """With «μετά τις λέξεις «Z»», the phrase right after Z (before: right before it)."""
        if not ins.anchor_words:
            return self._one_match(ins, phrase, units)
        joined = f"{ins.anchor_words} {phrase}" if ins.where == "after" else f"{phrase} {ins.anchor_words}"
        hits = self._one_match(ins, joined, units)
        out = []
        for i, a, b in hits:
            text = self.s.pars[i].text
            m = _pattern(phrase).search(text, a + (len(ins.anchor_words) if ins.where == "after" else 0), b)
            if m is None:
                raise _Refused(f"«{phrase}» is not found after «{ins.anchor_words}»")
            out.append((i, m.start(), m.end()))
        return out

    def _edit(self, edits: list[tuple[int, int, int, str]]) -> tuple[str, str]:
        touched = sorted({i for i, _, _, _ in edits})
        before = "\n".join(self.s.pars[i].text for i in touched)
        for i, a, b, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
            text = self.s.pars[i].text
            out = text[:a] + new + text[b:]
            out = re.sub(r"[ \t]{2,}", " ", out)
            out = re.sub(r" (?=[,.;·])", "", out) if not new else out
            self.s.pars[i] = _Par(self.s.pars[i].number, out, self.source)
        return before, "\n".join(self.s.pars[i].text for i in touched)

    def replace_words(self, ins: Instruction) -> tuple[str, str]:
        if len(ins.old) != 1:
            raise _Refused("several phrases replaced by one" if ins.old else "the phrase replaced is not quoted")
        units = self._word_units(ins)
        hits = self._anchored(ins, ins.old[0], units)
        return self._edit([(i, a, b, _cased(self.s.pars[i].text[a:b], ins.old[0], ins.new)) for i, a, b in hits])

    def delete_words(self, ins: Instruction) -> tuple[str, str]:
        if not ins.old:
            raise _Refused("the words deleted are not quoted")
        units = self._word_units(ins)
        edits = []
        for phrase in ins.old:
            for i, a, b in self._one_match(ins, phrase, units):
                text = self.s.pars[i].text
                if b < len(text) and text[b] == " ":
                    b += 1
                elif a > 0 and text[a - 1] == " ":
                    a -= 1
                edits.append((i, a, b, ""))
        return self._edit(edits)

    def insert_words(self, ins: Instruction) -> tuple[str, str]:
        units = self._word_units(ins)
        new = ins.new.strip()
        if ins.where in ("after", "before") and ins.anchor_words:
            hits = self._one_match(ins, ins.anchor_words, units)
            edits = []
            for i, a, b in hits:
                if ins.where == "after":
                    glue = "" if new[:1] in ",.;·)" else " "
                    edits.append((i, b, b, glue + new))
                else:
                    edits.append((i, a, a, new + " "))
            return self._edit(edits)
        if ins.where == "end":
            if len(units) != 1:
                raise _Refused("words added at the end of several units")
            i, a, b = units[0]
            text = self.s.pars[i].text
            unit = text[a:b].rstrip()
            end = a + len(unit)
            if unit.endswith(".") and not new.endswith("."):
                glue = "" if new[:1] in ",.;·)" else " "
                return self._edit([(i, end - 1, end - 1, glue + new)])
            raise _Refused("words added at the end of a unit: where its final period goes is not stated")
        raise _Refused("where the words are added is not stated in a form that is read")


_ACTIONS = {
    "replace-article": _Engine.replace_article,
    "replace-title": _Engine.replace_title,
    "repeal": _Engine.repeal_article,
    "replace-paragraph": _Engine.replace_paragraph,
    "insert-paragraph": _Engine.insert_paragraph,
    "repeal-paragraph": _Engine.repeal_paragraph,
    "replace-case": _Engine.replace_case,
    "insert-case": _Engine.insert_case,
    "repeal-case": _Engine.repeal_case,
    "replace-sentence": _Engine.replace_sentence,
    "insert-sentence": _Engine.insert_sentence,
    "repeal-sentence": _Engine.repeal_sentence,
    "replace-words": _Engine.replace_words,
    "delete-words": _Engine.delete_words,
    "insert-words": _Engine.insert_words,
}
_WHOLE = ("replace-article", "repeal")
# actions that change part of a paragraph: their step shows the part changed, with its sentence or line around it
_SMALL = frozenset({"replace-case", "insert-case", "repeal-case", "replace-sentence", "insert-sentence",
                    "repeal-sentence", "replace-words", "delete-words", "insert-words"})


def focus(before: str, after: str, room: int = 600) -> tuple[str, str]:
    """The part of a paragraph an instruction changed, before and after: the text from the start of the line (or
    sentence, in a long line) where they first differ to the end of the line (or sentence) where they last
    differ, «…» marking what is left out. Short texts are shown whole."""
    if len(before) <= room and len(after) <= room:
        return before, after
    p = 0
    while p < min(len(before), len(after)) and before[p] == after[p]:
        p += 1
    q = 0
    while q < min(len(before), len(after)) - p and before[-1 - q] == after[-1 - q]:
        q += 1

    def back(text: str, at: int) -> int:
        line = text.rfind("\n", 0, at) + 1
        if at - line <= room // 2:
            return line
        stop = max(text.rfind(". ", 0, at), text.rfind(", ", line, at - 40))
        return stop + 2 if stop >= line else line

    def ahead(text: str, at: int) -> int:
        line = text.find("\n", at)
        line = len(text) if line < 0 else line
        if line - at <= room // 2:
            return line
        stop = text.find(". ", at)
        return stop + 1 if 0 <= stop < line else line

    a = min(back(before, p), back(after, p))
    b_end, a_end = len(before) - q, len(after) - q
    out = []
    for text, end in ((before, b_end), (after, a_end)):
        stop = ahead(text, end)
        out.append(("…" if a > 0 else "") + text[a:stop] + ("…" if stop < len(text) else ""))
    return out[0], out[1]


def _clause_near(text: str, references: Sequence[Mapping[str, Any]], target: str) -> str:
    """The words around the first amendment edge to ``target``: what an unread instruction is listed with."""
    spans = [(int(r.get("start", 0)), int(r.get("end", 0))) for r in references
             if r.get("target") == target and r.get("kind") in AMENDMENT_KINDS]
    if not spans:
        return ""
    a, b = min(spans)
    start = max(text.rfind("\n", 0, a) + 1, a - 160)
    end = len(text)
    for stop in ("«", "\n"):
        k = text.find(stop, b)
        if k >= 0:
            end = min(end, k)
    end = min(end, b + 200)
    return " ".join(text[start:end].split())


def _ref_dict(r: Any) -> Mapping[str, Any]:  # noqa: ANN401 - a Reference or its dict
    return r if isinstance(r, Mapping) else r.as_dict()


def consolidate(article_id: str, title: str, text: str, amendments: Sequence[Amending], source: str = "",
                law: str = "", instructions: Mapping[str, list[Instruction]] | None = None) -> Consolidation:
    """The text in force of ``article_id`` (``title``, original ``text``, its ``source`` and ``law``) after
    ``amendments`` (any order: they are put in the laws' order here). ``instructions``: each amending article's
    instructions already read (the corpus-wide run reads an article amending many once); read here otherwise."""
    tail_at = structural_tail(text)
    text, tail = text[:tail_at], text[tail_at:].strip()
    original = [_Par(p.number, p.text) for p in paragraphs(text)]
    state = _State(article_id, title, [_Par(p.number, p.text) for p in original], original)
    applied: list[Applied] = []
    unapplied: list[tuple[Unapplied, Instruction | None, int]] = []
    order = sorted(amendments, key=lambda a: order_key(a.id, a.source, a.law))
    own = law_key(article_id, source, law)
    whole_after: list[tuple[int, str]] = []  # (position in order, amending id) of whole-article instructions applied
    paragraph_after: list[tuple[int, str, tuple[str, ...]]] = []
    placed: set[str] = set()  # amending articles that only put new articles after this one
    for k, amending in enumerate(order):
        refs = [_ref_dict(r) for r in amending.references]
        read = instructions.get(amending.id) if instructions is not None else None
        if read is None:
            read = read_instructions(amending.text)
        mine = [ins for ins in read if bind(ins.place, refs, article_id)]
        placing = [ins for ins in mine if ins.action in PLACING_ONLY]
        mine = [ins for ins in mine if ins.action not in PLACING_ONLY]
        if placing and not mine:
            # new articles go after this one: the amending article changes nothing in its text
            placed.add(amending.id)
            continue
        theirs = law_key(amending.id, amending.source, amending.law)
        if not mine:
            reason = "no instruction for this article was read in the amending article's text"
            unapplied.append((Unapplied(amending.id, _clause_near(amending.text, refs, article_id), reason), None, k))
            continue
        if own != (0, 0) and theirs != (0, 0) and theirs <= own:
            for ins in mine:
                unapplied.append((Unapplied(amending.id, ins.words(amending.text),
                                            "the amending article is not of a later law than this article: the "
                                            "instruction is likely about another law's article of that number"),
                                  ins, k))
            continue
        engine = _Engine(state, amending.id)
        for ins in mine:
            words = ins.words(amending.text)
            if ins.problem:
                unapplied.append((Unapplied(amending.id, words, ins.problem), ins, k))
                continue
            action = _ACTIONS.get(ins.action)
            if action is None:
                reason = {"describe": "a change stated without its new wording",
                          "renumber": "a renumbering is not read"}.get(ins.action, "")
                if not reason:
                    reason = "a subcase (υποπερίπτωση) is not read" if ins.action.endswith("subcase") \
                        else f"the action «{ins.action}» is not applied"
                unapplied.append((Unapplied(amending.id, words, reason), ins, k))
                continue
            if state.repealed and ins.action not in _WHOLE:
                unapplied.append((Unapplied(amending.id, words, "the article was repealed before"), ins, k))
                continue
            snapshot = [_Par(p.number, p.text, p.source) for p in state.pars], state.title, state.repealed
            try:
                before, after = action(engine, ins)
            except _Refused as refused:
                state.pars, state.title, state.repealed = snapshot
                unapplied.append((Unapplied(amending.id, words, str(refused)), ins, k))
                continue
            done = Applied(amending.id, ins.action, _paragraph_label(ins), words)
            applied.append(done)
            if ins.action in _SMALL:
                before, after = focus(before, after)
            state.steps.append(Step(done, article_id, before, after))
            if ins.action in _WHOLE:
                whole_after.append((k, amending.id))
            elif ins.action == "replace-paragraph":
                paragraph_after.append((k, amending.id, ins.place.paragraphs))
    listed = []
    open_ = 0
    for u, ins, k in unapplied:
        by = _superseded_by(u, ins, k, whole_after, paragraph_after)
        if by:
            u = Unapplied(u.source, u.instruction, u.reason, superseded_by=by)
        else:
            open_ += 1
        listed.append(u)
    status = "none" if not applied else ("partial" if open_ else "full")
    passages = tuple(Passage(p.text, p.source, _changed(p, i, original)) for i, p in enumerate(state.pars))
    if tail:
        passages += (Passage(tail),)
    result = InForce(status, passages, tuple(dict.fromkeys(a.id for a in order if a.id not in placed)),
                     tuple(applied), tuple(listed),
                     title=state.title if state.title != title else "")
    return Consolidation(result, tuple(state.steps))


def _superseded_by(u: Unapplied, ins: Instruction | None, k: int, whole_after: list[tuple[int, str]],
                   paragraph_after: list[tuple[int, str, tuple[str, ...]]]) -> str:
    """The later applied instruction that gives the whole wording of what ``u`` would have changed, or ""."""
    later = [src for at, src in whole_after if at > k]
    if later:
        return later[0]
    if ins is not None and ins.place.paragraphs:
        for at, src, numbers in paragraph_after:
            if at > k and set(ins.place.paragraphs) <= set(numbers):
                return src
    return ""


def _changed(p: _Par, index: int, original: list[_Par]) -> bool:
    """Whether a passage differs from the original paragraph at its place (same number; by position where the
    article has no numbered paragraphs)."""
    if p.number:
        same = [o for o in original if fold(o.number) == fold(p.number)]
    else:
        same = [original[index]] if index < len(original) and not original[index].number else []
    return not same or _norm(same[0].text) != _norm(p.text)


def original_in_force(text: str) -> tuple[Passage, ...]:
    """An article's original paragraphs as passages (what the API shows for an article nothing amends), its
    trailing structural lines one passage of their own, as :func:`consolidate` gives them."""
    tail_at = structural_tail(text)
    tail = text[tail_at:].strip()
    return tuple(Passage(p.text) for p in paragraphs(text[:tail_at])) + ((Passage(tail),) if tail else ())
