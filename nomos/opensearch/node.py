"""Install, start, stop and report on the project's own local OpenSearch node: the names callers import, gathered.

There is no Docker engine and no artifact host but Maven Central on the machines this project runs on, so the node is
assembled from Maven Central pieces (see ``assembly.py`` and ``docs/opensearch-local.md``). The work is split by
what it does:

* ``node_config``    :class:`NodeConfig`, the rendered ``opensearch.yml`` / ``jvm.options`` / environment, the
                     running-layout check, the per-node lock
* ``node_install``   the shared home: install, completeness, preconditions (JDK, traversable root)
* ``node_process``   pidfile, process identity, signals, ports, HTTP health and status
* ``node_lifecycle`` start and stop of one node
* ``node_cluster``   loopback clusters: member configs, start of all members, the remembered cluster size

``from nomos.opensearch.node import ...`` keeps working for all of them.
"""

from __future__ import annotations

from nomos.opensearch.node_cluster import (
    cluster_configs,
    cluster_size_file,
    remember_cluster_size,
    remembered_cluster_size,
    start_cluster,
)
from nomos.opensearch.node_config import (
    LAYOUT_KEYS,
    Log,
    NodeConfig,
    NodeError,
    default_root,
    node_env,
    node_settings,
    render_jvm_options,
    render_opensearch_yml,
    running_layout_mismatch,
)
from nomos.opensearch.node_install import (
    MARKER_NAME,
    REQUIRED_MODULES,
    REQUIRED_PLUGINS,
    install,
    install_problems,
    is_installed,
    read_properties,
)
from nomos.opensearch.node_lifecycle import start, stop, wait_until_up
from nomos.opensearch.node_process import (
    OPENSEARCH_MAIN_CLASS,
    cluster_health,
    http_json,
    is_node_process,
    kill,
    pid_alive,
    port_in_use,
    read_pid,
    running_pid,
    status,
)

__all__ = [
    "LAYOUT_KEYS", "MARKER_NAME", "OPENSEARCH_MAIN_CLASS", "REQUIRED_MODULES", "REQUIRED_PLUGINS", "Log", "NodeConfig",
    "NodeError", "cluster_configs", "cluster_health", "cluster_size_file", "default_root", "http_json", "install",
    "install_problems", "is_installed", "is_node_process", "kill", "node_env", "node_settings", "pid_alive",
    "port_in_use", "read_pid", "read_properties", "remember_cluster_size", "remembered_cluster_size",
    "render_jvm_options", "render_opensearch_yml", "running_layout_mismatch", "running_pid", "start", "start_cluster",
    "status", "stop", "wait_until_up",
]
