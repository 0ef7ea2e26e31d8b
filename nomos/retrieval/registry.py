"""Method name → retriever: the one place that lists the methods, what each needs and what each can do.

Every entry point (CLI, portal, eval, benchmarks) builds retrievers with :func:`make_retriever` and asks
:func:`method_spec` what a method needs (vectors in the index, an LLM endpoint), whether it is stochastic, fused,
or returns snippets itself, and how the portal labels it. No other module lists method names. Importing this module
is cheap (no OpenSearch client, no numpy): the command line builds its ``--method`` choices from it at start-up."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable

from nomos.errors import ConfigError
from nomos.retrieval.fusion_config import FusionConfig

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

    from nomos.opensearch.transport import Transport
    from nomos.retrieval.base import FacetedRetriever, Retriever
    from nomos.retrieval.bm25 import BM25Retriever
    from nomos.retrieval.knn import KnnRetriever
    from nomos.retrieval.settings import SearchSettings, SearchSettingsT
    from nomos.vectors.cache import VectorCache
    from nomos.vectors.encoders import Encoder


@dataclass(frozen=True)
class MethodOptions:
    """Everything besides the method name that changes a ranking (one object, so entry points agree)."""

    analysis: str = "stemmed"
    embedder: str | None = None  # None: settings.embedder
    exact: bool = False
    ef_search: int | None = None  # None: settings.knn_ef_search
    fusion: FusionConfig = FusionConfig()
    filters: tuple[dict[str, Any], ...] = ()  # bm25 only: filter clauses (no scoring), e.g. one legal source
    # a second stage over any method's top ``rerank_depth``: "llm" (listwise, the LLM settings' endpoint) or
    # "cross-encoder:<model id or folder>" (sentence-transformers); None: no re-ranking
    rerank: str | None = None
    rerank_depth: int = 20
    # amendment-aware ranking (any method): "off", "follow[:DEPTH]", "precede[:DEPTH]", "credit[:WEIGHT[:DEPTH]]";
    # None: the settings' NOMOS_AMENDMENTS, else the method's default (AMENDMENT_DEFAULTS)
    amendments: str | None = None
    # how a case file is read (nomos.retrieval.case_reading): the question's share of the dense query vector and its
    # BM25 clause's boost; None: the cross-validated defaults
    question_weight: float | None = None
    question_boost: float | None = None

    @property
    def second_stage(self) -> str | None:
        """The re-ranker in effect: ``rerank``, unless unset or "none" (a method's default second stage switched off,
        kept as "none" so a run of hybrid without its ranker is named apart from hybrid's own)."""
        return self.rerank if self.rerank not in (None, "none") else None


# The options a method may honour: MethodOptions' fields, with the fusion's server/client choice ("fusion_where")
# apart from the rest of the fusion (weights, normalisation, rank constant: "fusion").
OPTION_NAMES = ("analysis", "embedder", "exact", "ef_search", "fusion", "fusion_where", "filters", "question_weight",
                "question_boost")

Factory = Callable[["SearchSettings", "Transport", MethodOptions], "Retriever"]
PageFactory = Callable[["SearchSettings", "Transport", MethodOptions], "FacetedRetriever"]  # a retriever that serves pages


@dataclass(frozen=True)
class MethodSpec:
    """One retrieval method: how to build it, which options change its ranking, and what it needs and does."""

    name: str
    factory: Factory
    description: str  # one English line (command-line help, docs)
    label: str  # the portal's Greek label
    options: frozenset[str]  # of OPTION_NAMES: the ones that change this method's ranking
    needs_vectors: bool = False  # the index must hold the embedder's vectors
    needs_llm: bool = False  # an OpenAI-compatible endpoint and model must be configured
    fused: bool = False  # fuses a BM25 and a kNN ranking (hits carry both clauses' ranks and scores)
    stochastic: bool = False  # two runs may differ (LLM sampling); the others are deterministic
    snippets: bool = False  # every hit holds a query word: its page's snippets need no fallback to the text's start
    # builds it as a FacetedRetriever, whose results page (facets, a source filter) comes with its ranking's own
    # requests; None: it ranks, and its page is made after (nomos.pages)
    pages: PageFactory | None = None
    portal: bool = False  # offered on the portal's search page

    @property
    def faceted(self) -> bool:
        return self.pages is not None


# --------------------------------------------------------------------------------------------------- helpers
def encoder_for(settings: SearchSettings, spec: str) -> Encoder:
    """Build an encoder with the endpoint settings (only ``openai:`` specs use them)."""
    from nomos.vectors.encoders import make_encoder

    return make_encoder(spec, base_url=settings.embed_base_url, api_key=settings.embed_api_key)


def vector_cache(settings: SearchSettings) -> VectorCache:
    from nomos.vectors.cache import VectorCache

    return VectorCache(settings.cache_dir / "embeddings.sqlite")


def _fusion(settings: SearchSettings, fusion: FusionConfig) -> FusionConfig:
    """Weights left unset take the settings' (NOMOS_FUSION_WEIGHTS), so CLI, portal and benchmarks agree."""
    return fusion if fusion.weights is not None else replace(fusion, weights=settings.fusion_weights)


def _bm25(settings: SearchSettings, transport: Transport, options: MethodOptions, *, for_llm: bool = False) -> BM25Retriever:
    from nomos.retrieval.bm25 import BM25Retriever
    from nomos.retrieval.case_reading import DEFAULT_QUESTION_BOOST

    if for_llm:  # the LLM loops search for themselves (their own queries, no case file): ids and scores only
        return BM25Retriever(transport, settings.index_alias, analysis=options.analysis, search_type=settings.search_type,
                             question_boost=0.0)
    boost = DEFAULT_QUESTION_BOOST if options.question_boost is None else options.question_boost
    return BM25Retriever(transport, settings.index_alias, analysis=options.analysis, filters=options.filters,
                         search_type=settings.search_type, question_boost=boost)


def _knn(settings: SearchSettings, transport: Transport, options: MethodOptions) -> KnnRetriever:
    from nomos.retrieval.case_reading import DEFAULT_QUESTION_WEIGHT
    from nomos.retrieval.knn import KnnRetriever

    return KnnRetriever(
        transport,
        settings.index_alias,
        encoder_for(settings, options.embedder or settings.embedder),
        ef_search=options.ef_search or settings.knn_ef_search,
        exact=options.exact,
        cache=vector_cache(settings),
        question_weight=DEFAULT_QUESTION_WEIGHT if options.question_weight is None else options.question_weight,
    )


def _llm_client_pool(settings: SearchSettings) -> Transport:
    """LLM methods run queries concurrently and search from threads: a connection pool that size (make_client's
    default pool keeps one connection, so every concurrent request would open and drop a new one)."""
    from nomos.opensearch.transport import make_transport

    return make_transport(settings.cluster, pool_maxsize=max(settings.llm_concurrency, 1) + 4)


# --------------------------------------------------------------------------------------------------- factories
def _build_bm25_prf(settings: SearchSettings, transport: Transport, options: MethodOptions) -> Retriever:
    from nomos.retrieval.prf import TfidfPrfRetriever

    return TfidfPrfRetriever(_bm25(settings, transport, options))


def _build_knn_rocchio(settings: SearchSettings, transport: Transport, options: MethodOptions) -> Retriever:
    from nomos.retrieval.prf import RocchioRetriever

    return RocchioRetriever(_knn(settings, transport, options))


def _fused(kind: str) -> PageFactory:
    def build(settings: SearchSettings, transport: Transport, options: MethodOptions) -> FacetedRetriever:
        from nomos.retrieval.fusion import FusionRetriever

        config = replace(_fusion(settings, options.fusion), kind=kind)
        return FusionRetriever(transport, settings.index_alias, _bm25(settings, transport, options),
                               _knn(settings, transport, options), config)

    return build


def _reform(name: str, sparse: bool, dense: bool) -> Factory:
    def build(settings: SearchSettings, transport: Transport, options: MethodOptions) -> Retriever:
        from nomos.retrieval.llm import make_llm_client
        from nomos.retrieval.reformulate import ReformRetriever

        llm = make_llm_client(settings.llm, name, settings.llm_cache)
        pool = _llm_client_pool(settings)
        return ReformRetriever(name, llm, bm25=_bm25(settings, pool, options, for_llm=True) if sparse else None,
                               knn=_knn(settings, pool, options) if dense else None,
                               fusion=_fusion(settings, options.fusion), concurrency=settings.llm_concurrency,
                               prompt_set=settings.prompts)

    return build


def react_config(settings: SearchSettings) -> Any:  # ReActConfig, imported lazily
    """ReAct's configuration from the settings: rounds, prompt set, planner limits, and the observer budget (set,
    else the local server's context less the reply's room when that is the endpoint, else ReActConfig's 84k)."""
    from nomos.retrieval.react import ReActConfig
    from nomos.retrieval.react_context import is_local_endpoint, observer_budget

    config = ReActConfig(rounds=settings.react_rounds, concurrency=settings.llm_concurrency, prompts=settings.prompts,
                         planner_kept=settings.react_planner_kept, planner_history=settings.react_planner_history,
                         planner_article_chars=settings.react_planner_article_chars,
                         local_ctx=settings.llm_ctx if is_local_endpoint(settings.llm) else None)
    budget = observer_budget(settings)
    return replace(config, observer_budget=budget) if budget else config


def _build_react(settings: SearchSettings, transport: Transport, options: MethodOptions) -> Retriever:
    from nomos.retrieval.llm import make_llm_client
    from nomos.retrieval.react import ReActRetriever

    llm = make_llm_client(settings.llm, "react", settings.llm_cache)
    config = react_config(settings)
    return ReActRetriever(_bm25(settings, _llm_client_pool(settings), options, for_llm=True), llm, config)


# --------------------------------------------------------------------------------------------------- the registry
_BM25_OPTS = frozenset({"analysis", "question_boost"})
_KNN_OPTS = frozenset({"embedder", "exact", "ef_search", "question_weight"})

_SPECS = (
    MethodSpec("bm25", _bm25, "BM25 over the Greek-analysed text", "BM25 — λέξεις του κειμένου",
               _BM25_OPTS | {"filters"}, snippets=True, pages=_bm25, portal=True),
    MethodSpec("bm25-prf", _build_bm25_prf, "BM25 with TF-IDF pseudo-relevance feedback",
               "BM25 με ανάδραση ψευδο-συνάφειας (TF-IDF)", _BM25_OPTS),
    MethodSpec("knn", _knn, "dense k-NN (HNSW, or exact with --exact)", "Σημασιολογική (kNN)", _KNN_OPTS,
               needs_vectors=True, pages=_knn, portal=True),
    MethodSpec("knn-rocchio", _build_knn_rocchio, "k-NN with Rocchio pseudo-relevance feedback",
               "Σημασιολογική (kNN) με ανάδραση Rocchio", _KNN_OPTS, needs_vectors=True),
    MethodSpec("hybrid", _fused("hybrid"), "BM25 + k-NN, normalised scores combined", "Υβριδική (BM25 + kNN)",
               _BM25_OPTS | _KNN_OPTS | {"fusion", "fusion_where"}, needs_vectors=True, fused=True, pages=_fused("hybrid"),
               portal=True),
    MethodSpec("rrf", _fused("rrf"), "BM25 + k-NN, reciprocal rank fusion", "Υβριδική με RRF (BM25 + kNN)",
               _BM25_OPTS | _KNN_OPTS | {"fusion", "fusion_where"}, needs_vectors=True, fused=True),
    MethodSpec("reform-bm25", _reform("reform-bm25", sparse=True, dense=False), "an LLM rewrites the case into keywords; BM25",
               "Αναδιατύπωση από LLM + BM25", _BM25_OPTS, needs_llm=True, stochastic=True, portal=True),
    MethodSpec("reform-knn", _reform("reform-knn", sparse=False, dense=True), "an LLM rewrites the case into statutory prose; k-NN",
               "Αναδιατύπωση από LLM + kNN", _KNN_OPTS, needs_vectors=True, needs_llm=True, stochastic=True),
    MethodSpec("reform-hybrid", _reform("reform-hybrid", sparse=True, dense=True), "both LLM rewrites, BM25 and k-NN fused",
               "Αναδιατύπωση από LLM + υβριδική", _BM25_OPTS | _KNN_OPTS | {"fusion"}, needs_vectors=True, needs_llm=True,
               fused=True, stochastic=True),
    MethodSpec("react", _build_react, "ReAct: an LLM plans BM25 queries and reads the results, round after round",
               "ReAct — LLM σε διαδοχικούς γύρους", _BM25_OPTS, needs_llm=True, stochastic=True, portal=True),
)

METHODS: dict[str, MethodSpec] = {s.name: s for s in _SPECS}
DEFAULT_METHOD = "bm25"  # what an index without vectors serves best, and what the empty search form shows
BEST_WITH_VECTORS = "hybrid"  # kNN's pool re-scored with BM25: kNN's recall, a better top 10 (docs/benchmarks.md)


def best_method(has_vectors: bool) -> str:
    """The method search and the portal use when the user names none: the best this index can serve (hybrid where
    it holds the embedder's vectors, BM25 otherwise). A configured re-ranker (NOMOS_RERANK) is applied on top
    (:func:`resolved_options`)."""
    return BEST_WITH_VECTORS if has_vectors else DEFAULT_METHOD


def method_names() -> tuple[str, ...]:
    """Every method, in the order help texts and tables list them."""
    return tuple(METHODS)


def portal_methods() -> tuple[MethodSpec, ...]:
    """The methods the portal offers, in the order its page lists them."""
    return tuple(s for s in METHODS.values() if s.portal)


def method_spec(method: str) -> MethodSpec:
    """The spec of ``method``; an unknown name fails naming the known ones."""
    try:
        return METHODS[method]
    except KeyError:
        raise ConfigError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}") from None


def require_llm(settings: SearchSettingsT, method: str) -> SearchSettingsT:
    """The settings an LLM method runs with: with no endpoint configured, a running local server
    (``cli.py llm start``) fills it in; with neither, fail at once naming the settings. Other methods: unchanged."""
    if not method_spec(method).needs_llm:
        return settings
    return _llm_endpoint(settings, method)


def _llm_endpoint(settings: SearchSettingsT, who: str) -> SearchSettingsT:
    from nomos.retrieval.llm import LLMNotConfigured, not_configured_message

    settings = settings.with_llm_endpoint()
    if not (settings.llm_base_url and settings.llm_model):
        raise LLMNotConfigured(not_configured_message(who))
    return settings


RERANKERS = ("llm", "cross-encoder:<model id or folder>", "ltr[:<model path>]")


def make_reranker(settings: SearchSettings, spec: str) -> Any:
    """The judge a ``--rerank`` value names; unknown values and an LLM judge without an endpoint fail at once."""
    from nomos.retrieval.rerank import CrossEncoderReranker, LLMListwiseReranker

    if spec == "llm":
        from nomos.retrieval.llm import make_llm_client

        settings = _llm_endpoint(settings, "--rerank llm")
        return LLMListwiseReranker(make_llm_client(settings.llm, "--rerank llm", settings.llm_cache), concurrency=settings.llm_concurrency,
                                   prompt_set=settings.prompts)
    kind, _, model = spec.partition(":")
    if kind in ("cross-encoder", "ce") and model:
        check_model(model)
        return CrossEncoderReranker(model)
    raise ConfigError(f"unknown re-ranker {spec!r}; choose one of: {', '.join(RERANKERS)}")


def check_model(model: str) -> None:
    """A cross-encoder named by a path must exist there (a missing folder would otherwise surface as a
    FileNotFoundError or a Hub lookup of a name that is a path). Hub ids (``org/name``) are checked when loaded."""
    from pathlib import Path

    looks_like_path = model.startswith(("/", "./", "../", "~")) or Path(model).exists()
    if looks_like_path and not Path(model).expanduser().is_dir():
        raise ConfigError(f"rerank cross-encoder:{model}: no model folder at {model}",
                          hint="give a sentence-transformers model folder or a Hub model id")


# A method's default --amendments (others: off): `precede` where grouped CV on the dev sets gained without losing recall
# (issue 49, docs/benchmarks.md): knn, hybrid (its page orders with the ranking's own restates). bm25 ties, 3 requests.
AMENDMENT_DEFAULTS: dict[str, str] = {"knn": "precede", "hybrid": "precede"}


# A method's default second stage (methods not listed: none), taken where neither --rerank nor NOMOS_RERANK names
# one. hybrid + ltr beats hybrid on every dev set held out by bench/ltr_study.py's nested grouped CV (R@100 /
# nDCG@10: extended 0.580 / 0.179 -> 0.651 / 0.201, case files 0.528 / 0.168 -> 0.560 / 0.170, everyday 0.581 /
# 0.201 -> 0.622 / 0.220) and BM25 alone on nDCG@10 on each (docs/benchmarks.md, "The bridge from everyday words").
RERANK_DEFAULTS: dict[str, str] = {"hybrid": "ltr"}


def resolved_options(settings: SearchSettings, options: MethodOptions, method: str | None = None) -> MethodOptions:
    """``options`` with the re-ranker and the amendment stage settled: a ``--rerank`` given wins ("none" turns it
    off), else the settings' (NOMOS_RERANK), else the method's default (RERANK_DEFAULTS); an ``--amendments`` given wins, else NOMOS_AMENDMENTS, else the
    method's default (canonical text, "off" when none). Entry points that name results by their options (eval's
    run folder) call this first, so the name and the ranking agree."""
    from nomos.retrieval.amendments import parse_amendments

    rerank = options.rerank or settings.rerank or RERANK_DEFAULTS.get(method or "")  # "none" at any level: off
    if rerank == "none" and not RERANK_DEFAULTS.get(method or ""):
        rerank = None  # nothing to switch off: the same ranking and run name as no choice at all
    if rerank != options.rerank:
        options = replace(options, rerank=rerank)
    chosen = options.amendments or settings.amendments or AMENDMENT_DEFAULTS.get(method or "", "off")
    spec = parse_amendments(chosen).spec
    return options if options.amendments == spec else replace(options, amendments=spec)


def learned_ranker(settings: SearchSettings, transport: Transport, first: Retriever, options: MethodOptions) -> Retriever:
    """``--rerank ltr[:PATH]``: the learned ranker over ``first``'s pool (:mod:`nomos.retrieval.ltr`), with the
    shipped model or the one at PATH. A missing model or one trained on other features fails here, naming the file;
    an index built before the features fails at the first search (building a retriever asks nothing of the node).
    The anchors' and lemmas' lists keep ``first``'s filters, so the pool holds only what the first stage may."""
    from nomos.retrieval.ltr.dense_bridge import BridgeWatch
    from nomos.retrieval.ltr.features import FeatureReader, check_index
    from nomos.retrieval.ltr.model import DEFAULT_MODEL, PLAIN_MODEL, UNJUDGED_MODEL, load
    from nomos.retrieval.ltr.retriever import LearnedRanker, shared_bm25

    _, _, path = (options.rerank or "").partition(":")
    model = load(path or DEFAULT_MODEL)
    knn = getattr(first, "knn", None)
    bm25 = shared_bm25(first, _bm25(settings, transport, options))
    index = settings.index_alias
    # the shipped model reads the dense bridge where the index has it (the plain one ranks until then) and the judged
    # queries where the index holds their articles (else the one without them)
    watch = BridgeWatch(transport, index, knn.encoder.spec) if knn is not None and model.bridged else None
    plain, unjudged = (load(PLAIN_MODEL) if model.bridged else None,
                       load(UNJUDGED_MODEL) if model.log is not None else None) if not path else (None, None)
    return LearnedRanker(first, bm25, FeatureReader(bm25, knn.field if knn is not None else None), model, knn,
                         check=lambda: check_index(transport, index), watch=watch, plain=plain, unjudged=unjudged)


def make_retriever(settings: SearchSettings, method: str, client: OpenSearch | Transport | None = None,
                   options: MethodOptions = MethodOptions()) -> Retriever:
    """The retriever for a method name; every entry point (CLI, portal, benchmarks) builds retrievers here. With
    ``options.rerank`` the method's top ``rerank_depth`` is re-ordered by that judge; ``precede`` orders what it gives.

    ``client``: the command's (or portal's) OpenSearch client, or a transport over it; None: a new client for
    ``settings``. Every request of the retriever goes through one :class:`~nomos.opensearch.transport.Transport`
    (built here over a client, with the settings' ``retry_seconds``)."""
    from nomos.opensearch.transport import make_transport
    from nomos.retrieval.amendments import AmendmentRetriever, parse_amendments, stored_targets

    spec = method_spec(method)
    settings = require_llm(settings, method)
    options = resolved_options(settings, options, method)
    transport, index = make_transport(settings.cluster, client), settings.index_alias
    first, amendments = spec.factory(settings, transport, options), parse_amendments(options.amendments)
    if amendments.active and amendments.mode != "precede":  # before a re-ranker: the judge sees what they brought
        first = AmendmentRetriever(first, stored_targets(transport, index, "amends"), amendments)
    ranked = _second_stage(settings, transport, first, options) if options.second_stage else first
    if amendments.mode != "precede":
        return ranked
    return AmendmentRetriever(ranked, stored_targets(transport, index, "restates"), amendments)  # the final order


def _second_stage(settings: SearchSettings, transport: Transport, first: Retriever, options: MethodOptions) -> Retriever:
    """``first`` under the re-ranker ``options.second_stage`` names: the learned ranker or a judge."""
    stage, index = options.second_stage or "", settings.index_alias
    if stage == "ltr" or stage.startswith("ltr:"):
        return learned_ranker(settings, transport, first, options)
    from nomos.retrieval.rerank import RerankRetriever
    from nomos.retrieval.texts import fetch_texts

    return RerankRetriever(first, make_reranker(settings, stage), fetch=lambda ids: fetch_texts(transport, index, ids),
                           depth=options.rerank_depth)
