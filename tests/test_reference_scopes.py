"""The legal graph's extractor (references_version 15, issue 36) on the structure of the law, with sentences as the
stand-in corpus writes them: the act an amending article names in its opening sentence, its title or the clause
that opens an item governs the bare articles below it; parts, chapters and sections between an article and its law;
tables of correspondence give no edges; the kind comes from the verb whose subject the reference is.

Each sentence is quoted from corpus.jsonl (the article it is from is named); the resolver holds the citing law's
own articles of the same numbers, so an edge read into the own law, the error these rules fix, would resolve and
fail the test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nomos.ingest.graph import CorpusReading
from nomos.ingest.records import Article
from nomos.legal.graph.references import extract_references
from nomos.legal.text.citations import find_citations
from nomos.legal.text.ids import IdResolver

OWN_ARTICLES = [f"{law}::{n}" for law in ("N_4772_2021", "N_4823_2021", "N_4782_2021", "N_4850_2021", "N_4765_2021",
                                          "N_4781_2021", "N_4811_2021", "N_4770_2021", "N_4070_2012", "N_4873_2021")
                for n in (1, 3, 6, 8, 9, 11, 12, 13, 14, 15, 16, 17, 19, 20, 21, 23, 43, 95, 96, 145, 150, 225)]
RESOLVER = IdResolver.from_ids([*OWN_ARTICLES, "N_4070_2012::95", "N_4442_2016::225", "N_4442_2016::109"])


def edges(article_id: str, text: str, title: str = "", own: str | None = None,
          resolver: IdResolver = RESOLVER) -> list[tuple[str, str, str]]:
    own = own or article_id.split("::")[0]
    return [(r.cited, r.target, r.kind) for r in extract_references(article_id, text, resolver, own, title)]


# N_4772_2021::31, the first example (the quoted new wording shortened)
DECREE = ("Το π.δ. 54/2018 (Α΄ 103) τροποποιείται ως εξής:\n"
          "1. Το άρθρο 13 αντικαθίσταται ως εξής: «Άρθρο 13 Εννοιολογικό πλαίσιο\n"
          "1. Το εννοιολογικό πλαίσιο του Λογιστικού Πλαισίου της Γενικής Κυβέρνησης …»\n"
          "2. α) Τα παραρτήματα 1 έως 5 αναριθμούνται σε Β.1 έως Β.5.\n"
          "β) Το παράρτημα 6 καταργείται.\n"
          "γ) Η φράση «Παράρτημα 2» της παρ. 2 του άρθρου 9 αντικαθίσταται από τη φράση «Παράρτημα Β.2».\n"
          "ε) Στην παρ. 1 του άρθρου 12, η φράση «παραρτήματος 4» αντικαθίσταται από τη φράση «παραρτήματος Β.4».\n"
          "ζ) Η παρ. 3 του άρθρου 9 καταργείται.\n"
          "3. Μετά το άρθρο 15 και πριν από το παράρτημα Β.1, όπως αναριθμήθηκε με την παρ. 2, τίθενται παραρτήματα Α.1 "
          "και Α.2, ως εξής: «ΠΑΡΑΡΤΗΜΑ Α.1 …»")
DECREE_TITLE = "Εννοιολογικό πλαίσιο του Λογιστικού Πλαισίου της Γενικής Κυβέρνησης - Τροποποίηση του π.δ. 54/2018"


def test_an_opening_sentence_names_the_law_of_the_items_below_it() -> None:
    got = edges("N_4772_2021::31", DECREE, DECREE_TITLE)
    assert got == [("PD_54_2018::13", "", "replaces"), ("PD_54_2018::9", "", "replaces"),
                   ("PD_54_2018::12", "", "replaces"), ("PD_54_2018::9", "", "repeals"),
                   ("PD_54_2018::15", "", "cites")]
    # the decree in the corpus: the edges land on its articles, never on the own law's
    with_decree = IdResolver.from_ids([*OWN_ARTICLES, "PD_54_2018::13", "PD_54_2018::9"])
    assert [t for _, t, _ in edges("N_4772_2021::31", DECREE, DECREE_TITLE, resolver=with_decree)][:2] == \
        ["PD_54_2018::13", "PD_54_2018::9"]


def test_an_opening_that_names_articles_of_a_law_governs_its_numbered_items() -> None:
    # N_4823_2021::177
    text = ("Τα άρθρα 14, 15, 16, 17, 19, 20 και 21 του ν. 4692/2020 (Α’\xa0111) τροποποιούνται ως εξής:\n"
            "1. Οι περ.\xa0δ’ και ε’ της παρ.\xa01 του άρθρου 14 αντικαθίστανται ως εξής: «δ) δύο (2) Συμβούλους …»\n"
            "2. Στην παρ. 1 του άρθρου 15 οι περ. γ) και δ) της παρ. 1 τροποποιούνται και προστίθεται περ. ε) ως εξής: "
            "«γ) τον Περιφερειακό Επόπτη …»\n"
            "7. Οι παρ.\xa01 έως 5 του άρθρου 20 αντικαθίστανται ως εξής: «1. Το εκπαιδευτικό προσωπικό …»")
    got = [(c, k) for c, _, k in edges("N_4823_2021::177", text)]
    assert ("N_4692_2020::14", "replaces") in got and ("N_4692_2020::20", "replaces") in got
    assert ("N_4692_2020::15", "amends") in got
    assert not [c for c, _ in got if c.startswith("N_4823_2021")]


def test_an_act_no_law_of_ours_names_its_items_for_no_edge() -> None:
    # N_4814_2021::1: an intergovernmental agreement's articles are not the ratifying law's
    text = ("Η συμφωνία για τη μεταφορά και την αμοιβαιοποίηση των εισφορών στο Ενιαίο Ταμείο Εξυγίανσης τροποποιείται "
            "ως εξής: 1) στο άρθρο 5, η παράγραφος 1 τροποποιείται ως εξής:\nα) τα στοιχεία δ) και ε) αντικαθίστανται "
            "από το ακόλουθο κείμενο: «δ) …»")
    assert edges("N_4814_2021::1", text) == []


def test_the_title_names_the_act_whose_article_the_text_amends() -> None:
    # N_4782_2021::38: the law only in the title
    title = ("Χρόνος και τρόπος υποβολής προσφορών ή αιτήσεων συμμετοχής - Τροποποίηση του τίτλου και των παρ. 1 και 2, "
             "κατάργηση των παρ. 3, 4, 5 και 6 του άρθρου 96 του ν. 4412/2016")
    text = ("Οι παρ. 1 και 2 τροποποιούνται, οι παρ. 3, 4, 5 και 6 καταργούνται και το άρθρο 96 διαμορφώνεται ως εξής: "
            "«Άρθρο 96 Χρόνος και τρόπος υποβολής προσφορών ή αιτήσεων συμμετοχής - Καταργούμενες διατάξεις\n1. …»")
    assert edges("N_4782_2021::38", text, title) == [("N_4412_2016::96", "", "amends")]
    # without its title the article is read as before (the own law's), which is what the title corrects
    assert edges("N_4782_2021::38", text) == [("N_4782_2021::96", "N_4782_2021::96", "amends")]


def test_a_title_split_into_the_text_still_names_the_act() -> None:
    # N_4796_2021::49: the corpus left «του ν. 4635/2019» at the head of the text
    title = ("Εγγραφή στο Γενικό Εμπορικό Μητρώο\xa0- Τροποποίηση της παρ.\xa01 του άρθρου 85 και των παρ.\xa02 και 4 του "
             "άρθρου 86")
    text = ("του ν. 4635/2019\n1. Η παρ.\xa01 του άρθρου 85 του ν. 4635/2019 (Α’ 167) τροποποιείται και διαμορφώνεται ως "
            "εξής: «1. …»\n3. Στο τέλος της παρ.\xa04 του άρθρου 86, περί των εξουσιοδοτικών διατάξεων για ρύθμιση θεμάτων "
            "που σχετίζονται με την υποχρέωση εγγραφής στο Γ.Ε.ΜΗ., προστίθεται τρίτο εδάφιο και η παρ.\xa04 "
            "διαμορφώνεται ως εξής: «4. …»")
    got = edges("N_4796_2021::49", text, title)
    assert [c for c, _, _ in got] == ["N_4635_2019::85", "N_4635_2019::86", "N_4635_2019::86"]
    assert [k for _, _, k in got][1:] == ["inserts", "amends"]


def test_the_title_governs_amendments_only() -> None:
    # N_4070_2012::121: «Τροποποιήσεις – Προσθήκες στο ν. 3920/2011»; a bare article merely cited is left as it was
    title = "Τροποποιήσεις – Προσθήκες στο ν. 3920/2011 (Α΄ 33)"
    text = ("1. Η δεύτερη πρόταση της περίπτωσης δ΄ της παραγράφου 1 του άρθρου 5 αντικαθίσταται ως εξής: «Ειδικά …».\n"
            "2. Για την εφαρμογή του άρθρου 3 λαμβάνεται υπόψη …")
    assert edges("N_4070_2012::121", text, title) == [("N_3920_2011::5", "", "replaces"),
                                                      ("N_4070_2012::3", "N_4070_2012::3", "cites")]


def test_the_clause_that_opens_an_item_names_the_law_of_its_lettered_items() -> None:
    # N_4850_2021::49
    text = ("οδήγησης Ε.Δ.Χ. αυτοκινήτου\xa0- Τροποποίηση του άρθρου 95 του ν. 4070/2012\n"
            "1. Στο άρθρο 95 του ν. 4070/2012 (Α’\xa082),\n"
            "α) η περ.\xa0α’ της παρ.\xa03 τροποποιείται ως προς το είδος του πιστοποιητικού ποινικού μητρώου, η "
            "περ.\xa0β’ της ίδιας παραγράφου τροποποιείται ως προς τις αναφερόμενες περιπτώσεις της παρ.\xa02,\n"
            "β) προστίθεται παρ.\xa06 και το άρθρο 95 διαμορφώνεται ως εξής: «Άρθρο 95 Ειδική άδεια οδήγησης Ε.Δ.Χ. "
            "αυτοκινήτου\n1. …»")
    got = edges("N_4850_2021::49", text, "Θέματα χορήγησης ή ανανέωσης ειδικής άδειας")
    assert got[-2:] == [("N_4070_2012::95", "N_4070_2012::95", "amends"),
                        ("N_4070_2012::95", "N_4070_2012::95", "amends")]
    assert not [c for c, _, _ in got if c.startswith("N_4850_2021")]
    # N_4873_2021::37: the code named in words, its law in parentheses
    text = ("διακρίβωση  τεκμηρίων - Τροποποίηση της παρ. 1 και προσθήκη παρ. 3 στο άρθρο 6 του Κώδικα Ελληνικής "
            "Ιθαγένειας (ν. 3284/2004) Στο άρθρο 6 του Κώδικα Ελληνικής Ιθαγένειας (ν. 3284/ 2004, Α΄ 217),\n"
            "α) προστίθεται περ. η΄ στην παρ. 1,\nβ) προστίθεται νέα παρ. 3 και το άρθρο 6 διαμορφώνεται ως εξής: "
            "«Άρθρο 6 Δικαιολογητικά πολιτογράφησης\n1. …»")
    got = edges("N_4873_2021::37", text, "Δικαιολογητικά πολιτογράφησης και")
    assert {c for c, _, _ in got} == {"N_3284_2004::6"} and got[-1][2] == "amends"


def test_a_comma_at_a_line_end_in_running_text_opens_no_list() -> None:
    # N_4577_2018::7: lettered duties, each ending in a comma, cite the own law
    text = ("γ) ως ενιαίο κέντρο επαφής υποβάλλει ετησίως στην ομάδα συνεργασίας συνοπτική έκθεση, καθώς και τα μέτρα "
            "που έχουν ληφθεί σύμφωνα με το άρθρο 9,\nδ) συνεργάζεται με την αρμόδια CSIRT της παραγράφου 1 του "
            "άρθρου 8, με σκοπό την αμοιβαία …")
    resolver = IdResolver.from_ids(["N_4577_2018::8", "N_4577_2018::9"])
    assert edges("N_4577_2018::7", text, resolver=resolver) == [("N_4577_2018::9", "N_4577_2018::9", "cites"),
                                                                 ("N_4577_2018::8", "N_4577_2018::8", "cites")]


@pytest.mark.parametrize(("article_id", "text", "want"), [
    # N_4765_2021::63: the parts of the own law
    ("N_4765_2021::63", "1. Τα άρθρα 8 έως και 43 των Μερών Β΄ και Γ΄ τίθενται σε ισχύ μετά την πάροδο τεσσάρων (4) "
     "μηνών από τη δημοσίευση του παρόντος στην Εφημερίδα της Κυβερνήσεως.",
     [(f"N_4765_2021::{n}", "cites") for n in range(8, 44)]),
    # N_4765_2021::58
    ("N_4765_2021::58", "γραπτοί διαγωνισμοί διενεργούνται με τις μεταβατικές διατάξεις του άρθρου 43 του Κεφαλαίου Δ΄ "
     "του Μέρους Γ΄.", [("N_4765_2021::43", "cites")]),
    # N_4798_2021::46: an ordinal before the part's noun
    ("N_4798_2021::46", "1. Τα άρθρα 90 και 93 του Κεφαλαίου Β’ του τέταρτου Μέρους δεν εφαρμόζονται στους υπαλλήλους "
     "του κλάδου.", [("N_4798_2021::90", "cites"), ("N_4798_2021::93", "cites")]),
    # N_4070_2012::113: a chapter with its name in parentheses, then the decree
    ("N_4070_2012::113", "4. Τα άρθρα 14, 15, 16, 17 και 18 του Κεφαλαίου Δ΄ (Κυρώσεις) του π.δ. 208/2002 (Α΄ 194) "
     "όπως έχει τροποποιηθεί και ισχύει, αντικαθίστανται ως εξής: «Άρθρο 14 …»",
     [(f"PD_208_2002::{n}", "replaces") for n in range(14, 19)]),
    # N_4821_2021::64 (in the new wording it quotes): each article with its chapter, then the decree of both
    ("N_4821_2021::64", "στην κατηγορία «Ε’ - Υγεία και Κοινωνική Πρόνοια» του άρθρου 4 του Κεφαλαίου Α’ και του "
     "άρθρου 5 του Κεφαλαίου Β’ του π.δ. 41/2018 (Α’ 80) ή και προσθήκη δόμησης",
     [("PD_41_2018::4", "cites"), ("PD_41_2018::5", "cites")]),
    # N_4842_2021::120
    ("N_4842_2021::120", "Η ισχύς του Μέρους Α’ και των άρθρων 116 και 119 του Μέρους Δ’ αρχίζει την 1η.1.2022.",
     [("N_4842_2021::116", "cites"), ("N_4842_2021::119", "cites")]),
    # N_4819_2021::52, N_4821_2021::70: the parts of acts of no law of ours give no edge
    ("N_4819_2021::52", "σύμφωνα με το άρθρο 4 του Κεφαλαίου Ι του Κανονισμού (ΕΚ) 1013/2006 στη Διεύθυνση", []),
    ("N_4821_2021::70", "σύμφωνα με την περ. β’ του άρθρου 9 του Μέρους Πρώτου της Συμφωνίας για την αποχώρηση", []),
    # N_4808_2021::120: a subchapter's number is no article
    ("N_4808_2021::120", "σύμφωνα με το υποκεφάλαιο 3 του κεφαλαίου Β’ του μέρους Δ’ του ν. 4270/2014 (Α’ 143).", []),
])
def test_parts_chapters_and_sections_between_an_article_and_its_law(article_id, text, want) -> None:
    assert [(c, k) for c, _, k in edges(article_id, text)] == want


def test_the_query_side_reads_parts_before_the_law_too() -> None:
    found = find_citations("Τα άρθρα 14 και 18 του Κεφαλαίου Δ΄ (Κυρώσεις) του π.δ. 208/2002")
    assert [c.id for c in found] == ["PD_208_2002::14", "PD_208_2002::18"]


def test_a_table_of_correspondence_gives_no_edges() -> None:
    # N_4765_2021::63's annex: rows «Άρθρο 3, άρθρο 44», «Άρθρα 31-35 …» are no references
    text = ("2. Οι λοιπές διατάξεις του παρόντος νόμου τίθενται σε ισχύ από τη δημοσίευσή του στην Εφημερίδα της "
            "Κυβερνήσεως. Παράρτημα Ι Πίνακας αντιστοιχίας διατάξεων του νόμου «Εκσυγχρονισμός του συστήματος "
            "προσλήψεων …» με (καταργούμενες) διατάξεις του ν. 2190/1994 N. 2190/1994\tΕκσυγχρονισμός … Άρθρο 3 Άρθρο 3 "
            "Αρμοδιότητες\tΆρθρο 4 Άρθρο 4 Συγκρότηση\tΆρθρο 3, άρθρο 44 Άρθρο 5 Αρμοδιότητες Προέδρου - Αναπλήρωση\t"
            "Άρθρο 19 Πλήρωση θέσεων ειδικού επιστημονικού προσωπικού\tΆρθρα 31-35 για υπαλλήλους επί θητεία, άρθρα 31-35 "
            "για επιστημονικό προσωπικό στην μεταβατική περίοδο, άρθρα 8-27 για επιστημονικό προσωπικό παγίως "
            "Παραγγέλλομε τη δημοσίευση του παρόντος στην Εφημερίδα της Κυβερνήσεως και την εκτέλεσή του ως νόμου του "
            "Κράτους. Σύμφωνα με το άρθρο 15 …")
    # before the table and after the closing formula the text is read as always
    assert edges("N_4765_2021::63", text) == [("N_4765_2021::15", "N_4765_2021::15", "cites")]
    # «διαβάζονται σύμφωνα με τον πίνακα αντιστοιχίας» in running text is no table (N_4783_2021::11)
    text = ("Οι παραπομπές στην καταργούμενη απόφαση διαβάζονται σύμφωνα με τον πίνακα αντιστοιχίας στο παράρτημα. "
            "Κατά το άρθρο 13 …")
    assert edges("N_4783_2021::11", text, resolver=IdResolver.from_ids(["N_4783_2021::13"])) == \
        [("N_4783_2021::13", "N_4783_2021::13", "cites")]


@pytest.mark.parametrize(("article_id", "text", "cited"), [
    # N_4781_2021::478, the example: the service is repealed, not the articles
    ("N_4781_2021::478", "6. Από την έναρξη ισχύος των άρθρων 145 έως και 150 η Μεταφραστική Υπηρεσία του Υπουργείου "
     "Εξωτερικών καταργείται.", "N_4781_2021::145"),
    # N_4811_2021::226 (in a chapter inserted into ν. 4442/2016): the approval is amended, not article 225
    ("N_4811_2021::226", "7. Σε περίπτωση επικείμενης μεταβολής στοιχείων της δραστηριότητας, ο φορέας της "
     "δραστηριότητας ενημερώνει την αδειοδοτούσα αρχή του άρθρου 225 και σε περίπτωση ουσιωδών μεταβολών η έγκριση "
     "τροποποιείται αναλόγως.", "N_4442_2016::225"),
    # N_4765_2021::24: the tables are adjusted, not article 13
    ("N_4765_2021::24", "3. Στην περίπτωση που ο\xa0αριθμός των υποψηφίων ειδικών κατηγοριών υπολείπεται των "
     "οριζομένων στο άρθρο 13 ποσοστών ανά ειδική κατηγορία, οι πίνακες διοριστέων/προσληπτέων διαμορφώνονται, ώστε "
     "να καλυφθούν τα ποσοστά.", "N_4765_2021::13"),
    # N_4727_2020::158: the decision provided for in article 163 is amended
    ("N_4727_2020::158", "5. Στο πλαίσιο της εφαρμογής των παρ. 3 και 4, τροποποιείται η προβλεπόμενη στην παρ. 3 του "
     "άρθρου 163 απόφαση του Υπουργού Ψηφιακής Διακυβέρνησης.", "N_4727_2020::163"),
    # N_4819_2021::53: the amounts are amended by the decision of article 72
    ("N_4819_2021::53", "Τα ανωτέρω ποσά τροποποιούνται με την απόφαση της παρ. 20 του άρθρου 72 και καταβάλλονται "
     "στον ειδικό κωδικό.", "N_4819_2021::72"),
])
def test_the_verb_types_only_its_own_subject(article_id, text, cited) -> None:
    own = "N_4442_2016" if article_id == "N_4811_2021::226" else None
    got = edges(article_id, text, own=own)
    assert got and got[0][0] == cited and {k for _, _, k in got} == {"cites"}


def test_a_clause_that_opens_in_the_provision_is_still_its_amendment() -> None:
    # N_4829_2021::28: the subject is a word in the provision
    text = ("Τροποποίηση της περ.\xa0δ’ της παρ.\xa01 του άρθρου 86 του ν.\xa03528/2007 (Α’\xa026) Στην περ.\xa0δ’ της "
            "παρ.\xa01 του άρθρου 86 του ν.\xa03528/2007 (Α’\xa026), ο Υπηρεσιακός Γραμματέας του εποπτεύοντος Υπουργείου "
            "αντικαθίσταται από τον Εκτελεστικό Γραμματέα της οικείας Περιφέρειας.")
    assert [k for _, _, k in edges("N_4829_2021::28", text)] == ["amends", "replaces"]


@pytest.mark.parametrize(("article_id", "text", "want"), [
    # N_4770_2021::48: two bare articles, the law named after the second
    ("N_4770_2021::48", "Το άρθρο 112 και το άρθρο 113 του ν. 4389/2016 (Α΄\xa094) συγχωνεύονται και το άρθρο 112 "
     "διαμορφώνεται ως εξής: «Άρθρο 112 …»",
     [("N_4389_2016::112", "amends"), ("N_4389_2016::113", "amends"), ("N_4389_2016::112", "amends")]),
    # N_4770_2021::17: a royal decree the resolver does not know; its article named again is no own-law edge
    ("N_4770_2021::17", "3. Στο τέλος της παρ. 2 του άρθρου 3 του β.δ. 631/1972 (Α΄ 180) προστίθεται εδάφιο και το "
     "άρθρο 3 διαμορφώνεται ως εξής: «Άρθρο 3 Ειδικά προσόντα προσωπικού\n1. …»", []),
    # N_4850_2021::40: «αυτής» is the decision's
    ("N_4850_2021::40", "Η υπ’ αρ. 82350/3809/2019 κοινή απόφαση των Υπουργών Οικονομικών και Υποδομών και Μεταφορών "
     "(Β’ 4948) σχετικά με τα οχήματα ιστορικού ενδιαφέροντος καταργείται, εκτός του άρθρου 1 αυτής περί ειδικών "
     "αυτοκινήτων.", []),
    # N_4850_2021::32: an article described, then the decision it belongs to
    ("N_4850_2021::32", "1. Από την έναρξη ισχύος του παρόντος καταργούνται:\nγ) το άρθρο 18 περί γενικών ρυθμίσεων "
     "εκπαίδευσης της υπό στοιχεία Α3/οικ./50984/7947/22.11.2013 απόφασης του Υφυπουργού Υποδομών, Μεταφορών και "
     "Δικτύων (Β’ 3056).", []),
    # N_4070_2012::184: a regulation's number after its name
    ("N_4070_2012::184", "1. Στο τέλος της παραγράφου 1 του άρθρου 15 του Γενικού Κανονισμού Λιμένα αρ. 23, (Β΄ "
     "231/1.3.2000) προστίθεται εδάφιο ως ακολούθως: «Επαγγελματικά …»", []),
    # N_4871_2021::55: what a relative clause refers to is cited, in a list of repeals
    ("N_4871_2021::55", "Από την έναρξη ισχύος του παρόντος καταργούνται:\nα) Ο ν. 3689/2008 (Α’ 164), με την "
     "επιφύλαξη της εξαίρεσης που προβλέπεται στην παρ. 6 του άρθρου 54 του παρόντος,",
     [("N_4871_2021::54", "cites")]),
])
def test_amendment_edges_into_the_own_law_the_v14_corpus_had(article_id, text, want) -> None:
    assert [(c, k) for c, _, k in edges(article_id, text)] == want


def test_a_repeal_of_an_article_as_it_was_does_not_land_on_its_new_text() -> None:
    # N_4796_2021::17: the corpus holds the new article 109 (a chapter inserted into ν. 4442/2016)
    text = "2. Το άρθρο 109 του ν. 4442/2016, όπως ισχύει προ της δημοσίευσης του παρόντος, καταργείται."
    assert edges("N_4796_2021::17", text) == [("N_4442_2016::109", "", "repeals")]
    assert edges("N_4796_2021::17", "Το άρθρο 109 του ν. 4442/2016, όπως ισχύει, καταργείται.") == \
        [("N_4442_2016::109", "N_4442_2016::109", "repeals")]


def test_ingest_reads_the_title_and_the_warning_picture_counts_it(tmp_path: Path) -> None:
    """The corpus reading passes each article's title to the extractor, and bench/amendment_warnings.py (run as a
    program, as people run it) counts the edges that land on a corpus article: none into the amending article's own
    law but one repeal a law makes of its own article."""
    title = "Τροποποίηση του άρθρου 96 του ν. 4412/2016"
    text = "Οι παρ. 1 και 2 τροποποιούνται και το άρθρο 96 διαμορφώνεται ως εξής: «Άρθρο 96 …»"
    articles = [Article("N_4782_2021::38", title, text, "N_4782_2021"),
                Article("N_4782_2021::96", "Άλλο", "κείμενο", "N_4782_2021"),
                Article("N_4412_2016::96", "Χρόνος", "κείμενο", "N_4412_2016"),
                Article("N_4412_2016::97", "Χρόνος", "Το άρθρο 96 καταργείται.", "N_4412_2016")]
    reading = CorpusReading.of(articles)
    assert [(r.target, r.kind) for r in reading.references(articles[0])] == [("N_4412_2016::96", "amends")]
    rows = [{"_id": a.id, "title": a.title, "text": a.text, "source": a.source} for a in articles]
    (tmp_path / "corpus.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                           encoding="utf-8")
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, str(root / "bench" / "amendment_warnings.py"), "--dataset", str(tmp_path),
                           "--json"], cwd=root, capture_output=True, text=True, timeout=300, check=True,
                          env={**os.environ, "PYTHONPATH": str(root)})  # this tree's nomos, as its usage line says
    figures = json.loads(done.stdout)
    assert (figures["landing"], figures["landing_own"], figures["warned"], figures["warned_by_own_only"]) == (2, 1, 1, 0)
    assert figures["own_sources"] == [["N_4412_2016::97", 1]]  # a law that repeals its own article: counted, to read


@pytest.mark.parametrize(("article_id", "text", "want"), [
    # N_5026_2023::45 (corpus-large): a power to amend later is no amendment
    ("N_5026_2023::45", "2. Με κοινή απόφαση των Υπουργών Οικονομικών και Δικαιοσύνης δύναται να τροποποιείται το ποσό "
     "των παραβόλων του άρθρου 22.", [("N_5026_2023::22", "cites")]),
    # N_4916_2022::86: the entry into force of an article is named; a decision is repealed
    ("N_4916_2022::86", "Από την έναρξη ισχύος του άρθρου 74 καταργείται η υπό στοιχεία 2/31233/Α0024/2001 κοινή απόφαση "
     "των Υπουργών.", [("N_4916_2022::74", "cites")]),
    # N_5056_2023::52: «κατάργηση» in running text names an act, not a title's repeal
    ("N_5056_2023::52", "Με απόφαση του Υπουργού, έπειτα από αιτιολόγηση, δύναται να εξαιρεθούν από την κατάργηση των "
     "άρθρων 27 και 29 νομικά πρόσωπα.", [("N_5056_2023::27", "cites"), ("N_5056_2023::29", "cites")]),
    # N_5038_2023::54: the articles of a directive a heading names, with no «της»
    ("N_5038_2023::54", "(άρθρα 5, 6, 7, 8, 11, 12, 13, 14 και 15 Οδηγίας 2014/66) 1. Με την επιφύλαξη της παρ. 6, ο "
     "πολίτης τρίτης χώρας …", []),
    # N_4914_2022::67: an item of a list of repeals with a verb of its own
    ("N_4914_2022::67", "Από την έναρξη ισχύος του παρόντος καταργούνται:\n1. Το άρθρο 9 του ν. 4314/2014. Όπου στην "
     "κείμενη νομοθεσία γίνεται παραπομπή ή αναφορά στο άρθρο 9 του ν. 4314/2014 νοείται εφεξής το άρθρο 34 του "
     "παρόντος.",
     [("N_4314_2014::9", "repeals"), ("N_4314_2014::9", "cites"), ("N_4914_2022::34", "cites")]),
    # N_4765_2021::61: a relative clause in an item does not make it a clause of its own; the law the opening names
    # as a yardstick is not the items' law, and a bare article in a list of repeals is not the own law's for a
    # relative clause's verb
    ("N_4765_2021::61", "2. Από την ημερομηνία έκδοσης της Πράξης Υπουργικού Συμβουλίου περί έγκρισης του ετήσιου "
     "προγραμματισμού έτους 2022 του άρθρου 51 του ν. 4622/2019 (Α΄ 133) και σε κάθε περίπτωση από 1ης.1.2022 "
     "καταργούνται:\nα. οι παρ. 6, 7 και 8 του άρθρου 14 του ν. 2190/1994,\nβ. τα άρθρα 1, 2 και 4 κατά το μέρος που "
     "αφορούν διορισμούς σε δημόσιες υπηρεσίες και Ν.Π.Ι.Δ. που προσλαμβάνουν προσωπικό μέσω Α.Σ.Ε.Π., καθώς και το "
     "άρθρο 3 του ν. 2643/1998 (Α΄ 220),\nγ. το άρθρο 62 του ν. 4590/2019 (Α΄ 17).",
     [("N_4622_2019::51", "cites"), ("N_2190_1994::14", "repeals"), ("N_2643_1998::3", "repeals"),
      ("N_4590_2019::62", "repeals")]),
])
def test_kinds_read_where_the_verb_is_not_this_clause_s(article_id, text, want) -> None:
    assert [(c, k) for c, _, k in edges(article_id, text)] == want


def test_a_paragraph_named_alone_belongs_to_the_article_last_amended_not_last_cited() -> None:
    # N_4954_2022::27 (corpus-large): v14 read «δ) η παρ. 8» as article 8's, the article the text only cites
    text = ("Στο άρθρο 21 του π.δ. 15/2022 (Α’ 39) επέρχονται οι εξής αλλαγές: α) στην παρ. 2 οι λέξεις «ίσο με το 5%» "
            "αντικαθίσταται από τις λέξεις «από 1% έως 5%», β) τα δύο πρώτα εδάφια της παρ. 4 τροποποιούνται ως προς το "
            "ύψος του προστίμου, γ) η παρ. 7 τροποποιείται ως προς το ύψος του επιβαλλόμενου προστίμου σε περίπτωση "
            "παράβασης της παρ. 1 του άρθρου 8, καθώς και ως προς την εφαρμογή της, δ) η παρ. 8 τροποποιείται ως προς "
            "το ύψος του επιβαλλόμενου προστίμου.")
    got = [(c, k, p) for c, k, p in ((r.cited, r.kind, r.paragraph) for r in extract_references(
        "N_4954_2022::27", text, RESOLVER, "N_4954_2022"))]
    assert ("PD_15_2022::8", "cites", "1") in got
    assert [x for x in got if x[2] in ("7", "8") and x[1] != "cites"] == [("PD_15_2022::21", "amends", "7"),
                                                                         ("PD_15_2022::21", "amends", "8")]
    # N_5079_2023::57: with no amended reference before, the one cited with the same paragraph
    text = ("2. Η προθεσμία ισχύος της παρ. 1 του άρθρου 54 του ν. 5045/2023 (Α’ 136), περί περιστολής φαινομένων "
            "αθέμιτης κερδοφορίας, παρατείνεται, και η παρ. 1 διαμορφώνεται ως εξής: «1. Από την έναρξη …»")
    assert edges("N_5079_2023::57", text) == [("N_5045_2023::54", "", "cites"), ("N_5045_2023::54", "", "amends")]
