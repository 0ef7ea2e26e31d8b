"""The portal's settings: its deadline and page sizes, whom it believes (trusted proxies, the identity header, the
proxy's secret, sign-in), which Host names it answers to, its per-client rates and its access log; and
:class:`PortalConfig`, what :func:`nomos.portal.app.create_app` takes: the stages' settings with this part on top."""

from __future__ import annotations

import ipaddress

from pydantic import Field, field_validator

from nomos.settings_base import SettingsPart, comma_list
from nomos.stages.settings import StageSettings


class PortalSettings(SettingsPart):
    """The portal's own part (``settings.portal``); read from ``NOMOS_<FIELD>`` like every other."""

    flat = ("sign_in_required",)

    # the portal's access log keeps URLs without their query string unless this is on: a search's ?q= is a visitor's
    # own legal problem, written in their words
    log_queries: bool = False
    # the portal's bound on one request (seconds): a search or an article page not done by then is a 504 page (or
    # JSON under /api), and the portal's OpenSearch client gives up as soon (an abandoned request does not linger).
    # LLM methods keep their own, longer deadline (`serve --llm-deadline`).
    portal_deadline_seconds: float = Field(default=15.0, gt=0)
    # an article page shows this many characters of a longer text, with a link to the whole (?full=1)
    portal_article_chars: int = Field(default=20_000, gt=0)
    # one query's cost (docs/security.md): words after the stop list in the portal (0: no cap); the node cuts searches
    # (NOMOS_SEARCH_TIMEOUT_SECONDS, the cluster's part)
    max_query_words: int = Field(default=3000, ge=0)
    # the reverse proxies (IPs or networks, comma-separated) whose identity header and X-Forwarded-For the portal
    # believes (docs/security.md "The proxy contract"); from anyone else those headers are ignored. Default: none.
    trusted_proxies: tuple[str, ...] = ()
    # the one header a trusted proxy names the signed-in user in (oauth2-proxy's, as docker-compose's `sso` sets it);
    # any other identity header on a request from a trusted proxy is a 400 (a client could add one the proxy passes on)
    user_header: str = Field(default="X-Forwarded-User", pattern=r"^[A-Za-z][A-Za-z0-9-]{0,63}$")
    # the trusted proxy's basic-auth password (oauth2-proxy's basic_auth_password, compose `sso`): a request from a
    # proxy's address is the proxy's only with it (a local process is not "the proxy"); None: the address alone
    proxy_secret: str | None = Field(default=None, repr=False, min_length=16)
    # judgments (posting and reading) only from a user a trusted proxy signed in (401 otherwise); the `user` field
    # is then ignored. None: on wherever a proxy is trusted (NOMOS_TRUSTED_PROXIES), off otherwise
    require_sign_in: bool | None = None
    # the Host names the portal answers to (comma-separated; "*" any): a request naming another is a 400, so no
    # redirect or link is ever built from a foreign Host
    allowed_hosts: tuple[str, ...] = ("localhost", "127.0.0.1", "[::1]")
    # per client (the signed-in user, else the address): searches and judgments allowed, in the `limits` library's
    # notation ("60/minute", "10/second;300/hour"; checked when the portal starts)
    search_rate: str = "120/minute"
    judgment_rate: str = "30/minute"
    # every other page or API answer that reads the cluster (an article, a law, judgments, health): per client
    page_rate: str = "300/minute"

    @field_validator("trusted_proxies", "allowed_hosts", mode="before")
    @classmethod
    def _comma_list(cls, v: object) -> object:
        """"a, b" in the environment, a tuple in Python; blank: none."""
        return comma_list(v)

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for net in v:
            try:
                ipaddress.ip_network(net, strict=False)
            except ValueError:
                raise ValueError(f"{net!r} is not an IP address or network (e.g. 10.0.0.5 or 172.16.0.0/12)") from None
        return v

    @property
    def sign_in_required(self) -> bool:
        """Whether judgments need a signed-in user: as set, else wherever a sign-in proxy is trusted."""
        return bool(self.trusted_proxies) if self.require_sign_in is None else self.require_sign_in


class PortalConfig(StageSettings):
    """What the portal is built from: the stages' settings (it searches through the same stage as the CLI) and its
    own part. Every field answers by flat name (``settings.trusted_proxies``)."""

    portal: PortalSettings = Field(default_factory=lambda: PortalSettings())
