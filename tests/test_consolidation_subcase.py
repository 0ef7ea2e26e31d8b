"""Engine v7 (issue 49): a subcase inserted after its case's last, its mark its case's letter and its own
(«μετά την υποπερ. στδ) προστίθεται υποπερ. στε)», ν. 4795/2021 art. 45 par. 2 on N_4765_2021::12, which the blind
readers of engine v6 applied without doubt: bench/data/in-force-judging/blind-v6-rejudge). Near misses: a subcase
that would leave a gap, or whose wording opens with another mark, is refused with its reason."""

from __future__ import annotations

from nomos.legal.inforce.engine import Amending, consolidate

N_4765_12 = ("1. Η βαθμολογία προσαυξάνεται ως εξής:\n"
             "α. Κατά πέντε (5) μονάδες για τους πολύτεκνους.\n"
             "β. Κατά τρεις (3) μονάδες για τους τρίτεκνους.\n"
             "γ. Κατά δύο (2) μονάδες για κάθε ανήλικο τέκνο.\n"
             "δ. Κατά μία (1) μονάδα για τον μεταπτυχιακό τίτλο.\n"
             "ε. Κατά μονάδες λόγω εμπειρίας:\n"
             "εα) Κατά μία (1) μονάδα λόγω εμπειρίας ενός (1) τουλάχιστον έτους.\n"
             "στ. Κατά είκοσι (20) μονάδες για τους μόνιμους κατοίκους των:\n"
             "στα) Μικρών νησιωτικών Δήμων.\n"
             "στβ) Μικρών ηπειρωτικών και μικρών ορεινών Δήμων.\n"
             "στγ) Μεγάλων και μεσαίων νησιωτικών Δήμων της Περιφέρειας Βορείου Αιγαίου.\n"
             "στδ) Μεσαίων ηπειρωτικών Δήμων.\n"
             "ζ. Κατά δέκα (10) μονάδες για τους μόνιμους κατοίκους των:\n"
             "ζα) Μεγάλων και μεσαίων νησιωτικών Δήμων.\n"
             "2. Η βαθμολογία των υποψηφίων Δ.Ε. προσαυξάνεται.")
NEW = ("στε) Ο.Τ.Α. που εντάσσονται σε σχέδιο αναπτυξιακής μετάβασης στη μεταλιγνιτική εποχή σύμφωνα με τις κείμενες "
       "διατάξεις.")


def _amend(after: str, new: str, wording: str) -> object:
    text = (f"2. Στην παρ. 1 του άρθρου 12 του ν. 4765/2021 μετά την υποπερ. {after}) προστίθεται υποπερ. {new}) ως "
            f"εξής: «{wording}»")
    at = text.index("άρθρου 12")
    edge = {"target": "N_4765_2021::12", "kind": "amends", "start": at, "end": at + 9}
    return consolidate("N_4765_2021::12", "Προσαυξήσεις βαθμολογίας", N_4765_12,
                       [Amending("N_4795_2021::45", text, [edge], "N_4795_2021")], "N_4765_2021")


def test_a_subcase_goes_after_its_cases_last() -> None:
    got = _amend("στδ", "στε", NEW)
    assert got.in_force.status == "full", got.in_force.unapplied
    assert "στδ) Μεσαίων ηπειρωτικών Δήμων.\n" + NEW + "\nζ. Κατά δέκα" in got.in_force.text
    assert [a.action for a in got.in_force.applied] == ["insert-subcase"]
    assert NEW in got.steps[0].after and NEW not in got.steps[0].before


def test_near_miss_a_gap_or_another_mark_is_refused() -> None:
    gap = _amend("στε", "στστ", "στστ) Ο.Τ.Α. νησιωτικών Δήμων.")
    assert gap.in_force.status == "none"
    assert "would not follow subcase στε" in gap.in_force.unapplied[0].reason
    other = _amend("στδ", "στε", "ζε) Ο.Τ.Α. νησιωτικών Δήμων.")
    assert other.in_force.status == "none"
    assert "does not open with subcase στε's mark" in other.in_force.unapplied[0].reason
    assert other.in_force.text == N_4765_12
