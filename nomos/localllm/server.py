"""Start, stop and inspect the local LLM server process (detached, with a pid file, a log and a health wait).

Why detached: ``cli.py llm start`` returns while the model keeps serving, like ``cli.py server start`` for the
OpenSearch node; ``stop`` ends exactly the process it started (its pid, checked against its command line).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from nomos.localllm.config import LocalLLMConfig, LocalLLMError

ENTRY = "nomos.localllm.serve"


@dataclass(frozen=True)
class ServerStatus:
    """What ``status`` reports: a running, answering server has ``healthy`` and ``model`` set."""

    running: bool
    healthy: bool
    pid: int | None
    base_url: str
    model: str | None
    gguf: str | None
    log_file: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def probe(host: str, port: int, timeout: float = 2.0) -> tuple[str, str] | None:
    """(base_url, model) when an OpenAI-compatible server answers ``GET /v1/models`` on host:port, else None."""
    base = f"http://{host}:{port}/v1"
    try:
        with urllib.request.urlopen(f"{base}/models", timeout=timeout) as resp:
            data = json.loads(resp.read().decode("utf-8"))
    except (OSError, ValueError, urllib.error.URLError):
        return None
    models = data.get("data") if isinstance(data, dict) else None
    if not models or not isinstance(models, list) or not isinstance(models[0], dict) or not models[0].get("id"):
        return None
    return base, str(models[0]["id"])


def _read_pid(cfg: LocalLLMConfig) -> int | None:
    try:
        return int(cfg.pid_file.read_text().strip())
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    """True while ``pid`` is our server: alive, not a zombie, and running this package's entry point."""
    try:
        os.waitpid(pid, os.WNOHANG)  # reap it if it is our own child that already exited
    except ChildProcessError:
        pass
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return False
    state = stat.rsplit(")", 1)[-1].split()[0]
    return state not in ("Z", "X") and ENTRY in cmdline


def _record(cfg: LocalLLMConfig) -> dict[str, Any]:
    try:
        return json.loads(cfg.record_file.read_text())
    except (OSError, ValueError):
        return {}


def status(cfg: LocalLLMConfig) -> ServerStatus:
    """The server on ``cfg.port`` as this state folder knows it (pid file) and as it answers (``/v1/models``)."""
    pid = _read_pid(cfg)
    running = pid is not None and _alive(pid)
    found = probe(cfg.host, cfg.port) if running else None
    return ServerStatus(running=running, healthy=found is not None, pid=pid if running else None, base_url=cfg.base_url,
                        model=found[1] if found else None, gguf=_record(cfg).get("gguf") if running else None,
                        log_file=str(cfg.log_file))


def _log_tail(cfg: LocalLLMConfig, lines: int = 15) -> str:
    try:
        return "\n".join(cfg.log_file.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def start(cfg: LocalLLMConfig, timeout: float = 300.0) -> ServerStatus:
    """Start the server detached and wait until it answers; a running one is returned as it is (idempotent)."""
    gguf = cfg.model_path()
    current = status(cfg)
    if current.running:
        return current if current.healthy else _wait_healthy(cfg, current.pid, timeout)
    other = probe(cfg.host, cfg.port)
    if other is not None:
        raise LocalLLMError(f"port {cfg.port} is already served by another process (model {other[1]}); "
                            "set NOMOS_LLM_PORT (or --port) to a free port, or use that server through NOMOS_LLM_BASE_URL")
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    root = Path(__file__).resolve().parents[2]  # so `-m nomos.localllm.serve` finds this very package
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p)}
    cmd = [sys.executable, "-m", ENTRY, "--gguf", str(gguf), "--port", str(cfg.port), "--host", cfg.host,
           "--ctx", str(cfg.ctx), "--threads", str(cfg.threads)]
    with cfg.log_file.open("ab") as log:
        log.write(f"\n--- {time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(cmd)}\n".encode())
        log.flush()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True, close_fds=True)
    cfg.pid_file.write_text(f"{proc.pid}\n")
    cfg.record_file.write_text(json.dumps({"pid": proc.pid, "gguf": str(gguf), "port": cfg.port, "ctx": cfg.ctx,
                                           "threads": cfg.threads, "started": time.time()}, indent=1))
    return _wait_healthy(cfg, proc.pid, timeout, proc)


def _wait_healthy(cfg: LocalLLMConfig, pid: int | None, timeout: float,
                  proc: subprocess.Popen[bytes] | None = None) -> ServerStatus:
    """Wait for the server to answer. Our own child (``proc``) is watched through ``poll()``: until it has exec'd
    the server, its command line is still ours, so ``_alive`` would call a busy machine's slow start an exit."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (proc.poll() is not None) if proc is not None else (pid is None or not _alive(pid)):
            _forget(cfg)
            raise LocalLLMError(f"the local LLM server exited while loading; last lines of {cfg.log_file}:\n{_log_tail(cfg)}")
        st = status(cfg)
        if st.healthy:
            return st
        time.sleep(0.5)
    raise LocalLLMError(f"the local LLM server (pid {pid}) did not answer GET {cfg.base_url}/models within {timeout:.0f}s; "
                        f"see {cfg.log_file} (it may still be loading: `cli.py llm status`)")


def _forget(cfg: LocalLLMConfig) -> None:
    for f in (cfg.pid_file, cfg.record_file):
        f.unlink(missing_ok=True)


def stop(cfg: LocalLLMConfig, grace: float = 15.0) -> bool:
    """SIGTERM the server this state folder started, SIGKILL after ``grace`` seconds; True if one was running."""
    pid = _read_pid(cfg)
    if pid is None or not _alive(pid):
        _forget(cfg)
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.2)
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)
        for _ in range(50):
            if not _alive(pid):
                break
            time.sleep(0.1)
    _forget(cfg)
    return True
