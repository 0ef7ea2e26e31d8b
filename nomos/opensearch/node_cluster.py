"""A loopback cluster of local nodes: the configs of its members (one cluster name, consecutive ports, per-node
folders), starting them all before waiting for any (a node of a new cluster cannot answer before the others have
joined), and the cluster size ``server start`` remembers so that ``stop`` and ``status`` find every member.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import replace
from pathlib import Path

from nomos.opensearch.host_files import unlink_in, write_file
from nomos.opensearch.node_config import Log, NodeConfig, NodeError, node_lock, running_layout_mismatch
from nomos.opensearch.node_host import claim_node_dir, claim_nodes_folder
from nomos.opensearch.node_install import check_java, is_installed
from nomos.opensearch.node_lifecycle import (
    console_size,
    launch,
    prepare_launch,
    start,
    store_node_scripts,
    wait_until_up,
)
from nomos.opensearch.node_process import cluster_health, running_pid


def cluster_configs(base: NodeConfig, nodes: int) -> list[NodeConfig]:
    """``nodes`` configs for a loopback cluster built from ``base``: one shared cluster name, distinct node names
    (``node-1``, ``node-2``… from a base named ``node-1``; else ``<name>-1``, ``<name>-2``…), consecutive HTTP and
    transport ports from the base's, and per-node data, log and config folders. ``nodes == 1`` is ``[base]``."""
    if nodes < 1:
        raise ValueError(f"nodes must be at least 1, got {nodes}")
    if nodes == 1:
        return [base]
    if base.secure:
        raise ValueError("a secured node (--secure) runs as a single node: one certificate and one security index")
    stem = base.name[:-2] if base.name.endswith("-1") else base.name
    names = [f"{stem}-{i + 1}" for i in range(nodes)]
    members = tuple((names[i], base.transport_port + i) for i in range(nodes))
    if set(range(base.http_port, base.http_port + nodes)) & {p for _, p in members}:
        raise ValueError(f"HTTP ports {base.http_port}+ and transport ports {base.transport_port}+ overlap")
    return [
        replace(base, name=names[i], http_port=base.http_port + i, transport_port=base.transport_port + i, cluster_nodes=members)
        for i in range(nodes)
    ]


def start_cluster(cfgs: list[NodeConfig], timeout: float = 240, log: Log = print) -> list[int]:
    """Launch every node of a loopback cluster, then wait until each answers yellow (a node of a new cluster
    cannot answer before the others have joined, so they must all be launched first). Idempotent per node."""
    if len(cfgs) == 1:
        return [start(cfgs[0], timeout=timeout, log=log)]
    deadline = time.monotonic() + timeout
    launched: list[tuple[NodeConfig, subprocess.Popen[bytes] | None, int]] = []
    for cfg in cfgs:
        check_java(cfg)
        if not is_installed(cfg):
            raise NodeError(f"OpenSearch {cfg.version} is not installed under {cfg.root}: run install first")
        claim_node_dir(cfg)
        with node_lock(cfg.node_dir / ".lock"):
            offset = console_size(cfg)
            if running_pid(cfg) is not None:
                if (why := running_layout_mismatch(cfg)) is not None:
                    raise NodeError(why)
                log(f"node {cfg.name} is already running (pid {running_pid(cfg)}) at {cfg.url}")
                launched.append((cfg, None, offset))
                continue
            account = prepare_launch(cfg, log)
            log(f"starting node {cfg.name} ({cfg.url}, transport {cfg.transport_port}, heap {cfg.heap})")
            launched.append((cfg, launch(cfg, account), offset))
    pids = []
    for cfg, launcher, offset in launched:
        pids.append(wait_until_up(cfg, launcher, deadline, timeout, console_offset=offset, stop_on_timeout=launcher is not None))
    store_node_scripts(cfgs[0])  # cluster state: stored once, every member has them
    log(f"cluster {cfgs[0].cluster_name} is up: {', '.join(f'{c.name} (pid {p}, {c.url})' for c, p in zip(cfgs, pids, strict=True))}, "
        f"health {cluster_health(cfgs[0])}")
    return pids


def cluster_size_file(base: NodeConfig) -> Path:
    """Where ``server start`` notes how many nodes it started from ``base``, next to the node folders (named after
    the base node, so two differently named local clusters under one root keep their own)."""
    return base.root / "nodes" / f".{base.name}.cluster-size"


def remembered_cluster_size(base: NodeConfig) -> int | None:
    """The cluster size the last ``server start`` from ``base`` ran, or None (a single node, or nothing noted), so
    that ``stop`` and ``status`` without ``--nodes`` reach every member it started."""
    try:
        text = cluster_size_file(base).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() and int(text) > 0 else None


def remember_cluster_size(base: NodeConfig, nodes: int) -> None:
    """Note that ``nodes`` were started from ``base``; a single node (the default) leaves no note."""
    path = cluster_size_file(base)
    if nodes > 1:
        claim_nodes_folder(base)
        write_file(path, f"{nodes}\n", 0o644)
    else:
        unlink_in(path.parent, path.name)
