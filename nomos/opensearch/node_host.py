"""Who owns what on the host, so that root never acts through a path the node's service account controls (issue 47).

Root installs, starts and stops a node that runs as a service account of its own (OpenSearch refuses root). Before
issue 47 that account owned the node's whole folder, and root's next start wrote the config, the security files
and the console log through whatever paths the account had put there: a link at ``logs/console.log`` made a
root-only file the account's. The layout now (``docs/security.md``, "Host layout"):

===============================  ===========================  =====  ==============================================
path                             owner                        mode   why
===============================  ===========================  =====  ==============================================
``<root>``, ``<root>/nodes``     root                         0755   the account must traverse, never write
``opensearch-<v>[-secure]/``     root                         a+rX   the code; nobody but root writes it
``nodes/<name>/``                root                         0755   the account cannot rename or add entries
``nodes/<name>/config/``         root, the account's group    0750   files 0640: the node reads, never writes
``nodes/<name>/security/``       root                         0700   passwords, certificates, the admin key
``nodes/<name>/data|logs|run/``  the account                  0750   all the node writes (files 0640)
===============================  ===========================  =====  ==============================================

Each secured node runs as an account of its own (:func:`account_name`), so an open dev node (all of which run as
the one ``opensearch`` account, as before) cannot read a secured node's config, certificates or data. A folder
an earlier version gave the account (the node's folder, its config) is taken back on the next start: the node's
folder re-owned by root through a descriptor, the config folder thrown away and rendered anew (it is rendered on
every start anyway); the data and logs are re-owned to the node's account, walked by descriptors
(:func:`~nomos.opensearch.host_files.own_tree`).
"""

from __future__ import annotations

import grp
import hashlib
import os
import pwd
import re
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from nomos.opensearch.host_files import make_folder, own_tree, set_mode, unlink_in
from nomos.opensearch.node_config import Log, NodeConfig, NodeError, node_env
from nomos.opensearch.tool import run_tool

NODE_UMASK = 0o027  # the node's files: 0640, folders 0750 (the translog holds judgments' notes, the security index hashes)
OPEN_ACCOUNT = "opensearch"  # every open node's account, as before issue 47 (their files hold nothing secret)
KEYSTORE = "opensearch.keystore"
_PLAIN_NAME = re.compile(r"^[a-z0-9_-]{1,21}$")


@dataclass(frozen=True)
class Account:
    """The OS account a node runs as when root starts it."""

    name: str
    uid: int
    gid: int


def account_name(cfg: NodeConfig) -> str:
    """The node's service account: ``cfg.service_user`` when given; ``opensearch`` for an open node (one account
    for all of them, as before); ``opensearch-<name>`` for a secured node (lower case, at most 32 characters: a
    name that is not already one gets a short hash of itself, so ``Node.A`` and ``node-a`` never share)."""
    if cfg.service_user:
        return cfg.service_user
    if not cfg.secure:
        return OPEN_ACCOUNT
    if _PLAIN_NAME.match(cfg.name):
        return f"opensearch-{cfg.name}"
    slug = re.sub(r"[^a-z0-9_-]", "-", cfg.name.lower())[:14]
    return f"opensearch-{slug}-{hashlib.sha256(cfg.name.encode()).hexdigest()[:6]}"


def as_root() -> bool:
    return os.geteuid() == 0


def service_account(cfg: NodeConfig, log: Log) -> Account | None:
    """As root: the node's account (:func:`account_name`), made when missing as a system user with a group of its
    own, no home and no shell; its group must be its alone (the config is readable by that group). Else None."""
    if not as_root():
        return None
    name = account_name(cfg)
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        log(f"creating system user {name} (group {name}, no home, no shell) for node {cfg.name}")
        proc = subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", "--shell",
                               "/usr/sbin/nologin", name], capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise NodeError(f"useradd {name} failed: {proc.stderr.strip()}") from None
        entry = pwd.getpwnam(name)
    if entry.pw_uid == 0:
        raise NodeError(f"the node's account {name} is root (uid 0): OpenSearch refuses to run as root")
    group = grp.getgrgid(entry.pw_gid)
    shared = sorted({u.pw_name for u in pwd.getpwall() if u.pw_gid == entry.pw_gid and u.pw_name != name}
                    | (set(group.gr_mem) - {name}))
    if shared:
        raise NodeError(f"{name}'s group {group.gr_name} is shared with {', '.join(shared)}: they would read node "
                        f"{cfg.name}'s config", hint=f"give {name} a group of its own (usermod -g)")
    return Account(name, entry.pw_uid, entry.pw_gid)


def check_root_folder(cfg: NodeConfig) -> None:
    """As root: ``<root>`` and every folder above it must be root's and writable by nobody else (or sticky, as
    /tmp): an account that could rename any of them could swap the whole tree under root's feet."""
    if not as_root():
        return
    for folder in [*reversed(cfg.root.parents), cfg.root]:
        try:
            st = os.stat(folder)  # a link is judged by its folder (checked one step up) and by what it names
        except FileNotFoundError:
            return  # made by root below
        if st.st_uid != 0 or (st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX):
            raise NodeError(f"{folder} is {'owned by uid ' + str(st.st_uid) if st.st_uid else 'writable by others'}"
                            f": root will not run a node under it (its service account could swap the tree)",
                            hint="choose a root folder that root owns and only root writes, e.g. /opt/nomos")


def claim_node_dir(cfg: NodeConfig) -> None:
    """``<root>/nodes`` and the node's folder made (or taken back) as the caller's, 0755, before anything else
    under them is touched; as root a node folder an earlier version gave the service account becomes root's."""
    owner = claim_nodes_folder(cfg)
    make_folder(cfg.node_dir, 0o755, uid=owner, gid=owner)


def claim_nodes_folder(cfg: NodeConfig) -> int:
    """``<root>/nodes`` made or taken back, 0755 (root's as root, after :func:`check_root_folder`); the owner's
    uid given (0), or -1 (unchanged) unless root."""
    check_root_folder(cfg)
    cfg.root.mkdir(parents=True, exist_ok=True)
    owner = 0 if as_root() else -1
    make_folder(cfg.root / "nodes", 0o755, uid=owner, gid=owner)
    return owner


def prepare_node_dirs(cfg: NodeConfig, account: Account | None, log: Log) -> None:
    """The node's folders as the layout says (module docstring): config root's and readable by the account's
    group (an earlier version's, the account's own, is thrown away first: it is rendered anew below); data, logs
    and run the account's, their trees re-owned and stripped of others' permissions by descriptor; a console log
    that is not a plain file (a link) removed, never followed."""
    claim_node_dir(cfg)
    if account is not None:
        _reclaim_config(cfg, log)
    group = account.gid if account else -1
    make_folder(cfg.conf_dir, 0o750, uid=0 if account else -1, gid=group)
    for folder in (cfg.data_dir, cfg.logs_dir, cfg.pid_file.parent):
        make_folder(folder, 0o750, uid=account.uid if account else -1, gid=group)
        own_tree(folder, uid=account.uid if account else -1, gid=group, strip=NODE_UMASK)
    try:
        st = os.lstat(cfg.console_log)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(st.st_mode):
        log(f"removing {cfg.console_log}: not a plain file (a link?); the node makes a new one")
        unlink_in(cfg.logs_dir, cfg.console_log.name)


def _reclaim_config(cfg: NodeConfig, log: Log) -> None:
    """A config folder root does not own (an earlier version's, or anything else at that name) is removed, its
    links unfollowed (``shutil.rmtree`` works by descriptors), so the next render starts from a folder of root's."""
    try:
        st = os.lstat(cfg.conf_dir)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode) and st.st_uid == 0:
        return
    log(f"re-making {cfg.conf_dir} as root's (it was uid {st.st_uid}'s; it is rendered on every start)")
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(cfg.conf_dir)
    else:
        cfg.conf_dir.unlink()


def config_group(account: Account | None) -> int:
    """The group the config files are given to: the account's (root owns them), or -1 (unchanged) unless root."""
    return account.gid if account else -1


def ensure_keystore(cfg: NodeConfig, account: Account | None, log: Log) -> None:
    """As root: the node's (empty) keystore made by ``opensearch-keystore create`` in the root-owned config
    folder, readable by the account's group. OpenSearch would create it itself on its first start, but that
    needs a config folder the account may write, which is what issue 47 closed. A node started as an ordinary
    user still makes its own."""
    if account is None:
        return
    path = cfg.conf_dir / KEYSTORE
    if not path.exists():
        log(f"creating the keystore {path}")
        run_tool([str(cfg.home / "bin" / "opensearch-keystore"), "create"], env=node_env(cfg), error=NodeError,
                 what=f"opensearch-keystore create for node {cfg.name} failed", cwd=cfg.conf_dir)
    set_mode(path, 0o640, uid=0, gid=account.gid, owner=0)


def harden_home(home: Path) -> None:
    """As root: the home (the code every node runs) root's and writable by root alone; a plugin's zip left some
    of its default security files 0666, which root copies into every secured node's config."""
    if as_root() and home.is_dir():
        own_tree(home, uid=0, gid=0, strip=0o022)
