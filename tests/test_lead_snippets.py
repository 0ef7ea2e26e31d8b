"""Issue 51's second round: ``lead`` snippets (nomos.pages.lead, NOMOS_SNIPPETS=lead), the article's opening
sentence first and its best marked passage after it, cut from the highlighter's whole texts; on strings, and on a
real node's highlighter over articles written for it."""

from __future__ import annotations

import re
import uuid
from dataclasses import replace
from typing import Iterator

import pytest

from nomos.pages import lead, passages
from nomos.pages.lead import cut
from nomos.retrieval.base import Hit

OPENING = "1. Όποιος αφαιρεί ξένο κινητό πράγμα από την κατοχή άλλου με σκοπό να το ιδιοποιηθεί τιμωρείται με φυλάκιση."
FILLER = "Οι διατάξεις του παρόντος εφαρμόζονται αναλόγως και στις λοιπές περιπτώσεις του Κώδικα. " * 4


def marked(fragments: tuple[str, ...] | list[str]) -> list[str]:
    return [w for f in fragments for w in re.findall(r"<mark>(.*?)</mark>", f)]


def plain(fragment: str) -> str:
    return re.sub(r"</?mark>", "", fragment)


def test_the_opening_sentence_first_with_its_marks_then_the_best_passage_after_it():
    text = (OPENING.replace("πράγμα", "<mark>πράγμα</mark>") + " Αν η αξία είναι μεγάλη, με κάθειρξη.\n2. "
            + FILLER + "Η <mark>κλοπή</mark> ρολογιού ξένου <mark>πράγματος</mark> διώκεται με έγκληση. " + FILLER)
    got = cut(text)
    assert len(got) == 2 and plain(got[0]) == OPENING  # ended at its sentence's end, not at «Αν …»
    assert marked(got[:1]) == ["πράγμα"]
    assert got[1].startswith("Η <mark>κλοπή</mark>") and marked(got[1:]) == ["κλοπή", "πράγματος"]
    assert plain(got[0]) not in plain(got[1])  # the passage does not repeat the opening


def test_a_long_opening_is_cut_at_a_clause_or_word_end_within_its_bound():
    sentence = ("1. Όποιος με την εν γνώσει παράσταση ψευδών γεγονότων σαν αληθινών ή την αθέμιτη απόκρυψη αληθινών "
                "γεγονότων βλάπτει ξένη περιουσία, πείθοντας κάποιον σε πράξη ή παράλειψη με σκοπό να αποκομίσει ο "
                "ίδιος ή άλλος παράνομο περιουσιακό όφελος, ακόμη κι αν η βλάβη της περιουσίας επήλθε σε τρίτο, "
                "τιμωρείται με φυλάκιση τουλάχιστον τριών μηνών.")
    assert len(sentence) > lead.OPENING_END
    got = cut(sentence.replace("απάτη", "<mark>απάτη</mark>") + "\n2. Η απόπειρα είναι αξιόποινη.")
    first = plain(got[0])
    assert len(first) <= lead.OPENING and sentence.startswith(first)
    assert first.endswith(",") or sentence[len(first)] == " "  # at a clause's end or between two words


def test_an_article_with_no_mark_shows_its_opening_and_next_sentence():
    text = OPENING + " Αν η αξία είναι μεγάλη, με κάθειρξη.\n2. " + FILLER
    got = cut(text)
    assert [plain(f) for f in got] == [OPENING, "Αν η αξία είναι μεγάλη, με κάθειρξη."] and not marked(got)
    assert cut("") == () and cut("   ") == ()


def test_a_lists_lead_in_runs_on_and_a_paragraph_number_is_no_sentence():
    got = cut("Σκοπός του νόμου είναι:\nα) η αναγνώριση του δικαιώματος των πολιτών να επικοινωνούν ηλεκτρονικά με "
              "το Δημόσιο. Η ασφάλεια των συναλλαγών ορίζεται στο άρθρο 2.")
    assert plain(got[0]).startswith("Σκοπός του νόμου είναι:\nα) η αναγνώριση") and plain(got[0]).endswith("Δημόσιο.")
    got = cut(OPENING + "\n2. Η απόπειρα της πράξης τιμωρείται με την ίδια ποινή, αν ο υπαίτιος είναι υπότροπος.")
    assert plain(got[1]) == "2. Η απόπειρα της πράξης τιμωρείται με την ίδια ποινή, αν ο υπαίτιος είναι υπότροπος."


def test_the_corpus_glued_title_end_and_structural_lines_are_not_the_opening():
    """A cut title's end on the text's first line, the chapter heading and repeal note after an article's words
    (nomos.legal: the text in force leaves them out) are no opening; a mark in them is no passage."""
    title_end = "της παροχής κοινωφελούς εργασίας\n" + OPENING + " Αν η αξία είναι μεγάλη, με κάθειρξη."
    assert plain(cut(title_end)[0]) == OPENING
    runs_on = ("του άρθρου 5 του ν. 3846&#x2F;2010 Το άρθρο 5 του ν. 3846&#x2F;2010 αντικαθίσταται ως εξής: «1. "
               "<mark>Τηλεργασία</mark> είναι η εξ αποστάσεως παροχή εργασίας.»")
    # the instruction is read as the article's (no title's end), and the opening is the new wording it quotes
    # (tests/test_lead_amending.py)
    assert cut(runs_on)[0].startswith("1. <mark>Τηλεργασία</mark> είναι η εξ αποστάσεως παροχή εργασίας.")
    # an amending article's first line that opens a quotation is no title's end: its quoted new wording opens it
    instruction = ("του άρθρου 372 ΠΚ Η παρ. 1 του <mark>άρθρου</mark> 372 ΠΚ τροποποιείται και διαμορφώνεται ως "
                   "εξής: «Άρθρο 372 Κλοπή\n" + OPENING + "»")
    assert plain(cut(instruction)[0]) == OPENING
    short = "Η πράξη τιμωρείται.\nΆρθρο 5 (Καταργείται)\nΕΒΔΟΜΟ ΚΕΦΑΛΑΙΟ ΕΓΚΛΗΜΑΤΑ ΚΑΤΑ ΤΗΣ <mark>ΙΔΙΟΚΤΗΣΙΑΣ</mark>"
    assert [plain(f) for f in cut(short)] == ["Η πράξη τιμωρείται."]


def test_the_passage_is_chosen_by_the_querys_own_words_and_its_marks_stay_whole():
    """With the query, a mark the page will take off («όλους» of «όλη») chooses no passage; the marks cut out
    keep the html's offsets (each mark's tags counted)."""
    text = (OPENING + "\n2. " + FILLER + "Τηρούν <mark>όλους</mark> τους κανόνες. " + FILLER
            + "Ο <mark>σκύλος</mark> δεν μένει <mark>δεμένος</mark> με <mark>αλυσίδα</mark>. " + FILLER)
    got = cut(text, "ο σκύλος είναι δεμένος όλη μέρα με αλυσίδα")
    assert marked(got[1:]) == ["σκύλος", "δεμένος", "αλυσίδα"] and got[1].count("<mark>") == got[1].count("</mark>")


def test_a_cited_articles_number_is_marked_only_where_its_snippet_says_it_is_its_own():
    hits = [Hit("PK::372", 1.0, highlights=("Η ποινή του <mark>άρθρου</mark> 372 του παρόντος ισχύει.",
                                            "«Άρθρο 372 Κλοπή 1. Όποιος …")),
            Hit("N_4808_2021::5", 0.9, highlights=("Το άρθρο 5 του ν. 3846/2010 αντικαθίσταται.",)),
            Hit("N_1_2020::1", 0.8, highlights=("Το άρθρο 372 του παρόντος ισχύει.",))]
    got = lead.cited_number(hits, {"PK::372": "372", "N_4808_2021::5": "5"})
    assert got[0].highlights == ("Η ποινή του <mark>άρθρου</mark> <mark>372</mark> του παρόντος ισχύει.",
                                 "«Άρθρο <mark>372</mark> Κλοπή 1. Όποιος …")
    assert got[1:] == hits[1:]  # another law's «άρθρο 5» and another hit's 372: no mark invented


def test_the_page_asks_lead_for_whole_texts_and_a_longer_start_where_none_is_marked():
    from nomos.pages.snippets import snippet_request, snippets_of

    fields = snippet_request("κλοπή", 180, mode="lead")["highlight"]["fields"]
    assert all(f["number_of_fragments"] == 0 for f in fields.values())
    assert fields["text"]["no_match_size"] == passages.LEAD_NO_MATCH
    assert "no_match_size" not in snippet_request("κλοπή", 0, mode="lead")["highlight"]["fields"]["text"]
    hit = {"_source": {"title": "Κλοπή"}, "highlight": {"text": [OPENING + " " + FILLER]}}
    assert snippets_of(hit, "κλοπή", mode="lead")[0] == cut(OPENING + " " + FILLER, "κλοπή")


# A corpus of its own for the node: articles long enough to have an opening, a passage and a title end
ARTICLES = [
    {"_id": "PK::372", "title": "Κλοπή", "source": "PK", "law": "Ποινικός Κώδικας", "text": (
        "1. Όποιος αφαιρεί ξένο κινητό πράγμα από την κατοχή άλλου με σκοπό να το ιδιοποιηθεί παράνομα τιμωρείται "
        "με φυλάκιση. Αν η αξία είναι ιδιαίτερα μεγάλη, με κάθειρξη.\n2. " + FILLER
        + "Για την κλοπή ποδηλάτου η ποινή του άρθρου 372 του παρόντος μειώνεται, αν ο υπαίτιος το αποδώσει.\n3. "
        + FILLER)},
    {"_id": "PK::375", "title": "Υπεξαίρεση", "source": "PK", "law": "Ποινικός Κώδικας", "text": (
        "1. Όποιος ιδιοποιείται παράνομα ξένο κινητό πράγμα που περιήλθε στην κατοχή του τιμωρείται με φυλάκιση έως "
        "δύο ετών. Η απόπειρα τιμωρείται.\n2. " + FILLER)},
    {"_id": "N_4855_2021::86", "title": "Κλοπή - Τροποποίηση της παρ. 1", "source": "N_4855_2021",
     "law": "ν. 4855/2021", "text": (
        "του άρθρου 372 ΠΚ Η παρ. 1 του άρθρου 372 ΠΚ τροποποιείται ως προς την ποινή για την κλοπή ποδηλάτου και "
        "διαμορφώνεται ως εξής: «Άρθρο 372 Κλοπή\n1. Όποιος αφαιρεί ξένο κινητό πράγμα τιμωρείται με φυλάκιση.»")},
]


@pytest.fixture(scope="module")
def lead_index(cluster, tmp_path_factory) -> Iterator:
    """The articles above indexed (BM25) under an alias of their own; deleted afterwards."""
    from nomos.ingest.beir import load_beir
    from nomos.opensearch.client import make_client
    from nomos.stages.indexing import index_dataset
    from tests.beir_files import write_beir

    folder = tmp_path_factory.mktemp("lead")
    alias = f"pytest-lead-{uuid.uuid4().hex[:8]}"
    settings = cluster.with_overrides(index_alias=alias, runs_dir=folder / "runs", cache_dir=folder / "cache")
    index_dataset(settings, load_beir(write_beir(folder / "beir", ARTICLES, [{"_id": "q1", "text": "κλοπή"}],
                                                          [("q1", "PK::372", 1)])))
    try:
        yield settings
    finally:
        make_client(settings.cluster).indices.delete(index=f"{alias}*", ignore_unavailable=True)


@pytest.mark.integration
def test_lead_pages_on_a_real_node(lead_index):
    """The node's highlighter marks each text whole and the page cuts it: the opening sentence first (its marks
    kept), the passage that bears on the query after it, nothing repeated; a cited article's number marked where
    its text says it is its own, nowhere else; a named article none of whose words is marked shows its opening
    and next sentence; the page is today's but for its snippets."""
    from nomos.stages.searching import SearchRequest, SearchStage

    stages = {m: SearchStage(lead_index.with_overrides(snippets=m)) for m in ("sentences", "lead")}
    page = stages["lead"].search(SearchRequest("κλοπή ποδηλάτου", "bm25", 5))
    top = {h.doc_id: h for h in page.hits}
    pk = top["PK::372"].highlights
    assert plain(pk[0]).startswith("1. Όποιος αφαιρεί") and plain(pk[0]).endswith("τιμωρείται με φυλάκιση.")
    assert "<mark>κλοπή</mark> <mark>ποδηλάτου</mark>" in pk[1] and plain(pk[0]) not in plain(pk[1])
    # an amending article: the rule it quotes first, then the instruction that held the query's words
    amending = top["N_4855_2021::86"].highlights
    assert plain(amending[0]) == "1. Όποιος αφαιρεί ξένο κινητό πράγμα τιμωρείται με φυλάκιση."
    assert amending[1].startswith("Η παρ. 1 του άρθρου 372 ΠΚ τροποποιείται") and "<mark>κλοπή</mark>" in amending[1]

    cited = stages["lead"].search(SearchRequest("άρθρο 372 ΠΚ", "bm25", 5))
    assert cited.hits[0].doc_id == "PK::372" and "<mark>372</mark> του παρόντος" in " ".join(cited.hits[0].highlights)
    assert not any("<mark>372</mark>" in f for h in cited.hits[1:] for f in h.highlights)
    old = stages["sentences"].search(SearchRequest("άρθρο 372 ΠΚ", "bm25", 5))
    assert replace(cited, took_ms=0.0, hits=[replace(h, highlights=()) for h in cited.hits]) == \
        replace(old, took_ms=0.0, hits=[replace(h, highlights=()) for h in old.hits])

    unmarked = stages["lead"].search(SearchRequest("άρθρο 375 ΠΚ", "bm25", 5)).hits[0]
    assert unmarked.doc_id == "PK::375" and not marked(unmarked.highlights)
    assert [plain(f) for f in unmarked.highlights] == [
        "1. Όποιος ιδιοποιείται παράνομα ξένο κινητό πράγμα που περιήλθε στην κατοχή του τιμωρείται με φυλάκιση "
        "έως δύο ετών.", "Η απόπειρα τιμωρείται."]
