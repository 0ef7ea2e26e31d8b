"""The API page in one language (issue 50): its headings were Greek and every summary and parameter English (read
from the OpenAPI description). The words now come from nomos/portal/api_greek.py; every endpoint and parameter the
API has must be there, so a new one cannot bring English back. No node: the page reads only the app's description."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from nomos.portal import create_app
from nomos.portal.api_greek import PARAMETERS, SUMMARIES
from nomos.settings import Settings

GREEK = re.compile(r"[α-ωά-ώΑ-Ω]")


def test_every_endpoint_and_parameter_has_greek_words_and_the_page_shows_no_english_sentence():
    settings = Settings(opensearch_url="http://127.0.0.1:9", retry_seconds=0, allowed_hosts=("testserver",))
    app = create_app(settings)
    schema = app.openapi()
    english: list[str] = []
    for path, operations in schema["paths"].items():
        for method, op in operations.items():
            assert GREEK.search(SUMMARIES.get((method.upper(), path), "")), f"{method.upper()} {path}: no Greek summary"
            english.append(op.get("summary", ""))
            for p in op.get("parameters", []):
                assert GREEK.search(PARAMETERS.get(p["name"], "")), f"{path} {p['name']}: no Greek description"
                english.append(p.get("description") or p.get("schema", {}).get("description", ""))
    with TestClient(app) as web:
        page = web.get("/api").text
    assert "Τα πιο σχετικά άρθρα για την περιγραφή μιας υπόθεσης." in page and "κείμενο" in page
    shown = [e for e in english if e and e in page]
    assert not shown, shown  # none of the OpenAPI description's English sentences
    assert "<td>query</td>" not in page and "<td>string</td>" not in page and "<td>integer</td>" not in page
