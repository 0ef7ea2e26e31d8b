"""Snowball's Greek stemmer (PyStemmer, the algorithm of the index's ``stemmed`` chain), for the Python that stems
words itself: the snippets cut from plain texts (nomos.pages.passages, nomos.pages.lead) and the judged queries' log
(nomos.retrieval.ltr.judged). One place, below both, so they share one thread-safe stemmer and one memory of stems."""

from __future__ import annotations

import functools
import threading
from typing import Any

_local = threading.local()


def _stemmer() -> Any:
    """One PyStemmer per thread: its stemmer objects are not safe to share between threads."""
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        import Stemmer  # PyStemmer, imported where words are stemmed in Python

        stemmer = _local.stemmer = Stemmer.Stemmer("greek")
    return stemmer


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball's Greek stem of ``word`` as given (callers fold it first or not, as their stems were made; remembered:
    pages and queries stem the same words again and again)."""
    return str(_stemmer().stemWord(word))
