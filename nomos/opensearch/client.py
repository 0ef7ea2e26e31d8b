"""The one place an OpenSearch client is built, so every stage talks to the cluster the same way."""

from __future__ import annotations

import time
from typing import Callable, TypeVar

from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConnectionError as OSConnectionError
from opensearchpy.exceptions import ConnectionTimeout, TransportError
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_before_delay, wait_exponential

from nomos.errors import ClusterUnavailable
from nomos.settings import Settings

T = TypeVar("T")
__all__ = ["INDEXING_RETRIES", "ClusterUnavailable", "cluster_version", "is_transient", "make_client", "retrying"]


def make_client(settings: Settings, pool_maxsize: int | None = None, retries: int = 0) -> OpenSearch:
    """A client for ``settings.url``.

    ``retries``: how often opensearch-py itself re-sends a request that failed to connect or timed out. 0 by
    default: searches and reads retry in :class:`nomos.opensearch.transport.Transport` (with backoff, for
    ``NOMOS_RETRY_SECONDS``), and a client retrying underneath would multiply every wait by ``retries + 1``.
    Bulk indexing, which does not go through the transport, asks for its own (:data:`INDEXING_RETRIES`).
    No HTTP compression: the default cluster is on loopback, where gzip costs more CPU than it saves.
    ``pool_maxsize`` sizes the connection pool for callers that search from many threads at once.
    """
    extra = {"pool_maxsize": pool_maxsize} if pool_maxsize else {}
    return OpenSearch(
        hosts=[settings.url],
        timeout=settings.request_timeout,
        max_retries=retries,
        retry_on_timeout=retries > 0,
        http_compress=False,
        **extra,
    )


# Bulk loads are idempotent by article id, and a slow bulk request that timed out is worth sending again.
INDEXING_RETRIES = 3


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
        raise ClusterUnavailable(f"no OpenSearch cluster answers at {settings.url}", hint=hint) from None


RETRY_STATUSES = (429, 502, 503, 504)


def is_transient(exc: BaseException) -> bool:
    """A lost connection, a timeout, or a 429/502/503/504 (a node restarting, a cluster that has not recovered its
    shards yet, a full queue): worth waiting for. Anything else (a 400 for a bad query) is not."""
    if isinstance(exc, (OSConnectionError, ConnectionTimeout)):
        return True
    return isinstance(exc, TransportError) and getattr(exc, "status_code", None) in RETRY_STATUSES


def retrying(call: Callable[[], T], seconds: float = 120.0, first_wait: float = 0.5, max_wait: float = 8.0,
             on_retry: Callable[[int, Exception], None] | None = None) -> T:
    """Run ``call``; on a transient error (:func:`is_transient`) wait with exponential backoff (``first_wait``,
    doubling, at most ``max_wait``) and try again, for at most ``seconds`` (``Settings.retry_seconds``): a retry whose
    wait would end past the deadline is not made, and the last error is raised as it is.

    ``on_retry(n, exc)`` is called before the n-th retry's wait (the retrievers count retries with it).
    Requests that are safe to repeat only (searches, analysis): a retried search gives the same answer.
    Other errors are raised at once.
    """

    def before_sleep(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        if on_retry and isinstance(exc, Exception):
            on_retry(state.attempt_number, exc)

    return Retrying(
        retry=retry_if_exception(is_transient),
        wait=wait_exponential(multiplier=first_wait, max=max_wait),
        stop=stop_before_delay(seconds),
        before_sleep=before_sleep,
        reraise=True,
        sleep=time.sleep,
    )(call)
