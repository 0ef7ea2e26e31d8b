"""The portal with an LLM endpoint (the scripted OpenAI-protocol server, no real LLM): the react trace shown step
by step, and a slow LLM that neither blocks BM25 searches nor holds a page past its deadline."""

from __future__ import annotations

import threading
import time

import pytest
from fastapi.testclient import TestClient

from nomos.portal import create_app
from tests.beir_files import QUERIES, write_beir
from tests.llm_server import from_beir

pytestmark = pytest.mark.integration

CASE = QUERIES[0]["text"]  # the theft case; its gold article is PK::372


@pytest.fixture(scope="module")
def mini(shared_bm25_index, tmp_path_factory):
    """The session's read-only mini index (tests/conftest.py), with this module's own cache of LLM replies."""
    folder = tmp_path_factory.mktemp("portal-llm")
    return shared_bm25_index.with_overrides(cache_dir=folder / "cache", runs_dir=folder / "runs"), write_beir(folder / "beir")


def llm_settings(settings, llm, **kw):
    return settings.with_overrides(llm_base_url=llm.base_url, llm_model="scripted", react_rounds=2, llm_retries=1,
                   llm_concurrency=2, **kw)


def test_react_trace_is_shown_round_by_round(mini):
    settings, folder = mini
    with from_beir(folder) as llm, TestClient(create_app(llm_settings(settings, llm))) as web:
        page = web.get("/").text
        assert 'value="react"' in page and 'value="reform-bm25"' in page

        r = web.get("/api/search", params={"q": CASE, "method": "react", "k": 5})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["hits"][0]["id"] == "PK::372" and body["hits"][0]["title"] == "Κλοπή"
        rounds = body["trace"]
        assert [t["round"] for t in rounds] == [1, 2]
        assert all(t["query"] and t["candidates"] > 0 for t in rounds)
        assert "PK::372" in rounds[0]["kept"]

        html = web.get("/search", params={"q": CASE, "method": "react", "k": 5}).text
        assert 'id="trace"' in html and "Γύρος 1" in html and "Γύρος 2" in html
        assert html.count('class="round"') == 2
        assert 'href="/articles/PK%3A%3A372' in html

        reform = web.get("/api/search", params={"q": CASE, "method": "reform-bm25", "k": 5})
        assert reform.status_code == 200 and reform.json()["trace"] is None
        assert "PK::372" in [h["id"] for h in reform.json()["hits"]]


def test_slow_llm_does_not_block_bm25_and_has_a_deadline(mini, tmp_path):
    settings, folder = mini
    settings = settings.with_overrides(cache_dir=tmp_path / "cache")  # no cached LLM replies from the other test
    with from_beir(folder, delay=2.5) as llm:
        app = create_app(llm_settings(settings, llm), llm_deadline=6.0)
        with TestClient(app) as web:
            web.get("/api/search", params={"q": "κλοπή"})  # warm up
            slow: dict = {}

            def react():
                t = time.perf_counter()
                slow["resp"] = web.get("/api/search", params={"q": CASE, "method": "react"})
                slow["s"] = time.perf_counter() - t

            threads = [threading.Thread(target=react) for _ in range(3)]
            for t in threads:
                t.start()
            time.sleep(0.3)  # the react searches are now waiting on the LLM
            fast = []
            for _ in range(5):
                t = time.perf_counter()
                r = web.get("/api/search", params={"q": CASE})
                fast.append(time.perf_counter() - t)
                assert r.status_code == 200 and r.json()["hits"][0]["id"] == "PK::372"
            fast_done = time.perf_counter()
            assert max(fast) < 1.0, fast
            assert all(t.is_alive() for t in threads)  # BM25 answered while the LLM searches were still waiting
            for t in threads:
                t.join(timeout=30)
            assert slow["resp"].status_code == 504
            assert "BM25" in slow["resp"].json()["detail"]
            assert 5.5 < slow["s"] < 9
            assert fast_done < time.perf_counter()
            # another case (the abandoned runs above have cached their replies by now): the page also gives up
            page = web.get("/search", params={"q": QUERIES[1]["text"], "method": "react"})
            assert page.status_code == 504 and "504" in page.text
