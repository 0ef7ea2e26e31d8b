"""What identifies one local OpenSearch node and the files rendered for it: :class:`NodeConfig` (name, ports, heap,
folders), its ``opensearch.yml`` / ``jvm.options`` / environment, the check that a running node was started with the
same cluster layout, and the per-node lock every install/start/stop takes.

Layout under the root folder:

    <root>/opensearch-<version>/        the shared, read-only install ("home"), marked complete by a marker file
    <root>/nodes/<name>/config/         per-node OPENSEARCH_PATH_CONF, rendered on every start
    <root>/nodes/<name>/data|logs|run/  per-node data, logs and pidfile, so several nodes can share one home

Who owns which of these when root runs the node (root's, the node account's): ``node_host``.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import stat
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from nomos.errors import NomosError
from nomos.opensearch.assembly import template_env
from nomos.opensearch.host_files import read_text
from nomos.opensearch.node_certs import ADMIN_SUBJECT, NODE_SUBJECT

_NODE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
Log = Callable[[str], None]


class NodeError(NomosError):
    """The node could not be installed, started or stopped; the message says why (with log lines when it died)."""


def default_root() -> Path:
    """Where everything lives: ``/opt/nomos`` as root (the service user must traverse it, so never under /root),
    else ``~/.local/share/nomos``."""
    if os.geteuid() == 0:
        return Path("/opt/nomos")
    return Path.home() / ".local" / "share" / "nomos"


# The garbage collectors a local node can run with, and their jvm.options lines. "g1" is the distribution's own
# (with its reserve and marking threshold). With "parallel", the parent circuit breaker must not read the heap's real
# use (REAL_MEMORY_BREAKER): the parallel collector leaves the old generation full of garbage until it is full, and
# only G1 can be made to collect when the breaker trips. Seen on the dev node (session 24) after hours of load: old
# generation 690 of 716 MB used, 47 MB live at its last collection, every request refused with 429 (the parent
# breaker at 944 of 932 MB "real usage") and, with no request let in, nothing allocated and so no collection ever
# again: stuck until restarted.
JVM_GCS: dict[str, tuple[str, ...]] = {
    "parallel": ("-XX:+UseParallelGC",),
    "g1": ("-XX:+UseG1GC", "-XX:G1ReservePercent=25", "-XX:InitiatingHeapOccupancyPercent=30"),
}
# opensearch.yml's parent breaker with the parallel collector: the sum of what the child breakers reserve (requests,
# fielddata, in-flight requests), against 70% of the heap, as OpenSearch counts it when real memory is off
REAL_MEMORY_BREAKER = "indices.breaker.total.use_real_memory"


@dataclass(frozen=True)
class NodeConfig:
    """Everything that identifies one local node; frozen and hashable so it can key caches and fixtures."""

    root: Path = field(default_factory=default_root)
    version: str = "2.19.1"
    plugin_version: str = "2.19.1.0"
    name: str = "node-1"  # data, logs, config and pid are per name, so several nodes can share one home
    http_port: int = 9200
    transport_port: int = 9300
    heap: str = "1g"
    # The JVM's garbage collector (JVM_GCS): "parallel" by default, "g1" as the distribution ships it. On a 1 GB heap
    # and 2 cores a results page cost the node about 9% (BM25) and 11% (hybrid) less CPU with the parallel collector
    # than with G1, measured on two nodes side by side (docs/benchmarks.md, issue 38, session 18); its young pauses
    # under the portal's load were no longer than G1's.
    gc: str = "parallel"
    cluster_name: str = "nomos"
    java_home: Path = Path("/usr/lib/jvm/java-17-openjdk-amd64")  # 2.19 needs the Security Manager: Java 17, not 25
    # The OS account the node runs as when root starts it; None: node_host.account_name (``opensearch`` for an open
    # node, ``opensearch-<name>`` for a secured one: one account per secured node).
    service_user: str | None = None
    # Members of a loopback cluster as (node name, transport port), this node included; empty = a single-node cluster.
    cluster_nodes: tuple[tuple[str, int], ...] = ()
    # The security plugin on (server start --secure): TLS on HTTP and transport, users and roles (node_security.py).
    # A secured node runs from its own home (the plain one plus the plugin), so open nodes never load the plugin.
    secure: bool = False
    # What the secured node's roles cover: the articles alias (its indices <alias>-*, judgments <alias>_judgments)
    # and the results indices' prefix; read at the security index's first initialisation only.
    articles_alias: str = "nomos-articles"
    results_prefix: str = "nomos-results"
    # Where the secured node's CA key is kept: a 0700 folder outside the node's (node_certs); None: <root>/ca-keys/<name>.
    ca_key_dir: Path | None = None
    # Extra opensearch.yml keys; they override the defaults. Frozen into a read-only mapping, left out of the hash.
    extra_settings: Mapping[str, object] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not _NODE_NAME.match(self.name):
            raise ValueError(f"node name {self.name!r} must be a plain file name ([A-Za-z0-9._-])")
        if self.gc not in JVM_GCS:
            raise ValueError(f"garbage collector {self.gc!r}: choose one of {', '.join(JVM_GCS)}")
        object.__setattr__(self, "root", Path(self.root).absolute())
        object.__setattr__(self, "java_home", Path(self.java_home))
        if self.ca_key_dir is not None:
            object.__setattr__(self, "ca_key_dir", Path(self.ca_key_dir).absolute())
        object.__setattr__(self, "extra_settings", MappingProxyType(dict(self.extra_settings)))
        object.__setattr__(self, "cluster_nodes", tuple((str(n), int(p)) for n, p in self.cluster_nodes))

    @property
    def home(self) -> Path:
        """The shared install of this version (``…-secure``: the same plus the security plugin)."""
        return self.root / (f"opensearch-{self.version}" + ("-secure" if self.secure else ""))

    @property
    def node_dir(self) -> Path:
        """Everything that belongs to this node alone."""
        return self.root / "nodes" / self.name

    @property
    def ca_key_folder(self) -> Path:
        """Where the secured node's CA key is: ``ca_key_dir``, else ``<root>/ca-keys/<name>`` (root's, 0700), out
        of the node's folder, whose config the node's account reads and a backup of the node copies."""
        return self.ca_key_dir or self.root / "ca-keys" / self.name

    @property
    def conf_dir(self) -> Path:
        """OPENSEARCH_PATH_CONF: rendered on every start, so the home stays untouched and shareable."""
        return self.node_dir / "config"

    @property
    def data_dir(self) -> Path:
        return self.node_dir / "data"

    @property
    def logs_dir(self) -> Path:
        return self.node_dir / "logs"

    @property
    def pid_file(self) -> Path:
        """Written by OpenSearch itself (``-p``) and removed by it on a clean exit."""
        return self.node_dir / "run" / "opensearch.pid"

    @property
    def main_log(self) -> Path:
        """OpenSearch's own log, named after the cluster by the distribution's log4j2.properties."""
        return self.logs_dir / f"{self.cluster_name}.log"

    @property
    def console_log(self) -> Path:
        """What bin/opensearch and the JVM print before logging is set up (fatal startup errors land here)."""
        return self.logs_dir / "console.log"

    @property
    def url(self) -> str:
        return f"{'https' if self.secure else 'http'}://127.0.0.1:{self.http_port}"


def node_settings(cfg: NodeConfig) -> dict[str, object]:
    """opensearch.yml as a flat mapping: single-node, loopback only, no bootstrap checks that need root, a bool
    clause limit high enough for long legal texts, and stored scripts only (the project's scripts are stored by id,
    ``stored_scripts``); ``extra_settings`` win over these."""
    settings: dict[str, object] = {
        "cluster.name": cfg.cluster_name,
        "node.name": cfg.name,
        "path.data": str(cfg.data_dir),
        "path.logs": str(cfg.logs_dir),
        "network.host": "127.0.0.1",
        "http.port": cfg.http_port,
        "transport.port": cfg.transport_port,
        "bootstrap.memory_lock": False,
        "bootstrap.system_call_filter": False,
        "cluster.routing.allocation.disk.threshold_enabled": False,
        "indices.query.bool.max_clause_count": 16384,
        # no inline scripts, whoever sends them: nomos's own are stored by id (stored_scripts; docs/security.md)
        "script.allowed_types": "stored",
    }
    if cfg.gc == "parallel":
        settings[REAL_MEMORY_BREAKER] = False  # see JVM_GCS: garbage would count as use, and nothing collects it
    if cfg.cluster_nodes:
        # A loopback cluster: every node knows every transport port and the first election needs them all.
        settings["discovery.seed_hosts"] = [f"127.0.0.1:{port}" for _, port in cfg.cluster_nodes]
        settings["cluster.initial_cluster_manager_nodes"] = [name for name, _ in cfg.cluster_nodes]
    else:
        settings["discovery.type"] = "single-node"
    if cfg.secure:
        settings.update(security_settings(cfg))
    settings.update(cfg.extra_settings)
    return settings


CERTS_SUBDIR = "certs"  # the node's certificate and key, copied under OPENSEARCH_PATH_CONF (the plugin reads there)


def security_settings(cfg: NodeConfig) -> dict[str, object]:
    """The opensearch.yml keys of a secured node: TLS on transport and HTTP with our certificates (paths relative to
    the config dir, where ``node_security.write_security_config`` copies them), the first-start init, the admin and
    node DNs."""
    certs = {"pemcert_filepath": f"{CERTS_SUBDIR}/node.pem", "pemkey_filepath": f"{CERTS_SUBDIR}/node-key.pem",
             "pemtrustedcas_filepath": f"{CERTS_SUBDIR}/ca.pem"}
    settings: dict[str, object] = {f"plugins.security.ssl.transport.{k}": v for k, v in certs.items()}
    settings.update({f"plugins.security.ssl.http.{k}": v for k, v in certs.items()})
    settings.update({
        "plugins.security.ssl.http.enabled": True,
        "plugins.security.ssl.transport.enforce_hostname_verification": False,
        "plugins.security.allow_default_init_securityindex": True,
        "plugins.security.authcz.admin_dn": [ADMIN_SUBJECT],
        "plugins.security.nodes_dn": [NODE_SUBJECT],
        "plugins.security.restapi.roles_enabled": ["all_access"],
        "plugins.security.system_indices.enabled": True,
        "plugins.security.check_snapshot_restore_write_privileges": True,
        "plugins.security.enable_snapshot_restore_privilege": True,
        # TLS 1.2 and 1.3 only, and on 1.2 only ECDHE key exchange with AEAD ciphers (no CBC, no SHA-1 MACs)
        "plugins.security.ssl.http.enabled_protocols": list(TLS_PROTOCOLS),
        "plugins.security.ssl.http.enabled_ciphers": list(TLS_CIPHERS),
        "plugins.security.ssl.transport.enabled_protocols": list(TLS_PROTOCOLS),
        "plugins.security.ssl.transport.enabled_ciphers": list(TLS_CIPHERS),
        # who failed to sign in, and who was refused what: the audit log (an index of its own, audit-*)
        "plugins.security.audit.type": "internal_opensearch",
        "plugins.security.audit.config.disabled_rest_categories": ["AUTHENTICATED", "GRANTED_PRIVILEGES"],
        "plugins.security.audit.config.disabled_transport_categories": ["AUTHENTICATED", "GRANTED_PRIVILEGES"],
    })
    return settings


TLS_PROTOCOLS = ("TLSv1.3", "TLSv1.2")
TLS_CIPHERS = ("TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256", "TLS_CHACHA20_POLY1305_SHA256",
               "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
               "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
               "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256")


def _yaml_value(value: object) -> str:
    """A YAML scalar or flow collection for ``value``: JSON is valid YAML and quotes what needs quoting."""
    return json.dumps(value, ensure_ascii=False, default=str)


def render_opensearch_yml(cfg: NodeConfig) -> str:
    """The node's opensearch.yml from :func:`node_settings` (rendered on every start, never edited in place)."""
    env = template_env()
    env.filters["yaml_value"] = _yaml_value
    return env.get_template("opensearch.yml.j2").render(node_name=cfg.name, settings=node_settings(cfg).items())


def render_jvm_options(cfg: NodeConfig) -> str:
    """The distribution's jvm.options with this node's log/data paths and garbage collector (``cfg.gc``); the heap
    comes from OPENSEARCH_JAVA_OPTS."""
    return template_env().get_template("jvm.options.j2").render(data_dir=cfg.data_dir, logs_dir=cfg.logs_dir,
                                                                 gc_flags=JVM_GCS[cfg.gc])


def node_env(cfg: NodeConfig) -> dict[str, str]:
    """Environment for bin/opensearch: our JDK, our per-node config dir, our heap."""
    env = dict(os.environ)
    for key in ("OPENSEARCH_HOME", "ES_JAVA_OPTS", "JAVA_TOOL_OPTIONS"):
        env.pop(key, None)
    env.update(
        JAVA_HOME=str(cfg.java_home),
        OPENSEARCH_JAVA_HOME=str(cfg.java_home),
        OPENSEARCH_PATH_CONF=str(cfg.conf_dir),
        OPENSEARCH_JAVA_OPTS=f"-Xms{cfg.heap} -Xmx{cfg.heap}",
        HOME=str(cfg.node_dir),
    )
    return env


LAYOUT_KEYS = ("discovery.type", "discovery.seed_hosts", "cluster.initial_cluster_manager_nodes")


def running_layout_mismatch(cfg: NodeConfig) -> str | None:
    """Why the running node ``cfg`` names cannot serve as asked, or None: a node started as a single node cannot
    join a cluster (nor a cluster member become single) without a restart. Compared: the cluster-forming lines of
    the opensearch.yml it was started with against the ones ``cfg`` would write."""
    try:
        running = read_text(cfg.conf_dir / "opensearch.yml").splitlines()
    except (OSError, NomosError, UnicodeDecodeError):
        return None

    def layout(lines: list[str]) -> list[str]:
        return [ln for ln in lines if ln.split(":", 1)[0].strip() in LAYOUT_KEYS]

    secured = any(ln.startswith("plugins.security.ssl.http.enabled") for ln in running)
    if secured != cfg.secure:
        was, asked = ("secured", "open") if secured else ("open", "secured")
        return (f"node {cfg.name} is running {was} (started {'with' if secured else 'without'} --secure), not {asked}: "
                "stop it first (cli.py server stop), then start again")
    have, want = layout(running), layout(render_opensearch_yml(cfg).splitlines())
    if have == want:
        return None
    as_what = "a single node" if any(ln.startswith("discovery.type") for ln in have) else "a member of another cluster layout"
    wanted = "a single node" if any(ln.startswith("discovery.type") for ln in want) else f"a member of a {len(cfg.cluster_nodes)}-node cluster"
    return f"node {cfg.name} is running at {cfg.url} as {as_what}, not as {wanted}: stop it first (cli.py server stop), then start again"


def started_secure(cfg: NodeConfig) -> bool:
    """Whether the node's last rendered opensearch.yml (its last start) had TLS on HTTP: ``status`` and ``stop``
    then reach it over https without being told ``--secure`` again."""
    try:
        text = read_text(cfg.conf_dir / "opensearch.yml")
    except (OSError, NomosError, UnicodeDecodeError):
        return False
    return any(ln.startswith("plugins.security.ssl.http.enabled: true") for ln in text.splitlines())


@contextmanager
def node_lock(lock_path: Path) -> Iterator[None]:
    """An exclusive advisory lock, so two processes never install or start the same thing at once."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with os.fdopen(_open_lock(lock_path), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _open_lock(path: Path) -> int:
    """The lock file opened without following a link (root takes it in the node's folder, which an earlier version
    gave the node's account, issue 47); a link or anything but a plain file there is removed and the file made anew
    (its folder is root's by then: ``node_host.claim_node_dir``)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENXIO):  # a link; a FIFO nobody reads
            raise
        path.unlink()
        return os.open(path, flags | os.O_EXCL, 0o644)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        path.unlink()
        return os.open(path, flags | os.O_EXCL, 0o644)
    return fd
