"""Where a found article stands in law, for every hit of a results list: repealed, amended (and by which articles),
given inserted provisions, or only partly consolidated; and a repealed article listed after those in force.

The article page knows this from the text in force that ingest stored on the article (``in_force``,
:mod:`nomos.ingest.in_force`, computed by the consolidation engine :mod:`nomos.legal.inforce`). A results list reads
the same stored value, a small part of it (its status, the amending articles, the actions applied), with the page's
own request (``_source``): nothing is recomputed, no request is added, and the engine is only read.

* ``repealed``: the last whole-article action applied is a repeal (its text in force reads «[Καταργείται]»);
* ``partial``: some amending instruction could not be applied exactly (status ``partial``), or none could
  (``none``): the text in force may lack something, so the page is the place to read it;
* ``inserted``: every action applied added provisions (a paragraph, a case, a sentence) and none replaced or
  removed any;
* ``amended``: the text in force differs from the original otherwise;
* "" (in force as written): nothing in the collection amends the article.

An article a later law inserted whole into another law (a chapter, or «προστίθενται άρθρα 7Α, 7Β και 7Γ», filed by the
corpus under the inserting law's id: N_4782_2021::7Γ is ν. 3978/2011's article 7Γ) carries its host law
(``Standing.into``, stored at ingest as ``inserted_into`` from :mod:`nomos.legal.graph.insertions`); nothing else
amending it, its status is ``inserted``, else the status its amendments give.

Why a repealed article is *demoted* rather than left out: a repealed provision still governs facts that happened
before its repeal (transitional law, the law in force at the time of the act), and the page names what repealed it;
hiding it would hide that. But it must not stand first as if it were the law today. So the search stage lists it
after the articles in force of the same list (:func:`demote_repealed`), marked; an article the query names outright
(«άρθρο 5 ν. 3979/2011») stays where the person asked for it. bench/repealed_cv.py checks on the dev sets that this
costs no recall of articles in force (docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nomos.legal.text.areas import short_name
from nomos.opensearch.transport import Transport
from nomos.pages.articles import citation, inserted_whole
from nomos.pages.snippets import INSERTED_INTO, STANDING_SOURCE, standing_part
from nomos.retrieval.base import Hit

STATUSES = ("repealed", "partial", "inserted", "amended")
_WHOLE = ("repeal", "replace-article")  # the actions that give the whole article its wording


@dataclass(frozen=True)
class Standing:
    """One article's standing: ``status`` one of :data:`STATUSES`, or "" where nothing amends it; ``by``: the
    amending articles (ids, in the order applied; for a repealed article the one that repealed it first); ``into``:
    for an article a later law inserted whole, the host law's source id (``law``: the inserting law's, ``number``
    the article's number in the host law)."""

    status: str = ""
    by: tuple[str, ...] = ()
    into: str = ""
    law: str = ""
    number: str = ""

    @property
    def repealed(self) -> bool:
        return self.status == "repealed"

    def as_dict(self) -> dict[str, Any]:
        """What the API and ``search --json`` give per hit: ``status`` ("in-force" where nothing amends it) and
        ``by``, each amending article's id and citation («άρθρο 108 ν. 4727/2020»)."""
        out: dict[str, Any] = {"status": self.status or "in-force",
                               "by": [{"id": a, "citation": cite_id(a)} for a in self.by]}
        if self.into:
            out["inserted"] = {"into": self.into, "into_citation": short_name(self.into, ""),
                               "as": f"άρθρο {self.number}", "by_law": short_name(self.law, "")}
        return out

    @property
    def inserted_whole(self) -> str:
        """«Προστέθηκε στον ν. 3978/2011 ως άρθρο 7Γ με τον ν. 4782/2021» for an article a later law inserted whole;
        "" otherwise (the page's words)."""
        return inserted_whole(self.into, self.law, self.number)

    def describe(self) -> str:
        """One line for the command line: «repealed by άρθρο 108 ν. 4727/2020: listed after the articles in
        force»; "" for an article nothing amends."""
        whole = (f"inserted whole into {short_name(self.into, '')} as article {self.number} by "
                 f"{short_name(self.law, '')}") if self.into else ""
        if not self.status or (whole and self.status == "inserted" and not self.by):
            return whole
        by = f" by {', '.join(cite_id(a) for a in self.by)}" if self.by else ""
        said = {"repealed": f"repealed{by}: listed after the articles in force",
                "partial": f"amended{by}: its text in force only partly consolidated",
                "inserted": f"provisions inserted{by}",
                "amended": f"amended{by}"}[self.status]
        return f"{whole}; {said}" if whole else said


IN_FORCE = Standing()


def cite_id(article_id: str) -> str:
    """How a lawyer cites an article known by its id alone (an amending article): «άρθρο 108 ν. 4727/2020»."""
    return citation(article_id, article_id.split("::", 1)[0], "")


def standing_of(stored: Mapping[str, Any] | None, article_id: str = "") -> Standing:
    """The standing of an article from its stored ``in_force`` value (None: nothing amends it), with the host law
    of an article inserted whole beside it (``inserted_into``: :func:`~nomos.pages.snippets.standing_part`);
    ``article_id`` gives that article its law and number."""
    if not stored:
        return IN_FORCE
    into = str(stored.get(INSERTED_INTO) or "")
    if into:
        law, _, number = article_id.partition("::")
        rest = {k: v for k, v in stored.items() if k != INSERTED_INTO}
        own = standing_of(rest)
        return Standing(own.status or "inserted", own.by, into, law, number)
    applied = [a for a in stored.get("applied") or () if isinstance(a, Mapping)]
    amendments = tuple(str(a) for a in stored.get("amendments") or ())
    whole = [a for a in applied if a.get("action") in _WHOLE]
    if whole and whole[-1].get("action") == "repeal":
        return Standing("repealed", (str(whole[-1].get("source") or ""),) if whole[-1].get("source") else amendments)
    if stored.get("status") != "full":
        return Standing("partial", amendments)
    if applied and all(str(a.get("action", "")).startswith("insert") for a in applied):
        return Standing("inserted", amendments)
    return Standing("amended", amendments)


def read_standings(transport: Transport, index: str, ids: Sequence[str]) -> dict[str, Standing]:
    """Article id -> its :class:`Standing` for ``ids``, in one ``mget`` (none for no ids). An id the index does
    not hold is left out."""
    ids = list(dict.fromkeys(ids))
    if not ids:
        return {}
    docs = transport.mget(index, ids, source=STANDING_SOURCE, what="where the results stand in law")
    return {d["_id"]: standing_of(standing_part(d.get("_source") or {}), d["_id"]) for d in docs if d.get("found")}


def hits_standing(transport: Transport, index: str, hits: Sequence[Hit]) -> dict[str, Standing]:
    """Article id -> :class:`Standing` of ``hits``: read off what their page read (``Hit.in_force``, in the page's
    own request: :data:`~nomos.pages.snippets.STANDING_SOURCE`), and with one ``mget`` for any hit whose page did
    not read it (none, usually)."""
    out = {h.doc_id: standing_of(h.in_force, h.doc_id) for h in hits if h.in_force is not None}
    return {**read_standings(transport, index, [h.doc_id for h in hits if h.doc_id not in out]), **out}


def demote_repealed(hits: Sequence[Hit], standing: Mapping[str, Standing], keep: Collection[str] = ()) -> list[Hit]:
    """``hits`` with the repealed articles listed after every article in force, each part in its order; the
    articles in ``keep`` (named outright by the query) stay where they are."""
    def repealed(h: Hit) -> bool:
        return h.doc_id not in keep and standing.get(h.doc_id, IN_FORCE).repealed

    return [h for h in hits if not repealed(h)] + [h for h in hits if repealed(h)]
