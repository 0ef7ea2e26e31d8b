"""An amending article's ``lead`` snippet opens on the new wording it quotes, not on its instruction (issue 51).

The second blind round lost three of its five lost pages to one thing, in the readers' words: a snippet that
«spends half the snippet on amendment boilerplate» («Στο άρθρο 2 του ν. 2696/1999 (Α’ 57): α) αναριθμούνται …»,
«Στην παρ. 2 του άρθρου 936 … προστίθεται τρίτο εδάφιο και το άρθρο 936 διαμορφώνεται ως εξής: «Άρθρο 936 …»),
where the other set showed the rule itself. A lawyer wants the rule first; where it comes from is in the hit's
title («… - Τροποποίηση του άρθρου 40 του Κ.Ο.Κ.»), which the page shows above the snippets.

So where the article's first sentence is an amending instruction (an amendment verb, then «ως εξής:» or the like
right before a quotation, before that sentence ends: one instruction or a list «α) … β) …» of them), its opening
is the first sentence of the first new wording it quotes, after a quoted heading «Άρθρο N» and its title
(:func:`~nomos.legal.text.article_parts.read_heading`, as the text in force reads a whole article's new wording).
The instruction is read with the text in force's own reader's pieces (:mod:`nomos.legal.inforce.reading`'s
amendment verbs and «ως εξής», on the folded text), not with patterns of the snippets' own; the quotations are
told by counting their marks (:func:`wording_start` says why).
Everything else (an article that says «ως εξής» in its own rule, «Οι αποδοχές υπολογίζονται ως εξής: α) …», one
whose text is a new wording without quotation, one whose quotation holds only a few words) keeps its opening.
"""

from __future__ import annotations

import re
from typing import Sequence

from nomos.legal.inforce.reading import AS_FOLLOWS, VERB
from nomos.legal.text.article_parts import SENTENCE_OPENS, Heading, abbreviation_before, read_heading
from nomos.legal.text.folding import fold
from nomos.pages import passages

INSTRUCTION = 2000  # how far into the article its opening instruction (a list of them included) is read
MIN_WORDING = 40  # a quotation with fewer characters of wording than this (a phrase, a title) is no opening
WORDING = 600  # how far past the first «ως εξής: «» its quotation is read (a heading, a title, a sentence)
TITLE = 200  # how far past a quoted heading's number its title may run into the first sentence on one line
# (not re.IGNORECASE: it reads a text ten times slower; an instruction in capitals is none the corpus has)
_FOLLOWS_RAW = re.compile(r"(?:εξ[ήη]ς|ακολο[ύυ]θως|κατωτ[έε]ρω|ακολουθο[ύυ]ν)\s*[:·.]?\s*«")
_DESCRIBED = re.compile(r"οπωσ\s+(?:\w+\s+)?$")  # «όπως τροποποιείται …»: a description, no instruction
# a stop before a capital or a numbered paragraph's line: a sentence's end, unless it abbreviates
_STOP = re.compile(r"[.;](?=\s+[«(]?[Α-ΩΆΈΉΊΌΎΏA-Z]|[ \t\xa0]*\n[ \t\xa0]*\d{1,3}[Α-Ωα-ω]?[ \t\xa0]*\.\s)")
_PARAGRAPH_OPENS = re.compile(r"[ \t\xa0]*(?:\d{1,3}[Α-Ωα-ω]?[ \t\xa0]*\.|[α-ω]{1,2}\))[ \t\xa0]")  # «1. », «α) »
_QUOTE_MARK = re.compile(r"[«»]")
_LOWER = re.compile(r"[α-ωάέήίόύώϊϋΐΰ]")
_CAPITAL_WORD = re.compile(r"(?<![\w.])[Α-ΩΆΈΉΊΌΎΏ]\w*")


def wording_start(text: str, start: int, end: int) -> int:
    """Where an amending article's opening begins in ``text`` (its own words ``text[start:end]``): at the first
    words of the new wording its first sentence quotes; ``start`` for any other article.

    The reader's pieces are matched on the folded text as the reader does (``AS_FOLLOWS``, ``VERB``), but not on
    its masked copy: :func:`~nomos.legal.inforce.items.mask` and the quotations' spans, Python loops over every
    character, tripled the cut's cost on a page of amending articles; here a place is inside a quotation where
    more «» open than close before it (``str.count``), and only a text with «ως εξής: «» (or the like) is read."""
    limit = min(end, start + INSTRUCTION)
    at = start
    for raw in _FOLLOWS_RAW.finditer(text, start, limit):
        q = raw.end() - 1  # the quotation's opening mark
        if _quoted(text, start, q):
            continue  # «ως εξής: «» inside a quotation: another law's words
        folded = fold(text[start:q])
        follows = AS_FOLLOWS.search(folded, max(0, raw.start() - start - 8))
        if follows is None or follows.end() != q - start:
            continue
        if _sentence_ends(text, at, raw.start(), start):
            return start  # past the article's first sentence: its own rule came first
        at = raw.start()
        if not any(not _quoted(text, start, start + v.start())
                   and not _DESCRIBED.search(folded, max(0, v.start() - 30), v.start())
                   for v in VERB.finditer(folded, 0, follows.start())):
            continue  # «… υπολογίζονται ως εξής: «…»»: no amendment verb before it
        inner_end = _quotation_end(text, q, min(end, q + WORDING))
        begin = _after_heading(text, q + 1, inner_end)
        while begin < inner_end and text[begin].isspace():
            begin += 1
        if inner_end - begin < MIN_WORDING or not _LOWER.search(text, begin, inner_end):
            continue  # a few words, a title, a chapter's heading in capitals: the next quotation may hold a rule
        return begin
    return start


def _quoted(text: str, start: int, at: int) -> bool:
    """Whether ``at`` is inside a quotation opened after ``start``."""
    return text.count("«", start, at) > text.count("»", start, at)


def _quotation_end(text: str, q: int, limit: int) -> int:
    """The end of the words of the quotation opened at ``q`` (before its closing mark; ``limit`` where it does
    not close before it), nested quotations inside it."""
    depth = 0
    for m in _QUOTE_MARK.finditer(text, q, limit):
        depth += 1 if m.group() == "«" else -1
        if depth == 0:
            return m.start()
    return limit


def instruction(text: str, own: int, start: int, found: Sequence[passages._Mark]) -> tuple[int, int] | None:
    """The second snippet of an amending article none of whose marks fall past its opening but some in its
    instruction (``text[own:start]``, ``start`` where its new wording begins): the instruction, where the rule
    comes from, cut at a word's end within a passage's size (the query's words stay marked as often as the
    instruction first showed them). None for any other article."""
    if start <= own or not any(own <= m.start and m.end <= start for m in found):
        return None
    end = text.rfind("«", own, start)  # the new wording's opening mark is not shown
    end = end if end > own else start
    if end - own > passages.SIZE:
        space = text.rfind(" ", own, own + passages.SIZE + 1)
        end = space if space > own else own + passages.SIZE
    while end > own and text[end - 1].isspace():
        end -= 1
    return own, end


def unquoted_end(text: str, start: int, end: int) -> int:
    """An opening's end without the closing mark of the quotation it was cut from («… με φυλάκιση.»» ends at
    «φυλάκιση.»: its opening mark is not shown)."""
    closing = 2 if text[end - 2:end] in ("».", "»;") else 1 if text[end - 1:end] == "»" else 0
    if closing and text.count("»", start, end) > text.count("«", start, end):
        return end - closing  # «… με ισόβια κάθειρξη.».»: the stop inside the quotation ends it
    return end


def _sentence_ends(text: str, at: int, limit: int, start: int) -> bool:
    """Whether a sentence ends in ``text[at:limit]`` outside the quotations opened after ``start``: a stop before
    a capital or a numbered paragraph's line that ends no abbreviation («ν.», «παρ.», «Κ.Ο.Κ.»)."""
    for m in _STOP.finditer(text, at, limit):
        if _quoted(text, start, m.start()):
            continue
        if abbreviation_before(text, m.start()):
            continue
        return True
    return False


def _after_heading(text: str, at: int, end: int) -> int:
    """Where a quoted new wording's text begins after its heading «Άρθρο N» and title: as the text in force reads
    it where its end is certain (a line's end, an inline «1.»); else before the first capitalised word a sentence
    opens with («Άρθρο 191 Διασπορά ψευδών ειδήσεων Όποιος …», not past a colon: «Άρθρο 544 Αναψηλάφηση
    επιτρέπεται μόνο: 1) Αν …»); else after the number (its title then shown with it). ``at`` where it has no
    heading."""
    wording = text[at:end]
    heading = read_heading(wording)
    if heading is None:
        return at
    if isinstance(heading, Heading):
        return at + heading.body_start
    number = re.match(r"\s*\S+\s+\S+\s*", wording)  # «Άρθρο 191 »: read_heading matched it
    after = number.end() if number else 0
    line = wording[after:after + TITLE].split("\n", 1)[0]
    if after + len(line) < len(wording) and _PARAGRAPH_OPENS.match(wording, after + len(line) + 1):
        return at + after + len(line) + 1  # a title ending with a stop («… και Ε.Π.Η.Ο.»), then «1. …» on its line
    for m in _CAPITAL_WORD.finditer(line, 1):
        if re.search(r"[:;·]", line[:m.start()]):
            break
        if SENTENCE_OPENS.match(fold(line[m.start():]) + " ") or fold(m.group()) in _RULE_OPENS:
            return at + after + m.start()
    return at + after


_RULE_OPENS = frozenset({"οποιοσ", "οπου", "καθε", "οι", "ολοι", "εαν", "ουδεισ", "κανενασ", "εκεινοσ", "οσοι"})
