"""Waiting for the local LLM server that ``start`` just launched (nomos/localllm/server.py). Needs no model: the
child here is a plain Python process, which is what the server is until it has exec'd ``nomos.localllm.serve``."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from nomos.localllm import LocalLLMConfig, LocalLLMError
from nomos.localllm.server import _wait_healthy


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_child_that_is_not_the_server_yet_is_waited_for(tmp_path):
    """On a busy machine the child may not have exec'd the server yet (its command line is still the parent's): that
    once read as "exited while loading", and the server, started all the same, ran on with no pid file."""
    cfg = LocalLLMConfig(state_dir=tmp_path, port=_closed_port())
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with pytest.raises(LocalLLMError, match="did not answer"):
            _wait_healthy(cfg, proc.pid, 1.0, proc)
    finally:
        proc.kill()
        proc.wait()


def test_a_child_that_exits_is_still_told_apart(tmp_path):
    cfg = LocalLLMConfig(state_dir=tmp_path, port=_closed_port())
    proc = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    proc.wait()
    with pytest.raises(LocalLLMError, match="exited while loading"):
        _wait_healthy(cfg, proc.pid, 30.0, proc)
