"""The portal's web application: a Greek search page, article pages and a JSON API with an OpenAPI description.

``create_app(settings)`` builds everything from one :class:`Settings`; state lives on ``app.state.portal``
(no globals). Retrieval runs in worker threads: BM25 on the default pool, LLM methods on a small pool of their own
with a deadline, so a slow LLM never holds up BM25 searches.
"""

from __future__ import annotations

import enum
import functools
import html
import json
import logging
import os
import re
from dataclasses import asdict, fields
from pathlib import Path
from typing import Annotated, Any, Callable
from urllib.parse import quote, quote_plus

import anyio
from anyio.to_thread import run_sync
from fastapi import FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape
from opensearchpy.exceptions import ConnectionError as OSConnectionError
from opensearchpy.exceptions import NotFoundError, RequestError, TransportError
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from nomos.mappings.areas import areas as legal_areas
from nomos.opensearch.client import make_client
from nomos.portal.judgments import register_judgments
from nomos.portal.service import METHOD_LABELS, MethodUnavailable, Portal, SearchOutcome
from nomos.retrieval.articles import citation
from nomos.retrieval.bm25 import SearchError
from nomos.retrieval.llm import LLMError
from nomos.retrieval.registry import DEFAULT_METHOD, method_spec, portal_methods
from nomos.settings import Settings

HERE = Path(__file__).parent
log = logging.getLogger("nomos.portal")

MAX_QUERY_CHARS = 2000  # a case description; the whole query travels in a shareable URL
MAX_K = 50
MAX_ID_CHARS = 200
SOURCE_PATTERN = r"^[\w.:\-]{1,100}$"
AREA_PATTERN = r"^[a-z_]{1,40}$"
MATCH_ANCHOR = "match"  # the id of the first highlighted passage on an article page; links with ?q= point at it
K_CHOICES = (10, 20, 50)

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # the case text is in the address: never send it to another site
    "X-Frame-Options": "DENY",
}


# The registry's portal methods (member names with "_" for "-": reform_bm25 = "reform-bm25").
Method = enum.Enum("Method", {s.name.replace("-", "_"): s.name for s in portal_methods()}, type=str)  # type: ignore[misc]


# ------------------------------------------------------------------------------------------------ parameters
QueryText = Annotated[str, Query(max_length=MAX_QUERY_CHARS, description="the case, in everyday Greek")]
MethodParam = Annotated[Method | None, Query(description="retrieval method; LLM methods only where an endpoint is configured; "
                                             "default: the best the index serves (hybrid with vectors, else bm25)")]
KParam = Annotated[int, Query(ge=1, le=MAX_K, description="number of articles")]
SourceParam = Annotated[str | None, Query(pattern=SOURCE_PATTERN, description="only articles of this legal source")]
AreaParam = Annotated[str | None, Query(pattern=AREA_PATTERN, description="only articles of this legal area: "
                                        + ", ".join(f"{a.key} ({a.label})" for a in legal_areas().values()))]
ArticleId = Annotated[str, PathParam(min_length=1, max_length=MAX_ID_CHARS, description="article id, SOURCE::NUMBER")]
Highlight = Annotated[str | None, Query(max_length=MAX_QUERY_CHARS, description="terms to highlight in the text")]


# ------------------------------------------------------------------------------------------------ API models
class HitOut(BaseModel):
    id: str
    title: str
    law: str
    source: str
    score: float
    snippets: list[str] = Field(description="HTML: the article's text, escaped, with the query's terms in <mark>")
    citation: str = Field(description="how to cite the article, e.g. «άρθρο 372 ΠΚ», «άρθρο 5 ν. 4624/2019»")
    url: str = Field(description="the article's page, the case's terms highlighted, scrolled to the first one")


class FacetOut(BaseModel):
    source: str
    law: str
    count: int


class AreaFacetOut(BaseModel):
    area: str
    label: str
    count: int


class TraceRound(BaseModel):
    round: int
    query: str
    query_source: str | None = None
    thought: str | None = None
    candidates: int
    kept: list[str]


class SearchOut(BaseModel):
    query: str
    method: str
    k: int
    source: str | None
    area: str | None = None
    total: int
    took_ms: float
    hits: list[HitOut]
    facets: list[FacetOut]
    areas: list[AreaFacetOut] = Field(default_factory=list, description="the legal areas of the matches, with counts")
    trace: list[TraceRound] | None = None
    reranked: str | None = Field(None, description="the judge that re-ordered the top (the portal's NOMOS_RERANK), if any")
    url: str = Field(description="the shareable page of this search")


class ArticleRefOut(BaseModel):
    id: str
    number: str
    title: str
    law: str = ""
    score: float | None = None


class ArticleOut(BaseModel):
    id: str
    title: str
    law: str
    source: str
    number: str
    area: str = Field(description="legal area key ('' in an index built before areas existed)")
    citation: str
    text: str
    previous: ArticleRefOut | None
    next: ArticleRefOut | None
    neighbours: list[ArticleRefOut]
    law_size: int
    similar: list[ArticleRefOut]


class ErrorOut(BaseModel):
    detail: str


# ------------------------------------------------------------------------------------------------ helpers
class PortalError(Exception):
    """An error a person should read: a status code and a Greek message, never a stack trace."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def safe_snippet(fragment: str) -> Markup:
    """OpenSearch's html-encoded highlight, rebuilt so that the only markup that can come out is <mark>."""
    parts = re.split(r"(</?mark>)", fragment)
    out = []
    for p in parts:
        if p in ("<mark>", "</mark>"):
            out.append(p)
        else:
            out.append(str(escape(html.unescape(p))))
    return Markup("".join(out))


def anchored_snippet(fragment: str) -> Markup:
    """:func:`safe_snippet`, with the first <mark> carrying ``id=MATCH_ANCHOR`` (where ``#match`` links land)."""
    return Markup(str(safe_snippet(fragment)).replace("<mark>", f'<mark id="{MATCH_ANCHOR}">', 1))


_ASCII_RUN = re.compile(r"[\x00-\x9f]+")  # ASCII and the C1 controls: percent-encoded; other characters stay


@functools.lru_cache(maxsize=256)
def _param(value: str, iri: bool = False) -> str:
    """A query-string value, percent-encoded as ``urlencode`` does. Cached: a results page links the same case
    (up to 2,000 Greek characters) from every hit and every facet.

    ``iri``: leave letters beyond ASCII as they are (the URL Standard counts U+00A0 and above as URL code points;
    browsers percent-encode them when they follow the link). A Greek letter is then 2 bytes in the page instead
    of 6, which keeps a results page of 26 links to the same case at about half its size."""
    if not iri:
        return quote_plus(value, safe="")
    return _ASCII_RUN.sub(lambda m: quote_plus(m.group(), safe=""), value)


def _url(path: str, iri: bool = False, **params: Any) -> str:
    q = "&".join(f"{k}={_param(str(v), iri)}" for k, v in params.items() if v not in (None, ""))
    return path + ("?" + q if q else "")


def _href(url: str) -> Markup:
    """A URL built by :func:`_url` as an HTML attribute value: the encoding leaves no HTML-special character but
    the ``&`` between parameters, so this is what autoescaping would give, without escaping the long case text
    again for every link."""
    return Markup(url.replace("&", "&amp;"))


def search_url(q: str, method: str = DEFAULT_METHOD, k: int = 10, source: str | None = None, iri: bool = False,
               area: str | None = None) -> str:
    """The shareable address of a search (percent-encoded ASCII; ``iri`` for links inside the portal's pages)."""
    return _url("/search", iri, q=q, method=None if method == DEFAULT_METHOD else method, k=None if k == 10 else k,
                source=source, area=area)


def article_url(article_id: str, q: str | None = None, iri: bool = False) -> str:
    """An article's page, with the case's words to highlight in its text; with a case, the link lands on the first
    highlighted passage (``#match``; a page without one simply opens at the top)."""
    return _url("/articles/" + quote(article_id, safe=""), iri, q=q) + (f"#{MATCH_ANCHOR}" if q else "")


def check_area(area: str | None) -> str | None:
    """The ``area`` parameter: None, or a key of the area table; anything else is a 400 naming the field."""
    if area is not None and area not in legal_areas():
        raise PortalError(400, f"area: άγνωστος νομικός τομέας {area!r}· επιτρέπονται: {', '.join(legal_areas())}")
    return area


def _classify(exc: BaseException) -> PortalError | None:
    """Known failures → (status, Greek message); None for the unexpected."""
    if isinstance(exc, PortalError):
        return exc
    if isinstance(exc, MethodUnavailable):
        return PortalError(400, str(exc)[:1].upper() + str(exc)[1:])
    if isinstance(exc, OSConnectionError):
        return PortalError(503, "Η μηχανή αναζήτησης δεν είναι διαθέσιμη αυτή τη στιγμή. Δοκιμάστε ξανά σε λίγο.")
    if isinstance(exc, NotFoundError) or (isinstance(exc, SearchError) and "no such index" in str(exc)):
        return PortalError(503, "Το ευρετήριο των άρθρων δεν είναι διαθέσιμο αυτή τη στιγμή.")
    if isinstance(exc, (RequestError, SearchError)):
        return PortalError(400, "Η μηχανή αναζήτησης δεν δέχτηκε το ερώτημα. Διατυπώστε το διαφορετικά.")
    if isinstance(exc, TransportError):
        return PortalError(503, "Η μηχανή αναζήτησης δεν απάντησε σωστά. Δοκιμάστε ξανά σε λίγο.")
    if isinstance(exc, LLMError):
        return PortalError(502, "Το γλωσσικό μοντέλο δεν απάντησε. Δοκιμάστε τη μέθοδο BM25.")
    return None


class SecurityHeaders:
    """Pure ASGI middleware: the security headers on every response (pages, API, static files, errors)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                for k, v in SECURITY_HEADERS.items():
                    if k.lower().encode() not in present:
                        headers.append((k.lower().encode(), v.encode()))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


# ------------------------------------------------------------------------------------------------ the app
PORTAL_RETRY_SECONDS = 1.0


def create_app(settings: Settings, llm_deadline: float = 90.0, llm_slots: int = 4) -> FastAPI:
    """The portal for ``settings`` (its cluster and index alias, LLM endpoint if any).

    Searches do not wait out a restarting node as ``eval`` does (``retry_seconds``): a person at the page gets a
    503 at once and retries, so the portal keeps at most ``PORTAL_RETRY_SECONDS`` of backoff."""
    settings = settings.with_overrides(retry_seconds=min(settings.retry_seconds, PORTAL_RETRY_SECONDS))
    app = FastAPI(
        title="nomos — πύλη νομοθεσίας",
        description="Αναζήτηση άρθρων της ελληνικής νομοθεσίας (BM25, kNN, υβριδική, LLM). JSON API of the nomos portal.",
        version="1.0",
        docs_url=None,  # Swagger UI loads scripts from a CDN: the portal loads nothing from outside
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    client = make_client(settings, pool_maxsize=32)
    portal = Portal(settings, client, llm_deadline=llm_deadline)
    app.state.portal = portal
    app.state.llm_limiter = anyio.CapacityLimiter(llm_slots)

    # auto_reload off: the templates ship with the code, so no stat() of every template on every page
    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(default=True, default_for_string=True),
                      auto_reload=False)
    env.globals.update(search_url=lambda *a, **kw: _href(search_url(*a, **kw, iri=True)),
                       article_url=lambda *a, **kw: _href(article_url(*a, **kw, iri=True)),
                       METHOD_LABELS=METHOD_LABELS, K_CHOICES=K_CHOICES, MAX_QUERY_CHARS=MAX_QUERY_CHARS,
                       AREA_LABELS={a.key: a.label for a in legal_areas().values()}, citation=citation)
    env.filters["snippet"] = safe_snippet
    env.filters["anchored"] = anchored_snippet
    templates = Jinja2Templates(env=env)
    app.state.templates = templates
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    app.add_middleware(SecurityHeaders)

    async def call(fn: Callable[..., Any], *args: Any, llm: bool = False) -> Any:
        """Run blocking retrieval in a worker thread; LLM methods on their own few threads, under a deadline."""
        if not llm:
            return await run_sync(fn, *args)
        try:
            with anyio.fail_after(portal.llm_deadline):
                return await run_sync(fn, *args, limiter=app.state.llm_limiter, abandon_on_cancel=True)
        except TimeoutError:
            raise PortalError(504, f"Η μέθοδος δεν ολοκληρώθηκε σε {portal.llm_deadline:g} δευτερόλεπτα. Δοκιμάστε τη μέθοδο BM25.") from None

    def page(request: Request, name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        base = {"methods": _safe_methods(portal), "form": {"q": "", "method": DEFAULT_METHOD, "k": 10, "source": None, "area": None}}
        return templates.TemplateResponse(request, name, {**base, **ctx}, status_code=status)

    def error_response(request: Request, err: PortalError) -> Response:
        if request.url.path.startswith("/api"):
            return JSONResponse({"detail": err.message}, status_code=err.status)
        return page(request, "error.html", status=err.status, error=err)

    # ---------------------------------------------------------------------------------------- errors
    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        problems = []
        for e in exc.errors():
            where = ".".join(str(x) for x in e.get("loc", ())[1:]) or "request"
            problems.append(f"{where}: {e.get('msg', 'invalid')}")
        if request.url.path.startswith("/api"):
            return JSONResponse({"detail": problems}, status_code=422)
        return page(request, "error.html", status=422,
                    error=PortalError(422, "Μη έγκυρη αναζήτηση: " + "; ".join(problems)))

    for known in (PortalError, MethodUnavailable, OSConnectionError, TransportError, SearchError, LLMError):
        @app.exception_handler(known)
        async def handled(request: Request, exc: Exception) -> Response:
            err = _classify(exc) or PortalError(500, "Εσωτερικό σφάλμα.")
            if err.status >= 500:
                log.warning("%s %s: %s: %s", request.method, request.url.path, type(exc).__name__, exc)
            return error_response(request, err)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        messages = {404: "Δεν βρέθηκε η σελίδα.", 405: "Η μέθοδος HTTP δεν υποστηρίζεται."}
        err = PortalError(exc.status_code, messages.get(exc.status_code, str(exc.detail)))
        if request.url.path.startswith("/api"):
            return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=getattr(exc, "headers", None))
        return page(request, "error.html", status=exc.status_code, error=err)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        # Runs in the outermost middleware: add the security headers here too. The trace goes to the log only.
        log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
        err = PortalError(500, "Παρουσιάστηκε εσωτερικό σφάλμα. Το πρόβλημα καταγράφηκε.")
        resp = error_response(request, err)
        resp.headers.update(SECURITY_HEADERS)
        return resp

    async def run_search(q: str, method: Method | None, k: int, source: str | None, area: str | None = None) -> SearchOutcome:
        check_area(area)
        m = method.value if method is not None else portal.default_method()
        llm = method_spec(m).needs_llm or portal.settings.rerank == "llm"  # an LLM judge takes an LLM slot too
        if llm:
            portal.check_method(m)  # refuse before taking an LLM slot
        return await call(portal.search, q.strip(), m, k, source, area, llm=llm)

    # ---------------------------------------------------------------------------------------- pages
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    @app.get("/search", response_class=HTMLResponse, include_in_schema=False)
    async def search_page(request: Request, q: QueryText = "", method: MethodParam = None, k: KParam = 10,
                          source: SourceParam = None, area: AreaParam = None) -> Response:
        form = {"q": q, "method": method.value if method is not None else DEFAULT_METHOD, "k": k, "source": source, "area": area}
        if not q.strip():
            if method is None:
                form["method"] = await call(_default_or_bm25, portal)
            return page(request, "search.html", form=form, result=None)
        try:
            result = await run_search(q, method, k, source, area)
        except Exception as exc:  # noqa: BLE001 - known failures are shown in the page, with the form kept
            err = _classify(exc)
            if err is None:
                raise
            if err.status >= 500:
                log.warning("search failed: %s: %s", type(exc).__name__, exc)
            return page(request, "search.html", status=err.status, form=form, result=None, error=err)
        form["method"] = result.method
        return page(request, "search.html", form=form, result=result, defaulted=method is None)

    @app.get("/articles/{article_id}", response_class=HTMLResponse, include_in_schema=False)
    async def article_page(request: Request, article_id: ArticleId, q: Highlight = None) -> Response:
        art = await call(portal.article, article_id, q)
        if art is None:
            raise PortalError(404, "Δεν βρέθηκε άρθρο με αυτό το αναγνωριστικό.")
        return page(request, "article.html", article=art, q=q or "")

    # ---------------------------------------------------------------------------------------- API
    errors = {400: {"model": ErrorOut}, 503: {"model": ErrorOut}}

    @app.get("/api/search", response_model=SearchOut, responses={**errors, 502: {"model": ErrorOut}, 504: {"model": ErrorOut}},
             summary="Top articles for a case description")
    async def api_search(q: Annotated[str, Query(min_length=1, max_length=MAX_QUERY_CHARS, description="the case, in everyday Greek")],
                         method: MethodParam = None, k: KParam = 10, source: SourceParam = None,
                         area: AreaParam = None) -> SearchOut:
        r = await run_search(q, method, k, source, area)
        return SearchOut(
            query=r.query, method=r.method, k=r.k, source=r.source, area=r.area, total=r.total, took_ms=round(r.took_ms, 2),
            hits=[HitOut(id=h.doc_id, title=h.title, law=h.law, source=h.source, score=h.score,
                         snippets=[str(safe_snippet(s)) for s in h.highlights], citation=citation(h.doc_id, h.source, h.law),
                         url=article_url(h.doc_id, r.query))
                  for h in r.hits],
            facets=[FacetOut(**asdict(f)) for f in r.facets],
            areas=[AreaFacetOut(**asdict(a)) for a in r.areas],
            trace=[TraceRound(round=t.get("round", i + 1), query=t.get("query", ""), query_source=t.get("query_source"),
                              thought=t.get("thought"), candidates=len(t.get("candidates", ())), kept=list(t.get("kept", ())))
                   for i, t in enumerate(r.trace)] if r.trace is not None else None,
            reranked=r.reranked,
            url=search_url(r.query, r.method, r.k, r.source, area=r.area),
        )

    @app.get("/api/articles/{article_id}", response_model=ArticleOut, responses={404: {"model": ErrorOut}, 503: {"model": ErrorOut}},
             summary="One article with its law's neighbours and similar articles")
    async def api_article(article_id: ArticleId) -> ArticleOut:
        art = await call(portal.article, article_id, None)
        if art is None:
            raise PortalError(404, "no article with this id")

        def ref(r: Any) -> ArticleRefOut | None:
            return None if r is None else ArticleRefOut(**{f.name: getattr(r, f.name) for f in fields(r)})

        return ArticleOut(
            id=art.id, title=art.title, law=art.law, source=art.source, number=art.number, area=art.area,
            citation=citation(art.id, art.source, art.law), text=art.text,
            previous=ref(art.previous), next=ref(art.next), neighbours=[ref(n) for n in art.neighbours],
            law_size=art.law_size, similar=[ref(s) for s in art.similar],
        )

    @app.get("/api/health", responses={503: {"model": ErrorOut}}, summary="Is the search engine up?")
    async def api_health() -> dict[str, Any]:
        return await call(portal.health)

    register_judgments(app, call, page)  # /api/judgments, /judgments and the search page's grade control
    return app


def _default_or_bm25(portal: Portal) -> str:
    """The portal's default method, or BM25 while the node cannot say whether the index holds vectors."""
    try:
        return portal.default_method()
    except Exception:  # noqa: BLE001 - the page still renders its form; the search itself reports the failure
        return DEFAULT_METHOD


def _safe_methods(portal: Portal) -> dict[str, bool]:
    try:
        return portal.methods()
    except Exception:  # noqa: BLE001
        return {s.name: not (s.needs_vectors or s.needs_llm) for s in portal_methods()}  # what needs neither


# ------------------------------------------------------------------------------------------------ serving
SETTINGS_ENV = "NOMOS_PORTAL_SETTINGS"


def settings_to_env(settings: Settings, **extra: Any) -> str:
    """Settings as JSON, for uvicorn worker processes (they import the app by name and rebuild it)."""
    return json.dumps({"settings": settings.model_dump(mode="json"), **extra})


def app_from_env() -> FastAPI:
    """Factory for uvicorn workers: ``portal.app:app_from_env`` with the settings ``serve`` put in the environment."""
    raw = json.loads(os.environ[SETTINGS_ENV])
    return create_app(Settings(**raw["settings"]), llm_deadline=raw.get("llm_deadline", 90.0))


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 8000, workers: int = 1, llm_deadline: float = 90.0,
          log_level: str = "info") -> None:
    """Run the portal with uvicorn (``workers`` processes; one process when 1)."""
    import uvicorn

    if workers <= 1:
        uvicorn.run(create_app(settings, llm_deadline=llm_deadline), host=host, port=port, log_level=log_level,
                    proxy_headers=False, server_header=False)
        return
    os.environ[SETTINGS_ENV] = settings_to_env(settings, llm_deadline=llm_deadline)
    uvicorn.run("nomos.portal.app:app_from_env", factory=True, host=host, port=port, workers=workers, log_level=log_level,
                proxy_headers=False, server_header=False)
