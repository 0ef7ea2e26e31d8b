"""Direct hits (nomos.pages.named): citations, typed ids and exact titles name their article, on a real node."""

from __future__ import annotations

import pytest

from nomos.ingest.beir import load_beir
from nomos.opensearch.transport import make_transport
from nomos.pages.named import find_direct, id_candidates
from nomos.retrieval.base import Hit
from nomos.retrieval.cited import DirectHit, pin
from nomos.stages.indexing import index_dataset
from tests.beir_files import ARTICLES, write_beir

pytestmark = pytest.mark.integration

EXTRA = [
    {"_id": "PK::374", "title": "Διακεκριμένη κλοπή", "text": "Η κλοπή τιμωρείται με κάθειρξη αν τελέστηκε κατ' "
     "επάγγελμα.", "source": "PK", "law": "Ποινικός Κώδικας"},
    {"_id": "PK::386Α", "title": "Απάτη με υπολογιστή", "text": "Όποιος με σκοπό να αποκομίσει παράνομο περιουσιακό "
     "όφελος βλάπτει ξένη περιουσία επηρεάζοντας τα στοιχεία υπολογιστή τιμωρείται.", "source": "PK",
     "law": "Ποινικός Κώδικας"},
    {"_id": "N_4624_2019::21", "title": "Δικαίωμα εναντίωσης", "text": "Το υποκείμενο των δεδομένων έχει δικαίωμα να "
     "αντιτάσσεται στην επεξεργασία.", "source": "N_4624_2019", "law": "ν. 4624/2019"},
    {"_id": "N_4624_2019::2", "title": "Κλοπή", "text": "Άρθρο με τίτλο ίδιο με άρθρο του Κώδικα, για τη σειρά.",
     "source": "N_4624_2019", "law": "ν. 4624/2019"},
]


@pytest.fixture
def transport(os_settings, tmp_path):
    index_dataset(os_settings, load_beir(write_beir(tmp_path / "mini", articles=[*ARTICLES, *EXTRA])))
    return make_transport(os_settings.cluster)


CASES = [
    ("άρθρο 372 ΠΚ", ["PK::372"]),
    ("ΠΚ 386Α", ["PK::386Α"]),
    ("386A ΠΚ", ["PK::386Α"]),  # Latin A
    ("άρθρα 372 και 374 ΠΚ", ["PK::372", "PK::374"]),
    ("άρθρο 21 ν. 4624/2019", ["N_4624_2019::21"]),
    ("Ν.4624/2019 αρ. 21", ["N_4624_2019::21"]),
    ("άρθρο 999 ΠΚ", []),  # not in the index
    ("PK::386A", ["PK::386Α"]),
    ("pk::372", ["PK::372"]),
    ("κλοπή", ["PK::372", "N_4624_2019::2"]),  # the code's article first; «Διακεκριμένη κλοπή» is not this title
    ("  ΑΠΑΤΗ. ", ["PK::386"]),
    ("Ο Νίκος έκανε κλοπή και απάτη", []),  # a case, not a name
]


def test_a_query_that_names_an_article_finds_it(transport, os_settings):
    got = {query: find_direct(transport, os_settings.index_alias, query) for query, _ in CASES}
    assert {q: [d.doc_id for d in found] for q, found in got.items()} == dict(CASES)
    assert all(d.title and d.source for found in got.values() for d in found)


def test_id_candidates_cover_case_and_lookalikes():
    assert id_candidates("kpold::338") == ["kpold::338", "KPOLD::338", "KPolD::338"]
    assert id_candidates("PK::386a") == ["PK::386Α", "PK::386A", "PK::386α"]
    assert id_candidates("άρθρο 5") == []


def test_pin_puts_direct_hits_first_and_keeps_the_rest_in_order():
    ranked = [Hit("A", 3.0), Hit("B", 2.0), Hit("C", 1.0)]
    out = pin(ranked, [DirectHit("C", "citation"), DirectHit("Z", "title", title="Τίτλος")], k=4)
    assert [h.doc_id for h in out] == ["C", "Z", "A", "B"]
    assert out[0].score > out[1].score > out[2].score
    assert out[0].details["direct"] == "citation" and out[1].title == "Τίτλος"
    assert pin(ranked, [], k=2) == ranked[:2]
