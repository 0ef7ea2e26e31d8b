"""``serve``: the legal search portal (web pages and a JSON API)."""

from __future__ import annotations

from typing import Any

import click

from nomos.cli.main import cli
from nomos.cli.options import llm_options, llm_settings
from nomos.settings import Settings


@cli.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (loopback by default).")
@click.option("--portal-port", "http_port", default=8000, show_default=True, help="Port of the portal (--port is the OpenSearch node's).")
@click.option("--workers", default=1, show_default=True, help="uvicorn worker processes.")
@click.option("--llm-deadline", default=90.0, show_default=True, help="Seconds an LLM method may take before the page gives up (504).")
@click.option("--os-timeout", default=10.0, show_default=True, help="Seconds per OpenSearch request.")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info", show_default=True,
              help="uvicorn's log level (warning: no access log).")
@click.option("--log-queries", is_flag=True, default=None,
              help="Keep searches' query strings (the visitors' case texts) in the access log (env NOMOS_LOG_QUERIES); "
                   "by default it logs the path only.")
@llm_options
@click.pass_obj
def serve_cmd(settings: Settings, host: str, http_port: int, workers: int, llm_deadline: float, os_timeout: float,
              log_level: str, log_queries: bool | None, **kw: Any) -> None:
    """The legal search portal: a Greek web page and a JSON API (/api/search, /api/articles/{id}, /api/openapi.json)."""
    from nomos.portal import serve
    from nomos.portal.http_limits import describe_limits

    settings = llm_settings(settings.with_overrides(request_timeout=os_timeout, log_queries=log_queries), kw)
    click.echo(f"portal on http://{host}:{http_port}/ (index {settings.index_alias} at {settings.url}); "
               f"{describe_limits()}")
    serve(settings, host=host, port=http_port, workers=workers, llm_deadline=llm_deadline, log_level=log_level)
