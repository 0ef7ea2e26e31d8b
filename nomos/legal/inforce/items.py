"""An amending article's text as the instruction reader reads it: folded, with every quotation's inside blanked
(``mask``: the same length, so offsets carry over), and cut into its items («1.», «2.» … at a line's start) and
their sub-items («α)», «β)» …, «αα)»), which bound where a context («Στο άρθρο 465 ΠΚ:») holds and which
descriptions an instruction absorbs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nomos.legal.text.article_parts import case_index, item_after, told_quote_spans
from nomos.legal.text.folding import fold

# an item «N.» opens a line, or follows the closing mark of the item before it on the same line («… 2024.» 5. α) …»);
# «1.α)» (no space before its first sub-item) is an item too
_ITEM = re.compile(r"(?m)(?:^[ \t\xa0]*|(?<=»)[.;]?[ \t\xa0]+)(?P<n>\d{1,3})[ \t\xa0]*\.(?=[ \t\xa0]|\n|[α-ω]{1,2}\))")
_SUBITEM = re.compile(r"(?:(?<=^)|(?<=\n)|(?<=[:;,.])|(?<=[:;,.][ \t])|(?<=\sκαι\s))[ \t\xa0]*"
                      r"(?P<l>[α-ω]{1,3})[΄'’]?\)(?=\s)")
_SUBITEM_DOT = re.compile(r"(?m)^[ \t\xa0]*(?P<l>[α-ω]{1,3})\.(?=[ \t\xa0])")  # «α. …» at a line's start
_NOT_ITEM = re.compile(r"(?:περ|παρ|εδ|στοιχ|υποπερ|περιπτωσ\w*)\.?\s*$")  # «της περ. β)»: a reference, no item


_ZETA = case_index("ζ") or 6


@dataclass(frozen=True)
class Segment:
    start: int
    end: int
    depth: int


_LATIN = str.maketrans("abehikmnoptxyv", "αβεηικμνορτχυν")
_LOOKALIKE_WORD = re.compile(r"(?<![\w])(?:(?=\w*[a-z])(?=\w*[α-ω])\w+|h|o|to|ta|oi)(?![\w])")


def _greek_lookalikes(folded: str) -> str:
    """Latin letters typed for Greek ones («To άρθρο», «H παρ. 4», «v. 4772/2021» folded): Greek again, in
    words that mix both alphabets and in the few Greek words made of lookalikes only (same length)."""
    return _LOOKALIKE_WORD.sub(lambda m: m.group(0).translate(_LATIN), folded)


def mask(text: str) -> str:
    """The folded text with every quotation's inside blanked (same length; «» kept), Latin lookalikes in Greek
    words read as Greek."""
    chars = list(_greek_lookalikes(fold(text)))
    for a, b in quotes(text):
        for k in range(a + 1, b - 1 if text[b - 1:b] == "»" else b):
            if chars[k] != "\n":
                chars[k] = " "
    return "".join(chars)


def cut_items(masked: str) -> list[Segment]:
    """The article's items and sub-items (depth 1, 2, 3), each with its span; the whole text is depth 0."""
    out = [Segment(0, len(masked), 0)]
    items: list[int] = []
    expected = 1
    for m in _ITEM.finditer(masked):
        if int(m.group("n")) == expected:
            items.append(m.start("n"))
            expected += 1
    bounds = items + [len(masked)]
    spans = [(bounds[i], bounds[i + 1]) for i in range(len(items))] or [(0, len(masked))]
    for a, b in spans:
        if items:
            out.append(Segment(a, b, 1))
        subs: list[tuple[int, str]] = []
        expected_sub = 0
        marks = sorted([*_SUBITEM.finditer(masked, a, b), *_SUBITEM_DOT.finditer(masked, a, b)],
                       key=lambda m: m.start("l"))
        for m in marks:
            letter = m.group("l")
            if _NOT_ITEM.search(masked, max(0, m.start("l") - 10), m.start("l")):
                continue
            index = case_index(letter)
            # «ε) … ζ) …»: a list that skips «στ)» (written so by some drafters) goes on at «ζ)»
            if index is not None and (index == expected_sub or index == _ZETA and expected_sub == _ZETA - 1):
                subs.append((m.start("l"), letter))
                expected_sub = index + 1
        sub_bounds = [s for s, _ in subs] + [b]
        for i, (s, letter) in enumerate(subs):
            out.append(Segment(s, sub_bounds[i + 1], 2))
            inner: list[int] = []
            first = fold(letter)
            expected_inner = 0
            for m in _SUBITEM.finditer(masked, s + len(letter) + 1, sub_bounds[i + 1]):
                two = m.group("l")
                if _NOT_ITEM.search(masked, max(0, m.start("l") - 10), m.start("l")):
                    continue
                if len(two) >= 2 and two.startswith(first) and case_index(two[len(first):]) == expected_inner:
                    inner.append(m.start("l"))
                    expected_inner += 1
            inner_bounds = inner + [sub_bounds[i + 1]]
            out.extend(Segment(inner[k], inner_bounds[k + 1], 3) for k in range(len(inner)))
    return out


def holding(segments: list[Segment], pos: int) -> list[Segment]:
    """The segments holding ``pos``, outermost first."""
    return sorted((s for s in segments if s.start <= pos < max(s.end, s.start + 1)), key=lambda s: s.depth)


def deepest(segments: list[Segment], pos: int) -> Segment:
    return max((s for s in segments if s.start <= pos < max(s.end, s.start + 1)), key=lambda s: s.depth)


def quoted_words(text: str, span: tuple[int, int]) -> str:
    """A quotation's words: inside its marks, closed or not."""
    a, b = span
    inner = text[a + 1:b - 1] if text[b - 1:b] == "»" else text[a + 1:b]
    return inner.strip()


def quote_closed(text: str, span: tuple[int, int]) -> bool:
    """Whether the quotation ends with its closing mark, or is one the amending article never closes but whose end
    its next item tells (:func:`~nomos.legal.text.article_parts.told_quote_spans`)."""
    return text[span[1] - 1:span[1]] == "»" or item_after(text, span[0], span[1]) is not None


def quotes(text: str) -> list[tuple[int, int]]:
    """The quotations as the instruction reader takes them: those of
    :func:`~nomos.legal.text.article_parts.told_quote_spans` (an unclosed quotation ends where the amending
    article's next item tells), which the legal graph's reader takes too since extractor v23."""
    return told_quote_spans(text)
