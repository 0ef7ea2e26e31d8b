"""Bad input gets a clear message (file, line, field, id) or a sensible empty answer, never a stack trace or an
OpenSearch 400. Complements test_loader.py (which covers the loader's file:line messages one by one)."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from nomos.cli import cli
from nomos.errors import QueryTooLong
from nomos.ingest.beir import load_beir
from nomos.ingest.indexer import create_index
from nomos.mappings import ARTICLES as ARTICLES_MAPPING
from nomos.mappings import MappingError, articles_index_body
from nomos.opensearch.transport import Transport
from nomos.query_text import MAX_QUERY_CHARS
from nomos.retrieval.bm25 import BM25Retriever
from nomos.stages.indexing import index_dataset
from nomos.stages.searching import search
from tests.beir_files import ARTICLES, QUERIES, write_beir


@pytest.fixture
def mini(tmp_path):
    return load_beir(write_beir(tmp_path / "mini"))


# ------------------------------------------------------------------------------------------- dataset files (CLI)
@pytest.mark.parametrize(
    ("corpus", "expected"),
    [
        ("", "corpus.jsonl: the corpus is empty"),
        ('{"_id": "PK::1", "title": "Τίτλος", "text": ""}\n', "corpus.jsonl:1: article 'PK::1' has no text"),
        ('{"_id": "PK::1", "title": "Τίτλος"}\n', "corpus.jsonl:1: field 'text' is missing"),
        ('{"_id": "PK::1", "text": "α"}\n{"_id": "PK::1", "text": "β"}\n', "corpus.jsonl:2: duplicate article id 'PK::1' (first seen at"),
    ],
)
def test_cli_names_file_line_and_id(tmp_path, corpus, expected):
    folder = write_beir(tmp_path / "bad", corpus_text=corpus)
    res = CliRunner().invoke(cli, ["--url", "http://127.0.0.1:9", "index", "--dataset", str(folder)])
    assert res.exit_code == 1 and expected in res.output and "Traceback" not in res.output, res.output


def test_cli_rejects_non_utf8_and_unknown_qrels(tmp_path):
    folder = write_beir(tmp_path / "bytes")
    (folder / "corpus.jsonl").write_bytes((folder / "corpus.jsonl").read_bytes() + b'{"_id": "X::1", "text": "caf\xe9"}\n')
    res = CliRunner().invoke(cli, ["--url", "http://127.0.0.1:9", "index", "--dataset", str(folder)])
    assert res.exit_code == 1 and f"corpus.jsonl:{len(ARTICLES) + 1}: not valid UTF-8" in res.output
    folder = write_beir(tmp_path / "qrels", qrels=[("q1", "PK::372", 1), ("q2", "AK::914", 1), ("q2", "NOPE::1", 1)])
    res = CliRunner().invoke(cli, ["--url", "http://127.0.0.1:9", "eval", "--dataset", str(folder)])
    assert res.exit_code == 1 and "test.tsv:4: judgment for query 'q2' names unknown article 'NOPE::1'" in res.output


def test_duplicate_query_ids(tmp_path):
    from nomos.ingest.records import DatasetError

    with pytest.raises(DatasetError, match=r"queries.jsonl:3: duplicate query id 'q1' \(first seen at .*queries.jsonl:1\)"):
        load_beir(write_beir(tmp_path, queries=QUERIES + [QUERIES[0]]))


# ------------------------------------------------------------------------------------------- queries (real node)
@pytest.mark.integration
def test_a_50000_character_query_is_answered_by_bm25_and_refused_by_the_search_stage(os_settings, client, mini):
    index_dataset(os_settings, mini)
    base = ("Ο κατηγορούμενος αφαίρεσε κινητό πράγμα από την κατοχή άλλου, τον τραυμάτισε και του προκάλεσε "
            "βλάβη της υγείας του· ο παθών ζητά αποζημίωση για την ηθική βλάβη. ").split()
    words, i = [], 0
    while len(" ".join(words)) < 50_000:
        words.append(f"{base[i % len(base)]} υπόθεση{i}")
        i += 1
    query = " ".join(words)[:50_000]
    assert len(query) == 50_000
    retriever = BM25Retriever(Transport(client), os_settings.index_alias)
    result = retriever.search_many({"long": query}, 10)
    hits, note = result.hits["long"], result.query_notes["long"]
    assert note["compact"] and note["distinct_terms"] > retriever.max_clauses >= note["distinct_terms"] - note["dropped_terms"]
    assert hits and hits[0].doc_id in {"PK::372", "PK::308", "AK::932", "AK::914"}
    shown = search(os_settings, query[:MAX_QUERY_CHARS], k=3)  # the CLI's path, with highlighting: a whole case
    assert shown and all(h.title for h in shown)
    with pytest.raises(QueryTooLong, match="το κείμενο έχει 50.000 χαρακτήρες"):  # refused whole, never cut
        search(os_settings, query, k=3)


@pytest.mark.integration
@pytest.mark.parametrize("query", ["και το της ; , .", "!!! ??? ... ;;; ---", " ".join(["και το της , ."] * 200), "   "])
def test_stop_words_or_punctuation_only_return_nothing(os_settings, client, mini, query):
    index_dataset(os_settings, mini)
    assert BM25Retriever(Transport(client), os_settings.index_alias).search_many({"q": query}, 10).hits == {"q": []}


@pytest.mark.integration
def test_cli_search_says_why_nothing_matched(os_settings, mini):
    index_dataset(os_settings, mini)
    res = CliRunner().invoke(cli, ["--url", os_settings.url, "--index", os_settings.index_alias, "search", "; , . και το"])
    assert res.exit_code == 0 and "no articles matched (the query may hold only stop words or punctuation)" in res.output


# ------------------------------------------------------------------------------------------- mapping files
def test_malformed_mapping_file_names_file_line_and_column(tmp_path):
    bad = tmp_path / "articles.json"
    bad.write_text('{\n  "settings": {\n    "index": {,\n}', encoding="utf-8")
    with pytest.raises(MappingError, match=rf"{bad}:3:15: malformed JSON"):
        articles_index_body(1.2, 0.75, path=bad)


@pytest.mark.integration
def test_mapping_file_that_opensearch_rejects_shows_its_reason(os_settings, client, tmp_path):
    body = json.loads(ARTICLES_MAPPING.read_text(encoding="utf-8"))
    body["mappings"]["properties"]["text"]["analyzer"] = "no_such_analyzer"
    broken = tmp_path / "broken-articles.json"
    broken.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    # the mapping names its stop list relative to itself: it travels with it
    shutil.copytree(ARTICLES_MAPPING.parent / "stopwords", tmp_path / "stopwords")
    with pytest.raises(MappingError) as err:
        create_index(client, f"{os_settings.index_alias}-broken", articles_index_body(1.2, 0.75, path=broken))
    msg = str(err.value)
    assert "OpenSearch rejected the mapping" in msg and "analyzer [no_such_analyzer] has not been configured" in msg
    assert not client.indices.exists(index=f"{os_settings.index_alias}-broken")
