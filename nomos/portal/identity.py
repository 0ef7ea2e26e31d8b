"""Who is asking: the address a request came from and the user a trusted reverse proxy signed in.

The portal has no accounts. Sign-in is a reverse proxy's job (docker-compose's ``sso`` profile runs oauth2-proxy in
front of the portal: OpenID Connect with the institution's identity provider), which passes the signed-in user on
in one header, ``NOMOS_USER_HEADER`` (``X-Forwarded-User``, oauth2-proxy's; ``X-Remote-User`` for Apache or nginx
auth modules). Any client can send such headers, so the header is believed only from the proxies' addresses
(``NOMOS_TRUSTED_PROXIES``; default none): from anyone else it is ignored, as is their ``X-Forwarded-For`` and
``X-Forwarded-Host``. And a proxy passes on the headers it does not set itself: a request from a proxy that carries
any other identity header is refused (400), so a client's ``X-Forwarded-User: alice`` behind a proxy that signs in
with ``X-Remote-User: bob`` can never be the one stored.

Issue 47: a header sent twice (a proxy that appends to what the client sent: the client's came first and was
stored) is a 400; oauth2-proxy's ``pass_user_headers`` sends ``X-Forwarded-Email``, ``-Preferred-Username`` and
``-Groups`` beside ``X-Forwarded-User`` (every judgment was a 400), so where the portal reads one of those four the
others are accepted from the proxy, and the user is still taken from the configured one only. And a proxy's address
alone is "any local process" where the proxy is on this machine: with ``NOMOS_PROXY_SECRET`` set, a request counts
as the proxy's only if it also carries that secret as the password of HTTP basic auth (oauth2-proxy's
``pass_basic_auth`` with ``basic_auth_password``, as docker-compose's ``sso`` profile sets it).
"""

from __future__ import annotations

import base64
import binascii
import hmac
import ipaddress
import logging
import re
import threading
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

from starlette.requests import Request

# identity headers some proxy or auth module sets: one is the portal's (NOMOS_USER_HEADER); the others are refused
USER_HEADERS = ("X-Forwarded-User", "X-Remote-User", "Remote-User", "X-Auth-Request-User", "X-Forwarded-Preferred-Username",
                "X-Forwarded-Email", "X-Auth-Request-Email", "X-Auth-Request-Preferred-Username")
# what oauth2-proxy's pass_user_headers sends together: reading one of them, the portal accepts the others
OAUTH2_PROXY_HEADERS = ("X-Forwarded-User", "X-Forwarded-Email", "X-Forwarded-Preferred-Username", "X-Forwarded-Groups")
log = logging.getLogger("nomos.portal")
USER_PATTERN = r"^[\w][\w.@+\-]{0,63}$"  # letters (Greek too), digits, _ . @ + -: user names and e-mail addresses


def client_network(address: str) -> str:
    """What one client is, for counting its rate: an IPv4 address as it is, an IPv6 one by its /64 (the prefix one
    subscriber or host is given: counting full addresses let one client be 2^64 of them, issue 47), an
    IPv4-mapped IPv6 address as its IPv4 one; anything else (a test client's name, a socket) as written."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class BadUserHeader(ValueError):
    """A trusted proxy sent a user name that is not one (the message names the header)."""


@dataclass(frozen=True)
class Proxies:
    """The trusted proxies' networks (``NOMOS_TRUSTED_PROXIES``)."""

    spec: tuple[str, ...] = ()
    header: str = "X-Forwarded-User"  # the one the proxies name the signed-in user in
    secret: str | None = field(default=None, repr=False)  # NOMOS_PROXY_SECRET: the basic-auth password the proxy sends
    wrong_secrets: WrongSecrets = field(default_factory=lambda: WrongSecrets(), repr=False, compare=False)

    @cached_property
    def networks(self) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
        return tuple(ipaddress.ip_network(n, strict=False) for n in self.spec)

    def trusts(self, address: str | None) -> bool:
        if not address or not self.networks:
            return False
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:  # a test client's "testclient", a unix socket
            return False
        return any(ip in net for net in self.networks)

    def peer(self, request: Request) -> str:
        """The address that sent the request, or behind trusted proxies the first one before them in
        ``X-Forwarded-For`` (read from the right: only the proxies' own entries are believed)."""
        peer = request.client.host if request.client else ""
        if not self.trusted(request):  # with a proxy secret, the proxy's address alone does not name another client
            return peer or "unknown"
        hops = [h.strip() for h in request.headers.get("x-forwarded-for", "").split(",") if h.strip()]
        for hop in reversed(hops):
            if not self.trusts(hop):
                return hop
        return peer

    def user(self, request: Request) -> str | None:
        """The user a trusted proxy signed in, or None (no such header, or not from a trusted proxy).
        :class:`BadUserHeader` when a trusted proxy sent something that is not a user name."""
        if not self.trusted(request):
            return None
        accepted = {h.lower() for h in self.companions}
        for name in dict.fromkeys((*USER_HEADERS, *OAUTH2_PROXY_HEADERS, self.header)):
            values = request.headers.getlist(name)
            if len(values) > 1:
                raise BadUserHeader(f"{name} header: sent {len(values)} times, one is expected (a proxy that appends "
                                    "to a client's own must replace it)")
            if values and name.lower() not in accepted:
                raise BadUserHeader(f"{name} header: this portal reads the signed-in user from {self.header} only")
        value = request.headers.get(self.header)
        if value is None:
            return None
        try:  # header bytes arrive as latin-1; proxies send a Greek user name as UTF-8
            value = value.encode("latin-1").decode("utf-8")
        except UnicodeError:
            pass  # not UTF-8: checked as it is
        if not re.fullmatch(USER_PATTERN, value):
            raise BadUserHeader(f"{self.header} header: not a user name (letters, digits, _ . @ + -, at most 64)")
        return value

    @property
    def companions(self) -> tuple[str, ...]:
        """The identity headers a trusted proxy may send: oauth2-proxy's four together where the portal reads one
        of them, else the configured one alone."""
        if self.header.lower() in {h.lower() for h in OAUTH2_PROXY_HEADERS}:
            return OAUTH2_PROXY_HEADERS
        return (self.header,)

    def trusted(self, request: Request) -> bool:
        """Whether the request came straight from a trusted proxy (its forwarded headers count): from a trusted
        address, and with the proxy's secret where one is set (:meth:`carries_secret`)."""
        known = request.scope.get("nomos.trusted")  # asked several times per request: decided (and logged) once
        if known is None:
            known = request.scope["nomos.trusted"] = (self.trusts(request.client.host if request.client else None)
                                                      and self.carries_secret(request))
        return known

    def carries_secret(self, request: Request) -> bool:
        """Whether the request carries the proxy's secret as the password of one HTTP basic ``Authorization``
        header (always, where no secret is set)."""
        if not self.secret:
            return True
        sent = request.headers.getlist("authorization")
        if len(sent) != 1 or not sent[0][:6].lower() == "basic ":
            return False
        try:
            _, _, password = base64.b64decode(sent[0][6:].strip(), validate=True).decode("utf-8").partition(":")
        except (binascii.Error, UnicodeDecodeError):
            password = None
        if password is not None and hmac.compare_digest(password.encode("utf-8"), self.secret.encode("utf-8")):
            return True
        self.wrong_secrets.note(request.client.host if request.client else "unknown")
        return False


@dataclass
class WrongSecrets:
    """Requests from a proxy's address whose basic-auth password was not the proxy's secret: a proxy configured
    with another secret (every reader is then anonymous, every judgment a 401) or a local process guessing it. Not
    throttled: they come from the proxy's own address, and a block would shut the real proxy out with them (a
    secret of 16 characters or more is not guessed at any rate HTTP allows); logged, one warning a minute at most,
    with how many came since the last."""

    every: float = 60.0
    clock: Callable[[], float] = time.monotonic
    _count: int = 0
    _next: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def note(self, address: str) -> None:
        with self._lock:
            self._count += 1
            now = self.clock()
            if now < self._next:
                return
            count, self._count, self._next = self._count, 0, now + self.every
        log.warning("%d request(s) from the proxy's address %s with a wrong NOMOS_PROXY_SECRET (basic-auth password): "
                    "not taken as the proxy's (check oauth2-proxy's basic_auth_password)", count, address)
