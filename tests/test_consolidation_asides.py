"""Engine v6 (issue 49), two instructions the v5 blind check's readers applied and nomos did not (items 103 and
104, ν. 4795/2021 art. 45 on ν. 4765/2021): «αντικαθίσταται, από τη δημοσίευση του ν. 4765/2021 …, ως εξής: «1. …»»
(an aside of when between the verb and «ως εξής») and «τροποποιείται ως εξής: «: α) …»» (a colon left before the
case's mark). Each with a near miss; edges by hand (tests/test_consolidation_audit.py)."""

from __future__ import annotations

from nomos.legal.inforce.engine import Amending, consolidate
from nomos.legal.inforce.reading import read_instructions
from nomos.legal.inforce.result import InForce


def run(target: str, text: str, amending: str, cited: str) -> InForce:
    at = amending.index(cited)
    edge = {"target": target, "kind": "amends", "start": at, "end": at + len(cited)}
    return consolidate(target, "Τίτλος", text, [Amending("N_4795_2021::45", amending, [edge], "N_4795_2021")],
                       "N_4765_2021").in_force


ITEM_7 = ("7. Η παρ.\xa01 του άρθρου 63 του ν. 4765/2021 αντικαθίσταται, από τη δημοσίευση του ν. 4765/2021 στην "
          "Εφημερίδα της Κυβερνήσεως, ως εξής: «1. Τα άρθρα 8 έως και 35 και 37 έως και 43 των Μερών Β’ και Γ’ "
          "τίθενται σε ισχύ μετά την πάροδο τεσσάρων (4) μηνών.».")
ARTICLE_63 = "1. Τα άρθρα 8 έως και 43 τίθενται σε ισχύ μετά την πάροδο τεσσάρων (4) μηνών.\n2. Τα λοιπά ισχύουν."
ITEM_6 = ("6. Η περ.\xa0α’ της παρ.\xa01 του άρθρου 51 του ν. 4765/2021, ως προς τις αρμοδιότητες του Γραφείου "
          "Επιθεώρησης, τροποποιείται ως εξής: «: α) τον έλεγχο των διορισμών ή προσλήψεων του προσωπικού που "
          "υπάγονται στον παρόντα,».")
ARTICLE_51 = ("1. Στο Α.Σ.Ε.Π. λειτουργεί Γραφείο Επιθεώρησης, που είναι αρμόδιο για:\nα) τον έλεγχο, σύμφωνα με την "
              "παρ. 4, των διορισμών του προσωπικού,\nβ) τον έλεγχο της τήρησης των διατάξεων.")


def test_an_aside_of_when_before_as_follows() -> None:
    (ins,) = read_instructions(ITEM_7)
    assert (ins.action, ins.place.paragraphs, ins.problem) == ("replace-paragraph", ("1",), "")
    got = run("N_4765_2021::63", ARTICLE_63, ITEM_7, "άρθρου 63")
    assert got.status == "full" and got.text.startswith("1. Τα άρθρα 8 έως και 35 και 37 έως και 43 των Μερών")
    assert got.text.endswith("\n2. Τα λοιπά ισχύουν.")


def test_near_miss_an_aside_of_another_kind_is_not_skipped() -> None:
    text = ITEM_7.replace("από τη δημοσίευση του ν. 4765/2021 στην Εφημερίδα της Κυβερνήσεως",
                          "εφόσον δεν ορίζεται διαφορετικά")
    assert [i.action for i in read_instructions(text)] == ["describe"]


def test_a_colon_left_before_the_cases_mark() -> None:
    got = run("N_4765_2021::51", ARTICLE_51, ITEM_6, "άρθρου 51")
    assert got.status == "full"
    assert "\nα) τον έλεγχο των διορισμών ή προσλήψεων του προσωπικού που υπάγονται στον παρόντα,\nβ)" in got.text


def test_near_miss_a_wording_that_opens_with_another_mark() -> None:
    got = run("N_4765_2021::51", ARTICLE_51, ITEM_6.replace("«: α)", "«: β)"), "άρθρου 51")
    assert got.status == "none" and got.unapplied[0].reason == "the new wording does not open with case α's mark"


def test_a_line_that_opens_a_list_is_no_heading() -> None:
    # ν. 4818/2021 art. 64 on N_4809_2021::65 (the v5 blind check's item 38): v5 took the list's opening words into
    # the title
    from nomos.legal.text.article_parts import Heading, read_heading

    wording = ("Άρθρο 65 Καταργούμενες διατάξεις Με την έναρξη ισχύος του παρόντος καταργούνται:\n"
               "α) τα άρθρα 1 έως 24 του ν. 4603/2019 (Α΄ 48),\nβ) η παρ. 14 του άρθρου 69 του ν. 2725/1999.")
    got = read_heading(wording, "Καταργούμενες διατάξεις")
    assert isinstance(got, Heading) and got.title == "Καταργούμενες διατάξεις"
    assert wording[got.body_start:].startswith("Με την έναρξη ισχύος του παρόντος καταργούνται:\nα)")
    # near miss: a title line with no colon before a lettered line is the heading, whatever the current title
    plain = "Άρθρο 65 Καταργούμενες διατάξεις του νόμου\nα) τα άρθρα 1 έως 24 του ν. 4603/2019."
    got = read_heading(plain, "Άλλος τίτλος")
    assert isinstance(got, Heading) and got.title == "Καταργούμενες διατάξεις του νόμου"


def test_near_miss_a_colon_line_whose_rest_opens_no_sentence_stays_the_heading() -> None:
    # N_4957_2022::170 (corpus-large): the corpus title is cut («… μέλη»); what follows it is the title's end, not a
    # sentence: the whole line stays the heading, as in v5
    from nomos.legal.text.article_parts import Heading, read_heading

    wording = ("Άρθρο 170 Ομότιμοι Καθηγητές - Αφυπηρετήσαντα μέλη Διδακτικού Ερευνητικού Προσωπικού Οι Ομότιμοι "
               "Καθηγητές δύνανται:\nα) Να παρέχουν διδακτικό έργο.")
    got = read_heading(wording, "Ομότιμοι Καθηγητές - Αφυπηρετήσαντα μέλη")
    assert isinstance(got, Heading) and got.title.endswith("Οι Ομότιμοι Καθηγητές δύνανται:")


def test_a_whole_new_wording_read_against_the_title_with_its_cut_end() -> None:
    # the corpus cuts the title and writes its end as the text's first line (N_4919_2022::44, corpus-large): the new
    # wording's heading is read against the whole title, so its end is no part of the new text
    text = "και δημοσιεύονται για τα υποκαταστήματα\n1. Τα υποκαταστήματα καταχωρίζονται.\n2. Τα στοιχεία δημοσιεύονται."
    amending = ("Το άρθρο 44 του ν. 4919/2022 αντικαθίσταται ως εξής: «Άρθρο 44 Στοιχεία που καταχωρίζονται και "
                "δημοσιεύονται για τα υποκαταστήματα Για τα υποκαταστήματα καταχωρίζονται η επωνυμία και η έδρα.»")
    at = amending.index("άρθρο 44")
    edge = {"target": "N_4919_2022::44", "kind": "replaces", "start": at, "end": at + 8}
    got = consolidate("N_4919_2022::44", "Στοιχεία που καταχωρίζονται", text,
                      [Amending("N_5000_2023::1", amending, [edge], "N_5000_2023")], "N_4919_2022").in_force
    assert got.status == "full" and got.text == "Για τα υποκαταστήματα καταχωρίζονται η επωνυμία και η έδρα."
    assert got.title == "Στοιχεία που καταχωρίζονται και δημοσιεύονται για τα υποκαταστήματα"
