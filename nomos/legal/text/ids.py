"""Article ids as people and models type them, resolved against the ids a corpus holds.

One reading of a loosely typed id (case, look-alike letters, full-width characters, quotes around it) for the query
side (a typed id, an LLM's answer) and the ingest side (the graph's edges) alike.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from nomos.legal.text.citations import Citation
from nomos.legal.text.folding import GREEK_TO_LATIN, article_number

# what may wrap an id a model or a person typed: quotes, brackets, list marks, a final full stop
ID_EDGE = " \t\"'`«»“”‘’[]()<>*.,;"


@dataclass(frozen=True)
class IdResolver:
    """Article ids as a corpus writes them, from the ways people and models type them: any case («pk::372»),
    Latin look-alike letters («PK::386A»), full-width characters (NFKC), quotes or brackets around them, and
    citations. A typed id resolves only when exactly one corpus id matches it; two corpus ids under one key make it
    ambiguous, which :meth:`lookup` reports and :meth:`resolve` treats as no match."""

    by_key: Mapping[str, str]
    ambiguous: frozenset[str] = frozenset()

    @classmethod
    def from_ids(cls, ids: Iterable[str], aliases: Mapping[str, str] | None = None) -> IdResolver:
        """``aliases``: other ids an article is cited by (an article a chapter inserted into ν. 4442/2016 is
        ``N_4442_2016::221`` in citations and ``N_4811_2021::221`` in the corpus); a corpus id always wins."""
        keys: dict[str, str | None] = {}
        for doc_id in ids:
            key = cls.key(doc_id)
            keys[key] = doc_id if key not in keys or keys[key] == doc_id else None  # ambiguous: resolves to nothing
        for alias, doc_id in (aliases or {}).items():
            keys.setdefault(cls.key(alias), doc_id)
        return cls({k: v for k, v in keys.items() if v is not None},
                   frozenset(k for k, v in keys.items() if v is None))

    @staticmethod
    @functools.lru_cache(maxsize=65536)  # the same ids come back batch after batch, round after round
    def key(doc_id: str) -> str:
        """``doc_id`` compared without case, the source's Greek look-alikes read as Latin and the number's Latin
        look-alikes as Greek (the corpus's convention), the number normalised."""
        s = unicodedata.normalize("NFKC", doc_id).strip().strip(ID_EDGE)
        source, sep, number = s.partition("::")
        if not sep:
            return s.casefold()
        source = source.strip().upper().translate(GREEK_TO_LATIN)
        return f"{source.casefold()}::{article_number(number.strip()).casefold()}"

    def lookup(self, typed: str) -> tuple[str | None, str]:
        """(the corpus id, "ok") for an id typed in any of the ways above, else (None, "ambiguous" or "unknown")."""
        key = self.key(typed)
        found = self.by_key.get(key)
        if found is not None:
            return found, "ok"
        return None, "ambiguous" if key in self.ambiguous else "unknown"

    def resolve(self, typed: str) -> str | None:
        """The corpus id for an id typed in any of the ways above, or None."""
        return self.by_key.get(self.key(typed))

    def resolve_citations(self, citations: Iterable[Citation]) -> list[str]:
        """The corpus ids of ``citations`` that exist, in order, each once."""
        out: list[str] = []
        for c in citations:
            doc_id = self.resolve(c.id)
            if doc_id and doc_id not in out:
                out.append(doc_id)
        return out
