"""The places an amending instruction names in the article it amends: «η παρ. 1 του άρθρου 372 ΠΚ», «το δεύτερο
εδάφιο της περ. α΄ της παρ. 7», «στις περ. (γ) και (δ) της παρ. 1», «η λέξη «προέκυψε»», read from folded text
whose quotations are blanked (``masked``: same length as the text, so offsets carry over).

A place is a head (the noun the instruction acts on, with its article: nominative «η παρ. 3», dative «στην παρ. 3»,
accusative «μετά την παρ. 3», genitive «της παρ. 3») and the chain of genitives after it up to the article («της
παρ. 2 του άρθρου 4 του ν. 4070/2012»); laws, gazette issues in brackets and «όπως ισχύει» may stand between the
links. Which law an article number belongs to is not read here: the legal graph's edges say it (the extractor's
references carry the span of each citation), and :mod:`nomos.legal.inforce.reading` binds a place to the corpus
article through them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from nomos.legal.text.article_parts import CASE_LETTERS, case_index
from nomos.legal.text.citations import sources_in

# the article before a noun, folded: what role the noun has in its clause
NOMINATIVE = frozenset({"η", "ο", "το", "οι", "τα", ""})
GENITIVE = frozenset({"του", "τησ", "των"})
DATIVE = frozenset({"στο", "στον", "στην", "στη", "στισ", "στα", "στουσ"})
ACCUSATIVE = frozenset({"την", "τη", "τον", "τισ", "τουσ"})

_DET = r"(?P<det>στουσ|στον|στην|στισ|στη|στο|στα|τουσ|τησ|του|των|την|τον|τισ|τη|το|τα|οι|η|ο)\s+"
# a number followed by «.digit» is a decimal point («η υποπαρ. 2.1.3», «η παρ. 2.8.»: the numbering of codes like
# the anti-doping code), no paragraph or article number: read as «2» it would name a unit that is not the one meant
_NUM = r"\d{1,4}[α-ω]{0,2}(?![\w])(?!\.\d)"
_SEP = r"\s*(?:,|και|εωσ\s+και|εωσ|εωσ\s+και\s+τη|-|–)\s*"
_NUMS = rf"{_NUM}(?:{_SEP}{_NUM})*"
# «του άρθρου 14.6.2.»: codes numbered by points (the anti-doping code, ν. 4791/2021) name article 14's point
# 14.6.2 so; the article is the number before the first dot
_POINT = r"(?P<point>(?P<pointart>\d{1,3})(?:\.\d{1,3}){1,4})\.?(?![\w.])"
_LETTER = r"(?:\((?:[α-ω]{1,4}|\d{1,3})\)|(?:[α-ω]{1,4}|\d{1,3})\s?[΄'’`]\)?|(?:[α-ω]{1,4}|\d{1,3})\))"
_LETTERS = rf"{_LETTER}(?:{_SEP}{_LETTER})*"
_ORDINALS = {
    "πρωτ": 1, "δευτερ": 2, "τριτ": 3, "τεταρτ": 4, "πεμπτ": 5, "εκτ": 6, "εβδομ": 7, "ογδο": 8, "ενατ": 9,
    "δεκατ": 10, "ενδεκατ": 11, "δωδεκατ": 12, "προτελευται": -2, "τελευται": -1,
}
_ORD = "|".join(sorted(_ORDINALS, key=len, reverse=True))
_OF_SAME = r"(?:(?:ιδιου|ιδιασ|ιδιων|ιδιο|ιδια|ωσ\s+ανω|ανωτερω|αυτου|αυτησ|νεου|νεασ|νεο|νεα)\s+)?"

MENTION = re.compile(
    rf"(?<![\w])(?:{_DET})?{_OF_SAME}(?:"
    rf"(?P<ppar>υποπαρ\.|υποπαραγραφ\w*|παρ\.|παραγραφ\w*|υποπερ\.|υποπεριπτωσ\w*|περ\.|περιπτωσ\w*)\s*"
    rf"(?P<ppoint>\d{{1,3}}(?:\.\d{{1,3}}){{1,4}})\.?(?![\w.])"
    rf"|(?P<article>αρθρ(?:ου|ων|ο|α))(?!\w)(?:\s+(?:{_POINT}|(?P<anums>{_NUMS})))?"
    rf"|(?P<par>παρ\.|παρ(?=\s)|παραγραφ(?:ουσ|οσ|ου|οι|ων|ο)(?!\w))\s*(?P<pnums>{_NUMS})"
    rf"|(?P<barepar>παραγραφ(?:οσ|ο)(?!\w))(?!\s*\d)"
    rf"|(?:(?P<ord>{_ORD})\w*\s+)?(?:(?:νεο|νεα|νεου|νεων)\s+)?(?:(?P<ord2>{_ORD})\w*\s+)?"
    rf"(?P<sent>εδαφι(?:ου|ων|ο|α)(?!\w)|εδ\.)(?:\s+(?P<slet>[α-ω]{{1,2}})\s?[΄'’])?"
    rf"|(?P<sub>υποπερ(?:\.|ιπτωσ(?:ησ|εισ|εων|η)(?!\w)))\s*(?P<subl>{_LETTERS})"
    rf"|(?P<case>περ\.|περιπτωσ(?:ησ|εισ|εων|η)(?!\w))\s*(?P<cnums>{_LETTERS})"
    rf"|(?P<title>τιτλ(?:οσ|ου|ο)(?!\w))(?=\s+του\s+(?:\w+\s+)?αρθρ)"
    rf"|(?P<phrase>(?:λεξ(?:εισ|εωσ|εων|η)|φρασ(?:εισ|εωσ|εων|η)|αριθμ(?:ουσ|οσ|ου|οι|ο)|ημερομηνι(?:εσ|ασ|α)"
    rf"|παραπομπ(?:εσ|ησ|η)|προτασ(?:ησ|η)|χρονολογι(?:ασ|α))(?!\w)\s*(?P<q>«\s*»))"
    rf"|(?P<end>τελοσ|τελουσ|αρχη|αρχησ)(?=\s)"
    rf")"
)
# what may stand between two links of a chain: brackets («(Α΄ 82)»), «όπως ισχύει», commas
_BETWEEN = re.compile(r"(?:\s|,|\([^()]{0,80}\)|(?:οπωσ|ωσ)\s+(?:ισχυει|ισχυουν|τροποποιηθηκε\w*)|περι\s+[^,:«»]{0,0})*")


@dataclass(frozen=True)
class Place:
    """A part of an article an instruction names. ``articles`` are the article numbers as named (folded; several
    for a list or range), ``article_span`` where the article is named (to bind it to the graph's edge); then the
    paragraphs, cases, subcases, the sentence (1-based; -1 the last, -2 the one before), whether the instruction
    names the title, and a quoted phrase (its span in the text). Empty fields are not named."""

    articles: tuple[str, ...] = ()
    article_span: tuple[int, int] | None = None
    paragraphs: tuple[str, ...] = ()
    cases: tuple[str, ...] = ()
    subcases: tuple[str, ...] = ()
    sentence: int | None = None
    sentence_new: bool = False  # a sentence named without its number («νέο εδάφιο», «προστίθεται εδάφιο»)
    title: bool = False
    phrase: tuple[int, int] | None = None
    end: bool = False  # «στο τέλος της …»
    start_of: bool = False  # «στην αρχή της …»
    point: str = ""  # «του άρθρου 14.6.2.»: the point 14.6.2 of article 14 (codes numbered by points)

    @property
    def level(self) -> int:
        """The most general level named: 0 article, 1 paragraph, 2 case, 3 subcase, 4 sentence, 5 phrase, 6 none."""
        if self.articles or self.title:
            return 0
        if self.paragraphs or self.point:
            return 1
        if self.cases:
            return 2
        if self.subcases:
            return 3
        if self.sentence is not None or self.sentence_new:
            return 4
        if self.phrase:
            return 5
        return 6

    @property
    def depth(self) -> int:
        """The most specific level named (the unit the instruction acts on)."""
        if self.phrase:
            return 5
        if self.sentence is not None or self.sentence_new:
            return 4
        if self.subcases:
            return 3
        if self.cases:
            return 2
        if self.paragraphs or self.point:
            return 1
        return 0

    def within(self, context: Place) -> Place:
        """This place with the levels above its most general one taken from ``context`` («η παρ. 3» in «Στο άρθρο
        465 ΠΚ: …» is paragraph 3 of article 465)."""
        level = self.level
        out = self
        if level > 0 and context.articles:
            out = replace(out, articles=context.articles, article_span=context.article_span,
                          point=out.point or context.point)
        if level > 1 and context.paragraphs:
            out = replace(out, paragraphs=context.paragraphs)
        if level > 2 and context.cases:
            out = replace(out, cases=context.cases)
        if level > 3 and context.subcases:
            out = replace(out, subcases=context.subcases)
        if level > 4 and context.sentence is not None:
            out = replace(out, sentence=context.sentence)
        return out

    def covers(self, other: Place) -> bool:
        """Whether the unit this place names holds ``other``'s (the same article; every level this one names is
        ``other``'s too, and ``other`` is no more general)."""
        if self.articles != other.articles or self.point != other.point or self.depth > other.depth:
            return False
        pairs = ((self.paragraphs, other.paragraphs), (self.cases, other.cases), (self.subcases, other.subcases))
        for mine, theirs in pairs:
            if mine and not set(theirs) <= set(mine):
                return False
        return self.sentence is None or self.sentence == other.sentence


@dataclass(frozen=True)
class Mention:
    """One noun of a place as read: where, its article («η», «της», «στην» …), and what it names."""

    start: int
    end: int
    det: str
    kind: str  # article, paragraph, point, sentence, case, subcase, title, phrase, end
    values: tuple[str, ...] = ()
    ordinal: int | None = None
    new: bool = False
    quote: tuple[int, int] | None = None
    span: tuple[int, int] | None = None  # the numbers' span (articles)
    point: str = ""  # an article's point («14.6.2»)


def _numbers(raw: str) -> tuple[str, ...]:
    """«1 έως 3», «16 έως 29 και 31 έως 39», «1, 2 και 4», «1-5»: every number (digits-only ranges expanded)."""
    out: list[str] = []
    parts = re.split(r"\s*(,|και|εωσ\s+και\s+τη|εωσ\s+και|εωσ|-|–)\s*", raw.strip())
    numbers = parts[0::2]
    seps = parts[1::2]
    for i, n in enumerate(numbers):
        n = n.strip()
        if not n:
            continue
        if i and seps[i - 1] not in (",", "και") and out and out[-1].isdigit() and n.isdigit() \
                and 0 < int(n) - int(out[-1]) <= 200:
            out.extend(str(k) for k in range(int(out[-1]) + 1, int(n) + 1))
        else:
            out.append(n)
    return tuple(dict.fromkeys(out))


def _letters(raw: str) -> tuple[str, ...]:
    """«α΄ έως ιη΄, κα΄» → every letter named (ranges of case letters expanded through the numeral sequence)."""
    found = [(m.group(1) or m.group(2) or m.group(3), m.start()) for m in
             re.finditer(r"\(([α-ω]{1,4}|\d{1,3})\)|([α-ω]{1,4}|\d{1,3})\s?[΄'’`]\)?|([α-ω]{1,4}|\d{1,3})\)", raw)]
    out: list[str] = []
    for i, (letter, at) in enumerate(found):
        ranged = i and re.search(r"εωσ", raw[found[i - 1][1]:at])
        if ranged and out:
            a, b = case_index(out[-1]), case_index(letter)
            if a is not None and b is not None and a < b:
                out.extend(CASE_LETTERS[k] for k in range(a + 1, b + 1))
                continue
        index = case_index(letter)
        out.append(CASE_LETTERS[index] if index is not None else letter)
    return tuple(dict.fromkeys(out))


def mentions(masked: str, start: int = 0, end: int | None = None) -> list[Mention]:
    """Every place noun in ``masked[start:end]``, in reading order."""
    out: list[Mention] = []
    for m in MENTION.finditer(masked, start, len(masked) if end is None else end):
        det = m.group("det") or ""
        if m.group("ppoint"):
            # «της παρ. 22.7.2», «η υποπαρ. 2.1.3.», «η περ. 4.4.2.4.»: a point of a code numbered by points, named
            # as a paragraph (engine v6); the article is the one the chain names («του άρθρου 22»)
            out.append(Mention(m.start(), m.end(), det, "point", point=m.group("ppoint")))
        elif m.group("article") and m.group("point"):
            out.append(Mention(m.start(), m.end(), det, "article", (m.group("pointart"),),
                               span=(m.start("article"), m.end()), point=m.group("point")))
        elif m.group("article"):
            nums = m.group("anums")
            out.append(Mention(m.start(), m.end(), det, "article", _numbers(nums) if nums else (),
                               span=(m.start("article"), m.end())))
        elif m.group("par"):
            out.append(Mention(m.start(), m.end(), det, "paragraph", _numbers(m.group("pnums"))))
        elif m.group("barepar"):
            out.append(Mention(m.start(), m.end(), det, "paragraph", ()))
        elif m.group("sent"):
            word = m.group("ord") or m.group("ord2")
            ordinal = _ORDINALS[word] if word else None
            if ordinal is None and m.group("slet"):
                index = case_index(m.group("slet"))
                ordinal = index + 1 if index is not None else None
            new = bool(re.search(r"\bνε(?:ο|α|ου|ων)\s", m.group(0)))
            out.append(Mention(m.start(), m.end(), det, "sentence", (), ordinal, new))
        elif m.group("sub"):
            out.append(Mention(m.start(), m.end(), det, "subcase", _letters(m.group("subl"))))
        elif m.group("case"):
            out.append(Mention(m.start(), m.end(), det, "case", _letters(m.group("cnums"))))
        elif m.group("title"):
            out.append(Mention(m.start(), m.end(), det, "title"))
        elif m.group("phrase"):
            out.append(Mention(m.start(), m.end(), det, "phrase", (), quote=(m.start("q"), m.end("q"))))
        elif m.group("end"):
            kind = "end" if m.group("end").startswith("τελ") else "start"
            out.append(Mention(m.start(), m.end(), det, kind))
    return out


def _law_spans(masked: str, start: int, end: int) -> list[tuple[int, int]]:
    return [(a, b) for _, a, b in sources_in(masked, start, end)]


def _joins(masked: str, a: int, b: int, laws: list[tuple[int, int]]) -> bool:
    """Whether ``masked[a:b]`` is only what may stand between two links of a chain (laws, brackets, commas)."""
    at = a
    while at < b:
        m = _BETWEEN.match(masked, at, b)
        if m and m.end() > at:
            at = m.end()
            continue
        law = next((s for s in laws if s[0] <= at < s[1]), None)
        if law:
            at = law[1]
            continue
        nxt = next((s for s in laws if s[0] == at), None)
        if nxt:
            at = nxt[1]
            continue
        return False
    return True


@dataclass(frozen=True)
class Phrase:
    """A place as one phrase: the head's article (its role) and kind, the place, and its span."""

    det: str
    head: str
    place: Place
    start: int
    end: int
    new: bool = False


def _add(place: Place, m: Mention) -> Place:
    if m.kind == "article":
        return replace(place, articles=m.values or place.articles, article_span=m.span if m.values else place.article_span,
                       title=place.title, point=(m.point or place.point) if m.values else place.point)
    if m.kind == "point":
        return replace(place, point=m.point)
    if m.kind == "paragraph":
        return replace(place, paragraphs=m.values)
    if m.kind == "case":
        return replace(place, cases=m.values)
    if m.kind == "subcase":
        return replace(place, subcases=m.values)
    if m.kind == "sentence":
        return replace(place, sentence=m.ordinal, sentence_new=m.new or place.sentence_new)
    if m.kind == "title":
        return replace(place, title=True)
    if m.kind == "phrase":
        return replace(place, phrase=m.quote)
    if m.kind == "end":
        return replace(place, end=True)
    if m.kind == "start":
        return replace(place, start_of=True)
    return place


_RANK = {"end": 7, "start": 7, "phrase": 6, "sentence": 5, "subcase": 3, "case": 2, "paragraph": 1, "point": 1, "article": 0,
         "title": 0}


def phrases(masked: str, start: int = 0, end: int | None = None) -> list[Phrase]:
    """The places named in ``masked[start:end]``: each head noun with the genitive chain that follows it («η περ.
    α΄ της παρ. 2 του άρθρου 4 του ν. 4070/2012» is one phrase), in reading order. A chain climbs: each genitive
    names a unit that holds the one before (a sentence, then its case, paragraph, article); a genitive that does
    not (a second «της παρ. 5») starts a phrase of its own (its role: genitive)."""
    end = len(masked) if end is None else end
    found = mentions(masked, start, end)
    laws = _law_spans(masked, start, end)
    out: list[Phrase] = []
    i = 0
    while i < len(found):
        head = found[i]
        place = _add(Place(), head)
        stop, rank = head.end, _RANK[head.kind]
        if head.kind == "title":
            rank = 1
        j = i + 1
        while j < len(found):
            nxt = found[j]
            if nxt.det not in GENITIVE or _RANK[nxt.kind] >= rank or not _joins(masked, stop, nxt.start, laws):
                break
            place = _add(place, nxt)
            stop, rank = nxt.end, _RANK[nxt.kind]
            j += 1
        out.append(Phrase(head.det, head.kind, place, head.start, stop, head.new))
        i = j
    return out
