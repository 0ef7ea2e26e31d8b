"""Engine v7 (issue 49): «μετά τη λέξη «βαθμών» διαγράφεται το κόμμα «,» και προστίθεται η λέξη «και»» (ν. 4825/2021
art. 66 par. 11 on N_4791_2021::9): the comma after the word named goes and the word added takes its place. The
blind readers of engine v6 judged it wrong at «βαθμών, βραβείων» (bench/data/in-force-judging/blind-v6-rejudge).
Near misses: a comma the article does not hold after the word, and another mark quoted, are not applied."""

from __future__ import annotations

from nomos.legal.inforce.engine import Amending, consolidate
from nomos.legal.inforce.reading import read_instructions

N_4791_9 = ("Παράβαση κανόνα αντιντόπινγκ σε ατομικά αθλήματα, στο πλαίσιο ελέγχου εντός αγώνα, οδηγεί αυτοδίκαια σε "
            "ακύρωση των αποτελεσμάτων που επιτεύχθηκαν στον συγκεκριμένο αγώνα και σε όλες τις παρεπόμενες συνέπειες, "
            "περιλαμβανομένης της αφαίρεσης μεταλλίων, βαθμών, βραβείων και προνομίων.")
ITEM_11 = ("11. Στο άρθρο 9 διαγράφονται οι λέξεις «και προνο\xadμίων» και μετά τη λέξη «βαθμών» διαγράφεται το κόμμα "
           "«,» και προστίθεται η λέξη «και».")


def _consolidate(article: str, amending: str) -> object:
    at = amending.index("άρθρο 9")
    edge = {"target": "N_4791_2021::9", "kind": "amends", "start": at, "end": at + 7}
    return consolidate("N_4791_2021::9", "Αυτοδίκαιη ακύρωση ατομικών αποτελεσμάτων", article,
                       [Amending("N_4825_2021::66", amending, [edge], "N_4825_2021")], "N_4791_2021")


def test_the_comma_after_the_word_goes_and_the_word_added_takes_its_place() -> None:
    assert [i.action for i in read_instructions(ITEM_11)] == ["delete-words", "replace-words", "insert-words"]
    got = _consolidate(N_4791_9, ITEM_11)
    assert got.in_force.status == "full", got.in_force.unapplied
    assert got.in_force.text.endswith("της αφαίρεσης μεταλλίων, βαθμών και βραβείων.")


def test_near_miss_no_comma_there_or_another_mark_quoted() -> None:
    no_comma = N_4791_9.replace("βαθμών, βραβείων", "βαθμών βραβείων")
    got = _consolidate(no_comma, ITEM_11)
    assert got.in_force.status == "partial"
    assert any("«βαθμών,» is not found" in u.reason for u in got.in_force.unapplied), got.in_force.unapplied
    # a semicolon quoted is not the comma: the deletion is not read as one
    other = ITEM_11.replace("το κόμμα «,»", "το σημείο «;»")
    assert "replace-words" not in [i.action for i in read_instructions(other)]
    assert "insert-words" not in [i.action for i in read_instructions(other) if not i.problem]
