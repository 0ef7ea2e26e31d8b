"""Articles in full: the windows an encoder reads of an article longer than its window.

An encoder with a 512-token window reads only an article's start (2,483 of the stand-in's 6,412 passages are cut,
and about 3 in 10 gold articles of the dev queries are longer than the window). Every article is therefore also
embedded as windows, stored in a nested k-NN field and scored by its best window:

* window 1 is the passage the article's single vector embeds (title and text, cut at the window by the encoder):
  its vector is already in the cache, so an index with the single vectors is ready for hybrid search before any other window is
  encoded, and the windows stage starts from there;
* the rest of the text follows, by numbered paragraph where the text has them («1. …», «2. …»: the unit a lawyer
  cites), packed while they fit, each window headed by the article's title; a paragraph longer than a window, or a
  text without numbered paragraphs, is read in overlapping word windows (``OVERLAP_WORDS``).

The paragraph that window 1 cuts is read again whole in window 2, so no sentence is split between the two without a
window that holds it. Pure functions over text: ``fits`` says whether a text fits the encoder's window whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

# words shared by consecutive windows of a text read without paragraph breaks: a sentence cut at one window's end
# is read whole at the next one's start (most sentences of the stand-in are under 40 words)
OVERLAP_WORDS = 48

# a numbered paragraph opens a line: «1. Όποιος …», «2α. …», «10) …»
_PARAGRAPH = re.compile(r"(?m)^[ \t]*\d{1,3}[α-ωa-z]?[.)][ \t]")


def fits_window(encoder: Any, kind: str = "passage") -> Callable[[str], bool]:  # any Encoder
    """Whether a text fits ``encoder``'s window whole (its ``prepare`` would not cut it), as a ``kind`` input; the
    encoder's own ``fits`` where it has one (the same answer, without computing the cut)."""
    own = getattr(encoder, "fits", None)
    if callable(own):
        return lambda t: bool(own(t, kind))
    return lambda t: not encoder.prepare(t, kind).cut


def paragraphs(text: str) -> list[str]:
    """The text split before each numbered paragraph (what comes before the first one is a paragraph too); one
    element when the text has fewer than two numbered paragraphs."""
    starts = [m.start() for m in _PARAGRAPH.finditer(text)]
    if len(starts) < 2:
        return [text]
    cuts = ([0] if starts[0] > 0 else []) + starts + [len(text)]
    return [p for p in (text[a:b].strip() for a, b in zip(cuts, cuts[1:], strict=False)) if p]


def _prefix_words(words: list[str], head: str, fits: Callable[[str], bool]) -> int:
    """How many of ``words`` fit one window after ``head`` (at least one, so reading always advances)."""
    lo, hi = 1, len(words)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(_join(head, " ".join(words[:mid]))):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _join(head: str, body: str) -> str:
    return f"{head}\n{body}" if head else body


def word_windows(words: list[str], head: str, fits: Callable[[str], bool], overlap: int = OVERLAP_WORDS) -> list[str]:
    """``words`` in windows that each fit after ``head``, consecutive windows sharing up to ``overlap`` words."""
    out: list[str] = []
    start = 0
    while start < len(words):
        n = _prefix_words(words[start:], head, fits)
        out.append(_join(head, " ".join(words[start : start + n])))
        if start + n >= len(words):
            break
        start += max(n - overlap, max(n // 2, 1))  # never back more than half a window: reading always advances
    return out


def article_windows(title: str, text: str, fits: Callable[[str], bool]) -> list[str]:
    """Every window of one article as the encoder is given it: first the article's passage itself (title and text,
    which the encoder cuts at its window: exactly what the single vector embeds), then the windows of the rest. An
    article that fits one window has that window alone."""
    passage = f"{title}\n{text}" if title else text
    if fits(passage):
        return [passage]
    head = " ".join(title.split())
    # words of the text that window 1 holds: the longest prefix of the passage that fits, less the title's
    covered = max(_prefix_words(passage.split(), "", fits) - len(head.split()), 0)
    out = [passage]
    parts = paragraphs(text)
    if len(parts) == 1:
        words = text.split()
        return out + word_windows(words[covered - min(OVERLAP_WORDS, covered // 2) :], head, fits)
    seen = 0
    current = ""
    for part in parts:
        n = len(part.split())
        seen += n
        if seen <= covered:  # wholly inside window 1
            continue
        body = " ".join(part.split())
        candidate = f"{current} {body}" if current else body
        if fits(_join(head, candidate)):
            current = candidate
            continue
        if current:
            out.append(_join(head, current))
            current = ""
        if fits(_join(head, body)):
            current = body
        else:
            out.extend(word_windows(body.split(), head, fits))
    if current:
        out.append(_join(head, current))
    return out
