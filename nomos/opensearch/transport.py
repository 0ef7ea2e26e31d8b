"""The one way searches and reads reach OpenSearch: retries for a restarting cluster, typed errors for the rest.

Every retriever, results page, ``decorate`` and the article pages send their requests through a
:class:`Transport`, so a node restart during ``eval --method hybrid`` or a portal page is waited for exactly as
during BM25, and a refused query surfaces as the same typed error everywhere:

* transient failures (lost connection, timeout, 429/502/503/504, also inside one ``_msearch`` item) are retried
  with exponential backoff for ``retry_seconds`` (``NOMOS_RETRY_SECONDS``); after that,
  :class:`~nomos.errors.ClusterUnavailable`;
* a missing index is :class:`~nomos.errors.IndexNotFound`, a refused query :class:`~nomos.errors.SearchError`,
  anything else the cluster answers with an error :class:`~nomos.errors.ClusterError`, each with ``status`` and
  OpenSearch's ``reason``;
* only opensearch-py's transport errors are caught: an exception from our own code stays a bug with its stack.

Only requests that are safe to repeat go through here (searches, gets, analysis, settings lookups); writes keep
their own handling (bulk loads are idempotent by id and resumed by the indexer).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence, TypeVar

from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConnectionError as OSConnectionError
from opensearchpy.exceptions import ConnectionTimeout, TransportError

from nomos.errors import ClusterError, ClusterUnavailable, IndexNotFound, SearchCancelled, SearchError
from nomos.opensearch.client import RETRY_STATUSES, access_error, make_client, reason_of, retrying
from nomos.opensearch.settings import ClusterSettings
from nomos.opensearch.stored_scripts import MISSING_SCRIPT_HINT

T = TypeVar("T")

UNAVAILABLE_HINT = "start the local node with `python cli.py server start`, or check OPENSEARCH_URL"
MISSING_INDEX_HINT = "build it with `python cli.py index --dataset …` (or pass --index)"


def _is_missing_index(error: Any) -> bool:
    text = str(error)
    return "index_not_found_exception" in text


CANCELLED_HINT = ("the node cuts a search at NOMOS_SEARCH_TIMEOUT_SECONDS (its cancel_after_time_interval): "
                  "a shorter query, or try again when the node is less busy")


def _is_cancelled(error: Any) -> bool:
    """Whether the node cut the search at its time bound (the task cancelled: the whole search or an item)."""
    return "task_cancelled_exception" in str(error)


def typed_error(exc: TransportError | OSConnectionError, what: str, *, url: str = "",
                unavailable_hint: str = UNAVAILABLE_HINT, user: str = "",
                variable: str = "NOMOS_OPENSEARCH_USER") -> ClusterError:
    """The :mod:`nomos.errors` type for an opensearch-py error that ended a request named ``what`` (``user``: who
    the request was sent as, named in a 401 or 403, with the ``variable`` that names that account)."""
    if (denied := access_error(exc, what, user=user, variable=variable)) is not None:
        return denied
    if isinstance(exc, (OSConnectionError, ConnectionTimeout)):
        where = f" at {url}" if url else ""
        return ClusterUnavailable(f"no OpenSearch cluster answers{where} ({what})", reason=str(exc.info or exc.error),
                                  hint=unavailable_hint)
    status = exc.status_code if isinstance(exc.status_code, int) else None
    reason = reason_of(exc.info) or str(exc.error)
    if _is_cancelled(exc.info or exc.error):
        return SearchCancelled(f"{what}: the node cut it at its time bound ({reason})", status=status, reason=reason,
                               hint=CANCELLED_HINT)
    if status == 404 and _is_missing_index(exc.info or exc.error):
        return IndexNotFound(f"{what}: {reason}", status=status, reason=reason, hint=MISSING_INDEX_HINT)
    if status in RETRY_STATUSES:
        return ClusterUnavailable(f"{what}: the cluster is not ready ({status}: {reason})", status=status,
                                  reason=reason, hint="it did not recover within NOMOS_RETRY_SECONDS")
    if status is not None and 400 <= status < 500:
        hint = MISSING_SCRIPT_HINT if "unable to find script" in str(exc.info or exc.error) else None
        return SearchError(f"{what}: OpenSearch refused it: {reason}", status=status, reason=reason, hint=hint)
    return ClusterError(f"{what}: OpenSearch failed ({status}): {reason}", status=status, reason=reason)


class _ItemFailed(TransportError):
    """One ``_msearch`` item failed for a transient reason: the whole batch is sent again."""


@dataclass
class Transport:
    """Searches and reads with retries and typed errors (see the module's docstring); safe to share between
    threads (the retry counter is the only state)."""

    client: OpenSearch
    retry_seconds: float = 120.0
    url: str = ""
    unavailable_hint: str = UNAVAILABLE_HINT
    user: str = ""  # who the client sends as: a 401 or 403 names it (ClusterSettings.opensearch_identity)
    user_variable: str = "NOMOS_OPENSEARCH_USER"  # the variable that names that user (the portal's has its own)
    first_wait: float = 0.5
    max_wait: float = 8.0
    retries: int = field(init=False, default=0)
    _lock: threading.Lock = field(init=False, default_factory=threading.Lock, repr=False)

    # ------------------------------------------------------------------------------------------- the core
    def call(self, request: Callable[[], T], what: str) -> T:
        """Run ``request`` (one opensearch-py call) with retries; its failures as :mod:`nomos.errors` types."""

        def count(_attempt: int, _exc: Exception) -> None:
            with self._lock:
                self.retries += 1

        try:
            return retrying(request, seconds=self.retry_seconds, first_wait=self.first_wait, max_wait=self.max_wait,
                            on_retry=count)
        except (TransportError, OSConnectionError) as exc:
            raise typed_error(exc, what, url=self.url, unavailable_hint=self.unavailable_hint, user=self.user,
                              variable=self.user_variable) from exc

    # ------------------------------------------------------------------------------------------ requests
    def search(self, index: str, body: Mapping[str, Any], *, what: str = "search",
               params: Mapping[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
        """One ``_search``; ``params`` are URL parameters (``filter_path``, ``search_pipeline``…)."""
        return self.call(lambda: self.client.search(index=index, body=dict(body), params=dict(params or {}), **kwargs),
                         what)

    def msearch(self, lines: Sequence[Mapping[str, Any]], *, labels: Sequence[str] = (),
                filter_path: str | None = None, what: str = "search") -> list[dict[str, Any]]:
        """One ``_msearch`` (header and body lines); returns its responses in order.

        An item that failed transiently (a shard still recovering: 503, or 429/502/504) sends the whole batch
        again; an item OpenSearch refused raises :class:`SearchError` (or :class:`IndexNotFound`) naming its
        label (``labels[i]``, e.g. the query id) and OpenSearch's reason."""
        params = {"filter_path": filter_path} if filter_path else {}

        def send() -> list[dict[str, Any]]:
            resp = self.client.msearch(body=[dict(line) for line in lines], params=params)
            responses = list(resp.get("responses", []))
            for item in responses:
                if "error" in item and item.get("status") in RETRY_STATUSES:
                    raise _ItemFailed(item["status"], "msearch item failed", item["error"])
            return responses

        responses = self.call(send, what)
        for i, item in enumerate(responses):
            if "error" in item:
                label = f"query {labels[i]!r}" if i < len(labels) else f"{what} item {i}"
                status = item.get("status") if isinstance(item.get("status"), int) else None
                reason = reason_of(item["error"])
                if status == 404 and _is_missing_index(item["error"]):
                    raise IndexNotFound(f"{label}: {reason}", status=status, reason=reason, hint=MISSING_INDEX_HINT)
                if _is_cancelled(item["error"]):
                    raise SearchCancelled(f"{label}: the node cut it at its time bound ({reason})", status=status,
                                          reason=reason, hint=CANCELLED_HINT)
                raise SearchError(f"{label}: OpenSearch refused it: {reason}", status=status, reason=reason)
        return responses

    def mget(self, index: str, ids: Sequence[str], *, source: str | Sequence[str] | bool | None = None,
             what: str = "mget") -> list[dict[str, Any]]:
        """The documents for ``ids`` (each with ``found``), in the order asked; ``source`` limits ``_source``
        (a list of fields, or False for none)."""
        kwargs: dict[str, Any] = {}
        if isinstance(source, bool):
            kwargs["_source"] = source
        elif source:
            kwargs["_source_includes"] = source if isinstance(source, str) else ",".join(source)
        resp = self.call(lambda: self.client.mget(index=index, body={"ids": list(ids)}, **kwargs), what)
        return list(resp.get("docs", []))

    def count(self, index: str, body: Mapping[str, Any] | None = None, *, what: str = "count") -> int:
        return int(self.call(lambda: self.client.count(index=index, body=dict(body) if body else None), what)["count"])

    def analyze(self, index: str, body: Mapping[str, Any], *, what: str = "analyze") -> dict[str, Any]:
        return self.call(lambda: self.client.indices.analyze(index=index, body=dict(body)), what)

    def get_mapping(self, index: str, *, what: str = "mapping") -> dict[str, Any]:
        return self.call(lambda: self.client.indices.get_mapping(index=index), what)

    def get_settings(self, index: str, name: str | None = None, *, what: str = "settings") -> dict[str, Any]:
        return self.call(lambda: self.client.indices.get_settings(index=index, name=name), what)

    def mtermvectors(self, index: str, body: Mapping[str, Any], *, what: str = "term vectors",
                     **params: Any) -> dict[str, Any]:
        return self.call(lambda: self.client.mtermvectors(index=index, body=dict(body), **params), what)

    def request(self, method: str, path: str, body: Any = None, *, what: str = "request",
                params: Mapping[str, Any] | None = None) -> Any:
        """A raw request (e.g. ``PUT /_search/pipeline/x``): idempotent ones only, it may be sent twice."""
        return self.call(lambda: self.client.transport.perform_request(method, path, body=body,
                                                                       params=dict(params or {})), what)


def require_transport(target: object, who: str) -> Transport:
    """``target`` if it is a :class:`Transport`; else a TypeError that says how to get one. The retrieval layer
    takes a transport only: a bare client meant "no retries" without saying so (the portal's article page waited
    out a long retry inside its page deadline because a helper built its own transport)."""
    if not isinstance(target, Transport):
        raise TypeError(f"{who} takes a nomos Transport, got {type(target).__name__}: "
                        "make_transport(settings.cluster, client) builds one with the settings' retries")
    return target


def make_transport(settings: ClusterSettings, client: OpenSearch | Transport | None = None, pool_maxsize: int | None = None) -> Transport:
    """The transport for ``settings`` (its cluster, ``retry_seconds`` and the hint that fits a local node or a
    configured URL), over ``client`` where the caller already has one (one client per command or portal)."""
    if isinstance(client, Transport):
        return client
    hint = "start the local node with `python cli.py server start`" if settings.uses_local_node else "check OPENSEARCH_URL"
    user, variable = settings.opensearch_identity()
    return Transport(client or make_client(settings, pool_maxsize=pool_maxsize), retry_seconds=settings.retry_seconds,
                     url=settings.url, unavailable_hint=hint, user=user, user_variable=variable)
