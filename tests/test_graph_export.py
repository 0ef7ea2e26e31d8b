"""``cli.py graph export``: the legal graph written from the corpus files as TSV and GraphML (no node needed)."""

from __future__ import annotations

import csv
import json

import networkx as nx
from click.testing import CliRunner

from nomos.cli import cli
from tests.beir_files import write_beir

ARTICLES = [
    {"_id": "PK::46", "title": "Άμεση συνέργεια", "text": "Με την ποινή του αυτουργού τιμωρείται.", "source": "PK",
     "law": "Ποινικός Κώδικας"},
    {"_id": "PK::49", "title": "Ιδιότητες", "text": "οι συμμέτοχοι κατά το άρθρο 46 παρ. 1 και 47 τιμωρούνται. Το άρθρο 46 παρ. 1 εφαρμόζεται αναλόγως.",
     "source": "PK", "law": "Ποινικός Κώδικας"},
    {"_id": "PK::372", "title": "Κλοπή", "text": "Όποιος αφαιρεί ξένο κινητό πράγμα τιμωρείται.", "source": "PK",
     "law": "Ποινικός Κώδικας"},
    {"_id": "N_4855_2021::86", "title": "Τροποποίηση του άρθρου 372 ΠΚ",
     "text": "Η παρ. 1 του άρθρου 372 ΠΚ τροποποιείται ως εξής: «1. Όποιος … κατά το άρθρο 46». "
             "Καταργείται το άρθρο 5 του ν. 4412/2016.",
     "source": "N_4855_2021", "law": "ν. 4855/2021"},
]
QRELS = [("q1", "PK::372", 1), ("q2", "PK::46", 1)]
EXPECTED = [  # one row per distinct edge, the target always filled (the id as read when the corpus lacks it)
    {"source": "PK::49", "target": "PK::46", "in_corpus": "true", "kind": "cites", "paragraph": "1", "cited": "PK::46",
     "count": "2"},
    {"source": "PK::49", "target": "PK::47", "in_corpus": "false", "kind": "cites", "paragraph": "", "cited": "PK::47",
     "count": "1"},
    {"source": "N_4855_2021::86", "target": "PK::372", "in_corpus": "true", "kind": "amends", "paragraph": "1",
     "cited": "PK::372", "count": "1"},
    {"source": "N_4855_2021::86", "target": "N_4412_2016::5", "in_corpus": "false", "kind": "repeals", "paragraph": "",
     "cited": "N_4412_2016::5", "count": "1"},
]


def test_tsv_lists_every_edge_in_corpus_then_reading_order(tmp_path) -> None:
    data = write_beir(tmp_path / "data", ARTICLES, qrels=QRELS)
    out = tmp_path / "edges.tsv"
    res = CliRunner().invoke(cli, ["graph", "export", "--dataset", str(data), "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    with out.open(encoding="utf-8") as fh:
        assert list(csv.DictReader(fh, delimiter="\t")) == EXPECTED
    doc = json.loads(res.output)
    assert doc["edges"] == 4 and doc["mentions"] == 5 and doc["kinds"]["resolved"] == {"amends": 1, "cites": 2}
    assert doc["kinds"]["unresolved"] == {"cites": 1, "repeals": 1}
    again = tmp_path / "again.tsv"
    CliRunner().invoke(cli, ["graph", "export", "--dataset", str(data), "--out", str(again)])
    assert again.read_bytes() == out.read_bytes()  # deterministic


def test_graphml_is_read_back_by_networkx(tmp_path) -> None:
    data = write_beir(tmp_path / "data", ARTICLES, qrels=QRELS)
    out = tmp_path / "graph.graphml"
    res = CliRunner().invoke(cli, ["graph", "export", "--dataset", str(data), "--format", "graphml", "--out", str(out)])
    assert res.exit_code == 0, res.output
    g = nx.read_graphml(out, force_multigraph=True)
    assert g.is_directed() and g.number_of_edges() == 4
    assert g.nodes["PK::372"]["in_corpus"] is True and g.nodes["N_4412_2016::5"]["in_corpus"] is False
    kinds = sorted((u, v, d["kind"], d["paragraph"]) for u, v, d in g.edges(data=True))
    assert len(set(kinds)) == len(kinds)  # one edge per distinct reference, its repeats counted
    assert g.edges["PK::49", "PK::46", 0]["count"] == 2
    assert ("N_4855_2021::86", "PK::372", "amends", "1") in kinds and ("PK::49", "PK::47", "cites", "") in kinds


def test_bad_corpus_is_a_located_error_not_a_traceback(tmp_path) -> None:
    data = write_beir(tmp_path / "data", corpus_text='{"_id": "PK::1", "text": "x"}\n{not json\n', qrels=[])
    res = CliRunner().invoke(cli, ["graph", "export", "--dataset", str(data), "--out", str(tmp_path / "x.tsv")])
    assert res.exit_code == 1 and "corpus.jsonl" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "x.tsv").exists()


def test_in_force_goes_to_graphml_nodes_and_its_own_file(tmp_path) -> None:
    from tests.test_consolidation import N_4855_86, PK_372

    articles = [{"_id": "PK::372", "title": "Κλοπή", "text": PK_372, "source": "PK",
                 "law": "Ποινικός Κώδικας (ν. 4619/2019)"},
                {"_id": "N_4855_2021::86", "title": "Κλοπή - Τροποποίηση", "text": N_4855_86, "source": "N_4855_2021",
                 "law": "ν. 4855/2021"}]
    data = write_beir(tmp_path / "data", articles, queries=[{"_id": "q1", "text": "κλοπή"}], qrels=[("q1", "PK::372", 1)])
    out, rows = tmp_path / "graph.graphml", tmp_path / "in_force.jsonl"
    res = CliRunner().invoke(cli, ["graph", "export", "--dataset", str(data), "--format", "graphml", "--out", str(out),
                                   "--in-force", str(rows), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["in_force"] == {"statuses": {"full": 1, "partial": 0, "none": 0}, "out": str(rows)}
    g = nx.read_graphml(out, force_multigraph=True)
    assert g.nodes["PK::372"]["in_force_status"] == "full" and "in_force_status" not in g.nodes["N_4855_2021::86"]
    assert "τιμωρείται με φυλάκιση και αν" in g.nodes["PK::372"]["in_force_text"]
    (row,) = [json.loads(line) for line in rows.read_text(encoding="utf-8").splitlines()]
    assert row["id"] == "PK::372" and row["status"] == "full" and row["applied"][0]["source"] == "N_4855_2021::86"
    assert row["passages"][1] == {"text": PK_372.split("\n")[1], "source": "", "changed": False}
