"""Significance and comparison: the randomization test and Holm's correction against hand-worked cases, and
``compare`` over results folders written the way ``eval`` writes them (no OpenSearch needed)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from click.testing import CliRunner

from nomos.eval.compare import LOSS, WIN, compare, format_comparison, gold_sources, load_run, query_area, resolve_run
from nomos.eval.metrics import METRICS, evaluate
from nomos.eval.results import write_results
from nomos.eval.significance import holm, randomization_test


# --------------------------------------------------------------------------------------------------- the test
def test_identical_runs_give_p_one():
    a = [0.1, 0.5, 0.0, 1.0, 0.3] * 6
    assert randomization_test(a, a, n_permutations=1000) == 1.0


def test_strictly_better_on_many_queries_is_significant():
    rng = np.random.default_rng(0)
    a = rng.uniform(0, 0.5, 60)
    b = a + rng.uniform(0.05, 0.2, 60)
    p = randomization_test(a, b, n_permutations=20_000, seed=1)
    assert p < 0.001
    assert p == randomization_test(a, b, n_permutations=20_000, seed=1)  # seeded: reproducible
    assert p >= 1 / 20_001  # never zero
    assert randomization_test(b, a, n_permutations=20_000, seed=1) == p  # two-sided: symmetric


def test_exact_enumeration_hand_worked():
    # three non-zero differences +1, +1, +1 (and one tie): of the 8 sign assignments, |sum| = 3 for +++ and ---
    assert randomization_test([0, 0, 0, 5], [1, 1, 1, 5], n_permutations=1000) == pytest.approx(2 / 8)
    # +1, +1, -1: |sum| >= 1 for all 8 assignments
    assert randomization_test([0, 0, 1], [1, 1, 0], n_permutations=1000) == 1.0


def test_sampled_p_close_to_exact():
    rng = np.random.default_rng(3)
    a, b = rng.uniform(size=14), rng.uniform(size=14)
    exact = randomization_test(a, b, n_permutations=2**14)
    sampled = randomization_test(a, b, n_permutations=2**14 - 1, seed=5)
    assert abs(exact - sampled) < 0.03


def test_holm_hand_worked_and_properties():
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    rng = random.Random(7)
    raw = [rng.random() ** 3 for _ in range(25)]
    adj = holm(raw)
    assert all(x >= r for x, r in zip(adj, raw, strict=True)) and all(x <= 1 for x in adj)
    pairs = sorted(zip(raw, adj, strict=True))
    assert all(pairs[i][1] <= pairs[i + 1][1] for i in range(len(pairs) - 1))  # monotone in raw order
    assert holm([]) == []


# --------------------------------------------------------------------------------------------------- compare
QRELS = {f"crim{i:02d}": {f"PK::{i}": 1, **({f"AK::{i}": 1} if i % 3 == 0 else {})} for i in range(30)}
QRELS.update({f"civ{i:02d}": {f"AK::{100 + i}": 1} for i in range(10)})


def _write(folder, run, name):
    ev = evaluate(run, QRELS, METRICS)
    manifest = {"dataset": {"name": "toy", "revision": "t"}, "method": {"method": name}, "code": {"commit": "abc", "dirty": False}}
    write_results(folder / name, run, ev, manifest, tag=name)
    return folder / name


def _noise(q):  # unrelated articles, so rankings are 100 long
    return [(f"X::{q}:{j}", 0.0) for j in range(50)]


@pytest.fixture
def run_folders(tmp_path):
    good = {q: [(d, 10.0) for d in QRELS[q]] + _noise(q) for q in QRELS}  # gold at the top
    bad = {q: _noise(q) + [(d, -1.0) for d in QRELS[q]] for q in QRELS}  # gold below 50 others
    same = {q: list(v) for q, v in bad.items()}
    root = tmp_path / "runs" / "toy"
    return {n: _write(root, r, n) for n, r in (("base", bad), ("same", same), ("good", good))}


def test_compare_marks_wins_and_not_identical(run_folders):
    runs = [load_run(run_folders[n]) for n in ("base", "same", "good")]
    c = compare(runs, n_permutations=5000, seed=1, sources=gold_sources(QRELS))
    same = c.test("same", "ndcg@10")
    assert same.p == 1.0 and same.mark(c.alpha) == "" and (same.wins, same.ties, same.losses) == (0, 40, 0)
    good = c.test("good", "ndcg@10")
    assert good.p < 0.001 and good.p_holm >= good.p and good.mark(c.alpha) == WIN
    assert (good.wins, good.ties, good.losses) == (40, 0, 0)
    assert c.test("good", "recall@100").mark(c.alpha) == ""  # both find every gold article within 100: a tie
    assert len(c.tests) == 2 * len(METRICS)
    assert c.area_counts == {"civ": 10, "crim": 30}  # areas from id prefixes when the queries carry none
    assert c.source_counts == {"AK": 20, "PK": 30}
    assert c.by_area["crim"]["good"]["recall@10"] == 1.0
    text = format_comparison(c)
    table = text.split("\n\n")[0].splitlines()[:5]  # the means table: header, rule, three runs
    assert "base (baseline)" in table[2] and WIN in table[4] and not any(LOSS in row for row in table)
    assert "by legal area" in text
    flipped = compare(runs, baseline="good", n_permutations=5000, seed=1)
    assert flipped.test("base", "ndcg@10").mark(flipped.alpha) == LOSS
    assert json.dumps(c.to_dict())  # JSON-ready


def test_holm_family_per_metric_is_less_strict(run_folders):
    runs = [load_run(run_folders[n]) for n in ("base", "same", "good")]
    strict = compare(runs, n_permutations=2000, family="all")
    loose = compare(runs, n_permutations=2000, family="metric")
    for t in strict.tests:
        assert t.p_holm >= loose.test(t.run, t.metric).p_holm


def test_query_area_and_resolve(run_folders, tmp_path):
    assert query_area("dev07") == "dev" and query_area("q1", "criminal") == "criminal" and query_area("123") == "?"
    runs_dir = tmp_path / "runs"
    assert resolve_run("good", runs_dir) == run_folders["good"]
    assert resolve_run("toy/good", runs_dir) == run_folders["good"]
    assert resolve_run(str(run_folders["good"]), runs_dir) == run_folders["good"]
    from nomos.eval.compare import RunNotFound

    with pytest.raises(RunNotFound, match="no results folder"):
        resolve_run("nope", runs_dir)


def test_cli_compare(run_folders, tmp_path):
    from nomos.cli import cli

    out = tmp_path / "cmp.json"
    res = CliRunner().invoke(cli, ["compare", "base", "good", "same", "--runs-dir", str(tmp_path / "runs"),
                                   "--permutations", "2000", "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert WIN in res.output and "win/tie/loss" in res.output
    data = json.loads(out.read_text())
    assert data["test"]["permutations"] == 2000 and data["runs"]["good"]["code"]["commit"] == "abc"
    res = CliRunner().invoke(cli, ["compare", "missing", "--runs-dir", str(tmp_path / "runs")])
    assert res.exit_code == 1 and "no results folder" in res.output
