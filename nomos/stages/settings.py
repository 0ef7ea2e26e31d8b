"""What the CLI's verbs (the stages) read: the search's parts (:class:`~nomos.retrieval.settings.SearchSettings`)
and a run's own settings: where runs go, how big an article may be, the vector stage's options, progress lines and
the result indices' prefix. The Python API and the portal take this (the portal with its own part on top:
:mod:`nomos.portal.settings`)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from typing_extensions import Self

from nomos.retrieval.settings import SearchSettings


class StageSettings(SearchSettings):
    """The search's parts and a run's own fields; every field answers by flat name (``settings.runs_dir``)."""

    runs_dir: Path = Path("runs")
    # the most bytes of text (UTF-8) one article may have at ingest (`index` refuses a longer one naming its file and
    # line): one 5 MB article made its page take 2 s and slowed every other reader's search (issue 26)
    max_article_bytes: int = Field(default=1_000_000, gt=0)
    # after an encoder's single vectors, index embeds every article longer than the encoder's window as windows too
    # (nomos.vectors.windows; NOMOS_ARTICLE_WINDOWS=true or `index --windows`). Off by default: scored by their best
    # window, articles ranked worse on both dev sets (kNN Recall@100 extended 0.580 -> 0.490, case files 0.431 ->
    # 0.425, held out; docs/history/benchmarks-diary.md "Reading the question"), and the stage costs an hour on 2 cores
    article_windows: bool = False
    # after the vectors, index waits at most this long for the replaced copies to be purged (BM25 then scores as
    # on a text-only index); 0 skips it (the test session's small indices)
    expunge_wait_seconds: float = 90.0
    # where stderr is no terminal (a log file, CI), long stages print a plain progress line this often
    progress_seconds: float = Field(default=30.0, gt=0)
    results_prefix: str = "nomos-results"  # eval --to-opensearch writes <prefix>-per-query, -runs, -react-rounds, -traces

    def for_portal(self) -> Self:
        """These settings with the portal's own cluster identity (``portal_opensearch_*``) in place of the
        indexer's, where one is configured; unchanged otherwise."""
        cluster = self.cluster.for_portal()
        return self if cluster is self.cluster else self.model_copy(update={"cluster": cluster})
