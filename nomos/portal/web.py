"""What every route shares: the portal as a dependency, blocking work in worker threads (typed errors, the LLM
deadline), a page rendered with the form's context, and the one JSON-or-HTML answer to a failure."""

from __future__ import annotations

from typing import Annotated, Any, Callable

import anyio
from anyio.to_thread import run_sync
from fastapi import Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from nomos.errors import AccessDenied, NomosError
from nomos.portal.errors import DeadlineExceeded, PortalError
from nomos.portal.identity import BadUserHeader, client_network
from nomos.portal.params import Method, check_area
from nomos.portal.service import Portal
from nomos.query_text import read_query
from nomos.retrieval.registry import DEFAULT_METHOD, method_spec
from nomos.stages.query_cost import check_query_words
from nomos.stages.searching import SearchPage, cluster_errors


def get_portal(request: Request) -> Portal:
    """The portal's state, made once by ``create_app``."""
    return request.app.state.portal


async def _portal_dependency(request: Request) -> Portal:
    """:func:`get_portal` as the routes' dependency. A coroutine on purpose: FastAPI runs a plain function
    dependency in a worker thread, one thread hop per request for an attribute lookup (py-spy: about 5% of a
    BM25 page's portal CPU, issue 38)."""
    return request.app.state.portal


PortalDep = Annotated[Portal, Depends(_portal_dependency)]


def client_of(request: Request) -> str:
    """Who a rate limit counts: the user a trusted proxy signed in, else the client's address (an IPv6 one by its
    /64: :func:`~nomos.portal.identity.client_network`)."""
    proxies = request.app.state.proxies
    try:
        user = proxies.user(request)
    except BadUserHeader:
        user = None
    return f"user:{user}" if user else f"addr:{client_network(proxies.peer(request))}"


def limit(request: Request, kind: str) -> None:
    """Count one ``kind`` request ("search", "judgment", "page") against the client's rate (429 past it)."""
    request.app.state.rates.hit(kind, client_of(request))


async def _page_limit(request: Request) -> None:
    """A coroutine, so FastAPI calls it on the event loop instead of a worker thread (as ``_portal_dependency``)."""
    limit(request, "page")


# on every route that reads the cluster and is not a search or a judgment (articles, laws, judgments, health):
# 200 article pages in 12.8 s from one client went through unlimited
PAGE_LIMIT = Depends(_page_limit)


async def run(portal: Portal, fn: Callable[..., Any], *args: Any, llm: bool = False) -> Any:
    """``fn(*args)`` in a worker thread, its OpenSearch failures as :mod:`nomos.errors` types, under the portal's
    deadline (``NOMOS_PORTAL_DEADLINE_SECONDS``): past it the reader gets a 504 at once (:class:`DeadlineExceeded`)
    and the thread is abandoned (its OpenSearch request times out as soon: the portal's client has that timeout).
    LLM work runs on the portal's few LLM threads, under the LLM deadline instead."""

    name = getattr(fn, "__name__", "")
    what = name.replace("_", " ") if name.isidentifier() else "request"  # named in the log line (not a lambda's)

    def typed() -> Any:
        with cluster_errors(portal.settings, what):
            return fn(*args)

    seconds = portal.llm_deadline if llm else portal.deadline
    try:
        with anyio.fail_after(seconds):
            return await run_sync(typed, limiter=portal.llm_limiter if llm else None, abandon_on_cancel=True)
    except TimeoutError:
        raise DeadlineExceeded(seconds, llm=llm) from None


async def run_search(portal: Portal, q: str, method: Method | None, k: int, source: str | None,
                     area: str | None) -> SearchPage:
    """A search from the page or the API; an LLM method (or an LLM judge) takes one of the LLM slots. A query past
    ``NOMOS_MAX_QUERY_WORDS`` after the stop list is refused first, in Greek (:mod:`nomos.stages.query_cost`)."""
    check_area(area)
    q = read_query(q)  # as the command line reads it: NFC, LF line ends, refused whole past the bound
    check_query_words(q, portal.settings.max_query_words)
    name = method.value if method is not None else None
    llm = (name is not None and method_spec(name).needs_llm) or portal.settings.rerank == "llm"
    if llm:
        await run(portal, portal.check_method, name or DEFAULT_METHOD)  # refuse before taking an LLM slot
    return await run(portal, portal.search, q, name, k, source, area, llm=llm)


async def render(request: Request, name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
    """A page with the form's context: the methods on offer now, an empty form unless ``ctx`` has one."""
    portal = get_portal(request)
    methods = portal.known_methods()  # fresh from the page's own search: no worker thread
    base = {"methods": methods if methods is not None else await run_sync(portal.methods),
            "form": {"q": "", "method": DEFAULT_METHOD, "k": 10, "source": None, "area": None}}
    return request.app.state.templates.TemplateResponse(request, name, {**base, **ctx}, status_code=status)


def retry_after(request: Request, exc: NomosError) -> dict[str, str]:
    """``Retry-After`` for a failure that knows when to come back: the node refused the portal's own account, and
    the portal sends nothing as it until its next try (:mod:`nomos.portal.credentials`); else none."""
    if isinstance(exc, AccessDenied) and exc.status == 401:
        return {"Retry-After": str(max(1, request.app.state.credentials.seconds_left()))}
    return {}


def form_of(request: Request) -> dict[str, Any]:
    """The search form as the request filled it, for an error page (4xx, 5xx): the case stays in the box, so a
    refused or failed search is retried, not typed again (issue 50)."""
    params = request.query_params
    k = params.get("k", "")
    return {"q": params.get("q", ""), "method": params.get("method", DEFAULT_METHOD),
            "k": int(k) if k.isdigit() and len(k) < 4 else 10, "source": params.get("source"), "area": params.get("area")}


def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api")


async def error_response(request: Request, status: int, message: str, detail: Any = None,
                         headers: dict[str, str] | None = None) -> Response:
    """A failure as the client reads it: JSON ``{"detail": …}`` under /api (``detail``, else the message), the
    error page elsewhere."""
    if wants_json(request):
        return JSONResponse({"detail": message if detail is None else detail}, status_code=status, headers=headers)
    page = await render(request, "error.html", status=status, error=PortalError(status, message), form=form_of(request))
    page.headers.update(headers or {})  # a 429's Retry-After on the page too, not only in the JSON answer
    return page
