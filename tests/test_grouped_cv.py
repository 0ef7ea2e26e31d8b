"""Grouped k-fold cross-validation (nomos.eval.grouped_cv): groups stay whole, choices are made on training folds."""

from __future__ import annotations

import random

import pytest

from nomos.eval.grouped_cv import cross_validate, grouped_folds, objective


def test_folds_keep_groups_whole_and_cover_every_query() -> None:
    groups = {f"q{i}": f"case{i // 3}" for i in range(30)}  # ten cases of three questions
    folds = grouped_folds(groups, 5, random.Random(1))
    assert sorted(q for f in folds for q in f) == sorted(groups)
    for fold in folds:
        cases = {groups[q] for q in fold}
        assert all(sum(1 for q in fold if groups[q] == c) == 3 for c in cases)
    assert grouped_folds(groups, 5, random.Random(1)) == folds  # seeded: the same folds again


def test_too_many_folds_is_refused() -> None:
    with pytest.raises(ValueError, match="between 2 and the number of groups"):
        grouped_folds({"a": "g", "b": "g"}, 2, random.Random(0))


def test_each_set_weighs_the_same_in_the_objective() -> None:
    per_query = {"a1": {"m": 1.0}, "a2": {"m": 1.0}, "a3": {"m": 1.0}, "b1": {"m": 0.0}}
    members = {"big": ["a1", "a2", "a3"], "small": ["b1"]}
    assert objective(per_query, ["a1", "a2", "a3", "b1"], ["m"]) == (0.75,)
    assert objective(per_query, ["a1", "a2", "a3", "b1"], ["m"], members) == (0.5,)


def test_held_out_scores_come_from_the_fold_choice_not_the_oracle() -> None:
    # "good" wins on every query but one group, where "lucky" is perfect: the oracle per query would mix them, the
    # cross-validated choice is "good" everywhere (it wins every training fold), so the held-out mean is good's
    groups = {f"q{i}": f"g{i}" for i in range(10)}
    good = {q: {"r": 0.8} for q in groups}
    lucky = {q: {"r": 1.0 if q == "q0" else 0.1} for q in groups}
    cv = cross_validate({"good": good, "lucky": lucky}, groups, ["r"], k=5, repeats=3, seed=7)
    assert set(cv.chosen) == {"good"} and cv.folds == 15
    assert cv.mean(groups, "r") == pytest.approx(0.8)


def test_ties_are_settled_by_the_preference() -> None:
    groups = {f"q{i}": f"g{i}" for i in range(4)}
    same = {q: {"r": 0.5} for q in groups}
    cv = cross_validate({"w=1": same, "w=0": same}, groups, ["r"], k=2, repeats=1,
                        prefer=lambda n: (-float(n.split("=")[1]),))
    assert set(cv.chosen) == {"w=0"}
