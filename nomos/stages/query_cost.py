"""A bound on one query's cost: its words counted after the stop list, and a cap (``NOMOS_MAX_QUERY_WORDS``).

Issue 47: a query of 2,000 characters of frequent words cost the node several times a case description's CPU.
What the node works on is the words its analyzers keep: the stop words (articles, particles, pronouns: the node's
own list, ``nomos/mappings/stopwords/el.txt``) cost nothing, so they are not counted, and a long but ordinary case
description is not refused for them. Every other word is, numbers included (junk of hundreds of short numbers or
word fragments is what a cap catches). The cap's default, 3,000 (issue 50), takes a whole case file as long as every
path allows (``nomos.query_text.MAX_QUERY_CHARS``, 20,000 characters: about 1,800 counted words of a case's Greek,
11 characters a word; the whole case files of bench/data have 206 to 287, the dev-set queries at most 49) and
refuses 20,000 characters of numbers or word pieces (3,400 and more). It was 200 while the box took 2,000
characters, and refused every whole case file of bench/data. BM25's cost does not call for a lower one: it folds a
long query into its distinct terms (a 20,000-character case, 502 of them), and a results page for it cost the node
118 ms of CPU against 81 ms for a 3,000-character case file (docs/security.md, "Limits").

The portal applies it to every search its readers send (pages and API: :func:`nomos.portal.web.run_search`). The
command line and the Python API do not: they run as the operator, on the operator's resources, and search whole case
files on purpose (tests pin a 50,000-character query answered there, compacted by BM25). The node's own time bound
(``NOMOS_SEARCH_TIMEOUT_SECONDS``) is on every path and cuts whatever costs too much.
"""

from __future__ import annotations

import functools
import re

from nomos.errors import QueryTooLong
from nomos.legal.text.folding import fold
from nomos.mappings import HERE, read_stopwords

__all__ = ["check_query_words", "query_words"]

_WORD = re.compile(r"\w+")


@functools.cache
def _stop() -> frozenset[str]:
    return frozenset(fold(w.lower()) for w in read_stopwords(HERE / "stopwords" / "el.txt"))


def query_words(query: str) -> int:
    """How many words of ``query`` the cap counts: every run of letters or digits whose folded form (no accents,
    final sigma as sigma, lower case) is not a stop word."""
    stop = _stop()
    return sum(1 for w in _WORD.findall(query.lower()) if fold(w) not in stop)


def check_query_words(query: str, cap: int) -> None:
    """:class:`QueryTooLong` (a Greek message: the person who typed the query reads it) when ``query`` has more
    than ``cap`` counted words; nothing when ``cap`` is 0."""
    if cap <= 0 or len(query) <= cap:  # fewer characters than the cap: fewer words too
        return
    count = query_words(query)
    if count > cap:
        raise QueryTooLong(f"το ερώτημα έχει {count} λέξεις (χωρίς άρθρα, μόρια και άλλες πολύ συχνές λέξεις) και το "
                           f"όριο είναι {cap}: περιγράψτε την υπόθεση πιο σύντομα, με τις λέξεις που τη χαρακτηρίζουν",
                           hint="NOMOS_MAX_QUERY_WORDS sets the cap (0: none)")
