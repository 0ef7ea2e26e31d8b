"""Small pieces: settings, mapping files, long-query compaction, docker-compose structure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from nomos.mappings import (
    ANALYZERS,
    ARTICLES,
    FIELDS,
    MappingError,
    analyzer_chain,
    articles_index_body,
    body_hash,
    read_stopwords,
)
from nomos.retrieval.base import Hit, rank
from nomos.retrieval.bm25 import chunks, compact_terms
from nomos.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


def test_settings_from_env_and_overrides():
    s = Settings.from_env({"OPENSEARCH_URL": "http://db:9200/", "NOMOS_BM25_K1": "1.2", "NOMOS_INDEX": "x"})
    assert s.url == "http://db:9200" and not s.uses_local_node and s.bm25_k1 == 1.2 and s.index_alias == "x"
    local = Settings.from_env({"NOMOS_HTTP_PORT": "9250"})
    assert local.uses_local_node and local.url == "http://127.0.0.1:9250"
    assert local.with_overrides(bm25_b=None, shards=2).shards == 2 and local.with_overrides(bm25_b=None).bm25_b == 0.75
    with pytest.raises(ValueError, match="NOMOS_HTTP_PORT='abc'"):
        Settings.from_env({"NOMOS_HTTP_PORT": "abc"})


def test_index_body_applies_knobs_and_keeps_the_greek_chains():
    body = articles_index_body(k1=0.9, b=0.4, shards=2, replicas=1)
    idx = body["settings"]["index"]
    assert idx["similarity"]["nomos_bm25"] == {"type": "BM25", "k1": 0.9, "b": 0.4}
    assert (idx["number_of_shards"], idx["number_of_replicas"]) == (2, 1)
    chain = analyzer_chain(body, ANALYZERS["stemmed"])
    assert chain["tokenizer"] == "standard"
    assert [f["type"] for f in chain["filters"]] == ["lowercase", "stop", "snowball", "length"]
    assert chain["filters"][0]["language"] == "greek" and chain["filters"][-1]["min"] == 1  # empty stems dropped
    stop = chain["filters"][1]["stopwords"]
    assert isinstance(stop, list) and "stopwords_file" not in chain["filters"][1]  # the list is sent inline
    assert stop == read_stopwords(ARTICLES.parent / "stopwords" / "el.txt")
    assert [f["type"] for f in analyzer_chain(body, ANALYZERS["ntais"])["filters"]] == ["lowercase", "stop", "stemmer", "length"]
    assert [f["type"] for f in analyzer_chain(body, ANALYZERS["folded"])["filters"]] == ["lowercase", "stop"]
    for name in ANALYZERS.values():  # one stop list for every chain, so the ablations differ only in stemming
        assert analyzer_chain(body, name)["filters"][1]["stopwords"] == stop
    props = body["mappings"]["properties"]
    for field in FIELDS.values():  # every search field exists in the mapping
        top, _, sub = field.partition(".")
        assert top in props and (not sub or sub in props[top]["fields"])
    # the file itself is untouched and the hash is stable
    assert json.loads(ARTICLES.read_text())["settings"]["index"]["similarity"]["nomos_bm25"]["k1"] == 1.5
    assert body_hash(body, "a") == body_hash(articles_index_body(0.9, 0.4, 2, 1), "a") != body_hash(body, "b")


def test_stop_list_is_in_the_form_the_stop_filter_sees():
    """The stop filter runs after Greek lowercasing, which drops accents and writes final sigma as σ: a word in any
    other form would silently never match."""
    import unicodedata

    words = read_stopwords(ARTICLES.parent / "stopwords" / "el.txt")
    assert len(words) == len(set(words)) >= 140
    for w in words:
        assert w == w.lower() and "ς" not in w, w
        assert not any(unicodedata.combining(c) for c in unicodedata.normalize("NFD", w)), w
    # Lucene's _greek_ words are all kept (the old chain's list), and so is the paper pipeline's list
    assert {"ο", "η", "και", "τησ", "ειμαι", "ισωσ", "τοτε", "εκεινουσ"} <= set(words)
    from nomos.eval.paper_bm25 import GREEK_STOPWORDS, strip_diacritics

    assert {strip_diacritics(w).lower().replace("ς", "σ") for w in GREEK_STOPWORDS} <= set(words)


def test_stop_list_files_are_checked(tmp_path):
    mapping = json.loads(ARTICLES.read_text())
    mapping["settings"]["index"]["analysis"]["filter"]["greek_stop"]["stopwords_file"] = "missing.txt"
    (tmp_path / "articles.json").write_text(json.dumps(mapping))
    with pytest.raises(MappingError, match="missing.txt"):
        articles_index_body(1.2, 0.75, path=tmp_path / "articles.json")
    (tmp_path / "missing.txt").write_text("# only a comment\n")
    with pytest.raises(MappingError, match="no stop words"):
        articles_index_body(1.2, 0.75, path=tmp_path / "articles.json")
    (tmp_path / "missing.txt").write_text("# words\nκαι το\nτο ο\n")
    body = articles_index_body(1.2, 0.75, path=tmp_path / "articles.json")
    assert body["settings"]["index"]["analysis"]["filter"]["greek_stop"] == {"type": "stop", "stopwords": ["και", "το", "ο"]}
    mapping["settings"]["index"]["analysis"]["filter"]["greek_stop"]["stopwords"] = ["και"]
    (tmp_path / "articles.json").write_text(json.dumps(mapping))
    with pytest.raises(MappingError, match="both"):
        articles_index_body(1.2, 0.75, path=tmp_path / "articles.json")


def test_malformed_mapping_file_is_named(tmp_path):
    bad = tmp_path / "articles.json"
    bad.write_text('{"settings": {')
    with pytest.raises(MappingError, match=r"articles.json:1:\d+: malformed JSON"):
        articles_index_body(1.2, 0.75, path=bad)


def test_compact_terms_counts_and_caps():
    terms, dropped = compact_terms(["κλοπ", "ρολ", "κλοπ", "αξι", "ρολ", "κλοπ", "πωλητ"], max_clauses=3)
    assert terms == [("κλοπ", 3), ("ρολ", 2), ("αξι", 1)] and dropped == 1


def test_chunks_split_on_whitespace_and_lose_nothing():
    text = " ".join(f"λέξη{i}" for i in range(5000))
    parts = list(chunks(text, size=1000))
    assert all(len(p) <= 1000 for p in parts) and len(parts) > 30
    assert "".join(parts) == text
    assert all(not p.startswith(("έξη", "ξη")) for p in parts)  # never cuts a word


def test_rank_dedups_and_orders_ties_by_id():
    hits = [Hit("b", 1.0), Hit("a", 1.0), Hit("c", 0.5), Hit("a", 0.2)]
    assert [h.doc_id for h in rank(hits, 2)] == ["a", "b"]


def test_docker_compose_structure():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    os_svc, dash = compose["services"]["opensearch"], compose["services"]["dashboards"]
    assert os_svc["image"] == "opensearchproject/opensearch:2.19.1"
    assert dash["image"] == "opensearchproject/opensearch-dashboards:2.19.1"
    env = dict(e.split("=", 1) for e in os_svc["environment"])
    assert env["discovery.type"] == "single-node" and env["DISABLE_SECURITY_PLUGIN"] == "true"
    assert "DISABLE_SECURITY_DASHBOARDS_PLUGIN=true" in dash["environment"]
    assert os_svc["ports"] == ["127.0.0.1:9200:9200"]
    volume = os_svc["volumes"][0].split(":")[0]
    assert volume in compose["volumes"]  # a named volume, not a bind mount
    assert dash["depends_on"]["opensearch"]["condition"] == "service_healthy"


def test_docker_compose_cluster_profile():
    """Profile "cluster": two nodes of one cluster that find each other, each with its own volume and port."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    nodes = {name: svc for name, svc in compose["services"].items() if "cluster" in svc.get("profiles", [])}
    assert sorted(nodes) == ["opensearch-c1", "opensearch-c2"]
    envs = {name: dict(e.split("=", 1) for e in svc["environment"]) for name, svc in nodes.items()}
    names = {env["node.name"] for env in envs.values()}
    assert names == {"nomos-c1", "nomos-c2"} and {svc["container_name"] for svc in nodes.values()} == names
    for name, env in envs.items():
        assert env["cluster.name"] == "nomos-cluster" and "discovery.type" not in env
        assert set(env["discovery.seed_hosts"].split(",")) == names
        assert set(env["cluster.initial_cluster_manager_nodes"].split(",")) == names
        assert nodes[name]["image"] == "opensearchproject/opensearch:2.19.1"
        assert nodes[name]["volumes"][0].split(":")[0] in compose["volumes"]
    assert len({svc["volumes"][0] for svc in nodes.values()}) == 2  # a data volume each
    ports = [svc["ports"][0] for svc in nodes.values()] + compose["services"]["opensearch"]["ports"]
    assert len({p.split(":")[1] for p in ports}) == 3  # no host port shared with the single node
    assert "profiles" not in compose["services"]["opensearch"]  # plain `docker compose up` is unchanged


def test_docker_compose_llm_profile():
    """Profile "llm": Ollama on localhost:11434 with a model volume, and a one-shot pull of the model the docs name."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    llm = {name: svc for name, svc in compose["services"].items() if "llm" in svc.get("profiles", [])}
    assert sorted(llm) == ["ollama", "ollama-pull"]
    ollama, pull = llm["ollama"], llm["ollama-pull"]
    assert ollama["image"].startswith("ollama/ollama:") and pull["image"] == ollama["image"]
    assert ollama["ports"] == ["127.0.0.1:11434:11434"]  # loopback only: the API has no authentication
    volume, target = ollama["volumes"][0].split(":")
    assert volume in compose["volumes"] and target == "/root/.ollama"  # pulled models survive the container
    assert "healthcheck" in ollama and pull["depends_on"]["ollama"]["condition"] == "service_healthy"
    assert pull["entrypoint"][:2] == ["ollama", "pull"] and pull["restart"] == "no"
    assert "OLLAMA_HOST=ollama:11434" in pull["environment"]
    model = pull["entrypoint"][2]
    header = (ROOT / "docker-compose.yml").read_text().split("services:")[0]
    assert f"NOMOS_LLM_MODEL={model}" in header and "NOMOS_LLM_BASE_URL=http://localhost:11434/v1" in header
    for svc in compose["services"].values():  # the default `docker compose up` starts no LLM
        assert ("ollama" not in svc.get("image", "")) or "llm" in svc.get("profiles", [])


def test_docker_compose_host_dashboards_profile():
    """Profile "host-dashboards": Dashboards alone, on the host's network, reading the node `make run` started (the
    cluster the result indices were written to), with the saved objects imported into it; no OpenSearch of its own."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    host = {name: svc for name, svc in compose["services"].items() if "host-dashboards" in svc.get("profiles", [])}
    assert sorted(host) == ["dashboards-host", "dashboards-host-import"]
    dash, load = host["dashboards-host"], host["dashboards-host-import"]
    assert dash["image"] == compose["services"]["dashboards"]["image"]
    assert dash["network_mode"] == load["network_mode"] == "host"
    env = dict(e.split("=", 1) for e in dash["environment"])
    assert env["OPENSEARCH_HOSTS"] == '["http://127.0.0.1:${NOMOS_HTTP_PORT:-9200}"]'  # the local node's port
    assert env["SERVER_HOST"] == "127.0.0.1"  # host networking: listen on loopback only
    assert "depends_on" not in dash  # no OpenSearch container to wait for
    assert load["depends_on"]["dashboards-host"]["condition"] == "service_healthy"
    assert "http://127.0.0.1:5601/api/saved_objects/_import?overwrite=true" in load["command"]
    assert load["volumes"] == compose["services"]["dashboards-import"]["volumes"]  # the same saved objects
