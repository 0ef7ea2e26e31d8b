"""Snippets cut in Python from the article's own text (issue 51): the page's passages instead of OpenSearch's.

OpenSearch's unified highlighter cut a results page's snippets with Java's sentence ``BreakIterator``: on the
stand-in the highlighter was about half of the node's CPU for a BM25 page and the sentence scanner about half of
the highlighter (docs/benchmarks.md "Where a results page's time goes"). With ``NOMOS_SNIPPETS=passages`` a page
asks the node for no highlighting, only its hits' text and text in force, and the snippets are cut here:

* the query's words are read as the index reads them (folded: lower case, no accents, final sigma as sigma; the
  index's stop words dropped; Snowball's Greek stems, PyStemmer being the algorithm of the node's
  ``greek_snowball`` filter), and a word of the text is marked where its stem is one of theirs: the words the
  highlighter's ``highlight_query`` marked. The stage then takes the marks of a stem's namesakes off, as it did
  off the highlighter's (:func:`nomos.pages.marks.with_own_marks`);
* a passage is about ``SIZE`` characters from a marked word on, begun at the start of its line or sentence where
  that is near (an article's paragraphs and items are its lines), else a few words before it, and ended at a
  word's end; the two passages with the most distinct query words (then the most marks; then the earlier) are
  shown, in the text's order, as the highlighter's two fragments were;
* a text with no marked word shows its start, as the highlighter's ``no_match_size`` did; a text in force with
  none shows nothing (the stage then shows the original's snippet).

Only a text's first ``LIMIT`` characters are read (the bound the highlighter's ``max_analyzer_offset`` set).
"""

from __future__ import annotations

import bisect
import functools
import html
import re
from typing import Any, Callable, Mapping, NamedTuple

from nomos.legal.text.folding import fold
from nomos.legal.text.stemming import stem  # the folded word's Snowball stem (remembered)
from nomos.mappings import HERE, read_stopwords

# NOMOS_SNIPPETS: OpenSearch's sentence passages; each text marked whole by the highlighter and cut here
# (:func:`cut`); or no highlighter, the texts cut and marked here (:func:`snippets`); or the highlighter's whole texts
# cut to the article's opening sentence and its best marked passage (:mod:`nomos.pages.lead`): the default, which
# blind readers judged no worse than the sentences on 38 of 42 pages (docs/benchmarks.md, issue 51's third round)
MODES = ("sentences", "whole", "passages", "lead")
DEFAULT = "lead"
SIZE = 180  # characters of a passage, as the highlighter's fragment_size
FRAGMENTS = 2
LIMIT = 100_000  # characters of a text read (HIGHLIGHT_MAX_CHARS)
LEAD = 130  # how far before its first marked word a passage may begin, at its line's or sentence's start (as the highlighter began at its sentence's)
CONTEXT = 30  # where no such start is near: the characters of words before its first marked word
MIN_PASSAGE = 40  # a passage shorter than this after the one before it took its start is left out
ENDING = 60  # how far before its ``SIZE`` a passage may end, at its line's or sentence's end
QUERY_CHARS = 5000  # the part of a query read (as the highlight_query's)
LEAD_NO_MATCH = 600  # lead's no_match_size: a text with no marked word's start, its opening and next sentence in it
# an amended article's text in force (nomos.pages.snippets.IN_FORCE_TEXT, which imports this module)
IN_FORCE_TEXT = "in_force_text"

_WORD = re.compile(r"\w+")
_WORD_END = re.compile(r"\w*")
_ABBREVIATION = re.compile(r"(?<!\w)\w{1,4}\.$")  # a word of up to four letters and a stop: «ν.», «παρ.», «αρ.»
_BREAK = re.compile(r"\n|[.;·!?]\s")  # the end of a line or a sentence (a passage begins after it)


def checked(mode: str) -> str:
    """``mode`` if it is one of :data:`MODES`. The mode is no module state: each page's request carries its
    stage's (:class:`nomos.pages.request.PageRequest`), so two stages with different settings in one process (a
    portal and a test, a benchmark's two sides) each get their own snippets."""
    if mode not in MODES:
        raise ValueError(f"snippets must be one of {', '.join(MODES)}, not {mode!r}")
    return mode


@functools.cache
def _stop_words() -> frozenset[str]:
    return frozenset(fold(w) for w in read_stopwords(HERE / "stopwords" / "el.txt"))


class _Query(NamedTuple):
    stems: frozenset[str]
    words: re.Pattern[str] | None  # the text's words that may have one of those stems (their first letters)


@functools.lru_cache(maxsize=256)
def _read(query: str) -> _Query:
    """The query's stems, and a pattern finding the text's words that begin as one of them (each found word is
    then stemmed: a regular expression in C skips the words that cannot match, which are most)."""
    stop = _stop_words()
    stems = frozenset(s for s in (stem(w) for w in _WORD.findall(fold(query[:QUERY_CHARS])) if w not in stop) if s)
    if not stems:
        return _Query(stems, None)
    heads = sorted({v for s in stems for v in _written(s[:3])}, key=lambda v: (-len(v), v))
    return _Query(stems, re.compile("|".join(map(re.escape, heads))))


@functools.cache
def _forms() -> dict[str, tuple[str, ...]]:
    """Folded letter -> the lower-case letters that fold to it (accented forms, final sigma)."""
    forms: dict[str, set[str]] = {}
    for code in [*range(0x61, 0x7B), *range(0xE0, 0x250), *range(0x370, 0x400)]:
        ch = chr(code)
        f = fold(ch)
        if ch == ch.lower() and len(f) == 1 and f.isalpha():
            forms.setdefault(f, {f}).add(ch)
    return {f: tuple(sorted(chs)) for f, chs in forms.items()}


def _written(head: str) -> list[str]:
    """The ways a folded word start can be written in lower case (its letters accented or not)."""
    out = [""]
    for letter in head:
        out = [o + ch for o in out for ch in _forms().get(letter, (letter,))]
    return out


class _Mark(NamedTuple):
    start: int
    end: int
    stem: str


def marks(text: str, query: str) -> list[_Mark]:
    """The words of ``text`` (its first ``LIMIT`` characters) whose stem is one of ``query``'s, in order."""
    q = _read(query)
    if q.words is None:
        return []
    text = text[:LIMIT]
    lower = text.lower()
    if len(lower) != len(text):  # a letter whose lower case is longer (rare): the slower fold keeps the offsets
        lower = fold(text)
    out: list[_Mark] = []
    # a pattern of literal word starts, so that the C scanner skips ahead to their first letters; a start found
    # inside a word is no word's start and is passed over (the word then continues to its end)
    for m in q.words.finditer(lower):
        at = m.start()
        if at and (lower[at - 1].isalnum() or lower[at - 1] == "_"):
            continue
        end = _WORD_END.match(lower, m.end()).end()  # type: ignore[union-attr]
        s = stem(fold(lower[at:end]))
        if s in q.stems:
            out.append(_Mark(at, end, s))
    return out


def _ends(text: str, at: int) -> bool:
    """Whether the line end or stop at ``at`` ends a sentence: «ν. 4624/2019», «παρ. 2», «περ. β»: an
    abbreviation's stop does not."""
    return text[at] == "\n" or not _ABBREVIATION.search(text, max(0, at - 5), at + 1)


def _bounds(text: str, first: int, last_end: int) -> tuple[int, int]:
    """Where a passage whose first marked word begins at ``first`` begins and ends (``last_end``: that word's end,
    which it always holds)."""
    lo = max(0, first - LEAD)
    start = -1
    for m in _BREAK.finditer(text, lo, first):
        if _ends(text, m.start()):
            start = m.end()
    if start < 0:
        if lo == 0:
            start = 0
        else:
            gap = text.find(" ", first - CONTEXT, first)
            start = gap + 1 if gap >= 0 else first
    while start < first and text[start].isspace():
        start += 1
    end = start + SIZE
    if end >= len(text):
        return start, len(text)
    stops = [m.start() for m in _BREAK.finditer(text, max(last_end, end - ENDING), end) if _ends(text, m.start())]
    if stops:  # a sentence's or line's end near the passage's end
        return start, stops[-1] + 1
    cut = max(text.rfind(" ", last_end, end + 1), text.rfind("\n", last_end, end + 1))
    return start, cut if cut > last_end else max(end, last_end)


def _render(text: str, start: int, end: int, found: list[_Mark], escape: Callable[[str], str] = html.escape) -> str:
    """``text[start:end]`` html-escaped, ``found``'s words in it within <mark>, as the highlighter wrote them."""
    out, at = [], start
    for m in found:
        if m.start >= start and m.end <= end:
            out += [escape(text[at:m.start]), "<mark>", escape(text[m.start:m.end]), "</mark>"]
            at = m.end
    out.append(escape(text[at:end]))
    return "".join(out).rstrip()


def start_of(text: str, escape: Callable[[str], str] = html.escape) -> str:
    """A text's start as a snippet (where no word of the query is in it), ended at a word's end."""
    if len(text) <= SIZE:
        return escape(text.strip())
    cut = max(text.rfind(" ", 0, SIZE + 1), text.rfind("\n", 0, SIZE + 1))
    return escape(text[: cut if cut > 0 else SIZE].strip())


def _scored(found: list[_Mark]) -> list[tuple[int, int, int, int, int]]:
    """The windows of ``SIZE`` characters that begin at a marked word, as (-distinct words, -marks, start, first
    mark, mark after the last): the best sorts first. One pass over the marks, the window's words counted as it
    slides (a case file's words mark a long article hundreds of times)."""
    counts: dict[str, int] = {}
    scored = []
    j, n = 0, len(found)
    for i, (start, end, first) in enumerate(found):  # (a loop a page runs a few hundred times: kept tight)
        limit = start + SIZE
        if limit < end:
            limit = end
        if j < i:
            j = i
        while j < n and found[j][1] <= limit:
            word = found[j][2]
            counts[word] = counts.get(word, 0) + 1
            j += 1
        scored.append((-len(counts), i - j, start, i, j))
        if i < j:  # the window's first word leaves it
            left = counts[first] - 1
            if left:
                counts[first] = left
            else:
                del counts[first]
    return scored


def _choose(text: str, found: list[_Mark]) -> list[tuple[int, int]]:
    """The (start, end) of the passages to show, in the text's order: of the windows of :func:`_scored`, those with
    the most distinct words (then the most marks; then the earlier) that do not overlap, each then begun and ended
    as :func:`_bounds` says."""
    scored = _scored(found)
    scored.sort()
    picked: list[tuple[int, int, int]] = []
    for _, _, start, i, j in scored:
        end = found[j - 1].end if j > i else found[i].end
        if all(end <= found[a].start or start >= found[b - 1].end for a, b, _ in picked):
            picked.append((i, j, start))
            if len(picked) == FRAGMENTS:
                break
    out: list[tuple[int, int]] = []
    for i, _, _ in sorted(picked):
        lo, hi = _bounds(text, found[i].start, found[i].end)
        if out and lo < out[-1][1]:  # begun back into the passage before it: it goes on from that one's end
            lo = out[-1][1]
            while lo < hi and text[lo].isspace():
                lo += 1
            if hi - lo < MIN_PASSAGE:
                continue
        out.append((lo, hi))
    return out


def snippets(text: str, query: str, *, fallback: bool = True) -> tuple[str, ...]:
    """Up to two passages of ``text`` with ``query``'s words marked (html, <mark>), in the text's order; where no
    word is marked, the text's start (``fallback``) or nothing."""
    found = marks(text, query)
    if not found:
        return (start_of(text),) if fallback and text.strip() else ()
    return tuple(_render(text, lo, hi, found) for lo, hi in _choose(text, found))


_MARKED = re.compile(r"<mark>(.*?)</mark>", re.S)


def _same(text: str) -> str:
    return text


def unmark(marked: str) -> tuple[str, list[_Mark]]:
    """A text the highlighter marked (html-escaped, <mark> around the query's words) without its marks, and where
    they were in it (offsets of the unmarked text; :func:`html_at` maps them back)."""
    pieces = marked[:LIMIT].split("<mark>")  # C's split: the marks are many, a Python loop over the text slow
    plain = [pieces[0]]
    found: list[_Mark] = []
    at = len(pieces[0])
    for piece in pieces[1:]:
        word, _, rest = piece.partition("</mark>")
        found.append(_Mark(at, at + len(word), word.lower()))
        plain += (word, rest)
        at += len(word) + len(rest)
    return "".join(plain), found


def html_at(found: list[_Mark], at: int) -> int:
    """A bound of :func:`unmark`'s text (never inside a marked word) in the marked text."""
    return at + len("<mark></mark>") * bisect.bisect_right([m.end for m in found], at)


def cut(marked: str) -> tuple[str, ...]:
    """Up to two passages of a text the highlighter marked whole (``number_of_fragments: 0``: its marks without
    its sentence scanner; html-escaped, <mark> around the query's words), chosen and cut as :func:`snippets`
    chooses and cuts; a text with no mark (the highlighter's ``no_match_size`` start) is cut at a word's end."""
    if "<mark>" not in marked[:LIMIT]:
        return (start_of(marked, _same),) if marked.strip() else ()
    text, found = unmark(marked)
    return tuple(marked[html_at(found, lo):html_at(found, hi)].rstrip() for lo, hi in _choose(text, found))


def of_hit(source: Mapping[str, Any], highlight: Mapping[str, Any], query: str | None, mode: str
           ) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """A page hit's snippets of its text and of its text in force where they are made here: cut from the texts
    the page asked for (``passages``; without ``query``, the text's start), or cut from the highlighter's whole
    texts (``whole``); None where the highlighter's own fragments are the snippets (``sentences``). ``mode``: the
    page's (:data:`MODES`)."""
    if "text" in source:
        text, in_force = source.get("text") or "", source.get(IN_FORCE_TEXT) or ""
        if query is None:
            return ((start_of(text),) if text.strip() else ()), ()
        return snippets(text, query), snippets(in_force, query, fallback=False)
    if mode == "lead":
        from nomos.pages import lead  # (lead builds on this module)

        return (tuple(p for f in highlight.get("text") or () for p in lead.cut(f, query)),
                tuple(p for f in highlight.get(IN_FORCE_TEXT) or () for p in lead.cut(f, query)))
    if mode == "whole":
        return (tuple(p for f in highlight.get("text") or () for p in cut(f)),
                tuple(p for f in highlight.get(IN_FORCE_TEXT) or () for p in cut(f)))
    return None
