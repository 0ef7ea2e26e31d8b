"""Relevance judgments in the portal: a reader grades a search result 0, 1 or 2, and the library grows its own test
set (``cli.py judgments export`` turns the judgments into qrels that ``eval --qrels`` scores).

Routes (``router``, included by ``create_app``; refusals answered by :func:`rejected`):

* ``POST /api/judgments`` (JSON) → 201 with the stored record when new, 200 when it replaced an earlier grade;
* ``GET /api/judgments?query=…`` (or ``query_id=…``, optionally ``user=…``) → that query's judgments;
* ``GET /api/judgments/queries`` → one summary per judged query;
* ``GET /judgments`` → the page of judged queries; ``GET /judgments?query_id=…`` → one query's judgments;
* ``POST /judgments`` → the search page's plain HTML form (no script: the page has none), answered with a 303 back
  to the same search, where the graded result says it was saved.

Who judged: the user a trusted reverse proxy signed in (``X-Forwarded-User``/``X-Remote-User`` from an address of
``NOMOS_TRUSTED_PROXIES``, :mod:`nomos.portal.identity`), which wins; else the ``user`` field (default
``anonymous``), a label and not an authentication, unless ``NOMOS_REQUIRE_SIGN_IN`` is on: then a judgment without
a signed-in user is a 401. Each client may post ``NOMOS_JUDGMENT_RATE`` judgments (429 past it). Cross-site posts
are refused (:func:`check_origin`), so another site cannot grade in a reader's name.

Everything a request sends is checked by :class:`JudgmentIn` (and the body's size, content type and shape before
it); every refusal is a 4xx whose message names the field.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Callable
from urllib.parse import parse_qs, quote, urlencode, urlsplit

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from nomos.errors import NomosError
from nomos.opensearch import judgments_store as store
from nomos.portal.identity import USER_PATTERN, BadUserHeader
from nomos.portal.service import Portal
from nomos.portal.web import PAGE_LIMIT, PortalDep, error_response, limit, render, run
from nomos.retrieval.registry import method_names

DEFAULT_USER = "anonymous"
USER_HEADER = "X-Remote-User"
MAX_ID_CHARS = 200  # as the article pages' (nomos.portal.params.MAX_ID_CHARS)
MAX_BODY_BYTES = 64 * 1024  # a query of 2,000 Greek letters and a note fit many times over
SOURCE_PATTERN = re.compile(r"^[\w.:\-]{1,100}$")  # as the search page's ``source`` (nomos.portal.params.SOURCE_PATTERN)
FORM_EXTRA = ("k", "source")  # the form's fields that only say where to go back to
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class JudgmentRejected(NomosError):
    """A judgment request the portal refuses: a 4xx and a message that names the field."""

    def __init__(self, status: int, message: str | list[str]) -> None:
        super().__init__(message if isinstance(message, str) else "; ".join(message))
        self.status = status
        self.detail = message  # under /api: the list of field problems as sent


def _clean_text(value: str | None) -> str | None:
    """Text a person can have typed: valid Unicode (no lone surrogates) and no control characters but tab and
    line breaks (OpenSearch and the qrels files would choke on them, and nobody types them)."""
    if value is None:
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("not valid Unicode text") from None
    if _CONTROL.search(value):
        raise ValueError("contains control characters")
    return value


class JudgmentIn(BaseModel):
    """A judgment as a request sends it. Validated with ``context={"article_exists": callable}`` the article id
    must also name an article of the index (without it, only its form is checked)."""

    model_config = ConfigDict(extra="forbid")

    query: Annotated[str, Field(min_length=1, max_length=store.MAX_QUERY_CHARS, description="the case, as searched")]
    article_id: Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS, description="the graded article, SOURCE::NUMBER")]
    grade: Annotated[int, Field(ge=0, le=2, description="0 not relevant, 1 relevant, 2 highly relevant")]
    note: Annotated[str | None, Field(max_length=store.MAX_NOTE_CHARS, description="why, in a few words")] = None
    user: Annotated[str | None, Field(pattern=USER_PATTERN, description=f"who judged (default {DEFAULT_USER}; "
                                                                         "a user a trusted proxy signed in wins)")] = None
    method: Annotated[str | None, Field(max_length=50, description="the retrieval method the result came from")] = None

    @field_validator("grade", mode="before")
    @classmethod
    def _no_bool(cls, v: object) -> object:
        if isinstance(v, bool):  # pydantic's lax int takes true as 1; a grade is a number
            raise ValueError("must be 0, 1 or 2, not a boolean")
        return v

    @field_validator("query")
    @classmethod
    def _query(cls, v: str) -> str:
        v = _clean_text(v) or ""
        if not v.strip():
            raise ValueError("must not be empty")
        return v.strip()

    @field_validator("note")
    @classmethod
    def _note(cls, v: str | None) -> str | None:
        v = _clean_text(v)
        if v is None:
            return None
        return v.strip() or None  # an empty note is no note

    @field_validator("article_id")
    @classmethod
    def _article(cls, v: str, info: ValidationInfo) -> str:
        v = _clean_text(v) or ""
        if v != v.strip() or any(c.isspace() for c in v):
            raise ValueError("must not contain white space")  # qrels lines are split on it
        exists = (info.context or {}).get("article_exists")
        if exists is not None and not exists(v):
            raise ValueError(f"no article {v!r} in the index")
        return v

    @field_validator("method")
    @classmethod
    def _method(cls, v: str | None) -> str | None:
        if v is not None and v not in method_names():
            raise ValueError(f"unknown method; one of {', '.join(method_names())}")
        return v


class JudgmentOut(BaseModel):
    id: str
    query: str
    query_id: str
    article_id: str
    grade: int
    note: str | None
    user: str
    method: str | None
    created: str
    updated: str


class JudgmentsOut(BaseModel):
    query_id: str
    judgments: list[JudgmentOut]


class QuerySummaryOut(BaseModel):
    query_id: str
    query: str
    articles: int
    users: int
    judgments: int
    grades: dict[int, int] = Field(description="judgments per grade (0, 1, 2)")
    updated: str


class RejectedOut(BaseModel):
    detail: str | list[str]


# ------------------------------------------------------------------------------------------------ checks
def _problems(exc: ValidationError) -> list[str]:
    """pydantic's errors as ``field: message`` lines (the field first: that is what a person looks for)."""
    out = []
    for e in exc.errors():
        where = ".".join(str(x) for x in e.get("loc", ())) or "body"
        out.append(f"{where}: {str(e.get('msg', 'invalid')).removeprefix('Value error, ')}")
    return out


def user_of(request: Request, given: str | None) -> str:
    """The judging user: the one a trusted proxy signed in (checked like the field), else, unless sign-in is
    required (401), the request's ``user``, else ``anonymous``. The user headers of anyone but a trusted proxy
    are ignored."""
    try:
        signed = request.app.state.proxies.user(request)
    except BadUserHeader as exc:
        raise JudgmentRejected(400, str(exc)) from None
    if signed:
        return signed
    if request.app.state.portal.settings.sign_in_required:
        raise JudgmentRejected(401, "sign in first: judgments are kept only from signed-in users")
    return given or DEFAULT_USER


def _signed_in_reader(request: Request) -> None:
    """Under sign-in, the judgments (cases, notes, user names and e-mail addresses) are read by signed-in users only:
    a 401 for anyone else (they were open to anyone while posting needed sign-in)."""
    if not request.app.state.portal.settings.sign_in_required:
        return
    try:
        if request.app.state.proxies.user(request):
            return
    except BadUserHeader as exc:
        raise JudgmentRejected(400, str(exc)) from None
    raise JudgmentRejected(401, "sign in first: the judgments are shown only to signed-in users")


READER = Depends(_signed_in_reader)


def check_origin(request: Request) -> None:
    """Refuse a POST another site's page sent (a forged form).

    Browsers say where a request comes from in ``Sec-Fetch-Site`` (``same-origin``, ``same-site``, ``cross-site``,
    ``none`` for a typed address): only ``same-origin`` and ``none`` pass. Browsers too old for ``Sec-Fetch-Site``
    are checked by their ``Origin`` against ``Host`` (or a trusted proxy's ``X-Forwarded-Host``; a client's is not
    believed); ``Origin: null`` (an opaque origin: a sandboxed frame, a data: page) is refused. Requests with
    neither header (curl, scripts) pass: they cannot forge a reader's grade."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        if site.lower() not in ("same-origin", "none"):
            raise JudgmentRejected(403, f"Sec-Fetch-Site header: {site[:40]!r}; judgments are posted from the portal's own pages")
        return
    origin = request.headers.get("origin")
    if origin is None:
        return
    if origin == "null":  # an opaque origin (a sandboxed frame, a data: page) never posts a reader's grade
        raise JudgmentRejected(403, "Origin header: 'null'; judgments are posted from the portal's own pages")
    forwarded = ("x-forwarded-host",) if request.app.state.proxies.trusted(request) else ()  # a client's: not believed
    hosts = {request.headers.get(h, "").lower() for h in ("host", *forwarded)} - {""}
    if urlsplit(origin).netloc.lower() not in hosts:
        raise JudgmentRejected(403, f"Origin header: {origin[:100]!r} is not this portal; judgments are posted from its own pages")


async def _body(request: Request, content_type: str) -> bytes:
    ctype = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if ctype != content_type:
        raise JudgmentRejected(415, f"Content-Type header: {ctype or 'none'!r}; send {content_type}")
    size = request.headers.get("content-length")
    if size is not None and size.isdigit() and int(size) > MAX_BODY_BYTES:
        raise JudgmentRejected(413, f"body: more than {MAX_BODY_BYTES} bytes")
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY_BYTES:
            raise JudgmentRejected(413, f"body: more than {MAX_BODY_BYTES} bytes")
    return raw


def validate(data: Any, article_exists: Callable[[str], bool]) -> JudgmentIn:  # whatever was sent
    """``data`` as a :class:`JudgmentIn`, the article looked up in the index; 422 naming each bad field."""
    if not isinstance(data, dict):
        raise JudgmentRejected(422, [f"body: expected a JSON object with query, article_id and grade, got {type(data).__name__}"])
    try:
        return JudgmentIn.model_validate(data, context={"article_exists": article_exists})
    except ValidationError as exc:
        raise JudgmentRejected(422, _problems(exc)) from None


def _form_fields(raw: bytes) -> dict[str, str]:
    try:
        text = raw.decode("utf-8")
        pairs = parse_qs(text, keep_blank_values=True, strict_parsing=bool(text), errors="strict", max_num_fields=20)
    except UnicodeDecodeError:
        raise JudgmentRejected(400, "body: not valid UTF-8") from None
    except ValueError as exc:
        raise JudgmentRejected(400, f"body: not a form ({exc})") from None
    twice = sorted(k for k, v in pairs.items() if len(v) > 1)
    if twice:
        raise JudgmentRejected(422, [f"{k}: given more than once" for k in twice])
    return {k: v[0] for k, v in pairs.items()}


def back_to_search(fields: dict[str, str], j: store.Judgment) -> str:
    """The search the form was posted from, saying which result was just graded (``judged``/``grade``/``note``,
    which the search page ignores and the grade control shows), scrolled to that result."""
    params: dict[str, str] = {"q": j.query}
    if j.method:
        params["method"] = j.method
    k = fields.get("k", "")
    if k.isdigit() and 1 <= int(k) <= 50 and int(k) != 10:
        params["k"] = k
    source = fields.get("source", "")
    if SOURCE_PATTERN.match(source):
        params["source"] = source
    params.update(judged=j.article_id, grade=str(j.grade))
    if fields.get("user") and j.user == fields["user"]:  # a name typed on the form (not a proxy's): kept for the next grade
        params["by"] = j.user
    if j.note:  # the note just saved, shown again in its field (issue 50: the form came back with it empty)
        params["note"] = j.note
    return "/search?" + urlencode(params) + "#j-" + quote(j.article_id, safe="")


# ------------------------------------------------------------------------------------------------ routes
router = APIRouter()
REFUSALS: dict[int | str, dict[str, Any]] = {s: {"model": RejectedOut} for s in (400, 403, 413, 415, 422)}


def _save(portal: Portal, data: Any, user: str) -> tuple[store.Judgment, bool]:  # whatever was sent
    """Validate (the article looked up in the portal's index) and store: blocking, run in a worker thread."""
    j = validate(data, lambda article_id: store.article_exists(portal.client, portal.index, article_id))
    return store.put_judgment(portal.client, portal.index, query=j.query, article_id=j.article_id, grade=j.grade,
                              user=user, note=j.note, method=j.method)


@router.post("/api/judgments", status_code=201, response_model=JudgmentOut, summary="Grade one result of a search",
             responses={200: {"model": JudgmentOut, "description": "an earlier grade replaced"}, **REFUSALS},
             openapi_extra={"requestBody": {"required": True,
                                            "content": {"application/json": {"schema": JudgmentIn.model_json_schema()}}}})
async def api_judge(request: Request, portal: PortalDep) -> Response:
    check_origin(request)
    limit(request, "judgment")
    raw = await _body(request, "application/json")
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise JudgmentRejected(400, f"body: not JSON ({exc})") from None
    except ValueError:  # Python refuses to read an integer of more than 4,300 digits (a 5,000-digit grade)
        raise JudgmentRejected(422, ["body: a number too long to be read (more than 4,300 digits)"]) from None
    except RecursionError:  # [[[[…]]]] thousands deep: the parser gives up (it was a 500 and a traceback per request)
        raise JudgmentRejected(400, "body: JSON nested too deeply (a judgment is one flat object)") from None
    given = data.get("user") if isinstance(data, dict) and isinstance(data.get("user"), str) else None
    user = user_of(request, given)
    if isinstance(data, dict):
        data = {**data, "user": user}  # the proxy's name, where there is one, is the one stored (and checked)
    judgment, created = await run(portal, _save, portal, data, user)
    return JSONResponse(judgment.as_dict(), status_code=201 if created else 200)


@router.get("/api/judgments", dependencies=[PAGE_LIMIT, READER], response_model=JudgmentsOut, responses={422: {"model": RejectedOut}},
            summary="The judgments of one query")
async def api_judgments(portal: PortalDep,
                        query: Annotated[str | None, Query(min_length=1, max_length=store.MAX_QUERY_CHARS)] = None,
                        query_id: Annotated[str | None, Query(pattern=r"^[0-9a-f]{16}$")] = None,
                        user: Annotated[str | None, Query(pattern=USER_PATTERN)] = None) -> JudgmentsOut:
    if (query is None) == (query_id is None):
        raise JudgmentRejected(422, ["query, query_id: give exactly one of them"])
    qid = query_id or store.query_id(query or "")
    rows = await run(portal, lambda: store.list_judgments(portal.client, portal.index, qid=qid, user=user))
    return JudgmentsOut(query_id=qid, judgments=[JudgmentOut(**j.as_dict()) for j in rows])


PAGE_SIZE = 50  # judged queries on one page of /judgments
Page = Annotated[int, Query(ge=1, le=store.MAX_LIST, description="page number, from 1 (newest first)")]


def _page_of(page: int, size: int) -> tuple[int, int]:
    """(offset, size) of a page, within the first ``store.MAX_LIST`` rows (past them: 422 naming the field)."""
    offset = (page - 1) * size
    if offset >= store.MAX_LIST:
        raise JudgmentRejected(422, [f"page: at most {store.MAX_LIST // size} pages of {size}"])
    return offset, size


@router.get("/api/judgments/queries", dependencies=[PAGE_LIMIT, READER], response_model=list[QuerySummaryOut], responses={422: {"model": RejectedOut}},
            summary="Every judged query, latest first, a page at a time")
async def api_judged_queries(portal: PortalDep, page: Page = 1,
                             size: Annotated[int, Query(ge=1, le=store.MAX_QUERIES)] = store.MAX_QUERIES) -> list[QuerySummaryOut]:
    offset, size = _page_of(page, size)
    rows = await run(portal, store.query_summaries, portal.client, portal.index, size, offset)
    return [QuerySummaryOut(**r) for r in rows]


@router.get("/judgments", dependencies=[PAGE_LIMIT, READER], include_in_schema=False)
async def judgments_page(request: Request, portal: PortalDep,
                         query_id: Annotated[str | None, Query(pattern=r"^[0-9a-f]{16}$")] = None,
                         page: Page = 1, size: Annotated[int, Query(ge=1, le=200)] = PAGE_SIZE) -> Response:
    if query_id is None:
        offset, size = _page_of(page, size)
        rows = await run(portal, store.query_summaries, portal.client, portal.index, size, offset)
        total = await run(portal, store.judged_queries, portal.client, portal.index)
        pages = max(1, min(-(-total // size), store.MAX_LIST // size))
        return await render(request, "judgments.html", rows=rows, detail=None, page=page, pages=pages, size=size,
                            total=total)
    detail = await run(portal, lambda: store.list_judgments(portal.client, portal.index, qid=query_id))
    if not detail:
        raise JudgmentRejected(404, "Δεν υπάρχουν αξιολογήσεις για αυτό το ερώτημα.")
    latest = max(detail, key=lambda j: (j.updated, j.id))
    return await render(request, "judgments.html", rows=None, detail=detail, query=latest.query, query_id=query_id)


@router.post("/judgments", include_in_schema=False)
async def judge_form(request: Request, portal: PortalDep) -> Response:
    check_origin(request)
    limit(request, "judgment")
    fields = _form_fields(await _body(request, "application/x-www-form-urlencoded"))
    data: dict[str, Any] = {k: v for k, v in fields.items() if k not in FORM_EXTRA and not (k in ("note", "user", "method") and v == "")}
    data["user"] = user_of(request, data.get("user"))
    user = data["user"]
    try:
        judgment, _ = await run(portal, _save, portal, data, user)
    except JudgmentRejected as exc:
        raise JudgmentRejected(exc.status, "Μη έγκυρη αξιολόγηση: " + exc.message) from None
    return RedirectResponse(back_to_search(fields, judgment), status_code=303)


async def rejected(request: Request, exc: JudgmentRejected) -> Response:
    """The answer to a refused judgment: the refusal's status, its detail (a list of field problems, or one line)."""
    return await error_response(request, exc.status, exc.message, detail=exc.detail)
