"""An Act of Legislative Content quoted whole in the article that ratifies it, amended later through that
ratification («Η παρ. 3 του άρθρου δέκατου όγδοου της από 13.8.2021 Πράξης Νομοθετικού Περιεχομένου (Α΄ 143), η
οποία κυρώθηκε με το άρθρο 2 του ν. 4824/2021 (Α΄ 156), αντικαθίσταται ως εξής: «3. …»»: ν. 4837/2021 art. 70;
ν. 4873/2021 art. 33 replaces the act's article εικοστό whole).

The corpus files the act as the text of the ratifying article (ν. 4824/2021 art. 2), its articles headed by ordinal
words («Άρθρο δέκατο όγδοο Επιδότηση …», inline). Engine v6 reads those headings as places inside the ratifying
article's text in force: an act's article runs from its heading to the next one's (the headings must run πρώτο,
δεύτερο, …: one out of that order is none), a paragraph of it from its «3.» at a line's start to the next
numbered line or the article's end. Two instructions are applied, exactly: an act article's whole new wording (it
must open with «Άρθρο» and the same ordinal) and a paragraph's (it must open with the paragraph's number, found
once in that article). Anything else said through the ratification (a repeal, words, a case) is listed with its
reason, and the ratifying article's status says it: never a silent «full».

Pure text, like the engine: which corpus article ratifies the act is the ingest's (:mod:`nomos.ingest.ratified`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nomos.legal.inforce.edit import Refused, Step
from nomos.legal.inforce.engine import Consolidation
from nomos.legal.inforce.items import quoted_words
from nomos.legal.inforce.result import Applied, InForce, Passage, Status, Unapplied
from nomos.legal.inforce.versions import ORIGINAL, Version, law_name, law_of
from nomos.legal.text.article_parts import quote_spans
from nomos.legal.text.folding import fold

_UNITS = {"πρωτ": 1, "δευτερ": 2, "τριτ": 3, "τεταρτ": 4, "πεμπτ": 5, "εκτ": 6, "εβδομ": 7, "ογδο": 8, "ενατ": 9}
_TENS = {"δεκατ": 10, "εικοστ": 20, "τριακοστ": 30, "τεσσαρακοστ": 40, "πεντηκοστ": 50, "εξηκοστ": 60,
         "εβδομηκοστ": 70, "ογδοηκοστ": 80, "ενενηκοστ": 90}
_ALONE = {"ενδεκατ": 11, "δωδεκατ": 12}
_WORD = r"(?:ενδεκατ|δωδεκατ|δεκατ|εικοστ|τριακοστ|τεσσαρακοστ|πεντηκοστ|εξηκοστ|εβδομηκοστ|ογδοηκοστ|ενενηκοστ" \
        r"|πρωτ|δευτερ|τριτ|τεταρτ|πεμπτ|εκτ|εβδομ|ογδο|ενατ)(?:ου|ο|η|ησ)"
_ORDINAL = rf"{_WORD}(?:\s+{_WORD})?"
_HEADING = re.compile(rf"(?<![\w])αρθρο\s+(?P<ord>{_ORDINAL})(?![\w])")
_THROUGH = re.compile(
    rf"(?:(?:η|την)\s+παρ\.\s*(?P<par>\d{{1,3}})\s+του\s+|(?:το|στο)\s+)?αρθρ(?:ο|ου)\s+(?P<ord>{_ORDINAL})\s+τησ\s+"
    r"απο\s+(?P<date>\d{1,2}\.\d{1,2}\.\d{4})\s+πραξησ\s+νομοθετικου\s+περιεχομενου\s*(?:\([^()]{0,40}\))?\s*,\s*"
    r"η\s+οποια\s+κυρωθηκε\s+με\s+το\s+αρθρο\s+(?P<art>\d{1,4})\s+του\s+ν\.\s*(?P<law>\d{1,5})\s*/\s*(?P<year>\d{4})"
    r"\s*(?:\([^()]{0,40}\))?\s*,?\s*(?P<rest>[^«]{0,200})")
_VERBS = r"(?:αντικαθιστα|διαμορφωνε|τροποποιει|καταργει|προστιθε|συμπληρωνε|απαλειφε|διαγραφε|αναριθμει)\w*"


def ordinal(words: str) -> int | None:
    """«δέκατο όγδοο», «δέκατου όγδοου», «εικοστό», «εικοστό πρώτο» → 18, 18, 20, 21 (folded or not)."""
    parts = fold(words).split()
    stems = []
    for w in parts:
        stem = next((s for s in sorted({**_UNITS, **_TENS, **_ALONE}, key=len, reverse=True)
                     if w.startswith(s) and re.fullmatch(r"(?:ου|ο|η|ησ)", w[len(s):])), None)
        if stem is None:
            return None
        stems.append(stem)
    if len(stems) == 1:
        return {**_UNITS, **_TENS, **_ALONE}[stems[0]]
    if len(stems) == 2 and stems[0] in _TENS and stems[1] in _UNITS:
        return _TENS[stems[0]] + _UNITS[stems[1]]
    return None


def act_articles(text: str) -> dict[int, tuple[int, int]]:
    """The act's articles in ``text``: number -> (its heading's start, the next heading's start or the text's end).
    Headings count only in their run 1, 2, 3 …: one out of that order is no heading of the act."""
    folded = fold(text)
    # a heading is written «Άρθρο» with a capital; «το άρθρο πρώτο» inside a sentence is a citation
    heads = [(ordinal(m.group("ord")), m.start()) for m in _HEADING.finditer(folded) if text[m.start()] in "ΆΑ"]
    run: list[tuple[int, int]] = []
    for number, at in heads:
        if number == len(run) + 1:
            run.append((number, at))
    return {n: (at, run[k + 1][1] if k + 1 < len(run) else len(text)) for k, (n, at) in enumerate(run)}


@dataclass(frozen=True)
class ActInstruction:
    """One instruction a later article gives the act through its ratification: the ratifying article it names
    (``N_4824_2021::2``), the act's article and paragraph, the verb's words, the new wording, its words."""

    ratifying: str
    article: int
    paragraph: str
    words: str
    wording: str | None
    problem: str = ""


def read_through(text: str) -> list[ActInstruction]:
    """Every instruction in ``text`` that names an act's article «της από … Πράξης Νομοθετικού Περιεχομένου …, η
    οποία κυρώθηκε με το άρθρο N του ν. X/Y»."""
    folded = fold(text)
    quotes = quote_spans(text)
    out = []
    for m in _THROUGH.finditer(folded):
        number = ordinal(m.group("ord"))
        if number is None:
            continue
        ratifying = f"N_{m.group('law')}_{m.group('year')}::{m.group('art')}"
        rest = m.group("rest")
        verb = re.match(r"(?:αντικαθισταται|διαμορφωνεται|τροποποιειται\s+και\s+διαμορφωνεται)\s+ωσ\s+εξησ\s*:?\s*$",
                        rest)
        if not re.match(_VERBS, rest):
            continue  # a citation of the act's article («… του άρθρου ένατου της από … Πράξης …, η οποία κυρώθηκε …»)
        q = next((s for s in quotes if s[0] == m.end()), None)
        words = " ".join(text[m.start():q[1] if q else m.end()].split())
        if verb is None or q is None:
            out.append(ActInstruction(ratifying, number, m.group("par") or "", words[:300], None,
                                      problem="an instruction given through the ratification other than a whole new wording "
                                      "of the act's article or paragraph is not read"))
            continue
        out.append(ActInstruction(ratifying, number, m.group("par") or "", words[:300], quoted_words(text, q)))
    return out


def _apply(text: str, ins: ActInstruction) -> tuple[str, tuple[int, int]]:
    """``text`` with ``ins`` applied and where the new wording stands; :class:`Refused` with the reason."""
    if ins.problem or ins.wording is None:
        raise Refused(ins.problem or "no new wording")
    arts = act_articles(text)
    if ins.article not in arts:
        raise Refused(f"the act's article {ins.article} is not read in the ratifying article's text (its "
                         f"articles' headings: {len(arts)})")
    a, b = arts[ins.article]
    b = a + len(text[a:b].rstrip())
    wording = ins.wording.strip()
    if not ins.paragraph:
        head = _HEADING.match(fold(wording))
        if head is None or ordinal(head.group("ord")) != ins.article:
            raise Refused(f"the new wording does not open with the heading of the act's article {ins.article}")
        return text[:a] + wording + text[b:], (a, a + len(wording))
    lines = [m for m in re.finditer(r"(?m)^[ \t]*(\d{1,3})\.\s", text[:b]) if m.start() >= a]
    hits = [k for k, m in enumerate(lines) if m.group(1) == ins.paragraph]
    if not hits:
        raise Refused(f"paragraph {ins.paragraph} of the act's article {ins.article} is not there")
    if len(hits) > 1:
        raise Refused(f"paragraph {ins.paragraph} of the act's article {ins.article} is numbered twice")
    if not re.match(rf"\s*{ins.paragraph}\.\s", wording):
        raise Refused(f"the new wording does not open with paragraph {ins.paragraph}'s number")
    start = lines[hits[0]].start(1)
    end = lines[hits[0] + 1].start() if hits[0] + 1 < len(lines) else b
    end = start + len(text[start:end].rstrip())
    # the next act article's heading may stand on the paragraph's last line («… άρθρου. Άρθρο δέκατο ένατο …»)
    return text[:start] + wording + text[end:], (start, start + len(wording))


def through_ratification(article_id: str, title: str, text: str,
                         amending: list[tuple[str, list[ActInstruction]]]) -> Consolidation | None:
    """The ratifying article's consolidation after the later articles (id, their instructions, in the laws'
    order) that amend its act through the ratification: the text in force, each applied instruction's before and
    after, a version after each law. None when none of them names this article."""
    mine = [(src, [i for i in ins if i.ratifying == article_id]) for src, ins in amending]
    mine = [(src, ins) for src, ins in mine if ins]
    if not mine:
        return None
    applied: list[Applied] = []
    unapplied: list[Unapplied] = []
    spans: list[tuple[int, int, str]] = []
    steps: list[Step] = []
    versions = [Version(ORIGINAL, "", _passages(text, []), title)]
    for src, instructions in mine:
        done: list[Applied] = []
        missed: list[Unapplied] = []
        for ins in instructions:
            try:
                new, (a, b) = _apply(text, ins)
            except Refused as why:
                missed.append(Unapplied(src, ins.words, str(why)))
                continue
            shift = len(new) - len(text)
            spans = [(x + shift if x >= a else x, y + shift if y >= a else y, s) for x, y, s in spans] + [(a, b, src)]
            done.append(Applied(src, "replace-paragraph" if ins.paragraph else "replace-act-article", ins.paragraph,
                                ins.words))
            steps.append(Step(done[-1], article_id, text[a:a + len(text) - len(new) + (b - a)], new[a:b]))
            text = new
        applied += done
        unapplied += missed
        if done:
            law = law_of(src)
            versions.append(Version(law, law_name(law), _passages(text, spans), title, (src,), tuple(done),
                                    tuple(missed)))
    status: Status = "none" if not applied else ("partial" if unapplied else "full")
    result = InForce(status, _passages(text, spans), tuple(src for src, _ in mine), tuple(applied), tuple(unapplied))
    return Consolidation(result, tuple(steps), tuple(versions))


def _passages(text: str, spans: list[tuple[int, int, str]]) -> tuple[Passage, ...]:
    """The text's lines (the act's paragraphs, its headings inline), each attributed to the last amending article
    whose new wording it overlaps: a line the ratification's amendments did not touch is the original's."""
    out = []
    at = 0
    for line in text.split("\n"):
        start, end = at, at + len(line)
        at = end + 1
        source = next((s for x, y, s in reversed(spans) if x < end and start < y), "")
        out.append(Passage(line, source, bool(source)))
    return tuple(out)
