"""The conventions IR users expect from a command line (Pyserini, ranx), checked through the real CLI: one -k,
global options after the verb, batch search of a topics file to a TREC run, eval --metrics, compare of TREC run
files made elsewhere, a re-used --run-name refused, and help on every option."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from nomos.cli import cli
from nomos.eval.metrics import METRICS
from nomos.eval.runs import format_trec, read_trec
from nomos.ingest.records import DatasetError
from nomos.ingest.topics import read_topics
from tests.beir_files import QUERIES, write_beir


def walk(cmd: click.Command, path: tuple[str, ...] = ()):  # yields (path, command)
    yield path, cmd
    if isinstance(cmd, click.Group):
        for name, sub in cmd.commands.items():
            yield from walk(sub, (*path, name))


def test_every_option_of_every_verb_has_help() -> None:
    missing = [f"{' '.join(path) or 'nomos'} {p.opts[0]}" for path, cmd in walk(cli) for p in cmd.params
               if isinstance(p, click.Option) and not (p.help or "").strip()]
    assert missing == []
    ctx = click.Context(cli)
    assert all(not p.help or p.help.strip() for p in cli.get_params(ctx))  # --help and --version included


def test_k_means_results_per_query_everywhere() -> None:
    """Every -k is the same option: --k, an integer of at least 1; no verb keeps another spelling of it."""
    ks = {" ".join(path): p for path, cmd in walk(cli) for p in cmd.params if isinstance(p, click.Option) and "-k" in p.opts}
    assert set(ks) >= {"search", "eval"}
    for verb, p in ks.items():
        assert p.opts == ["-k", "--k"] and p.name == "k", verb
        assert isinstance(p.type, click.IntRange) and p.type.min == 1, verb
    flags = {f for _, cmd in walk(cli) for p in cmd.params if isinstance(p, click.Option) for f in p.opts}
    assert not flags & {"--top", "--depth", "--hits"}
    for verb in (["search", "κλοπή"], ["eval"]):
        res = CliRunner().invoke(cli, ["--url", "http://127.0.0.1:9", *verb, "-k", "0"])
        assert res.exit_code == 2 and "x>=1" in res.stderr


def test_global_options_after_the_verb(tmp_path) -> None:
    env_free = {"OPENSEARCH_URL": None, "NOMOS_INDEX": None}
    res = CliRunner(env=env_free).invoke(cli, ["server", "status", "--url", "http://127.0.0.1:9/"])
    assert res.exit_code == 0 and "OPENSEARCH_URL is set (http://127.0.0.1:9)" in res.stdout
    res = CliRunner(env=env_free).invoke(cli, ["-v", "server", "status", "-q"])
    assert res.exit_code == 2 and "-v and -q contradict" in res.stderr
    # the same options, one definition: the root's and a verb's list the same flags and help
    root = {p.opts[0]: p.help for p in cli.params if isinstance(p, click.Option) and p.opts[0] != "--version"}
    search = {p.opts[0]: p.help for p in cli.commands["search"].params if p.opts[0] in root}
    assert search == root
    # llm's --port is the LLM server's: the global --port stays off those verbs
    llm_ports = [p for p in cli.commands["llm"].commands["status"].params if "--port" in p.opts]
    assert [p.name for p in llm_ports] == ["llm_port"]


def test_eval_metrics_are_checked_before_anything_runs(tmp_path) -> None:
    folder = write_beir(tmp_path / "mini")
    res = CliRunner().invoke(cli, ["--url", "http://127.0.0.1:9", "eval", "--dataset", str(folder), "--metrics", "recall@10,bleu"])
    assert res.exit_code == 2 and "unknown metric 'bleu'" in res.stderr and "ndcg" in res.stderr and "Traceback" not in res.output
    assert cli.commands["eval"].params[[p.name for p in cli.commands["eval"].params].index("metrics")].default == ",".join(METRICS)


def _with_a_run(tmp_path, name: str):
    """The mini dataset's folder and a runs folder that already holds a run named ``name``."""
    folder = write_beir(tmp_path / "mini")
    runs = tmp_path / "runs"
    (runs / "mini" / name).mkdir(parents=True)
    (runs / "mini" / name / "metrics.json").write_text("{}")
    return folder, runs


def test_a_reused_run_name_is_refused_unless_overwrite(tmp_path) -> None:
    folder, runs = _with_a_run(tmp_path, "mine")
    args = ["--url", "http://127.0.0.1:9", "eval", "--dataset", str(folder), "--runs-dir", str(runs), "--run-name", "mine"]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 2 and "already holds a run" in res.stderr and "--overwrite" in res.stderr
    res = CliRunner(env={"NOMOS_RETRY_SECONDS": "1"}).invoke(cli, [*args, "--overwrite"])
    assert res.exit_code == 1 and "already holds" not in res.output  # got past the check, to the (absent) node


def test_a_default_run_name_that_exists_is_refused_like_an_explicit_one(tmp_path) -> None:
    """Issue 50: a second ``eval`` without --run-name silently overwrote the first run (the explicit name was
    refused). The default name of bm25 with stemmed analysis is ``bm25``; with --analysis folded, ``bm25-folded``."""
    folder, runs = _with_a_run(tmp_path, "bm25")
    args = ["--url", "http://127.0.0.1:9", "eval", "--dataset", str(folder), "--runs-dir", str(runs), "--method", "bm25"]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 2 and "run 'bm25' (the default name for these options)" in res.stderr, res.output
    assert "--overwrite" in res.stderr and "--run-name NAME" in res.stderr
    env = {"NOMOS_RETRY_SECONDS": "1"}
    for more in (["--overwrite"], ["--run-name", "second"], ["--analysis", "folded"]):
        res = CliRunner(env=env).invoke(cli, [*args, *more])
        assert res.exit_code == 1 and "already holds" not in res.output, (more, res.output)  # on to the absent node


def test_compare_takes_trec_run_files_made_elsewhere(tmp_path) -> None:
    folder = write_beir(tmp_path / "mini")
    good, bad = tmp_path / "good.trec", tmp_path / "other.txt"
    good.write_text(format_trec({"q1": [("PK::372", 2.0), ("PK::375", 1.0)], "q2": [("AK::914", 3.0), ("AK::932", 2.0)]}, "good"))
    bad.write_text(format_trec({"q1": [("PK::375", 2.0)], "q2": [("PK::308", 1.0)]}, "weak"))
    res = CliRunner().invoke(cli, ["compare", str(good), str(bad), "--dataset", str(folder), "--permutations", "200"])
    assert res.exit_code == 0, res.output
    assert "good" in res.stdout and "other" in res.stdout and "recall@10" in res.stdout
    res = CliRunner().invoke(cli, ["compare", str(good), "--permutations", "200"])
    assert res.exit_code == 1 and "needs its judgments: pass --dataset" in res.stderr
    broken = tmp_path / "broken.trec"
    broken.write_text("q1 Q0 PK::372 1 2.0 t\nq1 Q0 PK::375 2 high t\n")
    res = CliRunner().invoke(cli, ["compare", str(good), str(broken), "--dataset", str(folder)])
    assert res.exit_code == 1 and f"{broken}:2: score 'high' is not a number" in res.stderr and "Traceback" not in res.output
    narrow = tmp_path / "runs" / "mini" / "narrow"  # a folder eval --metrics scored on other metrics
    narrow.mkdir(parents=True)
    (narrow / "metrics.json").write_text(json.dumps({"mean": {"mrr": 1.0}, "per_query": {"q1": {"mrr": 1.0}, "q2": {"mrr": 1.0}}}))
    res = CliRunner().invoke(cli, ["compare", str(good), str(narrow), "--dataset", str(folder)])
    assert res.exit_code == 1 and "scored without recall@10" in res.stderr and "Traceback" not in res.output


def test_topics_files_jsonl_and_tsv(tmp_path) -> None:
    jsonl = tmp_path / "topics.jsonl"
    jsonl.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in QUERIES), encoding="utf-8")
    tsv = tmp_path / "topics.tsv"
    tsv.write_text("".join(f"{q['_id']}\t{q['text'].replace(chr(10), ' ')}\n" for q in QUERIES), encoding="utf-8")
    assert list(read_topics(jsonl)) == list(read_topics(tsv)) == ["q1", "q2"]
    tsv.write_text("q1\tκλοπή\nq2 without a tab\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"topics.tsv:2: expected 'query id<TAB>query text'"):
        read_topics(tsv)
    tsv.write_text("q1\tκλοπή\n\nq1\tαπάτη\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"topics.tsv:3: duplicate query id 'q1'"):
        read_topics(tsv)
    res = CliRunner().invoke(cli, ["--url", "http://127.0.0.1:9", "search", "--topics", str(jsonl)])
    assert res.exit_code == 2 and "--topics needs --output" in res.stderr
    res = CliRunner().invoke(cli, ["--url", "http://127.0.0.1:9", "search", "κλοπή", "--topics", str(jsonl), "--output", "x"])
    assert res.exit_code == 2 and "one of them" in res.stderr


# ------------------------------------------------------------------------------------------------ real node
@pytest.mark.integration
def test_batch_search_search_after_verb_and_metrics(os_settings, tmp_path) -> None:
    """search --topics writes the TREC run eval writes (same retriever path, same writer); the global options
    work after the verb; eval --metrics scores what it is asked; --overwrite replaces a run."""
    folder = write_beir(tmp_path / "mini")
    runner = CliRunner()
    target = ["--url", os_settings.url, "--index", os_settings.index_alias]
    assert runner.invoke(cli, ["index", *target, "--no-vectors", "--dataset", str(folder)]).exit_code == 0
    res = runner.invoke(cli, ["search", *target, "--method", "bm25", "--json", "-k", "2", "κλοπή κινητού πράγματος"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["index"] == os_settings.index_alias

    runs = tmp_path / "runs"
    res = runner.invoke(cli, [*target, "eval", "--dataset", str(folder), "--runs-dir", str(runs), "--run-name", "e", "-k", "5",
                              "--metrics", "recall@5,ndcg@5,mrr", "--json"])
    assert res.exit_code == 0, res.output
    assert set(json.loads(res.stdout)["metrics"]) == {"recall@5", "ndcg@5", "mrr"}
    res = runner.invoke(cli, [*target, "eval", "--dataset", str(folder), "--runs-dir", str(runs), "--run-name", "e", "-k", "5",
                              "--overwrite", "--json"])
    assert res.exit_code == 0 and set(json.loads(res.stdout)["metrics"]) == set(METRICS)

    topics = tmp_path / "topics.jsonl"
    topics.write_text((folder / "queries.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "bm25.trec"
    res = runner.invoke(cli, [*target, "search", "--topics", str(topics), "--output", str(out), "--method", "bm25", "-k", "5"])
    assert res.exit_code == 0, res.output
    assert read_trec(out) == read_trec(runs / "mini" / "e" / "run.trec")  # the eval path's ranking, TREC as eval writes it
    assert {line.split()[5] for line in out.read_text().splitlines()} == {"bm25"}


def test_a_method_is_read_whatever_its_case(tmp_path) -> None:
    """Issue 50: `--method BM25` was refused for its capitals. The method name is taken in any case (and named in
    the registry's own spelling): here `eval` gets past the option to the default-run-name check."""
    folder, runs = _with_a_run(tmp_path, "bm25")
    args = ["--url", "http://127.0.0.1:9", "eval", "--dataset", str(folder), "--runs-dir", str(runs)]
    res = CliRunner().invoke(cli, [*args, "--method", "BM25"])
    assert res.exit_code == 2 and "run 'bm25' (the default name" in res.stderr, res.output  # read as bm25
    res = CliRunner().invoke(cli, [*args, "--method", "BM42"])
    assert res.exit_code == 2 and "Invalid value for '--method'" in res.stderr


def test_a_dataset_prints_as_one_line(tmp_path) -> None:
    """Issue 50: `print(data)` dumped every article (16 MB for the stand-in)."""
    from nomos.ingest.beir import load_beir

    data = load_beir(write_beir(tmp_path / "mini"))
    shown = repr(data)
    assert "\n" not in shown and len(shown) < 200, shown
    assert f"{len(data.articles)} articles, {len(data.queries)} queries" in shown and data.fingerprint[:12] in shown
