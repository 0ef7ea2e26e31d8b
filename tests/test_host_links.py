"""Issue 47: root never acts through a path the node's service account controls, and each secured node runs as an
account of its own. As root (CI is; skipped otherwise), on a secured node of its own under a root folder of its
own: the node's account plants links, at every path root touches, to files of root's outside the node (and to
names that do not exist yet); then root installs, starts, stops, restarts and runs ``server portal-user``, and
those files keep their content, owner and mode and no new file appears beside them. Where the account may not
write (the node's folder, its config, its secrets) the planting itself must fail.

The first start is an upgrade: the node's folder laid out as before issue 47 (the account owning the folder and
its config) with the links already in it, as an account that had been waiting would have left it."""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from nomos.cli import cli
from nomos.errors import NomosError
from nomos.opensearch.node import NodeConfig, install, running_pid, start, stop
from nomos.opensearch.node_host import OPEN_ACCOUNT, Account, account_name, service_account
from nomos.opensearch.node_security import CONF_SUBDIR, security_dir
from nomos.settings import Settings
from tests.conftest import TEST_PORT

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # a secured node of its own, started three times

NAME = "pytest-links"
PORT = TEST_PORT + 4
PORTAL_OS_USER = f"nomos-links-{TEST_PORT}"
# every file root writes into the node's config (node_lifecycle.write_config, node_security.write_security_config)
CONFIG_FILES = ("opensearch.yml", "jvm.options", "log4j2.properties", "opensearch.keystore")
SECURITY_FILES = ("internal_users.yml", "roles.yml", "roles_mapping.yml", "config.yml", "action_groups.yml")
CERT_FILES = ("node.pem", "node-key.pem", "ca.pem")


@dataclass
class Host:
    cfg: NodeConfig
    account: Account
    victims: Path  # root's files the links aim at

    def snapshot(self) -> dict[str, tuple[bytes, int, int, int]]:
        """Every file beside the victims: content, owner, group, mode (a new name is a file made through a link)."""
        out = {}
        for path in sorted(self.victims.iterdir()):
            st = os.lstat(path)
            out[path.name] = (path.read_bytes(), st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode))
        return out

    def as_account(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["setpriv", f"--reuid={self.account.uid}", f"--regid={self.account.gid}",
                               "--clear-groups", "--", *argv], capture_output=True, text=True, check=False)

    def plant(self, path: Path, name: str) -> bool:
        """As the node's account: a link at ``path`` to the victim ``name`` (made when asked for a name that does
        not exist: a dangling link, which a write through it would create). Whether it could."""
        return self.as_account("ln", "-sfn", str(self.victims / name), str(path)).returncode == 0


def _copy_or_install_homes(root: Path, cfg: NodeConfig) -> None:
    """The open and secured homes, copied from the suite's own root (seconds), where they are installed first if
    need be (from Maven Central, once: the suite's secured node uses the same), then checked complete here."""
    suite = NodeConfig(root=Settings.from_env().node_root, secure=True)
    install(suite, log=lambda m: None)
    for secure in (False, True):
        home = NodeConfig(root=suite.root, secure=secure).home
        shutil.copytree(home, NodeConfig(root=root, secure=secure).home, symlinks=True)
    install(cfg, log=lambda m: None)


@pytest.fixture(scope="module")
def host() -> Iterator[Host]:
    if os.geteuid() != 0:
        pytest.skip("planting links as the node's account and starting the node as root needs root; CI runs as root")
    if not all(shutil.which(tool) for tool in ("setpriv", "useradd", "userdel")):
        pytest.skip("setpriv, useradd and userdel (util-linux, passwd) are needed to act as the node's account")
    root = Path(tempfile.mkdtemp(prefix="nomos-links-", dir="/tmp"))  # not under pytest's 0700 tmp folder
    victims = Path(tempfile.mkdtemp(prefix="nomos-victims-", dir="/tmp"))
    root.chmod(0o755)
    victims.chmod(0o755)  # links into it resolve for the account too: only root's own acts are under test
    cfg = NodeConfig(root=root, name=NAME, http_port=PORT, transport_port=PORT + 100, heap="512m", secure=True,
                     articles_alias=NAME, results_prefix=f"{NAME}-results")
    for i in range(3):
        (victims / f"root-file-{i}").write_bytes(f"root's own file {i}\n".encode())
        (victims / f"root-file-{i}").chmod(0o600)
    try:
        _copy_or_install_homes(root, cfg)
        account = service_account(cfg, log=lambda m: None)
        assert account is not None and account.name == account_name(cfg) == f"opensearch-{NAME}"
        yield Host(cfg, account, victims)
    finally:
        stop(cfg, log=lambda m: None)
        for user in (PORTAL_OS_USER, account_name(cfg)):
            subprocess.run(["userdel", user], capture_output=True, check=False)
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(victims, ignore_errors=True)


def _old_layout(host: Host) -> None:
    """The node's folder as versions before issue 47 left it: the folder, its config, data, logs and run folders
    the account's (security/ stays root's, as it was)."""
    cfg, acc = host.cfg, host.account
    for folder in (cfg.node_dir, cfg.conf_dir, cfg.data_dir, cfg.logs_dir, cfg.pid_file.parent):
        folder.mkdir(parents=True, exist_ok=True)
        os.chown(folder, acc.uid, acc.gid)
        folder.chmod(0o755)
    for sub in (cfg.conf_dir / CONF_SUBDIR, cfg.conf_dir / "certs"):
        sub.mkdir(exist_ok=True)
        os.chown(sub, acc.uid, acc.gid)


def _plant_in_account_folders(host: Host, *, with_pidfile: bool) -> None:
    """Links at what root touches in the folders the account owns under any layout: the console log (root opened
    and chowned it), the pidfile (only while the node is stopped: a link there while it runs only makes it
    unstoppable by pid), a link in the data tree and a dangling one, which a write through it would create. (The
    main log root reads only after a failed start, through the same no-follow read as the pidfile:
    tests/test_host_files.py.)"""
    cfg = host.cfg
    planted = [host.plant(cfg.console_log, "root-file-0"), host.plant(cfg.data_dir / "planted", "root-file-2"),
               host.plant(cfg.logs_dir / "dangling", "made-new"), host.plant(cfg.data_dir / "dangling", "made-new")]
    if with_pidfile:
        planted.append(host.plant(cfg.pid_file, "root-file-1"))
    assert all(planted), planted


def _root_owned_paths(cfg: NodeConfig) -> list[Path]:
    """Where the account must not be able to put anything: every path root writes in root's folders."""
    conf = cfg.conf_dir
    return [cfg.root / "planted", cfg.root / "nodes" / "planted", cfg.home / "planted", cfg.home / "config" / "planted",
            cfg.home / "config" / CONF_SUBDIR / "config.yml", cfg.node_dir / ".lock", cfg.node_dir / "security",
            *(conf / n for n in CONFIG_FILES), *(conf / CONF_SUBDIR / n for n in SECURITY_FILES),
            *(conf / "certs" / n for n in CERT_FILES), security_dir(cfg) / "admin.password",
            security_dir(cfg) / "nomos_portal.password", security_dir(cfg) / "certs" / "ca.pem"]


def _assert_new_layout(host: Host) -> None:
    """Root owns the node's folder and config (the account's group reads the config), the account its data, logs
    and run folders; no file under the config is the account's or writable by it."""
    cfg, acc = host.cfg, host.account

    def owner_mode(path: Path) -> tuple[int, int, int]:
        st = os.lstat(path)
        return st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)

    assert owner_mode(cfg.node_dir) == (0, 0, 0o755)
    assert owner_mode(cfg.conf_dir) == (0, acc.gid, 0o750)
    for path in cfg.conf_dir.rglob("*"):
        uid, gid, mode = owner_mode(path)
        assert uid == 0 and gid == acc.gid and mode in (0o640, 0o750), (path, uid, gid, oct(mode))
    for folder in (cfg.data_dir, cfg.logs_dir, cfg.pid_file.parent):
        assert owner_mode(folder) == (acc.uid, acc.gid, 0o750), folder
    assert owner_mode(security_dir(cfg))[0] == 0
    for path in cfg.home.rglob("*"):
        st = os.lstat(path)
        assert st.st_uid == 0 and (stat.S_ISLNK(st.st_mode) or not st.st_mode & 0o022), path


def test_root_never_acts_through_the_node_accounts_links(host: Host) -> None:
    cfg = host.cfg
    before = host.snapshot()
    quiet = lambda m: None  # noqa: E731

    # 0. an upgrade refuses what it cannot take back: a secrets folder the account made, a link for a folder
    _old_layout(host)
    assert host.as_account("mkdir", str(security_dir(cfg))).returncode == 0
    assert host.plant(security_dir(cfg) / "admin.password", "root-file-0")
    with pytest.raises(NomosError, match=f"{security_dir(cfg)}: owned by uid {host.account.uid}"):
        start(cfg, timeout=240, log=quiet)
    assert host.snapshot() == before
    shutil.rmtree(security_dir(cfg))
    _old_layout(host)
    shutil.rmtree(cfg.data_dir)
    assert host.plant(cfg.data_dir, "")  # data/ -> the victims' folder
    with pytest.raises(NomosError, match=f"{cfg.data_dir}: a link"):
        start(cfg, timeout=240, log=quiet)
    assert host.snapshot() == before
    cfg.data_dir.unlink()

    # 1. the upgrade itself: every file root writes in the old config is a link, and the logs, pidfile and lock too
    _old_layout(host)
    names = [cfg.conf_dir / n for n in CONFIG_FILES] + [cfg.conf_dir / CONF_SUBDIR / n for n in SECURITY_FILES]
    names += [cfg.conf_dir / "certs" / n for n in CERT_FILES] + [cfg.node_dir / ".lock"]
    assert all(host.plant(path, f"root-file-{i % 3}") for i, path in enumerate(names))
    assert host.plant(cfg.conf_dir / "jvm.options.d", "")
    _plant_in_account_folders(host, with_pidfile=True)
    start(cfg, timeout=240, log=quiet)
    assert host.snapshot() == before
    _assert_new_layout(host)

    # 2. running: the account can put nothing where root writes; links in its own folders, then stop
    refused = {str(p): host.plant(p, "root-file-0") for p in _root_owned_paths(cfg)}
    assert not any(refused.values()), [p for p, made in refused.items() if made]
    _plant_in_account_folders(host, with_pidfile=False)
    assert stop(cfg, log=quiet)
    assert host.snapshot() == before

    # 3. stopped: links at the pidfile and logs, then start
    _plant_in_account_folders(host, with_pidfile=True)
    start(cfg, timeout=240, log=quiet)
    assert host.snapshot() == before and not cfg.console_log.is_symlink()

    # 4. a restart and an install as an operator types them, and the portal's OS user
    env = {"NOMOS_NODE_ROOT": str(cfg.root), "NOMOS_NODE_NAME": NAME, "NOMOS_HTTP_PORT": str(PORT),
           "NOMOS_TRANSPORT_PORT": str(PORT + 100), "NOMOS_INDEX": NAME, "NOMOS_RESULTS_PREFIX": f"{NAME}-results",
           "NOMOS_HEAP": "512m", "OPENSEARCH_URL": None}
    _plant_in_account_folders(host, with_pidfile=False)
    res = CliRunner().invoke(cli, ["server", "stop"], env=env)
    assert res.exit_code == 0, res.output
    _plant_in_account_folders(host, with_pidfile=True)
    res = CliRunner().invoke(cli, ["server", "start", "--secure", "--timeout", "240"], env=env)
    assert res.exit_code == 0, res.output
    assert host.snapshot() == before
    for argv in (["server", "portal-user", PORTAL_OS_USER], ["server", "install", "--secure"]):
        _plant_in_account_folders(host, with_pidfile=False)
        res = CliRunner().invoke(cli, argv, env=env)
        assert res.exit_code == 0, (argv, res.output)
        assert host.snapshot() == before, argv
    _assert_new_layout(host)
    assert running_pid(cfg) is not None


def test_an_open_nodes_account_cannot_read_a_secured_nodes_files(host: Host) -> None:
    """The secured node runs as its own account; ``opensearch`` (every open node's) reads none of its config,
    certificates, data or logs."""
    cfg = host.cfg
    if running_pid(cfg) is None:
        start(cfg, timeout=240, log=lambda m: None)
    pid = running_pid(cfg)
    uid = int(next(ln for ln in Path(f"/proc/{pid}/status").read_text().splitlines() if ln.startswith("Uid:")).split()[1])
    assert uid == host.account.uid and pwd.getpwuid(uid).pw_name == f"opensearch-{NAME}"
    open_account = service_account(NodeConfig(root=cfg.root, name="dev"), log=lambda m: None)
    assert open_account is not None and open_account.name == OPEN_ACCOUNT != host.account.name
    other = Host(cfg, open_account, host.victims)
    for path in (cfg.conf_dir / CONF_SUBDIR / "internal_users.yml", cfg.conf_dir / "certs" / "node-key.pem",
                 cfg.conf_dir / "opensearch.yml", cfg.main_log):
        denied = other.as_account("cat", str(path))
        assert denied.returncode != 0 and "Permission denied" in denied.stderr, (path, denied)
    for folder in (cfg.data_dir, cfg.logs_dir, security_dir(cfg)):
        denied = other.as_account("ls", str(folder))
        assert denied.returncode != 0 and "Permission denied" in denied.stderr, (folder, denied)
    assert host.as_account("cat", str(cfg.conf_dir / "certs" / "node-key.pem")).returncode == 0  # its own: yes
