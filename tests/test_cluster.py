"""A real two-node cluster on loopback (two processes, own ports and data folders), started here.

- BM25 rankings on 1 shard and on 2 shards (+1 replica) agree with dfs_query_then_fetch, and can differ without it;
- with one node stopped, searches keep answering from the other node's copies, and the cluster heals when the node
  returns.
"""

from __future__ import annotations

import random
import time
import uuid

import pytest

from nomos.ingest.beir import load_beir
from nomos.opensearch.client import make_client
from nomos.opensearch.transport import Transport
from nomos.retrieval.bm25 import BM25Retriever
from nomos.retrieval.registry import MethodOptions, make_retriever
from nomos.stages.indexing import index_dataset
from tests.beir_files import ARTICLES, QRELS, QUERIES, write_beir
from tests.conftest import TEST_PORT

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # slow: two nodes of their own

CLUSTER_PORT = TEST_PORT + 20  # HTTP 9270/9271 for the default test port, transport +100


@pytest.fixture(scope="module")
def two_nodes():
    from nomos.opensearch.node import NodeConfig, cluster_configs, install, start_cluster, stop
    from nomos.settings import Settings

    base = Settings.from_env()
    if not base.uses_local_node:
        pytest.skip("the cluster tests start and stop local nodes; OPENSEARCH_URL names a cluster")
    cfgs = cluster_configs(NodeConfig(root=base.node_root, name=f"cluster-{CLUSTER_PORT}", http_port=CLUSTER_PORT,
                                      transport_port=CLUSTER_PORT + 100, heap="512m",
                                      cluster_name=f"nomos-cluster-{CLUSTER_PORT}"), 2)
    install(cfgs[0], log=lambda m: None)
    try:
        start_cluster(cfgs, timeout=300, log=lambda m: None)
        yield cfgs, base.with_overrides(http_port=CLUSTER_PORT)
    finally:
        for cfg in cfgs:
            stop(cfg, log=lambda m: None)


@pytest.fixture
def dataset(tmp_path):
    """The mini corpus plus 150 seeded word-salad articles, so term statistics differ from shard to shard."""
    rng = random.Random(11)
    words = " ".join(a["text"] for a in ARTICLES).split()
    extra = [{"_id": f"SYN::{i}", "title": " ".join(rng.choices(words, k=3)), "text": " ".join(rng.choices(words, k=rng.randint(10, 80)))}
             for i in range(150)]
    return load_beir(write_beir(tmp_path / "mini", articles=ARTICLES + extra, queries=QUERIES, qrels=QRELS))


def wait_green(client, index: str, seconds: float) -> dict:
    """Cluster health of ``index`` once green, or the last answer after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        health = client.cluster.health(index=index, params={"wait_for_status": "green"})  # waits up to 30s server-side
        if health["status"] == "green" or time.monotonic() > deadline:
            return health


QUERY_TEXTS = {
    **{q["_id"]: q["text"] for q in QUERIES},
    "theft": "κλοπή κινητό πράγμα κατοχή",
    "harm": "σωματική βλάβη υγεία φυλάκιση",
    "tort": "αδικοπραξία αποζημίωση ηθική βλάβη",
    "fraud": "απάτη περιουσιακό όφελος ψευδή γεγονότα",
}


def test_two_processes_one_cluster(two_nodes):
    from nomos.opensearch.node import running_pid, status

    cfgs, settings = two_nodes
    pids = {running_pid(c) for c in cfgs}
    assert None not in pids and len(pids) == 2
    assert len({c.data_dir for c in cfgs}) == 2
    nodes = make_client(settings.cluster).cat.nodes(format="json", h="name")
    assert sorted(n["name"] for n in nodes) == [c.name for c in cfgs]
    assert all(status(c)["running"] for c in cfgs)

    # the command line sees the same cluster: start is idempotent, status reports every node
    from click.testing import CliRunner

    from nomos.cli import cli

    env = {"NOMOS_NODE_NAME": cfgs[0].name, "NOMOS_HTTP_PORT": str(cfgs[0].http_port),
           "NOMOS_TRANSPORT_PORT": str(cfgs[0].transport_port), "NOMOS_NODE_ROOT": str(cfgs[0].root), "OPENSEARCH_URL": ""}
    res = CliRunner().invoke(cli, ["-v", "server", "start", "--nodes", "2"], env=env)  # -v: the node's progress lines
    assert res.exit_code == 0 and "already running" in res.output and f"running: {cfgs[1].name}" in res.output, res.output
    res = CliRunner().invoke(cli, ["server", "status", "--nodes", "2"], env=env)
    assert res.exit_code == 0 and res.output.count("running: True") == 2 and f"[{cfgs[1].name}]" in res.output, res.output


def test_rankings_do_not_depend_on_the_shard_layout_with_dfs(two_nodes, dataset):
    cfgs, base = two_nodes
    tag = uuid.uuid4().hex[:6]
    one = base.with_overrides(index_alias=f"layout1-{tag}", shards=1, replicas=0)
    two = base.with_overrides(index_alias=f"layout2-{tag}", shards=2, replicas=1)
    client = make_client(base.cluster)
    try:
        index_dataset(one, dataset)
        index_dataset(two, dataset)
        wait_green(client, f"layout2-{tag}", 60)
        shards = client.cat.shards(index=f"layout2-{tag}*", format="json")
        assert len({(s["shard"], s["prirep"]) for s in shards}) == 4 and len({s["node"] for s in shards}) == 2

        plain = MethodOptions(amendments="off")  # BM25's own scores and retriever, not the amendment stage's
        single = make_retriever(one, "bm25", client, plain).search_many(QUERY_TEXTS, 20).hits
        auto = make_retriever(two, "bm25", client, plain)
        assert auto.effective_search_type() == "dfs_query_then_fetch"  # chosen because the index has 2 shards
        assert make_retriever(one, "bm25", client, plain).effective_search_type() == "query_then_fetch"
        split = auto.search_many(QUERY_TEXTS, 20).hits
        for qid in QUERY_TEXTS:
            assert [h.doc_id for h in split[qid]] == [h.doc_id for h in single[qid]], qid
            assert [h.score for h in split[qid]] == pytest.approx([h.score for h in single[qid]], rel=1e-5), qid

        # without dfs each shard scores with its own term statistics: the same documents get other scores
        qtf = BM25Retriever(Transport(client), two.index_alias, search_type="query_then_fetch").search_many(QUERY_TEXTS, 20).hits
        diffs = [abs(a.score - b.score) / b.score for qid in QUERY_TEXTS
                 for a, b in zip(sorted(qtf[qid], key=lambda h: h.doc_id), sorted(single[qid], key=lambda h: h.doc_id), strict=False)
                 if a.doc_id == b.doc_id]
        assert diffs and max(diffs) > 1e-3
    finally:
        client.indices.delete(index=f"layout*-{tag}*", ignore_unavailable=True)


def test_a_stopped_node_is_covered_by_the_replica_and_the_cluster_heals(two_nodes, dataset):
    from nomos.opensearch.node import start_cluster, stop

    cfgs, base = two_nodes
    settings = base.with_overrides(index_alias=f"ha-{uuid.uuid4().hex[:6]}", shards=2, replicas=1)
    client = make_client(settings.cluster)
    index_dataset(settings, dataset)
    assert wait_green(client, settings.index_alias, 60)["status"] == "green"
    expected = make_retriever(settings, "bm25", client).search_many(QUERY_TEXTS, 20).hits

    # Stop the node that is not the elected cluster manager (with two manager-eligible nodes only one of them
    # holds the vote; losing it stops writes until it returns, a reason to run three in production).
    manager = client.cat.cluster_manager(format="json")[0]["node"]
    victim = next(c for c in cfgs if c.name != manager)
    survivor = next(c for c in cfgs if c.name == manager)
    on_survivor = settings.with_overrides(http_port=survivor.http_port)
    survivor_client = make_client(on_survivor.cluster)
    try:
        assert stop(victim, log=lambda m: None)
        deadline = time.monotonic() + 60
        while len(survivor_client.cat.nodes(format="json")) != 1 and time.monotonic() < deadline:
            time.sleep(0.5)
        health = survivor_client.cluster.health(index=settings.index_alias)
        assert health["status"] == "yellow" and health["unassigned_shards"] == 2  # the replicas are missing, not data
        got = make_retriever(on_survivor, "bm25", survivor_client).search_many(QUERY_TEXTS, 20).hits
        assert {q: [h.doc_id for h in hs] for q, hs in got.items()} == {q: [h.doc_id for h in hs] for q, hs in expected.items()}
    finally:
        start_cluster(cfgs, timeout=240, log=lambda m: None)
    health = wait_green(client, settings.index_alias, 120)
    assert health["status"] == "green" and health["number_of_nodes"] == 2  # healed: replicas back on the returned node
    again = make_retriever(settings, "bm25", client).search_many(QUERY_TEXTS, 20).hits
    assert {q: [h.doc_id for h in hs] for q, hs in again.items()} == {q: [h.doc_id for h in hs] for q, hs in expected.items()}
    client.indices.delete(index=f"{settings.index_alias}*", ignore_unavailable=True)
