"""The portal's web application: a Greek search page, article pages and a JSON API with an OpenAPI description.

``create_app(settings)`` builds everything from one :class:`~nomos.portal.settings.PortalConfig`: the :class:`Portal` state on
``app.state.portal`` (no globals; routes get it with ``Depends(get_portal)``), the routers (pages, API,
judgments), the error handlers and the security headers. ``serve`` runs it with uvicorn (``cli.py serve``).
"""

from __future__ import annotations

import copy
import json
import logging
import os
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qsl

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from nomos.errors import NomosError
from nomos.opensearch.client import make_client
from nomos.portal import api, judgments, pages, versions
from nomos.portal.credentials import CredentialBackoff
from nomos.portal.errors import INTERNAL, classify, greek_problem, log, log_failure
from nomos.portal.heap import HeapFreeze
from nomos.portal.identity import Proxies
from nomos.portal.links import article_url, make_templates, search_url
from nomos.portal.params import Method
from nomos.portal.ratelimit import RateLimited, RateLimits
from nomos.portal.service import Portal
from nomos.portal.settings import PortalConfig, PortalSettings
from nomos.portal.web import error_response, retry_after
from nomos.safe_text import escape_controls

__all__ = ["Method", "SECURITY_HEADERS", "article_url", "create_app", "search_url", "serve"]

HERE = Path(__file__).parent
PORTAL_RETRY_SECONDS = 1.0

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # the case text is in the address: never send it to another site
    "X-Frame-Options": "DENY",
}


def shows_a_case(path: str, query_string: bytes) -> bool:
    """Whether an answer may hold a visitor's case or a judgment's notes (a search, an article highlighted for a
    case, the judgments): no browser or proxy cache keeps those (``Cache-Control: no-store``). The query string is
    parsed as the routes parse it (``/?%71=κλοπή`` is ``q``, and was served cacheable), any parameter named ``q``
    counting, however written."""
    if path in ("/search", "/api/search") or path.startswith(("/judgments", "/api/judgments")) or b"q=" in query_string:
        return True
    return any(key == "q" for key, _ in parse_qsl(query_string.decode("latin-1"), keep_blank_values=True))


class SecurityHeaders:
    """Pure ASGI middleware: the security headers on every response (pages, API, static files, errors)."""

    def __init__(self, app: Any) -> None:  # an ASGI app
        self.app = app

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        private = shows_a_case(scope.get("path", ""), scope.get("query_string", b""))

        async def send_with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                extra = {**SECURITY_HEADERS, **({"Cache-Control": "no-store"} if private else {})}
                for k, v in extra.items():
                    if k.lower().encode() not in present:
                        headers.append((k.lower().encode(), v.encode()))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


# ------------------------------------------------------------------------------------------------ errors
async def _expected(request: Request, exc: NomosError) -> Response:
    """A :class:`NomosError`: its status and Greek message (:func:`classify`), one line in the log."""
    err = classify(exc, request.app.state.portal.settings.embedder)
    log_failure(request.method, request.url.path, exc, err.status)
    return await error_response(request, err.status, err.message, headers=retry_after(request, exc))


async def _invalid(request: Request, exc: RequestValidationError) -> Response:
    """Parameters FastAPI refused: 422 naming each field (a list under /api)."""
    problems = [greek_problem(e) for e in exc.errors()]
    return await error_response(request, 422, "Μη έγκυρη αναζήτηση: " + "; ".join(problems), detail=problems)


async def _http(request: Request, exc: StarletteHTTPException) -> Response:
    messages = {404: "Δεν βρέθηκε η σελίδα.", 405: "Η μέθοδος HTTP δεν υποστηρίζεται."}
    return await error_response(request, exc.status_code, messages.get(exc.status_code, str(exc.detail)),
                                detail=exc.detail, headers=getattr(exc, "headers", None))


async def _too_many(request: Request, exc: RateLimited) -> Response:
    """A client past its rate (:mod:`nomos.portal.ratelimit`): 429, and when to come back."""
    log.info("%s %s: 429 %s", request.method, request.url.path, exc)
    what = {"search": "αναζητήσεις", "judgment": "αξιολογήσεις"}.get(exc.kind, "σελίδες")
    return await error_response(request, 429, f"Πάρα πολλές {what} σε λίγο χρόνο. Δοκιμάστε ξανά σε {exc.retry_after} "
                                "δευτερόλεπτα.", headers={"Retry-After": str(exc.retry_after)})


async def _unexpected(request: Request, exc: Exception) -> Response:
    """A bug: its traceback goes to the log, never to the person. This runs in the outermost middleware, outside
    :class:`SecurityHeaders`: the headers are added here."""
    log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
    resp = await error_response(request, 500, INTERNAL)
    resp.headers.update(SECURITY_HEADERS)
    return resp


def quiet_client_log() -> None:
    """opensearch-py logs every failed attempt as a warning with a traceback (dozens per page while the node is
    down); the portal reports each failed request itself, in one line. Its warnings are kept out unless the
    ``opensearch`` logger was configured (a level set)."""
    client_log = logging.getLogger("opensearch")
    if client_log.level == logging.NOTSET:
        client_log.setLevel(logging.ERROR)


# ------------------------------------------------------------------------------------------------ the app
def create_app(settings: PortalConfig, llm_deadline: float = 90.0, llm_slots: int = 4,
               freeze_heap: bool = False) -> FastAPI:
    """The portal for ``settings`` (its cluster and index alias, LLM endpoint if any); ``freeze_heap`` where it is
    served (:mod:`nomos.portal.heap`).

    Searches do not wait out a restarting node as ``eval`` does (``retry_seconds``): a person at the page gets a
    503 at once and retries, so the portal keeps at most ``PORTAL_RETRY_SECONDS`` of backoff. Its client retries
    nothing itself (``make_client``'s ``retries=0``: under the transport's own retries a slow search would be sent
    again and the reader wait a multiple of the timeout) and times out with the portal's deadline."""
    settings = settings.with_overrides(retry_seconds=min(settings.retry_seconds, PORTAL_RETRY_SECONDS),
                                       request_timeout=min(settings.request_timeout, settings.portal_deadline_seconds))
    app = FastAPI(
        title="nomos — πύλη νομοθεσίας",
        description="Αναζήτηση άρθρων της ελληνικής νομοθεσίας (BM25, kNN, υβριδική, LLM). JSON API of the nomos portal.",
        version="1.0",
        docs_url=None,  # Swagger UI loads scripts from a CDN: the portal loads nothing from outside
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    quiet_client_log()
    # the portal's own cluster account (NOMOS_PORTAL_OPENSEARCH_*) for its client and for every message that names
    # the account, a 401 included (it named the indexer's, or none, while the portal's was refused)
    settings = settings.for_portal()
    # after the node refuses that account (401), nothing is sent as it for a while (nomos.portal.credentials)
    app.state.credentials = CredentialBackoff(*settings.opensearch_identity())
    client = app.state.credentials.guard(make_client(settings.cluster, pool_maxsize=32, retries=0))
    app.state.portal = Portal(settings, client, llm_deadline=llm_deadline, llm_slots=llm_slots,
                              heap=HeapFreeze(enabled=freeze_heap))
    app.state.templates = make_templates()
    app.state.proxies = Proxies(settings.trusted_proxies, settings.user_header, settings.proxy_secret)
    app.state.rates = RateLimits.from_specs(settings.search_rate, settings.judgment_rate, settings.page_rate)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    # a Host not on the list is a 400 before any route (or the trailing-slash redirect) can echo it
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(settings.allowed_hosts) or ["*"])
    app.add_middleware(SecurityHeaders)
    # the most specific handler of an exception's class wins (a refused judgment keeps its field list)
    handlers: dict[type[Exception], Callable[..., Any]] = {
        RequestValidationError: _invalid, judgments.JudgmentRejected: judgments.rejected, NomosError: _expected,
        RateLimited: _too_many,
        StarletteHTTPException: _http, Exception: _unexpected}
    for kind, handler in handlers.items():
        app.add_exception_handler(kind, handler)
    for router in (pages.router, api.router, versions.api_router, versions.page_router, judgments.router):
        app.include_router(router)
    return app


# ------------------------------------------------------------------------------------------------ serving
SETTINGS_ENV = "NOMOS_PORTAL_SETTINGS"


def settings_to_env(settings: PortalConfig, **extra: Any) -> str:
    """The settings as JSON, for uvicorn worker processes (they import the app by name and rebuild it)."""
    return json.dumps({"settings": settings.model_dump(mode="json"), **extra})


def app_from_env() -> FastAPI:
    """Factory for uvicorn workers: ``portal.app:app_from_env`` with the settings ``serve`` put in the environment."""
    raw = json.loads(os.environ[SETTINGS_ENV])
    return create_app(PortalConfig(**raw["settings"]), llm_deadline=raw.get("llm_deadline", 90.0),
                      freeze_heap=bool(raw.get("freeze_heap", False)))


class WithoutQueryString(logging.Filter):
    """Access log lines with the path only: ``GET /search?q=<a visitor's case>`` is logged as ``GET /search``
    (uvicorn's access record carries the path with its query as its third argument)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], args[2].split("?", 1)[0], *args[3:])
        return True


class EscapedControls(logging.Filter):
    """Every log line on one line and as written: control and bidi characters in the message and its string
    arguments (a percent-decoded path, a header) shown as escapes (``nomos.safe_text``; issue 47: terminal escape
    codes and right-to-left overrides reached the portal's log lines)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = escape_controls(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(escape_controls(a) if isinstance(a, str) else a for a in record.args)
        return True


def log_config(settings: PortalSettings) -> dict[str, Any]:
    """uvicorn's logging configuration: both its handlers filtered by :class:`EscapedControls`, and its access
    handler by :class:`WithoutQueryString` too unless ``NOMOS_LOG_QUERIES`` is on (the filters travel in the
    configuration, so every worker process applies them)."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    filters = config.setdefault("filters", {})
    filters["escaped"] = {"()": f"{__name__}.EscapedControls"}
    for handler in config["handlers"].values():
        handler["filters"] = ["escaped"]
    if not settings.log_queries:
        filters["without_query"] = {"()": f"{__name__}.WithoutQueryString"}
        config["handlers"]["access"]["filters"] = ["without_query", "escaped"]
    return config


def server_options(settings: PortalSettings, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info"
                   ) -> dict[str, Any]:
    """uvicorn's options for the portal: its logging, no proxy headers of uvicorn's own (the portal decides whom it
    believes: :mod:`nomos.portal.identity`), no Server header, and the bounded httptools protocol (request heads,
    read time, connections: :mod:`nomos.portal.http_limits`)."""
    from nomos.portal.http_limits import BoundedHttpToolsProtocol

    return {"host": host, "port": port, "log_level": log_level, "log_config": log_config(settings),
            "proxy_headers": False, "server_header": False, "http": BoundedHttpToolsProtocol,
            "timeout_keep_alive": KEEP_ALIVE_SECONDS}


KEEP_ALIVE_SECONDS = 5  # uvicorn's default, said here: an idle kept-alive connection is closed after it


def serve(settings: PortalConfig, host: str = "127.0.0.1", port: int = 8000, workers: int = 1, llm_deadline: float = 90.0,
          log_level: str = "info") -> None:
    """Run the portal with uvicorn (``workers`` processes; one process when 1)."""
    import uvicorn

    common = server_options(settings.portal, host, port, log_level)
    if workers <= 1:
        uvicorn.run(create_app(settings, llm_deadline=llm_deadline, freeze_heap=True), **common)
        return
    os.environ[SETTINGS_ENV] = settings_to_env(settings, llm_deadline=llm_deadline, freeze_heap=True)
    uvicorn.run("nomos.portal.app:app_from_env", factory=True, workers=workers, **common)
