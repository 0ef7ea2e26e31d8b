"""Highlights that mark the query's own words, not every word that happens to share their stem.

The highlighter marks what the stemmed field matched, and Snowball's Greek stems collide: «ρολόι» (a watch) and
«ρόλο» (a role) are both ``ρολ``, «κράτησε» (kept) and «κράτους» (of the state) both ``κρατ``. The ranking may keep
those matches (recall), but a reader who sees «ρόλο» marked in a case about a watch stops trusting the page. So each
marked word is checked against the query's words, as written (accents kept), before it is shown marked:

* the same word once folded (case, accents, final sigma): kept;
* else it shares at least the first three letters with a query word, and, where it shares no more than four (a
  short stem, where words of different roots meet: «ρολ-», «κρατ-»; five and more are one word's forms, whose
  stress moves freely: «αποζημίωση» / «αποζημιώσει», «άνθρωπος» / «ανθρώπου»),
  - where both words are stressed inside the letters they share, the stress falls on the same letter (a different
    stress is a different word: «ρολόι» / «ρόλο»; «ρολόι» / «ρολογιού» stress outside it and stay), and
  - they do not end one as a verb and the other as a noun («κράτησε» / «κράτους»; «κλοπή» / «κλοπές» stay).

A heuristic, on purpose small: it only ever removes a mark, never adds one, and words it cannot classify keep theirs.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

from nomos.legal.text.folding import fold
from nomos.retrieval.base import Hit

_MARKED = re.compile(r"<mark>(.*?)</mark>", re.S)
_WORD = re.compile(r"[^\W\d_]+")
_STRESSED = set("άέήίόύώΐΰ")
SHORT_STEM = 4  # letters in common up to which two words may be of different roots
# folded endings (final sigma as σ) that say "verb" or "noun" with little doubt; anything else says nothing
_VERB_ENDINGS = ("ησε", "ισε", "ασε", "ωσε", "ευσε", "ουσε", "ξε", "ψε", "ησαν", "ισαν", "ασαν", "ουν", "ουμε", "ετε",
                 "ει", "ηκε", "θηκε", "ονται", "εται", "ομαι", "ησει", "ισει")
_NOUN_ENDINGS = ("ουσ", "οσ", "ου", "ων", "ησ", "εωσ", "ματοσ", "ματα", "μα", "ση", "σησ", "σεισ", "ια", "ιασ")


def _stress(word: str) -> int | None:
    return next((i for i, ch in enumerate(word) if ch in _STRESSED), None)


def _kind(folded: str) -> str | None:
    verb = max((len(e) for e in _VERB_ENDINGS if folded.endswith(e)), default=0)
    noun = max((len(e) for e in _NOUN_ENDINGS if folded.endswith(e)), default=0)
    return None if verb == noun else "verb" if verb > noun else "noun"


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


@dataclass(frozen=True)
class _QueryWord:
    folded: str
    stress: int | None
    kind: str | None


@functools.lru_cache(maxsize=64)
def _query_words(query: str) -> tuple[dict[str, tuple[_QueryWord, ...]], frozenset[str]]:
    """The query's words, read once per query (a page checks every mark of every snippet against them), filed by
    their first three letters (a mark is only ever compared with the words it shares those with)."""
    by_start: dict[str, list[_QueryWord]] = {}
    for w in dict.fromkeys(w.lower() for w in _WORD.findall(query)):
        f = fold(w)
        by_start.setdefault(f[:3], []).append(_QueryWord(f, _stress(w), _kind(f)))
    return {k: tuple(v) for k, v in by_start.items()}, frozenset(w.folded for ws in by_start.values() for w in ws)


def _own(marked: str, words: Mapping[str, Sequence[_QueryWord]], exact: frozenset[str]) -> bool:
    m = marked.lower()
    fm = fold(m)
    if fm in exact:
        return True
    sm, km = _stress(m), None
    for q in words.get(fm[:3], ()):
        shared = _common(fm, q.folded)
        if shared > SHORT_STEM:  # five letters in common and more: one word's forms (αποζημίωση, αποζημιώσει)
            return True
        if sm is not None and q.stress is not None and sm < shared and q.stress < shared and sm != q.stress:
            continue
        km = km or _kind(fm)
        if km and q.kind and km != q.kind:
            continue
        return True
    return False


def own_marks(fragment: str, query: str) -> str:
    """``fragment`` (a highlighter's html with <mark>…</mark>) with the marks that are not the query's own words
    taken off (the words stay)."""
    if "<mark>" not in fragment:
        return fragment
    return _MARKED.sub(lambda m: m.group(0) if _own_in(m.group(1), query) else m.group(1), fragment)


def own_word(marked: str, query: str) -> bool:
    """Whether a word the highlighter marked is one of ``query``'s own (:func:`own_marks` keeps its mark)."""
    return _own_in(marked, query)


@functools.lru_cache(maxsize=4096)
def _own_in(marked: str, query: str) -> bool:
    """:func:`_own` against ``query``'s words, remembered: a page marks the same words in many snippets."""
    words, exact = _query_words(query)
    return bool(words) and _own(marked, words, exact)


def with_own_marks(hits: Sequence[Hit], query: str) -> list[Hit]:
    """The hits with :func:`own_marks` applied to every snippet, an amended article's snippet chosen between its
    text in force and its original (:func:`snippet_text`)."""
    out = []
    for h in hits:
        if h.in_force_highlights:
            h = replace(h, highlights=snippet_text(tuple(own_marks(f, query) for f in h.in_force_highlights),
                                                   tuple(own_marks(f, query) for f in h.highlights)),
                        in_force_highlights=())
        elif h.highlights:
            h = replace(h, highlights=tuple(own_marks(f, query) for f in h.highlights))
        out.append(h)
    return out


def snippet_text(in_force: tuple[str, ...], original: tuple[str, ...]) -> tuple[str, ...]:
    """An amended article's snippet: its text in force's fragments (the law as it now reads, which its page opens
    on), unless its original's mark more of the query's own words (a query in the wording an amendment replaced:
    the snippet then shows why the article matched)."""
    if in_force and sum(f.count("<mark>") for f in in_force) >= sum(f.count("<mark>") for f in original):
        return in_force
    return original
