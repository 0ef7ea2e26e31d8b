"""The secured node's pieces without a node: certificates, passwords and hashes, roles, the opensearch.yml keys, the
client's TLS and credential options (CA, user, password or its file, SigV4), and the compose profile ``secure``."""

from __future__ import annotations

import ipaddress
import os
import stat
import sys
from pathlib import Path

import pytest
import yaml

from nomos.errors import ConfigError
from nomos.opensearch.node_config import NodeConfig, node_settings, render_opensearch_yml


def _missing(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return True
    return False


needs_crypto = pytest.mark.skipif(_missing("cryptography") or _missing("bcrypt"),
                                  reason="the secured node needs `cryptography` and `bcrypt` (requirements.txt)")

ROOT = Path(__file__).resolve().parent.parent


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@needs_crypto
def test_certificates_are_signed_by_our_ca_for_loopback(tmp_path: Path):
    from cryptography import x509

    from nomos.opensearch.node_certs import ensure_certs

    logged: list[str] = []
    files = ensure_certs(tmp_path / "certs", tmp_path / "ca-key", log=logged.append)
    ca = x509.load_pem_x509_certificate(files.ca.read_bytes())
    node = x509.load_pem_x509_certificate(files.node.read_bytes())
    admin = x509.load_pem_x509_certificate(files.admin.read_bytes())
    node.verify_directly_issued_by(ca)  # raises when not
    admin.verify_directly_issued_by(ca)
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    san = node.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert ipaddress.ip_address("127.0.0.1") in san.get_values_for_type(x509.IPAddress)
    assert "localhost" in san.get_values_for_type(x509.DNSName)
    assert node.subject.rfc4514_string() == "CN=nomos-node,O=nomos"
    assert admin.subject.rfc4514_string() == "CN=nomos-admin,O=nomos"
    for key in (files.ca_key, files.node_key, files.admin_key):
        assert mode(key) == 0o600
        assert key.read_text().startswith("-----BEGIN PRIVATE KEY-----")  # PKCS#8, what the plugin reads
    assert len(logged) == 1
    before = files.node.read_bytes()
    ensure_certs(tmp_path / "certs", tmp_path / "ca-key", log=logged.append)  # kept: clients keep trusting the CA
    assert files.node.read_bytes() == before and len(logged) == 1


@needs_crypto
def test_the_ca_key_is_kept_apart_and_needed_only_to_issue_new_certificates(tmp_path: Path):
    """The CA key never lands beside the certificates; without it the set is kept as it is (a node starts), and a
    rotation (node and admin certificates deleted) issues new ones under the same CA only when it is back."""
    from cryptography import x509

    from nomos.opensearch.node_certs import ensure_certs

    certs, keys, offline = tmp_path / "node" / "certs", tmp_path / "ca-keys" / "n", tmp_path / "offline"
    files = ensure_certs(certs, keys, log=lambda m: None)
    assert sorted(p.name for p in certs.iterdir()) == ["admin-key.pem", "admin.pem", "ca.pem", "node-key.pem", "node.pem"]
    assert files.ca_key.parent == keys and mode(keys) == 0o700 and mode(keys.parent) == 0o700
    assert mode(files.ca_key) == 0o600
    offline.mkdir()
    files.ca_key.rename(offline / "ca-key.pem")  # the operator moves it offline
    ca_before = files.ca.read_bytes()
    assert ensure_certs(certs, keys, log=lambda m: None) == files  # what a start does: nothing needs the key
    files.node.unlink()
    files.admin_key.unlink()  # a rotation, with the key still offline: a clear error, nothing made
    with pytest.raises(ConfigError, match="ca-key.pem") as err:
        ensure_certs(certs, keys, log=lambda m: None)
    assert "NOMOS_CA_KEY_DIR" in (err.value.hint or "") and not files.node.exists()
    (offline / "ca-key.pem").rename(files.ca_key)  # put back: new node and admin certificates under the same CA
    said: list[str] = []
    ensure_certs(certs, keys, log=said.append)
    assert files.ca.read_bytes() == ca_before
    ca = x509.load_pem_x509_certificate(ca_before)
    for leaf in (files.node, files.admin):
        x509.load_pem_x509_certificate(leaf.read_bytes()).verify_directly_issued_by(ca)
    assert any("signed by the CA" in s for s in said)
    other = ensure_certs(tmp_path / "other" / "certs", tmp_path / "other-key", log=lambda m: None)
    files.node.unlink()
    other.ca_key.replace(files.ca_key)  # a key that is not this CA's is refused, not used
    with pytest.raises(ConfigError, match="is not the key of the CA certificate"):
        ensure_certs(certs, keys, log=lambda m: None)


@needs_crypto
def test_a_ca_key_left_beside_the_certificates_is_moved_out(tmp_path: Path):
    """Versions before issue 39 kept the CA key in the node's folder: the next install or start moves it out."""
    from nomos.opensearch.node_certs import ensure_certs

    certs, keys = tmp_path / "node" / "certs", tmp_path / "ca-keys"
    files = ensure_certs(certs, keys, log=lambda m: None)
    key = files.ca_key.read_bytes()
    files.ca_key.rename(certs / "ca-key.pem")  # as an earlier version left it
    said: list[str] = []
    ensure_certs(certs, keys, log=said.append)
    assert not (certs / "ca-key.pem").exists() and files.ca_key.read_bytes() == key and mode(files.ca_key) == 0o600
    assert any("moved the CA key out" in s for s in said)


@needs_crypto
def test_passwords_are_generated_once_stored_0600_and_hashed_with_bcrypt(tmp_path: Path):
    import bcrypt

    from nomos.opensearch.node_security import USERS, ensure_passwords, internal_users, password_file

    cfg = NodeConfig(root=tmp_path, name="n", secure=True)
    shown: list[str] = []
    first = ensure_passwords(cfg, log=shown.append)
    assert set(first) == set(USERS) and len(set(first.values())) == 3
    said = "\n".join(shown)
    assert all(str(password_file(cfg, u)) in said for u in USERS)  # where they are kept, once…
    assert not any(first[u] in said for u in USERS)  # …never the passwords (a scrollback or CI log keeps them)
    shown.clear()
    assert ensure_passwords(cfg, log=shown.append) == first and shown == []  # …and never again
    for user in USERS:
        assert mode(password_file(cfg, user)) == 0o600
    assert mode(password_file(cfg, USERS[0]).parent) == 0o700
    users = internal_users(first)
    for user in USERS:
        assert bcrypt.checkpw(first[user].encode(), users[user]["hash"].encode())
        assert first[user] not in yaml.safe_dump(users)


def test_the_portal_role_reads_articles_and_writes_only_judgments():
    from nomos.opensearch.node_security import INDEXER_USER, PORTAL_USER, roles, roles_mapping

    cfg = NodeConfig(secure=True, articles_alias="arts", results_prefix="res")
    body = roles(cfg)
    portal = {tuple(p["index_patterns"]): p["allowed_actions"] for p in body[PORTAL_USER]["index_permissions"]}
    assert set(portal) == {("arts", "arts-*"), ("arts_judgments",)}
    writes = {"indices_all", "crud", "write", "create_index", "delete", "manage", "indices:admin/create",
              "indices:admin/delete", "indices:data/write/index", "indices:admin/aliases"}
    assert not writes & set(portal[("arts", "arts-*")])
    judgments = set(portal[("arts_judgments",)])
    assert {"indices:data/write/update", "create_index"} <= judgments  # issue 47: indexes and updates, never deletes
    assert not judgments & {"crud", "write", "delete", "indices_all", "indices:data/write/delete",
                            "indices:data/write/delete/byquery", "indices:data/write/*", "manage"}
    indexer = {tuple(p["index_patterns"]): p["allowed_actions"] for p in body[INDEXER_USER]["index_permissions"]}
    assert set(indexer) == {("arts", "arts-*", "res", "res-*"), ("arts_judgments",)}
    assert set(indexer[("arts_judgments",)]) == {"read", "indices:admin/get", "indices:admin/mappings/get"}
    assert not any("*" == p for patterns in indexer for p in patterns)
    mapping = roles_mapping()
    assert mapping[PORTAL_USER]["users"] == [PORTAL_USER] and mapping["all_access"]["users"] == ["admin"]
    # two roles share the judgments' pattern list: written without a YAML alias, which the plugin cannot read
    from nomos.opensearch.node_security import security_yaml

    text = security_yaml(body)
    assert "&id" not in text and "*id" not in text and yaml.safe_load(text) == body


def test_no_node_runs_inline_scripts_and_only_the_admin_stores_the_projects_own(tmp_path: Path):
    """Issue 39: the portal's user ran inline Painless. Every node nomos starts allows stored scripts only (the
    security plugin cannot refuse inline scripts to one role). Issue 47: the indexer stored any Painless (and
    could overwrite the portal's): it may read the project's scripts, not store one; the portal neither."""
    from nomos.opensearch.node_security import INDEXER_USER, PORTAL_USER, roles

    for cfg in (NodeConfig(root=tmp_path), NodeConfig(root=tmp_path, secure=True)):
        assert node_settings(cfg)["script.allowed_types"] == "stored"
        assert 'script.allowed_types: "stored"' in render_opensearch_yml(cfg)
    body = roles(NodeConfig(secure=True))
    indexer = body[INDEXER_USER]["cluster_permissions"]
    assert "cluster:admin/script/get" in indexer and not [p for p in indexer if "script/put" in p or p.endswith("*")
                                                          and "script" in p], indexer
    portal = body[PORTAL_USER]["cluster_permissions"]
    assert not [p for p in portal if "script" in p or p in ("cluster_all", "cluster_manage")], portal


def test_the_projects_scripts_are_named_by_their_text_and_sent_by_id():
    from nomos.opensearch.stored_scripts import SCRIPTS, StoredScript

    ids = [s.id for s in SCRIPTS]
    assert len(set(ids)) == len(SCRIPTS) and all(i.startswith("nomos-") for i in ids)
    assert [s.id for s in SCRIPTS] == ids  # deterministic
    copy = SCRIPTS[0]
    changed = StoredScript(copy.name, copy.lang, copy.source + " ", copy.context)
    assert changed.id != copy.id  # a changed script is a new id: a running portal keeps the one it knows
    ref = copy.ref({"f": "vec_x"})
    assert ref == {"id": copy.id, "params": {"f": "vec_x"}} and "source" not in ref
    knn = next(s for s in SCRIPTS if s.lang == "knn")
    assert knn.body() == {"script": {"lang": "knn", "source": "knn_score"}} and knn.context == "score"


@needs_crypto
def test_a_secured_nodes_files_are_its_owners_and_the_ca_key_is_elsewhere(tmp_path: Path):
    from nomos.opensearch.node_security import cert_files, security_dir, write_security_config

    cfg = NodeConfig(root=tmp_path, name="n", secure=True)
    write_security_config(cfg, log=lambda m: None)
    files = cert_files(cfg)
    assert mode(security_dir(cfg)) == 0o700 and mode(files.folder) == 0o700
    assert files.ca_key == tmp_path / "ca-keys" / "n" / "ca-key.pem" and mode(files.ca_key.parent) == 0o700
    assert not [p for p in cfg.node_dir.rglob("*") if p.name == "ca-key.pem"]
    # the node's copy: root's (the caller's) and readable by the node account's group only, never writable by it
    assert (cfg.conf_dir / "certs" / "node-key.pem").is_file() and mode(cfg.conf_dir / "certs") == 0o750
    written = [p for p in cfg.conf_dir.rglob("*") if p.is_file()]
    assert written and {mode(p) for p in written} == {0o640} and {p.stat().st_uid for p in written} == {os.geteuid()}


@needs_crypto
def test_the_ca_keys_folder_may_not_be_inside_the_nodes(tmp_path: Path):
    from nomos.opensearch.node_security import write_security_config

    cfg = NodeConfig(root=tmp_path, name="n", secure=True, ca_key_dir=tmp_path / "nodes" / "n" / "keys")
    with pytest.raises(ConfigError, match="inside the node's folder"):
        write_security_config(cfg, log=lambda m: None)
    assert NodeConfig(root=tmp_path, name="n").ca_key_folder == tmp_path / "ca-keys" / "n"


def test_handing_the_portal_its_files_is_refused_unless_root(tmp_path: Path, monkeypatch):
    from nomos.opensearch import node_security

    monkeypatch.setattr(node_security.os, "geteuid", lambda: 1000)  # as an ordinary user
    with pytest.raises(ConfigError, match="only root") as err:
        node_security.grant_portal_user(NodeConfig(root=tmp_path, secure=True), "nomos-portal")
    assert "sudo" in (err.value.hint or "")


def test_a_secured_node_has_tls_on_both_layers_and_its_own_home(tmp_path: Path):
    from nomos.opensearch.node_cluster import cluster_configs

    cfg = NodeConfig(root=tmp_path, secure=True, http_port=9352)
    keys = node_settings(cfg)
    assert keys["plugins.security.ssl.http.enabled"] is True
    for layer in ("http", "transport"):
        assert keys[f"plugins.security.ssl.{layer}.pemcert_filepath"] == "certs/node.pem"
    assert keys["plugins.security.allow_default_init_securityindex"] is True
    assert keys["plugins.security.authcz.admin_dn"] == ["CN=nomos-admin,O=nomos"]
    assert cfg.url == "https://127.0.0.1:9352" and cfg.home.name == "opensearch-2.19.1-secure"
    open_cfg = NodeConfig(root=tmp_path)
    assert not any(k.startswith("plugins.security") for k in node_settings(open_cfg))
    assert open_cfg.home.name == "opensearch-2.19.1"
    assert "plugins.security.ssl.http.enabled: true" in render_opensearch_yml(cfg)
    with pytest.raises(ValueError, match="single node"):
        cluster_configs(cfg, 2)


def test_the_client_takes_a_ca_bundle_and_a_password_file(tmp_path: Path):
    from nomos.opensearch.client import connection_options, make_client
    from nomos.settings import Settings

    ca = tmp_path / "ca.pem"
    ca.write_text("x")
    pw = tmp_path / "pw"
    pw.write_text("s3cret\n")
    settings = Settings.from_env({"OPENSEARCH_URL": "https://db.example:9200", "NOMOS_OPENSEARCH_CA": str(ca),
                                  "NOMOS_OPENSEARCH_USER": "nomos_indexer", "NOMOS_OPENSEARCH_PASSWORD_FILE": str(pw)})
    opts = connection_options(settings.cluster)
    assert opts["ca_certs"] == str(ca) and opts["verify_certs"] is True and opts["use_ssl"] is True
    assert opts["http_auth"] == ("nomos_indexer", "s3cret")
    assert "s3cret" not in repr(settings)
    conn = make_client(settings.model_copy(update={"opensearch_ca": None}).cluster).transport.connection_pool.connections[0]
    assert conn.headers["authorization"].startswith("Basic ")
    env = {"NOMOS_OPENSEARCH_USER": "u", "NOMOS_OPENSEARCH_PASSWORD": "direct"}
    assert connection_options(Settings.from_env(env).cluster)["http_auth"] == ("u", "direct")
    assert "use_ssl" not in connection_options(Settings.from_env(env).cluster)  # http stays http


@pytest.mark.parametrize(("env", "names"), [
    ({"NOMOS_OPENSEARCH_USER": "u"}, "NOMOS_OPENSEARCH_PASSWORD"),
    ({"NOMOS_OPENSEARCH_USER": "u", "NOMOS_OPENSEARCH_PASSWORD_FILE": "/nonexistent/pw"}, "/nonexistent/pw"),
    ({"OPENSEARCH_URL": "https://db:9200", "NOMOS_OPENSEARCH_CA": "/nonexistent/ca.pem"}, "NOMOS_OPENSEARCH_CA"),
    ({"OPENSEARCH_URL": "https://x.es.amazonaws.com", "NOMOS_OPENSEARCH_AUTH": "sigv4"}, "NOMOS_AWS_REGION"),
    ({"NOMOS_OPENSEARCH_AUTH": "sigv4", "NOMOS_AWS_REGION": "eu-central-1"}, "OPENSEARCH_URL"),
])
def test_bad_credentials_settings_are_config_errors_naming_the_variable(env, names):
    from nomos.opensearch.client import connection_options
    from nomos.settings import Settings

    with pytest.raises(ConfigError, match=names):
        connection_options(Settings.from_env(env).cluster)


def test_sigv4_without_boto3_is_a_clear_error(monkeypatch):
    from nomos.opensearch.client import connection_options
    from nomos.settings import Settings

    monkeypatch.setitem(sys.modules, "boto3", None)  # as where boto3 is not installed
    settings = Settings.from_env({"OPENSEARCH_URL": "https://x.eu-central-1.es.amazonaws.com",
                                  "NOMOS_OPENSEARCH_AUTH": "sigv4", "NOMOS_AWS_REGION": "eu-central-1"})
    with pytest.raises(ConfigError, match="needs boto3"):
        connection_options(settings.cluster)
    with pytest.raises(ValueError, match="NOMOS_OPENSEARCH_AUTH"):
        Settings.from_env({"NOMOS_OPENSEARCH_AUTH": "kerberos"})


def test_sigv4_signs_with_boto3s_credentials(monkeypatch):
    pytest.importorskip("boto3", reason="boto3 (requirements-aws.txt) is not installed here")
    import requests
    from opensearchpy import AWSV4SignerAuth, RequestsHttpConnection

    from nomos.opensearch.client import connection_options
    from nomos.settings import Settings

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    url = "https://search-x.eu-central-1.es.amazonaws.com"
    opts = connection_options(Settings.from_env({"OPENSEARCH_URL": url, "NOMOS_OPENSEARCH_AUTH": "sigv4",
                                                 "NOMOS_AWS_REGION": "eu-central-1"}).cluster)
    assert isinstance(opts["http_auth"], AWSV4SignerAuth) and opts["connection_class"] is RequestsHttpConnection
    signed = opts["http_auth"](requests.Request("GET", url + "/_cluster/health").prepare())
    assert signed.headers["Authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
    assert "/eu-central-1/es/aws4_request" in signed.headers["Authorization"]


def test_the_portal_gets_its_own_identity():
    from nomos.settings import Settings

    settings = Settings.from_env({"NOMOS_OPENSEARCH_USER": "nomos_indexer", "NOMOS_OPENSEARCH_PASSWORD": "a",
                                  "NOMOS_PORTAL_OPENSEARCH_USER": "nomos_portal",
                                  "NOMOS_PORTAL_OPENSEARCH_PASSWORD": "b"})
    portal = settings.for_portal()
    assert (portal.opensearch_user, portal.opensearch_password) == ("nomos_portal", "b")
    assert settings.opensearch_user == "nomos_indexer"
    alone = Settings.from_env({"NOMOS_OPENSEARCH_USER": "nomos_indexer", "NOMOS_OPENSEARCH_PASSWORD": "a"})
    assert alone.for_portal() is alone


def test_refusals_of_the_portals_account_name_it_and_its_variables(tmp_path: Path):
    """Issue 47: the portal's client and every message about its account use the portal's identity; a 401 and a
    missing password name NOMOS_PORTAL_OPENSEARCH_* (the indexer's account and variables were named)."""
    from opensearchpy.exceptions import AuthenticationException

    from nomos.opensearch.client import access_error, password_of
    from nomos.portal import create_app
    from nomos.settings import Settings

    both = Settings.from_env({"NOMOS_OPENSEARCH_USER": "nomos_indexer", "NOMOS_OPENSEARCH_PASSWORD": "a",
                              "NOMOS_PORTAL_OPENSEARCH_USER": "nomos_portal",
                              "NOMOS_PORTAL_OPENSEARCH_PASSWORD_FILE": str(tmp_path / "missing")})
    assert both.opensearch_identity() == ("nomos_indexer", "NOMOS_OPENSEARCH_USER")
    assert both.for_portal().opensearch_identity() == ("nomos_portal", "NOMOS_PORTAL_OPENSEARCH_USER")
    refused = AuthenticationException(401, "security_exception", {"error": {"reason": "Authentication failed"}})
    denied = access_error(refused, "search", both.for_portal().cluster)
    assert "user 'nomos_portal' (401)" in str(denied) and "NOMOS_PORTAL_OPENSEARCH_PASSWORD(_FILE)" in str(denied)
    with pytest.raises(ConfigError, match=r"^NOMOS_PORTAL_OPENSEARCH_PASSWORD_FILE=.*missing: cannot read it"):
        password_of(both.for_portal().cluster)
    alone = Settings.from_env({"NOMOS_PORTAL_OPENSEARCH_USER": "nomos_portal"}).for_portal()
    with pytest.raises(ConfigError, match="NOMOS_PORTAL_OPENSEARCH_USER=nomos_portal has no password"):
        password_of(alone.cluster)
    (tmp_path / "missing").write_text("b\n")
    app = create_app(both.with_overrides(opensearch_url="http://127.0.0.1:9", allowed_hosts=("testserver",)))
    transport = app.state.portal.searcher.transport
    assert (transport.user, transport.user_variable) == ("nomos_portal", "NOMOS_PORTAL_OPENSEARCH_USER")


def test_the_compose_profile_secure_runs_the_security_plugin_with_our_certificates():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    secured = {name: svc for name, svc in compose["services"].items() if "secure" in svc.get("profiles", [])}
    node = secured["opensearch-secure"]
    env = dict(item.split("=", 1) for item in node["environment"])
    assert "DISABLE_SECURITY_PLUGIN" not in env and env["DISABLE_INSTALL_DEMO_CONFIG"] == "true"
    assert env["plugins.security.ssl.http.enabled"] == "true"
    assert env["plugins.security.allow_default_init_securityindex"] == "true"
    assert env["plugins.security.authcz.admin_dn"] == "CN=nomos-admin,O=nomos"
    for svc in compose["services"].values():  # every node of every profile: stored scripts only (issue 39)
        if str(svc.get("image", "")).startswith("opensearchproject/opensearch:"):
            assert "script.allowed_types=stored" in svc["environment"], svc.get("container_name")
    for layer in ("http", "transport"):
        for key, file in (("pemcert", "node.pem"), ("pemkey", "node-key.pem"), ("pemtrustedcas", "ca.pem")):
            assert env[f"plugins.security.ssl.{layer}.{key}_filepath"] == f"certs/{file}"
    mounts = dict(reversed(m.removesuffix(":ro").rsplit(":", 1)) for m in node["volumes"])
    certs = mounts["/usr/share/opensearch/config/certs"]
    assert "${NOMOS_SECURE_DIR" in certs
    security = mounts["/usr/share/opensearch/config/opensearch-security/internal_users.yml"]
    assert security.endswith("internal_users.yml")
    assert node["ports"] == ["127.0.0.1:9210:9200"]  # loopback only, beside the open node's 9200
    assert node["image"] == "opensearchproject/opensearch:2.19.1"


def test_the_sso_profile_sends_the_proxy_secret_the_portal_checks():
    """Issue 47: the proxy's address alone made any local process "the proxy"; the compose profile's oauth2-proxy
    sends NOMOS_PROXY_SECRET as its basic-auth password, and the user headers the portal accepts with it."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    env = dict(item.split("=", 1) for item in compose["services"]["oauth2-proxy"]["environment"])
    assert env["OAUTH2_PROXY_PASS_BASIC_AUTH"] == "true" and env["OAUTH2_PROXY_PASS_USER_HEADERS"] == "true"
    assert env["OAUTH2_PROXY_BASIC_AUTH_PASSWORD"].startswith("${NOMOS_PROXY_SECRET:?")


def test_refusals_name_the_user_status_and_reason():
    from opensearchpy.exceptions import AuthenticationException, AuthorizationException, NotFoundError

    from nomos.errors import AccessDenied
    from nomos.opensearch.client import access_error
    from nomos.settings import Settings

    settings = Settings(opensearch_user="nomos_portal")
    body = {"error": {"root_cause": [{"type": "security_exception", "reason": "no permissions for [indices:admin/delete]"}]}}
    denied = access_error(AuthorizationException(403, "security_exception", body), "delete", settings.cluster)
    assert isinstance(denied, AccessDenied) and denied.status == 403
    assert "'nomos_portal'" in str(denied) and "indices:admin/delete" in str(denied)
    headless = access_error(AuthorizationException(403, "", None), "exists", settings.cluster)  # a HEAD: no body
    assert str(headless).startswith("exists: user 'nomos_portal' may not do this (403): the user's role")
    assert access_error(AuthenticationException(401, "", None), "info", None).status == 401
    assert access_error(NotFoundError(404, "index_not_found_exception", {}), "search", settings.cluster) is None
