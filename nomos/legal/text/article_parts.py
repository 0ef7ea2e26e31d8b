"""The parts of an article's text an amendment names: its paragraphs («1.», «2.» … at the start of a line), the
sentences (εδάφια) of a paragraph, its cases (περιπτώσεις «α)», «β)» …), and the heading («Άρθρο 372 Κλοπή») that
opens the new wording of a whole article.

Every reader here is exact or says it is not: a paragraph is a numbered line whose number follows the one before (a
«2.» inside a quotation, or a «13.2.2» clause number, starts none); a sentence ends at a period followed by a
capital letter, and a period after an acronym («Ε.Σ.Υ.», «Α.Ε.») or a lone capital could be either, so the reader
reports it ambiguous rather than choosing; a case is a letter in the sequence α, β, γ … opened at the start of a
line or after a colon, comma or semicolon. The consolidation engine (:mod:`nomos.legal.inforce.engine`) refuses an
instruction whose part cannot be found this way instead of guessing it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nomos.legal.text.folding import fold

# «1.», «12.», «1Α.» at the start of a line (not «13.2.2»: a clause number, nor «1.000»)
_PARAGRAPH = re.compile(r"(?m)^[ \t\xa0]*(?P<num>\d{1,3})(?P<letter>[Α-Ωα-ω]?)[ \t\xa0]*\.(?![\d])")
_HEADING = re.compile(r"^\s*(?:Άρθρο|ΑΡΘΡΟ|Αρθρο|Άρθρον)\s+(?P<num>\d{1,4}[Α-Ωα-ω]{0,2})(?![\w])[ \t\xa0]*[.:-]?[ \t\xa0]*")
_FIRST_PARAGRAPH_INLINE = re.compile(r"(?<=\S)\s+1\s*\.\s+(?=[«(]?[Α-ΩΆΈΉΊΌΎΏA-Z])")

# Greek numerals as cases count them: α, β, … στ, ζ, … ι, ια, … ιθ, κ, … (the letters a case list runs through)
_UNITS = ["", "α", "β", "γ", "δ", "ε", "στ", "ζ", "η", "θ"]
_TENS = ["", "ι", "κ", "λ", "μ", "ν", "ξ", "ο", "π", "ϟ"]
CASE_LETTERS: tuple[str, ...] = tuple(t + u for t in _TENS[:6] for u in _UNITS if t + u)


def case_index(letter: str) -> int | None:
    """The position of a case letter in the sequence (α → 0, στ → 5, ια → 10), folded; «ς» is read as στ."""
    f = fold(letter).strip("΄'’`() ")
    if f.endswith("σ"):
        f = f[:-1] + "στ"
    return CASE_LETTERS.index(f) if f in CASE_LETTERS else None


def paragraph_key(number: str) -> tuple[int, str]:
    """A paragraph number as a reader orders them: 1 < 1Α < 2 < 10."""
    m = re.match(r"(\d+)(.*)", number)
    return (int(m.group(1)), fold(m.group(2))) if m else (0, fold(number))


@dataclass(frozen=True)
class Paragraph:
    """One paragraph of an article: its number as written («1», «1Α»; "" for text before the first numbered line
    or an article with none) and its text, the number included («1. Όποιος …»)."""

    number: str
    text: str


def inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    """Whether ``pos`` falls in one of ``spans`` ([start, end) pairs, e.g. :func:`quote_spans`'s)."""
    return any(a <= pos < b for a, b in spans)


def quote_spans(text: str) -> list[tuple[int, int]]:
    """The outermost «…» spans of ``text`` (nested quotes inside them belong to them; an unclosed one runs to the
    end): quoted new wording, for the engine and the graph's reader alike (``references.quoted_spans``)."""
    spans: list[tuple[int, int]] = []
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch == "«":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "»" and depth:
            depth -= 1
            if depth == 0:
                spans.append((start, i + 1))
    if depth:
        spans.append((start, len(text)))
    return spans


def paragraphs(text: str) -> list[Paragraph]:
    """``text`` split into its numbered paragraphs, in order. A numbered line starts a paragraph only when its number
    comes after the previous paragraph's (1, 2, 2Α, 3 …) and it is not inside a quotation; text before the first
    one is a paragraph numbered "". Joined with newlines, the paragraphs give ``text`` back (less the whitespace at
    their ends)."""
    quotes = quote_spans(text)
    starts: list[tuple[int, str]] = []
    last: tuple[int, str] | None = None
    for m in _PARAGRAPH.finditer(text):
        if inside(m.start("num"), quotes):
            continue
        number = m.group("num") + m.group("letter")
        key = paragraph_key(number)
        if last is not None and key <= last:
            continue
        if last is None and key[0] != 1 and m.start() > 0 and text[:m.start()].strip():
            # a first numbered line that is not «1.» after some text is a number inside that text, not a paragraph
            continue
        starts.append((m.start(), number))
        last = key
    out: list[Paragraph] = []
    if not starts or text[:starts[0][0]].strip():
        head = text[:starts[0][0]] if starts else text
        out.append(Paragraph("", head.strip()))
    for i, (at, number) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        out.append(Paragraph(number, text[at:end].strip()))
    return out


def paragraph_body(paragraph: str) -> int:
    """Where the words of a paragraph begin, after its number («1. »)."""
    m = re.match(r"\s*\d{1,3}[Α-Ωα-ω]?\s*\.\s*", paragraph)
    return m.end() if m else 0


@dataclass(frozen=True)
class Heading:
    """The heading that opens a whole article's new wording: its number, its title ("" where it has none) and
    where the article's text begins after it."""

    number: str
    title: str
    body_start: int


def read_heading(wording: str, title_now: str = "", text_now: str = "") -> Heading | None | str:
    """The heading of an article's new wording («Άρθρο 372 Κλοπή\\n1. Όποιος …»): None when the wording opens with
    none, a :class:`Heading` when its end is certain, else a reason (str) why it is not.

    The title ends at the end of its line, or right before an inline «1.» that opens the first paragraph; a heading
    whose line runs on into the text («Άρθρο 96 Δικαίωμα άσκησης καθηκόντων Ο δικαστικός υπάλληλος …») ends after
    the article's current title ``title_now`` when the line opens with it, or right before the first words of
    the article's current text ``text_now`` when they stand in the line once (its words did not change where
    they begin); it is ambiguous otherwise."""
    m = _HEADING.match(wording)
    if not m:
        return None
    rest = wording[m.end():]
    line_end = rest.find("\n")
    line = rest if line_end < 0 else rest[:line_end]
    if not line.strip():
        return Heading(m.group("num"), "", m.end() + (line_end + 1 if line_end >= 0 else len(rest)))
    inline = _FIRST_PARAGRAPH_INLINE.search(line)
    if re.match(r"\s*1\s*\.\s", line):
        return Heading(m.group("num"), "", m.end())
    if inline:
        return Heading(m.group("num"), line[:inline.start()].strip(), m.end() + inline.start() + 1)
    if line_end >= 0 and len(line) <= 200 and not re.search(r"[.;·]\s*$", line.strip()[-2:]) \
            and re.match(r"\s*(?:\d{1,3}[Α-Ωα-ω]?\s*\.|[α-ω]{1,2}\))", rest[line_end + 1:]):
        if line.strip().endswith(":"):
            # a line that ends with a colon may open a list after the title («Καταργούμενες διατάξεις Με την
            # έναρξη ισχύος του παρόντος καταργούνται:»): the current title ends the heading where a sentence
            # opens right after it (engine v6: v5 took the list's opening into the title, N_4809_2021::65)
            split = _after_title(m.group("num"), m.end(), rest, line, line_end, title_now)
            if split is not None and SENTENCE_OPENS.match(fold(wording[split.body_start:])):
                return split
        return Heading(m.group("num"), line.strip(), m.end() + line_end + 1)
    split = _after_title(m.group("num"), m.end(), rest, line, line_end, title_now)
    if split is not None:
        return split
    opening = " ".join(text_now.split()[:4])
    if len(opening) >= 15 and not re.match(r"\d{1,3}\s*\.", opening):
        at = [m.start() for m in re.finditer(re.escape(opening).replace("\\ ", r"\s+"), line)]
        if len(at) == 1 and at[0] > 0 and line[:at[0]].strip():
            return Heading(m.group("num"), line[:at[0]].strip(), m.end() + at[0])
    if line_end >= 0 and len(line) <= 200:
        return "the heading of the new wording runs into its text on one line without a paragraph number"
    return "the heading of the new wording cannot be told from its text (no line break, no «1.», not the current title)"


# the words a sentence opens with after a heading's title (folded): an article, a preposition, a conjunction of when
SENTENCE_OPENS = re.compile(r"(?:ο|η|το|οι|τα|τον|την|τη|με|απο|για|ωσ|στο|στη|στην|στα|στον|στουσ|στισ|σε|κατα|αν|"
                            r"εφοσον|οταν|μετα|εντοσ)\s")


def _after_title(number: str, at: int, rest: str, line: str, line_end: int, title_now: str) -> Heading | None:
    """The heading that ends after the article's current title ``title_now`` where its line opens with it."""
    now = _title_form(title_now)
    words = line.split()
    if not now:
        return None
    for n in range(1, min(len(words), 40) + 1):
        if _title_form(" ".join(words[:n])) == now:
            cut = 0
            for w in words[:n]:
                cut = rest.index(w, cut) + len(w)
            if line_end >= 0 and n == len(words):
                return Heading(number, line.strip(), at + line_end + 1)
            body = len(rest[cut:]) - len(rest[cut:].lstrip())
            return Heading(number, " ".join(words[:n]), at + cut + body)
    return None


def _title_form(title: str) -> str:
    """A title as compared with another: folded, its spaces joined, and none around a hyphen or dash
    («βρεφοκόμων - παιδοκόμων» is the title «βρεφοκόμων-παιδοκόμων» written with spaces)."""
    return re.sub(r"\s*([-–—])\s*", r"\1", " ".join(fold(title).split()))


# words a period follows without ending a sentence (folded): «παρ. 2», «ν. 4619/2019», «περ. α΄», «κ.λπ.»
ABBREVIATIONS = frozenset({
    "παρ", "περ", "υποπερ", "υποπαρ", "αρ", "αριθ", "αρθ", "ν", "π", "δ", "β", "α", "εδ", "στοιχ", "κεφ", "σελ", "βλ",
    "κ", "λπ", "κλπ", "χ", "τ", "υπ", "σημ", "ολ", "ημ", "μ", "εκ", "πρβλ", "παραγρ", "αρθρ", "κωδ", "τευχ", "φεκ",
    "αποφ", "εγκ", "υπουργ", "δηλ", "γεν", "ειδ", "τηλ", "περιπτ", "αα", "ββ", "γγ", "δδ",
    "ε", "στ", "ζ", "η", "θ", "ι", "ια", "ιβ", "ιγ", "ιδ", "ιε", "ιστ", "ιζ", "ιη", "ιθ",
})


_WORD_BEFORE = re.compile(r"(?<!\w)\w+$")


def abbreviation_before(text: str, at: int) -> bool:
    """Whether the stop at ``at`` ends an abbreviation («ν.», «παρ.», «Κ.Ο.Κ.»: a word of at most two letters or one
    of :data:`ABBREVIATIONS`) rather than a sentence: the test the snippets' sentence cuts make on raw text."""
    m = _WORD_BEFORE.search(text, max(0, at - 12), at)
    return m is not None and (len(m.group()) <= 2 or fold(m.group()) in ABBREVIATIONS)
_PERIOD = re.compile(r"\.(?=\s+[«(\"]?[Α-ΩΆΈΉΊΌΎΏA-Z])")


@dataclass(frozen=True)
class Sentences:
    """A paragraph's sentences (εδάφια) as spans of its text, and whether some period could end a sentence or not
    (an acronym or a lone capital before it): then the spans after it are not certain."""

    spans: tuple[tuple[int, int], ...]
    ambiguous_after: int | None = None  # the index of the first sentence whose start is uncertain

    def certain(self, index: int) -> bool:
        """Whether sentence ``index`` (0-based) and every one before it are told apart for sure."""
        return self.ambiguous_after is None or index + 1 < self.ambiguous_after

    def all_certain(self) -> bool:
        return self.ambiguous_after is None


def sentences(text: str, start: int = 0) -> Sentences:
    """The sentences of ``text[start:]`` (spans in ``text``): a sentence ends at a period followed by whitespace and
    a capital letter (or «, (), unless the word before it is an abbreviation; after an acronym with periods
    inside («Ε.Σ.Υ.», «Ν.Π.Δ.Δ.») or a lone capital letter the period is ambiguous."""
    quotes = quote_spans(text)
    spans: list[tuple[int, int]] = []
    at = start
    while at < len(text) and text[at].isspace():
        at += 1
    ambiguous: int | None = None
    for m in _PERIOD.finditer(text, start):
        if inside(m.start(), quotes) or m.start() < at:
            continue
        word = re.search(r"([\w.’'΄]+)$", text[at:m.start()])
        token = word.group(1) if word else ""
        bare = fold(token.replace("’", "").replace("'", "").replace("΄", ""))
        if bare.split(".")[-1] in ABBREVIATIONS and (len(bare.split(".")[-1]) <= 6) and not token[:1].isupper():
            continue
        if "." in token or (len(token) == 1 and token.isupper()) or re.fullmatch(r"[Α-ΩA-Z]{1,2}", token):
            if ambiguous is None:
                ambiguous = len(spans) + 1
        spans.append((at, m.end()))
        at = m.end()
        while at < len(text) and text[at].isspace():
            at += 1
    end = len(text.rstrip())
    if at < end:
        spans.append((at, end))
    return Sentences(tuple(spans), ambiguous)


_CASE = re.compile(
    r"(?:(?<=^)|(?<=\n)|(?<=[:;,.·]\s)|(?<=[:;,.·])|(?<=\sκαι\s)|(?<=\sή\s)|(?<=\sκαι/ή\s))[ \t\xa0]*"
    r"(?P<mark>\((?P<p>[α-ωά-ώ]{1,3})\)|(?P<b>[α-ωά-ώ]{1,3})[΄'’]?\)|(?P<d>[α-ω]{1,3})\.(?=\s))(?=\s)"
)


@dataclass(frozen=True)
class Case:
    """One case (περίπτωση) of a paragraph: its letter as written and its span in the paragraph's text (from its
    mark to the next case's mark, or the paragraph's end)."""

    letter: str
    start: int
    end: int


def cases(text: str, start: int = 0) -> list[Case]:
    """The top-level cases of ``text[start:]`` in order: marks «α)», «(α)», «α΄)» or «α.» (this one only at a line's
    start) opened at a line's start or after punctuation, «και» or «ή», whose letters run α, β, γ … without a gap.
    A mark out of sequence («αα)», a «β)» in «της περ. β)») is text."""
    quotes = quote_spans(text)
    found: list[tuple[int, str]] = []
    expected = 0
    for m in _CASE.finditer(text, start):
        if inside(m.start("mark"), quotes):
            continue
        letter = m.group("p") or m.group("b") or m.group("d")
        if m.group("d") and not (m.start() == 0 or text[m.start() - 1] == "\n" or text[:m.start()].endswith(". ")
                                 or re.search(r"\n[ \t]*$|^\s*$", text[:m.start()])):
            continue
        before = fold(text[max(0, m.start() - 12):m.start()])
        if re.search(r"(?:περ|περιπτ\w*|υποπερ|εδ|στοιχ)\.?\s*$", before):
            continue  # «της περ. β) της παρ. 2»: a reference, not a mark
        index = case_index(letter)
        at_line_start = m.start() == 0 or re.search(r"\n[ \t\xa0]*$", text[:m.start("mark")]) is not None
        # a mark out of sequence is text; at a line's start, a later letter is the next case after a gap (a
        # case the text no longer holds: «ιη)» then «κ)»)
        if index is None or not (index == expected or at_line_start and expected and index > expected
                                 and index - expected <= 3):
            continue
        found.append((m.start("mark"), letter))
        expected = index + 1
    out: list[Case] = []
    end = len(text.rstrip())
    for i, (at, letter) in enumerate(found):
        stop = found[i + 1][0] if i + 1 < len(found) else end
        out.append(Case(letter, at, stop))
    return out


# The structural lines a code's article text may end with in the corpus: they belong to the code, not the article.
# A note of repealed articles («Άρθρα 382 - 384 (Καταργούνται)», «Άρθρο 5 (Καταργείται)»), or a heading of a part,
# chapter or section written in capitals («ΕΒΔΟΜΟ ΚΕΦΑΛΑΙΟ ΛΟΓΟΙ …», «ΜΕΡΟΣ Β’ …», «ΙΙ. ΕΓΚΛΗΜΑΤΑ ΚΑΤΑ ΤΗΣ …»:
# a capital Roman numeral, Greek Ι or Latin I, V, X). A heading's words have no small letter, save a «(Καταργήθηκε)».
_REPEALED_NOTE = (r"Άρθρ[οα]\s+\d{1,4}[Α-Ω]{0,2}(?:\s*[-–]\s*\d{1,4}[Α-Ω]{0,2})?\s*"
                  r"\([Κκ]αταργ(?:ούνται|είται|ήθηκαν|ήθηκε)\)")
_CAPS = r"(?:[^\W\da-zα-ωάέήίόύώϊϋΐΰς]|[\d’΄'\-–,./\xa0 \t])"
_MARK = (r"(?:(?:[Α-ΩΪΫ]+\s+){0,3}(?:ΚΕΦΑΛΑΙΟ|ΥΠΟΚΕΦΑΛΑΙΟ|ΜΕΡΟΣ|ΤΜΗΜΑ|ΤΙΤΛΟΣ|ΒΙΒΛΙΟ)(?![^\W\d_])"
         r"|[IVXΙ]{1,5}\.\s+(?=[Α-ΩΆ-Ώ]))")
_STRUCTURAL_ITEM = rf"(?:{_REPEALED_NOTE}|{_MARK}(?:{_CAPS}|\(Καταργ\w+\))*)"
_STRUCTURAL_TAIL = re.compile(rf"(?:{_STRUCTURAL_ITEM}\s*)+")
# where a tail may start: after a sentence's end or at a line's start
_TAIL_START = re.compile(r"(?:(?<=[.;·)])[ \t\xa0]+|(?<=\n)[ \t\xa0]*)(?=\S)")


def structural_tail(text: str) -> int:
    """Where the structural lines that end ``text`` begin (``len(text)`` where it ends with none): the earliest
    sentence or line start after which the text is nothing but repealed-article notes and capital headings of
    parts, chapters or sections. Never inside or before a quotation (a quoted «ΚΕΦΑΛΑΙΟ Λ΄ …» is an amendment's
    wording), and never the whole text: what comes before must be the article's own words."""
    end = len(text.rstrip())
    last_quote = max(text.rfind("«"), text.rfind("»"))
    for m in _TAIL_START.finditer(text):
        at = m.end()
        if at <= last_quote or not text[:at].strip():
            continue
        if _STRUCTURAL_TAIL.fullmatch(text, at, end):
            return at
    return len(text)


# a line that opens the amending article's next item with an instruction: «2. Στην παρ. 17 … προστίθεται … «17. …»
_NEXT_ITEM = re.compile(r"[ \t\xa0]*\n[ \t\xa0]*(?P<n>\d{1,3})[ \t\xa0]*\.[ \t\xa0]+(?P<line>[^«\n]{0,300})")
_ITEM_START = re.compile(r"(?m)^[ \t\xa0]*(\d{1,3})[ \t\xa0]*\.[ \t\xa0]")
_AMENDING_VERB = re.compile(r"(?<![\w])(?:αντικαθιστα|διαμορφωνε|τροποποιε|τροποποιου|συμπληρωνε|προστιθε|καταργει|"
                            r"καταργου|απαλειφ|διαγραφ)\w*")


# the instruction names its law («του ν. 4727/2020», «ΠΚ»): a numbered paragraph of new wording seldom does so
_LAW_CITED = re.compile(r"(?<![\w])(?:ν|π\.?δ|ν\.?δ|α\.?ν)\.\s*\d{1,5}\s*/\s*\d{4}|(?<![\w])(?:πκ|κπδ|ακ|κπολδ)(?![\w])")


def item_after(text: str, start: int, end: int) -> int | None:
    """Where an unclosed quotation opened at ``start`` ends (``end``, a line's end) because the next line opens the
    amending article's next item (numbered one above the item the quotation stands in) with an amending verb and a
    citation of a law before any quotation of its own; None otherwise."""
    if text[end - 1:end] == "»":
        return None
    m = _NEXT_ITEM.match(text, end)
    held = [int(x.group(1)) for x in _ITEM_START.finditer(text, 0, start)]
    if m is None or not held or int(m.group("n")) != held[-1] + 1:
        return None
    line = fold(m.group("line"))
    if not _AMENDING_VERB.search(line) or not _LAW_CITED.search(line):
        return None
    return end


def told_quote_spans(text: str) -> list[tuple[int, int]]:
    """The quotations as the instruction reader and the legal graph's reader take them: :func:`quote_spans`,
    except that a quotation the amending article never closes ends at the line before its next item where that
    item opens with an instruction of its own (ν. 4830/2021 art. 69: «1. … προστίθεται παρ. 4 ως εξής: «4. …»
    closed nowhere, then «2. Στην παρ. 17 … προστίθεται …»); the text after it is read again. Engine v5 read
    them so; the graph's extractor since v23 (v22 gave the next item's citations no edge: N_4727_2020::107 lacked
    ν. 4830/2021 art. 69's sentence). :func:`quote_spans` itself stays as it is: it is what a text's paragraphs,
    sentences and anchors are cut by."""
    spans = quote_spans(text)
    if not spans or text[spans[-1][1] - 1:spans[-1][1]] == "»":
        return spans
    start = spans[-1][0]
    for line in re.finditer(r"\n", text[start:]):
        end = start + line.start()
        while end > start and text[end - 1] in " \t\xa0":
            end -= 1
        if item_after(text, start, end) is not None:
            rest = [(a + end, b + end) for a, b in told_quote_spans(text[end:])]
            return [*spans[:-1], (start, end), *rest]
    return spans
