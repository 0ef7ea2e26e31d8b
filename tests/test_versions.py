"""Every version of an amended article (issue 49): the original, then the article after each amending law in the
laws' order, each with the instructions that made it and, where the law says, when it takes effect; the word diff
between two versions; and finding a version by its law.

The amending articles' edges are written by hand (as in tests/test_consolidation.py); the last test reads the
stand-in corpus's own PK::372 and its amending law's commencement article through ingest's corpus-wide run."""

from __future__ import annotations

import pytest

from nomos.legal.inforce.diff import counts, marked, word_diff
from nomos.legal.inforce.engine import Amending, consolidate
from nomos.legal.inforce.versions import ORIGINAL, Version, effective_rule, find_version, is_commencement

PK_99 = "1. Πρώτη παράγραφος με ποινή έως τρία έτη.\n2. Δεύτερη παράγραφος.\n3. Τρίτη παράγραφος."


def _edge(text: str, cited: str, target: str) -> dict:
    at = text.index(cited)
    return {"target": target, "kind": "amends", "start": at, "end": at + len(cited)}


def _amending(article_id: str, text: str, cited: str) -> Amending:
    return Amending(article_id, text, [_edge(text, cited, "PK::99")], article_id.split("::")[0])


# given out of order: the engine puts them in the laws' order (2019 < 2021; 4855 before 4870; 86 before 87)
LATER = _amending("N_4870_2021::3", "Η παρ. 3 του άρθρου 99 ΠΚ καταργείται.", "άρθρου 99 ΠΚ")
FIRST = _amending("N_4855_2021::86", "Η παρ. 1 του άρθρου 99 ΠΚ αντικαθίσταται ως εξής: «1. Πρώτη παράγραφος με "
                                     "ποινή έως πέντε έτη.»", "άρθρου 99 ΠΚ")
SAME_LAW = _amending("N_4855_2021::87", "Στην παρ. 2 του άρθρου 99 ΠΚ η λέξη «Δεύτερη» αντικαθίσταται από τη λέξη "
                                        "«Άλλη».", "άρθρου 99 ΠΚ")
NOTHING = _amending("N_4860_2021::5", "Στην παρ. 2 του άρθρου 99 ΠΚ η λέξη «Τέταρτη» αντικαθίσταται από τη λέξη "
                                       "«Πέμπτη».", "άρθρου 99 ΠΚ")


def test_one_version_per_amending_law_in_the_laws_order_with_its_instructions() -> None:
    result = consolidate("PK::99", "Δοκιμή", PK_99, [LATER, NOTHING, SAME_LAW, FIRST], "PK")
    versions = result.versions
    assert [v.law for v in versions] == [ORIGINAL, "N_4855_2021", "N_4870_2021"]  # ν. 4860 changed nothing
    assert versions[0].text == PK_99 and versions[0].applied == () and versions[0].exact
    after_4855 = versions[1]
    assert after_4855.law_name == "ν. 4855/2021" and after_4855.amending == ("N_4855_2021::86", "N_4855_2021::87")
    assert after_4855.text == ("1. Πρώτη παράγραφος με ποινή έως πέντε έτη.\n2. Άλλη παράγραφος.\n"
                               "3. Τρίτη παράγραφος.")
    assert [a.action for a in after_4855.applied] == ["replace-paragraph", "replace-words"]
    assert after_4855.passages[0].source == "N_4855_2021::86" and after_4855.passages[0].changed
    assert versions[2].text.endswith("3. [Καταργείται]") and "πέντε" in versions[2].text
    # the last version is the text in force
    assert versions[-1].text == result.in_force.text
    # ν. 4860/2021's instruction was not applied: in the text in force's list, and in no version
    assert result.in_force.status == "partial" and all(v.law != "N_4860_2021" for v in versions)
    assert Version.from_doc(after_4855.to_doc()) == after_4855


def test_a_law_with_an_instruction_not_applied_makes_a_version_that_says_so() -> None:
    broken = _amending("N_4855_2021::88", "Στην παρ. 3 του άρθρου 99 ΠΚ η λέξη «Ένατη» διαγράφεται.", "άρθρου 99 ΠΚ")
    versions = consolidate("PK::99", "Δοκιμή", PK_99, [FIRST, broken], "PK").versions
    assert not versions[1].exact and versions[1].unapplied[0].source == "N_4855_2021::88"


def test_a_version_is_found_by_its_law_in_any_usual_form() -> None:
    versions = consolidate("PK::99", "Δοκιμή", PK_99, [FIRST, LATER], "PK").versions
    for name in ("N_4855_2021", "ν. 4855/2021", "4855/2021", "N_4855_2021::86", "Ν. 4855/2021"):
        found = find_version(versions, name)
        assert found is not None and found.law == "N_4855_2021", name
    assert find_version(versions, "original") is versions[0]
    assert find_version(versions, "ν. 4860/2021") is None


COMMENCEMENT = ("1. Η ισχύς του παρόντος αρχίζει από τη δημοσίευσή του στην Εφημερίδα της Κυβερνήσεως, εκτός αν "
                "ορίζεται διαφορετικά στις επιμέρους διατάξεις του.\n2. Η ισχύς των άρθρων 85 έως 87 και 119 αρχίζει "
                "την 1η.1.2022. Παραγγέλλομε τη δημοσίευση του παρόντος στην Εφημερίδα της Κυβερνήσεως και την "
                "εκτέλεσή του ως νόμου του Κράτους. Αθήνα, 12 Νοεμβρίου 2021 Η Πρόεδρος της Δημοκρατίας")


def test_when_the_change_takes_effect_is_the_laws_own_sentence() -> None:
    named = effective_rule("N_4855_2021::86", FIRST.text, COMMENCEMENT)
    assert named == "Η ισχύς των άρθρων 85 έως 87 και 119 αρχίζει την 1η.1.2022. (Αθήνα, 12 Νοεμβρίου 2021)"
    general = effective_rule("N_4855_2021::20", "Το άρθρο 106 ΠΚ αντικαθίσταται ως εξής: «…»", COMMENCEMENT)
    assert general.startswith("Η ισχύς του παρόντος αρχίζει από τη δημοσίευσή του") and "Νοεμβρίου 2021" in general
    own = effective_rule("N_4855_2021::20", "1. Το άρθρο 106 ΠΚ αντικαθίσταται ως εξής: «1. Η ισχύς του άρθρου "
                                             "αρχίζει.»\n2. Η ισχύς του παρόντος άρθρου αρχίζει από 1.3.2022.",
                         COMMENCEMENT)
    assert own == "Η ισχύς του παρόντος άρθρου αρχίζει από 1.3.2022."
    assert effective_rule("N_4855_2021::20", "Το άρθρο 106 ΠΚ καταργείται.", "") == ""


def test_only_the_laws_own_commencement_article_counts() -> None:
    assert is_commencement("Έναρξη ισχύος") and is_commencement("Έναρξη ισχύος του παρόντος")
    assert not is_commencement("Έναρξη ισχύος σύμβασης εκτέλεσης αστικών δρομολογίων")
    assert not is_commencement("Παράταση ισχύος ρυθμίσεων")


def test_the_word_diff_marks_insertions_and_deletions_without_colour() -> None:
    before = "1. Όποιος αφαιρεί ξένο πράγμα τιμωρείται με φυλάκιση έως τρία έτη.\n2. Η κλοπή διώκεται."
    after = "1. Όποιος αφαιρεί ξένο πράγμα τιμωρείται με φυλάκιση έως πέντε ετών.\n2. Η κλοπή διώκεται αυτεπαγγέλτως."
    runs = word_diff(before, after)
    assert marked(runs) == ("1. Όποιος αφαιρεί ξένο πράγμα τιμωρείται με φυλάκιση έως [-τρία έτη.-][+πέντε ετών.+]\n"
                            "2. Η κλοπή [-διώκεται.-][+διώκεται αυτεπαγγέλτως.+]")
    assert counts(runs) == (4, 3)
    # the two texts are given back by their runs
    assert "".join(r.text for r in runs if r.op != "insert") == before
    assert "".join(r.text for r in runs if r.op != "delete") == after
    assert word_diff(before, before) == [word_diff(before, before)[0]] and marked(word_diff(before, before)) == before


def test_the_stand_ins_pk_372_has_its_original_and_its_version_after_4855(shared_data) -> None:
    from nomos.ingest.beir import load_beir
    from nomos.ingest.graph import CorpusReading
    from nomos.ingest.in_force import corpus_in_force, in_force_fields

    ids = {"PK::372", "N_4855_2021::86", "N_4855_2021::203"}
    articles = [a for a in load_beir(shared_data).articles if a.id in ids]
    if len(articles) != len(ids):
        pytest.skip("the stand-in lacks one of the articles")
    result = corpus_in_force(articles, CorpusReading.of(articles))["PK::372"]
    assert [v.law for v in result.versions] == [ORIGINAL, "N_4855_2021"]
    original, after = result.versions
    assert "διάρρηξη" in original.text and "διάρρηξη" not in after.text
    assert after.applied[0].source == "N_4855_2021::86" and after.applied[0].action == "replace-article"
    assert after.effective.startswith("Η ισχύς του παρόντος νόμου αρχίζει από τη δημοσίευσή του")
    assert after.effective.endswith("(Αθήνα, 12 Νοεμβρίου 2021)")
    stored = in_force_fields(result)["in_force_versions"]
    assert [Version.from_doc(v) for v in stored] == list(result.versions)
