"""The front door (nomos/api.py): the README's Python block runs as written, and the calls keep their promises
(typed hits, the eval's ranking, NomosError only). Most tests talk to the session's real node; the error cases
without a cluster need none."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

import nomos
from nomos.retrieval.registry import MethodOptions
from nomos.settings import Settings
from nomos.stages.evaluation import evaluate_method

README = Path(__file__).resolve().parent.parent / "README.md"
STAND_IN = "../shared/data/greek-statutes"


def readme_block() -> str:
    """The first ```python block of the README's "From Python" section."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## From Python"):]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "README's 'From Python' section has no python block"
    return match.group(1)


# ------------------------------------------------------------------------------------------------ no cluster
def test_the_public_names_resolve_and_are_few() -> None:
    for name in nomos.__all__:
        assert getattr(nomos, name) is not None, name
    assert {"Searcher", "Hit", "load_dataset", "index_dataset", "evaluate", "NomosError"} <= set(nomos.__all__)
    assert issubclass(nomos.ClusterUnavailable, nomos.NomosError) and issubclass(nomos.ConfigError, nomos.NomosError)


def test_nomos_searcher_is_the_only_searcher() -> None:
    """The search stage's class is SearchStage: one name, one class (issue 48 found two classes called Searcher)."""
    import nomos.stages
    import nomos.stages.searching

    assert nomos.stages.SearchStage is nomos.stages.searching.SearchStage is not nomos.Searcher
    assert not hasattr(nomos.stages, "Searcher") and not hasattr(nomos.stages.searching, "Searcher")


def test_a_cluster_that_does_not_answer_is_a_nomos_error() -> None:
    searcher = nomos.Searcher(url="http://127.0.0.1:9", index="nowhere", retry_seconds=0)
    with pytest.raises(nomos.ClusterUnavailable, match="127.0.0.1:9"):
        searcher.search("κλοπή", method="bm25")
    with pytest.raises(nomos.ClusterUnavailable):
        searcher.batch_search(["κλοπή"], method="bm25")
    searcher.close()


def test_bad_options_and_methods_are_config_errors() -> None:
    searcher = nomos.Searcher(url="http://127.0.0.1:9", index="nowhere", retry_seconds=0)
    with pytest.raises(nomos.ConfigError, match="unknown search option.*colour.*one of .*analysis"):
        searcher.search("κλοπή", method="bm25", colour="red")
    with pytest.raises(nomos.ConfigError, match="method"):
        searcher.search("κλοπή", method="no-such-method")
    with pytest.raises(nomos.ConfigError, match="settings"):
        nomos.Searcher(url="http://127.0.0.1:9", bm25_k1="many")


def test_evaluate_takes_hits_or_pairs_alike() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1, "c": 1}}
    pairs = {"q1": [("x", 2.0), ("a", 1.0)], "q2": [("c", 1.0)]}
    hits = {q: [nomos.Hit(d, s) for d, s in ranked] for q, ranked in pairs.items()}
    by_pairs = nomos.evaluate(pairs, qrels, metrics=["recall@10", "ndcg@10"])
    assert by_pairs.mean == nomos.evaluate(hits, qrels, metrics=["recall@10", "ndcg@10"]).mean
    assert by_pairs.mean["recall@10"] == pytest.approx(0.75)  # q1 1/1, q2 1/2
    with pytest.raises(nomos.ConfigError, match="no query has a relevant judgment"):
        nomos.evaluate(pairs, {"q1": {"a": 0}})


def test_evaluate_reads_ranx_order_and_a_metric_name() -> None:
    """ranx's evaluate(qrels, run) gives the same numbers as ours, and one metric name is one metric, not its
    letters; a ranx-style run (doc id -> score) ranks by score, ties by id."""
    qrels = {"q1": {"a": 1}, "q2": {"b": 1, "c": 1}}
    pairs = {"q1": [("x", 2.0), ("a", 1.0)], "q2": [("c", 1.0)]}
    ours = nomos.evaluate(pairs, qrels, metrics="recall@10")
    assert list(ours.mean) == ["recall@10"] and ours.mean["recall@10"] == pytest.approx(0.75)
    assert nomos.evaluate(qrels, pairs, "recall@10").mean == ours.mean
    as_ranx = {q: {d: s for d, s in ranked} for q, ranked in pairs.items()}
    assert nomos.evaluate(as_ranx, qrels, "recall@10").mean == ours.mean
    assert nomos.evaluate(qrels, as_ranx, "recall@10").mean == ours.mean


def test_evaluate_says_what_it_got() -> None:
    qrels = {"q1": {"a": 1}}
    with pytest.raises(nomos.ConfigError, match="run must map query ids to ranked hits, got str"):
        nomos.evaluate("run.trec", qrels)
    with pytest.raises(nomos.ConfigError, match="evaluate: .*") as caught:
        nomos.evaluate({"q1": "a b c"}, qrels, "recall@10")
    assert "query id -> str" in str(caught.value.hint)


def test_api_errors_name_the_parameter_not_a_flag() -> None:
    searcher = nomos.Searcher(url="http://127.0.0.1:9", index="nowhere", retry_seconds=0)
    with pytest.raises(nomos.ConfigError, match=r"^k\b.* must be at least 1, got 0"):
        searcher.search("κλοπή", k=0, method="bm25")
    with pytest.raises(nomos.ConfigError, match="^analysis 'nope'"):
        searcher.search("κλοπή", method="bm25", analysis="nope")
    searcher.close()


def test_load_dataset_names_the_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(nomos.DataError, match=str(tmp_path / "absent")):
        nomos.load_dataset(tmp_path / "absent")


# ------------------------------------------------------------------------------------------------ a real node
@pytest.mark.integration
def test_the_readme_block_runs_as_written(os_settings: Settings, mini_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The block as the README prints it, on the six-article folder instead of the 6,412-article stand-in (the
    only change), against the session's node through the environment, as a user's notebook would."""
    code = readme_block()
    assert STAND_IN in code
    # issue 50: the block indexed into the live alias `make run` was filling, without a word; it has an alias of its
    # own (here the test's), named on both calls, and never the environment's
    assert code.count('index="nomos-notebook"') == 2
    code = code.replace('"nomos-notebook"', repr(os_settings.index_alias))
    monkeypatch.setenv("NOMOS_HTTP_PORT", str(os_settings.http_port))
    monkeypatch.setenv("NOMOS_INDEX", "pytest-the-live-alias-must-not-be-used")
    monkeypatch.setenv("NOMOS_CACHE_DIR", str(os_settings.cache_dir))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.replace(STAND_IN, str(mini_folder)), "README.md", "exec"), {})  # the README's own code
    lines = out.getvalue().splitlines()
    assert lines[0] == "PK::372 Κλοπή"  # the theft article first for a theft query
    means = eval(lines[-1], {})  # a dict of floats the block printed
    assert set(means) == {"recall@100", "ndcg@10"} and means["recall@100"] == pytest.approx(1.0)
    from nomos.opensearch.client import make_client

    assert not make_client(os_settings.cluster).indices.exists_alias(name="pytest-the-live-alias-must-not-be-used")


@pytest.mark.integration
def test_batch_search_is_the_ranking_eval_scores(os_settings: Settings, mini) -> None:  # a Dataset
    nomos.index_dataset(mini, vectors=False, settings=os_settings)
    with nomos.Searcher(settings=os_settings) as searcher:
        assert searcher.default_method() == "bm25"  # no vectors: BM25 is what None means
        run = searcher.batch_search({q.id: q.case_text for q in mini.queries}, k=5, method="bm25", analysis="ntais")
        assert all(isinstance(h, nomos.Hit) for hits in run.values() for h in hits)
        page = searcher.page("κλοπή", k=3, method="bm25")
        assert page.hits[0].doc_id == "PK::372" and page.facets and page.total >= 1
    outcome = evaluate_method(os_settings, mini, "bm25", k=5, options=MethodOptions(), analysis="ntais", write=False)
    assert outcome.paths == {} and not (os_settings.runs_dir / mini.name).exists()  # scored, nothing written
    assert outcome.run_name == "bm25-ntais"  # analysis is honoured beside options, not silently dropped
    assert nomos.evaluate(run, mini).mean == outcome.evaluation.mean
