"""Every version of an article, for the API and for people (issue 49): ``/api/articles/{id}/versions`` (all of
them), ``/api/articles/{id}/versions/{law}`` (the article as it stood after one law), ``/api/articles/{id}/diff``
(the word diff between two versions), each search hit's wording as of a law (``/api/search?after=``, ``before=``), and the versions page ``/articles/{id}/versions`` that the article page's
version picker opens: the chosen version with the instructions that made it and when its law says it takes
effect, and the words a later version inserted and deleted, marked with ``<ins>``/``<del>`` and the text markers
[+ … +] / [- … -] (readable without colour, in print and by a screen reader).

The versions are those ingest stored (:mod:`nomos.legal.inforce.versions`); nothing is computed here but the diff.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup, escape
from pydantic import BaseModel, Field

from nomos.legal.inforce.diff import Run, counts, word_diff
from nomos.legal.inforce.versions import Version, find_version
from nomos.pages.in_force import ArticleVersions
from nomos.portal.api import AppliedOut, ErrorOut, PassageOut, UnappliedOut
from nomos.portal.as_of import label
from nomos.portal.errors import PortalError
from nomos.portal.links import article_url
from nomos.portal.params import ArticleId
from nomos.portal.web import PAGE_LIMIT, PortalDep, render, run

api_router = APIRouter(prefix="/api")
page_router = APIRouter(include_in_schema=False)

LawParam = Annotated[str, Path(min_length=1, max_length=120,
                               description="the law after which: its source («N_4855_2021»), its name («ν. 4855/2021», "
                                           "«4855/2021»), one of its amending articles («N_4855_2021::86») or "
                                           "«original»")]
FromParam = Annotated[str | None, Query(alias="from", max_length=120,
                                        description="the earlier version, named as a law (default: the one before "
                                                    "«to»)")]
ToParam = Annotated[str | None, Query(max_length=120, description="the later version, named as a law (default: the "
                                                                   "last, the text in force)")]


class VersionOut(BaseModel):
    law: str = Field(description="the amending law's source id («N_4855_2021»); «original»: as first enacted")
    law_name: str = Field(description="«ν. 4855/2021»; '' for the original")
    label: str = Field(description="how a reader names the version, e.g. «μετά τον ν. 4855/2021»")
    amending: list[str] = Field(description="the law's amending articles that changed the article, in order")
    effective: str = Field(description="when the law says the change takes effect, in its own words ('' : the "
                           "corpus holds no such sentence)")
    exact: bool = Field(description="whether every instruction of this law for the article was applied")
    title: str
    text: str
    passages: list[PassageOut]
    applied: list[AppliedOut] = Field(description="the law's instructions applied: which made which change")
    unapplied: list[UnappliedOut]


class VersionsOut(BaseModel):
    id: str
    title: str
    amended: bool = Field(description="false: nothing amends the article; its one version is its original text")
    versions: list[VersionOut] = Field(description="the original first, then one per amending law, in the laws' order")


class DiffRunOut(BaseModel):
    op: str = Field(description="equal, insert or delete")
    text: str


class DiffOut(BaseModel):
    id: str
    before: str = Field(description="the earlier version's law")
    after: str = Field(description="the later version's law")
    inserted_words: int
    deleted_words: int
    runs: list[DiffRunOut]


def _out(v: Version) -> VersionOut:
    return VersionOut(
        law=v.law, law_name=v.law_name, label=label(v), amending=list(v.amending), effective=v.effective,
        exact=v.exact, title=v.title, text=v.text,
        passages=[PassageOut(text=p.text, source=p.source, changed=p.changed,
                             source_url=article_url(p.source) if p.source else None) for p in v.passages],
        applied=[AppliedOut(**asdict(a)) for a in v.applied], unapplied=[UnappliedOut(**asdict(u)) for u in v.unapplied])


async def _versions(portal: PortalDep, article_id: str) -> ArticleVersions:
    found = await run(portal, portal.versions, article_id)
    if found is None:
        raise PortalError(404, "no article with this id")
    return found


def _pick(found: ArticleVersions, name: str) -> Version:
    v = find_version(found.versions, name)
    if v is None:
        raise PortalError(404, f"no version of {found.id} after {name!r}: its versions are after "
                               + ", ".join(x.law for x in found.versions))
    return v


def pair(found: ArticleVersions, before: str | None, after: str | None) -> tuple[Version, Version]:
    """The two versions a diff compares: ``after`` (default: the last) and ``before`` (default: the one before it;
    the original compared with itself where it is the only one)."""
    later = _pick(found, after) if after else found.versions[-1]
    if before:
        return _pick(found, before), later
    at = found.versions.index(later)
    return found.versions[max(at - 1, 0)], later


@api_router.get("/articles/{article_id}/versions", dependencies=[PAGE_LIMIT], response_model=VersionsOut,
                responses={404: {"model": ErrorOut}, 503: {"model": ErrorOut}},
                summary="Every version of the article: the original, then after each amending law")
async def api_versions(portal: PortalDep, article_id: ArticleId) -> VersionsOut:
    found = await _versions(portal, article_id)
    return VersionsOut(id=found.id, title=found.title, amended=found.amended,
                       versions=[_out(v) for v in found.versions])


@api_router.get("/articles/{article_id}/versions/{law:path}", dependencies=[PAGE_LIMIT], response_model=VersionOut,
                responses={404: {"model": ErrorOut}, 503: {"model": ErrorOut}},
                summary="The article as it stood after one amending law")
async def api_version(portal: PortalDep, article_id: ArticleId, law: LawParam) -> VersionOut:
    return _out(_pick(await _versions(portal, article_id), law))


@api_router.get("/articles/{article_id}/diff", dependencies=[PAGE_LIMIT], response_model=DiffOut,
                responses={404: {"model": ErrorOut}, 503: {"model": ErrorOut}},
                summary="The words a later version of the article inserted and deleted")
async def api_diff(portal: PortalDep, article_id: ArticleId, before: FromParam = None, to: ToParam = None) -> DiffOut:
    found = await _versions(portal, article_id)
    a, b = pair(found, before, to)
    runs = word_diff(a.text, b.text)
    inserted, deleted = counts(runs)
    return DiffOut(id=found.id, before=a.law, after=b.law, inserted_words=inserted, deleted_words=deleted,
                   runs=[DiffRunOut(op=r.op, text=r.text) for r in runs])


def diff_html(runs: list[Run]) -> Markup:
    """The diff for the page: deletions in ``<del>`` with «[-» «-]», insertions in ``<ins>`` with «[+» «+]», the
    markers in a span a stylesheet may shrink but never hides (they carry the meaning without colour)."""
    out = []
    for r in runs:
        if r.op == "equal":
            out.append(escape(r.text))
            continue
        tag, sign, said = ("ins", "+", "προστέθηκε") if r.op == "insert" else ("del", "-", "διαγράφηκε")
        out.append(Markup('<{0} title="{1}"><span class="mark">[{2}</span>{3}<span class="mark">{2}]</span></{0}>')
                   .format(Markup(tag), said, sign, escape(r.text)))
    return Markup("").join(out)


@page_router.get("/articles/{article_id}/versions", response_class=HTMLResponse, dependencies=[PAGE_LIMIT])
async def versions_page(request: Request, portal: PortalDep, article_id: ArticleId, before: FromParam = None,
                        to: ToParam = None) -> Response:
    """The versions page: the version «to» (default: the text in force), and what it changed from «from»."""
    found = await run(portal, portal.versions, article_id)
    if found is None:
        raise PortalError(404, "Δεν βρέθηκε άρθρο με αυτό το αναγνωριστικό.")
    try:
        a, b = pair(found, before, to)
    except PortalError:
        raise PortalError(404, "Το άρθρο δεν έχει εκδοχή μετά από αυτόν τον νόμο.") from None
    runs = word_diff(a.text, b.text)
    inserted, deleted = counts(runs)
    return await render(request, "versions.html", found=found, before=a, after=b, label=label,
                        diff=diff_html(runs), inserted=inserted, deleted=deleted)
