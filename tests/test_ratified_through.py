"""Laws that amend an Act of Legislative Content through its ratification (issue 49, engine v6): «Η παρ. 3 του
άρθρου δέκατου όγδοου της από 13.8.2021 Πράξης Νομοθετικού Περιεχομένου (Α΄ 143), η οποία κυρώθηκε με το άρθρο 2
του ν. 4824/2021 (Α΄ 156), αντικαθίσταται ως εξής: «3. …»» (ν. 4837/2021 art. 70) and «Το άρθρο εικοστό … αντικαθίσταται
ως εξής: «Άρθρο εικοστό …»» (ν. 4873/2021 art. 33). The act's articles are places inside the ratifying article's
text in force (nomos/legal/inforce/acts.py, found at ingest by nomos/ingest/in_force.through_ratifications), each
with a near miss; then the stand-in's own articles (skipped without ../shared)."""

from __future__ import annotations

import pytest

from nomos.ingest.in_force import through_ratifications
from nomos.ingest.records import Article
from nomos.legal.inforce.acts import act_articles, ordinal, read_through, through_ratification

WORDS = ["πρώτο", "δεύτερο", "τρίτο", "τέταρτο", "πέμπτο", "έκτο", "έβδομο", "όγδοο", "ένατο", "δέκατο", "ενδέκατο",
         "δωδέκατο", "δέκατο τρίτο", "δέκατο τέταρτο", "δέκατο πέμπτο", "δέκατο έκτο", "δέκατο έβδομο", "δέκατο όγδοο",
         "δέκατο ένατο", "εικοστό", "εικοστό πρώτο"]
ART_18 = ("Άρθρο δέκατο όγδοο Επιδότηση ανεργίας εργαζομένων σε επιχειρήσεις που καταστράφηκαν\n1. Κατ’ εξαίρεση, οι "
          "εργαζόμενοι δικαιούνται την ελάχιστη διάρκεια της τακτικής επιδότησης ανεργίας.\n2. Κατ’ εξαίρεση, οι "
          "δικαιούχοι τακτικής επιδότησης ανεργίας δικαιούνται την ελάχιστη διάρκεια.\n3. Οι ημέρες επιδότησης της "
          "ελάχιστης διάρκειας εξαιρούνται του περιορισμού της παρ. 8 του ιδίου άρθρου.")
ART_20 = ("Άρθρο εικοστό Δικαίωμα διορισμού στο Δημόσιο ή τον ευρύτερο δημόσιο τομέα Η παρ. 20 του άρθρου 14 του ν. "
          "2266/1994 (Α’ 218) εφαρμόζεται και επί προσώπων που υπέστησαν σοβαρά εγκαύματα.")


def _act() -> str:
    bodies = []
    for k, word in enumerate(WORDS, 1):
        if k == 18:
            bodies.append(ART_18)
        elif k == 20:
            bodies.append(ART_20)
        else:
            # «το άρθρο πρώτο» inside a sentence is a citation, no heading
            bodies.append(f"Άρθρο {word} Τίτλος {k} Κείμενο του άρθρου {k}, κατά το άρθρο πρώτο.")
    return " ".join(bodies)


RATIFYING = Article("N_4824_2021::2", "Κύρωση της από 13.8.2021 Πράξης Νομοθετικού Περιεχομένου",
                    "Κυρώνεται και έχει ισχύ νόμου η από 13.8.2021 Πράξη Νομοθετικού Περιεχομένου, που δημοσιεύθηκε "
                    f"στο Φύλλο 143, και έχει ως εξής: «ΠΡΑΞΗ ΝΟΜΟΘΕΤΙΚΟΥ ΠΕΡΙΕΧΟΜΕΝΟΥ {_act()}»", "N_4824_2021",
                    "ν. 4824/2021")
N_4837_70 = ("2. Η παρ. 3 του άρθρου δέκατου όγδοου της από 13.8.2021 Πράξης Νομοθετικού Περιεχομένου (Α΄ 143), η οποία "
             "κυρώθηκε με το άρθρο 2 του ν. 4824/2021 (Α΄ 156), αντικαθίσταται ως εξής: «3. Οι ημέρες επιδότησης της "
             "ελάχιστης διάρκειας της τακτικής επιδότησης ανεργίας για τους δικαιούχους των προηγούμενων παραγράφων "
             "εξαιρούνται του περιορισμού της παρ. 8 του άρθρου 6 του ν. 1545/1985 (Α΄ 91).»")
N_4873_33 = ("Το άρθρο εικοστό της από 13.8.2021 Πράξης Νομοθετικού Περιεχομένου (Α΄ 143), η οποία κυρώθηκε με το άρθρο 2 "
             "του ν. 4824/2021 (Α΄156), αντικαθίσταται ως εξής: «Άρθρο εικοστό Δικαίωμα διορισμού στον Δημόσιο ή τον "
             "ευρύτερο δημόσιο τομέα πληγέντων\n1. Η παρ. 20 του άρθρου 14 του ν. 2266/1994 (Α΄ 218) εφαρμόζεται "
             "αναλόγως και επί συζύγων.\n2. Το δικαίωμα διορισμού της παρ. 1 παρέχεται και σε πρόσωπα που υπέστησαν "
             "σοβαρά εγκαύματα.»")


def test_the_acts_ordinals_and_headings() -> None:
    assert [ordinal(w) for w in ("δέκατο όγδοο", "δέκατου όγδοου", "εικοστό", "εικοστό πρώτο", "ενδέκατου")] == \
        [18, 18, 20, 21, 11]
    assert ordinal("όγδοο δέκατο") is None
    arts = act_articles(RATIFYING.text)
    assert sorted(arts) == list(range(1, 22))
    a, b = arts[18]
    assert RATIFYING.text[a:b].strip() == ART_18


def test_a_paragraph_and_an_article_of_the_act_replaced_through_the_ratification() -> None:
    (p3,) = read_through(N_4837_70)
    assert (p3.ratifying, p3.article, p3.paragraph, p3.problem) == ("N_4824_2021::2", 18, "3", "")
    (whole,) = read_through(N_4873_33)
    assert (whole.article, whole.paragraph) == (20, "")
    got = through_ratification("N_4824_2021::2", RATIFYING.title, RATIFYING.text,
                               [("N_4837_2021::70", [p3]), ("N_4873_2021::33", [whole])])
    assert got is not None
    f = got.in_force
    assert f.status == "full" and [(a.source, a.action, a.paragraph) for a in f.applied] == [
        ("N_4837_2021::70", "replace-paragraph", "3"), ("N_4873_2021::33", "replace-act-article", "")]
    assert "\n3. Οι ημέρες επιδότησης της ελάχιστης διάρκειας της τακτικής επιδότησης ανεργίας για τους δικαιούχους " \
           "των προηγούμενων παραγράφων εξαιρούνται του περιορισμού της παρ. 8 του άρθρου 6 του ν. 1545/1985 (Α΄ 91). " \
           "Άρθρο δέκατο ένατο Τίτλος 19" in f.text
    assert "σοβαρά εγκαύματα. Άρθρο εικοστό πρώτο Τίτλος 21" in f.text and "τομέα πληγέντων\n1. Η παρ. 20" in f.text
    assert "εφαρμόζεται και επί προσώπων" not in f.text and f.text.count("Άρθρο εικοστό ") == 2
    # provenance: the line with the new paragraph 3 is ν. 4837/2021's after that law (today it also holds the act's
    # next articles, inline, and ν. 4873/2021's new article εικοστό: the last wording it holds); a version per law
    assert [v.law for v in got.versions] == ["original", "N_4837_2021", "N_4873_2021"]
    assert any(p.source == "N_4837_2021::70" and p.text.startswith("3. Οι ημέρες") for p in got.versions[1].passages)
    assert all(not p.changed for p in got.versions[0].passages)
    assert got.versions[1].text.count("Άρθρο εικοστό Δικαίωμα διορισμού στο Δημόσιο") == 1


def test_near_miss_what_the_act_does_not_hold_or_a_citation_is_not_applied() -> None:
    (p4,) = read_through(N_4837_70.replace("Η παρ. 3", "Η παρ. 4").replace("«3. Οι", "«4. Οι"))
    (wrong,) = read_through(N_4873_33.replace("«Άρθρο εικοστό", "«Άρθρο εικοστό δεύτερο"))
    (repeal,) = read_through(N_4873_33.split(" αντικαθίσταται")[0] + " καταργείται.")
    got = through_ratification("N_4824_2021::2", RATIFYING.title, RATIFYING.text,
                               [("N_4837_2021::70", [p4]), ("N_4873_2021::33", [wrong, repeal])])
    assert got is not None and got.in_force.status == "none" and got.in_force.text == RATIFYING.text
    assert [u.reason for u in got.in_force.unapplied] == [
        "paragraph 4 of the act's article 18 is not there",
        "the new wording does not open with the heading of the act's article 20",
        "an instruction given through the ratification other than a whole new wording of the act's article or "
        "paragraph is not read"]
    # a citation of the act's article (ν. 4871/2021 art. 81) is no instruction; another ratifying article is not this one
    assert read_through("η οποία δημιουργήθηκε δυνάμει του άρθρου ένατου της από 13.8.2021 Πράξης Νομοθετικού "
                        "Περιεχομένου (Α’ 143), η οποία κυρώθηκε με το άρθρο 2 του ν. 4824/2021 (Α’ 156), και η οποία "
                        "είναι προσβάσιμη") == []
    other = read_through(N_4837_70.replace("με το άρθρο 2 του", "με το άρθρο 3 του"))
    assert through_ratification("N_4824_2021::2", RATIFYING.title, RATIFYING.text, [("X::1", other)]) is None


def test_ingest_finds_them_by_their_words_and_only_after_the_ratification() -> None:
    later = Article("N_4837_2021::70", "Τροποποίηση", N_4837_70, "N_4837_2021", "ν. 4837/2021")
    earlier = Article("N_4800_2021::9", "Τροποποίηση", N_4837_70, "N_4800_2021", "ν. 4800/2021")
    arts = [RATIFYING, later, earlier]
    got = through_ratifications(arts, {a.id: a for a in arts})
    assert list(got) == ["N_4824_2021::2"] and got["N_4824_2021::2"].in_force.amendments == ("N_4837_2021::70",)


def test_the_stand_ins_ratification_through_its_later_laws(shared_data) -> None:
    from nomos.ingest.beir import load_beir

    ids = {"N_4824_2021::2", "N_4837_2021::70", "N_4873_2021::33"}
    articles = [a for a in load_beir(shared_data).articles if a.id in ids]
    if len(articles) != len(ids):
        pytest.skip("the stand-in lacks one of the articles")
    got = through_ratifications(articles, {a.id: a for a in articles})["N_4824_2021::2"].in_force
    assert got.status == "full" and [a.source for a in got.applied] == ["N_4837_2021::70", "N_4873_2021::33"]
    assert "για τους δικαιούχους των προηγούμενων παραγράφων εξαιρούνται" in got.text
    assert "Άρθρο εικοστό Δικαίωμα διορισμού στον Δημόσιο ή τον ευρύτερο δημόσιο τομέα\n1." in got.text
