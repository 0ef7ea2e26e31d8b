"""Who is asking: the address a request came from and the user a trusted reverse proxy signed in.

The portal has no accounts. Sign-in is a reverse proxy's job (docker-compose's ``sso`` profile runs oauth2-proxy in
front of the portal: OpenID Connect with the institution's identity provider), which passes the signed-in user on
in one header, ``NOMOS_USER_HEADER`` (``X-Forwarded-User``, oauth2-proxy's; ``X-Remote-User`` for Apache or nginx
auth modules). Any client can send such headers, so the header is believed only from the proxies' addresses
(``NOMOS_TRUSTED_PROXIES``; default none): from anyone else it is ignored, as is their ``X-Forwarded-For`` and
``X-Forwarded-Host``. And a proxy passes on the headers it does not set itself: a request from a proxy that carries
any other identity header is refused (400), so a client's ``X-Forwarded-User: alice`` behind a proxy that signs in
with ``X-Remote-User: bob`` can never be the one stored.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from functools import cached_property

from starlette.requests import Request

# identity headers some proxy or auth module sets: one is the portal's (NOMOS_USER_HEADER); the others are refused
USER_HEADERS = ("X-Forwarded-User", "X-Remote-User", "Remote-User", "X-Auth-Request-User", "X-Forwarded-Preferred-Username")
USER_PATTERN = r"^[\w][\w.@+\-]{0,63}$"  # letters (Greek too), digits, _ . @ + -: user names and e-mail addresses


class BadUserHeader(ValueError):
    """A trusted proxy sent a user name that is not one (the message names the header)."""


@dataclass(frozen=True)
class Proxies:
    """The trusted proxies' networks (``NOMOS_TRUSTED_PROXIES``)."""

    spec: tuple[str, ...] = ()
    header: str = "X-Forwarded-User"  # the one the proxies name the signed-in user in

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
        if not self.trusts(peer):
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
        for other in USER_HEADERS:
            if other.lower() != self.header.lower() and other in request.headers:
                raise BadUserHeader(f"{other} header: this portal reads the signed-in user from {self.header} only")
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

    def trusted(self, request: Request) -> bool:
        """Whether the request came straight from a trusted proxy (its forwarded headers count)."""
        return self.trusts(request.client.host if request.client else None)
