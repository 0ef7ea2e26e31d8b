"""The secured node, day to day (issue 39): the indexer's role covers its whole job, as `nomos_indexer`: index,
re-index the same corpus, re-index a changed one (a new version, the alias swapped, the old one cleaned up), and
export the judgments; what is left is the live index and its rollback copy. A real secured node (``secure_node``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from nomos.cli import cli
from nomos.ingest.indexer import alias_targets
from nomos.opensearch.client import make_client
from nomos.opensearch.judgments_store import put_judgment
from nomos.opensearch.node_security import INDEXER_USER, PORTAL_USER
from tests.beir_files import ARTICLES, write_beir
from tests.conftest import SECURE_ALIAS
from tests.test_secure_node import env_for, settings_for

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # slow: the secured node of its own


def run(node, user: str, *args: str):  # a NodeConfig, a click Result
    return CliRunner().invoke(cli, ["-v", *args], env=env_for(node, user))


def test_the_indexer_reindexes_and_exports_as_itself(secure_node, tmp_path: Path) -> None:
    first = write_beir(tmp_path / "v1")
    assert (r := run(secure_node, INDEXER_USER, "index", "--no-vectors", "--dataset", str(first))).exit_code == 0, r.output
    admin_view = make_client(settings_for(secure_node, INDEXER_USER).cluster)
    (v1,) = alias_targets(admin_view, SECURE_ALIAS)
    again = run(secure_node, INDEXER_USER, "index", "--no-vectors", "--dataset", str(first))
    assert again.exit_code == 0 and "resumed" in again.output, again.output  # scroll (and its clear) allowed
    changed = write_beir(tmp_path / "v2", articles=[*ARTICLES, {**ARTICLES[0], "_id": "PK::999", "title": "Νέο"}])
    swapped = run(secure_node, INDEXER_USER, "index", "--no-vectors", "--dataset", str(changed))
    assert swapped.exit_code == 0, swapped.output
    (v2,) = alias_targets(admin_view, SECURE_ALIAS)
    assert v2 != v1
    portal = settings_for(secure_node, PORTAL_USER)
    put_judgment(make_client(portal.cluster), portal.index_alias, query="κλοπή", article_id="PK::372", grade=2, user="eleni")
    out = tmp_path / "qrels.tsv"
    exported = run(secure_node, INDEXER_USER, "judgments", "export", "--out", str(out))
    assert exported.exit_code == 0, exported.output
    assert "PK::372" in out.read_text(encoding="utf-8")
    # nothing unpublished left behind: the live index and the one it replaced (the rollback copy), nothing else
    indices = set(admin_view.indices.get(index=f"{SECURE_ALIAS}-*", ignore_unavailable=True))
    assert {i for i in indices if not i.startswith(f"{SECURE_ALIAS}-results")} == {v2, v1}


def _readable_by_others(top: Path) -> list[str]:
    """Paths under ``top`` with any permission for others (a running node's temporary files may vanish meanwhile)."""
    found = []
    for p in [top, *top.rglob("*")]:
        try:
            if not p.is_symlink() and p.stat().st_mode & 0o007:
                found.append(str(p))
        except FileNotFoundError:
            continue
    return found


def test_the_nodes_files_are_not_readable_by_other_local_users(secure_node, cluster) -> None:
    """The translog showed judgment notes and the security index's password hashes to any local user."""
    from nomos.opensearch.node import NodeConfig
    from tests.conftest import TEST_NODE, TEST_PORT

    open_node = NodeConfig(root=cluster.node_root, name=TEST_NODE, http_port=TEST_PORT, transport_port=TEST_PORT + 100)
    for node in (secure_node, open_node):
        for top in (node.data_dir, node.logs_dir):
            assert top.is_dir() and _readable_by_others(top) == [], top


def test_install_prints_where_the_passwords_are_not_the_passwords(tmp_path: Path) -> None:
    from nomos.opensearch.node import NodeConfig
    from nomos.opensearch.node_security import ensure_passwords, password_file

    cfg = NodeConfig(root=tmp_path, name="printed", secure=True)
    said: list[str] = []
    passwords = ensure_passwords(cfg, log=said.append)
    text = "\n".join(said)
    assert str(password_file(cfg, "admin")) in text
    assert not any(p in text for p in passwords.values())


def test_tls_offers_no_cbc_or_sha1_suite_and_failed_logins_are_audited(secure_node) -> None:
    import socket
    import ssl
    import time

    from opensearchpy.exceptions import AuthenticationException

    from nomos.opensearch.node_security import ADMIN_USER
    from nomos.settings import Settings

    weak = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    weak.check_hostname, weak.verify_mode = False, ssl.CERT_NONE
    weak.maximum_version = ssl.TLSVersion.TLSv1_2
    weak.set_ciphers("ECDHE-RSA-AES128-SHA:ECDHE-RSA-AES256-SHA:AES128-SHA:AES256-SHA")  # CBC with SHA-1 MACs
    with pytest.raises(ssl.SSLError), socket.create_connection(("127.0.0.1", secure_node.http_port), timeout=10) as raw, \
            weak.wrap_socket(raw):
        pass
    wrong = Settings.from_env({**env_for(secure_node, INDEXER_USER), "NOMOS_OPENSEARCH_PASSWORD_FILE": "",
                               "NOMOS_OPENSEARCH_PASSWORD": "wrong"})
    with pytest.raises(AuthenticationException):
        make_client(wrong.cluster, retries=0).info()
    admin = make_client(settings_for(secure_node, ADMIN_USER).cluster)
    # the indexer's own failed logins (others' are in the same log: the portal's from tests/test_secure_node.py)
    query = {"query": {"bool": {"must": [{"match": {"audit_category": "FAILED_LOGIN"}},
                                         {"match_phrase": {"audit_request_effective_user": INDEXER_USER}}]}}}
    deadline = time.monotonic() + 30
    while not (hits := admin.search(index="security-auditlog-*", body=query, ignore_unavailable=True)["hits"]["hits"]):
        assert time.monotonic() < deadline, "no FAILED_LOGIN in the audit log after 30 s"
        time.sleep(2)
    assert hits[0]["_source"].get("audit_request_effective_user") == INDEXER_USER
