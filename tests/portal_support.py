"""Shared pieces of the portal tests: an indexed mini dataset behind a unique alias, and a live portal server
(uvicorn in a thread on a free loopback port) for the browser test."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from ingest.beir import load_beir
from opensearch.client import make_client
from settings import Settings
from tests.beir_files import write_beir
from workflows import index_dataset


@contextmanager
def indexed_mini(cluster: Settings, folder: Path, alias_prefix: str = "pytest-portal") -> Iterator[Settings]:
    """Settings with a unique alias over the mini BEIR dataset, indexed; its indices are deleted afterwards."""
    alias = f"{alias_prefix}-{uuid.uuid4().hex[:8]}"
    settings = replace(cluster, index_alias=alias, runs_dir=folder / "runs", cache_dir=folder / "cache")
    index_dataset(settings, load_beir(write_beir(folder / "mini")))
    try:
        yield settings
    finally:
        make_client(settings).indices.delete(index=f"{alias}*", ignore_unavailable=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def live_portal(app, timeout: float = 30.0) -> Iterator[str]:  # noqa: ANN001 - a FastAPI app
    """Serve ``app`` with uvicorn on a free loopback port in a thread; yields the base URL."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the portal did not start")
        time.sleep(0.05)
    urllib.request.urlopen(base + "/static/portal.css", timeout=5).read()
    try:
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=10)
