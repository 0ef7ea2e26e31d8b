"""A node's process seen from outside: its pid (from its own pidfile, checked against /proc so a recycled pid is never
taken for it), signals, free ports, and what it answers over HTTP (health, version, plugins).

Processes are only ever signalled by the pid in the node's own pidfile, after checking that the pid really is this
node's OpenSearch (never by process name).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path

from nomos.opensearch.host_files import UnsafePath, read_bytes
from nomos.opensearch.node_config import Log, NodeConfig, NodeError
from nomos.opensearch.node_install import is_installed
from nomos.opensearch.node_security import admin_access

OPENSEARCH_MAIN_CLASS = "org.opensearch.bootstrap.OpenSearch"


def read_pid(pid_file: Path) -> int | None:
    """The pid in ``pid_file``; None when the file is missing, empty or garbage."""
    try:
        text = read_bytes(pid_file, limit=64).decode("ascii").strip()  # not through a link: run/ is the account's
    except (OSError, UnicodeDecodeError, UnsafePath):
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


def wait_exit(pid: int, timeout: float) -> bool:
    """Whether ``pid`` is gone within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while pid_alive(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)
    return True


def send_signal(pid: int, sig: signal.Signals) -> None:
    """Signal ``pid``; one that already exited is not an error."""
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def terminate(pid: int, timeout: float, log: Log = print) -> None:
    """SIGTERM, wait ``timeout`` seconds, then SIGKILL; raise when even that leaves the process alive."""
    send_signal(pid, signal.SIGTERM)
    if wait_exit(pid, timeout):
        return
    log(f"pid {pid} ignored SIGTERM for {timeout:.0f}s: sending SIGKILL")
    send_signal(pid, signal.SIGKILL)
    if not wait_exit(pid, 15):
        raise NodeError(f"pid {pid} survived SIGKILL")


def kill(cfg: NodeConfig) -> int | None:
    """SIGKILL this node's OpenSearch (a crash, for fault tests); the pid killed, or None when it was not running."""
    pid = running_pid(cfg)
    if pid is None:
        return None
    send_signal(pid, signal.SIGKILL)
    if not wait_exit(pid, 15):
        raise NodeError(f"pid {pid} survived SIGKILL")
    return pid


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    """Whether binding ``host:port`` fails, tested the way OpenSearch binds (SO_REUSEADDR, so TIME_WAIT is fine)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return True
    return False


def http_json(url: str, timeout: float = 5.0, cfg: NodeConfig | None = None, method: str = "GET",
              body: object | None = None) -> object | None:
    """``method`` ``url`` (with ``body`` as JSON) and parse the JSON answer; error statuses still give their JSON
    body; None when nothing answers.

    Proxies are bypassed: an http_proxy in the environment must not swallow requests to 127.0.0.1. For a secured
    node (``cfg.secure``) the request trusts the node's CA and signs in as its admin.
    """
    context, headers = admin_access(cfg) if cfg is not None else (None, {})
    data = None
    if body is not None:
        data = json.dumps(body).encode("utf-8")
        headers = {**headers, "Content-Type": "application/json"}
    handlers: list[urllib.request.BaseHandler] = [urllib.request.ProxyHandler({})]
    if context is not None:
        handlers.append(urllib.request.HTTPSHandler(context=context))
    opener = urllib.request.build_opener(*handlers)
    try:
        with opener.open(urllib.request.Request(url, data=data, headers=headers, method=method), timeout=timeout) as resp:
            answer: bytes = resp.read()
    except urllib.error.HTTPError as exc:
        answer = exc.read()
    except (urllib.error.URLError, OSError):
        return None
    try:
        return json.loads(answer)
    except ValueError:
        return None


def cluster_health(cfg: NodeConfig, wait_s: int = 1) -> str | None:
    """green/yellow/red, or None when the node does not answer (yet)."""
    data = http_json(f"{cfg.url}/_cluster/health?wait_for_status=yellow&timeout={wait_s}s", timeout=wait_s + 5,
                     cfg=cfg)
    return data.get("status") if isinstance(data, dict) else None


def is_healthy(cfg: NodeConfig) -> bool:
    """Whether the node answers yellow or green (what a start waits for)."""
    return cluster_health(cfg) in ("yellow", "green")


def status(cfg: NodeConfig) -> dict[str, object]:
    """Installed? running (by pidfile)? and, when running, what the node says about itself."""
    pid = running_pid(cfg)
    info = http_json(f"{cfg.url}/", cfg=cfg) if pid is not None else None
    nodes = http_json(f"{cfg.url}/_nodes/_local/plugins", cfg=cfg) if pid is not None else None
    version = info.get("version", {}).get("number") if isinstance(info, dict) else None
    plugins, modules = _plugin_names(nodes)
    return {
        "installed": is_installed(cfg),
        "running": pid is not None,
        "pid": pid,
        "url": cfg.url,
        "secure": cfg.secure,
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
