"""Every version of an article through the portal, on a real node (issue 49): ``/api/articles/{id}/versions``, one
version by its law in any usual form, the word diff between two, the article page's version picker and the versions
page, whose diff reads without colour (<ins>/<del> with [+ +] / [- -]) and which says when the law takes effect.

The small corpus of tests/in_force_support.py (PK::372 amended by ν. 4855/2021 art. 86), with ν. 4855/2021's
commencement article added, indexed as ingest indexes it: the versions are the ones ingest stores."""

from __future__ import annotations

import json
import uuid

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from nomos.cli import cli
from nomos.ingest.beir import load_beir
from nomos.opensearch.client import make_client
from nomos.portal import create_app
from nomos.stages.indexing import index_dataset
from tests.beir_files import write_beir
from tests.in_force_support import AMENDS_372, ARTICLES, LAW_4855, NEW_372_1, P372_1, P372_2

pytestmark = pytest.mark.integration

COMMENCEMENT = {"_id": "N_4855_2021::203", "title": "Έναρξη ισχύος", **LAW_4855,
                "text": "Η ισχύς του παρόντος νόμου αρχίζει από τη δημοσίευσή του στην Εφημερίδα της Κυβερνήσεως. "
                        "Παραγγέλλομε τη δημοσίευση του παρόντος. Αθήνα, 12 Νοεμβρίου 2021 Η Πρόεδρος"}


@pytest.fixture(scope="module")
def indexed(cluster, tmp_path_factory):
    folder = tmp_path_factory.mktemp("versions")
    alias = f"pytest-versions-{uuid.uuid4().hex[:8]}"
    settings = cluster.with_overrides(index_alias=alias, runs_dir=folder / "runs", cache_dir=folder / "cache")
    index_dataset(settings, load_beir(write_beir(folder / "data", [*ARTICLES, COMMENCEMENT],
                                                 [{"_id": "q1", "text": "κλοπή"}], [("q1", "PK::372", 1)])))
    try:
        yield settings
    finally:
        make_client(settings.cluster).indices.delete(index=f"{alias}*", ignore_unavailable=True)


@pytest.fixture(scope="module")
def web(indexed):
    with TestClient(create_app(indexed)) as c:
        yield c


def test_every_version_with_its_provenance_and_when_it_takes_effect(web) -> None:
    r = web.get("/api/articles/PK::372/versions")
    assert r.status_code == 200, r.text
    doc = r.json()
    assert doc["amended"] is True and [v["law"] for v in doc["versions"]] == ["original", "N_4855_2021"]
    original, after = doc["versions"]
    assert original["text"] == f"{P372_1}\n{P372_2}" and original["applied"] == [] and original["exact"]
    assert original["label"] == "Αρχικό κείμενο" and after["label"] == "Μετά τον ν. 4855/2021"
    assert after["text"] == f"{NEW_372_1}\n{P372_2}" and after["amending"] == [AMENDS_372]
    assert after["applied"][0]["source"] == AMENDS_372 and after["applied"][0]["action"] == "replace-paragraph"
    assert after["passages"][0]["source"] == AMENDS_372 and after["passages"][0]["changed"] is True
    assert after["effective"] == ("Η ισχύς του παρόντος νόμου αρχίζει από τη δημοσίευσή του στην Εφημερίδα της "
                                  "Κυβερνήσεως. (Αθήνα, 12 Νοεμβρίου 2021)")


def test_one_version_by_its_law_in_any_usual_form(web) -> None:
    for name in ("N_4855_2021", "ν. 4855/2021", "4855/2021", AMENDS_372):
        r = web.get(f"/api/articles/PK::372/versions/{name}")
        assert r.status_code == 200 and r.json()["law"] == "N_4855_2021", (name, r.text)
    assert web.get("/api/articles/PK::372/versions/original").json()["text"].startswith(P372_1)
    missing = web.get("/api/articles/PK::372/versions/ν. 4870/2021")
    assert missing.status_code == 404 and "N_4855_2021" in missing.json()["detail"]
    assert web.get("/api/articles/PK::9999/versions").status_code == 404


def test_an_article_nothing_amends_has_its_original_as_its_one_version(web) -> None:
    doc = web.get("/api/articles/PK::49/versions").json()
    assert doc["amended"] is False and [v["law"] for v in doc["versions"]] == ["original"]
    assert doc["versions"][0]["text"].startswith("Οι ιδιότητες του αυτουργού")


def test_the_word_diff_between_two_versions(web) -> None:
    doc = web.get("/api/articles/PK::372/diff").json()  # default: the text in force against the version before it
    assert (doc["before"], doc["after"]) == ("original", "N_4855_2021")
    inserted = " ".join(r["text"] for r in doc["runs"] if r["op"] == "insert")
    deleted = " ".join(r["text"] for r in doc["runs"] if r["op"] == "delete")
    assert "πέντε" in inserted and "διάρρηξη" in inserted and "τρία" in deleted
    assert "".join(r["text"] for r in doc["runs"] if r["op"] != "insert") == f"{P372_1}\n{P372_2}"
    same = web.get("/api/articles/PK::372/diff", params={"from": "N_4855_2021", "to": "N_4855_2021"}).json()
    assert [r["op"] for r in same["runs"]] == ["equal"] and same["inserted_words"] == 0


def test_the_article_page_has_a_version_picker_and_the_versions_page_marks_changes_in_words(web) -> None:
    page = web.get("/articles/PK::372").text
    assert 'id="version-picker"' in page and 'value="N_4855_2021" selected' in page
    assert 'id="version-picker"' not in web.get("/articles/PK::49").text
    r = web.get("/articles/PK::372/versions", params={"from": "original", "to": "N_4855_2021"})
    assert r.status_code == 200
    html = r.text
    assert '<ins title="προστέθηκε"><span class="mark">[+</span>' in html and "<del" in html
    assert '<span class="mark">[-</span>' in html and "+]</span></ins>" in html
    assert 'id="effective"' in html and "12 Νοεμβρίου 2021" in html
    assert "Μετά τον ν. 4855/2021" in html and "άρθρο 86 ν. 4855/2021" in html  # the instruction's article
    # the version alone, with nothing to compare it with
    alone = web.get("/articles/PK::372/versions", params={"from": "original", "to": "original"}).text
    assert 'id="version-text"' in alone and "<ins" not in alone
    assert web.get("/articles/PK::372/versions", params={"to": "ν. 4870/2021"}).status_code == 404


def test_the_cli_prints_the_article_as_it_stood_after_a_law(indexed) -> None:
    env = {"OPENSEARCH_URL": indexed.url, "NOMOS_INDEX": indexed.index_alias}
    runner = CliRunner(env=env)
    before = runner.invoke(cli, ["article", "PK::372", "--after", "original"])
    assert before.exit_code == 0, before.output
    assert before.output.splitlines()[0] == "PK::372 Κλοπή: original" and P372_1 in before.output
    now = runner.invoke(cli, ["article", "PK::372"])  # the default: the text in force
    assert "after ν. 4855/2021 (N_4855_2021::86)" in now.output and NEW_372_1 in now.output
    assert "in force: Η ισχύς του παρόντος νόμου αρχίζει" in now.output
    diff = runner.invoke(cli, ["article", "PK::372", "--after", "4855/2021", "--diff", "original"])
    assert "[-τρία έτη.-]" in diff.output and "[+πέντε ετών" in diff.output
    listed = runner.invoke(cli, ["article", "PK::372", "--versions", "--json"])
    assert [v["law"] for v in json.loads(listed.output)["versions"]] == ["original", "N_4855_2021"]
    missing = runner.invoke(cli, ["article", "PK::372", "--after", "ν. 4870/2021"])
    assert missing.exit_code != 0 and "no version after 'ν. 4870/2021'" in missing.output
    assert "Traceback" not in missing.output


def test_a_search_gives_each_amended_hits_wording_as_of_a_law(web) -> None:
    plain = web.get("/api/search", params={"q": "κλοπή ξένο κινητό πράγμα", "method": "bm25"}).json()
    assert all(h["as_of"] is None for h in plain["hits"])
    before = web.get("/api/search", params={"q": "κλοπή ξένο κινητό πράγμα", "method": "bm25",
                                            "before": "ν. 4855/2021"}).json()
    assert [h["id"] for h in before["hits"]] == [h["id"] for h in plain["hits"]]  # the ranking is the usual one
    hits = {h["id"]: h for h in before["hits"]}
    then = hits["PK::372"]["as_of"]
    assert then["law"] == "original" and then["today"] is False and then["changed_since_by"] == ["ν. 4855/2021"]
    assert then["text"] == f"{P372_1}\n{P372_2}"
    assert hits["PK::375"]["as_of"] is None or hits["PK::375"]["as_of"]["today"]  # 375: nothing applied to it
    after = web.get("/api/search", params={"q": "κλοπή ξένο κινητό πράγμα", "method": "bm25",
                                           "after": "4855/2021"}).json()
    now = {h["id"]: h for h in after["hits"]}["PK::372"]["as_of"]
    assert now["law"] == "N_4855_2021" and now["today"] is True and now["text"].startswith(NEW_372_1)
    bad = web.get("/api/search", params={"q": "κλοπή", "after": "χθες"})
    assert bad.status_code == 422 and "names no law" in bad.json()["detail"]
    both = web.get("/api/search", params={"q": "κλοπή", "after": "4855/2021", "before": "4855/2021"})
    assert both.status_code == 422


def test_the_cli_search_prints_the_wording_before_a_law(indexed) -> None:
    runner = CliRunner(env={"OPENSEARCH_URL": indexed.url, "NOMOS_INDEX": indexed.index_alias})
    res = runner.invoke(cli, ["search", "--method", "bm25", "--before", "4855/2021", "κλοπή ξένο κινητό πράγμα"])
    assert res.exit_code == 0, res.output
    assert "the amended hits' wording before 4855/2021" in res.output
    assert "PK::372: the original text (changed since by ν. 4855/2021): 1. Όποιος αφαιρεί" in res.output
    doc = json.loads(runner.invoke(cli, ["search", "--method", "bm25", "--after", "4855/2021", "--json",
                                         "κλοπή ξένο κινητό πράγμα"]).output)
    assert doc["as_of"]["hits"]["PK::372"]["today"] is True and doc["as_of"]["before"] is False
