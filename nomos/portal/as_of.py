"""A search's hits as they read on a given date (issue 49): ``/api/search?after=LAW`` (``before=LAW``) gives each
amended hit its wording as it stood after that law (on its eve), the laws that changed it since, and whether it is
today's text in force. The ranking is the usual one (BM25 reads the original wording and today's, both indexed);
the versions are those ingest stored (:mod:`nomos.legal.inforce.versions`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query
from pydantic import BaseModel, Field

from nomos.legal.inforce.versions import ORIGINAL, Version, law_key_of, version_as_of
from nomos.portal.errors import PortalError
from nomos.portal.web import PortalDep, run


def label(v: Version) -> str:
    return "Αρχικό κείμενο" if v.law == ORIGINAL else f"Μετά τον {v.law_name}"


class AsOfOut(BaseModel):
    law: str = Field(description="the version's law («original»: as first enacted)")
    label: str
    today: bool = Field(description="whether this wording is today's text in force")
    changed_since_by: list[str] = Field(description="the laws that changed the article after that date")
    text: str


AsOfLaw = Annotated[str | None, Query(max_length=120, description="give each amended hit's wording as it stood after "
                                      "this law («ν. 4855/2021», «4855/2021», «N_4855_2021»); the ranking is the usual")]
BeforeLaw = Annotated[str | None, Query(max_length=120, description="the same, on the eve of this law (facts that "
                                        "happened before it)")]


async def wording_then(portal: PortalDep, ids: list[str], after: str | None, before: str | None
                       ) -> dict[str, AsOfOut] | None:
    """Each amended hit's wording after (before) a law, for ``/api/search?after=`` (None: neither asked)."""
    if after is None and before is None:
        return None
    if after is not None and before is not None:
        raise PortalError(422, "after, before: give one of them")
    law = after or before or ""
    key = law_key_of(law)
    if key is None:
        raise PortalError(422, f"{'after' if after else 'before'}: {law!r} names no law («ν. 4855/2021», «4855/2021»)")
    stored = await run(portal, portal.versions_of, ids)
    out = {}
    for article_id, versions in stored.items():
        v = version_as_of(versions, key, before is not None)
        at = versions.index(v)
        out[article_id] = AsOfOut(law=v.law, label=label(v), today=at == len(versions) - 1,
                                  changed_since_by=[x.law_name for x in versions[at + 1:]], text=v.text)
    return out


