"""The extractor's measured quality on the hand-checked samples (tests/fixtures/graph/), asserted as what it is.

Precision: the whole sample (1,295 edges still extracted) scores 1,250/1,295 = 0.965; but most of it informed the rules
it is scored with. The honest figure for unseen text is the newest held-out batch, v11-heldout-2033 (160 edges drawn
from v11 and judged after it was frozen, by readers who had not seen the rules): 147/160 = 0.919. Earlier held-out
batches scored 154/160 (v8), 145/160 (v9; v8 141/156 on the same edges) and 149/160 (v10), each on its own version:
batches of 160 differ by that much, and the extractor sits near 0.93 on unseen text. It is pinned here exactly, so
a rule change that moves it fails this test: the batch then no longer measures unseen text, and the change must
record its new score and draw a fresh batch. The issue's 0.95 target is a strict xfail on that batch: it turns red
when met, so it cannot pass unnoticed. Recall >= 0.90 on at least 50 references found by reading random articles:
met on the held-out v11-recall-2033 per entry (75/77, one per cited article, as edges count) and per distinct reference
(44/46), but the 40 articles read held only 46 distinct references, fewer than the 50 asked: a strict xfail. bench/graph_quality.py prints the same
numbers, per batch, and lists the misses (--show)."""

from __future__ import annotations

import pytest

from bench.graph_quality import Corpus, load_sample, precision, precision_by_batch, recall

HELD_OUT = "v11-heldout-2033"
HELD_OUT_RIGHT, HELD_OUT_TOTAL = 147, 160  # judged after references_version 11 was frozen
OVERALL_FLOOR = 0.96  # measured 1,250/1,295 = 0.965 on all batches together, most of which shaped the rules
RECALL_HELD_OUT = "v11-recall-2033"  # 77 references (46 spans) read while v11 was judged, unseen by it: 75/77, 44/46


@pytest.fixture(scope="module")
def corpus(shared_data):
    return Corpus(shared_data)


def test_precision_on_the_whole_hand_checked_sample(corpus) -> None:
    sample = load_sample("precision.json")["edges"]
    assert len(sample) >= 150
    score = precision(corpus, sample)
    assert score.total >= 150, f"only {score.total} sampled edges are still extracted: draw the sample again"
    assert score.ratio >= OVERALL_FLOOR, "\n".join(score.misses)


def test_precision_on_the_held_out_batch_is_the_recorded_one(corpus) -> None:
    batch = precision_by_batch(corpus, load_sample("precision.json")["edges"])[HELD_OUT]
    assert batch.withdrawn == 0, f"{batch.withdrawn} held-out edges are no longer extracted: the rules changed"
    assert (batch.right, batch.total) == (HELD_OUT_RIGHT, HELD_OUT_TOTAL), (
        f"{HELD_OUT} now scores {batch.right}/{batch.total}, judged at {HELD_OUT_RIGHT}/{HELD_OUT_TOTAL}: the rules "
        "changed, so this batch no longer measures unseen text; record its new score and draw a fresh batch\n"
        + "\n".join(batch.misses))


@pytest.mark.xfail(strict=True, reason="issue 25 asks for precision >= 0.95; the v11 held-out batch measures 147/160 = "
                   "0.919 (6 wrong ids: 3 in chapters inserted into ν. 4442/2016, an EU act's article, a chapter's "
                   "own numbering, a garbled text; 5 kinds; 2 paragraphs)")
def test_held_out_precision_meets_the_issue_target(corpus) -> None:
    batch = precision_by_batch(corpus, load_sample("precision.json")["edges"])[HELD_OUT]
    assert batch.ratio >= 0.95, "\n".join(batch.misses)


def test_recall_on_the_hand_found_references(corpus) -> None:
    sample = load_sample("recall.json")["references"]
    assert len(sample) >= 50
    score = recall(corpus, sample)
    assert score.ratio >= 0.90, "\n".join(score.misses)


def test_held_out_recall_meets_the_issue_target(corpus) -> None:
    from bench.graph_quality import recall_by_batch

    batch = recall_by_batch(corpus, load_sample("recall.json")["references"])[RECALL_HELD_OUT]
    assert batch.total >= 50 and batch.ratio >= 0.90, "\n".join(batch.misses)
    assert (batch.right, batch.total) == (75, 77), "the rules changed: this batch no longer measures unseen text"


@pytest.mark.xfail(strict=True, reason="per distinct reference the v11 held-out recall is 44/46 = 0.957, but on 46 "
                   "distinct references, not the 50 asked (v10's batch: 51/60 = 0.85 on v10)")
def test_held_out_recall_per_distinct_reference(corpus) -> None:
    from bench.graph_quality import recall_by_batch

    batch = recall_by_batch(corpus, load_sample("recall.json")["references"])[RECALL_HELD_OUT]
    assert batch.spans >= 50 and batch.spans_right / batch.spans >= 0.90, "\n".join(batch.misses)
