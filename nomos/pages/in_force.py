"""An article's text in force as the index stores it (``in_force``, written at ingest by
:mod:`nomos.ingest.in_force`), read back for people: the API's ``/api/articles/{id}/in-force`` and the article page.

One ``mget`` of the article's own document: the text in force is stored on it, so nothing is re-read or
re-computed at request time. An article nothing amends has no ``in_force``: it is answered with its original
paragraphs and no status (the original *is* its text), so a caller tells "not amended" from "amended, consolidated"
without a second request. :func:`article_versions` reads every version of it (``in_force_versions``) for
``/api/articles/{id}/versions``, the versions page and ``cli.py article``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nomos.legal.inforce.result import InForce, Passage
from nomos.legal.inforce.versions import ORIGINAL, Version
from nomos.legal.text.article_parts import paragraphs
from nomos.opensearch.transport import Transport

_FIELDS = ["title", "text", "source", "law", "in_force"]


@dataclass(frozen=True)
class ArticleInForce:
    """An article with its text in force: ``in_force`` is None when no article of the collection amends it
    (``passages`` are then its original paragraphs)."""

    id: str
    title: str
    source: str
    law: str
    text: str
    in_force: InForce | None

    @property
    def passages(self) -> tuple[Passage, ...]:
        if self.in_force is not None:
            return self.in_force.passages
        return tuple(Passage(p.text) for p in paragraphs(self.text))

    @property
    def title_in_force(self) -> str:
        return (self.in_force.title if self.in_force is not None else "") or self.title


def article_in_force(transport: Transport, index: str, article_id: str) -> ArticleInForce | None:
    """The article's stored text in force (one ``mget``), or None when the id is unknown."""
    docs = transport.mget(index, [article_id], source=_FIELDS, what=f"the text in force of {article_id!r}")
    if not docs or not docs[0].get("found"):
        return None
    src: dict[str, Any] = docs[0].get("_source") or {}
    stored = src.get("in_force")
    return ArticleInForce(article_id, src.get("title", ""), src.get("source", ""), src.get("law", ""),
                          src.get("text", ""), InForce.from_doc(stored) if stored else None)


@dataclass(frozen=True)
class ArticleVersions:
    """An article with every version stored at ingest (``in_force_versions``: the original first, then one after each
    amending law that changed it); an article nothing amends has its original text as its one version."""

    id: str
    title: str
    source: str
    law: str
    versions: tuple[Version, ...]

    @property
    def amended(self) -> bool:
        return len(self.versions) > 1


def article_versions(transport: Transport, index: str, article_id: str) -> ArticleVersions | None:
    """The article's stored versions (one ``mget``), or None when the id is unknown."""
    docs = transport.mget(index, [article_id], source=["title", "text", "source", "law", "in_force_versions"],
                          what=f"the versions of {article_id!r}")
    if not docs or not docs[0].get("found"):
        return None
    src: dict[str, Any] = docs[0].get("_source") or {}
    stored = src.get("in_force_versions") or []
    versions = tuple(Version.from_doc(v) for v in stored) or (
        Version(ORIGINAL, "", tuple(Passage(p.text) for p in paragraphs(src.get("text", ""))), src.get("title", "")),)
    return ArticleVersions(article_id, src.get("title", ""), src.get("source", ""), src.get("law", ""), versions)


def versions_of_many(transport: Transport, index: str, ids: list[str]) -> dict[str, tuple[Version, ...]]:
    """The stored versions of several articles (one ``mget``): those of amended articles only (an article nothing
    amends has no ``in_force_versions``: its one wording is its text)."""
    if not ids:
        return {}
    docs = transport.mget(index, ids, source=["in_force_versions"], what="the versions of the hits")
    out: dict[str, tuple[Version, ...]] = {}
    for doc in docs:
        stored = (doc.get("_source") or {}).get("in_force_versions") if doc.get("found") else None
        if stored:
            out[doc["_id"]] = tuple(Version.from_doc(v) for v in stored)
    return out
