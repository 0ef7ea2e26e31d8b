"""An Act of Legislative Content quoted whole inside the article that ratifies it (issue 49): its own instructions
are read as that article's (nomos/ingest/ratified.py). ν. 4824/2021 art. 2 ratifies the act of 13.8.2021, whose
art. 21 replaces paragraph 1 of ν. 4797/2021 art. 14 and adds a paragraph 8 to its art. 24: both missing in engine
v4. Read from the stand-in in ../shared (skipped without it), with a hand-made near miss."""

from __future__ import annotations

import pytest

from nomos.ingest.graph import CorpusReading
from nomos.ingest.in_force import corpus_in_force
from nomos.ingest.ratified import quoted_act, ratification, ratified_acts
from nomos.ingest.records import Article


def test_the_acts_own_instructions_reach_the_articles_it_amends(shared_data) -> None:
    from nomos.ingest.beir import load_beir

    articles = [a for a in load_beir(shared_data).articles if a.source in ("N_4797_2021", "N_4824_2021")]
    if not {"N_4824_2021::2", "N_4797_2021::14", "N_4797_2021::24"} <= {a.id for a in articles}:
        pytest.skip("the stand-in lacks one of the articles")
    results = corpus_in_force(articles, CorpusReading.of(articles))
    art14 = results["N_4797_2021::14"].in_force
    assert art14.status == "full" and [(a.source, a.action, a.paragraph) for a in art14.applied] == [
        ("N_4824_2021::2", "replace-paragraph", "1")]
    assert "καθώς και αποκαταστάσεων μετά από θεομηνίες" in art14.passages[0].text
    art24 = results["N_4797_2021::24"].in_force
    assert ("N_4824_2021::2", "insert-paragraph", "8") in [(a.source, a.action, a.paragraph) for a in art24.applied]
    assert any(p.text.startswith("8. Μέχρι την έκδοση του προεδρικού διατάγματος") for p in art24.passages)
    # the version the act made says when: the ratifying sentence (the act applied from its own publication)
    version = next(v for v in results["N_4797_2021::14"].versions if v.law == "N_4824_2021")
    assert version.effective.startswith("Κυρώνεται και έχει ισχύ νόμου από τη δημοσίευσή της")


RATIFYING = ("Κυρώνεται και έχει ισχύ νόμου από τη δημοσίευσή της, η από 1.2.2021 Πράξη Νομοθετικού Περιεχομένου, που "
             "δημοσιεύθηκε στο Φύλλο 10, και έχει ως εξής: «Άρθρο πρώτο\n1. Στο άρθρο 5 του ν. 4000/2012 η λέξη «τρία» "
             "αντικαθίσταται από τη λέξη «δύο».\n2. Το άρθρο 3 καταργείται.»")
TARGET = Article("N_4000_2012::5", "Προθεσμία", "1. Η προθεσμία είναι τρία έτη.", "N_4000_2012", "ν. 4000/2012")
OWN_3 = Article("N_4900_2021::3", "Άλλο", "1. Κείμενο.", "N_4900_2021", "ν. 4900/2021")


def test_a_ratified_acts_instruction_applies_and_its_bare_numbers_are_not_the_ratifying_laws() -> None:
    act = Article("N_4900_2021::1", "Κύρωση της από 1.2.2021 Πράξης Νομοθετικού Περιεχομένου «Μέτρα»", RATIFYING,
                  "N_4900_2021", "ν. 4900/2021")
    assert quoted_act(act) is not None and ratification(act).endswith("που δημοσιεύθηκε στο Φύλλο 10")
    articles = [act, TARGET, OWN_3]
    acts = ratified_acts(articles, CorpusReading.of(articles))
    assert set(acts) == {"N_4000_2012::5"}  # «Το άρθρο 3 καταργείται» is the act's own article 3, not ν. 4900's
    got = corpus_in_force(articles, CorpusReading.of(articles))["N_4000_2012::5"].in_force
    assert got.status == "full" and got.text == "1. Η προθεσμία είναι δύο έτη."


def test_near_miss_a_ratified_convention_is_no_act_of_legislative_content() -> None:
    convention = Article("N_4900_2021::2", "Κύρωση της Σύμβασης μεταξύ Ελλάδας και Κύπρου", RATIFYING,
                         "N_4900_2021", "ν. 4900/2021")
    assert quoted_act(convention) is None
    articles = [convention, TARGET]
    assert ratified_acts(articles, CorpusReading.of(articles)) == {}
