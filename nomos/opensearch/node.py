"""Install, start, stop and report on the project's own local OpenSearch node.

There is no Docker engine and no artifact host but Maven Central on the machines this project runs on, so the node is
assembled from Maven Central pieces (see ``assembly.py`` and ``docs/opensearch-local.md``) under one root folder:

    <root>/opensearch-<version>/        the shared, read-only install ("home"), marked complete by a marker file
    <root>/nodes/<name>/config/         per-node OPENSEARCH_PATH_CONF, rendered on every start
    <root>/nodes/<name>/data|logs|run/  per-node data, logs and pidfile, so several nodes can share one home

OpenSearch refuses to run as root, and CI runs as root: then the node runs as a system user (``service_user``).
Processes are only ever signalled by the pid in the node's own pidfile, after checking that the pid really is
this node's OpenSearch (never by process name).
"""

from __future__ import annotations

import fcntl
import json
import os
import pwd
import re
import shutil
import signal
import socket
import stat
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from types import MappingProxyType

from nomos.opensearch.assembly import (
    BUNDLED_MODULES,
    KNN_PLUGIN,
    MODULES,
    NEURAL_PLUGIN,
    AssemblyError,
    assemble_home,
    template_env,
)
from nomos.opensearch.maven import MavenError

MARKER_NAME = ".nomos-installed.json"
REQUIRED_MODULES: tuple[str, ...] = (*BUNDLED_MODULES, *(m.name for m in MODULES))
REQUIRED_PLUGINS: tuple[str, ...] = (KNN_PLUGIN, NEURAL_PLUGIN)
OPENSEARCH_MAIN_CLASS = "org.opensearch.bootstrap.OpenSearch"
LOG_TAIL_LINES = 40
PIDFILE_GRACE_S = 60.0  # after bin/opensearch returns, the JVM must write its pidfile within this
_NODE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")

Log = Callable[[str], None]


class NodeError(RuntimeError):
    """The node could not be installed, started or stopped; the message says why (with log lines when it died)."""


def default_root() -> Path:
    """Where everything lives: ``/opt/nomos`` as root (the service user must traverse it, so never under /root),
    else ``~/.local/share/nomos``."""
    if os.geteuid() == 0:
        return Path("/opt/nomos")
    return Path.home() / ".local" / "share" / "nomos"


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
    cluster_name: str = "nomos"
    java_home: Path = Path("/usr/lib/jvm/java-17-openjdk-amd64")  # 2.19 needs the Security Manager: Java 17, not 25
    service_user: str = "opensearch"  # used only when running as root
    # Members of a loopback cluster as (node name, transport port), this node included; empty = a single-node cluster.
    cluster_nodes: tuple[tuple[str, int], ...] = ()
    # Extra opensearch.yml keys; they override the defaults. Frozen into a read-only mapping, left out of the hash.
    extra_settings: Mapping[str, object] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not _NODE_NAME.match(self.name):
            raise ValueError(f"node name {self.name!r} must be a plain file name ([A-Za-z0-9._-])")
        object.__setattr__(self, "root", Path(self.root).absolute())
        object.__setattr__(self, "java_home", Path(self.java_home))
        object.__setattr__(self, "extra_settings", MappingProxyType(dict(self.extra_settings)))
        object.__setattr__(self, "cluster_nodes", tuple((str(n), int(p)) for n, p in self.cluster_nodes))

    @property
    def home(self) -> Path:
        """The shared install of this version."""
        return self.root / f"opensearch-{self.version}"

    @property
    def node_dir(self) -> Path:
        """Everything that belongs to this node alone."""
        return self.root / "nodes" / self.name

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
        return f"http://127.0.0.1:{self.http_port}"


# ----------------------------------------------------------------------------------------------------- config
def node_settings(cfg: NodeConfig) -> dict[str, object]:
    """opensearch.yml as a flat mapping: single-node, loopback only, no bootstrap checks that need root, and a
    bool clause limit high enough for long legal texts; ``extra_settings`` win over these."""
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
    }
    if cfg.cluster_nodes:
        # A loopback cluster: every node knows every transport port and the first election needs them all.
        settings["discovery.seed_hosts"] = [f"127.0.0.1:{port}" for _, port in cfg.cluster_nodes]
        settings["cluster.initial_cluster_manager_nodes"] = [name for name, _ in cfg.cluster_nodes]
    else:
        settings["discovery.type"] = "single-node"
    settings.update(cfg.extra_settings)
    return settings


def _yaml_value(value: object) -> str:
    """A YAML scalar or flow collection for ``value``: JSON is valid YAML and quotes what needs quoting."""
    return json.dumps(value, ensure_ascii=False, default=str)


def render_opensearch_yml(cfg: NodeConfig) -> str:
    env = template_env()
    env.filters["yaml_value"] = _yaml_value
    return env.get_template("opensearch.yml.j2").render(node_name=cfg.name, settings=node_settings(cfg).items())


def render_jvm_options(cfg: NodeConfig) -> str:
    """The distribution's jvm.options with this node's log/data paths; the heap comes from OPENSEARCH_JAVA_OPTS."""
    return template_env().get_template("jvm.options.j2").render(data_dir=cfg.data_dir, logs_dir=cfg.logs_dir)


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


def cluster_configs(base: NodeConfig, nodes: int) -> list[NodeConfig]:
    """``nodes`` configs for a loopback cluster built from ``base``: one shared cluster name, distinct node names
    (``node-1``, ``node-2``… from a base named ``node-1``; else ``<name>-1``, ``<name>-2``…), consecutive HTTP and
    transport ports from the base's, and per-node data, log and config folders. ``nodes == 1`` is ``[base]``."""
    if nodes < 1:
        raise ValueError(f"nodes must be at least 1, got {nodes}")
    if nodes == 1:
        return [base]
    stem = base.name[:-2] if base.name.endswith("-1") else base.name
    names = [f"{stem}-{i + 1}" for i in range(nodes)]
    members = tuple((names[i], base.transport_port + i) for i in range(nodes))
    if set(range(base.http_port, base.http_port + nodes)) & {p for _, p in members}:
        raise ValueError(f"HTTP ports {base.http_port}+ and transport ports {base.transport_port}+ overlap")
    return [
        replace(base, name=names[i], http_port=base.http_port + i, transport_port=base.transport_port + i, cluster_nodes=members)
        for i in range(nodes)
    ]


LAYOUT_KEYS = ("discovery.type", "discovery.seed_hosts", "cluster.initial_cluster_manager_nodes")


def running_layout_mismatch(cfg: NodeConfig) -> str | None:
    """Why the running node ``cfg`` names cannot serve as asked, or None: a node started as a single node cannot
    join a cluster (nor a cluster member become single) without a restart. Compared: the cluster-forming lines of
    the opensearch.yml it was started with against the ones ``cfg`` would write."""
    try:
        running = cfg.conf_dir.joinpath("opensearch.yml").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None

    def layout(lines: list[str]) -> list[str]:
        return [ln for ln in lines if ln.split(":", 1)[0].strip() in LAYOUT_KEYS]

    have, want = layout(running), layout(render_opensearch_yml(cfg).splitlines())
    if have == want:
        return None
    as_what = "a single node" if any(ln.startswith("discovery.type") for ln in have) else "a member of another cluster layout"
    wanted = "a single node" if any(ln.startswith("discovery.type") for ln in want) else f"a member of a {len(cfg.cluster_nodes)}-node cluster"
    return f"node {cfg.name} is running at {cfg.url} as {as_what}, not as {wanted}: stop it first (cli.py server stop), then start again"


def start_cluster(cfgs: list[NodeConfig], timeout: float = 240, log: Log = print) -> list[int]:
    """Launch every node of a loopback cluster, then wait until each answers yellow (a node of a new cluster
    cannot answer before the others have joined, so they must all be launched first). Idempotent per node."""
    if len(cfgs) == 1:
        return [start(cfgs[0], timeout=timeout, log=log)]
    deadline = time.monotonic() + timeout
    launched: list[tuple[NodeConfig, subprocess.Popen[bytes] | None, int]] = []
    for cfg in cfgs:
        _check_java(cfg)
        if not is_installed(cfg):
            raise NodeError(f"OpenSearch {cfg.version} is not installed under {cfg.root}: run install first")
        with _locked(cfg.node_dir / ".lock"):
            offset = cfg.console_log.stat().st_size if cfg.console_log.exists() else 0
            if running_pid(cfg) is not None:
                if (why := running_layout_mismatch(cfg)) is not None:
                    raise NodeError(why)
                log(f"node {cfg.name} is already running (pid {running_pid(cfg)}) at {cfg.url}")
                launched.append((cfg, None, offset))
                continue
            account = _prepare_launch(cfg, log)
            log(f"starting node {cfg.name} ({cfg.url}, transport {cfg.transport_port}, heap {cfg.heap})")
            launched.append((cfg, _launch(cfg, account), offset))
    pids = []
    for cfg, launcher, offset in launched:
        pids.append(_wait_until_up(cfg, launcher, deadline, timeout, console_offset=offset, stop_on_timeout=launcher is not None))
    log(f"cluster {cfgs[0].cluster_name} is up: {', '.join(f'{c.name} (pid {p}, {c.url})' for c, p in zip(cfgs, pids, strict=True))}, "
        f"health {cluster_health(cfgs[0])}")
    return pids


def kill(cfg: NodeConfig) -> int | None:
    """SIGKILL this node's OpenSearch (a crash, for fault tests); the pid killed, or None when it was not running."""
    pid = running_pid(cfg)
    if pid is None:
        return None
    _signal(pid, signal.SIGKILL)
    if not _wait_exit(pid, 15):
        raise NodeError(f"pid {pid} survived SIGKILL")
    return pid


# ----------------------------------------------------------------------------------------------------- install
def install(cfg: NodeConfig, log: Log = print) -> Path:
    """Assemble the home from Maven Central unless a complete one is there; return the home.

    Idempotent: a home is complete only when its marker (written last) matches and the modules and plugins are in
    place, so an install that died half-way is thrown away and redone. Assembly happens in a staging folder that is
    renamed into place, so a reader never sees a half-built home.
    """
    _check_java(cfg)
    _ensure_root(cfg)
    with _locked(cfg.root / ".install.lock"):
        problems = install_problems(cfg)
        if not problems:
            log(f"OpenSearch {cfg.version} is already installed at {cfg.home}: nothing to do")
            return cfg.home
        if cfg.home.exists():
            log(f"redoing the incomplete install at {cfg.home} ({problems[0]})")
            shutil.rmtree(cfg.home)
        started = time.monotonic()
        staging = cfg.root / f".{cfg.home.name}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(staging.parent / f"{staging.name}.unzip", ignore_errors=True)
        try:
            assemble_home(staging, cfg.version, cfg.plugin_version, cfg.java_home, log)
        except (MavenError, AssemblyError, OSError) as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise NodeError(f"installing OpenSearch {cfg.version} failed: {exc}") from exc
        staging.rename(cfg.home)
        problems = install_problems(cfg, check_marker=False)
        if problems:
            raise NodeError(f"assembled home at {cfg.home} is incomplete: {'; '.join(problems)}")
        elapsed = time.monotonic() - started
        _write_marker(cfg, elapsed)
        log(f"installed OpenSearch {cfg.version} at {cfg.home} in {elapsed:.0f}s")
        return cfg.home


def is_installed(cfg: NodeConfig) -> bool:
    return not install_problems(cfg)


def install_problems(cfg: NodeConfig, check_marker: bool = True) -> list[str]:
    """What is missing or wrong in the home (empty when complete)."""
    home = cfg.home
    problems: list[str] = []
    if check_marker:
        marker = _read_marker(cfg)
        expected = {"version": cfg.version, "plugin_version": cfg.plugin_version}
        if marker is None:
            problems.append(f"no install marker {MARKER_NAME}")
        elif {k: marker.get(k) for k in expected} != expected:
            problems.append(f"marker is for {marker.get('version')}/{marker.get('plugin_version')}")
    for path in (home / "bin" / "opensearch", home / "lib" / f"opensearch-{cfg.version}.jar"):
        if not path.is_file():
            problems.append(f"{path} missing")
    for name in REQUIRED_MODULES:
        problems += _descriptor_problems(home / "modules" / name, cfg.version)
    for name in REQUIRED_PLUGINS:
        problems += _descriptor_problems(home / "plugins" / name, cfg.plugin_version)
    return problems


def _descriptor_problems(folder: Path, version: str) -> list[str]:
    """A module or plugin folder must hold a descriptor of the expected version and at least one jar."""
    descriptor = folder / "plugin-descriptor.properties"
    if not descriptor.is_file():
        return [f"{descriptor} missing"]
    found = read_properties(descriptor).get("version")
    if found != version:
        return [f"{folder.name} is version {found}, expected {version}"]
    if not any(folder.glob("*.jar")):
        return [f"{folder} holds no jar"]
    return []


def read_properties(path: Path) -> dict[str, str]:
    """A Java .properties file's ``key=value`` lines (enough for plugin descriptors)."""
    props: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "!")) and "=" in line:
            key, value = line.split("=", 1)
            props[key.strip()] = value.strip()
    return props


def _read_marker(cfg: NodeConfig) -> dict[str, object] | None:
    try:
        data = json.loads((cfg.home / MARKER_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write_marker(cfg: NodeConfig, seconds: float) -> None:
    marker = {
        "version": cfg.version,
        "plugin_version": cfg.plugin_version,
        "modules": list(REQUIRED_MODULES),
        "plugins": list(REQUIRED_PLUGINS),
        "installed_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "install_seconds": round(seconds, 1),
    }
    path = cfg.home / MARKER_NAME
    path.write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
    path.chmod(0o644)


def _check_java(cfg: NodeConfig) -> None:
    for tool in ("java",):
        exe = cfg.java_home / "bin" / tool
        if not os.access(exe, os.X_OK):
            raise NodeError(f"{exe} not found: java_home must be a JDK 17 (install openjdk-17-jdk-headless)")


def _ensure_root(cfg: NodeConfig) -> None:
    """Create the root (0755) and, as root, make sure the service user can reach it."""
    if not cfg.root.exists():
        cfg.root.mkdir(parents=True)
        cfg.root.chmod(0o755)
    if os.geteuid() == 0:
        _check_traversable(cfg.root, cfg.service_user)


def _check_traversable(path: Path, user: str) -> None:
    """Every folder from / down to ``path`` must be searchable by others, or the service user cannot start."""
    for folder in [*reversed(path.parents), path]:
        if not folder.stat().st_mode & stat.S_IXOTH:
            raise NodeError(f"{folder} is not traversable by user {user}: choose a root outside it (e.g. /opt/nomos)")


@contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    """An exclusive advisory lock, so two processes never install or start the same thing at once."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# ----------------------------------------------------------------------------------------------------- processes
def read_pid(pid_file: Path) -> int | None:
    """The pid in ``pid_file``; None when the file is missing, empty or garbage."""
    try:
        text = pid_file.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() and int(text) > 0 else None


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` runs; a zombie (dead, waiting for a parent that may never reap it) counts as dead."""
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    state = stat_line.rsplit(")", 1)[-1].split()[0]
    return state not in ("Z", "X")


def is_node_process(pid: int, cfg: NodeConfig) -> bool:
    """Whether ``pid`` is OpenSearch running with this node's config dir (a recycled pid is not)."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    confs = {f"-Dopensearch.path.conf={cfg.conf_dir}".encode(), f"-Dopensearch.path.conf={cfg.conf_dir.resolve()}".encode()}
    return OPENSEARCH_MAIN_CLASS.encode() in args and any(a in confs for a in args)


def running_pid(cfg: NodeConfig) -> int | None:
    """The pid of this node's OpenSearch per its pidfile, or None when it is not running."""
    pid = read_pid(cfg.pid_file)
    if pid is not None and pid_alive(pid) and is_node_process(pid, cfg):
        return pid
    return None


def _prepare_launch(cfg: NodeConfig, log: Log) -> _Account | None:
    """Everything before launching a node that is not running: drop a stale pid file, refuse taken ports, make the
    folders for the service account and write the config. Runs under the node's lock."""
    _clean_stale_pidfile(cfg, log)
    for port in (cfg.http_port, cfg.transport_port):
        if port_in_use(port):
            raise NodeError(f"port {port} is taken by another process (not node {cfg.name}, per {cfg.pid_file})")
    account = _service_account(cfg, log)
    _prepare_node_dirs(cfg, account)
    _write_config(cfg, account)
    return account


def _clean_stale_pidfile(cfg: NodeConfig, log: Log) -> None:
    if cfg.pid_file.exists() and running_pid(cfg) is None:
        log(f"removing stale pidfile {cfg.pid_file} (pid {read_pid(cfg.pid_file)} is not this node running)")
        cfg.pid_file.unlink(missing_ok=True)


def _wait_exit(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while pid_alive(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)
    return True


def _signal(pid: int, sig: signal.Signals) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    """Whether binding ``host:port`` fails, tested the way OpenSearch binds (SO_REUSEADDR, so TIME_WAIT is fine)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return True
    return False


# ----------------------------------------------------------------------------------------------------- HTTP
def http_json(url: str, timeout: float = 5.0) -> object | None:
    """GET ``url`` and parse JSON; error statuses still give their JSON body; None when nothing answers.

    Proxies are bypassed: an http_proxy in the environment must not swallow requests to 127.0.0.1.
    """
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=timeout) as resp:
            body = resp.read()
    except urllib.error.HTTPError as exc:
        body = exc.read()
    except (urllib.error.URLError, OSError):
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


def cluster_health(cfg: NodeConfig, wait_s: int = 1) -> str | None:
    """green/yellow/red, or None when the node does not answer (yet)."""
    data = http_json(f"{cfg.url}/_cluster/health?wait_for_status=yellow&timeout={wait_s}s", timeout=wait_s + 5)
    return data.get("status") if isinstance(data, dict) else None


def _healthy(cfg: NodeConfig) -> bool:
    return cluster_health(cfg) in ("yellow", "green")


# ----------------------------------------------------------------------------------------------------- start
@dataclass(frozen=True)
class _Account:
    """The user the node runs as when we are root."""

    name: str
    uid: int
    gid: int


def start(cfg: NodeConfig, timeout: float = 180, log: Log = print) -> int:
    """Start the node detached and wait until the cluster is yellow; return its pid.

    Idempotent: a node already running (its pidfile's pid alive and really this node) is waited for, not
    restarted. On early death or timeout raise NodeError with the node's last log lines (a node that timed out is
    stopped, so the ports are free for the next try).
    """
    deadline = time.monotonic() + timeout
    _check_java(cfg)
    if not is_installed(cfg):
        raise NodeError(f"OpenSearch {cfg.version} is not installed under {cfg.root}: run install first")
    with _locked(cfg.node_dir / ".lock"):
        pid = running_pid(cfg)
        if pid is not None:
            if (why := running_layout_mismatch(cfg)) is not None:
                raise NodeError(why)
            if _healthy(cfg):
                log(f"node {cfg.name} is already running (pid {pid}) at {cfg.url}: nothing to do")
                return pid
            log(f"node {cfg.name} (pid {pid}) is running but not ready yet: waiting")
            offset = cfg.console_log.stat().st_size if cfg.console_log.exists() else 0
            return _wait_until_up(cfg, None, deadline, timeout, console_offset=offset, stop_on_timeout=False)
        account = _prepare_launch(cfg, log)
        offset = cfg.console_log.stat().st_size if cfg.console_log.exists() else 0
        started = time.monotonic()
        log(f"starting node {cfg.name} ({cfg.url}, heap {cfg.heap}" + (f", user {account.name})" if account else ")"))
        launcher = _launch(cfg, account)
        pid = _wait_until_up(cfg, launcher, deadline, timeout, console_offset=offset)
        log(f"node {cfg.name} is up (pid {pid}, health {cluster_health(cfg)}) after {time.monotonic() - started:.1f}s")
        return pid


def _service_account(cfg: NodeConfig, log: Log) -> _Account | None:
    """As root: the service user, created as a system user without home or shell when missing. Else None."""
    if os.geteuid() != 0:
        return None
    _check_traversable(cfg.root, cfg.service_user)
    try:
        entry = pwd.getpwnam(cfg.service_user)
    except KeyError:
        log(f"creating system user {cfg.service_user}")
        proc = subprocess.run(
            ["useradd", "-r", "-M", "-s", "/usr/sbin/nologin", cfg.service_user],
            capture_output=True, text=True, check=False,
        )
        if proc.returncode != 0:
            raise NodeError(f"useradd {cfg.service_user} failed: {proc.stderr.strip()}") from None
        entry = pwd.getpwnam(cfg.service_user)
    return _Account(cfg.service_user, entry.pw_uid, entry.pw_gid)


def _prepare_node_dirs(cfg: NodeConfig, account: _Account | None) -> None:
    """Create the node's folders; as root hand them to the service user (data only when not already theirs)."""
    (cfg.root / "nodes").mkdir(parents=True, exist_ok=True)
    (cfg.root / "nodes").chmod(0o755)
    for folder in (cfg.node_dir, cfg.conf_dir, cfg.data_dir, cfg.logs_dir, cfg.pid_file.parent):
        folder.mkdir(parents=True, exist_ok=True)
    if account is None:
        return
    for folder in (cfg.conf_dir, cfg.logs_dir, cfg.pid_file.parent):
        _chown_tree(folder, account)
    if cfg.data_dir.stat().st_uid != account.uid:
        _chown_tree(cfg.data_dir, account)
    os.chown(cfg.node_dir, account.uid, account.gid)


def _chown_tree(top: Path, account: _Account) -> None:
    for path in [top, *top.rglob("*")]:
        os.chown(path, account.uid, account.gid, follow_symlinks=False)


def _write_config(cfg: NodeConfig, account: _Account | None) -> None:
    """Render opensearch.yml and jvm.options into the node's config dir; log4j2.properties comes from the home."""
    files = {
        cfg.conf_dir / "opensearch.yml": render_opensearch_yml(cfg),
        cfg.conf_dir / "jvm.options": render_jvm_options(cfg),
        cfg.conf_dir / "log4j2.properties": (cfg.home / "config" / "log4j2.properties").read_text(encoding="utf-8"),
    }
    (cfg.conf_dir / "jvm.options.d").mkdir(exist_ok=True)
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    if account is not None:
        _chown_tree(cfg.conf_dir, account)


def _launch(cfg: NodeConfig, account: _Account | None) -> subprocess.Popen[bytes]:
    """``bin/opensearch -d -p pidfile`` in its own session, as the service user when root; console to a file."""
    with open(cfg.console_log, "ab") as console:
        if account is not None:
            os.chown(cfg.console_log, account.uid, account.gid)
        return subprocess.Popen(
            [str(cfg.home / "bin" / "opensearch"), "-d", "-p", str(cfg.pid_file)],
            cwd=cfg.node_dir,
            env=node_env(cfg),
            stdin=subprocess.DEVNULL,
            stdout=console,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            user=account.uid if account else None,
            group=account.gid if account else None,
            extra_groups=[] if account else None,
        )


def _wait_until_up(
    cfg: NodeConfig,
    launcher: subprocess.Popen[bytes] | None,
    deadline: float,
    timeout: float,
    console_offset: int,
    stop_on_timeout: bool = True,
) -> int:
    """Poll pidfile, process and health until the cluster is yellow; fail fast when the node dies.

    A node that this call launched is stopped on timeout (so the ports are free for the next try); one that was
    already running is left alone.
    """
    seen: int | None = None
    launcher_done: float | None = None if launcher is not None else time.monotonic()
    while True:
        if launcher is not None and launcher_done is None and launcher.poll() is not None:
            launcher_done = time.monotonic()
            if launcher.returncode != 0:
                raise _startup_error(cfg, f"bin/opensearch exited with status {launcher.returncode}", console_offset)
        seen = read_pid(cfg.pid_file) or seen
        if seen is not None and not pid_alive(seen):
            raise _startup_error(cfg, f"node {cfg.name} (pid {seen}) died during startup", console_offset)
        if seen is not None and _healthy(cfg):
            return seen
        if seen is None and launcher_done is not None and time.monotonic() - launcher_done > PIDFILE_GRACE_S:
            raise _startup_error(cfg, f"no pidfile {cfg.pid_file} {PIDFILE_GRACE_S:.0f}s after launch", console_offset)
        if time.monotonic() >= deadline:
            stopped = stop_on_timeout and seen is not None and is_node_process(seen, cfg)
            if stopped:
                _terminate(seen, 30)
            reason = f"node {cfg.name} was not yellow within {timeout:.0f}s" + (" (stopped it)" if stopped else "")
            raise _startup_error(cfg, reason, console_offset)
        time.sleep(1.0)


def _startup_error(cfg: NodeConfig, reason: str, console_offset: int) -> NodeError:
    """NodeError with the last lines of the node's log and whatever the console got since this start."""
    parts = [reason]
    main = _tail(cfg.main_log, LOG_TAIL_LINES)
    if main:
        parts.append(f"--- last lines of {cfg.main_log} ---\n{main}")
    console = _tail(cfg.console_log, LOG_TAIL_LINES // 2, offset=console_offset)
    if console:
        parts.append(f"--- {cfg.console_log} ---\n{console}")
    return NodeError("\n".join(parts))


def _tail(path: Path, lines: int, offset: int = 0) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])


# ----------------------------------------------------------------------------------------------------- stop
def stop(cfg: NodeConfig, timeout: float = 60, log: Log = print) -> bool:
    """Stop the node by the pid in its pidfile: SIGTERM, wait, then SIGKILL. False when it was not running.

    A pidfile whose pid is dead or is not this node's OpenSearch is stale: it is removed and nothing is signalled.
    """
    with _locked(cfg.node_dir / ".lock"):
        pid = running_pid(cfg)
        if pid is None:
            _clean_stale_pidfile(cfg, log)
            log(f"node {cfg.name} is not running")
            return False
        log(f"stopping node {cfg.name} (pid {pid})")
        started = time.monotonic()
        _terminate(pid, timeout, log)
        cfg.pid_file.unlink(missing_ok=True)
        log(f"node {cfg.name} stopped after {time.monotonic() - started:.1f}s")
        return True


def _terminate(pid: int, timeout: float, log: Log = print) -> None:
    _signal(pid, signal.SIGTERM)
    if _wait_exit(pid, timeout):
        return
    log(f"pid {pid} ignored SIGTERM for {timeout:.0f}s: sending SIGKILL")
    _signal(pid, signal.SIGKILL)
    if not _wait_exit(pid, 15):
        raise NodeError(f"pid {pid} survived SIGKILL")


# ----------------------------------------------------------------------------------------------------- status
def status(cfg: NodeConfig) -> dict[str, object]:
    """Installed? running (by pidfile)? and, when running, what the node says about itself."""
    pid = running_pid(cfg)
    info = http_json(f"{cfg.url}/") if pid is not None else None
    nodes = http_json(f"{cfg.url}/_nodes/_local/plugins") if pid is not None else None
    version = info.get("version", {}).get("number") if isinstance(info, dict) else None
    plugins, modules = _plugin_names(nodes)
    return {
        "installed": is_installed(cfg),
        "running": pid is not None,
        "pid": pid,
        "url": cfg.url,
        "version": version,
        "health": cluster_health(cfg) if pid is not None else None,
        "plugins": plugins,
        "modules": modules,
    }


def _plugin_names(nodes: object) -> tuple[list[str], list[str]]:
    """(plugins, modules) of the single local node in a ``/_nodes/_local/plugins`` answer."""
    if not isinstance(nodes, dict) or not nodes.get("nodes"):
        return [], []
    node = next(iter(nodes["nodes"].values()))
    return sorted(p["name"] for p in node.get("plugins", [])), sorted(m["name"] for m in node.get("modules", []))
