"""Starting and stopping one node: render its config, launch ``bin/opensearch`` detached (as the service user when
running as root: OpenSearch refuses to run as root, and CI runs as root), wait until it answers yellow or fail fast
with its last log lines, store the project's scripts (the node runs no inline script), and stop it by its pidfile
(SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import os
import pwd
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

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
    check_java(cfg)
    if not is_installed(cfg):
        raise NodeError(f"OpenSearch {cfg.version} is not installed under {cfg.root}: run install first")
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
            offset = cfg.console_log.stat().st_size if cfg.console_log.exists() else 0
            pid = wait_until_up(cfg, None, deadline, timeout, console_offset=offset, stop_on_timeout=False)
            store_node_scripts(cfg)
            return pid
        account = prepare_launch(cfg, log)
        offset = cfg.console_log.stat().st_size if cfg.console_log.exists() else 0
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
    with node_lock(cfg.node_dir / ".lock"):
        pid = running_pid(cfg)
        if pid is None:
            _clean_stale_pidfile(cfg, log)
            log(f"node {cfg.name} is not running")
            return False
        log(f"stopping node {cfg.name} (pid {pid})")
        started = time.monotonic()
        terminate(pid, timeout, log)
        cfg.pid_file.unlink(missing_ok=True)
        log(f"node {cfg.name} stopped after {time.monotonic() - started:.1f}s")
        return True


def prepare_launch(cfg: NodeConfig, log: Log) -> _Account | None:
    """Everything before launching a node that is not running: drop a stale pid file, refuse taken ports, make the
    folders for the service account and write the config. Runs under the node's lock."""
    _clean_stale_pidfile(cfg, log)
    for port in (cfg.http_port, cfg.transport_port):
        if port_in_use(port):
            raise NodeError(f"port {port} is taken by another process (not node {cfg.name}, per {cfg.pid_file})")
    account = _service_account(cfg, log)
    _prepare_node_dirs(cfg, account)
    _write_config(cfg, account, log)
    return account


def _clean_stale_pidfile(cfg: NodeConfig, log: Log) -> None:
    if cfg.pid_file.exists() and running_pid(cfg) is None:
        log(f"removing stale pidfile {cfg.pid_file} (pid {read_pid(cfg.pid_file)} is not this node running)")
        cfg.pid_file.unlink(missing_ok=True)


def _service_account(cfg: NodeConfig, log: Log) -> _Account | None:
    """As root: the service user, created as a system user without home or shell when missing. Else None."""
    if os.geteuid() != 0:
        return None
    check_traversable(cfg.root, cfg.service_user)
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
    for folder in (cfg.data_dir, cfg.logs_dir):  # what an earlier start left readable to everyone
        _tighten(folder)
    if account is None:
        return
    for folder in (cfg.conf_dir, cfg.logs_dir, cfg.pid_file.parent):
        _chown_tree(folder, account)
    if cfg.data_dir.stat().st_uid != account.uid:
        _chown_tree(cfg.data_dir, account)
    os.chown(cfg.node_dir, account.uid, account.gid)


NODE_UMASK = 0o027  # the node's files: 0640, folders 0750 (the translog holds judgments' notes, the security index hashes)


def _tighten(top: Path) -> None:
    """Take every permission for others off ``top``'s tree (and write for the group)."""
    for path in [top, *top.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode & 0o7777 & ~NODE_UMASK)


def _chown_tree(top: Path, account: _Account) -> None:
    for path in [top, *top.rglob("*")]:
        os.chown(path, account.uid, account.gid, follow_symlinks=False)


def _write_config(cfg: NodeConfig, account: _Account | None, log: Log = print) -> None:
    """Render opensearch.yml and jvm.options into the node's config dir; log4j2.properties comes from the home; a
    secured node's security files, certificate and key too (node_security.write_security_config)."""
    files = {
        cfg.conf_dir / "opensearch.yml": render_opensearch_yml(cfg),
        cfg.conf_dir / "jvm.options": render_jvm_options(cfg),
        cfg.conf_dir / "log4j2.properties": (cfg.home / "config" / "log4j2.properties").read_text(encoding="utf-8"),
    }
    (cfg.conf_dir / "jvm.options.d").mkdir(exist_ok=True)
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    if cfg.secure:
        write_security_config(cfg, log)
    if account is not None:
        _chown_tree(cfg.conf_dir, account)


def launch(cfg: NodeConfig, account: _Account | None) -> subprocess.Popen[bytes]:
    """``bin/opensearch -d -p pidfile`` in its own session, as the service user when root; console to a file."""
    fd = os.open(cfg.console_log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o640)  # as the node's files (umask 027)
    with os.fdopen(fd, "ab") as console:
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
            if stopped:
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
    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])
