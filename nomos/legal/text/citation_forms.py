"""The ways lawyers cite an article, generated from its id: the citation benchmark's queries and the resolver's
test cases come from this one generator, so the two measure the same forms.

A code's article is cited by its abbreviation before or after the number («άρθρο 372 ΠΚ», «άρθρ. 372 Π.Κ.», «ΠΚ 372»,
«372 ΠΚ»), with Latin look-alike letters in the number («386A ΠΚ»), and by the code's name in the genitive where it
is a common one («του άρθρου 372 του Ποινικού Κώδικα»); a law's or decree's by number and year, either side of the
article («άρθρο 21 ν. 4624/2019», «ν. 4624/2019 άρθρο 21», «Ν.4624/2019 αρ. 21», «αρ. 21 του Ν.4624/2019»).
"""

from __future__ import annotations

import re

from nomos.legal.text.areas import table
from nomos.legal.text.folding import GREEK_TO_LATIN

# the codes' names as a text writes them after «του άρθρου N»
GENITIVE_NAMES = {
    "PK": "του Ποινικού Κώδικα",
    "KPD": "του Κώδικα Ποινικής Δικονομίας",
    "AK": "του Αστικού Κώδικα",
    "KPolD": "του Κώδικα Πολιτικής Δικονομίας",
}
_LAW_ID = re.compile(r"(N|PD)_(\d+)_(\d{4})")


def citation_forms(doc_id: str) -> list[str]:
    """Citations of the article ``doc_id`` (``PK::386Α``, ``N_4624_2019::21``, ``PD_131_2003::10``) as a lawyer
    writes them; [] for an id of another shape (a source with no abbreviation and no law number)."""
    source, sep, number = doc_id.partition("::")
    if not sep:
        return []
    law = _LAW_ID.fullmatch(source)
    if law:
        kind, no, year = law.groups()
        name, alt = (f"ν. {no}/{year}", f"Ν.{no}/{year}") if kind == "N" else (f"π.δ. {no}/{year}", f"ΠΔ {no}/{year}")
        return [f"άρθρο {number} {name}", f"{name} άρθρο {number}", f"{alt} αρ. {number}", f"αρ. {number} του {alt}"]
    short = table().sources.get(source, {}).get("short")
    if not short:
        return []
    dotted = ".".join(short) + "." if short.isupper() else short
    forms = [f"άρθρο {number} {short}", f"άρθρ. {number} {dotted}", f"{short} {number}", f"{number} {short}",
             f"{number.translate(GREEK_TO_LATIN)} {short}"]
    if source in GENITIVE_NAMES:
        forms.append(f"του άρθρου {number} {GENITIVE_NAMES[source]}")
    return forms
