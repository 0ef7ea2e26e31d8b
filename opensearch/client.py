"""The one place an OpenSearch client is built, so every stage talks to the cluster the same way."""

from __future__ import annotations

from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConnectionError as OSConnectionError

from settings import Settings


class ClusterUnavailable(RuntimeError):
    """No cluster answers at the configured URL; the message says how to start one."""


def make_client(settings: Settings, pool_maxsize: int | None = None) -> OpenSearch:
    """A client for ``settings.url`` with retries on timeouts (bulk loads and long queries can be slow).

    No HTTP compression: the default cluster is on loopback, where gzip costs more CPU than it saves.
    ``pool_maxsize`` sizes the connection pool for callers that search from many threads at once.
    """
    extra = {"pool_maxsize": pool_maxsize} if pool_maxsize else {}
    return OpenSearch(
        hosts=[settings.url],
        timeout=settings.request_timeout,
        max_retries=3,
        retry_on_timeout=True,
        http_compress=False,
        **extra,
    )


def cluster_version(client: OpenSearch, settings: Settings) -> str:
    """The server's version number; fails with a hint when nothing answers."""
    try:
        return str(client.info()["version"]["number"])
    except OSConnectionError:
        hint = (
            "start the local node with `python cli.py server start`"
            if settings.uses_local_node
            else "check OPENSEARCH_URL"
        )
        raise ClusterUnavailable(f"no OpenSearch cluster answers at {settings.url}: {hint}") from None
