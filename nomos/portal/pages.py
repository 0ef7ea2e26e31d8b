"""The portal's HTML pages: the search page (form, results, facets, ReAct trace), an article's page (with its
references, citing and amending articles) and a law's table of contents."""

from __future__ import annotations

import re
from typing import Any

from anyio.to_thread import run_sync
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from nomos.errors import NomosError
from nomos.portal.api_greek import PARAMETERS, SUMMARIES, WHERE, greek_type
from nomos.portal.errors import PortalError, classify, log_failure
from nomos.portal.in_force_view import in_force_view
from nomos.portal.links import linkable, posted_form, search_url
from nomos.portal.params import (
    MAX_K,
    SOURCE_PATTERN,
    AreaParam,
    ArticleId,
    FullText,
    Highlight,
    KParam,
    LawSource,
    Method,
    MethodParam,
    QueryText,
    SourceParam,
    TextVersion,
)
from nomos.portal.web import PAGE_LIMIT, PortalDep, limit, render, retry_after, run, run_search
from nomos.retrieval.registry import DEFAULT_METHOD

router = APIRouter(include_in_schema=False)


@router.get("/", response_class=HTMLResponse)
@router.get("/search", response_class=HTMLResponse)
async def search_page(request: Request, portal: PortalDep, q: QueryText = "", method: MethodParam = None,
                      k: KParam = 10, source: SourceParam = None, area: AreaParam = None) -> Response:
    form = {"q": q, "method": method.value if method is not None else DEFAULT_METHOD, "k": k, "source": source, "area": area}
    if not q.strip():
        if method is None:
            form["method"] = await run_sync(portal.default_method)
        return await render(request, "search.html", form=form, result=None)
    limit(request, "search")
    try:
        result = await run_search(portal, q, method, k, source, area)
    except NomosError as exc:  # shown in the page, with the form kept so the person can simply retry
        err = classify(exc, portal.settings.embedder)
        log_failure(request.method, request.url.path, exc, err.status)
        page = await render(request, "search.html", status=err.status, form=form, result=None, error=err)
        page.headers.update(retry_after(request, exc))
        return page
    form["method"] = result.method
    return await render(request, "search.html", form=form, result=result, defaulted=result.defaulted)


@router.post("/search", response_class=HTMLResponse)
async def posted_search(request: Request, portal: PortalDep) -> Response:
    """The search form, posted (issue 50): a whole case file is more than an address carries (links.URL_BYTES).
    A search that fits in one is sent on to it (303: the page keeps its shareable address, as before); a longer
    one is answered here, its page without the links that would repeat the case."""
    fields = posted_form(await request.body())
    q = fields.get("q", "")
    k_text = fields.get("k") or "10"
    try:
        method = Method(fields["method"]) if fields.get("method") else None
        k = int(k_text)
    except (KeyError, ValueError):
        raise PortalError(422, "method, k: μη έγκυρη τιμή") from None
    if not 1 <= k <= MAX_K:
        raise PortalError(422, f"k: πρέπει να είναι από 1 έως {MAX_K}")
    source, area = fields.get("source") or None, fields.get("area") or None
    if source is not None and not re.fullmatch(SOURCE_PATTERN, source):
        raise PortalError(422, "source: μη έγκυρη τιμή (γράμματα, αριθμοί και . : _ -)")
    name = method.value if method is not None else DEFAULT_METHOD
    if q.strip() and linkable(q, method=name, k=k, source=source, area=area):
        return RedirectResponse(search_url(q, name, k, source, area=area), status_code=303)
    return await search_page(request, portal, q, method, k, source, area)


@router.get("/articles/{article_id}", response_class=HTMLResponse, dependencies=[PAGE_LIMIT])
async def article_page(request: Request, portal: PortalDep, article_id: ArticleId, q: Highlight = None,
                       full: FullText = False, text: TextVersion = None) -> Response:
    """An article; an amended one shows its text in force by default (``text=original``: the text as enacted)."""
    found = await run(portal, portal.article_and_graph, article_id, q, full)
    if found is None:
        raise PortalError(404, "Δεν βρέθηκε άρθρο με αυτό το αναγνωριστικό.")
    art, graph = found
    view = in_force_view(art, graph, text, None if full else portal.settings.portal_article_chars)
    return await render(request, "article.html", article=art, graph=graph, q=q or "", in_force=view,
                        text_version=text, full=full)


@router.get("/laws/{source}", response_class=HTMLResponse, dependencies=[PAGE_LIMIT])
async def law_page(request: Request, portal: PortalDep, source: LawSource) -> Response:
    name, articles = await run(portal, portal.law, source)
    if not articles:
        raise PortalError(404, "Δεν βρέθηκε νόμος με αυτόν τον κωδικό.")
    return await render(request, "law.html", source=source, law_name=name, articles=articles)


@router.get("/api", response_class=HTMLResponse)
async def api_page(request: Request) -> Response:
    """The JSON API for people: each endpoint with its parameters, read from the OpenAPI description (FastAPI's
    Swagger page loads its scripts from a CDN, which the portal never does; the raw JSON was a wall of text)."""
    return await render(request, "api.html", endpoints=api_endpoints(request.app.openapi()), base=str(request.base_url))


def api_endpoints(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The endpoints of an OpenAPI description, by path, with their parameters in plain Greek words
    (:mod:`nomos.portal.api_greek`; the description itself stays English for tools). An endpoint or parameter with
    no Greek words yet shows none rather than English ones (a test keeps the table whole)."""
    out = []
    for path, operations in sorted(schema.get("paths", {}).items()):
        for method, op in operations.items():
            params = [{"name": p["name"], "where": WHERE.get(p.get("in", ""), p.get("in", "")),
                       "required": bool(p.get("required")), "type": greek_type(_type_of(p.get("schema", {}))),
                       "description": PARAMETERS.get(p["name"], "")}
                      for p in op.get("parameters", [])]
            out.append({"method": method.upper(), "path": path, "summary": SUMMARIES.get((method.upper(), path), ""),
                        "description": "", "params": params})
    return out


def _type_of(schema: dict[str, Any]) -> str:
    if "anyOf" in schema:
        return " | ".join(_type_of(s) for s in schema["anyOf"] if s.get("type") != "null")
    if "enum" in schema:
        return " | ".join(map(str, schema["enum"]))
    return str(schema.get("type", ""))
