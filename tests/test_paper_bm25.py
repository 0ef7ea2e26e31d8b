"""The paper's BM25 pipeline (nomos/eval/paper_bm25.py) on a tiny hand-made Greek corpus: no OpenSearch, no data files.

The benchmark compares the project's BM25 against this re-implementation, so a silent change in its tokenizer
(accents kept, stop words scored, inflections not conflated) or in its tie order would make the comparison wrong
without anything failing; these tests pin each piece.
"""

from __future__ import annotations

import pytest

from nomos.eval.paper_bm25 import GREEK_STOPWORDS, PaperBM25, PaperTokenizer, article_text, strip_diacritics
from nomos.ingest.records import Article


@pytest.fixture(scope="module")
def tok() -> PaperTokenizer:
    return PaperTokenizer()


ARTICLES = [
    Article("PK::372", "Κλοπή", "Όποιος αφαιρεί ξένο κινητό πράγμα από την κατοχή άλλου τιμωρείται με φυλάκιση."),
    Article("PK::386", "Απάτη", "Όποιος με πρόθεση να αποκομίσει περιουσιακό όφελος βλάπτει ξένη περιουσία."),
    Article("PK::375", "Υπεξαίρεση", "Όποιος ιδιοποιείται παράνομα ξένο κινητό πράγμα που έχει στην κατοχή του."),
    Article("PK::308", "Απλή σωματική βλάβη", "Όποιος προξενεί σε άλλον βλάβη του σώματος ή της υγείας του."),
    Article("PK::299", "Ανθρωποκτονία με πρόθεση", "Όποιος με πρόθεση σκότωσε άλλον τιμωρείται με ισόβια κάθειρξη."),
]
# Five articles, not four: BM25Okapi's idf is log((N - n + 0.5) / (n + 0.5)), exactly 0 for a term found in half
# the corpus, so with four articles a term shared by two of them would score nothing.


def test_strip_diacritics_drops_tonos_dialytika_and_breathings() -> None:
    assert strip_diacritics("κλοπή") == "κλοπη"
    assert strip_diacritics("προϊόν") == "προιον"
    assert strip_diacritics("ΐ") == "ι"
    assert strip_diacritics("ἀνθρώπῳ") == "ανθρωπω"


def test_words_are_upper_case_unaccented_and_split_on_punctuation(tok: PaperTokenizer) -> None:
    assert tok.words("Κλοπή, απάτη· (υπεξαίρεση) άρθρο_5") == ["ΚΛΟΠΗ", "ΑΠΑΤΗ", "ΥΠΕΞΑΙΡΕΣΗ", "ΑΡΘΡΟ", "5"]


def test_stop_words_are_removed_whatever_their_accents_or_case(tok: PaperTokenizer) -> None:
    assert tok.words("Ο κλέφτης και η ΚΛΟΠΉ του ρολογιού από το κατάστημα") == ["ΚΛΕΦΤΗΣ", "ΚΛΟΠΗ", "ΡΟΛΟΓΙΟΥ", "ΚΑΤΑΣΤΗΜΑ"]
    assert tok.tokenize("και του της από με για") == []


def test_stop_list_is_written_in_the_folded_form_it_is_compared_in() -> None:
    assert GREEK_STOPWORDS and all(strip_diacritics(w).upper() == w for w in GREEK_STOPWORDS)


def test_a_custom_stop_list_is_folded_too() -> None:
    assert PaperTokenizer(stopwords=["κλοπή"]).words("Κλοπή απάτη") == ["ΑΠΑΤΗ"]
    assert PaperTokenizer(stopwords=()).words("ο και") == ["Ο", "ΚΑΙ"]


@pytest.mark.parametrize(
    "forms",
    [
        ("κλοπή", "κλοπής", "ΚΛΟΠΗ", "Κλοπής"),
        ("απάτη", "απάτης", "απάτες"),
        ("ποινή", "ποινής", "ποινών"),
        ("προϊόντος", "προϊόντα", "ΠΡΟΪΟΝΤΟΣ"),
    ],
)
def test_inflections_and_spellings_share_one_stem(tok: PaperTokenizer, forms: tuple[str, ...]) -> None:
    stems = {s for f in forms for s in tok.tokenize(f)}
    assert len(stems) == 1, stems


def test_stems_are_never_empty(tok: PaperTokenizer) -> None:
    # Snowball strips ΙΔΙΑ/ΙΔΙΟ ("same") to nothing; an empty token would match every article using the word.
    assert "" not in tok.tokenize("το ίδιο πρόσωπο, την ίδια ημέρα")


def test_article_text_is_title_line_break_text() -> None:
    assert article_text(ARTICLES[0]) == "Κλοπή\n" + ARTICLES[0].text


def test_the_obviously_matching_article_ranks_first() -> None:
    bm = PaperBM25.from_articles(ARTICLES)
    hits = bm.search("Ποια πράξη τέλεσε όποιος έκανε κλοπή ενός ρολογιού;", 10)
    assert hits[0][0] == "PK::372"
    assert [d for d, _ in bm.search("απάτης με περιουσιακό όφελος", 10)][:1] == ["PK::386"]


def test_scores_are_descending_and_zero_scores_are_left_out() -> None:
    bm = PaperBM25.from_articles(ARTICLES)
    hits = bm.search("κινητό πράγμα", 10)
    scores = [s for _, s in hits]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
    assert {d for d, _ in hits} == {"PK::372", "PK::375"}
    assert bm.search("ανύπαρκτος όρος", 10) == []
    assert bm.search("", 10) == []


def test_ties_are_broken_by_doc_id_whatever_the_corpus_order() -> None:
    # Two identical articles (same length, same terms) score exactly alike: the lower id must come first.
    twins = [
        Article("D::4", "Πλαστογραφία", "πλαστό έγγραφο"),
        Article("B::2", "Κλοπή", "κλοπή ρολογιού"),
        Article("A::9", "Απάτη", "απάτη με πλαστό"),
        Article("A::1", "Κλοπή", "κλοπή ρολογιού"),
        Article("C::3", "Βλάβη", "σωματική βλάβη"),
    ]
    for corpus in (twins, list(reversed(twins))):
        hits = PaperBM25.from_articles(corpus).search("κλοπή", 10)
        assert [d for d, _ in hits] == ["A::1", "B::2"]
        assert hits[0][1] == hits[1][1]


def test_k_cuts_the_ranking() -> None:
    bm = PaperBM25.from_articles(ARTICLES)
    assert len(bm.search("όποιος ξένο κινητό πράγμα βλάβη", 1)) == 1


def test_parameters_are_the_papers_and_configurable() -> None:
    bm = PaperBM25.from_articles(ARTICLES)
    assert (bm.bm25.k1, bm.bm25.b) == (1.5, 0.75)
    assert bm.describe()["k1"] == 1.5
    tuned = PaperBM25.from_articles(ARTICLES, k1=0.9, b=0.4)
    assert (tuned.bm25.k1, tuned.bm25.b) == (0.9, 0.4)


def test_bad_corpora_are_refused() -> None:
    with pytest.raises(ValueError, match="empty"):
        PaperBM25([], [])
    with pytest.raises(ValueError, match="unique"):
        PaperBM25(["a", "a"], ["κλοπή", "απάτη"])
    with pytest.raises(ValueError, match="ids"):
        PaperBM25(["a"], ["κλοπή", "απάτη"])


# The benchmark's table and script (no node needed): the table must never divide by zero or hide a missing dataset
# behind a traceback. The script is run as a program, as people run it: the tests import no bench/ module.


def test_ratio_prints_a_dash_for_a_zero_or_missing_denominator() -> None:
    from nomos.eval.paper_bm25 import ratio

    assert ratio(130.0, 1.3, speed=True) == "100.0×"
    assert ratio(0.25, 0.125, speed=False) == "2.00"
    assert ratio(0.2, 0.0, speed=False) == "—"
    assert ratio(None, 1.0, speed=True) == "—"


def test_overlap_is_the_mean_share_of_common_ids() -> None:
    from nomos.eval.paper_bm25 import overlap

    a = {"q1": [("x", 3.0), ("y", 2.0)], "q2": [("z", 1.0)]}
    b = {"q1": [("y", 5.0), ("w", 1.0)], "q2": [("z", 2.0)]}
    assert overlap(a, b, 2) == pytest.approx((1 / 2 + 1 / 2) / 2)


def test_a_missing_dataset_exits_with_a_clear_message(tmp_path) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, str(root / "bench" / "bm25_vs_paper.py"), "--dataset", str(tmp_path / "absent")],
                          cwd=root, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(root)})  # this tree's nomos
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "no dataset at" in done.stderr and "--dataset" in done.stderr
