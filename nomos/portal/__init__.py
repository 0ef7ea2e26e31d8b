"""The institutional legal search portal: a Greek web page and a JSON API over the same search stage as the CLI
(:class:`nomos.stages.searching.SearchStage`).

``create_app(settings)`` builds the application; ``serve(settings, …)`` runs it with uvicorn (``cli.py serve``).
The routes live in routers: :mod:`~nomos.portal.pages` (HTML), :mod:`~nomos.portal.api` (``/api/*``) and
:mod:`~nomos.portal.judgments`; each gets the :class:`Portal` state with ``Depends(get_portal)``.

Names are imported on first use (:mod:`nomos.exports`), so the portal's settings part (:mod:`.settings`, which the top
:mod:`nomos.settings` composes) is read without loading FastAPI.
"""

from nomos.exports import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".app": ("SECURITY_HEADERS", "create_app", "serve"),
    ".errors": ("DeadlineExceeded", "PortalError", "classify"),
    ".judgments": ("JudgmentIn", "JudgmentRejected"),
    ".links": ("article_url", "search_url"),
    ".params": ("Method",),
    ".service": ("METHOD_LABELS", "Portal"),
    ".web": ("PortalDep", "get_portal"),
    ".settings": ("PortalConfig", "PortalSettings"),
})
