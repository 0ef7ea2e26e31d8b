"""Amendment-aware ranking (nomos/retrieval/amendments.py): the re-ordering on hand-made lists, the option's
parsing and resolution, and the stage over a real BM25 ranking on the test node."""

from __future__ import annotations

import pytest

from nomos.errors import ConfigError
from nomos.retrieval.amendments import AmendmentConfig, apply, parse_amendments
from nomos.retrieval.base import Hit
from nomos.retrieval.registry import MethodOptions, resolved_options
from nomos.settings import Settings

# an amending article ranked above the article it amends (the issue's «άρθρο 372 ΠΚ» case), one amending an
# article the method did not find at all, and one ordinary article in between
HITS = [Hit("N4855::86", 9.0), Hit("X::1", 8.0), Hit("N4855::87", 7.0), Hit("Y::2", 6.0), Hit("PK::372", 5.0)]
TARGETS = {"N4855::86": ["PK::372"], "N4855::87": ["PK::373", "PK::372"]}


def ids(hits: list[Hit]) -> list[str]:
    return [h.doc_id for h in hits]


def test_follow_puts_each_amended_article_right_after_its_first_amender() -> None:
    out, moves = apply(HITS, TARGETS, AmendmentConfig("follow"))
    assert ids(out) == ["N4855::86", "PK::372", "X::1", "N4855::87", "PK::373", "Y::2"]
    assert [h.score for h in out] == sorted((h.score for h in out), reverse=True)
    assert len({h.score for h in out}) == len(out)  # strictly descending: no tie for the id rule to break
    assert out[1].details == {"first_score": 5.0, "amended_by": "N4855::86"}
    assert moves == [{"id": "PK::372", "by": "N4855::86", "from": 5, "to": 2},
                     {"id": "PK::373", "by": "N4855::87", "from": None, "to": 5}]


def test_follow_depth_limits_which_amenders_bring_their_targets() -> None:
    out, moves = apply(HITS, TARGETS, AmendmentConfig("follow", depth=1))
    assert ids(out) == ["N4855::86", "PK::372", "X::1", "N4855::87", "Y::2"]  # 87 is below the depth: PK::373 not brought
    assert [m["id"] for m in moves] == ["PK::372"]


def test_credit_adds_a_share_of_the_best_amender_score_and_resorts() -> None:
    out, moves = apply(HITS, TARGETS, AmendmentConfig("credit", weight=0.5))
    scores = {h.doc_id: h.score for h in out}
    assert scores["PK::372"] == pytest.approx(5.0 + 0.5 * 9.0)  # the best amender (86, 9.0), not the sum
    assert scores["PK::373"] == pytest.approx(0.5 * 7.0)  # not found by the method: the credit alone
    # 9.5 > 9.0: the amended article now outranks the article that amends it
    assert ids(out) == ["PK::372", "N4855::86", "X::1", "N4855::87", "Y::2", "PK::373"]
    assert {m["id"]: (m["from"], m["to"]) for m in moves} == {"PK::372": (5, 1), "PK::373": (None, 6)}


def test_off_and_no_targets_leave_the_ranking_as_it_is() -> None:
    assert apply(HITS, TARGETS, AmendmentConfig()) == (HITS, [])
    for mode in ("follow", "credit"):
        out, moves = apply(HITS, {}, AmendmentConfig(mode))
        assert ids(out) == ids(HITS) and moves == []


def test_an_article_amending_itself_or_an_already_placed_one_moves_nothing() -> None:
    out, moves = apply([Hit("A", 3.0), Hit("B", 2.0)], {"A": ["A"], "B": ["A"]}, AmendmentConfig("follow"))
    assert ids(out) == ["A", "B"] and moves == []


@pytest.mark.parametrize(("text", "expected"), [
    (None, AmendmentConfig()), ("off", AmendmentConfig()), ("follow", AmendmentConfig("follow")),
    ("follow:10", AmendmentConfig("follow", depth=10)), ("credit:0.25", AmendmentConfig("credit", weight=0.25)),
    ("Credit:1:20", AmendmentConfig("credit", weight=1.0, depth=20)),
])
def test_parse(text: str | None, expected: AmendmentConfig) -> None:
    assert parse_amendments(text) == expected
    assert parse_amendments(expected.spec) == expected  # the canonical text reads back as the same choice


@pytest.mark.parametrize("text", ["follw", "follow:x", "follow:0", "credit:-1", "off:3", "credit:1:2:3"])
def test_bad_values_name_the_option(text: str) -> None:
    with pytest.raises(ConfigError, match="--amendments"):
        parse_amendments(text)


def test_resolution_option_then_setting_then_default() -> None:
    s = Settings(amendments="credit:0.5")
    assert resolved_options(s, MethodOptions(), "bm25").amendments == "credit"
    assert resolved_options(s, MethodOptions(amendments="follow:10"), "bm25").amendments == "follow:10"
    assert resolved_options(Settings(), MethodOptions(amendments="off"), "bm25").amendments == "off"
    with pytest.raises(ConfigError):
        resolved_options(Settings(amendments="sideways"), MethodOptions(), "bm25")
