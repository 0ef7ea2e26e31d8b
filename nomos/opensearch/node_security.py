"""The security plugin's configuration of a secured local node (``server start --secure``).

What a security officer reads here: TLS on HTTP and transport with the node's own CA (``node_certs``); the
internal user database with three users whose passwords nomos generates, stores 0600 under the node folder and
prints once; and two least-privilege roles:

* ``nomos_indexer`` may create, write and delete the article indices (``<alias>``, ``<alias>-*``), their alias
  and the results indices (``<results prefix>-*``), read the judgments index (exports), store the search
  pipelines and read the project's scripts (``stored_scripts``), and nothing else: it cannot write, close or
  delete the judgments, nor store a script (only the admin does, at ``server start``);
* ``nomos_portal`` may read the articles (search, get, mappings, settings, analyze) and index, update and read the
  judgments index (``<alias>_judgments``) only: it cannot create, write or delete an article index, delete a
  judgment, nor store a script (and the node runs no inline script: ``script.allowed_types: stored``).

Every user is ``reserved``: only the admin may change it, so neither service account can change its own password
through the security plugin's account API.

``admin`` has ``all_access`` (and the admin certificate is the ``admin_dn`` that ``securityadmin.sh`` needs).
The opensearch.yml keys that turn TLS and the plugin on are ``node_config.security_settings`` (beside the rest of
opensearch.yml); the certificate paths they name are the files :func:`write_security_config` copies. The plugin
loads these files into its security index on the node's FIRST start
(``plugins.security.allow_default_init_securityindex``); later changes to them need ``securityadmin.sh`` (see
docs/opensearch-local.md).
"""

from __future__ import annotations

import base64
import grp
import os
import pwd
import secrets
import ssl
import subprocess
from pathlib import Path
from typing import Any

import yaml

from nomos.errors import ConfigError
from nomos.opensearch.host_files import make_folder, read_bytes, read_text, set_mode, write_file
from nomos.opensearch.node_certs import CertFiles, ensure_certs, tight_folder
from nomos.opensearch.node_config import CERTS_SUBDIR, Log, NodeConfig
from nomos.opensearch.node_host import claim_node_dir

ADMIN_USER = "admin"
INDEXER_USER = "nomos_indexer"
PORTAL_USER = "nomos_portal"
USERS = (ADMIN_USER, INDEXER_USER, PORTAL_USER)
SECURITY_PLUGIN = "opensearch-security"
CONF_SUBDIR = "opensearch-security"  # where the plugin reads its yml files, under OPENSEARCH_PATH_CONF
BCRYPT_ROUNDS = 12  # what the plugin's own hash tool uses


def security_dir(cfg: NodeConfig) -> Path:
    """The node's secrets (CA and keys, passwords): root's (or the caller's) own, 0700, outside the config dir the
    node's account reads."""
    return cfg.node_dir / "security"


def cert_files(cfg: NodeConfig) -> CertFiles:
    """The node's certificates (``<node>/security/certs``) and its CA key's place (:attr:`NodeConfig.ca_key_folder`)."""
    return CertFiles(security_dir(cfg) / "certs", cfg.ca_key_folder)


def password_file(cfg: NodeConfig, user: str) -> Path:
    """``<node>/security/<user>.password`` (0600): what NOMOS_OPENSEARCH_PASSWORD_FILE points at."""
    return security_dir(cfg) / f"{user}.password"


def ensure_passwords(cfg: NodeConfig, log: Log = print) -> dict[str, str]:
    """The three users' passwords: read back, or generated (``secrets``) and stored 0600 the first time, when the
    files' paths are printed (never the passwords: a terminal's scrollback, a CI log or a screen share keeps them,
    admin's included)."""
    folder = security_dir(cfg)
    claim_node_dir(cfg)  # root's (as root) before its secrets folder is made or read
    tight_folder(folder)
    passwords: dict[str, str] = {}
    made: list[str] = []
    for user in USERS:
        path = password_file(cfg, user)
        if path.is_file() and (known := read_text(path).strip()):
            passwords[user] = known
            continue
        passwords[user] = secrets.token_urlsafe(24)
        write_file(path, passwords[user], 0o600)
        made.append(user)
    if made:
        log(f"generated passwords, each in a file readable by its owner only (0600, in {folder}):")
        for user in made:
            log(f"  {user}: {password_file(cfg, user)}")
        log("point NOMOS_OPENSEARCH_PASSWORD_FILE at the file of the user a command runs as")
    return passwords


def hash_password(password: str) -> str:
    """bcrypt, as the plugin's internal user database stores it (``$2y$12$…``)."""
    try:
        import bcrypt
    except ImportError:
        raise ConfigError("a secured node needs the `bcrypt` package", hint="pip install -r requirements.txt") from None
    return bcrypt.hashpw(password.encode("utf-8"), bcrypt.gensalt(rounds=BCRYPT_ROUNDS, prefix=b"2b")).decode("ascii")


def internal_users(passwords: dict[str, str]) -> dict[str, Any]:
    """internal_users.yml: the three users, hashed."""
    described = {ADMIN_USER: "nomos: the cluster's administrator (all_access)",
                 INDEXER_USER: "nomos: builds and replaces the article indices, writes results",
                 PORTAL_USER: "nomos: the portal; reads the articles, writes judgments"}
    users: dict[str, Any] = {"_meta": {"type": "internalusers", "config_version": 2}}
    for user in USERS:
        # reserved: only the node's admin may change them; the service accounts could change their own password
        # through the account API (issue 47: the portal then answered 503 until it was put back)
        users[user] = {"hash": hash_password(passwords[user]), "reserved": True,
                       "backend_roles": ["admin"] if user == ADMIN_USER else [], "description": described[user]}
    return users


def index_patterns(cfg: NodeConfig) -> dict[str, list[str]]:
    """The index names each role's permissions cover, from the articles alias and the results prefix."""
    alias = cfg.articles_alias
    return {
        "articles": [alias, f"{alias}-*"],
        "judgments": [f"{alias}_judgments"],
        "results": [cfg.results_prefix, f"{cfg.results_prefix}-*"],
    }


def roles(cfg: NodeConfig) -> dict[str, Any]:
    """roles.yml: ``nomos_indexer`` and ``nomos_portal``, least privilege (see the module's docstring)."""
    pat = index_patterns(cfg)
    read_articles = ["read", "indices:admin/mappings/get", "indices:monitor/settings/get", "indices:admin/analyze",
                     "indices:admin/aliases/get", "indices:admin/get", "indices:admin/resolve/index",
                     "indices:monitor/stats"]
    return {
        "_meta": {"type": "roles", "config_version": 2},
        INDEXER_USER: {
            "description": "nomos index / eval --to-opensearch: the article, judgments and results indices only",
            # scroll and its clear are cluster-level actions to the plugin: a re-index reads what the index holds
            # with a scroll (helpers.scan), and so does a judgments export. Scripts: it may read the project's
            # (an index checks they are there) but not store one: only the admin does, at `server start` (issue
            # 47: it could store any Painless and overwrite the script the portal runs for fused pages)
            "cluster_permissions": ["cluster_monitor", "cluster_composite_ops", "cluster:admin/search/pipeline/*",
                                    "indices:admin/aliases", "indices:admin/aliases/get",
                                    "indices:data/read/scroll", "indices:data/read/scroll/clear",
                                    "cluster:admin/script/get"],
            "index_permissions": [
                {"index_patterns": pat["articles"] + pat["results"], "allowed_actions": ["indices_all"]},
                # the judgments: read for the export, never written, closed or deleted (the portal's to write)
                {"index_patterns": pat["judgments"],
                 "allowed_actions": ["read", "indices:admin/get", "indices:admin/mappings/get"]},
            ],
        },
        PORTAL_USER: {
            "description": "nomos portal: read the articles, write the judgments index, nothing else",
            # bulk: the envelope a single write travels in; each item is still checked against the index rules
            "cluster_permissions": ["cluster_composite_ops_ro", "cluster:monitor/main", "cluster:monitor/health",
                                    "cluster:admin/search/pipeline/get", "indices:data/write/bulk"],
            "index_permissions": [
                {"index_patterns": pat["articles"], "allowed_actions": read_articles},
                # a judgment is written (one update with an upsert) and read, never deleted (issue 47: `crud`
                # let the portal's account delete any judgment or delete them by query); the update runs as a
                # shard-level bulk (bulk[s]), whose items the plugin still checks one by one
                {"index_patterns": pat["judgments"],
                 "allowed_actions": ["read", "indices:data/write/index", "indices:data/write/update",
                                     "indices:data/write/bulk[s]",
                                     "create_index", "indices:admin/mapping/put", "indices:admin/get",
                                     "indices:admin/refresh*", "indices:admin/mappings/get"]},
            ],
        },
    }


# The security plugin's rate limiting of failed logins (its auth_failure_listeners, config.yml): per user name of
# the internal database, so a wrong password costs the node its bcrypt (about 260 ms of CPU) at most this often.
# Per user name, not per address: every client of a node on loopback is 127.0.0.1, the portal included, so an
# address block would shut the portal out with the attacker. The price (docs/security.md): a local account that
# can reach the port can lock a user out for BLOCK_SECONDS by failing ALLOWED_TRIES times.
AUTH_FAILURE_LISTENERS = {
    "internal_users_by_name": {"type": "username", "authentication_backend": "intern", "allowed_tries": 10,
                               "time_window_seconds": 60, "block_expiry_seconds": 60,
                               "max_blocked_clients": 100000, "max_tracked_clients": 100000},
}


def throttled_config(config: dict[str, Any]) -> dict[str, Any]:
    """The plugin's default config.yml with :data:`AUTH_FAILURE_LISTENERS` in ``config.dynamic`` (issue 47: failed
    logins were not throttled; about 8 a second filled both cores)."""
    config.setdefault("config", {}).setdefault("dynamic", {})["auth_failure_listeners"] = AUTH_FAILURE_LISTENERS
    return config


def roles_mapping() -> dict[str, Any]:
    """roles_mapping.yml: admin → all_access, each nomos user → its own role."""
    return {
        "_meta": {"type": "rolesmapping", "config_version": 2},
        "all_access": {"reserved": False, "users": [ADMIN_USER], "backend_roles": ["admin"]},
        INDEXER_USER: {"reserved": False, "users": [INDEXER_USER]},
        PORTAL_USER: {"reserved": False, "users": [PORTAL_USER]},
    }


def write_security_config(cfg: NodeConfig, log: Log = print, group: int = -1) -> None:
    """Into the node's config dir: the plugin's default yml files from the home, ours over them, and the node's
    certificate, key and CA (made and kept under :func:`security_dir`). Each written beside and renamed, 0640
    and given to ``group`` (the node account's: ``node_host``), in folders of the caller's that the node's account
    may read but not write."""
    wanted = cert_files(cfg)
    if wanted.key_folder.is_relative_to(cfg.node_dir):
        raise ConfigError(f"the CA key's folder {wanted.key_folder} is inside the node's folder {cfg.node_dir}",
                          hint="choose a folder outside it (NOMOS_CA_KEY_DIR, server install --ca-key-dir)")
    passwords = ensure_passwords(cfg, log=log)  # first: it makes security/ 0700, which certs/ is made inside
    files = ensure_certs(wanted.folder, wanted.key_folder, log=log)
    target = cfg.conf_dir / CONF_SUBDIR
    make_folder(cfg.conf_dir, 0o750, gid=group)
    make_folder(target, 0o750, gid=group)
    defaults = cfg.home / "config" / CONF_SUBDIR
    for path in sorted(defaults.glob("*.yml")):
        write_file(target / path.name, read_bytes(path), 0o640, gid=group)
    ours = {"internal_users.yml": internal_users(passwords), "roles.yml": roles(cfg), "roles_mapping.yml": roles_mapping()}
    if (defaults / "config.yml").is_file():  # the plugin's, with the failed-login throttle (a home without it: none)
        ours["config.yml"] = throttled_config(yaml.safe_load(read_text(defaults / "config.yml")))
    for name, body in ours.items():
        write_file(target / name, security_yaml(body), 0o640, gid=group)
    certs = cfg.conf_dir / CERTS_SUBDIR
    make_folder(certs, 0o750, gid=group)
    for source, name in ((files.node, "node.pem"), (files.node_key, "node-key.pem"), (files.ca, "ca.pem")):
        write_file(certs / name, read_bytes(source), 0o640, gid=group)


def grant_portal_user(cfg: NodeConfig, user: str, log: Log = print) -> tuple[Path, Path]:
    """Let the OS user ``user`` (made now as a system user with a group of its own when missing) read the portal's
    password file and the CA certificate of the secured node ``cfg``, and nothing else of its secrets: its group
    may pass through ``security/`` and ``security/certs/`` (0710: no listing) and read ``nomos_portal.password``
    (0640); the other passwords and every key stay 0600, root's; the CA key is not in the node's folder at all.
    Root only (only root hands its files to another user). The two files' paths."""
    if os.geteuid() != 0:
        raise ConfigError("only root can give another OS user read access to the node's files",
                          hint=f"run it as root (sudo python cli.py server portal-user {user})")
    claim_node_dir(cfg)
    files = cert_files(cfg)
    secret = password_file(cfg, PORTAL_USER)
    missing = [str(p) for p in (secret, files.ca) if not p.is_file()]
    if missing:
        raise ConfigError(f"no secured node's files here: {', '.join(missing)} missing",
                          hint="run `python cli.py server install --secure` first")
    entry = _system_user(user, log)
    group = grp.getgrgid(entry.pw_gid)
    shared = [u.pw_name for u in pwd.getpwall() if u.pw_gid == entry.pw_gid and u.pw_name != user] + list(group.gr_mem)
    if shared:
        raise ConfigError(f"{user}'s group {group.gr_name} is shared with {', '.join(sorted(shared))}: they would "
                          "read the portal's password too", hint=f"give {user} a group of its own (useradd -U)")
    # each changed through a descriptor opened without following links, and only if root's own (issue 47)
    for folder in (security_dir(cfg), files.folder):
        set_mode(folder, 0o710, gid=entry.pw_gid, owner=0, directory=True)
    set_mode(secret, 0o640, gid=entry.pw_gid, owner=0)
    set_mode(files.ca, 0o644, owner=0)
    log(f"{user} may read {secret} and {files.ca}, nothing else under {security_dir(cfg)}")
    return secret, files.ca


class _PlainDumper(yaml.SafeDumper):
    """YAML without anchors and aliases: the plugin's parser reads ``&id001``/``*id001`` (what PyYAML writes for a
    list two roles share) as a string, and the security index is then never initialised."""

    def ignore_aliases(self, data: Any) -> bool:  # any YAML node's value
        return True


def security_yaml(body: dict[str, Any]) -> str:
    """One of the plugin's yml files, as it reads them (:class:`_PlainDumper`)."""
    return yaml.dump(body, Dumper=_PlainDumper, sort_keys=False, allow_unicode=True)


def _system_user(user: str, log: Log) -> pwd.struct_passwd:
    """The account ``user``, made when missing: a system user with a group of its own, no home, no shell."""
    try:
        return pwd.getpwnam(user)
    except KeyError:
        pass
    proc = subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin",
                           user], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise ConfigError(f"useradd {user} failed: {proc.stderr.strip()}")
    log(f"created the system user {user} (group {user}, no home, no shell)")
    return pwd.getpwnam(user)


def admin_access(cfg: NodeConfig) -> tuple[ssl.SSLContext | None, dict[str, str]]:
    """How nomos itself reaches the node for health and status: plain for an open node; for a secured one TLS
    trusting the node's CA and the admin's basic auth (before the first start there is no password yet: no header)."""
    if not cfg.secure:
        return None, {}
    ca = cert_files(cfg).ca
    context = ssl.create_default_context(cafile=str(ca)) if ca.is_file() else ssl.create_default_context()
    path = password_file(cfg, ADMIN_USER)
    if not path.is_file():
        return context, {}
    token = base64.b64encode(f"{ADMIN_USER}:{read_text(path).strip()}".encode()).decode("ascii")
    return context, {"Authorization": f"Basic {token}"}
