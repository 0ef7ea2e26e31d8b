"""The end of an article's title that the corpus writes as the first line of its text («Θυρίδες στην Ενιαία Ψηφιακή
Πύλη» and then «της Δημόσιας Διοίκησης\\n1. …»: N_4727_2020::26; «Επιμέτρηση της ποινής» and «της παροχής
κοινωφελούς εργασίας\\n1. …»: PK::81). It is not the article's text: the blind readers of engine v5's sheets
(bench/data/in-force-judging/blind-v5-seed4900, reader R3) judged nine versions wrong for it alone, and the readers'
README says so. Engine v6 leaves it out of the text in force and of every version, as it leaves out the code's
structural lines after an article (:func:`~nomos.legal.text.article_parts.structural_tail`).

Read by its shape alone, conservatively: a first line of under 300 characters that ends with no sentence mark (. : ;
· » ! ?) and is not itself numbered or lettered, followed by a line that opens the article's numbered paragraphs
(«1.»). An article whose body is not numbered keeps its first line: where the title ends in it cannot be told.

Engine v7: the end of a cut title on the same line as the text («από τον κορωνοϊό COVID-19 Εφόσον εξακολουθεί …»,
N_4790_2021::96; «ατομικών αποτελεσμάτων Παράβαση κανόνα …», N_4791_2021::9; the blind readers of engine v5 and v6
judged both wrong): a text that opens with a small letter (no article's own text does) ends its title's words at the
first capitalised word, bare and followed by a small letter's word, after a word that is neither capitalised, nor
an article, a preposition or a dash («της Δημόσιας Διοίκησης Οι …» is read as a name and keeps it all), within
twelve words with no sentence mark before it.
"""

from __future__ import annotations

import re

from nomos.legal.text.folding import fold

_FIRST = re.compile(r"(?P<line>[^\n]{1,300})\n(?=[ \t\xa0]*1\.[ \t\xa0])")
_NOT_TAIL = re.compile(r"[ \t\xa0]*(?:\d{1,3}[Α-Ωα-ω]?\s*\.|\(?[α-ωΑ-Ω]{1,3}\s?[΄'’`)]|[«\"])")


_OPENS = re.compile(r"[Α-ΩΆΈΉΊΌΎΏ][α-ωάέήίόύώϊϋΐΰς]")  # a capitalised Greek word (not an acronym)
_SMALL = re.compile(r"[α-ωάέήίόύώϊϋΐΰ]")
_JOINS = frozenset(fold(w) for w in ("ο η το οι τα του της των τον την τη τις τους στο στη στην στον στα στις στους "
                                      "και ή με σε από για κατά περί προς υπό").split())


def _on_the_line(text: str) -> int:
    """Where the text begins after a cut title's end on the same line (0 where it is not so read)."""
    if not _SMALL.match(text) or _NOT_TAIL.match(text):
        return 0
    line = text.split("\n", 1)[0]
    words = list(re.finditer(r"\S+", line))
    for k in range(1, min(len(words), 13)):
        prev, word = words[k - 1].group(), words[k].group()
        if re.search(r"[.:;·«»!?()\[\]]", prev):
            return 0
        # a sentence's first word: bare, and the words after it run on in small letters («Εφόσον εξακολουθεί»;
        # «ακινήτων Δημοσίου, Ο.Τ.Α. …» and «μεταφοράς - Τροποποίηση …» are the title's still)
        after = words[k + 1].group() if k + 1 < len(words) else ""
        if _OPENS.match(word) and not _OPENS.match(prev) and fold(prev) not in _JOINS and prev not in "-–—" \
                and re.fullmatch(r"\w+[’']?", word) and _SMALL.match(after):
            return words[k].start()
    return 0


def title_tail(text: str) -> int:
    """Where the article's own text begins: after a first line that ends its title, or the title's words that open
    its first line (0 where there is none)."""
    m = _FIRST.match(text)
    if m is None:
        return _on_the_line(text)
    line = m.group("line").rstrip()
    if not line.strip() or re.search(r"[.:;·»!?]$", line) or _NOT_TAIL.match(line):
        return _on_the_line(text)
    return m.end()
