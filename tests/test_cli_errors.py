"""Every verb turns the project's errors into one line, ``error: <message>`` and exit status 1, never a
traceback; a usage error exits 2; ``-v`` shows the stack. Each case of issue 22 is driven through the real CLI
(click's CliRunner; a subprocess where the process's own stderr matters)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from nomos.cli import cli
from tests.beir_files import write_beir

ROOT = Path(__file__).resolve().parent.parent


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def clean(res) -> None:  # click's Result
    """A failure the user caused or met: status 1, one 'error:' message, no stack trace."""
    assert res.exit_code == 1, res.output
    assert "error: " in res.stderr and "Traceback" not in res.output, res.output
    assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit), repr(res.exception)


# ------------------------------------------------------------------------------------------------ no cluster
def test_negative_k_is_a_usage_error() -> None:
    res = CliRunner().invoke(cli, ["--url", "http://127.0.0.1:9", "search", "-k", "-3", "κλοπή"])
    assert res.exit_code == 2 and "-k" in res.stderr and "x>=1" in res.stderr and "Traceback" not in res.output


def test_search_with_the_node_down_and_no_method() -> None:
    """No --method: the default method asks the index for vectors first; a closed port is one message after
    NOMOS_RETRY_SECONDS, not opensearch-py's traceback per attempt."""
    res = CliRunner(env={"NOMOS_RETRY_SECONDS": "1"}).invoke(
        cli, ["--url", f"http://127.0.0.1:{closed_port()}", "search", "κλοπή"])
    clean(res)


def test_eval_with_the_node_down_past_the_retry_time(tmp_path) -> None:
    folder = write_beir(tmp_path / "mini")
    res = CliRunner(env={"NOMOS_RETRY_SECONDS": "1"}).invoke(
        cli, ["--url", f"http://127.0.0.1:{closed_port()}", "eval", "--dataset", str(folder), "--runs-dir", str(tmp_path / "runs")])
    clean(res)
    assert len(res.stderr.splitlines()) < 10  # one message, not a stack per failed connection


def _offline_env() -> dict[str, str]:
    return {"HF_ENDPOINT": f"http://127.0.0.1:{closed_port()}", "HF_HUB_OFFLINE": None, "HF_DATASETS_OFFLINE": None}


def test_eval_without_dataset_offline_fails_fast(tmp_path) -> None:
    """An unreachable Hub: one quick check, then "no network: pass --dataset PATH" (it took 24 s and 12 Hub
    warnings before)."""
    env = {**_offline_env(), "NOMOS_CACHE_DIR": str(tmp_path / "cache")}
    started = time.monotonic()
    res = CliRunner(env=env).invoke(cli, ["--url", "http://127.0.0.1:9", "eval", "--runs-dir", str(tmp_path / "runs")])
    seconds = time.monotonic() - started
    clean(res)
    assert "no network: pass --dataset PATH" in res.stderr
    assert seconds < 12, f"took {seconds:.1f}s"  # the datasets import alone is a few seconds on a busy machine


def test_index_without_dataset_in_hub_offline_mode(tmp_path) -> None:
    env = {"HF_HUB_OFFLINE": "1", "NOMOS_CACHE_DIR": str(tmp_path / "cache")}
    res = CliRunner(env=env).invoke(cli, ["--url", "http://127.0.0.1:9", "index"])
    clean(res)
    assert "no network: pass --dataset PATH" in res.stderr and "HF_HUB_OFFLINE" in res.stderr


def test_v_shows_the_stack_of_the_same_error(tmp_path) -> None:
    env = {"HF_HUB_OFFLINE": "1", "NOMOS_CACHE_DIR": str(tmp_path / "cache")}
    quiet = CliRunner(env=env).invoke(cli, ["--url", "http://127.0.0.1:9", "index"])
    loud = CliRunner(env=env).invoke(cli, ["--url", "http://127.0.0.1:9", "index", "-v"])  # -v after the verb counts too
    assert quiet.exit_code == loud.exit_code == 1
    assert "Traceback" not in quiet.stderr and "Traceback (most recent call last)" in loud.stderr
    assert "DatasetError" in loud.stderr and loud.stderr.rstrip().splitlines()[-1] == quiet.stderr.rstrip().splitlines()[-1]


def test_a_real_process_prints_one_line_and_exit_1(tmp_path) -> None:
    """The installed entry point (python cli.py) behaves as CliRunner shows: one line on stderr, status 1."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NOMOS_RETRY_SECONDS": "1"}
    folder = write_beir(tmp_path / "bad", corpus_text='{"_id": "PK::1"}\n')
    proc = subprocess.run([sys.executable, str(ROOT / "cli.py"), "--url", "http://127.0.0.1:9", "index", "--dataset", str(folder)],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.strip() == f"error: {folder / 'corpus.jsonl'}:1: field 'text' is missing"


def test_a_bug_keeps_its_traceback() -> None:
    """Only the NomosError family is turned into a message: anything else is a bug and must be seen as one."""
    from nomos.cli.main import NomosGroup

    @__import__("click").command(cls=None)
    def boom() -> None:
        raise ZeroDivisionError("a bug")

    group = NomosGroup("root")
    group.add_command(boom, "boom")
    res = CliRunner().invoke(group, ["boom"])
    assert res.exit_code == 1 and isinstance(res.exception, ZeroDivisionError)


# ------------------------------------------------------------------------------------------------ real node
@pytest.fixture
def bm25_only(os_settings, tmp_path):
    """A mini index without vectors, and the CLI arguments that reach it."""
    from nomos.ingest.beir import load_beir
    from nomos.stages.indexing import index_dataset

    index_dataset(os_settings, load_beir(write_beir(tmp_path / "mini")))
    return ["--url", os_settings.url, "--index", os_settings.index_alias]


@pytest.mark.integration
def test_prf_with_an_analysis_it_does_not_take(bm25_only) -> None:
    res = CliRunner().invoke(cli, [*bm25_only, "search", "--method", "bm25-prf", "--analysis", "ntais", "κλοπή"])
    clean(res)
    assert "ntais" in res.stderr


@pytest.mark.integration
def test_rerank_with_a_missing_cross_encoder(bm25_only) -> None:
    res = CliRunner().invoke(cli, [*bm25_only, "search", "--method", "bm25", "--rerank", "cross-encoder:/nonexistent", "κλοπή"])
    clean(res)
    assert "/nonexistent" in res.stderr


@pytest.mark.integration
@pytest.mark.parametrize("method", ["knn", "hybrid", "rrf"])
def test_dense_methods_on_an_index_without_vectors(bm25_only, method) -> None:
    res = CliRunner().invoke(cli, [*bm25_only, "search", "--method", method, "κλοπή"])
    clean(res)
    assert "--embedder" in res.stderr


@pytest.mark.integration
@pytest.mark.parametrize("verb", [["eval", "--method", "bm25"], ["tune"]])
def test_eval_and_tune_against_an_index_that_does_not_exist(os_settings, tmp_path, verb) -> None:
    """A mistyped --index (or NOMOS_INDEX) is one line naming it and how to build it, not opensearch-py's
    NotFoundError with its stack (the stages read the index's _meta through the transport)."""
    folder = write_beir(tmp_path / "mini")
    res = CliRunner().invoke(cli, ["--url", os_settings.url, "--index", "pytest-no-such-index", *verb,
                                   "--dataset", str(folder)], env={"NOMOS_RUNS_DIR": str(tmp_path / "runs")})
    clean(res)
    assert "no such index [pytest-no-such-index]" in res.stderr and "cli.py index" in res.stderr
