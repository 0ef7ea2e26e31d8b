"""Greek lemmas for BM25 (nomos.legal.text.lemmas): irregular forms meet where the stems do not, on a real node too."""

from __future__ import annotations

import pytest

from nomos.legal.text.lemmas import lemma_text


@pytest.mark.parametrize(("a", "b"), [("πήρε", "παίρνει"), ("έκλεψαν", "κλέβει"), ("απολύθηκε", "απολύει"),
                                      ("αφαίρεσε", "αφαιρεί")])
def test_forms_of_one_verb_meet_at_its_lemma(a: str, b: str) -> None:
    assert lemma_text(a) == lemma_text(b) != ""


def test_stop_words_go_case_and_accents_fold_and_unknown_words_stay() -> None:
    assert lemma_text("Ο ΓΕΙΤΟΝΑΣ και η γειτόνισσα") == lemma_text("γείτονας γειτόνισσα")
    assert lemma_text("ξξζζω") == "ξξζζω"  # no lemma known: the word itself, folded
    assert lemma_text("του της 2021 ,.") == ""  # stop words and no words


@pytest.mark.integration
def test_the_lemma_chain_finds_what_the_stems_miss_on_a_real_node(shared_bm25_index) -> None:
    from nomos.opensearch.transport import make_transport
    from nomos.retrieval.bm25 import BM25Retriever

    settings = shared_bm25_index
    transport = make_transport(settings.cluster)
    query = "αφαίρεσε"  # PK::372 says «αφαιρεί»: Snowball gives αφαιρεσ / αφαιρ, the lemmas αφαιρω both
    stems = BM25Retriever(transport, settings.index_alias).search(query, 5)
    lemmas = BM25Retriever(transport, settings.index_alias, analysis="lemma").search(query, 5)
    both = BM25Retriever(transport, settings.index_alias, lemma_boost=1.0).search(query, 5)
    assert "PK::372" not in [h.doc_id for h in stems]
    assert [h.doc_id for h in lemmas][:1] == ["PK::372"] and [h.doc_id for h in both][:1] == ["PK::372"]
    assert BM25Retriever(transport, settings.index_alias, analysis="lemma").search("του της", 5) == []
