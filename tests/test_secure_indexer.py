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

pytestmark = pytest.mark.integration


def run(node, user: str, *args: str):  # noqa: ANN001, ANN201 - a NodeConfig, a click Result
    return CliRunner().invoke(cli, ["-v", *args], env=env_for(node, user))


def test_the_indexer_reindexes_and_exports_as_itself(secure_node, tmp_path: Path) -> None:
    first = write_beir(tmp_path / "v1")
    assert (r := run(secure_node, INDEXER_USER, "index", "--no-vectors", "--dataset", str(first))).exit_code == 0, r.output
    admin_view = make_client(settings_for(secure_node, INDEXER_USER))
    (v1,) = alias_targets(admin_view, SECURE_ALIAS)
    again = run(secure_node, INDEXER_USER, "index", "--no-vectors", "--dataset", str(first))
    assert again.exit_code == 0 and "resumed" in again.output, again.output  # scroll (and its clear) allowed
    changed = write_beir(tmp_path / "v2", articles=[*ARTICLES, {**ARTICLES[0], "_id": "PK::999", "title": "Νέο"}])
    swapped = run(secure_node, INDEXER_USER, "index", "--no-vectors", "--dataset", str(changed))
    assert swapped.exit_code == 0, swapped.output
    (v2,) = alias_targets(admin_view, SECURE_ALIAS)
    assert v2 != v1
    portal = settings_for(secure_node, PORTAL_USER)
    put_judgment(make_client(portal), portal.index_alias, query="κλοπή", article_id="PK::372", grade=2, user="eleni")
    out = tmp_path / "qrels.tsv"
    exported = run(secure_node, INDEXER_USER, "judgments", "export", "--out", str(out))
    assert exported.exit_code == 0, exported.output
    assert "PK::372" in out.read_text(encoding="utf-8")
    # nothing unpublished left behind: the live index and the one it replaced (the rollback copy), nothing else
    indices = set(admin_view.indices.get(index=f"{SECURE_ALIAS}-*", ignore_unavailable=True))
    assert {i for i in indices if not i.startswith(f"{SECURE_ALIAS}-results")} == {v2, v1}
