"""The cluster's and the local node's settings: where the cluster is, who the client is, how the node runs and how
the index is built and searched. :func:`nomos.opensearch.client.make_client` and everything on this floor take this
part only (``settings.cluster``); the names of the environment are ``NOMOS_<FIELD>`` unless a field says otherwise
(:mod:`nomos.settings_base`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from nomos.settings_base import SettingsPart, env, one_of

DEFAULT_ALIAS = "nomos-articles"
DEFAULT_PORT = 9200
SEARCH_TYPES = ("auto", "dfs_query_then_fetch", "query_then_fetch")
AUTH_KINDS = ("basic", "sigv4")
CHOICES = {"opensearch_auth": AUTH_KINDS, "search_type": SEARCH_TYPES}


def _default_node_root() -> Path:
    """Where the local node lives: outside /root when root (the service user must traverse it)."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return Path("/opt/nomos")
    return Path.home() / ".local" / "share" / "nomos"


class ClusterSettings(SettingsPart):
    """The cluster every command talks to. ``opensearch_url`` set means "use that cluster and install nothing";
    unset means the project's own local node on ``http_port``."""

    flat = ("url", "uses_local_node", "local_node_ca", "opensearch_identity")

    opensearch_url: str | None = Field(default=None, validation_alias=env("OPENSEARCH_URL"))
    http_port: int = DEFAULT_PORT
    # the local node runs with the security plugin (`server start --secure`): https on http_port, users and roles;
    # the client then needs opensearch_ca (default: the node's own CA) and a user
    secure: bool = False
    # --- how the client proves who it is and whom it trusts (any cluster: the local node, a firm's, Amazon's) ---
    # a PEM bundle of the CAs that signed the cluster's HTTP certificate; unset: the system's trust store (and for
    # a secured local node, its own CA under <node_root>/nodes/<node_name>/security/certs/ca.pem)
    opensearch_ca: Path | None = None
    # "basic" (user and password below, when a user is set) or "sigv4" (Amazon OpenSearch Service: requests signed
    # with boto3's credentials for aws_region; needs boto3, installed only where this is used)
    opensearch_auth: str = "basic"
    opensearch_user: str | None = None
    # never logged or shown (repr=False); a file (opensearch_password_file, 0600) keeps it out of the environment
    opensearch_password: str | None = Field(default=None, repr=False)
    opensearch_password_file: Path | None = None
    aws_region: str | None = None
    aws_service: str = "es"  # "es" for an OpenSearch Service domain, "aoss" for OpenSearch Serverless
    # the portal's own identity, so it does not use the indexer's: read the articles, write judgments only
    # (a secured local node's nomos_portal user). Unset: the portal uses opensearch_user like every command.
    portal_opensearch_user: str | None = None
    portal_opensearch_password: str | None = Field(default=None, repr=False)
    portal_opensearch_password_file: Path | None = None
    transport_port: int = 9300
    node_root: Path = Field(default_factory=_default_node_root)
    node_name: str = "node-1"
    # the secured local node's CA key: a 0700 folder outside the node's; unset: <node_root>/ca-keys/<node_name>
    # (docs/security.md: move it offline; put it back only to issue new certificates)
    ca_key_dir: Path | None = None
    heap: str = "1g"
    # the local node's search thread pool (thread_pool.search.size); None = OpenSearch's own default,
    # int(cores * 3 / 2) + 1 (4 on 2 cores); docs/history/benchmarks-diary.md "The portal under load" measures it
    search_threads: int | None = None
    # the local node's garbage collector (NOMOS_NODE_GC): "parallel" (the default: less of the node's CPU per results
    # page than G1 on 2 cores and a 1 GB heap, docs/benchmarks.md "Where a results page's time goes") or "g1"
    node_gc: Literal["parallel", "g1"] = "parallel"
    index_alias: str = Field(default=DEFAULT_ALIAS, validation_alias=env("NOMOS_INDEX"))
    bm25_k1: float = 1.5
    bm25_b: float = 0.75
    shards: int = 1
    replicas: int = 0
    # BM25 across shards: "auto" = dfs_query_then_fetch when the index has more than one shard (global term
    # statistics, so scores do not depend on the shard layout), else query_then_fetch; or name one explicitly.
    search_type: str = "auto"
    nodes: int = 1  # local nodes `server start` runs (2+: a loopback cluster on consecutive ports)
    retry_seconds: float = 120.0  # searches retry connection errors and 429/502/503/504 with backoff this long
    search_timeout_seconds: float = Field(default=5.0, ge=0)  # the node cuts a search after this long (docs/security.md)
    hnsw_m: int = 16
    hnsw_ef_construction: int = 128
    request_timeout: float = 60.0

    @field_validator("opensearch_url", mode="before")
    @classmethod
    def _strip_url(cls, v: object) -> object:
        """" http://db:9200/ " -> "http://db:9200"; blank -> unset (the local node)."""
        if isinstance(v, str):
            return v.strip().rstrip("/") or None
        return v

    @field_validator("opensearch_auth", "search_type")
    @classmethod
    def _one_of(cls, v: str, info: ValidationInfo) -> str:
        return one_of(v, CHOICES[info.field_name or ""])

    @property
    def url(self) -> str:
        """The cluster every command talks to."""
        return self.opensearch_url or f"{'https' if self.secure else 'http'}://127.0.0.1:{self.http_port}"

    @property
    def uses_local_node(self) -> bool:
        return self.opensearch_url is None

    @property
    def local_node_ca(self) -> Path:
        """The CA a secured local node's certificate is signed with (made by ``server start --secure``)."""
        return self.node_root / "nodes" / self.node_name / "security" / "certs" / "ca.pem"

    def for_portal(self) -> ClusterSettings:
        """This part with the portal's own cluster identity (``portal_opensearch_*``) in place of the indexer's,
        where one is configured; unchanged otherwise."""
        if not self.portal_opensearch_user:
            return self
        return self.model_copy(update={"opensearch_user": self.portal_opensearch_user,
                                       "opensearch_password": self.portal_opensearch_password,
                                       "opensearch_password_file": self.portal_opensearch_password_file})

    def opensearch_identity(self) -> tuple[str, str]:
        """(user, the variable naming it) requests go out as, for messages: the portal's in :meth:`for_portal`."""
        if self.portal_opensearch_user and self.opensearch_user == self.portal_opensearch_user:
            return self.portal_opensearch_user, "NOMOS_PORTAL_OPENSEARCH_USER"
        return self.opensearch_user or "", "NOMOS_OPENSEARCH_USER"
