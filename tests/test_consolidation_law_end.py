"""Engine v7 (issue 49): a law's annex, enactment formula and signatures, which the corpus glues to the law's last
article, are no part of its text in force or of any version (nomos/legal/inforce/law_end.py). The blind readers of
engine v6 judged N_4765_2021::63 wrong for keeping them after its paragraph 2
(bench/data/in-force-judging/blind-v6-rejudge). On the stand-in's own lines, with near misses."""

from __future__ import annotations

from nomos.legal.inforce.engine import Amending, consolidate, original_in_force
from nomos.legal.inforce.law_end import law_end

P1 = ("1. Τα άρθρα\xa08 έως\xa0και\xa043 των Μερών\xa0Β΄ και\xa0Γ΄ τίθενται σε ισχύ μετά την πάροδο τεσσάρων\xa0(4)\xa0μηνών "
      "από τη δημοσίευση του παρόντος στην Εφημερίδα της Κυβερνήσεως.")
P2 = "2. Οι\xa0λοιπές διατάξεις του παρόντος νόμου τίθενται σε ισχύ από τη δημοσίευσή του στην Εφημερίδα της Κυβερνήσεως."
CLOSING = (" Παράρτημα Ι Πίνακας αντιστοιχίας διατάξεων του νόμου «Εκσυγχρονισμός του συστήματος προσλήψεων στον δημόσιο "
           "τομέα» με (καταργούμενες) διατάξεις του ν. 2190/1994 Άρθρο 1 Πλήρωση θέσεων - αρμόδια όργανα\tΆρθρα 37-42 "
           "Παραγγέλλομε τη δημοσίευση του παρόντος στην Εφημερίδα της Κυβερνήσεως και την εκτέλεσή του ως νόμου του "
           "Κράτους. Αθήνα, 15 Ιανουαρίου 2021 Η Πρόεδρος της Δημοκρατίας ΚΑΤΕΡΙΝΑ ΣΑΚΕΛΛΑΡΟΠΟΥΛΟΥ Ο επί της "
           "Δικαιοσύνης Υπουργός ΚΩΝΣΤΑΝΤΙΝΟΣ ΤΣΙΑΡΑΣ")
N_4765_63 = f"{P1}\n{P2}{CLOSING}"
NEW_P1 = ("1. Τα άρθρα 8 έως και 35 και 37 έως και 43 των Μερών Β’ και Γ’ τίθενται σε ισχύ μετά την πάροδο τεσσάρων (4) "
          "μηνών από τη δημοσίευση του παρόντος στην Εφημερίδα της Κυβερνήσεως.")


def test_the_laws_annex_formula_and_signatures_are_left_out() -> None:
    assert N_4765_63[:law_end(N_4765_63)].rstrip() == f"{P1}\n{P2}"
    assert [p.text for p in original_in_force(N_4765_63)] == [P1, P2]
    amending = (f"7. Η παρ.\xa01 του άρθρου 63 του ν. 4765/2021 αντικαθίσταται, από τη δημοσίευση του ν. 4765/2021 στην "
                f"Εφημερίδα της Κυβερνήσεως, ως εξής: «{NEW_P1}».")
    at = amending.index("άρθρου 63")
    edge = {"target": "N_4765_2021::63", "kind": "amends", "start": at, "end": at + 9}
    got = consolidate("N_4765_2021::63", "Έναρξη ισχύος", N_4765_63,
                      [Amending("N_4795_2021::45", amending, [edge], "N_4795_2021")], "N_4765_2021")
    assert got.in_force.status == "full"
    assert got.in_force.text == f"{NEW_P1}\n{P2}"
    assert [v.text for v in got.versions] == [f"{P1}\n{P2}", f"{NEW_P1}\n{P2}"]


def test_near_miss_an_annex_named_in_a_sentence_or_a_quoted_formula_stays() -> None:
    # the formula alone (most laws' last article): cut there, the sentence before kept
    text = f"{P2} Παραγγέλλομε τη δημοσίευση του παρόντος στην Εφημερίδα της Κυβερνήσεως."
    assert text[:law_end(text)] == P2 + " "
    # an annex named inside a sentence is the article's own text; only the formula ends it
    text = "1. Ο κανονισμός δημοσιεύεται στο Παράρτημα του παρόντος. Παραγγέλλομε τη δημοσίευση του παρόντος."
    assert text[:law_end(text)] == "1. Ο κανονισμός δημοσιεύεται στο Παράρτημα του παρόντος. "
    # an annex heading with no formula after it, and a formula inside a quotation: nothing cut
    for kept in (f"{P2} Παράρτημα Ι Πίνακας αντιστοιχίας.",
                 "1. Στο τέλος του άρθρου προστίθεται: «Παραγγέλλομε τη δημοσίευση του παρόντος.»"):
        assert law_end(kept) == len(kept), kept
