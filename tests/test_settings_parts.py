"""Settings as nested parts beside their layers (issue 48): every documented environment name still reads, the flat
names of the one settings object still work, and retrieval's defaults have one home. No cluster."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from nomos.opensearch.settings import ClusterSettings
from nomos.portal.settings import PortalSettings
from nomos.retrieval import fusion_config, prompts
from nomos.retrieval.llm.settings import LLMSettings
from nomos.retrieval.settings import RetrievalSettings
from nomos.settings import CHOICES, Settings, table

ROOT = Path(__file__).resolve().parent.parent
NAME = re.compile(r"\b(NOMOS_[A-Z0-9_]+|OPENSEARCH_URL|OPENAI_API_KEY|OPENAI_BASE_URL)\b")
# every variable the one flat Settings read before the parts (issue 48), aliases included: each must still read
ALL_NAMES = frozenset({"NOMOS_ALLOWED_HOSTS", "NOMOS_AMENDMENTS", "NOMOS_ARTICLE_WINDOWS", "NOMOS_AWS_REGION",
    "NOMOS_AWS_SERVICE", "NOMOS_BM25_B", "NOMOS_BM25_K1", "NOMOS_CACHE_DIR", "NOMOS_CA_KEY_DIR", "NOMOS_EMBEDDER",
    "NOMOS_EMBED_BASE_URL", "NOMOS_EXPUNGE_WAIT_SECONDS", "NOMOS_FUSION_WEIGHTS", "NOMOS_HEAP",
    "NOMOS_HNSW_EF_CONSTRUCTION", "NOMOS_HNSW_M", "NOMOS_HTTP_PORT", "NOMOS_INDEX", "NOMOS_JUDGMENT_RATE",
    "NOMOS_KNN_EF_SEARCH", "NOMOS_LLM_API_KEY", "NOMOS_LLM_BASE_URL", "NOMOS_LLM_CONCURRENCY", "NOMOS_LLM_CTX",
    "NOMOS_LLM_GGUF", "NOMOS_LLM_ISSUE_THRESHOLD", "NOMOS_LLM_MAX_TOKENS", "NOMOS_LLM_MODEL", "NOMOS_LLM_PORT",
    "NOMOS_LLM_REASONING_EFFORT", "NOMOS_LLM_REPLY_ROOM", "NOMOS_LLM_RETRIES", "NOMOS_LLM_RETRY_AFTER_MAX",
    "NOMOS_LLM_RETRY_MAX_TOKENS", "NOMOS_LLM_SEED", "NOMOS_LLM_TEMPERATURE", "NOMOS_LLM_THREADS",
    "NOMOS_LLM_TIMEOUT", "NOMOS_LLM_TOKEN_PARAM", "NOMOS_LLM_TOP_P", "NOMOS_LOG_QUERIES", "NOMOS_MAX_ARTICLE_BYTES",
    "NOMOS_MAX_QUERY_WORDS", "NOMOS_NODES", "NOMOS_NODE_GC", "NOMOS_NODE_NAME", "NOMOS_NODE_ROOT",
    "NOMOS_OPENSEARCH_AUTH", "NOMOS_OPENSEARCH_CA", "NOMOS_OPENSEARCH_PASSWORD", "NOMOS_OPENSEARCH_PASSWORD_FILE",
    "NOMOS_OPENSEARCH_USER", "NOMOS_PAGE_RATE", "NOMOS_PORTAL_ARTICLE_CHARS", "NOMOS_PORTAL_DEADLINE_SECONDS",
    "NOMOS_PORTAL_OPENSEARCH_PASSWORD", "NOMOS_PORTAL_OPENSEARCH_PASSWORD_FILE", "NOMOS_PORTAL_OPENSEARCH_USER",
    "NOMOS_PROGRESS_SECONDS", "NOMOS_PROMPTS", "NOMOS_PROXY_SECRET", "NOMOS_REACT_OBSERVER_BUDGET",
    "NOMOS_REACT_PLANNER_ARTICLE_CHARS", "NOMOS_REACT_PLANNER_HISTORY", "NOMOS_REACT_PLANNER_KEPT",
    "NOMOS_REACT_ROUNDS", "NOMOS_REPLICAS", "NOMOS_REQUEST_TIMEOUT", "NOMOS_REQUIRE_SIGN_IN", "NOMOS_RERANK",
    "NOMOS_RESULTS_PREFIX", "NOMOS_RETRY_SECONDS", "NOMOS_RUNS_DIR", "NOMOS_SEARCH_RATE", "NOMOS_SEARCH_THREADS",
    "NOMOS_SEARCH_TIMEOUT_SECONDS", "NOMOS_SEARCH_TYPE", "NOMOS_SECURE", "NOMOS_SHARDS", "NOMOS_SNIPPETS", "NOMOS_TRANSPORT_PORT",
    "NOMOS_TRUSTED_PROXIES", "NOMOS_USER_HEADER", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENSEARCH_URL"})
# names the docs give that are not settings of Settings, each with what it is
NOT_SETTINGS = {
    "NOMOS_ENV_FILE": "names the .env file from_env reads (tested below)",
    "NOMOS_TEST_PORT": "the test session's node (tests/conftest.py)",
    "NOMOS_FAULT_TEST_PORT": "the fault tests' node (tests/conftest.py)",
    "NOMOS_PUBLIC_URL": "docker compose's public address for oauth2-proxy (docker-compose.yml)",
    "NOMOS_SECURE_DIR": "docker compose's folder of the secured node's files (docker-compose.yml)",
}
# a valid value other than the default, where the field's type does not give one
SAMPLES = {
    "NOMOS_OPENSEARCH_AUTH": "sigv4", "NOMOS_SEARCH_TYPE": "query_then_fetch", "NOMOS_PROMPTS": "paper",
    "NOMOS_LLM_TOKEN_PARAM": "max_tokens", "NOMOS_NODE_GC": "g1", "NOMOS_FUSION_WEIGHTS": "0.3,0.7",
    "NOMOS_TRUSTED_PROXIES": "10.0.0.1", "NOMOS_ALLOWED_HOSTS": "example.gr", "NOMOS_USER_HEADER": "X-User",
    "NOMOS_PROXY_SECRET": "a-secret-of-sixteen-chars", "NOMOS_SEARCH_RATE": "7/minute",
    "NOMOS_JUDGMENT_RATE": "7/minute", "NOMOS_PAGE_RATE": "7/minute", "NOMOS_SNIPPETS": "whole",
}


def documented_names() -> set[str]:
    """Every variable README.md and docs/*.md name (docs/history is a diary of what was, not what is)."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    return set(NAME.findall(text))


def sample(var: str, default: object) -> str:
    if var in SAMPLES:
        return SAMPLES[var]
    if isinstance(default, bool) or default is None and var.endswith(("SECURE", "WINDOWS", "QUERIES", "SIGN_IN")):
        return "false" if default else "true"
    if isinstance(default, (int, float)) and not isinstance(default, bool):
        return "7"
    return "7" if var.endswith(("_PORT", "_THREADS", "_TOKENS", "_BUDGET", "_SEED")) else "/tmp/nomos-sample"


def test_every_name_still_reads_its_setting() -> None:
    """Each variable (each alias of a field too) read alone sets its field: the names did not move with the fields."""
    rows = [(var, where, default) for names, where, default in table() for var in names]
    assert {var for var, _, _ in rows} == ALL_NAMES
    for var, where, default in rows:
        field = where.rsplit(".", 1)[-1]
        got = getattr(Settings.from_env({var: sample(var, default)}), field)
        assert got != default, f"{var} (settings.{where}) did not change from its default {default!r}"


def test_every_documented_name_is_a_setting() -> None:
    documented = documented_names() - set(NOT_SETTINGS)
    assert len(documented) > 60, "the docs' names were not found"
    assert documented <= ALL_NAMES, f"documented but read by no setting: {sorted(documented - ALL_NAMES)}"


def test_the_table_lists_every_field_once_by_its_part() -> None:
    wheres = [where for _, where, _ in table()]
    assert len(wheres) == len(set(wheres)) == 85
    assert {w.split(".")[0] for w in wheres if "." in w} == {"cluster", "retrieval", "llm", "portal"}
    assert Settings.parts() == {"cluster": ClusterSettings, "retrieval": RetrievalSettings, "llm": LLMSettings,
                                "portal": PortalSettings}
    # each part sits in its layer's package
    for part, package in [(ClusterSettings, "nomos.opensearch"), (RetrievalSettings, "nomos.retrieval"),
                          (LLMSettings, "nomos.retrieval.llm"), (PortalSettings, "nomos.portal")]:
        assert part.__module__ == f"{package}.settings"


def test_flat_names_reach_the_parts() -> None:
    s = Settings(http_port=9201, embedder="bm25-only", llm_model="m", trusted_proxies=("10.0.0.1",), cache_dir="/tmp/c")
    assert (s.cluster.http_port, s.retrieval.embedder, s.llm.llm_model) == (9201, "bm25-only", "m")
    assert s.http_port == 9201 and s.url == "http://127.0.0.1:9201" and s.sign_in_required
    changed = s.with_overrides(http_port=9300, llm_model=None)  # None: unchanged, as an unset flag
    assert (changed.cluster.http_port, changed.llm.llm_model, changed.retrieval.embedder) == (9300, "m", "bm25-only")
    copied = s.model_copy(update={"llm_base_url": "http://x/v1", "runs_dir": Path("r")})
    assert copied.llm.llm_base_url == "http://x/v1" and copied.llm_base_url == "http://x/v1" and copied.runs_dir == Path("r")
    assert s.llm.llm_base_url is None  # the original is untouched
    # the portal's workers rebuild the settings from JSON
    assert Settings(**json.loads(json.dumps(s.model_dump(mode="json")))) == s
    with pytest.raises(ValueError, match="http_port"):
        s.with_overrides(http_port="not a port")
    with pytest.raises(ValueError, match="typo"):
        Settings(typo=1)
    with pytest.raises(AttributeError):
        _ = s.typo


def test_a_bad_value_names_its_variable_in_every_part() -> None:
    with pytest.raises(ValueError) as err:
        Settings.from_env({"NOMOS_HTTP_PORT": "abc", "NOMOS_PROMPTS": "poetry", "NOMOS_LLM_TOKEN_PARAM": "x",
                           "NOMOS_PORTAL_DEADLINE_SECONDS": "0"})
    for var in ("NOMOS_HTTP_PORT='abc'", "NOMOS_PROMPTS='poetry': must be one of neutral, paper",
                "NOMOS_LLM_TOKEN_PARAM='x'", "NOMOS_PORTAL_DEADLINE_SECONDS='0'"):
        assert var in str(err.value)


def test_an_env_file_is_read_under_the_process_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env_file = tmp_path / "nomos.env"
    env_file.write_text("NOMOS_HTTP_PORT=9401\nNOMOS_LLM_API_KEY=from-file\nOTHER_TOOL=x\n", encoding="utf-8")
    monkeypatch.setenv("NOMOS_ENV_FILE", str(env_file))
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    monkeypatch.setenv("NOMOS_HTTP_PORT", "")  # empty: unset, the file's value stands
    s = Settings.from_env()
    assert s.http_port == 9401
    assert s.llm_api_key == "from-env" and s.embed_api_key == "from-env"  # the process environment wins


def test_retrieval_defaults_live_in_retrieval() -> None:
    """Settings refer to retrieval's own defaults instead of copying them (issue 48)."""
    assert Settings().fusion_weights is fusion_config.DEFAULT_WEIGHTS
    assert CHOICES["prompts"] is prompts.PROMPT_SETS
    assert set(prompts.PROMPT_SETS) == {p.name for p in prompts.PROMPTS_DIR.iterdir() if p.is_dir()}
