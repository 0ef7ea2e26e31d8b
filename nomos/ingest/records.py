"""The validated records every other stage works on: articles, queries, judgments."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from nomos.errors import DataError
from nomos.legal.text.areas import area_of


class DatasetError(DataError):
    """Bad input, located: the message names the file (and line or field) at fault."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.reason = message


@dataclass(frozen=True)
class Article:
    """One statutory article; ``id`` follows the benchmark's ``SOURCE::ARTICLE`` convention.

    ``area`` is a key of ``nomos/legal/text/areas.json``: the corpus's own when it gives one (the loader resolves and
    checks it), else filled here from the table by source and law title, so every article carries one."""

    id: str
    title: str
    text: str
    source: str = ""
    law: str = ""
    area: str = ""

    def __post_init__(self) -> None:
        if not self.area:
            object.__setattr__(self, "area", area_of(self.source, self.law))

    @property
    def passage(self) -> str:
        """What dense encoders read: the title, then the text."""
        return f"{self.title}\n{self.text}" if self.title else self.text

    @property
    def number(self) -> str:
        """The article number after ``::`` (used to order neighbours of the same law)."""
        return self.id.split("::", 1)[1] if "::" in self.id else self.id


@dataclass(frozen=True)
class Query:
    """A case described in everyday language, with the question asked about it."""

    id: str
    text: str
    area: str = ""
    meta: Mapping[str, str] = field(default_factory=dict)

    @property
    def case_text(self) -> str:
        """The text every method reads: a dataset's ``question`` field, where it has one, as the last paragraph
        after a blank line (how the benchmark writes its case files, and where the retrievers look for the
        question: nomos.retrieval.case_reading); the text unchanged when it already ends that way."""
        question = " ".join(str(self.meta.get("question", "")).split())
        if not question:
            return self.text
        body = self.text.rstrip()
        flat = " ".join(body.split())
        if flat.endswith(question):
            # drop the question's words from the end, however the text spaced them
            words, cut = body.split(), len(question.split())
            facts_words = words[: len(words) - cut]
            if not facts_words:
                return question
            idx = 0
            for w in facts_words:  # the facts keep their own line breaks: cut after their last word
                idx = body.index(w, idx) + len(w)
            return f"{body[:idx].rstrip()}\n\n{question}"
        return f"{body}\n\n{question}"


Qrels = dict[str, dict[str, int]]
"""query id -> article id -> relevance grade (binary in this benchmark)."""


@dataclass(frozen=True)
class Dataset:
    """A corpus, its queries and judgments, plus where they came from (for manifests)."""

    name: str
    revision: str
    fingerprint: str
    articles: tuple[Article, ...]
    queries: tuple[Query, ...]
    qrels: Qrels
    # the corpus alone: what an index is built from, so new queries or judgments over the same corpus need no new
    # index ("" for a dataset made before it existed: the whole fingerprint stands in)
    corpus_fingerprint: str = ""
    # where it was loaded from ("greekbar", or a folder's absolute path) and the judgments that replaced its own:
    # recorded in every manifest, so compare, report and dashboards push can load it again without --dataset
    location: str = ""
    judgment_files: tuple[str, ...] = ()

    def __repr__(self) -> str:
        """One line (the generated repr printed every article: 16 MB for the stand-in)."""
        d = self.describe()
        return (f"Dataset({self.name!r}, revision {self.revision!r}, {d['articles']:,} articles, {d['queries']:,} "
                f"queries, {d['judgments']:,} judgments, fingerprint {self.fingerprint[:12]})")

    @property
    def corpus_key(self) -> str:
        """The fingerprint an index is named after and checked against."""
        return self.corpus_fingerprint or self.fingerprint

    def describe(self) -> dict[str, object]:
        """What a manifest records about the data a result was produced from."""
        return {
            "name": self.name,
            "revision": self.revision,
            "fingerprint": self.fingerprint,
            "corpus_fingerprint": self.corpus_key,
            "location": self.location,
            "judgment_files": list(self.judgment_files),
            "articles": len(self.articles),
            "queries": len(self.queries),
            "judgments": sum(len(v) for v in self.qrels.values()),
        }
