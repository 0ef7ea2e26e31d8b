"""``server``: the project's own local OpenSearch node (install, start, stop, status)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from nomos.cli.main import cli
from nomos.cli.options import node_log
from nomos.errors import ConfigError
from nomos.settings import Settings


@cli.group()
def server() -> None:
    """The project's own local OpenSearch node (not used when OPENSEARCH_URL is set)."""


def _node_or_exit(settings: Settings, secure: bool | None = None):  # NodeConfig import is lazy
    """The local node's config; ``secure`` None: as asked (NOMOS_SECURE) or as the node was last started."""
    from nomos.opensearch.node import NodeConfig
    from nomos.opensearch.node_config import started_secure

    if not settings.uses_local_node:
        click.echo(f"OPENSEARCH_URL is set ({settings.url}): using that cluster, nothing to do locally.")
        sys.exit(0)
    cfg = NodeConfig(
        root=settings.node_root,
        name=settings.node_name,
        http_port=settings.http_port,
        transport_port=settings.transport_port,
        heap=settings.heap,
        gc=settings.node_gc,
        secure=bool(secure) or settings.secure,
        articles_alias=settings.index_alias,
        results_prefix=settings.results_prefix,
        ca_key_dir=settings.ca_key_dir,
        extra_settings={"thread_pool.search.size": settings.search_threads} if settings.search_threads else {},
    )
    if secure is None and not cfg.secure and started_secure(cfg):
        from dataclasses import replace

        cfg = replace(cfg, secure=True)
    return cfg


secure_option = click.option("--secure", is_flag=True, default=False,
                             help="The security plugin: TLS on HTTP and transport with certificates nomos makes, an "
                                  "admin and two least-privilege users (nomos_indexer, nomos_portal) whose passwords "
                                  "are generated once (env NOMOS_SECURE).")


def _print_access(cfg) -> None:  # NodeConfig
    """How the command line and the portal reach a secured node: the CA, each user's password file."""
    from nomos.opensearch.node_security import INDEXER_USER, PORTAL_USER, cert_files, password_file

    click.echo(f"secured: {cfg.url} (TLS; clients trust {cert_files(cfg).ca})")
    click.echo(f"  indexer: NOMOS_SECURE=1 NOMOS_OPENSEARCH_USER={INDEXER_USER} "
               f"NOMOS_OPENSEARCH_PASSWORD_FILE={password_file(cfg, INDEXER_USER)}")
    click.echo(f"  portal:  NOMOS_PORTAL_OPENSEARCH_USER={PORTAL_USER} "
               f"NOMOS_PORTAL_OPENSEARCH_PASSWORD_FILE={password_file(cfg, PORTAL_USER)}")


def _cluster(settings: Settings, nodes: int | None, secure: bool | None = None) -> list:
    """The node configs of the local cluster: ``--nodes``, else NOMOS_NODES, else as many as the last start ran."""
    from nomos.opensearch.node import cluster_configs, remembered_cluster_size

    base = _node_or_exit(settings, secure)
    if nodes is None and settings.nodes == 1:
        nodes = remembered_cluster_size(base)
    try:
        return cluster_configs(base, nodes or settings.nodes)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


nodes_option = click.option("--nodes", type=int, default=None,
                            help="Nodes of a loopback cluster on consecutive ports (default 1, env NOMOS_NODES; "
                                 "stop/status default to what start ran).")


@server.command("install")
@secure_option
@click.option("--ca-key-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="With --secure: the folder (made 0700) that keeps the CA's key, outside the node's folder "
                   "(env NOMOS_CA_KEY_DIR; default <root>/ca-keys/<node>). Needed only to issue new certificates.")
@click.pass_obj
def server_install(settings: Settings, secure: bool, ca_key_dir: Path | None) -> None:
    """Download OpenSearch and its plugins from Maven Central and assemble a node (idempotent)."""
    from nomos.opensearch.node import install

    if ca_key_dir is not None:
        settings = settings.with_overrides(ca_key_dir=ca_key_dir)
    cfg = _node_or_exit(settings, secure or None)
    click.echo(f"installed: {install(cfg, log=node_log)}")
    if cfg.secure:
        from nomos.opensearch.node_lifecycle import write_node_config
        from nomos.opensearch.node_security import cert_files

        write_node_config(cfg, log=click.echo)  # certificates and passwords now, for compose's profile too
        click.echo(f"NOMOS_SECURE_DIR={cfg.conf_dir} (certs/ and opensearch-security/ for docker compose --profile secure)")
        key = cert_files(cfg).ca_key
        click.echo(f"the CA key: {key if key.is_file() else f'not at {key} (offline)'}; the node does not need it: "
                   "move it offline, bring it back only to issue new certificates (docs/security.md)")
        _print_access(cfg)


@server.command("portal-user")
@click.argument("user")
@click.pass_obj
def server_portal_user(settings: Settings, user: str) -> None:
    """As root: let the OS user USER (made when missing) read the secured node's portal password and CA
    certificate, and nothing else of its secrets, so the portal runs as USER (docs/security.md)."""
    from nomos.opensearch.node_security import PORTAL_USER, grant_portal_user

    cfg = _node_or_exit(settings, True)
    secret, ca = grant_portal_user(cfg, user, log=click.echo)
    click.echo(f"run the portal as {user}, from a Python and a checkout {user} can read (not under /root), with a "
               "cache folder it owns:")
    click.echo(f"  runuser -u {user} -- env OPENSEARCH_URL={cfg.url} NOMOS_OPENSEARCH_CA={ca} "
               f"NOMOS_PORTAL_OPENSEARCH_USER={PORTAL_USER} NOMOS_PORTAL_OPENSEARCH_PASSWORD_FILE={secret} "
               f"NOMOS_CACHE_DIR=/var/cache/{user} /opt/nomos/venv/bin/python cli.py serve")


@server.command("start")
@click.option("--timeout", default=180.0, show_default=True, help="Seconds to wait for a yellow cluster.")
@nodes_option
@secure_option
@click.pass_obj
def server_start(settings: Settings, timeout: float, nodes: int | None, secure: bool) -> None:
    """Install if needed, start the node (or --nodes N of a cluster) detached, and wait until it answers (idempotent)."""
    from nomos.opensearch.node import install, remember_cluster_size, start_cluster

    asked = secure or settings.secure
    cfgs = _cluster(settings, nodes or settings.nodes, secure=asked)
    install(cfgs[0], log=node_log)
    if cfgs[0].secure:
        from nomos.opensearch.node_security import ensure_passwords

        ensure_passwords(cfgs[0], log=click.echo)  # the first time: where each password is kept (never the password)
    pids = start_cluster(cfgs, timeout=timeout, log=node_log)
    remember_cluster_size(_node_or_exit(settings, asked), len(cfgs))
    for cfg, pid in zip(cfgs, pids, strict=True):
        click.echo(f"running: {cfg.name} pid {pid} at {cfg.url}")
    if cfgs[0].secure:
        _print_access(cfgs[0])


@server.command("stop")
@nodes_option
@click.pass_obj
def server_stop(settings: Settings, nodes: int | None) -> None:
    """Stop the node(s) by the pid in each pidfile."""
    from nomos.opensearch.node import stop

    for cfg in _cluster(settings, nodes):
        click.echo(f"{cfg.name}: " + ("stopped" if stop(cfg, log=node_log) else "was not running"))


@server.command("status")
@nodes_option
@click.pass_obj
def server_status(settings: Settings, nodes: int | None) -> None:
    """Installed? running? version, health and plugins (per node)."""
    from nomos.opensearch.node import status

    cfgs = _cluster(settings, nodes)
    for cfg in cfgs:
        if len(cfgs) > 1:
            click.echo(f"[{cfg.name}]")
        state = status(cfg)
        for key, value in state.items():
            click.echo(f"{key}: {value}")
    if state.get("running") or not settings.uses_local_node:
        _index_lines(settings.with_overrides(http_port=cfgs[0].http_port) if settings.uses_local_node else settings)


def _index_lines(settings: Settings) -> None:
    """The index a search uses, its articles, its vectors' readiness and the method a search gets now."""
    from nomos.errors import ClusterError
    from nomos.stages.indexing import index_status

    try:
        lines = index_status(settings)
    except ClusterError as exc:
        lines = {"index": f"unknown ({exc})"}
    for key, value in lines.items():
        click.echo(f"{key}: {value}")
