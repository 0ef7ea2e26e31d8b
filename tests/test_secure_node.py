"""The secured node end to end (issue 26): TLS with our CA, plain http refused, the indexer indexes, the portal's
user reads the articles and writes judgments but can neither write nor delete an article index (403 as nomos's own
error, not a traceback), and a wrong password is a clear error. One node for the whole module (``secure_node``)."""

from __future__ import annotations

import base64
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from opensearchpy.exceptions import AuthorizationException, TransportError

from nomos.cli import cli
from nomos.errors import AccessDenied, ClusterUnavailable
from nomos.opensearch.client import cluster_version, make_client
from nomos.opensearch.judgments_store import list_judgments, put_judgment
from nomos.opensearch.node_security import ADMIN_USER, INDEXER_USER, PORTAL_USER, cert_files, password_file
from nomos.opensearch.transport import make_transport
from nomos.settings import Settings
from tests.beir_files import ARTICLES, write_beir
from tests.conftest import SECURE_ALIAS

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # a node of its own, with the security plugin


def env_for(node, user: str, **extra: str) -> dict[str, str]:  # NodeConfig
    """The environment a person would set after `server start --secure` (as that command prints it)."""
    return {"OPENSEARCH_URL": node.url, "NOMOS_INDEX": SECURE_ALIAS, "NOMOS_OPENSEARCH_CA": str(cert_files(node).ca),
            "NOMOS_OPENSEARCH_USER": user, "NOMOS_OPENSEARCH_PASSWORD_FILE": str(password_file(node, user)),
            "NOMOS_RETRY_SECONDS": "0", **extra}


def settings_for(node, user: str, **extra: str) -> Settings:
    return Settings.from_env(env_for(node, user, **extra))


@pytest.fixture(scope="module")
def indexed(secure_node, tmp_path_factory):
    """The mini corpus indexed by nomos_indexer through the command line (what `index` does on a secured cluster)."""
    folder = write_beir(tmp_path_factory.mktemp("beir") / "mini")
    res = CliRunner().invoke(cli, ["index", "--no-vectors", "--dataset", str(folder)], env=env_for(secure_node, INDEXER_USER))
    assert res.exit_code == 0, res.output
    return folder


def test_https_with_our_ca_works_and_plain_http_is_refused(secure_node):
    settings = settings_for(secure_node, INDEXER_USER)
    assert settings.url.startswith("https://127.0.0.1:")
    assert cluster_version(make_client(settings.cluster), settings.cluster) == "2.19.1"
    with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
        urllib.request.build_opener(urllib.request.ProxyHandler({})).open(
            f"http://127.0.0.1:{secure_node.http_port}/", timeout=10).read()
    plain = settings.model_copy(update={"opensearch_url": f"http://127.0.0.1:{secure_node.http_port}"})
    with pytest.raises(ClusterUnavailable):
        cluster_version(make_client(plain.cluster), plain.cluster)


def test_a_certificate_from_another_ca_is_refused_with_a_clear_error(secure_node, tmp_path: Path):
    from nomos.opensearch.node_certs import ensure_certs

    other = ensure_certs(tmp_path / "other", tmp_path / "other-ca-key", log=lambda m: None)
    settings = settings_for(secure_node, INDEXER_USER, NOMOS_OPENSEARCH_CA=str(other.ca))
    with pytest.raises(AccessDenied, match="could not be verified") as err:
        cluster_version(make_client(settings.cluster), settings.cluster)
    assert "NOMOS_OPENSEARCH_CA" in str(err.value)


def test_wrong_password_is_a_clear_error(secure_node, tmp_path: Path):
    wrong = tmp_path / "pw"
    wrong.write_text("not-the-password\n", encoding="utf-8")
    settings = settings_for(secure_node, PORTAL_USER, NOMOS_OPENSEARCH_PASSWORD_FILE=str(wrong))
    with pytest.raises(AccessDenied) as err:
        cluster_version(make_client(settings.cluster), settings.cluster)
    assert err.value.status == 401 and "nomos_portal" in str(err.value)
    with pytest.raises(AccessDenied, match="401"):  # searches (the transport) say the same
        make_transport(settings.cluster).search(SECURE_ALIAS, {"query": {"match_all": {}}})
    res = CliRunner().invoke(cli, ["search", "κλοπή"], env=env_for(secure_node, PORTAL_USER,
                                                                     NOMOS_OPENSEARCH_PASSWORD_FILE=str(wrong)))
    assert res.exit_code == 1 and "401" in res.output and "Traceback" not in res.output, res.output


@pytest.mark.parametrize("indexer_too", [False, True], ids=["portal-user-only", "indexer-user-too"])
def test_the_portals_401_names_the_portals_account(secure_node, indexed, tmp_path: Path, caplog, indexer_too: bool):
    """Issue 47: with the portal's account set (its password wrong), the portal's 401 named no user ("no
    NOMOS_OPENSEARCH_USER"), or, with the indexer's set too as the README shows, the indexer: the wrong account."""
    import logging

    from fastapi.testclient import TestClient

    from nomos.portal import create_app

    wrong = tmp_path / "pw"
    wrong.write_text("not-the-password\n", encoding="utf-8")
    env = {"OPENSEARCH_URL": secure_node.url, "NOMOS_INDEX": SECURE_ALIAS, "NOMOS_RETRY_SECONDS": "0",
           "NOMOS_OPENSEARCH_CA": str(cert_files(secure_node).ca), "NOMOS_PORTAL_OPENSEARCH_USER": PORTAL_USER,
           "NOMOS_PORTAL_OPENSEARCH_PASSWORD_FILE": str(wrong), "NOMOS_ALLOWED_HOSTS": "testserver"}
    if indexer_too:
        env.update(NOMOS_OPENSEARCH_USER=INDEXER_USER,
                   NOMOS_OPENSEARCH_PASSWORD_FILE=str(password_file(secure_node, INDEXER_USER)))
    with TestClient(create_app(Settings.from_env(env)), raise_server_exceptions=False) as web, \
            caplog.at_level(logging.INFO, logger="nomos.portal"):
        answer = web.get("/api/search", params={"q": "κλοπή"})
    assert answer.status_code == 503, answer.text
    logged = " ".join(r.getMessage() for r in caplog.records if "AccessDenied" in r.getMessage())
    assert f"credentials of user '{PORTAL_USER}' (401)" in logged, caplog.text
    assert INDEXER_USER not in logged and "no NOMOS_OPENSEARCH_USER" not in logged
    assert "NOMOS_PORTAL_OPENSEARCH_PASSWORD(_FILE)" in logged


def test_the_indexer_indexes_and_the_portal_reads_and_writes_judgments(secure_node, indexed):
    indexer = make_client(settings_for(secure_node, INDEXER_USER).cluster)
    assert indexer.count(index=SECURE_ALIAS)["count"] == 6
    # the portal's identity comes from the NOMOS_PORTAL_* variables, over the indexer's (Settings.for_portal)
    both = settings_for(secure_node, INDEXER_USER, NOMOS_PORTAL_OPENSEARCH_USER=PORTAL_USER,
                        NOMOS_PORTAL_OPENSEARCH_PASSWORD_FILE=str(password_file(secure_node, PORTAL_USER)))
    portal_settings = both.for_portal()
    assert portal_settings.opensearch_user == PORTAL_USER
    portal = make_client(portal_settings.cluster)
    hits = make_transport(portal_settings.cluster, portal).search(SECURE_ALIAS, {"query": {"match": {"text": "κινητό πράγμα"}}})
    assert hits["hits"]["hits"], hits
    judgment, created = put_judgment(portal, SECURE_ALIAS, query="κλοπή ρολογιού", article_id="PK::372", grade=2,
                                     user="tester")
    assert created and judgment.grade == 2
    assert [j.article_id for j in list_judgments(portal, SECURE_ALIAS, query="κλοπή ρολογιού")] == ["PK::372"]


def test_the_portal_user_cannot_write_or_delete_an_article_index(secure_node, indexed, tmp_path: Path):
    portal_settings = settings_for(secure_node, PORTAL_USER)
    portal = make_client(portal_settings.cluster)
    index = next(iter(portal.indices.get_alias(index=SECURE_ALIAS)))
    with pytest.raises(AuthorizationException):
        portal.index(index=index, id="PK::999", body={"text": "planted"})
    with pytest.raises(AuthorizationException):
        portal.indices.delete(index=index)
    with pytest.raises(AuthorizationException):
        portal.indices.create(index=f"{SECURE_ALIAS}-planted")
    # through the command line, the refusal is nomos's error with the status and the user, not a traceback
    planted = [{**a, "text": a["text"] + " planted"} for a in ARTICLES]  # another corpus: a new index to create
    folder = write_beir(tmp_path / "other", articles=planted)
    res = CliRunner().invoke(cli, ["index", "--no-vectors", "--dataset", str(folder)],
                             env=env_for(secure_node, PORTAL_USER))
    assert res.exit_code == 1, res.output
    assert "403" in res.output and "nomos_portal" in res.output and "Traceback" not in res.output, res.output
    indexer = make_client(settings_for(secure_node, INDEXER_USER).cluster)
    assert indexer.count(index=SECURE_ALIAS)["count"] == 6  # nothing the portal tried reached the articles
    assert indexer.indices.exists(index=index)


def test_the_portal_runs_on_its_own_identity(secure_node, indexed):
    """The whole portal (search page and API, article page, health, judgments) works with nomos_portal's rights:
    its role is enough for every request a page sends, and the app's client is the portal's, not the indexer's."""
    from fastapi.testclient import TestClient

    from nomos.portal.app import create_app

    settings = settings_for(secure_node, INDEXER_USER, NOMOS_PORTAL_OPENSEARCH_USER=PORTAL_USER,
                            NOMOS_PORTAL_OPENSEARCH_PASSWORD_FILE=str(password_file(secure_node, PORTAL_USER)),
                            NOMOS_ALLOWED_HOSTS="testserver")  # TestClient's Host (the portal's allow-list, h26b)
    with TestClient(create_app(settings)) as web:
        conn = web.app.state.portal.client.transport.connection_pool.connections[0]
        basic = base64.b64decode(conn.headers["authorization"].removeprefix("Basic ")).decode()
        assert basic.split(":", 1)[0] == PORTAL_USER
        for path in ("/api/health", "/api/search?q=κλοπή+κινητού", "/search?q=κλοπή", "/articles/PK::372",
                     "/api/articles/PK::372"):
            res = web.get(path)
            assert res.status_code == 200, (path, res.status_code, res.text[:300])
        assert web.get("/api/search?q=κλοπή+κινητού").json()["hits"][0]["id"] == "PK::372"
        res = web.post("/api/judgments", json={"query": "κλοπή", "article_id": "PK::375", "grade": 1, "user": "maria"})
        assert res.status_code in (200, 201), res.text


# ------------------------------------------------------------------ issue 47: each account does its job and no more
def _refused(call) -> int:  # a callable that sends one request
    """The status of the refusal ``call`` must meet (it failing to be refused fails the test)."""
    with pytest.raises(TransportError) as err:
        call()
    return err.value.status_code


@pytest.mark.parametrize("user", [PORTAL_USER, INDEXER_USER])
def test_a_service_account_cannot_change_its_own_password(secure_node, user: str):
    """Both could, through the security plugin's account API (the portal then answered 503 until it was put back):
    every user is reserved, so only the admin changes one; the old password still works, the new one does not."""
    settings = settings_for(secure_node, user)
    current = password_file(secure_node, user).read_text(encoding="utf-8").strip()
    body = {"current_password": current, "password": "An0ther-passw0rd-of-its-own!"}
    with pytest.raises(TransportError) as err:
        make_client(settings.cluster).transport.perform_request("PUT", "/_plugins/_security/api/account", body=body)
    assert err.value.status_code == 403 and f"'{user}' is reserved" in str(err.value.info), err.value.info
    assert cluster_version(make_client(settings.cluster), settings.cluster) == "2.19.1"
    other = settings.model_copy(update={"opensearch_password": body["password"], "opensearch_password_file": None})
    with pytest.raises(AccessDenied, match="401"):
        cluster_version(make_client(other.cluster), other.cluster)


def test_only_the_admin_stores_scripts_the_indexer_reads_them(secure_node, indexed):
    """The indexer could store any Painless and run it by id, and overwrite the script the portal runs for fused
    pages. Now: it may not put one, new or over the project's (which stays as it is), and `index` as the indexer
    only checks the project's are there (the `indexed` fixture); one missing is an error that says what to run."""
    from nomos.opensearch.node_lifecycle import store_node_scripts
    from nomos.opensearch.stored_scripts import RANK_BY_POSITION, store_scripts

    indexer = make_client(settings_for(secure_node, INDEXER_USER).cluster)
    admin = make_client(settings_for(secure_node, ADMIN_USER).cluster)
    planted = {"script": {"lang": "painless", "source": "0"}}
    assert _refused(lambda: indexer.put_script(id="planted", body=planted)) == 403
    assert _refused(lambda: indexer.put_script(id=RANK_BY_POSITION.id, body=planted, context="score")) == 403
    assert admin.get_script(id=RANK_BY_POSITION.id)["script"]["source"] == RANK_BY_POSITION.source
    assert store_scripts(indexer)  # all there: nothing to store, no refusal
    admin.delete_script(id=RANK_BY_POSITION.id)
    try:
        with pytest.raises(AccessDenied, match=f"lacks the project's script {RANK_BY_POSITION.id}") as err:
            store_scripts(indexer)
        assert "server start" in (err.value.hint or "")
    finally:
        store_node_scripts(secure_node)
    assert admin.get_script(id=RANK_BY_POSITION.id)["found"]


def test_the_portal_cannot_delete_judgments_nor_the_indexer_write_or_close_them(secure_node, indexed):
    """The portal's role granted `crud` (it could delete any judgment, or all by query; it never deletes); the
    indexer's `indices_all` let it close the judgments index. Now the portal indexes, updates and reads them, the
    indexer reads them (its export), and nothing else. (Delete by query is the reindex module's, which this node
    does not load: the role's lack of it is tests/test_security_unit.py's.)"""
    from nomos.opensearch.judgments_store import index_name

    portal = make_client(settings_for(secure_node, PORTAL_USER).cluster)
    indexer = make_client(settings_for(secure_node, INDEXER_USER).cluster)
    judgment, _ = put_judgment(portal, SECURE_ALIAS, query="κλοπή ποδηλάτου", article_id="PK::372", grade=1,
                               user="roles")
    name = index_name(SECURE_ALIAS)
    refusals = {
        "portal deletes one": lambda: portal.delete(index=name, id=judgment.id),
        "portal deletes the index": lambda: portal.indices.delete(index=name),
        "portal closes the index": lambda: portal.indices.close(index=name),
        "indexer closes the index": lambda: indexer.indices.close(index=name),
        "indexer deletes the index": lambda: indexer.indices.delete(index=name),
        "indexer deletes one": lambda: indexer.delete(index=name, id=judgment.id),
        "indexer writes one": lambda: indexer.index(index=name, id="forged", body={"user": "someone", "grade": 2}),
    }
    statuses = {what: _refused(call) for what, call in refusals.items()}
    assert set(statuses.values()) == {403}, statuses
    # a delete in a bulk, which the portal may send (its updates travel as bulks): refused item by item
    answer = portal.bulk(body=[{"delete": {"_index": name, "_id": judgment.id}}])
    assert answer["errors"] and answer["items"][0]["delete"]["status"] == 403, answer
    assert indexer.get(index=name, id=judgment.id)["_source"]["user"] == "roles"  # it reads them (the export)
    again, created = put_judgment(portal, SECURE_ALIAS, query="κλοπή ποδηλάτου", article_id="PK::372", grade=2,
                                  user="roles")
    assert not created and again.grade == 2  # and the portal still updates them


def test_failed_logins_are_throttled_per_user(secure_node):
    """A wrong password cost the node its bcrypt (about 260 ms of CPU), unthrottled. The plugin's
    auth_failure_listeners (config.yml, node_security.AUTH_FAILURE_LISTENERS) block a user name after its allowed
    failures: then even its right password is refused until the block expires; other users are not affected. On a
    user of the test's own (made and removed by the admin), so the suite's users are never blocked."""
    import base64

    import urllib3

    from nomos.opensearch.node_security import AUTH_FAILURE_LISTENERS

    admin = make_client(settings_for(secure_node, ADMIN_USER).cluster)
    probe, good = "pytest_throttle_probe", "Probe-passw0rd-for-this-test!"
    admin.transport.perform_request("PUT", f"/_plugins/_security/api/internalusers/{probe}", body={"password": good})
    http = urllib3.PoolManager(ca_certs=str(cert_files(secure_node).ca), retries=False)

    def status(password: str) -> int:
        token = base64.b64encode(f"{probe}:{password}".encode()).decode()
        return http.request("GET", f"{secure_node.url}/_plugins/_security/authinfo",
                            headers={"Authorization": f"Basic {token}"}).status

    try:
        assert status(good) == 200
        allowed = AUTH_FAILURE_LISTENERS["internal_users_by_name"]["allowed_tries"]
        assert [status(f"wrong-{i}") for i in range(allowed)] == [401] * allowed
        assert status(good) == 401  # blocked: the right password too
        indexer = settings_for(secure_node, INDEXER_USER)
        assert cluster_version(make_client(indexer.cluster), indexer.cluster) == "2.19.1"  # another user: not blocked
    finally:
        admin.transport.perform_request("DELETE", f"/_plugins/_security/api/internalusers/{probe}")


def test_the_portal_backs_off_its_account_after_a_401(secure_node, indexed, tmp_path: Path):
    """Issue 47: with its password wrong, every page sent the portal's account again (a bcrypt check of the node's
    CPU each, two or three per results page) until the node's throttle blocked the account, its right password too.
    Now after a 401 the portal sends nothing as that account for a while: thirty pages answer 503 with Retry-After,
    and so few tries reach the node that it never blocks the name (its right password still works afterwards).
    On an account of the test's own, so the suite's are never blocked."""
    import urllib3
    from fastapi.testclient import TestClient

    from nomos.portal import create_app

    admin = make_client(settings_for(secure_node, ADMIN_USER).cluster)
    probe, good = "pytest_backoff_probe", "Probe-passw0rd-for-the-backoff!"
    admin.transport.perform_request("PUT", f"/_plugins/_security/api/internalusers/{probe}", body={"password": good})
    http = urllib3.PoolManager(ca_certs=str(cert_files(secure_node).ca), retries=False)
    token = base64.b64encode(f"{probe}:{good}".encode()).decode()
    wrong = tmp_path / "pw"
    wrong.write_text("not-the-password\n", encoding="utf-8")
    env = {"OPENSEARCH_URL": secure_node.url, "NOMOS_INDEX": SECURE_ALIAS, "NOMOS_RETRY_SECONDS": "0",
           "NOMOS_OPENSEARCH_CA": str(cert_files(secure_node).ca), "NOMOS_PORTAL_OPENSEARCH_USER": probe,
           "NOMOS_PORTAL_OPENSEARCH_PASSWORD_FILE": str(wrong), "NOMOS_ALLOWED_HOSTS": "testserver"}
    try:
        with TestClient(create_app(Settings.from_env(env)), raise_server_exceptions=False) as web:
            answers = [web.get(path, params={"q": "κλοπή"})
                       for path in ("/api/search", "/search", "/articles/PK::372", "/api/health") * 8]
        assert {a.status_code for a in answers} == {503}, {a.status_code for a in answers}
        assert all(int(a.headers.get("retry-after", 0)) >= 1 for a in answers), [(a.url, a.headers) for a in answers if "retry-after" not in a.headers]
        assert "δεν έγιναν δεκτά τα στοιχεία σύνδεσής της" in answers[1].text
        assert http.request("GET", f"{secure_node.url}/_plugins/_security/authinfo",
                            headers={"Authorization": f"Basic {token}"}).status == 200  # not blocked by the node
    finally:
        admin.transport.perform_request("DELETE", f"/_plugins/_security/api/internalusers/{probe}")
