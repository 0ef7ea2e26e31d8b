"""Issue 26: ids, text and sizes an index cannot serve are refused at load, naming file and line, before any
index exists; a killed indexer's index is repaired by the re-run; run files refuse ids TREC cannot hold."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from nomos.cli import cli
from nomos.errors import DataError
from nomos.eval.runs import format_trec, read_trec, write_trec
from nomos.ingest.beir import load_beir
from nomos.ingest.records import DatasetError
from nomos.stages.indexing import index_dataset
from tests.beir_files import ARTICLES, write_beir

GOOD = json.dumps(ARTICLES[0], ensure_ascii=False) + "\n"


def corpus_with(bad_line: str) -> str:
    """The mini corpus's first article, then ``bad_line`` (line 2), then the rest."""
    return GOOD + bad_line + "\n" + "".join(json.dumps(a, ensure_ascii=False) + "\n" for a in ARTICLES[1:])


BAD_IDS = [
    ('{"_id": "PK/372", "text": "α"}', "field '_id' ('PK/372') contains '/'"),
    ('{"_id": "PK 372", "text": "α"}', "field '_id' ('PK 372') contains white space"),
    ('{"_id": "PK\\u0000372", "text": "α"}', "contains U+0000"),
    ('{"_id": "PK::\\u202e273", "text": "α"}', "contains U+202E"),
    ('{"_id": "PK::\\u200f1", "text": "α"}', "contains U+200F"),
    ('{"_id": true, "text": "α"}', "field '_id' must be a string, got a boolean"),
    ('{"_id": ["PK::1"], "text": "α"}', "field '_id' must be a string, got a list"),
    ('{"_id": null, "text": "α"}', "field '_id' is missing"),
    ('{"_id": "   ", "text": "α"}', "field '_id' is empty"),
    (json.dumps({"_id": "PK::" + "1" * 600, "text": "α"}), "field '_id' is 604 bytes long; an id has at most 256 bytes"),
    ('{"_id": "PK::\\ud800", "text": "α"}', "field '_id' holds a lone surrogate (U+D800"),
    ('{"_id": "PK::9", "text": "α\\ud800β"}', "field 'text' holds a lone surrogate (U+D800"),
    ('{"_id": "PK::9", "title": "\\udfff", "text": "α"}', "field 'title' holds a lone surrogate (U+DFFF"),
    ('{"_id": "PK::9", "text": "α\\u0000β"}', "field 'text' contains the control character U+0000 at character 2"),
    ('{"_id": "PK::9", "text": "α\\u202eβ"}', "field 'text' contains the control character U+202E"),
    ('{"_id": "PK::9", "title": "Κλο\\u0007πή", "text": "α"}', "field 'title' contains the control character U+0007"),
    ('{"_id": "PK::9", "title": true, "text": "α"}', "field 'title' must be a string, got a boolean"),
]


@pytest.mark.parametrize(("line", "expected"), BAD_IDS, ids=[e for _, e in BAD_IDS])
def test_bad_ids_and_text_name_file_and_line(tmp_path, line, expected):
    folder = write_beir(tmp_path / "bad", corpus_text=corpus_with(line))
    with pytest.raises(DatasetError) as err:
        load_beir(folder)
    assert str(err.value).startswith(f"{folder / 'corpus.jsonl'}:2: ") and expected in str(err.value), str(err.value)


def test_the_real_ids_pass(tmp_path):
    """The statutes' ids (Latin and Greek capitals, digits, :: and _) and a few more load as written."""
    ids = ["N_3979_2011::1", "ΑΚ::914", "PK::386Α", "ΚΠολΔ::1.2-α", "ΣΥΝΤ::ά"]
    folder = write_beir(tmp_path / "ok", articles=[{"_id": i, "text": "κείμενο"} for i in ids])
    (folder / "queries.jsonl").unlink()
    (folder / "qrels" / "test.tsv").unlink()  # a corpus alone (a firm's own statutes) loads
    assert [a.id for a in load_beir(folder).articles] == ids


def test_a_leading_bom_is_dropped_a_later_one_refused(tmp_path):
    text = "".join(json.dumps(a, ensure_ascii=False) + "\n" for a in ARTICLES)
    folder = write_beir(tmp_path / "bom", corpus_text="\ufeff" + text)
    assert [a.id for a in load_beir(folder).articles] == [a["_id"] for a in ARTICLES]
    folder = write_beir(tmp_path / "joined", corpus_text=GOOD + "\ufeff" + json.dumps(ARTICLES[1], ensure_ascii=False) + "\n")
    with pytest.raises(DatasetError, match=r"corpus.jsonl:2: a byte order mark \(BOM, U\+FEFF\) starts this line"):
        load_beir(folder)
    folder = write_beir(tmp_path / "inside", corpus_text=corpus_with('{"_id": "PK::9", "title": "α\\ufeffβ", "text": "α"}'))
    with pytest.raises(DatasetError, match=r"corpus.jsonl:2: field 'title' contains the control character U\+FEFF"):
        load_beir(folder)


def test_query_ids_are_checked_too(tmp_path):
    folder = write_beir(tmp_path / "q", queries=[{"_id": "q 1", "text": "α"}])
    with pytest.raises(DatasetError, match=r"queries.jsonl:1: field '_id' \('q 1'\) contains white space"):
        load_beir(folder)


def test_a_5_mb_article_is_refused_naming_file_line_and_setting(tmp_path):
    big = {"_id": "PK::999", "title": "Μεγάλο", "text": "α" * 2_500_000}  # 5 MB of UTF-8
    folder = write_beir(tmp_path / "big", corpus_text=corpus_with(json.dumps(big, ensure_ascii=False)))
    with pytest.raises(DatasetError) as err:
        load_beir(folder)
    assert str(err.value) == (f"{folder / 'corpus.jsonl'}:2: article 'PK::999' has 5,000,000 bytes of text, more than "
                              "the 1,000,000 allowed (NOMOS_MAX_ARTICLE_BYTES): split it into its paragraphs or raise the limit")
    assert len(load_beir(folder, max_article_bytes=20_000_000).articles) == len(ARTICLES) + 1


def test_the_cli_reads_the_size_limit_from_the_environment(tmp_path):
    big = {"_id": "PK::999", "text": "α" * 3000}  # 6,000 bytes
    folder = write_beir(tmp_path / "big", corpus_text=corpus_with(json.dumps(big)))
    res = CliRunner().invoke(cli, ["--url", "http://127.0.0.1:9", "index", "--dataset", str(folder)],
                             env={"NOMOS_MAX_ARTICLE_BYTES": "5000"})
    assert res.exit_code == 1 and "corpus.jsonl:2: article 'PK::999' has 6,000 bytes of text, more than the 5,000" in res.output
    assert "Traceback" not in res.output


@pytest.mark.parametrize(("qid", "doc"), [("q 1", "PK::1"), ("q1", "PK 1"), ("q1", "PK\x001"), ("q1", "PK\t1"), ("", "PK::1")])
def test_run_files_refuse_ids_trec_cannot_hold(tmp_path, qid, doc):
    path = tmp_path / "run.trec"
    with pytest.raises(DataError, match="cannot be written to a TREC run file"):
        write_trec(path, {qid: [(doc, 1.0)]}, "bm25")
    assert not path.exists()  # nothing half-written
    write_trec(path, {"q1": [("ΑΚ::914", 2.0), ("PK::1", 1.0)]}, "bm25")
    assert read_trec(path) == {"q1": [("ΑΚ::914", 2.0), ("PK::1", 1.0)]}
    assert format_trec({"q1": [("PK::1", 1.0)]}, "bm25") == "q1 Q0 PK::1 1 1.000000 bm25\n"


# ------------------------------------------------------------------------------------------- real node
@pytest.mark.integration
@pytest.mark.parametrize("line", ['{"_id": "PK::" , "text": "α\\ud800"}', json.dumps({"_id": "X" * 600, "text": "α"}),
                                  '{"_id": true, "text": "α"}'])
def test_a_bad_corpus_leaves_no_index_behind(os_settings, client, tmp_path, line):
    folder = write_beir(tmp_path / "bad", corpus_text=corpus_with(line))
    res = CliRunner().invoke(cli, ["--url", os_settings.url, "--index", os_settings.index_alias, "index", "--dataset",
                                   str(folder), "--no-vectors"])
    assert res.exit_code == 1 and "corpus.jsonl:2: " in res.output and "Traceback" not in res.output, res.output
    assert client.indices.get(index=f"{os_settings.index_alias}*", ignore_unavailable=True) == {}


@pytest.mark.integration
def test_a_rerun_repairs_the_refresh_interval_a_killed_indexer_left(os_settings, client, tmp_path):
    data = load_beir(write_beir(tmp_path / "mini"))
    report = index_dataset(os_settings, data)

    def refresh_interval() -> str | None:
        got = client.indices.get_settings(index=report.index, flat_settings=True)
        return got[report.index]["settings"].get("index.refresh_interval")

    # what an indexer killed mid-load leaves: refreshes off on its version
    client.indices.put_settings(index=report.index, body={"index": {"refresh_interval": "-1"}})
    assert refresh_interval() == "-1"
    again = index_dataset(os_settings, data)
    assert again.index == report.index and again.documents == len(ARTICLES)
    assert refresh_interval() is None  # back to the default
