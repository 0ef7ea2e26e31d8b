"""The portal's request parameters, checked by FastAPI before any handler runs (bounds, patterns, the method
names), shared by the pages and the JSON API so both accept exactly the same input."""

from __future__ import annotations

import enum
from typing import Annotated, Literal

from fastapi import Path as PathParam
from fastapi import Query

from nomos.legal.text.areas import areas as legal_areas
from nomos.portal.errors import PortalError
from nomos.query_text import MAX_QUERY_CHARS
from nomos.retrieval.registry import portal_methods

MAX_K = 50
MAX_ID_CHARS = 200
SOURCE_PATTERN = r"^[\w.:\-]{1,100}$"
AREA_PATTERN = r"^[a-z_]{1,40}$"
K_CHOICES = (10, 20, 50)

# The registry's portal methods (member names with "_" for "-": reform_bm25 = "reform-bm25").
Method = enum.Enum("Method", {s.name.replace("-", "_"): s.name for s in portal_methods()}, type=str)  # type: ignore[misc]

# The case: a whole case file travels in a shareable URL (the request head's bound, http_limits.HEAD_BYTES, holds
# it). Its length is checked after it is read as every path reads it (nomos.query_text.read_query: a browser sends
# a line break as two characters and counts it as one), so FastAPI does not bound it: a longer one is refused in
# Greek, the text kept in the box, never cut.
_CASE = f"the case, in everyday Greek (at most {MAX_QUERY_CHARS:,} characters)"
QueryText = Annotated[str, Query(description=_CASE, json_schema_extra={"maxLength": MAX_QUERY_CHARS})]
RequiredQuery = Annotated[str, Query(min_length=1, description=_CASE, json_schema_extra={"maxLength": MAX_QUERY_CHARS})]
MethodParam = Annotated[Method | None, Query(description="retrieval method; LLM methods only where an endpoint is configured; "
                                             "default: the best the index serves (hybrid with vectors, else bm25)")]
KParam = Annotated[int, Query(ge=1, le=MAX_K, description="number of articles")]
SourceParam = Annotated[str | None, Query(pattern=SOURCE_PATTERN, description="only articles of this legal source")]
AreaParam = Annotated[str | None, Query(pattern=AREA_PATTERN, description="only articles of this legal area: "
                                        + ", ".join(f"{a.key} ({a.label})" for a in legal_areas().values()))]
ArticleId = Annotated[str, PathParam(min_length=1, max_length=MAX_ID_CHARS, pattern=r".*[^.\-].*",  # not only dots/dashes
                                     description="article id, SOURCE::NUMBER")]
FullText = Annotated[bool, Query(description="the whole text of an article longer than a page shows")]
LawSource = Annotated[str, PathParam(pattern=SOURCE_PATTERN, description="a legal source, e.g. PK")]
TextVersion = Annotated[Literal["in-force", "original"] | None,
                        Query(description="which text an amended article's page shows: in-force (the default where "
                                          "one was consolidated) or original")]
Highlight = Annotated[str | None, Query(max_length=2 * MAX_QUERY_CHARS,  # a case as the box sent it: CR LF line ends
                                        description="terms to highlight in the text")]


def check_area(area: str | None) -> str | None:
    """The ``area`` parameter: None, or a key of the area table; anything else is a 400 naming the field."""
    if area is not None and area not in legal_areas():
        raise PortalError(400, f"area: άγνωστος νομικός τομέας {area!r}· επιτρέπονται: {', '.join(legal_areas())}")
    return area
