"""Article ids as a model writes them, matched to the ids it was shown: one reading for the observer, the
re-ranker and anything else that answers with ids.

Models copy ids loosely: ``PK::386A`` with a Latin A where the corpus has a Greek Α, ``pk::372``, ``[PK::372]``,
a full-width colon, or a citation instead of an id («άρθρο 372 ΠΚ»). Each form is compared by
:meth:`nomos.legal.text.citations.IdResolver.key` (NFKC, no case, Latin look-alike letters of the number read as
Greek and those of the source read as Latin), and a citation is read with
:func:`nomos.legal.text.citations.find_citations`. A typed id is accepted only when exactly one known id matches it:
an exact match first, else a unique key match; two known ids under one key make it *ambiguous*, none *unknown*,
and both are reported, never guessed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from nomos.legal.text.citations import find_citations
from nomos.legal.text.ids import ID_EDGE, IdResolver

ID_TOKEN = re.compile(r"[\w.\-]+\s*::\s*[\w.\-]+", re.U)
"""What an id looks like in free text: ``SOURCE::NUMBER`` (``PK::386Α``, ``N_4624_2019::21``)."""
_BULLET = re.compile(r"^\s*(?:[-•*·]|\d+[.)]|\(\d+\))\s+")
OTHER_SECTION = re.compile(r"^\W*(?:not[_ ]relevant|missing|observation|answer|μη σχετικά|μη σχετικα)\W*:", re.I)
"""A section after the kept list (the paper notebook's observer stops reading there: ids under ``NOT_RELEVANT:``
are not kept)."""
NONE_ANSWER = re.compile(r"^\s*(?:\**\s*(?:relevant|σχετικά|σχετικα)\s*\**\s*:\s*)?\**\s*(?:none|κανένα|κανενα|—|-)\s*\**\s*\.?\s*$",
                         re.I)


@dataclass(frozen=True)
class Matched:
    """How one typed id matched: the known id, or none with ``status`` "unknown" or "ambiguous"."""

    typed: str
    doc_id: str | None
    status: str  # "ok", "unknown", "ambiguous"


class IdMatcher:
    """The ids a model was shown (a batch, a window, a corpus), matched against what it typed: exactly, else by
    :class:`~nomos.legal.text.citations.IdResolver`'s key (the one reading of loosely typed ids, shared with ingest
    and the search box)."""

    def __init__(self, ids: Iterable[str]) -> None:
        self.ids = list(dict.fromkeys(ids))
        self._exact = set(self.ids)
        self._resolver: IdResolver | None = None  # built on the first id not typed exactly

    def match(self, typed: str) -> Matched:
        """The one known id ``typed`` names (exactly, else by :meth:`IdResolver.key`), or why there is none."""
        t = re.sub(r"\s*::\s*", "::", unicodedata.normalize("NFKC", typed).strip().strip(ID_EDGE))
        if t in self._exact:
            return Matched(typed, t, "ok")
        if self._resolver is None:
            self._resolver = IdResolver.from_ids(self.ids)
        doc_id, status = self._resolver.lookup(t)
        return Matched(typed, doc_id, status)

    def citations(self, text: str) -> list[Matched]:
        """The known ids the citations in ``text`` name («άρθρο 372 ΠΚ»), each matched as an id."""
        return [self.match(c.id) for c in find_citations(text)]


@dataclass
class IdsFound:
    """What a reply's ids came to: the accepted ids in the order given, with a reason where one was given; the
    unknown and ambiguous spellings; whether the reply said "none" outright; and whether anything was read at
    all (``read`` False: the reply was not a list of ids in any form)."""

    ids: dict[str, str] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)
    ambiguous: list[str] = field(default_factory=list)
    said_none: bool = False
    read: bool = False

    def issues(self) -> list[dict[str, Any]]:
        """The unknown and ambiguous spellings as the traces' issue records."""
        return ([{"kind": "unknown_ids", "ids": self.unknown}] if self.unknown else []) + (
            [{"kind": "ambiguous_ids", "ids": self.ambiguous}] if self.ambiguous else [])

    def add(self, m: Matched, reason: str = "") -> None:
        self.read = True
        if m.doc_id is not None:
            self.ids.setdefault(m.doc_id, reason)
        elif m.status == "ambiguous":
            self.ambiguous.append(m.typed)
        else:
            self.unknown.append(m.typed)


def read_id_items(items: Iterable[object], matcher: IdMatcher, found: IdsFound | None = None) -> IdsFound:
    """Ids from a JSON list: strings, or objects with ``id`` (and ``reason``)."""
    found = found or IdsFound()
    found.read = True
    for item in items:
        if isinstance(item, dict):
            doc, reason = item.get("id", item.get("doc_id")), item.get("reason", "")
        else:
            doc, reason = item, ""
        if isinstance(doc, (int, float)):
            doc = str(doc)
        if isinstance(doc, str) and doc.strip():
            read_id_line(doc, matcher, found, reason if isinstance(reason, str) else str(reason))
    return found


def read_id_lines(text: str, matcher: IdMatcher) -> IdsFound:
    """Ids from plain text, one or more a line: ``<id> | reason`` (the paper notebook's observer), ``- <id>``,
    ``<id>, <id>``, a citation; ``RELEVANT: NONE`` says none; reading stops at a ``NOT_RELEVANT:``/``MISSING:``
    section, as the notebook's parser does. Lines with neither an id nor a citation (prose around the list) are
    skipped."""
    found = IdsFound()
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if OTHER_SECTION.match(line):
            break
        if NONE_ANSWER.match(line):
            found.said_none = found.read = True
            continue
        line = re.sub(r"^\**\s*(?:relevant|σχετικά|σχετικα|ids?|keep)\s*\**\s*:\s*", "", line, flags=re.I)
        line = _BULLET.sub("", line)
        reason = ""
        if "|" in line:
            line, reason = (part.strip() for part in line.split("|", 1))
        read_id_line(line, matcher, found, reason)
    return found


def read_id_line(line: str, matcher: IdMatcher, found: IdsFound, reason: str = "") -> None:
    """Every id or citation in one line (the whole line first, so an id with odd spacing still matches)."""
    whole = matcher.match(line)
    if whole.doc_id is not None:
        found.add(whole, reason)
        return
    tokens = ID_TOKEN.findall(unicodedata.normalize("NFKC", line))
    if tokens:
        for t in tokens:
            found.add(matcher.match(t), reason)
        return
    cited = matcher.citations(line)
    for m in cited:
        found.add(m, reason)
