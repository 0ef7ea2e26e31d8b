"""Engine v6 (issue 49): places named with dotted numbers in a code numbered by points («Στο τέλος της παρ. 22.7.2
του άρθρου 22 … προστίθεται τρίτο εδάφιο», «Τροποποιείται η παρ. 13.1. … και διαμορφώνεται ως εξής: «13.1. …»»,
«Διαγράφεται η παρ. 13.6.3») and words added «μεταξύ κομμάτων», each on the stand-in's own sentence (ν. 4831/2021
art. 153 and ν. 4825/2021 arts 62 and 66 on the anti-doping code, ν. 4791/2021) with a near miss that must not
change. Edges by hand, as the graph's extractor gives them (tests/test_consolidation_audit.py)."""

from __future__ import annotations

from nomos.legal.inforce.engine import Amending, consolidate
from nomos.legal.inforce.reading import read_instructions
from nomos.legal.inforce.result import InForce


def edges(text: str, cited: str, target: str) -> list[dict]:
    """An edge at every place ``cited`` is written (the extractor reads each citation)."""
    out, at = [], text.find(cited)
    while at >= 0:
        out.append({"source": "", "target": target, "cited": target, "kind": "amends", "paragraph": None, "start": at,
                    "end": at + len(cited)})
        at = text.find(cited, at + 1)
    return out


def run(target: str, text: str, amending_id: str, amending: str, cited: str) -> InForce:
    a = Amending(amending_id, amending, edges(amending, cited, target), amending_id.split("::")[0])
    return consolidate(target, "Τίτλος", text, [a], target.split("::")[0]).in_force


# -- «Στο τέλος της παρ. 22.7.2 του άρθρου 22 … προστίθεται τρίτο εδάφιο» (ν. 4831/2021 art. 153) -----------------

S1 = ("Διαδικασία διαχείρισης αποτελεσμάτων παράβασης κανόνα αντιντόπινγκ, που εκκρεμεί κατά την έναρξη ισχύος του "
      "παρόντος, διέπεται από τις διατάξεις ουσιαστικού δικαίου του χρόνου της παράβασης.")
S2 = "Ο χρόνος παραγραφής, που ορίζεται στο άρθρο 17, αποτελεί διαδικαστική ρύθμιση."
S3 = ("Το άρθρο 17 εφαρμόζεται σε εκκρεμείς διαδικασίες, εφόσον, κατά τον χρόνο δημοσίευσης του παρόντος, δεν έχει "
      "συμπληρωθεί ο χρόνος παραγραφής.")
N_4831_153 = ("Στο τέλος της παρ. 22.7.2 του άρθρου 22 του ν. 4791/ 2021 (Α’ 51), περί των μεταβατικών και τελικών "
              "διατάξεων, προστίθεται τρίτο εδάφιο, για την εφαρμογή του άρθρου 17, περί παραγραφής, και η παρ. 22.7.2 "
              f"του άρθρου 22 διαμορφώνεται ως εξής: «22.7.2. {S1} {S2} {S3}».")
# article 22 as ν. 4825/2021 art. 63 worded it (its points 22.7.1–22.7.3), and as the corpus files it (22.1–22.8)
ARTICLE_22 = (f"22.6. Οι παρόντες κανόνες τίθενται σε ισχύ από την 1η Ιανουαρίου 2021.\n22.7. Οι παρόντες κανόνες δεν "
              f"ισχύουν αναδρομικά. Ωστόσο:\n22.7.1. Για τις παραβάσεις που λαμβάνουν χώρα μετά την ημερομηνία ισχύος "
              f"ισχύουν οι παρόντες.\n22.7.2. {S1} {S2}\n22.7.3. Οποιαδήποτε αποτυχία εντοπισμού μεταφέρεται.")
ORIGINAL_22 = f"22.3. Για την επιβολή των κυρώσεων ισχύουν οι παρόντες.\n22.4. {S1} {S2}\n22.5. Οποιαδήποτε αποτυχία."


def test_a_dotted_paragraph_number_is_a_point_of_the_article() -> None:
    (ins,) = read_instructions(N_4831_153)
    assert (ins.action, ins.place.articles, ins.place.point) == ("replace-paragraph", ("22",), "22.7.2")
    got = run("N_4791_2021::22", ARTICLE_22, "N_4831_2021::153", N_4831_153, "άρθρου 22")
    assert got.status == "full" and [a.source for a in got.applied] == ["N_4831_2021::153"]
    assert f"\n22.7.2. {S1} {S2} {S3}\n22.7.3. Οποιαδήποτε αποτυχία εντοπισμού μεταφέρεται." in got.text
    assert got.text.startswith("22.6. Οι παρόντες κανόνες τίθενται σε ισχύ")


def test_near_miss_a_point_the_article_does_not_number_is_not_guessed() -> None:
    # the same words stand in 22.4 of the article as the corpus files it: no point 22.7.2, so nothing is applied
    got = run("N_4791_2021::22", ORIGINAL_22, "N_4831_2021::153", N_4831_153, "άρθρου 22")
    assert got.status == "none" and got.text == ORIGINAL_22
    assert got.unapplied[0].reason == "point 22.7.2 is not in the article (it numbers no point under 22.7)"
    # a sibling the article lacks is named with those it has
    other = run("N_4791_2021::22", ARTICLE_22, "N_4831_2021::153", N_4831_153.replace("22.7.2", "22.7.9"),
                "άρθρου 22")
    assert other.unapplied[0].reason == "point 22.7.9 is not in the article (it numbers 22.7.1–22.7.3 there, and " \
                                        "no point 22.7.9)"


# -- «Τροποποιείται η παρ. 13.1. … και διαμορφώνεται ως εξής: «13.1. …»» (ν. 4825/2021 art. 62) ----------------------

ARTICLE_13 = ("13.1. Αποφάσεις υποκείμενες σε έφεση. Οι αποφάσεις που λαμβάνονται βάσει του Κώδικα υπόκεινται σε έφεση.\n"
              "13.1.1. Το πεδίο της επανεξέτασης δεν περιορίζεται.\n13.1.2. Το CAS δεν εξετάζει τα ευρήματα.\n"
              "13.1.3. Μη εξάντληση των εσωτερικών ενδίκων μέσων.\n13.6.3. Εκτός των ανωτέρω, η προθεσμία είναι:\n"
              "α) είκοσι μία (21) ημέρες ή\nβ) είκοσι μία (21) ημέρες από την παραλαβή.")
N_4825_62 = ("Στο άρθρο 13 του ν. 4791/2021 (Α΄ 51) επέρχονται οι εξής τροποποιήσεις:\n1. Τροποποιείται η παρ. 13.1., "
             "ως προς τις αποφάσεις που υπόκεινται σε έφεση, και διαμορφώνεται ως εξής: «13.1. Αποφάσεις υποκείμενες "
             "σε έφεση. Οι αποφάσεις που λαμβάνονται βάσει του Κώδικα ή των παρόντων κανόνων υπόκεινται σε έφεση.»\n"
             "7. Διαγράφεται η παρ. 13.6.3, ως προς την προθεσμία άσκησης έφεσης από τον WADA.")


def _article_13(text: str) -> InForce:
    return run("N_4791_2021::13", ARTICLE_13, "N_4825_2021::62", text, "άρθρο 13 του ν. 4791/2021")


def test_a_points_new_wording_replaces_its_own_text_and_its_repeal_keeps_the_number() -> None:
    got = _article_13(N_4825_62)
    assert got.status == "full" and [a.action for a in got.applied] == ["replace-paragraph", "repeal-paragraph"]
    # the new wording holds no sub-point: 13.1.1–13.1.3 stay (the law replaces 13.1.3 apart)
    assert got.text == ("13.1. Αποφάσεις υποκείμενες σε έφεση. Οι αποφάσεις που λαμβάνονται βάσει του Κώδικα ή των "
                        "παρόντων κανόνων υπόκεινται σε έφεση.\n13.1.1. Το πεδίο της επανεξέτασης δεν περιορίζεται.\n"
                        "13.1.2. Το CAS δεν εξετάζει τα ευρήματα.\n13.1.3. Μη εξάντληση των εσωτερικών ενδίκων μέσων.\n"
                        "13.6.3. [Καταργείται]")


def test_near_miss_a_points_wording_with_sub_points_or_another_number() -> None:
    whole = N_4825_62.replace("υπόκεινται σε έφεση.»", "υπόκεινται σε έφεση.\n13.1.1. Νέο πεδίο.»")
    got = _article_13(whole.split("\n7.")[0])
    # its own sub-point lines: the new wording is the whole point, sub-points and all
    assert got.text.startswith("13.1. Αποφάσεις") and "\n13.1.1. Νέο πεδίο.\n13.6.3. Εκτός" in got.text
    assert "13.1.2." not in got.text
    wrong = _article_13(N_4825_62.replace("«13.1. Αποφάσεις", "«13.2. Αποφάσεις").split("\n7.")[0])
    assert wrong.status == "none" and wrong.unapplied[0].reason == "the new wording does not open with point 13.1's number"
    # a point with sub-points is not repealed (whether they go with it is not stated)
    subs = _article_13(N_4825_62.split("\n")[0] + "\n7. Διαγράφεται η παρ. 13.1, ως προς τις αποφάσεις.")
    assert subs.status == "none" and "has sub-points" in subs.unapplied[0].reason


# -- «προστίθενται, μεταξύ κομμάτων, οι λέξεις «…»» (ν. 4825/2021 art. 66 on art. 14) -----------------------------

ARTICLE_14 = ("14.6.2. Ο Εθνικός Οργανισμός Αντιντόπινγκ οφείλει: (α) να επεξεργάζεται μόνο προσωπικές πληροφορίες, (β) "
              "να γνωστοποιεί προς οποιονδήποτε συμμετέχοντα ή πρόσωπο που υπόκειται στους κανόνες αντιντόπινγκ του "
              "παρόντος ότι τα προσωπικά τους δεδομένα μπορεί να υποβληθούν σε επεξεργασία και (γ) να διασφαλίσει "
              "την εμπιστευτικότητα.")
N_4825_66 = ("29. Στην περ. (β) του άρθρου 14.6.2. μετά τις λέξεις «στους κανόνες αντιντόπινγκ του παρόντος» "
             "προστίθενται, μεταξύ κομμάτων, οι λέξεις «σύμφωνα με τους ισχύοντες νόμους και το Διεθνές Πρότυπο για την "
             "Προστασία της Ιδιωτικότητας και των Προσωπικών Δεδομένων».")


def test_words_added_between_commas() -> None:
    (ins,) = read_instructions(N_4825_66)
    assert (ins.action, ins.place.point, ins.place.cases, ins.commas) == ("insert-words", "14.6.2", ("β",), True)
    got = run("N_4791_2021::14", ARTICLE_14, "N_4825_2021::66", N_4825_66, "άρθρου 14.6.2.")
    assert got.status == "full"
    assert ("υπόκειται στους κανόνες αντιντόπινγκ του παρόντος, σύμφωνα με τους ισχύοντες νόμους και το Διεθνές "
            "Πρότυπο για την Προστασία της Ιδιωτικότητας και των Προσωπικών Δεδομένων, ότι τα προσωπικά") in got.text


def test_near_miss_words_quoted_with_their_commas_and_words_added_without() -> None:
    quoted = N_4825_66.replace("«σύμφωνα με τους ισχύοντες νόμους", "«, σύμφωνα με τους ισχύοντες νόμους") \
        .replace("Δεδομένων»", "Δεδομένων,»")
    got = run("N_4791_2021::14", ARTICLE_14, "N_4825_2021::66", quoted, "άρθρου 14.6.2.")
    assert "του παρόντος, σύμφωνα με τους ισχύοντες νόμους" in got.text and "Δεδομένων, ότι τα" in got.text
    assert ",," not in got.text and ", ," not in got.text
    plain = N_4825_66.replace("προστίθενται, μεταξύ κομμάτων, οι λέξεις", "προστίθενται οι λέξεις")
    (ins,) = read_instructions(plain)
    assert not ins.commas
    got = run("N_4791_2021::14", ARTICLE_14, "N_4825_2021::66", plain, "άρθρου 14.6.2.")
    assert "του παρόντος σύμφωνα με τους ισχύοντες νόμους" in got.text and "Δεδομένων ότι τα" in got.text


# -- «μετά τις λέξεις «Ο WADA» τίθεται κόμμα «,» και προστίθενται οι λέξεις «…»» (ν. 4825/2021 art. 66 item 7) -----

ARTICLE_6 = ("6.8. Ο WADA μπορεί να αποκτήσει την κατοχή δειγμάτων και δεδομένων.\n"
             "6.9. Τα δεδομένα των αθλητών μεταλλίων, βαθμών, βραβείων και προνομίων τηρούνται.")
N_4825_66_7 = ("7. Στο πρώτο εδάφιο του άρθρου 6.8. μετά τις λέξεις «Ο WADA» τίθεται κόμμα «,» και προστίθενται οι λέξεις "
               "«με αποκλειστική διακριτική ευχέρεια,».")


def test_a_comma_put_before_the_words_added() -> None:
    got = run("N_4791_2021::6", ARTICLE_6, "N_4825_2021::66", N_4825_66_7, "άρθρου 6.8.")
    assert got.status == "full"
    assert got.text.startswith("6.8. Ο WADA, με αποκλειστική διακριτική ευχέρεια, μπορεί να αποκτήσει")


def test_near_miss_no_comma_put_and_a_soft_hyphen_in_the_words_deleted() -> None:
    plain = N_4825_66_7.replace(" τίθεται κόμμα «,» και", "")
    got = run("N_4791_2021::6", ARTICLE_6, "N_4825_2021::66", plain, "άρθρου 6.8.")
    assert got.text.startswith("6.8. Ο WADA με αποκλειστική διακριτική ευχέρεια, μπορεί")
    # ν. 4825/2021 art. 66 item 11 writes «και προνο\xadμίων» (a soft hyphen where the gazette broke the line)
    soft = "11. Στο άρθρο 6.9. διαγράφονται οι λέξεις «και προνο\xadμίων»."
    got = run("N_4791_2021::6", ARTICLE_6, "N_4825_2021::66", soft, "άρθρο 6.9.")
    assert got.status == "full" and got.text.endswith("μεταλλίων, βαθμών, βραβείων τηρούνται.")
