"""Starting and stopping one node: render its config, launch ``bin/opensearch`` detached (as the service user when
running as root: OpenSearch refuses to run as root, and CI runs as root), wait until it answers yellow or fail fast
with its last log lines, store the project's scripts (the node runs no inline script), and stop it by its pidfile
(SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from nomos.opensearch.host_files import UnsafePath, make_folder, read_bytes, unlink_in, write_file
from nomos.opensearch.node_config import (
    Log,
    NodeConfig,
    NodeError,
    node_env,
    node_lock,
    render_jvm_options,
    render_opensearch_yml,
    running_layout_mismatch,
)
from nomos.opensearch.node_host import (
    NODE_UMASK,
    Account,
    claim_node_dir,
    config_group,
    ensure_keystore,
    harden_home,
    prepare_node_dirs,
    service_account,
)
from nomos.opensearch.node_install import check_java, check_traversable, is_installed
from nomos.opensearch.node_process import (
    cluster_health,
    http_json,
    is_healthy,
    is_node_process,
    pid_alive,
    port_in_use,
    read_pid,
    running_pid,
    terminate,
)
from nomos.opensearch.node_security import write_security_config
from nomos.opensearch.stored_scripts import SCRIPTS

LOG_TAIL_LINES = 40
PIDFILE_GRACE_S = 60.0  # after bin/opensearch returns, the JVM must write its pidfile within this


def start(cfg: NodeConfig, timeout: float = 180, log: Log = print) -> int:
    """Start the node detached and wait until the cluster is yellow; return its pid.

    Idempotent: a node already running (its pidfile's pid alive and really this node) is waited for, not
    restarted. On early death or timeout raise NodeError with the node's last log lines (a node that timed out is
    stopped, so the ports are free for the next try).
    """
    deadline = time.monotonic() + timeout
    check_java(cfg)
    if not is_installed(cfg):
        raise NodeError(f"OpenSearch {cfg.version} is not installed under {cfg.root}: run install first")
    claim_node_dir(cfg)  # root's before its lock file is opened in it
    with node_lock(cfg.node_dir / ".lock"):
        pid = running_pid(cfg)
        if pid is not None:
            if (why := running_layout_mismatch(cfg)) is not None:
                raise NodeError(why)
            if is_healthy(cfg):
                log(f"node {cfg.name} is already running (pid {pid}) at {cfg.url}: nothing to do")
                store_node_scripts(cfg)
                return pid
            log(f"node {cfg.name} (pid {pid}) is running but not ready yet: waiting")
            offset = console_size(cfg)
            pid = wait_until_up(cfg, None, deadline, timeout, console_offset=offset, stop_on_timeout=False)
            store_node_scripts(cfg)
            return pid
        account = prepare_launch(cfg, log)
        offset = console_size(cfg)
        started = time.monotonic()
        log(f"starting node {cfg.name} ({cfg.url}, heap {cfg.heap}" + (f", user {account.name})" if account else ")"))
        launcher = launch(cfg, account)
        pid = wait_until_up(cfg, launcher, deadline, timeout, console_offset=offset)
        store_node_scripts(cfg)
        log(f"node {cfg.name} is up (pid {pid}, health {cluster_health(cfg)}) after {time.monotonic() - started:.1f}s")
        return pid


def store_node_scripts(cfg: NodeConfig) -> None:
    """The project's stored scripts (``stored_scripts``), put as the node's admin: the node runs no inline script,
    and an index made by an earlier version (whose searches sent them inline) needs them before its next search."""
    for script in SCRIPTS:
        url = f"{cfg.url}/_scripts/{script.id}/{script.context}"
        answer = http_json(url, timeout=30.0, cfg=cfg, method="PUT", body=script.body())
        if not (isinstance(answer, dict) and answer.get("acknowledged")):
            raise NodeError(f"node {cfg.name} did not store the script {script.id} (PUT {url}): {answer}")


def stop(cfg: NodeConfig, timeout: float = 60, log: Log = print) -> bool:
    """Stop the node by the pid in its pidfile: SIGTERM, wait, then SIGKILL. False when it was not running.

    A pidfile whose pid is dead or is not this node's OpenSearch is stale: it is removed and nothing is signalled.
    """
    if not cfg.node_dir.is_dir():
        log(f"node {cfg.name} is not running")
        return False
    claim_node_dir(cfg)
    with node_lock(cfg.node_dir / ".lock"):
        pid = running_pid(cfg)
        if pid is None:
            _clean_stale_pidfile(cfg, log)
            log(f"node {cfg.name} is not running")
            return False
        log(f"stopping node {cfg.name} (pid {pid})")
        started = time.monotonic()
        terminate(pid, timeout, log)
        unlink_in(cfg.pid_file.parent, cfg.pid_file.name)
        log(f"node {cfg.name} stopped after {time.monotonic() - started:.1f}s")
        return True


def prepare_launch(cfg: NodeConfig, log: Log) -> Account | None:
    """Everything before launching a node that is not running: drop a stale pid file, refuse taken ports, lay out
    the folders (``node_host``: the config root's, data and logs the account's) and write the config. Runs under
    the node's lock."""
    _clean_stale_pidfile(cfg, log)
    for port in (cfg.http_port, cfg.transport_port):
        if port_in_use(port):
            raise NodeError(f"port {port} is taken by another process (not node {cfg.name}, per {cfg.pid_file})")
    account = service_account(cfg, log)
    if account is not None:
        check_traversable(cfg.root, account.name)
        harden_home(cfg.home)
    prepare_node_dirs(cfg, account, log)
    write_config(cfg, account, log)
    return account


def console_size(cfg: NodeConfig) -> int:
    """Where this start's console output begins (the size of the console log, a link not followed)."""
    try:
        return cfg.console_log.lstat().st_size
    except FileNotFoundError:
        return 0


def _clean_stale_pidfile(cfg: NodeConfig, log: Log) -> None:
    if cfg.pid_file.is_symlink() or (cfg.pid_file.exists() and running_pid(cfg) is None):
        log(f"removing stale pidfile {cfg.pid_file} (pid {read_pid(cfg.pid_file)} is not this node running)")
        unlink_in(cfg.pid_file.parent, cfg.pid_file.name)


def write_config(cfg: NodeConfig, account: Account | None, log: Log = print) -> None:
    """Render opensearch.yml and jvm.options into the node's config folder (root's, readable by the account's
    group: ``node_host``), log4j2.properties from the home, the keystore, and a secured node's security files,
    certificate and key (node_security.write_security_config). Every file is written beside and renamed."""
    group = config_group(account)
    files = {
        "opensearch.yml": render_opensearch_yml(cfg),
        "jvm.options": render_jvm_options(cfg),
        "log4j2.properties": (cfg.home / "config" / "log4j2.properties").read_text(encoding="utf-8"),
    }
    make_folder(cfg.conf_dir / "jvm.options.d", 0o750, gid=group)
    for name, text in files.items():
        write_file(cfg.conf_dir / name, text, 0o640, gid=group)
    ensure_keystore(cfg, account, log)
    if cfg.secure:
        write_security_config(cfg, log, group=group)


def write_node_config(cfg: NodeConfig, log: Log = print) -> None:
    """The node's folders and config as a start lays them out, without starting it (``server install --secure``
    makes the certificates and the security files here for docker compose's profile)."""
    account = service_account(cfg, log)
    prepare_node_dirs(cfg, account, log)
    write_config(cfg, account, log)


def launch(cfg: NodeConfig, account: Account | None) -> subprocess.Popen[bytes]:
    """``bin/opensearch -d -p pidfile`` in its own session, as the service account when root. Its console goes to
    ``logs/console.log``, opened by the launched shell as that account (never by root: the account owns logs/)."""
    return subprocess.Popen(
        ["/bin/sh", "-c", 'log="$1"; shift; exec "$@" >>"$log" 2>&1', "nomos-launch", str(cfg.console_log),
         str(cfg.home / "bin" / "opensearch"), "-d", "-p", str(cfg.pid_file)],
        cwd=cfg.node_dir,
        env=node_env(cfg),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        umask=NODE_UMASK,
        user=account.uid if account else None,
        group=account.gid if account else None,
        extra_groups=[] if account else None,
    )


def wait_until_up(
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
        if seen is not None and is_healthy(cfg):
            return seen
        if seen is None and launcher_done is not None and time.monotonic() - launcher_done > PIDFILE_GRACE_S:
            raise _startup_error(cfg, f"no pidfile {cfg.pid_file} {PIDFILE_GRACE_S:.0f}s after launch", console_offset)
        if time.monotonic() >= deadline:
            stopped = stop_on_timeout and seen is not None and is_node_process(seen, cfg)
            if stopped and seen is not None:
                terminate(seen, 30)
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
    """The last ``lines`` of ``path`` from ``offset``; read without following a link (the account owns logs/)."""
    try:
        text = read_bytes(path)[offset:].decode("utf-8", "replace")
    except (OSError, UnsafePath):
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])
