"""Snippets that keep the article's opening in view (issue 51, the second blind round; ``NOMOS_SNIPPETS=lead``).

The first blind round put ``whole`` (each text marked whole by the highlighter, ``number_of_fragments: 0``, two
passages cut around the marks in Python) against the sentence scanner's snippets: no worse on 33 of 42 pages, under
the issue's 90%. What decided pages, in the readers' notes, was an article's defining sentence: a snippet that
opened with the first paragraph's own words («Όποιος …», «Τηλεργασία είναι …») won over one that showed only an
aggravation, a closing clause or a fragment cut mid-phrase. So ``lead`` asks the node for what ``whole`` asks (its
CPU) and cuts, from each marked text:

1. **the opening**: the first sentence of the article's own text (:func:`body`: after the end of a cut title the
   corpus writes as its first line, before the structural lines, the chapter headings and repeal notes, and a law's
   closing formula it glues to an article's end, as the text in force leaves them out), ended at its sentence's end
   (an abbreviation's stop, «ν.», «παρ.», ends none; nor a stop inside a quotation); a sentence longer than
   ``OPENING_END`` is cut at a clause's end («,», «·», «:») or a word's end before ``OPENING``. The query's marks
   stay where they fall in it. A list's lead-in («Σκοπός του νόμου αυτού είναι:») or a sentence under
   ``MIN_OPENING`` runs on into the next one. The page, the command line and the API's callers show every snippet
   as «… snippet …»: that is the «…» where it is cut;
2. **the best marked passage after it**, as ``whole`` chooses its first (:func:`nomos.pages.passages._choose`,
   one fragment: the window with the most distinct query words) among the marks past the opening, begun no earlier
   than the opening's end (it never repeats it);
3. where nothing past the opening is marked (or nothing at all), **the next sentence** instead, cut at a word's end
   within ``SIZE``.

A hit the highlighter found no word in comes back as its text's first ``passages.LEAD_NO_MATCH`` characters (``no_match_size``;
``whole`` asks 180) so that its opening and next sentence can be cut from it. The marks are only ever the
highlighter's, and the stage's own-word check (:mod:`nomos.pages.marks`) runs over them as over every mode's; a
citation query's named article gets its number marked where its snippet says it (:func:`cited_number`), never
elsewhere.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Sequence

from nomos.legal.inforce.law_end import law_end
from nomos.legal.inforce.title_tail import title_tail
from nomos.legal.text import stemming
from nomos.legal.text.article_parts import abbreviation_before, paragraph_body, sentences, structural_tail
from nomos.legal.text.folding import fold
from nomos.pages import lead_amending, passages
from nomos.pages.marks import own_word
from nomos.retrieval.base import Hit

OPENING = 200  # the opening's bound where its sentence runs on: cut at a clause's or word's end before it
OPENING_END = 300  # a first sentence that ends within this many characters is shown whole
MIN_OPENING = 60  # an opening shorter than this (a heading-like line, a list's lead-in) runs on into the next sentence
CLAUSE = 80  # how far before the bound a clause's end is looked for, before a word's end is taken
LOOK_BACK = 200  # how far before its first marked word a passage may begin, at its sentence's start
AFTER_MARK = 60  # the least a passage shows after its first marked word (one begun far back runs on so long)
SENTENCE_END = 240  # a passage cut inside a sentence shows a sentence begun inside it whole, if it ends within this
SCAN_PAST = 40  # a sentence is read this far past its bound (the stop then needs a capital after it)
TAIL_SCAN = 4000  # the structural lines are looked for in a text's last characters (they are a few lines)
_CLAUSE_END = re.compile(r"[,·;:](?=\s)")
_FIRST_PARAGRAPH = re.compile(r"(?<=[^\W\d])[ \t\xa0]+(?=1\.[ \t\xa0]+[«(]?[Α-ΩΆΈΉΊΌΎΏ])")  # «… ενώσεων 1. Το …»
_SENTENCE_MARK = re.compile(r"[.;·:!?»](?=\s+[Α-ΩΆΈΉΊΌΎΏ«])")  # a sentence's end before a title's end is none
# what every structural line holds (a repeal note's «(Καταργείται)», a heading's «ΚΕΦΑΛΑΙΟ», a section's «ΙΙ. »): a
# text's end without any has none (structural_tail, a Python loop over its sentences, is not run)
_STRUCTURAL_WORD = re.compile(r"\([Κκ]αταργ|ΚΕΦΑΛΑΙΟ|ΜΕΡΟΣ|ΤΜΗΜΑ|ΤΙΤΛΟΣ|ΒΙΒΛΙΟ|[IVXΙ]\.\s")


# an amending article's cut title runs on into its text's first line («του άρθρου 5 του ν. 3846/2010 Το άρθρο 5 …»,
# «Τροποποίηση της παρ. 2 του άρθρου 227 του ΚΠολΔ Στην παρ. 2 …»): a line that opens with a small letter or with
# the title's «Τροποποίηση …» whose citation ends right before a capitalised article or preposition that opens the
# text's first sentence (a title writes those in small letters)
_TITLE_RUNS_ON = re.compile(r"[α-ωάέήίόύώϊϋΐΰ]|(?:Τροποποίηση|Αντικατάσταση|Κατάργηση|Προσθήκη|Συμπλήρωση)\s")
_TEXT_OPENS = re.compile(r"(?:\d{4}|\)|[Α-Ω]{2,}[α-ω]*[Α-Ω]|[Α-Ω]{2,})[ \t\xa0]+(?=(?:Το|Η|Ο|Οι|Τα|Τον|Την|Στο|Στη|Στην|"
                         r"Στα|Στον|Στις|Στους|Από|Με|Για|Μετά|Κατά|Αν|Εφόσον|Όταν|Όποιος|Κάθε|Προστίθεται|Προστίθενται|"
                         r"Αντικαθίσταται|Αντικαθίστανται|Τροποποιείται|Τροποποιούνται|Καταργείται|Καταργούνται|"
                         r"Συστήνεται|Κυρώνεται)[ \t\xa0])")


def _title_runs_on(text: str) -> int:
    """Where the text begins after an amending article's cut title on its first line (0 where it is not so read):
    the first capitalised opener right after a year, a bracket or a code's capitals, in the line's first 300
    characters and before any sentence's end."""
    if not _TITLE_RUNS_ON.match(text):
        return 0
    line = text[:300].split("\n", 1)[0]
    m = min(filter(None, (_TEXT_OPENS.search(line), _FIRST_PARAGRAPH.search(line))), key=lambda f: f.start(),
            default=None)
    if m is None or any(e.group() != "." or not abbreviation_before(line, e.start())
                        for e in _SENTENCE_MARK.finditer(line, 0, m.start())):
        return 0
    return m.end()


def body(text: str) -> tuple[int, int]:
    """Where the article's own words begin and end in ``text``: after a cut title's end that the corpus writes as
    its first line (:func:`~nomos.legal.inforce.title_tail.title_tail`), before the code's structural lines
    (:func:`~nomos.legal.text.article_parts.structural_tail`) and a law's closing (:func:`law_end`) glued to its
    end, as the text in force leaves them out (``nomos.legal.inforce.engine.original_in_force``)."""
    start = title_tail(text)
    if text.count("«", 0, start) > text.count("»", 0, start):
        # a first line that opens a quotation is an amending article's instruction («… διαμορφώνεται ως εξής:
        # «Άρθρο 372 Κλοπή»), not its title's end: it says what the article does, in the query's words
        start = 0
    start = start or _title_runs_on(text)
    base = max(0, len(text) - TAIL_SCAN)  # the tail is read in the last characters: a long text is not scanned whole
    tail = text[base:]
    end = base + (structural_tail(tail) if _STRUCTURAL_WORD.search(tail) else len(tail))
    if "Παραγγέλλομε" in text:  # the enactment formula (law_end reads every quotation: only where it can be)
        end = min(end, law_end(text))
    while start < end and text[start].isspace():
        start += 1
    if start >= end:  # nothing of its own left (never so for the corpus's readers; kept safe)
        return 0, len(text)
    return start, end


def _sentence_end(text: str, at: int, limit: int) -> int:
    """The end of the sentence that begins at ``at`` (within its line; ``limit`` where it runs on past it)."""
    line_end = text.find("\n", at, limit)
    line_end = limit if line_end < 0 else line_end
    line = text[at:line_end]
    number = paragraph_body(line)  # «2. Αν …»: a paragraph's number is no sentence of its own
    spans = sentences(line, number).spans
    return at + spans[0][1] if spans else line_end


def _skip_space(text: str, at: int, end: int) -> int:
    while at < end and text[at].isspace():
        at += 1
    return at


def _word_cut(text: str, start: int, bound: int, clause: bool) -> int:
    """Where a passage from ``start`` longer than ``bound`` is cut: after a clause's end in the last ``CLAUSE``
    characters before the bound (``clause``), else at the last word's end before it."""
    if clause:
        ends = [m.end() for m in _CLAUSE_END.finditer(text, max(start, bound - CLAUSE), bound)]
        if ends:
            return ends[-1]
    space = max(text.rfind(" ", start, bound + 1), text.rfind("\n", start, bound + 1))
    return space if space > start else bound


def _passage_start(text: str, first: int, after: int) -> int:
    """Where a passage whose first marked word begins at ``first`` begins: at the last line's or sentence's start in
    the ``LOOK_BACK`` characters before it (a stop after an abbreviation, «ν.», «παρ.», starts none; «ζώων.», «έτη.»
    do, which ``whole``'s four-letter rule missed), else at a clause's start in the ``passages.LEAD`` before it,
    else a few words before it; never before ``after`` (the opening's end: it never repeats the opening)."""
    lo = max(after, first - LOOK_BACK)
    start = -1
    for m in passages._BREAK.finditer(text, lo, first):
        if text[m.start()] == "\n" or not abbreviation_before(text, m.start()):
            start = m.end()
    if start < 0:
        clauses = [m.end() for m in _CLAUSE_END.finditer(text, max(after, first - passages.LEAD), first)]
        if clauses:
            start = clauses[-1]
        else:
            gap = text.find(" ", max(after, first - passages.CONTEXT), first)
            start = gap + 1 if gap >= 0 else max(after, first - passages.CONTEXT)
    return _skip_space(text, start, first)


def _inner_start(text: str, first: int, last: int) -> int:
    """The first sentence's or line's start after the marked word at ``first`` and before ``last``, in the first
    half of a passage (0 where there is none): a window whose first mark ends the sentence before the one it
    bears on («… στοιχείο Γ΄. 18. Δεν επιτρέπεται …»)."""
    for m in passages._BREAK.finditer(text, first, min(last, first + passages.SIZE // 2)):
        if text[m.start()] == "\n" or not abbreviation_before(text, m.start()):
            return _skip_space(text, m.end(), last)
    return 0


def _passage_end(text: str, at: int, end: int) -> int:
    """Where a passage begun at ``at`` ends: at a line's or sentence's end in its last ``passages.ENDING``
    characters before ``SIZE``, else at a word's end."""
    limit = at + passages.SIZE
    if limit >= end:
        return end
    stops = [m.start() + 1 for m in passages._BREAK.finditer(text, max(at, limit - passages.ENDING), limit)
             if passages._ends(text, m.start())]
    return stops[-1] if stops else _word_cut(text, at, limit, False)


def _whole_sentence(text: str, a: int, b: int, end: int, found: list[passages._Mark]) -> tuple[int, int]:
    """A passage cut inside a sentence («… 2000 (Α΄ 248) «κύρωση του κώδικα φόρου …». 2. Όταν … τιμές, αυτές
    πρέπει να αναγράφονται σαφώς και»): the first sentence that begins inside it instead, whole, where it ends
    within ``SENTENCE_END`` and shows as many of the query's distinct words (the clause that mattered, «… αν
    περιλαμβάνουν φόρο και έξοδα», is then not cut off)."""
    if b >= end or text[b - 1] in ".;·!?" or text[b:b + 1] == "\n":
        return a, b
    shown = {m.stem for m in found if a <= m.start and m.end <= b}
    for m in passages._BREAK.finditer(text, a, b):
        if text[m.start()] != "\n" and abbreviation_before(text, m.start()):
            continue
        s = _skip_space(text, m.end(), b)
        e = _sentence_end(text, s, min(end, s + SENTENCE_END + SCAN_PAST))
        if passages.MIN_PASSAGE <= e - s <= SENTENCE_END \
                and len({m.stem for m in found if s <= m.start and m.end <= e}) >= len(shown):
            return s, e
    return a, b


def opening(text: str, start: int, end: int) -> tuple[int, int, bool]:
    """The opening of the article's words ``text[start:end]``: (its start, its end, whether it is whole: it ends
    at its sentence's end, not cut at the bound)."""
    limit = min(end, start + OPENING_END + SCAN_PAST)  # a sentence running past it is cut at OPENING anyway
    at = stop = start
    while at < limit:
        stop = _sentence_end(text, at, limit)
        shown = text[start:stop].rstrip()
        if stop - start > OPENING_END:
            return start, _word_cut(text, start, start + OPENING, True), False
        if len(shown) >= MIN_OPENING and not shown.endswith(":"):
            break
        at = _skip_space(text, stop, limit)
    return start, stop, True


def next_sentence(text: str, at: int, end: int) -> tuple[int, int] | None:
    """The sentence after ``at`` (cut at a word's end within ``SIZE``), or None where the text has no more."""
    at = _skip_space(text, at, end)
    if end - at < passages.MIN_PASSAGE // 2:
        return None
    stop = _sentence_end(text, at, min(end, at + passages.SIZE + SCAN_PAST))
    if stop - at > passages.SIZE:
        stop = _word_cut(text, at, at + passages.SIZE, False)
    return at, stop


def spans(text: str, found: list[passages._Mark]) -> list[tuple[int, int]]:
    """The (start, end) of a text's snippets: its opening, then its best marked passage after it or its next
    sentence."""
    own, end = body(text)
    start = lead_amending.wording_start(text, own, end)  # an amending article's: its new wording's first words
    lo, hi, whole = opening(text, start, end)
    hi = lead_amending.unquoted_end(text, lo, hi)
    out = [(lo, hi)]
    after = [m for m in found if m.start >= hi and m.end <= end]
    if after:
        _, _, first, i, j = min(passages._scored(after))  # the window with the most distinct words, as whole's first
        a = _passage_start(text, first, hi)
        budget = passages.SIZE + 2 * AFTER_MARK
        if after[j - 1].end - a > budget:  # begun too far back for its window: at a sentence's start inside it
            a = _inner_start(text, first, after[j - 1].start) or a
        # it holds its window's marks where they fit (else its first), and some words after them
        last = after[j - 1].end if after[j - 1].end - a <= budget else after[i].end
        b = min(max(_passage_end(text, a, end), _word_cut(text, last, last + AFTER_MARK // 2, False)), end)
        a, b = _whole_sentence(text, a, b, end, after)
        if b - a >= passages.MIN_PASSAGE:
            return [*out, (a, b)]
    more = lead_amending.instruction(text, own, start, found) if not after else None
    more = more or (next_sentence(text, hi, end) if whole or not after else None)
    return [*out, more] if more else out


def cut(marked: str, query: str | None = None) -> tuple[str, ...]:
    """A text the highlighter marked whole (html, <mark> around the query's words; or the ``no_match_size`` start of
    one with none) as its snippets: :func:`spans`, the marks kept. With ``query``, the passage is chosen by the
    marks the page will keep (:func:`nomos.pages.marks.own_marks`: «όλους» is no mark of «όλη»)."""
    if not marked.strip():
        return ()
    text, every = passages.unmark(marked)
    # a word's forms count once, as the index reads them («σκύλος», «σκύλου»): the passage with the most of the
    # query's distinct words is then the one with «δεμένος», «σκύλος» and «αλυσίδα», not three forms of «σκύλος»;
    # each distinct word as written is read once (a long article marks the same words hundreds of times)
    stems: dict[str, str | None] = {}  # a marked word -> its stem, None where it is no word of the query's own
    found = []
    for m in every:
        word = text[m.start:m.end]
        if word not in stems:
            stems[word] = stemming.stem(fold(m.stem)) if query is None or own_word(word, query) else None
        stem = stems[word]
        if stem is not None:
            found.append(passages._Mark(m.start, m.end, stem))
    pieces = (marked[passages.html_at(every, lo):passages.html_at(every, hi)].strip() for lo, hi in spans(text, found))
    return tuple(p for p in pieces if p)


def cited_number(hits: Sequence[Hit], named: dict[str, str]) -> list[Hit]:
    """The hits with a named article's number marked where its own snippets say it is theirs (``named``: the
    article's id -> its number): a heading «Άρθρο 372» at a snippet's or a line's start or a quotation's, or
    «άρθρο 372 του παρόντος»; nowhere else (an «άρθρο 5 του ν. 3846/2010» is no mark of the cited article 5 of
    another law), and no other hit's (the query names the one article)."""
    out = []
    for h in hits:
        number = named.get(h.doc_id)
        if number and h.highlights:
            n = re.escape(number)
            heading = re.compile(rf"((?:^|\n|«)\s*(?:<mark>)?(?:Άρθρο|ΑΡΘΡΟ)(?:</mark>)?\s+)({n})(?![\w<])")
            own = re.compile(rf"((?<!\w)(?:<mark>)?άρθρ(?:ο|ου)(?:</mark>)?\s+)({n})(?=\s+του\s+παρόντος)")
            marked = tuple(own.sub(_number, heading.sub(_number, f)) for f in h.highlights)
            h = replace(h, highlights=marked)
        out.append(h)
    return out


def _number(m: re.Match[str]) -> str:
    return f"{m.group(1)}<mark>{m.group(2)}</mark>"
