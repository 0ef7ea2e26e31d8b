"""Greek lemmas for BM25: «πήραν» and «παίρνει» meet at «παίρνω», where Snowball's suffix stripping cannot go.

A stemmer cuts endings, so the irregular forms everyday Greek is full of (past tenses, passive voice: «πήρε»,
«απολύθηκε», «δόθηκε») never meet the forms the statute uses. A lemmatizer maps each word to its dictionary form.
simplemma (MIT, pure Python, its Greek dictionary in the wheel: nothing is downloaded) does it offline. Its dictionary is read
by folded forms (no accents, final sigma as sigma, as the node's analyzers fold), so an unaccented query («μου πηραν
το πορτοφολι») and a heading in capitals lemmatize like the statute's accented text. Words it does not know stay as they are (folded). The node's
stop words are dropped after folding.

Chosen by measurement (issue 46, docs/benchmarks.md): against Debian's hunspell-el (a word list with no affix rules:
its "stems" are the words themselves), dilemma-nlp and gr-nlp-toolkit (both fetch their data from a model hub at run
time, which a deployment cannot count on).

Ingest writes the lemmas of an article's title, text and text in force into the ``lemmas`` field (indexed with a
whitespace tokenizer: the analysis happens here, in Python, once); BM25 lemmatizes the query with the same
function (under a millisecond), so both sides meet exactly. Each distinct word is lemmatized once per process.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from nomos.legal.text.folding import fold
from nomos.mappings import HERE, read_stopwords

VERSION = "simplemma-2"  # part of an article's content hash: a new lemmatizer re-sends every article
_WORD = re.compile(r"[^\W\d_]+")


@functools.cache
def _stop() -> frozenset[str]:
    return frozenset(fold(w) for w in read_stopwords(HERE / "stopwords" / "el.txt"))


@functools.cache
def _folded_dictionary() -> dict[str, str]:
    """simplemma's Greek dictionary keyed by folded forms, so «πηραν» (typed without accents, as people often type)
    and «ΠΗΡΑΝ» (a heading) meet «πήραν». Where two forms fold alike, the lemma that is itself one of the folded
    forms wins, then the alphabetically first: the same map on every machine."""
    from simplemma.strategies.dictionaries.dictionary_factory import DefaultDictionaryFactory

    out: dict[str, str] = {}
    for form, target in DefaultDictionaryFactory().get_dictionary("el").items():
        key, value = fold(form.lower()), fold(target.lower())
        held = out.get(key)
        if held is None or (held != key and (value == key or value < held)):
            out[key] = value
    return out


@functools.lru_cache(maxsize=400_000)
def lemma(word: str) -> str:
    """The folded lemma of one lowercase word: looked up by its folded form (accents and case do not matter), else
    simplemma's own strategies on the word as written, else the word itself, folded."""
    folded = fold(word)
    known = _folded_dictionary().get(folded)
    if known is not None:
        return known
    import simplemma

    return fold(simplemma.lemmatize(word, lang="el").lower())


def lemma_tokens(text: str) -> Iterator[str]:
    """The lemmas of ``text``'s words in order, stop words left out."""
    stop = _stop()
    for word in _WORD.findall(text.lower()):
        if fold(word) in stop:
            continue
        out = lemma(word)
        if out and out not in stop:
            yield out


def lemma_text(text: str) -> str:
    """``text`` as the ``lemmas`` field stores it: its lemmas joined by spaces."""
    return " ".join(lemma_tokens(text))
