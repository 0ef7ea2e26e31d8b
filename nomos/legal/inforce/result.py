"""The text in force of an amended article, as it is stored beside the original and read back for people.

This module is the contract between the consolidation engine (which applies the amending articles' instructions to
an article's original text, in the order of the amending laws) and those who show or search its result (the
article document's ``in_force`` field, ``graph export``, ``/api/articles/{id}/in-force``, the portal's article
page). It holds no rules of its own: only the shape of a result and its round trip through a JSON document.

A result is made of passages (the article's paragraphs as they now read), each with its provenance: ``source`` is
"" for the original wording, else the id of the amending article that gave the passage its current wording.
An instruction that could not be applied exactly is listed in ``unapplied`` with the reason, never guessed; the
result is then ``partial`` (unless a later instruction gives the whole wording of what it would have changed: it is
then listed as superseded, and the text in force does not depend on it). ``none`` is an article some articles amend
but none of whose instructions applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Status = Literal["full", "partial", "none"]
STATUSES: tuple[str, ...] = ("full", "partial", "none")


@dataclass(frozen=True)
class Passage:
    """One paragraph of the text in force: its wording, the amending article that gave it ("" : the original's),
    and whether it differs from the original paragraph at its place (the portal highlights changed passages)."""

    text: str
    source: str = ""
    changed: bool = False


@dataclass(frozen=True)
class Applied:
    """One instruction applied: the amending article, what it did (``replace-article``, ``replace-paragraph``,
    ``insert-paragraph``, ``insert-sentence``, ``insert-case``, ``repeal``, ``replace-words`` …), where
    (``paragraph`` as the instruction names it, "" for the whole article) and the instruction's own words."""

    source: str
    action: str
    paragraph: str = ""
    instruction: str = ""


@dataclass(frozen=True)
class Unapplied:
    """One instruction that could not be applied exactly: the amending article, its words, and why (target
    paragraph or phrase not found, ambiguous, a form the engine does not read). ``superseded_by``: a later
    amending article whose applied instruction gives the whole wording of what this one would have changed (a
    whole-article or paragraph replacement), so the text in force does not depend on it ("" : it does)."""

    source: str
    instruction: str
    reason: str
    superseded_by: str = ""


@dataclass(frozen=True)
class InForce:
    """An amended article's text in force. ``amendments`` are the amending articles in the order applied (the
    amending laws by number and year, then article); ``applied`` and ``unapplied`` list every instruction read.
    ``title``: the title in force where an amendment gave the article a new one ("" : unchanged)."""

    status: Status
    passages: tuple[Passage, ...] = ()
    amendments: tuple[str, ...] = ()
    applied: tuple[Applied, ...] = ()
    unapplied: tuple[Unapplied, ...] = ()
    title: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"in_force.status must be one of {', '.join(STATUSES)}, not {self.status!r}")

    @property
    def text(self) -> str:
        """The text in force as one string: its passages, one per paragraph."""
        return "\n".join(p.text for p in self.passages)

    @property
    def partial(self) -> bool:
        return self.status != "full"

    def to_doc(self) -> dict[str, Any]:
        """The article document's ``in_force`` value (stored, not indexed; ``in_force_text`` is the searchable
        copy of :attr:`text`)."""
        return {
            "status": self.status,
            "passages": [{"text": p.text, "source": p.source, "changed": p.changed} for p in self.passages],
            "amendments": list(self.amendments),
            "applied": [{"source": a.source, "action": a.action, "paragraph": a.paragraph,
                         "instruction": a.instruction} for a in self.applied],
            "unapplied": [{"source": u.source, "instruction": u.instruction, "reason": u.reason,
                           "superseded_by": u.superseded_by} for u in self.unapplied],
            "title": self.title,
        }

    @classmethod
    def from_doc(cls, doc: dict[str, Any]) -> InForce:
        """Read a stored ``in_force`` value back (the inverse of :meth:`to_doc`)."""
        return cls(
            status=doc.get("status", "none"),
            passages=tuple(Passage(p.get("text", ""), p.get("source", ""), bool(p.get("changed", False)))
                           for p in doc.get("passages", ())),
            amendments=tuple(doc.get("amendments", ())),
            applied=tuple(Applied(a.get("source", ""), a.get("action", ""), a.get("paragraph", ""),
                                  a.get("instruction", "")) for a in doc.get("applied", ())),
            unapplied=tuple(Unapplied(u.get("source", ""), u.get("instruction", ""), u.get("reason", ""),
                                      u.get("superseded_by", "")) for u in doc.get("unapplied", ())),
            title=doc.get("title", ""),
        )
