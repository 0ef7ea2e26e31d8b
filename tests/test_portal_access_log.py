"""The portal's access log keeps paths, not the visitors' case texts: a real uvicorn server with the portal's log
configuration, asked for a search page, logs ``GET /search`` and not its query, unless NOMOS_LOG_QUERIES is on."""

from __future__ import annotations

import threading
import time
import urllib.parse
import urllib.request

import pytest
import uvicorn
from fastapi import FastAPI

from nomos.portal.app import log_config
from nomos.settings import Settings
from tests.portal_support import free_port

SECRET = "ο σύζυγός μου με απειλεί"


def _served_log(settings: Settings, capfd) -> str:  # pytest's capfd
    app = FastAPI()

    @app.get("/search")
    def search(q: str = "") -> dict:
        return {"n": len(q)}

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="info",
                                           log_config=log_config(settings.portal)))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        url = f"http://127.0.0.1:{port}/search?" + urllib.parse.urlencode({"q": SECRET})
        assert urllib.request.urlopen(url, timeout=10).status == 200
        time.sleep(0.2)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    out, err = capfd.readouterr()
    return out + err


def test_the_access_log_omits_query_strings_by_default(capfd):
    log = _served_log(Settings(), capfd)
    assert '"GET /search HTTP/1.1" 200' in log
    assert "q=" not in log and urllib.parse.quote(SECRET) not in log


@pytest.mark.parametrize("env", [{"NOMOS_LOG_QUERIES": "true"}])
def test_the_query_string_is_logged_when_asked(capfd, env):
    log = _served_log(Settings.from_env(env), capfd)
    assert "GET /search?q=" + urllib.parse.quote_plus(SECRET) in log
