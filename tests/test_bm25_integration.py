"""Indexing, searching and evaluating against a real OpenSearch node."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from click.testing import CliRunner

from nomos.cli import cli
from nomos.ingest.beir import load_beir
from nomos.ingest.bulk import BulkError, load_articles
from nomos.ingest.indexer import alias_targets, create_index, index_meta
from nomos.mappings import MappingError, articles_index_body
from nomos.opensearch.transport import Transport
from nomos.retrieval.bm25 import BM25Retriever
from nomos.stages.evaluation import IndexMismatch, evaluate_method
from nomos.stages.indexing import index_dataset
from nomos.stages.searching import search
from tests.beir_files import ARTICLES, write_beir

pytestmark = pytest.mark.integration


@pytest.fixture
def mini(tmp_path):
    return load_beir(write_beir(tmp_path / "mini"))


def test_index_is_versioned_behind_alias_and_idempotent(os_settings, client, mini):
    first = index_dataset(os_settings, mini)
    assert first.created and first.documents == len(ARTICLES)
    assert alias_targets(client, os_settings.index_alias) == [first.index]
    assert first.index.startswith(os_settings.index_alias + "-")
    meta = index_meta(client, os_settings.index_alias)
    assert meta["dataset"]["fingerprint"] == mini.fingerprint and meta["bm25"] == {"k1": 1.5, "b": 0.75}

    again = index_dataset(os_settings, mini)  # a re-run resumes into the same index and never duplicates
    assert (again.index, again.created, again.documents) == (first.index, False, len(ARTICLES))
    assert client.count(index=os_settings.index_alias)["count"] == len(ARTICLES)

    tuned = index_dataset(os_settings.with_overrides(bm25_k1=0.9), mini)  # a new mapping gets a new index; alias swaps
    assert tuned.index != first.index and tuned.previous == (first.index,)
    assert alias_targets(client, os_settings.index_alias) == [tuned.index]
    assert client.indices.exists(index=first.index)  # kept for rollback
    third = index_dataset(os_settings.with_overrides(bm25_k1=2.0), mini)
    assert third.deleted == (first.index,) and client.indices.exists(index=tuned.index)


def test_greek_analysis_folds_accents_case_and_final_sigma(os_settings, client, mini):
    index_dataset(os_settings, mini)

    def tokens(analyzer, text):
        resp = client.indices.analyze(index=os_settings.index_alias, body={"analyzer": analyzer, "text": text})
        return [t["token"] for t in resp["tokens"]]

    stems = tokens("greek_stemmed", "ΚΛΟΠΉ κλοπής Κλοπές")
    assert len(stems) == 3 and len(set(stems)) == 1  # one stem for every inflection and casing
    assert tokens("greek_folded", "Ο ΚΛΈΦΤΗΣ της Τράπεζας") == ["κλεφτησ", "τραπεζασ"]  # stop words gone, no stemming


def test_stop_list_and_empty_stems_are_dropped_on_every_chain(os_settings, client, mini):
    """Every word of the shipped stop list is removed by every chain (so it is in the form the filter sees), words
    Lucene's short _greek_ list kept are gone, and Snowball's empty stems (ίδιο, ίδια) never reach the index."""
    from nomos.mappings import ANALYZERS, ARTICLES, read_stopwords

    index_dataset(os_settings, mini)

    def tokens(analyzer, text):
        resp = client.indices.analyze(index=os_settings.index_alias, body={"analyzer": analyzer, "text": text})
        return [t["token"] for t in resp["tokens"]]

    words = read_stopwords(ARTICLES.parent / "stopwords" / "el.txt")
    for analyzer in ANALYZERS.values():
        assert tokens(analyzer, " ".join(words)) == [], analyzer
        assert tokens(analyzer, "Ένα ΧΩΡΊΣ είχε τη ήταν τις όποιος") == [], analyzer  # accented and upper case too
    assert tokens("greek_stemmed", "το ίδιο, τα ίδια, της ίδιας") == ["ιδι"]  # Lucene's _greek_ chain: ["", "", "ιδι"]
    for text in ("ίδιο", "ίδια", "ΊΔΙΟ ίδιοι"):
        assert "" not in tokens("greek_stemmed", text) and "" not in tokens("greek_ntais", text)
    assert tokens("greek_folded", "ίδιο ίδια") == ["ιδιο", "ιδια"]  # the unstemmed chain keeps them as words


def test_search_ranks_and_highlights(os_settings, mini):
    index_dataset(os_settings, mini)
    hits = search(os_settings, "αφαίρεσε κινητό πράγμα από την κατοχή άλλου για να το ιδιοποιηθεί", k=3)
    assert hits[0].doc_id == "PK::372" and hits[0].title == "Κλοπή" and hits[0].law == "Ποινικός Κώδικας"
    assert any("<mark>" in s for s in hits[0].highlights)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert search(os_settings, "και το της ; , .", k=5) == []  # only stop words and punctuation: no error, no hits


def test_long_queries_survive_the_clause_limit(os_settings, client, mini):
    index_dataset(os_settings, mini)
    base = "Ο κατηγορούμενος αφαίρεσε κινητό πράγμα από την κατοχή άλλου και προκάλεσε βλάβη της υγείας του"
    words = base.split()
    long_query = " ".join(f"{words[i % len(words)]} λέξη{i}" for i in range(2500))  # 5,000 words, ~2,500 distinct stems
    retriever = BM25Retriever(Transport(client), os_settings.index_alias, max_clauses=1024)
    result = retriever.search_many({"long": long_query}, 10)
    hits, note = result.hits["long"], result.query_notes["long"]
    assert hits and note["compact"] and note["dropped_terms"] > 0  # capped to the cluster's clause limit
    # on an ordinary query the compact form scores exactly like the match query
    medium = " ".join([base] * 3)
    as_match = BM25Retriever(Transport(client), os_settings.index_alias, long_query_words=10_000).search(medium, 6)
    as_terms = BM25Retriever(Transport(client), os_settings.index_alias, long_query_words=1).search(medium, 6)
    assert [h.doc_id for h in as_match] == [h.doc_id for h in as_terms]
    assert [round(h.score, 3) for h in as_match] == [round(h.score, 3) for h in as_terms]


def test_cli_eval_end_to_end_writes_runs_and_manifest(os_settings, tmp_path, mini):
    folder = tmp_path / "mini"
    runner = CliRunner()
    args = ["--url", os_settings.url, "--index", os_settings.index_alias]
    res = runner.invoke(cli, [*args, "index", "--no-vectors", "--dataset", str(folder)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(cli, [*args, "eval", "--method", "bm25", "--dataset", str(folder), "--runs-dir", str(tmp_path / "runs")])
    assert res.exit_code == 0, res.output
    for metric in ("recall@10", "recall@100", "ndcg@10", "ndcg@100", "map@100"):
        assert metric in res.output
    out = tmp_path / "runs" / "mini" / "bm25"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["dataset"]["revision"] == "local" and manifest["dataset"]["fingerprint"] == mini.fingerprint
    assert manifest["index"]["bm25"] == {"k1": 1.5, "b": 0.75}
    assert [f["type"] for f in manifest["index"]["analyzer_chain"]["filters"]] == ["lowercase", "stop", "snowball", "length"]
    assert "ειναι" in manifest["index"]["analyzer_chain"]["filters"][1]["stopwords"]  # the inline list is recorded
    assert manifest["opensearch_version"].startswith("2.")
    assert "commit" in manifest["code"]
    trec = (out / "run.trec").read_text().splitlines()
    assert trec[0].split()[:4] == ["q1", "Q0", "PK::372", "1"]
    per_query = (out / "per_query.tsv").read_text().splitlines()
    assert per_query[0].split("\t")[0] == "query" and len(per_query) == 3
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["per_query"]["q1"]["recall@10"] == 1.0
    # the manifest says where the dataset is, so report and compare need no --dataset
    assert manifest["dataset"]["location"] == str(folder.resolve())
    res = runner.invoke(cli, ["report", "bm25", "--runs-dir", str(tmp_path / "runs"), "--permutations", "200"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "runs" / "report.html").is_file()
    res = runner.invoke(cli, ["compare", "bm25", "--runs-dir", str(tmp_path / "runs"), "--permutations", "200"])
    assert res.exit_code == 0 and "PK" in res.output, res.output  # gold sources come from the dataset's judgments


def test_cli_reports_bad_input_and_keeps_the_live_index(os_settings, client, tmp_path, mini):
    index_dataset(os_settings, mini)
    live = alias_targets(client, os_settings.index_alias)
    bad = write_beir(tmp_path / "bad", corpus_text='{"_id": "PK::1", "text": "ok"}\n{"_id": oops}\n')
    res = CliRunner().invoke(cli, ["--url", os_settings.url, "--index", os_settings.index_alias, "index", "--dataset", str(bad)])
    assert res.exit_code == 1 and "corpus.jsonl:2: malformed JSON" in res.output and "Traceback" not in res.output
    assert alias_targets(client, os_settings.index_alias) == live


def test_eval_refuses_an_index_built_from_other_data(os_settings, tmp_path, mini):
    index_dataset(os_settings, mini)
    other = load_beir(write_beir(tmp_path / "other", articles=ARTICLES + [{"_id": "X::1", "text": "άλλο κείμενο"}]))
    with pytest.raises(IndexMismatch, match="was built from the corpus of 'mini'"):
        evaluate_method(os_settings, other)


def test_rejected_mapping_shows_opensearchs_reason(os_settings, client):
    body = articles_index_body(1.2, 0.75)
    body["settings"]["index"]["analysis"]["filter"]["greek_snowball"]["type"] = "no_such_filter"
    with pytest.raises(MappingError, match="OpenSearch rejected the mapping.*no_such_filter"):
        create_index(client, f"{os_settings.index_alias}-bad", body)


def test_bulk_failures_name_each_article(os_settings, client, mini):
    name = f"{os_settings.index_alias}-strict"
    body = articles_index_body(1.2, 0.75)
    body["mappings"]["properties"]["number"] = {"type": "integer"}  # "386Α"-style numbers cannot parse
    create_index(client, name, body)
    articles = [*mini.articles[:2], replace(mini.articles[2], id="PK::386Α")]
    with pytest.raises(BulkError) as err:
        load_articles(client, articles, name)
    assert len(err.value.failures) == 1 and err.value.failures[0].article_id == "PK::386Α"
    assert "PK::386Α: [400]" in str(err.value) and "number" in str(err.value)
