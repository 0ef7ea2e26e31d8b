"""The secured node's host (issue 39): the CA key kept out of the node's folder (the node restarts and serves TLS
without it), and the portal run as an OS user of its own that reads its password file and the CA certificate and
nothing else of the node's secrets. A real secured node (``secure_node``); the OS-user test needs root (CI runs as
root) and a Python that user can run."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest
from click.testing import CliRunner

from nomos.cli import cli
from nomos.opensearch.client import cluster_version, make_client
from nomos.opensearch.node_security import (
    ADMIN_USER,
    INDEXER_USER,
    PORTAL_USER,
    cert_files,
    password_file,
    security_dir,
)
from tests.beir_files import write_beir
from tests.conftest import SECURE_ALIAS, TEST_PORT
from tests.test_secure_node import env_for, settings_for

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # the secured node of its own (and a restart of it)

ROOT = Path(__file__).resolve().parent.parent


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def private_keys_under(top: Path) -> list[Path]:
    """Every file under ``top`` that holds a PEM private key (a running node's files may vanish meanwhile)."""
    found = []
    for path in top.rglob("*"):
        try:
            if path.is_file() and not path.is_symlink():
                with open(path, "rb") as handle:
                    if b"PRIVATE KEY-----" in handle.read(4096):
                        found.append(path)
        except (FileNotFoundError, IsADirectoryError):
            continue
    return found


def public_of_key(path: Path) -> bytes:
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def ca_public(ca: Path) -> bytes:
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    cert = x509.load_pem_x509_certificate(ca.read_bytes())
    return cert.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def test_install_secure_keeps_the_ca_key_out_of_the_node_folder(secure_node, tmp_path: Path) -> None:
    """`server install --secure` of a new node: its folder holds the node's and admin's keys, never the CA's,
    which is in the folder --ca-key-dir names (0700, the key 0600); the output says where it is."""
    name = f"{secure_node.name}-install"
    node_dir = secure_node.root / "nodes" / name
    env = {"NOMOS_NODE_ROOT": str(secure_node.root), "NOMOS_NODE_NAME": name, "NOMOS_HTTP_PORT": str(TEST_PORT + 6),
           "NOMOS_TRANSPORT_PORT": str(TEST_PORT + 106), "OPENSEARCH_URL": None}
    try:
        res = CliRunner().invoke(cli, ["server", "install", "--secure", "--ca-key-dir", str(tmp_path / "ca")], env=env)
        assert res.exit_code == 0, res.output
        ca_key = tmp_path / "ca" / "ca-key.pem"
        assert str(ca_key) in res.output and mode(ca_key) == 0o600 and mode(ca_key.parent) == 0o700
        keys = private_keys_under(node_dir)
        assert {p.name for p in keys} == {"node-key.pem", "admin-key.pem"}, keys
        ca = ca_public(node_dir / "security" / "certs" / "ca.pem")
        assert public_of_key(ca_key) == ca and all(public_of_key(p) != ca for p in keys)
    finally:
        shutil.rmtree(node_dir, ignore_errors=True)
        if os.geteuid() == 0:  # the node's own account, made by the install as root (issue 47): not left behind
            from nomos.opensearch.node_host import account_name

            subprocess.run(["userdel", account_name(replace(secure_node, name=name))], capture_output=True, check=False)


def test_the_node_restarts_and_serves_tls_without_the_ca_key(secure_node, tmp_path: Path) -> None:
    from nomos.opensearch.node import start, stop

    files = cert_files(secure_node)
    assert files.ca_key.is_file() and not files.ca_key.is_relative_to(secure_node.node_dir)
    ca = ca_public(files.ca)
    assert all(public_of_key(p) != ca for p in private_keys_under(secure_node.node_dir))
    offline = tmp_path / "offline-ca-key.pem"
    shutil.move(files.ca_key, offline)  # the operator took it offline
    try:
        stop(secure_node, log=lambda m: None)
        start(secure_node, timeout=240, log=lambda m: None)
        settings = settings_for(secure_node, INDEXER_USER)
        assert settings.url.startswith("https://") and cluster_version(make_client(settings.cluster), settings.cluster) == "2.19.1"
        assert not files.ca_key.exists() and ca_public(files.ca) == ca  # nothing made anew: the same CA
    finally:
        shutil.move(offline, files.ca_key)


# ------------------------------------------------------------------------------------- the portal's OS user
def _runs_as(user: str, python: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["setpriv", f"--reuid={user}", f"--regid={user}", "--init-groups", "--", python, *args],
                          cwd=cwd, capture_output=True, text=True, check=False, env={"PATH": os.environ["PATH"]})


def _python_for(user: str, scratch: Path) -> str:
    """A Python ``user`` can run that imports this checkout's nomos and its packages: this one when its files are
    readable by other users; else the system's Python of the same version in a venv of its own (``scratch``) whose
    one ``.pth`` adds this environment's site-packages (a venv under /root is not readable: docs/security.md says
    where to install the portal instead). Skips, saying why, when there is neither."""
    probe = ("-c", "import nomos.portal.app, uvicorn, opensearchpy")
    if _runs_as(user, sys.executable, *probe).returncode == 0:
        return sys.executable
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    system = next((p for p in (Path("/usr/bin") / version, Path("/usr/local/bin") / version) if p.is_file()), None)
    import site

    packages = [p for p in site.getsitepackages() if Path(p).is_dir()]
    if system is None or not packages:
        pytest.skip(f"{sys.executable} is not readable by {user} and there is no /usr/bin/{version} to stand in")
    venv = scratch / "venv"
    subprocess.run([str(system), "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    (venv / "lib" / version / "site-packages" / "nomos-deps.pth").write_text(
        "".join(f"import site; site.addsitedir({p!r})\n" for p in packages), encoding="utf-8")
    python = str(venv / "bin" / "python")
    tried = _runs_as(user, python, *probe)
    if tried.returncode != 0:
        pytest.skip(f"{user} cannot import nomos with {system} and {packages} ({tried.stderr.strip()[-300:]}): "
                    "this checkout or its packages are not readable by other users")
    return python


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def portal_os_user(secure_node) -> Iterator[str]:
    """A system user made by `server portal-user` for the secured node, removed afterwards with the node's
    secrets handed back to root alone (a dangling group id must not keep its way in)."""
    if os.geteuid() != 0:
        pytest.skip("running the portal as its own OS user needs root (to make the user, hand it one file and drop "
                    "to it); CI runs as root")
    if shutil.which("setpriv") is None or shutil.which("useradd") is None:
        pytest.skip("setpriv and useradd (util-linux, passwd) are needed to run the portal as another user")
    user = f"nomos-portal-{TEST_PORT}"
    env = {"NOMOS_NODE_ROOT": str(secure_node.root), "NOMOS_NODE_NAME": secure_node.name, "NOMOS_SECURE": "1",
           "NOMOS_HTTP_PORT": str(secure_node.http_port), "OPENSEARCH_URL": None}
    res = CliRunner().invoke(cli, ["server", "portal-user", user], env=env)
    try:
        assert res.exit_code == 0, res.output
        assert "runuser -u " + user in res.output and str(password_file(secure_node, PORTAL_USER)) in res.output
        yield user
    finally:
        subprocess.run(["userdel", user], capture_output=True, check=False)
        for folder in (security_dir(secure_node), cert_files(secure_node).folder):
            os.chown(folder, 0, 0)
            folder.chmod(0o700)
        os.chown(password_file(secure_node, PORTAL_USER), 0, 0)
        password_file(secure_node, PORTAL_USER).chmod(0o600)


def test_the_portal_runs_as_its_own_os_user_that_reads_only_its_password(secure_node, portal_os_user) -> None:
    user = portal_os_user
    folder = write_beir(Path(tempfile.mkdtemp(prefix="nomos-beir-")) / "mini")
    res = CliRunner().invoke(cli, ["index", "--no-vectors", "--dataset", str(folder)], env=env_for(secure_node, INDEXER_USER))
    assert res.exit_code == 0, res.output
    cat = shutil.which("cat") or "/bin/cat"
    readable = [password_file(secure_node, PORTAL_USER), cert_files(secure_node).ca]
    secret = [password_file(secure_node, ADMIN_USER), password_file(secure_node, INDEXER_USER),
              cert_files(secure_node).admin_key, cert_files(secure_node).node_key, cert_files(secure_node).ca_key]
    for path in readable:
        assert _runs_as(user, cat, str(path)).returncode == 0, path
    for path in secret:
        refused = _runs_as(user, cat, str(path))
        assert refused.returncode != 0 and "Permission denied" in refused.stderr, (path, refused)

    scratch = Path(tempfile.mkdtemp(prefix="nomos-portal-user-"))  # not under pytest's 0700 tmp folder
    try:
        scratch.chmod(0o755)
        cache = scratch / "cache"
        cache.mkdir()
        shutil.chown(cache, user, user)
        python = _python_for(user, scratch)
        port = _free_port()
        env = {"PATH": os.environ["PATH"], "HOME": str(cache), "LANG": "C.UTF-8", "OPENSEARCH_URL": secure_node.url,
               "NOMOS_INDEX": SECURE_ALIAS, "NOMOS_OPENSEARCH_CA": str(cert_files(secure_node).ca),
               "NOMOS_PORTAL_OPENSEARCH_USER": PORTAL_USER,
               "NOMOS_PORTAL_OPENSEARCH_PASSWORD_FILE": str(password_file(secure_node, PORTAL_USER)),
               "NOMOS_CACHE_DIR": str(cache), "NOMOS_RETRY_SECONDS": "0"}
        log = scratch / "portal.log"
        with open(log, "wb") as out:
            portal = subprocess.Popen(["setpriv", f"--reuid={user}", f"--regid={user}", "--init-groups", "--",
                                       python, "cli.py", "serve", "--portal-port", str(port)],
                                      cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            query = urllib.parse.quote("κλοπή κινητού")
            found = _get_json(f"http://127.0.0.1:{port}/api/search?q={query}", portal, log)
            assert found["hits"][0]["id"] == "PK::372"
            uid = int(next(ln for ln in Path(f"/proc/{portal.pid}/status").read_text().splitlines()
                           if ln.startswith("Uid:")).split()[1])
            import pwd

            assert uid == pwd.getpwnam(user).pw_uid  # setpriv exec'd the portal itself: this is its process
        finally:
            portal.terminate()
            portal.wait(timeout=30)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(folder.parent, ignore_errors=True)


def _get_json(url: str, portal: subprocess.Popen, log: Path, timeout: float = 120.0) -> dict:
    """The JSON of ``url`` once the portal answers (it imports for a while on a busy machine)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + timeout
    while True:
        assert portal.poll() is None, f"the portal exited ({portal.returncode}): {log.read_text()[-2000:]}"
        try:
            with opener.open(url, timeout=30) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            raise AssertionError(f"{url}: {exc.code} {exc.read()[:500]!r}; {log.read_text()[-2000:]}") from None
        except (urllib.error.URLError, ConnectionError):
            assert time.monotonic() < deadline, f"the portal did not answer in {timeout:.0f}s: {log.read_text()[-2000:]}"
            time.sleep(1)
