"""The institutional legal search portal: a Greek web page and a JSON API over the same retrievers as the CLI.

``create_app(settings)`` builds the application; ``serve(settings, …)`` runs it with uvicorn (``cli.py serve``).
"""

from nomos.portal.app import create_app, serve

__all__ = ["create_app", "serve"]
