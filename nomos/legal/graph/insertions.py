"""Chapters an amending law inserts into another law, split by the corpus into articles of the amending law.

«Μετά από το άρθρο 108 του ν. 4442/2016 (Α’ 230) προστίθεται Κεφάλαιο ΙΘ’ ως εξής: «ΚΕΦΑΛΑΙΟ ΙΘ’ …» opens a
quotation in ν. 4796/2021's article 3 that the corpus closes only eleven articles later: the articles in between
(N_4796_2021::109 … ::120, numbered as ν. 4442/2016 numbers them) are ν. 4442/2016's new text. Read alone, their
bare «του άρθρου 7» and «του παρόντος» look like ν. 4796/2021's; they are ν. 4442/2016's. The extractor reads one
article at a time, so which law a corpus article's bare references point into is decided here, over a law's
articles in corpus order (v12 of the references, on the one error class every held-out batch from v8 to v11 found).

An article continues an insertion only where the numbers say so: the article before opened a quotation that
inserts articles into a named law and left it open, and this article's number is one of those it names («προστίθενται
άρθρα 96Α, 96Β και 96Γ») or the next after the insertion point («Μετά από το άρθρο 108 …»: 109, then 110, …). The
run ends after the article that closes the quotation, or at the first number that breaks the sequence: an article
replaced whole whose quotation the corpus never closes («Το άρθρο 13 … αντικαθίσταται ως εξής: «Άρθρο 13 …») is
followed by the amending law's own next article, which stays the amending law's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from nomos.legal.text.citations import sources_in
from nomos.legal.text.folding import fold

_QUOTE = re.compile("[«»]")
_INSERTS = re.compile(r"\bπροστιθε\w*")
_AFTER = re.compile(r"\bμετα\s+(?:απο\s+)?(?:το\s+)?αρθρο\s+(?P<n>\d+[α-ω]?)\b")
_NAMED = re.compile(r"\bαρθρ(?:ο|α)\s+(?P<list>\d+[α-ω]?(?:\s*(?:,|και)\s*\d+[α-ω]?)*)")
_NUMBER = re.compile(r"(?P<digits>\d+)(?P<letter>[α-ω]?)$")
_GREEK_LETTERS = "αβγδεζηθικλμνξοπρστυφχψω"
_CLAUSE = 400  # how far before the open quotation the inserting clause is read


@dataclass(frozen=True)
class Insertion:
    """An open quotation that inserts articles into ``host``: after article ``after`` (or None), the articles
    ``named`` (folded numbers, possibly none)."""

    host: str
    after: str | None
    named: frozenset[str]


def open_insertion(text: str) -> Insertion | None:
    """The insertion an article's text leaves open at its end, or None (every quotation closed, or the open one
    inserts no articles into a law the clause names)."""
    depth, opened = 0, -1
    for m in _QUOTE.finditer(text):
        if m.group() == "«":
            if depth == 0:
                opened = m.start()
            depth += 1
        elif depth:
            depth -= 1
    if not depth:
        return None
    folded = fold(text)
    begin = max(0, opened - _CLAUSE)
    clause = folded[begin:opened]
    verbs = list(_INSERTS.finditer(clause))
    if not verbs:
        return None
    laws = sources_in(folded, begin, opened)
    if not laws:
        return None
    after = _AFTER.search(clause)
    named = frozenset(n for m in _NAMED.finditer(clause, verbs[-1].start()) for n in re.split(r"\s*(?:,|και)\s*", m["list"]))
    if after is None and not named:
        return None
    return Insertion(laws[-1][0], after["n"] if after else None, named)


def closes_quotation(text: str) -> bool:
    """Whether ``text`` closes a quotation it did not open (the end of a run of inserted articles)."""
    depth = 0
    for m in _QUOTE.finditer(text):
        if m.group() == "«":
            depth += 1
        elif depth == 0:
            return True
        else:
            depth -= 1
    return False


def next_number(number: str) -> set[str]:
    """The numbers that may follow ``number`` in an inserted sequence: 108 → 109 or 108α; 7β → 7γ or 8."""
    m = _NUMBER.match(number)
    if not m:
        return set()
    digits, letter = int(m["digits"]), m["letter"]
    out = {str(digits + 1)}
    i = _GREEK_LETTERS.find(letter) if letter else -1
    if i + 1 < len(_GREEK_LETTERS):
        out.add(f"{digits}{_GREEK_LETTERS[i + 1]}")
    return out


def inserted_runs(articles: Iterable[tuple[str, str, str]]) -> Iterator[tuple[str, str]]:
    """(article id, host law) for every article that is another law's inserted text. ``articles`` are (id, law,
    text) in corpus order, ``law`` the law an article belongs to (its own source)."""
    rows = list(articles)
    for i, (_, law, text) in enumerate(rows):
        opened = open_insertion(text)
        if opened is None:
            continue
        expected = next_number(fold(opened.after)) if opened.after else set()
        for article_id, other_law, other_text in rows[i + 1:]:
            number = fold(article_id.split("::", 1)[-1])
            if other_law != law or not (number in opened.named or number in expected):
                break
            yield article_id, opened.host
            if closes_quotation(other_text):
                break
            expected = next_number(number)
