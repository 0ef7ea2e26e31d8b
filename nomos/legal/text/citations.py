"""Greek statutory citations read from text: «άρθρο 372 ΠΚ», «ΠΚ 386Α», «άρθρο 21 ν. 4624/2019» → article ids.

Lawyers find an article by citing it, and case descriptions and statutes cite articles all the time, so the query
side (a citation typed into the search box, a case that names an article) and the ingest side (references between
articles) read citations with the same rules. The shapes are those of ``shared/docs/greek-citations.md``:

* article then source: «άρθρο 372 ΠΚ», «άρθρ. 372 Π.Κ.», «αρ. 372 ΠΚ», «του άρθρου 372 του Ποινικού Κώδικα»,
  «άρθρα 372 και 374 ΠΚ», «άρθρα 298, 330 και 343 ΑΚ», «άρθρα 372 έως 378 ΠΚ», «άρθρο 309 παρ. 1 ΚΠΔ»,
  «άρθρο 21 ν. 4624/2019», «άρθρο 10 ΠΔ 131/2003»; bare «372 ΠΚ», «386Α ΠΚ»;
* source then article: «ΠΚ 372», «ν. 4624/2019 άρθρο 21», «Ν.4624/2019 αρ. 21»;
* an article word with no source: the ``default_source`` given (inside a statute, the citing article's own law).

Sources are the benchmark's id prefixes: codes by their abbreviation or written-out name (``areas.json``:
``short``, ``names``; a code's enacting law, ν. 4619/2019 for the Penal Code, counts as the code), laws and
presidential decrees by number and year (``N_4624_2019``, ``PD_131_2003``; legislative decrees ``ND_…``, emergency
laws ``AN_…``). Article numbers keep a letter suffix as a Greek capital (Latin look-alikes, «386A», become
«386Α»), as the corpus writes them.

Matching runs over a folded copy of the text (lowercase, no accents, final sigma as sigma) of the same length, so
every :class:`Citation` carries the span of the original text it was read from.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass

from nomos.legal.text.areas import table
from nomos.legal.text.folding import GREEK_TO_LATIN, article_number, fold

MAX_RANGE = 60  # «άρθρα 372 - 378»: ranges longer than this are read as their two ends only
# «των άρθρων 222 έως 338 του ν. 4412/2016» (a Book of the law): a range written with «έως» says it is one, so it is
# read whole up to this length (v16)
MAX_WORDED_RANGE = 400
# The letters that number inserted articles, in order («34Α έως 34Θ» is 34Α, 34Β, …, 34Θ); past Θ the conventions
# part (Ι, ΙΑ or ΙΒ?), so a lettered range reaching beyond it is read as its two ends only
LETTER_SUFFIXES = ("Α", "Β", "Γ", "Δ", "Ε", "ΣΤ", "Ζ", "Η", "Θ")

_ART = r"(?<!\w)(?:αρθρ(?:ο|ου|α|ων)\b|αρθρ\.|αρθ\.|αρ\.)"
# «386Α», «4ΣΤ», «2ΙΑ», «66ΚΣΤ» (v19): Greek numerals as suffixes, three letters only as tens and «ΣΤ» (six)
_NUM = r"\d{1,4}(?:(?:[ικλμνξοπ]στ|[α-ω]{2}|[α-ωa-z])(?![\w]))?"
_LIST_SEP = r"\s*(?:,|και|εωσ\s+και|εωσ|-|–|ωσ|η(?=\s*\d))\s*"  # «372 έως και 378» is a range too; «157 ή 45» (v21)
# «παρ. 1», «παρ. 1, 2», «§ 3 εδ. β΄»: a paragraph after an article number (paragraphs listed with commas; «και 47»
# after a paragraph is the next article, as in «κατά το άρθρο 46 παρ. 1 και 47»)
# after a plural «παράγραφοι 1 και 2» the «και 2» is a paragraph too
_PAR = (r"(?:\s*,?\s*(?:παραγραφ(?:οι|ουσ|ων)\s*\d+[α-ω]?(?:\s*(?:,|και)\s*\d+[α-ω]?(?!\d*\s*(?:παρ|§)))*"
        r"|(?:παρ\.?|παραγρ\w*|§)\s*\d+[α-ω]?(?:\s*,\s*\d+(?!\d*\s*(?:παρ|§)))*)"
        r"(?:\s*(?:εδ\.?|περ\.?)\s*[\dα-ω][΄']?)*)?")
# «ν. 4624/2019», «Ν.4624/2019», «v. 4261/2014» (a Latin v typed for the Greek ν), «του νόμου 4624/2019», «π.δ. 131/2003»;
# a legislative decree «ν.δ. 1059/1971» (ND_…) and an emergency law «α.ν. 1539/1938» (AN_…) are laws of their own, not
# ν. 1539/1938; never the end of a word («των 3/2020 αποφάσεων» is no law)
_LAW = (r"(?<!\w)(?P<kind>ν\.?\s?δ(?=\.?\s*\d)|α\.?\s?ν(?=\.?\s*\d)|ν|v|νομ(?:ου|οσ)|π\.?\s?δ|προεδρικ\w* διαταγματ\w*)"
        r"\.?\s*(?P<no>\d{1,5})\s*/\s*(?P<year>\d{4})(?!\d)")
_LAW_PREFIXES = ("N_", "PD_", "ND_", "AN_")  # the ids _law_source gives a law read by number and year


@dataclass(frozen=True)
class Citation:
    """One cited article: ``source`` (an id prefix such as ``PK``, ``N_4624_2019``), ``article`` (``386Α``), the
    paragraph where stated, and ``start``/``end`` of the citation in the text it was read from."""

    source: str
    article: str
    paragraph: str = ""
    start: int = 0
    end: int = 0

    @property
    def id(self) -> str:
        return f"{self.source}::{self.article}"


@dataclass(frozen=True)
class _Sources:
    """The source patterns, compiled once from ``areas.json``."""

    codes: re.Pattern[str]  # an abbreviation or written-out name; group names are the source ids
    by_group: Mapping[str, str]
    law_alias: Mapping[str, str]  # "4619/2019" -> "PK"
    # "PD_456_1984" -> ("AK", 200): an act that enacted two codes, whose articles from that number on are the code's
    shared_law: Mapping[str, tuple[str, int]] = dataclasses.field(default_factory=dict)


@functools.lru_cache(maxsize=1)
def _sources() -> _Sources:
    alternatives: list[str] = []
    by_group: dict[str, str] = {}
    law_alias: dict[str, str] = {}
    shared: dict[str, tuple[str, int]] = {}
    for i, (source, entry) in enumerate(table().sources.items()):
        forms: list[str] = []
        short = entry.get("short")
        if short:
            # «ΚΠολΔ», «Κ.Πολ.Δ.», «ΚΠΟΛΔ»: the abbreviation's pieces (each capital starts one), optional dots between
            caps = [i for i, ch in enumerate(short) if ch.isupper()] or [0]
            pieces = [fold(short[a:b]) for a, b in zip(caps, caps[1:] + [len(short)], strict=True)]
            forms.append(r"\.?\s?".join(re.escape(p) for p in pieces) + r"\.?")
            latin = short.translate(GREEK_TO_LATIN)
            if latin.isascii():  # «AK» typed on a Latin keyboard
                forms.append(re.escape(latin.lower()))
        forms.extend(entry.get("names") or [])
        if not forms:
            continue
        group = f"s{i}"
        by_group[group] = source
        alternatives.append(f"(?P<{group}>{'|'.join(forms)})")
        if entry.get("law"):
            law_alias[str(entry["law"])] = source
        if entry.get("shared_law"):
            shared[str(entry["shared_law"])] = (source, int(entry["shared_law_from"]))
    codes = re.compile(r"(?<![\w.])(?:" + "|".join(alternatives) + r")(?![\w])")
    return _Sources(codes, by_group, law_alias, shared)


def code_of(source: str, article: str) -> str:
    """The code an article of an act that enacted two codes belongs to, else the act («άρθρο 1959 π.δ. 456/1984» is
    AK::1959: the decree enacted the Civil Code and its Introductory Law, whose articles stop near 130; v20)."""
    shared = _sources().shared_law.get(source)
    digits = re.match(r"\d+", article)
    return shared[0] if shared and digits and int(digits.group()) >= shared[1] else source


# The parts, chapters and sections of a law named between an article and the law (folded): «του Κεφαλαίου Α΄»
# (v13), «των Μερών Β΄ και Γ΄», «του Κεφαλαίου Δ΄ (Κυρώσεις)», «του Κεφαλαίου Β’ του τέταρτου Μέρους», «του Μέρους
# Πρώτου», «του Τίτλου ΙΙ» (v15). A part is named by a letter numeral («Δ΄», «ΙΣΤ»), a Roman or Arabic number, or
# an ordinal in words; «του Μέρους του …» names none, and after a comma only a letter with its keraia or a number
# names another («του κεφαλαίου ΣΤ΄, δεν εφαρμόζονται»), after «και» one of two letters at most too («του Κεφαλαίου Α’
# και στον πίνακα 1»).
_PART_NOUN = (r"(?:κεφαλαι(?:ου|ων)|υποκεφαλαι(?:ου|ων)|μερ(?:ουσ|ων)|τμηματ(?:οσ|ων)|τιτλ(?:ου|ων)|βιβλι(?:ου|ων)|"
              r"ενοτητ(?:ασ|ων))")
_PART_ORDINAL = (r"(?:πρωτ|δευτερ|τριτ|τεταρτ|πεμπτ|εκτ|εβδομ|ογδο|ενατ|δεκατ|ενδεκατ|δωδεκατ)(?:ου|ων)")
_PART_NAME = (r"(?:\d+(?:\.\d+)*|" + _PART_ORDINAL + r"(?:\s+" + _PART_ORDINAL + r")?|[ivx]{1,6}|"
              r"(?!(?:του|τησ|των|και|το|τα|τη|την|τον|με|σε|ωσ|η|ο|οι)(?![\w΄'’]))[α-ω]{1,4}[΄'’]?)(?![\w])")
_PART_NEXT = (r"\s*(?:,\s*(?=[α-ω]{1,4}[΄'’]|\d)|και\s*(?=[α-ω]{1,4}[΄'’]|\d|[α-ω]{1,2}(?!\w)|[ivx]+\b|"
              + _PART_ORDINAL + r"))")
_PART = (r"(?:\s*,)?\s*(?:του|τησ|των)\s+(?:" + _PART_NOUN + r"\s+" + _PART_NAME + r"(?:" + _PART_NEXT + _PART_NAME
         + r")*|" + _PART_ORDINAL + r"\s+" + _PART_NOUN + r")(?:\s*\([^()]{1,80}\))?")
STRUCTURE = re.compile(r"(?:" + _PART + r")+")
_BEFORE_SOURCE = re.compile(r"(?:" + _PART + r")*\s*(?:του\s+|τησ\s+|,\s*)?")


_BEFORE_SOURCE_ONLY = re.compile(r"\s*(?:του\s+|τησ\s+|,\s*)?")


def _source_at(folded: str, pos: int, parts: bool = True) -> tuple[str, int, int] | None:
    """The source that starts at ``pos`` (after optional «του»/«της», spaces and, with ``parts``, the parts and
    chapters of the law): (source id, start, end)."""
    m = (_BEFORE_SOURCE if parts else _BEFORE_SOURCE_ONLY).match(folded, pos)
    at = m.end() if m else pos
    law = re.compile(_LAW).match(folded, at)
    if law:
        return _law_source(law), at, law.end()
    code = _sources().codes.match(folded, at)
    if code:
        return _code_source(code, folded), at, code.end()
    return None


def _law_source(m: re.Match[str]) -> str:
    number, year = m.group("no"), m.group("year")
    alias = _sources().law_alias.get(f"{number}/{year}")
    if alias:
        return alias
    kind = m.group("kind")  # «ν.δ.» is the only other kind that ends in δ
    prefix = "PD" if kind.startswith(("π", "προεδρ")) else "AN" if kind.startswith("α") else "ND" if kind.endswith("δ") else "N"
    return f"{prefix}_{number}_{year}"


# «του Κώδικα Φορολογικής Διαδικασίας (ν. 4987/2022, Α’ 206)»: the act in parentheses right after a code's name
_ENACTED_BY = re.compile(r"\s*[(\[]\s*(?:[\w.]{2,12},\s*)?" + _LAW)


def _code_source(m: re.Match[str], folded: str = "") -> str:
    """A code's id; for a code cited by its law's id, the act the text names in parentheses right after the name
    where it names one (v20: «Κώδικας Φορολογικής Διαδικασίας» was ν. 4174/2013 and is ν. 4987/2022 since its
    recodification; «Κώδικας Είσπραξης Δημοσίων Εσόδων (Κ.Ε.Δ.Ε., ν.δ. 356/1974, Α΄ 90)»). The codes with ids of
    their own (AK, KPolD, PK, …) stay so: the corpus and the benchmark file their articles under them."""
    group = next(g for g, v in m.groupdict().items() if v is not None)
    source = _sources().by_group[group]
    if folded and source.startswith(_LAW_PREFIXES):
        law = _ENACTED_BY.match(folded, m.end())
        if law:
            return _law_source(law)
    return source


def sources_in(folded: str, start: int, end: int) -> list[tuple[str, int, int]]:
    """Every source (a law by number and year, a code by abbreviation or name) named in ``folded[start:end]``:
    (source id, start, end), in reading order. The graph's extractor asks it which law a clause speaks of."""
    found = [(_law_source(m), m.start(), m.end()) for m in re.compile(_LAW).finditer(folded, start, end)]
    found += [(_code_source(m, folded), m.start(), m.end()) for m in _sources().codes.finditer(folded, start, end)]
    return sorted(found, key=lambda f: f[1])


def source_at(folded: str, pos: int) -> tuple[str, int, int] | None:
    """The source named right at ``pos`` (after «του»/«της»), as :func:`find_citations` reads one after an article."""
    return _source_at(folded, pos)


def _source_before(folded: str, end: int) -> tuple[str, int] | None:
    """A source that ends right before ``end`` (spaces and a comma allowed): (source id, its start)."""
    window_start = max(0, end - 80)
    best: tuple[str, int] | None = None
    for pattern, make in ((re.compile(_LAW), _law_source), (_sources().codes, lambda m: _code_source(m, folded))):
        for m in pattern.finditer(folded, window_start, end):
            if re.fullmatch(r"[\s,]*", folded[m.end():end]) and (best is None or m.start() < best[1]):
                best = (make(m), m.start())
    return best


_ITEM = re.compile(rf"(?P<sep>{_LIST_SEP})?(?P<num>{_NUM})(?P<par>{_PAR})")


def _numbers(listed: str) -> list[tuple[str, str]]:
    """«372, 374 και 375 παρ. 1» → (number, paragraph) of each; «372 έως 378» → 372…378; «34Α έως 34Θ» →
    34Α…34Θ (v13)."""
    numbers: list[tuple[str, str]] = []
    for m in _ITEM.finditer(listed):
        number, sep = article_number(m.group("num")), (m.group("sep") or "").strip()
        if (sep.split() or [""])[0] in ("εωσ", "ωσ", "-", "–") and numbers:
            limit = MAX_RANGE if sep in ("-", "–") else MAX_WORDED_RANGE
            numbers.extend((n, "") for n in _between(numbers[-1][0], number, limit))
        numbers.append((number, _paragraph(m.group("par"))))
    return numbers


# The tens of the Greek numerals that number inserted articles past the ninth: «66Ι» (10), «66ΙΑ» (11), «66Κ» (20),
# «66ΛΔ» (34); «ΣΤ» is six wherever it stands («66ΙΣΤ» 16, «66ΚΣΤ» 26)
_NUMERAL_TENS = ("", "Ι", "Κ", "Λ", "Μ", "Ν", "Ξ", "Ο", "Π")


def greek_numeral(n: int) -> str:
    """1 → «Α», 6 → «ΣΤ», 10 → «Ι», 16 → «ΙΣΤ», 34 → «ΛΔ» (1 to 89: no article law numbers past them)."""
    tens, units = divmod(n, 10)
    return _NUMERAL_TENS[tens] + (LETTER_SUFFIXES[units - 1] if units else "")


_NUMERAL_VALUES = {greek_numeral(n): n for n in range(1, 90)}


def _between(first: str, last: str, limit: int = MAX_RANGE) -> list[str]:
    """The article numbers strictly between the two ends of a range: «372», «378» → 373…377; «34Α», «34Θ» → 34Β…34Η
    (the same number, letters in :data:`LETTER_SUFFIXES` order); «66Α», «66ΛΔ» → 66Β…66ΛΓ (v20: an end of two or
    more letters past Θ is a Greek numeral, so the run is in numeral order, Ι after Θ, ΙΑ after Ι); nothing for a range
    too long or of mixed forms, nor one that ends in a lone letter past Θ («72ε έως 72ι», «4Α έως 4Κ»: alphabetical
    in some acts, numeral in others)."""
    if first.isdigit() and last.isdigit():
        a, b = int(first), int(last)
        return [str(n) for n in range(a + 1, b)] if 0 < b - a <= limit else []
    head_a, head_b = first.rstrip("ΑΒΓΔΕΣΤΖΗΘΙΚΛΜΝΞΟΠ"), last.rstrip("ΑΒΓΔΕΣΤΖΗΘΙΚΛΜΝΞΟΠ")
    suffix_a, suffix_b = first[len(head_a):], last[len(head_b):]
    if head_a != head_b or not head_a.isdigit() or (suffix_a and suffix_a not in _NUMERAL_VALUES):
        return []
    if suffix_b in LETTER_SUFFIXES:
        after = LETTER_SUFFIXES.index(suffix_a) if suffix_a in LETTER_SUFFIXES else -1 if not suffix_a else None
        return [] if after is None else [head_a + x for x in LETTER_SUFFIXES[after + 1:LETTER_SUFFIXES.index(suffix_b)]]
    if len(suffix_b) < 2 or suffix_b not in _NUMERAL_VALUES:
        return []
    a, b = _NUMERAL_VALUES.get(suffix_a, 0), _NUMERAL_VALUES[suffix_b]
    return [head_a + greek_numeral(n) for n in range(a + 1, b)] if 0 < b - a <= limit else []


# an aside between an article and its source: «, κατά περίπτωση,», «, αντίστοιχα,» (v21)
_ASIDE = re.compile(r",\s*(?:κατα\s+περιπτωση|αντιστοιχα|αντιστοιχωσ)\s*,\s*")
_ARTICLE_LIST = re.compile(rf"{_ART}\s*(?P<list>{_NUM}{_PAR}(?:{_LIST_SEP}{_NUM}{_PAR})*)")
# «ν. 4172/2013 (Α’ 167, Κώδικας Φορολογίας Εισοδήματος)»: a Government Gazette issue (series Α, Β, Δ), not article
# 167 of the code named after it
_GAZETTE_ISSUE = re.compile(r"(?<!\w)[αβδab][΄'’]\s*$")
_BARE_NUMBER = re.compile(rf"(?<![\w/.,])(?P<list>{_NUM})(?P<par>{_PAR})(?![\w/])")


# a Greek numeral written apart from its number at a range's end, in capitals, then no more of the word: «2 ΙΣΤ»,
# «2 Κ» (the letters: units, tens and tens with units; «ΣΤ» six); not a lone «Η» or «Ο», which open a sentence
_SPACED_NUMERAL = re.compile(r"\s+((?:[ΙΚΛΜΝΞΟΠ](?:ΣΤ|[ΑΒΓΔΕΖΗΘ])|[ΙΚΛΜΝΞΠ]|ΣΤ|[ΑΒΓΔΕΖΘ]))(?![\wΆ-ώ])")
_RANGE_SEP = re.compile(r"(?:εωσ(?:\s+και)?|-|–)\s*$")


def _spaced_range_end(text: str, folded: str, m: re.Match[str]) -> re.Match[str] | None:
    """The numeral after a range's end written apart from its number («άρθρα 2Α έως και 2 ΙΣΤ του παρόντος»): only
    where the range's first end is the same number with a letter suffix, so the numeral can be nothing else (v19);
    None otherwise («άρθρα 5 έως 7 Η …», a capital word after a plain range, stays as written)."""
    items = list(_ITEM.finditer(m.group("list")))
    if len(items) < 2 or items[-1].group("par").strip() or not items[-1].group("num").isdigit():
        return None
    first, last = article_number(items[-2].group("num")), items[-1].group("num")
    if not _RANGE_SEP.search(items[-1].group("sep") or "") or first == last or first.rstrip("ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΣΤ") != last:
        return None
    return _SPACED_NUMERAL.match(text, m.end())


def find_citations(text: str, default_source: str | None = None) -> list[Citation]:
    """Every article the text cites, in reading order (an article cited twice is listed twice).

    An article word followed by numbers takes the source after them («άρθρο 372 ΠΚ»), else the one right before
    («ν. 4624/2019 άρθρο 21»), else ``default_source`` (none: skipped). A bare number counts only beside a source
    («372 ΠΚ», «ΠΚ 372»), so dates and amounts in a case are not read as articles.
    """
    folded = fold(text)
    found: list[Citation] = []
    taken: list[tuple[int, int]] = []
    for m in _ARTICLE_LIST.finditer(folded):
        listed, list_end = m.group("list"), m.end()
        spaced = _spaced_range_end(text, folded, m)
        if spaced:  # «άρθρα 2Α έως και 2 ΙΣΤ»: the range's end is 2ΙΣΤ, not article 2 (v19)
            listed, list_end = listed + fold(spaced.group(1)), spaced.end()
        after = _source_at(folded, list_end)
        aside = None if after else _ASIDE.match(folded, list_end)
        if aside:  # «του άρθρου 157 ή 45, κατά περίπτωση, του Κώδικα Δημοσίου Ναυτικού Δικαίου» (v21)
            after = _source_at(folded, aside.end())
        if after:
            source, end = after[0], after[2]
        else:
            before = _source_before(folded, m.start())
            source, end = (before[0], list_end) if before else (default_source or "", list_end)
        start = before[1] if not after and before else m.start()
        if not source:
            continue
        found.extend(Citation(code_of(source, n), n, par, start, end) for n, par in _numbers(listed))
        taken.append((m.start(), end))
    for m in _BARE_NUMBER.finditer(folded):
        if any(a <= m.start() < b for a, b in taken) or _GAZETTE_ISSUE.search(folded, max(0, m.start() - 4), m.start()):
            continue
        after = _source_at(folded, m.end(), parts=False)  # «υποκεφάλαιο 3 του κεφαλαίου Β’ του ν. …» is no article
        if after:
            number = article_number(m.group("list"))
            found.append(Citation(code_of(after[0], number), number, _paragraph(m.group("par")), m.start(), after[2]))
            taken.append((m.start(), after[2]))
            continue
        before = _source_before(folded, m.start())
        if before and not before[0].startswith(_LAW_PREFIXES) and not m.group("par").strip():
            found.append(Citation(before[0], article_number(m.group("list")), "", before[1], m.end()))
            taken.append((before[1], m.end()))
    return sorted(found, key=lambda c: (c.start, c.end))


def _paragraph(raw: str) -> str:
    m = re.search(r"\d+", raw or "")
    return m.group(0) if m else ""


# What may surround a citation typed as a query: punctuation and the articles and prepositions it is read with
_FILLER = re.compile(r"(?:[\s,.;:«»\"'()\-–—]|\b(?:του|τησ|το|τα|στο|στα|κατα|βλ)\b)*")


def parse_citation(text: str) -> list[Citation]:
    """The articles a query cites when the query is nothing but a citation («άρθρο 372 ΠΚ», «ΠΚ 386Α»,
    «άρθρα 372 και 374 ΠΚ»); empty when the query says anything else (a case description that mentions an article
    is a case, not a citation: :func:`find_citations` reads those)."""
    found = find_citations(text)
    if not found:
        return []
    folded = fold(text)
    covered = sorted({(c.start, c.end) for c in found})
    position = 0
    for start, end in covered:
        if not _FILLER.fullmatch(folded[position:start]):
            return []
        position = max(position, end)
    return found if _FILLER.fullmatch(folded[position:]) else []
