"""The extractor's measured quality on the hand-checked samples (tests/fixtures/graph/): precision >= 0.95 on at
least 150 edges drawn at random from its output, recall >= 0.90 on at least 50 references found by reading random
articles. bench/graph_quality.py prints the same numbers and lists the misses (--show)."""

from __future__ import annotations

import pytest

from bench.graph_quality import Corpus, load_sample, precision, recall


@pytest.fixture(scope="module")
def corpus(shared_data):
    return Corpus(shared_data)


def test_precision_on_the_hand_checked_sample(corpus) -> None:
    sample = load_sample("precision.json")["edges"]
    assert len(sample) >= 150
    score = precision(corpus, sample)
    assert score.total >= 150, f"only {score.total} sampled edges are still extracted: draw the sample again"
    assert score.ratio >= 0.95, "\n".join(score.misses)


def test_recall_on_the_hand_found_references(corpus) -> None:
    sample = load_sample("recall.json")["references"]
    assert len(sample) >= 50
    score = recall(corpus, sample)
    assert score.ratio >= 0.90, "\n".join(score.misses)
