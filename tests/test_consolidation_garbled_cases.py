"""Engine v7 (issue 49): a repeal of many cases («οι περ. α΄ έως ιη΄, κα΄, κδ΄ και κζ΄ της παρ. 2 του άρθρου 4»,
ν. 4727/2020 art. 231 par. 1 case β on N_4070_2012::4) in a paragraph the corpus gives column-garbled (some marks
glued inside the words of others). The blind readers of engine v6 applied it (the article was «none»). Engine v7
repeals each case whose place is exact (the case after it in the text is the next letter, or it is the last) and
lists the others with the reason: «partial», never a silent none or full. Near misses: a clean paragraph is
repealed whole (full), and one where no named case's place is exact is refused (none, with the reason)."""

from __future__ import annotations

from nomos.legal.inforce.engine import Amending, consolidate
from nomos.legal.text.article_parts import CASE_LETTERS

AMENDING = ("1. Από την έναρξη ισχύος του παρόντος καταργούνται οι ακόλουθες διατάξεις του ν. 4070/2012:\n"
            "α) τα άρθρα 1 έως 3,\nβ) οι περ. α΄ έως ιη΄, κα΄, κδ΄ και κζ΄ της παρ. 2 του άρθρου 4,\n"
            "γ) οι περ. α΄ έως ιθ΄ του άρθρου 12,")
P1 = "1. Το Υπουργείο Υποδομών, Μεταφορών και Δικτύων αποτελεί την Αρχή Τηλεπικοινωνιών."
# α)'s line holds β)'s words glued in (the corpus's columns read across); γ) … ιζ) clean; ιη) lost; ιθ) stays
GARBLED = ("2. Ο Υπουργός Υποδομών, Μεταφορών και Δικτύων είναι αρμόδιος για:\n"
           "α) Τη χάραξη της πολιτικής του τομέα των ηλεκτρονιβ) επικοινωνιών. Τη λήψη των απαιτούμενων πρωτοβουλιών.\n"
           + "".join(f"{c}) Την αρμοδιότητα {c}.\n" for c in CASE_LETTERS[2:17]) + "ιθ) Την έρευνα και την καινοτομία.")


def _consolidate(par2: str, amending: str = AMENDING) -> object:
    at = amending.index("άρθρου 4")
    edge = {"target": "N_4070_2012::4", "kind": "amends", "start": at, "end": at + 8}
    return consolidate("N_4070_2012::4", "Αρμοδιότητες του Υπουργού", f"{P1}\n{par2}",
                       [Amending("N_4727_2020::231", amending, [edge], "N_4727_2020")], "N_4070_2012")


def test_the_cases_whose_place_is_exact_are_repealed_and_the_rest_listed() -> None:
    got = _consolidate(GARBLED)
    assert got.in_force.status == "partial"
    text = got.in_force.text
    assert "γ) [Καταργείται]" in text and "ιστ) [Καταργείται]" in text
    # α) holds β)'s words, ιζ) is followed by ιθ) (ιη) lost): neither end can be told, both stay, as does ιθ)
    assert "α) Τη χάραξη" in text and "ιζ) Την αρμοδιότητα ιζ." in text and "ιθ) Την έρευνα" in text
    [left] = got.in_force.unapplied
    assert left.reason == ("cases not in paragraph 2: β, ιη, κα, κδ, κζ; cases whose end cannot be told (a case "
                           f"missing after each): α, ιζ; only cases repealed: {', '.join(CASE_LETTERS[2:16])}"), left.reason
    assert [a.action for a in got.in_force.applied] == ["repeal-case"]


def test_near_miss_a_clean_paragraph_whole_or_nothing_exact() -> None:
    clean = "2. Ο Υπουργός είναι αρμόδιος για:\n" + "".join(f"{c}) Την αρμοδιότητα {c}.\n" for c in "αβγδ")
    got = _consolidate(clean.rstrip(), AMENDING.replace("α΄ έως ιη΄, κα΄, κδ΄ και κζ΄", "α΄ έως γ΄"))
    assert got.in_force.status == "full"
    assert got.in_force.text.endswith("α) [Καταργείται]\nβ) [Καταργείται]\nγ) [Καταργείται]\nδ) Την αρμοδιότητα δ.")
    only_alpha = "2. Ο Υπουργός είναι αρμόδιος για:\nα) Τη χάραξη ηλεκτρονιβ) επικοινωνιών.\nγ) Την αξιολόγηση."
    got = _consolidate(only_alpha, AMENDING.replace("α΄ έως ιη΄, κα΄, κδ΄ και κζ΄", "α΄ και β΄"))
    assert got.in_force.status == "none"
    assert got.in_force.unapplied[0].reason == ("cases not in paragraph 2: β; cases whose end cannot be "
                                                  "told (a case missing after each): α")
