"""Dataset loading and validation: every bad input names its file and line."""

from __future__ import annotations

import json

import pytest

from nomos.ingest.beir import load_beir
from nomos.ingest.huggingface import load_greekbar, rows_to_dataset
from nomos.ingest.loader import load_dataset
from nomos.ingest.records import DatasetError
from tests.beir_files import ARTICLES, QRELS, QUERIES, write_beir


def test_valid_folder_loads_with_provenance(tmp_path):
    ds = load_beir(write_beir(tmp_path / "mini"))
    assert [a.id for a in ds.articles] == [a["_id"] for a in ARTICLES]
    assert ds.qrels == {"q1": {"PK::372": 1}, "q2": {"AK::914": 1, "AK::932": 1}}
    assert ds.queries[1].area == "civil"
    assert ds.articles[0].number == "372" and ds.articles[0].source == "PK"
    assert ds.describe()["judgments"] == 3
    assert len(ds.fingerprint) == 64
    # the fingerprint follows the content
    other = load_beir(write_beir(tmp_path / "other", articles=ARTICLES + [{"_id": "X::1", "text": "κείμενο"}]))
    assert other.fingerprint != ds.fingerprint


def test_malformed_line_names_file_and_line(tmp_path):
    good = [json.dumps(a, ensure_ascii=False) for a in ARTICLES]
    text = "\n".join(good[:2] + ['{"_id": "PK::1", "text": "unterminated'] + good[2:]) + "\n"
    with pytest.raises(DatasetError) as err:
        load_beir(write_beir(tmp_path, corpus_text=text))
    assert "corpus.jsonl:3" in str(err.value) and "malformed JSON" in str(err.value)


def test_duplicate_article_id_names_both_lines(tmp_path):
    with pytest.raises(DatasetError) as err:
        load_beir(write_beir(tmp_path, articles=ARTICLES + [ARTICLES[1]]))
    msg = str(err.value)
    assert f"corpus.jsonl:{len(ARTICLES) + 1}" in msg and "duplicate article id 'PK::375'" in msg and "corpus.jsonl:2" in msg


def test_qrel_naming_missing_article(tmp_path):
    with pytest.raises(DatasetError) as err:
        load_beir(write_beir(tmp_path, qrels=QRELS + [("q1", "PK::999", 1)]))
    assert "test.tsv:5" in str(err.value) and "unknown article 'PK::999'" in str(err.value)


def test_qrel_naming_missing_query(tmp_path):
    with pytest.raises(DatasetError, match=r"test.tsv:\d+: judgment names unknown query 'q9'"):
        load_beir(write_beir(tmp_path, qrels=QRELS + [("q9", "PK::372", 1)]))


def test_query_without_judgments(tmp_path):
    queries = QUERIES + [{"_id": "q3", "text": "Μια υπόθεση χωρίς κρίσεις."}]
    with pytest.raises(DatasetError, match="1 queries have no relevant judgment: q3"):
        load_beir(write_beir(tmp_path, queries=queries))


def test_non_utf8_bytes(tmp_path):
    folder = write_beir(tmp_path)
    data = (folder / "corpus.jsonl").read_bytes().splitlines(keepends=True)
    data[3] = b'{"_id": "PK::308", "text": "\xff\xfe bad"}\n'
    (folder / "corpus.jsonl").write_bytes(b"".join(data))
    with pytest.raises(DatasetError, match=r"corpus.jsonl:4: not valid UTF-8"):
        load_beir(folder)


def test_article_without_text(tmp_path):
    articles = ARTICLES + [{"_id": "PK::1", "title": "Μόνο τίτλος", "text": "   "}]
    with pytest.raises(DatasetError, match=r"corpus.jsonl:7: article 'PK::1' has no text"):
        load_beir(write_beir(tmp_path, articles=articles))


def test_empty_corpus(tmp_path):
    with pytest.raises(DatasetError, match="the corpus is empty"):
        load_beir(write_beir(tmp_path, corpus_text="\n"))


def test_missing_file_and_bad_score(tmp_path):
    folder = write_beir(tmp_path)
    (folder / "qrels" / "test.tsv").write_text("q1\tPK::372\tyes\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"test.tsv:1: score 'yes' is not an integer"):
        load_beir(folder)
    (folder / "queries.jsonl").unlink()
    with pytest.raises(DatasetError, match="queries.jsonl: file is missing"):
        load_beir(folder)


def test_greekbar_offline_says_how_to_use_a_local_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    with pytest.raises(DatasetError) as err:
        load_greekbar(cache_dir=str(tmp_path))
    msg = str(err.value)
    assert "AUEB-NLP/greek-bar-bench@v2.0" in msg and "--dataset ../shared/data/greek-statutes" in msg
    assert "no network: pass --dataset PATH" in msg and "HF_HUB_OFFLINE is set" in msg


def test_an_unreachable_hub_is_found_out_by_one_quick_check(monkeypatch, tmp_path):
    """A closed port answers the TCP check at once: no Hub request, no retries, the cache only."""
    import socket
    import time

    from nomos.ingest.huggingface import offline_reason

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    assert offline_reason() == f"http://127.0.0.1:{port} is unreachable (Connection refused)"
    started = time.monotonic()
    with pytest.raises(DatasetError, match="no network: pass --dataset PATH"):
        load_greekbar(cache_dir=str(tmp_path))
    assert time.monotonic() - started < 10


def test_hub_rows_are_validated_like_files():
    ds = rows_to_dataset(
        ARTICLES,
        QUERIES,
        [{"query-id": q, "corpus-id": d, "score": s} for q, d, s in QRELS],
        "AUEB-NLP/greek-bar-bench",
        "v2.0",
    )
    assert ds.revision == "AUEB-NLP/greek-bar-bench@v2.0" and len(ds.articles) == len(ARTICLES)
    with pytest.raises(DatasetError, match=r"qrels\[3\]: judgment for query 'q1' names unknown article 'PK::0'"):
        rows_to_dataset(ARTICLES, QUERIES, [{"query-id": q, "corpus-id": d, "score": s} for q, d, s in QRELS + [("q1", "PK::0", 1)]], "r", "v")


def test_loader_dispatch(tmp_path):
    assert load_dataset(str(write_beir(tmp_path))).name == tmp_path.name
    with pytest.raises(DatasetError, match="not a folder"):
        load_dataset(str(tmp_path / "nope"))


def _hub_shaped_repo(folder):
    """A local dataset repository laid out as AUEB-NLP/greek-bar-bench's subsets are (quickstart notebook): corpus and
    queries with `id` and `text` only, qrels with `query-id`/`corpus-id`/`score`, the `greekbarbench` records carrying
    each query's `area`, every subset with one split named `test`."""
    rows = {
        "corpus": [{"id": "AK::914", "text": "Άρθρο 914 - Ευθύνη από αδικοπραξία\nΌποιος ζημιώσει άλλον παράνομα και "
                                              "υπαίτια έχει υποχρέωση να τον αποζημιώσει."},
                   {"id": "AK::932", "text": "Άρθρο 932\nΧρηματική ικανοποίηση λόγω ηθικής βλάβης\nΣε περίπτωση "
                                              "αδικοπραξίας το δικαστήριο μπορεί να επιδικάσει χρηματική ικανοποίηση."},
                   {"id": "PK::372", "text": "Όποιος αφαιρεί ξένο κινητό πράγμα από την κατοχή άλλου τιμωρείται."}],
        "queries": [{"id": "q1", "text": "Ο Α τραυμάτισε τον Β.\n\nΤι μπορεί να ζητήσει ο Β;"},
                    {"id": "q2", "text": "Ο Γ πήρε το ποδήλατο του Δ.\n\nΤι έπραξε;"}],
        "qrels": [{"query-id": "q1", "corpus-id": "AK::914", "score": 1},
                  {"query-id": "q1", "corpus-id": "AK::932", "score": 1},
                  {"query-id": "q2", "corpus-id": "PK::372", "score": 1}],
        "greekbarbench": [{"id": "q1", "area": "civil", "facts": "…", "question": "…", "answer": "…"},
                          {"id": "q2", "area": "Ποινικό δίκαιο", "facts": "…", "question": "…", "answer": "…"}],
    }
    for subset, items in rows.items():
        (folder / subset).mkdir(parents=True)
        (folder / subset / "test.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items),
                                                    encoding="utf-8")
    configs = "".join(f"- config_name: {s}\n  data_files:\n  - split: test\n    path: {s}/test.jsonl\n" for s in rows)
    (folder / "README.md").write_text(f"---\nconfigs:\n{configs}---\n", encoding="utf-8")
    return folder


def test_the_benchmark_as_the_hub_ships_it_gets_headings_and_areas(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a local repository: nothing is downloaded
    repo = _hub_shaped_repo(tmp_path / "greek-bar-bench")
    ds = load_greekbar(repo=str(repo), cache_dir=str(tmp_path / "cache"))
    by_id = {a.id: a for a in ds.articles}
    assert by_id["AK::914"].title == "Ευθύνη από αδικοπραξία" and by_id["AK::914"].text.startswith("Όποιος ζημιώσει")
    assert by_id["AK::932"].title == "Χρηματική ικανοποίηση λόγω ηθικής βλάβης"
    assert by_id["PK::372"].title == "" and by_id["PK::372"].text.startswith("Όποιος αφαιρεί")  # no heading: as given
    assert by_id["AK::914"].source == "AK" and by_id["AK::914"].area == "civil"
    assert {q.id: q.area for q in ds.queries} == {"q1": "civil", "q2": "criminal"}  # Greek labels resolve to keys
    assert ds.qrels == {"q1": {"AK::914": 1, "AK::932": 1}, "q2": {"PK::372": 1}}


def test_headings_are_only_taken_where_the_text_begins_with_one():
    from nomos.ingest.huggingface import split_heading

    assert split_heading("Άρθρο 5: Ορισμοί\nΓια τους σκοπούς του παρόντος…") == ("Ορισμοί", "Για τους σκοπούς του παρόντος…")
    assert split_heading("Άρθρο 386Α\nΑπάτη με υπολογιστή\nΌποιος…") == ("Απάτη με υπολογιστή", "Όποιος…")
    one_sentence = "Όποιος αφαιρεί ξένο κινητό πράγμα τιμωρείται."
    assert split_heading(one_sentence) == ("", one_sentence)  # nothing follows: the text, not a heading
    sentence_first = "Ο εργοδότης οφείλει να καταβάλει τον μισθό.\nΗ καταβολή γίνεται μηνιαίως."
    assert split_heading(sentence_first) == ("", sentence_first)
    numbered = "1. Όποιος ζημιώσει άλλον\n2. Η αποζημίωση"
    assert split_heading(numbered) == ("", numbered)


def test_a_corpus_alone_loads_for_indexing(tmp_path):
    """A firm's own statutes: corpus.jsonl only (no queries, no judgments) is a dataset `index` accepts."""
    folder = write_beir(tmp_path / "own")
    (folder / "queries.jsonl").unlink()
    (folder / "qrels" / "test.tsv").unlink()
    ds = load_dataset(str(folder))
    assert len(ds.articles) == len(ARTICLES) and ds.queries == () and ds.qrels == {}
    assert ds.corpus_key == ds.fingerprint  # the corpus is all there is
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tPK::372\t1\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"queries.jsonl: file is missing \(the judgments in .* need their queries\)"):
        load_dataset(str(folder))


def test_new_queries_over_the_same_corpus_keep_its_corpus_fingerprint(tmp_path):
    """The index is named after (and checked against) the corpus only: new queries or judgments need no re-index."""
    from nomos.errors import DataError
    from nomos.stages.evaluation import check_index_matches, check_judged

    first = load_dataset(str(write_beir(tmp_path / "a")))
    more = load_dataset(str(write_beir(tmp_path / "b", queries=[*QUERIES[:1]], qrels=[QRELS[0]])))
    assert first.fingerprint != more.fingerprint and first.corpus_key == more.corpus_key
    check_index_matches({"dataset": first.describe()}, more, "alias")  # the same corpus: accepted
    check_index_matches({"dataset": {"fingerprint": first.fingerprint}}, first, "alias")  # an index from before
    other = load_dataset(str(write_beir(tmp_path / "c", articles=ARTICLES[:3], qrels=[QRELS[0]], queries=QUERIES[:1])))
    with pytest.raises(DataError, match="not from the corpus of 'c'.*need no re-index: pass them with --queries/--qrels"):
        check_index_matches({"dataset": first.describe()}, other, "alias")
    corpus_only = tmp_path / "own"
    write_beir(corpus_only)
    (corpus_only / "queries.jsonl").unlink()
    (corpus_only / "qrels" / "test.tsv").unlink()
    with pytest.raises(DataError, match="has no queries to evaluate: pass --queries FILE"):
        check_judged(load_dataset(str(corpus_only)))
