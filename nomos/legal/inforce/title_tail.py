"""The end of an article's title that the corpus writes as the first line of its text («Θυρίδες στην Ενιαία Ψηφιακή
Πύλη» and then «της Δημόσιας Διοίκησης\\n1. …»: N_4727_2020::26; «Επιμέτρηση της ποινής» and «της παροχής
κοινωφελούς εργασίας\\n1. …»: PK::81). It is not the article's text: the blind readers of engine v5's sheets
(bench/data/in-force-judging/blind-v5-seed4900, reader R3) judged nine versions wrong for it alone, and the readers'
README says so. Engine v6 leaves it out of the text in force and of every version, as it leaves out the code's
structural lines after an article (:func:`~nomos.legal.text.article_parts.structural_tail`).

Read by its shape alone, conservatively: a first line of under 300 characters that ends with no sentence mark (. : ;
· » ! ?) and is not itself numbered or lettered, followed by a line that opens the article's numbered paragraphs
(«1.»). An article whose words run on the title's line («από τον κορωνοϊό COVID-19 Εφόσον …») or whose body is not
numbered keeps its first line: where the title ends in it cannot be told.
"""

from __future__ import annotations

import re

_FIRST = re.compile(r"(?P<line>[^\n]{1,300})\n(?=[ \t\xa0]*1\.[ \t\xa0])")
_NOT_TAIL = re.compile(r"[ \t\xa0]*(?:\d{1,3}[Α-Ωα-ω]?\s*\.|\(?[α-ωΑ-Ω]{1,3}\s?[΄'’`)]|[«\"])")


def title_tail(text: str) -> int:
    """Where the article's own text begins: after a first line that ends its title (0 where there is none)."""
    m = _FIRST.match(text)
    if m is None:
        return 0
    line = m.group("line").rstrip()
    if not line.strip() or re.search(r"[.:;·»!?]$", line) or _NOT_TAIL.match(line):
        return 0
    return m.end()
