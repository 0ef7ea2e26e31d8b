"""The judging sample of applied instructions (tests/fixtures/in_force/sample.jsonl, drawn by bench/in_force.py
--sample 64 --seed 36): the engine must reproduce every recorded passage after, from the stand-in's texts, and once
blind readers have filled the judgments (bench/data/in-force-judging/README.md), the share judged exactly right
must be at least 0.95, the issue's bar.

Each item is recomputed from the corpus as ingest would: the amending articles the sample recorded for its target
(their edges read by the extractor over the whole corpus), applied in the laws' order; the step of the item's
amending article and words must give the recorded before and after. The stand-in is read from ../shared (the test
skips cleanly without it)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from nomos.ingest.beir import load_beir
from nomos.ingest.graph import CorpusReading
from nomos.legal.inforce.engine import CONSOLIDATION_VERSION, Amending, consolidate

SAMPLE = Path(__file__).resolve().parent / "fixtures" / "in_force" / "sample.jsonl"
ITEMS = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_sample_is_what_the_issue_asks() -> None:
    assert len(ITEMS) >= 64 and len({i["n"] for i in ITEMS}) == len(ITEMS)
    for item in ITEMS:
        assert item["amending"] and item["instruction"] and item["target"] and item["after"] is not None
        assert "judgment" in item
    assert {i["consolidation_version"] for i in ITEMS} == {CONSOLIDATION_VERSION}, \
        "the engine's version moved: draw and judge a new sample (bench/in_force.py --sample)"


@pytest.fixture(scope="module")
def recomputed(shared_data):
    articles = load_beir(shared_data).articles
    by_id = {a.id: a for a in articles}
    reading = CorpusReading.of(articles)
    out = {}
    for target in sorted({i["target"] for i in ITEMS}):
        amendments = next(i["amendments"] for i in ITEMS if i["target"] == target)
        sources = [Amending(s, by_id[s].text, [r.as_dict() for r in reading.references(by_id[s])], by_id[s].source,
                            by_id[s].law) for s in amendments]
        t = by_id[target]
        out[target] = consolidate(target, t.title, t.text, sources, t.source, t.law)
    return out


def test_every_sampled_instruction_gives_the_recorded_passage(recomputed) -> None:
    differ = []
    for item in ITEMS:
        steps = defaultdict(list)
        for s in recomputed[item["target"]].steps:
            steps[(s.applied.source, s.applied.action, s.applied.paragraph, s.applied.instruction)].append(s)
        key = (item["amending"], item["action"], item["paragraph"], item["instruction"])
        if not steps.get(key):
            differ.append(f"{item['n']}: {item['target']} <- {item['amending']}: the instruction was not applied")
            continue
        if not any(s.before == item["before"] and s.after == item["after"] for s in steps[key]):
            differ.append(f"{item['n']}: {item['target']} <- {item['amending']}: another passage")
    assert not differ, "\n".join(differ)


def test_the_readers_judge_at_least_0_95_exactly_right() -> None:
    judged = [i["judgment"] for i in ITEMS if i["judgment"] is not None]
    if len(judged) < len(ITEMS):
        pytest.skip(f"the judgments are not filled yet ({len(ITEMS) - len(judged)} of {len(ITEMS)} null): "
                    "bench/data/in-force-judging/README.md says how to judge them")
    for j in judged:
        assert isinstance(j, dict) and isinstance(j.get("exact"), bool) and j.get("why"), j
    right = sum(1 for j in judged if j["exact"])
    assert right / len(judged) >= 0.95, f"{right}/{len(judged)} judged exactly right"
