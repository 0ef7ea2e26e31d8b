"""The actions on words: a phrase replaced (``replace-words``), deleted (``delete-words``) or words added after,
before or at the end of a unit (``insert-words``; «μεταξύ κομμάτων»: after the words named, between commas).

The phrase must occur exactly once in the unit named (whitespace and the apostrophes ΄ ’ ' read alike): twice is
ambiguous, none is not found; «όπου αναφέρεται» asks for every occurrence.
"""

from __future__ import annotations

import re

from nomos.legal.inforce.case import find_case
from nomos.legal.inforce.edit import Edit, Par, Refused
from nomos.legal.inforce.instructions import Instruction
from nomos.legal.inforce.points import point_units
from nomos.legal.inforce.sentence import sentence_span
from nomos.legal.text.article_parts import paragraph_body

_APOSTROPHES = "΄'’`´‘"


def _pattern(phrase: str) -> re.Pattern[str]:
    """A phrase as a pattern: whitespace runs match any whitespace, the apostrophes match each other, and the
    phrase stands between word boundaries where it starts or ends with a letter or digit."""
    parts: list[str] = []
    phrase = phrase.replace("\xad", "")  # a soft hyphen the gazette's line break left («προνο­μίων») is no letter
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


def _cased(found: str, phrase: str, new: str) -> str:
    """The new words with a capital where the phrase they replace opened a sentence («Με απόφαση της συγκλήτου»
    for «με απόφαση της συγκλήτου»: «Με απόφαση του πρυτανικού συμβουλίου»)."""
    if found[:1].isupper() and phrase.strip()[:1].islower() and new[:1].islower():
        return new[:1].upper() + new[1:]
    return new


def _word_units(e: Edit, ins: Instruction) -> list[tuple[int, int, int]]:
    """(paragraph index, start, end) of each unit a word instruction acts in."""
    place = ins.place
    if place.point:
        units = point_units(e, ins)
        if place.sentence is not None:
            i, a, b = units[0]
            return [(i, *sentence_span(e.s.pars[i].text, a, b, place.sentence))]
        return units
    if place.paragraphs:
        at = [e.s.find(n) for n in place.paragraphs]
    elif place.cases or place.sentence is not None:
        at = e.s.unit(())
    else:
        at = list(range(len(e.s.pars)))
    units = []
    for i in at:
        text = e.s.pars[i].text
        if place.cases and len(place.cases) >= 1:
            for letter in place.cases:
                c = find_case(e, i, letter)
                a, b = c.start, c.end
                if place.sentence is not None:
                    a, b = sentence_span(text, a, b, place.sentence)
                units.append((i, a, b))
        elif place.sentence is not None:
            units.append((i, *sentence_span(text, paragraph_body(text), len(text), place.sentence)))
        else:
            units.append((i, 0, len(text)))
    return units


def _one_match(e: Edit, ins: Instruction, phrase: str, units: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The one occurrence of ``phrase`` in each unit where the instruction names several units; in the one
    unit (or the whole article) otherwise: (paragraph index, start, end)."""
    pattern = _pattern(phrase)
    per_unit = []
    for i, a, b in units:
        text = e.s.pars[i].text
        per_unit.append([(i, m.start(), m.end()) for m in pattern.finditer(text, a, b)])
    named = bool(ins.place.paragraphs) or bool(ins.place.cases)
    if ins.everywhere:
        # «όπου αναφέρεται η φράση «X»»: every occurrence in the units named
        hits = [h for u in per_unit for h in u]
        if not hits:
            raise Refused(f"«{phrase}» is not found in the unit named")
        return hits
    if named and len(units) > 1:
        for hits, (i, _, _) in zip(per_unit, units, strict=True):
            if len(hits) != 1:
                raise Refused(f"«{phrase}» occurs {len(hits)} times in paragraph {e.s.pars[i].number}")
        return [h[0] for h in per_unit]
    hits = [h for u in per_unit for h in u]
    if len(hits) != 1:
        where = f"paragraph {e.s.pars[units[0][0]].number}" if named or len(units) == 1 and e.s.pars[units[0][0]].number \
            else "the article"
        if not hits:
            raise Refused(f"«{phrase}» is not found in {where}")
        raise Refused(f"«{phrase}» occurs {len(hits)} times in {where}: which one is meant is not stated")
    return hits


def _anchored(e: Edit, ins: Instruction, phrase: str, units: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """With «μετά τις λέξεις «Z»», the phrase right after Z (before: right before it)."""
    if not ins.anchor_words:
        return _one_match(e, ins, phrase, units)
    joined = f"{ins.anchor_words} {phrase}" if ins.where == "after" else f"{phrase} {ins.anchor_words}"
    hits = _one_match(e, ins, joined, units)
    out = []
    for i, a, b in hits:
        text = e.s.pars[i].text
        m = _pattern(phrase).search(text, a + (len(ins.anchor_words) if ins.where == "after" else 0), b)
        if m is None:
            raise Refused(f"«{phrase}» is not found after «{ins.anchor_words}»")
        out.append((i, m.start(), m.end()))
    return out


def _edit(e: Edit, edits: list[tuple[int, int, int, str]]) -> tuple[str, str]:
    touched = sorted({i for i, _, _, _ in edits})
    before = "\n".join(e.s.pars[i].text for i in touched)
    for i, a, b, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        text = e.s.pars[i].text
        out = text[:a] + new + text[b:]
        out = re.sub(r"[ \t]{2,}", " ", out)
        out = re.sub(r" (?=[,.;·])", "", out) if not new else out
        e.s.pars[i] = Par(e.s.pars[i].number, out, e.source)
    return before, "\n".join(e.s.pars[i].text for i in touched)


def replace_words(e: Edit, ins: Instruction) -> tuple[str, str]:
    if len(ins.old) != 1:
        raise Refused("several phrases replaced by one" if ins.old else "the phrase replaced is not quoted")
    units = _word_units(e, ins)
    hits = _anchored(e, ins, ins.old[0], units)
    return _edit(e, [(i, a, b, _cased(e.s.pars[i].text[a:b], ins.old[0], ins.new)) for i, a, b in hits])


def delete_words(e: Edit, ins: Instruction) -> tuple[str, str]:
    if not ins.old:
        raise Refused("the words deleted are not quoted")
    units = _word_units(e, ins)
    edits = []
    for phrase in ins.old:
        for i, a, b in _one_match(e, ins, phrase, units):
            text = e.s.pars[i].text
            if b < len(text) and text[b] == " ":
                b += 1
            elif a > 0 and text[a - 1] == " ":
                a -= 1
            edits.append((i, a, b, ""))
    return _edit(e, edits)


def insert_words(e: Edit, ins: Instruction) -> tuple[str, str]:
    units = _word_units(e, ins)
    new = ins.new.strip()
    if ins.where in ("after", "before") and ins.anchor_words:
        hits = _one_match(e, ins, ins.anchor_words, units)
        edits = []
        if ins.commas and ins.where != "after":
            raise Refused("words added between commas are read only after the words named")
        for i, a, b in hits:
            if ins.commas and not new.startswith(","):
                # «προστίθενται, μεταξύ κομμάτων, οι λέξεις «X»»: «…Z, X, …»; a mark already after Z closes them
                # (words quoted with their commas, «, παρά ταυτόχρονα,», go in as quoted)
                closes = e.s.pars[i].text[b:b + 1] in (",", ".", ";", "·")
                edits.append((i, b, b, f", {new}" + ("" if closes else ",")))
            elif ins.where == "after":
                glue = "" if new[:1] in ",.;·)" else " "
                edits.append((i, b, b, glue + new))
            else:
                edits.append((i, a, a, new + " "))
        return _edit(e, edits)
    if ins.where == "end":
        if len(units) != 1:
            raise Refused("words added at the end of several units")
        i, a, b = units[0]
        text = e.s.pars[i].text
        unit = text[a:b].rstrip()
        end = a + len(unit)
        if unit.endswith(".") and not new.endswith("."):
            glue = "" if new[:1] in ",.;·)" else " "
            return _edit(e, [(i, end - 1, end - 1, glue + new)])
        raise Refused("words added at the end of a unit: where its final period goes is not stated")
    raise Refused("where the words are added is not stated in a form that is read")
