"""Engine v6 (issue 49): the end of an article's title that the corpus writes as its text's first line is no part
of the text in force or of any version (nomos/legal/inforce/title_tail.py). The blind readers of engine v5's sheets
judged nine versions wrong for it alone (bench/data/in-force-judging/blind-v5-seed4900, reader R3: N_4727_2020::26
«της Δημόσιας Διοίκησης», N_4777_2021::55 «Μέρους Β΄» …). Each on the stand-in's own lines, with near misses."""

from __future__ import annotations

from nomos.legal.inforce.engine import Amending, consolidate, original_in_force
from nomos.legal.inforce.title_tail import title_tail

N_4727_26 = ("της Δημόσιας Διοίκησης\n1. Στην Ενιαία Ψηφιακή Πύλη της Δημόσιας Διοίκησης (gov.gr-ΕΨΠ) τηρούνται θυρίδες.\n"
             "2. Οι θυρίδες είναι προσωπικές.")
N_4777_55 = "Μέρους Β΄\n1. Με απόφαση της συγκλήτου ορίζεται ο κανονισμός.\n2. Ο κανονισμός δημοσιεύεται."


def test_the_titles_tail_is_left_out_of_the_text_in_force_and_its_versions() -> None:
    assert N_4727_26[title_tail(N_4727_26):].startswith("1. Στην Ενιαία Ψηφιακή Πύλη")
    assert N_4777_55[title_tail(N_4777_55):].startswith("1. Με απόφαση")
    assert [p.text[:2] for p in original_in_force(N_4777_55)] == ["1.", "2."]
    amending = ("Στην παρ. 1 του άρθρου 55 του ν. 4777/2021 οι λέξεις «της συγκλήτου» αντικαθίστανται από τις λέξεις «του "
                "πρυτανικού συμβουλίου».")
    at = amending.index("άρθρου 55")
    edge = {"target": "N_4777_2021::55", "kind": "amends", "start": at, "end": at + 9}
    got = consolidate("N_4777_2021::55", "Μεταβατικές διατάξεις του", N_4777_55,
                      [Amending("N_4798_2021::240", amending, [edge], "N_4798_2021")], "N_4777_2021")
    assert got.in_force.status == "full"
    assert got.in_force.text == ("1. Με απόφαση του πρυτανικού συμβουλίου ορίζεται ο κανονισμός.\n"
                                 "2. Ο κανονισμός δημοσιεύεται.")
    assert [v.text.split("\n")[0][:2] for v in got.versions] == ["1.", "1."]


def test_near_miss_a_first_line_of_the_articles_own_stays() -> None:
    # an opening sentence or an introduction to a list ends with its mark; a numbered first line is a paragraph
    for text in ("Σκοπός του νόμου αυτού είναι:\n1. η αναγνώριση του δικαιώματος.",
                 "Οι διατάξεις εφαρμόζονται.\n1. Κείμενο.", "1. Πρώτη παράγραφος\n2. Δεύτερη.",
                 "α) πρώτη περίπτωση\n1. Κείμενο.",
                 # a text that opens with a small letter, but with a sentence mark or only names before a capital
                 "ο Υπουργός εκδίδει απόφαση. Η απόφαση δημοσιεύεται.", "της Δημόσιας Διοίκησης Οι θυρίδες τηρούνται.",
                 # corpus-large's N_5003_2022::136 and N_5092_2024::51: a name with a comma, a dash in the title
                 "ακινήτων Δημοσίου, Ο.Τ.Α. και Ν.Π.Δ.Δ. Η διάρκεια ισχύος παρατείνεται.",
                 "για εκτέλεση έργου με μέσα οδικής μεταφοράς - Τροποποίηση άρθρου 33 ν. 4647/2019 Στο άρθρο 33 …",
                 # a body with no numbered paragraphs: where the title ends cannot be told
                 "της Δημόσιας Διοίκησης\nΟι θυρίδες τηρούνται."):
        assert title_tail(text) == 0, text


def test_engine_v7_the_titles_end_on_the_texts_first_line() -> None:
    # N_4790_2021::96 «Υποβολή σε διαγνωστικό έλεγχο νόσησης» + «από τον κορωνοϊό COVID-19» on the text's line, and
    # N_4791_2021::9 «Αυτοδίκαιη ακύρωση» + «ατομικών αποτελεσμάτων» (blind readers of engine v5 and v6)
    n_4790_96 = ("από τον κορωνοϊό COVID-19 Εφόσον εξακολουθεί να υφίσταται κίνδυνος δημόσιας υγείας από τη διάδοση του "
                 "κορωνοϊού COVID-19 και σε κάθε περίπτωση έως την 31η.7.2021, δύναται να ορίζεται με κοινή απόφαση.")
    assert n_4790_96[title_tail(n_4790_96):].startswith("Εφόσον εξακολουθεί")
    n_4791_9 = "ατομικών αποτελεσμάτων Παράβαση κανόνα αντιντόπινγκ σε ατομικά αθλήματα οδηγεί σε ακύρωση."
    assert [p.text for p in original_in_force(n_4791_9)] == [n_4791_9[len("ατομικών αποτελεσμάτων "):]]
