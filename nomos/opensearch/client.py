"""The one place an OpenSearch client is built, so every stage talks to the cluster the same way."""

from __future__ import annotations

import time
from typing import Any, Callable, Mapping, TypeVar

import orjson
from opensearchpy import OpenSearch, RequestsHttpConnection
from opensearchpy.exceptions import ConnectionError as OSConnectionError
from opensearchpy.exceptions import ConnectionTimeout, SerializationError, SSLError, TransportError
from opensearchpy.serializer import JSONSerializer
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_before_delay, wait_exponential

from nomos.errors import AccessDenied, ClusterError, ClusterUnavailable, ConfigError
from nomos.opensearch.settings import ClusterSettings

T = TypeVar("T")
__all__ = ["INDEXING_RETRIES", "ClusterUnavailable", "cluster_version", "is_transient", "make_client", "retrying"]


class FastJSON(JSONSerializer):
    """opensearch-py's JSON serializer on orjson: the same JSON (NumPy arrays and scalars, dates and UUIDs
    included, through the stock serializer's ``default``), written and read in C.

    A hybrid results page sends a query vector (384 floats, each printed by ``float.__repr__`` in the standard
    library) and reads back two lists of 100 hits; with the stock ``json`` module that was about a tenth of the
    portal's CPU for the page (py-spy, docs/benchmarks.md "A results page in half the CPU"). orjson ships wheels
    for every platform CPython does and is already installed with ranx."""

    _OPTIONS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS

    def dumps(self, data: Any) -> Any:  # opensearch-py's signature
        if isinstance(data, str):
            return data
        try:
            return orjson.dumps(data, default=self.default, option=self._OPTIONS).decode()
        except (orjson.JSONEncodeError, TypeError, ValueError) as exc:
            raise SerializationError(data, exc) from exc

    def loads(self, s: str) -> Any:  # opensearch-py's signature
        try:
            return orjson.loads(s)
        except (orjson.JSONDecodeError, TypeError) as exc:
            raise SerializationError(s, exc) from exc


# the connections a client keeps: the learned ranker searches from two threads at once (its side lists while the
# first stage runs) and reads an eval's pools from four (ltr.features.WORKERS); urllib3's default pool of one opened
# a connection for every ranked query and dropped it after ("Connection pool is full, discarding connection")
POOL_MAXSIZE = 4


def make_client(settings: ClusterSettings, pool_maxsize: int | None = None, retries: int = 0) -> OpenSearch:
    """A client for ``settings.url``.

    ``retries``: how often opensearch-py itself re-sends a request that failed to connect or timed out. 0 by
    default: searches and reads retry in :class:`nomos.opensearch.transport.Transport` (with backoff, for
    ``NOMOS_RETRY_SECONDS``), and a client retrying underneath would multiply every wait by ``retries + 1``.
    Bulk indexing, which does not go through the transport, asks for its own (:data:`INDEXING_RETRIES`).
    No HTTP compression: the default cluster is on loopback, where gzip costs more CPU than it saves.
    ``pool_maxsize`` sizes the connection pool for callers that search from many threads at once; by default
    :data:`POOL_MAXSIZE`.
    """
    extra: dict[str, Any] = {"pool_maxsize": pool_maxsize or POOL_MAXSIZE}
    extra.update(connection_options(settings))
    return OpenSearch(
        hosts=[settings.url],
        timeout=settings.request_timeout,
        max_retries=retries,
        retry_on_timeout=retries > 0,
        http_compress=False,
        serializer=FastJSON(),
        **extra,
    )


SEARCH_PATHS = ("/_search", "/_msearch")


def bound_searches(client: OpenSearch, seconds: float) -> OpenSearch:
    """``client`` with every ``_search`` and ``_msearch`` it sends cut by the node after ``seconds``
    (OpenSearch's ``cancel_after_time_interval``: the search task is cancelled, query and fetch phases alike, and
    the answer is an error, never partial hits as the ``timeout`` parameter gives; issue 47). A request that
    names its own keeps it. 0 leaves the client as it is. The client is changed in place (once) and returned."""
    if seconds <= 0:
        return client
    transport = client.transport
    value = f"{max(1, round(seconds * 1000))}ms"
    # the bound and the wrapped perform_request are attached to opensearch-py's Transport instance (it has no
    # per-request hook): attributes its class does not declare, hence setattr/getattr
    if getattr(transport, "nomos_search_bound", None) is not None:
        setattr(transport, "nomos_search_bound", value)  # noqa: B010
        return client
    send = transport.perform_request

    def perform_request(method: str, url: str, params: Mapping[str, Any] | None = None, body: Any = None,
                        **kwargs: Any) -> Any:  # opensearch-py's signature
        if url.endswith(SEARCH_PATHS):
            params = {"cancel_after_time_interval": getattr(transport, "nomos_search_bound"), **(params or {})}  # noqa: B009
        return send(method, url, params=params, body=body, **kwargs)

    setattr(transport, "nomos_search_bound", value)  # noqa: B010
    setattr(transport, "perform_request", perform_request)  # noqa: B010
    return client


def connection_options(settings: ClusterSettings) -> dict[str, Any]:
    """opensearch-py's TLS and authentication arguments for ``settings``.

    https: certificates are always verified, against ``opensearch_ca`` (else a secured local node's own CA, else
    the system's store). ``opensearch_auth=basic`` with a user: HTTP basic auth, the password from the setting or
    its file. ``sigv4``: every request signed with boto3's credentials (Amazon OpenSearch Service), over requests.
    """
    opts: dict[str, Any] = {}
    if settings.url.startswith("https://"):
        ca = settings.opensearch_ca
        if ca is None and settings.uses_local_node and settings.local_node_ca.is_file():
            ca = settings.local_node_ca
        opts.update(use_ssl=True, verify_certs=True, ssl_show_warn=False)
        if ca is not None:
            if not ca.is_file():
                raise ConfigError(f"NOMOS_OPENSEARCH_CA={ca}: no such file",
                                  hint="name the PEM file of the CA that signed the cluster's certificate")
            opts["ca_certs"] = str(ca)
    if settings.opensearch_auth == "sigv4":
        opts.update(http_auth=sigv4_auth(settings), connection_class=RequestsHttpConnection)
    elif settings.opensearch_user:
        opts["http_auth"] = (settings.opensearch_user, password_of(settings))
    return opts


def password_of(settings: ClusterSettings) -> str:
    """The password of ``opensearch_user``: NOMOS_OPENSEARCH_PASSWORD, else the first line of
    NOMOS_OPENSEARCH_PASSWORD_FILE (what a secured local node writes, 0600); messages name the portal's variables
    (NOMOS_PORTAL_OPENSEARCH_*) for the portal's account."""
    if settings.opensearch_password:
        return settings.opensearch_password
    user, variable = settings.opensearch_identity()
    prefix = variable.removesuffix("_USER")
    path = settings.opensearch_password_file
    if path is None:
        raise ConfigError(f"{variable}={user} has no password",
                          hint=f"set {prefix}_PASSWORD or {prefix}_PASSWORD_FILE")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"{prefix}_PASSWORD_FILE={path}: cannot read it ({exc.strerror})") from None
    if not lines or not lines[0].strip():
        raise ConfigError(f"{prefix}_PASSWORD_FILE={path}: the file is empty")
    return lines[0].strip()


def sigv4_auth(settings: ClusterSettings) -> Any:  # opensearchpy.AWSV4SignerAuth
    """opensearch-py's SigV4 signer over boto3's credential chain (environment, profile, instance role), for
    Amazon OpenSearch Service (``aws_service`` "es") or Serverless ("aoss"). boto3 is imported only here."""
    if not settings.aws_region:
        raise ConfigError("NOMOS_OPENSEARCH_AUTH=sigv4 needs NOMOS_AWS_REGION (the domain's region, e.g. eu-central-1)")
    if settings.uses_local_node:
        raise ConfigError("NOMOS_OPENSEARCH_AUTH=sigv4 is for Amazon OpenSearch Service: set OPENSEARCH_URL to the "
                          "domain's https endpoint")
    try:
        import boto3
    except ImportError:
        raise ConfigError("NOMOS_OPENSEARCH_AUTH=sigv4 needs boto3, which is not installed",
                          hint="pip install boto3 (only where nomos talks to Amazon OpenSearch Service)") from None
    from opensearchpy import AWSV4SignerAuth

    credentials = boto3.Session().get_credentials()
    if credentials is None:
        raise ConfigError("NOMOS_OPENSEARCH_AUTH=sigv4: boto3 found no AWS credentials",
                          hint="set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or run with an IAM role")
    return AWSV4SignerAuth(credentials, settings.aws_region, settings.aws_service)


def reason_of(error: Any) -> str:  # OpenSearch's error bodies are free-form JSON
    """OpenSearch's most specific reason in an error body (``root_cause[0].reason``, else ``reason``)."""
    if isinstance(error, Mapping):
        inner = error.get("error", error)
        if isinstance(inner, Mapping):
            causes = inner.get("root_cause") or []
            if causes and isinstance(causes[0], Mapping) and causes[0].get("reason"):
                return str(causes[0]["reason"])
            if inner.get("reason"):
                return str(inner["reason"])
            if inner.get("type"):
                return str(inner["type"])
        elif inner:
            return str(inner)
    return str(error) if error else ""


def access_error(exc: BaseException, what: str, settings: ClusterSettings | None = None, user: str = "",
                 variable: str = "NOMOS_OPENSEARCH_USER") -> ClusterError | None:
    """The clear error for a request the cluster refused for who sent it (401, 403) or whose TLS certificate
    could not be verified; None for every other failure. ``settings`` (:meth:`ClusterSettings.opensearch_identity`) or
    ``user`` and the ``variable`` that names it say whose credentials failed (a 401 said "no NOMOS_OPENSEARCH_USER"
    while the portal's user was set, or named the indexer's: the portal's identity was not passed on)."""
    if settings is not None and not user:
        user, variable = settings.opensearch_identity()
    who = f"user {user!r}" if user else f"the client (no {variable})"
    password = variable.removesuffix("_USER") + "_PASSWORD(_FILE)"
    if isinstance(exc, SSLError):
        return AccessDenied(f"{what}: the cluster's TLS certificate could not be verified ({exc.info or exc.error})",
                            reason=str(exc.info), hint="set NOMOS_OPENSEARCH_CA to the CA that signed it")
    if not isinstance(exc, TransportError) or exc.status_code not in (401, 403):
        return None
    reason = reason_of(exc.info) or str(exc.error)
    if exc.status_code == 401:
        return AccessDenied(f"{what}: the cluster did not accept the credentials of {who} (401)", status=401,
                            reason=reason, hint=f"check {variable} and {password}")
    detail = f": {reason}" if reason and reason != "None" else ""  # a HEAD request's refusal has no body
    return AccessDenied(f"{what}: {who} may not do this (403){detail}", status=403, reason=reason,
                        hint="the user's role lacks the permission: use the user meant for this work")


# Bulk loads are idempotent by article id, and a slow bulk request that timed out is worth sending again.
INDEXING_RETRIES = 3


def cluster_version(client: OpenSearch, settings: ClusterSettings) -> str:
    """The server's version number; fails with a hint when nothing answers."""
    try:
        return str(client.info()["version"]["number"])
    except (SSLError, TransportError) as exc:
        if (denied := access_error(exc, f"connecting to {settings.url}", settings)) is not None:
            raise denied from None
        if not isinstance(exc, OSConnectionError):
            raise
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
    if isinstance(exc, SSLError):
        return False  # an untrusted certificate stays untrusted: say so at once instead of retrying for minutes
    if isinstance(exc, (OSConnectionError, ConnectionTimeout)):
        return True
    return isinstance(exc, TransportError) and getattr(exc, "status_code", None) in RETRY_STATUSES


def retrying(call: Callable[[], T], seconds: float = 120.0, first_wait: float = 0.5, max_wait: float = 8.0,
             on_retry: Callable[[int, Exception], None] | None = None) -> T:
    """Run ``call``; on a transient error (:func:`is_transient`) wait with exponential backoff (``first_wait``,
    doubling, at most ``max_wait``) and try again, for at most ``seconds`` (``ClusterSettings.retry_seconds``): a retry whose
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
