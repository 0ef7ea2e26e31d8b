"""The consolidation engine (nomos/legal/inforce/engine.py and the readers under it) on sentences of the stand-in
corpus: whole-article and paragraph new wordings, insertions of paragraphs, sentences and cases, repeals (single and
listed), word replacements, deletions and insertions, and the instructions it must refuse rather than guess.

The amending articles' edges are written here by hand (the span of the citation that names the amended article and
the corpus id it resolves to), as the legal graph's extractor gives them: the engine reads which article an
instruction names through those spans, and these tests pin the engine, not the extractor."""

from __future__ import annotations

from nomos.legal.inforce.engine import Amending, consolidate, focus, order_key
from nomos.legal.inforce.reading import read_instructions
from nomos.legal.inforce.result import InForce
from nomos.legal.text.article_parts import cases, paragraphs, read_heading, sentences

PK_372 = ("1. Όποιος αφαιρεί ξένο (ολικά ή εν μέρει) κινητό πράγμα από την κατοχή άλλου με σκοπό να το ιδιοποιηθεί "
          "παράνομα, τιμωρείται με φυλάκιση έως τρία έτη ή χρηματική ποινή και αν το αντικείμενο της κλοπής είναι "
          "ιδιαίτερα μεγάλης αξίας ή η πράξη τελέστηκε με διάρρηξη, με φυλάκιση τουλάχιστον ενός έτους και χρηματική "
          "ποινή.\n2. Κινητό πράγμα θεωρείται κατά τον Κώδικα και η ηλεκτρική και κάθε άλλης μορφής ενέργεια.")
N_4855_86 = ("του άρθρου 372 ΠΚ Η παρ. 1 του άρθρου 372 ΠΚ τροποποιείται ως προς την ποινή και διαγράφεται η περίπτωση "
             "τέλεσης κλοπής με διάρρηξη και το άρθρο 372 διαμορφώνεται ως εξής: «Άρθρο 372 Κλοπή\n1. Όποιος αφαιρεί "
             "ξένο (ολικά ή εν μέρει) κινητό πράγμα από την κατοχή άλλου με σκοπό να το ιδιοποιηθεί παράνομα, "
             "τιμωρείται με φυλάκιση και αν το αντικείμενο της κλοπής είναι ιδιαίτερα μεγάλης αξίας, με φυλάκιση "
             "τουλάχιστον ενός (1) έτους και χρηματική ποινή.\n2. Κινητό πράγμα θεωρείται κατά τον Κώδικα και η "
             "ηλεκτρική και κάθε άλλης μορφής ενέργεια.».")


def edge(text: str, cited: str, target: str, kind: str = "amends", nth: int = 0) -> dict:
    """The graph's edge for the ``nth`` occurrence of ``cited`` in ``text`` (its span), resolved to ``target``."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(cited, at + 1)
    return {"source": "", "target": target, "cited": target, "kind": kind, "paragraph": None, "start": at,
            "end": at + len(cited)}


def amending(article_id: str, text: str, *edges: tuple[str, str] | tuple[str, str, int], law: str = "") -> Amending:
    refs = [edge(text, e[0], e[1], nth=e[2] if len(e) > 2 else 0) for e in edges]  # type: ignore[misc]
    return Amending(article_id, text, refs, article_id.split("::")[0], law)


def run(target: str, text: str, *amendments: Amending, title: str = "", law: str = "") -> InForce:
    return consolidate(target, title, text, list(amendments), target.split("::")[0], law).in_force


# -- whole article ---------------------------------------------------------------------------------------------


def test_pk_372_quoted_whole_by_4855_86() -> None:
    a = amending("N_4855_2021::86", N_4855_86, ("άρθρου 372 ΠΚ", "PK::372", 1), ("άρθρο 372", "PK::372"))
    got = run("PK::372", PK_372, a, title="Κλοπή", law="Ποινικός Κώδικας (ν. 4619/2019)")
    assert got.status == "full"
    assert [p.text[:2] for p in got.passages] == ["1.", "2."]
    assert "τιμωρείται με φυλάκιση και αν" in got.passages[0].text and "διάρρηξη" not in got.text
    assert (got.passages[0].source, got.passages[0].changed) == ("N_4855_2021::86", True)
    # paragraph 2 reads as before: its wording is the original's
    assert (got.passages[1].source, got.passages[1].changed) == ("", False)
    assert got.title == ""  # the heading's title is the article's own
    (applied,) = got.applied
    assert applied.action == "replace-article" and applied.instruction.startswith("Η παρ. 1 του άρθρου 372 ΠΚ")
    assert got.unapplied == ()
    assert InForce.from_doc(got.to_doc()) == got


def test_whole_article_of_another_number_is_refused() -> None:
    text = "Το άρθρο 96 του ν. 4798/2021 αντικαθίσταται ως εξής: «Άρθρο 97 Δικαίωμα άσκησης καθηκόντων\n1. Ο υπάλληλος.»"
    a = amending("N_4816_2021::19", text, ("άρθρο 96", "N_4798_2021::96"))
    got = run("N_4798_2021::96", "1. Ο δικαστικός υπάλληλος έχει δικαίωμα.", a, title="Δικαίωμα άσκησης καθηκόντων")
    assert got.status == "none"
    assert got.unapplied[0].reason == "the new wording is of article 97, not of article 96"
    assert got.passages[0].text == "1. Ο δικαστικός υπάλληλος έχει δικαίωμα."


def test_a_heading_run_into_the_text_ends_at_the_current_title() -> None:
    h = read_heading("Άρθρο 96 Δικαίωμα άσκησης καθηκόντων Ο δικαστικός υπάλληλος έχει δικαίωμα",
                     "Δικαίωμα άσκησης καθηκόντων")
    assert h is not None and not isinstance(h, str) and h.title == "Δικαίωμα άσκησης καθηκόντων"
    # a new title, and text whose first words did not change: the heading ends right before them
    h = read_heading("Άρθρο 109 Συνέπειες της μη ανάκλησης Αν από την απόλυση περάσει το χρονικό διάστημα",
                     "Συνέπειες της μη ανάκλησης ή άρσης", "Αν από την απόλυση περάσει ο χρόνος")
    assert not isinstance(h, str) and h is not None and h.title == "Συνέπειες της μη ανάκλησης"
    assert isinstance(read_heading("Άρθρο 119 Έναρξη της παραγραφής Η παραγραφή αρχίζει", "Άλλος τίτλος"), str)


# -- paragraphs ------------------------------------------------------------------------------------------------

N_4772_29 = ("παγίων δαπανών\n1. Σε επιχειρήσεις που επλήγησαν οικονομικά δύναται να χορηγείται ενίσχυση.\n"
             "2. Η ενίσχυση χορηγείται σύμφωνα με τα οριζόμενα στην υπό στοιχεία C(2020) 1863 Ανακοίνωση και ειδικότερα "
             "το τμήμα 3.12 αυτής.\n3. Με κοινή απόφαση των Υπουργών Οικονομικών καθορίζονται οι δικαιούχοι.")
N_4799_111 = ("Η παρ. 2 του άρθρου 29 του v. 4772/2021 (Α’ 17) αντικαθίσταται ως εξής: «2. Η ενίσχυση χορηγείται "
              "σύμφωνα με τα οριζόμενα στην υπό στοιχεία C (2020) 1863 της 19ης Μαρτίου 2020 Ανακοίνωση της Ευρωπαϊκής "
              "Επιτροπής «Προσωρινό πλαίσιο για τη λήψη μέτρων κρατικής ενίσχυσης», και κατόπιν έγκρισης του σχετικού "
              "καθεστώτος ενίσχυσης από την Ευρωπαϊκή Επιτροπή.»")


def test_paragraph_replaced_others_kept_title_tail_left_out() -> None:
    a = amending("N_4799_2021::111", N_4799_111, ("παρ. 2 του άρθρου 29 του v. 4772/2021", "N_4772_2021::29"))
    got = run("N_4772_2021::29", N_4772_29, a)
    assert got.status == "full"
    # engine v6: the title's tail the corpus writes as the first line is no passage (nomos/legal/inforce/title_tail.py)
    assert [p.changed for p in got.passages] == [False, True, False]  # 1, 2, 3
    assert got.passages[1].text.startswith("2. Η ενίσχυση χορηγείται σύμφωνα με τα οριζόμενα στην υπό στοιχεία C (2020)")
    assert got.passages[1].text.endswith("από την Ευρωπαϊκή Επιτροπή.")
    assert got.applied[0].action == "replace-paragraph" and got.applied[0].paragraph == "2"


def test_paragraph_not_in_the_article_is_listed() -> None:
    text = N_4799_111.replace("Η παρ. 2", "Η παρ. 5").replace("«2. Η", "«5. Η")
    a = amending("N_4799_2021::111", text, ("παρ. 5 του άρθρου 29 του v. 4772/2021", "N_4772_2021::29"))
    got = run("N_4772_2021::29", N_4772_29, a)
    assert got.status == "none" and got.unapplied[0].reason == "paragraph 5 is not in the article"


N_4842_113 = ("εκπαίδευση κατά το ακαδημαϊκό έτος 2022-2023 - Τροποποίηση του άρθρου 54 του ν. 4777/2021 Στο άρθρο 54 "
              "του ν. 4777/2021 (Α’ 25), περί των μεταβατικών διατάξεων του Μέρους Α’ του νόμου αυτού, για την εισαγωγή "
              "στην τριτοβάθμια εκπαίδευση, προστίθεται παρ. 7 ως εξής: «7. Ειδικά για την εισαγωγή στην τριτοβάθμια "
              "εκπαίδευση κατά το ακαδημαϊκό έτος 2022-2023, η προθεσμία της παρ. 7 του άρθρου 4Β του ν. 4186/2013 "
              "(Α’ 193) λήγει την 1η Νοεμβρίου 2021.».")
N_4777_54 = ("1. Για την εισαγωγή στην τριτοβάθμια εκπαίδευση υποβάλλεται μόνο το μηχανογραφικό δελτίο.\n"
             "2. Η διαδικασία υποβολής εκκινεί χωρίς να αναμένεται η έκδοση των αποτελεσμάτων.\n"
             "6. Κατά την πρώτη εφαρμογή του παρόντος οι αποφάσεις εκδίδονται έως τις 31 Μαρτίου 2021.")


def test_paragraph_inserted_after_the_last_one_numbered_below_it() -> None:
    a = amending("N_4842_2021::113", N_4842_113, ("άρθρου 54 του ν. 4777/2021", "N_4777_2021::54"),
                 ("άρθρο 54", "N_4777_2021::54"))
    got = run("N_4777_2021::54", N_4777_54, a)
    assert got.status == "full"
    assert [p.text[:2] for p in got.passages] == ["1.", "2.", "6.", "7."]
    assert got.passages[3].source == "N_4842_2021::113" and got.passages[3].changed
    assert got.applied[0].action == "insert-paragraph"
    # the title's tail before the instruction is not part of its words
    assert got.applied[0].instruction.startswith("Στο άρθρο 54 του ν. 4777/2021")
    # a paragraph 7 that is there already, with other words: not inserted twice
    twice = run("N_4777_2021::54", N_4777_54 + "\n7. Άλλο κείμενο.", a)
    assert twice.status == "none" and twice.unapplied[0].reason == "paragraph 7 already exists"


def test_several_paragraphs_one_quotation_each() -> None:
    text = ("1. Στο άρθρο 24 του ν. 4797/2021 (Α’ 66), τροποποιείται η παρ. 4 με την προσθήκη δευτέρου εδαφίου, "
            "προστίθεται παρ. 9 και οι παρ. 4 και 9 διαμορφώνονται ως εξής: «4. Μέχρι την έναρξη της παραγωγικής "
            "λειτουργίας η διαβίβαση γίνεται μέσω ηλεκτρονικής αλληλογραφίας. Σε έκτακτες περιπτώσεις χρησιμοποιείται "
            "η πλατφόρμα «arogi.gov.gr».». «9. Υλικές ζημιές σε κτιριακές εγκαταστάσεις δύναται να καλύπτονται.».")
    target = "1. Πρώτη.\n4. Μέχρι την έναρξη της παραγωγικής λειτουργίας η διαβίβαση γίνεται μέσω ηλεκτρονικής αλληλογραφίας.\n8. Όγδοη."
    got = run("N_4797_2021::24", target, amending("N_4871_2021::81", text, ("άρθρο 24 του ν. 4797/2021", "N_4797_2021::24")))
    assert got.status == "full"
    assert [p.text.split(".")[0] for p in got.passages] == ["1", "4", "8", "9"]
    assert got.passages[1].text.endswith("«arogi.gov.gr».") and got.passages[3].changed


# -- sentences and cases ---------------------------------------------------------------------------------------

N_4765_30_4 = ("4. Αν, κατόπιν του ελέγχου των δικαιολογητικών, ο αριθμός των υποψηφίων δεν επαρκεί, η ανωτέρω διαδικασία "
               "επαναλαμβάνεται και ο αριθμός των υποψηφίων, εντός της προθεσμίας της παρ. 3, προσδιορίζεται από το Α.Σ.Ε.Π.")


def test_sentence_added_at_the_end_of_its_paragraph() -> None:
    text = ("4. Στην παρ. 4 του άρθρου 30 του ν. 4765/2021 προστίθεται δεύτερο εδάφιο ως εξής: «Οι διαδικασίες πλήρωσης "
            "θέσεων διεξάγονται από τριμελή Κεντρική Επιτροπή.»")
    got = run("N_4765_2021::30", "3. Τρίτη.\n" + N_4765_30_4,
              amending("N_4795_2021::45", text, ("παρ. 4 του άρθρου 30 του ν. 4765/2021", "N_4765_2021::30")))
    assert got.status == "full" and got.applied[0].action == "insert-sentence"
    assert got.passages[1].text == N_4765_30_4 + " Οι διαδικασίες πλήρωσης θέσεων διεξάγονται από τριμελή Κεντρική Επιτροπή."


# N_4070_2012::138, item 1 (corpus-large): sentences added to paragraph 4 of an article of ν.δ. 3026/1954
N_4070_138_1 = ("1. Στην παρ. 4 του άρθρου 6 του ν.δ. 3026/1954 (Α΄ 235), όπως τροποποιήθηκε από το άρθρο 4 του ν. 723/ 1977 "
                "(Α΄ 300), προστίθενται εδάφια ως εξής: «Η άσκηση ασκούμενων δικηγόρων μπορεί επίσης να γίνει και στο "
                "Γραφείο Δικαστικού του Τεχνικού Επιμελητηρίου Ελλάδας. Ο αριθμός των ασκούμενων δεν δύναται να υπερβεί "
                "τους τέσσερις (4) και η τοποθέτησή τους ενεργείται με πράξη υπογραφόμενη από τον Πρόεδρο και το Νομικό "
                "Σύμβουλο του Τεχνικού Επιμελητηρίου Ελλάδας, ο οποίος χορηγεί και το πιστοποιητικό για την άσκησή τους».\n")
ND_3026_6 = ("1. Η άσκηση γίνεται παρά δικηγόρω.\n2. Η άσκηση διαρκεί δεκαοκτώ μήνες.\n"
             "3. Ο ασκούμενος εγγράφεται στο μητρώο ασκουμένων.")


def test_sentences_added_to_a_paragraph_the_article_lacks_are_listed_not_made_a_paragraph() -> None:
    # «Στην παρ. 4 … προστίθενται εδάφια ως εξής: «…»»: paragraph 4 is where the sentences go, not what is added;
    # engine v1 made the quotation a new paragraph «4.» and called the result full
    a = amending("N_4070_2012::138", N_4070_138_1, ("άρθρου 6 του ν.δ. 3026/1954", "ND_3026_1954::6"))
    got = run("ND_3026_1954::6", ND_3026_6, a)
    assert got.status == "none" and got.applied == ()
    assert [u.reason for u in got.unapplied] == ["paragraph 4 is not in the article"]
    assert got.text == ND_3026_6
    # where paragraph 4 is there, the sentences go at its end
    with_4 = ND_3026_6 + "\n4. Η άσκηση μπορεί να γίνει και σε νομικές υπηρεσίες."
    got = run("ND_3026_1954::6", with_4, a)
    assert got.status == "full" and got.applied[0].action == "insert-sentence" and got.applied[0].paragraph == "4"
    assert got.passages[3].text.startswith("4. Η άσκηση μπορεί να γίνει και σε νομικές υπηρεσίες. Η άσκηση ασκούμενων")
    assert got.passages[3].text.endswith("για την άσκησή τους") and len(got.passages) == 4


# N_4796_2021::77 (corpus-large): a sentence added and the paragraph given whole
N_4796_77 = ("του από 24.9/20.10.1958 β.δ. Στην παρ.\xa03 του άρθρου 82 του από 24.9/20.10.1958 β.δ. (Α’\xa0171), περί των "
             "απαλλαγών από δημοτικούς και κοινοτικούς φόρους, τέλη, δικαιώματα και εισφορές, προστίθεται εδάφιο και η "
             "παράγραφος διαμορφώνεται ως εξής: «3. Δεν επιβάλλονται ανταποδοτικά τέλη καθαριότητας από τους οργανισμούς "
             "τοπικής αυτοδιοίκησης σε φυσικά ή νομικά πρόσωπα. Δεν επιβάλλονται ανταποδοτικά τέλη καθαριότητας και τέλη "
             "φωτισμού στις ανώνυμες εταιρείες με την επωνυμία Οργανισμός Κεντρικών Αγορών και Αλιείας Α.Ε. και Κεντρική "
             "Αγορά Θεσσαλονίκης Α.Ε.»")


def test_a_paragraph_named_as_where_a_sentence_goes_is_not_created_by_its_new_wording() -> None:
    # the sentence's insertion is the new wording's description; it adds no paragraph 3 (engine v1 made one)
    a = amending("N_4796_2021::77", N_4796_77, ("άρθρου 82 του από 24.9/20.10.1958 β.δ.", "BD_1958_1958::82"))
    two = "1. Οι δήμοι επιβάλλουν τέλη.\n2. Απαλλάσσεται το Δημόσιο."
    got = run("BD_1958_1958::82", two, a)
    assert got.status == "none" and [u.reason for u in got.unapplied] == ["paragraph 3 is not in the article"]
    got = run("BD_1958_1958::82", two + "\n3. Δεν επιβάλλονται τέλη καθαριότητας σε φυσικά πρόσωπα.", a)
    assert got.status == "full" and got.applied[0].action == "replace-paragraph"
    assert got.passages[2].text.startswith("3. Δεν επιβάλλονται ανταποδοτικά") and len(got.passages) == 3


# N_5083_2024::43 (corpus-large) on paragraph 2 of N_4765_2021::16, its cases cut to the first and the last
N_5083_43 = ("Τροποποίηση παρ. 2 άρθρου\xa016 ν.\xa04765/2021 Στο τέλος της παρ. 2 του άρθρου\xa016 του ν.\xa04765/2021 (Α΄ 6), "
             "περί προκήρυξης πλήρωσης θέσεων, μετά την περ. \xa0ιθ΄, προστίθενται εδάφια ως εξής: «Με την προκήρυξη "
             "προβλέπεται ο μέγιστος αριθμός των προτιμήσεων που μπορούν να δηλώσουν οι υποψήφιοι. Ο αριθμός αυτός δεν "
             "μπορεί να είναι μικρότερος από πενήντα (50) ούτε μεγαλύτερος από εκατόν είκοσι (120) ανά κατηγορία "
             "εκπαίδευσης και κλάδο/ειδικότητα.»")
N_4765_16 = ("1. Η\xa0προκήρυξη πλήρωσης θέσεων με πανελλήνιο γραπτό διαγωνισμό γίνεται ανά φορέα.\n"
             "2. Η\xa0προκήρυξη περιλαμβάνει:\nα. τον τρόπο πλήρωσης των θέσεων,\nιθ. κάθε άλλο στοιχείο ή πληροφορία που "
             "διευκολύνει όσους επιθυμούν να συμμετάσχουν στη διαδικασία πλήρωσης των θέσεων που προκηρύσσονται.\n"
             "3. Η προκήρυξη δημοσιεύεται.")


def test_sentences_added_at_the_end_of_a_paragraph_that_is_there() -> None:
    # «Στο τέλος της παρ. 2 … προστίθενται εδάφια»: engine v1 read an insertion of paragraph 2 («already exists»)
    a = amending("N_5083_2024::43", N_5083_43, ("άρθρου\xa016 του ν.\xa04765/2021", "N_4765_2021::16"))
    got = run("N_4765_2021::16", N_4765_16, a)
    assert got.status == "full" and got.applied[0].action == "insert-sentence"
    assert got.passages[1].text.endswith("που προκηρύσσονται. Με την προκήρυξη προβλέπεται ο μέγιστος αριθμός των "
                                         "προτιμήσεων που μπορούν να δηλώσουν οι υποψήφιοι. Ο αριθμός αυτός δεν μπορεί "
                                         "να είναι μικρότερος από πενήντα (50) ούτε μεγαλύτερος από εκατόν είκοσι (120) "
                                         "ανά κατηγορία εκπαίδευσης και κλάδο/ειδικότητα.")
    assert [p.changed for p in got.passages] == [False, True, False]


def test_a_sentence_is_put_where_a_sentence_is_named_or_not_at_all() -> None:
    before = "Στην παρ. 4 του άρθρου 30 του ν. 4765/2021 πριν από το δεύτερο εδάφιο προστίθεται εδάφιο ως εξής: «Νέο εδάφιο.»"
    target = "3. Τρίτη.\n4. Πρώτο εδάφιο της τέταρτης. Δεύτερο εδάφιο της τέταρτης."
    got = run("N_4765_2021::30", target, amending("N_4795_2021::45", before, ("άρθρου 30 του ν. 4765/2021", "N_4765_2021::30")))
    assert got.status == "full" and got.passages[1].text == "4. Πρώτο εδάφιο της τέταρτης. Νέο εδάφιο. Δεύτερο εδάφιο της τέταρτης."
    # after words, a sentence has no exact place: listed, not put at the paragraph's end
    after_words = ("Στην παρ. 4 του άρθρου 30 του ν. 4765/2021, μετά τις λέξεις «της τέταρτης.» προστίθεται εδάφιο ως "
                   "εξής: «Νέο εδάφιο.»")
    got = run("N_4765_2021::30", target, amending("N_4795_2021::45", after_words,
                                                  ("άρθρου 30 του ν. 4765/2021", "N_4765_2021::30")))
    assert got.status == "none" and got.text == target
    assert got.unapplied[0].reason == "where the new sentence goes is not stated as a sentence of the unit"


def test_first_sentence_replaced_and_a_sentence_after_an_acronym_refused() -> None:
    target = ("4. Δεν υπέχουν την υποχρέωση όσοι έχουν νοσήσει και για διάστημα έξι (6) μηνών από τη νόσηση. Οι λόγοι "
              "υγείας του πρώτου εδαφίου εγκρίνονται από τριμελείς επιτροπές.")
    text = ("2. Το πρώτο εδάφιο της παρ. 4 του άρθρου 206 του ν. 4820/2021 (Α’ 130) τροποποιείται ως προς την ισχύ του "
            "πιστοποιητικού νόσησης και διαμορφώνεται ως εξής: «Δεν υπέχουν την υποχρέωση όσοι έχουν νοσήσει και για "
            "διάστημα ενενήντα (90) ημερών από τη νόσηση.»")
    a = amending("N_4872_2021::64", text, ("παρ. 4 του άρθρου 206 του ν. 4820/2021", "N_4820_2021::206"))
    got = run("N_4820_2021::206", target, a)
    assert got.status == "full" and got.applied[0].action == "replace-sentence"
    assert got.passages[0].text == ("4. Δεν υπέχουν την υποχρέωση όσοι έχουν νοσήσει και για διάστημα ενενήντα (90) "
                                    "ημερών από τη νόσηση. Οι λόγοι υγείας του πρώτου εδαφίου εγκρίνονται από "
                                    "τριμελείς επιτροπές.")
    # the second sentence of a paragraph whose first ends after «Α.Σ.Ε.Π.»: where it starts is not certain
    second = text.replace("Το πρώτο εδάφιο", "Το δεύτερο εδάφιο")
    got = run("N_4820_2021::206", N_4765_30_4.replace("4.", "4.", 1) + " Δεύτερο εδάφιο.",
              amending("N_4872_2021::64", second, ("παρ. 4 του άρθρου 206 του ν. 4820/2021", "N_4820_2021::206")))
    assert got.status == "none" and got.unapplied[0].reason.startswith("the unit's sentences cannot be told apart")


def test_sentences_and_cases_read_exactly() -> None:
    s = sentences("1. Πρώτο κατά την παρ. 2 του ν. 4624/2019. Δεύτερο εδάφιο. Τρίτο.", 3)
    assert len(s.spans) == 3 and s.all_certain()
    assert not sentences("Το ποσό ορίζει ο Ε.Ο.ΑΝ. Η απόφαση εκδίδεται.").all_certain()
    text = "2. Κάθε ΣΕΔ:\nα) διαθέτει κάλυψη,\nβ) προσφέρει συλλογή στην περ. α’,\nγ) διαθέτει μέσα,\nαα) όχι περίπτωση"
    assert [c.letter for c in cases(text, 3)] == ["α", "β", "γ"]
    inline = "1. Το δικαστήριο μπορεί αν: α) η βλάβη ήταν μικρή, β) ο υπαίτιος μετανόησε της περ. β) της παρ. 2, ή γ) άλλο."
    assert [c.letter for c in cases(inline, 3)] == ["α", "β", "γ"]


def test_case_replaced_and_case_inserted() -> None:
    target = ("4. Ο Ε.Ο.ΑΝ. έχει τις ακόλουθες αρμοδιότητες:\nα) Εισηγείται μέτρα πρόληψης.\nβ) Γνωμοδοτεί για κάθε θέμα.\n"
              "γ) Επιδοτεί Οργανισμούς Τοπικής Αυτοδιοίκησης για την εφαρμογή των δράσεων.")
    text = ("Στην παρ. 4 του άρθρου 95 του ν. 4819/2021 (Α΄ 129), τροποποιείται η περ. γ΄ με την προσθήκη στους αποδέκτες "
            "και η περ. γ΄ διαμορφώνεται ως ακολούθως: «γ) Επιδοτεί Οργανισμούς Τοπικής Αυτοδιοίκησης και εταιρείες "
            "για την εφαρμογή των δράσεων.»")
    got = run("N_4819_2021::95", target,
              amending("N_4843_2021::56", text, ("παρ. 4 του άρθρου 95 του ν. 4819/2021", "N_4819_2021::95")))
    assert got.status == "full" and got.applied[0].action == "replace-case"
    assert got.passages[0].text.endswith("β) Γνωμοδοτεί για κάθε θέμα.\nγ) Επιδοτεί Οργανισμούς Τοπικής Αυτοδιοίκησης "
                                         "και εταιρείες για την εφαρμογή των δράσεων.")
    add = ("Στο τέλος της παρ. 4 του άρθρου 95 του ν. 4819/2021 (Α΄ 129) προστίθεται περ. δ΄ ως εξής: «δ) Εκδίδει "
           "οδηγίες.»")
    got = run("N_4819_2021::95", target, amending("N_4843_2021::57", add, ("παρ. 4 του άρθρου 95 του ν. 4819/2021",
                                                                             "N_4819_2021::95")))
    assert got.status == "full" and got.applied[0].action == "insert-case"
    assert got.passages[0].text.endswith("των δράσεων.\nδ) Εκδίδει οδηγίες.")
    # a case that skips one is not placed
    gap = add.replace("περ. δ΄", "περ. ε΄").replace("«δ)", "«ε)")
    got = run("N_4819_2021::95", target, amending("N_4843_2021::57", gap, ("παρ. 4 του άρθρου 95 του ν. 4819/2021",
                                                                             "N_4819_2021::95")))
    assert got.status == "none" and got.unapplied[0].reason == "case ε would not follow case δ, the paragraph's last"


# -- repeals ---------------------------------------------------------------------------------------------------

N_4727_231 = ("1. Από την έναρξη ισχύος του παρόντος καταργούνται οι ακόλουθες διατάξεις του ν. 4070/2012:\n"
              "α) τα άρθρα 1 έως 3,\nβ) οι περ. α΄ έως γ΄ της παρ. 2 του άρθρου 4,\nγ) οι παρ. 1 έως 2 του άρθρου 40, και\n"
              "δ) τα άρθρα 76 έως 78.\n2. Κάθε άλλη γενική ή ειδική διάταξη που αντίκειται στις διατάξεις του παρόντος καταργείται.")


def test_repeals_listed_after_a_colon() -> None:
    a = amending("N_4727_2020::231", N_4727_231, ("άρθρα 1 έως 3", "N_4070_2012::2"), ("άρθρου 4", "N_4070_2012::4"),
                 ("άρθρου 40", "N_4070_2012::40"), law="ν. 4727/2020")
    whole = run("N_4070_2012::2", "1. Ο νόμος ρυθμίζει.\n2. Ορισμοί.", a)
    assert whole.status == "full" and [p.text for p in whole.passages] == ["[Καταργείται]"]
    assert whole.applied[0].action == "repeal" and whole.applied[0].instruction == "τα άρθρα 1 έως 3"
    pars = run("N_4070_2012::40", "1. Πρώτη.\n2. Δεύτερη.\n3. Τρίτη.", a)
    assert [p.text for p in pars.passages] == ["1. [Καταργείται]", "2. [Καταργείται]", "3. Τρίτη."]
    listed = run("N_4070_2012::4", "1. Αρχή.\n2. Ο Υπουργός:\nα) επικοινωνίες,\nβ) ταχυδρομεία,\nγ) ραδιοσυχνότητες,\n"
                 "δ) λοιπά.", a)
    assert listed.passages[1].text == ("2. Ο Υπουργός:\nα) [Καταργείται]\nβ) [Καταργείται]\nγ) [Καταργείται]\n"
                                       "δ) λοιπά.")


def test_a_sentence_repealed_is_removed() -> None:
    text = "Στο άρθρο 12 του ν. 4797/2021 (Α’ 66), το δεύτερο εδάφιο της παρ. 1 καταργείται."
    got = run("N_4797_2021::12", "1. Πρώτο εδάφιο της παρ. 1. Δεύτερο εδάφιο της παρ. 1. Τρίτο.\n2. Άλλη.",
              amending("N_4871_2021::76", text, ("άρθρο 12 του ν. 4797/2021", "N_4797_2021::12")))
    assert got.status == "full" and got.applied[0].action == "repeal-sentence"
    assert got.passages[0].text == "1. Πρώτο εδάφιο της παρ. 1. Τρίτο."


# -- words -----------------------------------------------------------------------------------------------------


def test_phrase_replaced_wherever_it_stands_in_the_places_listed() -> None:
    text = ("1. Στις παρ. 4 και 7 του άρθρου 12, στην παρ. 3 του άρθρου 17 και στην παρ. 1 του άρθρου 55 του ν. "
            "4777/2021 (Α’ 25), όπου αναφέρεται η φράση «με απόφαση της συγκλήτου», αντικαθίσταται από τη φράση «με "
            "απόφαση του πρυτανικού συμβουλίου».")
    a = amending("N_4798_2021::240", text, ("άρθρου 12", "N_4777_2021::12"), ("άρθρου 55", "N_4777_2021::55"))
    got = run("N_4777_2021::55", "1. Η δομή καθορίζεται με απόφαση της συγκλήτου του Α.Ε.Ι.\n2. Με απόφαση της "
              "συγκλήτου ορίζεται άλλο.", a)
    assert got.status == "full"
    assert got.passages[0].text == "1. Η δομή καθορίζεται με απόφαση του πρυτανικού συμβουλίου του Α.Ε.Ι."
    assert got.passages[1].text.startswith("2. Με απόφαση της συγκλήτου")  # paragraph 2 is not named
    twelve = run("N_4777_2021::12", "4. Με απόφαση της συγκλήτου κάθε Α.Ε.Ι. ορίζεται.\n5. Άλλη.\n7. Με απόφαση της "
                 "συγκλήτου, η οποία εκδίδεται.", a)
    # at a sentence's start the phrase is found with its capital, and the new words take it
    assert [p.text for p in twelve.passages] == ["4. Με απόφαση του πρυτανικού συμβουλίου κάθε Α.Ε.Ι. ορίζεται.",
                                                 "5. Άλλη.", "7. Με απόφαση του πρυτανικού συμβουλίου, η οποία εκδίδεται."]


PK_81_4 = ("4. Στην απόφαση καθορίζεται και η φυλάκιση ή η χρηματική ποινή που θα πρέπει να εκτίσει ο καταδικασθείς, αν "
           "δεν εκτελέσει με συνέπεια την κοινωφελή εργασία. Τέσσερεις ώρες κοινωφελούς εργασίας αντιστοιχούν προς μία "
           "ημέρα φυλάκισης ή μία ημερήσια μονάδα χρηματικής ποινής.")


def test_words_deleted_and_replaced_and_added_after_words() -> None:
    text = ("Στο άρθρο 81 ΠΚ: α) στην παρ. 4 απαλείφονται οι λέξεις «η φυλάκιση ή» και οι λέξεις «μία ημέρα φυλάκισης "
            "ή», η λέξη «εκτελέσει» αντικαθίσταται από τη λέξη «παρέχει».")
    a = amending("N_4855_2021::5", text, ("άρθρο 81 ΠΚ", "PK::81"))
    got = run("PK::81", "3. Τρίτη.\n" + PK_81_4, a)
    assert got.status == "full", got.unapplied
    assert [x.action for x in got.applied] == ["delete-words", "replace-words"]
    assert got.passages[1].text == ("4. Στην απόφαση καθορίζεται και η χρηματική ποινή που θα πρέπει να εκτίσει ο "
                                    "καταδικασθείς, αν δεν παρέχει με συνέπεια την κοινωφελή εργασία. Τέσσερεις ώρες "
                                    "κοινωφελούς εργασίας αντιστοιχούν προς μία ημερήσια μονάδα χρηματικής ποινής.")
    after = ("Στην παρ. 4 του άρθρου 82 ΠΚ μετά από τις λέξεις «χρηματική ποινή» προστίθενται οι λέξεις «ή ποινή "
             "παροχής κοινωφελούς εργασίας».")
    got = run("PK::82", "4. Όταν επιβάλλεται μόνο χρηματική ποινή για το έγκλημα, αφαιρούνται οι ημερήσιες μονάδες.",
              amending("N_4855_2021::6", after, ("παρ. 4 του άρθρου 82 ΠΚ", "PK::82")))
    assert got.status == "full" and got.applied[0].action == "insert-words"
    assert got.passages[0].text == ("4. Όταν επιβάλλεται μόνο χρηματική ποινή ή ποινή παροχής κοινωφελούς εργασίας "
                                    "για το έγκλημα, αφαιρούνται οι ημερήσιες μονάδες.")


def test_phrase_twice_or_missing_is_not_guessed() -> None:
    text = "Στην παρ. 4 του άρθρου 81 ΠΚ η λέξη «ποινής» αντικαθίσταται από τη λέξη «ποινών»."
    a = amending("N_4855_2021::5", text, ("παρ. 4 του άρθρου 81 ΠΚ", "PK::81"))
    got = run("PK::81", PK_81_4.replace("χρηματικής ποινής", "ποινής ποινής"), a)
    assert got.status == "none" and got.unapplied[0].reason.startswith("«ποινής» occurs 2 times in paragraph 4")
    missing = run("PK::81", PK_81_4.replace("ποινής", "κύρωσης"), a)
    assert missing.unapplied[0].reason == "«ποινής» is not found in paragraph 4"


# -- what the engine refuses, and what a later wording settles --------------------------------------------------


def test_an_article_of_its_own_law_is_not_amended_by_it() -> None:
    text = "Το π.δ. 54/2018 (Α΄ 103) τροποποιείται ως εξής:\n1. Το άρθρο 13 αντικαθίσταται ως εξής: «Άρθρο 13 Πλαίσιο\n1. Νέο.»"
    a = amending("N_4772_2021::31", text, ("άρθρο 13", "N_4772_2021::13"))
    got = run("N_4772_2021::13", "1. Παλαιό.", a, title="Πλαίσιο")
    assert got.status == "none" and "not of a later law" in got.unapplied[0].reason
    assert got.passages[0].text == "1. Παλαιό."


# corpus-large: N_4826_2021::43 «Εισφορές», its paragraph 3 given new wording by N_4997_2022::33, and article 43Α put
# after it by N_4997_2022::34
N_4826_43 = ("1. Οι εισφορές των ασφαλισμένων και των εργοδοτών οφείλονται μηνιαία και καταβάλλονται ανά τακτά περιοδικά "
             "διαστήματα, σύμφωνα με την παρ.\xa02 του άρθρου 43 του ν.\xa04387/2016 (Α΄ 85).\n2. Το σύνολο των "
             "καταβλητέων ασφαλιστικών εισφορών στο Ταμείο Επικουρικής Κεφαλαιοποιητικής Ασφάλισης (Τ.Ε.Κ.Α.) "
             "αποτυπώνεται μηχανογραφικά με διακριτό τρόπο από τις εισφορές που αφορούν στον Κλάδο Επικουρικής "
             "Ασφάλισης του e-ΕΦΚΑ.\n3. Οι εισφορές που αφορούν στην επικουρική ασφάλιση του παρόντος, εισπράττονται για "
             "λογαριασμό του Τ.Ε.Κ.Α. από τον e-ΕΦΚΑ και στη συνέχεια αποδίδονται εντός δύο (2) μηνών από την είσπραξη "
             "και κατά προτεραιότητα στο Ταμείο.")
N_4997_33 = ("Η παρ.\xa03 του άρθρου 43 του ν.\xa04826/2021 (Α’\xa0160) περί εισφορών υπέρ του Ταμείου Επικουρικής "
             "Κεφαλαιοποιητικής Ασφάλισης (Τ.Ε.Κ.Α.) τροποποιείται, ώστε να ορισθεί η προθεσμία απόδοσης των εισφορών που "
             "αφορούν στην επικουρική ασφάλιση στο Τ.Ε.Κ.Α. σε σχέση με την εκκαθάριση των εισφορών και την είσπραξή "
             "τους, και διαμορφώνεται ως εξής: «3. Οι εισφορές που αφορούν στην επικουρική ασφάλιση του παρόντος "
             "εισπράττονται για λογαριασμό του Τ.Ε.Κ.Α. από τον e-ΕΦΚΑ και στη συνέχεια αποδίδονται κατά προτεραιότητα "
             "στο Ταμείο εντός δεκαπέντε (15) ημερών από την ολοκλήρωση της εκκαθάρισης από τον e-ΕΦΚΑ και σε κάθε "
             "περίπτωση εντός τεσσάρων (4) μηνών από την είσπραξη.».")
N_4997_34 = ("Μετά από το άρθρο 43 του ν.\xa04826/2021 (Α’\xa0160), περί εισφορών υπέρ του Ταμείου Επικουρικής "
             "Κεφαλαιοποιητικής Ασφάλισης, προστίθεται άρθρο 43Α ως εξής: «Άρθρο 43Α Εξόφληση επιδοτούμενων "
             "ασφαλιστικών εισφορών υπέρ του Ταμείου Επικουρικής Κεφαλαιοποιητικής Ασφάλισης\n1. Οι υπόχρεοι σε καταβολή "
             "ασφαλιστικών εισφορών υπέρ του Ταμείου Επικουρικής Κεφαλαιοποιητικής Ασφάλισης (Τ.Ε.Κ.Α.) υποχρεούνται σε "
             "πλήρη εξόφληση του ποσού.\n2. Τα ποσά που αναλογούν στην επιδότηση πιστώνονται στον υπόχρεο.».")


def test_new_articles_put_after_an_article_are_no_instruction_for_its_text() -> None:
    # engine v1 listed N_4997_2022::34 as unapplied and called the text in force partial, though nothing in it changed
    replaced = amending("N_4997_2022::33", N_4997_33, ("άρθρου 43 του ν.\xa04826/2021", "N_4826_2021::43"))
    placed = amending("N_4997_2022::34", N_4997_34, ("άρθρο 43 του ν.\xa04826/2021", "N_4826_2021::43"))
    got = run("N_4826_2021::43", N_4826_43, replaced, placed)
    assert got.status == "full" and got.unapplied == ()
    assert [a.action for a in got.applied] == ["replace-paragraph"]
    assert got.amendments == ("N_4997_2022::33",)  # the other changes nothing here
    assert got.passages[2].text.endswith("εντός τεσσάρων (4) μηνών από την είσπραξη.")
    # alone, it leaves the article unamended: no amendment, nothing applied or listed
    alone = run("N_4826_2021::43", N_4826_43, placed)
    assert (alone.amendments, alone.applied, alone.unapplied) == ((), (), ())
    assert read_instructions(N_4997_34)[0].action == "insert-articles"


def test_an_unclosed_or_unquoted_wording_is_listed() -> None:
    text = "Στο άρθρο 26 του ν. 4727/2020 (Α’ 184) προστίθεται παρ. 4 ως εξής: «4. Στην ΕΨΠ μπορούν να τηρούνται θυρίδες"
    got = run("N_4727_2020::26", "1. Πρώτη.", amending("N_4830_2021::69", text, ("άρθρο 26 του ν. 4727/2020",
                                                                                 "N_4727_2020::26")))
    assert got.unapplied[0].reason.startswith("the quoted new wording is not closed")
    bare = ("Στην παρ. 3 του άρθρου 95 του ν. 4070/2012 (Α’ 82) προστίθεται περ. γ’ και η παρ. 3 διαμορφώνεται ως εξής:\n"
            "3. α. Με την αίτηση υποβάλλονται δικαιολογητικά.»")
    got = run("N_4070_2012::95", "3. Παλαιά.", amending("N_4784_2021::48", bare, ("παρ. 3 του άρθρου 95 του ν. 4070/2012",
                                                                                "N_4070_2012::95")))
    assert got.status == "none" and any("is not quoted" in u.reason for u in got.unapplied)


def test_the_laws_order_and_a_later_whole_wording_supersedes() -> None:
    words = ("Στην παρ. 1 του άρθρου 372 ΠΚ η φράση «έως τρία έτη» αντικαθίσταται από τη φράση «έως πέντε έτη».")
    later = amending("N_4855_2021::86", N_4855_86, ("άρθρου 372 ΠΚ", "PK::372", 1), ("άρθρο 372", "PK::372"))
    earlier = amending("N_4637_2019::1", words, ("παρ. 1 του άρθρου 372 ΠΚ", "PK::372"))
    for given in ([later, earlier], [earlier, later]):
        got = run("PK::372", PK_372, *given, law="Ποινικός Κώδικας (ν. 4619/2019)")
        assert got.amendments == ("N_4637_2019::1", "N_4855_2021::86")
        assert [a.action for a in got.applied] == ["replace-words", "replace-article"]
        assert "έως πέντε έτη" not in got.text and got.status == "full"
    # the earlier one cannot apply (its phrase is not there), but the later whole wording settles the text in force
    missing = amending("N_4637_2019::1", words.replace("έως τρία έτη", "έως έξι έτη"), ("παρ. 1 του άρθρου 372 ΠΚ", "PK::372"))
    got = run("PK::372", PK_372, later, missing, law="Ποινικός Κώδικας (ν. 4619/2019)")
    assert got.status == "full" and got.unapplied[0].superseded_by == "N_4855_2021::86"
    alone = run("PK::372", PK_372, missing, law="Ποινικός Κώδικας (ν. 4619/2019)")
    assert alone.status == "none" and alone.unapplied[0].superseded_by == ""
    assert order_key("N_4855_2021::86") < order_key("N_4855_2021::100") < order_key("N_4637_2022::1")


def test_descriptions_before_the_new_wording_are_part_of_it() -> None:
    text = ("κοινωφελούς εργασίας - Τροποποίηση της παρ. 4 και αντικατάσταση της παρ. 5 του άρθρου 81 ΠΚ Στο άρθρο 81 "
            "ΠΚ: α) στην παρ. 4 απαλείφονται οι λέξεις «η φυλάκιση ή», η λέξη «εκτελέσει» αντικαθίσταται από τη λέξη "
            "«παρέχει» β) αντικαθίσταται η παρ. 5 και το άρθρο 81 διαμορφώνεται ως εξής: «Άρθρο 81 Επιμέτρηση\n1. Νέα.»")
    read = read_instructions(text)
    assert [i.action for i in read] == ["replace-article"]
    assert text[read[0].start:].startswith("Στο άρθρο 81 ΠΚ:") or text[read[0].start:].startswith("στην παρ. 4")
    assert len(read[0].described) == 3


def test_paragraphs_skip_numbers_inside_quotations_and_clause_numbers() -> None:
    text = "1. Πρώτη «2. μέσα σε εισαγωγικά».\n13.2.2 Ρήτρα.\n2. Δεύτερη.\n2. Ξανά δεύτερη."
    assert [p.number for p in paragraphs(text)] == ["1", "2"]
    assert paragraphs("Κείμενο χωρίς αριθμούς.")[0].number == ""


def test_focus_shows_the_changed_line() -> None:
    before = "α) " + "λέξη " * 200 + "\nβ) παλαιό τέλος."
    after = "α) " + "λέξη " * 200 + "\nβ) νέο τέλος."
    b, a = focus(before, after)
    assert b == "…β) παλαιό τέλος." and a == "…β) νέο τέλος."


def test_an_article_only_placed_before_new_articles_has_no_text_in_force() -> None:
    # corpus-wide, through the extractor's own edges: N_4855_2021::2 inserts article 43 after PK::42 (its edge lands
    # on PK::42), so PK::42 is amended in the graph, but not its text: ingest stores no text in force for it
    from nomos.ingest.graph import CorpusReading
    from nomos.ingest.in_force import amended_by, corpus_in_force
    from nomos.ingest.records import Article

    pk = {"source": "PK", "law": "Ποινικός Κώδικας (ν. 4619/2019)"}
    articles = [
        Article(id="PK::42", title="Έννοια και ποινή της απόπειρας", text="1. Όποιος, έχοντας αποφασίσει να τελέσει "
                "έγκλημα, αρχίζει να εκτελεί την περιγραφόμενη στο νόμο αξιόποινη πράξη, τιμωρείται με μειωμένη ποινή.",
                **pk),
        Article(id="PK::372", title="Κλοπή", text=PK_372, **pk),
        Article(id="N_4855_2021::2", title="Απρόσφορη απόπειρα", source="N_4855_2021", law="ν. 4855/2021",
                text="Προσθήκη άρθρου 43 στον ΠΚ Μετά από το άρθρο 42 ΠΚ προστίθεται άρθρο 43 ως εξής: «Άρθρο 43 "
                     "Απρόσφορη απόπειρα\n1. Όποιος επιχείρησε να εκτελέσει έγκλημα με μέσο ή κατά αντικειμένου τέτοιας "
                     "φύσης ώστε να αποβαίνει απολύτως αδύνατη η τέλεση του εγκλήματος αυτού τιμωρείται με την ποινή του "
                     "άρθρου 83 μειωμένη στο μισό.\n2. Όποιος επιχείρησε τέτοια απρόσφορη απόπειρα από ευήθεια παραμένει "
                     "ατιμώρητος.»."),
        Article(id="N_4855_2021::86", title="Κλοπή", text=N_4855_86, source="N_4855_2021", law="ν. 4855/2021"),
    ]
    reading = CorpusReading.of(articles)
    assert amended_by(articles, reading) == {"PK::42": ["N_4855_2021::2"], "PK::372": ["N_4855_2021::86"]}
    results = corpus_in_force(articles, reading)
    assert sorted(results) == ["PK::372"] and results["PK::372"].in_force.status == "full"
