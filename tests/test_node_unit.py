"""Fast tests of the local-node manager (opensearch/node*.py, assembly.py, maven.py): no network, no OpenSearch.

Real installs and starts are covered by the integration tests; here a fake home, fake JDK and stand-in processes
exercise config rendering, path derivation, install idempotence and pidfile handling.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from nomos.opensearch import node, node_cluster, node_install
from nomos.opensearch.assembly import AssemblyError, bundle_jars, find_plugin_class, jar_base, render_descriptor
from nomos.opensearch.maven import Artifact, MavenError, render_pom
from nomos.opensearch.node import NodeConfig, NodeError


@pytest.fixture()
def as_user(monkeypatch: pytest.MonkeyPatch) -> None:
    """Behave as a non-root user, so no service account, chown or traversal checks come into play."""
    monkeypatch.setattr(os, "geteuid", lambda: 1000)


@pytest.fixture()
def fake_jdk(tmp_path: Path) -> Path:
    jdk = tmp_path / "jdk"
    (jdk / "bin").mkdir(parents=True)
    for tool in ("java", "javac"):
        exe = jdk / "bin" / tool
        exe.write_text("#!/bin/sh\nexit 0\n")
        exe.chmod(0o755)
    return jdk


@pytest.fixture()
def cfg(tmp_path: Path, fake_jdk: Path, as_user: None) -> NodeConfig:
    return NodeConfig(root=tmp_path / "root", java_home=fake_jdk, http_port=free_port(), transport_port=free_port())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def make_fake_home(home: Path, cfg: NodeConfig, marker: bool = True) -> None:
    """A home that passes install_problems(): descriptors of the right versions, a jar in each folder, a marker."""
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "opensearch").write_text("#!/bin/sh\n")
    (home / "lib").mkdir()
    (home / "lib" / f"opensearch-{cfg.version}.jar").write_bytes(b"")
    (home / "config").mkdir()
    (home / "config" / "log4j2.properties").write_text("status = error\n")
    folders = [(home / "modules" / m, cfg.version) for m in node.REQUIRED_MODULES]
    folders += [(home / "plugins" / p, cfg.plugin_version) for p in node.REQUIRED_PLUGINS]
    for folder, version in folders:
        folder.mkdir(parents=True)
        (folder / "plugin-descriptor.properties").write_text(f"name={folder.name}\nversion={version}\n")
        (folder / f"{folder.name}-{version}.jar").write_bytes(b"")
    if marker:
        (home / node.MARKER_NAME).write_text(f'{{"version": "{cfg.version}", "plugin_version": "{cfg.plugin_version}"}}')


def stand_in_node(cfg: NodeConfig, ignore_term: bool = False) -> subprocess.Popen[bytes]:
    """A sleeping Python process whose command line looks like this node's OpenSearch to is_node_process()."""
    code = "import signal, time\n"
    if ignore_term:
        code += "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    code += "time.sleep(60)\n"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, node.OPENSEARCH_MAIN_CLASS, f"-Dopensearch.path.conf={cfg.conf_dir}"]
    )
    cfg.pid_file.parent.mkdir(parents=True, exist_ok=True)
    cfg.pid_file.write_text(f"{proc.pid}\n")
    time.sleep(0.3 if ignore_term else 0.05)  # let the child install its handler
    return proc


def dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


# ------------------------------------------------------------------------------------------------ NodeConfig
def test_default_root_depends_on_user(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert node.default_root() == Path("/opt/nomos")
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert node.default_root() == tmp_path / ".local" / "share" / "nomos"


def test_derived_paths_are_per_node_under_root(tmp_path: Path) -> None:
    cfg = NodeConfig(root=tmp_path, name="n2", http_port=9250, version="2.19.1")
    assert cfg.home == tmp_path / "opensearch-2.19.1"
    assert cfg.conf_dir == tmp_path / "nodes" / "n2" / "config"
    assert cfg.data_dir == tmp_path / "nodes" / "n2" / "data"
    assert cfg.logs_dir == tmp_path / "nodes" / "n2" / "logs"
    assert cfg.pid_file == tmp_path / "nodes" / "n2" / "run" / "opensearch.pid"
    assert cfg.main_log == cfg.logs_dir / "nomos.log"
    assert cfg.url == "http://127.0.0.1:9250"


def test_config_is_frozen_and_hashable_with_extra_settings(tmp_path: Path) -> None:
    extra = {"search.max_buckets": 100}
    a = NodeConfig(root=tmp_path, extra_settings=extra)
    extra["search.max_buckets"] = 5
    assert a.extra_settings["search.max_buckets"] == 100
    assert a == NodeConfig(root=tmp_path, extra_settings={"search.max_buckets": 100})
    assert hash(a) == hash(NodeConfig(root=tmp_path))
    with pytest.raises(TypeError):
        a.extra_settings["x"] = 1  # type: ignore[index]
    with pytest.raises(AttributeError):
        a.http_port = 1  # type: ignore[misc]


def test_root_is_made_absolute_and_name_validated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert NodeConfig(root=Path("rel")).root == tmp_path / "rel"
    with pytest.raises(ValueError):
        NodeConfig(root=tmp_path, name="../escape")


# ------------------------------------------------------------------------------------------------ config rendering
def test_opensearch_yml_has_required_keys_and_extras(tmp_path: Path) -> None:
    yaml = pytest.importorskip("yaml")
    cfg = NodeConfig(
        root=tmp_path, http_port=9250, transport_port=9350,
        extra_settings={"http.max_content_length": "200mb", "indices.query.bool.max_clause_count": 4096,
                        "node.attr.tags": ["a", "b"]},
    )
    parsed = yaml.safe_load(node.render_opensearch_yml(cfg))
    assert parsed["cluster.name"] == "nomos"
    assert parsed["node.name"] == "node-1"
    assert parsed["path.data"] == str(cfg.data_dir)
    assert parsed["path.logs"] == str(cfg.logs_dir)
    assert parsed["network.host"] == "127.0.0.1"
    assert (parsed["http.port"], parsed["transport.port"]) == (9250, 9350)
    assert parsed["discovery.type"] == "single-node"
    assert parsed["bootstrap.memory_lock"] is False
    assert parsed["bootstrap.system_call_filter"] is False
    assert parsed["cluster.routing.allocation.disk.threshold_enabled"] is False
    assert parsed["indices.query.bool.max_clause_count"] == 4096  # extras override defaults, no duplicate key
    assert parsed["http.max_content_length"] == "200mb"
    assert parsed["node.attr.tags"] == ["a", "b"]
    assert node.node_settings(NodeConfig(root=tmp_path))["indices.query.bool.max_clause_count"] == 16384


def test_jvm_options_and_env(tmp_path: Path) -> None:
    cfg = NodeConfig(root=tmp_path, heap="512m")
    options = node.render_jvm_options(cfg)
    assert f"-Xlog:gc*,gc+age=trace,safepoint:file={cfg.logs_dir}/gc.log" in options
    assert f"-XX:HeapDumpPath={cfg.data_dir}" in options
    flags = [line for line in options.splitlines() if not line.startswith("#")]
    assert not any(line.startswith(("-Xmx", "-Xms")) for line in flags)
    env = node.node_env(cfg)
    assert env["OPENSEARCH_JAVA_OPTS"] == "-Xms512m -Xmx512m"
    assert env["OPENSEARCH_PATH_CONF"] == str(cfg.conf_dir)
    assert env["JAVA_HOME"] == env["OPENSEARCH_JAVA_HOME"] == str(cfg.java_home)


# ------------------------------------------------------------------------------------------------ assembly helpers
def test_descriptor_rendering() -> None:
    text = render_descriptor("analysis-common", "d", "2.19.1", "2.19.1", "a.B", ("lang-painless",))
    props = dict(line.split("=", 1) for line in text.splitlines() if line and not line.startswith("#"))
    assert props["name"] == "analysis-common"
    assert props["classname"] == "a.B"
    assert props["extended.plugins"] == "lang-painless"
    assert props["opensearch.version"] == "2.19.1"
    assert props["java.version"] == "11"


def test_find_plugin_class_checks_the_jar(tmp_path: Path) -> None:
    jar = tmp_path / "lang-painless-2.19.1.jar"
    with zipfile.ZipFile(jar, "w") as zf:
        zf.writestr("org/opensearch/painless/PainlessPlugin.class", b"")
    candidates = ("org.opensearch.painless.PainlessModulePlugin", "org.opensearch.painless.PainlessPlugin")
    assert find_plugin_class(jar, candidates) == "org.opensearch.painless.PainlessPlugin"
    with pytest.raises(AssemblyError):
        find_plugin_class(jar, ("org.opensearch.Nope",))


def test_jar_base_and_bundle_filter(tmp_path: Path) -> None:
    assert jar_base("log4j-api-2.21.0.jar") == "log4j-api"
    assert jar_base("javassist-3.29.2-GA.jar") == "javassist"
    assert jar_base("zstd-jni-1.5.5-5.jar") == "zstd-jni"
    assert jar_base("json-20231013.jar") == "json"
    jars = [tmp_path / n for n in ("asm-9.3.jar", "json-path-2.9.0.jar", "jackson-core-2.18.2.jar")]
    assert bundle_jars(jars, {"asm", "jackson-core"}) == [tmp_path / "json-path-2.9.0.jar"]


def test_render_pom_lists_dependencies_and_exclusions() -> None:
    pom = render_pom([Artifact("com.jayway.jsonpath", "json-path", "2.9.0", exclusions=(("org.slf4j", "slf4j-api"),))])
    assert "<artifactId>json-path</artifactId><version>2.9.0</version>" in pom
    assert "<exclusion><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId></exclusion>" in pom
    assert Artifact("g", "a", "1", "zip").coords == "g:a:1:zip"


# ------------------------------------------------------------------------------------------------ install
def test_install_is_a_noop_when_marker_and_tree_are_complete(cfg: NodeConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    make_fake_home(cfg.home, cfg)
    monkeypatch.setattr(node_install, "assemble_home", lambda *a, **k: pytest.fail("must not reassemble"))
    messages: list[str] = []
    assert node.install(cfg, log=messages.append) == cfg.home
    assert "nothing to do" in messages[-1]


def test_half_finished_install_is_redone(cfg: NodeConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    make_fake_home(cfg.home, cfg, marker=False)
    (cfg.home / "leftover").write_text("x")
    calls: list[Path] = []

    def fake_assemble(staging: Path, *args: object) -> None:
        calls.append(staging)
        make_fake_home(staging, cfg, marker=False)

    monkeypatch.setattr(node_install, "assemble_home", fake_assemble)
    messages: list[str] = []
    node.install(cfg, log=messages.append)
    assert len(calls) == 1 and not calls[0].exists()  # staging was renamed into place
    assert not (cfg.home / "leftover").exists()
    assert node.is_installed(cfg)
    assert any("redoing" in m for m in messages)
    node.install(cfg, log=messages.append)
    assert len(calls) == 1


def test_failed_install_leaves_no_home_and_raises(cfg: NodeConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(staging: Path, *args: object) -> None:
        staging.mkdir()
        raise MavenError("mvn could not fetch x:y:1")

    monkeypatch.setattr(node_install, "assemble_home", failing)
    with pytest.raises(NodeError, match="mvn could not fetch"):
        node.install(cfg, log=lambda _: None)
    assert not cfg.home.exists()
    assert not any(p.name.endswith(".partial") for p in cfg.root.iterdir())


def test_marker_of_another_version_means_not_installed(cfg: NodeConfig) -> None:
    make_fake_home(cfg.home, cfg)
    (cfg.home / node.MARKER_NAME).write_text('{"version": "2.18.0", "plugin_version": "2.18.0.0"}')
    assert not node.is_installed(cfg)


def test_missing_plugin_means_not_installed(cfg: NodeConfig) -> None:
    make_fake_home(cfg.home, cfg)
    (cfg.home / "plugins" / "opensearch-neural-search" / "plugin-descriptor.properties").unlink()
    assert any("opensearch-neural-search" in p for p in node.install_problems(cfg))


def test_install_refuses_a_missing_java(cfg: NodeConfig, fake_jdk: Path) -> None:
    (fake_jdk / "bin" / "java").unlink()
    with pytest.raises(NodeError, match="java"):
        node.install(cfg, log=lambda _: None)


# ------------------------------------------------------------------------------------------------ pidfile handling
def test_read_pid_rejects_garbage(tmp_path: Path) -> None:
    pid_file = tmp_path / "p.pid"
    assert node.read_pid(pid_file) is None
    for text in ("", "abc", "-5", "0", "12 34"):
        pid_file.write_text(text)
        assert node.read_pid(pid_file) is None
    pid_file.write_text("4242\n")
    assert node.read_pid(pid_file) == 4242


def test_zombie_counts_as_dead() -> None:
    proc = subprocess.Popen(["true"])
    deadline = time.monotonic() + 5
    while node.pid_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not node.pid_alive(proc.pid)  # exited but not reaped yet
    proc.wait()


def test_stale_pidfile_is_cleaned_and_nothing_is_signalled(cfg: NodeConfig) -> None:
    cfg.pid_file.parent.mkdir(parents=True)
    cfg.pid_file.write_text(str(dead_pid()))
    assert node.status(cfg)["running"] is False
    assert node.stop(cfg, log=lambda _: None) is False
    assert not cfg.pid_file.exists()


def test_live_pid_of_another_program_is_not_killed(cfg: NodeConfig) -> None:
    cfg.pid_file.parent.mkdir(parents=True)
    cfg.pid_file.write_text(str(os.getpid()))  # alive, but not OpenSearch with this config dir
    assert node.running_pid(cfg) is None
    assert node.stop(cfg, log=lambda _: None) is False
    assert not cfg.pid_file.exists()


def test_stop_terminates_the_pidfile_process(cfg: NodeConfig) -> None:
    proc = stand_in_node(cfg)
    try:
        assert node.running_pid(cfg) == proc.pid
        assert node.stop(cfg, timeout=10, log=lambda _: None) is True
        assert proc.wait(timeout=5) == -signal.SIGTERM
        assert not cfg.pid_file.exists()
    finally:
        proc.kill()
        proc.wait()


def test_stop_escalates_to_sigkill(cfg: NodeConfig) -> None:
    proc = stand_in_node(cfg, ignore_term=True)
    messages: list[str] = []
    try:
        assert node.stop(cfg, timeout=0.5, log=messages.append) is True
        assert proc.wait(timeout=5) == -signal.SIGKILL
        assert any("SIGKILL" in m for m in messages)
    finally:
        proc.kill()
        proc.wait()


def test_pid_of_another_node_is_not_this_node(cfg: NodeConfig, tmp_path: Path) -> None:
    other = NodeConfig(root=cfg.root, name="other", java_home=cfg.java_home)
    proc = stand_in_node(other)
    try:
        cfg.pid_file.parent.mkdir(parents=True, exist_ok=True)
        cfg.pid_file.write_text(str(proc.pid))
        assert node.running_pid(other) == proc.pid
        assert node.running_pid(cfg) is None
    finally:
        proc.kill()
        proc.wait()


# ------------------------------------------------------------------------------------------------ start / status
def test_start_requires_an_install(cfg: NodeConfig) -> None:
    with pytest.raises(NodeError, match="not installed"):
        node.start(cfg, timeout=1, log=lambda _: None)


def test_start_refuses_a_taken_port(cfg: NodeConfig) -> None:
    make_fake_home(cfg.home, cfg)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", cfg.http_port))
        sock.listen()
        assert node.port_in_use(cfg.http_port)
        with pytest.raises(NodeError, match=f"port {cfg.http_port}"):
            node.start(cfg, timeout=1, log=lambda _: None)


def test_early_death_reports_the_log_tail(cfg: NodeConfig) -> None:
    cfg.logs_dir.mkdir(parents=True)
    cfg.main_log.write_text("\n".join(f"line {i}" for i in range(100)) + "\n")
    cfg.pid_file.parent.mkdir(parents=True)
    cfg.pid_file.write_text(str(dead_pid()))
    with pytest.raises(NodeError) as err:
        node.wait_until_up(cfg, None, time.monotonic() + 30, 30, console_offset=0)
    text = str(err.value)
    assert "died during startup" in text
    assert "line 99" in text and "line 60" in text and "line 59\n" not in text


def test_status_of_nothing(cfg: NodeConfig) -> None:
    assert node.status(cfg) == {
        "installed": False, "running": False, "pid": None, "url": cfg.url, "secure": False,
        "version": None, "health": None, "plugins": [], "modules": [],
    }


@pytest.mark.parametrize("launched", [True, False])
def test_timeout_stops_only_a_node_this_call_launched(cfg: NodeConfig, launched: bool) -> None:
    proc = stand_in_node(cfg)  # nothing answers HTTP on cfg.http_port, so it never turns yellow
    try:
        with pytest.raises(NodeError, match="not yellow within"):
            node.wait_until_up(cfg, None, time.monotonic() + 1.5, 1.5, console_offset=0, stop_on_timeout=launched)
        assert node.pid_alive(proc.pid) is not launched
    finally:
        proc.kill()
        proc.wait()


def test_run_tool_returns_stdout_or_raises_with_the_tail(tmp_path) -> None:
    import os

    from nomos.opensearch.tool import TAIL_LINES, run_tool

    assert run_tool(["sh", "-c", "echo fine"], env=os.environ, error=RuntimeError, what="x") == "fine\n"
    script = "for i in $(seq 1 100); do echo line$i; done; echo boom >&2; exit 3"
    with pytest.raises(ValueError) as err:
        run_tool(["sh", "-c", script], env=os.environ, error=ValueError, what="tool failed", cwd=tmp_path)
    msg = str(err.value)
    assert msg.startswith("tool failed (exit 3):") and "boom" in msg and "line100" in msg
    assert "line1\n" not in msg and len(msg.splitlines()) == TAIL_LINES + 1


def test_cluster_configs_share_a_cluster_and_split_everything_else(tmp_path: Path) -> None:
    yaml = pytest.importorskip("yaml")
    base = NodeConfig(root=tmp_path, name="node-1", http_port=9200, transport_port=9300)
    assert node.cluster_configs(base, 1) == [base]
    cfgs = node.cluster_configs(base, 2)
    assert [c.name for c in cfgs] == ["node-1", "node-2"]
    assert [(c.http_port, c.transport_port) for c in cfgs] == [(9200, 9300), (9201, 9301)]
    assert len({c.data_dir for c in cfgs}) == len({c.logs_dir for c in cfgs}) == len({c.conf_dir for c in cfgs}) == 2
    for c in cfgs:
        parsed = yaml.safe_load(node.render_opensearch_yml(c))
        assert parsed["cluster.name"] == "nomos" and parsed["node.name"] == c.name
        assert "discovery.type" not in parsed
        assert parsed["discovery.seed_hosts"] == ["127.0.0.1:9300", "127.0.0.1:9301"]
        assert parsed["cluster.initial_cluster_manager_nodes"] == ["node-1", "node-2"]
        assert (parsed["http.port"], parsed["transport.port"]) == (c.http_port, c.transport_port)
        assert parsed["path.data"] == str(c.data_dir)
    assert [c.name for c in node.cluster_configs(NodeConfig(root=tmp_path, name="fault"), 3)] == ["fault-1", "fault-2", "fault-3"]
    with pytest.raises(ValueError, match="overlap"):
        node.cluster_configs(NodeConfig(root=tmp_path, http_port=9300, transport_port=9301), 2)
    with pytest.raises(ValueError, match="at least 1"):
        node.cluster_configs(base, 0)


def test_a_running_single_node_is_not_taken_for_a_cluster_member(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`server start --nodes 2` while node-1 runs alone (or `server start` while it runs in a cluster) is refused
    with what to do, instead of waiting for a node that can never join."""
    single = NodeConfig(root=tmp_path, name="node-1", http_port=9200, transport_port=9300)
    member = node.cluster_configs(single, 2)[0]
    single.conf_dir.mkdir(parents=True)
    single.conf_dir.joinpath("opensearch.yml").write_text(node.render_opensearch_yml(single), encoding="utf-8")
    assert node.running_layout_mismatch(single) is None
    why = node.running_layout_mismatch(member)
    assert why is not None and "node-1" in why and "single node" in why and "2-node cluster" in why and "server stop" in why

    member.conf_dir.joinpath("opensearch.yml").write_text(node.render_opensearch_yml(member), encoding="utf-8")
    assert node.running_layout_mismatch(member) is None
    assert "a single node" in (node.running_layout_mismatch(single) or "")

    # start_cluster refuses before launching anything when node-1 is up with the other layout
    single.conf_dir.joinpath("opensearch.yml").write_text(node.render_opensearch_yml(single), encoding="utf-8")
    monkeypatch.setattr(node_cluster, "check_java", lambda cfg: None)
    monkeypatch.setattr(node_cluster, "is_installed", lambda cfg: True)
    monkeypatch.setattr(node_cluster, "running_pid", lambda cfg: 4242 if cfg.name == "node-1" else None)
    launched: list[str] = []
    monkeypatch.setattr(node_cluster, "launch", lambda cfg, account: launched.append(cfg.name))
    with pytest.raises(NodeError, match="single node"):
        node.start_cluster(node.cluster_configs(single, 2), timeout=5, log=lambda _m: None)
    assert launched == []


def test_the_cluster_size_is_remembered_per_base_node(tmp_path: Path) -> None:
    """`server start --nodes 3` notes 3 so that `stop`/`status` reach every member; a single node leaves no note."""
    base = NodeConfig(root=tmp_path, name="node-1")
    other = NodeConfig(root=tmp_path, name="fault")
    assert node.remembered_cluster_size(base) is None
    node.remember_cluster_size(base, 3)
    assert node.remembered_cluster_size(base) == 3 and node.remembered_cluster_size(other) is None
    assert node.cluster_size_file(base) == tmp_path / "nodes" / ".node-1.cluster-size"  # the file earlier CLIs wrote
    assert node.cluster_size_file(base).read_text() == "3\n"
    node.remember_cluster_size(base, 1)
    assert node.remembered_cluster_size(base) is None and not node.cluster_size_file(base).exists()
    node.cluster_size_file(base).write_text("garbage")
    assert node.remembered_cluster_size(base) is None


def test_search_threads_reach_the_nodes_opensearch_yml(tmp_path):
    """NOMOS_SEARCH_THREADS sizes the local node's search pool (unset: OpenSearch's own default, no key written)."""
    from nomos.cli import _node_or_exit
    from nomos.opensearch.node_config import render_opensearch_yml
    from nomos.settings import Settings

    sized = _node_or_exit(Settings.from_env({"NOMOS_SEARCH_THREADS": "3", "NOMOS_NODE_ROOT": str(tmp_path)}))
    assert "thread_pool.search.size: 3" in render_opensearch_yml(sized).splitlines()
    default = _node_or_exit(Settings.from_env({"NOMOS_NODE_ROOT": str(tmp_path)}))
    assert "thread_pool" not in render_opensearch_yml(default)


def test_the_node_runs_the_garbage_collector_asked_for(tmp_path):
    """NOMOS_NODE_GC picks the local node's collector: parallel by default (less CPU per results page on 2 cores,
    docs/benchmarks.md), G1 with the distribution's tuning lines on request, nothing else."""
    from nomos.cli import _node_or_exit
    from nomos.settings import Settings

    def flags(env: dict[str, str]) -> list[str]:
        cfg = _node_or_exit(Settings.from_env({"NOMOS_NODE_ROOT": str(tmp_path), **env}))
        return [line for line in node.render_jvm_options(cfg).splitlines()
                if line.startswith("-XX:") and "HeapDump" not in line and "ErrorFile" not in line]

    assert flags({}) == ["-XX:+UseParallelGC"]
    assert flags({"NOMOS_NODE_GC": "g1"}) == [
        "-XX:+UseG1GC", "-XX:G1ReservePercent=25", "-XX:InitiatingHeapOccupancyPercent=30"]
    with pytest.raises(ValueError, match="zgc"):
        NodeConfig(root=tmp_path, gc="zgc")


def test_with_the_parallel_collector_the_breaker_counts_reservations_not_garbage(tmp_path):
    """The parallel collector leaves the old generation full of garbage until it is full, and only G1 can be made
    to collect when the parent breaker trips: a breaker reading real memory refused every request for good (the dev
    node, session 24). So with parallel, opensearch.yml turns real memory off; with G1 it keeps OpenSearch's own."""
    yaml = pytest.importorskip("yaml")

    def breaker(gc: str) -> object:
        parsed = yaml.safe_load(node.render_opensearch_yml(NodeConfig(root=tmp_path, gc=gc)))
        return parsed.get("indices.breaker.total.use_real_memory", "absent")

    assert breaker("parallel") is False
    assert breaker("g1") == "absent"


@pytest.mark.integration
def test_the_running_node_breaks_on_reservations_with_the_parallel_collector(client):
    """The tests' own node runs the default collector: its parent breaker must not count the heap's garbage."""
    got = client.nodes.info(metric="settings", filter_path="nodes.*.settings.indices.breaker,nodes.*.jvm")
    settings = next(iter(got["nodes"].values()))["settings"]
    assert settings["indices"]["breaker"]["total"]["use_real_memory"] == "false"
