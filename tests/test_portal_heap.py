"""A served portal freezes its heap after the first search of each method (nomos.portal.heap, issue 51's CPU a page),
and nothing else does: apps built by tests and scripts keep the collector as it is. ``gc.freeze`` is replaced by a
counter here, so the test session's own heap is never frozen."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from nomos.portal import heap as heap_module
from nomos.portal.heap import HeapFreeze


@pytest.fixture
def freezes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    monkeypatch.setattr(heap_module.gc, "freeze", lambda: calls.append(1))
    return calls


def _settings() -> Any:
    from nomos.settings import Settings

    return Settings.from_env({}).with_overrides(opensearch_url="http://127.0.0.1:9", allowed_hosts=("testserver",))


def test_the_heap_is_frozen_once_after_each_methods_first_search(freezes: list[int]) -> None:
    heap = HeapFreeze(enabled=True)
    assert [heap.after_search(m) for m in ("hybrid", "hybrid", "bm25", "hybrid", "bm25")] == [
        True, False, True, False, False]
    assert len(freezes) == 2 and heap.seen == {"hybrid", "bm25"}


def test_a_portal_not_served_never_freezes(freezes: list[int]) -> None:
    heap = HeapFreeze()
    assert not any(heap.after_search(m) for m in ("hybrid", "bm25"))
    assert freezes == []


def test_only_serve_builds_a_portal_that_freezes(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    from nomos.portal import app as app_module

    settings = _settings()
    assert app_module.create_app(settings).state.portal.heap.enabled is False  # tests, scripts, the API's users
    ran: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda target, **_: ran.append(target))
    monkeypatch.setenv(app_module.SETTINGS_ENV, "{}")  # what serve() writes is taken back after the test
    app_module.serve(settings, workers=1)  # one process: the app itself
    assert ran[0].state.portal.heap.enabled is True
    app_module.serve(settings, workers=2)  # workers: each rebuilds the app from the environment
    assert ran[1] == "nomos.portal.app:app_from_env"
    assert json.loads(os.environ[app_module.SETTINGS_ENV])["freeze_heap"] is True
    assert app_module.app_from_env().state.portal.heap.enabled is True


@pytest.mark.integration
def test_a_portal_search_tells_the_heap_its_method(shared_bm25_index: Any, freezes: list[int]) -> None:
    from nomos.opensearch.client import make_client
    from nomos.portal.service import Portal

    portal = Portal(shared_bm25_index, make_client(shared_bm25_index.cluster), heap=HeapFreeze(enabled=True))
    for _ in range(2):
        page = portal.search("κλοπή", "bm25")
    assert page.method == "bm25" and portal.heap.seen == {"bm25"} and len(freezes) == 1
