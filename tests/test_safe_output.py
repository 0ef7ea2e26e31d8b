"""Issue 47: control and bidirectional characters from outside (an article's text, a request's path) never reach a
terminal or a log line raw: ``cli.py search`` printed an article's escape sequence (one set the terminal's title),
and terminal escapes and right-to-left overrides reached the portal's log lines. A real uvicorn server with the
portal's log configuration, the CLI's own logging and the search output; no node."""

from __future__ import annotations

import logging
import threading
import time
import urllib.error
import urllib.request

import pytest
import uvicorn
from fastapi.testclient import TestClient

from nomos.cli.output import print_hits
from nomos.cli_logging import configure
from nomos.portal import create_app
from nomos.portal.app import log_config
from nomos.retrieval.base import Hit
from nomos.safe_text import escape_controls
from nomos.settings import Settings
from tests.portal_support import free_port

TITLE_SEQUENCE = "\x1b]0;pwned\x07"  # OSC 0: set the terminal's title (click strips colours, not this)
RAW = ("\x1b", "\x07", "\u202e", "\u2066", "\r")


def test_escape_controls_writes_each_as_its_escape_and_keeps_the_rest():
    assert escape_controls(f"Κλοπή{TITLE_SEQUENCE}\u202eάρθρο\n2\t") == "Κλοπή\\x1b]0;pwned\\x07\\u202eάρθρο\\n2\\t"
    assert escape_controls("α\nβ\tγ\x85", keep="\n\t") == "α\nβ\tγ\\x85"
    assert escape_controls("Όποιος αφαιρεί ξένο (ολικά) κινητό πράγμα §1 «x»") == "Όποιος αφαιρεί ξένο (ολικά) κινητό πράγμα §1 «x»"


def test_search_output_shows_an_articles_escape_sequences_escaped(capsys):
    """The article's body may keep an ESC (the loader refuses only NUL, bidi controls and BOMs in a body); its
    snippet, title and id are printed with every such character escaped, the marked terms still emphasised."""
    hit = Hit(doc_id="PK::372", score=1.0, title=f"Κλοπή{TITLE_SEQUENCE}", law="ΠΚ\u202e",
              highlights=(f"Όποιος <mark>αφαιρεί</mark>{TITLE_SEQUENCE} ξένο\u2066 κινητό &#27;]2;x&#7;",))
    print_hits([hit])
    out = capsys.readouterr().out
    assert not any(ch in out for ch in RAW), repr(out)
    assert "Κλοπή\\x1b]0;pwned\\x07" in out and "[ΠΚ\\u202e]" in out
    assert "αφαιρεί\\x1b]0;pwned\\x07 ξένο\\u2066 κινητό" in out


def test_the_clis_log_lines_and_errors_are_escaped(capsys):
    configure(verbose=1)
    logging.getLogger("nomos.test").warning("a path %s", f"/x{TITLE_SEQUENCE}\u202e")
    err = capsys.readouterr().err
    assert "warning: a path /x\\x1b]0;pwned\\x07\\u202e" in err and not any(ch in err for ch in RAW), repr(err)


def _served_log(capfd: pytest.CaptureFixture[str], path: str) -> str:
    """The log of a real uvicorn server running the portal (a cluster that does not answer) with its log
    configuration, after one request for ``path``."""
    settings = Settings(opensearch_url="http://127.0.0.1:9", retry_seconds=0, allowed_hosts=("127.0.0.1",))
    configure()  # as `cli.py serve` does: the portal's own lines go to stderr through the CLI's handler
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="info",
                                           log_config=log_config(settings.portal)))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with pytest.raises(urllib.error.HTTPError):
            opener.open(f"http://127.0.0.1:{port}{path}", timeout=30)
        time.sleep(0.2)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    out, err = capfd.readouterr()
    return out + err


def test_the_portals_log_lines_show_a_paths_escapes_escaped(capfd):
    """A path holding a title-setting escape sequence, a right-to-left override and a newline, percent-encoded:
    the portal's failure line (the path decoded) shows them escaped, on one line; the access line too."""
    log = _served_log(capfd, "/articles/PK::372%1B%5D0%3Bpwned%07%E2%80%AE%0Aforged")
    assert not any(ch in log for ch in RAW) and "\nforged" not in log, repr(log)
    lines = [ln for ln in log.splitlines() if "/articles/PK" in ln]
    assert len(lines) == 2, lines  # uvicorn's access line (it quotes the path) and the portal's own failure line
    # the path as Starlette gives it has lost the newline (urlsplit drops it); the message keeps it, escaped
    assert any("GET /articles/PK::372\\x1b]0;pwned\\x07\\u202eforged: 503 ClusterUnavailable" in ln
               for ln in lines), lines


def test_the_portals_failure_line_is_escaped_in_process(caplog):
    settings = Settings(opensearch_url="http://127.0.0.1:9", retry_seconds=0, allowed_hosts=("testserver",))
    with TestClient(create_app(settings), raise_server_exceptions=False) as web, \
            caplog.at_level(logging.INFO, logger="nomos.portal"):
        assert web.get("/articles/PK::372%1B%5B2J%E2%80%AE").status_code == 503
    logged = [r.getMessage() for r in caplog.records if r.name == "nomos.portal"]
    assert logged and not any(ch in m for m in logged for ch in RAW), logged
    assert any("/articles/PK::372\\x1b[2J\\u202e: 503" in m for m in logged), logged
