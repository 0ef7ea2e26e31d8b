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
The instruction is read with the text in force's own reader (:mod:`nomos.legal.inforce.reading`'s verbs and
«ως εξής», :mod:`nomos.legal.inforce.items`' quotations and masking), not with patterns of the snippets' own.
Everything else (an article that says «ως εξής» in its own rule, «Οι αποδοχές υπολογίζονται ως εξής: α) …», one
whose text is a new wording without quotation, one whose quotation holds only a few words) keeps its opening.
"""

from __future__ import annotations

import re
from typing import Sequence

from nomos.legal.inforce.items import mask, quotes
from nomos.legal.inforce.reading import AS_FOLLOWS, VERB
from nomos.legal.text.article_parts import _ABBREVIATIONS as ABBREVIATIONS
from nomos.legal.text.article_parts import _SENTENCE_OPENS as SENTENCE_OPENS
from nomos.legal.text.article_parts import Heading, read_heading
from nomos.legal.text.folding import fold
from nomos.pages import passages

INSTRUCTION = 2000  # how far into the article its opening instruction (a list of them included) is read
MIN_WORDING = 40  # a quotation with fewer characters of wording than this (a phrase, a title) is no opening
TITLE = 200  # how far past a quoted heading's number its title may run into the first sentence on one line
_DESCRIBED = re.compile(r"οπωσ\s+(?:\w+\s+)?$")  # «όπως τροποποιείται …»: a description, no instruction
# a stop before a capital or a numbered paragraph's line: a sentence's end, unless it abbreviates
_STOP = re.compile(r"[.;](?=\s+[«(]?[Α-ΩΆΈΉΊΌΎΏA-Z]|[ \t\xa0]*\n[ \t\xa0]*\d{1,3}[Α-Ωα-ω]?[ \t\xa0]*\.\s)")
_WORD_BEFORE = re.compile(r"(?<!\w)\w+$")
_PARAGRAPH_OPENS = re.compile(r"[ \t\xa0]*(?:\d{1,3}[Α-Ωα-ω]?[ \t\xa0]*\.|[α-ω]{1,2}\))[ \t\xa0]")  # «1. », «α) »
_LOWER = re.compile(r"[α-ωάέήίόύώϊϋΐΰ]")
_CAPITAL_WORD = re.compile(r"(?<![\w.])[Α-ΩΆΈΉΊΌΎΏ]\w*")


def wording_start(text: str, start: int, end: int) -> int:
    """Where an amending article's opening begins in ``text`` (its own words ``text[start:end]``): at the first
    words of the new wording its first sentence quotes; ``start`` for any other article."""
    window = text[start:min(end, start + INSTRUCTION)]
    if "«" not in window:
        return start
    masked = mask(window)  # folded, the quotations' insides blanked: a verb quoted is no instruction
    limit = _first_sentence_end(window, masked)
    verbs = [v for v in VERB.finditer(masked, 0, limit) if not _DESCRIBED.search(masked, max(0, v.start() - 30),
                                                                                 v.start())]
    if not verbs:
        return start
    spans = {a: b for a, b in quotes(window)}
    for follows in AS_FOLLOWS.finditer(masked, verbs[0].end(), limit):
        q = follows.end()
        if q not in spans:
            continue  # «ως εξής:» with no quotation after it (a list of the article's own)
        b = spans[q]
        inner_end = b - 1 if window[b - 1:b] == "»" else b
        at = _after_heading(window, q + 1, inner_end)
        while at < inner_end and window[at].isspace():
            at += 1
        if inner_end - at < MIN_WORDING or not _LOWER.search(window, at, inner_end):
            continue  # a few words, a title, a chapter's heading in capitals: the next quotation may hold a rule
        return start + at
    return start


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


def _first_sentence_end(window: str, masked: str) -> int:
    """The end of the window's first sentence outside its quotations (its length where it runs on past it): a
    stop before a capital that ends no abbreviation («ν.», «παρ.», «Κ.Ο.Κ.»)."""
    for m in _STOP.finditer(window):
        if masked[m.start()] not in ".;":
            continue  # inside a quotation (masked blank)
        word = _WORD_BEFORE.search(window, max(0, m.start() - 12), m.start())
        if word is not None and (len(word.group()) <= 2 or fold(word.group()) in ABBREVIATIONS):
            continue
        return m.start()
    return len(window)


def _after_heading(window: str, at: int, end: int) -> int:
    """Where a quoted new wording's text begins after its heading «Άρθρο N» and title: as the text in force reads
    it where its end is certain (a line's end, an inline «1.»); else before the first capitalised word a sentence
    opens with («Άρθρο 191 Διασπορά ψευδών ειδήσεων Όποιος …», not past a colon: «Άρθρο 544 Αναψηλάφηση
    επιτρέπεται μόνο: 1) Αν …»); else after the number (its title then shown with it). ``at`` where it has no
    heading."""
    wording = window[at:end]
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
