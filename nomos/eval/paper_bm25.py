"""The paper's BM25 pipeline, re-implemented small and faithfully, as the yardstick for the project's BM25.

It lives in nomos/eval (files and numbers, no node) because the benchmark and the tests both need it: the tests
check the yardstick itself, and bench/bm25_vs_paper.py measures the project's BM25 against it. rank_bm25 and
PyStemmer are imported where they are used (requirements-test.txt), so nothing of the main install needs them.

GreekBarRetrieval ran ``rank_bm25.BM25Okapi`` (k1 = 1.5, b = 0.75) over title + text, with tokens upper-cased,
accents stripped, a small stop list removed and a Greek stemmer applied. This module keeps that recipe in two
reusable pieces, tokenizer apart from scorer (as bm25s does), so the tokenizer can be tested on its own and the
scorer fed with any token lists:

- :class:`PaperTokenizer`: regex word tokens → accents and diacritics dropped (NFD, combining marks removed) →
  upper case → a small Greek stop list (written out below) → Snowball Greek stems (PyStemmer).
- :class:`PaperBM25`: ``BM25Okapi`` over the tokenised ``title + "\\n" + text`` of every article, ranking by
  (score desc, doc id asc), the project's tie rule.

Two choices had to be made where the paper is silent; both are checked on the stand-in corpus (6.4k articles):

- Snowball's Greek stemmer lower-cases Greek capitals and folds tonos and final sigma itself, so upper-casing
  first (the paper's convention) gives the same stems as lower-casing; its output is lower-case Greek. It maps
  ``ϊ`` (iota with dialytika) to ``η``, though (``προϊόν`` → ``προηον``, ``Ευρωπαϊκής`` → ``ευρωπαηκ``), so the
  diacritics are stripped in Python *before* stemming, as the paper's pipeline did, giving ``προιον``.
- Articles that share no term with the query score 0 in ``BM25Okapi``; they are left out of the ranking rather
  than appended in doc-id order, so a run holds only articles the query actually matched (as OpenSearch's).

``BM25Okapi`` differs from Lucene's BM25 in its idf (``log((N - n + 0.5) / (n + 0.5))``, negative values floored
at 0.25 × the mean idf, against Lucene's ``log(1 + (N - n + 0.5) / (n + 0.5))``) and in exact document lengths
(Lucene stores them lossily in one byte), so the two rankings are close but not identical. The idf floor is why
the stop list matters far more here than under Lucene: on the stand-in corpus the mean idf is about 7.2, so a
word found in most articles (``η``, ``να``) still weighs 0.25 × 7.2 ≈ 1.8 (Lucene gives it 0.1–0.5), and without
the stop list the function words of a long case description outvote its few legal terms.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from typing import Iterable, Protocol, Sequence

import numpy as np

Run = dict[str, list[tuple[str, float]]]  # query id -> (doc id, score), best first
DASH = "—"


class Titled(Protocol):
    """What the paper scored of an article (a corpus record of nomos.ingest, which eval does not import)."""

    id: str
    title: str
    text: str

K1 = 1.5
B = 0.75

# Words as runs of letters and digits (``\w`` without the underscore), matched after diacritics are removed.
WORD = re.compile(r"[^\W_]+")


def _combining_marks() -> re.Pattern[str]:
    """One character class of every combining mark (tonos, dialytika, breathings, ypogegrammeni, …)."""
    ranges: list[tuple[int, int]] = []
    for cp in range(sys.maxunicode + 1):
        if unicodedata.combining(chr(cp)):
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1] = (ranges[-1][0], cp)
            else:
                ranges.append((cp, cp))
    body = "".join(re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "") for a, b in ranges)
    return re.compile(f"[{body}]+")


COMBINING = _combining_marks()

# A small Greek stop list, as the paper used one (its exact list is not published): articles, personal and
# relative pronouns, prepositions (with their contractions with the article), conjunctions, particles and the
# commonest auxiliary forms. Written upper-case and unaccented because it is applied after that folding.
GREEK_STOPWORDS: frozenset[str] = frozenset(
    """
    Ο Η ΤΟ ΟΙ ΤΑ ΤΟΥ ΤΗΣ ΤΩΝ ΤΟΝ ΤΗΝ ΤΗ ΤΟΥΣ ΤΙΣ ΤΕΣ
    ΕΝΑΣ ΕΝΑ ΕΝΑΝ ΕΝΟΣ ΜΙΑ ΜΙΑΣ ΜΙΑΝ
    ΚΑΙ ΚΙ Ν ΝΑ ΘΑ ΔΕΝ ΔΕ ΜΗΝ ΜΗ ΟΥΤΕ ΜΗΤΕ ΕΙΤΕ ΑΛΛΑ ΟΜΩΣ ΕΝΩ ΑΦΟΥ ΟΤΙ ΠΩΣ ΠΟΥ ΑΝ ΕΑΝ ΟΤΑΝ ΟΠΩΣ ΟΠΟΥ
    ΣΕ Σ ΣΤΟ ΣΤΟΝ ΣΤΗ ΣΤΗΝ ΣΤΑ ΣΤΟΥΣ ΣΤΙΣ ΣΤΟΥ ΣΤΗΣ ΣΤΩΝ
    ΑΠΟ ΜΕ ΓΙΑ ΠΡΟΣ ΩΣ ΕΩΣ ΚΑΤΑ ΚΑΤ ΜΕΤΑ ΠΑΡΑ ΑΝΤΙ ΧΩΡΙΣ ΕΠΙ ΥΠΟ ΔΙΑ ΠΕΡΙ ΑΝΕΥ ΕΚ ΕΞ ΕΝ ΜΕΧΡΙ
    ΜΟΥ ΣΟΥ ΜΑΣ ΣΑΣ ΕΓΩ ΕΣΥ ΕΜΕΙΣ ΕΣΕΙΣ
    ΑΥΤΟΣ ΑΥΤΗ ΑΥΤΟ ΑΥΤΟΙ ΑΥΤΕΣ ΑΥΤΑ ΑΥΤΟΥ ΑΥΤΗΣ ΑΥΤΩΝ ΑΥΤΟΝ ΑΥΤΗΝ ΑΥΤΟΥΣ
    ΕΚΕΙΝΟΣ ΕΚΕΙΝΗ ΕΚΕΙΝΟ ΕΚΕΙΝΟΙ ΕΚΕΙΝΕΣ ΕΚΕΙΝΑ
    ΟΠΟΙΟΣ ΟΠΟΙΑ ΟΠΟΙΟ ΟΠΟΙΟΙ ΟΠΟΙΕΣ ΟΠΟΙΟΥ ΟΠΟΙΑΣ ΟΠΟΙΩΝ ΟΠΟΙΟΝ ΟΠΟΙΑΝ ΟΠΟΙΟΥΣ
    ΠΟΙΟΣ ΠΟΙΑ ΠΟΙΟ ΠΟΙΟΙ ΠΟΙΕΣ ΠΟΙΟΥ ΠΟΙΑΣ ΠΟΙΩΝ ΠΟΙΟΝ ΠΟΙΟΥΣ ΤΙ
    ΕΙΝΑΙ ΗΤΑΝ ΕΙΧΕ ΕΧΕΙ ΕΧΟΥΝ ΟΣΟ ΟΣΑ ΤΟΣΟ ΠΙΟ ΠΟΛΥ ΗΔΗ
    """.split()
)


def strip_diacritics(text: str) -> str:
    """``text`` without accents, dialytika, breathings or any other combining mark (NFD, marks dropped)."""
    return COMBINING.sub("", unicodedata.normalize("NFD", text))


class PaperTokenizer:
    """Text → stems, the paper's way: word tokens, no diacritics, upper case, stop words out, Snowball Greek.

    Stateless apart from PyStemmer's word cache, so one instance can tokenise a corpus and then its queries (the
    same chain on both sides is what makes the stems meet).
    """

    def __init__(self, stopwords: Iterable[str] = GREEK_STOPWORDS, stemmer: str = "greek") -> None:
        self.stopwords = frozenset(strip_diacritics(w).upper() for w in stopwords)
        import Stemmer  # PyStemmer (requirements-test.txt): the paper's pipeline only

        self.stemmer = Stemmer.Stemmer(stemmer)

    def words(self, text: str) -> list[str]:
        """Folded word tokens (no diacritics, upper case) with stop words removed, before stemming."""
        return [w for w in WORD.findall(strip_diacritics(text).upper()) if w not in self.stopwords]

    def tokenize(self, text: str) -> list[str]:
        """The stems BM25 scores: Snowball Greek over :meth:`words` (Greek stems come back lower-case).

        Snowball strips some words to nothing (``ΙΔΙΑ``/``ΙΔΙΟ`` "same" → ``""``); an empty stem says nothing
        about the text and would match every article holding any such word, so it is dropped.
        """
        return [s for s in self.stemmer.stemWords(self.words(text)) if s]

    __call__ = tokenize

    def tokenize_many(self, texts: Iterable[str]) -> list[list[str]]:
        return [self.tokenize(t) for t in texts]


def article_text(article: Titled) -> str:
    """What the paper scored for an article: its title, a line break, its text."""
    return f"{article.title}\n{article.text}"


class PaperBM25:
    """``rank_bm25.BM25Okapi`` (k1 = 1.5, b = 0.75 unless given) over :class:`PaperTokenizer` stems.

    Scoring is rank_bm25's own: every query scores every document in Python, which is what the paper's pipeline
    costs per query and what the benchmark measures against OpenSearch.
    """

    def __init__(
        self,
        doc_ids: Sequence[str],
        texts: Sequence[str],
        tokenizer: PaperTokenizer | None = None,
        k1: float = K1,
        b: float = B,
    ) -> None:
        if len(doc_ids) != len(texts):
            raise ValueError(f"{len(doc_ids)} ids but {len(texts)} texts")
        if not doc_ids:
            raise ValueError("cannot build BM25 over an empty corpus")
        if len(set(doc_ids)) != len(doc_ids):
            raise ValueError("document ids must be unique")
        self.tokenizer = tokenizer or PaperTokenizer()
        self.k1 = k1
        self.b = b
        self.doc_ids: list[str] = list(doc_ids)
        # Position of each document in doc-id order: the secondary sort key that makes ties deterministic.
        order = sorted(range(len(self.doc_ids)), key=self.doc_ids.__getitem__)
        self._id_rank = np.empty(len(order), dtype=np.int64)
        self._id_rank[order] = np.arange(len(order))
        from rank_bm25 import BM25Okapi  # requirements-test.txt: the paper's pipeline only

        self.bm25 = BM25Okapi(self.tokenizer.tokenize_many(texts), k1=k1, b=b)

    @classmethod
    def from_articles(cls, articles: Iterable[Titled], **kwargs: object) -> PaperBM25:
        """Index articles as the paper did: ``title + "\\n" + text``."""
        arts = list(articles)
        return cls([a.id for a in arts], [article_text(a) for a in arts], **kwargs)  # type: ignore[arg-type]

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document for ``query``, in corpus order."""
        return self.bm25.get_scores(self.tokenizer.tokenize(query))

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """Top-``k`` (doc id, score), sorted by (score desc, doc id asc); documents scoring 0 are left out."""
        scores = self.scores(query)
        order = np.lexsort((self._id_rank, -scores))
        out: list[tuple[str, float]] = []
        for i in order[:k]:
            if scores[i] <= 0.0:
                break
            out.append((self.doc_ids[i], float(scores[i])))
        return out

    def describe(self) -> dict[str, object]:
        """What a results manifest needs to reproduce this ranking."""
        return {
            "method": "paper-bm25",
            "library": "rank_bm25.BM25Okapi",
            "k1": self.k1,
            "b": self.b,
            "epsilon": self.bm25.epsilon,
            "tokenizer": "regex [^\\W_]+, NFD diacritics stripped, upper-cased, Greek stop list, Snowball greek",
            "stopwords": len(self.tokenizer.stopwords),
            "documents": len(self.doc_ids),
            "text": "title + '\\n' + text",
        }


def ratio(num: float | None, den: float | None, speed: bool) -> str:
    """``num / den``, as a speed-up (``×``) or a plain ratio; a missing or zero denominator prints a dash (the
    comparison table of bench/bm25_vs_paper.py)."""
    if num is None or den is None or den == 0:
        return DASH
    return f"{num / den:.1f}×" if speed else f"{num / den:.2f}"


def overlap(a: Run, b: Run, k: int) -> float:
    """Mean over queries of |top-k(a) ∩ top-k(b)| / k: how far two rankings agree, regardless of relevance."""
    qids = sorted(set(a) | set(b))
    if not qids:
        return 0.0
    return sum(len({d for d, _ in a.get(q, [])[:k]} & {d for d, _ in b.get(q, [])[:k]}) / k for q in qids) / len(qids)


__all__ = ["GREEK_STOPWORDS", "PaperBM25", "PaperTokenizer", "article_text", "overlap", "ratio", "strip_diacritics"]
