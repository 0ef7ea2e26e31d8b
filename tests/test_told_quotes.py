"""Extractor v23 (issue 49): a quotation the amending article never closes ends at the line before its next item
where that item opens with an amending verb and cites a law (nomos/legal/text/article_parts.told_quote_spans), for
the legal graph's reader as for the instruction reader since engine v5. ν. 4830/2021 art. 69 never closes the
paragraph 4 its item 1 adds to ν. 4727/2020 art. 26; its item 2 gives art. 107 par. 17 a new second sentence, which
extractor v22 read as quoted (no edge): N_4727_2020::107 was «full» without it (the v5 blind check, item 28).
With a near miss: a numbered paragraph of the new wording itself (no law cited) does not end the quotation."""

from __future__ import annotations

from nomos.legal.graph.references import extract_references
from nomos.legal.inforce.engine import Amending, consolidate
from nomos.legal.text.article_parts import quote_spans, told_quote_spans
from nomos.legal.text.ids import IdResolver

N_4830_69 = ("ν. 4727/2020\n1. Στο άρθρο 26 του ν. 4727/2020 (Α’ 184) προστίθεται παρ. 4 ως εξής: «4. Στην ΕΨΠ μπορούν "
             "να τηρούνται θυρίδες νομικών προσώπων ή νομικών οντοτήτων. Στις θυρίδες αυτές καταχωρίζονται μέσω της "
             "ΕΨΠ, έγγραφα ή άλλα δεδομένα.\n2. Στην παρ. 17 του άρθρου 107 του ν. 4727/2020 προστίθεται νέο δεύτερο "
             "εδάφιο και η παρ. 17 διαμορφώνεται ως εξής: «17. Με κοινή απόφαση ρυθμίζεται η τήρηση θυρίδας στην ΕΨΠ. "
             "Με όμοια απόφαση μπορούν να ρυθμίζονται ειδικότερα ζητήματα για την εφαρμογή της παρ. 4 του άρθρου 26.».")

RESOLVER = IdResolver.from_ids(["N_4727_2020::26", "N_4727_2020::107", "N_4830_2021::69"])
ARTICLE_107 = ("16. Με απόφαση ορίζονται τα ειδικότερα.\n17. Με κοινή απόφαση ρυθμίζεται η τήρηση θυρίδας στην ΕΨΠ.\n"
               "18. Με απόφαση του Υπουργού ρυθμίζονται τα λοιπά.")


def test_the_next_items_citations_are_edges_and_its_sentence_is_applied() -> None:
    spans = told_quote_spans(N_4830_69)
    assert len(spans) == 2 and N_4830_69[spans[0][1] - 1] != "»" and N_4830_69[spans[1][1] - 1] == "»"
    assert len(quote_spans(N_4830_69)) == 1  # the paragraphs' and sentences' own cut is unchanged
    refs = extract_references("N_4830_2021::69", N_4830_69, RESOLVER, "N_4830_2021")
    to_107 = [r for r in refs if r.target == "N_4727_2020::107"]
    assert to_107 and {r.kind for r in to_107} <= {"amends", "inserts"} and {r.paragraph for r in to_107} == {"17"}
    got = consolidate("N_4727_2020::107", "Εξουσιοδοτικές διατάξεις", ARTICLE_107,
                      [Amending("N_4830_2021::69", N_4830_69, [r.as_dict() for r in refs], "N_4830_2021")],
                      "N_4727_2020").in_force
    assert got.status == "full"
    assert got.passages[1].text == ("17. Με κοινή απόφαση ρυθμίζεται η τήρηση θυρίδας στην ΕΨΠ. Με όμοια απόφαση "
                                    "μπορούν να ρυθμίζονται ειδικότερα ζητήματα για την εφαρμογή της παρ. 4 του "
                                    "άρθρου 26.")


def test_near_miss_the_new_wordings_own_numbered_line_stays_quoted() -> None:
    # item 2 without a law cited is the new paragraph 4's continuation, as far as a reader can tell: still quoted
    text = N_4830_69.replace(" του άρθρου 107 του ν. 4727/2020", " του άρθρου 107")
    assert told_quote_spans(text) == quote_spans(text)
    refs = extract_references("N_4830_2021::69", text, RESOLVER, "N_4830_2021")
    assert not [r for r in refs if r.target == "N_4727_2020::107"]
