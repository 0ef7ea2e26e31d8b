"""The institutional legal search portal: a Greek web page and a JSON API over the same search stage as the CLI
(:class:`nomos.stages.searching.SearchStage`).

``create_app(settings)`` builds the application; ``serve(settings, …)`` runs it with uvicorn (``cli.py serve``).
The routes live in routers: :mod:`~nomos.portal.pages` (HTML), :mod:`~nomos.portal.api` (``/api/*``) and
:mod:`~nomos.portal.judgments`; each gets the :class:`Portal` state with ``Depends(get_portal)``.
"""

from nomos.portal.app import SECURITY_HEADERS, create_app, serve
from nomos.portal.errors import DeadlineExceeded, PortalError, classify
from nomos.portal.judgments import JudgmentIn, JudgmentRejected
from nomos.portal.links import article_url, search_url
from nomos.portal.params import Method
from nomos.portal.service import METHOD_LABELS, Portal
from nomos.portal.web import PortalDep, get_portal

__all__ = [
    "DeadlineExceeded",
    "JudgmentIn",
    "JudgmentRejected",
    "METHOD_LABELS",
    "Method",
    "Portal",
    "PortalDep",
    "PortalError",
    "SECURITY_HEADERS",
    "article_url",
    "classify",
    "create_app",
    "get_portal",
    "search_url",
    "serve",
]
