"""Greek text folded for matching, and article numbers as people type them.

``fold`` (lowercase, no accents, final sigma as sigma) keeps one character for one, so a span read on the folded
copy is the span of the original: every reader of legal text (citations, the graph's extractor, the amendment
reader) matches on it. Article numbers keep a letter suffix as a Greek capital, the corpus's convention; Latin
look-alikes typed on a Latin keyboard («386A») are read as Greek ones.
"""

from __future__ import annotations

import re
import unicodedata

# Latin capitals that look like Greek ones, as they turn up in article numbers and ids typed on a Latin keyboard.
LOOKALIKES = str.maketrans("ABEZHIKMNOPTXY", "ΑΒΕΖΗΙΚΜΝΟΡΤΧΥ")
GREEK_TO_LATIN = str.maketrans("ΑΒΕΖΗΙΚΜΝΟΡΤΧΥ", "ABEZHIKMNOPTXY")


class _FoldTable(dict[int, str]):
    """ord(ch) -> ch lowercased without accents (one character for one), filled on first sight of each character:
    ``str.translate`` with it folds a statute ~10x faster than normalising every character again."""

    def __missing__(self, code: int) -> str:
        base = "".join(c for c in unicodedata.normalize("NFD", chr(code).lower()) if not unicodedata.combining(c))
        folded = base[:1] if base else " "
        self[code] = "σ" if folded == "ς" else folded
        return self[code]


_FOLD = _FoldTable()


def fold(text: str) -> str:
    """Lowercase without accents, final sigma as sigma, one character for one (so offsets carry over)."""
    return text.translate(_FOLD)


def article_number(raw: str) -> str:
    """«386a», «386A», «386α» → «386Α», «66κστ» → «66ΚΣΤ»: digits, then a letter suffix as a Greek capital."""
    m = re.fullmatch(r"\s*(\d+)\s*([A-Za-zΑ-Ωα-ωά-ώ]?|[Α-Ωα-ωά-ώ]{2}|[ΙΚΛΜΝΞΟΠικλμνξοπ][Σσ][Ττ])\s*", raw)
    if not m:
        return raw.strip()
    suffix = m.group(2).upper().translate(LOOKALIKES)
    return m.group(1) + suffix


# «386 Α», «386-Α», «386 α΄» as people type them: a number, a space or dash, one of the letters articles take as a
# suffix (α–θ but not η, which is also «η»/«ή»; or a Latin look-alike), a keraia maybe, then neither more of the word
# nor an abbreviation's dot («άρθρο 21 ν. 4624/2019», «άρθρο 5 π.δ. …» stay as they are).
_SPACED_SUFFIX = re.compile(r"(?<![\d\w])(\d{1,4})(?:\s*[-‐–]\s*|\s+)([αβγδεζθΑΒΓΔΕΖΘάέAaBbEeZz])[΄']?(?![\w.])")


def joined_suffixes(query: str) -> str:
    """A query with the article numbers people type apart joined to their letter («άρθρο 386 Α ΠΚ», «386-α» →
    «386Α», «386α»): read so before a query's citations are looked for. Queries only: statutes write «386Α», and
    in their text a number followed by a lone letter is often something else (a list item, «περ. α»)."""
    return _SPACED_SUFFIX.sub(lambda m: m.group(1) + m.group(2), query)


def article_variants(number: str) -> list[str]:
    """The ways a corpus may write an article number with a letter suffix, the usual first: «386Α» (Greek capital),
    «386A» (a Latin look-alike: the stand-in has PK::304A), «386α» (lower case: N_4831_2021::5α)."""
    canonical = article_number(number)
    if not canonical or canonical[-1].isdigit():
        return [canonical]
    head = canonical.rstrip("".join(c for c in canonical if not c.isdigit()))  # «10ΙΗ» → «10ιη» too (v20)
    letters = canonical[len(head):]
    return list(dict.fromkeys([canonical, head + letters.translate(GREEK_TO_LATIN), head + letters.lower()]))
