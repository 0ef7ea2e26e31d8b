"""Every version of an amended article: the original, then its text after each amending law, in the laws' order.

A lawyer needs the wording that applied on the day of the facts (the Penal Code's article 2: the milder law
applies), not only today's. The consolidation engine (:mod:`.engine`) applies the amending laws one after the other;
after each law whose instructions changed the article it keeps a :class:`Version`: the passages as they then read
(each with the amending article that gave it its wording), the title, which instructions of that law were applied
(their words: the provenance of each change) and which were not, and, where the amending law states when it takes
effect, that rule (:func:`effective_rule`, filled in at ingest, where the amending law's commencement article is at
hand). A law whose instructions changed nothing in the article makes no version of it.

Versions are stored at ingest beside the text in force (``in_force_versions``, stored, not indexed) and read back
by the API (``/api/articles/{id}/versions``), the article page (its version picker and word diff,
:mod:`.diff`) and ``cli.py article``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from nomos.legal.inforce.result import Applied, Passage, Unapplied
from nomos.legal.text.folding import fold

ORIGINAL = "original"


@dataclass(frozen=True)
class Version:
    """The article after one amending law (``law``: its corpus source, e.g. ``N_4855_2021``; ``law_name``: «ν.
    4855/2021»; ``amending``: the amending articles of that law, in order) or, with ``law`` = ``original``, as
    first enacted. ``applied``/``unapplied``: that law's instructions for the article (none for the original);
    ``effective``: when the law says the change takes effect ("" : it says nothing the corpus holds)."""

    law: str
    law_name: str
    passages: tuple[Passage, ...]
    title: str = ""
    amending: tuple[str, ...] = ()
    applied: tuple[Applied, ...] = ()
    unapplied: tuple[Unapplied, ...] = ()
    effective: str = ""

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.passages)

    @property
    def exact(self) -> bool:
        """Whether every instruction of this law for the article was applied (the original: always)."""
        return not [u for u in self.unapplied if not u.superseded_by]

    def to_doc(self) -> dict[str, Any]:
        return {"law": self.law, "law_name": self.law_name, "title": self.title, "amending": list(self.amending),
                "passages": [{"text": p.text, "source": p.source, "changed": p.changed} for p in self.passages],
                "applied": [{"source": a.source, "action": a.action, "paragraph": a.paragraph,
                             "instruction": a.instruction} for a in self.applied],
                "unapplied": [{"source": u.source, "instruction": u.instruction, "reason": u.reason,
                               "superseded_by": u.superseded_by} for u in self.unapplied],
                "effective": self.effective}

    @classmethod
    def from_doc(cls, doc: dict[str, Any]) -> Version:
        return cls(
            law=doc.get("law", ""), law_name=doc.get("law_name", ""), title=doc.get("title", ""),
            amending=tuple(doc.get("amending", ())),
            passages=tuple(Passage(p.get("text", ""), p.get("source", ""), bool(p.get("changed", False)))
                           for p in doc.get("passages", ())),
            applied=tuple(Applied(a.get("source", ""), a.get("action", ""), a.get("paragraph", ""),
                                  a.get("instruction", "")) for a in doc.get("applied", ())),
            unapplied=tuple(Unapplied(u.get("source", ""), u.get("instruction", ""), u.get("reason", ""),
                                      u.get("superseded_by", "")) for u in doc.get("unapplied", ())),
            effective=doc.get("effective", ""))


def law_of(article_id: str, source: str = "") -> str:
    """The law an article belongs to, as a version names it: its corpus source (``N_4855_2021``)."""
    return source or article_id.split("::", 1)[0]


def law_name(law: str, name: str = "") -> str:
    """«ν. 4855/2021» for ``N_4855_2021``; else the law's own name, cut at its first dash, or the id."""
    m = re.fullmatch(r"N_(\d+)_(\d{4})", law)
    if m:
        return f"ν. {m.group(1)}/{m.group(2)}"
    return (name.split("–")[0].split(" - ")[0].strip() or law)[:80]


def find_version(versions: tuple[Version, ...] | list[Version], after: str) -> Version | None:
    """The version after the law ``after``: its source id (``N_4855_2021``), its name («ν. 4855/2021», «4855/2021»),
    one of its amending articles' ids, or ``original``; None when no version of the article is after that law."""
    want = fold(after.strip()).replace(" ", "")
    for v in versions:
        names = {fold(v.law), fold(v.law_name).replace(" ", ""), fold(v.law_name).replace("ν.", "").strip()}
        names |= {fold(a) for a in v.amending}
        if want in names:
            return v
    return None


def law_key_of(name: str) -> tuple[int, int] | None:
    """(year, number) of a law named as people and nomos name it: «ν. 4855/2021», «4855/2021», «N_4855_2021», an
    amending article's id «N_4855_2021::86»; None when it names no law so."""
    text = name.strip().split("::", 1)[0]
    m = re.fullmatch(r"[A-Z]+_(\d{1,5})_(\d{4})", text) or re.search(r"(?<!\d)(\d{1,5})\s*/\s*(\d{4})(?!\d)", text)
    return (int(m.group(2)), int(m.group(1))) if m else None


def version_as_of(versions: tuple[Version, ...] | list[Version], law: tuple[int, int], before: bool = False) -> Version:
    """The version that applied after the law ``law`` (year, number) was enacted: the last made by a law no later
    than it (``before``: earlier than it, the wording on the eve of that law); the original when none was."""
    out = versions[0]
    for v in versions[1:]:
        key = law_key_of(v.law)
        if key is not None and (key < law if before else key <= law):
            out = v
    return out


# «Η ισχύς του παρόντος [νόμου] αρχίζει …», «Η ισχύς των άρθρων 116 και 119 … αρχίζει την 1η.1.2022»
_COMMENCES = re.compile(r"ισχυσ?\s[^.]{0,300}?(?:αρχιζει|αρχισε|αρχιζουν|ξεκιναει)|ισχυ(?:ει|ουν)\s+απο", re.S)
_PART = re.compile(r"(?<!\w)(?:αρθρ\w*\s+\d|μερουσ|κεφαλαι\w*\s|τμηματ\w*\s)")
_SIGNED = re.compile(r"Αθήνα,\s+\d{1,2}\s+\w+\s+\d{4}")
_ARTICLE_NUMBERS = re.compile(r"αρθρ\w*\s+((?:\d{1,4}[α-ω]?(?:\s*(?:,|και|εωσ|-|–)\s*)?)+)")


def _sentences(text: str) -> list[str]:
    body = re.sub(r"(?m)^[ \t]*\d{1,2}\.[ \t]+", "", text.split("Παραγγέλλομε")[0])  # paragraph numbers
    return [s.strip() for s in re.split(r"(?<=[.;:])\s+(?=[Α-ΩΆ-Ώ«])|\n+", body) if s.strip()]


def _names(sentence: str, number: str) -> bool:
    """Whether ``sentence`` names article ``number`` in a list or range of articles («των άρθρων 116 και 119»,
    «των άρθρων 1 έως 12»)."""
    f = fold(sentence)
    want = fold(number)
    for m in _ARTICLE_NUMBERS.finditer(f):
        spec = m.group(1)
        for a, b in re.findall(r"(\d{1,4})\s*(?:εωσ|-|–)\s*(\d{1,4})", spec):
            if want.isdigit() and int(a) <= int(want) <= int(b):
                return True
        if want in re.findall(r"\d{1,4}[α-ω]?", spec):
            return True
    return False


def effective_rule(amending_id: str, amending_text: str, commencement_text: str) -> str:
    """When the amending article's change takes effect, in the law's own words: a sentence of the amending article
    itself on its commencement («Η ισχύς του παρόντος άρθρου αρχίζει …»), else the sentence of its law's
    commencement article that names it («Η ισχύς … των άρθρων 116 και 119 … αρχίζει την 1η.1.2022»), else that
    article's general rule («Η ισχύς του παρόντος αρχίζει από τη δημοσίευσή του …»), with the date the law was
    signed («Αθήνα, 12 Νοεμβρίου 2021») where it is given; "" where neither article says."""
    number = amending_id.split("::", 1)[-1]
    own = [s for s in _sentences(re.sub(r"«[^»]*»", " ", amending_text)) if _COMMENCES.search(fold(s))]
    if own:
        return own[0]
    if not commencement_text:
        return ""
    found = [s for s in _sentences(commencement_text) if _COMMENCES.search(fold(s))]
    named = [s for s in found if _names(s, number)]
    # the general rule: a sentence that names no article, part or chapter of its own
    general = next((s for s in found if not _PART.search(fold(s))), "")
    rule = named[0] if named else general
    rule = rule[:rule.rfind(".") + 1] if "." in rule else rule  # what follows its last period is not the law's
    signed = _SIGNED.search(commencement_text)
    if rule and signed:
        rule = f"{rule} ({signed.group(0)})"
    return rule[:600]


def is_commencement(title: str) -> bool:
    """Whether an article's title makes it its law's commencement article: «Έναρξη ισχύος» (of the law: «Έναρξη
    ισχύος σύμβασης …» is an article about a contract's)."""
    return re.fullmatch(r"\s*εναρξη\s+(?:τησ\s+)?ισχυοσ(?:\s+του\s+(?:παροντοσ|νομου)(?:\s+νομου)?)?\s*\.?\s*",
                        fold(title)) is not None
