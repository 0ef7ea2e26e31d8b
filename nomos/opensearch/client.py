"""The one place an OpenSearch client is built, so every stage talks to the cluster the same way."""

from __future__ import annotations

import time
from typing import Callable, TypeVar

from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConnectionError as OSConnectionError
from opensearchpy.exceptions import ConnectionTimeout, TransportError

from nomos.settings import Settings

T = TypeVar("T")


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


RETRY_STATUSES = (429, 502, 503, 504)


def retrying(call: Callable[[], T], seconds: float = 120.0, first_wait: float = 0.5, max_wait: float = 8.0,
             on_retry: Callable[[int, Exception], None] | None = None) -> T:
    """Run ``call``; on a lost connection, a timeout or a 429/502/503/504 (a node restarting, a cluster that has
    not recovered its shards yet) wait with exponential backoff and try again, for at most ``seconds``.

    Requests that are safe to repeat only (searches, analysis): a retried search gives the same answer.
    Other errors (a 400 for a bad query) are raised at once.
    """
    deadline = time.monotonic() + seconds
    wait = first_wait
    attempt = 0
    while True:
        try:
            return call()
        except (OSConnectionError, ConnectionTimeout, TransportError) as exc:
            status = getattr(exc, "status_code", None)
            transient = isinstance(exc, (OSConnectionError, ConnectionTimeout)) or status in RETRY_STATUSES
            if not transient or time.monotonic() + wait > deadline:
                raise
            attempt += 1
            if on_retry:
                on_retry(attempt, exc)
            time.sleep(wait)
            wait = min(max_wait, wait * 2)
