"""The pool's neighbourhood features (nomos.retrieval.ltr.neighbours): read from ids, ranks and citations alone."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nomos.retrieval.base import Hit
from nomos.retrieval.ltr.neighbours import (
    FAR,
    LAW_FEATURES,
    NEIGHBOUR_FEATURES,
    law_columns,
    law_of,
    neighbour_columns,
    number_of,
)


def test_the_law_and_the_number_are_read_from_the_id() -> None:
    assert (law_of("PK::372"), number_of("PK::372")) == ("PK", 372)
    assert (law_of("N_4624_2019::5"), number_of("N_4624_2019::5")) == ("N_4624_2019", 5)
    assert number_of("PK::386Α") == 386  # the letter of an inserted article is not part of the distance
    assert number_of("PK::Προοίμιο") is None


def test_an_article_beside_the_top_tens_articles_of_its_law_is_seen() -> None:
    ranking = [Hit(d, 1.0) for d in ("PK::372", "N_4624_2019::5", "PK::374", "PK::380")]
    ids = ["PK::372", "PK::375", "N_4624_2019::5", "N_4624_2019::40", "N_1_2020::1"]
    cites = {"PK::374": ["PK::372", "PK::375"], "PK::375": ["PK::372"], "N_4624_2019::5": ["N_4624_2019::5"]}
    m = neighbour_columns(ids, ranking, cites)
    assert m.shape == (5, len(NEIGHBOUR_FEATURES))
    law_top10, law_rr, near, cited_by, cites_top = m.T
    # PK::372: two other Penal Code articles in the top ten (ranks 3 and 4), the nearest two numbers away
    assert law_top10[0] == 2 and law_rr[0] == pytest.approx(1 / 3 + 1 / 4) and near[0] == pytest.approx(math.log1p(2))
    # PK::375 is not in the list itself: three of its law there, PK::374 one number away cites it, it cites PK::372
    assert law_top10[1] == 3 and near[1] == pytest.approx(math.log1p(1)) and cited_by[1] == 1 and cites_top[1] == 1
    assert cited_by[0] == 1  # PK::374 cites PK::372
    # an article citing itself is not its own neighbour; its law has no other article in the list
    assert law_top10[2] == 0 and law_rr[2] == 0 and near[2] == pytest.approx(math.log1p(FAR)) and cites_top[2] == 0
    assert law_top10[3] == 1 and near[3] == pytest.approx(math.log1p(35))
    assert list(m[4]) == [0, 0, pytest.approx(math.log1p(FAR)), 0, 0]


def test_only_the_top_ten_counts_as_the_neighbourhood() -> None:
    ranking = [Hit(f"N_9_2020::{i}", 1.0) for i in range(1, 12)] + [Hit("PK::1", 1.0)]
    m = neighbour_columns(["PK::2", "N_9_2020::11"], ranking, {"N_9_2020::11": ["PK::2"]})
    assert m[0][0] == 0 and m[0][1] == pytest.approx(1 / 12)  # PK::1 at rank 12: in law_rr, not in the top ten
    assert m[0][3] == 0  # N_9_2020::11 (rank 11) cites PK::2, but is not in the top ten
    assert m[1][0] == 10 and m[1][2] == pytest.approx(math.log1p(1))


def test_an_empty_pool_has_no_rows() -> None:
    assert neighbour_columns([], [], {}).shape == (0, len(NEIGHBOUR_FEATURES))


def test_the_laws_place_in_the_pool_is_read_from_the_pools_order_and_columns() -> None:
    # in the pool's order; the Penal Code holds three of five, and the fused top 1 (PK::375)
    ids = ["PK::372", "N_1_2020::1", "PK::375", "PK::380", "N_1_2020::2"]
    fused = np.asarray([3.0, 2.0, 1.0, 101.0, 101.0])
    bm25 = np.asarray([4.0, 0.0, 8.0, 2.0, 0.0])
    adapted = np.asarray([0.5, 0.7, 0.6, 0.4, 0.65])
    m = law_columns(ids, fused, bm25, adapted)
    assert m.shape == (5, len(LAW_FEATURES))
    place, share, share30, is_top1, adapted_gap, bm25_share, fused_gap = m.T
    assert list(place) == pytest.approx([0, 0, math.log1p(1), math.log1p(2), math.log1p(1)])
    assert list(share) == pytest.approx([0.6, 0.4, 0.6, 0.6, 0.4])
    assert list(share30) == pytest.approx([3 / 30, 2 / 30, 3 / 30, 3 / 30, 2 / 30])  # the whole pool is its head
    assert list(is_top1) == [1, 0, 1, 1, 0]
    assert list(adapted_gap) == pytest.approx([-0.1, 0, 0, -0.2, -0.05])
    # a law no BM25 match reaches has shares of 0, never a division by zero
    assert list(bm25_share) == pytest.approx([0.5, 0, 1, 0.25, 0])
    assert list(fused_gap) == pytest.approx([math.log(3), 0, 0, math.log(101), math.log(101 / 2)])


def test_no_fused_top_1_means_no_law_is_the_top_ones() -> None:
    m = law_columns(["PK::1"], np.asarray([101.0]), np.asarray([1.0]), np.asarray([0.3]))
    assert m[0][3] == 0 and law_columns([], np.zeros(0), np.zeros(0), np.zeros(0)).shape == (0, len(LAW_FEATURES))
