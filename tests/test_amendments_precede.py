"""The ``precede`` amendment mode (issue 49): an amending article whose text is mostly another corpus article's new
wording («Κλοπή - Τροποποίηση της παρ. 1 του άρθρου 372 ΠΚ … το άρθρο 372 διαμορφώνεται ως εξής: «…»») has that
article put right before it; the amending article stays right after. On hand-made lists (the ``restates`` field
as ingest writes it) and on the stand-in's own ν. 4855/2021 art. 86 through ingest's reading."""

from __future__ import annotations

import pytest

from nomos.retrieval.amendments import AmendmentConfig, apply, parse_amendments
from nomos.retrieval.base import Hit

# «κλοπή ρολογιού» as BM25 ranked it: the amending article first, the article it restates fourth
HITS = [Hit("N_4855_2021::86", 9.0), Hit("PK::374", 8.0), Hit("PK::375", 7.0), Hit("PK::372", 6.0),
        Hit("N_4855_2021::87", 5.0)]
RESTATES = {"N_4855_2021::86": ["PK::372"], "N_4855_2021::87": ["PK::373"]}


def ids(hits: list[Hit]) -> list[str]:
    return [h.doc_id for h in hits]


def test_the_restated_article_comes_right_before_its_amender() -> None:
    out, moves = apply(HITS, RESTATES, AmendmentConfig("precede"))
    assert ids(out) == ["PK::372", "N_4855_2021::86", "PK::374", "PK::375", "PK::373", "N_4855_2021::87"]
    assert out[0].details == {"first_score": 6.0, "amended_by": "N_4855_2021::86"}
    assert [h.score for h in out] == sorted((h.score for h in out), reverse=True) and len({h.score for h in out}) == 6
    assert moves == [{"id": "PK::372", "by": "N_4855_2021::86", "from": 4, "to": 1},
                     {"id": "PK::373", "by": "N_4855_2021::87", "from": None, "to": 5}]


def test_near_miss_an_article_already_above_its_amender_is_not_moved_down() -> None:
    hits = [Hit("PK::372", 9.0), Hit("X::1", 8.0), Hit("N_4855_2021::86", 7.0)]
    out, moves = apply(hits, RESTATES, AmendmentConfig("precede"))
    assert ids(out) == ids(hits) and moves == []
    # only amenders within the depth bring their article
    out, _ = apply(HITS, RESTATES, AmendmentConfig("precede", depth=1))
    assert ids(out)[:2] == ["PK::372", "N_4855_2021::86"] and "PK::373" not in ids(out)


@pytest.mark.parametrize(("text", "expected"), [("precede", AmendmentConfig("precede")),
                                                ("precede:20", AmendmentConfig("precede", depth=20))])
def test_parse_precede(text: str, expected: AmendmentConfig) -> None:
    assert parse_amendments(text) == expected and parse_amendments(expected.spec) == expected


def test_ingest_says_which_article_an_amending_article_restates(shared_data) -> None:
    from nomos.ingest.beir import load_beir
    from nomos.ingest.in_force import CorpusInForce

    ids_ = {"PK::372", "N_4855_2021::86", "PK::374", "N_4855_2021::87"}
    articles = [a for a in load_beir(shared_data).articles if a.id in ids_]
    if len(articles) != len(ids_):
        pytest.skip("the stand-in lacks one of the articles")
    corpus = CorpusInForce.of(articles)
    by_id = {a.id: a for a in articles}
    assert corpus.restates(by_id["N_4855_2021::86"]) == ["PK::372"]  # the whole new wording of art. 372
    assert corpus.restates(by_id["PK::372"]) == []
