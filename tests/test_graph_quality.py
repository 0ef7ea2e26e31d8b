"""The extractor's measured quality on the hand-checked samples (tests/fixtures/graph/), asserted as what it is.

Precision: the whole sample (1,679 edges still extracted) scores 1,634/1,679 = 0.973; but most of it informed the rules
it is scored with. The honest figure for unseen text is the newest held-out batch, v13-heldout-2035 (160 edges drawn
from v13 and judged after it was frozen, by readers who had not seen the rules): 153/160 = 0.956, which meets the
issue's 0.95 (Wilson 95% interval 0.912-0.979: one batch does not prove the rate is above 0.95). Earlier held-out
batches scored 154 (v8), 145 (v9), 149 (v10), 147 (v11) and 153/160 (v12), each on its own version. It is pinned
exactly, so a rule change that moves it fails this test: the batch then no longer measures unseen text, and the change
must record its new score and draw a fresh batch. Recall >= 0.90 on at least 50 references found by reading random
articles: v13's held-out batch (82 distinct references read after v13 was frozen) meets it, 77/82 = 0.939 per distinct
reference (84/89 per entry); v12's batch had not (49/61 per distinct reference). v14 is v13 with one fix written
after the judging (a Government Gazette issue «(Α’ 167, Κώδικας …)» read as an article: 4 edges of corpus.jsonl,
none in either held-out batch, so both score as judged). v15 (issue 36: the law an amending article's opening,
title or item names for its bare articles; parts and chapters between an article and its law; tables of
correspondence; the verb's own subject) was written after both batches were judged, so on them it is no longer
held out: it scores 154/159 on v13-heldout-2035 (one edge of N_4823_2021::177 now goes to ν. 4692/2020, as judged;
one edge judged no reference, «σύμφωνα με το άρθρο 16 αυτής» of a decision, is withdrawn) and 85/89 (78/82
distinct) on v13-recall-2035; the fresh batches it is to be judged on are drawn by
bench/graph_batches.py (bench/data/graph-judging/). The scoring is nomos/eval/graph_quality.py's;
bench/graph_quality.py prints the same numbers, per batch, and lists the misses (--show)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nomos.eval.graph_quality import load_sample, precision, precision_by_batch, recall, recall_by_batch
from nomos.stages.graph import quality_corpus

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "graph"

HELD_OUT = "v13-heldout-2035"
HELD_OUT_RIGHT, HELD_OUT_TOTAL = 154, 159  # judged after references_version 13 was frozen (153/160 then)
HELD_OUT_WITHDRAWN = 1  # v15 no longer gives N_4796_2021::120's «άρθρο 16 αυτής», judged no reference
OVERALL_FLOOR = 0.97  # measured 1,638/1,676 = 0.977 on all batches together (v15), most of which shaped the rules
RECALL_HELD_OUT = "v13-recall-2035"  # 89 references (82 spans) read after v13 was frozen: 84/89, 77/82 (v15: 85, 78)


@pytest.fixture(scope="module")
def corpus(shared_data):
    return quality_corpus(shared_data)


def test_precision_on_the_whole_hand_checked_sample(corpus) -> None:
    sample = load_sample(FIXTURES / "precision.json")["edges"]
    assert len(sample) >= 150
    score = precision(corpus, sample)
    assert score.total >= 150, f"only {score.total} sampled edges are still extracted: draw the sample again"
    assert score.ratio >= OVERALL_FLOOR, "\n".join(score.misses)


def test_precision_on_the_held_out_batch_is_the_recorded_one(corpus) -> None:
    batch = precision_by_batch(corpus, load_sample(FIXTURES / "precision.json")["edges"])[HELD_OUT]
    assert batch.withdrawn == HELD_OUT_WITHDRAWN, f"{batch.withdrawn} held-out edges are no longer extracted: the rules changed"
    assert (batch.right, batch.total) == (HELD_OUT_RIGHT, HELD_OUT_TOTAL), (
        f"{HELD_OUT} now scores {batch.right}/{batch.total}, judged at {HELD_OUT_RIGHT}/{HELD_OUT_TOTAL}: the rules "
        "changed, so this batch no longer measures unseen text; record its new score and draw a fresh batch\n"
        + "\n".join(batch.misses))


def test_held_out_precision_meets_the_issue_target(corpus) -> None:
    batch = precision_by_batch(corpus, load_sample(FIXTURES / "precision.json")["edges"])[HELD_OUT]
    assert batch.ratio >= 0.95, "\n".join(batch.misses)


def test_recall_on_the_hand_found_references(corpus) -> None:
    sample = load_sample(FIXTURES / "recall.json")["references"]
    assert len(sample) >= 50
    score = recall(corpus, sample)
    assert score.ratio >= 0.90, "\n".join(score.misses)


def test_held_out_recall_is_the_recorded_one(corpus) -> None:
    batch = recall_by_batch(corpus, load_sample(FIXTURES / "recall.json")["references"])[RECALL_HELD_OUT]
    assert (batch.right, batch.total, batch.spans_right, batch.spans) == (85, 89, 78, 82), (
        "the rules changed: this batch no longer measures unseen text; record its new score and read a fresh one\n"
        + "\n".join(batch.misses))


def test_held_out_recall_meets_the_issue_target(corpus) -> None:
    batch = recall_by_batch(corpus, load_sample(FIXTURES / "recall.json")["references"])[RECALL_HELD_OUT]
    assert batch.spans >= 50 and batch.spans_right / batch.spans >= 0.90, "\n".join(batch.misses)
