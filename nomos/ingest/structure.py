"""The place of each article in its law: the law's title and the part, chapter and section headings above it.

The corpus has no structure field. It glues a law's structural headings («ΜΕΡΟΣ Β΄ …», «ΚΕΦΑΛΑΙΟ Γ΄ …», «ΙΙ.
ΕΓΚΛΗΜΑΤΑ ΚΑΤΑ …») to the end of the article *before* the articles they head; :func:`structural_tail` finds where
those lines begin. Reading them in order, as a reader of the printed law turns its pages, gives every article the
headings in force above it: a context a search result can show and an index can store, with the article's own
text left exactly as the corpus has it (the consolidation engine and the graph read that text).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from nomos.ingest.records import Article
from nomos.legal.text.article_parts import structural_tail
from nomos.legal.text.folding import fold

SEPARATOR = " · "

# outermost first: a heading clears every deeper level (a new ΜΕΡΟΣ ends the chapter before it); keys folded
LEVELS: dict[str, int] = {"βιβλιο": 0, "μεροσ": 1, "τιτλοσ": 2, "κεφαλαιο": 3, "υποκεφαλαιο": 4, "τμημα": 5}
ROMAN_LEVEL = 6  # «ΙΙ. ΕΓΚΛΗΜΑΤΑ ΚΑΤΑ ΤΗΣ ΠΕΡΙΟΥΣΙΑΣ»: the Penal Code's sections inside a chapter

# «ΔΕΚΑΤΟ ΤΡΙΤΟ ΚΕΦΑΛΑΙΟ», «ΜΕΡΟΣ ΠΕΜΠΤΟ», «ΤΙΤΛΟΣ ΠΡΩΤΟΣ», folded (no accents, final sigma as σ)
_ORDINAL = re.compile(r"(?:πρωτ|δευτερ|τριτ|τεταρτ|πεμπτ|εκτ|εβδομ|ογδο|εν?νατ|δεκατ|ενδεκατ|δωδεκατ|εικοστ"
                      r"|τριακοστ|τεσσαρακοστ|πεντηκοστ)(?:ο|οσ|η)")
# a heading word's number: «Β΄», «ΙΒ’», «Α’ΓΕΝΙΚΕΣ» (no space after it), «B’» (Latin), «II», «ΙΧ», «3»
_NUMBER = re.compile(r"[Α-ΩA-Z]{1,4}[΄’'`ʹ]|(?:[IVXΙΧ]{1,6}|\d{1,3})[.:,]?$")
# «Άρθρα 382 - 384 (Καταργούνται)», «Άρθρο 5 (Καταργείται)»: whatever its brackets say, such a note heads nothing
_REPEALED_NOTE = re.compile(r"Άρθρ[οα]\s+\d{1,4}[Α-Ω]{0,2}(?:\s*[-–]\s*\d{1,4}[Α-Ω]{0,2})?\s*\([^()]*\)")
_ROMAN = re.compile(r"[IVXΙΧ]{1,6}\.")
_CAPITAL = re.compile(r"[Α-ΩΆΈΉΊΌΎΏA-Z]")


def _mark(word: str) -> int | None:
    """The level a heading word names («ΚΕΦΑΛΑΙΟ» → 3), None for any other word."""
    return LEVELS.get(fold(word))


def _ordinal(word: str) -> bool:
    return _ORDINAL.fullmatch(fold(word)) is not None


def _number_after(words: list[str], i: int) -> bool:
    """Whether a number follows the heading word ``words[i]``: «ΚΕΦΑΛΑΙΟ Β΄», «ΜΕΡΟΣ ΠΕΜΠΤΟ», but not the ordinal of
    the next heading word («ΕΙΔΙΚΟ ΜΕΡΟΣ ΠΡΩΤΟ ΚΕΦΑΛΑΙΟ ΠΡΟΣΒΟΛΕΣ»: the ΠΡΩΤΟ is the chapter's)."""
    nxt = words[i + 1] if i + 1 < len(words) else ""
    if _NUMBER.match(nxt):
        return True
    return _ordinal(nxt) and not (i + 2 < len(words) and _mark(words[i + 2]) is not None
                                  and _own_ordinals(words, i + 2) > 0)


def _own_ordinals(words: list[str], i: int) -> int:
    """How many ordinal words before the heading word ``words[i]`` are its number («ΔΕΚΑΤΟ ΤΡΙΤΟ ΚΕΦΑΛΑΙΟ»: 2);
    none when they follow another heading word and this one has its own number («ΜΕΡΟΣ ΔΕΥΤΕΡΟ ΚΕΦΑΛΑΙΟ Α΄»)."""
    n = 0
    while i - n > 0 and n < 3 and _ordinal(words[i - n - 1]):
        n += 1
    if n and i - n > 0 and _mark(words[i - n - 1]) is not None and _number_after(words, i):
        return 0
    return n


def _starts(words: list[str]) -> list[tuple[int, int]]:
    """Where headings begin in one run of heading words, as (word index, level).

    A heading word opens a heading only with a number after it or ordinals before it: «ΚΑΤΑ ΤΟ ΜΕΡΟΣ ΠΟΥ ΑΦΟΡΑ» and
    «ΕΙΔΙΚΟ ΜΕΡΟΣ» (the Penal Code's second book is titled so) are a heading's words. A Roman numeral right after a
    heading word without ordinals is that word's number («ΤΜΗΜΑ ΙΙ»); after «ΤΕΤΑΡΤΟ ΚΕΦΑΛΑΙΟ» it opens a section."""
    found: list[tuple[int, int]] = []
    for i, word in enumerate(words):
        level = _mark(word)
        if level is not None:
            own = _own_ordinals(words, i)
            if own or i == 0 or _number_after(words, i):
                found.append((i - own, level))
        elif (_ROMAN.fullmatch(word) and i + 1 < len(words) and _CAPITAL.match(words[i + 1])
              and not (i > 0 and _mark(words[i - 1]) is not None and not _own_ordinals(words, i - 1))):
            found.append((i, ROMAN_LEVEL))
    return found


def heading_lines(tail: str) -> list[tuple[int, str]]:
    """The headings in a structural tail (``text[structural_tail(text):]``), in order, as (level, heading text on
    single spaces); levels run ΒΙΒΛΙΟ 0 < ΜΕΡΟΣ 1 < ΤΙΤΛΟΣ 2 < ΚΕΦΑΛΑΙΟ 3 < ΥΠΟΚΕΦΑΛΑΙΟ 4 < ΤΜΗΜΑ 5 < Roman 6.

    A heading runs to the next one: a tail may hold several («ΜΕΡΟΣ Β΄ … ΚΕΦΑΛΑΙΟ Α΄ …»), or a number alone
    («ΚΕΦΑΛΑΙΟ Β΄»: the corpus lost its words), which is still the heading in force. Notes of repealed articles
    («Άρθρα 382 - 384 (Καταργούνται)») head nothing: they are dropped, and end the heading before them."""
    out: list[tuple[int, str]] = []
    for run in _REPEALED_NOTE.split(tail):
        words = run.split()
        starts = _starts(words)
        if words and (not starts or starts[0][0] > 0):
            # words before the first start still open a heading (structural_tail began the tail at a mark)
            before = words[:starts[0][0]] if starts else words
            lead = next((lv for lv in map(_mark, before) if lv is not None), None)
            if lead is not None:
                starts.insert(0, (0, lead))
        for k, (at, level) in enumerate(starts):
            end = starts[k + 1][0] if k + 1 < len(starts) else len(words)
            out.append((level, " ".join(words[at:end])))
    return out


def source_key(article: Article) -> str:
    """The law whose headings an article reads: its ``source``, else its id's prefix before «::»."""
    return article.source or article.id.split("::", 1)[0]


def law_title(article: Article) -> str:
    """The article's law title on single spaces (the corpus has doubled and no-break spaces in some)."""
    return " ".join(article.law.split())


def _number_key(article: Article) -> tuple[int, str]:
    m = re.match(r"(\d+)(.*)", article.number)
    return (int(m.group(1)), fold(m.group(2))) if m else (0, fold(article.number))


def reading_order(law: Sequence[Article]) -> list[Article]:
    """One law's articles in the order its printed text has them: the corpus order, save for articles the corpus
    lists before the law's article 1 (it puts 24 of ν. 4781/2021's, most ending in headings, ahead of all the
    others). Each goes back before the first later article numbered above it; read where they stand, their headings
    would head the wrong articles. Elsewhere corpus order is kept even where numbers fall back: an amending law's
    articles stand among the articles of the chapters they insert into another law, in the order printed."""
    first = next((k for k, a in enumerate(law) if k and _number_key(a) == (1, "")), None)
    if first is None:
        return list(law)
    order = list(law[first:])
    for moved in sorted(law[:first], key=_number_key):
        at = next((k for k, a in enumerate(order) if _number_key(a) > _number_key(moved)), len(order))
        order.insert(at, moved)
    return order


def law_context(articles: Sequence[Article]) -> dict[str, str]:
    """For every article id, what a reader of the printed law sees above the article: the law's title, then the
    headings in force there, outermost first, joined with " · ".

    A heading at the end of an article heads the articles after it: it replaces the heading of its level and clears
    every deeper one. Each law (``source``, else the id's prefix) is read on its own, in :func:`reading_order`, so
    articles of another law in between neither see nor reset its headings."""
    laws: dict[str, list[Article]] = {}
    for article in articles:
        laws.setdefault(source_key(article), []).append(article)
    contexts: dict[str, str] = {}
    for law in laws.values():
        stack: dict[int, str] = {}
        for article in reading_order(law):
            parts = [law_title(article)] + [stack[level] for level in sorted(stack)]
            contexts[article.id] = SEPARATOR.join(p for p in parts if p)
            for level, heading in heading_lines(article.text[structural_tail(article.text):]):
                for deeper in [lv for lv in stack if lv >= level]:
                    del stack[deeper]
                stack[level] = heading
    return {a.id: contexts[a.id] for a in articles}


def context_counts(contexts: Mapping[str, str], articles: Sequence[Article]) -> dict[str, int]:
    """How many articles there are and how many have at least one heading beyond their law's title: the index
    command reports it, so a corpus whose headings went unread (its format changed) shows as a drop to 0."""
    with_headings = sum(1 for a in articles if contexts.get(a.id, "") not in ("", law_title(a)))
    return {"articles": len(articles), "with_headings": with_headings}
