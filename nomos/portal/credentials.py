"""The portal backs off its own cluster account after the node refused its credentials (issue 47).

The one credential the portal sends is its own: the node account ``NOMOS_PORTAL_OPENSEARCH_USER`` (else
``NOMOS_OPENSEARCH_USER``), the same for every reader (the portal has no accounts of its own; readers are signed in
by the proxy, :mod:`nomos.portal.identity`). When the node refuses it (401: a changed or wrong password), every
page would send it again: a bcrypt check of about 260 ms of the node's CPU per request, two or three requests per
results page, and after ten failures within a minute the node's own throttle (``auth_failure_listeners``) blocks
the account, its right password too. So after a 401 the portal sends nothing as that account for a while, 1 s,
doubled after each failed try up to ``MOST_SECONDS``; pages answer 503 at once with ``Retry-After``, without a
request. When the while is over one request goes out (the others still wait for its answer): accepted, the portal
works again; refused, it waits twice as long. After the first refusal (and those of requests already on their way)
five tries reach the node in the next minute, one a minute from the third on: fewer than the node's ten, so the
portal does not lock its own account out.

The guard sits on the client's transport (:meth:`CredentialBackoff.guard`), under every request the portal makes:
searches, article pages, judgments, health.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from opensearchpy import OpenSearch
from opensearchpy.exceptions import AuthenticationException

from nomos.errors import AccessDenied

log = logging.getLogger("nomos.portal")

FIRST_SECONDS = 1.0
MOST_SECONDS = 60.0  # the node's own block lasts 60 s (node_security.AUTH_FAILURE_LISTENERS)


class CredentialsBackoff(AccessDenied):
    """Nothing was sent: the node refused the portal's account moments ago; ``retry_after`` seconds left."""

    def __init__(self, user: str, variable: str, retry_after: int) -> None:
        password = variable.removesuffix("_USER") + "_PASSWORD(_FILE)"
        who = f"user {user!r}" if user else f"the client (no {variable})"
        super().__init__(f"the cluster refused the credentials of {who} (401) moments ago: nothing is sent as it for "
                         f"{retry_after} s more", status=401, hint=f"check {variable} and {password}")
        self.retry_after = retry_after


@dataclass
class CredentialBackoff:
    """The portal's account's state: healthy (``wait`` 0), or refused and waiting until ``until``; see the
    module's docstring. Safe to share between threads. ``clock``: ``time.monotonic`` (tests pass their own)."""

    user: str = ""
    variable: str = "NOMOS_OPENSEARCH_USER"
    first: float = FIRST_SECONDS
    most: float = MOST_SECONDS
    clock: Callable[[], float] = time.monotonic
    wait: float = 0.0
    until: float = 0.0
    _probing: bool = field(default=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def seconds_left(self) -> int:
        """Whole seconds until the next try (0: none pending); a 503's ``Retry-After``."""
        return max(0, math.ceil(self.until - self.clock())) if self.wait else 0

    def before(self) -> bool:
        """Before a request: :class:`CredentialsBackoff` while waiting (or while another request is the try);
        True when this request is the try after a wait, False when all is well."""
        with self._lock:
            if not self.wait:
                return False
            if self._probing or self.clock() < self.until:
                raise CredentialsBackoff(self.user, self.variable, max(1, self.seconds_left()))
            self._probing = True
            return True

    def refused(self, probe: bool) -> None:
        """The node answered 401: wait ``first`` seconds, or twice the last wait after a failed try (a refusal of a
        request sent before the wait began does not lengthen it)."""
        with self._lock:
            now = self.clock()
            if probe:
                self._probing = False
            elif self.wait and now < self.until:
                return
            self.wait = min(self.most, self.wait * 2 if self.wait else self.first)
            self.until = now + self.wait
        log.warning("the cluster refused the credentials of %s (401): the portal sends nothing as it for %g s "
                    "(check %s and its password file)", f"user {self.user!r}" if self.user else "the portal's client",
                    self.wait, self.variable)

    def answered(self, probe: bool) -> None:
        """The node answered something other than 401 (it accepted the credentials): healthy again."""
        if not self.wait and not probe:
            return
        with self._lock:
            was = self.wait
            self.wait, self.until, self._probing = 0.0, 0.0, False
        if was:
            log.warning("the cluster accepts the credentials of %s again",
                        f"user {self.user!r}" if self.user else "the portal's client")

    def failed_otherwise(self, probe: bool) -> None:
        """No answer (the node down): the try is over, the wait stays as it was."""
        if probe:
            with self._lock:
                self._probing = False

    def guard(self, client: OpenSearch) -> OpenSearch:
        """``client`` with every request it sends passed through this backoff (changed in place; returned)."""
        send = client.transport.perform_request

        def perform_request(*args: Any, **kwargs: Any) -> Any:  # opensearch-py's signature
            probe = self.before()
            try:
                result = send(*args, **kwargs)
            except AuthenticationException:
                self.refused(probe)
                raise
            except Exception as exc:
                status = getattr(exc, "status_code", None)
                (self.answered if isinstance(status, int) else self.failed_otherwise)(probe)
                raise
            self.answered(probe)
            return result

        setattr(client.transport, "perform_request", perform_request)  # noqa: B010 - an instance patch mypy cannot type
        return client
